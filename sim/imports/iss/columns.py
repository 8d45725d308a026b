"""An ISS batch turned into the columns of a run: the kernels first, the checked path for the rest.

:func:`batch_columns` checks the lines of a batch with the kernels (:mod:`sim.imports.iss.kernels`),
asks the checked path (:func:`sim.imports.iss.record.check_line`) about every line the kernels
flag or find in disagreement with the server, and gives the columns of the valid games (the
game-mode columns of :mod:`sim.runs.schema` and the archive columns) and the problems found, in
line order, as :mod:`sim.imports.writer` writes them.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from numba import njit

from sim.imports.iss.files import BatchBytes
from sim.imports.iss.kernels import (
    O_AGREES,
    O_BID,
    O_DECLARER,
    O_DISCARD,
    O_ENDED,
    O_ENDED_BY,
    O_GAME,
    O_HAND,
    O_OUVERT,
    O_RESULT,
    O_SCHNEIDER_ANNOUNCED,
    O_SCHWARZ_ANNOUNCED,
    check_lines,
)
from sim.imports.iss.notation import IssError
from sim.imports.iss.record import check_line
from sim.imports.iss.results import compared
from sim.imports.iss.scan import F_ID, F_P0, MISSING
from sim.imports.writer import BAD_LINE, DISAGREEMENT, pseudonyms
from sim.rules.records import ENDINGS, PASSED
from sim.rules.scoring import RESULT_COLUMNS


def batch_columns(batch: BatchBytes, names: tuple[str, ...], anonymize: bool) -> tuple[dict, list[dict]]:
    """The columns of the valid games of a batch, and its problems (bad lines, disagreements) in line
    order; ``names``: the files' names, ``anonymize``: pseudonyms for the players."""
    found = check_lines(batch.data, batch.starts, batch.ends)
    out, hands, logs = found.out.copy(), found.hands.copy(), found.logs.copy()
    keep = found.ok.copy()
    slow: dict[int, object] = {}   # lines the kernels left to the checked path, and what it made of them
    problems: dict[int, dict] = {}
    for k in np.flatnonzero(~found.ok):
        try:
            checked = check_line(_line(batch, k))
        except IssError as e:
            problems[k] = _problem(batch, names, k, kind=BAD_LINE, text=str(e))
            continue
        slow[k] = checked
        keep[k] = True
        _put_row({**checked.row, "agrees": checked.agrees}, k, out=out, hands=hands, logs=logs)
    for k in np.flatnonzero(keep & (out[:, O_AGREES] == 0)):
        try:
            checked = slow.get(k) or check_line(_line(batch, k))
        except IssError as e:  # the kernels and the checked path disagree: trust the checked path
            problems[k], keep[k] = _problem(batch, names, k, kind=BAD_LINE, text=str(e)), False
            continue
        problems[k] = _disagreement(batch, names, k, checked=checked)
    rows = np.flatnonzero(keep)
    columns = _game_columns(batch, rows, out=out, hands=hands, logs=logs)
    columns.update(_archive_columns(batch, found, rows, out=out, slow=slow, names=names, anonymize=anonymize))
    return columns, [problems[k] for k in sorted(problems)]


def _line(batch: BatchBytes, k: int) -> bytes:
    return batch.data[batch.starts[k]:batch.ends[k]]


def _problem(batch: BatchBytes, names, k: int, *, kind: str, text: str, record_id=None) -> dict:
    if record_id is None:
        record_id = _record_id(_line(batch, k))
    return {"file": names[batch.files[k]], "line": int(batch.lines[k]), "id": record_id, "kind": kind,
            "problem": text}


def _record_id(line: bytes) -> str | None:
    """The ID field of a line, if it can be found (for a bad line, best effort)."""
    start = line.find(b"ID[")
    end = line.find(b"]", start)
    return line[start + 3:end].decode("utf-8", errors="replace") if start >= 0 and end > start else None


def _disagreement(batch: BatchBytes, names, k: int, *, checked) -> dict:
    keys = compared(checked.row)
    engine = {key: checked.engine.get(key) for key in keys}
    archive = {key: checked.archive.get(key) for key in keys}
    differ = ", ".join(f"{key} {engine[key]} (archive {archive[key]})" for key in keys if engine[key] != archive[key])
    problem = _problem(batch, names, k, kind=DISAGREEMENT, record_id=checked.fields.get("ID"),
                       text=f"the engine's result differs from the archive's: {differ}")
    return {**problem, "engine": engine, "archive": archive}


_ROW_SLOTS = {"declarer": O_DECLARER, "bid": O_BID, "game": O_GAME, "hand": O_HAND,
              "schneider_announced": O_SCHNEIDER_ANNOUNCED, "schwarz_announced": O_SCHWARZ_ANNOUNCED,
              "ouvert": O_OUVERT, "discard": O_DISCARD, "ended": O_ENDED, "ended_by": O_ENDED_BY, "agrees": O_AGREES,
              **{name: O_RESULT + i for i, name in enumerate(RESULT_COLUMNS)}}


def _put_row(row: dict, k: int, *, out: np.ndarray, hands: np.ndarray, logs: np.ndarray) -> None:
    """A row of the checked path into the kernels' arrays (None becomes MISSING)."""
    for name, slot in _ROW_SLOTS.items():
        value = row.get(name)
        out[k, slot] = MISSING if value is None else int(value)
    hands[k] = [row["hand_f"], row["hand_m"], row["hand_r"], row["skat"]]
    logs[k] = row["tricks"]


def _game_columns(batch: BatchBytes, rows: np.ndarray, *, out: np.ndarray, hands: np.ndarray,
                  logs: np.ndarray) -> dict:
    """The game-mode columns of the kept rows (see sim.runs.schema.GAME_MODE_TYPES)."""
    o = out[rows]
    dealt = hands[rows].astype(np.uint32)
    columns = {"deal_id": batch.first + rows.astype(np.int64),
               "hand_f": dealt[:, 0], "hand_m": dealt[:, 1], "hand_r": dealt[:, 2], "skat": dealt[:, 3],
               "passed": o[:, O_ENDED] == PASSED, "declarer": o[:, O_DECLARER], "bid": o[:, O_BID],
               "game": o[:, O_GAME], "hand": o[:, O_HAND] == 1,
               "schneider_announced": o[:, O_SCHNEIDER_ANNOUNCED] == 1,
               "schwarz_announced": o[:, O_SCHWARZ_ANNOUNCED] == 1, "ouvert": o[:, O_OUVERT] == 1,
               "discard": o[:, O_DISCARD], "tricks": logs[rows]}
    for i, name in enumerate(RESULT_COLUMNS):
        values = o[:, O_RESULT + i]
        columns[name] = np.ma.masked_array(np.where(values == MISSING, 0, values), mask=values == MISSING)
    unknown = np.ma.masked_all(len(rows), dtype=np.int16)
    for suffix in "fmr":
        columns[f"max_bid_{suffix}"] = unknown
        columns[f"intended_game_{suffix}"] = np.ma.masked_all(len(rows), dtype=np.int8)
    return columns


def _archive_columns(batch: BatchBytes, found, rows: np.ndarray, *, out: np.ndarray, slow: dict, names,
                     anonymize: bool) -> dict:
    """The columns an imported run adds: where each game comes from, its id, date, players, how it ended."""
    o = out[rows]
    checked = {int(i): slow[int(rows[i])] for i in np.searchsorted(rows, sorted(slow))}  # row -> checked path
    strings = {name: _strings(batch, found.spans[rows, f], checked, name=name)
               for name, f in (("archive_id", F_ID), ("player_f", F_P0), ("player_m", F_P0 + 1),
                               ("player_r", F_P0 + 2))}
    if anonymize:
        for name in ("player_f", "player_m", "player_r"):
            strings[name] = pseudonyms(strings[name])
    seconds = found.dates[rows].copy()
    for i, line in checked.items():
        seconds[i] = MISSING if line.date is None else int(line.date.timestamp())
    dates = pa.array(np.where(seconds == MISSING, 0, seconds), mask=seconds == MISSING, type=pa.int64())
    ended = pa.DictionaryArray.from_arrays(pa.array(o[:, O_ENDED].astype(np.int8)), pa.array(ENDINGS))
    files = pa.DictionaryArray.from_arrays(pa.array(batch.files[rows].astype(np.int16)), pa.array(names))
    return {"archive_file": files, "archive_line": batch.lines[rows], **strings,
            "date": dates.cast(pa.timestamp("s", tz="UTC")), "ended": ended, "ended_by": o[:, O_ENDED_BY],
            "agrees": o[:, O_AGREES] == 1}


@njit(cache=True)
def _gather(data, spans, offsets, values):
    """The bytes of each span one after another (``offsets`` as Arrow wants them)."""
    p = 0
    for k in range(spans.shape[0]):
        offsets[k] = p
        if spans[k, 0] >= 0:
            n = spans[k, 1] - spans[k, 0]
            values[p:p + n] = data[spans[k, 0]:spans[k, 1]]
            p += n
    offsets[spans.shape[0]] = p


_FIELD_OF = {"archive_id": "ID", "player_f": "P0", "player_m": "P1", "player_r": "P2"}


def _strings(batch: BatchBytes, spans: np.ndarray, checked: dict, *, name: str) -> pa.Array:
    """A text field of each row (null where the record has none); ``checked``: rows of the checked path."""
    data = np.frombuffer(batch.data, dtype=np.uint8)
    sizes = np.where(spans[:, 0] >= 0, spans[:, 1] - spans[:, 0], 0)
    offsets = np.empty(len(spans) + 1, dtype=np.int64)
    values = np.empty(int(sizes.sum()), dtype=np.uint8)
    _gather(data, spans, offsets, values)
    valid = spans[:, 0] >= 0
    array = pa.LargeBinaryArray.from_buffers(pa.large_binary(), len(spans),
                                             [pa.py_buffer(np.packbits(valid, bitorder="little")),
                                              pa.py_buffer(offsets), pa.py_buffer(values)])
    try:
        if not checked:
            return array.cast(pa.large_string()).cast(pa.string())
    except pa.ArrowInvalid:  # not UTF-8
        pass
    # decode as the checked path does, and take its fields for its rows
    texts = [None if v is None else v.decode("utf-8", errors="replace") for v in array.to_pylist()]
    for i, line in checked.items():
        texts[i] = line.fields.get(_FIELD_OF[name])
    return pa.array(texts, type=pa.string())
