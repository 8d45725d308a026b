"""Importers: game archives of other programs turned into run folders.

Each format is one folder (:mod:`sim.imports.iss` for the International Skat Server); the run
writer, :func:`sim.imports.writer.import_files`, is the same for all of them. A format gives the
writer an :class:`ArchiveFormat`: its files, cut into batches of lines, and a function that turns
a batch into the columns of a run. The writer does the rest: the manifest (resuming an
interrupted import, refusing a folder that holds another run), the evaluators' scores of every
hand, the workers, the part files, ``errors.jsonl`` and the report. Adding a format is adding a
folder with one such object and a function that makes it from the files given.

Vocabulary: a *line* is one game record of an archive; a *batch* is the lines one worker reads,
checks and writes, ``chunk_size`` of them (the run setting); batch ``k`` becomes *part* ``k`` of
the run (``part-0000k.parquet``), and the ``i``-th line of the files, in the order given, is
deal ``i``.

Imports the rules engine, the strategies (for the evaluators logged) and the run format; never
analysis or the commands.
"""

from __future__ import annotations

from typing import Iterator, Protocol


class Batch(Protocol):
    """The lines one worker handles; it must pickle (it goes to a worker process)."""

    @property
    def index(self) -> int:
        """The part it becomes: batch ``k`` holds lines ``k * chunk_size`` onwards."""

    @property
    def count(self) -> int:
        """The lines in it (all of them: valid games, bad lines and disagreements)."""


class ArchiveFormat(Protocol):
    """What a format gives the run writer; it must pickle (it goes to the worker processes)."""

    #: The manifest's ``config.source`` and the parts' ``skatsim_source`` (``iss``).
    source: str

    @property
    def paths(self) -> tuple[str, ...]:
        """The files as given, for messages."""

    def identity(self) -> dict:
        """What the manifest's config records of the files and the format's settings: ``sources``
        (each file's ``name``, ``bytes`` and ``sha256``) and, say, ``anonymize``. Another identity
        in the same folder is another run, which the writer refuses."""

    def batches(self, size: int, skip: set[int], counted: list[int]) -> Iterator[Batch]:
        """The lines of the files in order, in batches of ``size`` (the last one shorter); batches whose
        index is in ``skip`` (parts already written) are not built. Once every line is read, their
        number is appended to ``counted``."""

    def read(self, batch: Batch) -> tuple[dict, list[dict]]:
        """Runs in a worker: the columns of the batch's valid games and its problems, in line order.

        The columns are those of :data:`sim.runs.schema.GAME_MODE_TYPES` (but the evaluators',
        which the writer adds) and :data:`sim.runs.schema.ARCHIVE_TYPES`, one row per valid game,
        ``deal_id`` the line's number across the files from 0. A problem is one object of
        ``errors.jsonl``: ``file``, ``line``, ``id``, ``kind`` (:data:`sim.imports.writer.BAD_LINE`
        or :data:`~sim.imports.writer.DISAGREEMENT`), ``problem`` (one line of text), and more keys
        as the format needs (``engine`` and ``archive`` for a disagreement).
        """

    def example(self) -> Batch:
        """A batch of one valid line, read by a new worker to load its kernels before real work."""
