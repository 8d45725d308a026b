"""Choosing strategies by name, per seat, from TOML profiles and command-line settings."""

import re

import numpy as np
import pytest

from strategies import load_profile, profile_names
from strategies.profiles import ProfileError
from strategies.registry import StrategyError, lookup, names


def test_named_profiles_ship_and_load():
    shipped = profile_names()
    assert {"default", "club", "threshold", "random", "cautious", "aggressive"} <= set(shipped)
    for name in shipped:
        profile = load_profile(name)
        assert profile.description
        assert len(profile.seats) == 3


def test_random_profile_plays_random_cards_at_every_seat():
    profile = load_profile("random")
    assert [s.card_play.name for s in profile.seats] == ["random"] * 3


def test_a_seat_table_overrides_that_seat_only(tmp_path):
    path = tmp_path / "mixed.toml"
    path.write_text('[bidder]\nname = "threshold"\n[discarder]\nname = "rules"\n'
                    '[declarer]\nname = "best_margin"\n[card_play]\nname = "heuristic"\n'
                    '[rearhand.card_play]\nname = "random"\n')
    profile = load_profile(path)
    assert [s.card_play.name for s in profile.seats] == ["heuristic", "heuristic", "random"]
    assert profile.name == "mixed"


def test_settings_apply_on_top_of_a_profile():
    profile = load_profile("threshold", ["middlehand.card_play=random", "bidder.aggressiveness=2"])
    assert [s.card_play.name for s in profile.seats] == ["heuristic", "random", "heuristic"]
    assert profile.spec["forehand"]["bidder"]["aggressiveness"] == 2
    base = load_profile("threshold").seats[0].bidder.thresholds
    assert (profile.seats[0].bidder.thresholds == base - 2).all()


def test_unknown_profile_lists_the_named_ones():
    with pytest.raises(ProfileError, match="unknown profile 'nope'.*default"):
        load_profile("nope")


@pytest.mark.parametrize("name, use", [("strong", "default profile plays the learned"), ("calibrated", "use club")])
def test_a_profile_that_is_gone_says_what_plays_as_it_did(name, use):
    with pytest.raises(ProfileError, match=f"profile '{name}' is gone: .*{use}"):
        load_profile(name)


def test_the_default_plays_the_learned_player_and_bids_with_odds_of_its_own_play():
    default, club = load_profile("default"), load_profile("club")
    assert {s.card_play.name for s in default.seats} == {"learned"}
    assert {s.card_play.name for s in club.seats} == {"heuristic"}
    for profile in (default, club):
        for seat in profile.seats:
            assert seat.bidder.model.card_play == {"name": seat.card_play.name}
            assert seat.declarer.model.card_play == {"name": seat.card_play.name}


def test_missing_profile_file_is_named(tmp_path):
    with pytest.raises(ProfileError, match="does not exist"):
        load_profile(tmp_path / "missing.toml")


def test_unknown_strategy_lists_what_exists():
    with pytest.raises(ProfileError, match=r"unknown card_play 'clever' \(known: .*heuristic.*random"):
        load_profile("default", ["card_play=clever"])


def test_unknown_parameter_lists_the_parameters():
    with pytest.raises(ProfileError, match="has no parameter 'greed'.*margin, model"):
        load_profile("default", ["bidder.greed=3"])


def test_bad_setting_and_bad_toml_are_reported(tmp_path):
    with pytest.raises(ProfileError, match="ROLE=NAME"):
        load_profile("default", ["card_play"])
    with pytest.raises(ProfileError, match="unknown role"):
        load_profile("default", ["dealer=fast"])
    bad = tmp_path / "bad.toml"
    bad.write_text("[bidder\nname=")
    with pytest.raises(ProfileError, match="not valid TOML"):
        load_profile(bad)


def test_unknown_role_in_registry_lookup():
    with pytest.raises(StrategyError, match="unknown role"):
        lookup("dealer", "x")
    assert "rules" in names("discarder")


def test_a_strategy_without_its_roles_methods_is_refused_in_one_line():
    """A bidder lacking ``assess`` would fail deep inside a run; building it names what is missing."""
    from strategies import registry

    class PlanOnly:
        def plan(self, hands, seats):
            raise AssertionError("never called")

    registry.register("bidder", "plan_only")(lambda: PlanOnly())
    try:
        with pytest.raises(StrategyError, match="bidder 'plan_only' lacks assess: see strategies.roles.Bidder"):
            registry.build("bidder", "plan_only")
    finally:
        registry._registry["bidder"].pop("plan_only", None)


@pytest.mark.slow
def test_the_examples_in_docs_profiles_and_writing_strategies_run(capsys, monkeypatch, tmp_path):
    """The profile example of docs/profiles.md and the card player, bidder and declarer of
    docs/writing-strategies.md work as printed: each is one block of code and a registration, and
    plays whole deals."""
    import re
    import sys
    from pathlib import Path

    from analysis import load_run
    from strategies import registry

    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    monkeypatch.chdir(tmp_path)
    docs = Path(__file__).resolve().parents[2] / "docs"
    profiles, writing = (docs / "profiles.md").read_text(), (docs / "writing-strategies.md").read_text()
    toml = re.findall(r"```toml\n(.*?)```", profiles, re.S)[0]
    (tmp_path / "my.toml").write_text(toml)
    profile = load_profile(tmp_path / "my.toml")
    assert profile.seats[2].card_play.name == "random"
    assert profile.spec["rearhand"]["bidder"]["evaluator"] == "classic"
    assert profile.spec["forehand"]["bidder"]["evaluator"] == "default"
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lowest_players", raising=False)   # the page's module, saved here anew
    for name, text in (("docs/profiles.md", profiles), ("docs/writing-strategies.md", writing)):
        for block in re.findall(r"```python\n(.*?)```", text, re.S):
            module = re.match(r"# (\w+\.py)\n", block)
            if module:   # a module the page says to save; the blocks after it import it
                (tmp_path / module.group(1)).write_text(block)
            else:
                exec(compile(block, name, "exec"), {})
    sys.modules.pop("lowest_players", None)   # another test saves the page's module in a folder of its own
    out = capsys.readouterr().out
    rates = [float(rate) for rate in re.findall(r"declarer win rate: ([0-9.]+)", out)]
    assert len(rates) == 3 and all(0.3 < rate < 1.0 for rate in rates)
    assert int(re.search(r"trump_count bidder: games played (\d+)", out).group(1)) > 100
    run = load_run(tmp_path / "results" / "plain-declarer")
    assert run.complete and run.config["profile_spec"]["middlehand"]["declarer"]["name"] == "plain"


def test_strategies_of_other_packages_load_through_the_entry_point_group(monkeypatch, tmp_path):
    """A module named in the `skatsim.strategies` entry-point group is imported on first lookup."""
    import sys
    from importlib.metadata import EntryPoint

    from strategies import registry

    (tmp_path / "club_players.py").write_text(
        "from strategies.cardplay import CardPolicy, random_card\n"
        "from strategies.registry import register\n\n"
        "@register('card_play', 'club_random')\n"
        "def club_random():\n"
        "    '''Random cards, registered by another package.'''\n"
        "    return CardPolicy('club_random', random_card)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    point = EntryPoint(name="club", value="club_players", group=registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "entry_points",
                        lambda group: [point] if group == registry.ENTRY_POINT_GROUP else [])
    assert "club_random" in names("card_play")
    profile = load_profile("default", ["card_play=club_random"])
    assert profile.seats[1].card_play.name == "club_random"
    sys.modules.pop("club_players", None)


def test_every_numeric_parameter_of_a_built_in_strategy_declares_its_range():
    from strategies.registry import ROLES, builtin, missing_ranges

    built_in = [lookup(role, name) for role in ROLES for name in names(role) if builtin(lookup(role, name))]
    assert {s.name for s in built_in} >= {"threshold", "default", "heuristic", "rules", "best_margin"}
    for strategy in built_in:
        assert not missing_ranges(strategy), f"{strategy.role} {strategy.name}: no range for {missing_ranges(strategy)}"


def test_a_strategy_of_another_package_without_ranges_is_told_at_registration(monkeypatch):
    from strategies import registry

    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    with pytest.warns(registry.StrategyWarning, match=r"evaluator 'jack_ace' .*: ace, jack have no range.*"
                                                      r"ranges=\{'ace': \(low, high\)\}"):
        @registry.register("evaluator", "jack_ace")
        def jack_ace(hands, seats, ace=1.0, jack=2.0):
            """Jacks and aces."""
            return np.zeros((len(hands), 6))
    assert not registry.builtin(registry.lookup("evaluator", "jack_ace"))
    assert registry.builtin(registry.lookup("evaluator", "default"))


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "21", "-1e300", "true", '"high"', "[1, 2]"])
def test_a_parameter_outside_its_range_is_refused_with_the_range(tmp_path, value):
    path = tmp_path / "bad.toml"
    path.write_text(f'[bidder]\nname = "threshold"\naggressiveness = {value}\n[discarder]\nname = "rules"\n'
                    '[declarer]\nname = "best_margin"\n[card_play]\nname = "heuristic"\n')
    with pytest.raises(ProfileError, match=r"aggressiveness must be a number from -20 to 20, not"):
        load_profile(path)


@pytest.mark.parametrize("setting, message", [
    ("card_play.deviation=nan", "deviation must be a number from 0 to 1"),
    ("bidder.thresholds=[1, 2, 3, 4, 5, nan]", "thresholds must be a list of 6 numbers, each from -100 to 100"),
    ("bidder.evaluator_params={ top_trump = inf }", "top_trump must be a number from -10 to 10"),
    ("bidder.evaluator_params=3", "evaluator_params must be a section of parameters"),
    ("bidder.evaluator=7", "evaluator must be a text, not 7"),
    ("bidder.evaluator=best", "unknown evaluator 'best'"),
    ("discarder.void=1e9", "void must be a number from -1000 to 1000"),
])
def test_every_kind_of_bad_parameter_value_is_named(setting, message):
    settings = [setting] if "evaluator_params=" not in setting else ["bidder.evaluator=trump_length", setting]
    with pytest.raises(ProfileError, match=re.escape(message)):
        load_profile("threshold", settings)


def test_an_infinite_threshold_means_never_play_that_game():
    profile = load_profile("threshold", ["bidder.thresholds=[5, 5, 5, 5, 6, inf]"])
    assert profile.seats[0].bidder.thresholds[5] == np.inf


# --- thresholds belong to their evaluator; values on the command line ------------------------


def own_thresholds(name: str) -> list[float]:
    return list(lookup("evaluator", name).factory.thresholds)


def test_a_changed_evaluator_bids_on_its_own_thresholds():
    tuned = list(load_profile("threshold").seats[0].bidder.thresholds)
    assert tuned != own_thresholds("default")  # the profile's thresholds are tuned for its evaluator
    profile = load_profile("threshold", ["bidder.evaluator=classic"])
    assert [list(s.bidder.thresholds) for s in profile.seats] == [own_thresholds("classic")] * 3
    assert "thresholds" not in profile.spec["forehand"]["bidder"]   # the manifest says so too


@pytest.mark.parametrize("settings", [
    ["bidder.evaluator=classic", "bidder.thresholds=[7, 7, 7, 7, 7, inf]"],
    ["bidder.thresholds=[7,7,7,7,7,inf]", "bidder.evaluator=classic"],
])
def test_thresholds_given_with_the_evaluator_are_kept_in_either_order(settings):
    for seat in load_profile("threshold", settings).seats:
        assert list(seat.bidder.thresholds) == [7, 7, 7, 7, 7, np.inf]


def test_the_same_evaluator_keeps_the_profile_thresholds():
    assert (load_profile("threshold", ["bidder.evaluator=default"]).seats[2].bidder.thresholds
            == load_profile("threshold").seats[2].bidder.thresholds).all()


def test_a_seat_with_another_evaluator_bids_on_its_own_thresholds(tmp_path):
    by_setting = load_profile("threshold", ["rearhand.bidder.evaluator=classic"])
    path = tmp_path / "mine.toml"
    path.write_text('[bidder]\nname = "threshold"\nthresholds = [3.5, 3.5, 3.5, 3.5, 5.5, -1.25]\n'
                    '[rearhand.bidder]\nevaluator = "classic"\n[discarder]\nname = "rules"\n'
                    '[declarer]\nname = "best_margin"\n[card_play]\nname = "heuristic"\n')
    for profile in (by_setting, load_profile(path)):
        assert list(profile.seats[0].bidder.thresholds) == [3.5, 3.5, 3.5, 3.5, 5.5, -1.25]
        assert list(profile.seats[2].bidder.thresholds) == own_thresholds("classic")


def test_an_evaluator_of_another_package_bids_on_the_thresholds_it_registered(monkeypatch):
    from strategies import registry

    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})

    @registry.register("evaluator", "jack_ace", ranges={"ace": (0, 5), "jack": (0, 5)})
    def jack_ace(hands, seats, ace=1.0, jack=1.0):
        """Jacks and aces, for every game."""
        return np.zeros((len(hands), 6))

    jack_ace.thresholds = np.array([7.0, 7, 7, 7, 7, np.inf])
    profile = load_profile("threshold", ["bidder.evaluator=jack_ace"])
    assert list(profile.seats[1].bidder.thresholds) == [7, 7, 7, 7, 7, np.inf]


def test_list_and_table_values_on_the_command_line(tmp_path):
    from click.testing import CliRunner

    from sim.commands.cli import main
    from sim.runs.folder import read_manifest

    assert "bidder.thresholds=[7, 7, 7, 7, 7, inf]" in " ".join(
        CliRunner().invoke(main, ["simulate", "--help"]).output.split())
    result = CliRunner().invoke(main, ["simulate", "--deals", "30", "--profile", "threshold", "--jobs", "1",
                                       "--set", "bidder.thresholds=[7,7,7,7,7,inf]",
                                       "--set", "rearhand.bidder.evaluator_params={ top_trump = 1.0 }",
                                       "--set", "rearhand.bidder.evaluator=trump_length",
                                       "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    spec = read_manifest(tmp_path / "run").config["profile_spec"]
    assert spec["forehand"]["bidder"]["thresholds"] == [7, 7, 7, 7, 7, float("inf")]
    assert spec["rearhand"]["bidder"]["evaluator_params"] == {"top_trump": 1.0}


def test_the_strategies_command_prints_plain_text():
    from click.testing import CliRunner

    from sim.commands.cli import main

    output = CliRunner().invoke(main, ["strategies"]).output
    assert "passing by margin" in output
    assert "      worlds = 60 (a whole number from 1 to 1000): worlds valued at least at each decision\n" in output
    assert "      model = \"\" (a text): a model file written by skatsim train card-play" in output
    assert not re.search(r"``|:\w+:`|`\w", output), output


def test_a_docstring_keeps_a_star_that_is_no_markup():
    from strategies.registry import plain_text

    assert plain_text("jacks + 0.5*tens-with-ace + voids, *all* of them, **twice**") == \
        "jacks + 0.5*tens-with-ace + voids, all of them, twice"
    assert plain_text("trumps * 2") == "trumps * 2"


def test_the_strategies_command_shows_each_first_sentence_whole():
    from click.testing import CliRunner

    from sim.commands.cli import main

    output = CliRunner().invoke(main, ["strategies"]).output
    assert "  expected_score Bid while the best game's expected Seeger-Fabian result beats passing by margin (a" \
        " calibrated model), a lost game weighed as objective says.\n" in output
    assert "  grand_rule     Jacks, aces, tens with their ace and the forehand lead, for grand.\n" in output


@pytest.mark.parametrize("doc, sentence", [
    ("Bid *boldly* with ten-tens-with-ace hands,\nor pass.\n\nMore.",
     "Bid *boldly* with ten-tens-with-ace hands, or pass."),
    ("Keep 2 * x, e.g. a ten. Then more.", "Keep 2 * x, e.g. a ten."),
    ("Play ``margin`` by :func:`~strategies.expected.null` and :class:`Model`", "Play margin by null and Model"),
    ("Is it? Yes.", "Is it?"),
    (None, ""),
])
def test_the_first_sentence_of_a_docstring_is_whole_and_as_written(doc, sentence):
    from strategies.parameters import first_sentence

    assert first_sentence(doc) == sentence


def test_the_strategies_command_prints_the_docs_parameter_tables():
    from click.testing import CliRunner

    from sim.commands.cli import main
    from strategies.parameters import markdown_table
    from strategies.registry import lookup

    output = CliRunner().invoke(main, ["strategies", "--markdown"]).output
    assert markdown_table(lookup("card_play", "pimc_solved").parameters) in output
    assert output.count("| parameter | default | values | meaning |") >= 15


def test_a_declared_strategy_takes_exactly_its_declared_names_and_gets_their_defaults(monkeypatch):
    from strategies import registry
    from strategies.parameters import Parameter

    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    declared = (Parameter("boldness", "number", 2.0, "how bold", (0, 5)),
                Parameter("style", "choice", "calm", "how it plays", choices=("calm", "wild")))
    with pytest.raises(StrategyError, match="its factory takes boldness, but it declares boldness, style"):
        registry.register("card_play", "bold", parameters=declared)(lambda boldness: None)

    @registry.register("card_play", "bold", parameters=declared)
    def bold(boldness, style):
        """Bold."""
        return (boldness, style)

    assert registry.build("card_play", "bold", style="wild") == (2.0, "wild")      # the other at its default
    with pytest.raises(StrategyError, match="style must be one of 'calm', 'wild', not 'mad'"):
        registry.build("card_play", "bold", style="mad")
    with pytest.raises(StrategyError, match="boldness must be a number from 0 to 5, not 6"):
        registry.build("card_play", "bold", boldness=6)


def test_a_card_players_row_is_laid_out_from_its_declaration():
    from strategies.parameters import Parameter, row, slots

    declared = (Parameter("worlds", "whole", 60, "worlds", (1, 1000)), Parameter("model", "text", "", "a file"),
                Parameter("score", "choice", "game", "the scale", choices=("game", "points")),
                Parameter("inference", "flag", True, "weigh the worlds"))
    layout = slots("Example", declared)
    assert (layout.worlds, layout.score, layout.inference, layout.size) == (0, 1, 2, 3)   # texts have no slot
    assert row(layout, declared, {"score": "points"}) == (60.0, 1.0, 1.0)
    assert row(layout, declared, {"worlds": 7, "inference": False, "model": "x.npz"}) == (7.0, 0.0, 0.0)
