"""Real ISS record lines from public sources (tests/data/iss_real_lines.txt, each line's source in
iss_real_sources.tsv): every one imports and agrees with the server's result, or is rejected with
the one-line reason; the kernels and the checked path give the same rows."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from sim.imports.iss.archive import import_archives
from sim.imports.iss.notation import IssError
from sim.imports.iss.record import check_line
from sim.rules.records import ENDINGS
from tests.imports.test_iss_lines import kernel_rows, same_row

DATA = Path(__file__).resolve().parents[1] / "data"
LINES = (DATA / "iss_real_lines.txt").read_text().splitlines()
with open(DATA / "iss_real_sources.tsv", newline="") as f:
    SOURCES = {row["id"]: row for row in csv.DictReader(f, delimiter="\t")}
BY_ID = {re.search(r"ID\[(\d+)\]", line).group(1): line for line in LINES}

#: How the server ended each unusual game (ended, the seat whose move ended it); every other line
#: is a game played out or a deal passed in.
ENDED = {
    "8": ("penalty", 2), "30": ("penalty", 2), "10053332": ("penalty", 0),              # TI/LE in the auction
    "727": ("resigned", 2),      # GO without its cards; SC; one defender resigns, plays on; the other resigns
    "1039093": ("resigned", 0), "6997012": ("resigned", 2), "6997013": ("resigned", 1),
    "6997016": ("resigned", 1),  # SC, then more cards, then both defenders resign
    "6997014": ("resigned", 0),  # SC, a card, one defender resigns and plays on, then the other
    "6934288": ("resigned", 1),  # SC, both defenders resign
    "1390253": ("resigned", 0),  # NO.HA.HQ (null ouvert without its ten cards), both defenders resign at once
    "272095": ("resigned", 2),   # ISS2 (2017): one defender's RE ends the game
    "136415": ("timeout", 2),    # ISS2 (2016): a defender's time-out in the play
    "13577": ("played", -1),     # CO without its cards, stopped, lost, at the defenders' first trick
    "25": ("played", -1),        # NOH without its cards, lost at the declarer's first trick
    "756788": ("passed", -1), "6997017": ("passed", -1),
}
REJECTED = {"18358": "move 9 (0 ??): a damaged record: forehand's card in trick 1 is hidden (??)"}


def test_every_line_has_its_source():
    assert len(LINES) == len(BY_ID) == len(SOURCES) == 37
    assert set(BY_ID) == set(SOURCES)
    assert all(SOURCES[i]["source"] and SOURCES[i]["kind"] for i in SOURCES)


@pytest.mark.parametrize("record_id", sorted(BY_ID, key=int))
def test_each_real_line_imports_and_agrees_or_is_rejected_with_its_reason(record_id):
    line = BY_ID[record_id]
    if record_id in REJECTED:
        with pytest.raises(IssError, match=re.escape(REJECTED[record_id])):
            check_line(line)
        return
    checked = check_line(line)
    assert checked.agrees, (checked.engine, checked.archive)
    ended, by = ENDED.get(record_id, ("played", -1))
    assert (ENDINGS[checked.row["ended"]], checked.row["ended_by"]) == (ended, by)


def test_the_kernels_give_the_checked_paths_rows_or_leave_the_line_to_it():
    ok, rows = kernel_rows(LINES)
    left = []
    for line, accepted, row in zip(LINES, ok, rows):
        record_id = re.search(r"ID\[(\d+)\]", line).group(1)
        if record_id in REJECTED:
            assert not accepted
        elif accepted:
            assert same_row(row, check_line(line).row), record_id
        else:
            left.append(record_id)
    # left to the checked path: the penalty records (rare, and with an auction cut short)
    assert sorted(left, key=int) == ["8", "30", "10053332"]


def test_schwarz_announced_game_stopped_at_the_defenders_first_trick_scores_as_the_server_did():
    row = check_line(BY_ID["13577"]).row
    assert (row["game"], row["ouvert"], row["matadors"]) == (3, True, 1)
    assert (row["declarer_points"], row["declarer_tricks"], row["game_value"], row["score"]) == (13, 0, 96, -192)
    assert row["tricks"][3] == -1 and not row["won"]


def test_penalty_records_are_marked_and_no_game():
    for record_id in ("8", "30", "10053332"):
        row = check_line(BY_ID[record_id]).row
        assert not row["passed"] and row["declarer"] == -1 and row["game"] == -1
        assert row["won"] is None and row["matadors"] is None and row["score"] == 0


def test_the_real_lines_import_into_a_run(tmp_path):
    archive = tmp_path / "real.txt"
    archive.write_text("\n".join(LINES) + "\n")
    report = import_archives([archive], tmp_path / "run", jobs=1, chunk_size=10)
    assert (report.lines, report.games, report.bad_lines, report.disagreements) == (37, 36, 1, 0)
    assert (report.played, report.passed, report.penalties) == (21, 2, 3)
    assert report.early == {"resigned": 9, "claimed": 0, "timeout": 1, "left": 0}
    problems = [json.loads(x) for x in (tmp_path / "run" / "errors.jsonl").read_text().splitlines()]
    assert [(p["id"], p["kind"]) for p in problems] == [("18358", "bad line")]
    assert REJECTED["18358"] in problems[0]["problem"]


def test_show_says_how_the_server_ended_each_game(tmp_path):
    from click.testing import CliRunner

    from sim.commands.cli import main

    archive = tmp_path / "real.txt"
    archive.write_text("\n".join(LINES) + "\n")
    import_archives([archive], tmp_path / "run", jobs=1)
    runner = CliRunner()

    def show(record_id):
        result = runner.invoke(main, ["show", str(tmp_path / "run"), str(LINES.index(BY_ID[record_id]))])
        assert result.exit_code == 0, result.output
        return result.stdout

    assert "resigned by the defenders (rearhand's resignation ended it)" in show("6997012")
    assert "claimed" not in show("6997012")
    assert "a penalty record" in show("8") and "charged to rearhand; no game was played" in show("8")
