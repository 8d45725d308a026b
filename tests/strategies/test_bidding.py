"""Bidders, discards and declarations on hand-built hands with known answers."""

import numpy as np
import pytest

from sim.rules.auction import run_auction
from sim.rules.cards import parse_hand
from sim.rules.games import GRAND, NULL
from strategies.bidding import auction_answers
from strategies.registry import build
from strategies.roles import DeclarerTask

CLUBS = 3


def bidder(name, **params):
    return build("bidder", name, **params)


def rules_discarder():
    return build("discarder", "rules")


def plan(text, seat=0, **params):
    b = bidder("threshold", **params)
    return b, b.plan(np.array([parse_hand(text)], dtype=np.uint32), seat)


def test_four_jacks_four_aces_bid_grand_hand_up_to_its_value():
    _, p = plan("CJ SJ HJ DJ CA SA HA DA C10 S10")
    assert p.game[0] == GRAND and p.hand[0]
    assert p.max_bid[0] == 24 * (4 + 1 + 1)  # with 4, game, hand


def test_low_cards_with_sevens_bid_null():
    _, p = plan("C7 C8 C9 S7 S8 H7 H8 H9 D7 D8")
    assert p.game[0] == NULL
    assert p.max_bid[0] in (23, 35, 46, 59)


def test_a_weak_scattered_hand_passes():
    _, p = plan("CK C9 SQ S8 HK H10 H8 DQ D9 D7")
    assert p.max_bid[0] == 0 and p.game[0] == -1


def test_a_long_club_suit_with_two_jacks_bids_clubs_with_its_matadors():
    _, p = plan("CJ SJ CA C10 CK CQ C9 S8 H7 D7", seat=1)
    assert p.game[0] == CLUBS
    assert p.max_bid[0] % 12 == 0 and p.max_bid[0] >= 12 * 3  # with 2, game 3


def test_aggressiveness_lowers_every_threshold():
    cautious, _ = plan("C7", aggressiveness=-1)
    bold, _ = plan("C7", aggressiveness=1)
    finite = np.isfinite(cautious.thresholds)
    assert np.allclose(cautious.thresholds[finite] - bold.thresholds[finite], 2)


def test_thresholds_can_be_set_and_must_be_six():
    b, _ = plan("C7", thresholds=[1, 2, 3, 4, 5, 6])
    assert list(b.thresholds) == [1, 2, 3, 4, 5, 6]
    with pytest.raises(ValueError, match="thresholds must be a list of 6 numbers"):
        bidder("threshold", thresholds=[1, 2])


def test_bidders_answer_the_auction():
    b = bidder("threshold")
    hands = [parse_hand(h) for h in ("CK C9 SQ S8 HK H10 H8 DQ D9 D7",
                                     "CJ SJ HJ DJ CA SA HA DA C10 S10",
                                     "CJ SJ CA C10 CK CQ C9 SA H7 D7")]
    # the same jacks cannot be in two hands of a real deal, but the auction only asks the bidders
    result = run_auction(*auction_answers([b, b, b], hands))
    assert result.declarer == 1
    assert result.bid > 36


def test_rules_discarder_buries_a_lone_ten_and_keeps_aces_and_trumps():
    twelve = parse_hand("CJ SJ CA C10 CK C9 C8 SA S10 HK H7 D10")
    discard = int(rules_discarder().discard(np.array([twelve], np.uint32), CLUBS)[0])
    assert discard == parse_hand("D10 HK")


def test_rules_discarder_never_throws_a_trump_while_side_cards_remain():
    twelve = parse_hand("CJ SJ HJ DJ CA C10 CK CQ C9 C8 C7 D7")  # eleven trumps, one side card
    discard = int(rules_discarder().discard(np.array([twelve], np.uint32), CLUBS)[0])
    assert discard & parse_hand("D7")
    assert bin(discard).count("1") == 2


def pick_up(b, dealt, skat, bid, seat=1):
    hand = np.array([parse_hand(dealt)], np.uint32)
    plan = b.plan(hand, seat)
    task = DeclarerTask(seat, hand | parse_hand(skat), np.array([False]), np.array([bid]), plan, b,
                        rules_discarder())
    return plan, build("declarer", "best_margin").declare(task)


def test_after_pickup_the_declarer_switches_to_grand_when_the_skat_makes_it_clear():
    plan, out = pick_up(bidder("threshold"), "SJ DJ CA C10 CK C9 C8 S7 H7 D7", "CJ SA", 18)
    assert plan.game[0] == CLUBS
    assert out.game[0] == GRAND and out.discarded[0]


def test_after_pickup_a_null_below_the_bid_is_never_declared():
    plan, out = pick_up(bidder("threshold"), "C7 C8 C9 S7 S8 H7 H8 H9 D7 D8", "DA CA", 30)
    assert plan.game[0] == NULL
    assert not (out.game[0] == NULL and not out.ouvert[0])


def test_when_the_skat_breaks_the_matadors_the_declarer_keeps_its_game_and_is_overbid():
    # clubs "without 2" is worth 12 x 3 = 36; CJ in the skat makes it "with 1", worth 24
    plan, out = pick_up(bidder("threshold"), "HJ DJ CA C10 CK CQ C9 S8 S7 H8", "CJ D7", 36)
    assert plan.game[0] == CLUBS and plan.max_bid[0] == 36 and not plan.hand[0]
    assert out.game[0] == CLUBS
