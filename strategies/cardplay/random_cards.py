"""The random card player: a uniformly random legal card, the baseline every other player is measured against."""

from __future__ import annotations

from numba import njit

from sim.rules.cards import nth_card, popcount
from sim.rules.rng import below

from ..registry import register
from .policy import CardPolicy

#: Its kind in the built-in play loop (strategies.cardplay.builtin). It takes no parameters.
RANDOM_KIND = 0


@njit(cache=True)
def random_card(view, legal, params, data, rng):
    """A uniformly random legal card."""
    return random_choice(legal, rng)


@njit(cache=True, inline="always")
def random_choice(legal, rng):
    """(rng, a uniformly random one of the ``legal`` cards)."""
    rng, pick = below(rng, popcount(legal))
    return rng, nth_card(legal, pick)


@register("card_play", "random", parameters=())
def random_policy() -> CardPolicy:
    """Uniformly random legal cards: the baseline every other player is measured against."""
    return CardPolicy("random", random_card, builtin=RANDOM_KIND)
