"""The run folder: what a run of deals leaves on disk, read by the runner and by analysis alike.

A run folder holds ``manifest.json`` (what the run is and which parts are done)
and one ``part-NNNNN.parquet`` per chunk of deals. Each file is written under a
temporary name and renamed when complete, so a part that exists was whole when
written; the manifest records each finished part's rows, size and CRC-32, so damage
done later (a copy cut short, a full disk, a flipped bit) is found: cheaply (size
and Parquet footer) whenever a run is resumed or read, and byte by byte by
:func:`check_part` with ``deep=True`` (``skatsim verify``). The columns and their
types (documented in docs/schema.md) are versioned by SCHEMA_VERSION; every part of
a run has exactly the same columns and types.

The manifest's ``config`` says what the run is: deals, seed, mode, chunk size,
schema version, and the description of what played the deals (a profile's name
and every seat's strategies, the evaluators logged and their thresholds). Analysis
learns everything about a run from it, never from the strategies installed now.

This module imports only the rules engine.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import tempfile
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim.rules.cards import SEAT_SUFFIXES, shown
from sim.rules.games import GAME_NAMES
from sim.rules.play import TRICK_LOG_SIZE
from sim.rules.view import VIEW

SCHEMA_VERSION = 4
#: Older schema versions analysis still reads (version 2: a passed-in deal's game is null; version 3:
#: every seat's evaluator scores always logged).
READABLE_VERSIONS = (2, 3, 4)
MANIFEST = "manifest.json"
MODES = ("game", "declare", "match", "decisions")
#: Limits of one run: a trillion deals (years of play on one machine), in at most a million parts.
MAX_DEALS = 10**12
MAX_PARTS = 10**6
#: Settings every manifest's config holds, whatever played the deals.
RUN_SETTINGS = ("deals", "seed", "mode", "chunk_size", "schema_version")


class RunError(ValueError):
    """A run that cannot start, continue or be read: bad settings, a foreign or damaged folder."""


# --- columns --------------------------------------------------------------------------------

GAME_TYPE = pa.dictionary(pa.int8(), pa.string())
#: The ``game`` of a passed-in deal (and the ``intended_game_*`` of a seat that means to pass): a
#: label of its own, so that it is never confused with the null game in a printed frame.
PASSED = "passed"
GAME_LABELS = (*GAME_NAMES, PASSED)

#: Columns shared by every mode, with their Parquet types.
_RESULT_TYPES = {
    "matadors": pa.int8(), "declarer_points": pa.int8(), "declarer_tricks": pa.int8(),
    "schneider": pa.bool_(), "schwarz": pa.bool_(), "won": pa.bool_(), "overbid": pa.bool_(),
    "game_value": pa.int16(), "score": pa.int16(), "sf_f": pa.int16(), "sf_m": pa.int16(),
    "sf_r": pa.int16(), "value_reached": pa.int16(), "won_in_play": pa.bool_(),
}
_DECLARATION_TYPES = {
    "hand": pa.bool_(), "schneider_announced": pa.bool_(), "schwarz_announced": pa.bool_(),
    "ouvert": pa.bool_(), "discard": pa.uint32(),
}
GAME_MODE_TYPES = {
    "deal_id": pa.int64(), "hand_f": pa.uint32(), "hand_m": pa.uint32(), "hand_r": pa.uint32(),
    "skat": pa.uint32(), "passed": pa.bool_(), "declarer": pa.int8(), "bid": pa.int16(),
    "game": GAME_TYPE, **_DECLARATION_TYPES, **_RESULT_TYPES,
    "max_bid_f": pa.int16(), "max_bid_m": pa.int16(), "max_bid_r": pa.int16(),
    "intended_game_f": GAME_TYPE, "intended_game_m": GAME_TYPE, "intended_game_r": GAME_TYPE,
}
DECLARE_MODE_TYPES = {
    "deal_id": pa.int64(), "seat": pa.int8(), "game": GAME_TYPE, "bid": pa.int16(), **_DECLARATION_TYPES,
    "evaluator_score": pa.float32(), **_RESULT_TYPES,
}
TRICKS_TYPE = pa.list_(pa.int8(), TRICK_LOG_SIZE)
#: Columns of a run played with ``--open-hand`` (game and declare mode): each declared game's
#: open-hand value at its first lead; null without a game, the points also null in null games.
OPEN_HAND_TYPES = {"oh_declarer_points": pa.int8(), "oh_won": pa.bool_()}
EVALUATOR_PREFIX = "eval_"
#: A duplicate match: every deal played six times, one row per deal and seating (see SEATINGS).
MATCH_MODE_TYPES = {**GAME_MODE_TYPES, "seating": pa.int8()}
#: Card decisions with a teacher's values (``skatsim decisions``): one row per decision with a choice;
#: ``view`` is the seat's view (sim.rules.view), ``values`` the teacher's value of each card (by card
#: id; NaN for the cards not legal).
DECISION_MODE_TYPES = {"deal_id": pa.int64(), "view": pa.list_(pa.int64(), VIEW.size), "legal": pa.uint32(),
                       "values": pa.list_(pa.float32(), 32)}
MODE_TYPES = {"game": GAME_MODE_TYPES, "declare": DECLARE_MODE_TYPES, "match": MATCH_MODE_TYPES,
              "decisions": DECISION_MODE_TYPES}

#: The seatings of a duplicate match between A and B: seating k puts one player alone at seat
#: ``k // 2`` (forehand, middlehand, rearhand) against two of the other: A alone for even k, B
#: alone for odd k. Over the six seatings each side holds every seat alone and in the pair.
SEATINGS = tuple((seat, alone) for seat in range(3) for alone in ("a", "b"))


def seats_of(side: str, seating: int) -> tuple[int, ...]:
    """The seats ``side`` ("a" or "b") holds in ``seating``."""
    seat, alone = SEATINGS[seating]
    return (seat,) if side == alone else tuple(s for s in range(3) if s != seat)


#: Where a run's deals come from (the manifest's ``config.source``): played by the simulation
#: (the default; the key is absent), or imported from an archive of the International Skat Server.
SIMULATION, ISS_ARCHIVE = "simulation", "iss"
#: Columns an imported run has beside those of game mode. Game-mode columns the archive cannot
#: give are null there (the bid plans ``max_bid_*``, ``intended_game_*``), and so are the outcome
#: columns of a game a time-out or penalty ended (see docs/schema.md).
ARCHIVE_TYPES = {
    "archive_file": pa.dictionary(pa.int16(), pa.string()), "archive_line": pa.int64(),
    "archive_id": pa.string(), "date": pa.timestamp("s", tz="UTC"),
    "player_f": pa.string(), "player_m": pa.string(), "player_r": pa.string(),
    "ended": pa.dictionary(pa.int8(), pa.string()), "ended_by": pa.int8(), "agrees": pa.bool_(),
}  # ended: one of sim.rules.records.ENDINGS


def evaluator_column(evaluator: str, seat: int | None = None, game: int | None = None) -> str:
    """The column of an evaluator's scores.

    Without a seat: ``eval_<evaluator>``, the declarer's score for the declared game
    (one per row in every mode; what analysis reads). With a seat and a game:
    ``eval_<evaluator>_<f|m|r>_<game>``, that seat's score for that game (game mode).
    """
    if seat is None:
        return f"{EVALUATOR_PREFIX}{evaluator}"
    return f"{EVALUATOR_PREFIX}{evaluator}_{SEAT_SUFFIXES[seat]}_{GAME_NAMES[game]}"


def game_labels(ids: np.ndarray, unknown: np.ndarray | None = None) -> pa.Array:
    """Game type ids as dictionary strings (:data:`GAME_LABELS`); -1 (no game: passed in) becomes
    ``passed``, and the rows ``unknown`` marks become null (an archive that does not say)."""
    ids = np.asarray(ids, dtype=np.int8)
    ids = np.where(ids < 0, GAME_LABELS.index(PASSED), ids).astype(np.int8)
    return pa.DictionaryArray.from_arrays(pa.array(ids, mask=unknown, type=pa.int8()), pa.array(GAME_LABELS))


def to_table(columns: dict, mode: str, source: str = SIMULATION) -> pa.Table:
    """A pyarrow table in the documented schema; evaluator scores (``eval_*``) become float32.

    A column may be a numpy array, a numpy masked array (masked: null) or a pyarrow array; an
    imported run (``source`` not the simulation) also has the :data:`ARCHIVE_TYPES` columns.
    """
    types = dict(MODE_TYPES[mode])
    types.update({k: pa.float32() for k in columns if k.startswith(EVALUATOR_PREFIX)})
    if "tricks" in columns:
        types["tricks"] = TRICKS_TYPE
    if "oh_won" in columns:
        types.update(OPEN_HAND_TYPES)
    metadata = {"skatsim_schema_version": str(SCHEMA_VERSION), "skatsim_mode": mode}
    if source != SIMULATION:
        types.update(ARCHIVE_TYPES)
        metadata["skatsim_source"] = source
    missing = set(types) - set(columns)
    if missing:
        raise ValueError(f"columns missing for the {mode} schema: {', '.join(sorted(missing))}")
    arrays = {name: _arrow(columns[name], kind) for name, kind in types.items()}
    schema = pa.schema([pa.field(n, t) for n, t in types.items()], metadata=metadata)
    return pa.Table.from_pydict(arrays, schema=schema)


def _arrow(values, kind):
    if isinstance(values, pa.Array):
        return values if values.type == kind else values.cast(kind)
    if isinstance(values, np.ma.MaskedArray):
        if kind == GAME_TYPE:
            return game_labels(np.ma.filled(values, -1), np.ma.getmaskarray(values))
        return pa.array(np.ma.getdata(values).astype(kind.to_pandas_dtype()), mask=np.ma.getmaskarray(values),
                        type=kind)
    if kind == GAME_TYPE:
        return game_labels(values)
    if isinstance(kind, pa.FixedSizeListType):
        flat = pa.array(np.asarray(values, dtype=kind.value_type.to_pandas_dtype()).ravel())
        return pa.FixedSizeListArray.from_arrays(flat, kind.list_size)
    return pa.array(np.asarray(values).astype(kind.to_pandas_dtype(), copy=False))


# --- parts ----------------------------------------------------------------------------------

PART_GLOB = "part-*.parquet"


def part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


#: Columns Parquet stores without a dictionary: a hand is one of millions of card sets, so a
#: dictionary of a part's hands is as long as the hands themselves.
PLAIN_COLUMNS = ("hand_f", "hand_m", "hand_r", "skat", "discard")


def write_part(folder: Path, index: int, columns: dict, mode: str, source: str = SIMULATION) -> dict:
    """Write part ``index`` of the run in ``folder`` atomically; returns its facts for the manifest.

    ``deal_id`` (counting up) is stored as differences (Parquet's delta encoding: next to nothing
    a row), the hands without a dictionary; every other column as Parquet chooses (dictionaries
    for the few distinct values of scores and flags), all compressed with zstd.
    """
    table = to_table(columns, mode, source)
    target = Path(folder) / part_name(index)
    with temporary_beside(target) as tmp:
        write_parquet(table, tmp)
        facts = part_facts(tmp)
    return facts


def write_parquet(table: pa.Table, path) -> None:
    """Write the rows of a part to the file ``path``, encoded as :func:`write_part` says."""
    plain = {"deal_id", *PLAIN_COLUMNS}
    pq.write_table(table, path, compression="zstd",
                   use_dictionary=[name for name in table.column_names if name not in plain],
                   column_encoding={"deal_id": "DELTA_BINARY_PACKED"} if "deal_id" in table.column_names else None)


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


def check_part(folder: Path, index: int, facts: dict, deep: bool = False) -> str | None:
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
    """Temporary files of a run that was killed are incomplete: remove them."""
    for path in Path(folder).glob("*.tmp"):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


# --- the manifest ---------------------------------------------------------------------------


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

    def damaged_parts(self, folder: Path, deep: bool = False) -> dict[int, str]:
        """Finished parts that are missing or damaged, with what is wrong with each."""
        found = {index: check_part(folder, index, self.parts[str(index)], deep) for index in self.parts_done}
        return {index: problem for index, problem in found.items() if problem}

    @property
    def mode(self) -> str:
        return self.config["mode"]

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
        return "its config is not a table"
    missing = set(RUN_SETTINGS) - set(config)
    if missing:
        return f"its config lacks {', '.join(sorted(missing))}"
    imported = config.get("source", SIMULATION) != SIMULATION
    for key in ("deals", "seed", "chunk_size", "schema_version"):
        # an import has no seed, and knows its number of deals once every line is read
        if imported and config[key] is None and (key == "seed" or (key == "deals" and not manifest.finished)):
            continue
        least = 1 if key in ("deals", "chunk_size") else 0
        if not is_whole(config[key]) or config[key] < least:
            kind = "a positive whole number" if least else "a whole number"
            return f"its config's {key} is not {kind}: {shown(config[key])}"
    if config["mode"] not in MODES:
        return f"its config's mode is not one of {', '.join(MODES)}: {shown(config['mode'])}"
    if not isinstance(config.get("evaluators", {}), dict):
        return "its config's evaluators are not a table"
    if not isinstance(manifest.parts, dict):
        return "its parts are not a table"
    planned = MAX_PARTS if config["deals"] is None else -(-config["deals"] // config["chunk_size"])
    if (config["deals"] or 0) > MAX_DEALS or planned > MAX_PARTS:
        return f"its config asks for {config['deals']:,} deals in {planned:,} parts, more than a run holds"
    for key, facts in manifest.parts.items():
        if not (key.isdigit() and int(key) < planned and isinstance(facts, dict)):
            return f"its parts list an entry {shown(key)} that is not one of the run's {planned} parts"
    if manifest.finished is not None and not isinstance(manifest.finished, str):
        return "its finished time is not a text"
    return None


def is_whole(value) -> bool:
    """An int that is not a bool (JSON's true is not a count)."""
    return isinstance(value, int) and not isinstance(value, bool)


# --- atomic files ---------------------------------------------------------------------------


def write_json_atomic(path: Path, data) -> None:
    with temporary_beside(Path(path)) as tmp:
        Path(tmp).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _named_for(error: OSError, name: Path) -> OSError:
    """``error`` told of ``name``: a failure on a temporary file names the file the user asked for,
    which is the one they can do something about."""
    named = OSError(error.errno, error.strerror or str(error), str(name))
    return named.with_traceback(error.__traceback__)


def _in_place_of(name, temporary: Path, target: Path) -> Path | None:
    """Where the file ``name`` of a temporary folder goes in ``target`` (None: not in the folder)."""
    if name is None:
        return target
    try:
        return target / Path(name).relative_to(temporary)
    except ValueError:
        return None


def make_folder(folder: Path, target: Path | None = None) -> list[Path]:
    """Create ``folder`` and its parents; returns the folders it made, deepest first. An OSError
    names ``target`` (default ``folder``), says which part of the path is a file when one is, and
    leaves no folder made on the way."""
    folder, target = Path(folder), Path(target or folder)
    made = [p for p in (folder, *folder.parents) if not os.path.lexists(p)]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        remove_empty(made)
        existing = next((p for p in (folder, *folder.parents) if os.path.lexists(p)), None)
        if existing is not None and not os.path.isdir(existing):
            raise OSError(errno.ENOTDIR, f"{existing} is a file, not a folder", str(target)) from None
        raise _named_for(error, target) from None
    return made


def remove_empty(folders) -> None:
    """Remove each of ``folders`` (deepest first) that exists and is empty."""
    for made in folders:
        with contextlib.suppress(OSError):
            made.rmdir()


@contextlib.contextmanager
def temporary_beside(target: Path) -> Iterator[str]:
    """A temporary file in ``target``'s folder, renamed onto ``target`` when the block succeeds.

    On any exception (a full disk, Ctrl-C) the temporary file is removed and an
    existing ``target`` is left as it was, so nothing half-written looks complete. An
    OSError of the temporary file (a read-only folder, a full disk) names ``target``.
    """
    target = Path(target)
    made = make_folder(target.parent, target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as error:
        remove_empty(made)
        raise _named_for(error, target) from None
    os.close(fd)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; these are ordinary files
        yield tmp
        os.replace(tmp, target)
    except OSError as error:
        Path(tmp).unlink(missing_ok=True)
        remove_empty(made)
        if error.filename is None or Path(error.filename) in (Path(tmp), target):
            raise _named_for(error, target) from None
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        remove_empty(made)
        raise


@contextlib.contextmanager
def folder_in_place(target: Path, belongs) -> Iterator[Path]:
    """A temporary folder beside ``target`` that replaces it when the block succeeds.

    An interrupted block leaves ``target`` as it was and no half-filled folder. An
    existing ``target`` is replaced only if ``belongs(target)`` says it is one of ours
    (a former report, say); otherwise RunError, and nothing is touched. An OSError of a
    file in the temporary folder names that file's place in ``target``.
    """
    target = Path(target)
    if target.exists() and not (target.is_dir() and belongs(target)):
        raise RunError(f"{target} exists and is not a folder this command wrote; choose another --out")
    made = make_folder(target.parent, target)
    try:
        temporary = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    except OSError as error:
        remove_empty(made)
        raise _named_for(error, target) from None
    try:
        os.chmod(temporary, 0o777 & ~_umask())  # mkdtemp makes 0700; the folder is an ordinary one
        yield temporary
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
            os.replace(target, old / target.name)
            os.replace(temporary, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(temporary, target)
    except OSError as error:
        shutil.rmtree(temporary, ignore_errors=True)
        remove_empty(made)
        name = _in_place_of(error.filename, temporary, target)
        if name is None:
            raise
        raise _named_for(error, name) from None
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        remove_empty(made)
        raise
