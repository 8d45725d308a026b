"""Every table of a set of runs, each run read in one pass.

For each run, the contract cube, the passed-in counts and one evaluator cube per
evaluator are collected together (``pl.collect_all``), so polars scans the parts
once and shares the work; all further tables are computed from those small
aggregates. Tables of several runs are stacked with a leading ``run`` column.
"""

from __future__ import annotations

import polars as pl

from .binning import by_evaluator, evaluator_cube, grids
from .compare import COMPARISON_SCHEMA, check_comparable, compare_runs
from .contracts import contract_cube, contract_tables, passed_in, passed_in_query
from .games import games
from .heuristics import HEURISTIC_SCHEMAS, OPEN_HAND_SCHEMAS, heuristic_tables, open_hand_tables, rank
from .match import match_result, match_splits
from .mix import deal_cube, game_ends, game_mix
from .runs import AnalysisError, Run
from .thresholds import MIN_ROWS, THRESHOLD_SCHEMAS, shipped_thresholds, threshold_tables


def run_tables(run: Run, evaluators: list[str] | None = None,
               min_rows: int = MIN_ROWS) -> dict[str, pl.DataFrame]:
    """Contract, threshold and heuristic tables of one run (one scan of its parts).

    A match run gives only its match tables: its contract, threshold and evaluator tables
    would pool both sides' play and count the six plays of a deal as independent games.
    """
    if run.mode == "match":
        return _labelled(run, {"match": match_result(run), "match_splits": match_splits(run)})
    found = grids(run)
    names = [e for e in (evaluators or found) if e in found]
    frame = games(run, names)
    queries = [contract_cube(frame), *(evaluator_cube(frame, e, found[e]) for e in names)]
    auction = run.mode != "declare"  # game runs bid; declare mode has no auction
    if auction:
        queries += [passed_in_query(run), deal_cube(run)]
    results = pl.collect_all(queries)
    tables = contract_tables(results[0], run.mode)
    if auction:
        tables["passed_in"] = passed_in(results[-2])
        tables["game_mix"], tables["game_ends"] = game_mix(results[-1]), game_ends(results[-1])

    def evaluator_tables(name: str, cube: pl.DataFrame) -> dict[str, pl.DataFrame]:
        return {**threshold_tables(cube, found[name], min_rows, shipped_thresholds(run, name)),
                **heuristic_tables(cube, found[name]),
                **(open_hand_tables(cube, found[name]) if run.open_hand else {})}

    cubes = dict(zip(names, results[1:1 + len(names)]))
    schemas = {**THRESHOLD_SCHEMAS, **HEURISTIC_SCHEMAS, **(OPEN_HAND_SCHEMAS if run.open_hand else {})}
    tables.update(by_evaluator(cubes, evaluator_tables, schemas))
    for key in ("heuristics", "heuristics_open_hand"):
        if key in tables:
            tables[key] = rank(tables[key])
    return _labelled(run, tables)


def _labelled(run: Run, tables: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Each table with the run's label as its first column."""
    return {key: table.select(pl.lit(run.label).alias("run"), pl.all()) for key, table in tables.items()}


def _stack(old: pl.DataFrame | None, new: pl.DataFrame) -> pl.DataFrame:
    return new if old is None else pl.concat([old, new], how="diagonal_relaxed")


def comparisons(runs: list[Run]) -> tuple[pl.DataFrame, list[str]]:
    """Paired comparison of the first run with each later one (no rows if none is comparable), and a
    note on each pair not comparable."""
    tables, notes = [pl.DataFrame(schema=COMPARISON_SCHEMA)], []
    for other in runs[1:]:
        try:
            check_comparable(runs[0], other)
            tables.append(compare_runs(runs[0], other))
        except AnalysisError as error:
            notes.append(str(error))
    return pl.concat(tables, how="vertical_relaxed"), notes


def all_tables(runs: list[Run], evaluators: list[str] | None = None,
               min_rows: int = MIN_ROWS) -> tuple[dict[str, pl.DataFrame], list[str]]:
    """Every table of ``runs`` stacked by name, plus notes on comparisons that were not made.

    Each table is there with its columns even when no run has rows for it; ``comparison`` is there
    when there are two runs or more.
    """
    stacked: dict[str, pl.DataFrame] = {}
    for run in runs:
        for key, table in run_tables(run, evaluators, min_rows).items():
            stacked[key] = _stack(stacked.get(key), table)
    compared, notes = comparisons(runs)
    if len(runs) > 1:
        stacked["comparison"] = compared
    return stacked, notes
