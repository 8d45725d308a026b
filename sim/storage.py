"""Parquet parts and JSON files written atomically: a temporary name, then a rename.

The schema (documented in docs/schema.md) is versioned by SCHEMA_VERSION; every
part of a run has exactly the same columns and types.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .games import GAME_NAMES
from .play import TRICK_LOG_SIZE

SCHEMA_VERSION = 1

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
TRICKS_TYPE = pa.list_(pa.int8(), TRICK_LOG_SIZE)


def game_labels(ids: np.ndarray) -> pa.Array:
    """Game type ids as dictionary strings; -1 (no game) becomes null."""
    ids = np.asarray(ids, dtype=np.int8)
    return pa.DictionaryArray.from_arrays(pa.array(ids, mask=ids < 0, type=pa.int8()),
                                          pa.array(GAME_NAMES))


def to_table(columns: dict, mode: str) -> pa.Table:
    """A pyarrow table in the documented schema; evaluator scores (``eval_*``) become float32."""
    types = dict(GAME_MODE_TYPES if mode == "game" else DECLARE_MODE_TYPES)
    types.update({k: pa.float32() for k in columns if k.startswith("eval_")})
    if "tricks" in columns:
        types["tricks"] = TRICKS_TYPE
    missing = set(types) - set(columns)
    if missing:
        raise ValueError(f"columns missing for the {mode} schema: {', '.join(sorted(missing))}")
    arrays = {name: _arrow(columns[name], kind) for name, kind in types.items()}
    schema = pa.schema([pa.field(n, t) for n, t in types.items()],
                       metadata={"skatsim_schema_version": str(SCHEMA_VERSION), "skatsim_mode": mode})
    return pa.Table.from_pydict(arrays, schema=schema)


def _arrow(values, kind):
    if kind == GAME_TYPE:
        return game_labels(values)
    if kind == TRICKS_TYPE:
        flat = pa.array(np.asarray(values, dtype=np.int8).ravel())
        return pa.FixedSizeListArray.from_arrays(flat, TRICK_LOG_SIZE)
    return pa.array(np.asarray(values).astype(kind.to_pandas_dtype(), copy=False))


class PartWriter:
    """Writes the parts of one run folder."""

    def __init__(self, folder: Path, mode: str):
        self.folder, self.mode = Path(folder), mode

    def write(self, name: str, columns: dict) -> Path:
        table = to_table(columns, self.mode)
        target = self.folder / name
        with temporary_beside(target) as tmp:
            pq.write_table(table, tmp, compression="zstd")
        return target


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
