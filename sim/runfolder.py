"""The run folder: what a run of deals leaves on disk, read by the runner and by analysis alike.

A run folder holds ``manifest.json`` (what the run is and which parts are done)
and one ``part-NNNNN.parquet`` per chunk of deals. Each file is written under a
temporary name and renamed when complete, so a part that exists is whole. The
columns and their types (documented in docs/schema.md) are versioned by
SCHEMA_VERSION; every part of a run has exactly the same columns and types.

The manifest's ``config`` says what the run is: deals, seed, mode, chunk size,
schema version, and the description of what played the deals (a profile's name
and every seat's strategies, the evaluators logged and their thresholds). Analysis
learns everything about a run from it, never from the strategies installed now.

This module imports only the rules engine.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .rules.cards import SEAT_SUFFIXES
from .rules.games import GAME_NAMES
from .rules.play import TRICK_LOG_SIZE

SCHEMA_VERSION = 2
MANIFEST = "manifest.json"
MODES = ("game", "declare")
#: Settings every manifest's config holds, whatever played the deals.
RUN_SETTINGS = ("deals", "seed", "mode", "chunk_size", "schema_version")


class RunError(ValueError):
    """A run that cannot start, continue or be read: bad settings, a foreign or damaged folder."""


# --- columns --------------------------------------------------------------------------------

GAME_TYPE = pa.dictionary(pa.int8(), pa.string())

#: Columns shared by both modes, with their Parquet types.
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
MODE_TYPES = {"game": GAME_MODE_TYPES, "declare": DECLARE_MODE_TYPES}
TRICKS_TYPE = pa.list_(pa.int8(), TRICK_LOG_SIZE)
EVALUATOR_PREFIX = "eval_"

#: Where a run's deals come from (the manifest's ``config.source``): played by the simulation
#: (the default; the key is absent), or imported from an archive of the International Skat Server.
SIMULATION, ISS_ARCHIVE = "simulation", "iss"
#: How a game ended (the column ``ended`` of an imported run).
ENDINGS = ("played", "passed", "resigned", "claimed", "timeout", "left")
#: Columns an imported run has beside those of game mode. Game-mode columns the archive cannot
#: give are null there (the bid plans ``max_bid_*``, ``intended_game_*``), and so are the outcome
#: columns of a game a time-out or penalty ended (see docs/schema.md).
ARCHIVE_TYPES = {
    "archive_file": pa.dictionary(pa.int16(), pa.string()), "archive_line": pa.int64(),
    "archive_id": pa.string(), "date": pa.timestamp("s", tz="UTC"),
    "player_f": pa.string(), "player_m": pa.string(), "player_r": pa.string(),
    "ended": pa.dictionary(pa.int8(), pa.string()), "ended_by": pa.int8(), "agrees": pa.bool_(),
}


def evaluator_column(evaluator: str, seat: int | None = None, game: int | None = None) -> str:
    """The column of an evaluator's scores.

    Without a seat: ``eval_<evaluator>``, the declarer's score for the declared game
    (one per row in both modes; what analysis reads). With a seat and a game:
    ``eval_<evaluator>_<f|m|r>_<game>``, that seat's score for that game (game mode).
    """
    if seat is None:
        return f"{EVALUATOR_PREFIX}{evaluator}"
    return f"{EVALUATOR_PREFIX}{evaluator}_{SEAT_SUFFIXES[seat]}_{GAME_NAMES[game]}"


def game_labels(ids: np.ndarray) -> pa.Array:
    """Game type ids as dictionary strings; -1 (no game) becomes null."""
    ids = np.asarray(ids, dtype=np.int8)
    return pa.DictionaryArray.from_arrays(pa.array(ids, mask=ids < 0, type=pa.int8()),
                                          pa.array(GAME_NAMES))


def to_table(columns: dict, mode: str, source: str = SIMULATION) -> pa.Table:
    """A pyarrow table in the documented schema; evaluator scores (``eval_*``) become float32.

    A column may be a numpy array, a numpy masked array (masked: null) or a pyarrow array; an
    imported run (``source`` not the simulation) also has the :data:`ARCHIVE_TYPES` columns.
    """
    types = dict(MODE_TYPES[mode])
    types.update({k: pa.float32() for k in columns if k.startswith(EVALUATOR_PREFIX)})
    if "tricks" in columns:
        types["tricks"] = TRICKS_TYPE
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
            return game_labels(np.ma.filled(values, -1))
        return pa.array(np.ma.getdata(values).astype(kind.to_pandas_dtype()), mask=np.ma.getmaskarray(values),
                        type=kind)
    if kind == GAME_TYPE:
        return game_labels(values)
    if kind == TRICKS_TYPE:
        flat = pa.array(np.asarray(values, dtype=np.int8).ravel())
        return pa.FixedSizeListArray.from_arrays(flat, TRICK_LOG_SIZE)
    return pa.array(np.asarray(values).astype(kind.to_pandas_dtype(), copy=False))


# --- parts ----------------------------------------------------------------------------------

PART_GLOB = "part-*.parquet"


def part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


def write_part(folder: Path, index: int, columns: dict, mode: str, source: str = SIMULATION) -> Path:
    """Write part ``index`` of the run in ``folder`` atomically."""
    table = to_table(columns, mode, source)
    target = Path(folder) / part_name(index)
    with temporary_beside(target) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return target


def remove_stale_temporaries(folder: Path) -> None:
    """Temporary files of a run that was killed are incomplete: remove them."""
    for path in Path(folder).glob("*.tmp"):
        path.unlink(missing_ok=True)


# --- the manifest ---------------------------------------------------------------------------


@dataclass
class Manifest:
    config: dict
    versions: dict
    parts_done: list[int] = field(default_factory=list)
    created: str = ""
    finished: str | None = None

    def save(self, folder: Path) -> None:
        write_json_atomic(Path(folder) / MANIFEST, asdict(self))

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
        manifest = Manifest(**data)
    except FileNotFoundError:
        raise RunError(f"{folder} is not a run folder (no {MANIFEST})") from None
    except (json.JSONDecodeError, TypeError, UnicodeDecodeError) as error:
        raise RunError(f"{path} is damaged: {error}") from None
    if not isinstance(manifest.config, dict):
        raise RunError(f"{path} is damaged: its config is not a table")
    missing = set(RUN_SETTINGS) - set(manifest.config)
    if missing:
        raise RunError(f"{path} is damaged: its config lacks {', '.join(sorted(missing))}")
    return manifest


# --- atomic files ---------------------------------------------------------------------------


def write_json_atomic(path: Path, data) -> None:
    with temporary_beside(Path(path)) as tmp:
        Path(tmp).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def temporary_beside(target: Path) -> Iterator[str]:
    """A temporary file in ``target``'s folder, renamed onto ``target`` when the block succeeds.

    On any exception (a full disk, Ctrl-C) the temporary file is removed and an
    existing ``target`` is left as it was, so nothing half-written looks complete.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; these are ordinary files
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
