"""The expected_score bidder and declarer written plainly in numpy, batch-wide: the reference the
numba kernels of strategies.expected and strategies.hand_features are checked against.

``HandFeatures`` computes every feature of strategies.calibration.FEATURES from the evaluators'
tables and scores, column by column; ``ReferenceBidder`` and ``ReferenceDeclarer`` apply the
formulas of strategies.expected's docstring to whole arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.rules.auction import BID_VALUES
from sim.rules.cards import JACK
from sim.rules.games import BASE_VALUES, GRAND, NULL, NULL_VALUES
from sim.rules.scoring import SF_LOST_PENALTY, SF_WON_BONUS, matadors_of
from strategies.calibration import FEATURES, Model, key
from strategies.evaluators import (
    ACE_BIT,
    JACK_BIT,
    LENGTH,
    NULL_DANGER,
    NULL_VOID,
    SEVEN_BIT,
    TEN_WITH_ACE,
    VOID,
    evaluator,
    suit_rows,
    suit_total,
)
from strategies.roles import Assessment, BidPlan, Declarations, DeclarerTask, declare_hand_and_pickup

NO_GAME = -1e9


def probability(model: Model, outcome: str, group: str, situation: str, hands: "HandFeatures", trump=3):
    """P(outcome) of each hand (0 where the model has no such part)."""
    part = model.parts.get(key(outcome, group, situation))
    if part is None:
        return np.zeros(len(hands.hands))
    return part.probability(hands.of(group, trump))


def _seat_columns(seats, n: int) -> dict[str, np.ndarray]:
    seats = np.broadcast_to(np.asarray(seats), (n,))
    return {"forehand": (seats == 0).astype(float), "middlehand": (seats == 1).astype(float)}


class HandFeatures:
    """The features of one batch of ten-card hands for every game group, the evaluators scored once.

    ``of(group, trump)`` gives the (n, k) features of a group (columns as :data:`FEATURES`); for
    ``suit``, ``trump`` is the trump suit (0 diamonds .. 3 clubs), one for all rows or one per row.
    """

    def __init__(self, hands, seats):
        self.hands = np.ascontiguousarray(hands, dtype=np.uint32)
        n = len(self.hands)
        self.rows = suit_rows(self.hands)                      # (4, n): one row per suit
        self.jacks = suit_total(JACK_BIT, self.rows)
        self.club_jack = ((self.hands >> np.uint32(3 * 8 + JACK)) & 1).astype(float)
        self.seats = seats
        self.seat = _seat_columns(seats, n)
        self.evaluated: dict = {}
        self.cache: dict = {}

    def score(self, name: str) -> np.ndarray:
        """The evaluator's (n, 6) scores of the hands, scored once."""
        if name not in self.evaluated:
            self.evaluated[name] = evaluator(name)(self.hands, self.seats)
        return self.evaluated[name]

    def of(self, group: str, trump=3) -> np.ndarray:
        cached = np.ndim(trump) == 0
        if cached and (group, int(trump)) in self.cache:
            return self.cache[group, int(trump)]
        column = {"suit": self._suit, "grand": self._grand}.get(group, self._null)(trump)
        x = np.column_stack([column[name] for name in FEATURES[group]]).astype(float)
        if cached:
            self.cache[group, int(trump)] = x
        return x

    def _suit(self, trump) -> dict:
        n = len(self.hands)
        trump = np.broadcast_to(np.asarray(trump), (n,))
        pick = np.arange(n)
        if "suits" not in self.evaluated:  # the per-suit counts every trump suit reads
            self.evaluated["suits"] = (LENGTH.take(self.rows), ACE_BIT.take(self.rows), TEN_WITH_ACE.take(self.rows),
                                       VOID.take(self.rows),
                                       np.stack([matadors_of(g, self.hands) for g in range(GRAND)], axis=1))
        length, aces, tens, voids, matadors = self.evaluated["suits"]
        return {"trumps": self.jacks + length[trump, pick], "jacks": self.jacks, "club_jack": self.club_jack,
                "matadors_with": np.maximum(matadors[pick, trump], 0).astype(float),
                "trump_ace_ten": aces[trump, pick] + tens[trump, pick],
                "side_aces": aces.sum(0) - aces[trump, pick], "side_tens": tens.sum(0) - tens[trump, pick],
                "side_voids": voids.sum(0) - voids[trump, pick],
                **{name: self.score(name)[pick, trump] for name in ("trump_length", "classic", "weighted")},
                **self.seat}

    def _grand(self, _trump) -> dict:
        length, aces = LENGTH.take(self.rows), ACE_BIT.take(self.rows)
        return {"jacks": self.jacks, "club_jack": self.club_jack, "aces": aces.sum(0),
                "tens": suit_total(TEN_WITH_ACE, self.rows), "voids": suit_total(VOID, self.rows),
                "long_suit": (length * aces).max(0),
                **{name: self.score(name)[:, GRAND] for name in ("grand_rule", "classic", "weighted")},
                **self.seat}

    def _null(self, _trump) -> dict:
        return {**{name: self.score(name)[:, NULL] for name in ("null_rule", "weighted")},
                "sevens": suit_total(SEVEN_BIT, self.rows), "voids": suit_total(NULL_VOID, self.rows),
                "worst_suit": NULL_DANGER.take(self.rows).max(0), **self.seat}


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
        win = probability(model, "win", group, situation, hands, trump)
        made = probability(model, "schneider", group, situation, hands, trump)
        base = BASE_VALUES[game]
        best[:, game] = suit_or_grand(win, made, base, levels[:, game], bid)
        schneider[:, game] = suit_or_grand(win, made, base, levels[:, game], base * (levels[:, game] + 1))
    if NULL not in games:
        return Options(best, levels, schneider, np.zeros(n, dtype=bool))
    plain = null(probability(model, "win", "null", situation, hands), NULL_VALUES[int(hand)], bid)
    open_ = null(probability(model, "win", "null_ouvert", situation, hands), NULL_VALUES[2 + hand], bid)
    best[:, NULL] = np.maximum(plain, open_)
    return Options(best, levels, schneider, open_ > plain)


def _matadors(cards) -> np.ndarray:
    return np.stack([matadors_of(game, cards) for game in range(GRAND + 1)], axis=1)


@dataclass(frozen=True)
class ReferenceBidder:
    """The expected_score bidder, in numpy."""

    model: Model
    margin: float

    def _both(self, hands, seats, bid):
        judged, mat = HandFeatures(hands, seats), _matadors(hands)
        return options(self.model, judged, "pickup", bid, mat), options(self.model, judged, "hand", bid, mat)

    def assess(self, hands, seats) -> Assessment:
        hands = np.asarray(hands, dtype=np.uint32)
        seats = np.broadcast_to(np.asarray(seats), hands.shape)
        return self._assess(hands, seats)

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
        return self._plan(hands, seats)

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


@dataclass(frozen=True)
class ReferenceDeclarer:
    """The expected_score declarer, in numpy."""

    model: Model

    def declare(self, task: DeclarerTask) -> Declarations:
        return declare_hand_and_pickup(task, self.hand_games, self.after_pickup)

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
                made = probability(self.model, outcome, group, "hand", cards, trump)
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
        out.aside[:], out.discarded[:] = discards[np.arange(n), game], True
        return out
