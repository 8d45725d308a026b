"""The learned card player: decisions logged with the teacher's values, training end to end and the
same for a seed, model files checked in one line, no hidden card read, legal play in both loops."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from sim.commands.cli import main
from sim.rules.cards import parse_card, parse_cards
from sim.rules.games import NULL
from sim.rules.tricks import legal_now
from sim.rules.view import VIEW
from sim.runs.decisions import log_decisions, read_decisions
from strategies import load_profile, play_deals
from strategies.cardplay.learned import (
    MODEL_ARRAYS,
    MODEL_FORMAT,
    SHIPPED_MODEL,
    learned_card,
    linear_model,
    load_model,
    model_data,
    model_path,
    shipped_models,
)
from strategies.cardplay.learned_features import (
    FEATURES,
    FEATURES_V3,
    FEATURES_V4,
    N_CONTEXTS,
    N_FEATURES,
    card_features,
    null_exposed,
    null_unsafe,
)
from strategies.learning.network import (
    EPOCHS,
    HIDDEN_UNITS,
    NETWORKS,
    NULL_CONTEXTS,
    column_mean_std,
    network_scores,
    null_network_over,
    side_by_side,
)
from strategies.learning.training import card_rows, train
from strategies.registry import StrategyError, build
from tests.digests import MODEL_V5, kernel_arguments, play_digest
from tests.hidden_cards import unseen_swapped, view_of


@pytest.fixture(scope="module")
def decision_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs") / "decisions"
    log_decisions(24, seed=3, out=folder, jobs=1, chunk_size=12)
    return folder


def test_a_decision_run_holds_each_choice_with_the_teachers_value_of_every_legal_card(decision_run):
    data = read_decisions([decision_run])
    assert len(data["deal_id"]) > 200
    legal = np.array([[int(m) >> c & 1 for c in range(32)] for m in data["legal"]], dtype=bool)
    assert (legal.sum(axis=1) > 1).all()                             # only decisions with a choice
    assert np.isfinite(data["values"][legal]).all() and np.isnan(data["values"][~legal]).all()
    assert set(np.unique(data["values"][legal])) <= {-0.25, 0.0, 1.0, 1.25}
    null = data["view"][:, VIEW.game] == NULL
    assert set(np.unique(data["values"][legal & null[:, None]])) <= {0.0, 1.0}     # null: no schneider


def test_the_decisions_of_a_deal_are_the_same_in_any_part(decision_run, tmp_path):
    whole = read_decisions([decision_run])
    other = log_decisions(24, seed=3, out=tmp_path / "other", jobs=1, chunk_size=7)
    cut = read_decisions([other])
    for name in whole:
        assert np.array_equal(whole[name], cut[name], equal_nan=True), name


def test_training_end_to_end_writes_a_model_that_plays(decision_run, tmp_path):
    out = tmp_path / "model.npz"
    result = CliRunner().invoke(main, ["train", "card-play", str(decision_run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout.splitlines()[0])
    passes = [json.loads(line) for line in result.stderr.splitlines()]     # the fit's progress, pass by pass
    assert [(p["network"], p["pass"]) for p in passes] == [(k, e) for k in range(1, NETWORKS + 1)
                                                           for e in range(1, EPOCHS + 1)]
    assert [[p["validation_given_away"] for p in passes if p["network"] == k] for k in range(1, NETWORKS + 1)] == [
        history[1:] for history in report["validation_given_away_by_epoch"]]
    assert 0 < report["held_out_decisions"] < report["decisions"]
    assert 0.5 < report["student"]["agreement"] <= 1 and report["student"]["given_away"] >= 0
    model, training = load_model(out)
    assert model["weights"].shape == (N_CONTEXTS, N_FEATURES) and training["decisions"] == report["decisions"]
    assert model["hidden"].shape == (report["hidden_units"] * report["networks"], N_FEATURES)
    assert (report["hidden_units"], report["networks"]) == (HIDDEN_UNITS, NETWORKS)
    games = play_deals(load_profile("default", ["card_play=learned", f"card_play.model={out}"]), seed=5, start=0,
                       count=40,
                       log_tricks=True)
    assert (~games["passed"]).sum() > 20    # the engine checks every card is legal


def test_training_on_too_few_deals_is_one_clear_line(tmp_path):
    few = log_decisions(4, seed=3, out=tmp_path / "few", jobs=1, chunk_size=4)
    out = tmp_path / "model.npz"
    result = CliRunner().invoke(main, ["train", "card-play", str(few), "--out", str(out)])
    assert result.exit_code != 0 and not out.exists()
    assert "too few to fit, test and validate" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_training_is_the_same_for_a_seed(decision_run):
    data = read_decisions([decision_run])
    args = (data["deal_id"], data["view"], data["legal"], data["values"])
    first, report = train(*args, seed=4)
    again, report_again = train(*args, seed=4)
    assert all(np.array_equal(first[name], again[name]) for name in MODEL_ARRAYS)
    report.pop("fit_seconds"), report_again.pop("fit_seconds")
    assert report == report_again
    other, _ = train(*args, seed=5)
    assert not np.array_equal(first["hidden"], other["hidden"])      # another seed: other deals, other start


def test_the_features_fill_every_number_of_every_legal_cards_row(decision_run):
    # the player's rows are not cleared first: each feature must be written for every card
    data = read_decisions([decision_run])
    rows = np.empty((10, N_FEATURES))
    for view, legal in zip(data["view"], data["legal"]):
        rows[:] = np.nan
        count = card_features(view, legal, rows)
        assert count == bin(int(legal)).count("1") and np.isfinite(rows[:count]).all()
        assert (rows[:count, 0] == 1.0).all()             # the bias, whose share the scores add once


#: The SHA-256 of every column, trick logs included, of 2,000 deals of the club profile's bidding with the
#: learned card player (the profile then named strong), recorded from
#: model v5, then the shipped model, scored card by card, each hidden unit's sum in a loop of its own (commit
#: b1fe35a).
STRONG_BEFORE_SIDE_BY_SIDE = "566ae6bfbe0e9a827fb347ca2ad551319642ad9ac2776337a4ec78a29487e032"


def test_a_model_of_version_3_plays_as_before_the_cards_were_scored_side_by_side():
    profile = load_profile("club", ["card_play=learned", f"card_play.model={MODEL_V5}"])
    assert play_digest(profile, 2000) == STRONG_BEFORE_SIDE_BY_SIDE


#: The same of the shipped model v7 (features of version 4; the five shared features summed once a decision).
#: v6 (in the project's history, commit 2420423) gave 976aef372f9fe3131f1fa2193e5f9f6ec84971ff36e6071315b2848103a29623.
STRONG_V7 = "f50517509d00228bcb51e354cf7d2bd850c3aa4ec4ed810f7f6ef1e43ac29dfd"


def test_the_shipped_model_plays_as_recorded():
    assert play_digest(load_profile("club", ["card_play=learned"]), 2000) == STRONG_V7


#: The same of v8 (v7 with a null network of its own, features of version 5), shipped beside v7.
STRONG_V8 = "b6478f50a5a6734aab0a726026410b45927bd3488e12d208c93cdc1b1ef3475f"


def test_v8_plays_as_recorded_and_as_v7_outside_null():
    profile = load_profile("club", ["card_play=learned", "card_play.model=v8"])
    assert play_digest(profile, 2000) == STRONG_V8
    games = play_deals(profile, seed=31, start=0, count=2000, log_tricks=True)
    v7 = play_deals(load_profile("club", ["card_play=learned", "card_play.model=v7"]), seed=31, start=0, count=2000,
                    log_tricks=True)
    others = ~games["passed"] & (games["game"] != NULL)
    assert np.array_equal(games["tricks"][others], v7["tricks"][others])
    nulls = ~games["passed"] & (games["game"] == NULL)
    assert nulls.sum() > 30 and not np.array_equal(games["tricks"][nulls], v7["tricks"][nulls])


def test_the_kernel_plays_the_best_score_of_the_linear_weights_and_the_network(decision_run):
    data = read_decisions([decision_run])
    rng = np.random.default_rng(1)
    model = {"weights": rng.normal(size=(N_CONTEXTS, N_FEATURES)), "hidden": rng.normal(size=(5, N_FEATURES)),
             "hidden_bias": rng.normal(size=(N_CONTEXTS, 5)), "hidden_out": rng.normal(size=(N_CONTEXTS, 5))}
    params, weights = np.zeros(0), model_data(model)
    rows, _, decision, context = card_rows(data["view"], data["legal"], data["values"])
    scores = network_scores(model, rows, context)
    for i in range(0, len(data["view"]), 7):
        mine = np.flatnonzero(decision == i)
        cards = [c for c in range(32) if int(data["legal"][i]) >> c & 1]
        card = learned_card(data["view"][i], data["legal"][i], params, weights, np.uint64(1))[1]
        assert card == cards[int(np.argmax(scores[mine]))]


@pytest.mark.parametrize("version, names", [(3, FEATURES_V3), (4, FEATURES_V4)])
def test_a_model_file_of_an_earlier_version_plays_the_best_score_of_its_features(decision_run, tmp_path, version,
                                                                                 names):
    # versions 4 and 5 added features after version 3's 45 and version 4's 53: such a file still plays, reading
    # its own alone
    data = read_decisions([decision_run])
    rng = np.random.default_rng(4)
    n = len(names)
    old = {"weights": rng.normal(size=(N_CONTEXTS, n)), "hidden": rng.normal(size=(6, n)),
           "hidden_bias": rng.normal(size=(N_CONTEXTS, 6)), "hidden_out": rng.normal(size=(N_CONTEXTS, 6))}
    path = tmp_path / f"version-{version}.npz"
    np.savez(path, format=np.array(MODEL_FORMAT), version=np.array(version), features=np.array(names),
             training=np.array("{}"), **old)
    params, weights = kernel_arguments(build("card_play", "learned", model=str(path)))
    rows, _, decision, context = card_rows(data["view"], data["legal"], data["values"])
    scores = network_scores(old, rows[:, :n], context)
    for i in range(0, len(data["view"]), 5):
        mine = np.flatnonzero(decision == i)
        cards = [c for c in range(32) if int(data["legal"][i]) >> c & 1]
        card = learned_card(data["view"][i], data["legal"][i], params, weights, np.uint64(1))[1]
        assert card == cards[int(np.argmax(scores[mine]))]


def test_the_lean_fit_computes_what_numpy_does_over_all_rows_at_once(decision_run):
    # the fit keeps no copies the size of all card rows, and its inputs stay the same bit for bit, so a
    # model rebuilt from its recipe is the same model
    data = read_decisions([decision_run])
    rows, _, _, context = card_rows(data["view"], data["legal"], data["values"])
    mean, scale = column_mean_std(rows)
    assert np.array_equal(mean, rows.mean(axis=0)) and np.array_equal(scale, rows.std(axis=0))
    rng = np.random.default_rng(3)
    model = {"weights": rng.normal(size=(N_CONTEXTS, N_FEATURES)), "hidden": rng.normal(size=(4, N_FEATURES)),
             "hidden_bias": rng.normal(size=(N_CONTEXTS, 4)), "hidden_out": rng.normal(size=(N_CONTEXTS, 4))}
    linear = np.einsum("ij,ij->i", rows, model["weights"][context])
    assert np.array_equal(network_scores(linear_model(model["weights"]), rows, context, chunk=97), linear)
    whole = linear + np.einsum("ij,ij->i", np.maximum(rows @ model["hidden"].T + model["hidden_bias"][context], 0.0),
                               model["hidden_out"][context])
    assert np.allclose(network_scores(model, rows, context, chunk=97), whole, rtol=1e-12, atol=1e-12)


def test_networks_side_by_side_score_the_mean_of_their_scores(decision_run):
    data = read_decisions([decision_run])
    rows, _, _, context = card_rows(data["view"], data["legal"], data["values"])
    rng = np.random.default_rng(2)
    models = [{"weights": rng.normal(size=(N_CONTEXTS, N_FEATURES)), "hidden": rng.normal(size=(units, N_FEATURES)),
               "hidden_bias": rng.normal(size=(N_CONTEXTS, units)), "hidden_out": rng.normal(size=(N_CONTEXTS, units))}
              for units in (3, 4)]
    together = side_by_side(models)
    assert together["hidden"].shape == (7, N_FEATURES)
    mean = (network_scores(models[0], rows, context) + network_scores(models[1], rows, context)) / 2
    assert np.allclose(network_scores(together, rows, context), mean)


def test_a_nulls_features_say_when_a_suit_can_be_underled():
    def mask(text):
        return sum(1 << c for c in parse_cards(text))

    assert not null_unsafe(NULL, mask("H7 H9"), mask("H8 H10"))      # each of mine has a card of theirs above
    assert null_unsafe(NULL, mask("H8"), mask("H7 H9"))               # the 7 led, the 8 must take it
    assert not null_unsafe(NULL, mask("H7 HA"), mask("H8"))           # they hold one card: the 7 goes under it
    assert null_exposed(NULL, parse_card("HJ"), mask("H7 HJ"), mask("H8 H9 H10")) == 2   # the ten is below the jack
    assert null_exposed(NULL, parse_card("H7"), mask("H7 HJ"), mask("H8 H9 H10")) == 0


def test_a_null_network_over_a_model_scores_as_each_model_in_its_own_contexts(decision_run):
    data = read_decisions([decision_run])
    rows = card_rows(data["view"], data["legal"], data["values"])[0]
    context = np.arange(len(rows)) % N_CONTEXTS                     # every context, suit to null
    rng = np.random.default_rng(3)
    base, null = [{"weights": rng.normal(size=(N_CONTEXTS, N_FEATURES)), "hidden": rng.normal(size=(units, N_FEATURES)),
                   "hidden_bias": rng.normal(size=(N_CONTEXTS, units)),
                   "hidden_out": rng.normal(size=(N_CONTEXTS, units))} for units in (3, 4)]
    over = null_network_over(base, null)
    assert over["hidden"].shape == (7, N_FEATURES)
    nulls = NULL_CONTEXTS[context]
    assert nulls.any() and not nulls.all()
    scores = network_scores(over, rows, context)
    assert np.allclose(scores[nulls], network_scores(null, rows, context)[nulls])
    assert np.allclose(scores[~nulls], network_scores(base, rows, context)[~nulls])


NULL_FOREHAND = ("eval('null_rule', forehand, 'null') >= -1 and jacks(middlehand) <= 1 and jacks(rearhand) <= 1 "
                 "and aces(middlehand) <= 2 and aces(rearhand) <= 2")


def test_training_a_null_network_over_the_shipped_model_keeps_its_suit_and_grand_play(tmp_path):
    nulls = log_decisions(60, seed=3, out=tmp_path / "nulls", jobs=1, chunk_size=30, where=NULL_FOREHAND,
                          game="null", profile="club")
    assert (read_decisions([nulls])["view"][:, VIEW.game] == NULL).all()
    out = tmp_path / "model.npz"
    result = CliRunner().invoke(main, ["train", "card-play", str(nulls), "--out", str(out), "--null-over", "v7",
                                       "--hidden-units", "4", "--networks", "1"])
    assert result.exit_code == 0, result.output
    model, training = load_model(out)
    v7, _ = load_model(model_path("v7"))
    assert training["null_over"]["file"] == "learned-v7.npz"
    n = v7["weights"].shape[1]                                        # v7's features, the first of today's
    assert model["weights"].shape[1] == N_FEATURES > n
    assert np.array_equal(model["weights"][~NULL_CONTEXTS, :n], v7["weights"][~NULL_CONTEXTS])
    assert not model["weights"][~NULL_CONTEXTS, n:].any() and not model["hidden"][:96, n:].any()
    assert np.array_equal(model["hidden"][:96, :n], v7["hidden"]) and len(model["hidden"]) == 96 + 4
    assert not model["hidden_out"][NULL_CONTEXTS, :96].any() and not model["hidden_out"][~NULL_CONTEXTS, 96:].any()
    games = play_deals(load_profile("club", ["card_play=learned", f"card_play.model={out}"]), seed=5, start=0,
                       count=300, log_tricks=True)
    shipped = play_deals(load_profile("club", ["card_play=learned", "card_play.model=v7"]), seed=5, start=0,
                         count=300, log_tricks=True)
    suits = ~games["passed"] & (games["game"] != NULL)
    assert suits.sum() > 100 and np.array_equal(games["tricks"][suits], shipped["tricks"][suits])
    result = CliRunner().invoke(main, ["train", "card-play", str(tmp_path / "nulls"), "--out", str(out),
                                       "--null-over", str(tmp_path / "missing.npz")])
    assert result.exit_code != 0 and "no such model file" in result.stderr


def test_a_damaged_or_foreign_model_file_is_one_clear_line(tmp_path):
    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(SHIPPED_MODEL.read_bytes()[:300])
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, format=np.array(MODEL_FORMAT), version=np.array(99), features=np.array(FEATURES),
             weights=np.zeros((N_CONTEXTS, N_FEATURES)), training=np.array("{}"))
    other = tmp_path / "other.npz"
    np.savez(other, weights=np.zeros(3))
    broken = tmp_path / "broken.npz"
    with np.load(SHIPPED_MODEL) as data:
        arrays = dict(data)
    np.savez(broken, **{**arrays, "hidden_out": arrays["hidden_out"][:3]})
    for path, words in ((damaged, "not a readable model file"), (foreign, "version 99"),
                        (broken, "damaged model (hidden_out must be"),
                        (other, "not a readable model file"), (tmp_path / "missing.npz", "no such model file")):
        with pytest.raises(StrategyError) as error:
            build("card_play", "learned", model=str(path))
        message = str(error.value)
        assert words in message and str(path) in message and "\n" not in message
    with pytest.raises(StrategyError) as error:                     # a name with a line break, shown escaped
        build("card_play", "learned", model=str(tmp_path / "two\nlines.npz"))
    assert "two\\nlines.npz: no such model file" in str(error.value) and "\n" not in str(error.value)


def test_the_shipped_models_load_by_name_and_an_unknown_name_lists_them(tmp_path, monkeypatch):
    """`model=v4` and `model=v6`, the players the shipped model's runs were played by, load by name as
    `model=v7` does; a bare name that is neither a shipped model nor a file is one line naming the shipped."""
    assert shipped_models() == ["v4", "v6", "v7", "v8"]
    for name in ("v4", "v6", "v7"):
        assert model_path(name) == SHIPPED_MODEL.parent / f"learned-{name}.npz"
        assert np.array_equal(build("card_play", "learned", model=name).data,
                              model_data(load_model(model_path(name))[0]))
    assert not np.array_equal(build("card_play", "learned", model="v4").data, build("card_play", "learned").data)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StrategyError) as error:
        build("card_play", "learned", model="v99")
    message = str(error.value)
    assert "'v99'" in message and "shipped: v4, v6, v7" in message and "\n" not in message


def test_the_shipped_model_is_the_learned_players_default_and_plays_in_the_default_profile():
    model, training = load_model(SHIPPED_MODEL)
    assert training["decisions"] > 10_000
    assert len(model["hidden"]) == training["hidden_units"] * training["networks"] > 0
    assert np.array_equal(build("card_play", "learned").data, model_data(model))
    profile = load_profile("default")
    assert {s.card_play.name for s in profile.seats} == {"learned"}
    assert {s.card_play.name for s in load_profile("club").seats} == {"heuristic"}
    games = play_deals(profile, seed=2, start=0, count=300, log_tricks=True)
    assert (~games["passed"]).sum() > 150


def test_the_card_does_not_depend_on_cards_the_seat_cannot_see():
    """Two deals that differ only in the other seats' cards give the same view and the same card."""
    params, weights = kernel_arguments(build("card_play", "learned"))
    for index in range(30):
        a, b, _ = unseen_swapped(index)
        va, vb = view_of(a, 0), view_of(b, 0)
        assert (va == vb).all()
        rng = np.uint64(index)
        assert learned_card(va, legal_now(a), params, weights, rng)[1] == \
            learned_card(vb, legal_now(b), params, weights, rng)[1]


def test_a_damaged_part_of_a_decision_run_is_made_again_identically(decision_run, tmp_path):
    import shutil

    from sim.runs.modes import repair

    copy = tmp_path / "copy"
    shutil.copytree(decision_run, copy)
    part = copy / "part-00001.parquet"
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    assert list(repair(copy, jobs=1)) == [1]
    again, whole = read_decisions([copy]), read_decisions([decision_run])
    assert all(np.array_equal(again[k], whole[k], equal_nan=True) for k in whole)


#: The same of 300 deals of the default profile as shipped first (its file and model v7, as of 54f8053),
#: which `default-v1` keeps by name.
DEFAULT_V1 = "6ad41da8fefaa2cd3c3939bf551a8e1dd1cd9ff13ea58b92e8ea98e175a421a6"


def test_the_pinned_player_and_profile_play_as_recorded():
    """`model=v7` and the profile `default-v1` name today's player for good: whatever ships later, they play
    as recorded, so that figures against them stay figures against a fixed opponent."""
    assert play_digest(load_profile("club", ["card_play=learned", "card_play.model=v7"]), 2000) == STRONG_V7
    assert play_digest(load_profile("default-v1"), 300) == DEFAULT_V1
