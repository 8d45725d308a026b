"""The Monte Carlo runner: a run of deals, cut into parts, played on every core, written to Parquet.

A run folder holds ``manifest.json`` (what the run is and which parts are done)
and one ``part-NNNNN.parquet`` per chunk of deals. Each part is written under a
temporary name and renamed when complete, so a part file that exists is whole.
Running the same command again skips the parts that exist; the finished run is
the same, deal for deal, as one that was never interrupted, and the same for
any number of jobs, since deal ``i`` depends on ``(seed, i)`` alone.
"""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator

from .storage import PartWriter, SCHEMA_VERSION, write_json_atomic

MODES = ("game", "declare")
MANIFEST = "manifest.json"


class RunError(ValueError):
    """A run that cannot start or continue: bad settings, a foreign folder, a failed write."""


@dataclass(frozen=True)
class RunConfig:
    deals: int
    seed: int
    profile: str
    profile_spec: dict
    mode: str = "game"
    chunk_size: int = 100_000
    log_tricks: bool = False

    def parts(self) -> list[tuple[int, int, int]]:
        """(part index, first deal, number of deals) of every part."""
        return [(i, start, min(self.chunk_size, self.deals - start))
                for i, start in enumerate(range(0, self.deals, self.chunk_size))]

    def identity(self) -> dict:
        """What makes two runs the same run."""
        return {**asdict(self), "schema_version": SCHEMA_VERSION}


@dataclass
class Manifest:
    config: dict
    versions: dict
    parts_done: list[int] = field(default_factory=list)
    created: str = ""
    finished: str | None = None

    def save(self, folder: Path) -> None:
        write_json_atomic(folder / MANIFEST, asdict(self))


def versions() -> dict:
    import numba
    import numpy
    import polars
    import pyarrow

    from . import __version__

    return {"skatsim": __version__, "python": platform.python_version(), "numpy": numpy.__version__,
            "numba": numba.__version__, "pyarrow": pyarrow.__version__, "polars": polars.__version__}


def check_config(deals: int, seed: int, mode: str, chunk_size: int) -> None:
    if not isinstance(deals, int) or deals <= 0:
        raise RunError(f"the number of deals must be a positive whole number, not {deals!r}")
    if not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise RunError(f"the seed must be a whole number from 0 to 2**64-1, not {seed!r}")
    if mode not in MODES:
        raise RunError(f"unknown mode {mode!r} (one of {', '.join(MODES)})")
    if not isinstance(chunk_size, int) or chunk_size <= 0:
        raise RunError(f"the chunk size must be a positive whole number, not {chunk_size!r}")


def open_run(folder: Path, config: RunConfig) -> Manifest:
    """The manifest of ``folder``: a new one for an empty folder, the old one to resume the same run."""
    folder.mkdir(parents=True, exist_ok=True)
    if not os.access(folder, os.W_OK):
        raise RunError(f"cannot write to {folder}")
    path = folder / MANIFEST
    if path.exists():
        manifest = read_manifest(folder)
        if manifest.config != config.identity():
            raise RunError(f"{folder} holds a different run ({_difference(manifest.config, config.identity())});"
                           " choose another --out folder")
        manifest.parts_done = sorted(i for i in manifest.parts_done if (folder / part_name(i)).exists())
        return manifest
    if any(p.name != ".gitkeep" for p in folder.iterdir()):
        raise RunError(f"{folder} is not empty and holds no run; choose an empty or new --out folder")
    manifest = Manifest(config.identity(), versions(), created=time.strftime("%Y-%m-%dT%H:%M:%S"))
    manifest.save(folder)
    return manifest


def read_manifest(folder: Path) -> Manifest:
    path = Path(folder) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        manifest = Manifest(**data)
    except FileNotFoundError:
        raise RunError(f"{folder} is not a run folder (no {MANIFEST})") from None
    except (json.JSONDecodeError, TypeError) as error:
        raise RunError(f"{path} is damaged: {error}") from None
    if not isinstance(manifest.config, dict):
        raise RunError(f"{path} is damaged: its config is not a table")
    missing = set(RunConfig.__dataclass_fields__) - set(manifest.config)
    if missing:
        raise RunError(f"{path} is damaged: its config lacks {', '.join(sorted(missing))}")
    return manifest


def _difference(old: dict, new: dict, prefix: str = "") -> str:
    """The first few settings that differ, as dotted names: ``seed 7 there, 9 asked``."""
    found = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            inner = _difference(a, b, f"{prefix}{key}.")
            found += [inner] if inner else []
        elif a != b:
            found.append(f"{prefix}{key} {a!r} there, {b!r} asked")
    return ", ".join(found[:3])


def part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


def remove_stale_temporaries(folder: Path) -> None:
    """Temporary part files of a run that was killed are incomplete: remove them."""
    for path in folder.glob("*.tmp"):
        path.unlink(missing_ok=True)


def pending_parts(config: RunConfig, manifest: Manifest) -> list[tuple[int, int, int]]:
    done = set(manifest.parts_done)
    return [p for p in config.parts() if p[0] not in done]


def play_part(config: RunConfig, folder: str, part: tuple[int, int, int]) -> tuple[int, int, float]:
    """Play and write one part; returns (index, deals, seconds). Runs in a worker."""
    index, start, count = part
    began = time.perf_counter()
    columns = _play(config, start, count)
    PartWriter(Path(folder), config.mode).write(part_name(index), columns)
    return index, count, time.perf_counter() - began


_profiles: dict[str, object] = {}


def _play(config: RunConfig, start: int, count: int) -> dict:
    from strategies.evaluation import evaluator_columns
    from strategies.profiles import build_profile
    from strategies.table import declare_every_game, play_deals

    key = json.dumps(config.profile_spec, sort_keys=True)
    if key not in _profiles:
        _profiles[key] = build_profile(config.profile, config.profile_spec)
    profile = _profiles[key]
    if config.mode == "declare":
        return declare_every_game(profile, config.seed, start, count, config.log_tricks)
    columns = play_deals(profile, config.seed, start, count, config.log_tricks)
    columns.update(evaluator_columns(columns))
    return columns


def iterate_parts(config: RunConfig, folder: Path, parts, jobs: int) -> Iterator[tuple[int, int, float]]:
    """Results of the parts as they finish, on ``jobs`` local processes."""
    if jobs == 1:
        for part in parts:
            yield play_part(config, str(folder), part)
        return
    from joblib import Parallel, delayed

    run = Parallel(n_jobs=jobs, return_as="generator_unordered")
    yield from run(delayed(play_part)(config, str(folder), part) for part in parts)


def iterate_parts_dask(config: RunConfig, folder: Path, parts, jobs: int,
                       scheduler: str | None) -> Iterator[tuple[int, int, float]]:
    """Results of the parts as they finish on a Dask cluster (a new local one without ``scheduler``).

    The workers write the parts themselves, so ``folder`` must be a path they share.
    """
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:  # pragma: no cover - dask is a declared dependency
        raise RunError("the dask backend needs dask.distributed (pip install 'dask[distributed]')") from None
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                               dashboard_address=None)
    client = Client(scheduler or cluster)
    try:
        futures = [client.submit(play_part, config, str(folder), part, pure=False) for part in parts]
        for future in as_completed(futures):
            yield future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def default_folder(config: RunConfig) -> Path:
    return Path("results") / f"{config.profile}-{config.mode}-seed{config.seed}-{config.deals}"


def simulate(deals: int, seed: int = 0, profile: str = "default", settings=(), out=None,
             jobs: int | None = None, chunk_size: int = 100_000, log_tricks: bool = False,
             mode: str = "game", backend: str = "local", scheduler: str | None = None,
             progress=None) -> Path:
    """Play ``deals`` deals with ``profile`` and write them to a run folder; returns the folder.

    Runs in an existing folder of the same run resume it. ``progress`` is called
    with (deals done, deals in all, deals per second) after each part.
    """
    from strategies.profiles import load_profile

    check_config(deals, seed, mode, chunk_size)
    if backend not in ("local", "dask"):
        raise RunError(f"unknown backend {backend!r} (local or dask)")
    loaded = load_profile(profile, list(settings))
    config = RunConfig(deals, seed, loaded.name, loaded.spec, mode, chunk_size, log_tricks)
    folder = Path(out) if out is not None else default_folder(config)
    manifest = open_run(folder, config)
    remove_stale_temporaries(folder)
    parts = pending_parts(config, manifest)
    jobs = max(1, jobs or os.cpu_count() or 1)
    if backend == "dask" or scheduler:
        results = iterate_parts_dask(config, folder, parts, jobs, scheduler)
    else:
        results = iterate_parts(config, folder, parts, min(jobs, max(1, len(parts))))
    finished = set(manifest.parts_done)
    done = sum(count for index, _, count in config.parts() if index in finished)
    began = time.perf_counter()
    played = 0
    for index, count, _ in results:
        manifest.parts_done = sorted(set(manifest.parts_done) | {index})
        manifest.save(folder)
        played += count
        if progress is not None:
            progress(done + played, deals, played / max(time.perf_counter() - began, 1e-9))
    manifest.finished = time.strftime("%Y-%m-%dT%H:%M:%S")
    manifest.save(folder)
    return folder
