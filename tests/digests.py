"""One number for everything a profile plays: the tests that keep a change of speed from changing play."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from strategies import play_deals

#: Model v5, the shipped model until v6 (a file of version 3): the digests recorded with it keep a model of
#: version 3 playing exactly as it did.
MODEL_V5 = Path(__file__).resolve().parent / "data" / "learned-v5.npz"


def play_digest(profile, deals: int, seed: int = 31) -> str:
    """The SHA-256 of every column, trick logs included, of the first ``deals`` deals of ``seed`` played
    by ``profile``."""
    columns = play_deals(profile, seed=seed, start=0, count=deals, log_tricks=True)
    digest = hashlib.sha256()
    for name in sorted(columns):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(columns[name]).tobytes())
    return digest.hexdigest()


def kernel_arguments(policy) -> tuple[np.ndarray, np.ndarray]:
    """(params, data): the row and the data a card player's kernel is called with."""
    data = np.zeros(0, np.float32) if policy.data is None else np.asarray(policy.data, dtype=np.float32)
    return np.asarray(policy.params, dtype=np.float64), data
