"""Card players written in plain Python: one decision at a time, or a batch of decisions at once.

A :class:`CardPlayer` answers ``play(view)`` for one :class:`~strategies.cardplay.seat_view.SeatView`;
a :class:`BatchCardPlayer` answers ``play_batch(views)`` for the :class:`~strategies.cardplay.seat_view.SeatViews`
of many deals at the same point of play, so that a numpy rule or a neural network runs once per
batch. Either returns cards by name (``"H10"``) or id. Registered like every card player::

    @register("card_play", "lowest_winner")
    class LowestWinner(CardPlayer):
        def play(self, view):
            ...

The class is the factory: its keyword arguments are the player's parameters (``--set
card_play.NAME=VALUE``). :mod:`strategies.lockstep` plays them: the kernel players at the other
seats stay in numba, and every deal of a batch waits at each decision of a Python player until that
player has answered for all of them. An answer that is not a legal card (or, from a batch player, not
one card a decision) or an exception inside the player stops the run with a :class:`CardPlayerError`
naming the player, what it answered, the deal and the decision (and the batch's size).
"""

from __future__ import annotations

from ..registry import StrategyError
from .seat_view import SeatView, SeatViews


class CardPlayerError(StrategyError):
    """A card player in Python that answered something that is not a legal card, or raised."""


class _PythonPlayer:
    """A card player written in Python; the play loops leave its seats to :mod:`strategies.lockstep`."""

    name: str | None = None      # the registered name, set when the player is built

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class CardPlayer(_PythonPlayer):
    """A card player that decides one card at a time: override :meth:`play`."""

    def play(self, view: SeatView):
        """The card to play, one of ``view.legal`` (a name like ``"H10"`` or a card id)."""
        raise NotImplementedError(f"{type(self).__name__} must define play(view)")


class BatchCardPlayer(_PythonPlayer):
    """A card player that decides many deals at once: override :meth:`play_batch`."""

    def play_batch(self, views: SeatViews):
        """One card per row of ``views`` (ids, or names), each among the row's legal cards."""
        raise NotImplementedError(f"{type(self).__name__} must define play_batch(views)")


def is_python_player(player) -> bool:
    """Whether ``player`` is a card player written in Python (and not a numba kernel)."""
    return isinstance(player, _PythonPlayer)
