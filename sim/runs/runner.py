"""The Monte Carlo runner: a run of deals, cut into parts, played on every core, written to Parquet.

The runner knows nothing of who plays. It is given a picklable function that
plays deals, ``play(seed, start, count) -> columns`` (a dict of numpy arrays in
the columns of :mod:`sim.runs.schema`), and the description of what it plays, which
goes into the manifest. Running the same run again skips the parts that exist;
the finished run is the same, deal for deal, as one that was never interrupted,
and the same for any number of jobs, since deal ``i`` depends on ``(seed, i)``
alone. A folder is written by one run at a time (:mod:`sim.runs.lock`), and a run that stops,
however it stops short of being killed, leaves no temporary file in it.
"""

from __future__ import annotations

import contextlib
import os
import platform
import signal
import sys
import time
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from sim.rules.cards import shown
from sim.runs import RunError
from sim.runs.atomic import make_folder
from sim.runs.cluster import dask_client
from sim.runs.compiling import a_core_is_free, check_kernel_cache, warm_up
from sim.runs.folder import (
    MANIFEST,
    MAX_DEALS,
    MAX_PARTS,
    Manifest,
    is_whole,
    older_run,
    read_manifest,
    remove_stale_temporaries,
    write_part,
)
from sim.runs.lock import LOCK, holding
from sim.runs.schema import MODES, SCHEMA_VERSION, SIMULATION

#: Plays deals ``start .. start + count - 1`` of ``seed``; returns the part's columns.
PlayDeals = Callable[[int, int, int], dict]
#: What a play adds to its columns when it turned down candidate deals (a conditional run dealt by
#: rejection, :mod:`sim.rules.dealing`): the candidates it tried. The part's facts in the manifest
#: record them (``tries``), not its rows.
TRIES = "deal_tries"
#: A part written: (part index, deals or lines in it, seconds it took, its facts for the manifest).
WrittenPart = tuple[int, int, float, dict]


@dataclass(frozen=True)
class RunConfig:
    """What makes two runs the same run: the deals, the mode, how they are cut, who plays them."""

    deals: int
    seed: int
    description: dict        # what plays the deals, as the manifest records it
    _: KW_ONLY
    mode: str = "game"
    chunk_size: int = 100_000

    def __post_init__(self):
        check_config(self.deals, seed=self.seed, mode=self.mode, chunk_size=self.chunk_size)

    def parts(self) -> list[tuple[int, int, int]]:
        """(part index, first deal, number of deals) of every part."""
        return [(i, start, min(self.chunk_size, self.deals - start))
                for i, start in enumerate(range(0, self.deals, self.chunk_size))]

    def identity(self) -> dict:
        """The manifest's config: the run's settings and the description of its players."""
        return {**self.description, "deals": self.deals, "seed": self.seed, "mode": self.mode,
                "chunk_size": self.chunk_size, "schema_version": SCHEMA_VERSION}


def check_config(deals: int, *, seed: int, mode: str, chunk_size: int) -> None:
    """RunError naming the first of a run's settings that is out of bounds."""
    if not is_whole(deals) or not 0 < deals <= MAX_DEALS:
        raise RunError(f"the number of deals must be a whole number from 1 to {MAX_DEALS:,}, not {deals!r}")
    if not is_whole(seed) or not 0 <= seed < 2**64:
        raise RunError(f"the seed must be a whole number from 0 to 2**64-1, not {seed!r}")
    if mode not in MODES:
        raise RunError(f"unknown mode {mode!r} (one of {', '.join(MODES)})")
    if not is_whole(chunk_size) or chunk_size <= 0:
        raise RunError(f"the chunk size must be a positive whole number, not {chunk_size!r}")
    if -(-deals // chunk_size) > MAX_PARTS:
        raise RunError(f"{deals:,} deals in parts of {chunk_size:,} make more than {MAX_PARTS:,} parts;"
                       " choose a larger --chunk-size")


def versions() -> dict:
    """What a manifest records of the versions: skatsim's, Python's and its libraries', read from the
    installed packages, so that a run does not import polars (0.15 s) for its version alone."""
    from importlib.metadata import version

    from sim import __version__

    return {"skatsim": __version__, "python": platform.python_version(),
            **{name: version(name) for name in ("numpy", "numba", "pyarrow", "polars")}}


def open_run(folder: Path, identity: dict, *, notice=None, unknown_yet: tuple[str, ...] = (),
             again: str = "playing it again") -> Manifest:
    """The manifest of ``folder``: a new one for an empty folder, the old one to resume the same run
    (its config equal to ``identity`` but for the ``unknown_yet`` settings, null in a new manifest).

    Resuming checks each finished part cheaply (present, size, Parquet footer); a part that
    fails is dropped from the manifest, so that it is made again (the same deals or lines give
    the same data), and ``notice`` is told in one line. A run asked for with more deals than the
    folder's, and otherwise the same, grows (:func:`grow`).
    """
    make_folder(folder)
    if not os.access(folder, os.W_OK):
        raise RunError(f"cannot write to {folder}")
    if (folder / MANIFEST).exists():
        manifest = read_manifest(folder)
        _resume_the_same_run(folder, manifest, identity, unknown_yet=unknown_yet, notice=notice)
        damaged = manifest.damaged_parts(folder)
        for problem in damaged.values():
            if notice is not None:
                notice(f"{folder}: {problem}; {again}")
        if damaged:
            manifest.drop_parts(damaged)
            manifest.save(folder)
        return manifest
    if any(p.name not in (".gitkeep", LOCK) for p in folder.iterdir()):
        raise RunError(f"{folder} is not empty and holds no run; choose an empty or new --out folder")
    manifest = Manifest({**identity, **dict.fromkeys(unknown_yet)}, versions(),
                        created=time.strftime("%Y-%m-%dT%H:%M:%S"))
    manifest.save(folder)
    return manifest


def _resume_the_same_run(folder: Path, manifest: Manifest, identity: dict, *, unknown_yet, notice) -> None:
    """RunError unless ``manifest`` is of the run ``identity`` (but for the ``unknown_yet`` settings) and
    of this schema version; a run asked for with more deals grows (:func:`grow`)."""
    old = {k: v for k, v in manifest.config.items() if k not in unknown_yet}
    older = older_run(folder, old, "resume or grow")
    if older and old.get("source") == identity.get("source"):
        raise RunError(older)
    if old != identity and _same_but_deals(old, identity):
        grow(folder, manifest, identity["deals"], notice=notice)
    elif old != identity:
        same_deals = {**old, "deals": identity["deals"]} if "deals" in identity else old  # deals may grow
        raise RunError(f"{folder} holds a different run ({_difference(same_deals, identity)});"
                       " choose another --out folder")


def _same_but_deals(old: dict, new: dict) -> bool:
    """Whether ``new`` is the run ``old`` with more deals (or fewer: refused with its own message)."""
    if not (is_whole(old.get("deals")) and is_whole(new.get("deals"))):
        return False
    return {**old, "deals": new["deals"]} == new


def grow(folder: Path, manifest: Manifest, deals: int, *, notice=None) -> None:
    """Extend the run in ``folder`` to ``deals`` deals: deal ``i`` is a pure function of the seed and
    ``i``, so the finished parts stay as they are; a last part cut short by the old number of deals
    is played again whole. Fewer deals than the run holds are refused."""
    config = manifest.config
    before, chunk = config["deals"], config["chunk_size"]
    if deals < before:
        raise RunError(f"{folder} holds a run of {before:,} deals; a run grows but never shrinks: ask for"
                       f" {before:,} deals or more, or choose another --out folder")
    if before % chunk:
        manifest.drop_part(before // chunk)   # its deals now run to the full chunk
    config["deals"] = deals
    manifest.finished = None
    manifest.save(folder)
    if notice is not None:
        notice(f"{folder}: growing the run from {before:,} to {deals:,} deals")


#: Settings whose difference is said in words, not shown: archive files, and the models' weights.
OTHER_CONTENTS = {"sources": "other archive files or contents",
                  "card_play_models": "card players reading other model weights than the run recorded, or none"
                                      " recorded: another model file, another skatsim's shipped model, or a run"
                                      " made before skatsim recorded them"}


def _difference(old: dict, new: dict, prefix: str = "") -> str:
    """The first few settings that differ, as dotted names: ``seed 7 there, 9 asked``; a
    simulation against an import says only that."""
    source_there, source_asked = old.get("source", SIMULATION), new.get("source", SIMULATION)
    if source_there != source_asked:
        return f"source {source_there} there, {source_asked} asked"
    found = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a != b and key == "plugin_files":
            found += _other_files(a if isinstance(a, dict) else {}, b if isinstance(b, dict) else {})
        elif a != b and key in OTHER_CONTENTS:
            found.append(OTHER_CONTENTS[key])
        elif isinstance(a, dict) and isinstance(b, dict):
            inner = _difference(a, b, f"{prefix}{key}.")
            found += [inner] if inner else []
        elif a != b:
            found.append(f"{prefix}{key} {shown(a)} there, {shown(b)} asked")
    return ", ".join(found[:3])


def _other_files(there: dict, asked: dict) -> list[str]:
    """Each file of Python whose contents differ between the run ``there`` and the one ``asked`` for (their
    ``plugin_files``, :func:`sim.runs.players.plugin_files`), named with how."""
    found = []
    for path in sorted(set(there) | set(asked)):
        if path in there and path in asked and there[path] != asked[path]:
            found.append(f"{path} is another version than the run was made with")
        elif path in asked and path not in there:
            found.append(f"no version of {path} recorded by the run, made without it or by an older skatsim")
        elif path in there and path not in asked:
            found.append(f"{path} imported by the run, not now")
    return found


def pending_parts(config: RunConfig, manifest: Manifest) -> list[tuple[int, int, int]]:
    done = set(manifest.parts_done)
    return [p for p in config.parts() if p[0] not in done]


@dataclass(frozen=True)
class PartWriter:
    """Plays the deals of a part of the run ``config`` with ``play`` and writes them into ``folder``, for
    the command that holds it as ``holder`` (:mod:`sim.runs.lock`): plain data, so that it pickles to
    the workers, where it runs."""

    play: PlayDeals
    config: RunConfig
    folder: str
    holder: str | None = None

    def __call__(self, part: tuple[int, int, int]) -> WrittenPart:
        """Play and write one part; returns (index, deals, seconds, the part's facts)."""
        index, start, count = part
        began = time.perf_counter()
        columns = self.play(self.config.seed, start, count)
        tries = columns.pop(TRIES, None)
        facts = write_part(Path(self.folder), index, columns, mode=self.config.mode, holder=self.holder)
        if tries is not None:
            facts["tries"] = int(tries)
        return index, count, time.perf_counter() - began, facts


def _leave_interrupts_to_the_main_process() -> None:
    """A forked worker ignores Ctrl-C: the main process stops the pool, and the user sees one line,
    not a traceback from every worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _interrupts_ignored() -> Iterator[None]:
    """Within the block Ctrl-C is ignored (in the main thread, where signals are handled)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def iterate_parts(write: PartWriter, parts, jobs: int) -> Iterator[WrittenPart]:
    """Results of the parts as they finish, on ``jobs`` local processes.

    On Linux the workers are forked from this process once it has loaded the kernels
    (:func:`sim.runs.compiling.warm_up`), so a worker starts in milliseconds with everything imported
    and loaded; a worker started afresh (joblib's, elsewhere) spends about two processor seconds
    importing the toolkit and loading numba's cache before its first deal.
    """
    if jobs == 1:
        yield from map(write, parts)
        return
    if sys.platform == "linux":
        import multiprocessing

        pool = multiprocessing.get_context("fork").Pool(jobs, _leave_interrupts_to_the_main_process)
        try:
            yield from pool.imap_unordered(write, parts)
        finally:
            with _interrupts_ignored():   # a second Ctrl-C must not cut the workers' stopping short
                pool.terminate()
                pool.join()
        return
    from joblib import Parallel, delayed

    run = Parallel(n_jobs=jobs, return_as="generator_unordered")
    yield from run(delayed(write)(part) for part in parts)


def iterate_parts_dask(write: PartWriter, parts, *, jobs: int, scheduler: str | None) -> Iterator[WrittenPart]:
    """Results of the parts as they finish on a Dask cluster (a new local one without ``scheduler``).

    The workers write the parts themselves, so the run's folder must be a path they share. When the
    run stops early the parts not begun are cancelled; a worker of a cluster that goes on writing a
    part finds the run's lock gone and keeps nothing (:func:`sim.runs.folder.write_part`).
    """
    from dask.distributed import as_completed

    with dask_client(jobs, scheduler) as client:
        futures = [client.submit(write, part, pure=False) for part in parts]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:
            pending = [future for future in futures if not future.done()]
            if pending:
                client.cancel(pending)


BACKENDS = ("local", "dask")


def run(play: PlayDeals, config: RunConfig, out, *, jobs: int | None = None, backend: str = "local",
        scheduler: str | None = None, progress=None, notice=None, warning: str | None = None) -> Path:
    """Play the run ``config`` with ``play`` into the folder ``out``; returns the folder.

    A folder holding the same run is resumed (missing or damaged parts are played
    again). ``progress`` is called with (deals done, deals in all, deals per second)
    after each part; ``notice`` with a line about each damaged part found, and with ``warning`` (a
    line about the players) once the folder is found to take the run, so that a run refused is told
    in its one line alone. A folder another command writes is refused (RunError naming it); a run that
    fails or is interrupted stops its workers and removes its temporary files before it returns.
    """
    if backend not in BACKENDS:
        raise RunError(f"unknown backend {backend!r} (local or dask)")
    check_kernel_cache()
    folder = Path(out)
    make_folder(folder)
    with holding(folder) as holder:
        return _run_held(play, config, folder, holder, jobs=jobs, backend=backend, scheduler=scheduler,
                         progress=progress, notice=notice, warning=warning)


def _run_held(play: PlayDeals, config: RunConfig, folder: Path, holder: str, *, jobs, backend, scheduler, progress,
              notice, warning) -> Path:
    """:func:`run` in the folder it holds as ``holder``."""
    manifest = open_run(folder, config.identity(), notice=notice)
    if warning is not None and notice is not None:
        notice(warning)
    remove_stale_temporaries(folder)
    parts = pending_parts(config, manifest)
    jobs = max(1, jobs or os.cpu_count() or 1)
    if parts:
        warm_up(play, config.seed, notice=notice, jobs=jobs if a_core_is_free() else 1)
    write = PartWriter(play, config, str(folder), holder)
    if backend == "dask" or scheduler:
        results = iterate_parts_dask(write, parts, jobs=jobs, scheduler=scheduler)
    else:
        results = iterate_parts(write, parts, min(jobs, max(1, len(parts))))
    finished = set(manifest.parts_done)
    done = sum(count for index, _, count in config.parts() if index in finished)
    try:
        record_parts(folder, manifest, results, done=done, total=config.deals, progress=progress)
    finally:   # an error or Ctrl-C here stops the workers now, not whenever the parts' generator is collected
        results.close()
    finish_run(folder, manifest)
    return folder


def record_parts(folder: Path, manifest: Manifest, written: Iterable[WrittenPart], done: int, total: int | None,
                 progress=None) -> None:
    """Enter each part in the manifest as it is written, saving the manifest each time, so that an
    interrupted run keeps every part it finished; a simulation and an import alike.

    ``done`` deals (or lines) were in the parts already there; ``progress`` is called after each part
    with (deals done, deals in all or None while unknown, deals per second: a running mean, the deals of the
    parts recorded here over the seconds since this call began), and in a run that turned
    down candidate deals also with ``acceptance``, the share of the candidates tried so far that were kept.
    """
    began = time.perf_counter()
    count = kept = tried = 0
    for index, deals, _, facts in written:
        manifest.add_part(index, facts)
        manifest.save(folder)
        count += deals
        if "tries" in facts:
            kept, tried = kept + deals, tried + facts["tries"]
        if progress is not None:
            rate = count / max(time.perf_counter() - began, 1e-9)
            progress(done + count, total, rate, **({"acceptance": kept / tried} if tried else {}))


def finish_run(folder: Path, manifest: Manifest) -> None:
    """Mark the run finished (every part written) in its manifest."""
    manifest.finished = time.strftime("%Y-%m-%dT%H:%M:%S")
    manifest.save(folder)
