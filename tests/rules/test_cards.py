"""Cards: encoding, notation, card points and the bit helpers every kernel uses."""

import numpy as np
import pytest

from sim.rules.cards import (
    CARD_POINTS,
    JACKS,
    SUIT_MASKS,
    CardError,
    card_points,
    cards_of,
    format_card,
    format_hand,
    lowest_card,
    mask_of,
    nth_card,
    parse_card,
    parse_cards,
    parse_hand,
    popcount,
)
from tests import reference as ref

ALL_CARDS = range(32)


def test_encoding_is_suit_times_eight_plus_rank():
    assert parse_card("D7") == 0
    assert parse_card("DJ") == 7
    assert parse_card("H7") == 8
    assert parse_card("SA") == 2 * 8 + 6
    assert parse_card("C10") == 3 * 8 + 5
    assert parse_card("CJ") == 31


@pytest.mark.parametrize("c", ALL_CARDS)
def test_notation_round_trip(c):
    assert parse_card(format_card(c)) == c
    assert parse_card(format_card(c, symbols=True)) == c
    assert format_card(c) == ref.text(c)


def test_ten_is_written_10_and_T_is_accepted():
    assert format_card(parse_card("H10")) == "H10"
    assert parse_card("HT") == parse_card("H10")
    assert parse_card("ht") == parse_card("H10")
    assert parse_cards("CT ST HT DT") == parse_cards("C10 S10 H10 D10")


def test_suit_symbols_on_input_and_output():
    assert parse_cards("♣J ♠J ♥A ♦7") == parse_cards("CJ SJ HA D7")
    assert format_card(parse_card("CJ"), symbols=True) == "♣J"
    assert format_card(parse_card("S10"), symbols=True) == "♠10"
    assert format_card(parse_card("HQ"), symbols=True) == "♥Q"
    assert format_card(parse_card("D7"), symbols=True) == "♦7"


def test_lower_case_spaces_and_commas():
    assert parse_cards("cj, sj,ha  h10") == parse_cards("CJ SJ HA H10")
    assert parse_cards(["CJ", " hk "]) == parse_cards("CJ HK")


@pytest.mark.parametrize("bad", ["", "C", "J", "XJ", "C1", "C6", "C11", "CJJ", "10H", "JC", "H 10", "C-J"])
def test_unknown_card_is_an_error_naming_it(bad):
    with pytest.raises(CardError, match="unknown card"):
        parse_card(bad)


def test_unknown_card_inside_a_hand_is_an_error():
    with pytest.raises(CardError, match="'HX'"):
        parse_hand("CJ SJ HX")


def test_card_written_twice_is_an_error():
    with pytest.raises(CardError, match="twice"):
        parse_hand("CJ SJ HA CJ")
    with pytest.raises(CardError, match="twice"):
        parse_hand("HT H10")


def test_card_error_is_a_value_error():
    assert issubclass(CardError, ValueError)


def test_hand_mask_and_back():
    hand = parse_hand("CJ SJ HA H10 HK D7")
    assert popcount(hand) == 6
    assert format_hand(hand) == "CJ SJ HA H10 HK D7"
    assert set(cards_of(hand)) == set(parse_cards("CJ SJ HA H10 HK D7"))
    assert mask_of(cards_of(hand)) == hand


def test_format_hand_sorts_jacks_first_then_suits_high_to_low():
    hand = parse_hand("D7 HK DJ CA H10 CJ S7 HJ SJ DA")
    assert format_hand(hand) == "CJ SJ HJ DJ CA S7 H10 HK DA D7"
    assert format_hand(hand, symbols=True).split()[0] == "♣J"


def test_card_points_by_rank():
    expected = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
    for suit in "CSHD":
        for rank, points in expected.items():
            c = parse_card(suit + rank)
            assert CARD_POINTS[c] == points
            assert card_points(1 << c) == points


def test_the_deck_holds_120_points_30_per_suit():
    assert CARD_POINTS.sum() == 120
    assert card_points(0xFFFFFFFF) == 120
    for s in range(4):
        assert card_points(SUIT_MASKS[s]) == 30
    assert card_points(0) == 0
    assert card_points(JACKS) == 8


def test_card_points_of_random_sets_match_the_sum():
    rng = np.random.default_rng(5)
    for m in rng.integers(0, 2**32, size=500):
        assert card_points(m) == ref.points(ref.texts(m))


def test_bit_helpers():
    rng = np.random.default_rng(6)
    for m in list(rng.integers(1, 2**32, size=300)) + [1, 2**31, 0xFFFFFFFF]:
        ids = cards_of(m)
        assert popcount(m) == len(ids) == bin(int(m)).count("1")
        assert lowest_card(m) == ids[0]
        for n in (0, len(ids) // 2, len(ids) - 1):
            assert nth_card(m, n) == ids[n]
    assert popcount(0) == 0
