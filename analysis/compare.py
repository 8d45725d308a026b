"""Strategy comparison: two runs of the same deals compared deal for deal.

Runs with the same seed hold the same deals (deal ``i`` depends on the seed and
``i`` alone), so joining them on ``deal_id`` pairs each deal with itself: the
difference of the two runs is then measured on identical cards, and its interval
is the interval of the mean of the per-deal differences (normal for many deals,
bootstrap on the counts of the differences for few; see :mod:`analysis.intervals`).
This is much narrower than comparing two independent means.

Game mode: every seat's Seeger-Fabian score per deal and the passed-in rate over
all common deals; the declarer's win rate and scores over the deals that were
played in both runs. Declare mode: the same (deal, seat, game) rows are paired.
"""

from __future__ import annotations

import polars as pl

from sim.rules.cards import SEAT_SUFFIXES

from .games import SEATS, game_id, seat_sf
from .intervals import mean_table
from .runs import AnalysisError, Run

GAME_COLUMNS = ["deal_id", "hand_f", "passed", "declarer", "won", "score", "sf_f", "sf_m", "sf_r"]
#: The columns of :func:`compare_runs`.
COMPARISON_SCHEMA = {
    "run_a": pl.String, "run_b": pl.String, "metric": pl.String, "rows": pl.UInt32, "mean_a": pl.Float64,
    "mean_b": pl.Float64, "difference": pl.Float64, "difference_lo": pl.Float64,
    "difference_hi": pl.Float64, "difference_interval": pl.String,
}


def check_comparable(a: Run, b: Run) -> None:
    for run in (a, b):
        if run.imported:
            raise AnalysisError(f"cannot compare {a.label} and {b.label} deal for deal: {run.label} is an imported"
                                " archive, whose deals are not dealt from a seed")
    if a.seed != b.seed:
        raise AnalysisError(f"cannot compare {a.label} and {b.label} deal for deal: their seeds differ"
                            f" ({a.seed} and {b.seed}), so their deals are different")
    if a.mode != b.mode:
        raise AnalysisError(f"cannot compare {a.label} ({a.mode} mode) with {b.label} ({b.mode} mode)")
    if a.mode == "match":
        raise AnalysisError(f"{a.label} and {b.label} are duplicate matches: each is compared within itself"
                            " (see its match section)")


def game_metrics() -> dict[str, tuple[pl.Expr, pl.Expr, pl.Expr]]:
    """Metric -> (rows it is measured on, value in run A, value in run B) of a game-mode join."""
    every = pl.lit(True)
    both = ~pl.col("passed") & ~pl.col("passed_b")
    metrics = {f"Seeger-Fabian score of {name} per deal": (every, pl.col(f"sf_{s}"), pl.col(f"sf_{s}_b"))
               for s, name in zip(SEAT_SUFFIXES, SEATS)}
    metrics["passed-in rate"] = (every, pl.col("passed"), pl.col("passed_b"))
    metrics["declarer win rate (deals played in both)"] = (both, pl.col("won"), pl.col("won_b"))
    metrics["declarer classic score (deals played in both)"] = (both, pl.col("score"), pl.col("score_b"))
    metrics["declarer Seeger-Fabian score (deals played in both)"] = (both, seat_sf("declarer"),
                                                                       seat_sf("declarer_b", "_b"))
    return metrics


def declare_metrics() -> dict[str, tuple[pl.Expr, pl.Expr, pl.Expr]]:
    every = pl.lit(True)
    return {"win rate (every seat declares every game)": (every, pl.col("won"), pl.col("won_b")),
            "declarer classic score at bid 18": (every, pl.col("score"), pl.col("score_b")),
            "declarer Seeger-Fabian score at bid 18": (every, pl.col("sf"), pl.col("sf_b"))}


def paired(a: Run, b: Run) -> tuple[pl.LazyFrame, dict]:
    """The lazy join of the two runs on their common rows, and the metrics to measure on it."""
    if a.mode == "declare":
        keys = ["deal_id", "seat", "game"]
        left, right = (run.scan().select("deal_id", "seat", game_id(), "won", "score", sf=seat_sf("seat"))
                       for run in (a, b))
        return left.join(right, on=keys, how="inner", suffix="_b"), declare_metrics()
    left, right = a.scan().select(GAME_COLUMNS), b.scan().select(GAME_COLUMNS)
    return left.join(right, on="deal_id", how="inner", suffix="_b"), game_metrics()


def with_differences(joined: pl.LazyFrame, metrics: dict) -> pl.LazyFrame:
    """The join with each metric's values ``a<i>``, ``b<i>`` and difference ``d<i>`` (null if not measured).

    Rows a metric does not measure get a null difference rather than being filtered
    out, so that every query reads this same frame and polars joins the runs once.
    """
    columns = {}
    for i, (where, value_a, value_b) in enumerate(metrics.values()):
        va, vb = value_a.cast(pl.Int64), value_b.cast(pl.Int64)  # scores and flags are whole numbers
        columns.update({f"a{i}": va, f"b{i}": vb, f"d{i}": pl.when(where).then(vb - va)})
    return joined.with_columns(**columns)


def difference_counts(frame: pl.LazyFrame, metrics: dict) -> list[pl.LazyFrame]:
    """Per metric, the count of each per-row difference B - A with the sums of A and B (lazy)."""
    return [frame.group_by(difference=pl.col(f"d{i}"))
            .agg(n=pl.len(), sum_a=pl.col(f"a{i}").sum(), sum_b=pl.col(f"b{i}").sum())
            .filter(pl.col("difference").is_not_null()).with_columns(metric=pl.lit(name))
            for i, name in enumerate(metrics)]


def compare_runs(a: Run, b: Run) -> pl.DataFrame:
    """Paired differences (run B minus run A) with 95% intervals, one row per metric."""
    check_comparable(a, b)
    joined, metrics = paired(a, b)
    frame = with_differences(joined, metrics)
    different = (pl.col("hand_f") != pl.col("hand_f_b")).sum() if a.mode == "game" else pl.lit(0)
    checks = frame.select(rows=pl.len(), dealt_differently=different)
    results = pl.collect_all([checks, *difference_counts(frame, metrics)])
    check = results[0].row(0, named=True)
    if check["rows"] == 0:
        raise AnalysisError(f"{a.label} and {b.label} have no deals in common")
    if check.get("dealt_differently"):
        raise AnalysisError(f"{a.label} and {b.label} share the seed {a.seed}, but"
                            f" {check['dealt_differently']} of their {check['rows']} common deals hold"
                            " different cards (dealt by different versions?)")
    counts = pl.concat(results[1:])
    sums = counts.group_by("metric").agg(rows=pl.col("n").sum(), sum_a=pl.col("sum_a").sum(),
                                         sum_b=pl.col("sum_b").sum())
    table = mean_table(counts, ["metric"], "difference", name="difference").join(sums, on="metric")
    order = pl.col("metric").replace_strict(list(metrics), list(range(len(metrics))))
    rows = pl.col("rows")
    return (table.with_columns(run_a=pl.lit(a.label), run_b=pl.lit(b.label),
                               mean_a=pl.col("sum_a") / rows, mean_b=pl.col("sum_b") / rows)
            .sort(order)
            .select("run_a", "run_b", "metric", "rows", "mean_a", "mean_b", "difference", "difference_lo",
                    "difference_hi", "difference_interval"))


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
