"""The hidden layer of the ``learned`` card player, fitted with NumPy (and numba) on top of the ridge weights.

The network adds to each card's linear score ``sum_h out[c, h] * max(0, hidden[h] . x + bias[c, h])``
(``c`` the decision's context, ``x`` the card's features; see :mod:`strategies.cardplay.learned`).
It is fitted to what the linear weights leave unexplained: the same targets as the ridge fit (the
teacher's value for the seat's side less the decision's mean), the squared error taken after
centring each decision's scores, since only the differences between a decision's cards decide.
Adam on minibatches of whole decisions, from a start drawn from ``seed``; the epoch that gives
away least teacher value on the validation deals is kept, so the fit is the same for a seed.
The features are standardized while fitting and the scaling is folded into the hidden weights.
Several networks fitted from different starts (:func:`side_by_side`) play as one: their scores
averaged, which is one network with their hidden units side by side.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..cardplay.learned import linear_model
from ..cardplay.learned_features import CONTEXTS, N_CONTEXTS

#: Hidden units (of each network), networks, epochs, step size and rows per minibatch of the fit.
HIDDEN_UNITS = 32
NETWORKS = 3
EPOCHS = 20
STEP = 3e-3
BATCH_ROWS = 4096


@njit(cache=True)
def column_mean_std(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``rows.mean(axis=0)`` and ``rows.std(axis=0)``, bit for bit (the same sums in the same order),
    without NumPy's temporary copy of all the rows: the card rows of a large fit take gigabytes."""
    n, k = rows.shape
    total = np.zeros(k)
    for i in range(n):
        for j in range(k):
            total[j] += rows[i, j]
    mean = total / n
    square = np.zeros(k)
    for i in range(n):
        for j in range(k):
            square[j] += (rows[i, j] - mean[j]) ** 2
    return mean, np.sqrt(square / n)


def network_scores(model: dict, rows: np.ndarray, context: np.ndarray, chunk: int = 1 << 16) -> np.ndarray:
    """Each row's score under the model: linear part plus the hidden layer. A chunk of rows at a time:
    the weights gathered for every row at once would be copies the size of all the rows, and more."""
    scores = np.empty(len(rows))
    for start in range(0, len(rows), chunk):
        x, ctx = rows[start:start + chunk], context[start:start + chunk]
        part = np.einsum("ij,ij->i", x, model["weights"][ctx])
        if len(model["hidden"]):
            active = np.maximum(x @ model["hidden"].T + model["hidden_bias"][ctx], 0.0)
            part += np.einsum("ij,ij->i", active, model["hidden_out"][ctx])
        scores[start:start + chunk] = part
    return scores


def given_away(scores: np.ndarray, targets: np.ndarray, decision: np.ndarray) -> float:
    """The teacher's value the best-scored card of each decision gives away, summed (rows grouped by decision)."""
    starts = np.flatnonzero(np.r_[True, decision[1:] != decision[:-1]])
    best = np.maximum.reduceat(targets, starts)
    order = np.lexsort((np.arange(len(scores)), -scores, decision))
    first = order[np.r_[True, decision[order][1:] != decision[order][:-1]]]
    return float(np.sum(best - targets[first]))


def _batches(decision: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
    """Row indices of minibatches of whole decisions, the decisions in a random order."""
    starts = np.flatnonzero(np.r_[True, decision[1:] != decision[:-1]])
    ends = np.r_[starts[1:], len(decision)]
    order = rng.permutation(len(starts))
    sizes = (ends - starts)[order]
    bounds = np.r_[0, np.cumsum(sizes)]
    cut = np.searchsorted(bounds[1:], np.arange(BATCH_ROWS, bounds[-1], BATCH_ROWS))
    rows = np.repeat(starts[order] - bounds[:-1], sizes) + np.arange(bounds[-1])   # each decision's rows in turn
    return [batch for batch in np.split(rows, bounds[cut]) if len(batch)]


def _centred(values: np.ndarray, decision: np.ndarray) -> np.ndarray:
    """Values less their decision's mean (rows of a decision together, not necessarily sorted)."""
    _, group, counts = np.unique(decision, return_inverse=True, return_counts=True)
    return values - (np.bincount(group, weights=values) / counts)[group]


class _Adam:
    def __init__(self, params: list[np.ndarray]):
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, params, grads, rate):
        self.t += 1
        for p, g, m, v in zip(params, grads, self.m, self.v):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            p -= rate * (m / (1 - 0.9 ** self.t)) / (np.sqrt(v / (1 - 0.999 ** self.t)) + 1e-8)


def fit_network(weights, fit_rows, validation_rows, seed: int, units: int = HIDDEN_UNITS, *,
                epochs: int = EPOCHS, progress=None) -> tuple[dict, list[float]]:
    """The hidden layer over fixed linear ``weights``: ``fit_rows`` and ``validation_rows`` are
    (features, targets, decision, context) as :func:`strategies.learning.training.card_rows` gives them.
    Returns the model and the validation value given away after each epoch (the first entry: the
    linear weights alone); ``progress(epochs_done, epochs, value)`` is told that value after each
    epoch."""
    rows, targets, decision, context = fit_rows
    rng = np.random.default_rng(seed)
    mean, scale = column_mean_std(rows)
    scale[scale < 1e-9] = 1.0
    residual = targets - network_scores(linear_model(weights), rows, context)
    hidden = rng.normal(0.0, 1.0 / np.sqrt(rows.shape[1]), (units, rows.shape[1]))
    bias = np.zeros((N_CONTEXTS, units))
    out = rng.normal(0.0, 0.01, (N_CONTEXTS, units))
    params = [hidden, bias, out]
    adam = _Adam(params)

    def folded():
        folded_hidden = hidden / scale
        return {"weights": weights.copy(), "hidden": folded_hidden,
                "hidden_bias": bias - (folded_hidden @ mean)[None, :], "hidden_out": out.copy()}

    def lost(model):
        return given_away(network_scores(model, validation_rows[0], validation_rows[3]), validation_rows[1],
                          validation_rows[2])

    best = folded()
    history = [lost(linear_model(best["weights"]))]
    best_lost = history[0]
    for epoch in range(epochs):
        rate = STEP * (0.5 if epoch >= epochs // 2 else 1.0)
        for batch in _batches(decision, rng):
            x, ctx = rows[batch], context[batch]    # standardized per batch, in place: no copy of all rows
            x -= mean
            x /= scale
            z = x @ hidden.T + bias[ctx]
            active = np.maximum(z, 0.0)
            scores = np.einsum("ij,ij->i", active, out[ctx])
            error = _centred(scores - residual[batch], decision[batch]) * (2.0 / len(batch))
            onehot = np.zeros((len(batch), N_CONTEXTS))
            onehot[np.arange(len(batch)), ctx] = 1.0
            grad_out = onehot.T @ (error[:, None] * active)
            dz = error[:, None] * out[ctx] * (z > 0)
            adam.step(params, [dz.T @ x, onehot.T @ dz, grad_out], rate)
        model = folded()
        history.append(lost(model))
        if progress is not None:
            progress(epoch + 1, epochs, history[-1])
        if history[-1] < best_lost - 1e-9:
            best, best_lost = model, history[-1]
    return best, history


def side_by_side(models: list[dict]) -> dict:
    """One model whose score is the mean of the models' scores: the linear weights averaged, the hidden
    units of all side by side with their output weights divided by the number of models."""
    k = len(models)
    return {"weights": sum(m["weights"] for m in models) / k,
            "hidden": np.concatenate([m["hidden"] for m in models]),
            "hidden_bias": np.concatenate([m["hidden_bias"] for m in models], axis=1),
            "hidden_out": np.concatenate([m["hidden_out"] for m in models], axis=1) / k}


#: The contexts of null games (a null network of its own replaces a model's in these).
NULL_CONTEXTS = np.array([c.startswith("null") for c in CONTEXTS])


def null_network_over(base: dict, null: dict) -> dict:
    """One model that plays ``base`` in the suit and grand contexts and ``null`` (fitted to null decisions
    alone) in the null contexts: the null contexts' linear weights are ``null``'s, and the hidden units of
    both side by side, ``base``'s with no output in the null contexts and ``null``'s with none in the
    others, so that each game class reads its own units and its scores are its model's. A ``base`` of fewer
    features (a file of an earlier version, whose features are the first of FEATURES) gets zero weights for
    the others, which it never read."""
    features = np.shape(null["weights"])[1]
    base = {**base, "weights": _padded_features(base["weights"], features),
            "hidden": _padded_features(base["hidden"], features)}
    weights = np.where(NULL_CONTEXTS[:, None], null["weights"], base["weights"])
    base_out = np.where(NULL_CONTEXTS[:, None], 0.0, base["hidden_out"])
    null_out = np.where(NULL_CONTEXTS[:, None], null["hidden_out"], 0.0)
    return {"weights": weights, "hidden": np.concatenate([base["hidden"], null["hidden"]]),
            "hidden_bias": np.concatenate([base["hidden_bias"], null["hidden_bias"]], axis=1),
            "hidden_out": np.concatenate([base_out, null_out], axis=1)}


def _padded_features(array: np.ndarray, features: int) -> np.ndarray:
    """``array`` (a row per context or unit, a column per feature) with zero columns up to ``features``."""
    array = np.asarray(array, dtype=np.float64)
    return np.pad(array, ((0, 0), (0, features - array.shape[1])))
