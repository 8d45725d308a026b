"""`simulate --open-hand`: each declared game's open-hand value and outcome, logged and analysed."""

import numpy as np
import polars as pl
import pytest

from analysis.runs import load_run
from analysis.tables import all_tables
from sim import solver
from sim.rules.cards import parse_hand
from sim.rules.games import GAME_NAMES, game_id
from sim.rules.shuffle import SKAT, deal_batch
from sim.rules.tricks import new_play
from sim.runs.simulation import simulate
from sim.solver.open_hand import first_lead_outcomes

DEALS = 120


@pytest.fixture(scope="module")
def game_run(tmp_path_factory):
    return simulate(DEALS, seed=11, profile="default", out=tmp_path_factory.mktemp("oh") / "game", jobs=1,
                    chunk_size=DEALS, open_hand=True)


def _rows(folder) -> pl.DataFrame:
    return pl.read_parquet(sorted(folder.glob("part-*.parquet")))


def _outcomes(hands, skat, declarer, game, discard=0, bid=18, hand=0, schneider=0, schwarz=0, ouvert=0):
    """first_lead_outcomes of one game given as text."""
    dealt = np.array([[parse_hand(h) for h in hands]])
    one = [np.array([x]) for x in (parse_hand(skat), declarer, game_id(game), discard, bid, hand, schneider,
                                   schwarz, ouvert)]
    values, won, _ = first_lead_outcomes(dealt, *one)
    return int(values[0]), bool(won[0])


ALL_TRUMPS = ["CJ SJ HJ DJ CA C10 CK CQ C9 C8", "SA S10 SK SQ S9 S8 S7 HA H10 HK",
              "HQ H9 H8 H7 DA D10 DK DQ D9 D8"]


def test_values_are_the_solvers_and_the_outcome_follows_the_bid_and_announcements():
    # forehand holds every trump of clubs: with 4 matadors, hand, clubs is worth 12 * 6 = 72 plainly
    value, won = _outcomes(ALL_TRUMPS, "C7 D7", 0, "clubs", hand=1, bid=72)
    state = new_play(*(parse_hand(h) for h in ALL_TRUMPS), game_id("clubs"), 0)
    exact = solver.solve(state, "C7 D7", solver.new_transpositions())
    assert value == exact.declarer_points and won == (value >= 61)
    # a bid only schneider reaches (12 * 7 = 84) needs 90 points; one only schwarz reaches needs every trick
    assert _outcomes(ALL_TRUMPS, "C7 D7", 0, "clubs", hand=1, bid=84)[1] == (value >= 90)
    assert _outcomes(ALL_TRUMPS, "C7 D7", 0, "clubs", hand=1, bid=96)[1] == exact.schwarz_possible
    # no play reaches a bid above the value with schwarz announced
    assert _outcomes(ALL_TRUMPS, "C7 D7", 0, "clubs", hand=1, bid=264)[1] is False
    # schneider announced: 90 points whatever the bid
    assert _outcomes(ALL_TRUMPS, "C7 D7", 0, "clubs", hand=1, schneider=1)[1] == (value >= 90)


def test_a_null_game_is_won_when_the_declarer_avoids_every_trick():
    low = ["C7 C8 C9 S7 S8 S9 H7 H8 H9 D7", "CA CK CQ CJ SA SK SQ SJ HA HK", "C10 S10 H10 D10 DA DK DQ DJ D9 HQ"]
    assert _outcomes(low, "HJ D8", 0, "null", hand=1, bid=35) == (1, True)
    assert _outcomes(low, "HJ D8", 1, "null", hand=1, bid=35) == (0, False)


def test_rows_without_a_game_are_left_out():
    deals = deal_batch(1, 0, 3)
    values, won, nodes = first_lead_outcomes(deals[:, :3], deals[:, SKAT], np.array([-1, -1, -1]), np.zeros(3),
                                             np.zeros(3), np.full(3, 18), *(np.zeros(3),) * 4)
    assert (values == -1).all() and not won.any() and (nodes == 0).all()


def test_a_run_logs_the_open_hand_outcome_of_every_game_played(game_run):
    rows = _rows(game_run)
    played = rows.filter(~pl.col("passed"))
    assert played["oh_won"].null_count() == 0
    assert rows.filter(pl.col("passed"))["oh_won"].null_count() == rows["passed"].sum()
    points = played.filter(pl.col("game") != "null")["oh_declarer_points"]
    assert points.null_count() == 0 and points.min() >= 0 and points.max() <= 120
    assert played.filter(pl.col("game") == "null")["oh_declarer_points"].null_count() == \
        (played["game"] == "null").sum()
    # a row solved again from its own columns gives the logged value
    row = played.filter(pl.col("game") != "null").row(0, named=True)
    hands = [row["hand_f"], row["hand_m"], row["hand_r"]]
    twelve = hands[row["declarer"]] | row["skat"]
    counted = row["discard"] or row["skat"]
    hands[row["declarer"]] = twelve & ~counted
    state = new_play(*hands, GAME_NAMES.index(row["game"]), row["declarer"])
    assert solver.solve(state, counted, solver.new_transpositions()).declarer_points == row["oh_declarer_points"]


def test_open_hand_columns_do_not_depend_on_jobs_or_parts(game_run, tmp_path):
    again = simulate(DEALS, seed=11, profile="default", out=tmp_path / "again", jobs=2, chunk_size=DEALS // 3,
                     open_hand=True)
    assert _rows(again).equals(_rows(game_run))


def test_a_run_without_open_hand_has_no_oh_columns(game_run, tmp_path):
    plain = simulate(DEALS, seed=11, profile="default", out=tmp_path / "plain", jobs=1, chunk_size=DEALS)
    rows = _rows(plain)
    assert not any(c.startswith("oh_") for c in rows.columns)
    assert rows.equals(_rows(game_run).drop("oh_declarer_points", "oh_won"))
    tables, _ = all_tables([load_run(plain)])
    assert "evaluators_open_hand" not in tables and (tables["contracts_by_game"]["oh_games"] == 0).all()


def test_declare_mode_solves_every_row(tmp_path):
    folder = simulate(8, seed=4, profile="default", out=tmp_path / "declare", jobs=1, mode="declare",
                      open_hand=True)
    rows = _rows(folder)
    assert rows.height == 8 * 18 and rows["oh_won"].null_count() == 0
    assert rows.filter(pl.col("game") == "null")["oh_declarer_points"].null_count() == 8 * 3


def test_analysis_puts_the_open_hand_win_rate_beside_the_played_one(game_run):
    tables, _ = all_tables([load_run(game_run)])
    played = _rows(game_run).filter(~pl.col("passed"))
    by_game = tables["contracts_by_game"]
    for game in GAME_NAMES:
        these = played.filter(pl.col("game") == game)
        if these.height:
            row = by_game.filter(pl.col("contract") == game).row(0, named=True)
            assert row["oh_games"] == these.height
            assert row["oh_win_rate"] == pytest.approx(these["oh_won"].mean())
            assert row["oh_win_rate_lo"] <= row["oh_win_rate"] <= row["oh_win_rate_hi"]
    measured = tables["evaluators_open_hand"]
    assert measured.height and set(measured["group"]) <= {*GAME_NAMES, "suit games"}
    suits = measured.filter(pl.col("group") == "suit games")
    assert (suits["games"] == played.filter(pl.col("game").is_in(GAME_NAMES[:4])).height).all()
