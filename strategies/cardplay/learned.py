"""The ``learned`` card player: a linear model per decision context, trained on open-hand answers.

At each decision every legal card gets the numbers of
:mod:`strategies.cardplay.learned_features` (view only), and the score of a card is their
dot product with the weight row of the decision's context; the seat plays the card of best
score (of equal scores the lowest card id). :mod:`strategies.training` fits the weights to the
open-hand teacher of :mod:`strategies.teacher`; ``skatsim train card-play`` writes a model
file, and the file shipped in ``models/`` is the default.

A model file is a NumPy ``.npz`` of plain arrays: ``format`` (:data:`MODEL_FORMAT`),
``version`` (:data:`MODEL_VERSION`), ``features`` (the names of FEATURES, in order),
``weights`` (N_CONTEXTS x N_FEATURES) and ``training`` (a JSON text saying how it was
trained). The weights travel to the kernel after the parameter row (``CardPolicy.data``),
so the player runs in the built-in play loop that numba caches and in the general one.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np
from numba import njit

from sim.rules.cards import lowest_card

from ..registry import StrategyError, register
from .learned_features import FEATURES, N_CONTEXTS, N_FEATURES, card_features, context_of
from .policy import PARAMS_SIZE, CardPolicy

#: Its kind in the built-in play loop (strategies.cardplay.builtin).
LEARNED_KIND = 4
MODEL_FORMAT = "skatsim card-play model"
#: The model files this player reads: a file of another version must be trained again.
MODEL_VERSION = 1
#: The model shipped with skatsim, the player's default.
SHIPPED_MODEL = Path(__file__).resolve().parent / "models" / "learned-v1.npz"


@njit(cache=True)
def learned_card(view, legal, params, rng):
    """The legal card of best score under the weights that follow the parameter row."""
    if (np.int64(legal) & (np.int64(legal) - 1)) == 0:
        return rng, lowest_card(np.int64(legal))
    rows = np.empty((10, N_FEATURES), dtype=np.float64)
    card_features(view, legal, rows)
    base = PARAMS_SIZE + context_of(view) * N_FEATURES
    best, best_score, cards, k = -1, -np.inf, np.int64(legal), 0
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        score = 0.0
        for f in range(N_FEATURES):
            score += rows[k, f] * params[base + f]
        if score > best_score:
            best, best_score = card, score
        k += 1
    return rng, best


def save_model(path, weights: np.ndarray, training: dict) -> Path:
    """Write a model file: the weights (N_CONTEXTS x N_FEATURES) and how they were trained (under a
    temporary name, renamed when complete)."""
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (N_CONTEXTS, N_FEATURES):
        raise ValueError(f"weights must be {N_CONTEXTS} x {N_FEATURES}, not {weights.shape}")
    path = Path(path)
    partial = path.with_name(f".{path.name}.partial")
    with partial.open("wb") as out:
        np.savez_compressed(out, format=np.array(MODEL_FORMAT), version=np.array(MODEL_VERSION),
                            features=np.array(FEATURES), weights=weights,
                            training=np.array(json.dumps(training, sort_keys=True)))
    os.replace(partial, path)
    return path


def load_model(path) -> tuple[np.ndarray, dict]:
    """(weights, training record) of a model file; StrategyError in one line for a file that is not a
    model this skatsim plays (missing, damaged, of another version or other features)."""
    where = f"card_play learned: {path}"
    try:
        with np.load(Path(path), allow_pickle=False) as data:
            arrays = {name: data[name] for name in ("format", "version", "features", "weights", "training")}
    except FileNotFoundError:
        raise StrategyError(f"{where}: no such model file") from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise StrategyError(f"{where} is not a readable model file ({type(error).__name__})") from None
    if str(arrays["format"]) != MODEL_FORMAT:
        raise StrategyError(f"{where} is not a skatsim card-play model")
    version = int(arrays["version"])
    if version != MODEL_VERSION or tuple(map(str, arrays["features"])) != FEATURES:
        raise StrategyError(f"{where} is a model of version {version}; this skatsim plays version "
                            f"{MODEL_VERSION}: train it again with `skatsim train card-play`")
    weights = np.asarray(arrays["weights"], dtype=np.float64)
    if weights.shape != (N_CONTEXTS, N_FEATURES) or not np.isfinite(weights).all():
        raise StrategyError(f"{where} has damaged weights (shape {weights.shape})")
    return weights, json.loads(str(arrays["training"]))


_loaded: dict[str, np.ndarray] = {}


@register("card_play", "learned")
def learned_policy(model: str = "") -> CardPolicy:
    """A linear model per decision context, trained on open-hand answers, at bulk speed.

    ``model``: a model file written by ``skatsim train card-play`` (default: the one shipped).
    """
    path = str(Path(model).expanduser().resolve()) if model else str(SHIPPED_MODEL)
    if path not in _loaded:
        _loaded[path] = load_model(path)[0]
    return CardPolicy("learned", learned_card, (), builtin=LEARNED_KIND, data=_loaded[path])
