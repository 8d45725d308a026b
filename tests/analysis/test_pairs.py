"""Paired comparisons of evaluators (analysis.pairs): exact zero for equal evaluators, intervals that
cover a known difference, and agreement with a direct bootstrap of the deals."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from analysis import load_run
from analysis.binning import Grid
from analysis.deal_groups import DEAL_GROUP, DEAL_GROUPS
from analysis.evaluator_comparison import SUIT_GAMES, auc
from analysis.games import games
from analysis.intervals import percentile_interval
from analysis.pairs import BEST, SAME, TOO_FEW, WORSE, against_best, measure_draws, paired, run_draws
from analysis.scoring import with_scored
from analysis.tables import all_tables
from sim.runs.simulation import simulate
from tests.evaluator_files import twin_file


@pytest.fixture(scope="module")
def declare_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("pairs")
    twin = twin_file(root, "trump_length")
    folder = simulate(2000, seed=51, profile="threshold", mode="declare", out=root / "declare", jobs=1,
                      chunk_size=1000)
    return twin, folder


def test_two_evaluators_equal_by_construction_differ_by_exactly_zero(declare_run):
    twin, folder = declare_run
    runs = with_scored([load_run(folder)], [f"{twin}:twin"])
    tables, _ = all_tables(runs, ["trump_length", "twin", "classic"])
    pairs = tables["evaluator_pairs"]
    for group in ("clubs", SUIT_GAMES):
        rows = pairs.filter(pl.col("group") == group)
        same = rows.filter(pl.col("evaluator").is_in(["trump_length", "twin"]))
        assert same.height == 2 and set(same["verdict"]) <= {BEST, SAME}
        for column in ("auc_diff", "auc_diff_lo", "auc_diff_hi", "brier_diff", "log_loss_diff_hi"):
            assert (same[column] == 0).all(), column
    suits = pairs.filter(pl.col("group") == SUIT_GAMES).sort("evaluator")
    assert suits["against"].n_unique() == 1 and suits.filter(pl.col("evaluator") == "classic")["verdict"][0] in (
        SAME, WORSE)


def _synthetic_cube(seed: int, games: int) -> pl.DataFrame:
    """A cube of two evaluators' scores of ``games`` games of one deal each: a hidden strength decides the
    game, evaluator ``a`` reads it with less noise than ``b`` (scores on a grid of halves)."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(size=games)
    won = rng.random(games) < 1 / (1 + np.exp(-2 * strength))
    scores = {"a": np.round(2 * (strength + rng.normal(scale=0.6, size=games))) / 2,
              "b": np.round(2 * (strength + rng.normal(scale=1.0, size=games))) / 2}
    return {name: (pl.DataFrame({"game": np.zeros(games, np.int8), "fine": np.round(score / 0.01).astype(np.int64),
                                 "won": won, DEAL_GROUP: (np.arange(games) % DEAL_GROUPS).astype(np.int32),
                                 "n": np.ones(games, np.uint32)})
                   .group_by("game", "fine", "won", DEAL_GROUP).agg(pl.col("n").sum()))
            for name, score in scores.items()}


def _draws(cubes: dict) -> pl.DataFrame:
    return pl.concat([measure_draws(cube, Grid(0.5)).select(pl.lit(name).alias("evaluator"), pl.all())
                      for name, cube in cubes.items()])


@pytest.mark.slow
def test_the_paired_interval_covers_a_known_auc_difference_in_at_least_93_of_100_seeds():
    huge = _draws(_synthetic_cube(10_000, 2_000_000))
    points = huge.filter((pl.col("replicate") == 0) & (pl.col("group") == "diamonds")).sort("evaluator")
    truth = points["auc"][0] - points["auc"][1]
    covered = 0
    for seed in range(100):
        row = paired(_draws(_synthetic_cube(seed, 1500)), "a", "b").filter(pl.col("group") == "diamonds")
        covered += row["auc_diff_lo"][0] <= truth <= row["auc_diff_hi"][0]
    assert truth > 0.01 and covered >= 93, (truth, covered)


def test_few_deals_give_differences_without_an_interval():
    cubes = {name: cube.with_columns(pl.col(DEAL_GROUP) % 20) for name, cube in _synthetic_cube(3, 400).items()}
    row = paired(_draws(cubes), "a", "b").filter(pl.col("group") == "diamonds")
    assert row["verdict"][0] == TOO_FEW and row["auc_diff"][0] != 0 and row["auc_diff_lo"].is_null()[0]
    assert against_best(_draws(cubes))["verdict"].to_list() == [BEST, TOO_FEW] * 2  # diamonds, suit games


def test_the_paired_interval_agrees_with_a_direct_bootstrap_of_the_deals(declare_run):
    _, folder = declare_run
    run = load_run(folder)
    row = paired(run_draws(run, ["trump_length", "classic"]), "classic", "trump_length").filter(
        pl.col("group") == SUIT_GAMES).row(0, named=True)
    frame = (games(run, ["trump_length", "classic"]).filter(pl.col("game") < 4)
             .select("deal_id", "won", "eval_trump_length", "eval_classic").collect())
    rng = np.random.default_rng(7)
    deals, index = np.unique(frame["deal_id"].to_numpy(), return_inverse=True)
    weights = rng.multinomial(len(deals), np.full(len(deals), 1 / len(deals)), size=4000)
    area = {}
    for name in ("trump_length", "classic"):
        cells, where = np.unique(frame[f"eval_{name}"].to_numpy(), return_inverse=True)
        won, lost = (np.zeros((len(deals), len(cells))) for _ in range(2))
        outcome = frame["won"].to_numpy()
        np.add.at(won, (index[outcome], where[outcome]), 1)
        np.add.at(lost, (index[~outcome], where[~outcome]), 1)
        area[name] = auc(weights @ won, weights @ lost)
    lo, hi = percentile_interval(area["classic"] - area["trump_length"])
    width = hi - lo
    assert abs(row["auc_diff_lo"] - lo) <= 0.1 * width and abs(row["auc_diff_hi"] - hi) <= 0.1 * width, (row, lo, hi)
