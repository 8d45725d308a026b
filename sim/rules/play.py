"""Playing the tricks of a game with one card-play policy per seat.

A policy is a numba function ``policy(view, legal, params, data, rng) -> (rng, card)``
(see :mod:`sim.rules.view`: ``params`` the row of the policy's parameters, ``data`` what else
it reads, a learned model's weights); :func:`play_out` asks the seat to play for a card, checks
it is legal and steps the play state. Policies are passed in as arguments, so
the same loop serves every combination of built-in and user-written policies
(numba compiles one specialisation per combination).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .tricks import STATE, legal_now, play_card, to_play
from .view import seat_view

#: A trick log holds the 30 cards in the order played; -1 after a null game ended early.
TRICK_LOG_SIZE = 30


@njit
def _ask(policy_f, policy_m, policy_r, seat, view, legal, params, data, rng):
    if seat == 0:
        return policy_f(view, legal, params[0], data[0], rng)
    if seat == 1:
        return policy_m(view, legal, params[1], data[1], rng)
    return policy_r(view, legal, params[2], data[2], rng)


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


@njit
def play_out(state, discard, view, policy_f, policy_m, policy_r, params, data, rng, log):
    """Play ``state`` to the end; ``log`` (30 int8) receives the cards in order, -1 for none.

    ``params`` and ``data`` are (3, k) float64 arrays of each seat's policy parameters and data. Returns
    the random state; raises ValueError when a policy chooses an illegal card.
    Numba cannot cache a kernel that takes functions as arguments, so this loop
    compiles in each process; the built-in policies have a cached twin of it in
    :func:`strategies.cardplay.builtin.play_out_builtin`.
    """
    log[:] = -1
    n = 0
    while not state[STATE.finished]:
        legal = start_turn(state, discard, view)
        rng, card = _ask(policy_f, policy_m, policy_r, to_play(state), view, legal, params, data, rng)
        finish_turn(state, legal, card, log, n)
        n += 1
    return rng

