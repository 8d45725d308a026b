"""Counting the games of a run into cubes, in memory that grows with the cells, not with the rows.

A :class:`Cube` says what to count: the rows of a frame per distinct value of its ``keys`` (and per
deal group in declare mode, :mod:`analysis.deal_groups`), with sums of some values. Its
:meth:`Cube.lazy` is the polars group-by of a frame; :class:`Tally` counts the same rows batch by
batch outside polars, which is what a pass over a large run does (:mod:`analysis.reading`):

- each row's keys become one to four whole numbers (:meth:`analysis.packing.Packing.codes`);
- a numba kernel gives each distinct key a cell number (an open-addressing hash table; cells are
  numbered in the order they are first seen) and adds the row's count and values into dense arrays
  of cells x deal groups. A group-by of cells x deal groups in polars hashes up to 200 times as
  many groups as there are cells, and on a declare-mode run that is most of the time of the pass;
  here the deal group is an index into the arrays;
- a batch's tally gives its cells with their arrays (:class:`Block`), which the run's tally adds up
  in the order of the batches: the counts are exact, and the sums of floating-point values are added
  in the same order wherever the batches were counted, so a Dask cluster gives the same cubes,
  bit for bit, as this machine.

The tally of a run holds the distinct keys and the arrays: its size is cells x deal groups,
however many rows were counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl
from numba import njit

from .packing import DEAL_GROUP, DEAL_GROUPS, Packing

#: The type polars gives a count of rows (``pl.len()``): the cubes' ``n`` has it either way.
COUNT_TYPE = pl.DataFrame().select(pl.len()).schema["len"]
FREE = -1


@dataclass(frozen=True, eq=False)
class Cube:
    """Rows of a frame counted per distinct value of ``keys`` (whole numbers, booleans, or columns of
    :data:`analysis.packing.RANGES`) and deal group, into ``count``, with ``sums`` of values."""

    keys: tuple[str, ...]
    #: name -> a value of each row, summed per cell (as 64-bit floats; whole-number values come back whole)
    sums: dict[str, pl.Expr] = field(default_factory=dict)
    #: only the rows where every one holds
    where: tuple[pl.Expr, ...] = ()
    #: key columns computed from the frame before counting (name -> expression)
    derived: dict[str, pl.Expr] = field(default_factory=dict)
    count: str = "n"

    def rows(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """The rows counted, with the derived columns."""
        return (frame.filter(*self.where) if self.where else frame).with_columns(**self.derived)

    def columns(self, frame: pl.LazyFrame) -> list[str]:
        """The key columns of a cube of ``frame``: the keys, and the deal group if the frame has one."""
        return [*self.keys, *([DEAL_GROUP] if DEAL_GROUP in frame.collect_schema().names() else [])]

    def lazy(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """The cube of ``frame`` as one polars group-by (lazy): its columns, ``count`` and the sums. The
        keys are packed before the rows are chosen, so cubes of the same keys share the packing."""
        packing = Packing.of(self.rows(frame).collect_schema(), self.columns(frame))
        if any(name in self.derived for name in packing.packed):
            keyed = packing.add_keys(self.rows(frame))
        else:
            keyed = self.rows(packing.add_keys(frame))
        return packing.group_by(keyed, **{self.count: pl.len()},
                                **{name: value.sum() for name, value in self.sums.items()})

    def needs(self) -> set[str]:
        """The frame's columns this cube reads."""
        used = {name for expression in (*self.where, *self.derived.values(), *self.sums.values())
                for name in expression.meta.root_names()}
        return (used | set(self.keys)) - set(self.derived)

    def packing(self, frame: pl.LazyFrame) -> Packing:
        return Packing.of(self.rows(frame).collect_schema(), list(self.keys))

    def empty(self, frame: pl.LazyFrame) -> Tally:
        """A tally of none of the rows of ``frame`` (to add batches' entries to)."""
        groups = DEAL_GROUPS if DEAL_GROUP in frame.collect_schema().names() else 1
        return Tally(len(self.packing(frame).code_names), groups=groups, sums=len(self.sums))

    def tally(self, frame: pl.DataFrame) -> Tally:
        """The counts and sums of the rows of a collected ``frame``."""
        rows = self.rows(frame.lazy())
        packing = self.packing(frame.lazy())
        groups = [pl.col(DEAL_GROUP).cast(pl.Int64)] if DEAL_GROUP in frame.columns else []
        coded = rows.select(*packing.codes(), *groups, *(value.cast(pl.Float64).alias(f"__sum_{name}")
                                                         for name, value in self.sums.items())).collect()
        width = len(packing.code_names)
        tally = self.empty(frame.lazy())
        tally.add(_matrix(coded[:, :width]), groups=coded[DEAL_GROUP].to_numpy() if groups else None,
                  values=_matrix(coded[:, width + len(groups):], np.float64))
        return tally

    def cells(self, tally: Tally, frame: pl.LazyFrame) -> pl.DataFrame:
        """The keys of every cell of a tally of rows of ``frame``, in the order of the cells."""
        packing = self.packing(frame)
        return packing.decoded(pl.DataFrame(tally.cells[:tally.used], schema=packing.code_names, orient="row"))

    def frame(self, tally: Tally, frame: pl.LazyFrame) -> pl.DataFrame:
        """The cube of a tally of rows of ``frame``, as :meth:`lazy` gives it (its rows in another order)."""
        schema = self.rows(frame).collect_schema()
        packing = self.packing(frame)
        entries = tally.entries()
        cells = pl.DataFrame(entries.keys, schema=packing.code_names, orient="row")
        counted = packing.decoded(cells)
        if tally.groups > 1:
            counted = counted.with_columns(pl.Series(DEAL_GROUP, entries.groups, dtype=pl.Int32))
        sums = {name: pl.Series(name, entries.values[:, k]) for k, name in enumerate(self.sums)}
        whole = {name for name, value in self.sums.items() if _whole(schema, value)}
        return counted.with_columns(pl.Series(self.count, entries.counts).cast(COUNT_TYPE),
                                    *(s.cast(pl.Int64) if name in whole else s for name, s in sums.items()))


def _whole(schema, value: pl.Expr) -> bool:
    """Whether ``value`` over a frame of ``schema`` is a whole number (its sum comes back as Int64)."""
    dtype = pl.LazyFrame(schema=schema).select(value).collect_schema().dtypes()[0]
    return dtype.is_integer() or dtype == pl.Boolean


def _matrix(frame: pl.DataFrame, dtype=np.int64) -> np.ndarray:
    """The columns of ``frame`` as a (rows, columns) array in column order, which polars writes a column at a
    time, several times faster than in row order (columns may be none)."""
    if not frame.width:
        return np.zeros((frame.height, 0), dtype)
    return frame.to_numpy(order="fortran").astype(dtype, copy=False)


@dataclass(frozen=True)
class Entries:
    """The non-empty entries of a :class:`Tally`: each one's keys, deal group, count and sums."""

    keys: np.ndarray      # (entries, width) int64
    groups: np.ndarray    # (entries,) int64
    counts: np.ndarray    # (entries,) int64
    values: np.ndarray    # (entries, sums) float64


@dataclass(frozen=True)
class Block:
    """Every cell of a :class:`Tally` with its counts and sums in every deal group: what a batch's tally
    gives the run's."""

    keys: np.ndarray      # (cells, width) int64
    counts: np.ndarray    # (cells, groups) int64
    values: np.ndarray    # (cells, groups, sums) float64


class Tally:
    """Counts and sums per cell (a distinct key of ``width`` whole numbers) and deal group, of the rows
    added so far; cells are numbered in the order they are first seen."""

    def __init__(self, width: int, *, groups: int = 1, sums: int = 0):
        self.width, self.groups, self.sums = width, groups, sums
        self.cells = np.zeros((0, width), np.int64)
        self.used = 0
        self.slots = np.full(16, FREE, np.int64)
        self.counts = np.zeros(0, np.int64)
        self.values = np.zeros((0, sums), np.float64)

    def add(self, keys: np.ndarray, *, groups: np.ndarray | None = None, counts: np.ndarray | None = None,
            values: np.ndarray | None = None) -> None:
        """Add rows: their keys (rows, width), deal groups, counts (one each by default) and values."""
        cells = self._cells_of(keys)
        none = np.zeros(0, np.int64)
        _add(cells, none if groups is None else groups.astype(np.int64, copy=False),
             none if counts is None else counts.astype(np.int64, copy=False),
             np.zeros((len(keys), 0)) if values is None else values, self.counts, self.values, self.groups)

    def add_block(self, block: Block) -> None:
        """Add another tally's cells (a batch's, to the run's): each sum of a cell and deal group is added
        once, in the order of the blocks."""
        cells = self._cells_of(block.keys)
        room = len(self.cells)
        self.counts.reshape(room, self.groups)[cells] += block.counts
        self.values.reshape(room, self.groups, self.sums)[cells] += block.values

    def block(self) -> Block:
        used = self.used * self.groups
        return Block(self.cells[:self.used], self.counts[:used].reshape(self.used, self.groups),
                     self.values[:used].reshape(self.used, self.groups, self.sums))

    def entries(self) -> Entries:
        at = np.flatnonzero(self.counts[:self.used * self.groups])
        return Entries(self.cells[at // self.groups], at % self.groups, self.counts[at], self.values[at])

    def cell_sums(self) -> np.ndarray:
        """The sums of every cell: (cells, deal groups, sums)."""
        return self.block().values

    def _cells_of(self, keys: np.ndarray) -> np.ndarray:
        """Each key's cell, new keys becoming new cells; then room in the arrays for every cell."""
        if not (keys.flags.f_contiguous and keys.dtype == np.int64):  # a batch's keys are in column order
            keys = np.ascontiguousarray(keys, dtype=np.int64)
        cells = np.empty(len(keys), np.int64)
        row = 0
        while True:
            self._room(self.used + 1)
            row, self.used = _cells_of(keys, self.slots, self.cells, self.used, cells, row)
            if row == len(keys):
                self.counts = _grown(self.counts, len(self.cells) * self.groups)
                self.values = _grown(self.values, len(self.cells) * self.groups)
                return cells
            self._room(len(self.cells) + 1)  # full: twice the room

    def _room(self, cells: int) -> None:
        """Room for ``cells`` cells in the key table, and a hash table at most half full."""
        if cells <= len(self.cells) and 2 * cells <= len(self.slots):
            return
        size = max(16, 2 * cells, len(self.cells))
        self.cells = _grown(self.cells, size)
        self.slots = np.full(1 << (2 * size - 1).bit_length(), FREE, np.int64)
        _rehash(self.cells, self.used, self.slots)


def _grown(array: np.ndarray, rows: int) -> np.ndarray:
    if rows <= len(array):
        return array
    grown = np.zeros((rows, *array.shape[1:]), array.dtype)
    grown[:len(array)] = array
    return grown


@njit(cache=True, nogil=True)
def _slot(keys, row, mask):
    """Where a key's search starts in a table of ``mask + 1`` slots (a multiplicative hash of its numbers)."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for column in range(keys.shape[1]):
        h = (h ^ np.uint64(keys[row, column])) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return np.int64(h >> np.uint64(1)) & mask


@njit(cache=True, nogil=True)
def _same(keys, row, cells, cell):
    for column in range(keys.shape[1]):
        if keys[row, column] != cells[cell, column]:
            return False
    return True


@njit(cache=True, nogil=True)
def _cells_of(keys, slots, cells, used, found, start):
    """From row ``start`` on, each row's cell in ``found``; a key not seen before becomes cell ``used``.
    Stops early when ``cells`` is full or ``slots`` half full. Returns (the row reached, cells used)."""
    mask = np.int64(len(slots) - 1)
    for row in range(start, keys.shape[0]):
        slot = _slot(keys, row, mask)
        while slots[slot] != FREE and not _same(keys, row, cells, slots[slot]):
            slot = (slot + np.int64(1)) & mask
        if slots[slot] == FREE:
            if used == cells.shape[0] or 2 * (used + 1) > len(slots):
                return row, used
            slots[slot] = used
            cells[used] = keys[row]
            used += 1
        found[row] = slots[slot]
    return keys.shape[0], used


@njit(cache=True, nogil=True)
def _rehash(cells, used, slots):
    mask = np.int64(len(slots) - 1)
    for cell in range(used):
        slot = _slot(cells, cell, mask)
        while slots[slot] != FREE:
            slot = (slot + np.int64(1)) & mask
        slots[slot] = cell


@njit(cache=True, nogil=True)
def _add(cells, groups, counts, values, into_counts, into_values, width):
    """Add each row's count (1 when ``counts`` is empty) and values at (its cell, its deal group)."""
    for row in range(len(cells)):
        at = cells[row] * width + (groups[row] if len(groups) else 0)
        into_counts[at] += counts[row] if len(counts) else 1
        for k in range(values.shape[1]):
            into_values[at, k] += values[row, k]
