"""Run folders for analysis: checked, described, and scanned lazily with polars.

A run folder (see :mod:`sim.runs.folder`) holds ``manifest.json`` and ``part-NNNNN.parquet``
files. Analysis reads the parts through one lazy scan, so a run of ten million
deals is never loaded whole: every table is a polars aggregation over the scan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq

from sim.rules.dealing import dealing_text
from sim.runs import RunError
from sim.runs.folder import part_name, read_manifest
from sim.runs.schema import READABLE_VERSIONS, SIMULATION

#: Declare mode's ``evaluator_score`` column: the score of the profile bidder's own evaluator.
BIDDER_SCORE = "bidder"


class AnalysisError(ValueError):
    """Runs that cannot be analysed or compared; the message is one line naming the folder and the problem."""


@dataclass(frozen=True, kw_only=True)
class Run:
    """A checked run folder: what the manifest says and where its parts are."""

    folder: Path
    label: str
    mode: str          # "game" (one row per deal) or "declare" (one row per deal, seat and game)
    seed: int
    profile: str
    deals: int         # deals the run was configured for
    parts: tuple[Path, ...]
    parts_planned: int
    finished: bool
    config: dict
    acceptance: float | None = None   # a conditional run dealt by rejection: the share of candidate deals kept
    #: the rows read of the parts, (first, count) of their rows in order; None: all of them (a pass over a
    #: large run reads it in batches, :mod:`analysis.reading`)
    window: tuple[int, int] | None = None
    #: evaluators the run did not log, scored at analysis time (:mod:`analysis.scoring`): name ->
    #: {"source": what names it, "thresholds": {game: value}}
    scored: dict = field(default_factory=dict)

    @property
    def source(self) -> str:
        """Where the deals come from: ``simulation``, or ``iss`` for a run imported from ISS archives."""
        return self.config.get("source", SIMULATION)

    @property
    def imported(self) -> bool:
        return self.source != SIMULATION

    @property
    def origin(self) -> str:
        """What the run is, for people: ``simulation, profile default, seed 0``, ``duplicate match, A =
        club@card_play=random, B = club, card play only, seed 0`` (each side as the match named it, with its
        settings) or ``imported ISS archive (2 files)``."""
        if not self.imported:
            dealt = f", dealt only {self.dealing}" if self.dealing else ""
            sides = self.config.get("match")
            if self.mode == "match" and isinstance(sides, dict):
                kind = ", card play only" if sides.get("card_play_only") else ""
                return f"duplicate match, A = {sides.get('a')}, B = {sides.get('b')}{kind}, seed {self.seed}{dealt}"
            return f"simulation, profile {self.profile}, seed {self.seed}{dealt}"
        files = self.config.get("sources", [])
        names = ", ".join(f["name"] for f in files[:3]) + (", ..." if len(files) > 3 else "")
        return f"imported {self.source.upper()} archive ({names})"

    def size(self) -> str:
        """How many deals, for people; an import: the record lines read, imported and rejected."""
        if not self.imported:
            return f"{self.deals:,} deals"
        imported, rejected = self.config.get("imported"), self.config.get("rejected")
        if imported is None or rejected is None:  # imported before these counts were kept
            return f"{self.deals:,} record lines"
        return f"{self.deals:,} lines read, {imported:,} imported, {rejected:,} rejected"

    @property
    def dealing(self) -> str | None:
        """How a conditional run was dealt (its fixed cards and condition, and their share of the deals),
        None for a run dealt uniformly: every rate of a conditional run holds for such deals only."""
        return dealing_text(self.config.get("dealing"), self.acceptance)

    @property
    def open_hand(self) -> bool:
        """Whether the run holds each game's open-hand outcome (``simulate --open-hand``: ``oh_*`` columns)."""
        return bool(self.config.get("open_hand"))

    @property
    def logged_evaluators(self) -> dict[str, dict]:
        """The evaluators the run logged (from its manifest): name -> {"thresholds": {game: value}}."""
        return self.config.get("evaluators", {})

    @property
    def logged_scores(self) -> list[str]:
        """The names of every score the run logged: its evaluators', and in declare mode first the score of the
        profile's bidder's own evaluator (:data:`BIDDER_SCORE`)."""
        return [*([BIDDER_SCORE] if self.mode == "declare" else []), *self.logged_evaluators]

    @property
    def evaluators(self) -> dict[str, dict]:
        """The evaluators of the run's tables: those it logged, then those scored at analysis time."""
        return {**self.logged_evaluators, **self.scored}

    def scan(self) -> pl.LazyFrame:
        """All rows of the run's parts (or of its window) as one lazy frame (nothing is read until it is
        collected)."""
        rows = pl.scan_parquet(list(self.parts))
        return rows if self.window is None else rows.slice(*self.window)

    @property
    def complete(self) -> bool:
        return self.finished and len(self.parts) == self.parts_planned

    def describe(self) -> dict:
        return {"run": self.label, "folder": str(self.folder), "mode": self.mode, "seed": self.seed,
                "profile": self.profile, "deals": self.deals, "parts": len(self.parts),
                "parts_planned": self.parts_planned, "complete": self.complete, "source": self.source,
                "origin": self.origin, "dealing": self.dealing}


def load_run(folder, label: str | None = None) -> Run:
    """The run in ``folder``, or :class:`AnalysisError` if it is not a readable run of this schema."""
    folder = Path(folder)
    if not folder.is_dir():
        raise AnalysisError(f"{folder} is not a folder")
    try:
        manifest = read_manifest(folder)
    except RunError as error:
        raise AnalysisError(str(error)) from None
    config = manifest.config
    version = config.get("schema_version")
    if version not in READABLE_VERSIONS:
        readable = ", ".join(map(str, READABLE_VERSIONS[:-1])) + f" and {READABLE_VERSIONS[-1]}"
        raise AnalysisError(f"{folder} holds a run of schema version {version}; this skatsim reads"
                            f" versions {readable} (run the simulation again)")
    if not manifest.parts:
        raise AnalysisError(f"{folder} is an empty run: no part is finished yet")
    damaged = manifest.damaged_parts(folder)
    if damaged:
        raise AnalysisError(damaged_message(folder, damaged))
    parts = tuple(folder / part_name(index) for index in manifest.parts_done)
    # an import that is still running does not know its number of lines yet, and has no seed
    deals, chunk = config["deals"] or 0, config["chunk_size"]
    seed = config.get("seed")
    return Run(folder=folder, label=label or folder.name, mode=config.get("mode", "game"),
               seed=-1 if seed is None else int(seed), profile=str(config.get("profile", "-")),
               deals=deals, parts=parts, parts_planned=max(-(-deals // chunk), len(parts)),
               finished=bool(manifest.finished), config=config, acceptance=manifest.acceptance())


def damaged_message(folder: Path, damaged: dict[int, str]) -> str:
    """One line naming the damaged parts of a run and what to do."""
    more = f" (and {len(damaged) - 1} more)" if len(damaged) > 1 else ""
    return (f"{folder}: {next(iter(damaged.values()))}{more}; run `skatsim verify {folder} --repair`"
            " to make the damaged parts again")


def find_damage(run: Run) -> str | None:
    """After a part failed to read: the one line that names the damaged part, found byte by byte."""
    damaged = read_manifest(run.folder).damaged_parts(run.folder, deep=True)
    return damaged_message(run.folder, damaged) if damaged else None


def load_runs(folders) -> list[Run]:
    """Checked runs with labels that tell them apart (the folder name, numbered if two share it)."""
    folders = [Path(f) for f in folders]
    if not folders:
        raise AnalysisError("no run folders given")
    names = [f.name or str(f) for f in folders]
    labels = [n if names.count(n) == 1 else f"{n}#{i + 1}" for i, n in enumerate(names)]
    return [load_run(f, label) for f, label in zip(folders, labels)]


def column_ranges(part: Path, columns) -> dict[str, tuple]:
    """(lowest, highest) value of each of ``columns`` in a part, from its row groups' Parquet statistics; a
    column without statistics in any row group is left out."""
    meta = pq.ParquetFile(part).metadata
    wanted = set(columns)
    found: dict[str, tuple] = {}
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for c in range(group.num_columns):
            column = group.column(c)
            stats = column.statistics
            if column.path_in_schema not in wanted or stats is None or not stats.has_min_max:
                continue
            low, high = found.get(column.path_in_schema, (stats.min, stats.max))
            found[column.path_in_schema] = (min(low, stats.min), max(high, stats.max))
    return found
