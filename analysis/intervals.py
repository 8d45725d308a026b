"""95% intervals for rates and means, computed from counts.

- Proportions: the Wilson score interval (closed form, good for small counts and
  rates near 0 or 1).
- Means: a normal interval, mean +- 1.96 standard errors, when a group has at
  least ``NORMAL_FROM`` rows; below that the percentile bootstrap; below
  ``MIN_GAMES`` no interval at all (``too few``): no interval of a mean holds 95%
  for so few scores as lopsided as Skat's (a percentile bootstrap of the mean
  Seeger-Fabian score of 10 null games covers the true mean 79% of the time, of
  30 games 92%, of 100 games 96%).
- The bootstrap works on value counts, never on rows. It is the Poisson
  bootstrap: each row is drawn a Poisson(1) number of times, so a cell of ``c``
  rows with the same values (a distinct value, or a cell of an aggregated table)
  is drawn Poisson(``c``) times, and a replicate of ten million rows costs one
  draw per cell. Statistics are recomputed on every replicate at once (numpy
  arrays of replicates x cells) and the 2.5% and 97.5% percentiles form the
  interval. Every bootstrap uses a fixed seed, so a report is reproducible.
- Rows that are not independent (the rows of one deal in a declare-mode run) are
  resampled by whole deals: :func:`resample_counts` takes a (deal groups x cells)
  matrix for them, see :mod:`analysis.deal_groups`.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import polars as pl

from sim.statistics import Z95, wilson

NORMAL_FROM = 500
#: The fewest games (independent units: deals in declare mode) a mean is given an interval for.
MIN_GAMES = 30
TOO_FEW = "too few"
BOOTSTRAP_REPLICATES = 2000
BOOTSTRAP_SEED = 20240601


def add_rate(df: pl.DataFrame, count: str, n: str, name: str) -> pl.DataFrame:
    """``df`` with ``name`` = count / n and its Wilson interval ``name_lo``, ``name_hi``."""
    lo, hi = wilson(df[count].to_numpy(), df[n].to_numpy())
    rate = pl.when(pl.col(n) > 0).then(pl.col(count) / pl.col(n))
    return df.with_columns(rate.alias(name), pl.Series(f"{name}_lo", lo), pl.Series(f"{name}_hi", hi))


def normal_mean(total, total_sq, n, *, z: float = Z95):
    """(mean, low, high) of the normal interval from a group's sum, sum of squares and size."""
    total, total_sq, n = (np.asarray(a, dtype=float) for a in (total, total_sq, n))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / n
        variance = np.maximum(total_sq - total * mean, 0.0) / (n - 1)
        half = z * np.sqrt(variance / n)
    return mean, mean - half, mean + half


def resample_counts(counts, replicates: int = BOOTSTRAP_REPLICATES,
                    seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """(replicates, cells) Poisson bootstrap counts.

    ``counts`` of shape (cells,): the cells hold independent rows, and cell ``i`` is drawn
    Poisson(``counts[i]``) times. Of shape (groups, cells): row ``g`` holds the counts of the
    cells in deal group ``g`` (:mod:`analysis.deal_groups`), and every group is drawn a Poisson(1)
    number of times with all its rows, so the rows of one deal are never split.
    """
    counts = np.asarray(counts, dtype=float)
    if counts.ndim == 2:
        return deal_weights(len(counts), replicates, seed) @ counts
    return np.random.default_rng(seed).poisson(counts, size=(replicates, len(counts)))


@functools.lru_cache(maxsize=4)
def deal_weights(groups: int, replicates: int = BOOTSTRAP_REPLICATES, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """(replicates, groups) Poisson(1) draws: how often each deal group is drawn in each replicate
    (the same, read-only array for the same arguments: every table of a run shares the draws)."""
    weights = np.random.default_rng(seed).poisson(1.0, size=(replicates, groups)).astype(float)
    weights.flags.writeable = False
    return weights


def percentile_interval(replicates: np.ndarray, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The 2.5% and 97.5% percentiles of bootstrap replicates (NaN replicates ignored; NaN if all are)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "All-NaN slice": that interval is NaN
        lo, hi = np.nanpercentile(replicates, [2.5, 97.5], axis=axis)
    return lo, hi


def bootstrap_means(values, counts, starts, *, replicates: int = BOOTSTRAP_REPLICATES,
                    seed: int = BOOTSTRAP_SEED) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval (low, high) of the mean of each group of cells; groups start at ``starts``."""
    values = np.asarray(values, dtype=float)
    draws = resample_counts(counts, replicates, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (np.add.reduceat(draws * values, starts, axis=1)
                 / np.add.reduceat(draws, starts, axis=1))
    return percentile_interval(means)


def bootstrap_ratio(numerators, denominators, counts, *, replicates: int = BOOTSTRAP_REPLICATES,
                    seed: int = BOOTSTRAP_SEED) -> tuple[float, float, float]:
    """(ratio, low, high) of sum(numerators) / sum(denominators) over units (deals) seen ``counts``
    times each, with a percentile bootstrap interval that resamples whole units, so that what a
    unit holds several of (games, plays) is never counted as independent."""
    numerators, denominators, counts = (np.asarray(a, dtype=float) for a in (numerators, denominators, counts))
    if counts @ denominators == 0:
        return np.nan, np.nan, np.nan
    draws = resample_counts(counts, replicates, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = (draws @ numerators) / (draws @ denominators)
    lo, hi = percentile_interval(ratios)
    return float(counts @ numerators / (counts @ denominators)), float(lo), float(hi)


def mean_table(cube: pl.DataFrame, keys: list[str], value: str, *, count: str = "n",
               name: str | None = None) -> pl.DataFrame:
    """Mean of ``value`` per group of ``keys`` in an aggregated table, with a 95% interval.

    ``cube`` holds one row per distinct value (or cell) and its ``count``. Columns
    ``name``, ``name_lo``, ``name_hi`` and ``name_interval`` ("normal" from
    :data:`NORMAL_FROM` rows, "bootstrap" from :data:`MIN_GAMES`, else "too few" with no
    interval) are returned per group, sorted by ``keys``.
    """
    name = name or f"mean_{value}"
    v, c = pl.col(value).cast(pl.Float64), pl.col(count).cast(pl.Float64)
    sums = (cube.group_by(keys).agg(rows=c.sum(), total=(v * c).sum(), total_sq=(v * v * c).sum())
            .sort(keys, nulls_last=True))
    mean, lo, hi = normal_mean(sums["total"], sums["total_sq"], sums["rows"])
    rows = sums["rows"].to_numpy()
    small = (rows < NORMAL_FROM) & (rows >= MIN_GAMES)
    if small.any():
        lo[small], hi[small] = _bootstrap_groups(cube, sums.filter(pl.Series(small)).select(keys),
                                                 keys, value=value, count=count)
    kind = np.where(rows >= NORMAL_FROM, "normal", np.where(small, "bootstrap", TOO_FEW))
    return sums.select(keys).with_columns(pl.Series(name, mean), *interval_columns(name, lo, hi, kind=kind))


def interval_columns(name: str, lo, hi, *, kind) -> list[pl.Series]:
    """``name_lo``, ``name_hi`` (null where ``kind`` is "too few" or there is no interval) and
    ``name_interval``."""
    few = np.asarray(kind) == TOO_FEW
    lo, hi = (np.where(few, np.nan, np.asarray(a, dtype=float)) for a in (lo, hi))
    return [pl.Series(f"{name}_lo", lo).fill_nan(None), pl.Series(f"{name}_hi", hi).fill_nan(None),
            pl.Series(f"{name}_interval", np.asarray(kind, dtype=object), dtype=pl.String)]


def _bootstrap_groups(cube, groups, keys, *, value, count):
    """Bootstrap intervals of the mean of ``value`` for each of ``groups`` (in their order), in one draw."""
    values = cube.group_by(*keys, value).agg(pl.col(count).sum())  # equal values pool exactly
    # cells in a fixed order (group, then value): the replicates are drawn cell by cell, and group_by
    # gives its rows in any order
    cells = (groups.with_row_index("group").join(values, on=keys, how="inner", nulls_equal=True)
             .sort("group", value))
    index = cells["group"].to_numpy()
    starts = np.flatnonzero(np.r_[True, index[1:] != index[:-1]])
    return bootstrap_means(cells[value].to_numpy(), cells[count].to_numpy(), starts)
