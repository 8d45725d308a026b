"""Counting by packed keys gives exactly the groups of polars' own group-by."""

import numpy as np
import polars as pl

from analysis.packing import packed_group_by


def test_packed_counts_equal_plain_group_by():
    rng = np.random.default_rng(3)
    rows = 5000
    frame = pl.DataFrame({
        "seat": rng.integers(0, 3, rows).astype(np.int8),
        "game": pl.Series(rng.integers(0, 7, rows).astype(np.int8)).replace(6, None),
        "won": pl.Series(rng.integers(0, 3, rows)).replace_strict({0: False, 1: True, 2: None},
                                                                   return_dtype=pl.Boolean),
        "matadors": rng.integers(-11, 12, rows).astype(np.int8),
        "score": rng.integers(-32768, 32767, rows).astype(np.int16),
        "value_reached": rng.integers(-200, 300, rows).astype(np.int32),
        "sf_table": rng.integers(-300, 300, rows) / 2,
        "fine": rng.integers(-10**9, 10**9, rows) // 10**7,
    })
    columns = frame.columns
    sums = {"n": pl.len(), "total": pl.col("score").cast(pl.Int64).sum()}
    packed = packed_group_by(frame.lazy(), columns, **sums).collect()
    plain = frame.group_by(columns).agg(**sums)
    assert packed.schema == plain.schema
    assert packed.sort(columns, nulls_last=True).equals(plain.sort(columns, nulls_last=True))
