"""The second teacher: PIMC's values of the legal cards from the seat's view, logged like the first,
the same for a seed, blind to the cards the seat cannot see, and read by training beside the first."""

import numpy as np
import pytest

from sim.rules.tricks import legal_now
from sim.runs.decisions import log_decisions, read_decisions
from sim.runs.folder import read_manifest
from strategies.cardplay.builtin import new_workspace
from strategies.cardplay.learned_features import N_FEATURES
from strategies.cardplay.pimc import pimc_best, pimc_policy
from strategies.teacher import TEACHERS, pimc_teacher_values
from strategies.training import train, untrusted
from tests.views import unseen_swapped, view_of


@pytest.fixture(scope="module")
def pimc_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs") / "pimc"
    log_decisions(6, seed=3, profile="strong", out=folder, jobs=1, chunk_size=3, teacher="pimc")
    return folder


def test_a_pimc_run_values_every_legal_card_the_same_for_a_seed(pimc_run, tmp_path):
    data = read_decisions([pimc_run])
    legal = np.array([[int(m) >> c & 1 for c in range(32)] for m in data["legal"]], dtype=bool)
    assert len(data["deal_id"]) > 50 and (data["teacher"] == TEACHERS.index("pimc")).all()
    assert np.isfinite(data["values"][legal]).all() and np.isnan(data["values"][~legal]).all()
    assert np.isnan(data["points"]).all()
    assert len(np.unique(data["values"][legal])) > 10                   # means over worlds, not 0 or 1 alone
    again = read_decisions([log_decisions(6, seed=3, profile="strong", out=tmp_path / "again", jobs=1,
                                          chunk_size=2, teacher="pimc")])
    for name in data:
        assert np.array_equal(data[name], again[name], equal_nan=True), name


def test_a_pimc_run_follows_the_same_play_as_an_open_hand_run_and_both_train_together(pimc_run, tmp_path):
    open_hand = log_decisions(6, seed=3, profile="strong", out=tmp_path / "open", jobs=1, chunk_size=3,
                              points=False)
    first, second = read_decisions([open_hand]), read_decisions([pimc_run])
    assert np.array_equal(first["view"], second["view"]) and np.array_equal(first["legal"], second["legal"])
    both = read_decisions([open_hand, pimc_run])
    assert list(np.unique(both["teacher"])) == [0, 1]
    model, report = train(both["deal_id"], both["view"], both["legal"], both["values"], both["points"],
                          units=4, networks=1, teacher=both["teacher"], teacher_weights=(1.0, 2.0))
    assert model["weights"].shape[1] == N_FEATURES and set(report["student_by_teacher"]) <= set(TEACHERS)
    pimc = both["teacher"] == 1
    tuned, again = train(both["deal_id"][pimc], both["view"][pimc], both["legal"][pimc], both["values"][pimc],
                         teacher=both["teacher"][pimc], start=(model, report))
    assert tuned["hidden"].shape == model["hidden"].shape            # fine-tuning goes on from the start's network
    assert np.array_equal(untrusted(tuned, again)["weights"], untrusted(model, report)["weights"])
    history = again["validation_given_away_by_epoch"][0]
    assert min(history) <= history[0]                                  # the start is kept unless an epoch beats it


def test_a_pimc_play_out_run_values_the_cards_as_the_default_pimc_player_and_trains(pimc_run, tmp_path):
    folder = log_decisions(6, seed=3, profile="strong", out=tmp_path / "played", jobs=1, chunk_size=3,
                           teacher="pimc_play_out")
    data = read_decisions([folder])
    legal = np.array([[int(m) >> c & 1 for c in range(32)] for m in data["legal"]], dtype=bool)
    assert (data["teacher"] == TEACHERS.index("pimc_play_out")).all()
    assert np.isfinite(data["values"][legal]).all() and np.isnan(data["values"][~legal]).all()
    assert len(np.unique(data["values"][legal])) > 10
    solved = read_decisions([pimc_run])
    assert np.array_equal(data["view"], solved["view"])                  # the same play, other values
    assert not np.array_equal(data["values"], solved["values"], equal_nan=True)
    config = read_manifest(folder).config["teacher"]
    assert config["name"] == "pimc_play_out" and config["worlds"] == 60
    model, report = train(data["deal_id"], data["view"], data["legal"], data["values"], units=4, networks=1,
                          teacher=data["teacher"], teacher_weights=(1.0, 1.0, 1.0, 2.0))
    assert set(report["student_by_teacher"]) == {"pimc_play_out"}


@pytest.mark.parametrize("play_out", [False, True])
def test_the_pimc_values_do_not_depend_on_cards_the_seat_cannot_see(play_out):
    """Two deals that differ only in the other seats' cards give the same view and the same values; the
    card of best value for the seat is one the pimc player's search finds best (its worlds solved, or
    played out as the pimc_play_out teacher values them)."""
    params = pimc_policy(play_out=play_out).param_row()
    tt, stack = new_workspace(16)
    for index in range(8):
        a, b, declarer = unseen_swapped(index)
        va, vb = view_of(a, 0), view_of(b, 0)
        rng = np.uint64(index)
        out_a, out_b = np.empty(32), np.empty(32)
        pimc_teacher_values(va, legal_now(a), params, rng, tt, stack, out_a)
        pimc_teacher_values(vb, legal_now(b), params, rng, tt, stack, out_b)
        assert np.array_equal(out_a, out_b, equal_nan=True)
        sign = 1.0 if declarer == 0 else -1.0
        best = np.nanmax(sign * out_a)
        best_mean = pimc_policy(play_out=play_out, near=0).param_row()               # the same worlds
        chosen = pimc_best(va, legal_now(a), best_mean, rng, tt, stack)[1]
        assert all(sign * out_a[c] >= best - 1e-9 for c in range(32) if chosen >> c & 1)
