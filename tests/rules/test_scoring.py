"""Scoring: matadors, game value, winning, schneider and schwarz, overbid, and both score lists.

The ten worked examples of the rules (docs/rules.md#known-answers) are known-answer tests.
"""

import numpy as np
import pytest

from sim.rules.cards import FOREHAND as F
from sim.rules.cards import MIDDLEHAND as M
from sim.rules.cards import REARHAND as R
from sim.rules.cards import parse_hand, popcount
from sim.rules.games import CLUBS_GAME, DIAMONDS_GAME, GRAND, HEARTS_GAME, NULL, SPADES_GAME, Declaration
from sim.rules.scoring import (
    RESULT_COLUMNS,
    GameResult,
    classic_score,
    game_outcome,
    matadors,
    play_outcome,
    result_row,
    score_game,
)
from tests import reference as ref


def twelve(cards: str) -> int:
    mask = parse_hand(cards)
    assert popcount(mask) == 12, cards
    return mask


def scored(declaration, cards, points, tricks, bid=18, declarer=F):
    d = declaration.check(bid)
    result = score_game(declarer, d, bid, twelve(cards), points, tricks)
    # The reference agrees on every known answer.
    expected = ref.outcome(d.game, d.hand, d.schneider, d.schwarz, d.ouvert, bid,
                           ref.matadors(d.game, ref.texts(twelve(cards))), points, tricks)
    assert (result.won, result.game_value, result.overbid, result.schneider, result.schwarz) == expected
    return result


# --- the worked examples of the rules (International Skat Order) --------------------------

def test_example_1_clubs_with_2():
    r = scored(Declaration(CLUBS_GAME), "CJ SJ CA C10 HA H10 SA S10 DA D10 D7 D8", 75, 7)
    assert r.matadors == 2
    assert (r.won, r.game_value, r.overbid) == (True, 36, False)
    assert r.score == 36
    assert r.seeger_fabian == (86, 0, 0)


def test_example_2_spades_hand_without_3_schneider():
    r = scored(Declaration(SPADES_GAME, hand=True), "DJ SA S10 SK SQ S9 S8 HA H10 DA D10 C7", 95, 8)
    assert r.matadors == -3
    assert (r.won, r.schneider, r.schwarz) == (True, True, False)
    assert r.game_value == 66 and r.score == 66


def test_example_3_grand_lost():
    r = scored(Declaration(GRAND), "CJ HJ CA C10 SA S10 HA H10 DA D10 D7 D8", 58, 5, declarer=M)
    assert r.matadors == 1
    assert (r.won, r.game_value, r.overbid) == (False, 48, False)
    assert r.score == -96
    assert r.seeger_fabian == (40, -146, 40)


def test_example_4_hearts_hand_overbid():
    r = scored(Declaration(HEARTS_GAME, hand=True), "CJ HJ HA H10 HK HQ H9 SA S10 DA D10 C7",
               70, 6, bid=36)
    assert r.matadors == 1
    assert (r.won, r.overbid, r.game_value, r.score) == (False, True, 40, -80)


def test_example_5_skat_jack_spoils_the_matadors():
    ten = parse_hand("HJ DJ CA C10 CK CQ C9 SA HA DA")
    skat = parse_hand("SJ D7")
    assert matadors(CLUBS_GAME, ten) == -2  # what the declarer counted on
    r = score_game(F, Declaration(CLUBS_GAME, hand=True).check(48), 48, ten | skat, 75, 7)
    assert r.matadors == -1
    assert (r.won, r.overbid, r.game_value, r.score) == (False, True, 48, -96)


def test_example_6_null_ouvert_and_null_hand():
    r = scored(Declaration(NULL, ouvert=True), "CA C8 SA S8 HA H8 DA D8 C7 S7 H7 D7", 0, 0)
    assert (r.won, r.game_value, r.score) == (True, 46, 46)
    r = scored(Declaration(NULL, hand=True), "CA C8 SA S8 HA H8 DA D8 C7 S7 H7 D7", 11, 1)
    assert (r.won, r.game_value, r.score) == (False, 35, -70)
    assert (r.schneider, r.schwarz, r.overbid) == (False, False, False)


def test_example_7_clubs_ouvert():
    r = scored(Declaration(CLUBS_GAME, hand=True, ouvert=True),
               "CJ SJ CA C10 CK CQ C9 C8 C7 HA SA DA", 120, 10)
    assert r.matadors == 2
    assert (r.won, r.schneider, r.schwarz, r.game_value, r.score) == (True, True, True, 108, 108)


def test_example_8_grand_hand_schneider_announced_missed():
    r = scored(Declaration(GRAND, hand=True, schneider=True),
               "CJ SJ HJ DJ CA C10 SA S10 HA H10 DA D10", 89, 9)
    assert r.matadors == 4
    assert (r.won, r.schneider, r.game_value, r.score) == (False, False, 192, -384)


def test_example_9_diamonds_lost_schneider():
    r = scored(Declaration(DIAMONDS_GAME), "CJ HJ DA D10 DK D7 C7 C8 S7 S8 H7 H8", 28, 3)
    assert r.matadors == 1
    assert (r.won, r.schneider, r.game_value, r.score) == (False, True, 27, -54)


def test_example_10_all_points_but_one_trick_is_schneider_not_schwarz():
    r = scored(Declaration(GRAND), "CJ SJ CA C10 SA S10 HA H10 DA D10 CK SK", 120, 9)
    assert (r.won, r.schneider, r.schwarz) == (True, True, False)
    assert r.game_value == 24 * (2 + 1 + 1)


# --- winning and the schneider and schwarz levels ---------------------------------------------

def clubs_with_1(points, tricks, **flags):
    d = Declaration(CLUBS_GAME, **flags)
    return scored(d, "CJ HJ CA C10 CK CQ SA S10 HA H10 DA D10", points, tricks)


@pytest.mark.parametrize("points, won, schneider", [
    (0, False, True), (30, False, True), (31, False, False), (60, False, False),
    (61, True, False), (89, True, False), (90, True, True), (120, True, True)])
def test_61_wins_and_schneider_at_30_or_fewer_either_side(points, won, schneider):
    r = clubs_with_1(points, 5)
    assert (r.won, r.schneider) == (won, schneider)
    assert r.game_value == 12 * (1 + 1 + int(schneider))


def test_schwarz_is_counted_by_tricks_not_points():
    r = clubs_with_1(120, 10)
    assert (r.won, r.schneider, r.schwarz, r.game_value) == (True, True, True, 12 * 4)
    # The declarer took no trick but has the skat's points: still schwarz, and lost.
    r = clubs_with_1(21, 0)
    assert (r.won, r.schneider, r.schwarz, r.game_value, r.score) == (False, True, True, 48, -96)
    # One trick of 7-8-9 for the defenders spoils schwarz.
    assert not clubs_with_1(120, 9).schwarz


@pytest.mark.parametrize("points, won", [(89, False), (90, True), (120, True)])
def test_schneider_announced_needs_90(points, won):
    r = clubs_with_1(points, 8, hand=True, schneider=True)
    assert r.won == won
    # 1 + game + hand + schneider + announced, whether reached or not
    assert r.game_value == 12 * 5


def test_schwarz_announced_needs_all_ten_tricks():
    lost = clubs_with_1(120, 9, hand=True, schwarz=True)
    assert not lost.won
    # 1 + game + hand + schneider + announced + schwarz + announced, though schwarz was missed
    assert lost.game_value == 12 * 7 and lost.score == -168
    won = clubs_with_1(120, 10, hand=True, schwarz=True)
    assert won.won and won.game_value == 12 * 7


def test_announced_schneider_counts_when_the_game_is_lost_on_points():
    r = clubs_with_1(50, 4, hand=True, schneider=True)
    assert not r.won and r.game_value == 12 * 5 and r.score == -120


def test_lost_game_counts_the_declarers_schneider_and_schwarz():
    r = clubs_with_1(20, 2)
    assert (r.won, r.schneider, r.schwarz, r.game_value) == (False, True, False, 36)
    r = clubs_with_1(0, 0)
    assert (r.won, r.schneider, r.schwarz, r.game_value) == (False, True, True, 48)


def test_schneider_announced_and_reached_is_not_counted_twice():
    reached = clubs_with_1(95, 9, hand=True, schneider=True)
    assert reached.won and reached.game_value == 12 * 5


# --- overbid ------------------------------------------------------------------------------

def test_overbid_value_is_the_smallest_multiple_of_the_base_reaching_the_bid():
    # diamonds with 1: 9 x 2 = 18; bid 59 -> 63 = 9 x 7
    r = scored(Declaration(DIAMONDS_GAME), "CJ HJ DA D10 DK D7 C7 C8 S7 S8 H7 H8", 100, 8, bid=59)
    assert (r.won, r.overbid, r.game_value, r.score) == (False, True, 63, -126)
    # spades with 1: 11 x 2 = 22; bid 36 -> 44
    r = scored(Declaration(SPADES_GAME), "CJ HJ SA S10 SK S7 C7 C8 D7 D8 H7 H8", 80, 8, bid=36)
    assert (r.overbid, r.game_value) == (True, 44)
    # grand with 1 (48) bid 50 -> 72
    r = scored(Declaration(GRAND), "CJ HJ CA C10 SA S10 HA H10 DA D10 D7 D8", 80, 8, bid=50)
    assert (r.overbid, r.game_value, r.score) == (True, 72, -144)


def test_value_equal_to_the_bid_is_not_overbid():
    r = scored(Declaration(CLUBS_GAME), "CJ SJ CA C10 HA H10 SA S10 DA D10 D7 D8", 75, 7, bid=36)
    assert (r.won, r.overbid, r.game_value) == (True, False, 36)


def test_levels_reached_in_play_can_lift_the_value_to_the_bid():
    # Bid 36, hearts hand with 1 is 30; schneider lifts it to 40.
    r = scored(Declaration(HEARTS_GAME, hand=True), "CJ HJ HA H10 HK HQ H9 SA S10 DA D10 C7",
               95, 9, bid=36)
    assert (r.won, r.overbid, r.game_value, r.score) == (True, False, 40, 40)


def test_overbid_loses_even_with_enough_points_and_is_scored_double():
    r = scored(Declaration(CLUBS_GAME), "CJ SJ CA C10 HA H10 SA S10 DA D10 D7 D8", 120, 10, bid=60)
    # with 2, game, schneider, schwarz = 5 x 12 = 60: reaches the bid exactly
    assert (r.won, r.overbid, r.game_value) == (True, False, 60)
    r = scored(Declaration(CLUBS_GAME), "CJ SJ CA C10 HA H10 SA S10 DA D10 D7 D8", 120, 10, bid=63)
    assert (r.won, r.overbid, r.game_value, r.score) == (False, True, 72, -144)


# --- matadors -------------------------------------------------------------------------------

@pytest.mark.parametrize("game, cards, expected", [
    (CLUBS_GAME, "CJ SJ HJ DJ CA C10 CK CQ C9 C8 C7 HA", 11),   # with 11, the most in suit
    (CLUBS_GAME, "HA H10 HK HQ H9 H8 H7 SA S10 SK DA D10", -11),  # no trump at all: without 11
    (CLUBS_GAME, "CJ SJ HJ DJ CA C10 CK CQ C9 C8 HA SA", 10),   # C7 missing
    (SPADES_GAME, "DJ SA S10 SK SQ S9 S8 HA H10 DA D10 C7", -3),
    (SPADES_GAME, "SJ HJ DJ SA S10 SK SQ S9 S8 S7 HA H10", -1),
    (HEARTS_GAME, "CJ HJ DJ HA H10 HK HQ H9 H8 H7 SA S10", 1),
    (DIAMONDS_GAME, "CJ SJ HJ DJ DA D10 DK D9 D8 D7 SA S10", 7),   # DQ missing
    (DIAMONDS_GAME, "CA C10 SA S10 HA H10 D7 D8 D9 DQ DK HK", -6),  # no jacks, no DA, no D10
    (GRAND, "CJ SJ HJ DJ CA C10 SA S10 HA H10 DA D10", 4),       # grand counts jacks only
    (GRAND, "CA C10 CK CQ C9 C8 C7 SA S10 HA H10 DA", -4),
    (GRAND, "CJ HJ DJ CA C10 SA S10 HA H10 DA D10 C7", 1),
    (GRAND, "SJ HJ DJ CA C10 SA S10 HA H10 DA D10 C7", -1),
    (NULL, "CJ SJ HJ DJ CA C10 SA S10 HA H10 DA D10", 0),
])
def test_matadors(game, cards, expected):
    mask = twelve(cards)
    assert matadors(game, mask) == expected
    assert ref.matadors(game, cards.split()) == expected


def test_matadors_count_the_skat_also_in_hand_games():
    ten = parse_hand("SJ HJ DJ CA C10 CK CQ C9 C8 HA")
    skat = parse_hand("CJ C7")
    r = score_game(F, Declaration(CLUBS_GAME, hand=True), 18, ten | skat, 70, 6)
    assert r.matadors == 11
    assert r.game_value == 12 * (11 + 1 + 1)


# --- the score lists -------------------------------------------------------------------------

@pytest.mark.parametrize("won, value, classic, declarer_sf, defender_sf", [
    (True, 36, 36, 86, 0), (False, 48, -96, -146, 40), (True, 23, 23, 73, 0),
    (False, 59, -118, -168, 40), (False, 264, -528, -578, 40)])
def test_classic_and_seeger_fabian(won, value, classic, declarer_sf, defender_sf):
    assert classic_score(won, value) == classic
    for declarer in (F, M, R):
        result = GameResult(declarer, Declaration(GRAND), 18, 4, 0, 0, won, value, False, False, False)
        expected = [defender_sf] * 3
        expected[declarer] = declarer_sf
        assert result.seeger_fabian == tuple(expected)
        assert result.score == classic


@pytest.mark.parametrize("declaration, cards, points, tricks, bid, declarer", [
    (Declaration(CLUBS_GAME, hand=True), "CJ SJ CA C10 CK CQ C9 C8 SA HA DA D7", 95, 8, 18, M),
    (Declaration(GRAND), "HJ DJ CA C10 SA S10 HA H10 DA D10 C7 S7", 60, 5, 24, R),
    (Declaration(SPADES_GAME), "SJ DJ SA S10 SK HA H10 DA D10 C7 S7 H7", 62, 6, 40, F),
    (Declaration(NULL, ouvert=True), "C7 C8 C9 S7 S8 S9 H7 H8 H9 D7 D8 D9", 0, 0, 46, M),
])
def test_result_row_is_the_game_result_as_columns(declaration, cards, points, tricks, bid, declarer):
    """The one result row every caller writes (the table, the importers): the game as score_game
    scores it, and the value reached and the outcome before the bid counts."""
    d = declaration.check(bid)
    out = np.zeros(len(RESULT_COLUMNS), dtype=np.int64)
    result_row(d.game, d.hand, d.schneider, d.schwarz, d.ouvert, bid, declarer, twelve(cards), points, tricks, out)
    row = dict(zip(RESULT_COLUMNS, out.tolist()))
    r = score_game(declarer, d, bid, twelve(cards), points, tricks)
    assert (row["matadors"], row["declarer_points"], row["declarer_tricks"]) == (r.matadors, points, tricks)
    assert (row["won"], row["overbid"], row["schneider"], row["schwarz"]) == (r.won, r.overbid, r.schneider, r.schwarz)
    assert (row["game_value"], row["score"], (row["sf_f"], row["sf_m"], row["sf_r"])) == \
        (r.game_value, r.score, r.seeger_fabian)
    reached, won_in_play, _, _ = play_outcome(d.game, d.hand, d.schneider, d.schwarz, d.ouvert, r.matadors, points,
                                              tricks)
    assert (row["value_reached"], row["won_in_play"]) == (reached, won_in_play)


def test_hand_games_lost_count_double_too():
    r = clubs_with_1(40, 3, hand=True)
    assert r.game_value == 12 * 3 and r.score == -72


def test_game_outcome_kernel_matches_score_game():
    won, value, overbid, schneider, schwarz = game_outcome(GRAND, True, True, False, False, 18, 4, 89, 9)
    assert (won, value, overbid, schneider, schwarz) == (False, 192, False, False, False)


def test_an_ouvert_declaration_always_counts_its_hand_level():
    """Example 7 scored from a declaration that leaves the implied hand unsaid."""
    from sim.rules.cards import parse_hand
    from sim.rules.games import CLUBS_GAME, Declaration
    from sim.rules.scoring import score_game

    twelve = parse_hand("CJ SJ CA C10 CK CQ C9 C8 SA HA DA D7")
    result = score_game(0, Declaration(CLUBS_GAME, ouvert=True), 18, twelve, 120, 10)
    assert result.won and result.game_value == 108


def test_seeger_fabian_at_a_bid_follows_the_engine_s_overbid_rule():
    from sim.rules.auction import BID_VALUES
    from sim.rules.scoring import outcome_at_bid, seeger_fabian_at_bid, seeger_fabian_declarer

    values = np.arange(0, 270)
    for game in range(6):
        for won in (False, True):
            got = seeger_fabian_at_bid(game, values[:, None], won, BID_VALUES[None, :])
            expected = [[seeger_fabian_declarer(*outcome_at_bid(game, v, won, b)[:2]) for b in BID_VALUES]
                        for v in values]
            assert got.dtype == np.int64 and got.tolist() == expected
