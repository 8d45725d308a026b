"""The run folder: what a run of deals leaves on disk, read by the runner and by analysis alike, and
where a run goes when it is not told.

A run folder holds ``manifest.json`` (what the run is and which parts are done)
and one ``part-NNNNN.parquet`` per chunk of deals, in the columns of :mod:`sim.runs.schema`.
Each file is written under a temporary name and renamed when complete (:mod:`sim.runs.atomic`),
by one command at a time (:mod:`sim.runs.lock`), so a part that exists was whole when written;
anything else in the folder is stray (:func:`stray_files`).
The manifest records each finished part's rows, size and CRC-32, so damage done later (a copy
cut short, a full disk, a flipped bit) is found: cheaply (size and Parquet footer) whenever a
run is resumed or read, and byte by byte by :func:`check_part` with ``deep=True``
(``skatsim verify``).

The manifest's ``config`` says what the run is: deals, seed, mode, chunk size,
schema version, and the description of what played the deals (a profile's name
and every seat's strategies, the evaluators logged and their thresholds). Analysis
learns everything about a run from it, never from the strategies installed now.

This module imports only the rules engine and the run format below it.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sim.rules.cards import shown
from sim.runs import RunError
from sim.runs.atomic import temporary_beside, write_json_atomic
from sim.runs.lock import LOCK, still_held, temporary_tag
from sim.runs.schema import MODES, SCHEMA_VERSION, SIMULATION, to_arrow

MANIFEST = "manifest.json"
#: Limits of one run: a trillion deals (years of play on one machine), in at most a million parts.
MAX_DEALS = 10**12
MAX_PARTS = 10**6
#: What an import keeps beside its parts (:mod:`sim.imports.writer`): every problem found (written
#: when the import finishes), and the problems of each finished part, in a folder of their own.
ERRORS, ERROR_PARTS = "errors.jsonl", "errors"
#: Settings every manifest's config holds, whatever played the deals.
RUN_SETTINGS = ("deals", "seed", "mode", "chunk_size", "schema_version")


# --- parts ----------------------------------------------------------------------------------

PART_GLOB = "part-*.parquet"


def part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


#: Columns Parquet stores without a dictionary: a hand is one of millions of card sets, so a
#: dictionary of a part's hands is as long as the hands themselves.
PLAIN_COLUMNS = ("hand_f", "hand_m", "hand_r", "skat", "discard")


def write_part(folder: Path, index: int, columns: dict, mode: str, source: str = SIMULATION, *,
               holder: str | None = None) -> dict:
    """Write part ``index`` of the run in ``folder`` atomically; returns its facts for the manifest.

    ``holder``, the token of the command holding the folder (:mod:`sim.runs.lock`), is in the name of
    the temporary file; a part finished after that command stopped is not kept (RunError).

    ``deal_id`` (counting up) is stored as differences (Parquet's delta encoding: next to nothing
    a row), the hands without a dictionary; every other column as Parquet chooses (dictionaries
    for the few distinct values of scores and flags), all compressed with zstd.
    """
    rows = to_arrow(columns, mode, source)
    target = Path(folder) / part_name(index)
    with temporary_beside(target, temporary_tag(holder)) as tmp:
        write_parquet(rows, tmp)
        facts = part_facts(tmp)
        check_still_held(folder, holder)
    return facts


def check_still_held(folder: Path, holder: str | None) -> None:
    """RunError when the command of ``holder`` no longer holds ``folder``: what a worker of it wrote is
    not to be kept."""
    if not still_held(folder, holder):
        raise RunError(f"{folder} is no longer held by the command that asked for this file")


def write_parquet(rows: pa.Table, path) -> None:
    """Write the rows of a part to the file ``path``, encoded as :func:`write_part` says."""
    plain = {"deal_id", *PLAIN_COLUMNS}
    pq.write_table(rows, path, compression="zstd",
                   use_dictionary=[name for name in rows.column_names if name not in plain],
                   column_encoding={"deal_id": "DELTA_BINARY_PACKED"} if "deal_id" in rows.column_names else None)


def older_run(folder: Path, config: dict, what: str) -> str | None:
    """One line saying why the run in ``folder`` cannot be ``what`` (resumed, repaired ...) by this
    version, when it holds parts of an older schema version; None for a run of this version."""
    version = config.get("schema_version")
    if version == SCHEMA_VERSION:
        return None
    return (f"{folder} holds a run of schema version {version}; this skatsim writes version"
            f" {SCHEMA_VERSION} and cannot {what} it (analysis still reads it): choose another --out folder")


def part_facts(path) -> dict:
    """What the manifest records of a part file: its rows, its size in bytes and the CRC-32 of its bytes."""
    data = Path(path).read_bytes()
    return {"rows": pq.read_metadata(path).num_rows, "bytes": len(data), "crc32": f"{zlib.crc32(data):08x}"}


def check_part(folder: Path, index: int, facts: dict, *, deep: bool = False) -> str | None:
    """What is wrong with part ``index`` against the manifest's ``facts``, or None when it is whole.

    The cheap check reads the size and the Parquet footer; ``deep`` also compares the
    CRC-32 of every byte.
    """
    path = Path(folder) / part_name(index)
    try:
        size = path.stat().st_size
        if size != facts.get("bytes"):
            return f"{path.name} has {size:,} bytes, the manifest says {facts.get('bytes')!r}"
        rows = pq.read_metadata(path).num_rows
        if rows != facts.get("rows"):
            return f"{path.name} has {rows:,} rows, the manifest says {facts.get('rows')!r}"
        if deep and f"{zlib.crc32(path.read_bytes()):08x}" != facts.get("crc32"):
            return f"{path.name} is damaged: its bytes do not match the manifest's CRC-32"
    except FileNotFoundError:
        return f"{path.name} is missing"
    except (OSError, pa.ArrowException) as error:
        return f"{path.name} is damaged: {_first_line(error)}"
    return None


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def remove_stale_temporaries(folder: Path) -> None:
    """Temporary files of a run that was killed are incomplete: remove them (the command calling
    this holds the folder, so none is another live command's)."""
    remove_files(Path(folder).glob("*.tmp"))


def remove_files(paths) -> None:
    """Remove each of ``paths``, a folder with all it holds; one already gone is no error."""
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def stray_files(folder: Path, manifest: Manifest) -> list[Path]:
    """Files and folders in the run folder ``folder`` that are not the run's own, sorted: its own are
    the manifest, the finished parts, the lock, a ``.gitkeep``, and of an import ``errors.jsonl`` and
    the problems of each finished part. A temporary file left by a killed command is stray, and so
    is a part the manifest does not list."""
    folder = Path(folder)
    own = {MANIFEST, LOCK, ".gitkeep", *(part_name(index) for index in manifest.parts_done)}
    problems = {f"part-{index:05d}.jsonl" for index in manifest.parts_done}
    imported = manifest.config.get("source", SIMULATION) != SIMULATION
    if imported:
        own |= {ERRORS, ERROR_PARTS}
    stray = [path for path in folder.iterdir() if path.name not in own]
    if imported and (folder / ERROR_PARTS).is_dir() and not (folder / ERROR_PARTS).is_symlink():
        stray += [path for path in (folder / ERROR_PARTS).iterdir() if path.name not in problems]
    elif imported and (folder / ERROR_PARTS).exists():
        stray.append(folder / ERROR_PARTS)
    return sorted(stray)


@dataclass
class Manifest:
    config: dict
    versions: dict
    parts: dict[str, dict] = field(default_factory=dict)   # finished part index -> part_facts
    created: str = ""
    finished: str | None = None

    def save(self, folder: Path) -> None:
        write_json_atomic(Path(folder) / MANIFEST, asdict(self))

    @property
    def parts_done(self) -> list[int]:
        return sorted(int(i) for i in self.parts)

    def add_part(self, index: int, facts: dict) -> None:
        self.parts[str(index)] = facts

    def drop_part(self, index: int) -> None:
        self.parts.pop(str(index), None)

    def drop_parts(self, indexes) -> None:
        """Take the parts ``indexes`` out, to be made again: the run is then not finished."""
        for index in indexes:
            self.drop_part(index)
        self.finished = None

    def damaged_parts(self, folder: Path, deep: bool = False) -> dict[int, str]:
        """Finished parts that are missing or damaged, with what is wrong with each."""
        found = {index: check_part(folder, index, self.parts[str(index)], deep=deep) for index in self.parts_done}
        return {index: problem for index, problem in found.items() if problem}

    @property
    def mode(self) -> str:
        return self.config["mode"]

    def acceptance(self) -> float | None:
        """In a conditional run dealt by rejection, the share of the candidate deals tried that were kept,
        over its finished parts (whose facts record the ``tries``); None in any other run."""
        chunk, deals = self.config.get("chunk_size"), self.config.get("deals")
        kept = tried = 0
        for index, facts in self.parts.items():
            tries = facts.get("tries") if isinstance(facts, dict) else None
            if is_whole(tries) and tries > 0 and is_whole(chunk) and is_whole(deals) and index.isdigit():
                kept += max(0, min(chunk, deals - int(index) * chunk))
                tried += tries
        return kept / tried if tried else None

    @property
    def evaluators(self) -> dict[str, dict]:
        """The evaluators whose scores the run logs: name -> {"thresholds": {game: value}}."""
        return self.config.get("evaluators", {})


def read_manifest(folder: Path) -> Manifest:
    """The manifest of the run in ``folder``; :class:`RunError` naming the problem if there is none."""
    path = Path(folder) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        manifest = Manifest(**data) if isinstance(data, dict) else None
    except FileNotFoundError:
        raise RunError(f"{folder} is not a run folder (no {MANIFEST})") from None
    except (ValueError, TypeError, RecursionError) as error:  # bad JSON or UTF-8, unknown keys
        raise RunError(f"{path} is damaged: {_first_line(error)}") from None
    except OSError as error:
        raise RunError(f"cannot read {path}: {error.strerror or error}") from None
    if manifest is None:
        raise RunError(f"{path} is damaged: it is not a JSON object")
    problem = _manifest_problem(manifest)
    if problem:
        raise RunError(f"{path} is damaged: {problem}")
    return manifest


def _manifest_problem(manifest: Manifest) -> str | None:
    """What makes a manifest unusable, or None: every value the runner and analysis rely on is checked."""
    config = manifest.config
    if not isinstance(config, dict):
        return "its config is not an object"
    problem = _settings_problem(config, finished=manifest.finished)
    if problem:
        return problem
    if not isinstance(manifest.parts, dict):
        return "its parts are not an object"
    planned = MAX_PARTS if config["deals"] is None else -(-config["deals"] // config["chunk_size"])
    if (config["deals"] or 0) > MAX_DEALS or planned > MAX_PARTS:
        return f"its config asks for {config['deals']:,} deals in {planned:,} parts, more than a run holds"
    for key, facts in manifest.parts.items():
        if not (key.isdigit() and int(key) < planned and isinstance(facts, dict)):
            return f"its parts list an entry {shown(key)} that is not one of the run's {planned} parts"
    if manifest.finished is not None and not isinstance(manifest.finished, str):
        return "its finished time is not a text"
    return None


def _settings_problem(config: dict, *, finished) -> str | None:
    """What is wrong with the run settings of a manifest's config, or None."""
    missing = set(RUN_SETTINGS) - set(config)
    if missing:
        return f"its config lacks {', '.join(sorted(missing))}"
    imported = config.get("source", SIMULATION) != SIMULATION
    for key in ("deals", "seed", "chunk_size", "schema_version"):
        # an import has no seed, and knows its number of deals once every line is read
        if imported and config[key] is None and (key == "seed" or (key == "deals" and not finished)):
            continue
        least = 1 if key in ("deals", "chunk_size") else 0
        if not is_whole(config[key]) or config[key] < least:
            kind = "a positive whole number" if least else "a whole number"
            return f"its config's {key} is not {kind}: {shown(config[key])}"
    if config["mode"] not in MODES:
        return f"its config's mode is not one of {', '.join(MODES)}: {shown(config['mode'])}"
    if not isinstance(config.get("evaluators", {}), dict):
        return "its config's evaluators are not an object"
    return None


def is_whole(value) -> bool:
    """An int that is not a bool (JSON's true is not a count)."""
    return isinstance(value, int) and not isinstance(value, bool)


# --- where a run goes -----------------------------------------------------------------------


def default_folder(name: str, *, seed: int, deals: int, settings: str = "") -> Path:
    """Where a run goes when no folder is given: ``results/NAME-seedSEED-DEALS``, then its settings
    (:func:`settings_suffix`), so that runs of other settings get other folders:
    ``results/default-game-seed0-50-card_play=pimc``."""
    return Path("results") / f"{name}-seed{seed}-{deals}{settings}"


#: Characters a folder name keeps from a setting; the others are left out.
_FOLDER_SAFE = re.compile(r"[^A-Za-z0-9._=,+-]")
_LONGEST_SUFFIX = 60


def settings_suffix(settings, label: str = "") -> str:
    """The settings as part of a folder name: ``-card_play=pimc+bidder.margin=10`` (``label`` goes
    first, ``-a-...``); '' without settings. A long one is cut and ends in a hash of the whole."""
    if not settings:
        return ""
    text = "+".join(_FOLDER_SAFE.sub("", setting) for setting in settings)
    if len(text) > _LONGEST_SUFFIX:
        digest = hashlib.sha256("\n".join(settings).encode()).hexdigest()[:8]
        text = f"{text[:_LONGEST_SUFFIX - 9]}~{digest}"
    return f"-{label}{text}"
