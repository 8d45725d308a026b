"""The statistics of analysis/ against answers worked out by hand."""

import numpy as np
import polars as pl
import pytest

from analysis.binning import round_width
from analysis.evaluator_comparison import auc, group_measures
from analysis.intervals import BOOTSTRAP_SEED, MIN_GAMES, bootstrap_ratio, mean_table, normal_mean, wilson
from analysis.thresholds import break_even, first_positive_run, reachable_bids, sf_at_bid


def test_wilson_interval_of_8_wins_in_10():
    # centre (8 + z²/2) / (10 + z²), half-width z / (10 + z²) * sqrt(8 * 2 / 10 + z² / 4), z = 1.96
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4)
    assert high == pytest.approx(0.9433, abs=1e-4)


def test_wilson_interval_at_the_edges_and_without_data():
    low, high = wilson(np.array([0, 10, 0]), np.array([10, 10, 0]))
    assert low[0] == 0.0 and high[0] == pytest.approx(0.2775, abs=1e-4)   # 0 of 10: z² / (10 + z²)
    assert high[1] == 1.0 and low[1] == pytest.approx(0.7225, abs=1e-4)
    assert np.isnan(low[2]) and np.isnan(high[2])


def test_wilson_bounds_of_no_win_and_every_win_are_exactly_0_and_1():
    """Rounding once gave 2.7e-20 for the lower bound of 0 wins: it must print as 0."""
    n = np.arange(1, 5001)
    low, _ = wilson(np.zeros_like(n), n)
    _, high = wilson(n, n)
    assert (low == 0.0).all() and (high == 1.0).all()
    low, high = wilson(n[1:] // 2, n[1:])
    assert (low > 0).all() and (high < 1).all()


def test_normal_mean_interval_from_sums():
    values = np.array([1.0, 2.0, 3.0, 4.0])
    mean, low, high = normal_mean(values.sum(), (values ** 2).sum(), 4)
    half = 1.959963984540054 * np.std(values, ddof=1) / 2
    assert mean == 2.5 and low == pytest.approx(2.5 - half) and high == pytest.approx(2.5 + half)


def test_bootstrap_of_a_constant_is_the_constant_and_depends_only_on_its_seed():
    assert bootstrap_ratio([7.0], [1.0], [30]) == (7.0, 7.0, 7.0)
    first = bootstrap_ratio([0.0, 10.0], [1.0, 1.0], [50, 50])
    assert first == bootstrap_ratio([0.0, 10.0], [1.0, 1.0], [50, 50], seed=BOOTSTRAP_SEED)
    other = bootstrap_ratio([0.0, 10.0], [1.0, 1.0], [50, 50], seed=BOOTSTRAP_SEED + 1)
    assert other[1:] != first[1:]  # the seed, not luck, makes two reports agree
    # 50 of 100 values 10: mean 5, standard error 5 / sqrt(100) = 0.5, about [4.0, 6.0]
    assert first[0] == 5.0 and first[1] == pytest.approx(4.0, abs=0.15) and first[2] == pytest.approx(6.0, abs=0.15)


def test_a_bootstrap_ratio_resamples_whole_units():
    """Units (deals) holding several games each: the ratio of sums, and an interval that widens
    when the same games come in fewer units."""
    ratio, low, high = bootstrap_ratio([2.0, 0.0], [2.0, 2.0], [50, 50])
    assert ratio == 0.5 and low < 0.5 < high
    _, few_low, few_high = bootstrap_ratio([6.0, 0.0], [6.0, 6.0], [50 // 3, 50 // 3])
    assert few_high - few_low > high - low


def test_mean_table_uses_the_normal_interval_for_large_groups_bootstrap_for_small_and_none_for_tiny():
    cube = pl.DataFrame({"g": ["big", "big", "small", "small", "tiny", "tiny"], "x": [0.0, 1.0, 0.0, 1.0, 0.0, 1.0],
                         "n": [600, 400, 30, 10, 3, 1]})
    table = mean_table(cube, ["g"], "x").sort("g")
    assert table["mean_x"].to_list() == [0.4, 0.25, 0.25]
    assert table["mean_x_interval"].to_list() == ["normal", "bootstrap", "too few"]
    # 10 of 40: standard error sqrt(0.25 * 0.75 / 40) = 0.068, so about 0.25 +- 0.134
    assert table["mean_x_lo"][1] == pytest.approx(0.116, abs=0.03) and table["mean_x_hi"][1] == pytest.approx(
        0.384, abs=0.03)
    assert table["mean_x_lo"][2] is None and table["mean_x_hi"][2] is None


@pytest.mark.parametrize("scores", [[74], [74, 74, -98], [74] * (MIN_GAMES - 1)])
def test_a_few_games_get_no_interval_of_their_mean(scores):
    """One game gave [74, 74] and three [-98, 74], neither a 95% interval: a group of fewer than
    MIN_GAMES games is marked too few instead."""
    values, counts = np.unique(scores, return_counts=True)
    row = mean_table(pl.DataFrame({"g": "clubs", "sf": values, "n": counts}), ["g"], "sf").row(0, named=True)
    assert row["mean_sf"] == pytest.approx(np.mean(scores))
    assert (row["mean_sf_lo"], row["mean_sf_hi"], row["mean_sf_interval"]) == (None, None, "too few")


@pytest.mark.parametrize("won, lost, expected", [
    ([0, 0, 1, 1], [1, 1, 0, 0], 1.0),        # every won game scores above every lost one
    ([1, 1, 0, 0], [0, 0, 1, 1], 0.0),        # reversed
    ([0, 1, 0, 1], [1, 0, 1, 0], 0.75),       # won at 2 and 4, lost at 1 and 3: 3 of 4 pairs ordered
    ([2], [3], 0.5),                          # all tied: every pair counts one half
])
def test_auc_by_the_rank_formula(won, lost, expected):
    assert auc(np.array(won), np.array(lost)) == pytest.approx(expected)


def test_auc_of_replicates_at_once():
    won = np.array([[0, 0, 1, 1], [1, 1, 0, 0]])
    lost = np.array([[1, 1, 0, 0], [0, 0, 1, 1]])
    assert auc(won, lost).tolist() == [1.0, 0.0]


def test_seeger_fabian_score_at_a_higher_bid_applies_the_overbid_rule():
    # docs/rules.md#known-answers, example 4: hearts hand with 1 reaches 30; at bid 36 it is lost at 40:
    # classic -80, SF -130
    assert sf_at_bid(1, 30, True, bid=36) == -130
    assert sf_at_bid(3, 36, True, bid=36) == 86          # clubs reaching the bid keeps its result: 36 + 50
    assert sf_at_bid(3, 36, False, bid=30) == -122       # lost, not overbid: -2 * 36 - 50
    assert sf_at_bid(3, 36, True, bid=40) == -146        # overbid: lost at 48, the next multiple of 12
    assert sf_at_bid(5, 23, True, bid=35) == -120        # plain null at 35 counts as a lost null hand
    assert sf_at_bid(5, 59, True, bid=46) == 109


def test_reachable_bids_end_at_the_highest_value_of_the_game():
    assert reachable_bids(5).max() == 59
    assert reachable_bids(4).max() == 264 and reachable_bids(0).max() == 162


def test_break_even_is_interpolated_where_the_expected_score_crosses_zero():
    # bin at score 2: 2 of 4 diamonds games at 18 won: (2 * 68 - 2 * 86) / 4 = -9
    # bin at score 3: 3 of 4 won: (3 * 68 - 86) / 4 = 29.5; zero at 2 + 9 / 38.5
    score, win_rate, status = break_even([1, 2, 3], [-86, -9, 29.5], [0.0, 0.5, 0.75])
    assert status == "crossing"
    assert score == pytest.approx(2 + 9 / 38.5)
    assert win_rate == pytest.approx(86 / 154)      # the win rate at which 68 p = 86 (1 - p)


def test_break_even_needs_the_expected_score_positive_from_the_crossing_on():
    score, _, status = break_even([1, 2, 3, 4], [5, -1, 3, 6], [0.6, 0.5, 0.6, 0.7])
    assert status == "crossing" and score == pytest.approx(2.25)
    assert break_even([1, 2], [1, 2], [0.6, 0.7])[2] == "positive throughout"
    assert break_even([1, 2], [-1, -2], [0.1, 0.1])[2] == "never positive"
    assert break_even([], [], [])[2] == "no data"


def test_first_positive_run_along_the_last_axis():
    has, first = first_positive_run(np.array([[-1, 1, -1, 2], [1, 2, 3, 4], [-1, -2, -3, -4]]))
    assert has.tolist() == [True, True, False] and first[:2].tolist() == [3, 0]


@pytest.mark.parametrize("span, width", [(14, 0.5), (36, 1.0), (10, 0.25), (1, 0.025), (0, 1.0)])
def test_round_bin_widths(span, width):
    assert round_width(span) == pytest.approx(width)


@pytest.mark.slow
def test_the_same_run_gives_the_same_bootstrap_intervals(tmp_path):
    """Bootstrap replicates are drawn cell by cell, so the cells must come in a fixed order although
    polars groups rows in any order: analysing one run twice gives identical tables."""
    from analysis import load_run
    from analysis.tables import run_tables
    from sim.runs.simulation import simulate

    for run in (load_run(simulate(300, seed=2, out=tmp_path / "run", jobs=1)),
                load_run(simulate(100, seed=2, profile="random", mode="declare", variants="all",
                                  out=tmp_path / "declare", jobs=1))):
        first, again = run_tables(run), run_tables(run)
        for name, table in first.items():
            assert table.equals(again[name]), (run.mode, name)


def test_a_score_that_separates_won_from_lost_games_has_brier_score_and_log_loss_0():
    """The fit's limit predicts every game: 0 exactly, not the 1e-20 the Newton steps stop at."""
    counts = pl.DataFrame({"score": [1.0, 2.0, 3.0, 4.0], "won": [0, 0, 5, 7], "lost": [6, 4, 0, 0]})
    row = group_measures(counts)
    assert (row["auc"], row["brier"], row["log_loss"]) == (1.0, 0.0, 0.0)
    assert (row["brier_lo"], row["log_loss_lo"]) == (0.0, 0.0)
    mixed = group_measures(counts.with_columns(lost=pl.Series([6, 4, 1, 0])))
    assert 0 < mixed["brier"] < 0.25 and mixed["brier_lo"] >= 0


def test_wilson_interval_of_none_or_all_reaches_zero_or_one_exactly():
    from analysis.intervals import wilson

    assert wilson(0, 37)[0] == 0.0 and wilson(37, 37)[1] == 1.0
