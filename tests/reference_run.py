"""The reference run of the runner's tests, and how the tests read a run's rows: 3,000 deals of the
random profile (seed 7, three parts of 1,000 deals, trick logs), which the same run made any other way must
equal, and which `show` and the report read."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from sim.runs.simulation import simulate

PROFILE = "random"  # the runner does not care who plays; random compiles fastest


def table(folder) -> pl.DataFrame:
    """Every row of the run in ``folder``, by deal."""
    return pl.read_parquet(Path(folder) / "part-*.parquet").sort("deal_id")


def reference_run(folder: Path) -> Path:
    """The reference run, made in ``folder``."""
    simulate(3000, seed=7, profile=PROFILE, out=folder, jobs=1, chunk_size=1000, log_tricks=True)
    return folder
