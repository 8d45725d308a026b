"""One number for everything a profile plays: the tests that keep a change of speed from changing play."""

from __future__ import annotations

import hashlib

import numpy as np

from strategies import play_deals


def play_digest(profile, deals: int, seed: int = 31) -> str:
    """The SHA-256 of every column, trick logs included, of the first ``deals`` deals of ``seed`` played
    by ``profile``."""
    columns = play_deals(profile, seed, 0, deals, log_tricks=True)
    digest = hashlib.sha256()
    for name in sorted(columns):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(columns[name]).tobytes())
    return digest.hexdigest()
