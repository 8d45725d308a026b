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
