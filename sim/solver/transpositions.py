"""The transposition table: bounds of the remaining value and the best card, by position.

Entries are two uint64 words: the key (the three hands, the leader, what is counted,
the game and the declarer; 96 + 9 bits) and, above the key's 41 bits in the second
word, the bounds of the value of the remaining tricks, the best card and the
generation. Word 0 of the transposition table counts solves (the generation), entries follow in
buckets of four. A position means the same in every deal, so the transposition table need not be
cleared between positions; the generation only tells the replacement which entries
belong to earlier solves.

It has two parts: positions of five tricks or fewer, the most numerous and
mostly met again within one solve, go to a near part of 1 MB that stays in the
processor's cache, the deeper ones to the large far part. On the solver benchmark's
deals this gave 5% less time for the exact value and 14% for the win question than
one part of the same far size, with 1 to 3% more nodes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.rules.cards import popcount

KEY_BITS = 41
KEY_MASK = (1 << KEY_BITS) - 1
BUCKET = 4
_TABLE_HEADER = 8                                         # one cache line: buckets stay on lines


#: Positions of this many cards or fewer (five tricks) go to the near part of the transposition table.
NEAR_CARDS = 15
#: Entries of the near part: 2**16 (1 MB) once the transposition table has 2**18 entries, else a quarter of them.
NEAR_BITS = 16


def new_transpositions(bits: int = 20) -> np.ndarray:
    """A transposition table of ``2**bits`` entries (16 bytes each) and its near part, made once and
    passed to every solve."""
    if not 8 <= bits <= 30:
        raise ValueError(f"table bits must be from 8 to 30, not {bits}")
    near = 1 << min(NEAR_BITS, bits - 2)
    return np.zeros(_TABLE_HEADER + 2 * ((1 << bits) + near), dtype=np.uint64)


@njit(cache=True, inline="always")
def _bucket(tt, key0, key1):
    # splitmix64's finalizer over both words: every key bit reaches the bucket number
    h = np.uint64(key0) ^ (np.uint64(key1) * np.uint64(0x9E3779B97F4A7C15))
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    entries = (tt.shape[0] - _TABLE_HEADER) // 2
    near = np.int64(1) << NEAR_BITS if entries > (1 << (NEAR_BITS + 2)) + (1 << NEAR_BITS) else entries // 5
    k0, k1 = np.int64(key0), np.int64(key1)
    cards = popcount(k0 & 0xFFFFFFFF) + popcount(k0 >> 32) + popcount(k1 & 0xFFFFFFFF)
    if cards <= NEAR_CARDS:
        return _TABLE_HEADER + np.int64(h & np.uint64(near // BUCKET - 1)) * 2 * BUCKET
    far = entries - near
    return _TABLE_HEADER + 2 * near + np.int64(h & np.uint64(far // BUCKET - 1)) * 2 * BUCKET


@njit(cache=True, _nrt=False)
def _probe(tt, key0, key1):
    """(lower bound, upper bound, best card) of a stored position; (0, 127, -1) when not stored."""
    base = _bucket(tt, key0, key1)
    for i in range(BUCKET):
        w0, w1 = tt[base + 2 * i], tt[base + 2 * i + 1]
        if w0 == np.uint64(key0) and (w1 & np.uint64(KEY_MASK)) == np.uint64(key1):
            data = np.int64(w1 >> np.uint64(KEY_BITS))
            return data & 127, (data >> 7) & 127, ((data >> 14) & 63) - 1
    return 0, 127, -1


@njit(cache=True, _nrt=False)
def _store(tt, key0, key1, lower, upper, best):
    """Store bounds (merged with what is stored); a new entry evicts an old or the smallest one."""
    base = _bucket(tt, key0, key1)
    gen = np.int64(tt[0]) & 3
    victim, victim_rank = base, np.int64(1) << 40
    for i in range(BUCKET):
        at = base + 2 * i
        w0, w1 = tt[at], tt[at + 1]
        if w0 == np.uint64(key0) and (w1 & np.uint64(KEY_MASK)) == np.uint64(key1):
            data = np.int64(w1 >> np.uint64(KEY_BITS))
            lower, upper = max(lower, data & 127), min(upper, (data >> 7) & 127)
            victim = at
            break
        if w0 == 0 and w1 == 0:
            rank = np.int64(-1)
        else:
            old = (np.int64(w1 >> np.uint64(KEY_BITS + 20)) & 3) != gen
            rank = popcount(w1 & np.uint64(0xFFFFFFFF)) + (0 if old else 64)
        if rank < victim_rank:
            victim, victim_rank = at, rank
    data = lower | (upper << 7) | ((best + 1) << 14) | (gen << 20)
    tt[victim] = np.uint64(key0)
    tt[victim + 1] = np.uint64(key1) | (np.uint64(data) << np.uint64(KEY_BITS))
