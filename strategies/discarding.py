"""Discarding two of the twelve cards after picking up the skat.

Any two cards are legal (jacks and trumps included; their points count for the
declarer). The built-in ``rules`` discarder scores every pair and keeps the best:

- suit and grand: never a trump while two side cards remain; bury points
  (``points`` per card point: a ten or king that would fall to an ace is safer in
  the skat); create voids (``void`` per side suit emptied, so the declarer can
  trump it); keep aces (``ace`` is subtracted per ace discarded, since an ace is
  a sure trick that also takes points) and tens beside their ace (``guarded_ten``
  per such ten: ace and ten together are two tricks);
- null: throw the cards that would take a trick: each card's height in null
  order counts (``null_height``) and a suit emptied counts ``void`` (a void lets
  the declarer shed dangerous cards later).

The built-in discarder is a numba function ``discard(twelve, game, params) -> mask``
of the two cards; the declarer calls it for every deal and candidate game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit

from sim.rules.cards import ACE, CARD_POINTS, SUIT_MASKS, TEN, lowest_card, popcount
from sim.rules.games import NULL
from sim.rules.tricks import NULL_ORDER, TRUMP_MASKS

from .parameters import Parameter, row, slots
from .registry import register

#: The rules discarder's parameters: the weight of each rule in a pair's score, and their slots in its row.
RULES_PARAMETERS = (
    Parameter("points", "number", 1.0, "per card point put away", (-1000, 1000)),
    Parameter("void", "number", 12.0, "per side suit emptied (in null: per suit)", (-1000, 1000)),
    Parameter("ace", "number", 25.0, "subtracted per ace put away", (-1000, 1000)),
    Parameter("null_height", "number", 3.0, "in null, per height in null order of a card put away", (-1000, 1000)),
    Parameter("guarded_ten", "number", 12.0, "subtracted per ten put away beside its ace", (-1000, 1000)),
)
RULES = slots("Rules", RULES_PARAMETERS)


@dataclass(frozen=True)
class Discarder:
    """A :class:`strategies.roles.Discarder` made of a numba function ``function(twelve, game,
    params) -> mask`` of the two cards and its parameters."""

    name: str
    function: Callable
    params: np.ndarray

    def discard(self, twelves: np.ndarray, game: int) -> np.ndarray:
        """The discard (uint32 mask of two cards) for each set of twelve cards, for one game type."""
        out = np.empty(np.shape(twelves)[0], dtype=np.uint32)
        twelves = np.ascontiguousarray(twelves, dtype=np.uint32)
        if self.function is discard_by_rules:
            _discard_each_by_rules(twelves, game, self.params, out)
        else:
            _discard_each(self.function, twelves, game, self.params, out)
        return out


#: Masks of the four aces and the four tens.
_ACES = np.uint32(sum(1 << (8 * s + ACE) for s in range(4)))
_TENS = np.uint32(sum(1 << (8 * s + TEN) for s in range(4)))


@njit(cache=True, inline="always")
def _bit(mask, card):
    """1 when ``card`` is in ``mask``."""
    return np.int64((mask >> np.uint32(card)) & np.uint32(1))


@njit(cache=True, inline="always")
def _short_suits(side):
    """(singletons, doubletons): the cards of ``side`` alone in their suit and those of its two-card
    suits."""
    singletons, doubletons = np.uint32(0), np.uint32(0)
    for s in range(4):
        held = side & SUIT_MASKS[s]
        n = popcount(held)
        if n == 1:
            singletons |= held
        elif n == 2:
            doubletons |= held
    return singletons, doubletons


@njit(cache=True, inline="always")
def _voids(singletons, doubletons, a, b):
    """Side suits emptied by discarding ``a`` and ``b``: a singleton, or a doubleton taken whole."""
    if (a >> 3) == (b >> 3):
        return _bit(doubletons, a) * _bit(doubletons, b) + _bit(singletons, a) + _bit(singletons, b)
    return _bit(singletons, a) + _bit(singletons, b)


@njit(cache=True, inline="always")
def _pair_value(game, params, singletons, doubletons, guarded, a, b):
    """The value of discarding ``a`` and ``b`` (the terms of the module doc)."""
    voids = _voids(singletons, doubletons, a, b)
    if game == NULL:
        return params[RULES.null_height] * (NULL_ORDER[a & 7] + NULL_ORDER[b & 7]) + params[RULES.void] * voids
    aces = _bit(_ACES, a) + _bit(_ACES, b)
    # a ten stays guarded unless its ace (the card just above it) goes with it
    guarded_tens = _bit(guarded, a) * (1 - np.int64(b == a + 1)) + _bit(guarded, b)
    return (params[RULES.points] * (CARD_POINTS[a] + CARD_POINTS[b]) + params[RULES.void] * voids
            - params[RULES.ace] * aces - params[RULES.guarded_ten] * guarded_tens)


@njit(cache=True)
def discard_by_rules(twelve, game, params):
    """The pair of cards with the best value (the first such pair in card order); trumps only when
    fewer than two side cards remain."""
    return _best_pair(np.uint32(twelve), game, params, np.empty(12, np.int64))


@njit(cache=True)
def _best_pair(twelve, game, params, cards):
    """:func:`discard_by_rules` with room for the twelve card ids in ``cards``. Every pair's value
    comes from masks fixed per hand (short suits, guarded tens), with the same arithmetic as the
    rule's terms in the module doc."""
    side = twelve & ~TRUMP_MASKS[game]  # null has no trumps: every card
    pool = side if popcount(side) >= 2 else twelve
    singletons, doubletons = _short_suits(side)
    guarded = twelve & _TENS & (twelve >> np.uint32(ACE - TEN))  # tens whose ace is in the hand
    n = 0
    while pool:
        cards[n] = lowest_card(pool)
        pool &= pool - np.uint32(1)
        n += 1
    best, best_a, best_b = -1e18, 0, 0
    for i in range(n):  # every pair once, in card order
        a = cards[i]
        for j in range(i + 1, n):
            b = cards[j]
            value = _pair_value(game, params, singletons, doubletons, guarded, a, b)
            if value > best:
                best, best_a, best_b = value, a, b
    return (np.uint32(1) << np.uint32(best_a)) | (np.uint32(1) << np.uint32(best_b))


@njit(cache=True)
def _discard_each_by_rules(twelves, game, params, out):
    """:func:`_discard_each` for the built-in rules, which numba can cache between processes."""
    cards = np.empty(12, np.int64)
    for k in range(twelves.shape[0]):
        out[k] = _best_pair(np.uint32(twelves[k]), game, params, cards)


@register("discarder", "rules", parameters=RULES_PARAMETERS)
def rules_discarder(points, void, ace, null_height, guarded_ten) -> Discarder:
    """Bury points, create voids, keep aces; in null throw the cards most likely to win a trick."""
    values = {"points": points, "void": void, "ace": ace, "null_height": null_height, "guarded_ten": guarded_ten}
    return Discarder("rules", discard_by_rules, np.array(row(RULES, RULES_PARAMETERS, values), dtype=np.float64))


@njit  # takes the discarder as an argument, which numba cannot cache
def _discard_each(function, twelves, game, params, out):
    for k in range(twelves.shape[0]):
        out[k] = function(twelves[k], game, params)
