"""The result of a duplicate match: which side scores more on the same cards, with its interval.

A match run (mode ``match``) plays every deal six times (``sim.runs.schema.SEATINGS``): for
each seat, A alone against two B players and B alone against two A players. Over the six
plays each side holds every seat alone once and in the pair once, so the luck of the cards
cancels. Per deal:

- A's points: the Seeger-Fabian points of every seat A holds, summed over the six plays;
  B's the same. ``sf_per_game_a`` is A's points over all deals divided by the number of
  games (six per deal; a passed-in deal scores 0 and counts as a game);
- the deal's difference is (A's points - B's points) / 6, so ``difference`` (A minus B,
  positive when A is stronger) is ``sf_per_game_a - sf_per_game_b``; its 95% interval is a
  percentile bootstrap over deals (Poisson resampling of the per-deal differences and games,
  fixed seed): the deals are the independent units, not the games.

The same split by role (points taken as declarer, points taken as defender; both divided
by every game of the match, so they add up to the whole) and by the game type declared
(divided by the games of that type), and each side's win rate as declarer, complete the result; every
interval resamples whole deals, never single games. Everything is computed from the run's Parquet parts with polars.
"""

from __future__ import annotations

import polars as pl

from sim.rules.games import GAME_NAMES
from sim.runs.schema import SEATINGS, seats_of

from .games import game_id
from .intervals import bootstrap_ratio
from .runs import AnalysisError, Run

SIDES = ("a", "b")
PLAYS_PER_DEAL = len(SEATINGS)


def _holds(side: str, seat: int) -> pl.Expr:
    """Whether ``side`` holds ``seat`` in the row's seating."""
    holding = [k for k in range(PLAYS_PER_DEAL) if seat in seats_of(side, k)]
    return pl.col("seating").is_in(holding)


def _points(side: str, part: str) -> pl.Expr:
    """The Seeger-Fabian points of the seats ``side`` holds in a row: all of them, or only the
    declarer's seat (``part`` "declarer") or only the defenders' seats ("defender")."""
    total = pl.lit(0, dtype=pl.Int64)
    for seat, suffix in enumerate("fmr"):
        score = pl.col(f"sf_{suffix}").cast(pl.Int64)
        declares = pl.col("declarer") == seat
        taken = {"all": pl.lit(True), "declarer": declares, "defender": ~declares}[part]
        total = total + pl.when(_holds(side, seat) & taken).then(score).otherwise(0)
    return total


def _check(run: Run) -> dict:
    sides = run.config.get("match")
    if run.mode != "match" or not isinstance(sides, dict):
        raise AnalysisError(f"{run.label} is a {run.mode}-mode run, not a duplicate match (skatsim match)")
    return sides


def per_deal(run: Run, part: str = "all", game: int | None = None) -> pl.DataFrame:
    """Per deal: A's and B's points (``part`` of them; only in games of type ``game`` if given)."""
    frame = run.scan()
    if game is not None:
        frame = frame.filter(~pl.col("passed") & (game_id() == game))
    return (frame.group_by("deal_id")
            .agg(a=_points("a", part).sum(), b=_points("b", part).sum(), games=pl.len())
            .collect())


def _compare(deals: pl.DataFrame, games: int) -> dict:
    """A's and B's points per game over ``games`` games, and the difference with its bootstrap
    interval over the deals (each deal's points A - B and its games, resampled together)."""
    if not deals.height:
        return {"games": 0, "sf_per_game_a": None, "sf_per_game_b": None, "difference": None,
                "difference_low": None, "difference_high": None}
    # each distinct (difference, games) and its count, in a fixed order: the bootstrap draws cell by cell
    cells = deals.select(d=pl.col("a") - pl.col("b"), g="games").group_by("d", "g").len().sort("d", "g")
    _, low, high = bootstrap_ratio(cells["d"].to_numpy(), cells["g"].to_numpy(), cells["len"].to_numpy())
    return {"games": games, "sf_per_game_a": deals["a"].sum() / games,
            "sf_per_game_b": deals["b"].sum() / games, "difference": (deals["a"].sum() - deals["b"].sum()) / games,
            "difference_low": low, "difference_high": high}


def match_result(run: Run) -> pl.DataFrame:
    """The match's result as one row: ``a``, ``b``, ``card_play_only``, ``deals``, ``games``,
    ``sf_per_game_a``, ``sf_per_game_b``, ``difference`` (A - B), ``difference_low``,
    ``difference_high`` and each side's declarer win rate with its interval."""
    sides = _check(run)
    deals = per_deal(run)
    games = deals["games"].sum()
    row = {"a": sides.get("a"), "b": sides.get("b"), "card_play_only": bool(sides.get("card_play_only")),
           "deals": deals.height, **_compare(deals, games)}
    return pl.DataFrame([{**row, **declarer_win_rates(run)}])


def declarer_win_rates(run: Run) -> dict:
    """Each side's win rate as declarer, with an interval from a bootstrap over deals (the plays of
    one deal share its cards, and in a card-play-only match its auction)."""
    per_deal_counts = (run.scan().filter(~pl.col("passed")).group_by("deal_id")
                       .agg(**{f"{side}_{what}": pl.when(_declares(side)).then(column).otherwise(0).sum()
                               for side in SIDES for what, column in (("declared", pl.lit(1)),
                                                                      ("won", pl.col("won").cast(pl.Int64)))})
                       .collect())
    out = {}
    for side in SIDES:
        cells = per_deal_counts.group_by(f"{side}_won", f"{side}_declared").len().sort(pl.all())
        rate, low, high = bootstrap_ratio(*(cells[c].to_numpy() for c in cells.columns))
        defined = cells[f"{side}_declared"].sum() > 0
        out.update({f"declarer_win_rate_{side}": rate if defined else None,
                    f"declarer_win_rate_{side}_lo": low, f"declarer_win_rate_{side}_hi": high})
    return out


def _declares(side: str) -> pl.Expr:
    expression = pl.lit(False)
    for seat in range(3):
        expression = expression | (_holds(side, seat) & (pl.col("declarer") == seat))
    return expression


def match_splits(run: Run) -> pl.DataFrame:
    """The result split by role (declarer and defender play) and by the game type declared: one row
    each, with the points per game of A and B and the difference with its interval.

    A game type's row compares A and B on the games each side chose to declare: where the sides bid
    and declare differently it holds other deals and hands for A than for B, so it says where each
    side's points come from, not which side plays that game better (in a card-play-only match both
    sides play the games A declared).
    """
    _check(run)
    everything = per_deal(run)
    games = everything["games"].sum()
    rows = [{"split": "all play", **_compare(everything, games)}]
    for part in ("declarer", "defender"):
        rows.append({"split": f"{part} play", **_compare(per_deal(run, part), games)})
    for g, name in enumerate(GAME_NAMES):
        deals = per_deal(run, "all", g)
        if deals.height:
            rows.append({"split": name, **_compare(deals, deals["games"].sum())})
    return pl.DataFrame(rows, schema=SPLIT_SCHEMA)


SPLIT_SCHEMA = {"split": pl.String, "games": pl.Int64, "sf_per_game_a": pl.Float64, "sf_per_game_b": pl.Float64,
                "difference": pl.Float64, "difference_low": pl.Float64, "difference_high": pl.Float64}


def match_table(run: Run) -> str:
    """The result of a match as the table ``skatsim match`` prints: each side's Seeger-Fabian points per game
    and A - B with its interval, overall, by declarer and defender play and by game type, and each side's
    declarer win rate."""
    row, splits, folder = match_result(run).row(0, named=True), match_splits(run), run.folder
    def number(value, digits=1):
        return "-" if value is None else f"{value:+.{digits}f}" if digits == 1 else f"{value:.{digits}f}"

    kind = ", card play only" if row["card_play_only"] else ""
    lines = [f"Duplicate match: A = {row['a']}, B = {row['b']}{kind}; {row['deals']:,} deals, "
             f"{row['games']:,} games ({folder})",
             f"{'Seeger-Fabian points per game':<32}{'A':>9}{'B':>9}   A - B (95% interval over deals)"]
    for split in splits.iter_rows(named=True):
        low, high = number(split["difference_low"]), number(split["difference_high"])
        interval = f"{number(split['difference'])} ({low} to {high})"
        lines.append(f"  {split['split']:<30}{number(split['sf_per_game_a']):>9}{number(split['sf_per_game_b']):>9}"
                     f"   {interval}")
    rates = [f"{100 * row[f'declarer_win_rate_{s}']:.1f}% ({100 * row[f'declarer_win_rate_{s}_lo']:.1f}"
             f" to {100 * row[f'declarer_win_rate_{s}_hi']:.1f})" if row[f"declarer_win_rate_{s}"] is not None
             else "-" for s in "ab"]
    lines.append(f"Declarer win rate: A {rates[0]}, B {rates[1]}")
    return "\n".join(lines)
