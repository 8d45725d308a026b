"""Counter-based random numbers: every random choice is a pure function of its key.

A run's deal ``i`` with seed ``s`` uses the stream keyed ``(s, i, purpose)``; no
state is carried from one deal to the next, so a deal can be replayed from its id
alone and the data do not depend on how a run is cut into chunks or jobs.

The mixer is SplitMix64 (Steele, Lea and Flood, 2014), whose output passes
BigCrush; a stream is the mixer applied to a Weyl sequence started at the key.
"""

from __future__ import annotations

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)

#: Purposes of the random streams of a deal; each gets its own stream.
STREAM_DEAL = 0
STREAM_PLAY = 1
#: The further candidate deals of a conditional run's deal (the first is the deal's own stream).
STREAM_REDEAL = 2
#: The worlds a teacher of card decisions draws (strategies.learning.teacher), apart from the play's.
STREAM_TEACHER = 3


@njit(cache=True, inline="always")
def mix64(z):
    z = np.uint64(z)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def stream_key(seed, index, purpose):
    """Starting state of the stream of one deal and one purpose."""
    k = mix64(np.uint64(seed) * GOLDEN + np.uint64(0x632BE59BD9B4E019))
    k = mix64(k ^ (np.uint64(index) * GOLDEN))
    return mix64(k + np.uint64(purpose) * np.uint64(0xD1B54A32D192ED03))


@njit(cache=True, inline="always")
def next_u64(state):
    """One step of a stream: returns (new state, 64 random bits)."""
    s = np.uint64(state) + GOLDEN
    return s, mix64(s)


@njit(cache=True)
def below(state, n):
    """Uniform integer in [0, n) for 1 <= n <= 2**32, exactly (Lemire's method with rejection).

    Returns (new state, value).
    """
    n64 = np.uint64(n)
    while True:
        state, r = next_u64(state)
        m = (r >> np.uint64(32)) * n64
        low = m & np.uint64(0xFFFFFFFF)
        # the threshold (2**32 mod n) is below n: a draw whose low part reaches n is kept without it
        if low >= n64 or low >= (np.uint64(1 << 32) - n64) % n64:
            return state, np.int64(m >> np.uint64(32))


@njit(cache=True)
def below_wide(state, n):
    """Uniform integer in [0, n) for 1 <= n < 2**63, exactly (a 64-bit draw, the biased top rejected).

    Returns (new state, value).
    """
    n64 = np.uint64(n)
    threshold = (np.uint64(0) - n64) % n64   # 2**64 mod n: the draws below it are the biased ones
    while True:
        state, r = next_u64(state)
        if r >= threshold:
            return state, np.int64(r % n64)
