"""Strategy comparison: two runs of the same deals compared deal for deal.

Runs with the same seed hold the same deals (deal ``i`` depends on the seed and
``i`` alone), so joining them on ``deal_id`` pairs each deal with itself: the
difference of the two runs is then measured on identical cards, and its interval
is the interval of the mean of the per-deal differences (normal for many deals,
bootstrap on the counts of the differences for few; see :mod:`analysis.intervals`).
This is much narrower than comparing two independent means.

Game mode: every seat's Seeger-Fabian score per deal and the passed-in rate over
all common deals; the declarer's win rate and scores over the deals that were
played in both runs. Declare mode: the same rows are paired, a row being named by
its deal, seat and game (and, in runs made with ``--variants all``, by whether it
was played hand and ouvert: :func:`row_key`); runs whose rows that key does not name
one each are refused. The rows of one declare-mode deal share its cards, so their
differences are resampled by whole deals (:mod:`analysis.deal_groups`).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.rules.cards import SEAT_SUFFIXES

from .deal_groups import DEAL_GROUP, DEAL_GROUPS, deal_group, deal_mean
from .games import SEATS, game_id, seat_sf
from .intervals import interval_columns, mean_table
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
    if _asked(a) != _asked(b):
        raise AnalysisError(f"cannot compare {a.label} and {b.label} deal for deal: they are dealt with other fixed"
                            " cards or conditions, so their deals are different")
    if a.mode == "match":
        raise AnalysisError(f"{a.label} and {b.label} are duplicate matches: each is compared within itself"
                            " (see its match section)")
    if row_key(a) != row_key(b):
        raise AnalysisError(f"cannot compare {a.label} and {b.label} row for row: one declares every variant"
                            " (--variants all) and the other each game as its profile would")


def _asked(run: Run) -> tuple:
    """The fixed cards and condition a run is dealt with (both None: uniformly)."""
    record = run.config.get("dealing") or {}
    return record.get("fix"), record.get("where")


def row_key(run: Run) -> list[str]:
    """The columns that name one row of a run: its deal in game mode; in declare mode its deal, seat
    and game, and with every variant (``--variants all``: each game both hand and after picking up,
    null also ouvert) whether it was played hand and ouvert."""
    if run.mode != "declare":
        return ["deal_id"]
    every_variant = run.config.get("variants", "profile") == "all"
    return ["deal_id", "seat", "game", *(("hand", "ouvert") if every_variant else ())]


def duplicated_keys(run: Run) -> pl.LazyFrame:
    """How many keys (:func:`row_key`) name more than one row of the run, and the rows they name (lazy)."""
    key = row_key(run)
    frame = run.scan().select(key).with_columns(game_id()) if "game" in key else run.scan().select(key)
    return (frame.group_by(key).len().filter(pl.col("len") > 1)
            .select(keys=pl.len(), rows=pl.col("len").sum()))


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
        keys = row_key(a)
        left, right = (run.scan().select(*keys, "won", "score", sf=seat_sf("seat")).with_columns(game_id())
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


def deal_group_sums(frame: pl.LazyFrame, metrics: dict) -> pl.LazyFrame:
    """Per deal group: each metric's rows ``n<i>``, sum of differences ``d<i>`` and sums of A and B (lazy)."""
    columns = {}
    for i in range(len(metrics)):
        measured = pl.col(f"d{i}").is_not_null()
        columns.update({f"n{i}": measured.sum(), f"d{i}": pl.col(f"d{i}").sum(),
                        **{f"{side}{i}": pl.col(f"{side}{i}").filter(measured).sum() for side in "ab"}})
    return frame.with_columns(deal_group()).group_by(DEAL_GROUP).agg(**columns)


def deal_differences(sums: pl.DataFrame, metrics: dict) -> pl.DataFrame:
    """The columns of :func:`compare_runs` from :func:`deal_group_sums`, each interval a deal bootstrap."""
    rows, sum_a, sum_b, differences, games = [], [], [], [], []
    group = sums[DEAL_GROUP].to_numpy()
    for i in range(len(metrics)):
        column = {}
        for part in "nadb":
            column[part] = np.zeros(DEAL_GROUPS)
            np.add.at(column[part], group, sums[f"{part}{i}"].cast(pl.Float64).fill_null(0).to_numpy())
        rows.append(int(column["n"].sum()))
        sum_a.append(column["a"].sum())
        sum_b.append(column["b"].sum())
        differences.append(column["d"])
        games.append(column["n"])
    mean, lo, hi, kind = deal_mean(np.stack(differences, 1), np.stack(games, 1))
    return pl.DataFrame({"metric": list(metrics), "rows": rows, "sum_a": sum_a, "sum_b": sum_b}).with_columns(
        pl.Series("difference", mean), *interval_columns("difference", lo, hi, kind=kind))


def compare_runs(a: Run, b: Run) -> pl.DataFrame:
    """Paired differences (run B minus run A) with 95% intervals, one row per metric."""
    check_comparable(a, b)
    joined, metrics = paired(a, b)
    frame = with_differences(joined, metrics)
    different = (pl.col("hand_f") != pl.col("hand_f_b")).sum() if a.mode == "game" else pl.lit(0)
    checks = frame.select(rows=pl.len(), dealt_differently=different)
    by_deals = a.mode == "declare"
    queries = [checks, duplicated_keys(a), duplicated_keys(b),
               *([deal_group_sums(frame, metrics)] if by_deals else difference_counts(frame, metrics))]
    results = pl.collect_all(queries)
    for run, duplicates in ((a, results[1]), (b, results[2])):
        if duplicates["keys"][0]:
            raise AnalysisError(f"cannot compare {a.label} and {b.label} row for row: {duplicates['keys'][0]:,} keys"
                                f" ({', '.join(row_key(run))}) of {run.label} name {duplicates['rows'][0]:,} rows"
                                " between them, so its rows cannot be paired")
    check = results[0].row(0, named=True)
    if check["rows"] == 0:
        raise AnalysisError(f"{a.label} and {b.label} have no deals in common")
    if check.get("dealt_differently"):
        raise AnalysisError(f"{a.label} and {b.label} share the seed {a.seed}, but"
                            f" {check['dealt_differently']} of their {check['rows']} common deals hold"
                            " different cards (dealt by different versions?)")
    if by_deals:
        table = deal_differences(results[3], metrics)
    else:
        counts = pl.concat(results[3:])
        sums = counts.group_by("metric").agg(rows=pl.col("n").sum(), sum_a=pl.col("sum_a").sum(),
                                             sum_b=pl.col("sum_b").sum())
        table = mean_table(counts, ["metric"], "difference", name="difference").join(sums, on="metric")
    order = pl.col("metric").replace_strict(list(metrics), list(range(len(metrics))))
    rows = pl.col("rows")
    return (table.with_columns(run_a=pl.lit(a.label), run_b=pl.lit(b.label),
                               mean_a=pl.col("sum_a") / rows, mean_b=pl.col("sum_b") / rows)
            .sort(order).cast({"rows": pl.UInt32})
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
