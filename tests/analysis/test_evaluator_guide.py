"""docs/evaluators.md walks one evaluator from one file to its paired comparison, its break-even by variant
and seat, and a match of a profile that bids with it: the page's file and commands run as printed (on
fewer deals)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from sim.commands.cli import main

PAGE = Path(__file__).resolve().parents[2] / "docs" / "evaluators.md"
SECTION = "## Your own evaluator, from one file to a profile that bids with it"


def guide() -> str:
    return PAGE.read_text(encoding="utf-8").split(SECTION, 1)[1].split("\n## ", 1)[0]


def commands() -> list[list[str]]:
    """The page's skatsim commands, each on 300 deals."""
    lines = [line for block in re.findall(r"```console\n(.*?)```", guide(), re.S) for line in block.splitlines()]
    found = [shlex.split(line)[1:] for line in lines if line.startswith("skatsim ")]
    return [[("300" if before == "--deals" else word) for before, word in zip(["", *args], args)] for args in found]


@pytest.mark.slow
def test_the_evaluator_guide_runs_as_printed(tmp_path, monkeypatch):
    from strategies import registry

    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    monkeypatch.chdir(tmp_path)
    [source] = re.findall(r"```python\n# my_evaluators.py\n(.*?)```", guide(), re.S)
    (tmp_path / "my_evaluators.py").write_text(source)
    ran = commands()
    assert [args[0] for args in ran] == ["simulate", "analyze", "match"]
    for args in ran:
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, (args, result.output)
    pairs = pl.read_csv(tmp_path / "results" / "club-count" / "tables" / "evaluator_pairs.csv")
    assert "club_count" in pairs["evaluator"].to_list()
    even = pl.read_csv(tmp_path / "results" / "club-count" / "tables" / "break_even.csv")
    assert {"pick-up", "hand"} <= set(even.filter(pl.col("evaluator") == "club_count")["variant"])
