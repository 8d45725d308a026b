"""Sure points: cheap bounds at a trick start, for suit and grand games.

Points a side takes however the other plays: trumps that win whenever they are played
(:func:`_trump_points`), and the winners the side on lead can cash one after another
(:func:`_quick_points`). Every trick a side surely wins also holds a card from each of
the other two hands: at least the lowest card points those hands hold.
:func:`_declarer_sure` and :func:`_defenders_sure` give each side's bound (:func:`_sure_points`
both); the search cuts with them.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros

from sim.rules.cards import ACE, JACKS, TEN, popcount
from sim.rules.tricks import EFFECTIVE_SUIT, TRUMP, TRUMP_MASKS
from sim.solver.frames import F_HANDS, F_LAID, F_LEADER
from sim.solver.layout import _CARD_AT, _LAYOUT_POINTS, _lowest

#: Laid-out places of each game's trumps (the last suit of the layout).
_TRUMP_PLACES = np.array([sum(1 << q for q in range(32) if EFFECTIVE_SUIT[g, _CARD_AT[g, q]] == TRUMP)
                          for g in range(6)], dtype=np.int64)
#: Cards by their points, lowest first: 7 8 9, jacks, queens, kings, tens, aces.
_POINT_CLASSES = np.array([sum(1 << (8 * s + r) for s in range(4) for r in (0, 1, 2)), int(JACKS),
                           sum(1 << (8 * s + 3) for s in range(4)), sum(1 << (8 * s + 4) for s in range(4)),
                           sum(1 << (8 * s + TEN) for s in range(4)), sum(1 << (8 * s + ACE) for s in range(4))],
                          dtype=np.int64)
_CLASS_POINTS = np.array([0, 2, 3, 4, 10, 11], dtype=np.int64)
#: _POINTS_BY_BYTE[game, k, byte]: card points of the laid-out places 8k..8k+7 set in ``byte``.
_POINTS_BY_BYTE = np.array([[[sum(int(_LAYOUT_POINTS[g, 8 * k + i]) for i in range(8) if v >> i & 1)
                              for v in range(256)] for k in range(4)] for g in range(6)], dtype=np.uint8)


@njit(cache=True, inline="always")
def _highest(mask):
    return 63 - np.int64(leading_zeros(np.uint64(mask)))


@njit(cache=True, _nrt=False)
def _lowest_points(hand, k):
    """The least card points ``k`` cards of ``hand`` can hold."""
    total = 0
    for c in range(6):
        if k <= 0:
            break
        take = min(popcount(hand & _POINT_CLASSES[c]), k)
        total += take * _CLASS_POINTS[c]
        k -= take
    return total


@njit(cache=True, inline="always")
def _top_trumps(game, own, other):
    """Laid-out trumps of ``own`` higher than every trump of ``other``."""
    trumps = own & _TRUMP_PLACES[game]
    theirs = other & _TRUMP_PLACES[game]
    if theirs == 0:
        return trumps
    return trumps & ~((np.int64(2) << _highest(theirs)) - 1)


@njit(cache=True, inline="always")
def _laid_points(game, laid):
    return (np.int64(_POINTS_BY_BYTE[game, 0, laid & 255]) + np.int64(_POINTS_BY_BYTE[game, 1, (laid >> 8) & 255])
            + np.int64(_POINTS_BY_BYTE[game, 2, (laid >> 16) & 255])
            + np.int64(_POINTS_BY_BYTE[game, 3, (laid >> 24) & 255]))


#: Laid-out places of each effective suit (trumps 4), by game.
_SUIT_PLACES = np.array([[sum(1 << q for q in range(32) if EFFECTIVE_SUIT[g, _CARD_AT[g, q]] == e)
                          for e in range(5)] for g in range(6)], dtype=np.int64)


@njit(cache=True, inline="always")
def _least_given(hand, trumps, trump_tricks, tricks):
    """The least card points ``hand`` puts into ``tricks`` tricks, the first ``trump_tricks`` of
    them led with trumps (followed with trumps while it has them)."""
    forced = min(trump_tricks, popcount(hand & trumps))
    return _lowest_points(hand & trumps, forced) + _lowest_points(hand & ~trumps, tricks - forced)


@njit(cache=True, _nrt=False)
def _quick_points(frames, p, game, leader):
    """Points the leader's side surely wins by cashing the leader's winners from the top.

    First trumps, then each plain suit, as long as the leader's highest card of the suit
    beats every card of it left elsewhere: the others keep their highest cards and
    follow with the others, and a hand with trumps left must not be void in a plain suit
    led (it has followed every lead so far and discarded nothing).
    """
    a, b = (leader + 1) % 3, (leader + 2) % 3
    own, la, lb = frames[p, F_LAID + leader], frames[p, F_LAID + a], frames[p, F_LAID + b]
    trumps = _TRUMP_PLACES[game]
    mine, trumps_a, trumps_b = own & trumps, la & trumps, lb & trumps
    k, points = 0, 0
    while mine:
        t = _highest(mine)
        if (trumps_a and _highest(trumps_a) > t) or (trumps_b and _highest(trumps_b) > t):
            break
        k += 1
        points += _LAYOUT_POINTS[game, t]
        mine &= ~(np.int64(1) << t)
        trumps_a &= trumps_a - 1
        trumps_b &= trumps_b - 1
    trump_tricks = k
    for e in range(4):
        places = _SUIT_PLACES[game, e]
        mine, suit_a, suit_b = own & places, la & places, lb & places
        while mine:
            c = _highest(mine)
            if (suit_a and _highest(suit_a) > c) or (suit_b and _highest(suit_b) > c):
                break
            if (suit_a == 0 and trumps_a) or (suit_b == 0 and trumps_b):
                break  # a hand void here with a trump left could ruff
            k += 1
            points += _LAYOUT_POINTS[game, c]
            mine &= ~(np.int64(1) << c)
            suit_a &= suit_a - 1
            suit_b &= suit_b - 1
    if k == 0:
        return 0
    card_trumps = np.int64(TRUMP_MASKS[game])
    return (points + _least_given(frames[p, F_HANDS + a], card_trumps, trump_tricks, k)
            + _least_given(frames[p, F_HANDS + b], card_trumps, trump_tricks, k))


@njit(cache=True, _nrt=False)
def _trump_points(frames, p, game, seat, others):
    """Points a hand's trumps surely win against the trumps of ``others`` (laid out).

    Its trumps above all of theirs win with their own points. Apart from that, each of
    its trumps wins unless someone plays a higher one on it, and each of their trumps
    beats at most one: so it wins at least as many tricks as it has trumps less theirs
    above its lowest, worth at least its lowest trump points. The other two hands put a
    card each into those tricks.
    """
    own = frames[p, F_LAID + seat]
    mine = own & _TRUMP_PLACES[game]
    if mine == 0:
        return 0
    theirs = others & _TRUMP_PLACES[game]
    top = _top_trumps(game, own, others)
    beaten = popcount(theirs & ~((np.int64(2) << _lowest(mine)) - 1))
    wins = popcount(mine) - min(popcount(mine), beaten)
    a, b = frames[p, F_HANDS + (seat + 1) % 3], frames[p, F_HANDS + (seat + 2) % 3]
    k = popcount(top)
    by_top = _laid_points(game, top) + _lowest_points(a, k) + _lowest_points(b, k) if k else 0
    if wins <= k:
        return by_top
    hand = frames[p, F_HANDS + seat]
    by_count = (_lowest_points(hand & np.int64(TRUMP_MASKS[game]), wins) + _lowest_points(a, wins)
                + _lowest_points(b, wins))
    return max(by_top, by_count)


@njit(cache=True, _nrt=False)
def _declarer_sure(frames, p, game, declarer):
    """The declarer's sure points from the trick start of frame ``p``."""
    d1, d2 = (declarer + 1) % 3, (declarer + 2) % 3
    mine = _trump_points(frames, p, game, declarer, frames[p, F_LAID + d1] | frames[p, F_LAID + d2])
    if frames[p, F_LEADER] == declarer:
        mine = max(mine, _quick_points(frames, p, game, declarer))
    return mine


@njit(cache=True, _nrt=False)
def _defenders_sure(frames, p, game, declarer):
    """The defenders' sure points from the trick start of frame ``p``."""
    own = frames[p, F_LAID + declarer]
    # a defender's partner may overtake, but a trick the two of them win is theirs
    theirs = max(_trump_points(frames, p, game, (declarer + 1) % 3, own),
                 _trump_points(frames, p, game, (declarer + 2) % 3, own))
    leader = frames[p, F_LEADER]
    if leader != declarer:
        theirs = max(theirs, _quick_points(frames, p, game, leader))
    return theirs


@njit(cache=True, _nrt=False)
def _sure_points(frames, p, game, declarer):
    """(the declarer's sure points, the defenders' sure points) from the trick start of frame ``p``."""
    return _declarer_sure(frames, p, game, declarer), _defenders_sure(frames, p, game, declarer)
