"""Open-hand (double-dummy) solver: the exact value of a card-play position with all hands known.

With every hand open, the declarer maximizes the card points they take and the
two defenders, a team, minimize them. The solver answers for any position of a
play state (:mod:`sim.rules.tricks`), mid-trick included:

- suit and grand games: the declarer's card points at the end of the game (the two
  cards that count for the declarer unplayed and the tricks already won included),
  whether that wins (61 or more), whether a threshold is reached (31, 61, 90 or any
  other), whether the declarer can take every trick (schwarz);
- null games: whether the declarer can avoid taking any trick;
- the best cards of the side to move: every legal card that keeps the open-hand value
  (for null, that keeps the outcome).

From Python, on one position::

    from sim import solver

    hands = ["CJ SJ HJ DJ CA SA HA DA C10 S10", "C9 C8 C7 S9 S8 S7 H9 H8 H7 D9",
             "CK CQ SK SQ HK HQ DK DQ D8 D7"]
    state = solver.position(hands, "grand", declarer=0)
    s = solver.solve(state, aside="H10 D10")
    s.declarer_points, s.declarer_wins, s.schwarz_possible   # 120, True, True
    s.best_cards                                           # all ten of forehand's cards keep 120
    solver.can_reach(state, "H10 D10", 90)                 # True: schneider

    # a position after some cards (checked against the rules as they are played)
    later = solver.position(hands, "grand", declarer=1, played="CJ C9")
    solver.solve(later, "H10 D10").declarer_points         # 20: only the skat

``solve`` takes an optional ``transpositions`` (:func:`new_transpositions`) to keep between calls; by
default a module-wide 16 MB transposition table is used. Entries are keyed by the whole position
(hands, leader, game, declarer, what is counted), so one transposition table serves any mix of
deals, games and declarers without clearing.

From numba (for example a Monte Carlo card player solving many sampled worlds per
decision), with a transposition table and a search stack made once per thread::

    transpositions, stack = solver.new_transpositions(), solver.new_stack()
    value = solver.open_hand_value(state, aside, transpositions, stack)
    nodes = stack[solver.NODES, 0]
    solver.solve_batch(states, asides, transpositions, out_values, out_nodes)

``open_hand_value`` gives the declarer's card points (suit, grand) or 1 / 0 (null:
the declarer avoids every trick / does not); :func:`declarer_reaches`,
:func:`declarer_takes_all`, :func:`keeping_cards` and :func:`card_values` are the
other kernels; :func:`equal_cards` says which legal cards are worth the same without
searching. Each search resets the node counter ``stack[NODES, 0]`` and leaves its count
there.

How it searches: a fail-soft alpha-beta over the value of the remaining cards
(principal variation search for exact values, null windows for thresholds), card by
card with an explicit stack so that numba compiles one cached loop. Legal cards and
trick winners come from the engine (:func:`sim.rules.tricks.legal_moves`,
:func:`sim.rules.tricks.trick_winner`). At each trick start a transposition table
keyed by the remaining hands stores bounds of the remaining value and the best card;
positions that differ only by which of two interchangeable low cards (7 8 9, or two
jacks) is gone share an entry. Cards of one hand that no card in play separates count
once when they are worth the same points (any card in null and schwarz searches).
Cheap sure points cut early: trumps no one can beat, and the winners the side on lead
can cash in a row. Moves are ordered with the stored best card first, then cards that
likely win the trick for the mover's side (adding points), then the cheapest. The last
three tricks are played out directly, card by card, without frames.
See docs/solver.md for the measured speed.

The package, one module each:

- :mod:`sim.solver.frames`: what a search counts, the columns of a search frame, the stack.
- :mod:`sim.solver.layout`: cards laid out by each game's order, their runs, the cards of a hand worth searching.
- :mod:`sim.solver.bounds`: sure points, cheap bounds at a trick start.
- :mod:`sim.solver.transpositions`: the transposition table (:func:`new_transpositions`, probe, store).
- :mod:`sim.solver.search`: the alpha-beta search over the stack of frames.
- :mod:`sim.solver.endgame`: the last two and three tricks played out directly.
- :mod:`sim.solver.roots`: the numba kernels on a play state (:func:`open_hand_value` and the others).
- :mod:`sim.solver.api`: the Python API (:func:`position`, :func:`solve`, :class:`Solution` ...).
- :mod:`sim.solver.open_hand`: answers for game records and declared games.

This module re-exports the public names of all but the last.
"""

from __future__ import annotations

from sim.solver.api import Solution, can_reach, default_transpositions, position, schwarz_possible, solve
from sim.solver.frames import FRAME_SIZE, NODES, NULL_AVOID, POINTS, SCHWARZ, STACK, new_stack
from sim.solver.roots import (
    card_values,
    declarer_reaches,
    declarer_takes_all,
    equal_cards,
    keeping_cards,
    open_hand_value,
    solve_batch,
)
from sim.solver.transpositions import new_transpositions

__all__ = [
    "FRAME_SIZE",
    "NODES",
    "NULL_AVOID",
    "POINTS",
    "SCHWARZ",
    "STACK",
    "Solution",
    "can_reach",
    "card_values",
    "declarer_reaches",
    "declarer_takes_all",
    "default_transpositions",
    "equal_cards",
    "keeping_cards",
    "new_stack",
    "new_transpositions",
    "open_hand_value",
    "position",
    "schwarz_possible",
    "solve",
    "solve_batch",
]
