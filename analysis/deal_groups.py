"""Intervals that resample whole deals: the rows of one declare-mode deal are not independent.

A declare-mode run gives 18 rows a deal (42 with every variant): every seat declares every
game on the same cards, so the rows of a deal are correlated (positively for one seat's
hand and pick-up variants of a game, negatively between seats: when one seat's hand is
strong the others' are weak). Intervals computed as if the rows were independent are too
narrow where the correlation is positive and too wide where it is negative. Here the deals
are the units instead:

- every row carries its **deal group**, ``deal_id mod DEAL_GROUPS`` (column ``deal_group``
  of the cubes of a declare-mode run). A run of at most ``DEAL_GROUPS`` deals has one deal
  per group; in a larger run a group is a fixed sample of deals, independent of the other
  groups as deals are of one another, so resampling groups has the variance of resampling
  deals while the cubes stay small (at most ``DEAL_GROUPS`` times the cells);
- a count per cell becomes a (groups x cells) matrix, and a bootstrap replicate draws each
  group a Poisson(1) number of times with all its rows (:func:`analysis.intervals.resample_counts`),
  the same draws for every table of a run (fixed seed);
- **rates** get the Wilson interval at the effective number of games ``n / deff``, where the
  design effect ``deff`` is the variance of the rate over the deal bootstrap divided by the
  variance ``p (1 - p) / n`` of independent rows (the survey-sampling way of keeping the
  Wilson interval's good behaviour for small counts and rates near 0 or 1; where the rate is
  0 or 1, or every group has the same rate, the bootstrap cannot see the correlation and
  ``deff`` is 1; a cell of one deal group counts as one game);
- **means** get the percentile interval of the deal bootstrap, and none (``too few``) for a
  cell with rows in fewer than :data:`analysis.intervals.MIN_GAMES` deal groups;
- a mean computed for many cells at once (the bid-up-to table) gets the normal interval
  with the cluster-robust variance over the groups, ``G / (G - 1) * sum_g (y_g - m n_g)^2 /
  N^2`` (``y_g`` the sum and ``n_g`` the rows of group ``g``, ``N`` all rows), the
  closed form of the same resampling.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl

from .counting import Cube
from .intervals import (
    BOOTSTRAP_REPLICATES,
    BOOTSTRAP_SEED,
    MIN_GAMES,
    TOO_FEW,
    Z95,
    deal_weights,
    interval_columns,
    percentile_interval,
    wilson,
)
from .packing import DEAL_GROUP, DEAL_GROUPS

DEAL_BOOTSTRAP = "deal bootstrap"


def deal_group() -> pl.Expr:
    """Each row's deal group, from its ``deal_id``."""
    return (pl.col("deal_id") % DEAL_GROUPS).cast(pl.Int32).alias(DEAL_GROUP)


def by_deals(frame) -> bool:
    """Whether the intervals of a cube resample deals (it carries the ``deal_group`` column)."""
    return DEAL_GROUP in frame.columns


def group_matrices(cube: pl.DataFrame, keys: list[str], values: dict[str, pl.Expr]) -> tuple[pl.DataFrame, dict]:
    """The cells of ``keys`` (sorted, nulls last) and, per value (an expression over rows), its sum in each
    (deal group, cell): a (DEAL_GROUPS, cells) matrix. Counted outside polars (:mod:`analysis.counting`,
    which counts by whole numbers: a key of other values, a score or a text, by its rank among them): a
    polars group-by by the keys and the deal group, and its sort, take several times as long."""
    known = {key: cube[key].drop_nulls().unique().sort() for key in keys
             if not (cube.schema[key].is_integer() or cube.schema[key] == pl.Boolean)}
    ranked = cube.with_columns(pl.col(key).rank("dense").cast(pl.Int64) - 1 for key in known)
    counting = Cube(tuple(keys), sums=values)
    tally = counting.tally(ranked)
    cells = counting.cells(tally, ranked.lazy()).with_row_index("__cell").sort(keys, nulls_last=True)
    sums = tally.cell_sums()[cells["__cell"].to_numpy()]
    cells = cells.drop("__cell").with_columns(found.gather(cells[key]).alias(key) for key, found in known.items())
    return cells, {name: np.ascontiguousarray(sums[:, :, k].T) for k, name in enumerate(values)}


def replicate_ratios(numerator: np.ndarray, denominator: np.ndarray, *,
                     replicates: int = BOOTSTRAP_REPLICATES, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """(replicates, cells) ratios of the sums of two (groups, cells) matrices under the deal bootstrap."""
    weights = deal_weights(len(numerator), replicates, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (weights @ numerator) / (weights @ denominator)


def deal_rate(won: np.ndarray, games: np.ndarray, *, replicates: int = BOOTSTRAP_REPLICATES,
              seed: int = BOOTSTRAP_SEED) -> tuple[np.ndarray, np.ndarray]:
    """Wilson interval (low, high) of each cell's rate at its effective number of games (module doc)."""
    k, n = won.sum(0), games.sum(0)
    groups = (games > 0).sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        spread = _variance(replicate_ratios(won, games, replicates=replicates, seed=seed)) if n.size else n
        deff = spread / (p * (1 - p) / n)
    usable = (groups > 1) & (p > 0) & (p < 1) & np.isfinite(deff) & (deff > 0)
    effective = np.where(usable, n / np.where(usable, deff, 1.0), np.where(groups > 1, n, np.minimum(n, 1.0)))
    return wilson(np.where(n > 0, p, 0.0) * effective, effective)


def _variance(replicates: np.ndarray) -> np.ndarray:
    """The variance of each column of bootstrap replicates, NaN replicates ignored (NaN if too few)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a cell without two replicates has none
        return np.nanvar(replicates, axis=0, ddof=1)


def deal_mean(total: np.ndarray, games: np.ndarray, *, replicates: int = BOOTSTRAP_REPLICATES,
              seed: int = BOOTSTRAP_SEED) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(mean, low, high, kind) of each cell: the percentile interval of the deal bootstrap, or "too few"."""
    n = games.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total.sum(0) / n
    if n.size:
        lo, hi = percentile_interval(replicate_ratios(total, games, replicates=replicates, seed=seed))
    else:
        lo = hi = n
    few = (games > 0).sum(0) < MIN_GAMES
    return mean, lo, hi, np.where(few, TOO_FEW, DEAL_BOOTSTRAP)


def add_deal_rates(table: pl.DataFrame, cube: pl.DataFrame, keys: list[str], *,
                   rates: dict[str, tuple[pl.Expr, pl.Expr]]) -> pl.DataFrame:
    """``table`` (one row per cell of ``keys``) with ``name_lo``, ``name_hi`` of each rate ``name``:
    (its count, its total) as expressions over ``cube``'s rows, resampled by deals."""
    values = {f"{name}_{part}": expression for name, pair in rates.items()
              for part, expression in zip(("count", "total"), pair)}
    cells, matrices = group_matrices(cube, keys, values)
    columns = []
    for name in rates:
        lo, hi = deal_rate(matrices[f"{name}_count"], matrices[f"{name}_total"])
        columns += [pl.Series(f"{name}_lo", lo), pl.Series(f"{name}_hi", hi)]
    bounds = cells.select(keys).with_columns(columns)
    replaced = [c for c in bounds.columns if c not in keys]
    order = table.columns + [c for c in replaced if c not in table.columns]
    return (table.drop([c for c in replaced if c in table.columns])
            .join(bounds, on=keys, how="left", nulls_equal=True).select(order))


def deal_mean_table(cube: pl.DataFrame, keys: list[str], value: pl.Expr, *, count: pl.Expr, name: str) -> pl.DataFrame:
    """Per cell of ``keys`` (sorted): the mean of ``value`` (summed as ``value * count`` over the
    cube) with its deal-bootstrap interval, as :func:`analysis.intervals.mean_table` gives it."""
    cells, matrices = group_matrices(cube, keys, {"total": value * count, "games": count})
    mean, lo, hi, kind = deal_mean(matrices["total"], matrices["games"])
    return cells.select(keys).with_columns(pl.Series(name, mean), *interval_columns(name, lo, hi, kind=kind))


def sandwich_mean(total: np.ndarray, games: np.ndarray, z: float = Z95):
    """(mean, low, high) along the last axis of (..., groups) sums and rows: the normal interval with the
    cluster-robust variance over the deal groups (module doc); no interval below MIN_GAMES groups."""
    n = games.sum(-1)
    present = (games > 0).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total.sum(-1) / n
        spread = ((total - mean[..., None] * games) ** 2).sum(-1) * present / (present - 1) / n ** 2
        half = np.where(present >= MIN_GAMES, z * np.sqrt(spread), np.nan)
    return mean, mean - half, mean + half
