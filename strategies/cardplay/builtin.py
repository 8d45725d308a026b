"""The built-in card players in one play loop that numba caches between processes.

:func:`sim.rules.play.play_out` takes each seat's player as a numba function, and numba
cannot cache a kernel that takes functions as arguments, so that loop compiles again in
every process. A built-in player instead has a kind (``CardPolicy.builtin``; the play loop
reads the seats' kinds from :class:`strategies.cardplay.policy.Seats`): :func:`builtin_card`
calls the player of that kind by name, and :func:`play_out_builtin` is ``play_out`` with
``builtin_card`` at every seat (asking the players of ``DIRECT_KINDS`` straight, which saves the
call's cost). :mod:`strategies.deals` plays a batch through this loop
when every seat's player has a kind in :data:`BUILTIN_KINDS`, and through ``play_out``
otherwise. The kinds, each defined in its player's module: ``random`` 0, ``heuristic`` 1,
``pimc`` 2, ``open_hand`` 3, ``learned`` 4.

How a new card player joins this loop (docs/writing-strategies.md works one through):

1. Its own module in ``strategies/cardplay/`` holds its kernel ``card(view, legal, params,
   data, rng) -> (rng, card)`` under ``@njit(cache=True)``, its kind ``NAME_KIND`` (the next
   free number), the declaration of its parameters and the slots of its row
   (:func:`strategies.parameters.slots`), and a registered factory that returns
   ``CardPolicy(name, kernel, row(SLOTS, PARAMETERS, values), builtin=NAME_KIND)``.
2. This module imports the kernel and the kind, adds the kind to ``BUILTIN_KINDS``, and
   gives :func:`builtin_card` a branch before its last line:
   ``if kind == NAME_KIND: return kernel(view, legal, params, data, rng)``. A player that searches
   with the open-hand solver also takes ``tt`` and ``stack`` (and may take ``state`` and
   ``aside`` if it is meant to see every hand), and its kind goes into
   ``SEARCHING_KINDS`` so that the batch gets a transposition table of full size.
3. ``strategies/cardplay/__init__.py`` imports its module, so that it registers with the package.

The loop plays exactly what ``play_out`` plays with the same kernels: the same cards from
the same random streams.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import solver
from sim.rules.play import check_card, log_and_play, start_turn
from sim.rules.tricks import STATE, to_play

from .heuristic import HEURISTIC, HEURISTIC_KIND, choose_among, heuristic_card, heuristic_choice
from .learned import LEARNED_KIND, learned_card, learned_play
from .open_hand import OPEN_HAND_KIND, open_hand_best
from .pimc import PIMC_KIND, pimc_best
from .random_cards import RANDOM_KIND, random_card, random_choice

#: The kinds builtin_card plays.
BUILTIN_KINDS = (RANDOM_KIND, HEURISTIC_KIND, PIMC_KIND, OPEN_HAND_KIND, LEARNED_KIND)
#: The kinds that search with the open-hand solver (the play loop hands them its transposition table).
SEARCHING_KINDS = (PIMC_KIND, OPEN_HAND_KIND)
#: The kinds the play loop asks straight, without builtin_card: the players that search nothing. A seating
#: of these alone plays with ``tt`` None, and its loop compiles without the searching players' kernels (a
#: first run of the default or the club profile compiles no solver or PIMC); with ``data`` None too (no
#: seat has a model) it compiles without the learned player's.
DIRECT_KINDS = (HEURISTIC_KIND, RANDOM_KIND, LEARNED_KIND)


@njit(cache=True)
def builtin_card(kind, view, legal, params, data, rng, state, aside, tt, stack):
    """The card of the built-in player of ``kind``, its row ``params`` and its ``data``. The searching
    players use the solver's transposition table ``tt`` and ``stack``; only ``open_hand`` reads the full ``state`` (it
    sees every hand)."""
    if kind == HEURISTIC_KIND:
        return heuristic_card(view, legal, params, data, rng)
    if kind == PIMC_KIND:
        rng, best = pimc_best(view, legal, params, data, rng, tt, stack)
        return rng, choose_among(view, best)
    if kind == OPEN_HAND_KIND:
        return rng, choose_among(view, open_hand_best(state, aside, legal, tt, stack))
    if kind == LEARNED_KIND:
        return learned_card(view, legal, params, data, rng)
    return random_card(view, legal, params, data, rng)


# Inlined (numba IR) into play_batch_builtin, its caller once a deal: compiled on its own, the whole play
# loop would be optimised twice, once here and again inside the batch (about 2 s of the first run).
@njit(cache=True, inline="always")
def play_out_builtin(state, discard, view, kinds, params, data, rng, log, aside, tt, stack):
    """:func:`sim.rules.play.play_out` for built-in players, calling them directly so numba can cache it.

    ``kinds``, ``params`` and ``data`` are the seats' (:class:`strategies.cardplay.policy.Seats`).
    ``discard`` is the declarer's discard as the views show it (0 in a hand game);
    ``aside`` the two cards that count for the declarer unplayed (its discard, or the skat of a hand game),
    for the open-hand player.
    With ``tt`` and ``stack`` None the seats must be of :data:`DIRECT_KINDS` alone (numba then leaves
    ``builtin_card`` out of this loop's compile), and with ``data`` None too of heuristic and random players.
    """
    log[:] = -1
    n = 0
    while not state[STATE.finished]:
        seat = to_play(state)
        legal = start_turn(state, discard, view)
        # The players of DIRECT_KINDS are called straight from here, the others through builtin_card: a
        # call of builtin_card passes its ten arguments (seven arrays) in memory, tens of ns a turn, and
        # compiles the solver and PIMC with the loop.
        kind = kinds[seat]
        if kind == HEURISTIC_KIND:
            rng, card = heuristic_choice(view, legal, params[seat, HEURISTIC.deviation], rng)
        elif kind == LEARNED_KIND and data is not None:
            card = learned_play(view, legal, data[seat])
        elif kind == RANDOM_KIND or tt is None:
            rng, card = random_choice(legal, rng)
        else:
            rng, card = builtin_card(kind, view, legal, params[seat], data[seat], rng, state, aside, tt,
                                     stack)
        # finish_turn's two halves, called apart: bound across the check's raise, the state and the log
        # would each cost numba two atomic reference counts a turn
        check_card(legal, card)
        log_and_play(state, card, log, n)
        n += 1
    return rng


def new_workspace(bits: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """The transposition table and stack a play loop hands its searching players (``bits``: 2**bits entries)."""
    return solver.new_transpositions(bits), solver.new_stack()
