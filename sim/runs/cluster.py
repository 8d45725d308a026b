"""A Dask cluster for a command's work: the one whose scheduler is named, or a new local one.

The runner plays a run's parts on it (``simulate --backend dask``), and analysis counts a run's
parts there (``analyze --backend dask``). Imports nothing of the project.
"""

from __future__ import annotations

import contextlib
from typing import Iterator


@contextlib.contextmanager
def dask_client(jobs: int, scheduler: str | None = None) -> Iterator:
    """A ``dask.distributed.Client`` of the cluster at ``scheduler``, or of a new local cluster of
    ``jobs`` worker processes (one thread each), closed when the block ends."""
    from dask.distributed import Client, LocalCluster

    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(scheduler or cluster)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
