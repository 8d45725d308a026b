"""Pick up or play hand, discard, and declare: the declarer's decisions after the auction.

The built-in ``best_margin`` declarer plays hand when its bidder meant to (the
hand then cleared its threshold by the bidder's hand margin), announcing
schneider when the margin reaches ``schneider_margin`` and playing a suit or
grand game ouvert when it reaches ``ouvert_margin``. After picking up the skat it
tries every game type: discards for it and scores the ten cards it would keep.
It plays the game it bid for, or switches to a more valuable game whose score
now clears its threshold by ``switch_margin`` (the skat brought a jack, an ace
or a void); kept ten of twelve cards score higher than ten dealt ones, so a
plain pass of the threshold is not enough to switch. Of those games it declares
the most valuable that reaches the bid (ties: the larger margin), else the game
with the largest margin that reaches it. Null ouvert is declared when the null
margin reaches the bidder's ouvert margin. When no game reaches the bid it declares the suit or grand game
with the largest margin and loses it as overbid unless schneider or schwarz lift
its value. (Scores of different game types are on different scales, so margins
are compared across games only as a last resort.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.games import BASE_VALUES, GRAND, NULL, NULL_VALUES
from sim.scoring import matadors_of

from .bidding import BidPlan, ThresholdBidder, choose_game
from .discarding import Discarder, discard_many
from .registry import check_params, lookup, register


@dataclass(frozen=True)
class MarginDeclarer:
    schneider_margin: float
    ouvert_margin: float
    switch_margin: float


@register("declarer", "best_margin")
def best_margin(schneider_margin: float = 8.0, ouvert_margin: float = 12.0,
                switch_margin: float = 2.0) -> MarginDeclarer:
    """Play the game bid for, or a more valuable one the skat made clearly playable."""
    return MarginDeclarer(float(schneider_margin), float(ouvert_margin), float(switch_margin))


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
                       skats: np.ndarray, bids: np.ndarray, rows: np.ndarray, out: Declarations) -> None:
    """Hand games of ``rows`` (indices into the batch; ``plan``, ``skats`` and ``bids`` indexed by row)."""
    margins = plan.scores[rows] - bidder.thresholds
    game = plan.game[rows]
    null_value = NULL_VALUES[1 + 2 * plan.ouvert[rows].astype(np.int64)]
    game = np.where((game == NULL) & (null_value < bids[rows]), _overbid_game(game, margins), game)
    margin = margins[np.arange(len(rows)), game]
    announce(rule, game, margin, plan.ouvert[rows], rows, out)
    out.hand[rows] = True
    out.skat[rows] = skats[rows]


def announce(rule: MarginDeclarer, game: np.ndarray, margin: np.ndarray, null_ouvert: np.ndarray,
             rows: np.ndarray, out: Declarations) -> None:
    """Game, ouvert and announcements of hand games: suit or grand ouvert (which announces schwarz)
    from ``ouvert_margin``, schneider from ``schneider_margin``; null ouvert as the bidder planned."""
    suit_or_grand = game != NULL
    ouvert = np.where(suit_or_grand, margin >= rule.ouvert_margin, null_ouvert)
    schwarz = suit_or_grand & ouvert
    out.game[rows], out.ouvert[rows], out.schwarz[rows] = game, ouvert, schwarz
    out.schneider[rows] = suit_or_grand & (schwarz | (margin >= rule.schneider_margin))


def declare_after_pickup(twelve: np.ndarray, seat: int, bids: np.ndarray, plan: BidPlan,
                         rule: MarginDeclarer, bidder: ThresholdBidder, discarder: Discarder,
                         rows: np.ndarray, out: Declarations) -> None:
    """Discard and declare for the declarers of ``rows`` who picked up.

    ``twelve`` and ``bids`` are given by row; ``plan`` is the declarer's bid plan of
    the whole batch.
    """
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
    intended = plan.game[rows]
    playable = ((np.arange(6) == intended[:, None]) | (plan.plays[rows] & (margins >= 0))
                | (margins >= rule.switch_margin))
    chosen = choose_game(values, margins, playable & (values >= bids[:, None]))
    best = np.where(chosen >= 0, chosen, _overbid_game(intended, margins))
    out.game[rows] = best
    out.ouvert[rows] = (best == NULL) & null_ouvert
    out.skat[rows] = discards[np.arange(n), best]
    out.discarded[rows] = True


def _overbid_game(intended: np.ndarray, margins: np.ndarray) -> np.ndarray:
    """The game declared when no playable game reaches the bid: the suit or grand game bid
    for, or (a null may not be declared below the bid) the suit or grand with the largest margin."""
    suit_or_grand = (intended >= 0) & (intended != NULL)
    return np.where(suit_or_grand, intended, np.argmax(margins[:, :NULL], axis=1))
