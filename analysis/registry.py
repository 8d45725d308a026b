"""The registry of analysis tables: each table is one function and one :class:`Table` registration.

A registration names the table and says what it is computed from (its :class:`Source`), which
runs it applies to, its columns when it has nothing to stack, its plots, and its parts of the
report page and of summary.md. :func:`analysis.tables.run_tables` computes every registered
table of a run, the report draws and shows them, and the summary lists them, each looking its
tables up by name. The built-in tables are registered in :mod:`analysis.catalogue`;
docs/adding-a-table.md shows how to add one.

Order: tables come out of :func:`analysis.tables.all_tables`, and their summary lines follow,
in the order they were registered; the report shows the sections in the order they were
registered, and within each section its tables' parts in the order the tables were.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path

import polars as pl

from .binning import Grid
from .counting import Cube
from .runs import Run


@dataclass(frozen=True, eq=False)
class Source:
    """What tables are computed from.

    A source with a ``cube`` (:class:`analysis.counting.Cube`) counts the run's frame of declared
    games (:func:`analysis.games.games`) cell by cell, and a source with a ``query`` is one lazy
    aggregate per run, ``query(run, frame)``, built from the run and its frame of declared games.
    Cubes, and queries whose columns add up (``sums`` names the summed columns; the others are
    the keys), are computed in one pass over the run's parts, batch by batch, in bounded memory and
    on a Dask cluster when the report is made there (a game-mode run on this machine: in one
    polars query; :mod:`analysis.reading`); a query without
    ``sums`` is collected over the whole run at once, after that pass. Each table of the source is
    ``make(collected)``. The three sources with neither are :data:`RUN`, :data:`EVALUATOR_CUBES`
    and :data:`RUNS`.
    """

    name: str
    query: Callable[[Run, pl.LazyFrame], pl.LazyFrame] | None = None
    _: KW_ONLY
    sums: tuple[str, ...] = ()
    cube: Cube | None = None

    @property
    def counted(self) -> bool:
        """Whether the pass over the parts computes it."""
        return self.cube is not None or (self.query is not None and bool(self.sums))


#: The table reads the run itself: ``make(run)``.
RUN = Source("the run")
#: One table per evaluator, stacked under a leading ``evaluator`` column: ``make(cube, evaluator)``
#: with that evaluator's collected cube (:func:`analysis.binning.evaluator_cube`) and :class:`Evaluator`.
EVALUATOR_CUBES = Source("each evaluator's cube")
#: One table of all the runs together, there when there are two runs or more:
#: ``make(runs)`` returns the table and notes on the runs it could not use.
RUNS = Source("all runs together")


@dataclass(frozen=True)
class Evaluator:
    """What a table of :data:`EVALUATOR_CUBES` knows of its evaluator in one run."""

    name: str
    grid: Grid
    _: KW_ONLY
    min_rows: int
    #: the thresholds the evaluator came with when the run was made, by game name (from the manifest)
    shipped: dict[str, float]
    #: a run without deal groups (game mode): its games counted per deal group too, for the paired
    #: intervals (:func:`analysis.pairs.pair_count`); None where the cube has the deal groups
    paired: pl.DataFrame | None = None


@dataclass
class Report:
    """What plots, the report page and the summary are made from."""

    runs: list[Run]
    tables: dict[str, pl.DataFrame]
    _: KW_ONLY
    notes: list[str]
    min_rows: int
    #: table name -> the HTML of its plots (filled once the plots are drawn)
    images: dict[str, str] = field(default_factory=dict)


#: ``plots(report, folder)`` yields (caption, file) per plot, a file of None being a plot without data;
#: or (caption, drawing), a function of no arguments that draws the plot and returns its file, so that
#: the report's two processes share the drawing (:mod:`analysis.sharing`).
Plots = Callable[[Report, Path], Iterable[tuple[str, Path | None | Callable[[], Path | None]]]]
#: A part of the report or of the summary: its lines (HTML or Markdown); none to leave it out.
Part = Callable[[Report], list[str]]


@dataclass(frozen=True)
class Table:
    """One analysis table and everything the report does with it."""

    name: str
    make: Callable[..., pl.DataFrame]
    source: Source
    _: KW_ONLY
    #: the run modes it applies to ("game", "declare", "match")
    modes: tuple[str, ...] = ("game", "declare")
    #: only for runs made with ``--open-hand``
    open_hand: bool = False
    #: its columns, for an :data:`EVALUATOR_CUBES` table whose run has no evaluator
    schema: dict | None = None
    #: applied to the run's whole table (for :data:`EVALUATOR_CUBES`: all evaluators stacked)
    finish: Callable[[pl.DataFrame], pl.DataFrame] | None = None
    plots: Plots | None = None
    #: the report section it appears in, and its part there
    section: str | None = None
    html: Part | None = None
    #: its lines of summary.md
    summary: Part | None = None

    def applies_to(self, run: Run) -> bool:
        return run.mode in self.modes and (run.open_hand or not self.open_hand)


@dataclass(frozen=True)
class Section:
    """A section of the report page: its ``intro`` (a heading and text), shown when one of its
    tables' parts shows something."""

    name: str
    intro: Part


TABLES: dict[str, Table] = {}
SECTIONS: dict[str, Section] = {}


def register(table: Table) -> Table:
    """Add ``table`` to the registry (after those registered before it)."""
    if table.name in TABLES:
        raise ValueError(f"a table named {table.name!r} is registered already")
    if table.section is not None and table.section not in SECTIONS:
        raise ValueError(f"table {table.name!r}: no report section {table.section!r} is registered")
    TABLES[table.name] = table
    return table


def register_section(section: Section) -> Section:
    """Add a report section (after those registered before it)."""
    if section.name in SECTIONS:
        raise ValueError(f"a report section named {section.name!r} is registered already")
    SECTIONS[section.name] = section
    return section


def tables() -> list[Table]:
    """Every registered table, in the order of registration."""
    return list(TABLES.values())


def sections() -> list[Section]:
    return list(SECTIONS.values())


def in_section(name: str) -> list[Table]:
    return [table for table in TABLES.values() if table.section == name]
