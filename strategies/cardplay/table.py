"""The table: the card players of the three seats as every play loop sees them, and the one way to ask a seat.

Every loop that plays cards (whole deals, lockstep batches, the teachers' replays and play-outs) is
written once against :func:`table_card` and never names a player. A :class:`Table` holds the distinct
kernel players of a seating (:class:`strategies.cardplay.policy.KernelPlayer`), which of them sits at
each seat (``seated``; -1 for a seat played in Python, :mod:`strategies.lockstep`) and their
parameter rows and data. Its numba type names those players, so numba compiles a loop once for each
set of players it meets, and caches it between processes like any other kernel; the call that asks a
seat is generated from the players' declarations when the loop compiles (a kernel that searches gets
the solver's table, one with a ``turn`` is asked through it). A new kernel player, built in or from
another package, is one module and one registration.

The type's name also holds a digest of each player's source file, so that a loop compiled with a
player's old code is never loaded once that file changes.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
from dataclasses import dataclass

import numpy as np
from numba import njit, types
from numba.core.extending import NativeValue, models, overload, register_model, typeof_impl, unbox

from sim import solver
from sim.rules.play import check_card, log_and_play, start_turn
from sim.rules.tricks import STATE, to_play

from ..registry import StrategyError
from .policy import CardPolicy, KernelPlayer

#: The solver's transposition table of a batch with a searching player: 2**20 entries (16 MB); without one the
#: loops get a table of 2**8 entries that no player reads.
SEARCH_TRANSPOSITION_BITS = 20
IDLE_TRANSPOSITION_BITS = 8


@dataclass(frozen=True, eq=False)
class Table:
    """The card players of the three seats: ``players`` the distinct kernel players, ``seated`` (3, int64)
    the index in ``players`` of each seat's (-1 for a seat played in Python), ``params`` (3 rows of
    float64) and ``data`` (3 rows of float32) each seat's, each matrix padded with zeros to its longest
    row. Passed to a kernel it is the numba type :class:`TableType`, which carries the players."""

    players: tuple[KernelPlayer, ...]
    seated: np.ndarray
    params: np.ndarray
    data: np.ndarray
    key: tuple

    @property
    def searches(self) -> bool:
        """Whether a player of the table searches with the open-hand solver."""
        return any(p.searches for p in self.players)

    def workspace(self, bits: int = SEARCH_TRANSPOSITION_BITS) -> tuple[np.ndarray, np.ndarray]:
        """The transposition table and stack of a batch: of 2**bits entries if a player searches."""
        return new_workspace(bits if self.searches else IDLE_TRANSPOSITION_BITS)


def table_of(policies) -> Table:
    """The :class:`Table` of the three seats' card players; a seat whose player is not a
    :class:`CardPolicy` (a player in Python) is left to its own loop (``seated`` -1)."""
    players, names = [], []
    seated = np.full(3, -1, dtype=np.int64)
    params = [np.zeros(0, np.float64)] * 3
    data = [np.zeros(0, np.float32)] * 3
    for seat, policy in enumerate(policies):
        if not isinstance(policy, CardPolicy):
            continue
        if policy.player.reads_model and policy.data is None:
            raise StrategyError(f"card player {policy.name!r} reads a model, and none was given")
        if policy.player not in players:
            players.append(policy.player)
            names.append(policy.name)
        seated[seat] = players.index(policy.player)
        params[seat] = np.asarray(policy.params, dtype=np.float64)
        if policy.data is not None:
            data[seat] = np.asarray(policy.data, dtype=np.float32).ravel()
    keys = [_player_key(p, name) for p, name in zip(players, names)]
    order = sorted(range(len(players)), key=keys.__getitem__)   # one type for a set of players, in any seating
    place = {old: new for new, old in enumerate(order)}
    seated = np.array([place[k] if k >= 0 else -1 for k in seated], dtype=np.int64)
    return Table(tuple(players[k] for k in order), seated, _padded(params), _padded(data),
                 tuple(keys[k] for k in order))


def _padded(rows: list[np.ndarray]) -> np.ndarray:
    """The rows stacked, each padded with zeros to the longest (at least one column, so that every kernel
    sees a matrix of the same type)."""
    width = max(1, *(len(r) for r in rows))
    return np.stack([np.pad(r, (0, width - len(r))) for r in rows])


def new_workspace(bits: int = SEARCH_TRANSPOSITION_BITS) -> tuple[np.ndarray, np.ndarray]:
    """A transposition table (2**bits entries) and stack for the searching players of a batch."""
    return solver.new_transpositions(bits), solver.new_stack()


# --- the numba type --------------------------------------------------------------------------


def _player_key(player: KernelPlayer, name: str) -> tuple:
    """What the numba type keeps of a player: where its kernels live, whether it searches, and digests of
    their source files."""
    card = _where(player.card, name)
    turn = _where(player.turn, name) if player.turn is not None else ("", "")
    return (*card, *turn, player.searches, _source_digest(card[0]), _source_digest(turn[0]) if turn[0] else "")


def _where(kernel, name: str) -> tuple[str, str]:
    """(module, name) of a module-level numba kernel; anything else is refused in one line."""
    function = getattr(kernel, "py_func", None)
    module, qualname = getattr(function, "__module__", None), getattr(function, "__qualname__", "")
    try:
        found = getattr(importlib.import_module(module), qualname, None) if module else None
    except ImportError:
        found = None
    if function is None or found is not kernel:
        raise StrategyError(f"card player {name!r}: its kernel must be a numba function (@njit) defined at the "
                            f"top level of an importable module, not {kernel!r}")
    return module, qualname


@functools.cache
def _source_digest(module: str) -> str:
    try:
        source = inspect.getsourcefile(importlib.import_module(module))
        with open(source, "rb") as file:
            return hashlib.sha256(file.read()).hexdigest()[:16]
    except (OSError, TypeError):
        return ""


class TableType(types.Type):
    """The numba type of a :class:`Table`: the key of each of its players (:func:`_player_key`)."""

    def __init__(self, players: tuple):
        self.players = players
        super().__init__(name=f"Table{players}")


@typeof_impl.register(Table)
def _typeof_table(table, context):
    return TableType(table.key)


register_model(TableType)(models.OpaqueModel)


@unbox(TableType)
def _unbox_table(typ, obj, c):
    return NativeValue(c.context.get_dummy_value())   # the type is all a kernel reads of a table


# --- asking a seat ---------------------------------------------------------------------------


def table_card(table, player, seat, view, legal, params, data, rng, state, aside, tt, stack):
    """(rng, card): the card of ``seat``, whose player is ``player`` of ``table`` (its ``seated[seat]``),
    with the table's ``params`` and ``data``; a searching player also gets the play ``state``, the cards
    ``aside``, and ``tt`` and ``stack``. Called from numba kernels only."""
    raise TypeError("table_card is called from numba kernels only")


@overload(table_card, inline="always")
def _table_card(table, player, seat, view, legal, params, data, rng, state, aside, tt, stack):
    """The call of each player of the table's type, generated from their declarations."""
    if not isinstance(table, TableType):
        return None
    scope, lines = {"np": np}, []
    for i, (module, card, turn_module, turn, searches, *_) in enumerate(table.players):
        if turn:
            scope[f"turn{i}"] = getattr(importlib.import_module(turn_module), turn)
            call = f"turn{i}(view, legal, params, data, seat, rng)"
        else:
            scope[f"card{i}"] = getattr(importlib.import_module(module), card)
            more = ", state, aside, tt, stack" if searches else ""
            call = f"card{i}(view, legal, params[seat], data[seat], rng{more})"
        last = i == len(table.players) - 1
        lines += [f"    return {call}"] if last else [f"    if player == {i}:", f"        return {call}"]
    if not lines:   # every seat plays in Python: no kernel is ever asked
        lines = ["    if player < 0:", "        raise ValueError('no card player sits at this seat')",
                 "    return rng, np.int64(-1)"]
    exec("def ask(table, player, seat, view, legal, params, data, rng, state, aside, tt, stack):\n"
         + "\n".join(lines), scope)
    return scope["ask"]


# Inlined (numba IR) into its callers, each once a deal: compiled on its own, the whole play loop would be
# optimised twice, once here and again inside the batch.
@njit(cache=True, inline="always")
def play_out(state, discard, view, table, seated, params, data, rng, log, aside, tt, stack):
    """Play ``state`` to the end with the players of ``table`` (its ``seated``, ``params`` and ``data``); ``log``
    (30 int8) receives the cards in order, -1 for none. ``discard`` is the declarer's discard as the views show
    it (0 in a hand game); ``aside`` the two cards that count for the declarer unplayed. Returns the random
    state; raises ValueError when a player chooses a card that is not legal."""
    log[:] = -1
    n = 0
    while not state[STATE.finished]:
        seat = to_play(state)
        legal = start_turn(state, discard, view)
        rng, card = table_card(table, seated[seat], seat, view, legal, params, data, rng, state, aside, tt, stack)
        # finish_turn's two halves, called apart: bound across the check's raise, the state and the log
        # would each cost numba two atomic reference counts a turn
        check_card(legal, card)
        log_and_play(state, card, log, n)
        n += 1
    return rng
