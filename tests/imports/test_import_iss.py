"""`skatsim import iss`: archive files into run folders, bad lines and disagreements reported and
skipped, compressed files, resuming, refusing another run, --jobs and --anonymize."""

from __future__ import annotations

import bz2
import functools
import gzip
import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from sim.commands.cli import main
from sim.imports.iss.archive import import_archives
from sim.imports.iss.columns import batch_columns
from sim.imports.iss.files import Batch, FileLines, read_batch
from sim.imports.iss.sample import constructed_games, profile_lines
from sim.imports.writer import ArchiveError, import_files, pseudonym
from sim.rules.cards import SEAT_NAMES
from sim.runs import RunError
from sim.runs.folder import read_manifest
from sim.runs.players import evaluator_columns
from sim.runs.schema import ARCHIVE_TYPES, GAME_MODE_TYPES, ISS_ARCHIVE
from sim.runs.simulation import ProfileDeals
from strategies import load_profile, play_deals
from strategies.registry import logged_evaluators
from tests.file_identity import identity

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def profile_games() -> list[str]:
    """300 record lines of default-profile games (made when a test first asks, not when the tests are
    collected: collecting happens in every worker)."""
    return profile_lines("default", seed=2, count=300)


@functools.cache
def constructed() -> list[str]:
    return [c.line for c in constructed_games(seed=3, count=60)]


@functools.cache
def good() -> list[str]:
    return profile_games()[:40] + constructed()[:20]


def write(path: Path, lines: list[str], opener=open) -> Path:
    with opener(path, "wt", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
    return path


def rows(folder: Path) -> pl.DataFrame:
    return pl.read_parquet(str(folder / "part-*.parquet")).sort("deal_id")


def problems(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "errors.jsonl").read_text().splitlines()]


def test_profile_games_import_as_the_simulation_logged_them(tmp_path):
    archive = write(tmp_path / "a.txt", profile_games())
    report = import_archives([archive], tmp_path / "run", jobs=1, chunk_size=128)
    assert (report.games, report.bad_lines, report.disagreements) == (300, 0, 0)
    imported = rows(tmp_path / "run")
    simulated = play_deals(load_profile("default"), seed=2, start=0, count=300, log_tricks=True)
    simulated.update(evaluator_columns(logged_evaluators(), simulated))
    for name in simulated:
        if name.startswith(("max_bid_", "intended_game_")):
            assert imported[name].null_count() == 300
            continue
        got = imported[name]
        expected = np.asarray(simulated[name])
        if name in ("game",):
            assert got.cast(pl.String).to_list() == [
                ["diamonds", "hearts", "spades", "clubs", "grand", "null", "passed"][g] for g in expected]
        elif name == "tricks":
            assert (np.array(got.to_list()) == expected).all()
        else:
            assert np.array_equal(got.to_numpy(), expected, equal_nan=name.startswith("eval_")), name
    assert imported["ended"].cast(pl.String).to_list() == ["passed" if p else "played" for p in simulated["passed"]]
    assert imported["agrees"].all()


def test_the_run_has_the_game_mode_schema_and_the_archive_columns(tmp_path):
    archive = write(tmp_path / "a.txt", ["# a comment", ""] + good())
    import_archives([archive], tmp_path / "run", jobs=1)
    table = rows(tmp_path / "run")
    for name in [*GAME_MODE_TYPES, *ARCHIVE_TYPES, "tricks"]:
        assert name in table.columns
    assert table["archive_line"].to_list()[:2] == [3, 4]  # the comment and the blank line count as lines
    assert table["deal_id"].to_list() == list(range(len(good())))
    assert table["archive_file"].cast(pl.String).unique().to_list() == ["a.txt"]
    assert table["player_f"][0] == "alpha" and table["date"][0] is not None
    manifest = read_manifest(tmp_path / "run")
    config = manifest.config
    assert config["source"] == "iss" and config["mode"] == "game" and config["seed"] is None
    assert config["deals"] == len(good()) and manifest.finished
    assert config["sources"][0]["name"] == "a.txt" and len(config["sources"][0]["sha256"]) == 64
    simulated = ProfileDeals("default", load_profile("default").spec,
                             evaluators=tuple(logged_evaluators())).description()["evaluators"]
    assert config["evaluators"] == simulated


def test_bad_lines_are_reported_and_skipped_and_nothing_else_is_lost(tmp_path):
    kept = good()[:30]
    bad = {3: kept[3][:200], 7: re.sub(r"MV\[w ..", "MV[w ??", kept[7]), 12: "(;GM[Skat];)",
           18: kept[18].replace(" 0 s ", " 1 s "), 25: "not a record at all"}
    lines = [bad.get(i, line) for i, line in enumerate(kept)]
    archive = write(tmp_path / "a.txt", lines)
    report = import_archives([archive], tmp_path / "run", jobs=1, chunk_size=8)
    assert report.bad_lines == len(bad) and report.games == len(kept) - len(bad)
    imported = rows(tmp_path / "run")
    assert imported["archive_line"].to_list() == [i + 1 for i in range(len(kept)) if i not in bad]
    found = problems(tmp_path / "run")
    assert [p["line"] for p in found] == [i + 1 for i in sorted(bad)]
    assert all(p["kind"] == "bad line" and p["file"] == "a.txt" and "\n" not in p["problem"] for p in found)
    assert "a damaged record: card 1 of the deal" in found[1]["problem"]


def test_a_disagreement_is_counted_kept_and_written_with_both_results(tmp_path):
    line = next(line for line in profile_games() if " p:" in line and "passed" not in line)
    points = int(re.search(r" p:(\d+) ", line).group(1))
    wrong = line.replace(f" p:{points} ", f" p:{points + 1} ")
    archive = write(tmp_path / "a.txt", [profile_games()[0], wrong])
    report = import_archives([archive], tmp_path / "run", jobs=1)
    assert report.disagreements == 1 and report.games == 2
    imported = rows(tmp_path / "run")
    assert imported["agrees"].to_list() == [True, False]
    assert imported["declarer_points"][1] == points  # the engine's result, not changed
    (found,) = problems(tmp_path / "run")
    assert found["kind"] == "disagreement" and found["line"] == 2
    assert found["engine"]["points"] == points and found["archive"]["points"] == points + 1
    assert f"points {points} (archive {points + 1})" in found["problem"]


def test_compressed_archives_import_as_plain_ones(tmp_path):
    plain = write(tmp_path / "a.txt", good())
    bz = write(tmp_path / "b.txt.bz2", good()[:30], bz2.open)
    gz = write(tmp_path / "c.gz", good()[30:], gzip.open)
    import_archives([plain], tmp_path / "plain", jobs=1, chunk_size=16)
    import_archives([bz, gz], tmp_path / "packed", jobs=1, chunk_size=16)
    a, b = rows(tmp_path / "plain"), rows(tmp_path / "packed")
    assert a.drop("archive_file", "archive_line").equals(b.drop("archive_file", "archive_line"))
    assert b["archive_file"].cast(pl.String).to_list() == ["b.txt.bz2"] * 30 + ["c.gz"] * (len(good()) - 30)


def test_running_again_finishes_an_interrupted_import_and_changes_nothing_once_complete(tmp_path):
    archive = write(tmp_path / "a.txt", good())
    folder = tmp_path / "run"
    import_archives([archive], folder, jobs=1, chunk_size=10)
    whole = rows(folder)
    errors = (folder / "errors.jsonl").read_bytes()
    # interrupted: two parts lost, a temporary file left, the manifest not finished
    manifest = read_manifest(folder)
    (folder / "part-00001.parquet").unlink()
    (folder / "part-00004.parquet").unlink()
    (folder / ".part-00002.parquet.x.tmp").write_bytes(b"half")
    manifest.finished = None
    manifest.drop_part(1)
    manifest.drop_part(4)
    manifest.save(folder)
    (folder / "errors.jsonl").unlink()
    import_archives([archive], folder, jobs=1, chunk_size=10)
    assert rows(folder).equals(whole)
    assert (folder / "errors.jsonl").read_bytes() == errors
    assert not list(folder.glob("*.tmp"))
    files = {p: identity(p) for p in folder.rglob("*") if p.is_file()}
    import_archives([archive], folder, jobs=1, chunk_size=10)
    assert {p: identity(p) for p in folder.rglob("*") if p.is_file()} == files  # nothing written again
    verified = CliRunner().invoke(main, ["verify", str(folder)])
    assert verified.exit_code == 0 and "stray" not in verified.output, verified.output


def test_an_import_that_fails_leaves_only_its_finished_parts_their_problems_and_the_manifest(tmp_path, monkeypatch):
    from sim.imports import writer

    real = writer.batch_columns

    def fails_at_the_third_batch(files, batch, evaluators):
        if batch.index == 2:
            raise KeyboardInterrupt
        return real(files, batch, evaluators)

    monkeypatch.setattr(writer, "batch_columns", fails_at_the_third_batch)
    folder = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        import_archives([write(tmp_path / "a.txt", good())], folder, jobs=1, chunk_size=10)
    assert sorted(p.name for p in folder.iterdir()) == ["errors", "manifest.json", "part-00000.parquet",
                                                         "part-00001.parquet"]
    assert sorted(p.name for p in (folder / "errors").iterdir()) == ["part-00000.jsonl", "part-00001.jsonl"]
    verified = CliRunner().invoke(main, ["verify", str(folder)])
    assert verified.exit_code == 0 and "stray" not in verified.output, verified.output


def test_a_folder_holding_another_run_is_refused(tmp_path):
    a = write(tmp_path / "a.txt", good()[:10])
    b = write(tmp_path / "b.txt", good()[10:20])
    import_archives([a], tmp_path / "run", jobs=1)
    with pytest.raises(RunError, match="holds a different run .other archive files or contents"):
        import_archives([b], tmp_path / "run", jobs=1)
    with pytest.raises(RunError, match="holds a different run .anonymize False there, True asked"):
        import_archives([a], tmp_path / "run", jobs=1, anonymize=True)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="is not empty and holds no run"):
        import_archives([a], tmp_path / "other", jobs=1)


def test_a_simulation_folder_is_refused(tmp_path):
    from sim.runs.simulation import simulate

    simulate(5, seed=1, out=tmp_path / "sim", jobs=1)
    with pytest.raises(RunError, match="source simulation there, iss asked"):
        import_archives([write(tmp_path / "a.txt", good()[:3])], tmp_path / "sim", jobs=1)


def test_unreadable_archives(tmp_path):
    with pytest.raises(ArchiveError, match="cannot read .*missing.txt: No such file"):
        import_archives([tmp_path / "missing.txt"], tmp_path / "run")
    a = write(tmp_path / "a.txt", good()[:3])
    with pytest.raises(ArchiveError, match="are the same archive"):
        import_archives([a, a], tmp_path / "run")
    packed = write(tmp_path / "b.bz2", good(), bz2.open)
    cut = tmp_path / "cut.bz2"
    cut.write_bytes(packed.read_bytes()[:-200])
    with pytest.raises(ArchiveError, match="cut.bz2: the compressed data ends early"):
        import_archives([cut], tmp_path / "run2", jobs=1)


def test_anonymize_writes_stable_hashes_of_the_names(tmp_path):
    archive = write(tmp_path / "a.txt", good()[:12])
    import_archives([archive], tmp_path / "named", jobs=1)
    import_archives([archive], tmp_path / "hidden", jobs=1, anonymize=True)
    named, hidden = rows(tmp_path / "named"), rows(tmp_path / "hidden")
    for seat in "fmr":
        assert hidden[f"player_{seat}"].to_list() == [pseudonym(n) for n in named[f"player_{seat}"]]
    assert not set(hidden["player_f"]) & set(named["player_f"])
    assert pseudonym("alpha") == pseudonym("alpha") != pseudonym("bravo") and len(pseudonym("alpha")) == 16


def test_cli_summary_problems_and_exit_status(tmp_path):
    lines = good()[:10] + ["(;GM[Skat]MV[w]R[];)"]
    archive = write(tmp_path / "a.txt", lines)
    result = CliRunner().invoke(main, ["import", "iss", str(archive), "--out", str(tmp_path / "run"), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "read 11 record lines from 1 file(s): imported 10 into" in result.stdout and "rejected 1" in result.stdout
    assert "1 bad lines" in result.stdout
    assert "a.txt, line 11: MV: 1 word; the moves are pairs of who and what" in result.stderr


def test_cli_fails_in_one_line(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["import", "iss", str(tmp_path / "nope.txt"), "--out", str(tmp_path / "run")])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1 and "cannot read" in result.stderr
    only_bad = write(tmp_path / "bad.txt", ["# header", "(;GM[Skat];)"])
    result = runner.invoke(main, ["import", "iss", str(only_bad), "--out", str(tmp_path / "run2"), "--jobs", "1"])
    assert result.exit_code == 1 and "no valid game in" in result.stderr


def test_parts_cross_file_boundaries(tmp_path):
    a = write(tmp_path / "a.txt", good()[:13])
    b = write(tmp_path / "b.txt", ["# b"] + good()[13:27])
    import_archives([a, b], tmp_path / "run", jobs=1, chunk_size=5)
    table = rows(tmp_path / "run")
    assert table["deal_id"].to_list() == list(range(27))
    assert table["archive_line"].to_list() == list(range(1, 14)) + list(range(2, 16))
    assert len(list((tmp_path / "run").glob("part-*.parquet"))) == 6


@pytest.mark.slow
def test_the_same_run_for_any_number_of_jobs(tmp_path):
    archive = write(tmp_path / "a.txt", profile_games() + constructed())
    import_archives([archive], tmp_path / "one", jobs=1, chunk_size=50)
    import_archives([archive], tmp_path / "two", jobs=2, chunk_size=50)
    for one, two in zip(sorted((tmp_path / "one").glob("part-*.parquet")),
                        sorted((tmp_path / "two").glob("part-*.parquet"))):
        assert pl.read_parquet(one).equals(pl.read_parquet(two))
    assert (tmp_path / "one" / "errors.jsonl").read_bytes() == (tmp_path / "two" / "errors.jsonl").read_bytes()


def test_the_example_archive_imports(tmp_path):
    report = import_archives([ROOT / "examples" / "iss.txt"], tmp_path / "run", jobs=1)
    assert (report.games, report.disagreements, report.bad_lines) == (4, 0, 0)
    table = rows(tmp_path / "run")
    assert table["score"].to_list() == [-96, -144, -46, -120]
    assert os.path.getsize(tmp_path / "run" / "errors.jsonl") == 0


def test_show_prints_an_imported_deal_from_its_row(tmp_path):
    lines = [line for line in (ROOT / "examples" / "iss.txt").read_text().splitlines() if line.startswith("(;")]
    early = next(c for c in constructed_games(seed=11, count=240) if c.record.get("ended") == "resigned"
                 and SEAT_NAMES.index(c.record["declarer"]) == c.record["ended_by"])
    archive = write(tmp_path / "a.txt", lines + [early.line, "(;broken"])
    import_archives([archive], tmp_path / "run", jobs=1)
    runner = CliRunner()
    shown = runner.invoke(main, ["show", str(tmp_path / "run"), "1"])
    assert shown.exit_code == 0, shown.output
    assert "archive a.txt, line 2, game 901, 2024-05-01 12:00:01 UTC" in shown.stdout
    assert "Game        grand hand" in shown.stdout and "(bravo)" in shown.stdout
    assert "score -144" in shown.stdout
    ended = runner.invoke(main, ["show", str(tmp_path / "run"), "4"])
    assert ended.exit_code == 0 and "Ended       resigned by" in ended.stdout
    bad = runner.invoke(main, ["show", str(tmp_path / "run"), "5"])
    assert bad.exit_code == 1 and "deal 5 was not imported: its line is not a valid game" in bad.stderr
    assert runner.invoke(main, ["show", str(tmp_path / "run"), "6"]).exit_code == 1


def test_line_endings_byte_order_mark_and_names_that_are_not_utf8(tmp_path):
    plain = write(tmp_path / "a.txt", good()[:6])
    crlf = tmp_path / "b.txt"
    crlf.write_bytes(b"\xef\xbb\xbf" + "".join(line + "\r\n" for line in good()[:6]).encode())
    latin = tmp_path / "c.txt"
    latin.write_bytes("".join(line.replace("P0[alpha]", "P0[Müller]") + "\n" for line in good()[:6]).encode("latin-1"))
    for name, archive in (("plain", plain), ("crlf", crlf), ("latin", latin)):
        import_archives([archive], tmp_path / name, jobs=1)
    a, b, c = rows(tmp_path / "plain"), rows(tmp_path / "crlf"), rows(tmp_path / "latin")
    same = [n for n in a.columns if n not in ("archive_file", "player_f", "player_m", "player_r")]
    assert a.select(same).equals(b.select(same)) and a.select(same).equals(c.select(same))
    assert "M\ufffdller" in c["player_f"].to_list()


def test_a_line_the_kernels_leave_to_the_checked_path_is_imported_the_same(tmp_path):
    """Unicode spaces between moves are spaces to the checked path (str.split), not to the kernels,
    which leave such a line to it: its row must be the same as the plain line's."""
    line = good()[5]
    odd = line.replace(" 1 ", "\u2003" + "1 ", 1)
    assert odd != line
    import_archives([write(tmp_path / "a.txt", [line])], tmp_path / "plain", jobs=1)
    import_archives([write(tmp_path / "b.txt", [odd])], tmp_path / "odd", jobs=1)
    a, b = rows(tmp_path / "plain"), rows(tmp_path / "odd")
    assert a.drop("archive_file").equals(b.drop("archive_file"))


@dataclass(frozen=True)
class LinesInMemory:
    """A format of ISS lines held in memory, not in files: the run writer needs nothing but the
    ArchiveFormat protocol (sim/imports/__init__.py)."""

    lines: tuple[str, ...]
    source: ClassVar[str] = ISS_ARCHIVE
    paths: tuple[str, ...] = ("memory",)

    def identity(self) -> dict:
        text = "".join(line + "\n" for line in self.lines).encode()
        return {"sources": [{"name": "memory", "bytes": len(text), "sha256": hashlib.sha256(text).hexdigest()}]}

    def batches(self, size, skip, counted):
        for index, first in enumerate(range(0, len(self.lines), size)):
            if index not in skip:
                yield self._batch(index, first, self.lines[first:first + size])
        counted.append(len(self.lines))

    def _batch(self, index: int, first: int, lines) -> Batch:
        lengths = np.array([len(line.encode()) + 1 for line in lines], dtype=np.int64)
        ends = np.cumsum(lengths)
        data = "".join(line + "\n" for line in lines).encode()
        numbers = np.arange(first + 1, first + len(lines) + 1, dtype=np.int64)
        return Batch(index, first, [FileLines(file=0, offset=-1, data=data, size=len(data), starts=ends - lengths,
                                              ends=ends, lines=numbers)])

    def read(self, batch: Batch) -> tuple[dict, list[dict]]:
        return batch_columns(read_batch(batch, self.paths), self.paths, False)

    def example(self) -> Batch:
        return self._batch(0, 0, self.lines[:1])


def test_a_format_of_its_own_goes_through_the_same_run_writer(tmp_path):
    lines = good()[:30] + ["(;GM[Skat]MV[w]R[];)"] + good()[30:]
    import_archives([write(tmp_path / "a.txt", lines)], tmp_path / "file", jobs=1, chunk_size=16)
    report = import_files(LinesInMemory(tuple(lines)), tmp_path / "memory", jobs=1, chunk_size=16)
    assert (report.games, report.bad_lines, report.lines) == (60, 1, 61)
    assert rows(tmp_path / "file").drop("archive_file").equals(rows(tmp_path / "memory").drop("archive_file"))
    assert [{**p, "file": None} for p in problems(tmp_path / "file")] == \
        [{**p, "file": None} for p in problems(tmp_path / "memory")]
    assert read_manifest(tmp_path / "memory").config["source"] == ISS_ARCHIVE
