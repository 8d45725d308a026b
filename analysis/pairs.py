"""Paired comparisons of evaluators: is one really better than another, on the same hands?

Each evaluator's own interval (:mod:`analysis.evaluator_comparison`) says how well it is measured,
not whether two evaluators differ: their measures are computed on the same games, so their errors
are correlated, and two overlapping intervals can hide a decisive difference. Here the difference
itself gets the interval.

Every evaluator's measures (ROC AUC, Brier score, log loss) are recomputed under the same deal
bootstrap: the same Poisson(1) weights of the deal groups (:func:`analysis.intervals.deal_weights`,
fixed seed) in every replicate, for every evaluator of the run. The difference of two evaluators'
measures in one replicate is their difference on one resample of the deals, and the 2.5% and
97.5% percentiles of those differences are the paired 95% interval. A declare-mode run's cubes
carry the deal groups; a game-mode run's evaluators count their games once more per deal group for
this (:func:`pair_count`), since each of its rows is one deal.

:func:`measure_draws` gives an evaluator's point measures (replicate 0) and its replicates, per game
group; :func:`against_best` turns the draws of every evaluator of a run into the table
``evaluator_pairs``: per game group, each evaluator minus the best (the highest AUC), with the
interval, and in words whether it is ``indistinguishable`` from the best (the AUC difference's
interval holds 0) or ``worse`` (``better`` if the resamples say so against the point estimates).
:func:`paired` gives any two evaluators' differences from the same draws (:func:`run_draws` makes them
for a run)::

    from analysis import load_run
    from analysis.pairs import paired, run_draws
    print(paired(run_draws(load_run("results/declare")), "classic", "weighted"))

Two evaluators are paired only on the same games (the same number of games in the group); one that
scores other games of a group is ``not paired``. A group whose games fall in fewer than
:data:`analysis.intervals.MIN_GAMES` deal groups gets its differences without an interval (``too
few``): a percentile interval of so few resampled units does not hold 95%.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from .binning import Grid, evaluator_count, grids
from .counting import Cube
from .deal_groups import DEAL_GROUP, by_deals, deal_group
from .evaluator_comparison import MEASURE_REPLICATES, replicated, score_counts
from .intervals import MIN_GAMES, TOO_FEW, percentile_interval
from .reading import count_run
from .runs import Run

MEASURES = ("auc", "brier", "log_loss")
BEST, SAME, BETTER, WORSE, NOT_PAIRED = "best", "indistinguishable", "better", "worse", "not paired"

DRAW_SCHEMA = {"group": pl.String, "replicate": pl.Int32, "games": pl.Int64, "deal_groups": pl.Int64,
               **{measure: pl.Float64 for measure in MEASURES}}
PAIR_SCHEMA = {"group": pl.String, "evaluator": pl.String, "against": pl.String, "games": pl.Int64,
               **{f"{measure}_diff{end}": pl.Float64 for measure in MEASURES for end in ("", "_lo", "_hi")},
               "verdict": pl.String}


def pair_count(evaluator: str, grid: Grid) -> Cube:
    """A game-mode run's games of ``evaluator`` counted per game, fine score, outcome and deal group:
    what its paired intervals resample (a declare-mode run's evaluator cube holds it already)."""
    score = pl.col(f"eval_{evaluator}").cast(pl.Float64)
    return Cube(("game", "fine", "won", DEAL_GROUP),
                where=(score.is_not_null(), pl.col("value_reached").is_not_null(), pl.col("won").is_not_null()),
                derived={"fine": (score / grid.fine_step).round().cast(pl.Int64), DEAL_GROUP: deal_group()})


def measure_draws(cube: pl.DataFrame, grid: Grid) -> pl.DataFrame:
    """Per game group: the measures of the games of ``cube`` (a cube with deal groups, see
    :func:`pair_count`) as replicate 0, and under each replicate of the deal bootstrap."""
    if not by_deals(cube):
        raise ValueError("paired draws need a cube with deal groups")
    parts = []
    for (group,), counts in sorted(score_counts(cube, grid).partition_by("group", as_dict=True).items()):
        point, again, games = replicated(counts, replicates=MEASURE_REPLICATES)
        parts.append(pl.DataFrame({"group": group, "replicate": np.arange(MEASURE_REPLICATES + 1, dtype=np.int32),
                                   "games": games, "deal_groups": counts[DEAL_GROUP].n_unique(),
                                   **{m: np.r_[point[m], again[m]] for m in MEASURES}},
                                  schema=DRAW_SCHEMA))
    return pl.concat(parts) if parts else pl.DataFrame(schema=DRAW_SCHEMA)


def run_draws(run: Run, evaluators: list[str] | None = None) -> pl.DataFrame:
    """The :func:`measure_draws` of each of the run's ``evaluators`` (all by default), stacked under an
    ``evaluator`` column, in one pass over its parts: what :func:`paired` compares."""
    found = grids(run)
    names = [e for e in (evaluators or found) if e in found]
    count = evaluator_count if run.mode == "declare" else pair_count
    cubes = count_run(run, names, [count(name, found[name]) for name in names])
    parts = [measure_draws(cube, found[name]).select(pl.lit(name).alias("evaluator"), pl.all())
             for name, cube in zip(names, cubes)]
    return pl.concat(parts) if parts else pl.DataFrame(schema={"evaluator": pl.String, **DRAW_SCHEMA})


def paired(draws: pl.DataFrame, evaluator: str, against: str) -> pl.DataFrame:
    """Per game group both evaluators of ``draws`` (the stacked :func:`measure_draws` of a run, with an
    ``evaluator`` column) assess: ``evaluator`` minus ``against`` in each measure, with the paired 95%
    interval, and the verdict (:data:`SAME` when the AUC difference's interval holds 0, else :data:`BETTER`
    or :data:`WORSE`)."""
    rows = []
    for (group,), part in sorted(draws.partition_by("group", as_dict=True).items()):
        mine, theirs = (part.filter(pl.col("evaluator") == name).sort("replicate") for name in (evaluator, against))
        if mine.height and theirs.height:
            rows.append(_difference(group, evaluator, against, mine, theirs))
    return pl.DataFrame(rows, schema=PAIR_SCHEMA)


def against_best(draws: pl.DataFrame) -> pl.DataFrame:
    """The table ``evaluator_pairs``: per game group, every evaluator minus the best one (highest AUC;
    of equal AUCs the first by name), the best itself first with differences 0."""
    rows = []
    for (group,), part in sorted(draws.partition_by("group", as_dict=True).items()):
        points = part.filter(pl.col("replicate") == 0).filter(pl.col("auc").is_not_nan())
        if not points.height:
            continue
        ranked = points.sort(["auc", "evaluator"], descending=[True, False])["evaluator"]
        theirs = part.filter(pl.col("evaluator") == ranked[0]).sort("replicate")
        for evaluator in ranked:
            mine = part.filter(pl.col("evaluator") == evaluator).sort("replicate")
            rows.append(_difference(group, evaluator, ranked[0], mine, theirs))
    return pl.DataFrame(rows, schema=PAIR_SCHEMA)


def _difference(group: str, evaluator: str, against: str, mine: pl.DataFrame, theirs: pl.DataFrame) -> dict:
    """One row of a pair table: ``mine`` minus ``theirs`` (draws of one group, by replicate)."""
    row = {"group": group, "evaluator": evaluator, "against": against, "games": mine["games"][0]}
    if mine["games"][0] != theirs["games"][0]:
        return {**row, "verdict": NOT_PAIRED}
    enough = mine["deal_groups"][0] >= MIN_GAMES
    for measure in MEASURES:
        difference = mine[measure].to_numpy() - theirs[measure].to_numpy()
        lo, hi = (float(end) for end in percentile_interval(difference[1:])) if enough else (None, None)
        row.update({f"{measure}_diff": float(difference[0]), f"{measure}_diff_lo": lo, f"{measure}_diff_hi": hi})
    return {**row, "verdict": _verdict(row, evaluator == against, enough)}


def _verdict(row: dict, itself: bool, enough: bool) -> str:
    """In words, what the AUC difference of a pair table's row says."""
    if itself:
        return BEST
    if not enough:
        return TOO_FEW
    if not np.isfinite(row["auc_diff_lo"]):  # a replicate without games of both outcomes
        return NOT_PAIRED
    return SAME if row["auc_diff_lo"] <= 0 <= row["auc_diff_hi"] else BETTER if row["auc_diff_lo"] > 0 else WORSE
