"""Strategies for every decision of a deal: evaluate, bid, pick up or play hand, discard, declare, play cards.

- :mod:`strategies.roles`: the five roles as protocols; :mod:`strategies.parameters`: a
  strategy's parameters, declared once; :mod:`strategies.registry`: strategies by role and name
  (built-ins and plugins); :mod:`strategies.profiles`: which strategy plays each role at each
  seat (named profiles in ``profile_files/``);
- :mod:`strategies.evaluators`: hand evaluators; :mod:`strategies.bidding`: threshold bidding;
  :mod:`strategies.calibration` and :mod:`strategies.expected`: bidding and declaring by
  expected score on fitted win probabilities; :mod:`strategies.discarding`,
  :mod:`strategies.declaring`: the discard and the declaration;
- :mod:`strategies.cardplay`: the card players, one module each, and the table every play loop seats them at;
- :mod:`strategies.one_hand`: bidders, discarders and declarers written for one hand in plain Python;
- :mod:`strategies.whole_deals`: whole deals in bulk, played by the players a profile seats, and
  :mod:`strategies.lockstep`, its play loop for card players written in Python;
- :mod:`strategies.learning`: the teachers and the training of the learned card player.

Importing the package registers the built-in strategies. This package imports only the
statistics (:mod:`sim.statistics`), the rules engine (:mod:`sim.rules`) and the solver
(:mod:`sim.solver`).
"""

from . import bidding, cardplay, declaring, discarding, evaluators, expected  # noqa: F401  (registers built-ins)
from .cardplay.python_players import BatchCardPlayer, CardPlayer
from .one_hand import HandBidder, HandDeclaration, HandDeclarer, HandDiscarder, HandPlan
from .profiles import Profile, load_profile, profile_names
from .registry import StrategyError, build, logged_evaluators, names, register
from .whole_deals import play_deals

__all__ = ["Profile", "load_profile", "profile_names", "StrategyError", "build", "logged_evaluators", "names",
           "register", "play_deals", "CardPlayer", "BatchCardPlayer", "HandBidder", "HandDiscarder", "HandDeclarer",
           "HandPlan", "HandDeclaration"]
