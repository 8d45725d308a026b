"""A run read in one pass of batches (analysis.reading): the same cubes and tables as one polars
group-by over the whole run, however the parts are cut, and on a Dask cluster."""

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from analysis import load_run
from analysis.binning import evaluator_count, evaluator_cube, grids, in_order
from analysis.contracts import CONTRACT_COUNT, contract_cube
from analysis.games import games
from analysis.reading import Reading, _windows, batches, count_run
from analysis.tables import run_tables
from sim.runs.folder import MANIFEST, part_facts, part_name
from sim.runs.simulation import simulate


@pytest.fixture(scope="module")
def declared(tmp_path_factory):
    """A declare-mode run of every variant: 3 parts of 100 deals, 4,200 rows each."""
    folder = tmp_path_factory.mktemp("runs") / "declare"
    return load_run(simulate(300, seed=5, profile="threshold", mode="declare", variants="all", out=folder,
                             jobs=1, chunk_size=100))


@pytest.fixture(scope="module")
def in_row_groups(declared, tmp_path_factory):
    """The same run with its parts written in row groups of 1,000 rows."""
    folder = tmp_path_factory.mktemp("runs") / "row-groups"
    shutil.copytree(declared.folder, folder)
    manifest = json.loads((folder / MANIFEST).read_text())
    for index in manifest["parts"]:
        part = folder / part_name(int(index))
        pq.write_table(pq.read_table(part), part, row_group_size=1000)
        manifest["parts"][index] = part_facts(part)
    (folder / MANIFEST).write_text(json.dumps(manifest))
    return load_run(folder)


def test_batches_hold_every_row_once_in_order(declared):
    whole = batches(declared, 10_000)
    assert [len(b.parts) for b in whole] == [2, 1] and [b.rows for b in whole] == [8400, 4200]
    cut = batches(declared, 3000)  # a part larger than a batch: its row groups, here one
    assert [(b.window, b.ends) for b in cut] == [((0, 4200), 1)] * 3


def test_a_large_part_is_read_in_windows_of_whole_row_groups():
    cut = _windows(Path("part"), [1000, 1000, 1000, 500], 2000)
    assert [(b.window, b.ends) for b in cut] == [((0, 2000), 0), ((2000, 1500), 1)]
    assert [b.window for b in _windows(Path("part"), [3000, 10], 2000)] == [(0, 3000), (3000, 10)]


def test_windows_of_row_groups_count_every_row_once(declared, in_row_groups):
    assert [b.window for b in batches(in_row_groups, 2500)[:3]] == [(0, 2000), (2000, 2200), (0, 2000)]
    for whole, cut in zip(_cubes(declared, Reading()), _cubes(in_row_groups, Reading(batch_rows=2500))):
        assert _sorted(whole).equals(_sorted(cut))


def _sorted(frame: pl.DataFrame) -> pl.DataFrame:
    keys = [name for name in frame.columns if name not in ("n", "score_sum")]
    return frame.sort(keys, nulls_last=True)


@pytest.mark.parametrize("batch_rows", [3000, 5_000_000])
def test_the_contract_cube_counted_in_batches_is_the_polars_group_by(declared, batch_rows):
    counted = count_run(declared, [], [CONTRACT_COUNT], reading=Reading(batch_rows=batch_rows))[0]
    expected = contract_cube(games(declared, [])).collect()
    assert counted.schema == expected.schema
    assert _sorted(counted).equals(_sorted(expected))


def test_an_evaluator_cube_counted_in_batches_is_the_polars_group_by(declared):
    grid = grids(declared)["weighted"]
    counted = in_order(count_run(declared, ["weighted"], [evaluator_count("weighted", grid)],
                                 reading=Reading(batch_rows=2500))[0])
    expected = evaluator_cube(games(declared, ["weighted"]), "weighted", grid).collect()
    counted = _sorted(counted.select(expected.columns))
    expected = _sorted(expected)
    assert counted.drop("score_sum").equals(expected.drop("score_sum"))
    assert (counted["score_sum"] - expected["score_sum"]).abs().max() < 1e-9


def _cubes(run, reading) -> list[pl.DataFrame]:
    """The contract cube and every evaluator's cube of ``run``, in one pass."""
    found = grids(run)
    return count_run(run, list(found), [CONTRACT_COUNT, *(evaluator_count(e, g) for e, g in found.items())],
                     reading=reading)


def test_the_cubes_do_not_depend_on_how_the_parts_are_cut(declared):
    one, cut = _cubes(declared, Reading()), _cubes(declared, Reading(batch_rows=1000))
    assert len(one) == len(cut) == 1 + len(grids(declared))
    for whole, batched in zip(one, cut):
        assert _sorted(whole).equals(_sorted(batched))


def test_progress_counts_parts_and_rows(declared):
    told = []
    reading = Reading(batch_rows=5000, progress=lambda *figures: told.append(figures))
    reading.expect([declared])
    count_run(declared, [], [CONTRACT_COUNT], reading=reading)
    assert [t[:4] for t in told] == [(1, 3, 4200, 12600), (2, 3, 8400, 12600), (3, 3, 12600, 12600)]
    assert all(t[4] > 0 for t in told)


def test_a_local_dask_cluster_gives_the_same_cubes_bit_for_bit(declared):
    reading = Reading("dask", jobs=1, batch_rows=5000)
    try:
        on_cluster = _cubes(declared, reading)
    finally:
        reading.close()
    for here, there in zip(_cubes(declared, Reading(batch_rows=5000)), on_cluster):
        assert here.equals(there)


@pytest.mark.slow
def test_a_local_dask_cluster_gives_the_same_tables(declared):
    reading = Reading("dask", jobs=2, batch_rows=3000)
    try:
        on_cluster = run_tables(declared, reading=reading)
    finally:
        reading.close()
    here = run_tables(declared)
    assert on_cluster.keys() == here.keys()
    for name in here:
        assert on_cluster[name].equals(here[name]), name


def test_the_example_of_the_page_on_analysis_at_scale_runs_as_written(declared, capsys):
    page = (Path(__file__).resolve().parents[2] / "docs" / "analysis-at-scale.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", page, re.S).group(1)
    exec(compile(code.replace("results/threshold-10m", str(declared.folder)), "analysis-at-scale.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "wins" in printed and "shape: (6, 3)" in printed
