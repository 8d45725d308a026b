"""The learned player's features of the game's state (model version 4) mean what their names say: each
is computed here again from the view alone, on every legal card of every decision of a decision run."""

import numpy as np
import pytest

from sim.rules.cards import CARD_POINTS
from sim.rules.games import NULL
from sim.rules.tricks import ABOVE
from sim.rules.view import VIEW
from sim.runs.decisions import log_decisions, read_decisions
from strategies.cardplay.heuristic_facts import TRUMP_CARDS
from strategies.cardplay.learned_features import DECISION_FEATURES, FEATURES, FEATURES_V3, N_FEATURES, card_features

F = {name: i for i, name in enumerate(FEATURES)}


def cards(mask):
    return [c for c in range(32) if (int(mask) >> c) & 1]


def points(mask):
    return sum(int(CARD_POINTS[c]) for c in cards(mask))


@pytest.fixture(scope="module")
def decisions(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs") / "decisions"
    log_decisions(40, seed=11, out=folder, jobs=1, chunk_size=20)
    return read_decisions([folder])


def state_of(view):
    """The game's state as the seat knows it, computed apart from the player's kernel."""
    game, seat, d = int(view[VIEW.game]), int(view[VIEW.seat]), int(view[VIEW.declarer])
    defenders = [s for s in range(3) if s != d]
    declarer_points = points(view[VIEW.won + d])
    defender_points = sum(points(view[VIEW.won + s]) for s in defenders)
    if seat == d:
        side, other, goals = declarer_points + points(view[VIEW.discard]), defender_points, (61, 60)
    else:
        side, other, goals = defender_points, declarer_points, (60, 61)
    out = ~int(view[VIEW.played] | view[VIEW.own_hand] | view[VIEW.discard]) & 0xFFFFFFFF
    own, trumps = int(view[VIEW.own_hand]), int(TRUMP_CARDS[game])
    masters = sum(1 for c in cards(own) if int(ABOVE[game, c]) & out == 0)
    trick = sum(int(CARD_POINTS[view[VIEW.trick + k]]) for k in range(int(view[VIEW.in_trick])))
    return game, side, other, goals, out, own, trumps, masters, trick


def test_the_features_of_the_game_state_mean_what_their_names_say(decisions):
    rows = np.empty((10, N_FEATURES))
    seen = dict.fromkeys(("reaches_game_surely", "may_give_game"), 0)
    for view, legal in zip(decisions["view"], decisions["legal"]):
        count = card_features(view, legal, rows)
        game, side, other, goals, out, own, trumps, masters, trick = state_of(view)
        for k, c in enumerate(cards(legal)):
            row = rows[k]
            assert row[F["side_points"]] == side / 120 and row[F["opponent_points"]] == other / 120
            assert row[F["own_trumps"]] == bin(own & trumps).count("1") / 4
            assert row[F["trumps_out"]] == bin(out & trumps).count("1") / 4
            assert row[F["own_masters"]] == masters / 4
            surely, after = row[F["wins_surely"]] == 1.0, trick + int(CARD_POINTS[c])
            assert row[F["trick_points_x_wins_surely"]] == (trick / 11 if surely else 0.0)
            counts = game != NULL
            expected = {"reaches_game_surely": counts and surely and side + after >= goals[0],
                        "may_give_game": counts and not surely and other + after >= goals[1]}
            for name, value in expected.items():
                assert row[F[name]] == float(value), (name, c)
                seen[name] += value
        assert count == len(cards(legal))
    assert all(seen.values()), seen           # every one of them is met somewhere in 40 deals


def test_version_4_keeps_version_3s_features_first_and_the_shared_ones_next():
    assert FEATURES[:45] == FEATURES_V3 and len(set(FEATURES)) == N_FEATURES
    first, last = DECISION_FEATURES
    assert FEATURES[first:last] == ("side_points", "opponent_points", "own_trumps", "trumps_out", "own_masters")


def test_the_shared_features_are_the_same_for_every_card_of_a_decision(decisions):
    rows = np.empty((10, N_FEATURES))
    first, last = DECISION_FEATURES
    for view, legal in zip(decisions["view"], decisions["legal"]):
        count = card_features(view, legal, rows)
        assert (rows[:count, first:last] == rows[0, first:last]).all()
