"""Card-play policies: which card to play, from what the seat may know.

A policy is a numba function ``policy(view, legal, params, rng) -> (rng, card)``
(the view layout is in :mod:`sim.view`; ``legal`` is the uint32 mask of legal
cards; ``params`` a float64 array of the policy's parameters; ``rng`` the seat's
random state for :func:`sim.rng.below`). Register a factory that returns a
:class:`CardPolicy` to make a policy available by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit

from sim.cards import nth_card, popcount
from sim.rng import below

from .registry import check_params, lookup, register

#: Length of the parameter row every policy receives (unused entries are 0).
PARAMS_SIZE = 8


@dataclass(frozen=True)
class CardPolicy:
    name: str
    function: Callable
    params: tuple[float, ...] = ()

    def param_row(self) -> np.ndarray:
        if len(self.params) > PARAMS_SIZE:
            raise ValueError(f"a card-play policy takes at most {PARAMS_SIZE} parameters")
        row = np.zeros(PARAMS_SIZE, dtype=np.float64)
        row[: len(self.params)] = self.params
        return row


@njit(cache=True)
def random_card(view, legal, params, rng):
    """A uniformly random legal card."""
    rng, pick = below(rng, popcount(legal))
    return rng, nth_card(legal, pick)


@register("card_play", "random")
def random_policy() -> CardPolicy:
    """Uniformly random legal cards: the baseline every other player is measured against."""
    return CardPolicy("random", random_card)


def card_policy(name: str, **params) -> CardPolicy:
    """The card-play policy registered as ``name``, with its parameters set."""
    strategy = lookup("card_play", name)
    check_params(strategy, params)
    return strategy.factory(**params)
