"""Expected-score bidding: the fitted model (monotone, calibrated), the profile it makes, and `skatsim hand`."""

import json
import tomllib
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from sim.commands.cli import main
from sim.rules.cards import parse_hand
from sim.rules.games import GAME_NAMES, Declaration
from sim.runs.calibrating import calibrate, fit, load_rows, toml_text
from sim.runs.hands import judge_hand, read_hand
from sim.runs.simulation import simulate
from strategies import load_profile, play_deals
from strategies.calibration import FEATURES, MONOTONE, Model, features
from tests.command_line import stdout_runner


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    """A declare-mode run of every variant of the club profile (heuristic card play), the model fitted on it
    and the profile written from it."""
    folder = tmp_path_factory.mktemp("calibration")
    run = simulate(4000, seed=21, profile="club", out=folder / "run", jobs=1, chunk_size=2000, mode="declare",
                   variants="all")
    summaries = calibrate([run], folder / "calibrated.toml")
    rows, _ = load_rows([run])
    model, checks = fit(rows)
    return folder / "calibrated.toml", model, checks, summaries


def suit_hands(texts):
    return np.array([parse_hand(t) for t in texts], dtype=np.uint32)


# Clubs, one more trump each time in place of a low side card; then one more jack in place of a low trump.
MORE_TRUMPS = ["C7 C8 S7 S8 S9 H7 H8 H9 D7 D8", "C7 C8 C9 S8 S9 H7 H8 H9 D7 D8", "CQ C7 C8 C9 S9 H7 H8 H9 D7 D8",
               "CK CQ C7 C8 C9 H7 H8 H9 D7 D8", "CK CQ C7 C8 C9 C10 H8 H9 D7 D8", "CA CK CQ C7 C8 C9 C10 H9 D7 D8",
               "CA CK CQ C7 C8 C9 C10 H9 D7 DJ"]
MORE_JACKS = ["CA CK CQ C10 C9 C8 C7 S7 H7 D7", "DJ CA CK CQ C10 C9 C8 S7 H7 D7", "DJ HJ CA CK CQ C10 C9 S7 H7 D7",
              "DJ HJ SJ CA CK CQ C10 S7 H7 D7", "DJ HJ SJ CJ CA CK CQ S7 H7 D7"]


@pytest.mark.parametrize("situation", ["pickup", "hand", "kept"])
@pytest.mark.parametrize("sequence", [MORE_TRUMPS, MORE_JACKS], ids=["trumps", "jacks"])
def test_more_trumps_or_jacks_never_lower_the_chance_of_a_suit_game(calibrated, situation, sequence):
    _, model, _, _ = calibrated
    for seat in (0, 1, 2):
        cards = features(suit_hands(sequence), seat, "suit", 3)
        p = model.probability("win", "suit", situation, cards)
        assert (np.diff(p) >= -1e-12).all(), (seat, p)
    assert p[-1] > p[0]


def test_every_strength_feature_has_its_sign(calibrated):
    _, model, _, _ = calibrated
    for name, part in model.parts.items():
        signs = np.array([MONOTONE[part.group].get(f, 0) for f in FEATURES[part.group]])
        assert (signs * part.coef >= 0).all(), name


def test_rows_carry_the_engines_game_ids(calibrated):
    """The fit groups rows by game: the ids must be the engine's, whatever order the run's
    dictionary column lists the names in."""
    _, model, _, _ = calibrated
    folder = calibrated[0].parent / "run"
    rows, _ = load_rows([folder])
    names = pl.read_parquet(sorted(folder.glob("part-*.parquet")), columns=["game"])["game"].cast(pl.String)
    assert rows["game"].to_list() == [GAME_NAMES.index(n) for n in names.to_list()]
    assert {"win_null_ouvert_pickup", "win_null_ouvert_hand", "win_null_ouvert_kept"} <= set(model.parts)


@pytest.mark.parametrize("source", ["fitted", "default", "club"])
def test_every_part_of_the_model_converged(calibrated, source):
    """A fit that ran away (a nearly flat direction) shows as huge weights: none may, in a fresh fit or
    in the shipped profiles."""
    if source == "fitted":
        parts = calibrated[1].parts
    else:
        parts = Model.from_dict(load_profile(source).spec["forehand"]["bidder"]["model"]).parts
    for name, part in parts.items():
        assert abs(part.intercept) < 40 and (np.abs(part.coef) < 20).all(), (name, part.intercept, part.coef)


def test_the_win_probabilities_are_calibrated_on_held_out_deals(calibrated):
    """Brier score below that of the base rate, and every well-filled reliability bin within 0.06."""
    _, _, checks, _ = calibrated
    for name in ("win_suit_pickup", "win_suit_kept", "win_grand_pickup", "win_null_pickup"):
        check = checks[name]
        assert check["brier"] < check["brier_of_the_rate"], name
        for cell in check["reliability"]:
            if cell["rows"] >= 300:
                assert abs(cell["predicted"] - cell["observed"]) <= 0.06, (name, cell)


def test_the_model_is_plain_data_and_round_trips(calibrated):
    path, model, _, _ = calibrated
    spec = tomllib.loads(path.read_text())
    assert spec["bidder"]["name"] == spec["declarer"]["name"] == "expected_score"
    again = Model.from_dict(json.loads(json.dumps(model.to_dict())))
    cards = features(suit_hands(MORE_TRUMPS), 1, "suit")
    assert np.allclose(again.probability("win", "suit", "pickup", cards), model.probability(
        "win", "suit", "pickup", cards))
    with pytest.raises(ValueError, match="version"):
        Model.from_dict({"version": 99})


def test_the_calibrated_profile_bids_declares_and_plays_legally(calibrated):
    path, _, _, _ = calibrated
    c = play_deals(load_profile(path), seed=5, start=0, count=3000)
    played = np.flatnonzero(~c["passed"])
    assert 0.6 < len(played) / 3000 < 1.0
    for k in played:
        Declaration(int(c["game"][k]), bool(c["hand"][k]), bool(c["schneider_announced"][k]),
                    bool(c["schwarz_announced"][k]), bool(c["ouvert"][k])).check(int(c["bid"][k]))
    assert c["won"][played].mean() > 0.6


def test_the_calibrated_profile_declares_every_game_in_declare_mode(calibrated):
    from strategies.whole_deals import declare_every_game

    path, _, _, _ = calibrated
    c = declare_every_game(load_profile(path), seed=5, start=0, count=300)
    assert (c["game"] == np.tile(np.arange(6), 300 * 3)).all()
    for k in range(len(c["game"])):
        Declaration(int(c["game"][k]), bool(c["hand"][k]), bool(c["schneider_announced"][k]),
                    bool(c["schwarz_announced"][k]), bool(c["ouvert"][k])).check(18)


def test_features_have_their_names(calibrated):
    hands = suit_hands(MORE_TRUMPS)
    for group in FEATURES:
        assert features(hands, 0, group).shape == (len(hands), len(FEATURES[group]))


# --- skatsim hand --------------------------------------------------------------------------


def test_four_jacks_and_seven_clubs_win_clubs_and_grand_almost_always():
    table = judge_hand(parse_hand("CJ SJ HJ DJ CA C10 CK CQ C9 C8"), 1, deals=400, seed=2)
    rates = {row["game"]: row for row in table.iter_rows(named=True)}
    for game in ("clubs", "clubs hand", "grand", "grand hand"):
        assert rates[game]["win_rate"] >= 0.97 and rates[game]["bid_up_to"] >= 120, rates[game]
    assert table.row(0, named=True)["game"] in ("grand hand", "clubs hand")



def test_a_hopeless_hand_is_advised_to_pass():
    result = stdout_runner().invoke(main, ["hand", "C7 D8 S9 HQ HK CQ D10 SK H8 D9", "--deals", "300", "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["advice"].startswith("pass")
    assert all(game["expected_sf"] < 0 for game in answer["games"])


def test_the_hand_command_prints_a_table_and_advice():
    result = stdout_runner().invoke(main, ["hand", "CJ SJ HA H10 HK H9 H8 SA CA D7", "--seat", "rearhand",
                                           "--skat", "D8 D9", "--deals", "200"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("game") and len(lines) == 1 + 14 + 1


@pytest.mark.parametrize("args, message", [
    (["CJ SJ HJ"], "a hand has ten cards, not 3"),
    (["CJ CJ HJ DJ CA C10 CK CQ C9 C8"], "card CJ written twice"),
    (["CJ SJ HJ DJ CA C10 CK CQ C9 C8", "--skat", "CJ D7"], "a card of the skat is also in the hand"),
    (["CJ SJ HJ DJ CA C10 CK CQ C9 X9"], "unknown card 'X9'"),
    (["CJ SJ HJ DJ CA C10 CK CQ C9 C8", "--seat", "dealer"], "Invalid value for '--seat'"),
])
def test_every_mistake_in_a_hand_is_one_line(args, message):
    result = CliRunner().invoke(main, ["hand", *args, "--deals", "10"])
    assert result.exit_code in (1, 2) and result.output.count("\n") == 1 and message in result.output
    assert "Traceback" not in result.output


def test_read_hand_takes_seat_names_and_numbers():
    assert read_hand("CJ SJ HJ DJ CA C10 CK CQ C9 C8", "Rearhand", None)[1] == 2
    assert read_hand("CJ SJ HJ DJ CA C10 CK CQ C9 C8", 1, "D7 D8")[2] == parse_hand("D7 D8")


@pytest.mark.slow
def test_calibrate_refits_in_rounds_and_says_how_the_fit_moved(tmp_path):
    run = simulate(1500, seed=4, out=tmp_path / "run", jobs=1, mode="declare", variants="all")
    result = CliRunner().invoke(main, ["calibrate", str(run), "--out", str(tmp_path / "mine.toml"), "--rounds", "1",
                                       "--deals", "1500", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    rounds = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert [r["round"] for r in rounds] == [0, 1] and 0 <= rounds[1]["largest_change"] < 0.2
    told = rounds[0]["brier"]                          # every fitted probability, beside the rate's
    assert {"win_suit_pickup", "schneider_grand_kept", "win_null_hand"} <= set(told)
    assert set(told) == set(rounds[0]["brier_of_the_rate"])
    assert load_profile(tmp_path / "mine.toml").seats[0].bidder.margin == 0.0


@pytest.mark.parametrize("change, message", [
    (lambda part: part.pop("intercept"), "lacks 'intercept'"),
    (lambda part: part.update(group=["grand"]), "does not have this skatsim's group and features"),
    (lambda part: part.update(coef="many"), "must be numbers"),
    (lambda part: part.update(intercept=float("inf")), "the intercept finite"),
])
def test_a_damaged_model_in_a_profile_is_one_line(tmp_path, change, message):
    from strategies.profiles import ProfileError

    data = tomllib.loads((Path(__file__).parents[2] / "strategies/profile_files/default.toml").read_text())
    change(data["bidder"]["model"]["win_suit_pickup"])
    path = tmp_path / "damaged.toml"
    path.write_text(toml_text(data))
    with pytest.raises(ProfileError, match=f"model part win_suit_pickup.*{message}"):
        load_profile(str(path))


def test_expected_scores_of_a_game_follow_the_seeger_fabian_list():
    """Known answers (docs/rules.md#scoring: won +value + 50, lost -2 x value - 50; an overbid loses at the smallest
    multiple of the base value reaching the bid)."""
    from strategies.expected import NO_GAME, announced, null, suit_or_grand

    # hearts with 2: value 30, with schneider 40
    assert suit_or_grand(1.0, 0.0, 10, 3, 18, 0.0) == 80 and suit_or_grand(0.0, 0.0, 10, 3, 18, 0.0) == -110
    assert suit_or_grand(1.0, 1.0, 10, 3, 18, 0.0) == 90
    assert suit_or_grand(1.0, 1.0, 10, 3, 40, 0.0) == 90
    assert suit_or_grand(1.0, 0.0, 10, 3, 40, 0.0) == -130   # needs schneider
    assert suit_or_grand(1.0, 1.0, 10, 3, 48, 0.0) == -150   # overbid at 50
    # clubs with 1: value 24, with schneider 36: 0.3 (36 + 50) + 0.5 (24 + 50) - 0.2 (2 x 24 + 50)
    assert suit_or_grand(0.8, 0.3, 12, 2, 18, 0.0) == pytest.approx(43.2)
    assert suit_or_grand(0.8, 0.9, 12, 2, 18, 0.0) == pytest.approx(0.8 * 86 - 0.2 * 98)  # schneider at most the win
    # grand hand with 2, schneider announced: levels 2 + 1 + 1 hand + 2 = 6, value 144
    assert announced(0.5, 24, 6, 96, 0.0) == pytest.approx(0.5 * 194 - 0.5 * 338)
    assert announced(1.0, 24, 6, 168, 0.0) == NO_GAME
    assert null(0.5, 23, 18, 0.0) == pytest.approx(0.5 * 73 - 0.5 * 96) and null(1.0, 23, 24, 0.0) == NO_GAME


def test_a_calibrated_profile_records_the_card_player_its_odds_describe(calibrated):
    path, _, _, _ = calibrated
    written = tomllib.loads(path.read_text())
    assert written["bidder"]["model"]["card_play"] == {"name": "heuristic"}
    assert written["declarer"]["model"]["card_play"]["name"] == "heuristic"
    assert load_profile(path).seats[0].bidder.model.card_play["name"] == "heuristic"


FITTED = "bid with win probabilities fitted on the play of"


def warned(told: list[str]) -> list[str]:
    """The lines told of a profile bidding with probabilities fitted on another card player's play (a first run
    also tells its compile)."""
    return [line for line in told if FITTED in line]


def test_a_profile_bidding_for_another_card_player_is_told_once(calibrated, tmp_path):
    path, _, _, _ = calibrated
    told = []
    simulate(200, seed=2, profile=str(path), out=tmp_path / "same", jobs=1, notice=told.append)
    assert warned(told) == []
    simulate(200, seed=2, profile=str(path), settings=["card_play=random"], out=tmp_path / "other", jobs=1,
             notice=told.append)
    assert len(warned(told)) == 1
    assert f"forehand, middlehand, rearhand {FITTED} heuristic" in warned(told)[0]
    told.clear()
    simulate(200, seed=2, profile=str(path), settings=["card_play=random"], out=tmp_path / "quiet", jobs=1,
             notice=told.append, calibration_warning=False)
    assert warned(told) == []


def test_a_match_warns_once_and_never_when_only_the_card_play_is_compared(tmp_path):
    from sim.runs.matches import match

    told = []
    match("club", "club", deals=10, chunk_size=10, settings=["card_play=random"], out=tmp_path / "both", jobs=1,
          notice=told.append)
    assert len(warned(told)) == 1 and warned(told)[0].count("profile 'club") == 1, told
    told.clear()
    match("club", "club", deals=10, chunk_size=10, card_play_only=True, settings_a=["card_play=learned"],
          out=tmp_path / "cards", jobs=1, notice=told.append)
    assert warned(told) == [], told
    match("club", "club", deals=10, chunk_size=10, settings=["card_play=random"], out=tmp_path / "quiet", jobs=1,
          notice=told.append, calibration_warning=False)
    assert warned(told) == [], told


def test_a_run_refused_is_told_without_the_warning(tmp_path):
    from sim.runs import RunError

    told = []
    simulate(10, seed=2, profile="club", chunk_size=10, out=tmp_path / "run", jobs=1)
    with pytest.raises(RunError, match="holds a different run"):
        simulate(10, seed=3, profile="club", settings=["card_play=random"], chunk_size=10, out=tmp_path / "run",
                 jobs=1, notice=told.append)
    assert warned(told) == []


def test_a_tournament_warns_once_for_all_its_matches_and_the_option_silences_it(tmp_path):
    players = ["club@card_play=random", "club", "threshold"]
    result = stdout_runner().invoke(main, ["tournament", *players, "--deals", "10", "--chunk-size", "10", "--jobs",
                                           "1", "--out", str(tmp_path / "cup")])
    assert result.exit_code == 0, result.output
    assert len(warned(result.stderr.splitlines())) == 1, result.stderr
    for options in (["--card-play-only"], ["--no-calibration-warning"]):
        result = stdout_runner().invoke(main, ["tournament", *players, "--deals", "10", "--chunk-size", "10",
                                               "--jobs", "1", "--out", str(tmp_path / options[0]), *options])
        assert result.exit_code == 0 and FITTED not in result.stderr, result.stderr


def test_calibrating_on_learned_play_records_the_learned_player(tmp_path):
    run = simulate(300, seed=8, profile="default", out=tmp_path / "run", jobs=1, mode="declare", variants="all")
    calibrate([run], tmp_path / "learned.toml", objective=1.0)
    written = tomllib.loads((tmp_path / "learned.toml").read_text())
    assert written["bidder"]["model"]["card_play"]["name"] == "learned"
    assert written["bidder"]["objective"] == 1.0 and written["declarer"]["objective"] == 1.0


def test_calibrate_writes_the_objective_it_is_given(calibrated, tmp_path):
    from sim.commands.learn import _objective_weight

    assert (_objective_weight("own"), _objective_weight("table"), _objective_weight("0.25")) == (0.0, 1.0, 0.25)
    run = Path(calibrated[0]).parent / "run"
    result = CliRunner().invoke(main, ["calibrate", str(run), "--out", str(tmp_path / "p.toml"),
                                       "--objective", "0.25"])
    assert result.exit_code == 0, result.output
    assert load_profile(tmp_path / "p.toml").seats[1].bidder.objective == 0.25


@pytest.mark.parametrize("objective", ["tables", "1.5", "-0.1"])
def test_a_bad_objective_is_one_line_and_writes_nothing(calibrated, tmp_path, objective):
    run = Path(calibrated[0]).parent / "run"
    result = CliRunner().invoke(main, ["calibrate", str(run), "--out", str(tmp_path / "p.toml"),
                                           "--objective", objective])
    assert result.exit_code != 0 and "--objective must be own, table or a weight from 0 to 1" in result.output
    assert not (tmp_path / "p.toml").exists()
