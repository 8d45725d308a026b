"""`skatsim decisions` with card players in Python: the games are played as in every run, then their cards
valued by either teacher (the rollouts played in lockstep): the same decisions as the same rule in skatsim's
own loop, the same data for any number of jobs."""

import numpy as np
import pytest

from strategies import load_profile
from strategies.learning.teacher import decision_columns
from tests.runs.test_python_player_runs import with_one_and_two_jobs
from tests.strategies.test_python_players import players  # noqa: F401  (the fixture: the heuristic asked from Python)


@pytest.mark.usefixtures("players")
@pytest.mark.parametrize("teacher", ["open_hand", "rollout"])
@pytest.mark.parametrize("settings", [["card_play=asked_heuristic"],
                                      ["middlehand.card_play=batched_heuristic", "rearhand.card_play=asked_heuristic"]])
def test_a_python_players_decisions_are_those_of_the_same_rule_in_the_built_in_loop(settings, teacher):
    same = [s.replace("asked_heuristic", "heuristic").replace("batched_heuristic", "heuristic") for s in settings]
    ours = decision_columns(load_profile("threshold", settings), seed=6, start=10, count=30, teacher=teacher)
    built_in = decision_columns(load_profile("threshold", same), seed=6, start=10, count=30, teacher=teacher)
    assert len(ours["deal_id"]) > 300
    for name in ("deal_id", "view", "legal", "values"):
        np.testing.assert_array_equal(ours[name], built_in[name], err_msg=name)


@pytest.mark.slow
def test_decisions_of_a_python_player_are_the_same_for_any_jobs(tmp_path):
    (_, one), (_, two) = with_one_and_two_jobs(
        tmp_path, "decisions", "--profile", "threshold", "--set", "forehand.card_play=my_players.py:LowestWinner",
        "--teacher", "rollout", "--deals", "60", "--seed", "2", "--chunk-size", "25", order=("deal_id",))
    assert one.height > 60 * 20 and one.equals(two)
