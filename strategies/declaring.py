"""Pick up or play hand, discard, and declare: the declarer's decisions after the auction.

The built-in ``best_margin`` declarer plays hand when its bidder meant to (the
hand then cleared its threshold by the bidder's hand margin), announcing
schneider when the margin reaches ``schneider_margin`` and playing a suit or
grand game ouvert when it reaches ``ouvert_margin``. After picking up the skat it
tries every game type: discards for it, scores the ten cards it would keep, and
declares the game with the largest margin over its threshold among those whose
value reaches the bid (ties: the higher value). Null ouvert is declared when the
null margin reaches the bidder's ouvert margin. When no game reaches the bid it
declares the suit or grand game with the largest margin and loses it as overbid
unless schneider or schwarz lift its value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.games import BASE_VALUES, GRAND, NULL, NULL_VALUES
from sim.scoring import matadors_of

from .bidding import BidPlan, ThresholdBidder
from .discarding import Discarder, discard_many
from .registry import check_params, lookup, register


@dataclass(frozen=True)
class MarginDeclarer:
    schneider_margin: float
    ouvert_margin: float


@register("declarer", "best_margin")
def best_margin(schneider_margin: float = 8.0, ouvert_margin: float = 12.0) -> MarginDeclarer:
    """Declare the game that clears its threshold by most among those that reach the bid."""
    return MarginDeclarer(schneider_margin, ouvert_margin)


def declarer_rule(name: str, **params) -> MarginDeclarer:
    strategy = lookup("declarer", name)
    check_params(strategy, params)
    return strategy.factory(**params)


@dataclass
class Declarations:
    """The declarer's choices for a batch of deals (rows of passed-in deals are zero)."""

    game: np.ndarray        # int64
    hand: np.ndarray        # bool
    schneider: np.ndarray   # bool, announced
    schwarz: np.ndarray     # bool, announced
    ouvert: np.ndarray      # bool
    skat: np.ndarray        # uint32: the declarer's two skat cards at the end (discard, or the skat in hand)
    discarded: np.ndarray   # bool: the skat was picked up and two cards discarded

    @classmethod
    def empty(cls, n: int) -> "Declarations":
        z = np.zeros(n, dtype=bool)
        return cls(np.zeros(n, np.int64), z, z.copy(), z.copy(), z.copy(), np.zeros(n, np.uint32), z.copy())


def declare_hand_games(plan: BidPlan, rule: MarginDeclarer, bidder: ThresholdBidder,
                       skats: np.ndarray, rows: np.ndarray, out: Declarations) -> None:
    """Hand games of ``rows`` (indices into the batch; ``plan`` and ``skats`` indexed by row)."""
    game = plan.game[rows]
    margin = (plan.scores[rows] - bidder.thresholds)[np.arange(len(rows)), game]
    suit_or_grand = game != NULL
    ouvert = np.where(suit_or_grand, margin >= rule.ouvert_margin, plan.ouvert[rows])
    schwarz = suit_or_grand & ouvert
    out.game[rows], out.hand[rows], out.ouvert[rows] = game, True, ouvert
    out.schwarz[rows] = schwarz
    out.schneider[rows] = suit_or_grand & (schwarz | (margin >= rule.schneider_margin))
    out.skat[rows] = skats[rows]


def declare_after_pickup(twelve: np.ndarray, seat: int, bids: np.ndarray, bidder: ThresholdBidder,
                         discarder: Discarder, rows: np.ndarray, out: Declarations) -> None:
    """Discard and declare for the declarers of ``rows`` who picked up (``twelve``, ``bids`` by row)."""
    n = len(rows)
    discards = np.empty((n, 6), dtype=np.uint32)
    margins = np.empty((n, 6))
    for game in range(NULL + 1):
        discards[:, game] = discard_many(discarder, twelve, game)
        margins[:, game] = bidder.margins(twelve & ~discards[:, game], np.full(n, seat))[1][:, game]
    values = np.empty((n, 6), dtype=np.int64)
    for game in range(GRAND + 1):
        values[:, game] = BASE_VALUES[game] * (np.abs(matadors_of(game, twelve)) + 1)
    null_ouvert = margins[:, NULL] >= bidder.ouvert_margin
    values[:, NULL] = np.where(null_ouvert, NULL_VALUES[2], NULL_VALUES[0])
    reaches = values >= bids[:, None]
    key = np.where(reaches, margins, -np.inf)
    best = np.argmax(np.where(reaches.any(axis=1)[:, None], key, _suit_or_grand(margins)), axis=1)
    tied = np.isclose(key, key[np.arange(n), best][:, None]) & reaches
    best = np.where(tied.any(axis=1), np.argmax(np.where(tied, values, -1), axis=1), best)
    out.game[rows] = best
    out.ouvert[rows] = (best == NULL) & null_ouvert
    out.skat[rows] = discards[np.arange(n), best]
    out.discarded[rows] = True


def _suit_or_grand(margins: np.ndarray) -> np.ndarray:
    key = margins.copy()
    key[:, NULL] = -np.inf
    return key
