"""Results of duplicate matches and tournaments as text for people (and the tournament as JSON)."""

from __future__ import annotations

import json

from analysis.tournament import Tournament


def match_text(row: dict, splits, folder) -> str:
    """The result of a match as a table for people."""
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


def tournament_text(result: Tournament) -> str:
    """The standings and the pairs as a table for people."""
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


def tournament_json(result: Tournament) -> str:
    return json.dumps({"folder": str(result.folder), "players": list(result.players), "deals": result.deals,
                       "card_play_only": result.card_play_only, "standings": result.standings.to_dicts(),
                       "pairs": result.pairs.to_dicts()})
