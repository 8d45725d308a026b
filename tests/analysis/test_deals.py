"""Declare-mode runs: intervals that resample whole deals, and runs compared row for row."""

import numpy as np
import polars as pl
import pytest

from analysis import AnalysisError, compare_runs, contract_success, load_run
from analysis.deal_groups import DEAL_GROUP, DEAL_GROUPS, deal_rate, group_matrices, sandwich_mean
from analysis.intervals import resample_counts, wilson
from sim.runs.simulation import simulate
from tests.handmade_runs import declare_rows, write_run


def test_a_replicate_draws_every_row_of_a_deal_group_together():
    counts = np.zeros((DEAL_GROUPS, 3))
    counts[0] = [2, 3, 0]   # group 0: two cells, 2 and 3 rows
    counts[1] = [0, 0, 4]
    draws = resample_counts(counts, replicates=500)
    assert draws.shape == (500, 3)
    assert np.array_equal(draws[:, 0] * 3, draws[:, 1] * 2)  # group 0 drawn k times: 2k and 3k rows
    assert set(np.unique(draws[:, 2] / 4)) <= set(range(20)) and draws[:, 2].std() > 0


def test_the_matrices_of_a_cube_are_its_sums_per_cell_and_deal_group_whatever_its_keys_hold():
    """Keys of scores, texts, flags and nulls come back as they are, sorted, with each value's sum in each
    (deal group, cell), as a polars group-by gives them."""
    rng = np.random.default_rng(4)
    rows = 5_000
    cube = pl.DataFrame({
        "group": rng.choice(["grand", "clubs", "null"], rows), "score": rng.choice([-1.25, 0.5, 2.75, 10.0], rows),
        "won": rng.random(rows) < 0.5,
        "bid": pl.Series([(18, 20, None)[k] for k in rng.integers(0, 3, rows)], dtype=pl.Int16),
        DEAL_GROUP: rng.integers(0, DEAL_GROUPS, rows).astype(np.int32), "n": rng.integers(1, 5, rows),
        "value": rng.normal(size=rows)})
    keys = ["group", "score", "won", "bid"]
    cells, matrices = group_matrices(cube, keys, {"n": pl.col("n"), "value": pl.col("value") * pl.col("n")})
    expected = (cube.group_by(*keys, DEAL_GROUP).agg(pl.col("n").sum(), (pl.col("value") * pl.col("n")).sum())
                .sort(*keys, DEAL_GROUP, nulls_last=True))
    assert cells.equals(expected.select(keys).unique(maintain_order=True))
    cell = expected.join(cells.with_row_index("cell"), on=keys, nulls_equal=True)
    for name in ("n", "value"):
        matrix = np.zeros((DEAL_GROUPS, cells.height))
        matrix[cell[DEAL_GROUP].to_numpy(), cell["cell"].to_numpy()] = cell[name].to_numpy()
        assert matrices[name] == pytest.approx(matrix, abs=1e-9)


def test_a_rate_of_deals_that_hold_each_result_twice_counts_the_deals():
    """Every deal gives two identical rows: the rows say no more than the deals, so the interval is
    Wilson's at the number of deals, not at the number of rows."""
    won = np.zeros((DEAL_GROUPS, 1))
    games = np.zeros((DEAL_GROUPS, 1))
    games[:60] = 2
    won[:24] = 2  # 24 of 60 deals won (48 of 120 rows)
    low, high = deal_rate(won, games)
    deals_low, deals_high = wilson(24, 60)
    rows_low, rows_high = wilson(48, 120)
    assert low[0] == pytest.approx(deals_low, abs=0.012) and high[0] == pytest.approx(deals_high, abs=0.012)
    assert high[0] - low[0] > (rows_high - rows_low) + 0.05


def test_a_rate_of_independent_deals_is_wilsons():
    won, games = np.zeros((DEAL_GROUPS, 1)), np.zeros((DEAL_GROUPS, 1))
    games[:150], won[:45] = 1, 1
    low, high = deal_rate(won, games)
    assert (low[0], high[0]) == (pytest.approx(wilson(45, 150)[0], abs=0.01), pytest.approx(wilson(45, 150)[1],
                                                                                           abs=0.01))


def test_the_cluster_robust_mean_by_hand():
    """Groups holding sums 10, 0, 20 of 2, 1, 3 rows: mean 30 / 6 = 5; residuals 10 - 10, 0 - 5, 20 - 15;
    variance 3 / 2 * (0 + 25 + 25) / 36 = 2.083."""
    total = np.zeros(40)
    games = np.zeros(40)
    total[:3], games[:3] = [10, 0, 20], [2, 1, 3]
    total[3:], games[3:] = 5, 1  # 37 groups of one row exactly at the mean: nothing to add
    mean, low, high = sandwich_mean(total, games)
    n = games.sum()
    spread = 40 / 39 * (0 + 25 + 25) / n ** 2
    assert mean == pytest.approx((30 + 185) / n)
    assert high - mean == pytest.approx(1.959964 * np.sqrt(spread), rel=1e-3)
    assert np.isnan(sandwich_mean(total[:3], games[:3])[1])  # three groups: too few for an interval


# --- contract tables of a declare run with two rows a deal ------------------------------------


def paired_rows(won_deals: int, deals: int, **columns) -> dict:
    """Forehand and middlehand both declare diamonds in each deal, both winning in the first ``won_deals``."""
    won = np.repeat(np.arange(deals) < won_deals, 2)
    return declare_rows([(1.0, bool(w)) for w in won], deal_id=np.repeat(np.arange(deals), 2),
                        seat=np.tile([0, 1], deals), **columns)


def test_declare_mode_contract_intervals_resample_deals(tmp_path):
    """60 deals, 24 won by both seats: the rate's interval is Wilson's at 60 deals, [0.286, 0.526] (at 120
    independent rows it would be [0.317, 0.489]); the mean Seeger-Fabian score 0.4 * 68 - 0.6 * 86 = -24.4
    has the standard error of 60 deals, 154 * sqrt(0.24) / sqrt(59) = 9.82, an interval of about 38.5."""
    run = load_run(write_run(tmp_path / "declare", paired_rows(24, 60), mode="declare"))
    diamonds = contract_success(run)["contracts_by_game"].row(by_predicate=pl.col("contract") == "diamonds",
                                                                named=True)
    assert (diamonds["games"], diamonds["win_rate"]) == (120, 0.4)
    assert diamonds["win_rate_lo"] == pytest.approx(0.286, abs=0.012)
    assert diamonds["win_rate_hi"] == pytest.approx(0.526, abs=0.012)
    assert diamonds["mean_sf"] == pytest.approx(-24.4) and diamonds["mean_sf_interval"] == "deal bootstrap"
    assert diamonds["mean_sf_hi"] - diamonds["mean_sf_lo"] == pytest.approx(2 * 1.96 * 9.82, rel=0.12)
    seats = contract_success(run)["contracts_by_seat"].filter(pl.col("contract") == "diamonds")
    assert seats["games"].to_list() == [60, 60]  # one row a deal per seat: Wilson at 60 again
    assert seats["win_rate_lo"][0] == pytest.approx(wilson(24, 60)[0], abs=0.012)


def test_declare_mode_with_too_few_deals_gives_no_interval_of_a_mean(tmp_path):
    run = load_run(write_run(tmp_path / "declare", paired_rows(5, 20), mode="declare"))  # 40 rows of 20 deals
    diamonds = contract_success(run)["contracts_by_game"].row(by_predicate=pl.col("contract") == "diamonds",
                                                                named=True)
    assert diamonds["mean_sf_interval"] == "too few" and diamonds["mean_sf_lo"] is None
    assert 0 < diamonds["win_rate_lo"] < 0.25 < diamonds["win_rate_hi"] < 1


# --- declare runs compared row for row --------------------------------------------------------------


def variant_rows(lost_deals: int, deals: int = 40) -> dict:
    """Every variant declared (``--variants all``): forehand plays diamonds after picking up and hand in
    each deal; both are lost in the first ``lost_deals`` deals."""
    won = np.repeat(np.arange(deals) >= lost_deals, 2)
    return declare_rows([(1.0, bool(w)) for w in won], deal_id=np.repeat(np.arange(deals), 2),
                        hand=np.tile([False, True], deals))


EVERY_VARIANT = {"variants": "all"}


def test_a_run_of_every_variant_compared_with_itself_pairs_each_row_once(tmp_path):
    run = load_run(write_run(tmp_path / "a", variant_rows(10), mode="declare", settings=EVERY_VARIANT))
    table = compare_runs(run, run)
    assert table["rows"].to_list() == [80] * 3  # not 160: (deal, seat, game) names two rows here
    assert (table["difference"] == 0).all()
    assert (table["difference_lo"] == 0).all() and (table["difference_hi"] == 0).all()


def test_declare_differences_are_resampled_by_deals(tmp_path):
    """B loses both variants of 20 of the 40 deals A wins: differences of -154 in 40 of 80 rows, two per deal.
    By deals: per-deal mean 0 or -154, standard error 77 * sqrt(40 / 39) / sqrt(40) = 12.3, width about
    48; rows taken as independent would give 34."""
    a = load_run(write_run(tmp_path / "a", variant_rows(0), mode="declare", settings=EVERY_VARIANT))
    b = load_run(write_run(tmp_path / "b", variant_rows(20), mode="declare", settings=EVERY_VARIANT))
    row = compare_runs(a, b).row(by_predicate=pl.col("metric").str.contains("Seeger-Fabian"), named=True)
    assert (row["rows"], row["difference"], row["difference_interval"]) == (80, -77.0, "deal bootstrap")
    assert row["difference_hi"] - row["difference_lo"] == pytest.approx(2 * 1.96 * 12.3, rel=0.12)


def test_declare_runs_whose_keys_name_several_rows_are_refused(tmp_path):
    a = load_run(write_run(tmp_path / "a", variant_rows(0), mode="declare"))  # says one row a game, holds two
    with pytest.raises(AnalysisError, match=r"40 keys \(deal_id, seat, game\) of a name 80 rows") as error:
        compare_runs(a, a)
    assert "\n" not in str(error.value)
    b = load_run(write_run(tmp_path / "b", variant_rows(0), mode="declare", settings=EVERY_VARIANT))
    with pytest.raises(AnalysisError, match="one declares every variant"):
        compare_runs(a, b)


def test_a_simulated_run_of_every_variant_compared_with_itself(tmp_path):
    folder = simulate(8, seed=4, profile="random", mode="declare", variants="all", out=tmp_path / "all", jobs=1)
    run = load_run(folder)
    rows = pl.scan_parquet(list(run.parts)).select(pl.len()).collect().item()
    assert rows == 8 * 42
    table = compare_runs(run, run)
    assert table["rows"].to_list() == [rows] * 3
    assert (table["difference"] == 0).all() and (table["difference_hi"] == 0).all()
