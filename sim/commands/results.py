"""A tournament's result as JSON (its tables for people are :func:`analysis.tournament.tournament_table` and
:func:`analysis.match.match_table`)."""

from __future__ import annotations

import json

from analysis.tournament import Tournament


def tournament_json(result: Tournament) -> str:
    """The tournament's result as one JSON object."""
    return json.dumps({"folder": str(result.folder), "players": list(result.players), "deals": result.deals,
                       "card_play_only": result.card_play_only, "standings": result.standings.to_dicts(),
                       "pairs": result.pairs.to_dicts()})
