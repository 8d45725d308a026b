"""The ``learned`` card player: per decision context a linear model plus a small network, trained on a
teacher's values of the cards.

At each decision every legal card gets the numbers of
:mod:`strategies.cardplay.learned_features` (view only), and the score of a card is their dot
product with the weight row of the decision's context, plus a one-hidden-layer network: ``H``
rectified units shared by every context (``hidden``), each with a bias and an output weight per
context (``hidden_bias``, ``hidden_out``). The seat plays the card of best score (of equal scores
the lowest card id). :mod:`strategies.learning.training` fits the model to a teacher of
:mod:`strategies.learning.teacher` (the shipped model to rollouts of the learned player's own play);
``skatsim train card-play`` writes a model file, and the file shipped in ``models/`` is the
default.

A model file is a NumPy ``.npz`` of plain arrays: ``format`` (:data:`MODEL_FORMAT`),
``version`` (:data:`MODEL_VERSION`; a file of version 3 still plays, on the first 45 features),
``features`` (the names of FEATURES, in order), ``weights`` (N_CONTEXTS x N_FEATURES), ``hidden``
(H x N_FEATURES), ``hidden_bias`` and
``hidden_out`` (N_CONTEXTS x H; H may be 0) and ``training`` (a JSON text saying how it was
trained). The model travels to the kernel flattened as the player's data (``CardPolicy.data``,
laid out by :func:`model_data`), so the player runs in the built-in play loop that numba caches
and in the general one.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np
from numba import njit

from sim.rules.cards import lowest_card

from ..parameters import Parameter
from ..registry import StrategyError, register
from .learned_features import (
    DECISION_FEATURES,
    FEATURES,
    FEATURES_V3,
    N_CONTEXTS,
    N_FEATURES,
    N_FEATURES_V3,
    card_features,
    context_of,
)
from .policy import CardPolicy

#: Its kind in the built-in play loop (strategies.cardplay.builtin).
LEARNED_KIND = 4
MODEL_FORMAT = "skatsim card-play model"
#: The version of the model files training writes; VERSION_FEATURES are the versions this player reads
#: (a file of another version must be trained again).
MODEL_VERSION = 4
#: The features of each version this player reads (a model of version 3 reads the first 45).
VERSION_FEATURES = {3: FEATURES_V3, 4: FEATURES}
#: The model shipped with skatsim, the player's default.
SHIPPED_MODEL = Path(__file__).resolve().parent / "models" / "learned-v7.npz"


#: The arrays of a model, in the order :func:`model_data` lays them out after the hidden size.
MODEL_ARRAYS = ("weights", "hidden", "hidden_bias", "hidden_out")


@njit(cache=True)
def learned_card(view, legal, params, data, rng):
    """The legal card of best score under the model ``data`` (:func:`model_data`)."""
    if (np.int64(legal) & (np.int64(legal) - 1)) == 0:
        return rng, lowest_card(np.int64(legal))
    return rng, learned_choice(view, legal, np.int64(legal), data)


@njit(cache=True)
def learned_choice(view, legal, among, model):
    """The card of best score among ``among`` (some of the legal cards), each card scored as the learned
    player scores it when ``legal`` are its cards (a search may narrow its choice to ``among``)."""
    rows = np.empty((10, N_FEATURES), dtype=np.float64)
    count = card_features(view, legal, rows)
    scored = np.zeros(count, dtype=np.bool_)
    cards = np.int64(legal)
    for k in range(count):
        scored[k] = (among >> lowest_card(cards)) & 1
        cards &= cards - 1
    scores = card_scores(rows, scored, context_of(view), model)
    best, best_score, cards = -1, -np.inf, np.int64(legal)
    for k in range(count):
        card = lowest_card(cards)
        cards &= cards - 1
        if scored[k] and scores[k] > best_score:
            best, best_score = card, scores[k]
    return best


@njit(cache=True)
def card_scores(rows, scored, ctx, model):
    """The score of each card ``k`` with ``scored[k]`` (its feature row ``rows[k]``) in context ``ctx`` under
    a model of either version: the feature count is passed as a constant, since the scores' loops run in
    about half the time when it is known as they compile."""
    if model[1] == N_FEATURES_V3:
        return _card_scores(rows, scored, ctx, model, N_FEATURES_V3)
    return _card_scores(rows, scored, ctx, model, N_FEATURES)


@njit(cache=True, inline="always")
def _card_scores(rows, scored, ctx, model, features):
    """The scores of :func:`card_scores` for a model of ``features`` features: the linear part, then each
    hidden unit's rectified sum times its output weight, unit by unit (a unit at or below zero adds zero).
    The share of the bias and of DECISION_FEATURES, the same for every card, is summed once a decision;
    each card's own features then add theirs in the order of the features and the units, so a score is
    the same to the last bit whatever is scored beside it; the cards' last sums run side by side, which
    spares each card's chain of additions its wait (a tenth of the player's time)."""
    units = np.int64(model[0])
    linear = 2 + ctx * features
    hidden = 2 + N_CONTEXTS * features
    bias = hidden + units * features + ctx * units
    out = bias + N_CONTEXTS * units
    shared_from, shared_to = DECISION_FEATURES
    shared_to = min(shared_to, features)
    start = np.empty(units, dtype=np.float64)
    for h in range(units):
        start[h] = model[bias + h]
        start[h] += 1.0 * model[hidden + h]
    base = 0.0 + 1.0 * model[linear]
    if shared_from < shared_to:
        first = np.argmax(scored)
        for f in range(shared_from, shared_to):
            x = rows[first, f]
            base += x * model[linear + f]
            unit = hidden + f * units
            for h in range(units):
                start[h] += x * model[unit + h]
    sums = np.zeros((len(scored), units), dtype=np.float64)
    scores = np.zeros(len(scored), dtype=np.float64)
    for k in range(len(scored)):
        if not scored[k]:
            continue
        unit_sums = sums[k]
        for h in range(units):
            unit_sums[h] = start[h]
        score = base
        for f in range(1, features):
            x = rows[k, f]
            if x == 0.0 or shared_from <= f < shared_to:
                continue
            score += x * model[linear + f]
            unit = hidden + f * units
            for h in range(units):
                unit_sums[h] += x * model[unit + h]
        scores[k] = score
    for h in range(units):      # unit by unit, the cards side by side
        weight = model[out + h]
        for k in range(len(scored)):
            scores[k] += max(sums[k, h], 0.0) * weight
    return scores


def linear_model(weights: np.ndarray) -> dict:
    """A model of linear weights only (no hidden units)."""
    weights = np.asarray(weights, dtype=np.float64)
    return {"weights": weights, "hidden": np.zeros((0, weights.shape[1])),
            "hidden_bias": np.zeros((N_CONTEXTS, 0)), "hidden_out": np.zeros((N_CONTEXTS, 0))}


def _check_shapes(model: dict, features: int = N_FEATURES) -> int:
    """The model's hidden size; ValueError when an array has the wrong shape or is not finite."""
    units = np.shape(model["hidden"])[0]
    shapes = {"weights": (N_CONTEXTS, features), "hidden": (units, features),
              "hidden_bias": (N_CONTEXTS, units), "hidden_out": (N_CONTEXTS, units)}
    for name, shape in shapes.items():
        if np.shape(model[name]) != shape:
            raise ValueError(f"{name} must be {shape[0]} x {shape[1]}, not {np.shape(model[name])}")
        if not np.isfinite(model[name]).all():
            raise ValueError(f"{name} holds values that are not finite")
    return units


def model_data(model: dict) -> np.ndarray:
    """The model flattened as the kernel reads it: H, its number of features (45 for
    a model of version 3, which reads the first of FEATURES), then MODEL_ARRAYS (the hidden weights by
    feature, then unit, so that the kernel adds a feature to every unit in a row)."""
    features = np.shape(model["weights"])[-1]
    if features not in (len(f) for f in VERSION_FEATURES.values()):
        known = " or ".join(str(len(f)) for f in VERSION_FEATURES.values())
        raise ValueError(f"weights must have {known} features, not {features}")
    units = _check_shapes(model, features)
    arrays = {n: np.asarray(model[n], dtype=np.float64) for n in MODEL_ARRAYS}
    arrays["hidden"] = arrays["hidden"].T
    return np.concatenate([[float(units), float(features)], *(arrays[n].ravel() for n in MODEL_ARRAYS)])


def save_model(path, model: dict, training: dict) -> Path:
    """Write a model file: the arrays of MODEL_ARRAYS and how they were trained (under a temporary
    name, renamed when complete)."""
    _check_shapes(model)
    path = Path(path)
    partial = path.with_name(f".{path.name}.partial")
    with partial.open("wb") as out:
        np.savez_compressed(out, format=np.array(MODEL_FORMAT), version=np.array(MODEL_VERSION),
                            features=np.array(FEATURES), training=np.array(json.dumps(training, sort_keys=True)),
                            **{n: np.asarray(model[n], dtype=np.float64) for n in MODEL_ARRAYS})
    os.replace(partial, path)
    return path


def load_model(path) -> tuple[dict, dict]:
    """(model arrays, training record) of a model file; StrategyError in one line for a file that is
    not a model this skatsim plays (missing, damaged, of another version or other features)."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(path))     # one line, whatever the name
    where = f"card_play learned: {shown}"
    try:
        with np.load(Path(path), allow_pickle=False) as data:
            head = {name: data[name] for name in ("format", "version", "features")}
            if str(head["format"]) != MODEL_FORMAT:
                raise StrategyError(f"{where} is not a skatsim card-play model")
            version = int(head["version"])
            features = VERSION_FEATURES.get(version)
            if features is None or tuple(map(str, head["features"])) != features:
                raise StrategyError(f"{where} is a model of version {version}; this skatsim plays versions "
                                    f"{min(VERSION_FEATURES)} to {MODEL_VERSION}: train it again with "
                                    "`skatsim train card-play`")
            model = {name: np.asarray(data[name], dtype=np.float64) for name in MODEL_ARRAYS}
            training = str(data["training"])
    except StrategyError:
        raise
    except FileNotFoundError:
        raise StrategyError(f"{where}: no such model file") from None
    except (OSError, ValueError, KeyError, EOFError, TypeError, zipfile.BadZipFile) as error:
        raise StrategyError(f"{where} is not a readable model file ({type(error).__name__})") from None
    try:
        _check_shapes(model, len(features))
        record = json.loads(training)
    except ValueError as error:
        raise StrategyError(f"{where} has a damaged model ({error})") from None
    return model, record


_loaded: dict[str, np.ndarray] = {}


#: Its parameters.
LEARNED_PARAMETERS = (
    Parameter("model", "text", "", "a model file written by `skatsim train card-play` (empty: the one shipped)"),
)


@register("card_play", "learned", parameters=LEARNED_PARAMETERS)
def learned_policy(model) -> CardPolicy:
    """A linear model and a small network per decision context, trained on simulated play, at bulk speed."""
    return CardPolicy("learned", learned_card, builtin=LEARNED_KIND, data=model_weights(model))


def model_weights(model: str) -> np.ndarray:
    """The weights of a model file as the kernel reads them (:func:`model_data`), read once per process
    (``model`` empty: the one shipped)."""
    path = str(Path(model).expanduser().resolve()) if model else str(SHIPPED_MODEL)
    if path not in _loaded:
        _loaded[path] = model_data(load_model(path)[0])
    return _loaded[path]
