"""Fitting the ``learned`` card player to a teacher's values, with plain NumPy.

Each decision (:mod:`strategies.learning.teacher`) gives one row of features per legal card
(:mod:`strategies.cardplay.learned_features`) and the teacher's value of that card for the
seat's side (the declarer's value, negated for a defender), less the mean over the decision's
legal cards: only the differences between cards decide which one is played. Each decision
context gets its own weights, fitted by ridge regression in closed form, so the fit is exact
and the same on every machine; the seed only chooses which deals are held out.

Over the ridge weights a small network (:mod:`strategies.learning.network`) fits what they leave
unexplained.

On the held-out deals it reports how often the student's card keeps the teacher's best value
(``agreement``) and the teacher's value it gives away per decision (``given_away``, in units
of a won game), and the same for the heuristic player's card, the baseline.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from sim.rules.cards import lowest_card
from sim.rules.view import VIEW

from ..cardplay.heuristic import HEURISTIC, heuristic_card
from ..cardplay.learned import learned_card, linear_model, model_data
from ..cardplay.learned_features import CONTEXTS, FEATURES, N_CONTEXTS, N_FEATURES, card_features, context_of
from .network import HIDDEN_UNITS, NETWORKS, fit_network, network_scores, side_by_side

#: The ridge penalty, relative to the number of rows of a context.
RIDGE = 1e-3
#: Share of the deals held out from fitting to measure the model, and the same share again to
#: choose how far each context trusts the fit over the heuristic player's card.
HOLD_OUT = 0.1
#: The extra weight on the heuristic player's card a context may get: a context whose fit does
#: not beat the heuristic on the validation deals keeps to the heuristic's card (the last step).
TRUST_STEPS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 1000.0)
HEURISTIC_FEATURE = FEATURES.index("heuristic_choice")
#: A context with fewer validation decisions than this keeps to the heuristic's card: too few to
#: tell a better fit from luck.
MIN_VALIDATION = 300
#: The same for the null contexts, higher: a null defender's fit that beat the heuristic on the
#: teacher's validation decisions (some 440) still lost 2.4 SF points per null game in play.
MIN_VALIDATION_NULL = 3000


@njit(cache=True)
def decision_rows(views, legals, values, rows, targets, decision, context):
    """One row per legal card of every decision: features into ``rows``, the value for the seat's
    side less the decision's mean into ``targets``, the decision's index and context. Returns the
    number of rows written."""
    m = 0
    for i in range(views.shape[0]):
        view = views[i]
        n = card_features(view, legals[i], rows[m:])
        sign = 1.0 if view[VIEW.seat] == view[VIEW.declarer] else -1.0
        cards, k, total = np.int64(legals[i]), 0, 0.0
        while cards:
            card = lowest_card(cards)
            cards &= cards - 1
            targets[m + k] = sign * values[i, card]
            total += targets[m + k]
            k += 1
        ctx = context_of(view)
        for k in range(n):
            targets[m + k] -= total / n
            decision[m + k], context[m + k] = i, ctx
        m += n
    return m


@njit(cache=True)
def heuristic_choices(views, legals):
    """The heuristic player's card (no deviations) at each decision."""
    out = np.empty(views.shape[0], dtype=np.int64)
    params, data = np.zeros(HEURISTIC.size, dtype=np.float64), np.zeros(0, np.float32)
    rng = np.uint64(1)
    for i in range(views.shape[0]):
        rng, out[i] = heuristic_card(views[i], legals[i], params, data, rng)
    return out


def card_rows(views: np.ndarray, legals: np.ndarray, values: np.ndarray):
    """(features, targets, decision index, context) of every legal card of the decisions."""
    views = np.ascontiguousarray(views, dtype=np.int64)
    legals = np.ascontiguousarray(legals, dtype=np.uint32)
    values = np.ascontiguousarray(values, dtype=np.float64)
    size = int(np.unpackbits(legals.view(np.uint8)).sum())
    rows, targets = np.empty((size, N_FEATURES)), np.empty(size)
    decision, context = np.empty(size, np.int64), np.empty(size, np.int64)
    m = decision_rows(views, legals, values, rows, targets, decision, context)
    return rows[:m], targets[:m], decision[:m], context[:m]


def fit_weights(rows: np.ndarray, targets: np.ndarray, context: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """Ridge weights per context (N_CONTEXTS x N_FEATURES); a context without rows keeps zeros."""
    weights = np.zeros((N_CONTEXTS, N_FEATURES))
    for c in range(N_CONTEXTS):
        mine = context == c
        if mine.sum() < N_FEATURES:
            continue
        x, y = rows[mine], targets[mine]
        gram = x.T @ x + ridge * len(y) * np.eye(N_FEATURES)
        weights[c] = np.linalg.solve(gram, x.T @ y)
    return weights


class TrainingError(ValueError):
    """Decisions that cannot be trained on (too few deals to hold some out)."""


def held_out(deal_ids: np.ndarray, seed: int, share: float = HOLD_OUT) -> np.ndarray:
    """Which decisions belong to held-out deals: a share of the distinct deals chosen by ``seed``."""
    deals = np.unique(deal_ids)
    chosen = np.random.default_rng(seed).permutation(len(deals))[: max(1, int(round(share * len(deals))))]
    return np.isin(deal_ids, deals[chosen])


def judge(cards: np.ndarray, views: np.ndarray, values: np.ndarray) -> dict:
    """How cards chosen at decisions compare with the teacher: agreement and value given away."""
    sign = np.where(views[:, VIEW.seat] == views[:, VIEW.declarer], 1.0, -1.0)
    mine = values * sign[:, None]
    best = np.nanmax(mine, axis=1)
    chosen = mine[np.arange(len(cards)), cards]
    return {"agreement": float(np.mean(chosen >= best - 1e-9)), "given_away": float(np.mean(best - chosen))}


def student_choices(model: dict, views: np.ndarray, legals: np.ndarray) -> np.ndarray:
    """The learned player's card at each decision under ``model``."""
    params, data = np.zeros(0), model_data(model)
    return np.array([learned_card(views[i], legals[i], params, data, np.uint64(1))[1] for i in range(len(views))])


def segment_choice(scores: np.ndarray, decision: np.ndarray) -> np.ndarray:
    """Row index of the best score of each decision (rows grouped by decision; the first of equals)."""
    order = np.lexsort((np.arange(len(scores)), -scores, decision))
    first = np.r_[True, decision[order][1:] != decision[order][:-1]]
    return order[first]


def choose_trust(model: dict, rows, targets, decision, context) -> dict:
    """Per context, the step of TRUST_STEPS that gives away least teacher value on these rows (of equal
    ones the larger, nearer the heuristic; with fewer than MIN_VALIDATION decisions, or
    MIN_VALIDATION_NULL in null, the last); added to the model's heuristic_choice weight in place."""
    weights = model["weights"]
    scores = network_scores(model, rows, context)
    best = np.maximum.reduceat(targets, np.flatnonzero(np.r_[True, decision[1:] != decision[:-1]]))
    chosen = {}
    for c in range(N_CONTEXTS):
        mine = np.flatnonzero(context == c)
        decisions = np.unique(decision[mine])
        if len(decisions) < (MIN_VALIDATION_NULL if CONTEXTS[c].startswith("null") else MIN_VALIDATION):
            step = TRUST_STEPS[-1]
            weights[c, HEURISTIC_FEATURE] += step
            chosen[c] = step
            continue
        lost = []
        for step in TRUST_STEPS:
            picks = segment_choice(scores[mine] + step * rows[mine, HEURISTIC_FEATURE], decision[mine])
            lost.append(np.sum(best[np.searchsorted(np.unique(decision), decisions)] - targets[mine][picks]))
        k = max(i for i in range(len(lost)) if lost[i] <= min(lost) + 1e-9)
        weights[c, HEURISTIC_FEATURE] += TRUST_STEPS[k]
        chosen[c] = TRUST_STEPS[k]
    return chosen


def train(deal_ids, views, legals, values, *, seed: int = 0, ridge: float = RIDGE, units: int = HIDDEN_UNITS,
          networks: int = NETWORKS, progress=None) -> tuple[dict, dict]:
    """Fit on all deals but the held-out ones (a share to test, a share to choose when to stop the
    network's fit and each context's trust in the fit); returns (model, report). With ``networks``
    above 1, that many networks are fitted from the starts of seeds ``seed``, ``seed + 1``, ... on the
    same deals and play as one (their scores averaged). ``progress(network, networks, epochs_done,
    epochs, given_away)`` is told after each epoch of each network's fit the validation value given away
    per decision."""
    began = time.perf_counter()
    deal_ids = np.asarray(deal_ids)
    test = held_out(deal_ids, seed)
    check = ~test & held_out(np.where(test, -1, deal_ids), seed + 1, HOLD_OUT / (1 - HOLD_OUT))
    check &= ~test
    fit = ~test & ~check
    if not (fit.any() and check.any()):
        raise TrainingError(f"{len(np.unique(deal_ids))} deals with decisions are too few to fit, test and "
                            "validate on deals apart: log more deals")
    fit_rows = card_rows(views[fit], legals[fit], values[fit])
    validation_rows = card_rows(views[check], legals[check], values[check])
    validation_count = max(1, int(check.sum()))     # the fit's lost values are sums over these decisions

    def told(k):
        if progress is None:
            return None
        return lambda done, epochs, lost: progress(k + 1, networks, done, epochs, lost / validation_count)

    model, history = linear_model(fit_weights(*fit_rows[:2], fit_rows[3], ridge)), []
    if units:
        fitted = [fit_network(model["weights"], fit_rows, validation_rows, seed + k, units, progress=told(k))
                  for k in range(networks)]
        model, history = side_by_side([m for m, _ in fitted]), [h for _, h in fitted]
    trust = choose_trust(model, *validation_rows)
    seconds = time.perf_counter() - began
    views_t, legals_t, values_t = views[test], legals[test], values[test]
    report = {
        "decisions": int(len(views)), "deals": int(len(np.unique(deal_ids))), "held_out_decisions": int(test.sum()),
        "validation_decisions": int(check.sum()), "card_rows": int(len(fit_rows[0])), "seed": seed, "ridge": ridge,
        "hidden_units": units, "networks": networks if units else 0,
        "validation_given_away_by_epoch": [[round(v / validation_count, 5) for v in h] for h in history],
        "fit_seconds": round(seconds, 2),
        "trust": {CONTEXTS[c]: step for c, step in trust.items()},
        "student": judge(student_choices(model, views_t, legals_t), views_t, values_t),
        "heuristic": judge(heuristic_choices(views_t, legals_t), views_t, values_t),
    }
    return model, report
