"""Any evaluator on any run: an evaluator scored at analysis time gives the scores and the tables a run
that logged it gives, bit for bit, in game and declare mode."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from polars.testing import assert_frame_equal

from analysis import AnalysisError, load_run
from analysis.binning import evaluator_count, grids
from analysis.games import games
from analysis.reading import Reading, count_run
from analysis.scoring import with_scored
from analysis.tables import all_tables
from sim.commands.cli import main
from sim.runs.simulation import simulate
from tests.evaluator_files import twin_file


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("scoring")
    twin = twin_file(root, "weighted")
    return twin, {
        "game": simulate(3000, seed=41, profile="threshold", out=root / "game", jobs=1, chunk_size=1000),
        "declare": simulate(150, seed=42, profile="random", mode="declare", variants="all", out=root / "declare",
                            jobs=1, chunk_size=50)}


@pytest.mark.parametrize("mode", ["game", "declare"])
def test_scores_at_analysis_time_are_the_logged_ones_bit_for_bit(runs, mode):
    twin, folders = runs
    [run] = with_scored([load_run(folders[mode])], ["classic", *(["bidder"] if mode == "declare" else []),
                                                   f"{twin}:twin"])
    assert list(run.scored) == ["twin"] and run.scored["twin"]["thresholds"] == run.evaluators["weighted"]["thresholds"]
    frame = games(run).select("eval_weighted", "eval_twin").collect()
    logged, scored = (frame[c].to_numpy() for c in ("eval_weighted", "eval_twin"))
    assert frame["eval_twin"].dtype == pl.Float32 and frame.height > 100
    assert np.array_equal(logged, scored, equal_nan=True) and np.isnan(logged).sum() == np.isnan(scored).sum()


@pytest.mark.parametrize("mode", ["game", "declare"])
def test_tables_of_a_scored_evaluator_are_those_of_the_logged_one(runs, mode):
    twin, folders = runs
    [run] = with_scored([load_run(folders[mode])], [f"{twin}:twin"])
    tables, _ = all_tables([run], ["weighted", "twin"])
    for name in ("evaluators", "break_even", "calibration", "thresholds"):
        if name not in tables:
            continue
        table = tables[name]
        logged = table.filter(pl.col("evaluator") == "weighted").drop("evaluator")
        scored = table.filter(pl.col("evaluator") == "twin").drop("evaluator")
        assert logged.height > 0, name
        assert_frame_equal(logged.drop("rank", strict=False), scored.drop("rank", strict=False))


def test_an_evaluator_named_like_a_logged_one_is_refused(runs):
    twin, folders = runs
    with pytest.raises(AnalysisError, match="named like one"):
        with_scored([load_run(folders["game"])], [f"{twin.parent / 'mine.py'}:weighted"])


def test_a_dask_cluster_scores_a_file_evaluator_as_this_machine_does(runs):
    twin, folders = runs
    [run] = with_scored([load_run(folders["declare"])], [f"{twin}:twin"])
    grid = grids(run)["twin"]
    reading = Reading("dask", jobs=1, batch_rows=2000)
    try:
        [there] = count_run(run, ["twin"], [evaluator_count("twin", grid)], reading=reading)
    finally:
        reading.close()
    [here] = count_run(run, ["twin"], [evaluator_count("twin", grid)], reading=Reading(batch_rows=2000))
    assert here.height > 0 and here.equals(there)


def test_analyze_scores_an_evaluator_from_a_file_on_the_command_line(runs, tmp_path):
    twin, folders = runs
    result = CliRunner().invoke(main, ["analyze", str(folders["game"]), "--evaluator", "weighted",
                                       "--evaluator", f"{twin}:twin", "--out", str(tmp_path / "report")])
    assert result.exit_code == 0, result.output
    measured = pl.read_csv(tmp_path / "report" / "tables" / "evaluators.csv")
    assert set(measured["evaluator"]) == {"weighted", "twin"}
    both = measured.sort("evaluator", "group").partition_by("evaluator", as_dict=True)
    assert both[("twin",)].drop("evaluator", "rank").equals(both[("weighted",)].drop("evaluator", "rank"))
