"""Every registered table of a set of runs, each run read in one pass.

The tables are those of :mod:`analysis.registry` (the built-in ones are registered in
:mod:`analysis.catalogue`). For each run, the queries of every source its tables need (the
contract cube, the passed-in counts, one evaluator cube per evaluator ...) are collected
together (``pl.collect_all``), so polars scans the parts once and shares the work; every table
is then computed from those small aggregates. Tables of several runs are stacked with a
leading ``run`` column.
"""

from __future__ import annotations

import functools

import polars as pl

from . import (
    catalogue,  # noqa: F401  (importing it registers the built-in tables)
    registry,
)
from .binning import by_evaluator, evaluator_cube, grids
from .games import games
from .registry import EVALUATOR_CUBES, RUN, RUNS, Evaluator, Table
from .runs import Run
from .sharing import SecondProcess, share
from .thresholds import MIN_ROWS, shipped_thresholds


def run_tables(run: Run, evaluators: list[str] | None = None, *, min_rows: int = MIN_ROWS,
               second: SecondProcess | None = None) -> dict[str, pl.DataFrame]:
    """Every registered table that applies to ``run``, by name (one scan of its parts).

    A match run gives only its match tables: its contract, threshold and evaluator tables
    would pool both sides' play and count the six plays of a deal as independent games.
    A second process (:mod:`analysis.sharing`) makes some of the evaluator tables.
    """
    chosen = [table for table in registry.tables() if table.source is not RUNS and table.applies_to(run)]
    collected, cubes = _collected(run, chosen, evaluators=evaluators, min_rows=min_rows)
    by_evaluators = _evaluator_tables([t for t in chosen if t.source is EVALUATOR_CUBES], cubes, second)
    tables = {}
    for table in chosen:
        made = by_evaluators[table.name] if table.source is EVALUATOR_CUBES else _made(table, run, collected)
        tables[table.name] = table.finish(made) if table.finish else made
    return _labelled(run, tables)


def _collected(run: Run, chosen: list[Table], *, evaluators: list[str] | None, min_rows: int):
    """The collected aggregate of each source of the ``chosen`` tables, and each evaluator's collected cube
    with what its tables know of it."""
    sources = list(dict.fromkeys(t.source for t in chosen if t.source.query is not None))
    by_evaluators = any(t.source is EVALUATOR_CUBES for t in chosen)
    if not sources and not by_evaluators:
        return {}, {}
    found = grids(run)
    names = [e for e in (evaluators or found) if e in found] if by_evaluators else []
    frame = games(run, names)
    results = pl.collect_all([*(s.query(run, frame) for s in sources),
                              *(evaluator_cube(frame, e, found[e]) for e in names)])
    cubes = {name: (cube, Evaluator(name, found[name], min_rows=min_rows,
                                         shipped=shipped_thresholds(run, name)))
             for name, cube in zip(names, results[len(sources):])}
    return dict(zip(sources, results)), cubes


def _made(table: Table, run: Run, collected: dict) -> pl.DataFrame:
    return table.make(run) if table.source is RUN else table.make(collected[table.source])


def _evaluator_tables(tables: list[Table], cubes: dict, second: SecondProcess | None) -> dict[str, pl.DataFrame]:
    """Each evaluator table of every evaluator's cube, stacked under a leading ``evaluator`` column."""
    jobs = [functools.partial(evaluator_table, table.name, name) for table in tables for name in cubes]
    made = iter(share(jobs, (cubes,), second))
    results = {(table.name, name): next(made) for table in tables for name in cubes}
    return by_evaluator({name: cube for name, (cube, _) in cubes.items()},
                        lambda name, cube: {table.name: results[table.name, name] for table in tables},
                        {table.name: table.schema or {} for table in tables})


def evaluator_table(table: str, evaluator: str, cubes: dict) -> pl.DataFrame:
    """The registered evaluator table ``table`` of one evaluator's cube."""
    cube, facts = cubes[evaluator]
    return registry.TABLES[table].make(cube, facts)


def _labelled(run: Run, tables: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Each table with the run's label as its first column."""
    return {key: table.select(pl.lit(run.label).alias("run"), pl.all()) for key, table in tables.items()}


def _stack(old: pl.DataFrame | None, new: pl.DataFrame) -> pl.DataFrame:
    return new if old is None else pl.concat([old, new], how="diagonal_relaxed")


def all_tables(runs: list[Run], evaluators: list[str] | None = None, *, min_rows: int = MIN_ROWS,
               second: SecondProcess | None = None) -> tuple[dict[str, pl.DataFrame], list[str]]:
    """Every table of ``runs`` stacked by name, in the order of registration, plus notes on the runs a
    table of several runs could not use (comparisons that were not made).

    Each table is there with its columns even when no run has rows for it; a table of several runs
    (``comparison``) is there when there are two runs or more.
    """
    stacked: dict[str, pl.DataFrame] = {}
    for run in runs:
        for key, table in run_tables(run, evaluators, min_rows=min_rows, second=second).items():
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
