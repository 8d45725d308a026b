"""The rules engine: cards, dealing, auction, declaration, trick play, scoring and replay.

Everything follows the International Skat Order; see the module docstrings for the
encoding and the rules each module implements:

- :mod:`sim.rules.cards`: cards, their notation, card points and bitmask hands;
- :mod:`sim.rules.rng` and :mod:`sim.rules.shuffle`: counter-based random streams and the shuffle
  that deals (deal ``i`` of seed ``s`` is a pure function of both);
- :mod:`sim.rules.conditions`, :mod:`sim.rules.count_tables` and :mod:`sim.rules.dealing`: fixed cards and
  conditions on the hands, dealt from the exact conditional distribution of the uniform deal;
- :mod:`sim.rules.auction`: the auction;
- :mod:`sim.rules.games`: game types, declarations and their legality;
- :mod:`sim.rules.tricks`: legal cards, trick winners, the play state, which cards beat which;
- :mod:`sim.rules.view`: what one seat may know during play, and a play state rebuilt from it;
- :mod:`sim.rules.play`: the rules' part of each turn of a play loop;
- :mod:`sim.rules.scoring`: matadors, game value, won or lost, overbid, the classic and
  Seeger-Fabian scores and the result row of a finished game;
- :mod:`sim.rules.records`: game records checked, replayed and scored, and the ways a deal ends;
- :mod:`sim.rules.random_play`: complete deals played by random legal choices (the baseline).

The engine imports nothing of the project above it: the solver, strategies, runs,
analysis, importers and the command line all build on it.
"""

from .auction import BID_VALUES, AuctionResult, run_auction
from .cards import format_card, format_hand, parse_card, parse_hand
from .games import GAME_NAMES, Declaration
from .scoring import GameResult, score_game
from .shuffle import deal, deal_batch

__all__ = [
    "BID_VALUES", "AuctionResult", "run_auction", "format_card", "format_hand", "parse_card",
    "parse_hand", "deal", "deal_batch", "GAME_NAMES", "Declaration", "GameResult", "score_game",
]
