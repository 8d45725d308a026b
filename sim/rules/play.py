"""The turn of a play loop: the seat's view and legal cards, the chosen card checked, logged and played.

The loops that seat the card players live with the strategies; these kernels are the rules' part of
each of their turns, inlined into every loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .tricks import legal_now, play_card, to_play
from .view import seat_view

#: A trick log holds the 30 cards in the order played; -1 after a null game ended early.
TRICK_LOG_SIZE = 30


@njit(cache=True, inline="always")
def start_turn(state, discard, view):
    """Fill ``view`` for the seat to play; returns its legal cards."""
    seat_view(state, to_play(state), discard, view)
    return legal_now(state)


@njit(cache=True, inline="always")
def finish_turn(state, legal, card, log, n):
    """Check the chosen card, log it as the ``n``-th card and play it."""
    check_card(legal, card)
    log_and_play(state, card, log, n)


@njit(cache=True, inline="always")
def check_card(legal, card):
    """Raise unless ``card`` is one of the ``legal`` cards."""
    if card < 0 or card > 31 or not (legal >> np.uint32(card)) & np.uint32(1):
        raise ValueError("a card-play policy chose a card that is not legal")


@njit(cache=True, inline="always")
def log_and_play(state, card, log, n):
    """Log ``card`` as the ``n``-th card and play it."""
    log[n] = card
    play_card(state, card)
