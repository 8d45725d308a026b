"""Whole deals with a profile: reproducible, legal at every step, scored as the rules say."""

import numpy as np
import pytest

from sim.rules.cards import card_points, popcount
from sim.rules.games import Declaration, IllegalDeclaration
from sim.rules.scoring import score_game
from sim.rules.tricks import CardPlay
from strategies import load_profile, play_deals

SEED = 20261129


@pytest.fixture(scope="module", params=["default", "threshold", "random"])
def games(request):
    profile = load_profile(request.param)
    return profile, play_deals(profile, seed=SEED, start=0, count=3000, log_tricks=True)


def played_rows(columns):
    return np.flatnonzero(~columns["passed"])


def test_same_deals_in_any_batch_give_the_same_games(games):
    profile, whole = games
    parts = [play_deals(profile, seed=SEED, start=start, count=1000, log_tricks=True) for start in (0, 1000, 2000)]
    for name, column in whole.items():
        np.testing.assert_array_equal(np.concatenate([p[name] for p in parts]), column, err_msg=name)


def test_a_deal_is_the_same_alone_as_in_a_batch(games):
    profile, whole = games
    alone = play_deals(profile, seed=SEED, start=1234, count=1, log_tricks=True)
    for name, column in alone.items():
        np.testing.assert_array_equal(column[0], whole[name][1234], err_msg=name)


def test_every_declaration_is_legal_for_its_bid(games):
    _, c = games
    for k in played_rows(c):
        d = Declaration(int(c["game"][k]), bool(c["hand"][k]), bool(c["schneider_announced"][k]),
                        bool(c["schwarz_announced"][k]), bool(c["ouvert"][k]))
        try:
            d.check(int(c["bid"][k]))
        except IllegalDeclaration as error:
            pytest.fail(f"deal {k}: {d.name} at bid {c['bid'][k]}: {error}")


def test_discards_are_two_of_the_twelve_and_hand_games_keep_the_skat(games):
    _, c = games
    for k in played_rows(c):
        d = c["declarer"][k]
        twelve = int(c[("hand_f", "hand_m", "hand_r")[d]][k]) | int(c["skat"][k])
        if c["hand"][k]:
            assert c["discard"][k] == 0
        else:
            assert popcount(c["discard"][k]) == 2 and int(c["discard"][k]) & ~twelve == 0


def test_the_bid_is_one_seat_maximum_or_below(games):
    _, c = games
    for k in played_rows(c):
        max_bids = [c["max_bid_f"][k], c["max_bid_m"][k], c["max_bid_r"][k]]
        assert 18 <= c["bid"][k] <= max_bids[c["declarer"][k]]


def test_replaying_each_logged_game_card_by_card_gives_the_same_result(games):
    """The bulk kernel and the checked card-by-card path agree on every card and every score."""
    _, c = games
    for k in played_rows(c)[:600]:
        d, game = int(c["declarer"][k]), int(c["game"][k])
        hands = [int(c[h][k]) for h in ("hand_f", "hand_m", "hand_r")]
        skat = int(c["discard"][k]) if not c["hand"][k] else int(c["skat"][k])
        twelve = hands[d] | int(c["skat"][k])
        hands[d] = twelve & ~skat
        play = CardPlay(hands, game, d)
        for card in c["tricks"][k]:
            if card < 0:
                break
            play.play(int(card))
        assert play.finished
        points = int(card_points(play.won_cards(d)) + card_points(skat))
        declaration = Declaration(game, bool(c["hand"][k]), bool(c["schneider_announced"][k]),
                                  bool(c["schwarz_announced"][k]), bool(c["ouvert"][k]))
        tricks = play.trick_winners.count(d)
        result = score_game(d, declaration, int(c["bid"][k]), twelve, points, tricks)
        assert result.declarer_points == c["declarer_points"][k]
        assert result.won == bool(c["won"][k])
        assert result.game_value == c["game_value"][k]
        assert result.score == c["score"][k]
        assert result.seeger_fabian == (c["sf_f"][k], c["sf_m"][k], c["sf_r"][k])


def test_passed_in_deals_score_nothing(games):
    _, c = games
    passed = c["passed"]
    for name in ("score", "sf_f", "sf_m", "sf_r", "game_value", "bid"):
        assert not c[name][passed].any(), name
    assert (c["declarer"][passed] == -1).all()


def test_value_reached_and_won_in_play_explain_the_result(games):
    _, c = games
    rows = played_rows(c)
    overbid = c["overbid"][rows].astype(bool)
    assert (c["game_value"][rows][~overbid] == c["value_reached"][rows][~overbid]).all()
    assert (c["won"][rows][~overbid] == c["won_in_play"][rows][~overbid]).all()
    assert (c["value_reached"][rows][overbid] < c["bid"][rows][overbid]).all()
    assert not c["won"][rows][overbid].any()


@pytest.mark.parametrize("settings", [["bidder.hand_margin=0"],
                                      ["bidder.hand_margin=-2", "bidder.aggressiveness=3"]])
def test_declarations_stay_legal_with_bold_bidders(settings):
    """Bidders that play hand often and bid high must still never declare a null below the bid."""
    c = play_deals(load_profile("threshold", settings), seed=SEED, start=0, count=4000)
    for k in played_rows(c):
        Declaration(int(c["game"][k]), bool(c["hand"][k]), bool(c["schneider_announced"][k]),
                    bool(c["schwarz_announced"][k]), bool(c["ouvert"][k])).check(int(c["bid"][k]))
