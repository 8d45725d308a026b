"""ISS archive files: their identity, their compression, and their record lines cut into batches.

An archive is plain text, bzip2 or gzip (as its first bytes tell), one record a line. The files
are read in buffers of whole lines; the record lines among them (not blank, not a ``#``
comment) are numbered in the order of the files given, and cut into batches of ``size`` lines:
batch ``k`` holds lines ``k * size`` onwards and becomes part ``k`` of the run. A batch is only
where its lines are (the offsets of a plain file, which the worker reads itself, or the bytes of
decompressed data), so it is cheap to hand to a worker; :func:`read_batch` gives its bytes.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import zlib
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Iterator

import numpy as np
from numba import njit

from sim.imports.writer import ArchiveError

BUFFER_SIZE = 1 << 23  # bytes read at a time


@dataclass(frozen=True)
class Source:
    """An archive file: where it is, and what the manifest records of it."""

    path: Path
    _: KW_ONLY
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
                for data in iter(lambda: f.read(1 << 20), b""):
                    digest.update(data)
        except OSError as e:
            raise ArchiveError(f"cannot read {given}: {e.strerror or e}") from None
        checksum = digest.hexdigest()
        if checksum in seen:
            raise ArchiveError(f"{given} and {seen[checksum]} are the same archive (same checksum); give it once")
        seen[checksum] = given
        sources.append(Source(path, name=path.name, size=path.stat().st_size, sha256=checksum))
    if not sources:
        raise ArchiveError("no archive files given")
    return sources


# --- the record lines of a file ---------------------------------------------------------------------


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


@dataclass(kw_only=True)
class Buffer:
    """Whole lines of a file, read at once, and the record lines among them."""

    data: bytes       # the lines (the first ``size`` bytes)
    size: int
    offset: int       # where the buffer starts in the file; -1 in decompressed data
    starts: np.ndarray
    ends: np.ndarray
    lines: np.ndarray


def buffers(source: Source) -> Iterator[Buffer]:
    """The file in buffers of whole lines, with the spans and line numbers of its record lines."""
    tail, lines, position = b"", 0, 0
    plain = compression(source.path) is None
    try:
        with open_archive(source.path) as f:
            while True:
                read = f.read(BUFFER_SIZE)
                if not read:
                    break
                data = tail + read if tail else read
                cut = data.rfind(b"\n") + 1
                if cut:
                    found, lines = _scan(data, cut, lines_before=lines, offset=position if plain else -1)
                    yield found
                    position += cut
                tail = data[cut:]
    except (OSError, EOFError, zlib.error) as e:
        raise ArchiveError(f"cannot read {source.path}: {_reason(e)}") from None
    if tail:
        yield _scan(tail, len(tail), lines_before=lines, offset=position if plain else -1)[0]


def _scan(data: bytes, size: int, *, lines_before: int, offset: int) -> tuple[Buffer, int]:
    buf = np.frombuffer(data, dtype=np.uint8)[:size]
    room = int(np.count_nonzero(buf == 10)) + 1
    starts, ends, numbers = (np.empty(room, dtype=np.int64) for _ in range(3))
    count, lines = _record_spans(buf, starts, ends, numbers)
    found = Buffer(data=data, size=size, offset=offset, starts=starts[:count], ends=ends[:count],
                   lines=numbers[:count] + lines_before)
    return found, lines_before + lines


def _reason(error: Exception) -> str:
    if isinstance(error, EOFError):
        return "the compressed data ends early (the file is cut short)"
    return f"the compressed data is damaged ({error})" if not isinstance(error, FileNotFoundError) \
        else str(error.strerror)


# --- batches -------------------------------------------------------------------------------------------


@dataclass(kw_only=True)
class FileLines:
    """Record lines of one file that lie together in a batch: where they are in the file (a plain
    file, which the worker reads itself) or their bytes (decompressed data), and each line's span
    and number."""

    file: int
    offset: int
    data: bytes | None
    size: int
    starts: np.ndarray
    ends: np.ndarray
    lines: np.ndarray


@dataclass
class Batch:
    """The record lines one worker reads, checks and writes as part ``index`` of the run."""

    index: int
    first: int          # deal id of the first line
    files: list[FileLines]

    @property
    def count(self) -> int:
        return sum(len(f.starts) for f in self.files)


@dataclass(kw_only=True)
class BatchBytes:
    """The lines of a batch, read: their bytes one after another, where each starts and ends, its
    file (index into the sources) and its line number there."""

    index: int
    first: int
    data: bytes
    starts: np.ndarray
    ends: np.ndarray
    files: np.ndarray
    lines: np.ndarray


def read_batch(batch: Batch, paths) -> BatchBytes:
    """The bytes of a batch's lines (read from the files where they point into them)."""
    datas = []
    for group in batch.files:
        if group.data is not None:
            datas.append(group.data)
            continue
        with open(paths[group.file], "rb") as f:
            f.seek(group.offset)
            data = f.read(group.size)
        if len(data) != group.size:
            raise ArchiveError(f"{paths[group.file]} changed during the import")
        datas.append(data)
    offsets = np.cumsum([0] + [f.size for f in batch.files])
    cat = np.concatenate
    empty = [np.zeros(0, np.int64)]
    return BatchBytes(index=batch.index, first=batch.first, data=b"".join(datas),
                      starts=cat([f.starts + o for f, o in zip(batch.files, offsets)] or empty),
                      ends=cat([f.ends + o for f, o in zip(batch.files, offsets)] or empty),
                      files=cat([np.full(len(f.starts), f.file, dtype=np.int16) for f in batch.files]
                                or [np.zeros(0, np.int16)]),
                      lines=cat([f.lines for f in batch.files] or empty))


def _file_lines(buffer: Buffer, a: int, b: int, *, file: int) -> FileLines:
    """Record lines ``a .. b - 1`` of a buffer."""
    low, high = int(buffer.starts[a]), int(buffer.ends[b - 1])
    data = None if buffer.offset >= 0 else buffer.data[low:high]
    return FileLines(file=file, offset=buffer.offset + low, data=data, size=high - low,
                     starts=buffer.starts[a:b] - low, ends=buffer.ends[a:b] - low, lines=buffer.lines[a:b])


def batches(sources: list[Source], size: int, *, skip=frozenset(), counted: list | None = None) -> Iterator[Batch]:
    """The batches of the record lines of ``sources`` in order; batches in ``skip`` are not built.
    ``counted`` (a list) gets the number of record lines once they are all read."""
    index, found, count, total = 0, [], 0, 0
    for f, source in enumerate(sources):
        for buffer in buffers(source):
            a = 0
            while a < len(buffer.starts):
                b = min(len(buffer.starts), a + size - count)
                if index not in skip:
                    found.append(_file_lines(buffer, a, b, file=f))
                count, total, a = count + b - a, total + b - a, b
                if count == size:
                    if index not in skip:
                        yield Batch(index, index * size, found)
                    index, found, count = index + 1, [], 0
    if count and index not in skip:
        yield Batch(index, index * size, found)
    if counted is not None:
        counted.append(total)
