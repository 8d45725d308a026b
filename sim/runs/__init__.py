"""Runs of deals: the run folder's format, the runner that fills it, and a profile's run.

- :mod:`sim.runs.folder`: what a run leaves on disk (manifest, Parquet parts, schema,
  column names), written by the runner and the importers and read by analysis;
- :mod:`sim.runs.compiling`: numba's kernels before a run plays: stale caches dropped, the
  warm-up, the first run's message and its two processes;
- :mod:`sim.runs.runner`: a strategy-agnostic run of deals, cut into parts, on every core
  or on a Dask cluster;
- :mod:`sim.runs.simulation`: a profile's run (``simulate``), a duplicate match (``match``)
  and the repair of damaged parts.

Imports the rules engine, the solver and the strategies; never analysis, the importers
or the commands.
"""
