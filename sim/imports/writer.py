"""The run writer of every import format: batches of lines into the parts of a run folder.

:func:`import_files` takes a format's files (an :class:`sim.imports.ArchiveFormat`) and writes
a run folder in the schema of a game-mode simulation. Each batch of lines is read, checked and
written by a worker (:func:`write_batch`), atomically, together with the problems found in it;
the manifest names every file with its checksum, so running the same import again finishes an
interrupted one, changes nothing once it is complete, and a folder holding another run is
refused; so is a folder another command writes, and an import that fails or is interrupted
stops its workers and leaves no temporary file (:mod:`sim.runs.lock`). When every part is done,
the problems are gathered into ``errors.jsonl`` (one JSON object a line: the file, the line, the
record id, the kind, ``bad line`` or ``disagreement``, and the problem, with both results for a
disagreement).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import polars as pl
import pyarrow as pa

from sim.imports import ArchiveFormat, Batch
from sim.rules.records import EARLY_ENDS, ENDINGS, PASSED, PENALTY, PLAYED
from sim.runs import RunError
from sim.runs.atomic import make_folder, temporary_beside
from sim.runs.folder import (
    ERROR_PARTS,
    ERRORS,
    PART_GLOB,
    check_still_held,
    remove_stale_temporaries,
    write_part,
)
from sim.runs.lock import holding, temporary_tag
from sim.runs.players import evaluator_columns, evaluator_record
from sim.runs.runner import WrittenPart, finish_run, open_run, record_parts
from sim.runs.schema import SCHEMA_VERSION
from strategies.registry import logged_evaluators

DEFAULT_CHUNK = 50_000
#: The kinds of problem in errors.jsonl.
BAD_LINE, DISAGREEMENT = "bad line", "disagreement"
SHOWN_PROBLEMS = 10
#: The manifest's counts known only once every line is read: ``deals``, the record lines read (one
#: deal id each), and of them ``imported`` (the rows: games, passed-in deals, penalty records) and
#: ``rejected`` (the bad lines of errors.jsonl).
COUNTED_AT_THE_END = ("deals", "imported", "rejected")


class ArchiveError(RunError):
    """An archive that cannot be read (missing, unreadable, damaged compressed data) or imported."""


def check_chunk_size(chunk_size) -> None:
    """RunError unless the lines of a batch (the run's ``chunk_size``) are a positive whole number."""
    if not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or chunk_size <= 0:
        raise RunError(f"the chunk size must be a positive whole number, not {chunk_size!r}")


def identity(files: ArchiveFormat, chunk_size: int) -> dict:
    """The manifest's config, but for ``deals``: the number of lines, known when they are all read."""
    evaluators = tuple(logged_evaluators())
    return {"source": files.source, **files.identity(),
            "evaluators": {name: evaluator_record(name) for name in evaluators}, "log_tricks": True,
            "seed": None, "mode": "game", "chunk_size": chunk_size, "schema_version": SCHEMA_VERSION}


# --- one batch ----------------------------------------------------------------------------------------


def batch_columns(files: ArchiveFormat, batch: Batch, evaluators: tuple[str, ...]) -> tuple[dict, list[dict]]:
    """The columns of a batch's valid games, the logged evaluators' scores included, and its problems."""
    columns, problems = files.read(batch)
    columns.update(evaluator_columns(evaluators, columns))
    return columns, problems


def write_batch(files: ArchiveFormat, batch: Batch, *, evaluators: tuple[str, ...], folder: str,
                holder: str | None = None) -> WrittenPart:
    """Read and check the lines of one batch and write its part and its problems (both atomically),
    for the command that holds ``folder`` as ``holder``. Runs in a worker."""
    began = time.perf_counter()
    columns, problems = batch_columns(files, batch, evaluators)
    folder = Path(folder)
    write_problems(folder / ERROR_PARTS / f"part-{batch.index:05d}.jsonl", problems, holder=holder)
    facts = write_part(folder, batch.index, columns, "game", files.source, holder=holder)
    return batch.index, batch.count, time.perf_counter() - began, facts


def write_problems(path: Path, problems: list[dict], *, holder: str | None = None) -> None:
    with temporary_beside(path, temporary_tag(holder)) as tmp:
        with open(tmp, "w", encoding="utf-8") as f:
            for problem in problems:
                f.write(json.dumps(problem) + "\n")
        check_still_held(path.parent.parent, holder)


def pseudonym(name: str) -> str:
    """A stable stand-in for a player's name: the first 16 hex digits of its SHA-256.

    The same name gets the same pseudonym in every import, so players can be followed across
    archives without their names; anyone with a list of names can recompute the hashes.
    """
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:16]


def pseudonyms(names: pa.Array) -> pa.Array:
    encoded = names.dictionary_encode()
    hashed = pa.array([pseudonym(n) for n in encoded.dictionary.to_pylist()], type=pa.string())
    return pa.DictionaryArray.from_arrays(encoded.indices, hashed).cast(pa.string())


# --- the run folder ------------------------------------------------------------------------------------


@dataclass
class ImportReport:
    """What an import made: counts, and the first problems (all of them are in ``errors``)."""

    folder: Path
    files: int
    lines: int
    games: int = 0     # rows imported: games, passed-in deals and penalty records
    passed: int = 0
    played: int = 0
    early: dict = field(default_factory=dict)   # ending -> games
    penalties: int = 0  # penalty records: a time-out or a player leaving before the card play, no game
    disagreements: int = 0
    bad_lines: int = 0
    problems: list = field(default_factory=list)

    @property
    def errors(self) -> Path:
        return self.folder / ERRORS

    def lines_of_text(self) -> list[str]:
        early = sum(self.early.values())
        ends = ", ".join(f"{n:,} {ending}" for ending, n in self.early.items() if n)
        return [f"read {self.lines:,} record lines from {self.files} file(s): imported {self.games:,} into"
                f" {self.folder}, rejected {self.bad_lines:,}",
                f"  {self.played:,} played out, {self.passed:,} passed in, {early:,} ended early"
                + (f" ({ends})" if ends else "") + f", {self.penalties:,} penalty records (no game)",
                f"  {self.disagreements:,} disagree with the archive's result, {self.bad_lines:,} bad lines"
                + (f" (see {self.errors})" if self.disagreements or self.bad_lines else "")]


def import_files(files: ArchiveFormat, out, *, jobs: int | None = None, chunk_size: int = DEFAULT_CHUNK,
                 progress=None) -> ImportReport:
    """Import a format's files into the run folder ``out``, ``chunk_size`` lines a part; returns what
    was imported.

    ``progress`` is called with (lines done, lines in all or None while unknown, lines per second)
    after each part. Raises ArchiveError or RunError (one line) for a file that cannot be read, a
    folder holding another run or a folder another command writes.
    """
    check_chunk_size(chunk_size)
    folder = Path(out)
    make_folder(folder)
    with holding(folder) as holder:
        return _import_held(files, folder, holder, jobs=jobs, chunk_size=chunk_size, progress=progress)


def _import_held(files: ArchiveFormat, folder: Path, holder: str, *, jobs, chunk_size, progress) -> ImportReport:
    """:func:`import_files` into the folder it holds as ``holder``."""
    config = identity(files, chunk_size)
    manifest = open_run(folder, config, unknown_yet=COUNTED_AT_THE_END, again="importing it again")
    remove_stale_temporaries(folder)
    if (folder / ERROR_PARTS).is_dir():
        remove_stale_temporaries(folder / ERROR_PARTS)
    if manifest.finished is None:
        done = set(manifest.parts_done)
        counted: list[int] = []
        total = manifest.config["deals"]
        lines_done = len(done) * chunk_size if total is None else \
            sum(min(chunk_size, total - i * chunk_size) for i in done)
        batches = files.batches(chunk_size, done, counted)
        written = _write_batches(files, batches, evaluators=tuple(config["evaluators"]), folder=folder,
                                 holder=holder, jobs=jobs or os.cpu_count() or 1)
        try:
            record_parts(folder, manifest, written, lines_done, total, progress)
        finally:   # an error or Ctrl-C here stops the workers now, not whenever the generator is collected
            written.close()
        total = counted[0]
        if total == 0:
            raise ArchiveError(f"no record line in {', '.join(files.paths)}: nothing to import")
        planned = -(-total // chunk_size)
        if sorted(manifest.parts_done) != list(range(planned)):
            raise ArchiveError(f"{folder}: its parts do not match the archive files' lines; import into a new folder")
        gather_problems(folder, planned)
        counts = report(folder, len(files.paths), total)
        manifest.config.update(deals=total, imported=counts.games, rejected=counts.bad_lines)
        finish_run(folder, manifest)
    return report(folder, len(files.paths), manifest.config["deals"])


def _write_batches(files: ArchiveFormat, batches: Iterator[Batch], *, evaluators: tuple[str, ...], folder: Path,
                   holder: str | None, jobs: int) -> Iterator[WrittenPart]:
    """Write the batches: in this process, and on ``jobs - 1`` worker processes once they are ready.

    A new worker needs a few seconds to import the toolkit and load its kernels, as long as this
    process takes for several batches; so this process writes batches itself and hands a batch to
    a worker only when the worker has said it is ready (and has no more than one batch waiting). A
    small archive is then never slower on several processes than on one, and a large one keeps
    every process busy. When the import stops early, the workers are stopped before this returns.
    """
    write = functools.partial(write_batch, files, evaluators=evaluators, folder=str(folder), holder=holder)
    if jobs == 1:
        yield from map(write, batches)
        return
    from joblib.externals.loky import get_reusable_executor

    executor = get_reusable_executor(max_workers=jobs - 1)
    ready = [executor.submit(warm_up, files, evaluators) for _ in range(jobs - 1)]
    pending: set = set()
    try:
        for batch in batches:
            for future in [f for f in pending if f.done()]:
                pending.discard(future)
                yield future.result()
            if len(pending) < 2 * sum(f.done() for f in ready):
                pending.add(executor.submit(write, batch))
            else:
                yield write(batch)
        for future in as_completed(pending):
            yield future.result()
    except BaseException:  # an error, Ctrl-C, or the import stopped: no worker goes on writing its folder
        executor.shutdown(wait=True, kill_workers=True)
        raise
    if not all(f.done() for f in ready):  # a worker still starting: do not wait for it at exit
        executor.shutdown(wait=False, kill_workers=True)


def warm_up(files: ArchiveFormat, evaluators: tuple[str, ...]) -> int:
    """Import and load everything a batch needs (in a worker process), on the format's example batch."""
    batch_columns(files, files.example(), evaluators)
    return os.getpid()


def gather_problems(folder: Path, parts: int) -> None:
    """errors.jsonl: the problems of every part, in line order."""
    with temporary_beside(folder / ERRORS) as tmp, open(tmp, "wb") as sink:
        for index in range(parts):
            sink.write((folder / ERROR_PARTS / f"part-{index:05d}.jsonl").read_bytes())


def report(folder: Path, files: int, lines: int) -> ImportReport:
    """The counts of a finished import, from its parts and errors.jsonl."""
    result = ImportReport(folder, files, lines)
    if lines:
        counts = (pl.scan_parquet(str(folder / PART_GLOB)).group_by(pl.col("ended").cast(pl.String))
                  .agg(pl.len()).collect())
        by_end = dict(zip(counts["ended"].to_list(), counts["len"].to_list()))
    else:
        by_end = {}
    result.games = sum(by_end.values())
    result.passed, result.played = by_end.get(ENDINGS[PASSED], 0), by_end.get(ENDINGS[PLAYED], 0)
    result.early = {ending: by_end.get(ending, 0) for ending in EARLY_ENDS}
    result.penalties = by_end.get(ENDINGS[PENALTY], 0)
    with open(folder / ERRORS, encoding="utf-8") as f:
        for line in f:
            problem = json.loads(line)
            if problem["kind"] == BAD_LINE:
                result.bad_lines += 1
            else:
                result.disagreements += 1
            if len(result.problems) < SHOWN_PROBLEMS:
                result.problems.append(f"{problem['file']}, line {problem['line']}: {problem['problem']}")
    return result
