"""What a search counts and the rows it works on: the counting modes, the columns of a
search frame, the search stack and its node counter.

The search walks card by card with an explicit stack of frames, one per card played
since the root (row 0). A frame holds the hands twice, as card masks for the rules and
laid out (:mod:`sim.solver.layout`) for equivalent cards and the transposition table, the trick so
far, the window and the moves still to try. Row ``NODES`` of the stack holds the node
counter of the last search in ``[NODES, 0]``.
"""

from __future__ import annotations

import numpy as np

#: What a search counts: the card points the declarer wins (suit and grand games), the
#: tricks the declarer wins before the defenders take one (schwarz), the tricks the
#: declarer avoids before taking one (null).
POINTS, SCHWARZ, NULL_AVOID = 0, 1, 2

F_HANDS, F_LAID, F_LEADER, F_IN_TRICK, F_TRICK, F_REST = 0, 3, 6, 7, 8, 10
F_ALPHA, F_BETA, F_ALPHA0, F_BETA0 = 11, 12, 13, 14      # the window now, and as searched
F_COUNT, F_NEXT, F_G, F_BEST, F_CARD, F_ADD, F_SEAT = 15, 16, 17, 18, 19, 20, 21
F_LOWER, F_UPPER, F_KEY0, F_KEY1, F_LAID_ALL = 22, 23, 24, 25, 26
F_MOVES = 27                                              # up to ten moves, best first
F_NULLED, F_REDO_ALPHA, F_REDO_BETA = 37, 38, 39          # principal variation search
FRAME_SIZE = 40
STACK = 33                                                # 30 cards, the end, spare rows
NODES = STACK - 1                                         # row of the node counter


def new_stack() -> np.ndarray:
    """The search stack: one per thread, reused by every search (node counter in ``[NODES, 0]``)."""
    return np.zeros((STACK, FRAME_SIZE), dtype=np.int64)
