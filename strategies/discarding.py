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

from .registry import register

POINTS, VOID, ACE_PENALTY, NULL_HEIGHT, GUARDED_TEN = 0, 1, 2, 3, 4


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


@njit(cache=True, inline="always")
def _suits_held(cards):
    """Number of suits (suit bytes of the mask) that hold a card."""
    n = 0
    for s in range(4):
        if cards & SUIT_MASKS[s]:
            n += 1
    return n


@njit(cache=True)
def _pair_value(twelve, side, suits_left, game, a, b, params):
    """The value of discarding ``a`` and ``b``; ``side`` holds the twelve's plain-suit cards (jacks
    and trumps excluded; in null every card) and ``suits_left`` the number of suits it covers."""
    pair = (np.uint32(1) << np.uint32(a)) | (np.uint32(1) << np.uint32(b))
    voids = suits_left - _suits_held(side & ~pair)
    if game == NULL:
        return params[NULL_HEIGHT] * (NULL_ORDER[a & 7] + NULL_ORDER[b & 7]) + params[VOID] * voids
    rest = twelve & ~pair
    aces = int((a & 7) == ACE) + int((b & 7) == ACE)
    guarded_tens = _guarded_ten(rest, a) + _guarded_ten(rest, b)
    return (params[POINTS] * (CARD_POINTS[a] + CARD_POINTS[b]) + params[VOID] * voids
            - params[ACE_PENALTY] * aces - params[GUARDED_TEN] * guarded_tens)


@njit(cache=True, inline="always")
def _guarded_ten(rest, card):
    """1 when ``card`` is a ten whose ace stays in the hand."""
    ace = (card & ~7) + ACE
    return int((card & 7) == TEN and (rest >> np.uint32(ace)) & np.uint32(1) == 1)


@njit(cache=True)
def discard_by_rules(twelve, game, params):
    """The pair of cards with the best value (the first such pair in card order); trumps only when
    fewer than two side cards remain."""
    twelve = np.uint32(twelve)
    side = twelve & ~TRUMP_MASKS[game]  # null has no trumps: every card
    pool = side if popcount(side) >= 2 else twelve
    suits_left = _suits_held(side)
    best, best_pair = -1e18, np.uint32(0)
    firsts = pool
    while firsts:
        a = lowest_card(firsts)
        firsts &= firsts - np.uint32(1)
        seconds = firsts  # the cards above a: every pair once, in card order
        while seconds:
            b = lowest_card(seconds)
            seconds &= seconds - np.uint32(1)
            value = _pair_value(twelve, side, suits_left, game, a, b, params)
            if value > best:
                best = value
                best_pair = (np.uint32(1) << np.uint32(a)) | (np.uint32(1) << np.uint32(b))
    return best_pair


@njit(cache=True)
def _discard_each_by_rules(twelves, game, params, out):
    """:func:`_discard_each` for the built-in rules, which numba can cache between processes."""
    for k in range(twelves.shape[0]):
        out[k] = discard_by_rules(twelves[k], game, params)


@register("discarder", "rules", ranges={
    "points": (-1000, 1000), "void": (-1000, 1000), "ace": (-1000, 1000), "null_height": (-1000, 1000),
    "guarded_ten": (-1000, 1000)})
def rules_discarder(points: float = 1.0, void: float = 12.0, ace: float = 25.0,
                    null_height: float = 3.0, guarded_ten: float = 12.0) -> Discarder:
    """Bury points, create voids, keep aces; in null throw the cards most likely to win a trick."""
    return Discarder("rules", discard_by_rules,
                     np.array([points, void, ace, null_height, guarded_ten], dtype=np.float64))


@njit  # takes the discarder as an argument, which numba cannot cache
def _discard_each(function, twelves, game, params, out):
    for k in range(twelves.shape[0]):
        out[k] = function(twelves[k], game, params)
