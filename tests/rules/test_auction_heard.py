"""What every seat heard in an auction: the record the max-bid kernel writes, the calls it gives back,
and nothing in it but the calls."""

import itertools

import numpy as np
import pytest

from sim.rules.auction import (
    AUCTION,
    BID_VALUES,
    auction_by_max_bids,
    calls_heard,
    max_bid_answers,
    no_auction,
    run_auction,
)
from sim.rules.cards import FOREHAND as F
from sim.rules.cards import MIDDLEHAND as M
from sim.rules.cards import REARHAND as R


def heard_of(maxima) -> np.ndarray:
    heard = no_auction(1)[0]
    auction_by_max_bids(*maxima, heard)
    return heard


def replayed(calls) -> tuple[int, int]:
    """(declarer, bid) read off the calls alone: the seat that never passed and the highest value named;
    (-1, 0) when all three passed."""
    passed = {seat for seat, call in calls if call == "pass"}
    named = [call for _, call in calls if isinstance(call, int)]
    if len(passed) == 3:
        return -1, 0
    (declarer,) = {F, M, R} - passed
    return declarer, max(named)


@pytest.mark.parametrize("maxima, calls, said, passes", [
    # docs/rules.md#known-answers: middlehand bids 20, forehand passes: the bid is 20 (rearhand passes at once)
    ((18, 20, 0), [(M, 18), (F, "yes"), (M, 20), (F, "pass"), (R, "pass")], (18, 20, 0), (F, R)),
    # rearhand bids to the survivor, who holds: forehand plays at 27
    ((30, 22, 27), [(M, 18), (F, "yes"), (M, 20), (F, "yes"), (M, 22), (F, "yes"), (M, "pass"),
                    (R, 23), (F, "yes"), (R, 24), (F, "yes"), (R, 27), (F, "yes"), (R, "pass")], (27, 22, 27), (M, R)),
    # middlehand passes at once; rearhand bids to forehand and wins at 20
    ((18, 0, 20), [(M, "pass"), (R, 18), (F, "yes"), (R, 20), (F, "pass")], (18, 0, 20), (M, F)),
    # middlehand wins the first duel, rearhand bids to it
    ((0, 23, 40), [(M, 18), (F, "pass"), (R, 20), (M, "yes"), (R, 22), (M, "yes"), (R, 23), (M, "yes"),
                   (R, 24), (M, "pass")], (0, 23, 24), (F, M)),
    # forehand's lone game at 18
    ((18, 0, 0), [(M, "pass"), (R, "pass"), (F, 18)], (18, 0, 0), (M, R)),
    # passed in
    ((0, 0, 17), [(M, "pass"), (R, "pass"), (F, "pass")], (0, 0, 0), (M, R, F)),
])
def test_known_auctions_are_heard_as_the_rules_run_them(maxima, calls, said, passes):
    heard = heard_of(maxima)
    assert tuple(heard[AUCTION.said:AUCTION.said + 3]) == said
    assert tuple(s for s in heard[AUCTION.passes:AUCTION.passes + 3] if s >= 0) == passes
    assert calls_heard(heard) == calls
    assert replayed(calls) == tuple(int(v) for v in auction_by_max_bids(*maxima))


def test_the_calls_heard_are_the_auctions_calls_and_replay_to_its_declarer_and_bid():
    rng = np.random.default_rng(11)
    values = np.concatenate([[0, 17], BID_VALUES, BID_VALUES + 1, [300]])
    for maxima in rng.choice(values, size=(3000, 3)).tolist():
        heard = heard_of(maxima)
        calls = calls_heard(heard)
        assert calls == run_auction(*max_bid_answers(maxima)).calls
        assert replayed(calls) == tuple(int(v) for v in auction_by_max_bids(*maxima))


def test_what_is_heard_is_the_calls_and_nothing_of_the_maxima():
    """Maxima that lead to the same calls leave the same record, and different calls a different one."""
    grid = [0, 17, 18, 19, 20, 22, 23, 24, 26, 27, 30, 48, 264]
    records = {}
    for maxima in itertools.product(grid, repeat=3):
        calls = tuple(run_auction(*max_bid_answers(maxima)).calls)
        records.setdefault(calls, set()).add(tuple(heard_of(maxima).tolist()))
    assert all(len(heard) == 1 for heard in records.values())
    assert len({next(iter(heard)) for heard in records.values()}) == len(records)


def test_without_an_auction_nothing_is_heard():
    assert calls_heard(no_auction(1)[0]) == []
    assert auction_by_max_bids(30, 20, 0) == auction_by_max_bids(30, 20, 0, no_auction(1)[0])
