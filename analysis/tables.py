"""Every registered table of a set of runs, each run read in one pass.

The tables are those of :mod:`analysis.registry` (the built-in ones are registered in
:mod:`analysis.catalogue`). For each run, the aggregates of every source its tables need (the
contract cube, the passed-in counts, one evaluator cube per evaluator ...) are computed in one
pass over its parts, batch by batch (:mod:`analysis.reading`), so the run is read once in
bounded memory; every table is then computed from those small aggregates. Tables of several runs
are stacked with a leading ``run`` column.
"""

from __future__ import annotations

import functools

import polars as pl

from . import (
    catalogue,  # noqa: F401  (importing it registers the built-in tables)
    registry,
)
from .binning import by_evaluator, evaluator_count, grids, in_order
from .deal_groups import DEAL_GROUP
from .games import games
from .pairs import pair_count
from .reading import Reading, read_run
from .registry import EVALUATOR_CUBES, RUN, RUNS, Evaluator, Table
from .runs import Run
from .sharing import SecondProcess, share
from .thresholds import MIN_ROWS, shipped_thresholds


def run_tables(run: Run, evaluators: list[str] | None = None, *, min_rows: int = MIN_ROWS,
               second: SecondProcess | None = None, reading: Reading | None = None) -> dict[str, pl.DataFrame]:
    """Every registered table that applies to ``run``, by name (one pass over its parts, made as
    ``reading`` says: :mod:`analysis.reading`).

    A match run gives only its match tables: its contract, threshold and evaluator tables
    would pool both sides' play and count the six plays of a deal as independent games.
    A second process (:mod:`analysis.sharing`) makes some of the evaluator tables.
    """
    chosen = _chosen(run)
    collected, cubes = _collected(run, chosen, evaluators=evaluators, min_rows=min_rows, reading=reading)
    by_evaluators = _evaluator_tables([t for t in chosen if t.source is EVALUATOR_CUBES], cubes, second)
    tables = {}
    for table in chosen:
        made = by_evaluators[table.name] if table.source is EVALUATOR_CUBES else _made(table, run, collected)
        tables[table.name] = table.finish(made) if table.finish else made
    return _labelled(run, tables)


def _chosen(run: Run) -> list[Table]:
    return [table for table in registry.tables() if table.source is not RUNS and table.applies_to(run)]


def _reads_parts(chosen: list[Table]) -> bool:
    """Whether the tables ``chosen`` need a pass over the run's parts."""
    return any(t.source is EVALUATOR_CUBES or t.source.counted for t in chosen)


def _collected(run: Run, chosen: list[Table], *, evaluators: list[str] | None, min_rows: int,
               reading: Reading | None):
    """The collected aggregate of each source of the ``chosen`` tables, and each evaluator's collected cube
    with what its tables know of it."""
    sources = list(dict.fromkeys(t.source for t in chosen if t.source.query is not None or t.source.cube))
    by_evaluators = any(t.source is EVALUATOR_CUBES for t in chosen)
    if not sources and not by_evaluators:
        return {}, {}
    found = grids(run)
    names = [e for e in (evaluators or found) if e in found] if by_evaluators else []
    cubed = [source for source in sources if source.cube is not None]
    summed = [source for source in sources if source.cube is None and source.counted]
    frame = games(run, names)
    pairs = [pair_count(e, found[e]) for e in names] if DEAL_GROUP not in frame.collect_schema().names() else []
    counts, queried = read_run(run, names, [*(s.cube for s in cubed), *(evaluator_count(e, found[e]) for e in names),
                                            *pairs], [(s.query, s.sums) for s in summed], reading=reading)
    whole = [source for source in sources if not source.counted]  # collected over the whole run at once
    results = {**dict(zip(cubed, counts)), **dict(zip(summed, queried)),
               **dict(zip(whole, pl.collect_all([s.query(run, frame) for s in whole]) if whole else []))}
    paired = counts[len(cubed) + len(names):] or [None] * len(names)
    cubes = {name: (in_order(cube), Evaluator(name, found[name], min_rows=min_rows, paired=pairs_of,
                                                shipped=shipped_thresholds(run, name)))
             for name, cube, pairs_of in zip(names, counts[len(cubed):len(cubed) + len(names)], paired)}
    return results, cubes


def _made(table: Table, run: Run, collected: dict) -> pl.DataFrame:
    return table.make(run) if table.source is RUN else table.make(collected[table.source])


def _evaluator_tables(tables: list[Table], cubes: dict, second: SecondProcess | None) -> dict[str, pl.DataFrame]:
    """Each evaluator table of every evaluator's cube, stacked under a leading ``evaluator`` column.

    The two processes share the tables of one evaluator at a time, so the second one holds a
    single evaluator's cube (the cubes of a large declare-mode run are hundreds of megabytes)."""
    results = {}
    for name, (cube, facts) in cubes.items():
        made = share([functools.partial(evaluator_table, table.name) for table in tables], (cube, facts), second)
        results.update({(table.name, name): table_made for table, table_made in zip(tables, made)})
    return by_evaluator({name: cube for name, (cube, _) in cubes.items()},
                        lambda name, cube: {table.name: results[table.name, name] for table in tables},
                        {table.name: table.schema or {} for table in tables})


def evaluator_table(table: str, cube: pl.DataFrame, evaluator: Evaluator) -> pl.DataFrame:
    """The registered evaluator table ``table`` of one evaluator's collected cube."""
    return registry.TABLES[table].make(cube, evaluator)


def _labelled(run: Run, tables: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Each table with the run's label as its first column."""
    return {key: table.select(pl.lit(run.label).alias("run"), pl.all()) for key, table in tables.items()}


def _stack(old: pl.DataFrame | None, new: pl.DataFrame) -> pl.DataFrame:
    return new if old is None else pl.concat([old, new], how="diagonal_relaxed")


def all_tables(runs: list[Run], evaluators: list[str] | None = None, *, min_rows: int = MIN_ROWS,
               second: SecondProcess | None = None,
               reading: Reading | None = None) -> tuple[dict[str, pl.DataFrame], list[str]]:
    """Every table of ``runs`` stacked by name, in the order of registration, plus notes on the runs a
    table of several runs could not use (comparisons that were not made).

    Each table is there with its columns even when no run has rows for it; a table of several runs
    (``comparison``) is there when there are two runs or more. ``reading`` says where the parts are
    counted and whom to tell of the progress (:mod:`analysis.reading`).
    """
    stacked: dict[str, pl.DataFrame] = {}
    if reading is not None:
        reading.expect([run for run in runs if _reads_parts(_chosen(run))])
    for run in runs:
        for key, table in run_tables(run, evaluators, min_rows=min_rows, second=second, reading=reading).items():
            stacked[key] = _stack(stacked.get(key), table)
    notes: list[str] = []
    for table in registry.tables():
        if table.source is RUNS:
            made, said = table.make(runs)
            notes += said
            if len(runs) > 1:
                stacked[table.name] = table.finish(made) if table.finish else made
    order = list(registry.TABLES)
    return {name: stacked[name] for name in order if name in stacked}, notes
