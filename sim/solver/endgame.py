"""The last tricks played out directly: every card, no table, no frames.

Near the end a position has so few plays that trying each is cheaper than the frame
search's bookkeeping (the transposition table probe, the sure points, grouping and ordering the
cards). :func:`_two_tricks` gives the exact value of the last two tricks,
:func:`_three_tricks` a fail-soft alpha-beta value of the last three. Hands are given
from the leader on: the leader's, the next seat's, the one after.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.rules.cards import CARD_POINTS, card_points
from sim.rules.tricks import legal_moves, trick_winner
from sim.solver.bounds import _highest
from sim.solver.frames import NULL_AVOID, POINTS
from sim.solver.layout import _lowest


@njit(cache=True, inline="always")
def _trick_value(declarer, mode, winner, c0, c1, c2):
    """What the declarer counts from a trick; -1 when the trick ends the count (schwarz, null)."""
    if mode == POINTS:
        return CARD_POINTS[c0] + CARD_POINTS[c1] + CARD_POINTS[c2] if winner == declarer else 0
    if (winner == declarer) != (mode == NULL_AVOID):
        return 1
    return -1


@njit(cache=True, inline="always")
def _better(v, best, maximize):
    return v > best if maximize else v < best


@njit(cache=True, inline="always")
def _after_trick(game, declarer, mode, leader, h0, h1, h2, a, b, c, two_left):
    """The value of a trick (a, b, c of the hands h0, h1, h2 from ``leader`` on) and of the
    tricks after it: one more, or two more when ``two_left``."""
    k = trick_winner(game, a, b, c)
    winner = (leader + k) % 3
    v = _trick_value(declarer, mode, winner, a, b, c)
    if v < 0:
        return 0
    rest = (h0 & ~(np.int64(1) << a), h1 & ~(np.int64(1) << b), h2 & ~(np.int64(1) << c))
    r0, r1, r2 = rest[k], rest[(k + 1) % 3], rest[(k + 2) % 3]
    if two_left:
        return v + _two_tricks(game, declarer, mode, winner, r0, r1, r2)
    d0, d1, d2 = _lowest(r0), _lowest(r1), _lowest(r2)
    last = (winner + trick_winner(game, d0, d1, d2)) % 3
    return v + max(_trick_value(declarer, mode, last, d0, d1, d2), 0)


@njit(cache=True, _nrt=False)
def _two_tricks(game, declarer, mode, leader, h0, h1, h2):
    """Exact value of the last two tricks, two cards in each hand."""
    max0, max1, max2 = leader == declarer, (leader + 1) % 3 == declarer, (leader + 2) % 3 == declarer
    # a side that reaches its best case (the declarer all points or tricks left, the defenders
    # none) looks no further
    top = card_points(h0 | h1 | h2) if mode == POINTS else 2
    end0, end1, end2 = (top if max0 else 0), (top if max1 else 0), (top if max2 else 0)
    best0 = -1 if max0 else 1000
    x0 = h0
    while x0 and best0 != end0:
        a = _lowest(x0)
        x0 &= x0 - 1
        best1 = -1 if max1 else 1000
        x1 = np.int64(legal_moves(h1, game, a))
        follow2 = np.int64(legal_moves(h2, game, a))
        while x1 and best1 != end1:
            b = _lowest(x1)
            x1 &= x1 - 1
            best2 = -1 if max2 else 1000
            x2 = follow2
            while x2 and best2 != end2:
                c = _lowest(x2)
                x2 &= x2 - 1
                v = _after_trick(game, declarer, mode, leader, h0, h1, h2, a, b, c, False)
                if _better(v, best2, max2):
                    best2 = v
            if _better(best2, best1, max1):
                best1 = best2
        if _better(best1, best0, max0):
            best0 = best1
    return best0


@njit(cache=True, inline="always")
def _first_trick_bound(game, declarer, mode, leader, total, a, b, c, alpha, beta):
    """A bound of the three tricks' value after the first trick (a, b, c) that settles the third
    card against the window (alpha, beta) without playing the last two tricks, else -1.

    ``total`` is what the three tricks hold (points, or 3 tricks). The last two add between
    nothing and all they hold: when even all of it leaves the value at ``alpha`` or below,
    that is an upper bound; when the first trick alone reaches ``beta``, a lower bound."""
    winner = (leader + trick_winner(game, a, b, c)) % 3
    v = _trick_value(declarer, mode, winner, a, b, c)
    if v < 0:
        return 0
    if mode == POINTS:
        high = total - (CARD_POINTS[a] + CARD_POINTS[b] + CARD_POINTS[c]) + v
    else:
        high = v + 2
    if high <= alpha:
        return high
    if v >= beta:
        return v
    return -1


@njit(cache=True)
def _take(maximizing, best, alpha, beta, value):
    """A child's ``value`` taken into its node's best value and window: (best, alpha, beta, cut)."""
    if maximizing:
        if value > best:
            return value, max(alpha, value), beta, value >= beta
    elif value < best:
        return value, alpha, min(beta, value), value <= alpha
    return best, alpha, beta, False


@njit(cache=True, _nrt=False)
def _three_tricks(game, declarer, mode, leader, h0, h1, h2, alpha, beta):
    """Fail-soft alpha-beta value of the last three tricks, three cards in each hand, in the
    window (alpha, beta): an upper bound when ``<= alpha``, a lower bound when ``>= beta``.

    Each hand tries its cards by card id from the top (clubs first; jack, ace, ten ... down):
    that cuts sooner than from the bottom (on 150 bench deals 8% less time). A first trick whose
    bound already settles the third card against the window skips the last two tricks."""
    max0, max1, max2 = leader == declarer, (leader + 1) % 3 == declarer, (leader + 2) % 3 == declarer
    g0 = -1 if max0 else 1000
    total = card_points(h0 | h1 | h2) if mode == POINTS else 3
    x0 = h0
    while x0:
        a = _highest(x0)
        x0 &= ~(np.int64(1) << a)
        g1, alpha1, beta1 = (-1 if max1 else 1000), alpha, beta
        x1 = np.int64(legal_moves(h1, game, a))
        follow2 = np.int64(legal_moves(h2, game, a))
        while x1:
            b = _highest(x1)
            x1 &= ~(np.int64(1) << b)
            g2, alpha2, beta2 = (-1 if max2 else 1000), alpha1, beta1
            x2 = follow2
            while x2:
                c = _highest(x2)
                x2 &= ~(np.int64(1) << c)
                v = _first_trick_bound(game, declarer, mode, leader, total, a, b, c, alpha2, beta2)
                if v < 0:
                    v = _after_trick(game, declarer, mode, leader, h0, h1, h2, a, b, c, True)
                g2, alpha2, beta2, cut = _take(max2, g2, alpha2, beta2, v)
                if cut:
                    break
            g1, alpha1, beta1, cut = _take(max1, g1, alpha1, beta1, g2)
            if cut:
                break
        g0, alpha, beta, cut = _take(max0, g0, alpha, beta, g1)
        if cut:
            break
    return g0
