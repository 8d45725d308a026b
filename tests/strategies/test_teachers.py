"""The third teacher: each legal card valued by the end it leads to on the real deal when every seat then
plays its own card player. The value of the card played is the end of the game as played; a run is the
same for a seed in any part; training reads it beside the other teachers."""

import numpy as np
import pytest

from sim import solver
from sim.rules.cards import popcount
from sim.rules.games import GAME_NAMES, NULL
from sim.rules.rng import STREAM_TEACHER, stream_key
from sim.rules.tricks import legal_now, new_play, play_card
from sim.rules.view import VIEW
from sim.runs import RunError
from sim.runs.decisions import log_decisions, read_decisions
from strategies import load_profile, play_deals
from strategies.cardplay.table import new_workspace
from strategies.learning.teacher import pimc_teacher_row, pimc_teacher_values
from strategies.learning.training import train

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


def solved_value(state, aside: int, game: int, schneider_announced: bool) -> float:
    """The same scale for a position, both sides playing on with every hand seen."""
    if game == NULL:
        return 1.0 if solver.solve(state, aside, best_cards=False).declarer_wins else 0.0
    win_at = 90 if schneider_announced else 61
    if solver.can_reach(state, aside, win_at):
        return 1.25 if win_at < 90 and solver.can_reach(state, aside, 90) else 1.0
    return 0.0 if solver.can_reach(state, aside, 31) else -0.25


def games_as_played():
    """Per declared game of the default profile's deals of SEED: its deal id, what :func:`solved_value` reads
    of it (the counted skat, the game, schneider announced), its end value and its cards with the state
    before each."""
    games = play_deals(load_profile("default"), seed=SEED, start=0, count=DEALS, log_tricks=True)
    for k in np.flatnonzero(~games["passed"]):
        declarer, game = int(games["declarer"][k]), int(games["game"][k])
        hands = [int(games[c][k]) for c in ("hand_f", "hand_m", "hand_r")]
        counted = int(games["skat"][k])
        if not games["hand"][k]:
            hands[declarer] = (hands[declarer] | counted) & ~int(games["discard"][k])
            counted = int(games["discard"][k])
        state = new_play(*hands, game, declarer)
        announced = bool(games["schneider_announced"][k])
        end = end_value(game, int(games["declarer_points"][k]), int(games["declarer_tricks"][k]), announced)
        before = []
        for card in games["tricks"][k]:
            before.append((state.copy(), int(card)))
            play_card(state, int(card))
        yield int(k), (counted, game, announced), end, before


def test_the_card_played_is_valued_by_the_end_of_the_game_as_played(rollout_run):
    data = read_decisions([rollout_run])
    row, other_card_differs = 0, 0
    for k, _, end, before in games_as_played():
        for state, card in before:
            legal = int(legal_now(state))
            if popcount(legal) > 1:
                assert data["deal_id"][row] == k and data["legal"][row] == legal
                values = data["values"][row]
                assert values[card] == end, (k, card)
                played = [c for c in range(32) if legal >> c & 1]
                assert np.isfinite(values[played]).all() and set(values[played]) <= {-0.25, 0.0, 1.0, 1.25}
                other_card_differs += any(values[c] != end for c in played)
                row += 1
    assert row == len(data["deal_id"]) > 200                          # every decision checked
    assert other_card_differs > 10                                     # another card can lead to another end


def test_the_open_hand_teacher_values_each_legal_card_by_the_open_hand_end_after_it(tmp_path):
    data = read_decisions([log_decisions(DEALS, seed=SEED, out=tmp_path / "open", jobs=1, chunk_size=12)])
    row = 0
    for k, facts, _, before in games_as_played():
        for state, _ in before:
            legal = int(legal_now(state))
            if popcount(legal) > 1:
                assert data["deal_id"][row] == k and data["legal"][row] == legal
                for card in (c for c in range(32) if legal >> c & 1):
                    child = state.copy()
                    play_card(child, card)
                    assert data["values"][row][card] == solved_value(child, *facts), (k, card)
                row += 1
    assert row == len(data["deal_id"]) > 200


def test_a_rollout_run_is_the_same_in_any_part_and_trains_beside_the_open_hand_teacher(rollout_run, tmp_path):
    data = read_decisions([rollout_run])
    again = read_decisions([log_decisions(DEALS, seed=SEED, out=tmp_path / "again", jobs=1, chunk_size=5,
                                          teacher="rollout")])
    for name in data:
        assert np.array_equal(data[name], again[name], equal_nan=True), name
    open_hand = read_decisions([log_decisions(DEALS, seed=SEED, out=tmp_path / "open", jobs=1, chunk_size=12)])
    assert np.array_equal(open_hand["view"], data["view"])              # the same play, another teacher
    assert not np.array_equal(open_hand["values"], data["values"], equal_nan=True)
    both = read_decisions([tmp_path / "open", rollout_run])
    model, report = train(both["deal_id"], both["view"], both["legal"], both["values"], units=4, networks=1)
    assert report["decisions"] == len(data["deal_id"]) + len(open_hand["deal_id"])


def test_runs_read_together_are_each_run_read_alone_one_after_the_other(rollout_run, tmp_path):
    """Training reads several runs at once: the rows are each run's own in the order given, of the same
    types, a run's deals kept apart from the next's; a folder of another mode is one clear error."""
    open_hand_run = log_decisions(DEALS, seed=SEED + 1, out=tmp_path / "points", jobs=1, chunk_size=7)
    first, second = read_decisions([open_hand_run]), read_decisions([rollout_run])
    both = read_decisions([open_hand_run, rollout_run])
    for name in both:
        expected = np.concatenate([first[name], second[name] + (10**13 if name == "deal_id" else 0)])
        assert both[name].dtype == expected.dtype, name
        assert np.array_equal(both[name], expected, equal_nan=True), name
    from sim.runs.simulation import simulate

    simulated = simulate(30, seed=1, out=tmp_path / "simulated", jobs=1)
    with pytest.raises(RunError, match="is a run of mode .*, not of card decisions"):
        read_decisions([open_hand_run, simulated])


def test_the_pimc_teacher_values_each_card_by_the_searchs_mean_on_the_teachers_scale(tmp_path):
    """The PIMC teacher does not change the play (its worlds have a stream of their own); each decision's
    values are PIMC's mean results over its worlds, put on the scale from the declared game lost (0) to won
    (1): a deal's first decision recomputed from the teacher's stream gives the same numbers."""
    data = read_decisions([log_decisions(DEALS, seed=SEED, out=tmp_path / "pimc", jobs=1, chunk_size=12,
                                         teacher="pimc")])
    open_hand = read_decisions([log_decisions(DEALS, seed=SEED, out=tmp_path / "open", jobs=1, chunk_size=12)])
    assert np.array_equal(open_hand["view"], data["view"]) and np.array_equal(open_hand["legal"], data["legal"])
    cards = (data["legal"][:, None] >> np.arange(32, dtype=np.uint32)) & 1 != 0
    assert np.array_equal(np.isfinite(data["values"]), cards)
    params, model = pimc_teacher_row()
    tt, stack = new_workspace()
    firsts = np.flatnonzero(np.r_[True, data["deal_id"][1:] != data["deal_id"][:-1]])
    for i in firsts:
        out = np.empty(32)
        pimc_teacher_values(data["view"][i], np.int64(data["legal"][i]), params, model,
                            np.uint64(stream_key(np.uint64(SEED), np.int64(data["deal_id"][i]), STREAM_TEACHER)), tt,
                            stack, out)
        assert np.allclose(out[cards[i]], data["values"][i][cards[i]], rtol=1e-6), i
    nulls = data["view"][:, VIEW.game] == NULL
    null_values = data["values"][nulls][cards[nulls]]
    assert ((null_values >= 0) & (null_values <= 1)).all()            # a null's: the share of worlds won


def test_a_run_of_one_game_type_keeps_the_decisions_of_those_games_alone(tmp_path):
    every = read_decisions([log_decisions(DEALS, seed=SEED, out=tmp_path / "every", jobs=1, chunk_size=12)])
    game = int(np.bincount(every["view"][:, VIEW.game]).argmax())
    one = read_decisions([log_decisions(DEALS, seed=SEED, out=tmp_path / "one", jobs=1, chunk_size=12,
                                        game=GAME_NAMES[game])])
    mine = every["view"][:, VIEW.game] == game
    assert 0 < mine.sum() < len(mine)
    for name in one:
        assert np.array_equal(one[name], every[name][mine], equal_nan=True), name
    with pytest.raises(RunError, match="game must be one of"):
        log_decisions(DEALS, seed=SEED, out=tmp_path / "bad", jobs=1, game="ramsch")
