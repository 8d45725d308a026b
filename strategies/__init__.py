"""Strategies for every decision of a deal: evaluate, bid, pick up or play hand, discard, declare, play cards.

Importing the package registers the built-in strategies; see
:mod:`strategies.registry` for adding your own and :mod:`strategies.profiles`
for choosing them.
"""

from . import bidding, cardplay, declaring, discarding, evaluators  # noqa: F401  (registers built-ins)
from .profiles import Profile, load_profile, profile_names
from .registry import StrategyError, names
from .table import play_deals

__all__ = ["Profile", "load_profile", "profile_names", "StrategyError", "names", "play_deals"]
