"""The third teacher: each legal card valued by the end it leads to on the real deal when every seat then
plays its own card player. The value of the card played is the end of the game as played; a run is the
same for a seed in any part; training reads it beside the other teachers."""

import numpy as np
import pytest

from sim.rules.cards import popcount
from sim.rules.games import NULL
from sim.rules.tricks import legal_now, new_play, play_card
from sim.runs.decisions import log_decisions, read_decisions
from strategies import load_profile, play_deals
from strategies.teacher import TEACHERS
from strategies.training import train

SEED, DEALS = 3, 24


@pytest.fixture(scope="module")
def rollout_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs") / "rollout"
    log_decisions(DEALS, seed=SEED, out=folder, jobs=1, chunk_size=12, teacher="rollout")
    return folder


def end_value(game: int, points: int, tricks: int, schneider_announced: bool) -> float:
    """The teacher's scale, written out: the declared game won 1, lost 0, schneider a quarter beyond."""
    if game == NULL:
        return 1.0 if tricks == 0 else 0.0
    if points >= (90 if schneider_announced else 61):
        return 1.25 if points >= 90 and not schneider_announced else 1.0
    return -0.25 if points < 31 else 0.0


def test_the_card_played_is_valued_by_the_end_of_the_game_as_played(rollout_run):
    data = read_decisions([rollout_run])
    assert (data["teacher"] == TEACHERS.index("rollout")).all() and np.isnan(data["points"]).all()
    games = play_deals(load_profile("default"), seed=SEED, start=0, count=DEALS, log_tricks=True)
    row, other_card_differs = 0, 0
    for k in np.flatnonzero(~games["passed"]):
        declarer = int(games["declarer"][k])
        hands = [int(games[c][k]) for c in ("hand_f", "hand_m", "hand_r")]
        if not games["hand"][k]:
            hands[declarer] = (hands[declarer] | int(games["skat"][k])) & ~int(games["discard"][k])
        state = new_play(*hands, int(games["game"][k]), declarer)
        end = end_value(int(games["game"][k]), int(games["declarer_points"][k]), int(games["declarer_tricks"][k]),
                        bool(games["schneider_announced"][k]))
        for card in games["tricks"][k]:
            legal = int(legal_now(state))
            if popcount(legal) > 1:
                assert data["deal_id"][row] == k and data["legal"][row] == legal
                values = data["values"][row]
                assert values[card] == end, (k, card)
                played = [c for c in range(32) if legal >> c & 1]
                assert np.isfinite(values[played]).all() and set(values[played]) <= {-0.25, 0.0, 1.0, 1.25}
                other_card_differs += any(values[c] != end for c in played)
                row += 1
            play_card(state, int(card))
    assert row == len(data["deal_id"]) > 200                          # every decision checked
    assert other_card_differs > 10                                     # another card can lead to another end


def test_a_rollout_run_is_the_same_in_any_part_and_trains_beside_the_open_hand_teacher(rollout_run, tmp_path):
    data = read_decisions([rollout_run])
    again = read_decisions([log_decisions(DEALS, seed=SEED, out=tmp_path / "again", jobs=1, chunk_size=5,
                                          teacher="rollout")])
    for name in data:
        assert np.array_equal(data[name], again[name], equal_nan=True), name
    open_hand = read_decisions([log_decisions(DEALS, seed=SEED, out=tmp_path / "open", jobs=1, chunk_size=12,
                                              points=False)])
    assert np.array_equal(open_hand["view"], data["view"])              # the same play, another teacher
    assert not np.array_equal(open_hand["values"], data["values"], equal_nan=True)
    both = read_decisions([tmp_path / "open", rollout_run])
    model, report = train(both["deal_id"], both["view"], both["legal"], both["values"], both["points"],
                          units=4, networks=1, teacher=both["teacher"], teacher_weights=(1.0, 1.0, 1.0))
    assert set(report["student_by_teacher"]) == {"open_hand", "rollout"}
