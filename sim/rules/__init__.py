"""The rules engine: cards, dealing, auction, declaration, trick play, scoring and replay.

Everything follows the International Skat Order; see the module docstrings for
the encoding (:mod:`sim.rules.cards`) and the rules each module implements. The
engine imports nothing of the project above it: strategies, run folders,
analysis and the command line all build on it.
"""

from .auction import BID_VALUES, AuctionResult, run_auction
from .cards import format_card, format_hand, parse_card, parse_hand
from .deal import deal, deal_batch
from .games import GAME_NAMES, Declaration
from .scoring import GameResult, score_game

__all__ = [
    "BID_VALUES", "AuctionResult", "run_auction", "format_card", "format_hand", "parse_card",
    "parse_hand", "deal", "deal_batch", "GAME_NAMES", "Declaration", "GameResult", "score_game",
]
