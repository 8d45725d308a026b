"""Who plays a run, as its processes build them and its manifest and rows record them: a profile
built once a process, the digests of the models its card players read and of the files of Python its
strategies come from, and every logged evaluator's thresholds (in the manifest) and scores (in each row)."""

from __future__ import annotations

import hashlib
import json
import re

import numpy as np

from sim.rules.cards import SEAT_NAMES, SEAT_SUFFIXES
from sim.runs.schema import evaluator_column
from strategies.evaluators import declared, thresholds_by_game
from strategies.profiles import Profile, build_profile, fitted_for_another_card_player
from strategies.registry import build, canonical_source, plugin_digest

_profiles: dict[str, Profile] = {}


def cached_profile(name: str, spec: dict) -> Profile:
    """The profile of ``spec``, built once per process (parts of a run share it)."""
    key = json.dumps(spec, sort_keys=True)
    if key not in _profiles:
        _profiles[key] = build_profile(name, spec)
    return _profiles[key]


def card_play_models(name: str, spec: dict) -> dict:
    """What a run's manifest says of the models its card players read: by seat, the first 16 hex digits
    of the SHA-256 of each model's weights (seats whose player reads none left out). The spec names a
    model only by its file, or not at all for the shipped one, whose contents another skatsim may change:
    a run made with other weights is another run, and resuming it is refused. (A player in Python has no
data.)"""
    seats = cached_profile(name, spec).seats
    return {seat: weights_digest(player.card_play.data)
            for seat, player in zip(SEAT_NAMES, seats) if getattr(player.card_play, "data", None) is not None}


def weights_digest(weights) -> str:
    """The first 16 hex digits of the SHA-256 of a model's weights (as 64-bit floats): what a manifest records."""
    return hashlib.sha256(np.ascontiguousarray(weights, np.float64)).hexdigest()[:16]


def with_card_play_models(described: dict, models: dict) -> dict:
    """``described`` with ``card_play_models`` added when any card player reads a model (by seat, or by
    side and seat); a run whose players read none keeps the manifest it always had."""
    if any(models.values()):
        described["card_play_models"] = models
    return described


#: A strategy named by a file of one's own and a name in it: ``FILE.py:NAME``.
_FILE_AND_NAME = re.compile(r"(.+\.py):[A-Za-z_]\w*")


def plugin_files(*specs: dict) -> dict:
    """What a run's manifest says of the files of Python its strategies come from, in any of ``specs`` (profiles'
    specs, spelled out): every ``.py`` file of ``plugins``, and of every ``FILE.py:NAME`` that names a seat's
    strategy or a strategy it takes as a parameter (a bidder's ``evaluator``); by absolute path, the first 16 hex
    digits of the SHA-256 of the contents imported (:func:`strategies.registry.plugin_digest`). The spec names a
    file only by its path, whose contents the user may edit: a run made with another version of a file is
    another run, and resuming it is refused. A module named by its import path (``MODULE:NAME``) is installed
    code and not recorded, nor is what a parameter's data names (the card player a bidder's model was fitted on)."""
    files = set()
    for spec in specs:
        files.update(canonical_source(source) for source in spec.get("plugins", []) if source.endswith(".py"))
        for section in (section for seat in SEAT_NAMES for section in spec.get(seat, {}).values()):
            named = (_FILE_AND_NAME.fullmatch(value) for value in section.values() if isinstance(value, str))
            files.update(canonical_source(found.group(1)) for found in named if found)
    return {path: plugin_digest(path) for path in sorted(files)}


def with_plugin_files(described: dict, files: dict) -> dict:
    """``described`` with ``plugin_files`` added when any strategy comes from a file (:func:`plugin_files`);
    a run without one keeps the manifest it always had."""
    if files:
        described["plugin_files"] = files
    return described


def evaluator_record(name: str) -> dict:
    """What a run's manifest says of a logged evaluator: its thresholds by game (assessed games only)."""
    return {"thresholds": thresholds_by_game(build("evaluator", name))}


def evaluator_columns(names, columns: dict, seat_scores: bool = False) -> dict:
    """Each evaluator's scores of a game-mode batch: the declarer's score for the declared game (NaN
    for a passed-in deal or a game not assessed) and, with ``seat_scores``, every seat's score for
    every game it assesses (which follow from the logged hands: ``build("evaluator", name)(hand, seat)``).

    Without ``seat_scores`` only the declarers' hands are scored (a third of the work): a row's
    scores depend on its hand and seat alone, so they are the same."""
    if seat_scores:
        return _every_seats_scores(names, columns)
    declarer, game = columns["declarer"], np.maximum(columns["game"], 0)
    played = np.flatnonzero(declarer >= 0)
    seats = np.asarray(declarer[played], dtype=np.int64)
    dealt = np.column_stack([columns[f"hand_{suffix}"] for suffix in SEAT_SUFFIXES])
    out = {}
    for column, scores in declared_scores(names, hands=dealt[played, seats], seats=seats,
                                          games=game[played]).items():
        out[column] = np.full(len(declarer), np.nan, dtype=np.float32)
        out[column][played] = scores
    return out


def _every_seats_scores(names, columns: dict) -> dict:
    """:func:`evaluator_columns` with every seat's score for every game, and the declarer's."""
    declarer, game = columns["declarer"], np.maximum(columns["game"], 0)
    out = {}
    for name in names:
        evaluate = build("evaluator", name)
        assessed = np.flatnonzero(np.isfinite(evaluate.thresholds))
        chosen = np.full(len(declarer), np.nan, dtype=np.float32)
        for seat, suffix in enumerate(SEAT_SUFFIXES):
            scores = evaluate(columns[f"hand_{suffix}"], seat)
            for g in assessed:
                out[evaluator_column(name, seat, g)] = scores[:, g].astype(np.float32)
            mine = declarer == seat
            chosen[mine] = declared(scores[mine], game[mine])
        out[evaluator_column(name)] = chosen
    return out


def declared_scores(names, *, hands: np.ndarray, seats: np.ndarray, games: np.ndarray) -> dict:
    """Each evaluator's score of each row's hand for the row's game (NaN if it does not assess it)."""
    return {evaluator_column(name): declared(build("evaluator", name)(hands, seats), games) for name in names}


def other_fit_warning(profiles) -> str | None:
    """One line if any of ``profiles`` bids with win probabilities fitted on another card player's play
    than the one it plays with (each such profile named once, however many sides share it), else None."""
    lines = dict.fromkeys(line for line in map(fitted_for_another_card_player, profiles) if line is not None)
    return "; ".join(lines) or None
