"""What a card player written as a numba kernel is: its declaration, its row of parameters and its data.

A kernel card player's module declares once, in a :class:`KernelPlayer`, everything a play loop
needs to know of it: its kernel ``card(view, legal, params, data, rng) -> (rng, card)`` (the view
layout is in :mod:`sim.rules.view`; ``legal`` is the mask of legal cards; ``params`` the float64 row
of the player's parameters, laid out from its declaration by :func:`strategies.parameters.slots`;
``data`` a float32 array of what else the player reads, a learned model's weights, empty for most;
``rng`` the seat's random state for :func:`sim.rules.rng.below`), whether it searches with the
open-hand solver, whether it reads a model, which of its kernels compile apart from the loop, and
an optional faster entry for the loops. A registered factory returns a :class:`CardPolicy`: the
declaration, the row of parameters and the data. Every play loop seats such players through
:mod:`strategies.cardplay.table`, which reads nothing else of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class KernelPlayer:
    """What the play loops need to know of a card player written as a numba kernel.

    - ``card``: the kernel, ``card(view, legal, params, data, rng) -> (rng, card)``, a module-level
      ``@njit(cache=True)`` function; with ``searches``, ``card(view, legal, params, data, rng, state,
      aside, tt, stack)``: it also gets the solver's transposition table ``tt`` and ``stack`` that the
      loop keeps for a batch, and the play state and the two cards that count for the declarer
      unplayed (a player that reads them sees every hand: only ``open_hand`` does).
    - ``searches``: it searches with the open-hand solver (the loop then makes a table of full size).
    - ``reads_model``: it reads a model, the policy's ``data``, which must then be given.
    - ``compiled_apart``: functions that compile (or load from numba's cache) the player's kernels that
      compile apart from the play loop; a first run's second process calls them while the first
      compiles the loop (:mod:`sim.runs.compiling`).
    - ``turn``: optionally the same card asked faster, ``turn(view, legal, params, data, seat, rng) ->
      (rng, card)`` with every seat's ``params`` and ``data`` matrices and the seat: a kernel that reads
      its row in place spares the loop slicing one each turn (``inline="always"``).
    """

    card: Callable
    searches: bool = False
    reads_model: bool = False
    compiled_apart: tuple[Callable, ...] = ()
    turn: Callable | None = None


@dataclass(frozen=True)
class CardPolicy:
    """A card player written as a numba kernel: its declaration, the row of its parameters and its data.

    ``player`` is the module's :class:`KernelPlayer` (a bare kernel is taken as a player that neither
    searches nor reads a model). ``data`` is what the kernel reads beside its parameters: a learned
    model's weights (None for a player that reads none).
    """

    name: str
    player: KernelPlayer | Callable
    params: tuple[float, ...] = ()
    data: np.ndarray | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if not isinstance(self.player, KernelPlayer):
            object.__setattr__(self, "player", KernelPlayer(self.player))

    @property
    def function(self) -> Callable:
        """The player's kernel (:attr:`KernelPlayer.card`)."""
        return self.player.card
