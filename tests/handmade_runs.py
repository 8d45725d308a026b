"""Run folders made by hand for the analysis tests: known games whose figures can be worked out on paper."""

from __future__ import annotations

import numpy as np

from sim.runs.folder import Manifest, write_part
from sim.runs.schema import DECLARE_MODE_TYPES, GAME_MODE_TYPES, SCHEMA_VERSION

CLUBS, DIAMONDS = 3, 0


#: What the manifest of a hand-made run says of its evaluator: classic, with its shipped thresholds.
CLASSIC = {"classic": {"thresholds": {"diamonds": 4.0, "hearts": 4.0, "spades": 4.0, "clubs": 4.0,
                                      "grand": 5.0}}}


def write_run(folder, columns: dict, mode: str = "game", seed: int = 7, schema_version=SCHEMA_VERSION,
              settings: dict | None = None):
    """A finished run folder with one part holding ``columns`` (every schema column, defaults zero; deal
    ``i`` in row ``i`` unless ``deal_id`` is given); an ``eval_classic`` column is the classic evaluator's,
    as its manifest says. ``settings`` adds to the manifest's config (``{"variants": "all"}``)."""
    folder.mkdir(parents=True, exist_ok=True)
    n = len(next(iter(columns.values())))
    types = GAME_MODE_TYPES if mode == "game" else DECLARE_MODE_TYPES
    full = {name: np.zeros(n, dtype=np.int64) for name in types}
    full.update({name: np.zeros(n, dtype=np.float32) for name in ("evaluator_score",) if name in types})
    full.update({name: np.full(n, CLUBS) for name in types if "game" in name})
    full["deal_id"] = np.arange(n)
    full.update(columns)
    facts = write_part(folder, 0, full, mode)
    config = {"deals": n, "seed": seed, "profile": "handmade", "profile_spec": {}, "mode": mode,
              "chunk_size": n, "log_tricks": False, "schema_version": schema_version,
              "evaluators": CLASSIC if "eval_classic" in columns else {}, **(settings or {})}
    Manifest(config, {}, {"0": facts}, created="2024-01-01T00:00:00", finished="2024-01-01T00:00:01").save(folder)
    return folder


def clubs_games(won: list[bool], passed: int = 0, hand_f=None) -> dict:
    """Forehand plays clubs at 18 'with 1' (value 24) in each deal, then ``passed`` deals are passed in."""
    won = np.array(won + [False] * passed)
    played = np.array([True] * (len(won) - passed) + [False] * passed)
    sf_declarer = np.where(won, 24 + 50, -2 * 24 - 50)
    defenders = np.where(won, 0, 40)
    columns = {"passed": ~played, "declarer": np.where(played, 0, -1), "bid": np.where(played, 18, 0),
               "game": np.where(played, CLUBS, -1), "matadors": np.where(played, 1, 0),
               "declarer_points": np.where(won, 70, 50), "declarer_tricks": np.where(won, 6, 4),
               "won": won, "game_value": np.where(played, 24, 0), "score": np.where(won, 24, -48) * played,
               "sf_f": sf_declarer * played, "sf_m": defenders * played, "sf_r": defenders * played,
               "value_reached": np.where(played, 24, 0), "won_in_play": won}
    if hand_f is not None:
        columns["hand_f"] = np.asarray(hand_f)
    return columns


def declare_rows(scores_and_wins: list[tuple[float, bool]], **columns) -> dict:
    """Diamonds 'with 1' declared at 18 (value 18): won +68, lost -86 Seeger-Fabian for the declarer and
    40 for each defender; by forehand, one row a deal, unless ``columns`` (``deal_id``, ``seat``, ``hand``
    ...) say otherwise."""
    score = np.array([s for s, _ in scores_and_wins], dtype=np.float32)
    won = np.array([w for _, w in scores_and_wins])
    seat = np.asarray(columns.pop("seat", np.zeros(len(won), dtype=int)))
    declarer, defender = np.where(won, 68, -86), np.where(won, 0, 40)
    by_seat = {f"sf_{suffix}": np.where(seat == s, declarer, defender) for s, suffix in enumerate("fmr")}
    return {"seat": seat, "game": np.full(len(won), DIAMONDS), "matadors": np.ones(len(won)),
            "declarer_points": np.where(won, 70, 50), "declarer_tricks": np.where(won, 6, 4), "won": won,
            "game_value": np.full(len(won), 18), "score": np.where(won, 18, -36), **by_seat,
            "bid": np.full(len(won), 18), "value_reached": np.full(len(won), 18), "won_in_play": won,
            "eval_classic": score, **columns}
