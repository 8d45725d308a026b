"""Do the 95% intervals cover 95% of the time? Many small samples against the value of one large run.

Each test draws 1,000 small samples from one population (the deals of a large simulated run, or a known
distribution), computes every sample's interval with the analysis code, and counts how often it holds
the population's value: with 1,000 samples a true 95% lands between 92% and 98% (4.3 standard errors
either side). Everything is seeded, so the counts are the same on every run.
"""

import numpy as np
import polars as pl
import pytest

from analysis import load_run
from analysis.contracts import success_table
from analysis.deal_groups import DEAL_GROUP
from analysis.games import games
from analysis.intervals import add_rate, mean_table
from analysis.match import _compare
from sim.runs.simulation import simulate

pytestmark = pytest.mark.slow

SAMPLES = 1000
COVERED = (0.92, 0.98)


def covered(low, high, truth) -> float:
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    return float(np.mean((low <= truth) & (truth <= high)))


@pytest.fixture(scope="module")
def game_run(tmp_path_factory):
    """20,000 deals of the random profile: its declared games are the population."""
    folder = simulate(20_000, seed=31, profile="random", out=tmp_path_factory.mktemp("runs") / "game", jobs=1,
                      chunk_size=10_000)
    return games(load_run(folder), []).collect()


@pytest.fixture(scope="module")
def declare_run(tmp_path_factory):
    """1,500 deals of every variant (42 rows a deal), the population of declare-mode samples."""
    folder = simulate(1500, seed=32, profile="random", mode="declare", variants="all",
                      out=tmp_path_factory.mktemp("runs") / "declare", jobs=1, chunk_size=750)
    return games(load_run(folder), []).collect()


def samples_of_rows(population: pl.DataFrame, size: int, seed: int) -> pl.DataFrame:
    """SAMPLES samples of ``size`` rows drawn with replacement, labelled by ``sample``."""
    picked = np.random.default_rng(seed).integers(0, population.height, (SAMPLES, size)).ravel()
    return population[picked].with_columns(sample=pl.Series(np.repeat(np.arange(SAMPLES), size)))


def test_the_wilson_interval_of_a_win_rate_covers_the_large_run(game_run):
    truth = game_run["won"].mean()
    drawn = samples_of_rows(game_run, 60, seed=1)
    counts = drawn.group_by("sample").agg(n=pl.len(), won=pl.col("won").sum())
    rates = add_rate(counts, "won", "n", "rate")
    share = covered(rates["rate_lo"], rates["rate_hi"], truth)
    assert COVERED[0] <= share <= COVERED[1], share


def test_the_interval_of_a_mean_score_covers_the_large_run(game_run):
    truth = game_run["sf"].mean()
    drawn = samples_of_rows(game_run, 100, seed=2)
    cube = drawn.group_by("sample", "sf").agg(n=pl.len())
    means = mean_table(cube, ["sample"], "sf")
    assert (means["mean_sf_interval"] == "bootstrap").all()
    share = covered(means["mean_sf_lo"], means["mean_sf_hi"], truth)
    assert COVERED[0] <= share <= COVERED[1], share


def declare_samples(population: pl.DataFrame, deals: int, seed: int) -> pl.DataFrame:
    """SAMPLES samples of ``deals`` whole deals each (drawn with replacement, all rows of a deal together):
    the cube of each sample's null games, every drawn deal its own deal group."""
    ids = population["deal_id"].unique().sort().to_numpy()
    picked = np.random.default_rng(seed).choice(ids, (SAMPLES, deals))
    draws = pl.DataFrame({"deal_id": picked.ravel(), "sample": np.repeat(np.arange(SAMPLES), deals),
                          DEAL_GROUP: np.tile(np.arange(deals, dtype=np.int32), SAMPLES)})
    rows = draws.join(population.filter(pl.col("game") == 5), on="deal_id")
    columns = ["won", "schneider", "schwarz", "overbid", "game_value", "oh_won", "contested", "score", "sf"]
    return rows.group_by("sample", DEAL_GROUP, *columns).agg(n=pl.len())


def test_a_declare_mode_rate_resampled_by_deals_covers_the_large_run(declare_run):
    """The null win rate of 40-deal samples (480 null rows each, 12 a deal: three seats, four variants,
    which stand or fall together): the deal-resampled interval holds it 95% of the time."""
    nulls = declare_run.filter(pl.col("game") == 5)
    truth = nulls["won"].mean()
    cube = declare_samples(declare_run, 40, seed=3)
    table = success_table(cube, ["sample"])
    share = covered(table["win_rate_lo"], table["win_rate_hi"], truth)
    assert COVERED[0] <= share <= COVERED[1], share
    rows = add_rate(table.select("sample", "games", "won"), "won", "games", "rows")
    by_rows = covered(rows["rows_lo"], rows["rows_hi"], truth)
    assert by_rows < COVERED[0], by_rows  # taking the rows as independent does not hold 95%
    share = covered(table["mean_sf_lo"], table["mean_sf_hi"], nulls["sf"].mean())
    assert COVERED[0] <= share <= COVERED[1], share


def test_the_match_difference_interval_covers_the_true_difference():
    """Deals of a match from a known law: six games a deal, A - B points of a deal normal around 6 * 2.5
    with a spread of 6 * 40 plus a rare big swing; the true difference per game is 2.5 + 0.05 * 300 / 6."""
    rng = np.random.default_rng(4)
    truth = 2.5 + 0.05 * 300 / 6
    shares = []
    for _ in range(SAMPLES):
        swing = np.where(rng.random(80) < 0.05, 300, 0)
        points = rng.normal(6 * 2.5, 6 * 40, 80) + swing
        deals = pl.DataFrame({"a": points, "b": np.zeros(80), "games": np.full(80, 6)})
        row = _compare(deals, 6 * 80)
        shares.append(row["difference_low"] <= truth <= row["difference_high"])
    assert COVERED[0] <= np.mean(shares) <= COVERED[1], np.mean(shares)


def test_a_declare_run_is_the_same_for_any_jobs_and_chunks(tmp_path):
    one = simulate(600, seed=33, profile="random", mode="declare", variants="all", out=tmp_path / "one", jobs=1,
                   chunk_size=600)
    two = simulate(600, seed=33, profile="random", mode="declare", variants="all", out=tmp_path / "two", jobs=2,
                   chunk_size=130)
    keys = ["deal_id", "seat", "game", "hand", "ouvert"]
    first, second = (pl.read_parquet(f / "part-*.parquet").sort(keys) for f in (one, two))
    assert first.height == 600 * 42 and first.equals(second)
