"""`skatsim decisions` with card players in Python: the games are played as in every run, then their cards
valued by either teacher (the rollouts played in lockstep): the same decisions as the same rule in skatsim's
own loop, the same data for any number of jobs."""

import numpy as np
import polars as pl
import pytest

from strategies import BatchCardPlayer, CardPlayer, load_profile, registry
from strategies.cardplay.heuristic import heuristic_card
from strategies.learning.teacher import decision_columns
from tests.runs.test_python_player_runs import installed, skatsim

ROW, DATA = np.zeros(1), np.zeros(1, np.float32)


def heuristic_of(view_array, legal) -> int:
    """The heuristic's card (its deviation 0, so it draws nothing) for one view of the engine."""
    return int(heuristic_card(view_array, np.uint32(legal), ROW, DATA, np.uint64(0))[1])


class AskedHeuristic(CardPlayer):
    def play(self, view):
        return heuristic_of(view.array, view.legal_mask)


class BatchedHeuristic(BatchCardPlayer):
    def play_batch(self, views):
        return np.array([heuristic_of(row, legal) for row, legal in zip(views.array, views.legal)])


@pytest.fixture
def players(monkeypatch):
    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    registry.register("card_play", "asked_heuristic")(AskedHeuristic)
    registry.register("card_play", "batched_heuristic")(BatchedHeuristic)


@pytest.mark.parametrize("teacher", ["open_hand", "rollout"])
@pytest.mark.parametrize("settings", [["card_play=asked_heuristic"],
                                      ["middlehand.card_play=batched_heuristic", "rearhand.card_play=random"]])
def test_a_python_players_decisions_are_those_of_the_same_rule_in_the_built_in_loop(players, settings, teacher):
    same = [s.replace("asked_heuristic", "heuristic").replace("batched_heuristic", "heuristic") for s in settings]
    ours = decision_columns(load_profile("threshold", settings), seed=6, start=10, count=30, teacher=teacher)
    built_in = decision_columns(load_profile("threshold", same), seed=6, start=10, count=30, teacher=teacher)
    assert len(ours["deal_id"]) > 300
    for name in ("deal_id", "view", "legal", "values"):
        np.testing.assert_array_equal(ours[name], built_in[name], err_msg=name)


@pytest.mark.slow
def test_decisions_of_a_python_player_are_the_same_for_any_jobs(tmp_path):
    env = installed(tmp_path)
    runs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        done = skatsim(env, "decisions", "--profile", "threshold", "--set", "forehand.card_play=lowest_winner",
                       "--teacher", "rollout", "--deals", "60", "--seed", "2", "--chunk-size", "25", "--jobs", jobs,
                       "--out", str(out), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        runs.append(pl.read_parquet(out / "part-*.parquet").sort("deal_id", maintain_order=True))
    assert runs[0].height > 60 * 20 and runs[0].equals(runs[1])
