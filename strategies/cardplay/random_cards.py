"""The random card player: a uniformly random legal card, the baseline every other player is measured against."""

from __future__ import annotations

from numba import njit

from sim.rules.cards import nth_card, popcount
from sim.rules.rng import below

from ..registry import register
from .policy import CardPolicy, KernelPlayer


@njit(cache=True)
def random_card(view, legal, params, data, rng):
    """A uniformly random legal card."""
    return random_choice(legal, rng)


@njit(cache=True, inline="always")
def random_turn(view, legal, params, data, seat, rng):
    """:func:`random_card` as the play loops ask it (:class:`strategies.cardplay.policy.KernelPlayer`)."""
    return random_choice(legal, rng)


@njit(cache=True, inline="always")
def random_choice(legal, rng):
    """(rng, a uniformly random one of the ``legal`` cards)."""
    rng, pick = below(rng, popcount(legal))
    return rng, nth_card(legal, pick)


#: What the play loops need to know of it. It takes no parameters.
RANDOM_PLAYER = KernelPlayer(random_card, turn=random_turn)


@register("card_play", "random", parameters=())
def random_policy() -> CardPolicy:
    """Uniformly random legal cards: the baseline every other player is measured against."""
    return CardPolicy("random", RANDOM_PLAYER)
