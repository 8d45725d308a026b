"""The learned player's scores to the last bit: the kernel's float32 sums, in the order
strategies/cardplay/vectors.py fixes, computed again with numpy one operation at a time."""

import numpy as np
import pytest
from numba import njit, types

from sim.rules.shuffle import deal
from sim.rules.tricks import legal_now, new_play, play_card, to_play
from strategies.cardplay.learned import (
    LOOP_TYPES,
    MOST_CARDS,
    ROW_WIDTH,
    SHIPPED_MODEL,
    card_scores,
    learned_choice,
    learned_choice_given,
    learned_play,
    load_model,
    model_data,
    used_units,
)
from strategies.cardplay.learned_features import (
    DECISION_FEATURES,
    N_CONTEXTS,
    N_FEATURES,
    card_features,
    card_features_given,
    context_of,
)
from strategies.cardplay.learned_features import LOOP_TYPES as FEATURE_TYPES
from strategies.cardplay.vectors import LANES
from strategies.learning.network import null_network_over
from tests.hidden_cards import view_of

F32 = np.float32


def lanes_sum(vector):
    """A vector's lanes added by halves, as the kernel adds them."""
    while len(vector) > 1:
        half = len(vector) // 2
        vector = vector[:half] + vector[half:]
    return vector[0]


def reference_scores(model, rows, count, ctx):
    """The kernel's score of each card, one float32 operation at a time in the kernel's order."""
    weights = np.asarray(model["weights"], F32)
    hidden = np.asarray(model["hidden"], F32)            # units x features
    bias, out = (np.asarray(model[n], F32)[ctx] for n in ("hidden_bias", "hidden_out"))
    units, features = hidden.shape
    padded = -(-units // (2 * LANES)) * 2 * LANES
    start = np.zeros(padded, F32)
    start[:units] = bias
    shared = [0, *range(DECISION_FEATURES[0], min(DECISION_FEATURES[1], features))]
    for f in shared:
        value = F32(1.0) if f == 0 else rows[0, f]
        start[:units] = start[:units] + value * hidden[:, f]
    out_padded = np.zeros(padded, F32)
    out_padded[:units] = out
    linear = np.zeros(ROW_WIDTH, F32)
    linear[:features] = weights[ctx]
    scores = []
    for k in range(count):
        row = rows[k]
        lanes = np.zeros(LANES, F32)
        for block in range(ROW_WIDTH // LANES):
            part = slice(block * LANES, (block + 1) * LANES)
            lanes = lanes + row[part] * linear[part]
        sums = start.copy()
        for f in range(1, features):
            if row[f] != 0 and f not in shared:
                sums[:units] = sums[:units] + row[f] * hidden[:, f]
        total = np.zeros(LANES, F32)
        first, used = used_units(model["hidden_out"])[ctx]      # the units the context reads, a range of vectors
        for v in range(first // LANES, (first + used) // LANES):
            part = slice(v * LANES, (v + 1) * LANES)
            total = total + np.maximum(sums[part], F32(0)) * out_padded[part]
        scores.append(lanes_sum(lanes) + lanes_sum(total))
    return np.array(scores, F32)


def decisions(count, seed=5):
    """(view, legal) of ``count`` decisions with a choice, at random points of random plays of every game."""
    rng = np.random.default_rng(seed)
    found = []
    for index in range(10 * count):
        f, m, r, _ = deal(seed, index)
        state = new_play(f, m, r, index % 6, index % 3)
        for _ in range(rng.integers(0, 29)):
            cards = [c for c in range(32) if legal_now(state) >> c & 1]
            play_card(state, rng.choice(cards))
        legal = legal_now(state)
        if legal & (legal - 1):
            found.append((view_of(state, to_play(state)), legal))
        if len(found) == count:
            return found
    raise AssertionError("too few decisions")


def random_model(units, seed):
    rng = np.random.default_rng(seed)
    return {"weights": rng.normal(size=(N_CONTEXTS, N_FEATURES)), "hidden": rng.normal(size=(units, N_FEATURES)),
            "hidden_bias": rng.normal(size=(N_CONTEXTS, units)), "hidden_out": rng.normal(size=(N_CONTEXTS, units))}


@pytest.mark.parametrize("units", [None, 5, 130, "null network"])
def test_every_score_is_the_float32_sum_in_the_fixed_order(units):
    # the shipped model's 96 units are one chunk of six vectors; 5 units pad to two vectors; 130 to six and four;
    # a null network of its own (40 units over 70) is read only in the null contexts, the 70 only in the others
    if units == "null network":
        model = null_network_over(random_model(70, 7), random_model(40, 8))
        assert [tuple(u) for u in used_units(model["hidden_out"])] == [(0, 96)] * 12 + [(64, 64)] * 6
    else:
        model = load_model(SHIPPED_MODEL)[0] if units is None else random_model(units, units)
    data = model_data(model)
    for view, legal in decisions(300):
        rows = np.zeros((MOST_CARDS, ROW_WIDTH), F32)
        count = card_features(view, legal, rows)
        scores = np.zeros(MOST_CARDS, F32)
        card_scores(rows, count, context_of(view), data, scores)
        assert np.array_equal(scores[:count], reference_scores(model, rows, count, context_of(view)))
        best = [c for c in range(32) if legal >> c & 1][int(np.argmax(scores[:count]))]
        assert learned_choice(view, legal, np.int64(legal), data) == best


def test_a_model_of_more_units_than_a_decision_has_room_for_is_one_clear_line():
    with pytest.raises(ValueError, match="at most 1024 hidden units, not 1100"):
        model_data(random_model(1100, 1))



def called_types(function, signature, callee) -> list:
    """The argument types of each call of the kernel ``callee`` in ``function`` typed for ``signature``."""
    kernel = njit(function.py_func)      # typed here, not loaded from the cache with no types to read
    kernel.compile(signature)
    typed = kernel.overloads[signature].type_annotation
    return [call.args for expr, call in typed.calltypes.items()
            if getattr(expr, "op", None) == "call" and isinstance(typed.typemap[expr.func.name], types.Dispatcher)
            and typed.typemap[expr.func.name].dispatcher is callee]


def test_the_play_loop_asks_for_the_features_a_first_run_compiles_beside_it():
    # a first run's second process compiles card_features_given for its LOOP_TYPES (compile_card_features),
    # and the loop (learned_play inlined, with a view of int64 and a model row of float32) must call it with
    # those very types, or it compiles another specialization itself
    loop = (types.int64[::1], types.uint64, types.float32[::1])
    assert called_types(learned_play, loop, learned_choice_given) == [LOOP_TYPES]
    assert called_types(learned_choice_given, LOOP_TYPES, card_features_given) == [FEATURE_TYPES]
