"""The ``expected_score`` bidder and declarer: every choice by the expected Seeger-Fabian result.

With a :class:`strategies.calibration.Model` of win, schneider and schwarz
probabilities, the expected Seeger-Fabian score of declaring a game at a bid is::

    suit or grand, value V = base x (matadors + 1 [+ 1 hand]) and V' = V + base (schneider):
        V >= bid:          P(schneider) (V' + 50) + (P(win) - P(schneider)) (V + 50) - P(lost) (2 V + 50)
        V < bid <= V':     it must make schneider: P(schneider) (V' + 50) - P(not) (2 X + 50)
        V' < bid:          lost as overbid: -(2 X + 50), X the smallest multiple of base reaching the bid
    null of value N:       P(win) (N + 50) - P(lost) (2 N + 50); not declarable when N < bid

and announcing schneider, schwarz or ouvert in a hand game replaces P(win) by
P(schneider) or P(schwarz) and adds their levels. Passing scores 0.

The bidder judges each game after picking up and hand (null: plain or ouvert), chooses
pick-up or hand and the game by the best expected result at 18, and bids up to the
highest value at which some game of that choice still beats passing by ``margin``.
The declarer plays hand or picks up as the bidder planned; it declares the game (and
the announcements) with the best expected result at the final bid: on the ten cards in
a hand game, and on the ten it keeps after a pick-up with the ``kept`` probabilities,
trying each game's own discard.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.rules.auction import BID_VALUES
from sim.rules.games import BASE_VALUES, GRAND, NULL, NULL_VALUES
from sim.rules.scoring import SF_LOST_PENALTY, SF_WON_BONUS, matadors_of

from .calibration import HandFeatures, Model
from .registry import register
from .roles import Assessment, BidPlan, Declarations, DeclarerTask, concatenate, declare_hand_and_pickup

NO_GAME = -1e9  # the expected result of a game that may not be declared at the bid
#: Hands judged in one go: blocks small enough that numpy's temporaries stay in the processor's
#: cache, several times faster than a whole batch at once.
BLOCK = 8192


def in_blocks(judge, n: int):
    """``judge(rows)`` for blocks of rows, joined (the judgement of a row depends on that row alone)."""
    if n <= BLOCK:
        return judge(slice(None))
    return concatenate([judge(slice(start, start + BLOCK)) for start in range(0, n, BLOCK)])


def _won(value):
    return value + SF_WON_BONUS


def _lost(value):
    return 2 * value + SF_LOST_PENALTY


def suit_or_grand(p_win, p_schneider, base, levels, bid):
    """Expected Seeger-Fabian score of a suit or grand game of ``levels`` without schneider, at ``bid``."""
    q = np.minimum(p_schneider, p_win)
    value, value_schneider = base * levels, base * (levels + 1)
    overbid = base * -(-np.asarray(bid) // base)
    normal = q * _won(value_schneider) + (p_win - q) * _won(value) - (1 - p_win) * _lost(value)
    needs_schneider = q * _won(value_schneider) - (1 - q) * _lost(overbid)
    return np.where(value >= bid, normal, np.where(value_schneider >= bid, needs_schneider, -_lost(overbid)))


def announced(p_make, base, levels, bid):
    """Expected score of a hand game whose announcement (``levels`` counted in) is made with ``p_make``."""
    value = base * levels
    return np.where(value >= bid, p_make * _won(value) - (1 - p_make) * _lost(value), NO_GAME)


def null(p_win, variant_value, bid):
    return np.where(variant_value >= bid, p_win * _won(variant_value) - (1 - p_win) * _lost(variant_value), NO_GAME)


def _group(game: int) -> tuple[str, int]:
    """The model's group of a suit or grand game, and the trump suit its features are read for."""
    return ("suit", game) if game < GRAND else ("grand", 3)


def _highest_bid(value):
    """The highest legal bid at or below ``value`` (0 below 18)."""
    index = np.searchsorted(BID_VALUES, value, side="right") - 1
    return np.where(index >= 0, BID_VALUES[np.maximum(index, 0)], 0)


@dataclass(frozen=True)
class Options:
    """Expected results of every game of a batch in one situation: ``best`` (n, 6) at the bid, and for
    suit and grand the value levels that set how high the game can be bid."""

    best: np.ndarray
    levels: np.ndarray        # (n, 5) suit and grand
    schneider: np.ndarray     # (n, 5) expected result when the bid needs schneider
    null_ouvert: np.ndarray   # (n,) null ouvert is the better null


def options(model: Model, hands: HandFeatures, situation: str, bid, matadors: np.ndarray,
            games=range(NULL + 1)) -> Options:
    """Expected results of the six games (or only ``games``; the others stay NO_GAME) for ten-card
    ``hands`` (``situation`` pickup, hand or kept)."""
    n = len(hands.hands)
    hand = situation == "hand"
    best = np.full((n, 6), NO_GAME)
    levels = np.abs(matadors[:, :GRAND + 1]) + 1 + hand
    schneider = np.full((n, GRAND + 1), NO_GAME)
    for game in (g for g in games if g <= GRAND):
        group, trump = _group(game)
        win = model.probability("win", group, situation, hands, trump)
        made = model.probability("schneider", group, situation, hands, trump)
        base = BASE_VALUES[game]
        best[:, game] = suit_or_grand(win, made, base, levels[:, game], bid)
        schneider[:, game] = suit_or_grand(win, made, base, levels[:, game], base * (levels[:, game] + 1))
    if NULL not in games:
        return Options(best, levels, schneider, np.zeros(n, dtype=bool))
    plain = null(model.probability("win", "null", situation, hands), NULL_VALUES[int(hand)], bid)
    open_ = null(model.probability("win", "null_ouvert", situation, hands), NULL_VALUES[2 + hand], bid)
    best[:, NULL] = np.maximum(plain, open_)
    return Options(best, levels, schneider, open_ > plain)


def _matadors(cards) -> np.ndarray:
    return np.stack([matadors_of(game, cards) for game in range(GRAND + 1)], axis=1)


@dataclass(frozen=True)
class ExpectedScoreBidder:
    """A :class:`strategies.roles.Bidder` that bids while the best game's expected result beats passing."""

    model: Model
    margin: float

    def _both(self, hands, seats, bid):
        judged, mat = HandFeatures(hands, seats), _matadors(hands)
        return options(self.model, judged, "pickup", bid, mat), options(self.model, judged, "hand", bid, mat)

    def assess(self, hands, seats) -> Assessment:
        hands = np.asarray(hands, dtype=np.uint32)
        seats = np.broadcast_to(np.asarray(seats), hands.shape)
        return in_blocks(lambda rows: self._assess(hands[rows], seats[rows]), len(hands))

    def _assess(self, hands, seats) -> Assessment:
        return self._judged(*self._both(hands, seats, BID_VALUES[0]))

    def _judged(self, pickup: Options, hand: Options) -> Assessment:
        """Every game at its better variant (hand or pick-up; null plain or ouvert)."""
        best = np.maximum(pickup.best, hand.best)
        play_hand = hand.best > pickup.best
        null_ouvert = np.where(play_hand[:, NULL], hand.null_ouvert, pickup.null_ouvert)
        return Assessment(best, best - self.margin, play_hand, null_ouvert)

    def plan(self, hands, seats) -> BidPlan:
        """Pick up or hand, and the game, by the best expected result at 18; bid up to the highest bid
        at which some game of that variant still beats passing by the margin."""
        hands = np.asarray(hands, dtype=np.uint32)
        seats = np.broadcast_to(np.asarray(seats), hands.shape)
        return in_blocks(lambda rows: self._plan(hands[rows], seats[rows]), len(hands))

    def _plan(self, hands, seats) -> BidPlan:
        pickup, hand = self._both(hands, seats, BID_VALUES[0])
        play_hand = hand.best.max(axis=1) > pickup.best.max(axis=1)
        best = np.where(play_hand[:, None], hand.best, pickup.best)
        reach = np.where(play_hand[:, None], self._reach(hand, True), self._reach(pickup, False))
        max_bid = reach.max(axis=1)
        plays = max_bid >= BID_VALUES[0]
        game = np.where(plays, best.argmax(axis=1), -1)
        null_ouvert = np.where(play_hand, hand.null_ouvert, pickup.null_ouvert)
        return BidPlan(max_bid.astype(np.int64), game, plays & play_hand, plays & (game == NULL) & null_ouvert,
                       self._judged(pickup, hand))

    def _reach(self, judged: Options, hand: bool) -> np.ndarray:
        """(n, 6): the highest bid at which each game's expected result still beats passing by the margin."""
        reach = np.zeros(judged.best.shape, dtype=np.int64)
        value = BASE_VALUES[:GRAND + 1] * judged.levels
        worth = judged.best[:, :GRAND + 1] >= self.margin
        with_schneider = judged.schneider >= self.margin
        reach[:, :GRAND + 1] = np.where(worth, value, 0)
        reach[:, :GRAND + 1] = np.where(worth & with_schneider, value + BASE_VALUES[:GRAND + 1], reach[:, :GRAND + 1])
        null_value = np.where(judged.null_ouvert, NULL_VALUES[2 + hand], NULL_VALUES[int(hand)])
        reach[:, NULL] = np.where(judged.best[:, NULL] >= self.margin, null_value, 0)
        return _highest_bid(reach)


@register("bidder", "expected_score", ranges={"margin": (-200, 200)})
def expected_score_bidder(model: dict | None = None, margin: float = 0.0) -> ExpectedScoreBidder:
    """Bid while the best game's expected Seeger-Fabian result beats passing by ``margin`` (a calibrated model)."""
    if model is None:
        raise ValueError("the expected_score bidder needs a model: make one with `skatsim calibrate`")
    return ExpectedScoreBidder(Model.from_dict(model), float(margin))


@dataclass(frozen=True)
class ExpectedScoreDeclarer:
    """A :class:`strategies.roles.Declarer` that declares the game and announcements of best expected result."""

    model: Model

    def declare(self, task: DeclarerTask) -> Declarations:
        return in_blocks(lambda rows: declare_hand_and_pickup(task.take(rows), self.hand_games, self.after_pickup),
                         len(task.cards))

    def hand_games(self, task: DeclarerTask, rows: np.ndarray) -> Declarations:
        """Hand games: every game plain or announced (schneider, schwarz, ouvert), the best expected result."""
        ten, bids, n = task.cards[rows], task.bids[rows], len(rows)
        cards = HandFeatures(ten, np.full(n, task.seat))
        judged = options(self.model, cards, "hand", bids, _matadors(ten))
        choices = [judged.best]          # plain, then schneider, schwarz and ouvert announced
        for extra, outcome in ((2, "schneider"), (4, "schwarz"), (5, "schwarz")):
            column = np.full((n, 6), NO_GAME)
            for game in range(GRAND + 1):
                group, trump = _group(game)
                made = self.model.probability(outcome, group, "hand", cards, trump)
                column[:, game] = announced(made, BASE_VALUES[game], judged.levels[:, game] + extra, bids)
            choices.append(column)
        table = np.stack(choices, axis=1)                 # (n, 4 choices, 6 games)
        if task.games is not None:
            table = np.where(np.arange(6) == task.games[rows, None, None], table, -np.inf)
        flat = table.reshape(n, 24).argmax(axis=1)
        choice, game = flat // 6, flat % 6
        out = Declarations.empty(n)
        out.game[:], out.hand[:] = game, True
        out.ouvert[:] = np.where(game == NULL, judged.null_ouvert, choice == 3)
        out.schwarz[:] = (game != NULL) & (choice >= 2)
        out.schneider[:] = (game != NULL) & (choice >= 1)
        return out

    def after_pickup(self, task: DeclarerTask, rows: np.ndarray) -> Declarations:
        """Each game with its own discard, judged on the ten cards kept; the best expected result."""
        twelve, bids, n = task.cards[rows], task.bids[rows], len(rows)
        seats = np.full(n, task.seat)
        mat = _matadors(twelve)       # matadors count over all twelve cards
        discards = np.empty((n, 6), dtype=np.uint32)
        best = np.empty((n, 6))
        ouvert = np.zeros(n, dtype=bool)
        for game in range(NULL + 1):
            discards[:, game] = task.discarder.discard(twelve, game)
            judged = options(self.model, HandFeatures(twelve & ~discards[:, game], seats), "kept", bids, mat,
                             (game,))
            best[:, game] = judged.best[:, game]
            if game == NULL:
                ouvert = judged.null_ouvert
        if task.games is not None:
            best = np.where(np.arange(6) == task.games[rows, None], best, -np.inf)
        game = best.argmax(axis=1)
        out = Declarations.empty(n)
        out.game[:], out.ouvert[:] = game, (game == NULL) & ouvert
        out.skat[:], out.discarded[:] = discards[np.arange(n), game], True
        return out


@register("declarer", "expected_score")
def expected_score_declarer(model: dict | None = None) -> ExpectedScoreDeclarer:
    """Declare the game and announcements with the best expected Seeger-Fabian result (a calibrated model)."""
    if model is None:
        raise ValueError("the expected_score declarer needs a model: make one with `skatsim calibrate`")
    return ExpectedScoreDeclarer(Model.from_dict(model))
