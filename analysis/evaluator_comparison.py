"""Evaluator comparison: how well each evaluator's score predicts that the declarer wins.

Within one game group (each game type, and the four suit games together, whose
scores share one scale) every evaluator that assesses the group scores the same
games, so the measures compare evaluators on the same hands:

- **ROC AUC**: the chance that a won game scored higher than a lost one (ties count
  one half): the Mann-Whitney rank formula, computed from the count of won and
  lost games at each distinct score. 0.5 is no better than chance.
- **Brier score** and **log loss** of a calibrated probability: a logistic fit
  P(won) = 1 / (1 + exp(-(a + b * score))) by Newton's method on the aggregated
  counts (:func:`sim.statistics.fitted_probabilities`). Two parameters hardly overfit
  millions of games; ``brier_reference`` is the Brier score of always predicting the
  overall win rate.
- **calibration**: per score bin, the mean fitted probability against the observed
  win rate (Wilson interval).

Intervals are percentile bootstraps: the won and lost counts of every score are
redrawn by the Poisson bootstrap (:func:`analysis.intervals.resample_counts`), and the whole
measure, logistic fit included, is recomputed for every replicate at once. In a
declare-mode run whole deals are redrawn instead (:mod:`analysis.deal_groups`): a deal's
rows (every seat, every game) share its cards.

In a game-mode run these measures see only the games the auction let through, chosen by
bidders whose models read the same evaluators: the scores are range-restricted (hands
below the bidders' thresholds are missing), which lowers AUC and flatters calibration
in ways that differ between evaluators. Compare evaluators on declare-mode runs, where
every seat declares every game.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.rules.games import GAME_NAMES, GRAND
from sim.statistics import brier, fitted_probabilities, log_loss

from .binning import FINE_PER_BIN, Grid, by_evaluator, collected_cubes
from .deal_groups import DEAL_GROUP, add_deal_rates, by_deals, group_matrices
from .intervals import BOOTSTRAP_SEED, add_rate, percentile_interval, resample_counts
from .runs import Run

SUIT_GAMES = "suit games"
MEASURE_REPLICATES = 1000


def auc(won: np.ndarray, lost: np.ndarray) -> np.ndarray:
    """ROC AUC from won and lost counts per distinct score, scores ascending along the last axis."""
    won, lost = np.asarray(won, float), np.asarray(lost, float)
    lost_below = np.cumsum(lost, axis=-1) - lost
    pairs = won.sum(-1) * lost.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (won * (lost_below + 0.5 * lost)).sum(-1) / pairs


def measures(score, won, lost) -> dict[str, np.ndarray]:
    """AUC, Brier score and log loss for won/lost counts (replicates along axis 0) at ascending scores.

    Where the score separates won from lost games completely (AUC 0 or 1, or games of one kind only)
    the fit's limit predicts every game exactly: Brier score and log loss are 0, not the 1e-20 that
    Newton steps reach on the way."""
    p = fitted_probabilities(score, won, lost)
    with np.errstate(invalid="ignore", divide="ignore"):  # a replicate without games gives NaN
        area = auc(won, lost)
        games = won.sum(-1) + lost.sum(-1)
        separated = (games > 0) & ((won.sum(-1) == 0) | (lost.sum(-1) == 0) | (area == 0) | (area == 1))
        return {"auc": area, "brier": np.where(separated, 0.0, brier(p, won, lost)),
                "log_loss": np.where(separated, 0.0, log_loss(p, won, lost))}


def score_counts(cube: pl.DataFrame, grid: Grid, target: str = "won") -> pl.DataFrame:
    """Won and lost games per game group and distinct (fine) score; ``target`` says which column
    is "won": the game as played (``won``) or with best play open-handed (``oh_won``)."""
    n = pl.col("n")
    groups = [DEAL_GROUP] if by_deals(cube) else []
    games = (cube.lazy().filter(pl.col(target).is_not_null()).group_by("game", "fine", *groups)
             .agg(won=(n * pl.col(target)).sum(), lost=(n * ~pl.col(target)).sum()))
    suits = games.filter(pl.col("game") < GRAND).group_by("fine", *groups).agg(pl.col("won", "lost").sum())
    group = pl.col("game").replace_strict(list(range(6)), list(GAME_NAMES), return_dtype=pl.String)
    both = pl.concat([games.select(group.alias("group"), "fine", *groups, "won", "lost"),
                      suits.select(pl.lit(SUIT_GAMES).alias("group"), "fine", *groups, "won", "lost")])
    return (both.with_columns(score=pl.col("fine") * grid.fine_step, bin=pl.col("fine") // FINE_PER_BIN)
            .sort("group", "fine", *groups).collect())


def replicated(counts: pl.DataFrame, *, replicates: int = MEASURE_REPLICATES,
               seed: int = BOOTSTRAP_SEED) -> tuple[dict, dict, int]:
    """The measures of one group's score counts (arrays of one), their bootstrap replicates (over deals
    when the counts carry deal groups: the same draws for every evaluator of a run), and the games."""
    if by_deals(counts):
        cells, matrices = group_matrices(counts, ["fine", "score"], {"won": pl.col("won"), "lost": pl.col("lost")})
        score, won, lost = cells["score"].to_numpy().astype(float), matrices["won"].sum(0), matrices["lost"].sum(0)
        draws = resample_counts(np.hstack([matrices["won"], matrices["lost"]]), replicates, seed)
    else:
        score, won, lost = (counts[c].to_numpy().astype(float) for c in ("score", "won", "lost"))
        draws = resample_counts(np.r_[won, lost], replicates, seed).astype(float)
    point = measures(score, won[None, :], lost[None, :])
    again = measures(score, draws[:, :len(won)], draws[:, len(won):])
    return point, again, int(won.sum() + lost.sum())


def group_measures(counts: pl.DataFrame, *, replicates: int = MEASURE_REPLICATES,
                   seed: int = BOOTSTRAP_SEED) -> dict:
    """The measures of one group's score counts with their bootstrap intervals (over deals when the
    counts carry deal groups)."""
    point, again, rows = replicated(counts, replicates=replicates, seed=seed)
    wins = int(counts["won"].sum())
    out = {"games": rows, "win_rate": wins / rows, "brier_reference": (wins / rows) * (1 - wins / rows)}
    for name, value in point.items():
        lo, hi = percentile_interval(again[name])
        out.update({name: float(value[0]), f"{name}_lo": float(lo), f"{name}_hi": float(hi)})
    return out


def calibration(counts: pl.DataFrame, grid: Grid) -> pl.DataFrame:
    """Per game group and score bin: mean fitted probability and observed win rate (no rows without games)."""
    cells = counts
    if by_deals(counts):  # the fit reads one row per score
        cells = (counts.group_by("group", "fine", "score", "bin").agg(pl.col("won", "lost").sum())
                 .sort("group", "fine"))
    fitted = [fitted_probabilities(part["score"].to_numpy(), part["won"].to_numpy(), part["lost"].to_numpy())[0]
              for part in cells.partition_by("group", maintain_order=True)]  # counts are sorted by group
    n = pl.col("won") + pl.col("lost")
    table = (cells.with_columns(fitted=pl.Series(np.concatenate([np.zeros(0), *fitted]), dtype=pl.Float64))
             .group_by("group", "bin")
             .agg(games=n.sum(), won=pl.col("won").sum(), predicted=(pl.col("fitted") * n).sum() / n.sum())
             .with_columns(bin_from=pl.col("bin") * grid.width).sort("group", "bin"))
    table = add_rate(table, "won", "games", "win_rate")
    if by_deals(counts):
        table = add_deal_rates(table, counts, ["group", "bin"], rates={"win_rate": (pl.col("won"), n)})
    return table.drop("bin")


#: The columns of :func:`measure_tables` (an evaluator without games gives them without rows).
MEASURE_SCHEMAS = {
    "evaluators": {"group": pl.String, "games": pl.Int64, "win_rate": pl.Float64,
                   "brier_reference": pl.Float64,
                   **{f"{measure}{end}": pl.Float64 for measure in ("auc", "brier", "log_loss")
                      for end in ("", "_lo", "_hi")}},
    "calibration": {"group": pl.String, "games": pl.UInt32, "won": pl.UInt32, "predicted": pl.Float64,
                    "bin_from": pl.Float64, "win_rate": pl.Float64, "win_rate_lo": pl.Float64,
                    "win_rate_hi": pl.Float64},
}
#: The columns of :func:`open_hand_tables`.
OPEN_HAND_SCHEMAS = {"evaluators_open_hand": MEASURE_SCHEMAS["evaluators"]}


def measure_tables(cube: pl.DataFrame, grid: Grid) -> dict[str, pl.DataFrame]:
    """The measures per game group (``evaluators``) and the calibration table of one evaluator's
    collected cube."""
    counts = score_counts(cube, grid)
    return {"evaluators": measures_by_group(counts), "calibration": calibration(counts, grid)}


def open_hand_tables(cube: pl.DataFrame, grid: Grid) -> dict[str, pl.DataFrame]:
    """The measures of one evaluator against open-hand outcomes (a run made with ``--open-hand``):
    does its score predict the game won with best play on both sides? A target free of the
    card players' mistakes, as bridge hand evaluators are judged against double-dummy results."""
    return {"evaluators_open_hand": measures_by_group(score_counts(cube, grid, "oh_won"))}


def measures_by_group(counts: pl.DataFrame) -> pl.DataFrame:
    """The measures of each game group of :func:`score_counts`, one row a group."""
    rows = [{"group": group, **group_measures(part)}
            for (group,), part in sorted(counts.partition_by("group", as_dict=True).items())]
    return pl.DataFrame(rows, schema=MEASURE_SCHEMAS["evaluators"])


def rank(table: pl.DataFrame) -> pl.DataFrame:
    """Evaluators ranked by AUC within each game group (1 = best); no rank without an AUC (a group whose
    games were all won or all lost), which polars would otherwise sort above every number."""
    order = pl.col("auc").fill_nan(None).rank("ordinal", descending=True).over("group").cast(pl.Int32)
    return table.with_columns(rank=order).sort("group", "rank", nulls_last=True)


def compare_evaluators(run: Run, evaluators: list[str] | None = None) -> dict[str, pl.DataFrame]:
    """Ranked measures and calibration of every evaluator of a run (one scan for all)."""
    found, cubes = collected_cubes(run, evaluators)
    tables = by_evaluator(cubes, lambda name, cube: measure_tables(cube, found[name]), MEASURE_SCHEMAS)
    return {**tables, "evaluators": rank(tables["evaluators"])}
