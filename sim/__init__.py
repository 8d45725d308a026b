"""skatsim's engine: cards, dealing, auction, declaration, trick play, scoring and replay.

Everything follows the International Skat Order; see the module docstrings for
the encoding (``sim.cards``) and the rules each module implements.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("skatsim")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"

from .auction import BID_VALUES, AuctionResult, run_auction
from .cards import format_card, format_hand, parse_card, parse_hand
from .deal import deal, deal_batch
from .games import GAME_NAMES, Declaration
from .runner import simulate
from .scoring import GameResult, score_game

__all__ = [
    "BID_VALUES", "AuctionResult", "run_auction", "format_card", "format_hand", "parse_card",
    "parse_hand", "deal", "deal_batch", "GAME_NAMES", "Declaration", "GameResult", "score_game",
    "simulate",
]
