"""The ``open_hand`` card player: the open-hand best card, seeing every hand.

It cheats: it reads the full play state, which no view holds; the play loops hand it the
state as they hand it to every player that searches (:mod:`strategies.cardplay.table`). It is
the upper bound of any card player, to measure how much of a result was the cards and
how much the play. Among the cards that keep the open-hand value the heuristic player's
rules choose. It takes no parameters.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import solver

from ..registry import register
from .heuristic import choose_among
from .policy import CardPolicy, KernelPlayer


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
def open_hand_card(view, legal, params, data, rng, state, aside, tt, stack):
    """(rng, the heuristic's choice among the legal cards that keep the open-hand value)."""
    return rng, choose_among(view, open_hand_best(state, aside, legal, tt, stack))


#: What the play loops need to know of it: it searches, and reads the state they hand a searching player.
OPEN_HAND_PLAYER = KernelPlayer(open_hand_card, searches=True)


@register("card_play", "open_hand", parameters=())
def open_hand_policy() -> CardPolicy:
    """The open-hand best card, seeing every hand: an upper bound of any card player (it cheats)."""
    return CardPolicy("open_hand", OPEN_HAND_PLAYER)
