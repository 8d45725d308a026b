"""The Python API: :func:`position` and :func:`solve` (a :class:`Solution`), :func:`can_reach`,
:func:`schwarz_possible`, and the module-wide transposition table they use when given none."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.rules.cards import SEAT_NAMES, cards_of, parse_card, parse_cards, parse_hand
from sim.rules.games import NULL, game_id
from sim.rules.tricks import STATE, CardPlay
from sim.solver.frames import NODES, new_stack
from sim.solver.roots import declarer_reaches, declarer_takes_all, keeping_cards, open_hand_value
from sim.solver.transpositions import new_transpositions


@dataclass(frozen=True)
class Solution:
    """The open-hand answer for one position.

    ``declarer_points``: the declarer's card points at the end with best play on both
    sides (None in null). ``declarer_wins``: 61 or more; in null, no trick taken.
    ``schwarz_possible``: the declarer can take every trick (None in null).
    ``best_cards``: the legal cards of the side to move that keep the value (for null,
    the outcome), lowest id first; empty once the game is over. ``nodes``: positions
    searched, all questions together.
    """

    game: int
    declarer_points: int | None
    declarer_wins: bool
    schwarz_possible: bool | None
    best_cards: tuple[int, ...]
    nodes: int


_DEFAULT_TRANSPOSITIONS: list[np.ndarray] = []


def default_transpositions() -> np.ndarray:
    """The module-wide transposition table the Python API uses when given none (made on first use)."""
    if not _DEFAULT_TRANSPOSITIONS:
        _DEFAULT_TRANSPOSITIONS.append(new_transpositions())
    return _DEFAULT_TRANSPOSITIONS[0]


def _workspace(transpositions):
    return (default_transpositions() if transpositions is None else transpositions), new_stack()


def _aside_mask(aside) -> int:
    return parse_hand(aside) if isinstance(aside, (str, list, tuple)) else int(aside)


def _checked(state) -> np.ndarray:
    state = np.asarray(state)
    if state.shape != (STATE.size,) or state.dtype != np.int64:
        raise ValueError(f"a play state is an int64 array of {STATE.size} (sim.rules.tricks), not {state.dtype} "
                         f"{state.shape}")
    return state


def position(hands, game, declarer, played=()) -> np.ndarray:
    """A play state from the three hands as play starts (the declarer's after the discard; masks
    or text), the game (name or id), the declarer (0, 1, 2 or a seat name) and the cards already
    played in order (ids, or text such as ``"CA C7 C8 SJ"``), each checked against the rules."""
    masks = [parse_hand(h) if isinstance(h, (str, list, tuple)) else int(h) for h in hands]
    seat = SEAT_NAMES.index(declarer) if isinstance(declarer, str) else int(declarer)
    play = CardPlay(masks, game_id(game), seat)
    cards = parse_cards(played) if isinstance(played, str) else [
        parse_card(c) if isinstance(c, str) else c for c in played]
    for c in cards:
        play.play(c)
    return play.state.copy()


def solve(state, aside=0, transpositions: np.ndarray | None = None, best_cards: bool = True) -> Solution:
    """Everything the solver knows about one position (see :class:`Solution`).

    ``aside``: the two cards that count for the declarer unplayed (mask or
    text): the discard, or the skat of a hand game. ``transpositions``: a transposition table
    to reuse (:func:`new_transpositions`); by default a module-wide one.
    """
    state = _checked(state)
    tt, stack = _workspace(transpositions)
    aside = _aside_mask(aside)
    game = int(state[STATE.game])
    value = int(open_hand_value(state, aside, tt, stack))
    nodes = int(stack[NODES, 0])
    keep = ()
    if best_cards:
        keep = tuple(cards_of(int(keeping_cards(state, aside, value, tt, stack))))
        nodes += int(stack[NODES, 0])
    if game == NULL:
        return Solution(game, None, bool(value), None, keep, nodes)
    schwarz = bool(declarer_takes_all(state, tt, stack))
    nodes += int(stack[NODES, 0])
    return Solution(game, value, value >= 61, schwarz, keep, nodes)


def can_reach(state, aside, threshold: int, transpositions: np.ndarray | None = None) -> bool:
    """Suit and grand games: can the declarer reach ``threshold`` card points (31 out of
    schneider, 61 to win, 90 schneider)? False means the defenders can hold them under it."""
    state = _checked(state)
    if int(state[STATE.game]) == NULL:
        raise ValueError("null games have no card points to reach; use solve() for whether the declarer wins")
    tt, stack = _workspace(transpositions)
    return bool(declarer_reaches(state, _aside_mask(aside), int(threshold), tt, stack))


def schwarz_possible(state, transpositions: np.ndarray | None = None) -> bool:
    """Suit and grand games: can the declarer take every trick? False means the defenders can take one."""
    state = _checked(state)
    if int(state[STATE.game]) == NULL:
        raise ValueError("schwarz is not a question in null games")
    tt, stack = _workspace(transpositions)
    return bool(declarer_takes_all(state, tt, stack))
