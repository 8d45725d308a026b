"""Card players in plain Python in whole runs: from one file with nothing installed, the same data for any
number of jobs, and one line for a player's mistake with nothing half-written."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from sim.commands.cli import main
from sim.runs.folder import read_manifest
from strategies import CardPlayer, registry

ROOT = Path(__file__).resolve().parents[2]


def one_file(folder: Path) -> dict:
    """The first example of docs/python-players.md saved as ``my_players.py`` in ``folder``, a folder outside
    the project with no package around it; the environment of a command run there."""
    text = (ROOT / "docs" / "python-players.md").read_text()
    module = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if b.startswith("# my_players.py"))
    (folder / "my_players.py").write_text(module)
    assert not (folder / "pyproject.toml").exists()
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def skatsim(env: dict, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim.commands.cli", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=600)


def with_one_and_two_jobs(tmp_path: Path, *args: str, order: tuple[str, ...]):
    """The command ``args`` run in ``tmp_path`` beside the one-file player, ``--jobs 1`` then ``--jobs 2`` (each
    into ``tmp_path/jobsN``): each run's finished process and its rows sorted by ``order``."""
    env = one_file(tmp_path)
    runs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        done = skatsim(env, *args, "--jobs", jobs, "--out", str(out), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        runs.append((done, pl.read_parquet(out / "part-*.parquet").sort(*order, maintain_order=True)))
    return runs


@pytest.mark.slow
def test_a_player_from_one_file_plays_a_match_the_same_for_any_jobs(tmp_path):
    runs = with_one_and_two_jobs(tmp_path, "match", "club", "club", "--card-play-only", "--set-a",
                                 "card_play=my_players.py:LowestWinner", "--set-b", "card_play=heuristic",
                                 "--deals", "120", "--seed", "4",
                                 "--chunk-size", "50", order=("deal_id", "seating"))
    assert all("A - B (95% interval over deals)" in done.stdout for done, _ in runs)
    (_, one), (_, two) = runs
    assert one.height == 120 * 6 and one.equals(two)
    named = json.dumps(read_manifest(tmp_path / "jobs2").config)
    assert json.dumps(f"{tmp_path / 'my_players.py'}:LowestWinner") in named


@pytest.mark.slow
def test_a_player_from_one_file_simulates_the_same_for_any_jobs_and_as_a_module(tmp_path):
    runs = with_one_and_two_jobs(tmp_path, "simulate", "--profile", "threshold", "--set",
                                 "middlehand.card_play=my_players.py:LowestWinner", "--deals", "300",
                                 "--chunk-size", "100", order=("deal_id",))
    (_, one), (_, two) = runs
    assert one.height == 300 and one.equals(two)
    out = tmp_path / "as-module"
    done = skatsim(one_file(tmp_path), "simulate", "--profile", "threshold", "--set",
                   "middlehand.card_play=my_players:LowestWinner", "--deals", "300", "--chunk-size", "100",
                   "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert pl.read_parquet(out / "part-*.parquet").sort("deal_id").equals(one)


def test_a_player_file_that_is_not_there_is_one_line(tmp_path):
    result = CliRunner().invoke(main, ["simulate", "--deals", "10", "--jobs", "1", "--out", str(tmp_path / "run"),
                                       "--set", f"card_play={tmp_path / 'nowhere.py'}:Player"])
    assert result.exit_code == 1 and f"no such file: {tmp_path / 'nowhere.py'}" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "run").exists()


class Broken(CardPlayer):
    def play(self, view):
        return 1 / 0 if view.deal_id >= 100 else view.legal[0]


def test_a_failing_player_stops_the_run_in_one_line_and_leaves_only_finished_parts(monkeypatch, tmp_path):
    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    registry.register("card_play", "broken")(Broken)
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["simulate", "--deals", "200", "--chunk-size", "100", "--jobs", "1",
                                       "--set", "middlehand.card_play=broken", "--out", str(out)])
    told = [line for line in result.output.splitlines() if line.startswith("skatsim:")]
    assert result.exit_code == 1 and len(told) == 1 and result.output.endswith(told[0] + "\n"), result.output
    assert re.search(r"card player 'broken' raised ZeroDivisionError: division by zero, at deal 1\d\d, trick 1, "
                     r"middlehand$", result.output.strip())
    manifest = read_manifest(out)
    assert not manifest.finished and list(manifest.parts_done) == [0]
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "part-00000.parquet"]


def test_the_readmes_python_match_runs_as_printed_and_prints_the_table(capsys, monkeypatch, tmp_path):
    """The README's Python example of a duplicate match between two card players plays and prints the table
    `skatsim match` prints."""
    text = (ROOT / "README.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "match(" in b)
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "A - B (95% interval over deals)" in printed and "card_play=learned" in printed, printed
    assert (tmp_path / "results" / "learned-vs-heuristic" / "manifest.json").exists()


# --- an edited player file is another run -------------------------------------------------------------------

def edit(path: Path) -> None:
    """Change what the file ``path`` holds, as a user editing their player would (a comment is enough: the
    run records the file's contents, not what its code does)."""
    path.write_text(path.read_text() + "\n# edited\n")


def refused_for_the_file(done: subprocess.CompletedProcess, out: Path, file: Path) -> None:
    """The command ``done`` was refused in one line that names ``file`` as changed and leaves ``out`` as it was."""
    assert done.returncode == 1, done.stdout
    told = done.stderr.strip().splitlines()
    assert len(told) == 1 and told[0].startswith(f"skatsim: {out} holds a different run ("), done.stderr
    assert f"{file} is another version than the run was made with" in told[0]
    assert "choose another --out folder" in told[0]


def parts_written(out: Path) -> dict:
    """When each part file of the run in ``out`` was last written."""
    return {part.name: part.stat().st_mtime_ns for part in out.glob("part-*.parquet")}


def unfinished(out: Path) -> None:
    """Make the finished run in ``out`` one stopped short of its last part, as an interrupted command leaves it."""
    manifest = json.loads((out / "manifest.json").read_text())
    last = max(manifest["parts"], key=int)
    del manifest["parts"][last]
    manifest["finished"] = None
    (out / "manifest.json").write_text(json.dumps(manifest))
    (out / f"part-{int(last):05d}.parquet").unlink()


@pytest.mark.slow
def test_a_simulation_with_an_edited_player_file_is_refused_naming_the_file_and_an_unchanged_one_resumes(tmp_path):
    env = one_file(tmp_path)
    out, player = tmp_path / "run", tmp_path / "my_players.py"
    command = ("simulate", "--profile", "threshold", "--set", "middlehand.card_play=my_players.py:LowestWinner",
               "--deals", "60", "--chunk-size", "30", "--jobs", "1", "--out", str(out))
    first = skatsim(env, *command, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    config = read_manifest(out).config
    assert list(config["plugin_files"]) == [str(player)] and len(config["plugin_files"][str(player)]) == 16
    rows, written = pl.read_parquet(out / "part-*.parquet"), parts_written(out)

    reused = skatsim(env, *command, cwd=tmp_path)   # the same file: the finished run, not played again
    assert reused.returncode == 0 and parts_written(out) == written and read_manifest(out).config == config, \
        reused.stderr
    unfinished(out)
    resumed = skatsim(env, *command, cwd=tmp_path)   # the same file: the missing part played, the same rows
    assert resumed.returncode == 0, resumed.stderr
    assert read_manifest(out).finished and pl.read_parquet(out / "part-*.parquet").equals(rows)

    edit(player)
    refused_for_the_file(skatsim(env, *command, cwd=tmp_path), out, player)
    unfinished(out)
    before = (out / "manifest.json").read_bytes()
    refused_for_the_file(skatsim(env, *command, cwd=tmp_path), out, player)   # nor is an unfinished one resumed
    assert (out / "manifest.json").read_bytes() == before and len(list(out.glob("part-*.parquet"))) == 1


REGISTERED = '''from strategies import CardPlayer, register


@register("card_play", "highest_winner")
class HighestWinner(CardPlayer):
    """The highest legal card that wins the trick, else the lowest legal card."""

    def play(self, view):
        winners = [card for card in view.legal if view.wins(card)]
        return view.highest(winners) if winners else view.lowest(view.legal)
'''


@pytest.mark.slow
def test_a_match_with_an_edited_player_file_or_plugin_is_refused_naming_the_file_and_an_unchanged_one_is_reused(
        tmp_path):
    env = one_file(tmp_path)
    (tmp_path / "more_players.py").write_text(REGISTERED)
    out = tmp_path / "match"
    command = ("match", "club", "club", "--card-play-only", "--plugins", "more_players.py",
               "--set-a", "card_play=my_players.py:LowestWinner", "--set-b", "card_play=highest_winner",
               "--deals", "40", "--chunk-size", "20", "--jobs", "1", "--out", str(out))
    first = skatsim(env, *command, cwd=tmp_path)
    assert first.returncode == 0 and "A - B (95% interval over deals)" in first.stdout, first.stderr
    config, written = read_manifest(out).config, parts_written(out)
    assert sorted(config["plugin_files"]) == [str(tmp_path / "more_players.py"), str(tmp_path / "my_players.py")]

    again = skatsim(env, *command, cwd=tmp_path)   # the same files: the finished match printed as it is
    assert again.returncode == 0 and again.stdout == first.stdout, again.stderr
    assert parts_written(out) == written and read_manifest(out).config == config

    for file in ("more_players.py", "my_players.py"):
        edit(tmp_path / file)
        refused_for_the_file(skatsim(env, *command, cwd=tmp_path), out, tmp_path / file)
        (tmp_path / file).write_text((tmp_path / file).read_text().removesuffix("\n# edited\n"))
    assert skatsim(env, *command, cwd=tmp_path).stdout == first.stdout   # as it was: the same run again


def test_a_run_records_every_python_file_it_imports_and_no_module(monkeypatch, tmp_path):
    """The files of ``plugins``, of a role's ``FILE.py:NAME`` and of a parameter naming a strategy in a file, in
    simulate's and decisions' manifests alike; a module named by its import path is not recorded, and a run
    without files keeps the manifest it always had."""
    from sim.runs.decisions import DecisionDeals
    from sim.runs.players import plugin_files
    from sim.runs.simulation import ProfileDeals
    from strategies import load_profile
    from strategies.registry import file_digest

    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    one_file(tmp_path)
    (tmp_path / "more_players.py").write_text(REGISTERED)
    (tmp_path / "as_module.py").write_text(REGISTERED.replace("highest_winner", "module_winner"))
    (tmp_path / "my_evaluator.py").write_text(
        "from strategies.evaluators import classic\n\ndef mine(hands, seats):\n    return classic(hands, seats)\n\n"
        "mine.thresholds = classic.thresholds\n")
    settings = ["plugins=more_players.py", "plugins=as_module", "forehand.card_play=my_players.py:LowestWinner",
                "middlehand.card_play=highest_winner", "rearhand.card_play=as_module:HighestWinner",
                "bidder.evaluator=my_evaluator.py:mine"]
    loaded = load_profile("threshold", settings)
    files = {str(tmp_path / name): file_digest(tmp_path / name)
             for name in ("more_players.py", "my_evaluator.py", "my_players.py")}
    assert ProfileDeals(loaded.name, loaded.spec).description()["plugin_files"] == files
    assert DecisionDeals(loaded.name, loaded.spec).description()["plugin_files"] == files
    plain = load_profile("threshold", ["rearhand.card_play=as_module:HighestWinner"])
    assert "plugin_files" not in ProfileDeals(plain.name, plain.spec).description()
    fitted = {"forehand": {"bidder": {"name": "expected", "model": {"card_play": {"name": "/gone/old.py:Player"}}}}}
    assert plugin_files(fitted) == {}   # the card player a model was fitted on is data, not imported


def test_a_file_edited_after_this_process_imported_it_is_not_recorded_as_its_new_version(monkeypatch, tmp_path):
    """A process imports a file once: a run started in it after an edit would play the old code, so it is told to
    start a new process rather than record the new contents' digest."""
    from sim.runs.players import plugin_files

    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    one_file(tmp_path)
    spec = {"forehand": {"card_play": {"name": f"{tmp_path / 'my_players.py'}:LowestWinner"}}}
    assert plugin_files(spec) == {str(tmp_path / "my_players.py"): registry.file_digest(tmp_path / "my_players.py")}
    edit(tmp_path / "my_players.py")
    with pytest.raises(registry.StrategyError, match="my_players.py has changed since this Python process imported"
                                                     " it; start a new process"):
        plugin_files(spec)


def test_a_card_play_only_tournament_takes_plugin_files_and_records_them(monkeypatch, tmp_path):
    """Every player of a card-play-only tournament bids as the first: its spec keeps the plugins of both, and
    each match records their files."""
    from sim.runs.matches import MatchDeals
    from sim.runs.tournaments import load_players

    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    monkeypatch.chdir(tmp_path)
    one_file(tmp_path)
    (tmp_path / "more_players.py").write_text(REGISTERED)
    first, second = load_players(["club@plugins=more_players.py@card_play=highest_winner",
                                  "club@card_play=my_players.py:LowestWinner"], card_play_only=True)
    assert second.spec["plugins"] == [str(tmp_path / "more_players.py")]
    described = MatchDeals(first.name, first.spec, second.name, second.spec, card_play_only=True).description()
    assert sorted(described["plugin_files"]) == [str(tmp_path / "more_players.py"), str(tmp_path / "my_players.py")]
