"""Bidders: from a hand evaluator and its thresholds to a maximum bid and an intended game.

The ``threshold`` bidder plays a game when the evaluator's score for it reaches
the threshold (lowered by ``aggressiveness``), means to play the one
:func:`choose_game` picks among them, and bids up to that game's real value:
base value times (matadors over its ten cards + 1 for the game + 1 when it means
to play hand), or the null value of the variant it means to play. It means to
play hand when the score clears the threshold by ``hand_margin`` and null ouvert
when it clears it by ``ouvert_margin``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.rules.auction import max_bid_answers
from sim.rules.games import BASE_VALUES, GRAND, NULL, NULL_VALUES
from sim.rules.scoring import matadors_of

from .parameters import Parameter, Range
from .registry import BoundEvaluator, build, register
from .roles import Assessment, BidPlan


@dataclass(frozen=True)
class ThresholdBidder:
    """A :class:`strategies.roles.Bidder`: margins are the evaluator's scores minus thresholds."""

    evaluate: BoundEvaluator
    thresholds: np.ndarray
    hand_margin: float
    ouvert_margin: float

    def assess(self, hands: np.ndarray, seats) -> Assessment:
        hands = np.asarray(hands, dtype=np.uint32)
        scores = self.evaluate(hands, np.broadcast_to(seats, hands.shape))
        margins = scores - self.thresholds
        return Assessment(scores, margins, margins >= self.hand_margin,
                          margins[:, NULL] >= self.ouvert_margin)

    def plan(self, hands: np.ndarray, seats) -> BidPlan:
        hands = np.asarray(hands, dtype=np.uint32)
        judged = self.assess(hands, seats)
        plays, hand, ouvert = judged.playable, judged.hand, judged.null_ouvert
        values = np.zeros(judged.margins.shape, dtype=np.int64)
        for game in range(GRAND + 1):
            level = np.abs(matadors_of(game, hands)) + 1 + hand[:, game]
            values[:, game] = BASE_VALUES[game] * level
        values[:, NULL] = NULL_VALUES[hand[:, NULL].astype(np.int64) + 2 * ouvert]
        values[~plays] = 0
        game = choose_game(values, judged.margins, plays)
        rows = np.arange(len(hands))
        max_bid = np.where(game >= 0, values[rows, np.maximum(game, 0)], 0)
        chosen_hand = np.where(game >= 0, hand[rows, game], False)
        return BidPlan(max_bid, game, chosen_hand, ouvert & (game == NULL), judged)


def max_bid(bidder, hand: int, seat: int) -> int:
    """The maximum bid of one hand (0: pass at once)."""
    return int(bidder.plan(np.array([hand], dtype=np.uint32), seat).max_bid[0])


def auction_answers(bidders, hands):
    """The answers (bid_from, hold_at) of three bidders holding ``hands``, for sim.rules.auction.run_auction."""
    return max_bid_answers([max_bid(b, h, seat) for seat, (b, h) in enumerate(zip(bidders, hands))])


def choose_game(values: np.ndarray, margins: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """The game to play among the ``allowed`` ones of each row (-1 where none is).

    The four suits are scored on one scale, so the suit with the largest margin
    stands for them; of that suit, grand and null (scores on different scales) the
    most valuable is chosen, ties going to the larger margin.
    """
    rows = np.arange(len(values))
    best_suit = np.argmax(np.where(allowed[:, :GRAND], margins[:, :GRAND], -np.inf), axis=1)
    keep = allowed.copy()
    keep[:, :GRAND] = False
    keep[rows, best_suit] = allowed[rows, best_suit]
    key = np.where(keep, values * 1e6 + np.clip(margins, -1e5, 1e5), -np.inf)
    return np.where(keep.any(axis=1), np.argmax(key, axis=1), -1)


#: The threshold bidder's parameters.
THRESHOLD_PARAMETERS = (
    Parameter("evaluator", "text", "default", "the hand evaluator whose scores are compared with the thresholds"),
    Parameter("aggressiveness", "number", 0.0, "lowers every threshold by this much (negative: raises them)",
              (-20, 20)),
    Parameter("hand_margin", "number", 3.0, "how far past its threshold a game must be to be played hand",
              (-50, 50)),
    Parameter("ouvert_margin", "number", 6.0, "how far past its threshold a null must be to be played ouvert",
              (-50, 50)),
    Parameter("thresholds", "numbers", None, "six numbers, diamonds .. null, in place of the evaluator's own "
              "(inf: never that game)", Range(-100, 100, count=6, allow_inf=True)),
    Parameter("evaluator_params", "section", None, "the evaluator's parameters"),
)


@register("bidder", "threshold", parameters=THRESHOLD_PARAMETERS)
def threshold_bidder(evaluator, aggressiveness, hand_margin, ouvert_margin, thresholds,
                     evaluator_params) -> ThresholdBidder:
    """Play a game when its score reaches the evaluator's threshold; bid up to its real value."""
    evaluate = build("evaluator", evaluator, **(evaluator_params or {}))
    base = evaluate.thresholds if thresholds is None else thresholds
    if np.shape(base) != (6,):
        raise ValueError(f"thresholds must be six numbers (diamonds .. null), not {thresholds!r}")
    thresholds = np.asarray(base, dtype=np.float64) - aggressiveness
    return ThresholdBidder(evaluate, thresholds, hand_margin, ouvert_margin)

