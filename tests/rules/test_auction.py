"""The auction: bid values, who bids to whom, holding, passing, and the max-bid kernel."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.rules.auction import (
    BID_VALUES,
    AuctionError,
    auction_by_max_bids,
    is_legal_bid,
    max_bid_answers,
    next_bid,
    run_auction,
)
from sim.rules.cards import FOREHAND as F
from sim.rules.cards import MIDDLEHAND as M
from sim.rules.cards import REARHAND as R
from tests import reference as ref

RULES_BIDS = [
    18, 20, 22, 23, 24, 27, 30, 33, 35, 36, 40, 44, 45, 46, 48, 50, 54, 55, 59, 60, 63, 66, 70,
    72, 77, 80, 81, 84, 88, 90, 96, 99, 100, 108, 110, 117, 120, 121, 126, 130, 132, 135, 140,
    143, 144, 150, 153, 154, 156, 160, 162, 165, 168, 170, 176, 180, 187, 192, 198, 204, 216,
    240, 264,
]


class Script:
    """Bidders that follow a script: per seat, the values they name and their hold answers.

    Records every question asked so the order of the auction can be checked.
    """

    def __init__(self, bids=None, holds=None):
        self.bids = {s: list(v) for s, v in (bids or {}).items()}
        self.holds = {s: list(v) for s, v in (holds or {}).items()}
        self.asked = []

    def bid_from(self, seat, current):
        self.asked.append(("bid", seat, current))
        return self.bids[seat].pop(0) if self.bids.get(seat) else None

    def hold_at(self, seat, value):
        self.asked.append(("hold", seat, value))
        return self.holds[seat].pop(0) if self.holds.get(seat) else False

    def run(self):
        result = run_auction(self.bid_from, self.hold_at)
        leftover = {s: v for s, v in {**self.bids, **self.holds}.items() if v}
        assert not leftover, f"script not used up: {leftover}"
        return result


# --- bid values ---------------------------------------------------------------------------

def test_the_63_bid_values_exactly():
    assert list(BID_VALUES) == RULES_BIDS
    assert len(BID_VALUES) == 63


def test_bid_values_are_exactly_the_reachable_game_values():
    assert set(RULES_BIDS) == {v for v in ref.all_game_values() if v >= 18}
    assert min(ref.all_game_values()) == 18 and max(ref.all_game_values()) == 264


def test_is_legal_bid_and_next_bid():
    for v in range(0, 300):
        assert is_legal_bid(v) == (v in RULES_BIDS)
    assert next_bid(0) == 18
    assert next_bid(18) == 20
    assert next_bid(19) == 20
    assert next_bid(23) == 24
    assert next_bid(240) == 264
    assert next_bid(264) is None


# --- who bids to whom -----------------------------------------------------------------------

def test_middlehand_bids_to_forehand_then_rearhand_to_the_survivor():
    s = Script(bids={M: [18, 20], R: [22, 23]}, holds={F: [True, False], M: [True, False]})
    result = s.run()
    assert s.asked == [
        ("bid", M, 0), ("hold", F, 18), ("bid", M, 18), ("hold", F, 20),  # forehand passes at 20
        ("bid", R, 20), ("hold", M, 22), ("bid", R, 22), ("hold", M, 23),  # middlehand passes at 23
    ]
    assert (result.declarer, result.bid) == (R, 23)
    assert result.calls == [(M, 18), (F, "yes"), (M, 20), (F, "pass"),
                            (R, 22), (M, "yes"), (R, 23), (M, "pass")]


def test_senior_only_holds_and_keeps_the_game():
    # Middlehand gives up against forehand; rearhand gives up against forehand.
    s = Script(bids={M: [18, 20], R: [22]}, holds={F: [True, True, True]})
    result = s.run()
    assert (result.declarer, result.bid) == (F, 22)
    assert s.asked[-2:] == [("hold", F, 22), ("bid", R, 22)]
    assert result.calls[-1] == (R, "pass")


def test_rearhand_bids_to_middlehand_when_forehand_passed():
    s = Script(bids={M: [18], R: [20]}, holds={F: [False], M: [True]})
    result = s.run()
    assert (result.declarer, result.bid) == (M, 20)
    assert ("hold", M, 20) in s.asked
    assert result.calls == [(M, 18), (F, "pass"), (R, 20), (M, "yes"), (R, "pass")]


def test_jumps_are_allowed():
    s = Script(bids={M: [48], R: [96]}, holds={F: [False], M: [False]})
    result = s.run()
    assert (result.declarer, result.bid) == (R, 96)


def test_a_pass_is_final():
    # Forehand passed against middlehand, so rearhand bids to middlehand, never forehand.
    s = Script(bids={M: [18], R: [20, 22]}, holds={F: [False], M: [True, True]})
    s.run()
    assert all(seat != F for kind, seat, _ in s.asked[2:])
    # A junior who passed is never asked again.
    s = Script(bids={M: [18]}, holds={F: [True]})
    result = s.run()
    assert [q for q in s.asked if q[1] == M] == [("bid", M, 0), ("bid", M, 18)]
    assert (result.declarer, result.bid) == (F, 18)


def test_middlehand_passing_at_once_leaves_forehand_to_rearhand():
    s = Script(bids={R: [18]}, holds={F: [False]})
    result = s.run()
    assert s.asked == [("bid", M, 0), ("bid", R, 0), ("hold", F, 18)]
    assert (result.declarer, result.bid) == (R, 18)


def test_forehand_plays_alone_at_18():
    s = Script(bids={F: [18]})
    result = s.run()
    assert s.asked == [("bid", M, 0), ("bid", R, 0), ("bid", F, 0)]
    assert (result.declarer, result.bid, result.passed_in) == (F, 18, False)


def test_all_pass_is_passed_in():
    result = Script().run()
    assert result.passed_in
    assert result.declarer is None and result.bid == 0
    assert result.calls == [(M, "pass"), (R, "pass"), (F, "pass")]


def test_forehand_alone_must_bid_18():
    with pytest.raises(AuctionError, match="18"):
        Script(bids={F: [20]}).run()


@pytest.mark.parametrize("value", [17, 19, 21, 25, 0, 265, 300, -18])
def test_illegal_value_is_an_error(value):
    with pytest.raises(AuctionError, match="not a legal bid"):
        Script(bids={M: [value]}).run()


def test_bid_not_higher_than_held_is_an_error():
    with pytest.raises(AuctionError, match="not above"):
        Script(bids={M: [20, 20]}, holds={F: [True]}).run()
    with pytest.raises(AuctionError, match="not above"):
        Script(bids={M: [30, 27]}, holds={F: [True]}).run()
    # Rearhand must go above the value middlehand and forehand reached.
    with pytest.raises(AuctionError, match="not above"):
        Script(bids={M: [24], R: [24]}, holds={F: [False]}).run()


def test_auction_error_is_a_value_error():
    assert issubclass(AuctionError, ValueError)


# --- max-bid bidders: the callbacks, the kernel and the reference agree ----------------------

def _run_max(maxes):
    bid_from, hold_at = max_bid_answers(maxes)
    result = run_auction(bid_from, hold_at)
    return result.declarer, result.bid


@pytest.mark.parametrize("maxes, expected", [
    ((0, 0, 0), (None, 0)),
    ((17, 17, 17), (None, 0)),
    ((18, 0, 0), (F, 18)),
    ((0, 18, 0), (M, 18)),
    ((0, 0, 18), (R, 18)),
    ((18, 18, 18), (F, 18)),          # seniority: forehand holds 18 twice
    ((30, 36, 27), (M, 33)),          # forehand passes at 33; rearhand cannot reach 36
    ((50, 50, 50), (F, 50)),
    ((48, 60, 59), (M, 59)),          # middlehand holds rearhand's 59
    ((264, 300, 264), (F, 264)),      # nobody can bid above 264
    ((0, 100, 101), (M, 100)),        # 101 reaches only 100: middlehand is senior and keeps it
])
def test_max_bid_auctions(maxes, expected):
    exp_declarer, exp_bid = expected
    assert _run_max(maxes) == (exp_declarer, exp_bid)
    declarer, bid = auction_by_max_bids(*maxes)
    assert (None if declarer < 0 else declarer, bid) == (exp_declarer, exp_bid)
    assert ref.auction_by_max_bids(maxes, RULES_BIDS) == (exp_declarer, exp_bid)


maximum = st.one_of(st.sampled_from([0, 17] + RULES_BIDS), st.integers(0, 280))


@settings(max_examples=800)
@given(st.tuples(maximum, maximum, maximum))
def test_callbacks_kernel_and_reference_agree(maxes):
    declarer, bid = auction_by_max_bids(*maxes)
    kernel = (None if declarer < 0 else int(declarer), int(bid))
    assert _run_max(maxes) == kernel
    assert kernel == ref.auction_by_max_bids(maxes, RULES_BIDS)
    if kernel[0] is not None:
        assert is_legal_bid(kernel[1])
        assert kernel[1] <= maxes[kernel[0]]


def test_kernel_over_a_grid_of_maxima():
    grid = [0, 18, 20, 23, 24, 30, 35, 36, 48, 59, 60, 99, 100, 264]
    for f in grid:
        for m in grid:
            for r in grid:
                declarer, bid = auction_by_max_bids(f, m, r)
                expected = ref.auction_by_max_bids((f, m, r), RULES_BIDS)
                assert (None if declarer < 0 else int(declarer), int(bid)) == expected
                assert _run_max((f, m, r)) == expected
