"""The ``expected_score`` bidder and declarer: every choice by the expected Seeger-Fabian result.

With a :class:`strategies.calibration.Model` of win, schneider and schwarz
probabilities, the expected Seeger-Fabian score of declaring a game at a bid is::

    suit or grand, value V = base x (matadors + 1 [+ 1 hand]) and V' = V + base (schneider):
        V >= bid:          P(schneider) (V' + 50) + (P(win) - P(schneider)) (V + 50) - P(lost) (2 V + 50)
        V < bid <= V':     it must make schneider: P(schneider) (V' + 50) - P(not) (2 X + 50)
        V' < bid:          lost as overbid: -(2 X + 50), X the smallest multiple of base reaching the bid
    null of value N:       P(win) (N + 50) - P(lost) (2 N + 50); not declarable when N < bid

and announcing schneider, schwarz or ouvert in a hand game replaces P(win) by
P(schneider) or P(schwarz) and adds their levels. Passing scores 0. With ``objective`` w
(0 ``own``, the default; 1 ``table``) a lost game costs 40 w more: at 1 the score is the
side's against the table, the yardstick of a duplicate match.

The bidder judges each game after picking up and hand (null: plain or ouvert), chooses
pick-up or hand and the game by the best expected result at 18, and bids up to the
highest value at which some game of that choice still beats passing by ``margin``.
The declarer plays hand or picks up as the bidder planned; it declares the game (and
the announcements) with the best expected result at the final bid: on the ten cards in
a hand game, and on the ten it keeps after a pick-up with the ``kept`` probabilities,
trying each game's own discard.

Every judgement is a numba kernel over the whole batch, hand by hand: the hand's
features (:mod:`strategies.hand_features`), each game's probabilities from the model's
folded weights (:func:`model_quads`, made once when the strategy is built from the
profile's model), the expected scores and the choice, with no arrays in between.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from sim.rules.auction import BID_VALUES
from sim.rules.games import BASE_VALUES, GRAND, NULL, NULL_VALUES
from sim.rules.scoring import SF_DEFENDER_BONUS, SF_LOST_PENALTY, SF_WON_BONUS

from .calibration import LOGIT_LIMIT, OUTCOMES, Model, key
from .hand_features import FACTS, MATADORS_OF, MOST_FEATURES, group_features, hand_facts, signed_matadors
from .parameters import Parameter
from .registry import register
from .roles import Assessment, BidPlan, Declarations, DeclarerTask, declare_hand_and_pickup

NO_GAME = -1e9  # the expected result of a game that may not be declared at the bid
LOWEST_BID = BID_VALUES[0]


# --- expected scores of one game -------------------------------------------------------------


@njit(cache=True, inline="always")
def _won(value):
    return value + SF_WON_BONUS


@njit(cache=True, inline="always")
def _lost(value, extra):
    """What a lost game of ``value`` costs: its Seeger-Fabian loss and ``extra`` (:func:`lost_extra`)."""
    return 2 * value + SF_LOST_PENALTY + extra


def lost_extra(objective: float) -> float:
    """The points a lost game costs beyond the declarer's own loss under ``objective`` (0 ``own``, 1
    ``table``: each defender's bonus, which the side pays on average over a duplicate's two seatings)."""
    return float(objective) * SF_DEFENDER_BONUS


@njit(cache=True, inline="always")
def suit_or_grand(p_win, p_schneider, base, levels, bid, extra):
    """Expected Seeger-Fabian score of a suit or grand game of ``levels`` without schneider, at ``bid``, a
    lost game costing ``extra`` more."""
    q = min(p_schneider, p_win)
    value, value_schneider = base * levels, base * (levels + 1)
    if value >= bid:
        return q * _won(value_schneider) + (p_win - q) * _won(value) - (1 - p_win) * _lost(value, extra)
    if value_schneider >= bid:  # the smallest multiple of base reaching the bid is the value with schneider
        return q * _won(value_schneider) - (1 - q) * _lost(value_schneider, extra)
    return float(-_lost(base * -(-bid // base), extra))


@njit(cache=True, inline="always")
def announced(p_make, base, levels, bid, extra):
    """Expected score of a hand game whose announcement (``levels`` counted in) is made with ``p_make``."""
    value = base * levels
    if value >= bid:
        return p_make * _won(value) - (1 - p_make) * _lost(value, extra)
    return NO_GAME


@njit(cache=True, inline="always")
def null(p_win, variant_value, bid, extra):
    if variant_value >= bid:
        return p_win * _won(variant_value) - (1 - p_win) * _lost(variant_value, extra)
    return NO_GAME


#: The highest legal bid at or below each value up to the highest bid (0 below 18).
HIGHEST_BID = np.array([max([b for b in BID_VALUES if b <= v], default=0) for v in range(BID_VALUES[-1] + 1)],
                       dtype=np.int64)


@njit(cache=True, inline="always")
def _highest_bid(value):
    """The highest legal bid at or below ``value`` (0 below 18)."""
    return HIGHEST_BID[min(value, BID_VALUES[-1])]


# --- the model as the kernels read it ------------------------------------------------------------

#: The kernels read the model four probabilities at a time, all from one hand's features: for each
#: purpose (the ten cards as dealt, for the bidder; a hand game; the ten kept after a pick-up) and
#: each kind of game (suit, grand, null) the parts of :func:`quad_parts`, side by side.
DEALT, HAND_GAME, KEPT_GAME = range(3)
SUITS, GRANDS, NULLS = range(3)


def quad_parts(purpose: int, kind: int) -> list:
    """The four parts (outcome, group, situation) of a purpose and kind of game, None where unused:
    as dealt, win and schneider after picking up, then hand (null: plain and ouvert, the same); in a
    hand game win, schneider and schwarz (null: plain and ouvert); after a pick-up win and schneider
    (null: plain and ouvert)."""
    situations = {DEALT: ("pickup", "hand"), HAND_GAME: ("hand",), KEPT_GAME: ("kept",)}[purpose]
    if kind == NULLS:
        parts = [("win", group, s) for s in situations for group in ("null", "null_ouvert")]
    else:
        outcomes = OUTCOMES if purpose == HAND_GAME else ("win", "schneider")
        parts = [(outcome, ("suit", "grand")[kind], s) for s in situations for outcome in outcomes]
    return parts + [None] * (4 - len(parts))


def model_quads(model: Model) -> tuple:
    """The model as plain arrays by purpose x 3 + kind: the folded weights (quads, features, 4), the
    offsets (quads, 4) and whether the model has the part (a missing part's probability is 0)."""
    weights, offsets = np.zeros((9, MOST_FEATURES, 4)), np.zeros((9, 4))
    present = np.zeros((9, 4), dtype=np.bool_)
    for purpose in (DEALT, HAND_GAME, KEPT_GAME):
        for kind in (SUITS, GRANDS, NULLS):
            quad = purpose * 3 + kind
            for slot, part in enumerate(quad_parts(purpose, kind)):
                logistic = None if part is None else model.parts.get(key(*part))
                if logistic is not None:
                    folded, offsets[quad, slot] = logistic.folded()
                    weights[quad, :len(folded), slot], present[quad, slot] = folded, True
    return weights, offsets, present


@njit(cache=True, inline="always")
def _logistic(present, logit):
    if not present:
        return 0.0
    return 1 / (1 + np.exp(-min(max(logit, -LOGIT_LIMIT), LOGIT_LIMIT)))


@njit(cache=True, inline="always")
def _probabilities(quads, purpose, game, x, count, p):
    """The four probabilities of ``purpose`` for the kind of ``game`` (:func:`quad_parts`) into ``p``, from
    the ``count`` features of the hand in ``x``; each logit summed feature by feature, in order."""
    weights, offsets, present = quads
    quad = purpose * 3 + (SUITS if game < GRAND else GRANDS if game == GRAND else NULLS)
    s0 = s1 = s2 = s3 = 0.0
    for i in range(count):
        xi = x[i]
        s0 += xi * weights[quad, i, 0]
        s1 += xi * weights[quad, i, 1]
        s2 += xi * weights[quad, i, 2]
        s3 += xi * weights[quad, i, 3]
    p[0] = _logistic(present[quad, 0], s0 + offsets[quad, 0])
    p[1] = _logistic(present[quad, 1], s1 + offsets[quad, 1])
    p[2] = _logistic(present[quad, 2], s2 + offsets[quad, 2])
    p[3] = _logistic(present[quad, 3], s3 + offsets[quad, 3])


@njit(cache=True, inline="always")
def _better_null(p_plain, p_ouvert, hand, bid, extra):
    """(expected result of the better null, ouvert is the better one)."""
    plain, open_ = null(p_plain, NULL_VALUES[hand], bid, extra), null(p_ouvert, NULL_VALUES[2 + hand], bid, extra)
    return max(plain, open_), open_ > plain


# --- the bidder --------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _dealt_options(quads, extra, facts, x, p, best, schneider, levels, null_ouvert):
    """The ten cards as dealt, after picking up (row 0) and hand (row 1), at 18: each game's expected
    result (``best``), for suit and grand that when the bid needs schneider and the value levels."""
    for game in range(NULL + 1):
        count = group_features(facts, game, x)
        _probabilities(quads, DEALT, game, x, count, p)
        for hand in range(2):
            win, other = p[2 * hand], p[2 * hand + 1]   # null: plain and ouvert
            if game == NULL:
                best[hand, NULL], null_ouvert[hand] = _better_null(win, other, hand, LOWEST_BID, extra)
                continue
            base, level = BASE_VALUES[game], abs(int(facts[MATADORS_OF + game])) + 1 + hand
            levels[hand, game] = level
            best[hand, game] = suit_or_grand(win, other, base, level, LOWEST_BID, extra)
            schneider[hand, game] = suit_or_grand(win, other, base, level, base * (level + 1), extra)


@njit(cache=True, inline="always")
def _reach(best, schneider, levels, null_ouvert, hand, margin):
    """The highest bid at which some game of the variant (``hand`` 0 pick-up, 1 hand) still beats passing
    by the margin (0: none)."""
    most = 0
    for game in range(GRAND + 1):
        reach = 0
        if best[hand, game] >= margin:
            reach = BASE_VALUES[game] * (levels[hand, game] + (1 if schneider[hand, game] >= margin else 0))
        most = max(most, _highest_bid(reach))
    if best[hand, NULL] >= margin:
        most = max(most, _highest_bid(NULL_VALUES[2 * int(null_ouvert[hand]) + hand]))
    return most


@njit(cache=True, inline="always")
def _first_largest(scores, row):
    """The column of the largest entry of ``row`` (the first among equals, as np.argmax)."""
    column = 0
    for c in range(1, scores.shape[1]):
        if scores[row, c] > scores[row, column]:
            column = c
    return column


# The three hand-by-hand kernels use numpy's error model: a float division never raises (the logistic's
# denominator is at least 1), so no exception path crosses the hand loop, and numba can drop the reference
# counts of the scratch arrays the inlined helpers bind each hand (about 20 a hand, 8% of a default deal).
@njit(cache=True, error_model="numpy")
def _plan_each(quads, extra, margin, hands, seats, max_bid, game, hand, ouvert, scores, margins, hand_games,
               null_ouvert):
    facts, x, p = np.empty(FACTS), np.empty(MOST_FEATURES), np.empty(4)
    best, schneider = np.empty((2, NULL + 1)), np.empty((2, GRAND + 1))
    levels, ouverts = np.empty((2, GRAND + 1), dtype=np.int64), np.empty(2, dtype=np.bool_)
    for k in range(hands.shape[0]):
        hand_facts(hands[k], seats[k], facts)
        _dealt_options(quads, extra, facts, x, p, best, schneider, levels, ouverts)
        for g in range(NULL + 1):        # the assessment: every game at its better variant
            scores[k, g] = max(best[0, g], best[1, g])
            margins[k, g] = scores[k, g] - margin
            hand_games[k, g] = best[1, g] > best[0, g]
        null_ouvert[k] = ouverts[1] if hand_games[k, NULL] else ouverts[0]
        best_pickup, best_hand = _first_largest(best, 0), _first_largest(best, 1)
        plays_hand = best[1, best_hand] > best[0, best_pickup]
        v = 1 if plays_hand else 0
        max_bid[k] = _reach(best, schneider, levels, ouverts, v, margin)
        plays = max_bid[k] >= LOWEST_BID
        game[k] = (best_hand if plays_hand else best_pickup) if plays else -1
        hand[k] = plays and plays_hand
        ouvert[k] = plays and game[k] == NULL and ouverts[v]


def _seat_array(seats, n: int) -> np.ndarray:
    """The seats as a new writable array: a read-only one (a broadcast seat) would make numba compile the
    bidder's kernel a second time, for that type."""
    out = np.empty(n, dtype=np.int64)
    out[:] = seats
    return out


@dataclass(frozen=True)
class ExpectedScoreBidder:
    """A :class:`strategies.roles.Bidder` that bids while the best game's expected result beats passing."""

    model: Model
    margin: float
    objective: float = 0.0
    quads: tuple = field(init=False, repr=False, compare=False)   # the model as the kernels read it

    def __post_init__(self):
        object.__setattr__(self, "quads", model_quads(self.model))

    def assess(self, hands, seats) -> Assessment:
        return self.plan(hands, seats).assessment

    def plan(self, hands, seats) -> BidPlan:
        """Pick up or hand, and the game, by the best expected result at 18; bid up to the highest bid
        at which some game of that variant still beats passing by the margin. The assessment is every
        game at its better variant (hand or pick-up; null plain or ouvert)."""
        hands = np.ascontiguousarray(hands, dtype=np.uint32).reshape(-1)
        n = len(hands)
        plan = BidPlan(np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.bool_), np.empty(n, np.bool_),
                       Assessment(np.empty((n, 6)), np.empty((n, 6)), np.empty((n, 6), np.bool_),
                                  np.empty(n, np.bool_)))
        judged = plan.assessment
        _plan_each(self.quads, lost_extra(self.objective), float(self.margin), hands, _seat_array(seats, n),
                   plan.max_bid, plan.game, plan.hand, plan.ouvert, judged.scores, judged.margins, judged.hand,
                   judged.null_ouvert)
        return plan


#: The model a calibrated strategy reads, as `skatsim calibrate` writes it into a profile.
MODEL = Parameter("model", "section", None, "the fitted win probabilities (written by `skatsim calibrate`)")
#: What a game is worth against passing: the declarer's own score, or the side's against the table.
OBJECTIVE = Parameter("objective", "number", 0.0, "what a lost game costs beyond the declarer's own loss, as a"
                      " share of the defenders' 40: 0 the declarer's own score (`own`), 1 the side's against the"
                      " table (`table`)", (0, 1))
#: The objective's names (``skatsim calibrate --objective``) and their weights.
OBJECTIVES = {"own": 0.0, "table": 1.0}


@register("bidder", "expected_score", parameters=(
    MODEL, Parameter("margin", "number", 0.0, "the Seeger-Fabian points a game must beat passing by", (-200, 200)),
    OBJECTIVE))
def expected_score_bidder(model, margin, objective) -> ExpectedScoreBidder:
    """Bid while the best game's expected Seeger-Fabian result beats passing by ``margin`` (a calibrated model),
    a lost game weighed as ``objective`` says."""
    if model is None:
        raise ValueError("the expected_score bidder needs a model: make one with `skatsim calibrate`")
    return ExpectedScoreBidder(Model.from_dict(model), float(margin), float(objective))


# --- the declarer ------------------------------------------------------------------------------


@njit(cache=True, error_model="numpy")
def _hand_games_each(quads, extra, tens, seat, bids, games, game, schneider, schwarz, ouvert):
    """Each hand game's declaration: every game plain, then with schneider, schwarz and ouvert announced
    (in the order ties go), the best expected result at the bid (in declare mode of ``games``)."""
    facts, x, p = np.empty(FACTS), np.empty(MOST_FEATURES), np.empty(4)
    scores = np.empty((4, NULL + 1))
    for k in range(tens.shape[0]):
        hand_facts(tens[k], seat, facts)
        bid = bids[k]
        for g in range(NULL + 1):
            count = group_features(facts, g, x)
            _probabilities(quads, HAND_GAME, g, x, count, p)
            if g == NULL:
                scores[0, NULL], null_ouvert = _better_null(p[0], p[1], 1, bid, extra)
                scores[1:, NULL] = NO_GAME
                continue
            base, level = BASE_VALUES[g], abs(int(facts[MATADORS_OF + g])) + 2
            scores[0, g] = suit_or_grand(p[0], p[1], base, level, bid, extra)
            scores[1, g] = announced(p[1], base, level + 2, bid, extra)    # schneider announced
            scores[2, g] = announced(p[2], base, level + 4, bid, extra)    # schwarz announced
            scores[3, g] = announced(p[2], base, level + 5, bid, extra)    # ouvert
        if games[k] >= 0:
            for g in range(NULL + 1):
                if g != games[k]:
                    scores[:, g] = -np.inf
        choice, game[k] = _first_best(scores)
        is_null = game[k] == NULL
        ouvert[k] = null_ouvert if is_null else choice == 3
        schwarz[k] = not is_null and choice >= 2
        schneider[k] = not is_null and choice >= 1


@njit(cache=True, inline="always")
def _first_best(scores):
    """(row, column) of the largest entry, the first in row order among equals."""
    row, column = 0, 0
    for r in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            if scores[r, c] > scores[row, column]:
                row, column = r, c
    return row, column


@njit(cache=True, error_model="numpy")
def _after_pickup_each(quads, extra, twelves, discards, seat, bids, games, game, ouvert, skat):
    """Each declaration after a pick-up: every game with its own discard, judged on the ten cards kept,
    the best expected result at the bid (in declare mode of ``games``)."""
    facts, x, p = np.empty(FACTS), np.empty(MOST_FEATURES), np.empty(4)
    best = np.empty((1, NULL + 1))
    for k in range(twelves.shape[0]):
        null_ouvert, bid = False, bids[k]
        for g in range(NULL + 1):
            if games[k] >= 0 and g != games[k]:
                best[0, g] = -np.inf
                continue
            hand_facts(np.uint32(twelves[k] & ~discards[k, g]), seat, facts)
            count = group_features(facts, g, x)
            _probabilities(quads, KEPT_GAME, g, x, count, p)
            if g == NULL:
                best[0, g], null_ouvert = _better_null(p[0], p[1], 0, bid, extra)
            else:
                level = abs(signed_matadors(g, twelves[k])) + 1    # matadors count over all twelve cards
                best[0, g] = suit_or_grand(p[0], p[1], BASE_VALUES[g], level, bid, extra)
        game[k] = _first_best(best)[1]
        ouvert[k] = game[k] == NULL and null_ouvert
        skat[k] = discards[k, game[k]]


@dataclass(frozen=True)
class ExpectedScoreDeclarer:
    """A :class:`strategies.roles.Declarer` that declares the game and announcements of best expected result."""

    model: Model
    objective: float = 0.0
    quads: tuple = field(init=False, repr=False, compare=False)   # the model as the kernels read it

    def __post_init__(self):
        object.__setattr__(self, "quads", model_quads(self.model))

    def declare(self, task: DeclarerTask) -> Declarations:
        return declare_hand_and_pickup(task, self.hand_games, self.after_pickup)

    def hand_games(self, task: DeclarerTask, rows: np.ndarray) -> Declarations:
        """Hand games: every game plain or announced (schneider, schwarz, ouvert), the best expected result."""
        out = Declarations.empty(len(rows))
        out.hand[:] = True
        _hand_games_each(self.quads, lost_extra(self.objective), _cards(task, rows), task.seat, _bids(task, rows),
                         _games(task, rows), out.game, out.schneider, out.schwarz, out.ouvert)
        return out

    def after_pickup(self, task: DeclarerTask, rows: np.ndarray) -> Declarations:
        """Each game with its own discard, judged on the ten cards kept; the best expected result."""
        twelve, games = _cards(task, rows), _games(task, rows)
        discards = np.zeros((len(rows), NULL + 1), dtype=np.uint32)
        for game in range(NULL + 1):      # in declare mode only the rows of that game
            these = slice(None) if task.games is None else np.flatnonzero(games == game)
            discards[these, game] = task.discarder.discard(twelve[these], game)
        out = Declarations.empty(len(rows))
        out.discarded[:] = True
        _after_pickup_each(self.quads, lost_extra(self.objective), twelve, discards, task.seat, _bids(task, rows),
                           games, out.game, out.ouvert, out.aside)
        return out


def _cards(task: DeclarerTask, rows) -> np.ndarray:
    return np.ascontiguousarray(task.cards[rows], dtype=np.uint32)


def _bids(task: DeclarerTask, rows) -> np.ndarray:
    return np.ascontiguousarray(task.bids[rows], dtype=np.int64)


def _games(task: DeclarerTask, rows) -> np.ndarray:
    """The game each row must declare (declare mode), or -1 where the declarer chooses."""
    if task.games is None:
        return np.full(len(rows), -1, dtype=np.int64)
    return np.ascontiguousarray(task.games[rows], dtype=np.int64)


@register("declarer", "expected_score", parameters=(MODEL, OBJECTIVE))
def expected_score_declarer(model, objective) -> ExpectedScoreDeclarer:
    """Declare the game and announcements with the best expected Seeger-Fabian result (a calibrated model), a
    lost game weighed as ``objective`` says."""
    if model is None:
        raise ValueError("the expected_score declarer needs a model: make one with `skatsim calibrate`")
    return ExpectedScoreDeclarer(Model.from_dict(model), float(objective))
