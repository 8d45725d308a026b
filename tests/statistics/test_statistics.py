"""The logistic fits and the Brier score that the strategies and the analysis share (sim.statistics)."""

import numpy as np
import pytest

from sim.statistics import brier, fit_logistic, fitted_probabilities, log_loss, logistic


def test_the_fit_on_counts_recovers_a_known_curve():
    score = np.linspace(-3, 3, 13)
    truth = logistic(0.5 + 1.5 * score)
    won, lost = 100_000 * truth, 100_000 * (1 - truth)
    fitted = fitted_probabilities(score, won, lost)[0]
    assert fitted == pytest.approx(truth, abs=1e-6)
    assert brier(fitted, won, lost) == pytest.approx(np.average(truth * (1 - truth), weights=won + lost))
    assert log_loss(fitted, won, lost) > 0


def test_a_bootstrap_replicate_without_games_leaves_the_others_fitted():
    """A deal bootstrap of a small run can draw no game in its first replicate; the other replicates
    are fitted as if it were not there."""
    score = np.linspace(-3, 3, 7)
    won, lost = 50 * logistic(score), 50 * (1 - logistic(score))
    replicates = fitted_probabilities(score, np.stack([0 * won, won]), np.stack([0 * lost, lost]))
    assert np.isfinite(replicates[1]).all()
    assert replicates[1] == pytest.approx(fitted_probabilities(score, won, lost)[0], abs=1e-6)


def test_the_fit_on_rows_recovers_known_coefficients_and_keeps_the_signs_asked_for():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(20_000, 2))
    y = (rng.random(20_000) < logistic(-0.5 + 1.0 * x[:, 0] - 0.8 * x[:, 1])).astype(float)
    coef, intercept = fit_logistic(x, y)
    assert coef == pytest.approx([1.0, -0.8], abs=0.06) and intercept == pytest.approx(-0.5, abs=0.05)
    held, _ = fit_logistic(x, y, signs=[1, 1])
    assert held[1] == 0 and held[0] > 0  # the second feature may not lower the probability: held at 0


def test_the_brier_score_of_single_games_is_that_of_their_counts():
    p = np.array([0.1, 0.7, 0.7, 0.95])
    outcome = np.array([0.0, 1.0, 0.0, 1.0])
    assert brier(p, outcome) == np.mean((p - outcome) ** 2)
    assert brier(p, outcome) == brier(p, outcome, 1 - outcome)
    assert brier(np.array([0.7]), np.array([1.0]), np.array([1.0])) == pytest.approx((0.3 ** 2 + 0.7 ** 2) / 2)
