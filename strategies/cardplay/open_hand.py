"""The ``open_hand`` card player: the open-hand best card, seeing every hand.

It cheats: it reads the full play state, which no view holds, so it plays only in the
built-in play loop (:mod:`strategies.cardplay.builtin`), which hands it the state. It is
the upper bound of any card player, to measure how much of a result was the cards and
how much the play. Among the cards that keep the open-hand value the heuristic player's
rules choose. It takes no parameters.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import solver

from ..registry import register
from .policy import CardPolicy

#: Its kind in the built-in play loop (strategies.cardplay.builtin).
OPEN_HAND_KIND = 3


@njit(cache=True)
def open_hand_best(state, aside, legal, tt, stack):
    """The legal cards that keep the open-hand value, seeing every hand (the caller picks one)."""
    legal = np.int64(legal)
    if (legal & (legal - 1)) == 0:
        return legal
    value = solver.open_hand_value(state, aside, tt, stack)
    keep = np.int64(solver.keeping_cards(state, aside, value, tt, stack)) & legal
    return keep if keep else legal


@njit(cache=True)
def _needs_every_hand(view, legal, params, data, rng):
    raise ValueError("the open_hand player sees every hand and plays only in skatsim's own play loop")


@register("card_play", "open_hand", parameters=())
def open_hand_policy() -> CardPolicy:
    """The open-hand best card, seeing every hand: an upper bound of any card player (it cheats)."""
    return CardPolicy("open_hand", _needs_every_hand, builtin=OPEN_HAND_KIND)
