"""Evaluator scores on a grid: one aggregated "evaluator cube" per run and evaluator.

Each evaluator's scores are cut twice, on nested grids chosen from the score
range (read from the Parquet column statistics, so no pass over the rows):

- coarse bins of a round width (0.25, 0.5, 1, 2, 2.5, 5 ...) giving about
  ``TARGET_BINS`` bins over the range; bin ``k`` holds scores in
  ``[k * width, (k + 1) * width)`` and is named by its lower edge;
- a fine grid ``FINE_PER_BIN`` times finer (scores rounded to it), which keeps
  the order of distinct scores for the rank statistics of :mod:`analysis.evaluator_comparison`.

The cube counts the games per (seat, game, variant, fine cell, bin, value reached, won in
play, won, Seeger-Fabian score, score against the table, won open-handed; and deal group in
declare mode, see :mod:`analysis.deal_groups`) and sums their scores; thresholds and evaluator
comparisons are computed from it, never from rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from .counting import Cube
from .deal_groups import DEAL_GROUP
from .games import evaluator_columns, games
from .reading import count_run
from .runs import Run, column_ranges
from .scoring import scored_ranges

TARGET_BINS = 40
FINE_PER_BIN = 50
CUBE_KEYS = ["seat", "game", "variant", "fine", "bin", "value_reached", "won_in_play", "won", "sf", "sf_table",
             "oh_won"]
#: The ``variant`` key of a cube: 0 a game after picking up the skat, 1 a hand game, 2 an open one.
VARIANTS = ("pick-up", "hand", "ouvert")


@dataclass(frozen=True)
class Grid:
    """The bins of one evaluator: coarse ``width``, fine step ``width / FINE_PER_BIN``."""

    width: float

    @property
    def fine_step(self) -> float:
        return self.width / FINE_PER_BIN

    def edge(self, bins) -> np.ndarray:
        return np.asarray(bins, dtype=float) * self.width


def round_width(span: float, bins: int = TARGET_BINS) -> float:
    """The smallest width of 1, 2, 2.5 or 5 times a power of ten that cuts ``span`` into at most ``bins``."""
    if not span > 0 or not math.isfinite(span):
        return 1.0
    raw = span / bins
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw * (1 - 1e-9))


def score_ranges(run: Run) -> dict[str, tuple[float, float]]:
    """(lowest, highest) score of each evaluator over the run, from the parts' column statistics."""
    found = evaluator_columns(run)
    lows: dict[str, float] = {}
    highs: dict[str, float] = {}
    for part in run.parts:
        ranges = column_ranges(part, found.values())
        for name, column in found.items():
            if column in ranges:
                lows[name] = min(lows.get(name, math.inf), float(ranges[column][0]))
                highs[name] = max(highs.get(name, -math.inf), float(ranges[column][1]))
    return {name: (lows.get(name, math.nan), highs.get(name, math.nan)) for name in found}


def grids(run: Run) -> dict[str, Grid]:
    """The grid of every evaluator of the run: from the range of its logged scores, or of its scores at
    analysis time (one pass over the hands, :mod:`analysis.scoring`)."""
    ranges = {**score_ranges(run), **scored_ranges(run, games(run, list(run.scored)))}
    return {name: Grid(round_width(hi - lo)) for name, (lo, hi) in ranges.items()}


def evaluator_count(evaluator: str, grid: Grid) -> Cube:
    """What the cube of ``evaluator`` counts of a :func:`analysis.games.games` frame holding
    ``eval_<evaluator>``: its games with a score and a value reached (an imported game that ended
    early has none when it was overbid: it cannot be replayed), per :data:`CUBE_KEYS` but the bin (it
    follows from the fine cell), with their scores summed."""
    score = pl.col(f"eval_{evaluator}").cast(pl.Float64)
    return Cube(tuple(key for key in CUBE_KEYS if key != "bin"), sums={"score_sum": score},
                where=(score.is_not_null(), pl.col("value_reached").is_not_null()),
                derived={"fine": (score / grid.fine_step).round().cast(pl.Int64), "variant": variant()})


def variant() -> pl.Expr:
    """Each game's :data:`VARIANTS` index: ouvert (hand or not), else hand, else picked up."""
    return (pl.when(pl.col("ouvert")).then(2).when(pl.col("hand")).then(1).otherwise(0)).cast(pl.Int8)


def in_order(cube: pl.DataFrame | pl.LazyFrame):
    """An evaluator cube with its bin, in the order of :data:`CUBE_KEYS`, then the deal group, ``n`` and
    ``score_sum``."""
    groups = [DEAL_GROUP] if DEAL_GROUP in cube.collect_schema().names() else []
    order = [(pl.col("fine") // FINE_PER_BIN).alias("bin") if key == "bin" else key for key in CUBE_KEYS]
    return cube.select(*order, *groups, "n", "score_sum")


def evaluator_cube(frame: pl.LazyFrame, evaluator: str, grid: Grid) -> pl.LazyFrame:
    """Counts ``n`` and score sums ``score_sum`` per :data:`CUBE_KEYS` of a :func:`analysis.games.games`
    frame holding ``eval_<evaluator>`` (lazy; and per deal group in declare mode)."""
    return in_order(evaluator_count(evaluator, grid).lazy(frame))


def collected_cubes(run: Run, evaluators: list[str] | None = None) -> tuple[dict[str, Grid], dict[str, pl.DataFrame]]:
    """The grid of every evaluator the run logged, and the collected cube of each of ``evaluators``
    it logged (all of them by default), in one scan of the run."""
    found = grids(run)
    names = [e for e in (evaluators or found) if e in found]
    counted = count_run(run, names, [evaluator_count(e, found[e]) for e in names])
    return found, {name: in_order(cube) for name, cube in zip(names, counted)}


def by_evaluator(cubes: dict[str, pl.DataFrame], build, schemas: dict[str, dict]) -> dict[str, pl.DataFrame]:
    """The tables ``build(name, cube)`` of each evaluator's collected cube, stacked under a leading
    ``evaluator`` column; every table named in ``schemas`` is there, without rows if no evaluator is."""
    tables = {key: pl.DataFrame(schema={"evaluator": pl.String, **schema}) for key, schema in schemas.items()}
    for name, cube in cubes.items():
        for key, table in build(name, cube).items():
            tables[key] = pl.concat([tables[key], table.select(pl.lit(name).alias("evaluator"), pl.all())],
                                    how="diagonal_relaxed")
    return tables
