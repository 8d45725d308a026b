"""Trick play: following suit, trumps, the null order, trick winners and the card-play state."""

import numpy as np
import pytest

from sim.rules.cards import FOREHAND as F
from sim.rules.cards import MIDDLEHAND as M
from sim.rules.cards import REARHAND as R
from sim.rules.cards import card_points, format_card, parse_card, parse_cards, parse_hand
from sim.rules.games import CLUBS_GAME, DIAMONDS_GAME, GRAND, HEARTS_GAME, NULL, SPADES_GAME, Declaration
from sim.rules.scoring import score_game
from sim.rules.tricks import EFFECTIVE_SUIT, ORDER, STATE, TRUMP, CardPlay, IllegalPlay, legal_moves, trick_winner
from tests import reference as ref

GAMES = {"diamonds": DIAMONDS_GAME, "hearts": HEARTS_GAME, "spades": SPADES_GAME,
         "clubs": CLUBS_GAME, "grand": GRAND, "null": NULL}


def legal(game, hand, led):
    """Legal cards as a set of texts, for a hand and a led card written as text."""
    lead = parse_card(led) if led else -1
    return set(parse_cards(_format(int(legal_moves(parse_hand(hand), game, lead)))))


def _format(mask):
    return " ".join(format_card(c) for c in range(32) if mask >> c & 1)


def winner(game, trick):
    return int(trick_winner(game, *parse_cards(trick)))


# --- following suit -----------------------------------------------------------------------

def test_leader_may_play_any_card():
    assert legal(CLUBS_GAME, "CJ HA D7", None) == set(parse_cards("CJ HA D7"))


def test_must_follow_the_led_suit():
    assert legal(GRAND, "HA H7 SA D7", "HK") == set(parse_cards("HA H7"))
    assert legal(CLUBS_GAME, "HA H7 SA D7", "H10") == set(parse_cards("HA H7"))
    assert legal(NULL, "HA H7 SA D7", "HK") == set(parse_cards("HA H7"))


def test_without_the_led_suit_any_card():
    assert legal(GRAND, "SA D7 CJ", "HK") == set(parse_cards("SA D7 CJ"))
    assert legal(NULL, "SA D7 CJ", "HK") == set(parse_cards("SA D7 CJ"))


def test_trumps_are_one_suit():
    # In hearts, a led jack asks for trump: hearts cards and jacks both follow.
    assert legal(HEARTS_GAME, "HA H7 DJ SA D7", "CJ") == set(parse_cards("HA H7 DJ"))
    # A led trump-suit card asks for trump, which a jack follows.
    assert legal(HEARTS_GAME, "SJ SA D7", "HA") == set(parse_cards("SJ"))


def test_led_jack_asks_for_trump_not_its_suit():
    # Leading HJ in a diamonds game: the hearts cards do not follow, the diamonds do.
    assert legal(DIAMONDS_GAME, "HA H7 D7 SA", "HJ") == set(parse_cards("D7"))
    # Without trump, any card, hearts included.
    assert legal(DIAMONDS_GAME, "HA H7 SA", "HJ") == set(parse_cards("HA H7 SA"))
    # In grand too: a led jack asks for jacks only.
    assert legal(GRAND, "HA H7 DJ", "HJ") == set(parse_cards("DJ"))
    assert legal(GRAND, "HA H7 SA", "HJ") == set(parse_cards("HA H7 SA"))


def test_jacks_belong_to_no_plain_suit():
    # Spades led in a clubs game: SJ is trump, so it does not follow spades.
    assert legal(CLUBS_GAME, "SJ S7 HA", "SA") == set(parse_cards("S7"))
    assert legal(CLUBS_GAME, "SJ HA", "SA") == set(parse_cards("SJ HA"))
    assert legal(GRAND, "SJ S7 HA", "SA") == set(parse_cards("S7"))


def test_in_null_jacks_and_tens_sit_in_their_suits():
    assert legal(NULL, "HJ H10 CJ SA", "H7") == set(parse_cards("HJ H10"))
    assert legal(NULL, "HJ CJ SA", "CA") == set(parse_cards("CJ"))
    # A led jack asks for its suit.
    assert legal(NULL, "H7 D7 CJ", "HJ") == set(parse_cards("H7"))


# --- trick winners --------------------------------------------------------------------------

@pytest.mark.parametrize("game, trick, won_by", [
    ("grand", "HK HA H7", 1),        # highest of the led suit
    ("grand", "H10 HK HA", 2),       # A above 10 above K
    ("grand", "HK SA DA", 0),        # off-suit aces do not win
    ("grand", "HA DJ H10", 1),       # a jack trumps in grand
    ("grand", "DJ CJ SJ", 1),        # CJ > SJ > HJ > DJ
    ("grand", "HJ DJ SJ", 2),
    ("clubs", "HA C7 H10", 1),       # the lowest trump beats the led ace
    ("clubs", "CA DJ C10", 1),       # any jack beats the trump ace
    ("clubs", "C7 C9 C8", 1),        # among trump-suit cards: rank order
    ("clubs", "SJ CA CJ", 2),
    ("diamonds", "HJ H7 HA", 0),     # the led jack is a trump; hearts do not beat it
    ("diamonds", "HJ D7 DA", 0),     # a jack beats the trump suit's ace
    ("spades", "HA HK SJ", 2),
    ("hearts", "S7 D10 DA", 0),      # no trump, no card of the led suit above it
    ("null", "H10 HJ H9", 1),        # null: J above 10
    ("null", "HQ HK HJ", 1),         # null: K above Q above J
    ("null", "H10 H9 HA", 2),
    ("null", "D7 DJ D8", 1),         # a jack is an ordinary diamond
    ("null", "S7 CA HA", 0),         # no trumps in null
])
def test_trick_winner(game, trick, won_by):
    g = GAMES[game]
    assert winner(g, trick) == won_by
    assert ref.trick_winner(g, trick.split()) == won_by


def test_null_order_is_a_k_q_j_10_9_8_7():
    order = "A K Q J 10 9 8 7".split()
    for suit in "CSHD":
        other = "S7" if suit != "S" else "H7"
        for hi, lo in zip(order, order[1:]):
            assert winner(NULL, f"{suit}{lo} {suit}{hi} {other}") == 1
            assert winner(NULL, f"{suit}{hi} {other} {suit}{lo}") == 0


def test_order_tables_match_the_rule_text():
    for game in range(6):
        for c in range(32):
            text = ref.text(c)
            expected = ref.belongs_to(game, text)
            assert EFFECTIVE_SUIT[game, c] == (TRUMP if expected == "trump" else ref.SUITS.index(expected))
        for a in range(32):
            for b in range(32):
                ta, tb = ref.text(a), ref.text(b)
                if ref.belongs_to(game, ta) == ref.belongs_to(game, tb):
                    assert (ORDER[game, a] > ORDER[game, b]) == (ref.strength(game, ta) > ref.strength(game, tb))


def test_trick_winner_agrees_with_the_reference_on_all_legal_trick_shapes():
    rng = np.random.default_rng(12)
    for _ in range(3000):
        game = int(rng.integers(6))
        cards = rng.choice(32, size=3, replace=False)
        trick = [ref.text(c) for c in cards]
        assert trick_winner(game, *cards) == ref.trick_winner(game, trick)


# --- the card-play state and CardPlay --------------------------------------------------------

# A null hand deal for middlehand in which the declarer ducks three tricks and must
# take the fourth: forehand leads three aces, then C7 when middlehand holds only CA.
NULL_HANDS = (
    parse_hand("DA HA SA C7 D9 DQ DK D10 DJ H9"),
    parse_hand("D7 H7 S7 CA HQ HK H10 HJ S9 SQ"),
    parse_hand("D8 H8 S8 C8 SK S10 SJ C9 CQ CK"),
)
NULL_SKAT = parse_hand("C10 CJ")


def test_null_ends_at_the_declarers_first_trick():
    play = CardPlay(NULL_HANDS, NULL, M)
    for trick in ["DA D7 D8", "HA H7 H8", "SA S7 S8"]:
        for c in parse_cards(trick):
            play.play(c)
        assert not play.finished
    assert play.trick_winners == [F, F, F]
    for c in parse_cards("C7 CA C8"):
        play.play(c)
    assert play.trick_winners == [F, F, F, M]
    assert play.finished
    with pytest.raises(IllegalPlay, match="over"):
        play.play(parse_card("D9"))
    # Worked example 6: null hand, the declarer takes the fourth trick: lost, -70.
    won = play.won_cards(M)
    result = score_game(M, Declaration(NULL, hand=True), 18, NULL_HANDS[M] | NULL_SKAT,
                        card_points(won), bin(won).count("1") // 3)
    assert (result.won, result.game_value, result.score) == (False, 35, -70)


def test_winner_leads_the_next_trick():
    hands = (parse_hand("HK CA CK CQ C9 C8 C7 SA SK SQ"),
             parse_hand("H7 DA DK DQ D9 D8 D7 S9 S8 S7"),
             parse_hand("HA H10 HQ H9 H8 D10 S10 C10 HJ DJ"))
    play = CardPlay(hands, GRAND, F)
    assert play.to_play == F
    for c in parse_cards("HK H7 HA"):
        play.play(c)
    assert play.trick_winners == [R]
    assert play.to_play == R
    assert play.won_cards(R) == parse_hand("HK H7 HA")
    play.play(parse_card("H10"))
    assert play.to_play == F


def test_suit_game_lasts_ten_tricks_even_when_the_declarer_wins_tricks():
    f, m, r, skat = (parse_hand(h) for h in (
        "CJ SJ HJ DJ CA C10 CK CQ C9 C8",
        "SA S10 SK SQ S9 S8 S7 HA H10 HK",
        "HQ H9 H8 H7 DA D10 DK DQ D9 D8",
        "C7 D7"))
    play = CardPlay((f, m, r), CLUBS_GAME, F)
    rng = np.random.default_rng(0)
    while not play.finished:
        options = [c for c in range(32) if play.legal() >> c & 1]
        play.play(int(rng.choice(options)))
    assert len(play.trick_winners) == 10
    assert all(play.hand(s) == 0 for s in range(3))


def test_card_play_rejects_a_card_not_held():
    play = CardPlay(NULL_HANDS, NULL, M)
    with pytest.raises(IllegalPlay, match="does not hold"):
        play.play(parse_card("D7"))  # middlehand's card, forehand to play
    play.play(parse_card("DA"))
    with pytest.raises(IllegalPlay, match="does not hold"):
        play.play(parse_card("DA"))  # already played


def test_card_play_rejects_a_revoke():
    play = CardPlay(NULL_HANDS, NULL, M)
    play.play(parse_card("DA"))
    with pytest.raises(IllegalPlay, match="revoke"):
        play.play(parse_card("H7"))  # middlehand holds D7
    # The refused card changed nothing.
    assert play.to_play == M and play.hand(M) == NULL_HANDS[M]
    play.play(parse_card("D7"))


def test_revoke_with_a_jack_in_a_suit_game():
    hands = (parse_hand("SA HA HK HQ H9 H8 H7 DA DK DQ"),
             parse_hand("SJ S7 CA CK CQ C9 C8 C7 D9 D8"),
             parse_hand("S10 SK SQ S9 S8 CJ HJ DJ C10 H10"))
    play = CardPlay(hands, CLUBS_GAME, F)
    play.play(parse_card("SA"))
    with pytest.raises(IllegalPlay, match="revoke"):
        play.play(parse_card("SJ"))  # SJ is trump in clubs; S7 must follow spades
    play.play(parse_card("S7"))


def test_illegal_play_is_a_value_error():
    assert issubclass(IllegalPlay, ValueError)


def test_voids_record_a_failure_to_follow():
    hands = (parse_hand("SA HA HK HQ H9 H8 H7 DA DK DQ"),
             parse_hand("SJ S7 CA CK CQ C9 C8 C7 D9 D8"),
             parse_hand("S10 SK SQ S9 S8 CJ HJ DJ C10 H10"))
    play = CardPlay(hands, CLUBS_GAME, F)
    for c in parse_cards("HA CA H10"):  # middlehand trumps hearts: void in hearts
        play.play(c)
    assert play.state[STATE.voids + M] == 1 << 1
    assert play.state[STATE.voids + F] == 0 and play.state[STATE.voids + R] == 0
    assert play.trick_winners == [M]
    for c in parse_cards("CK CJ"):  # trump led; forehand has no trump: void in trump
        play.play(c)
    play.play(parse_card("HK"))
    assert play.state[STATE.voids + F] == 1 << TRUMP
    assert not play.state[STATE.finished]


@pytest.mark.parametrize("not_a_card", [32, 40, -1, "CJ", 1.0, None])
def test_card_play_rejects_what_is_not_a_card_id(not_a_card):
    play = CardPlay(NULL_HANDS, NULL, M)
    with pytest.raises(IllegalPlay, match="not a card"):
        play.play(not_a_card)
    play.play(np.int64(parse_card("DA")))  # numpy integers are card ids too
