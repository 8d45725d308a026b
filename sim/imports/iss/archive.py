"""Importing game archives of the International Skat Server into a run folder.

``import_archives(files, out)`` reads ISS archive files (plain text, bzip2 or gzip, one
record a line), checks every game with the rules engine and writes a run folder in the
schema of a game-mode simulation, so that analysis reads human games exactly as it reads
simulated ones (see docs/schema.md for the columns it adds)::

    from sim.imports.iss.archive import import_archives
    report = import_archives(["iss-2024-05.txt.bz2"], "results/iss-2024-05", jobs=2)

The record lines of the files, taken in the order given (blank lines and ``#`` comments
aside), are cut into batches of ``chunk_size`` lines; line ``i`` of that sequence becomes deal
``i``, and batch ``k`` part ``k`` of the run. :class:`IssArchives` is what the run writer
(:func:`sim.imports.writer.import_files`) is given: the files and their batches
(:mod:`sim.imports.iss.files`), and the columns of a batch
(:func:`sim.imports.iss.columns.batch_columns`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterator

import numpy as np

from sim.imports.iss.columns import batch_columns
from sim.imports.iss.files import Batch, FileLines, Source, batches, describe_sources, read_batch
from sim.imports.writer import DEFAULT_CHUNK, ImportReport, check_chunk_size, import_files
from sim.runs.schema import ISS_ARCHIVE

#: A valid record line, for a worker to load its kernels on.
EXAMPLE = (b"(;GM[Skat]ID[1]MV[w DT.HK.HA.HJ.S8.SK.ST.SA.CQ.CJ.D7.D9.DQ.DJ.HT.S9.C7.C8.CK.CA.D8.DK.DA.H7.H8.H9.HQ.S7"
           b".SJ.C9.SQ.CT 1 23 0 y 1 p 2 p 0 s w SQ.CT 0 N.SA.CJ 0 S8 1 S9 2 SJ 2 H7 0 HJ 1 HT ]R[d:0 loss v:-46"
           b" m:0 bidok p:25 t:1 s:0 z:0];)\n")


@dataclass(frozen=True)
class IssArchives:
    """ISS archive files as an import format (:class:`sim.imports.ArchiveFormat`)."""

    sources: tuple[Source, ...]
    anonymize: bool = False
    source: ClassVar[str] = ISS_ARCHIVE

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(str(s.path) for s in self.sources)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.sources)

    def identity(self) -> dict:
        return {"sources": [s.identity() for s in self.sources], "anonymize": self.anonymize}

    def batches(self, size: int, skip: set[int], counted: list[int]) -> Iterator[Batch]:
        return batches(list(self.sources), size, skip=skip, counted=counted)

    def read(self, batch: Batch) -> tuple[dict, list[dict]]:
        return batch_columns(read_batch(batch, self.paths), self.names, self.anonymize)

    def example(self) -> Batch:
        ends = np.array([len(EXAMPLE)], dtype=np.int64)
        return Batch(0, 0, [FileLines(file=0, offset=-1, data=EXAMPLE, size=len(EXAMPLE), starts=np.zeros(1, np.int64),
                                      ends=ends, lines=np.ones(1, np.int64))])


def import_archives(paths, out, jobs: int | None = None, anonymize: bool = False, chunk_size: int = DEFAULT_CHUNK,
                    progress=None) -> ImportReport:
    """Import ISS archive files into the run folder ``out``; returns what was imported.

    ``progress`` is called with (lines done, lines in all or None while unknown, lines per second)
    after each part. Raises ArchiveError or RunError (one line) for a file that cannot be read or a
    folder holding another run.
    """
    check_chunk_size(chunk_size)
    archives = IssArchives(tuple(describe_sources(paths)), anonymize)
    return import_files(archives, out, jobs=jobs, chunk_size=chunk_size, progress=progress)
