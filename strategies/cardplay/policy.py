"""What a card player is: its numba function, its row of parameters and its data.

A card player is a numba function ``policy(view, legal, params, data, rng) -> (rng, card)``
(the view layout is in :mod:`sim.rules.view`; ``legal`` is the uint32 mask of legal
cards; ``params`` the float64 row of the player's parameters, laid out from its declaration by
:func:`strategies.parameters.slots`; ``data`` a float32 array of what else the player reads, a
learned model's weights, empty for most; ``rng`` the seat's random state for
:func:`sim.rules.rng.below`). A registered factory returns a :class:`CardPolicy`: the function,
its row, its data and, for a player of the built-in play loop, its kind
(:mod:`strategies.cardplay.builtin`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class CardPolicy:
    """A card player: its numba function, the row of its parameters and its data.

    ``builtin`` is the kind of a player of the built-in play loop (None for any other); tables of
    built-in players only run a kernel that numba can cache between processes. ``data`` is what the
    kernel reads beside its parameters: a learned model's weights (None for a player that reads none).
    """

    name: str
    function: Callable
    params: tuple[float, ...] = ()
    builtin: int | None = None
    data: np.ndarray | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Seats:
    """The card players of the three seats as the play loops read them: ``kinds`` (3, int64; -1 for a
    player outside the built-in loop), ``params`` (3 rows of float64) and ``data`` (3 rows of float32),
    each matrix padded with zeros to its longest row."""

    kinds: np.ndarray
    params: np.ndarray
    data: np.ndarray


def seats_of(policies) -> Seats:
    """The :class:`Seats` of the three seats' card players."""
    kinds = np.array([-1 if p.builtin is None else p.builtin for p in policies], dtype=np.int64)
    return Seats(kinds, _padded([np.asarray(p.params, dtype=np.float64) for p in policies]),
                 _padded([np.zeros(0, np.float32) if p.data is None else np.asarray(p.data, np.float32).ravel()
                          for p in policies]))


def _padded(rows: list[np.ndarray]) -> np.ndarray:
    """The rows stacked, each padded with zeros to the longest (at least one column, so that every
    kernel sees a matrix of the same type)."""
    width = max(1, *(len(r) for r in rows))
    return np.stack([np.pad(r, (0, width - len(r))) for r in rows])
