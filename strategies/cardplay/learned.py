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
``version`` (:data:`MODEL_VERSION`; a file of version 3 still plays, on the first 45 features, and of
version 4 on the first 53),
``features`` (the names of FEATURES, in order), ``weights`` (N_CONTEXTS x N_FEATURES), ``hidden``
(H x N_FEATURES), ``hidden_bias`` and
``hidden_out`` (N_CONTEXTS x H; H may be 0) and ``training`` (a JSON text saying how it was
trained). The model travels to the kernel as the player's data (``CardPolicy.data``), laid out by
:func:`model_data` in float32 for the processor's vector registers (:mod:`.vectors`), and every play
loop hands it over (:mod:`.table`).

A decision scores each legal card in a fixed order: the dot product of its features with the
context's weights; and the network, whose unit sums start, once a decision, from the context's
biases, the bias feature and the features the same for every card (DECISION_FEATURES), and add
each of the card's other non-zero features in their order. Every sum is float32 and its order is
fixed in :mod:`.vectors`, so a card's score is the same on every processor.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np
from numba import njit, types

from sim.rules.cards import lowest_card

from ..parameters import Parameter
from ..registry import StrategyError, register
from .heuristic import rule_based_card
from .learned_features import (
    DECISION_FEATURES,
    FEATURES,
    FEATURES_V3,
    FEATURES_V4,
    N_CONTEXTS,
    N_FEATURES,
    card_features_given,
    compile_card_features,
    context_of,
)
from .policy import CardPolicy, KernelPlayer
from .vectors import (
    CHUNK,
    LANES,
    dot,
    hidden_score,
    nonzero_features,
    stack_indices,
    stack_numbers,
    stack_rows,
    unit_sums,
)

MODEL_FORMAT = "skatsim card-play model"
#: The version of the model files training writes; VERSION_FEATURES are the versions this player reads
#: (a file of another version must be trained again).
MODEL_VERSION = 5
#: The features of each version this player reads (a model of version 3 reads the first 45, of version 4
#: the first 53: the features of a null came with version 5).
VERSION_FEATURES = {3: FEATURES_V3, 4: FEATURES_V4, 5: FEATURES}
#: The model shipped with skatsim, the player's default.
SHIPPED_MODEL = Path(__file__).resolve().parent / "models" / "learned-v7.npz"


#: The arrays of a model file.
MODEL_ARRAYS = ("weights", "hidden", "hidden_bias", "hidden_out")
#: The kernel's model (:func:`model_data`, float32): a head of HEAD numbers (the features F, F padded to
#: a multiple of LANES, the units padded to a multiple of CHUNK), then the linear weights (a row of
#: padded features per context), the hidden weights (a row of padded units per padded feature), the
#: hidden biases and output weights (a row of padded units per context), which features a card
#: adds to its unit sums itself (1, or 0 for the bias and the features of the whole decision), and per
#: context the first unit and the count of units its scores read (:func:`used_units`).
HEAD = 4
#: Room for a decision's feature rows: the most legal cards, and the features padded for the vectors.
MOST_CARDS = 10
ROW_WIDTH = -(-N_FEATURES // LANES) * LANES
#: The most hidden units a model may have (a decision keeps its unit sums on the stack).
MOST_UNITS = 1024
#: Room for a card's non-zero features, with a vector to spare.
FEATURE_ROOM = ROW_WIDTH + LANES


@njit(cache=True)
def learned_card(view, legal, params, data, rng):
    """The legal card of best score under the model ``data`` (:func:`model_data`)."""
    return rng, learned_play(view, legal, data)


@njit(cache=True, inline="always")
def learned_turn(view, legal, params, data, seat, rng):
    """:func:`learned_card` as the play loops ask it (:class:`strategies.cardplay.policy.KernelPlayer`): the
    seat's model read in place, sparing a parameter row's binding a turn."""
    return rng, learned_play(view, legal, data[seat])


@njit(cache=True, inline="always")
def learned_play(view, legal, model):
    """:func:`learned_card` without the parameters and random stream it does not read. The heuristic's card,
    one of the features, is worked out here, in the loop, which compiles the heuristic's rules anyway."""
    legal = np.int64(legal)
    if (legal & (legal - 1)) == 0:
        return lowest_card(legal)
    return learned_choice_given(view, legal, legal, np.int64(rule_based_card(view, legal)), model)


@njit(cache=True)
def learned_choice(view, legal, among, model):
    """The card of best score among ``among`` (some of the legal cards), each card scored as the learned
    player scores it when ``legal`` are its cards (a search may narrow its choice to ``among``); of equal
    scores the lowest card."""
    legal = np.int64(legal)
    return learned_choice_given(view, legal, np.int64(among), np.int64(rule_based_card(view, legal)), model)


#: The types the play loop calls :func:`learned_choice_given` with (a view, the legal cards, the cards to
#: choose among, the heuristic's card, the model).
LOOP_TYPES = (types.int64[::1], types.int64, types.int64, types.int64, types.float32[::1])


@njit(cache=True)
def learned_choice_given(view, legal, among, rule_card, model):
    """:func:`learned_choice` told the heuristic's card ``rule_card`` (see
    :func:`strategies.cardplay.learned_features.card_features_given`)."""
    rows = stack_rows(MOST_CARDS, ROW_WIDTH)
    scores = stack_numbers(MOST_CARDS)
    count = card_features_given(view, legal, rule_card, rows)
    for k in range(count):
        for f in range(N_FEATURES, ROW_WIDTH):
            rows[k, f] = 0.0
    card_scores(rows, count, context_of(view), model, scores)
    best, best_score, cards = -1, -np.inf, np.int64(legal)
    for k in range(count):
        card = lowest_card(cards)
        cards &= cards - 1
        if (among >> card) & 1 and scores[k] > best_score:
            best, best_score = card, scores[k]
    return best


@njit(cache=True)
def card_scores(rows, count, ctx, model, scores):
    """``scores[k]``: the score of the card whose features are ``rows[k]`` (ROW_WIDTH float32 numbers, zero
    past the features) for each k < ``count``, in context ``ctx`` (see the module for the order of the sums)."""
    features, width, units = np.int64(model[0]), np.int64(model[1]), np.int64(model[2])
    linear = HEAD + ctx * width
    hidden = HEAD + N_CONTEXTS * width
    bias = hidden + width * units + ctx * units
    out = hidden + width * units + N_CONTEXTS * units + ctx * units
    keep = hidden + width * units + 2 * N_CONTEXTS * units
    # the units the context's output reads: a null network of its own is not summed in a suit game
    first, used = np.int64(model[keep + width + 2 * ctx]), np.int64(model[keep + width + 2 * ctx + 1])
    value = stack_numbers(FEATURE_ROOM)
    index = stack_indices(FEATURE_ROOM)
    start = stack_numbers(MOST_UNITS)
    # the unit sums' start: the bias feature, then the features of the whole decision (the first card's)
    index[0], value[0], shared = 0, 1.0, 1
    for f in range(DECISION_FEATURES[0], min(DECISION_FEATURES[1], features)):
        index[shared], value[shared] = f, rows[0, f]
        shared += 1
    unit_sums(model, hidden + first, units, used, bias + first, index, value, shared, start)
    for k in range(count):
        n = nonzero_features(rows, k * ROW_WIDTH, model, keep, width, index, value)
        scores[k] = (dot(rows, k * ROW_WIDTH, model, linear, width)
                     + hidden_score(model, hidden + first, out + first, units, used, index, value, n, start))


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
    """The model as the kernel reads it (float32, laid out as HEAD says): the linear weights, the hidden
    weights by feature then unit (a feature adds to every unit in a row), the hidden biases and output
    weights, each row padded with zeros to a whole number of vectors (a padded unit adds nothing), the
    features a card adds itself, and the units each context reads (:func:`used_units`). A model of version
    3 reads the first 45 of FEATURES, of version 4 the first 53."""
    features = np.shape(model["weights"])[-1]
    if features not in (len(f) for f in VERSION_FEATURES.values()):
        known = " or ".join(str(len(f)) for f in VERSION_FEATURES.values())
        raise ValueError(f"weights must have {known} features, not {features}")
    units = _check_shapes(model, features)
    width, padded = ROW_WIDTH, -(-units // CHUNK) * CHUNK
    if padded > MOST_UNITS:
        raise ValueError(f"a model may have at most {MOST_UNITS} hidden units, not {units}")

    def padded_array(array, rows, columns):
        out = np.zeros((rows, columns), dtype=np.float32)
        array = np.asarray(array, dtype=np.float64)
        out[: array.shape[0], : array.shape[1]] = array
        return out.ravel()

    keep = np.zeros(width, dtype=np.float32)
    keep[1:features] = 1.0
    keep[DECISION_FEATURES[0]:DECISION_FEATURES[1]] = 0.0
    head = np.array([features, width, padded, 0], dtype=np.float32)
    return np.concatenate([head, padded_array(model["weights"], N_CONTEXTS, width),
                           padded_array(np.asarray(model["hidden"]).T, width, padded),
                           padded_array(model["hidden_bias"], N_CONTEXTS, padded),
                           padded_array(model["hidden_out"], N_CONTEXTS, padded), keep,
                           used_units(model["hidden_out"]).astype(np.float32).ravel()])


def used_units(hidden_out) -> np.ndarray:
    """Per context (a row each), the first unit and the count of units whose output weight in that context
    is not zero, widened to whole CHUNKs: the units a context's scores read (0, 0 for a context that reads
    none). A unit of zero output adds nothing to a score, so leaving it out changes no score."""
    hidden_out = np.asarray(hidden_out)
    out = np.zeros((N_CONTEXTS, 2), dtype=np.int64)
    for c in range(N_CONTEXTS):
        read = np.flatnonzero(hidden_out[c] != 0)
        if len(read):
            first = read[0] // CHUNK * CHUNK
            out[c] = first, -(-(read[-1] + 1) // CHUNK) * CHUNK - first
    return out


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
    Parameter("model", "text", "", "a model file written by `skatsim train card-play`, or a shipped model by its "
              "name (v4, v6, v7, v8) (empty: v7, the default)"),
)


#: What the play loops need to know of it: it reads its model, and its features compile apart from the loop.
LEARNED_PLAYER = KernelPlayer(learned_card, reads_model=True, compiled_apart=(compile_card_features,),
                              turn=learned_turn)


@register("card_play", "learned", parameters=LEARNED_PARAMETERS)
def learned_policy(model) -> CardPolicy:
    """A linear model and a small network per decision context, trained on simulated play, at bulk speed."""
    return CardPolicy("learned", LEARNED_PLAYER, data=model_weights(model))


def shipped_models() -> list[str]:
    """The names of the models shipped in ``models/`` (``v4``, ``v6``, ``v7``, ``v8``), oldest first."""
    names = [path.stem.removeprefix("learned-") for path in SHIPPED_MODEL.parent.glob("learned-*.npz")]
    return sorted(names, key=lambda name: (len(name), name))


def model_path(model: str) -> Path:
    """The file of ``model``: a shipped model by its name (``v7``: ``models/learned-v7.npz``), the default
    (SHIPPED_MODEL, v7) for an empty name, else a path. A bare name (no folder, no ``.npz``) that is neither a
    shipped model nor a file is refused in one line that lists the shipped names."""
    shipped = SHIPPED_MODEL.parent / f"learned-{model}.npz"
    if not model:
        return SHIPPED_MODEL
    bare = "/" not in model and not model.endswith(".npz")
    if bare and shipped.is_file():
        return shipped
    path = Path(model).expanduser().resolve()
    if bare and not path.exists():
        shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in model)
        raise StrategyError(f"card_play learned: no shipped model is named {shown!r} and no such file exists "
                            f"(shipped: {', '.join(shipped_models())}; a model file of your own is named by "
                            "its path, such as ./mine.npz)")
    return path


def model_weights(model: str) -> np.ndarray:
    """The weights of a model (:func:`model_path`) as the kernel reads them (:func:`model_data`), read once
    per process."""
    path = str(model_path(model))
    if path not in _loaded:
        _loaded[path] = model_data(load_model(path)[0])
    return _loaded[path]
