"""Card players: which card to play, from what the seat may know. One module per player.

A kernel card player is a numba function ``card(view, legal, params, data, rng) -> (rng, card)``
declared once as a :class:`KernelPlayer` and a :class:`CardPolicy` factory registered under its
name (:mod:`.policy` says what the declaration and the arguments hold). Built in:

- ``random`` (:mod:`.random_cards`): uniformly random legal cards;
- ``heuristic`` (:mod:`.heuristic`, reading the view through :mod:`.heuristic_facts`): a
  club player's rules of thumb: draw trumps, cash masters, smear, stay under in null;
- ``pimc`` and ``pimc_solved`` (:mod:`.pimc`, drawing worlds with :mod:`.worlds` and valuing them
  with :mod:`.world_results`, weighing them with :mod:`.pimc_inference`): perfect-information Monte
  Carlo, its worlds played out by the learned player or solved open-handed;
- ``open_hand`` (:mod:`.open_hand`): the open-hand best card, seeing every hand (an upper bound);
- ``learned`` (:mod:`.learned`, reading the view through :mod:`.learned_features`): a linear model
  and a small network per decision context, trained on a teacher of :mod:`strategies.learning.teacher`.

A card player in plain Python (:mod:`.python_players`) subclasses :class:`CardPlayer` (one decision,
a :class:`SeatView`) or :class:`BatchCardPlayer` (many decisions, :class:`SeatViews`, :mod:`.seat_view`).

Every play loop seats them through :mod:`.table`, which asks each seat's player as its declaration
says and names none of them.
"""

from . import heuristic, learned, open_hand, pimc, random_cards  # noqa: F401  (registers the built-in players)
from .heuristic import heuristic_card
from .pimc import pimc_card
from .policy import CardPolicy, KernelPlayer
from .python_players import BatchCardPlayer, CardPlayer, CardPlayerError
from .random_cards import random_card
from .seat_view import SeatView, SeatViews

__all__ = ["CardPolicy", "KernelPlayer", "heuristic_card", "pimc_card", "random_card", "BatchCardPlayer", "CardPlayer",
           "CardPlayerError", "SeatView", "SeatViews"]
