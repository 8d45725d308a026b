"""One pass over a run's parts, batch by batch: the aggregates of a report, in bounded memory, on this
machine or on a Dask cluster.

A run is read in batches of whole parts of about :data:`BATCH_ROWS` rows together (a larger part in
windows of its row groups). Each batch is read once (:func:`count_batch`): its frame of declared
games (:func:`analysis.games.games`) is collected, each :class:`analysis.counting.Cube` counts it,
and each query whose columns add up (a count per key, with the names of its summed columns) is
collected on the batch. The batches' results are added up in the order of the batches
(:class:`Totals`): the counts are exact, and so are the queries' sums of whole numbers; the sums of
floating-point values are added in the same order wherever a batch was counted. Memory is what a
batch or two take, plus the totals, which grow with the cells of the cubes, not with the rows.

A run without deal groups (game mode) read on this machine is one polars query over all its parts
instead (:func:`_in_one_query`): its cubes are small, and the batches would only add time.

Where the batches are counted (:class:`Reading`): on this machine, two batches at a time on two
threads (polars and the counting kernels leave the interpreter's lock while they work), or with
``backend="dask"`` on the workers of a Dask cluster (the one at ``scheduler``, or a new local one of
``jobs`` workers), which read the parts themselves: the run's folder must be a path they share.
Either way the results are the same, bit for bit.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import KW_ONLY, dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import Callable, Iterator

import polars as pl
import pyarrow.parquet as pq

from sim.runs.cluster import dask_client

from .counting import Block, Cube, Tally
from .deal_groups import DEAL_GROUP
from .games import games
from .resources import free_cores, release_memory
from .runs import AnalysisError, Run

#: Rows of a batch: a declare-mode part of 100,000 deals with every variant (4.2 million rows) is
#: read in five windows, ten game-mode parts of as many deals are one batch. Batches of 1 to 5
#: million rows took the same time (2026-12-05); the peak memory grows with them.
BATCH_ROWS = 1_000_000
#: A query whose columns add up over the batches: ``query(run, frame)`` (lazy) and the names of its
#: summed columns; the others are its keys.
Query = tuple[Callable[[Run, pl.LazyFrame], pl.LazyFrame], tuple[str, ...]]
BACKENDS = ("local", "dask")


@dataclass(frozen=True)
class Batch:
    """Parts read together, or a window (first row, rows) of one part."""

    parts: tuple[Path, ...]
    rows: int
    window: tuple[int, int] | None = None
    #: the parts whose last rows it holds
    ends: int = 0


def batches(run: Run, rows: int = BATCH_ROWS) -> list[Batch]:
    """The run's parts cut into batches of about ``rows`` rows, in order: small parts together, a
    larger part in windows of whole row groups (each read alone)."""
    found: list[Batch] = []
    together: list[tuple[Path, int]] = []
    for part in run.parts:
        metadata = pq.read_metadata(part)
        if together and sum(n for _, n in together) + metadata.num_rows > rows:
            found.append(_whole_parts(together))
            together = []
        if metadata.num_rows > rows:
            found += _windows(part, [metadata.row_group(k).num_rows for k in range(metadata.num_row_groups)], rows)
        else:
            together.append((part, metadata.num_rows))
    if together:
        found.append(_whole_parts(together))
    return found


def _windows(part: Path, groups: list[int], rows: int) -> list[Batch]:
    """A part's row groups taken together into windows of at most ``rows`` rows (at least one group each)."""
    found, first, size = [], 0, 0
    for group in groups:
        if size and size + group > rows:
            found.append(Batch((part,), size, (first, size)))
            first, size = first + size, 0
        size += group
    found.append(Batch((part,), size, (first, size), ends=1))
    return found


def _whole_parts(together: list[tuple[Path, int]]) -> Batch:
    return Batch(tuple(part for part, _ in together), sum(size for _, size in together), ends=len(together))


@dataclass(frozen=True)
class Plan:
    """What a pass over a run computes: the cubes of its frame of declared games (with the ``evaluators``'
    scores), and the queries that add up."""

    run: Run
    evaluators: tuple[str, ...]
    cubes: tuple[Cube, ...]
    queries: tuple[Query, ...] = ()

    def of(self, batch: Batch) -> Run:
        return replace(self.run, parts=batch.parts, window=batch.window)


@dataclass
class Counted:
    """What one batch gives: each cube's cells (:class:`analysis.counting.Block`) and each query's result."""

    blocks: list[Block]
    queried: list[pl.DataFrame]
    rows: int
    parts: int


def count_batch(plan: Plan, batch: Batch) -> Counted:
    """Read one batch and count it (on this machine or on a Dask worker)."""
    run = plan.of(batch)
    frame = games(run, list(plan.evaluators))
    names = frame.collect_schema().names()
    needed = set().union(*(cube.needs() for cube in plan.cubes)) | {DEAL_GROUP}
    wanted = [name for name in names if name in needed] if plan.cubes else names[:1]
    collected, *queried = pl.collect_all([frame.select(wanted), *(query(run, frame) for query, _ in plan.queries)])
    blocks = [cube.tally(collected).block() for cube in plan.cubes]
    return Counted(blocks, queried, rows=batch.rows, parts=batch.ends)


class Totals:
    """The batches' results added up in order."""

    def __init__(self, plan: Plan):
        frame = games(plan.run, list(plan.evaluators))
        self.plan, self.frame = plan, frame
        self.tallies: list[Tally] = [cube.empty(frame) for cube in plan.cubes]
        self.queried: list[pl.DataFrame | None] = [None] * len(plan.queries)

    def add(self, counted: Counted) -> None:
        for tally, block in zip(self.tallies, counted.blocks):
            tally.add_block(block)
        self.queried = [summed(old, new, sums) for old, new, (_, sums) in
                        zip(self.queried, counted.queried, self.plan.queries)]

    def cubes(self) -> list[pl.DataFrame]:
        return [cube.frame(tally, self.frame) for cube, tally in zip(self.plan.cubes, self.tallies)]


def summed(old: pl.DataFrame | None, new: pl.DataFrame, sums: tuple[str, ...]) -> pl.DataFrame:
    """Two results of a query added up: its ``sums`` per distinct value of its other columns (the
    order of the first result, then the keys new in the second), with the types of the first."""
    if old is None:
        return new
    keys = [name for name in old.columns if name not in sums]
    both = pl.concat([old, new.select(old.columns)], how="vertical_relaxed")
    added = (both.group_by(keys, maintain_order=True).agg(pl.col(*sums).sum()) if keys
             else both.select(pl.col(*sums).sum()))
    return added.select(old.columns).cast(old.schema)


@dataclass
class Reading:
    """Where the batches of a pass are counted, and whom the pass tells of its progress.

    ``progress`` is called after each batch with (parts read, parts in all, rows read, rows in all,
    rows per second), counted over every pass made with this reading (so over every run of a
    report, whose parts :meth:`expect` announces). A Dask cluster is started at the first pass
    and closed with :meth:`close`. ``batch_rows``: the rows of a batch (:func:`batches`).
    """

    backend: str = "local"
    _: KW_ONLY
    scheduler: str | None = None
    jobs: int | None = None
    progress: Callable | None = None
    batch_rows: int = BATCH_ROWS
    parts: list[int] = field(default_factory=lambda: [0, 0])
    rows: list[int] = field(default_factory=lambda: [0, 0])
    _client: object = None
    _closing: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)

    def __post_init__(self):
        if self.backend not in BACKENDS:
            raise AnalysisError(f"unknown backend {self.backend!r}: local or dask")
        if self.scheduler:
            self.backend = "dask"

    def expect(self, runs: list[Run]) -> None:
        """The runs to be read: their parts and rows are the totals the progress counts towards."""
        self.parts[1] += sum(len(run.parts) for run in runs)
        self.rows[1] += sum(pq.read_metadata(part).num_rows for run in runs for part in run.parts)

    def counts(self, plan: Plan, found: list[Batch]) -> Iterator[Counted]:
        """Each batch's result, in the order of ``found``, and the progress told after each."""
        began = time.perf_counter()
        rows = 0
        counted = self._here(plan, found) if self.backend == "local" else self._on_cluster(plan, found)
        for result in counted:
            yield result
            rows += result.rows
            self.tell(result.parts, result.rows, rows / max(time.perf_counter() - began, 1e-9))

    def tell(self, parts: int, rows: int, rate: float) -> None:
        """``parts`` and ``rows`` more were read, at ``rate`` rows a second."""
        self.parts[0] += parts
        self.rows[0] += rows
        if self.progress is not None:
            self.progress(self.parts[0], self.parts[1], self.rows[0], self.rows[1], rate)

    def _here(self, plan: Plan, found: list[Batch]) -> Iterator[Counted]:
        """Two batches at a time on two threads, in order."""
        pool = ThreadPoolExecutor(2)
        waiting = iter(found)
        running = deque(pool.submit(count_batch, plan, batch) for batch in islice(waiting, 2))
        try:
            while running:
                result = running.popleft().result()
                running.extend(pool.submit(count_batch, plan, batch) for batch in islice(waiting, 1))
                yield result
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _on_cluster(self, plan: Plan, found: list[Batch]) -> Iterator[Counted]:
        """The batches on the cluster's workers, two for each worker in flight; their results in order."""
        from dask.distributed import as_completed

        client = self._cluster()
        window = 2 * max(1, len(client.scheduler_info().get("workers", {})))
        waiting = iter(enumerate(found))
        futures = as_completed()
        index = {}

        def submit(count: int) -> None:
            for number, batch in islice(waiting, count):
                future = client.submit(count_batch, plan, batch, pure=False)
                index[future.key] = number
                futures.add(future)

        submit(window)
        done, next_number = {}, 0
        for future in futures:
            done[index.pop(future.key)] = future.result()
            future.release()
            submit(1)
            while next_number in done:
                yield done.pop(next_number)
                next_number += 1

    def _cluster(self):
        if self._client is None:
            try:
                self._client = self._closing.enter_context(dask_client(self.jobs or free_cores(), self.scheduler))
            except (OSError, TimeoutError) as error:
                where = f"the Dask scheduler at {self.scheduler}" if self.scheduler else "a local Dask cluster"
                raise AnalysisError(f"cannot reach {where}: {error}") from None
        return self._client

    def close(self) -> None:
        self._closing.close()


def read_run(run: Run, evaluators: list[str], cubes: list[Cube], queries: list[Query] = (), *,
             reading: Reading | None = None) -> tuple[list[pl.DataFrame], list[pl.DataFrame]]:
    """The ``cubes`` of the run's frame of declared games (holding the ``evaluators``' scores) and the
    results of the ``queries``, in one pass over its parts."""
    plan = Plan(run, tuple(evaluators), tuple(cubes), tuple(queries))
    reading = reading or Reading()
    if reading.backend == "local" and DEAL_GROUP not in games(run, list(evaluators)).collect_schema().names():
        return _in_one_query(plan, reading)
    totals = Totals(plan)
    for counted in reading.counts(plan, batches(run, reading.batch_rows)):
        totals.add(counted)
        release_memory()  # what the batch's reading freed
    cubes = totals.cubes()
    release_memory()
    return cubes, list(totals.queried)


def _in_one_query(plan: Plan, reading: Reading) -> tuple[list[pl.DataFrame], list[pl.DataFrame]]:
    """A run without deal groups (game mode) on this machine: one polars query over all its parts.
    Its cubes are small (no deal groups), polars streams the parts through them, and the batches and
    their kernels would only add their own time (ten million game-mode deals: 11.2 processor
    seconds for the report in batches, 8.6 in one query, 2026-12-05)."""
    began = time.perf_counter()
    frame = games(plan.run, list(plan.evaluators))
    results = pl.collect_all([*(cube.lazy(frame) for cube in plan.cubes),
                              *(query(plan.run, frame) for query, _ in plan.queries)])
    rows = sum(pq.read_metadata(part).num_rows for part in plan.run.parts)
    reading.tell(len(plan.run.parts), rows, rows / max(time.perf_counter() - began, 1e-9))
    return results[:len(plan.cubes)], results[len(plan.cubes):]


def count_run(run: Run, evaluators: list[str], cubes: list[Cube], *,
              reading: Reading | None = None) -> list[pl.DataFrame]:
    """The ``cubes`` of the run's frame of declared games, in one pass over its parts."""
    return read_run(run, evaluators, cubes, reading=reading)[0]
