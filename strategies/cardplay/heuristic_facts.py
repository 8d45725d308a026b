"""What the heuristic card player reads from a view, and how it picks one card of a set.

Every fact comes from the view: cards "out" are those the seat has neither seen played nor
holds (nor discarded, for the declarer); a card is a "master" when no higher card of its
effective suit is out; a seat "may hold" the cards out minus the suits it has shown void in
(an ouvert declarer: exactly its open cards). Masks are int64 here. The rules that use these
facts are in :mod:`strategies.cardplay.heuristic`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.rules.cards import ALL_CARDS, CARD_POINTS, lowest_card
from sim.rules.tricks import ABOVE, BEATERS, EFFECTIVE_SUIT, ORDER, TRUMP, TRUMP_MASKS, trick_winner
from sim.rules.view import VIEW

#: SUIT_CARDS[game, effective suit]: the cards of a plain suit (without its jack) or the trumps.
SUIT_CARDS = np.array([[sum(1 << c for c in range(32) if EFFECTIVE_SUIT[g, c] == s) for s in range(5)]
                       for g in range(6)], dtype=np.int64)
#: VOID_CARDS[game, void bits]: the cards of every effective suit in a VIEW.voids entry.
VOID_CARDS = np.array([[sum(int(SUIT_CARDS[g, s]) for s in range(5) if bits >> s & 1) for bits in range(32)]
                       for g in range(6)], dtype=np.int64)
TRUMP_CARDS = TRUMP_MASKS.astype(np.int64)
NO_KEY = 1 << 30


# --- sort keys ---------------------------------------------------------------------------
#
# A choice among cards compares a tuple of criteria packed into one integer, the most
# important criterion in the highest place. The card id (0..31) fills the lowest place, so
# ties always break the same way; a card's height in its suit (ORDER, 0..11) sits above it;
# card points (0..11) above that; and a flag for cards to spare above everything.

ID_PLACE = 32                 # ORDER * ID_PLACE + card: by height, then by card id (< 512)
POINTS_PLACE = 512            # CARD_POINTS * POINTS_PLACE + the height key: by points first
TRUMP_PLACE = 1024            # a trump only after every winner of the led suit (above any height key)
KEEP_PLACE = 1 << 16          # cards to spare (trumps, masters) only when nothing else is left


# --- facts from the view ----------------------------------------------------------------


@njit(cache=True, inline="always")
def cards_out(view):
    """Cards in the other hands or an unseen skat: neither played, nor held, nor discarded by this seat."""
    return ~(view[VIEW.played] | view[VIEW.own_hand] | view[VIEW.discard]) & ALL_CARDS


@njit(cache=True)
def may_hold(view, seat, out):
    """Cards ``seat`` may still hold: an ouvert declarer's open cards, else the cards out
    outside the suits it has shown void in (and outside the declarer's open cards)."""
    if view[VIEW.ouvert] and seat == view[VIEW.declarer]:
        return view[VIEW.ouvert_cards]
    return out & ~VOID_CARDS[view[VIEW.game], view[VIEW.voids + seat]] & ~view[VIEW.ouvert_cards]


@njit(cache=True, inline="always")
def partner_of(view):
    """The other defender (seats are 0, 1, 2)."""
    return 3 - view[VIEW.seat] - view[VIEW.declarer]


@njit(cache=True, inline="always")
def seat_at(view, position):
    """The seat that plays ``position`` (0 = lead) in the current trick."""
    return (view[VIEW.leader] + position) % 3


@njit(cache=True, inline="always")
def winning_position(view):
    """Position of the card that wins the trick so far (the trick is not empty)."""
    first, n = view[VIEW.trick], view[VIEW.in_trick]
    second = view[VIEW.trick + 1] if n > 1 else first
    return trick_winner(view[VIEW.game], first, second, second)


@njit(cache=True)
def trick_points(view):
    total = 0
    for pos in range(view[VIEW.in_trick]):
        total += CARD_POINTS[view[VIEW.trick + pos]]
    return total


@njit(cache=True, inline="always")
def declarer_has_played(view):
    for pos in range(view[VIEW.in_trick]):
        if seat_at(view, pos) == view[VIEW.declarer]:
            return True
    return False


@njit(cache=True)
def masters(game, cards, out):
    """The cards of ``cards`` that no card out can top in their own effective suit."""
    found, m = np.int64(0), cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        if (ABOVE[game, c] & out) == 0:
            found |= np.int64(1) << c
    return found


@njit(cache=True)
def can_beat(game, holdings, winning, led):
    """Whether a seat that may hold ``holdings`` can beat ``winning`` in a trick led in
    effective suit ``led``. A seat that may hold the led suit is taken to follow it; one
    that cannot hold it may trump."""
    if holdings & SUIT_CARDS[game, led]:
        return EFFECTIVE_SUIT[game, winning] == led and (holdings & ABOVE[game, winning]) != 0
    return (holdings & BEATERS[game, winning]) != 0


@njit(cache=True)
def defenders_may_hold(view, out):
    """Cards either defender may hold (the skat of a hand game included: nobody has seen it)."""
    d = view[VIEW.declarer]
    return may_hold(view, (d + 1) % 3, out) | may_hold(view, (d + 2) % 3, out)


# --- choosing one card of a set -----------------------------------------------------------


@njit(cache=True)
def highest_card(game, cards):
    """The highest card by order (of two equal orders the higher card id)."""
    best, best_key, m = -1, -1, cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        key = ORDER[game, c] * ID_PLACE + c
        if key > best_key:
            best, best_key = c, key
    return best


@njit(cache=True)
def lowest_in_order(game, cards):
    """The lowest card by order (of two equal orders the lower card id)."""
    best, best_key, m = -1, NO_KEY, cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        key = ORDER[game, c] * ID_PLACE + c
        if key < best_key:
            best, best_key = c, key
    return best


@njit(cache=True)
def cheapest_winning_card(game, winners):
    """Cards of the led suit before trumps, the lowest first: the points of the trick are
    taken either way, so the cost of a winner is the trick-taking power spent on it."""
    best, best_key, m = -1, NO_KEY, winners
    while m:
        c = lowest_card(m)
        m &= m - 1
        key = ORDER[game, c] * ID_PLACE + c + (TRUMP_PLACE if EFFECTIVE_SUIT[game, c] == TRUMP else 0)
        if key < best_key:
            best, best_key = c, key
    return best


@njit(cache=True)
def cheapest_card(game, cards, keep):
    """The card that gives away least: fewest points, then lowest order; cards in ``keep``
    (trumps, masters) only when nothing else is left."""
    best, best_key, m = -1, NO_KEY, cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        key = CARD_POINTS[c] * POINTS_PLACE + ORDER[game, c] * ID_PLACE + c + (KEEP_PLACE if keep >> c & 1 else 0)
        if key < best_key:
            best, best_key = c, key
    return best


@njit(cache=True)
def most_points(game, cards, keep):
    """The card with most points, the lower of equal ones; cards in ``keep`` only when nothing else is left."""
    best, best_key, m = -1, -NO_KEY, cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        key = CARD_POINTS[c] * POINTS_PLACE - ORDER[game, c] * ID_PLACE - c - (KEEP_PLACE if keep >> c & 1 else 0)
        if key > best_key:
            best, best_key = c, key
    return best
