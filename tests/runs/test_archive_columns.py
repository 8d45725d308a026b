"""The run format's additions for imported runs: nullable columns and the archive columns."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from sim.rules.records import ENDINGS
from sim.runs.schema import ARCHIVE_TYPES, GAME_MODE_TYPES, ISS_ARCHIVE, to_arrow


def columns(n: int) -> dict:
    out = {name: np.zeros(n, dtype=np.int64) for name in GAME_MODE_TYPES}
    out["game"] = np.full(n, -1)
    for suffix in "fmr":
        out[f"intended_game_{suffix}"] = np.full(n, -1)
    return out


def test_a_simulated_table_is_unchanged():
    table = to_arrow(columns(2), "game")
    assert table.schema.names == list(GAME_MODE_TYPES)
    assert b"skatsim_source" not in table.schema.metadata


def test_masked_values_are_null():
    data = columns(3)
    data["won"] = np.ma.masked_array([1, 0, 1], mask=[False, True, False])
    data["game_value"] = np.ma.masked_array([24, 0, 36], mask=[False, True, False])
    data["max_bid_f"] = np.ma.masked_all(3, dtype=np.int16)
    data["intended_game_f"] = np.ma.masked_array([5, -1, 0], mask=[True, False, False])
    table = to_arrow(data, "game")
    assert table["won"].to_pylist() == [True, None, True]
    assert table["game_value"].to_pylist() == [24, None, 36]
    assert table["max_bid_f"].null_count == 3
    assert table["game"].to_pylist() == ["passed"] * 3   # no game: passed in, never the null game
    assert table["intended_game_f"].to_pylist() == [None, "passed", "diamonds"]   # masked: not known


def test_an_imported_table_has_the_archive_columns():
    n = 2
    data = columns(n)
    data.update({"archive_file": pa.DictionaryArray.from_arrays(pa.array([0, 0], pa.int16()), pa.array(["a.txt"])),
                 "archive_line": np.array([3, 4]), "archive_id": pa.array(["1", None]),
                 "date": pa.array([0, 86400], pa.int64()).cast(pa.timestamp("s", tz="UTC")),
                 "player_f": pa.array(["x", "y"]), "player_m": pa.array(["y", "z"]), "player_r": pa.array(["z", "x"]),
                 "ended": pa.DictionaryArray.from_arrays(pa.array([0, 4], pa.int8()), pa.array(ENDINGS)),
                 "ended_by": np.array([-1, 2]), "agrees": np.array([True, False])})
    table = to_arrow(data, "game", ISS_ARCHIVE)
    assert table.schema.names == [*GAME_MODE_TYPES, *ARCHIVE_TYPES]
    assert table.schema.metadata[b"skatsim_source"] == b"iss"
    assert table["ended"].to_pylist() == ["played", "timeout"]
    assert table["archive_id"].to_pylist() == ["1", None]
