"""Strategies for every decision of a deal: evaluate, bid, pick up or play hand, discard, declare, play cards.

The roles are protocols in :mod:`strategies.roles`. Importing the package
registers the built-in strategies; see :mod:`strategies.registry` for building
them by name and adding your own, and :mod:`strategies.profiles` for choosing
them per seat. This package imports only the rules engine (:mod:`sim.rules`).
"""

from . import bidding, cardplay, declaring, discarding, evaluators, expected  # noqa: F401  (registers built-ins)
from .deals import play_deals
from .profiles import Profile, load_profile, profile_names
from .registry import StrategyError, build, logged_evaluators, names, register

__all__ = ["Profile", "load_profile", "profile_names", "StrategyError", "build", "logged_evaluators", "names",
           "register", "play_deals"]
