"""What the commands tell a person: a wrong evaluator name, the question a hand's JSON answers,
a deal of a run whose strategies are gone, counts of tricks, a refused run in its one line; and that the
console script leaves with the command's code and all its output."""

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from sim.commands.cli import main
from sim.commands.show import trick_count
from sim.runs.simulation import simulate
from tests.command_line import stdout_runner


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    return simulate(200, seed=4, profile="random", out=tmp_path_factory.mktemp("runs") / "run", jobs=1,
                    chunk_size=100)


def test_analyze_with_an_unknown_evaluator_names_it_and_those_known(small_run, tmp_path):
    result = CliRunner().invoke(main, ["analyze", str(small_run), "--evaluator", "nosuch", "--evaluator", "classic",
                                       "--out", str(tmp_path / "report")])
    assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
    assert "unknown evaluator 'nosuch'" in result.output and "classic, default, grand_rule" in result.output
    assert not (tmp_path / "report").exists()


def test_analyze_with_an_evaluator_from_a_missing_file_says_so(small_run, tmp_path):
    result = CliRunner().invoke(main, ["analyze", str(small_run), "--evaluator", str(tmp_path / "mine.py:club"),
                                       "--out", str(tmp_path / "report")])
    assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
    assert "no such file" in result.output and "mine.py" in result.output
    assert not (tmp_path / "report").exists()


def test_hand_json_is_one_object_that_echoes_the_question():
    result = stdout_runner().invoke(main, ["hand", "SJ CJ HA H10 HK H9 H8 SA CA D7", "--seat", "rearhand",
                                           "--skat", "D8 D9", "--deals", "40", "--profile", "threshold", "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["hand"] == "CJ SJ CA SA HA H10 HK H9 H8 D7" and answer["seat"] == "rearhand"
    assert answer["skat"] == "D9 D8" and answer["profile"] == "threshold" and answer["deals"] == 40
    assert set(answer) >= {"advice", "games", "settings", "seed"} and len(answer["games"]) == 14
    assert "one object per game variant" not in CliRunner().invoke(main, ["hand", "--help"]).output


@pytest.mark.parametrize("command", [["simulate", "--profile", "club", "--set", "card_play=random"],
                                     ["match", "club", "club", "--set-a", "card_play=random"]])
def test_a_run_refused_is_its_one_line_without_the_calibration_warning(tmp_path, command):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine\n")
    result = stdout_runner().invoke(main, [*command, "--deals", "10", "--out", str(tmp_path / "taken")])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
    assert "is not empty and holds no run" in result.stderr


def test_trick_counts_are_plural_but_one():
    assert [trick_count(n) for n in (0, 1, 2, 10)] == ["0 tricks", "1 trick", "2 tricks", "10 tricks"]
    assert trick_count(1, 2) == " 1 trick"


def test_show_never_prints_one_tricks(small_run):
    for deal in range(40):
        text = CliRunner().invoke(main, ["show", str(small_run), str(deal)]).output
        assert " 1 tricks" not in text
        if "Result" in text:
            assert " trick" in text.split("Result")[1]


def test_show_of_a_run_whose_strategy_is_no_longer_installed_is_one_line(tmp_path, monkeypatch):
    from strategies import registry
    from strategies.cardplay import CardPolicy, random_card

    original = {role: dict(found) for role, found in registry._registry.items()}
    monkeypatch.setattr(registry, "_registry", {role: dict(found) for role, found in original.items()})

    @registry.register("card_play", "club_random")
    def club_random():
        """Random cards, from a package that is later uninstalled."""
        return CardPolicy("club_random", random_card)

    folder = simulate(20, seed=1, profile="random", settings=["card_play=club_random"], out=tmp_path / "run",
                      jobs=1, chunk_size=20)
    monkeypatch.setattr(registry, "_registry", original)   # the package is gone
    result = CliRunner().invoke(main, ["show", str(folder), "1"])
    assert result.exit_code == 1 and result.output.count("\n") == 1 and "Traceback" not in result.output
    assert "unknown card_play 'club_random'" in result.output and str(folder) in result.output


def test_hand_says_when_its_kernels_compile(tmp_path, monkeypatch):
    from sim.runs import hands
    from sim.runs.compiling import COMPILING

    (tmp_path / "hand_kernel.py").write_text("from numba import njit\n\n@njit(cache=True)\ndef one():\n    return 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import hand_kernel

    judged = hands.judge_hand
    monkeypatch.setattr(hands, "judge_hand", lambda *args, **asked: (hand_kernel.one(), judged(*args, **asked))[1])
    result = stdout_runner().invoke(main, ["hand", "CJ SJ HA H10 HK H9 H8 SA CA D7", "--deals", "20", "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == COMPILING and "compiled in" in result.stderr
    assert json.loads(result.stdout)["hand"].startswith("CJ SJ")


def test_the_console_script_writes_the_whole_report_and_leaves_with_its_code(small_run, tmp_path):
    report = tmp_path / "report"
    command = [sys.executable, "-m", "sim.commands.cli", "analyze", str(small_run), "--out", str(report), "--jobs", "1"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == f"{report / 'report.html'}\n", done.stderr
    assert (report / "summary.md").read_text().startswith("#") and "</html>" in (report / "report.html").read_text()
    told = [json.loads(line) for line in done.stderr.splitlines()]  # the progress, as JSON lines off a terminal
    assert {key: told[-1][key] for key in ("parts_read", "parts", "rows_read", "rows")} == {
        "parts_read": 2, "parts": 2, "rows_read": 200, "rows": 200}
    bad = subprocess.run([sys.executable, "-m", "sim.commands.cli", "analyze", str(tmp_path / "nosuch")],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "nosuch" in bad.stderr


def test_analyze_on_a_dask_scheduler_that_cannot_be_reached_says_so_in_one_line(small_run, tmp_path):
    command = [sys.executable, "-m", "sim.commands.cli", "analyze", str(small_run), "--out", str(tmp_path / "report"),
               "--scheduler", "tcp://127.0.0.1:9"]
    done = subprocess.run(command, capture_output=True, text=True,
                          env={**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"})
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in done.stderr
    assert not (tmp_path / "report").exists()


def test_the_console_script_leaves_with_the_commands_code_after_its_exit_functions():
    script = "import atexit; atexit.register(print, 'exit functions ran'); from sim.commands.cli import run; run()"
    done = subprocess.run([sys.executable, "-c", script, "no-such-command"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == "exit functions ran\n"  # a usage error, as click gives it
    assert done.stderr.count("\n") == 1 and "no-such-command" in done.stderr
