"""``skatsim tournament``: several profiles, every pair in a duplicate match; one table, a ranking, a plot.

Each pair of players plays a duplicate match (:func:`sim.runs.matches.match_profiles`) of the
same deals into its own run folder under the tournament's folder, so a tournament resumes as a
match does (and grows with more deals). :mod:`analysis.match` gives each pair's result. A
player's standing is its Seeger-Fabian points per game over all its matches, and those points
less its opponents' in the same games ("against the field": the mean of its pairwise
differences, since every match has the same games); each has a 95% percentile bootstrap
interval over deals, a deal's plays in every match resampled together (the matches share the
deals). The players are ranked by the difference against the field.

A player is a profile name or TOML file, optionally followed by settings, each after an ``@``:
``default@card_play=pimc@card_play.worlds=8``. With ``card_play_only`` every seat of every match
bids, discards and declares as the first player does, and only the card play differs.
"""

from __future__ import annotations

import csv
from dataclasses import KW_ONLY, dataclass
from pathlib import Path

import numpy as np
import polars as pl

from analysis import load_run, match_result
from analysis.intervals import bootstrap_ratio
from analysis.match import per_deal
from sim.runs import RunError
from sim.runs.atomic import make_folder, temporary_beside
from sim.runs.conditional import dealing_suffix, run_dealing
from sim.runs.folder import default_folder, settings_suffix
from sim.runs.matches import match_profiles
from strategies.profiles import Profile, build_profile, load_profile

STANDINGS, PAIRS, PLOT, SUMMARY = "standings.csv", "pairs.csv", "tournament.png", "summary.md"


@dataclass(frozen=True)
class Tournament:
    folder: Path
    players: tuple[str, ...]
    _: KW_ONLY
    deals: int
    card_play_only: bool
    standings: pl.DataFrame   # one row per player, best first
    pairs: pl.DataFrame       # one row per match: A, B and A - B with its interval


def read_player(text: str) -> tuple[str, list[str]]:
    """``PROFILE[@SETTING...]`` as the profile and its settings."""
    profile, *settings = text.split("@")
    if not profile.strip() or not all(s.strip() for s in settings):
        raise RunError(f"player {text!r} is not PROFILE or PROFILE@ROLE=NAME@ROLE.PARAM=VALUE")
    return profile.strip(), [s.strip() for s in settings]


def load_players(players, settings=(), card_play_only: bool = False) -> list[Profile]:
    """Each player's profile, named as the player is written; in a card-play-only tournament every
    profile bids, discards and declares as the first one does."""
    if len(players) < 2:
        raise RunError("a tournament needs two players or more")
    twice = next((p for i, p in enumerate(players) if p in players[:i]), None)
    if twice is not None:
        raise RunError(f"player {twice!r} is named twice")
    loaded = []
    for player in players:
        profile, own = read_player(player)
        loaded.append(load_profile(profile, [*settings, *own]))
    if card_play_only:
        first = loaded[0].spec
        loaded = [build_profile(p.name, {seat: {**first[seat], "card_play": p.spec[seat]["card_play"]}
                                         for seat in first}) for p in loaded]
    return [Profile(player, p.description, p.spec, p.seats) for player, p in zip(players, loaded)]


def pair_folder(folder: Path, a: str, b: str) -> Path:
    """The run folder of the match between players ``a`` and ``b`` in the tournament's ``folder``."""
    return Path(folder) / f"{settings_suffix([a])[1:]}-vs-{settings_suffix([b])[1:]}"


def play_tournament(players, *, deals: int = 2000, seed: int = 0, card_play_only: bool = False, settings=(),
                    out=None, jobs: int | None = None, chunk_size: int = 500, progress=None,
                    notice=None, fix=(), where: str | None = None) -> Tournament:
    """Play every pair of ``players`` (profile names or files, with ``@`` settings) in a duplicate
    match of ``deals`` deals (only deals with the cards ``fix`` fixed that meet ``where``, as
    :func:`sim.runs.simulation.simulate`); write the standings, the pairs and the plot to the
    tournament's folder and return them. Running it again resumes the matches not finished."""
    players = tuple(players)
    profiles = load_players(players, settings, card_play_only)
    dealing = run_dealing(fix, where)
    kind = "tournament-card-play" if card_play_only else "tournament"
    named = settings_suffix(settings) + dealing_suffix(dealing)
    folder = Path(out) if out is not None else default_folder(f"{kind}{settings_suffix(players)}", seed=seed,
                                                              deals=deals, settings=named)
    make_folder(folder)
    pairs = [(i, j) for i in range(len(players)) for j in range(i + 1, len(players))]
    folders = {}
    for k, (i, j) in enumerate(pairs):
        folders[i, j] = match_profiles(profiles[i], profiles[j], deals=deals, seed=seed, card_play_only=card_play_only,
                                       out=pair_folder(folder, players[i], players[j]), jobs=jobs,
                                       chunk_size=chunk_size, notice=notice, dealing=dealing,
                                       progress=_of_all(progress, before=k * deals, total=len(pairs) * deals))
    standings, pair_results = results(players, folders)
    result = Tournament(folder, players, deals=deals, card_play_only=card_play_only, standings=standings,
                        pairs=pair_results)
    write_results(result)
    return result


def _of_all(progress, *, before: int, total: int):
    """The progress of one match told as that of the whole tournament: ``before`` deals of the matches
    before it done, ``total`` in all."""
    if progress is None:
        return None
    return lambda done, _, rate, **named: progress(before + done, total, rate, **named)


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
