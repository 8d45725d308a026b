"""Bidding thresholds: what an evaluator's score says about winning and scoring a game.

From an evaluator cube (:mod:`analysis.binning`), for each evaluator, game type, variant
(``all`` of them together, and, for a game played in several, ``pick-up``, ``hand`` and ``ouvert``
apart) and seat (and all seats together):

- **curves**: per score bin, the win rate and the expected Seeger-Fabian score of
  the declarer (Wilson and normal intervals; none for a bin of fewer than
  :data:`analysis.intervals.MIN_GAMES` games);
- **break-even**: the score at which the expected score of the game (its **objective**,
  below) turns positive for good, i.e. beats passing, which scores 0. Precisely: take the bins
  with at least ``min_rows`` games in score order, find the lowest bin from which
  every bin's expected score is above 0, and interpolate linearly between the
  mean scores of that bin and the bin below it to the point where the expected
  score is 0. The win rate interpolated to the same point is the win probability
  needed at break-even. No crossing is reported when the expected score is
  positive in every bin ("positive throughout") or not positive in the top bin
  ("never positive"). Its interval is a percentile bootstrap on the cube counts.
- **bid up to**: for each bid value X the game type can reach, the lowest score
  bin from which the expected Seeger-Fabian score of playing the game *at bid X*
  stays positive. Each game is replayed at X with the overbid rule: if the value
  it reached is at least X nothing changes; otherwise it is lost as overbid with
  the lowest multiple of its base value reaching X (ISkO). A null game whose
  variant is worth less than X could not be declared at X; it is counted as lost at
  the lowest null value reaching X (a pessimistic assumption: its outcome as a
  dearer null variant is not known).

The **objective** says what a game scores against passing (0):

- ``own``: the declarer's own Seeger-Fabian score (won: value + 50; lost: -2 value - 50).
  Break-even of a game worth 18: 68 p = 86 (1 - p), p = 55.8%.
- ``table``: the declarer's Seeger-Fabian score minus the mean of the two defenders' (each
  defender gets 40 when the declarer loses), i.e. lost games cost 40 more. This is the
  yardstick of the duplicate match (:mod:`analysis.match`): there each seat's declaration is
  played once by the side alone (against both defenders) and once by the pair (one
  defender is a partner), so on average a lost game costs the declarer's side its own
  score and one defender's 40. Break-even at 18: 68 p = 126 (1 - p), p = 64.9%.

``break_even`` holds the ``own`` objective (the one the built-in bidders use), ``break_even_table``
the ``table`` one; ``bid_up_to`` is for ``own`` (:func:`bid_table` takes either).

In declare mode every game was played at bid 18, so the replay is exact for the
cards as played, and every interval resamples whole deals (:mod:`analysis.deal_groups`).
In game mode only games that won the auction appear (see the selection caveat in
docs/analysis.md).
"""

from __future__ import annotations

import re

import numpy as np
import polars as pl

from sim.rules.auction import BID_VALUES
from sim.rules.games import BASE_VALUES, GAME_NAMES, NULL, NULL_VALUES
from sim.rules.scoring import SF_DEFENDER_BONUS, seeger_fabian_at_bid
from sim.statistics import wilson

from .binning import VARIANTS, Grid, by_evaluator, collected_cubes
from .deal_groups import by_deals, deal_rate, group_matrices, sandwich_mean
from .games import SEATS
from .intervals import (
    BOOTSTRAP_SEED,
    MIN_GAMES,
    deal_weights,
    normal_mean,
    percentile_interval,
    resample_counts,
)
from .runs import Run

MIN_ROWS = 50
#: The label of every variant or every seat together.
ALL = ALL_SEATS = "all"
BREAK_EVEN_REPLICATES = 1000
#: Highest level a game can reach: 11 matadors (4 in grand) + game, hand, schneider,
#: announced, schwarz, announced, ouvert.
MAX_LEVEL = np.array([18, 18, 18, 18, 11])
#: Objective -> the cube column of what a game scores against passing (module doc).
OBJECTIVES = {"own": "sf", "table": "sf_table"}


def against_table(sf) -> np.ndarray:
    """The ``table`` objective of a declarer's Seeger-Fabian score: a lost game (negative score)
    costs the mean of the two defenders' bonus more."""
    sf = np.asarray(sf)
    return np.where(sf < 0, sf - SF_DEFENDER_BONUS, sf)


def sf_at_bid(game: int, value_reached, won_in_play, *, bid) -> np.ndarray:
    """The declarer's Seeger-Fabian score had the game been played at ``bid``.

    Suit and grand follow the engine's overbid rule (:func:`sim.rules.scoring.seeger_fabian_at_bid`).
    A null worth less than the bid cannot be declared, and how a dearer null variant
    would have gone is unknown: such a row counts as lost at the cheapest null value
    reaching the bid (a pessimistic assumption of this analysis, not a rule).
    """
    if game != NULL:
        return seeger_fabian_at_bid(game, value_reached, won_in_play, bid)
    value, won, bid = np.broadcast_arrays(np.asarray(value_reached), np.asarray(won_in_play),
                                          np.asarray(bid))
    dearer = NULL_VALUES[np.minimum(np.searchsorted(NULL_VALUES, bid), len(NULL_VALUES) - 1)]
    kept = seeger_fabian_at_bid(game, value, won, bid)
    return np.where(value >= bid, kept, -2 * dearer - 50)


def reachable_bids(game: int) -> np.ndarray:
    """Bid values a game of this type can reach (a null game: up to null ouvert hand, 59)."""
    top = NULL_VALUES[-1] if game == NULL else BASE_VALUES[game] * MAX_LEVEL[game]
    return BID_VALUES[BID_VALUES <= top]


def split_cells(cube: pl.DataFrame, keys: list[str], values: dict[str, pl.Expr]):
    """Each (game, variant, seats) split of a cube, in the order of the tables: per game, every variant
    (``all``), then each variant when the game was declared in several; each of them for every seat
    (``all``), then each seat. Yields (game, variant, seats, cells, sums): the split's cells of ``keys``
    (sorted) and, per value (an expression over the cube's rows), its sums as a (deal groups, cells)
    matrix, one row in a cube without deal groups. The cube's cells are counted once, by game, variant and
    seat too, and each split adds up its columns, so no split copies the cube."""
    every = ["game", "variant", "seat", *keys]
    if by_deals(cube):
        counted, sums = group_matrices(cube, every, values)
    else:
        counted = cube.group_by(every).agg(**{name: value.sum() for name, value in values.items()}).sort(every)
        sums = {name: counted[name].cast(pl.Float64).to_numpy()[None, :] for name in values}
    game_of = counted["game"].to_numpy()
    for game in np.unique(game_of).tolist():
        at = np.flatnonzero(game_of == game)  # a game's cells are together, sorted
        cells = counted[int(at[0]):int(at[-1]) + 1]
        yield from _game_splits(game, cells, keys, {name: matrix[:, at] for name, matrix in sums.items()})


def _game_splits(game: int, cells: pl.DataFrame, keys: list[str], sums: dict[str, np.ndarray]):
    """The splits of one game's ``cells`` (by variant, seat and ``keys``) and their ``sums``: :func:`split_cells`."""
    variant, seat = cells["variant"].to_numpy(), cells["seat"].to_numpy()
    columns = {name: cells[name].to_numpy() for name in keys}
    schema = cells.select(keys).schema
    played = sorted(set(variant.tolist()))
    for name, in_variant in [(ALL, np.ones(len(cells), bool)), *((VARIANTS[v], variant == v)
                                                                   for v in played if len(played) > 1)]:
        for seats, in_seats in [(ALL_SEATS, np.ones(len(cells), bool)),
                                *((s, seat == k) for k, s in enumerate(SEATS))]:
            chosen = np.flatnonzero(in_variant & in_seats)
            if len(chosen):
                yield (game, name, seats, *_merged({n: c[chosen] for n, c in columns.items()}, schema,
                                                   {n: m[:, chosen] for n, m in sums.items()}))


def _merged(columns: dict[str, np.ndarray], schema, sums: dict[str, np.ndarray]):
    """The distinct rows of the cells' ``columns`` in sorted order (a frame of ``schema``), with the columns of
    ``sums`` of equal rows added."""
    order = np.lexsort(list(columns.values())[::-1])  # by the first column, then the next ...
    ordered = {name: column[order] for name, column in columns.items()}
    starts = np.flatnonzero(np.r_[True, np.any([c[1:] != c[:-1] for c in ordered.values()], axis=0)])
    merged = pl.DataFrame({name: c[starts] for name, c in ordered.items()}, schema=schema)
    return merged, {name: np.add.reduceat(matrix[:, order], starts, axis=1) for name, matrix in sums.items()}


def curves(cube: pl.DataFrame, grid: Grid) -> pl.DataFrame:
    """Per game, variant, seats and score bin: games, mean score, win rate and mean Seeger-Fabian score."""
    n, sf = pl.col("n"), pl.col("sf").cast(pl.Float64)
    values = {"rows": n, "won": n * pl.col("won"), "score": pl.col("score_sum"), "sf": n * sf, "sf_sq": n * sf ** 2}
    grouped = by_deals(cube)
    found = [_curve(cells["bin"].to_numpy(), sums, grid, grouped).with_columns(
        game=pl.lit(GAME_NAMES[game]), variant=pl.lit(variant), seats=pl.lit(seats))
        for game, variant, seats, cells, sums in split_cells(cube, ["bin"], values)]
    return pl.concat([curve.select(list(CURVES_SCHEMA)).cast(CURVES_SCHEMA) for curve in found]) if found else \
        pl.DataFrame(schema=CURVES_SCHEMA)


def _curve(bins: np.ndarray, sums: dict[str, np.ndarray], grid: Grid, grouped: bool) -> pl.DataFrame:
    """One split's curve: its bins and, per value of :func:`curves`, the (deal groups, bins) sums (one row
    without deal groups)."""
    rows, won, score, sf, sf_sq = (sums[name].sum(0) for name in ("rows", "won", "score", "sf", "sf_sq"))
    if grouped:
        mean, lo, hi = sandwich_mean(sums["sf"].T, sums["rows"].T)
        win_lo, win_hi = deal_rate(sums["won"], sums["rows"])
    else:
        mean, lo, hi = normal_mean(sf, sf_sq, rows)
        win_lo, win_hi = wilson(won, rows)
    few = rows < MIN_GAMES
    return pl.DataFrame({
        "bin_from": bins * grid.width, "bin_to": (bins + 1) * grid.width, "mean_score": score / rows, "rows": rows,
        "won": won, "win_rate": won / rows, "win_rate_lo": win_lo, "win_rate_hi": win_hi, "mean_sf": mean,
        "mean_sf_lo": np.where(few, np.nan, lo), "mean_sf_hi": np.where(few, np.nan, hi)}).with_columns(
        pl.col("mean_sf_lo", "mean_sf_hi").fill_nan(None))


def first_positive_run(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Along the last axis: whether some index starts a run of positive values to the end, and the first."""
    positive = np.nan_to_num(values, nan=-1.0) > 0
    if positive.shape[-1] == 0:
        return np.zeros(positive.shape[:-1], bool), np.zeros(positive.shape[:-1], int)
    to_end = np.flip(np.logical_and.accumulate(np.flip(positive, -1), axis=-1), -1)
    return to_end.any(-1), to_end.argmax(-1)


def crossing(score: np.ndarray, expected: np.ndarray, win_rate: np.ndarray):
    """Break-even (score, win rate, status) along the last axis of bins in score order (see module doc)."""
    score, expected, win_rate = np.atleast_2d(score, expected, win_rate)
    if expected.shape[-1] == 0:
        empty = np.full(len(expected), np.nan)
        return empty, empty, np.full(len(expected), "no data", dtype=object)
    has, j = first_positive_run(expected)
    rows = np.arange(len(j))
    i = np.maximum(j - 1, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = -expected[rows, i] / (expected[rows, j] - expected[rows, i])
        x = score[rows, i] + t * (score[rows, j] - score[rows, i])
        p = win_rate[rows, i] + t * (win_rate[rows, j] - win_rate[rows, i])
    inside = has & (j > 0)
    status = np.where(inside, "crossing", np.where(has, "positive throughout", "never positive"))
    return np.where(inside, x, np.nan), np.where(inside, p, np.nan), status


def break_even(score, expected, win_rate) -> tuple[float, float, str]:
    """Break-even of one curve: bins' mean scores, expected Seeger-Fabian scores and win rates."""
    x, p, status = crossing(*(np.asarray(a, float) for a in (score, expected, win_rate)))
    return float(x[0]), float(p[0]), str(status[0])


#: The sums a break-even is found from, per cell: its games, and their scores, wins and objective.
BIN_SUMS = ("n", "score_sum", "won_sum", "sf_sum")


def _bin_stats(totals: dict[str, np.ndarray], starts: np.ndarray):
    """Per bin (bins start at ``starts`` along the last axis of ``totals``, a :data:`BIN_SUMS` array each):
    rows, mean score, win rate, mean objective."""
    rows, score, won, sf = (np.add.reduceat(totals[name], starts, axis=-1) for name in BIN_SUMS)
    with np.errstate(invalid="ignore", divide="ignore"):
        return rows, score / rows, won / rows, sf / rows


def _replicated_bin_stats(sums: dict[str, np.ndarray], starts: np.ndarray, grouped: bool, replicates: int,
                          seed: int):
    """:func:`_bin_stats` of every bootstrap replicate. Deal groups (the rows of ``sums``) are drawn whole,
    a replicate's sums being its draws times the groups' sums; without them, the cells hold games alike
    (:func:`break_even_table`), drawn one by one."""
    if grouped:
        weights = deal_weights(len(sums["n"]), replicates, seed)
        return _bin_stats({name: weights @ sums[name] for name in BIN_SUMS}, starts)
    n = sums["n"][0]
    drawn = resample_counts(n, replicates, seed).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _bin_stats({name: drawn * (sums[name][0] / n) for name in BIN_SUMS}, starts)


def break_even_group(bins: np.ndarray, sums: dict[str, np.ndarray], *, grouped: bool, min_rows: int = MIN_ROWS,
                     replicates: int = BREAK_EVEN_REPLICATES, seed: int = BOOTSTRAP_SEED) -> dict:
    """Break-even of one split of a cube, with its bootstrap interval: the cells' ``bins`` (sorted) and their
    :data:`BIN_SUMS` as (deal groups, cells) matrices (``grouped``), or one row of cells of games alike."""
    starts = np.flatnonzero(np.r_[True, bins[1:] != bins[:-1]]) if len(bins) else np.zeros(0, int)
    rows, score, won, sf = _bin_stats({name: sums[name].sum(0) for name in BIN_SUMS}, starts)
    keep = rows >= min_rows
    x, p, status = crossing(score[keep], sf[keep], won[keep])
    _, b_score, b_won, b_sf = _replicated_bin_stats(sums, starts, grouped, replicates, seed)
    bx, _, _ = crossing(b_score[:, keep], b_sf[:, keep], b_won[:, keep])
    lo, hi = percentile_interval(bx) if status[0] == "crossing" else (np.nan, np.nan)
    return {"rows": int(rows.sum()), "bins_used": int(keep.sum()), "status": str(status[0]),
            "break_even": float(x[0]), "break_even_lo": float(lo), "break_even_hi": float(hi),
            "crossing_share": float(np.mean(np.isfinite(bx))), "win_rate_at_break_even": float(p[0])}


def break_even_table(cube: pl.DataFrame, *, min_rows: int = MIN_ROWS, replicates: int = BREAK_EVEN_REPLICATES,
                     seed: int = BOOTSTRAP_SEED, objective: str = "own") -> pl.DataFrame:
    """Break-even score per game, variant and seats for ``objective`` (see the module doc for the definition).
    A run with deal groups is summed per bin and deal group; the games of a run without them, which the
    bootstrap draws one by one, per bin, win and objective."""
    out, grouped = [], by_deals(cube)
    n, objective_sf = pl.col("n"), pl.col(OBJECTIVES[objective])
    keys = ["bin"] if grouped else ["bin", "won", OBJECTIVES[objective]]
    values = {"n": n, "score_sum": pl.col("score_sum"), "won_sum": n * pl.col("won"), "sf_sum": n * objective_sf}
    for game, variant, seats, cells, sums in split_cells(cube, keys, values):
        out.append({"game": GAME_NAMES[game], "variant": variant, "seats": seats, "objective": objective,
                    **break_even_group(cells["bin"].to_numpy(), sums, grouped=grouped, min_rows=min_rows,
                                       replicates=replicates, seed=seed)})
    return pl.DataFrame(out, schema=BREAK_EVEN_SCHEMA)


BREAK_EVEN_SCHEMA = {
    "game": pl.String, "variant": pl.String, "seats": pl.String, "objective": pl.String, "rows": pl.Int64,
    "bins_used": pl.Int64,
    "status": pl.String,
    "break_even": pl.Float64, "break_even_lo": pl.Float64, "break_even_hi": pl.Float64,
    "crossing_share": pl.Float64, "win_rate_at_break_even": pl.Float64,
}


def bid_group(game: int, cells: pl.DataFrame, units: np.ndarray | None, grid: Grid, *, min_rows: int = MIN_ROWS,
              objective: str = "own") -> list[dict]:
    """For each reachable bid: the lowest bin from which the expected score (of ``objective``) at that
    bid stays positive, of one split's ``cells`` per bin, value reached and won in play (sorted, with their
    games ``n``); ``units``: their (deal groups, cells) games, None without deal groups."""
    n = cells["n"].to_numpy().astype(float)
    bins = cells["bin"].to_numpy()
    starts = np.flatnonzero(np.r_[True, bins[1:] != bins[:-1]])
    edges = grid.edge(bins[starts])
    value = cells["value_reached"].to_numpy()
    bids = reachable_bids(game)
    bids = bids[bids <= value.max()]
    sf = sf_at_bid(game, value[None, :], cells["won_in_play"].to_numpy()[None, :], bid=bids[:, None])
    if objective == "table":
        sf = against_table(sf)
    rows = np.add.reduceat(n, starts)
    if units is None:
        mean, lo, _ = normal_mean(np.add.reduceat(sf * n, starts, axis=1),
                                  np.add.reduceat(sf * sf * n, starts, axis=1), rows)
    else:  # per bid, bin and deal group: the sums of the scores, and their cluster-robust interval
        totals = np.stack([np.add.reduceat(units * row, starts, axis=1).T for row in sf])
        mean, lo, _ = sandwich_mean(totals, np.add.reduceat(units, starts, axis=1).T)
    keep = rows >= min_rows
    has, j = first_positive_run(mean[:, keep])
    sure, k = first_positive_run(lo[:, keep])
    kept_edges, kept_rows, kept_mean = edges[keep], rows[keep], mean[:, keep]
    return [{"bid": int(bid), "score_from": float(kept_edges[j[b]]),
             "score_from_confident": float(kept_edges[k[b]]) if sure[b] else None,
             "rows_from": int(kept_rows[j[b]:].sum()), "mean_sf_at_bid_in_bin": float(kept_mean[b, j[b]])}
            for b, bid in enumerate(bids) if has[b]]


def bid_table(cube: pl.DataFrame, grid: Grid, *, min_rows: int = MIN_ROWS, objective: str = "own") -> pl.DataFrame:
    """"Bid up to X when the score reaches Y" for every game, variant, seats and reachable bid X (``objective``:
    ``mean_sf_at_bid_in_bin`` is then the mean of that objective)."""
    out, grouped = [], by_deals(cube)
    for game, variant, seats, cells, sums in split_cells(cube, ["bin", "value_reached", "won_in_play"],
                                                         {"n": pl.col("n")}):
        cells = cells.with_columns(n=pl.Series(sums["n"].sum(0)))
        out += [{"game": GAME_NAMES[game], "variant": variant, "seats": seats, **row}
                for row in bid_group(game, cells, sums["n"] if grouped else None, grid, min_rows=min_rows,
                                     objective=objective)]
    return pl.DataFrame(out, schema=BID_UP_TO_SCHEMA)


BID_UP_TO_SCHEMA = {"game": pl.String, "variant": pl.String, "seats": pl.String, "bid": pl.Int64,
                    "score_from": pl.Float64, "score_from_confident": pl.Float64, "rows_from": pl.Int64,
                    "mean_sf_at_bid_in_bin": pl.Float64}


#: The break-even tables by name, and the objective of each.
EVEN_TABLES = (("break_even", "own"), ("break_even_table", "table"))


def threshold_tables(cube: pl.DataFrame, grid: Grid, *, min_rows: int = MIN_ROWS,
                     shipped: dict[str, float] | None = None) -> dict[str, pl.DataFrame]:
    """Curves, break-even (both objectives) and bid-up-to tables of one evaluator's collected cube.

    ``shipped`` (game name -> threshold, as the run's manifest records the evaluator's) adds
    the threshold the evaluator came with to the break-even tables.
    """
    return {"threshold_curves": curves(cube, grid),
            **{name: break_even_shipped(cube, min_rows=min_rows, shipped=shipped, objective=objective)
               for name, objective in EVEN_TABLES},
            "bid_up_to": bid_table(cube, grid, min_rows=min_rows)}


def break_even_shipped(cube: pl.DataFrame, *, min_rows: int = MIN_ROWS, shipped: dict[str, float] | None = None,
                       objective: str = "own") -> pl.DataFrame:
    """The break-even table for ``objective`` with the threshold the evaluator came with
    (``evaluator_threshold``)."""
    return break_even_table(cube, min_rows=min_rows, objective=objective).with_columns(
        evaluator_threshold=pl.col("game").replace_strict(shipped or {}, default=None, return_dtype=pl.Float64))


CURVES_SCHEMA = {
    "game": pl.String, "variant": pl.String, "seats": pl.String, "bin_from": pl.Float64, "bin_to": pl.Float64,
    "mean_score": pl.Float64, "rows": pl.UInt32, "won": pl.UInt32, "win_rate": pl.Float64,
    "win_rate_lo": pl.Float64, "win_rate_hi": pl.Float64, "mean_sf": pl.Float64, "mean_sf_lo": pl.Float64,
    "mean_sf_hi": pl.Float64,
}
#: The columns of :func:`threshold_tables` (an evaluator without games gives them without rows).
THRESHOLD_SCHEMAS = {"threshold_curves": CURVES_SCHEMA,
                     "break_even": {**BREAK_EVEN_SCHEMA, "evaluator_threshold": pl.Float64},
                     "break_even_table": {**BREAK_EVEN_SCHEMA, "evaluator_threshold": pl.Float64},
                     "bid_up_to": BID_UP_TO_SCHEMA}


def thresholds(run: Run, evaluators: list[str] | None = None,
               min_rows: int = MIN_ROWS) -> dict[str, pl.DataFrame]:
    """The threshold tables of a run for each evaluator (all logged ones by default)."""
    found, cubes = collected_cubes(run, evaluators)
    return by_evaluator(cubes, lambda name, cube: threshold_tables(cube, found[name], min_rows=min_rows,
                                                                   shipped=shipped_thresholds(run, name)),
                        THRESHOLD_SCHEMAS)


def lead_split(run: Run) -> tuple[str, str]:
    """The variant and seats a report leads with for ``run``: the split it was dealt for. A declare-mode
    run of every variant: the games after picking up the skat (a hand game is a decision of its own); a
    run dealt with fixed cards or a condition that name one seat only: that seat; otherwise ``all``."""
    variant = VARIANTS[0] if run.config.get("variants") == "all" else ALL
    asked = run.config.get("dealing") or {}
    named = set(asked.get("fix", {})) | set(re.findall(r"\b(forehand|middlehand|rearhand)\b", asked.get("where", "")))
    named.discard("skat")
    return variant, named.pop() if len(named) == 1 else ALL_SEATS


def in_lead_split(table: pl.DataFrame, runs: list[Run], by: tuple[str, ...] = ("variant", "seats")) -> pl.DataFrame:
    """The rows of a threshold table (with ``run``, ``variant`` and ``seats``) of each run's
    :func:`lead_split`, in the columns ``by`` (``("variant",)``: its lead variant, every seat)."""
    leads = pl.DataFrame([(run.label, *lead_split(run)) for run in runs], schema=["run", "variant", "seats"],
                         orient="row")
    return table.join(leads.select("run", *by), on=["run", *by], how="semi")


def shipped_thresholds(run: Run, evaluator: str) -> dict[str, float]:
    """The thresholds the evaluator came with when the run was made, by game name (from the manifest)."""
    return run.evaluators.get(evaluator, {}).get("thresholds", {})
