"""Every built-in evaluator's scores of every hand, as columns for the run logs.

Analysis compares evaluators on the same hands, so a run logs each seat's score
from each built-in evaluator for each game type the evaluator assesses (a column
whose threshold is +inf is not assessed and is left out).
"""

from __future__ import annotations

import numpy as np

from sim.cards import SEAT_SUFFIXES
from sim.games import GAME_NAMES

from .evaluators import evaluator

#: The evaluators whose scores every run logs (``default`` only combines columns of these).
LOGGED_EVALUATORS = ("classic", "trump_length", "grand_rule", "null_rule", "weighted")


def assessed_games(name: str) -> list[int]:
    return [g for g, t in enumerate(evaluator(name).thresholds) if np.isfinite(t)]


def column_name(name: str, seat: int, game: int) -> str:
    return f"eval_{name}_{SEAT_SUFFIXES[seat]}_{GAME_NAMES[game]}"


def evaluator_columns(columns: dict) -> dict:
    """``eval_<evaluator>_<f|m|r>_<game>`` float32 columns for a batch of played deals."""
    out = {}
    for name in LOGGED_EVALUATORS:
        evaluate, games = evaluator(name), assessed_games(name)
        for seat, suffix in enumerate(SEAT_SUFFIXES):
            hands = columns[f"hand_{suffix}"]
            scores = evaluate(hands, np.full(len(hands), seat))
            for g in games:
                out[column_name(name, seat, g)] = scores[:, g].astype(np.float32)
    return out


def declared_evaluator_columns(hands: np.ndarray, seat: np.ndarray, game: np.ndarray) -> dict:
    """``eval_<evaluator>`` float32 columns: each row's seat's score for the row's game (NaN if not assessed)."""
    out = {}
    for name in LOGGED_EVALUATORS:
        evaluate = evaluator(name)
        scores = evaluate(hands, seat)[np.arange(len(hands)), game].astype(np.float32)
        out[f"eval_{name}"] = np.where(np.isfinite(scores), scores, np.nan).astype(np.float32)
    return out
