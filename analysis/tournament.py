"""The standings of a tournament (``skatsim tournament``): every player over all its duplicate matches.

A tournament (:func:`sim.runs.tournaments.play_tournament`) plays every pair of its players in a
duplicate match of the same deals, each into its own run folder; :mod:`analysis.match` gives each
pair's result. A player's standing is its Seeger-Fabian points per game over all its matches, and
those points less its opponents' in the same games ("against the field": the mean of its pairwise
differences, since every match has the same games); each has a 95% percentile bootstrap interval
over deals, a deal's plays in every match resampled together (the matches share the deals). The
players are ranked by the difference against the field. :func:`rank_tournament` computes the
standings and the pairs and writes them to the tournament's folder.
"""

from __future__ import annotations

import csv
from dataclasses import KW_ONLY, dataclass
from pathlib import Path

import numpy as np
import polars as pl

from sim.runs import RunError
from sim.runs.atomic import temporary_beside

from .intervals import bootstrap_ratio
from .match import match_result, per_deal
from .runs import load_run

STANDINGS, PAIRS, PLOT, SUMMARY = "standings.csv", "pairs.csv", "tournament.png", "summary.md"


@dataclass(frozen=True)
class Tournament:
    """A tournament's result: its players, the deals of every match, and the tables."""
    folder: Path
    players: tuple[str, ...]
    _: KW_ONLY
    deals: int
    card_play_only: bool
    standings: pl.DataFrame   # one row per player, best first
    pairs: pl.DataFrame       # one row per match: A, B and A - B with its interval


def rank_tournament(played) -> Tournament:
    """The standings and the pairs of a tournament whose matches are played (``played``: what
    :func:`sim.runs.tournaments.play_tournament` returns), written to its folder as ``standings.csv``,
    ``pairs.csv``, ``tournament.png`` and ``summary.md``, and returned."""
    standings, pairs = results(played.players, played.matches)
    result = Tournament(played.folder, played.players, deals=played.deals, card_play_only=played.card_play_only,
                        standings=standings, pairs=pairs)
    write_results(result)
    return result


def results(players, folders: dict) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(standings, pairs) of the finished matches in ``folders`` ((i, j) -> run folder)."""
    runs = {pair: load_run(folder) for pair, folder in folders.items()}
    pair_rows = []
    for (i, j), run in runs.items():
        row = match_result(run).row(0, named=True)
        pair_rows.append({"a": players[i], "b": players[j], "deals": row["deals"], "games": row["games"],
                          "sf_per_game_a": row["sf_per_game_a"], "sf_per_game_b": row["sf_per_game_b"],
                          "difference": row["difference"], "difference_low": row["difference_low"],
                          "difference_high": row["difference_high"], "folder": str(run.folder)})
    own, field, games = _per_deal_points(len(players), runs)
    rows = []
    for p, player in enumerate(players):
        sf, sf_low, sf_high = _ratio(own[p], games[p])
        against, low, high = _ratio(field[p], games[p])
        rows.append({"player": player, "matches": len(players) - 1, "games": int(games[p].sum()),
                     "sf_per_game": sf, "sf_per_game_low": sf_low, "sf_per_game_high": sf_high,
                     "against_field": against, "against_field_low": low, "against_field_high": high})
    standings = (pl.DataFrame(rows).sort("against_field", descending=True, maintain_order=True)
                 .with_row_index("rank", offset=1))
    return standings, pl.DataFrame(pair_rows)


def _ratio(points: np.ndarray, games: np.ndarray) -> tuple[float, float, float]:
    """Points per game over deals with its bootstrap interval; the deals are drawn by their distinct
    (points, games) cells, as analysis.match does, so that a long match stays small in memory."""
    cells, counts = np.unique(np.column_stack([points, games]), axis=0, return_counts=True)
    return bootstrap_ratio(cells[:, 0], cells[:, 1], counts)


def _per_deal_points(players: int, runs: dict) -> tuple[list, list, list]:
    """Per player and deal: its points over all its matches, those points less its opponents', and
    its games; every match holds the same deals."""
    deals = {pair: per_deal(run).sort("deal_id") for pair, run in runs.items()}
    ids = next(iter(deals.values()))["deal_id"]
    if any(not d["deal_id"].equals(ids) for d in deals.values()):
        raise RunError("the tournament's matches hold different deals; run the tournament again to finish them")
    zeros = [np.zeros(len(ids)) for _ in range(players)]
    own, field, games = zeros, [z.copy() for z in zeros], [z.copy() for z in zeros]
    for (i, j), d in deals.items():
        a, b, g = (d[c].to_numpy().astype(float) for c in ("a", "b", "games"))
        own[i], own[j] = own[i] + a, own[j] + b
        field[i], field[j] = field[i] + a - b, field[j] + b - a
        games[i], games[j] = games[i] + g, games[j] + g
    return own, field, games


def write_results(result: Tournament) -> None:
    """``standings.csv``, ``pairs.csv``, ``tournament.png`` and ``summary.md`` in the tournament's folder,
    each written atomically."""
    for name, table in ((STANDINGS, result.standings), (PAIRS, result.pairs)):
        with temporary_beside(result.folder / name) as tmp, open(tmp, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(table.columns)
            writer.writerows(table.iter_rows())
    with temporary_beside(result.folder / PLOT) as tmp:
        plot(result).savefig(tmp, format="png", dpi=120)
    with temporary_beside(result.folder / SUMMARY) as tmp:
        Path(tmp).write_text(summary_markdown(result), encoding="utf-8")


def summary_markdown(result: Tournament) -> str:
    """The standings and the matches in Markdown, with what the figures are and what they select."""
    def interval(value, low, high) -> str:
        return f"{value:+.1f} ({low:+.1f} to {high:+.1f})"

    kind = ("card play only: every seat bids, discards and declares as the first player"
            if result.card_play_only else "whole games: each player bids, declares and plays")
    lines = ["# skatsim tournament: summary", "",
             f"{len(result.players)} players, {result.pairs.height} duplicate matches of {result.deals:,} deals "
             f"each, the same deals in every match ({kind}). Every deal is played six times per match, "
             "with the seats swapped.", "",
             "Seeger-Fabian points per game of each player over all its matches, and those points less its "
             "opponents' in the same games (against the field); 95% percentile bootstrap intervals over deals, "
             "a deal's plays in every match resampled together. Ranked by the points against the field.", "",
             "| rank | player | SF points per game | against the field |", "|---:|---|---:|---:|"]
    for row in result.standings.iter_rows(named=True):
        own = interval(row["sf_per_game"], row["sf_per_game_low"], row["sf_per_game_high"])
        field = interval(row["against_field"], row["against_field_low"], row["against_field_high"])
        lines.append(f"| {row['rank']} | {row['player']} | {own} | {field} |")
    lines += ["", "## Matches", "", "A - B in Seeger-Fabian points per game, 95% interval over deals.", "",
              "| A | B | deals | games | A - B |", "|---|---|---:|---:|---:|"]
    for row in result.pairs.iter_rows(named=True):
        difference = interval(row["difference"], row["difference_low"], row["difference_high"])
        lines.append(f"| {row['a']} | {row['b']} | {row['deals']:,} | {row['games']:,} | {difference} |")
    lines += ["", f"Plot: `{PLOT}`. Tables: `{STANDINGS}`, `{PAIRS}`.", ""]
    return "\n".join(lines)


def plot(result: Tournament):
    """Each player's Seeger-Fabian points per game against the field with its interval, best on top."""
    from matplotlib.figure import Figure

    table = result.standings.reverse()
    middle = table["against_field"].to_numpy()
    low, high = middle - table["against_field_low"].to_numpy(), table["against_field_high"].to_numpy() - middle
    figure = Figure(figsize=(7.5, 1.2 + 0.45 * table.height), layout="constrained")
    axes = figure.subplots()
    rows = np.arange(table.height)
    axes.errorbar(middle, rows, xerr=[low, high], fmt="o", color="tab:blue", capsize=4)
    axes.axvline(0, color="grey", linewidth=0.8)
    axes.set_yticks(rows, table["player"].to_list())
    axes.set_ylim(-0.6, table.height - 0.4)
    axes.set_xlabel("Seeger-Fabian points per game, less the opponents' (95% interval over deals)")
    kind = ", card play only" if result.card_play_only else ""
    axes.set_title(f"Tournament: {len(result.players)} players, {result.deals:,} deals per match{kind}")
    return figure


def tournament_table(result: Tournament) -> str:
    """The standings and the pairs as the table ``skatsim tournament`` prints."""
    def interval(value, low, high) -> str:
        return f"{value:+.1f} ({low:+.1f} to {high:+.1f})"

    width = max(len(p) for p in result.players) + 2
    kind = ", card play only" if result.card_play_only else ""
    lines = [f"Tournament: {len(result.players)} players, {result.pairs.height} matches of {result.deals:,} deals"
             f"{kind} ({result.folder})",
             f"{'rank':>4}  {'player':<{width}}{'SF points per game':>26}{'against the field':>26}"]
    for row in result.standings.iter_rows(named=True):
        own = interval(row["sf_per_game"], row["sf_per_game_low"], row["sf_per_game_high"])
        field = interval(row["against_field"], row["against_field_low"], row["against_field_high"])
        lines.append(f"{row['rank']:>4}  {row['player']:<{width}}{own:>26}{field:>26}")
    lines.append("Matches: A - B, Seeger-Fabian points per game (95% interval over deals)")
    for row in result.pairs.iter_rows(named=True):
        pair = f"{row['a']} vs {row['b']}"
        difference = interval(row["difference"], row["difference_low"], row["difference_high"])
        lines.append(f"  {pair:<{2 * width + 4}}{difference}")
    return "\n".join(lines)
