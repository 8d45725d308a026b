"""The expected_score kernels judge, bid and declare exactly as the plain numpy reference does.

The reference (tests/expected_reference.py) computes every feature column by column from the
evaluators and applies the expected-score formulas to whole arrays; the kernels do the same hand
by hand. The features are exact, so they must be equal; the probabilities may differ in the last
bits (the order of a dot product's sum, the exp of the library), so every decision must be the same
and every expected score equal to rounding.
"""

from dataclasses import replace

import numpy as np
import pytest

from sim.rules.auction import BID_VALUES
from sim.rules.games import GRAND
from sim.rules.scoring import matadors_of
from sim.rules.shuffle import deal_batch
from strategies import load_profile, play_deals
from strategies.calibration import FEATURES, features
from strategies.hand_features import FACTS, MATADORS_OF, hand_facts
from strategies.roles import DeclarerTask
from strategies.whole_deals import DECLARE_VARIANTS, declare_every_game
from tests.expected_reference import HandFeatures, ReferenceBidder, ReferenceDeclarer

SEED, DEALS = 5, 3000
#: Expected scores agree to rounding (they are a few hundred points at most).
SCORE_TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def profile():
    return load_profile("default")


@pytest.fixture(scope="module")
def reference(profile):
    """The default profile with the numpy reference bidding and declaring at every seat."""
    seats = tuple(replace(s, bidder=ReferenceBidder(s.bidder.model, s.bidder.margin),
                          declarer=ReferenceDeclarer(s.declarer.model)) for s in profile.seats)
    return replace(profile, seats=seats)


def ten_card_hands():
    """Every seat's ten cards of DEALS deals, and the ten kept after discarding two of the twelve."""
    deals = deal_batch(SEED, 0, DEALS)
    dealt = deals[:, :3].reshape(-1)
    rng = np.random.default_rng(SEED)
    kept = []
    for twelve in deals[:, 0] | deals[:, 3]:
        cards = [c for c in range(32) if twelve >> c & 1]
        a, b = rng.choice(cards, 2, replace=False)
        kept.append(twelve & ~np.uint32((1 << int(a)) | (1 << int(b))))
    hands = np.concatenate([dealt, np.array(kept, dtype=np.uint32)])
    return hands, np.arange(len(hands)) % 3


def test_every_feature_is_the_references():
    hands, seats = ten_card_hands()
    judged = HandFeatures(hands, seats)
    for group in FEATURES:
        for trump in ((0, 1, 2, 3, (hands >> 3) % 4) if group == "suit" else (3,)):
            np.testing.assert_array_equal(features(hands, seats, group, trump), judged.of(group, trump),
                                          err_msg=f"{group} {trump}")


def test_the_matadors_of_a_hand_are_the_engines():
    hands, seats = ten_card_hands()
    hands = hands[::7]
    facts = np.empty(FACTS)
    for game in range(GRAND + 1):
        expected = matadors_of(game, hands)
        for hand, matadors in zip(hands, expected):
            hand_facts(hand, 0, facts)
            assert facts[MATADORS_OF + game] == matadors, (game, hand)


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_the_bid_plan_is_the_references(profile, reference, seat):
    hands = deal_batch(SEED, 0, DEALS)[:, seat]
    plan = profile.seats[seat].bidder.plan(hands, seat)
    expected = reference.seats[seat].bidder.plan(hands, seat)
    for name in ("max_bid", "game", "hand", "ouvert"):
        np.testing.assert_array_equal(getattr(plan, name), getattr(expected, name), err_msg=name)
    np.testing.assert_array_equal(plan.assessment.hand, expected.assessment.hand)
    np.testing.assert_array_equal(plan.assessment.null_ouvert, expected.assessment.null_ouvert)
    for name in ("scores", "margins"):
        np.testing.assert_allclose(getattr(plan.assessment, name), getattr(expected.assessment, name),
                                   rtol=0, atol=SCORE_TOLERANCE, err_msg=name)


def test_whole_deals_are_the_references(profile, reference):
    games = play_deals(profile, seed=SEED, start=0, count=DEALS)
    expected = play_deals(reference, seed=SEED, start=0, count=DEALS)
    assert games.keys() == expected.keys()
    for name, column in games.items():
        np.testing.assert_array_equal(column, expected[name], err_msg=name)
    assert games["hand"].any() and games["ouvert"].any() and (games["game"] == 5).any()


@pytest.mark.parametrize("hand", [True, False], ids=["hand", "pickup"])
def test_declarations_at_any_bid_are_the_references(profile, reference, hand):
    """Every seat's cards declared hand, or after picking up the skat, at bids from 18 to 120: high bids
    call for announcements and rule games out."""
    deals = deal_batch(SEED, 0, DEALS)
    bids = np.random.default_rng(SEED).choice(BID_VALUES[BID_VALUES <= 120], DEALS)
    for seat in range(3):
        cards = deals[:, seat] if hand else deals[:, seat] | deals[:, 3]
        s = profile.seats[seat]
        task = DeclarerTask(seat, cards, np.full(DEALS, hand), bids, s.bidder.plan(deals[:, seat], seat), s.bidder,
                            s.discarder)
        out, expected = s.declarer.declare(task), reference.seats[seat].declarer.declare(task)
        for name in ("game", "hand", "schneider", "schwarz", "ouvert", "aside", "discarded"):
            np.testing.assert_array_equal(getattr(out, name), getattr(expected, name), err_msg=name)
    if hand:
        assert out.schneider.any() and out.schwarz.any() and (out.ouvert & (out.game < 5)).any()


@pytest.mark.parametrize("variants", DECLARE_VARIANTS)
def test_declare_mode_is_the_references(profile, reference, variants):
    rows = declare_every_game(profile, seed=SEED, start=0, count=500, variants=variants)
    expected = declare_every_game(reference, seed=SEED, start=0, count=500, variants=variants)
    for name, column in rows.items():
        if name == "evaluator_score":   # the expected score of the game: equal to rounding
            np.testing.assert_allclose(column, expected[name], rtol=0, atol=SCORE_TOLERANCE)
        else:
            np.testing.assert_array_equal(column, expected[name], err_msg=name)


# --- the objective: what a lost game costs ------------------------------------------------------

def constant_model(p_win):
    """A model whose every win probability is ``p_win`` and every schneider or schwarz nearly 0."""
    from strategies.calibration import GROUPS, OUTCOMES, SITUATIONS, Logistic, Model, key

    parts = {}
    for group in GROUPS:
        width = len(FEATURES[group])
        for situation in SITUATIONS:
            for outcome in OUTCOMES if not group.startswith("null") else ("win",):
                logit = np.log(p_win / (1 - p_win)) if outcome == "win" else -30.0
                parts[key(outcome, group, situation)] = Logistic(group, np.zeros(width), np.ones(width),
                                                                 np.zeros(width), float(logit))
    return Model(parts)


def test_a_game_of_18_breaks_even_where_the_objective_says():
    from strategies.expected import lost_extra, suit_or_grand

    # diamonds with one matador and game (9 x 2 = 18) at bid 18: won +68, lost -(86 + 40 w)
    for objective, even in ((0.0, 86 / 154), (1.0, 126 / 194), (0.5, 106 / 174)):
        extra = lost_extra(objective)
        assert abs(suit_or_grand(even, 0.0, 9, 2, 18, extra)) < 1e-9
        assert suit_or_grand(even + 0.001, 0.0, 9, 2, 18, extra) > 0 > suit_or_grand(even - 0.001, 0.0, 9, 2, 18, extra)


@pytest.mark.parametrize("p_win, own_bids, table_bids", [(0.60, True, False), (0.70, True, True), (0.50, False, False)])
def test_the_bidder_bids_where_its_objective_says_a_game_beats_passing(p_win, own_bids, table_bids):
    from strategies.expected import ExpectedScoreBidder

    hands = deal_batch(3, 0, 200)[:, 0]
    model = constant_model(p_win)
    for objective, bids in ((0.0, own_bids), (1.0, table_bids)):
        plan = ExpectedScoreBidder(model, 0.0, objective).plan(hands, 0)
        assert (plan.max_bid >= BID_VALUES[0]).all() == bids and (plan.max_bid == 0).all() != bids


def test_the_objective_is_a_parameter_of_the_bidder_and_the_declarer(profile):
    table = load_profile("default", ["bidder.objective=1", "declarer.objective=1"])
    assert table.seats[0].bidder.objective == 1.0 and table.seats[0].declarer.objective == 1.0
    assert profile.seats[0].bidder.objective == 0.0
    with pytest.raises(ValueError, match="objective"):
        load_profile("default", ["bidder.objective=2"])
