"""Importing game archives of the International Skat Server into a run folder.

``import_archives(files, out)`` reads ISS archive files (plain text, bzip2 or gzip, one
record a line), checks every game with the rules engine and writes a run folder in the
schema of a game-mode simulation, so that analysis reads human games exactly as it reads
simulated ones (see docs/schema.md for the columns it adds)::

    from sim.imports.iss.archive import import_archives
    report = import_archives(["iss-2024-05.txt.bz2"], "results/iss-2024-05", jobs=2)

The record lines of the files, taken in the order given (blank lines and ``#`` comments
aside), are cut into parts of ``chunk_size`` lines; line ``i`` of that sequence becomes deal
``i``. Each part is read, checked and written by a worker (:func:`import_part`), atomically,
together with the problems found in it; the manifest names every source file with its
checksum, so running the same import again finishes an interrupted one, changes nothing
once it is complete, and a folder holding another run is refused. When every part is done,
the problems are gathered into ``errors.jsonl`` (one JSON object a line: the file, the line,
the record id, the kind, ``bad line`` or ``disagreement``, and the problem, with both results
for a disagreement).
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import os
import time
import zlib
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np
import polars as pl
import pyarrow as pa
from numba import njit

from sim.imports.iss.kernels import (
    F_ID,
    F_P0,
    MISSING,
    O_AGREES,
    O_BID,
    O_DECLARER,
    O_DISCARD,
    O_ENDED,
    O_ENDED_BY,
    O_GAME,
    O_HAND,
    O_MATADORS,
    O_OUVERT,
    O_SCHNEIDER_ANNOUNCED,
    O_SCHWARZ_ANNOUNCED,
    RESULT_COLUMNS,
    check_batch,
)
from sim.imports.iss.record import COMPARED, ENDINGS, PASSED, IssError, check_line
from sim.runs.folder import (
    ISS_ARCHIVE,
    PART_GLOB,
    SCHEMA_VERSION,
    RunError,
    remove_stale_temporaries,
    temporary_beside,
    write_part,
)
from sim.runs.runner import open_run
from sim.runs.simulation import evaluator_columns, evaluator_record
from strategies.registry import logged_evaluators

DEFAULT_CHUNK = 50_000
ERRORS = "errors.jsonl"
ERROR_PARTS = "errors"
BAD_LINE, DISAGREEMENT = "bad line", "disagreement"
SHOWN_PROBLEMS = 10


class ArchiveError(RunError):
    """An archive that cannot be read (missing, unreadable, damaged compressed data) or imported."""


# --- the source files -------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    path: Path
    name: str
    size: int
    sha256: str

    def identity(self) -> dict:
        return {"name": self.name, "bytes": self.size, "sha256": self.sha256}


def compression(path: Path) -> str | None:
    """"bz2" or "gzip" as the file's first bytes tell, None for a plain file."""
    with open(path, "rb") as f:
        magic = f.read(3)
    return "bz2" if magic == b"BZh" else "gzip" if magic[:2] == b"\x1f\x8b" else None


def open_archive(path: Path):
    """The file as a binary stream, decompressed when it is bzip2 or gzip."""
    opener = {"bz2": bz2.open, "gzip": gzip.open, None: open}[compression(path)]
    return opener(path, "rb")


def describe_sources(paths) -> list[Source]:
    """Each file's name, size and SHA-256 checksum (of the file as stored); ArchiveError for a file
    that cannot be read or that is given twice."""
    sources, seen = [], {}
    for given in paths:
        path = Path(given)
        digest = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
        except OSError as e:
            raise ArchiveError(f"cannot read {given}: {e.strerror or e}") from None
        checksum = digest.hexdigest()
        if checksum in seen:
            raise ArchiveError(f"{given} and {seen[checksum]} are the same archive (same checksum); give it once")
        seen[checksum] = given
        sources.append(Source(path, path.name, path.stat().st_size, checksum))
    if not sources:
        raise ArchiveError("no archive files given")
    return sources


BLOCK = 1 << 23  # bytes read at a time


@njit(cache=True)
def _record_spans(buf, starts, ends, numbers):
    """The record lines of a buffer of whole lines: not blank and not a ``#`` comment once the
    whitespace that ``bytes.strip`` removes is skipped. Fills their spans (line break included) and
    line numbers (from 1); returns (record lines, lines)."""
    count, line, p, n = 0, 0, 0, buf.shape[0]
    while p < n:
        line += 1
        q = p
        while q < n and buf[q] != 10:
            q += 1
        end = q + 1 if q < n else q
        first = p
        while first < q and (buf[first] == 32 or 9 <= buf[first] <= 13):
            first += 1
        if first < q and buf[first] != 35:  # '#'
            starts[count], ends[count], numbers[count] = p, end, line
            count += 1
        p = end
    return count, line


@dataclass
class Block:
    """Whole lines of a file and the record lines among them."""

    data: bytes       # the lines (the first ``size`` bytes)
    size: int
    offset: int       # where the block starts in the file; -1 in decompressed data
    starts: np.ndarray
    ends: np.ndarray
    lines: np.ndarray


def record_blocks(source: Source) -> Iterator[Block]:
    """The file in blocks of whole lines, with the spans and line numbers of its record lines."""
    tail, lines, position = b"", 0, 0
    plain = compression(source.path) is None
    try:
        with open_archive(source.path) as f:
            while True:
                block = f.read(BLOCK)
                if not block:
                    break
                data = tail + block if tail else block
                cut = data.rfind(b"\n") + 1
                if cut:
                    found, lines = _scan(data, cut, lines, position if plain else -1)
                    yield found
                    position += cut
                tail = data[cut:]
    except (OSError, EOFError, zlib.error) as e:
        raise ArchiveError(f"cannot read {source.path}: {_reason(e)}") from None
    if tail:
        yield _scan(tail, len(tail), lines, position if plain else -1)[0]


def _scan(data: bytes, size: int, lines_before: int, offset: int) -> tuple[Block, int]:
    buf = np.frombuffer(data, dtype=np.uint8)[:size]
    room = int(np.count_nonzero(buf == 10)) + 1
    starts, ends, numbers = (np.empty(room, dtype=np.int64) for _ in range(3))
    count, lines = _record_spans(buf, starts, ends, numbers)
    block = Block(data, size, offset, starts[:count], ends[:count], numbers[:count] + lines_before)
    return block, lines_before + lines


def _reason(error: Exception) -> str:
    if isinstance(error, EOFError):
        return "the compressed data ends early (the file is cut short)"
    return f"the compressed data is damaged ({error})" if not isinstance(error, FileNotFoundError) \
        else str(error.strerror)


# --- parts ----------------------------------------------------------------------------------------


@dataclass
class Piece:
    """Record lines of one file that lie together: where they are in the file (a plain file, which
    the worker reads itself) or their bytes (decompressed data), and each line's span and number."""

    file: int
    offset: int
    data: bytes | None
    size: int
    starts: np.ndarray
    ends: np.ndarray
    lines: np.ndarray


@dataclass
class Chunk:
    """The record lines of one part, as pieces of the source files."""

    index: int
    first: int          # deal id of the first line
    pieces: list[Piece]

    @property
    def count(self) -> int:
        return sum(len(p.starts) for p in self.pieces)


@dataclass
class Lines:
    """The record lines of one part, read: their bytes one after another, where each starts and
    ends, its file (index into the sources) and its line number there."""

    index: int
    first: int
    data: bytes
    starts: np.ndarray
    ends: np.ndarray
    files: np.ndarray
    lines: np.ndarray


def read_lines(chunk: Chunk, paths) -> Lines:
    """The bytes of a part's pieces (read from the files where the pieces point into them)."""
    datas = []
    for piece in chunk.pieces:
        if piece.data is not None:
            datas.append(piece.data)
            continue
        with open(paths[piece.file], "rb") as f:
            f.seek(piece.offset)
            data = f.read(piece.size)
        if len(data) != piece.size:
            raise ArchiveError(f"{paths[piece.file]} changed during the import")
        datas.append(data)
    offsets = np.cumsum([0] + [p.size for p in chunk.pieces])
    cat = np.concatenate
    empty = [np.zeros(0, np.int64)]
    return Lines(chunk.index, chunk.first, b"".join(datas),
                 cat([p.starts + o for p, o in zip(chunk.pieces, offsets)] or empty),
                 cat([p.ends + o for p, o in zip(chunk.pieces, offsets)] or empty),
                 cat([np.full(len(p.starts), p.file, dtype=np.int16) for p in chunk.pieces]
                     or [np.zeros(0, np.int16)]),
                 cat([p.lines for p in chunk.pieces] or empty))


def _piece(block: Block, a: int, b: int, file: int) -> Piece:
    """Record lines ``a .. b - 1`` of a block."""
    low, high = int(block.starts[a]), int(block.ends[b - 1])
    data = None if block.offset >= 0 else block.data[low:high]
    return Piece(file, block.offset + low, data, high - low, block.starts[a:b] - low, block.ends[a:b] - low,
                 block.lines[a:b])


def chunks(sources: list[Source], chunk_size: int, skip=frozenset(), counted: list | None = None) -> Iterator[Chunk]:
    """The parts of the record lines of ``sources`` in order; parts in ``skip`` are not built.
    ``counted`` (a list) gets the number of record lines once they are all read."""
    index, pieces, count, total = 0, [], 0, 0
    for f, source in enumerate(sources):
        for block in record_blocks(source):
            a = 0
            while a < len(block.starts):
                b = min(len(block.starts), a + chunk_size - count)
                if index not in skip:
                    pieces.append(_piece(block, a, b, f))
                count, total, a = count + b - a, total + b - a, b
                if count == chunk_size:
                    if index not in skip:
                        yield Chunk(index, index * chunk_size, pieces)
                    index, pieces, count = index + 1, [], 0
    if count and index not in skip:
        yield Chunk(index, index * chunk_size, pieces)
    if counted is not None:
        counted.append(total)


@dataclass(frozen=True)
class Settings:
    """What every part of an import needs to know besides its lines."""

    names: tuple[str, ...]          # the source files' names, by index
    paths: tuple[str, ...]          # and where they are
    evaluators: tuple[str, ...]
    anonymize: bool = False


@dataclass
class PartDone:
    index: int
    lines: int
    seconds: float
    facts: dict        # what the manifest records of the part (rows, bytes, CRC-32)


def import_part(chunk: Chunk, settings: Settings, folder: str) -> PartDone:
    """Check the lines of one part and write its rows and problems (both atomically). Runs in a worker."""
    began = time.perf_counter()
    lines = read_lines(chunk, settings.paths)
    columns, problems = read_chunk(lines, settings)
    folder = Path(folder)
    write_problems(folder / ERROR_PARTS / f"part-{chunk.index:05d}.jsonl", problems)
    facts = write_part(folder, chunk.index, columns, "game", ISS_ARCHIVE)
    return PartDone(chunk.index, len(lines.starts), time.perf_counter() - began, facts)


def write_problems(path: Path, problems: list[dict]) -> None:
    with temporary_beside(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
        for problem in problems:
            f.write(json.dumps(problem) + "\n")


# --- reading a part ----------------------------------------------------------------------------------


def read_chunk(chunk: Lines, settings: Settings) -> tuple[dict, list[dict]]:
    """The columns of the valid games of a part, and its problems (bad lines, disagreements) in line order."""
    batch = check_batch(chunk.data, chunk.starts, chunk.ends)
    out, hands, logs = batch.out.copy(), batch.hands.copy(), batch.logs.copy()
    keep = batch.ok.copy()
    slow: dict[int, object] = {}   # lines the kernels left to the checked path, and what it made of them
    problems: dict[int, dict] = {}
    for k in np.flatnonzero(~batch.ok):
        try:
            checked = check_line(_line(chunk, k))
        except IssError as e:
            problems[k] = _problem(chunk, settings, k, BAD_LINE, str(e))
            continue
        slow[k] = checked
        keep[k] = True
        _put_row({**checked.row, "agrees": checked.agrees}, k, out, hands, logs)
    for k in np.flatnonzero(keep & (out[:, O_AGREES] == 0)):
        try:
            checked = slow.get(k) or check_line(_line(chunk, k))
        except IssError as e:  # the kernels and the checked path disagree: trust the checked path
            problems[k], keep[k] = _problem(chunk, settings, k, BAD_LINE, str(e)), False
            continue
        problems[k] = _disagreement(chunk, settings, k, checked)
    rows = np.flatnonzero(keep)
    columns = _game_columns(chunk, rows, out, hands, logs)
    columns.update(_archive_columns(chunk, batch, rows, out, slow, settings))
    columns.update(evaluator_columns(settings.evaluators, columns))
    return columns, [problems[k] for k in sorted(problems)]


def _line(chunk: Lines, k: int) -> bytes:
    return chunk.data[chunk.starts[k]:chunk.ends[k]]


def _problem(chunk: Lines, settings: Settings, k: int, kind: str, text: str, record_id=None) -> dict:
    if record_id is None:
        record_id = _record_id(_line(chunk, k))
    return {"file": settings.names[chunk.files[k]], "line": int(chunk.lines[k]), "id": record_id, "kind": kind,
            "problem": text}


def _record_id(line: bytes) -> str | None:
    """The ID field of a line, if it can be found (for a bad line, best effort)."""
    start = line.find(b"ID[")
    end = line.find(b"]", start)
    return line[start + 3:end].decode("utf-8", errors="replace") if start >= 0 and end > start else None


def _disagreement(chunk: Lines, settings: Settings, k: int, checked) -> dict:
    keys = COMPARED[checked.row["ended"]]
    engine = {key: checked.engine.get(key) for key in keys}
    archive = {key: checked.archive.get(key) for key in keys}
    differ = ", ".join(f"{key} {engine[key]} (archive {archive[key]})" for key in keys if engine[key] != archive[key])
    problem = _problem(chunk, settings, k, DISAGREEMENT, f"the engine's result differs from the archive's: {differ}",
                       checked.fields.get("ID"))
    return {**problem, "engine": engine, "archive": archive}


_ROW_SLOTS = {"declarer": O_DECLARER, "bid": O_BID, "game": O_GAME, "hand": O_HAND,
              "schneider_announced": O_SCHNEIDER_ANNOUNCED, "schwarz_announced": O_SCHWARZ_ANNOUNCED,
              "ouvert": O_OUVERT, "discard": O_DISCARD, "ended": O_ENDED, "ended_by": O_ENDED_BY, "agrees": O_AGREES,
              **{name: O_MATADORS + i for i, name in enumerate(RESULT_COLUMNS)}}


def _put_row(row: dict, k: int, out: np.ndarray, hands: np.ndarray, logs: np.ndarray) -> None:
    """A row of the checked path into the kernels' arrays (None becomes MISSING)."""
    for name, slot in _ROW_SLOTS.items():
        value = row.get(name)
        out[k, slot] = MISSING if value is None else int(value)
    hands[k] = [row["hand_f"], row["hand_m"], row["hand_r"], row["skat"]]
    logs[k] = row["tricks"]


def _game_columns(chunk: Lines, rows: np.ndarray, out: np.ndarray, hands: np.ndarray, logs: np.ndarray) -> dict:
    """The game-mode columns of the kept rows (see sim.runs.folder.GAME_MODE_TYPES)."""
    o = out[rows]
    dealt = hands[rows].astype(np.uint32)
    columns = {"deal_id": chunk.first + rows.astype(np.int64),
               "hand_f": dealt[:, 0], "hand_m": dealt[:, 1], "hand_r": dealt[:, 2], "skat": dealt[:, 3],
               "passed": o[:, O_ENDED] == PASSED, "declarer": o[:, O_DECLARER], "bid": o[:, O_BID],
               "game": o[:, O_GAME], "hand": o[:, O_HAND] == 1,
               "schneider_announced": o[:, O_SCHNEIDER_ANNOUNCED] == 1,
               "schwarz_announced": o[:, O_SCHWARZ_ANNOUNCED] == 1, "ouvert": o[:, O_OUVERT] == 1,
               "discard": o[:, O_DISCARD], "tricks": logs[rows]}
    for i, name in enumerate(RESULT_COLUMNS):
        values = o[:, O_MATADORS + i]
        columns[name] = np.ma.masked_array(np.where(values == MISSING, 0, values), mask=values == MISSING)
    unknown = np.ma.masked_all(len(rows), dtype=np.int16)
    for suffix in "fmr":
        columns[f"max_bid_{suffix}"] = unknown
        columns[f"intended_game_{suffix}"] = np.ma.masked_all(len(rows), dtype=np.int8)
    return columns


def _archive_columns(chunk: Lines, batch, rows: np.ndarray, out: np.ndarray, slow: dict, settings: Settings) -> dict:
    """The columns an imported run adds: where each game comes from, its id, date, players, how it ended."""
    o = out[rows]
    checked = {int(i): slow[int(rows[i])] for i in np.searchsorted(rows, sorted(slow))}  # row -> checked path
    strings = {name: _strings(chunk, batch.spans[rows, f], checked, name)
               for name, f in (("archive_id", F_ID), ("player_f", F_P0), ("player_m", F_P0 + 1),
                               ("player_r", F_P0 + 2))}
    if settings.anonymize:
        for name in ("player_f", "player_m", "player_r"):
            strings[name] = pseudonyms(strings[name])
    seconds = batch.dates[rows].copy()
    for i, line in checked.items():
        seconds[i] = MISSING if line.date is None else int(line.date.timestamp())
    dates = pa.array(np.where(seconds == MISSING, 0, seconds), mask=seconds == MISSING, type=pa.int64())
    ended = pa.DictionaryArray.from_arrays(pa.array(o[:, O_ENDED].astype(np.int8)), pa.array(ENDINGS))
    files = pa.DictionaryArray.from_arrays(pa.array(chunk.files[rows].astype(np.int16)), pa.array(settings.names))
    return {"archive_file": files, "archive_line": chunk.lines[rows], **strings,
            "date": dates.cast(pa.timestamp("s", tz="UTC")), "ended": ended, "ended_by": o[:, O_ENDED_BY],
            "agrees": o[:, O_AGREES] == 1}


@njit(cache=True)
def _gather(data, spans, offsets, values):
    """The bytes of each span one after another (``offsets`` as Arrow wants them)."""
    p = 0
    for k in range(spans.shape[0]):
        offsets[k] = p
        if spans[k, 0] >= 0:
            n = spans[k, 1] - spans[k, 0]
            values[p:p + n] = data[spans[k, 0]:spans[k, 1]]
            p += n
    offsets[spans.shape[0]] = p


_FIELD_OF = {"archive_id": "ID", "player_f": "P0", "player_m": "P1", "player_r": "P2"}


def _strings(chunk: Lines, spans: np.ndarray, checked: dict, name: str) -> pa.Array:
    """A text field of each row (null where the record has none); ``checked``: rows of the checked path."""
    data = np.frombuffer(chunk.data, dtype=np.uint8)
    sizes = np.where(spans[:, 0] >= 0, spans[:, 1] - spans[:, 0], 0)
    offsets = np.empty(len(spans) + 1, dtype=np.int64)
    values = np.empty(int(sizes.sum()), dtype=np.uint8)
    _gather(data, spans, offsets, values)
    valid = spans[:, 0] >= 0
    array = pa.LargeBinaryArray.from_buffers(pa.large_binary(), len(spans),
                                             [pa.py_buffer(np.packbits(valid, bitorder="little")),
                                              pa.py_buffer(offsets), pa.py_buffer(values)])
    try:
        if not checked:
            return array.cast(pa.large_string()).cast(pa.string())
    except pa.ArrowInvalid:  # not UTF-8
        pass
    # decode as the checked path does, and take its fields for its rows
    texts = [None if v is None else v.decode("utf-8", errors="replace") for v in array.to_pylist()]
    for i, line in checked.items():
        texts[i] = line.fields.get(_FIELD_OF[name])
    return pa.array(texts, type=pa.string())


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


def identity(sources: list[Source], chunk_size: int, anonymize: bool) -> dict:
    """The manifest's config, but for ``deals``: the number of record lines, known when they are all read."""
    evaluators = tuple(logged_evaluators())
    return {"source": ISS_ARCHIVE, "sources": [s.identity() for s in sources], "anonymize": anonymize,
            "evaluators": {name: evaluator_record(name) for name in evaluators}, "log_tricks": True,
            "seed": None, "mode": "game", "chunk_size": chunk_size, "schema_version": SCHEMA_VERSION}


@dataclass
class ImportReport:
    """What an import made: counts, and the first problems (all of them are in ``errors``)."""

    folder: Path
    files: int
    lines: int
    games: int = 0
    passed: int = 0
    played: int = 0
    early: dict = field(default_factory=dict)   # ending -> games
    disagreements: int = 0
    bad_lines: int = 0
    problems: list = field(default_factory=list)

    @property
    def errors(self) -> Path:
        return self.folder / ERRORS

    def lines_of_text(self) -> list[str]:
        early = sum(self.early.values())
        ends = ", ".join(f"{n:,} {ending}" for ending, n in self.early.items() if n)
        return [f"imported {self.games:,} of {self.lines:,} record lines from {self.files} file(s) into {self.folder}",
                f"  {self.played:,} played out, {self.passed:,} passed in, {early:,} ended early"
                + (f" ({ends})" if ends else ""),
                f"  {self.disagreements:,} disagree with the archive's result, {self.bad_lines:,} bad lines"
                + (f" (see {self.errors})" if self.disagreements or self.bad_lines else "")]


def import_archives(paths, out, jobs: int | None = None, anonymize: bool = False, chunk_size: int = DEFAULT_CHUNK,
                    progress=None) -> ImportReport:
    """Import ISS archive files into the run folder ``out``; returns what was imported.

    ``progress`` is called with (lines done, lines in all or None while unknown, lines per second)
    after each part. Raises ArchiveError or RunError (one line) for a file that cannot be read or a
    folder holding another run.
    """
    if not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or chunk_size <= 0:
        raise RunError(f"the chunk size must be a positive whole number, not {chunk_size!r}")
    sources = describe_sources(paths)
    folder = Path(out)
    config = identity(sources, chunk_size, anonymize)
    manifest = open_run(folder, config, unknown_yet=("deals",), again="importing it again")
    remove_stale_temporaries(folder)
    if (folder / ERROR_PARTS).is_dir():
        remove_stale_temporaries(folder / ERROR_PARTS)
    if manifest.finished is None:
        settings = Settings(tuple(s.name for s in sources), tuple(str(s.path) for s in sources),
                            tuple(config["evaluators"]), anonymize)
        done = set(manifest.parts_done)
        counted: list[int] = []
        total = manifest.config["deals"]
        began, imported = time.perf_counter(), 0
        lines_done = len(done) * chunk_size if total is None else \
            sum(min(chunk_size, total - i * chunk_size) for i in done)
        parts = chunks(sources, chunk_size, done, counted)
        for part in _run_parts(parts, settings, folder, jobs or os.cpu_count() or 1):
            manifest.add_part(part.index, part.facts)
            manifest.save(folder)
            imported += part.lines
            if progress is not None:
                progress(lines_done + imported, total, imported / max(time.perf_counter() - began, 1e-9))
        total = counted[0]
        if total == 0:
            raise ArchiveError(f"no record line in {', '.join(str(s.path) for s in sources)}: nothing to import")
        planned = -(-total // chunk_size)
        if sorted(manifest.parts_done) != list(range(planned)):
            raise ArchiveError(f"{folder}: its parts do not match the archive files' lines; import into a new folder")
        gather_problems(folder, planned)
        manifest.config["deals"] = total
        manifest.finished = time.strftime("%Y-%m-%dT%H:%M:%S")
        manifest.save(folder)
    return report(folder, len(sources), manifest.config["deals"])


def _run_parts(parts: Iterator[Chunk], settings: Settings, folder: Path, jobs: int) -> Iterator[PartDone]:
    """Import the parts: in this process, and on ``jobs - 1`` worker processes once they are ready.

    A new worker needs a few seconds to import the toolkit and load its kernels, as long as this
    process takes for several parts; so this process imports parts itself and hands a part to a
    worker only when the worker has said it is ready (and has no more than one part waiting). A
    small archive is then never slower on several processes than on one, and a large one keeps
    every process busy.
    """
    if jobs == 1:
        for chunk in parts:
            yield import_part(chunk, settings, str(folder))
        return
    from joblib.externals.loky import get_reusable_executor

    executor = get_reusable_executor(max_workers=jobs - 1)
    ready = [executor.submit(warm_up) for _ in range(jobs - 1)]
    pending: set = set()
    for chunk in parts:
        for future in [f for f in pending if f.done()]:
            pending.discard(future)
            yield future.result()
        if len(pending) < 2 * sum(f.done() for f in ready):
            pending.add(executor.submit(import_part, chunk, settings, str(folder)))
        else:
            yield import_part(chunk, settings, str(folder))
    for future in as_completed(pending):
        yield future.result()
    if not all(f.done() for f in ready):  # a worker still starting: do not wait for it at exit
        executor.shutdown(wait=False, kill_workers=True)


def warm_up() -> int:
    """Import and load everything a part needs (in a worker process), on one example line."""
    line = (b"(;GM[Skat]ID[1]MV[w DT.HK.HA.HJ.S8.SK.ST.SA.CQ.CJ.D7.D9.DQ.DJ.HT.S9.C7.C8.CK.CA.D8.DK.DA.H7.H8.H9.HQ.S7"
            b".SJ.C9.SQ.CT 1 23 0 y 1 p 2 p 0 s w SQ.CT 0 N.SA.CJ 0 S8 1 S9 2 SJ 2 H7 0 HJ 1 HT ]R[d:0 loss v:-46"
            b" m:0 bidok p:25 t:1 s:0 z:0];)\n")
    lines = Lines(0, 0, line, np.array([0]), np.array([len(line)]), np.zeros(1, np.int16), np.ones(1, np.int64))
    read_chunk(lines, Settings(("warm-up",), ("",), tuple(logged_evaluators())))
    return os.getpid()


def gather_problems(folder: Path, parts: int) -> None:
    """errors.jsonl: the problems of every part, in line order."""
    with temporary_beside(folder / ERRORS) as tmp, open(tmp, "wb") as sink:
        for index in range(parts):
            piece = folder / ERROR_PARTS / f"part-{index:05d}.jsonl"
            sink.write(piece.read_bytes())


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
    result.passed, result.played = by_end.get("passed", 0), by_end.get("played", 0)
    result.early = {ending: by_end.get(ending, 0) for ending in ENDINGS[2:]}
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
