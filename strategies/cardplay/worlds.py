"""Worlds: deals of the cards a seat cannot see, consistent with everything its view shows.

A world keeps the seat's own cards, the cards played, an ouvert declarer's hand and the
declarer's own discard where they are, and deals the hidden cards to the other two seats and
the skat: a seat never gets a suit it has shown void in, the skat stays unseen by the
defenders and by a declarer who played hand. The ``pimc`` players value their cards in such
worlds (:mod:`strategies.cardplay.pimc`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.rules.cards import ALL_CARDS, lowest_card, popcount
from sim.rules.rng import below
from sim.rules.tricks import EFFECTIVE_SUIT
from sim.rules.view import VIEW, play_state_of_view

#: Places a hidden card can go in a world: the two other seats (in seat order) and the skat.
SKAT_PLACE = 2
#: Tries to deal a world that respects every shown void before the voids are let go.
TRIES = 30


@njit(cache=True)
def hand_sizes(view, sizes):
    """Cards each seat still holds, from the tricks done and the current trick."""
    for s in range(3):
        sizes[s] = 10 - view[VIEW.tricks_done]
    for pos in range(view[VIEW.in_trick]):
        sizes[(view[VIEW.leader] + pos) % 3] -= 1


@njit(cache=True)
def sample_world(view, rng, world):
    """Deal the cards ``view``'s seat cannot see, consistently with the view, into the play state
    ``world``; returns (rng, the two cards that count for the declarer unplayed).

    The hidden cards go, most constrained first, to the seats and places that may hold them
    (a seat never gets a suit it has shown void in), each to one of its free slots at random.
    """
    game, me, declarer = view[VIEW.game], view[VIEW.seat], view[VIEW.declarer]
    sizes = np.empty(3, dtype=np.int64)
    hand_sizes(view, sizes)
    hands = np.zeros(3, dtype=np.int64)
    hands[me] = view[VIEW.own_hand]
    open_declarer = view[VIEW.ouvert] != 0 and declarer != me
    if open_declarer:
        hands[declarer] = view[VIEW.ouvert_cards]
    aside = view[VIEW.discard] if me == declarer else np.int64(0)
    hidden = ALL_CARDS & ~(view[VIEW.played] | view[VIEW.own_hand] | view[VIEW.ouvert_cards] | aside)
    seats = np.empty(2, dtype=np.int64)
    room = np.zeros(3, dtype=np.int64)        # free slots of the two other seats and of the skat
    k = 0
    for s in range(3):
        if s != me:
            seats[k] = s
            if not (open_declarer and s == declarer):
                room[k] = sizes[s]
            k += 1
    if aside == 0:
        room[SKAT_PLACE] = 2
    cards = np.empty(32, dtype=np.int64)
    allowed = np.empty(32, dtype=np.int64)
    n = 0
    m = hidden
    while m:
        c = lowest_card(m)
        m &= m - 1
        cards[n] = c
        n += 1
    for attempt in range(TRIES + 1):
        respect_voids = attempt < TRIES
        for i in range(n):
            allowed[i] = 0
            for place in range(3):
                if room[place] == 0:
                    continue
                if place < SKAT_PLACE and respect_voids:
                    if (view[VIEW.voids + seats[place]] >> EFFECTIVE_SUIT[game, cards[i]]) & 1:
                        continue
                allowed[i] |= 1 << place
        rng, dealt, placed = _deal_hidden(cards, allowed, n, room, rng)
        if dealt:
            break
    for place in range(2):
        hands[seats[place]] |= placed[place]
    if aside == 0:
        aside = placed[SKAT_PLACE]
    play_state_of_view(view, hands, world)
    return rng, aside


@njit(cache=True)
def _deal_hidden(cards, allowed, n, room, rng):
    """Cards to places: the most constrained first, each to a free slot of an allowed place chosen at
    random. Returns (rng, dealt, cards per place); not dealt when some card found no free place."""
    free = room.copy()
    placed = np.zeros(3, dtype=np.int64)
    order = np.argsort(np.array([popcount(allowed[i]) * 64 + i for i in range(n)]))
    for j in range(n):
        i = order[j]
        slots = 0
        for place in range(3):
            if (allowed[i] >> place) & 1:
                slots += free[place]
        if slots == 0:
            return rng, False, placed
        rng, pick = below(rng, slots)
        for place in range(3):
            if (allowed[i] >> place) & 1:
                if pick < free[place]:
                    placed[place] |= np.int64(1) << cards[i]
                    free[place] -= 1
                    break
                pick -= free[place]
    return rng, True, placed
