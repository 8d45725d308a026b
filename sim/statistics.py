"""Logistic fits of a win probability, the scores of such probabilities and the interval of a rate:
the statistics the strategies (:mod:`strategies.calibration`), the runs and the analysis
(:mod:`analysis.evaluator_comparison`, :mod:`analysis.intervals`) share. numpy only; it imports
nothing of the toolkit.

Both fits model P(won) = 1 / (1 + exp(-(intercept + x @ coef))) by Newton's method, but they
fit different data, so they are two functions:

- :func:`fit_logistic`: one row per game and several features, with a small ridge penalty
  and signs the coefficients must keep; it returns the coefficients and the intercept (the
  models of ``skatsim calibrate``, stored in the profiles);
- :func:`fitted_probabilities`: one score, the games counted won and lost at each distinct
  score, for many such counts at once (bootstrap replicates); it returns the fitted P(won)
  at each score (how well an evaluator's score predicts the game).

Each keeps the arithmetic its numbers were made with: the shipped profiles were fitted by the
first, the analysis tables by the second.

:func:`brier` and :func:`log_loss` score probabilities against the games won and lost, and
:func:`wilson` gives a rate's 95% interval.
"""

from __future__ import annotations

import numpy as np

#: The two-sided 95% quantile of the normal distribution.
Z95 = 1.959963984540054
#: Newton steps of :func:`fit_logistic`, at most, and its ridge penalty (per row).
NEWTON_STEPS = 25
RIDGE = 1e-4
#: Newton steps of :func:`fitted_probabilities`, at most. It stops before once no step of any
#: replicate moves a coefficient by more than COUNTS_TOLERANCE: it has converged (in about six
#: steps on real runs); a separated group, whose coefficients grow without limit, takes every step.
COUNTS_NEWTON_STEPS = 30
COUNTS_TOLERANCE = 1e-12


def logistic(logit):
    """P = 1 / (1 + exp(-logit))."""
    return 1 / (1 + np.exp(-logit))


# --- one row per game, several features -------------------------------------------------------


def fit_logistic(x: np.ndarray, y: np.ndarray, signs=None, ridge: float = RIDGE) -> tuple[np.ndarray, float]:
    """Coefficients and intercept of P(y) = 1 / (1 + exp(-(x @ coef + intercept))) by Newton's method,
    with a small ridge penalty. ``signs`` (+1, -1 or 0 per column) constrain the coefficients'
    signs: the column whose free fit is furthest on the wrong side is held at 0 and the rest
    fitted again, until every constraint holds."""
    signs = np.zeros(x.shape[1]) if signs is None else np.asarray(signs, dtype=float)
    free = np.ones(x.shape[1], dtype=bool)
    while True:
        coef, intercept = _newton(x[:, free], y.astype(float), ridge)
        full = np.zeros(x.shape[1])
        full[free] = coef
        wrong = free & (signs * full < 0)
        if not wrong.any():
            return full, intercept
        free[np.argmin(np.where(wrong, signs * full, np.inf))] = False


def _newton(x: np.ndarray, y: np.ndarray, ridge: float) -> tuple[np.ndarray, float]:
    """The penalized maximum-likelihood fit by Newton's method, each step halved until the
    penalized log-likelihood grows (so a nearly flat direction cannot throw the fit far off)."""
    design = np.column_stack([np.ones(len(x)), x])
    rate = np.clip(y.mean(), 1e-4, 1 - 1e-4)
    beta = np.zeros(design.shape[1])
    beta[0] = np.log(rate / (1 - rate))
    penalty = ridge * len(x) * np.diag([0.0] + [1.0] * x.shape[1])

    def objective(b):
        z = design @ b
        return float(y @ z - np.logaddexp(0, z).sum() - 0.5 * b @ penalty @ b)

    current = objective(beta)
    for _ in range(NEWTON_STEPS):
        p = logistic(np.clip(design @ beta, -30, 30))
        gradient = design.T @ (y - p) - penalty @ beta
        hessian = (design * (p * (1 - p))[:, None]).T @ design + penalty + 1e-9 * np.eye(len(beta))
        step = np.linalg.solve(hessian, gradient)
        for _ in range(30):
            value = objective(beta + step)
            if value >= current - 1e-9 * abs(current):
                break
            step /= 2
        beta, current = beta + step, value
        if np.abs(step).max() < 1e-8:
            break
    return beta[1:], float(beta[0])


# --- one score, games counted won and lost at each score -----------------------------------


def fitted_probabilities(score: np.ndarray, won: np.ndarray, lost: np.ndarray) -> np.ndarray:
    """Fitted P(won) at each score: weighted logistic regression on the counts of games won and lost
    at each (ascending) score, by Newton steps; replicates of the counts along axis 0."""
    won, lost = np.atleast_2d(np.asarray(won, float)), np.atleast_2d(np.asarray(lost, float))
    n = won + lost
    counted = n[0] if n[0].any() else n.sum(0)  # the scores are centred on the first replicate's games, if any
    weights = counted / max(counted.sum(), 1.0)
    centre = weights @ score
    spread = np.sqrt(weights @ (score - centre) ** 2) or 1.0
    z = (score - centre) / spread
    rate = np.clip(won.sum(1) / np.maximum(n.sum(1), 1), 1e-6, 1 - 1e-6)
    a, b = np.log(rate / (1 - rate)), np.zeros(len(won))
    for _ in range(COUNTS_NEWTON_STEPS):
        a_next, b_next = _newton_step(a, b, z, won, n)
        converged = (np.abs(a_next - a) <= COUNTS_TOLERANCE).all() and (np.abs(b_next - b) <= COUNTS_TOLERANCE).all()
        a, b = a_next, b_next
        if converged:  # a NaN step is not converged: such a fit takes every step
            break
    return logistic(a[:, None] + b[:, None] * z)


def _newton_step(a, b, z, won, n):
    """One Newton step of the logistic log-likelihood; steps are capped, and none is taken where the
    curvature is singular (a single distinct score)."""
    p = logistic(a[:, None] + b[:, None] * z)
    residual, curvature = won - n * p, n * p * (1 - p) + 1e-9
    g0, g1 = residual.sum(1), (residual * z).sum(1)
    h00, h01, h11 = curvature.sum(1), (curvature * z).sum(1), (curvature * z * z).sum(1)
    det = h00 * h11 - h01 ** 2
    safe = np.where(det > 1e-12 * h00 * h00, det, np.inf)
    return a + np.clip((h11 * g0 - h01 * g1) / safe, -5, 5), b + np.clip((h00 * g1 - h01 * g0) / safe, -5, 5)


# --- scores of probabilities --------------------------------------------------------------


def brier(p: np.ndarray, won: np.ndarray, lost: np.ndarray | None = None) -> np.ndarray:
    """The Brier score of the probabilities ``p`` of winning: the mean squared difference from the
    outcome, over the games counted ``won`` and ``lost`` at each ``p`` (along the last axis).
    Without ``lost`` each ``p`` is one game, ``won`` 1 or 0."""
    lost = 1 - won if lost is None else lost
    return (won * (1 - p) ** 2 + lost * p ** 2).sum(-1) / (won + lost).sum(-1)


def log_loss(p: np.ndarray, won: np.ndarray, lost: np.ndarray) -> np.ndarray:
    """The mean negative log-likelihood of the outcomes under ``p``, counted as for :func:`brier`."""
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return -(won * np.log(p) + lost * np.log(1 - p)).sum(-1) / (won + lost).sum(-1)


# --- the interval of a rate ------------------------------------------------------------------


def wilson(won, n, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval (low, high) of ``won`` successes in ``n`` trials; NaN where n is 0."""
    won, n = np.asarray(won, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = (won + z * z / 2) / (n + z * z)
        half = z / (n + z * z) * np.sqrt(won * (n - won) / n + z * z / 4)
        empty = n <= 0
        low, high = np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)  # rounding
        # exact ends: no win gives 0 (not 1e-20), every game won gives 1
        low, high = np.where(won <= 0, 0.0, low), np.where(won >= n, 1.0, high)
        low, high = np.where(empty, np.nan, low), np.where(empty, np.nan, high)
    return (float(low), float(high)) if low.ndim == 0 else (low, high)
