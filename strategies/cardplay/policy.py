"""What a card player is: its numba function and its row of parameters.

A card player is a numba function ``policy(view, legal, params, rng) -> (rng, card)``
(the view layout is in :mod:`sim.rules.view`; ``legal`` is the uint32 mask of legal
cards; ``params`` the float64 row of the player's parameters; ``rng`` the seat's
random state for :func:`sim.rules.rng.below`). A registered factory returns a
:class:`CardPolicy`: the function, its parameters and, for a player of the built-in
play loop, its kind (:mod:`strategies.cardplay.builtin`).

Each player names the slots of its row in its own module (``HEURISTIC_DEVIATION``,
``PIMC_WORLDS``, ...): its factory writes the row with :func:`param_values` and its
kernel reads ``params[SLOT]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

#: Length of the parameter row every player receives (unused entries are 0).
PARAMS_SIZE = 13
#: The last entry of a built-in player's row says which built-in it is (see strategies.cardplay.builtin).
BUILTIN_KIND = PARAMS_SIZE - 1


@dataclass(frozen=True)
class CardPolicy:
    """A card player: its numba function and parameters.

    ``builtin`` is the kind of a player of the built-in play loop (None for any other); tables of
    built-in players only run a kernel that numba can cache between processes. ``data`` (a learned
    model's weights) follows the row's PARAMS_SIZE entries, where the kernel reads it.
    """

    name: str
    function: Callable
    params: tuple[float, ...] = ()
    builtin: int | None = None
    data: np.ndarray | None = field(default=None, compare=False, repr=False)

    def param_row(self) -> np.ndarray:
        if len(self.params) > BUILTIN_KIND:
            raise ValueError(f"a card-play policy takes at most {BUILTIN_KIND} parameters")
        row = np.zeros(PARAMS_SIZE, dtype=np.float64)
        row[: len(self.params)] = self.params
        row[BUILTIN_KIND] = -1 if self.builtin is None else self.builtin
        if self.data is not None:
            row = np.concatenate([row, np.asarray(self.data, dtype=np.float64).ravel()])
        return row


def param_values(slots: dict[int, float]) -> tuple[float, ...]:
    """The ``params`` of a :class:`CardPolicy` from ``{slot: value}``: each value at its slot, 0 between."""
    values = [0.0] * (max(slots, default=-1) + 1)
    for slot, value in slots.items():
        values[slot] = float(value)
    return tuple(values)
