"""Dealing: deal ``i`` of seed ``s`` is a pure function of ``(s, i)``.

Each deal shuffles the 32 cards with a Fisher-Yates shuffle driven by the deal's
own random stream, so every one of the 32! / (10!^3 2!) deals is equally likely.
The first ten cards go to forehand, the next ten to middlehand, the next ten to
rearhand and the last two to the skat.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .rng import STREAM_DEAL, below, stream_key

#: Column order of a deal array: forehand, middlehand, rearhand, skat.
SKAT = 3


@njit(cache=True)
def deal_one(seed, index, out):
    """Write the hands of deal ``index`` as four uint32 masks into ``out`` (F, M, R, skat)."""
    deck = np.arange(32)
    state = stream_key(seed, index, STREAM_DEAL)
    for i in range(31, 0, -1):
        state, j = below(state, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    for part in range(4):
        out[part] = 0
    for pos in range(32):
        part = min(pos // 10, 3)
        out[part] |= np.uint32(1) << np.uint32(deck[pos])


@njit(cache=True)
def deal_batch_into(seed, start, out):
    for k in range(out.shape[0]):
        deal_one(seed, start + k, out[k])


def deal_batch(seed: int, start: int, count: int) -> np.ndarray:
    """Deals ``start .. start+count-1`` of ``seed`` as a (count, 4) uint32 array: F, M, R, skat."""
    _check_seed(seed)
    if not (_is_integer(start) and _is_integer(count)):
        raise ValueError(f"deal numbers must be integers (start {start!r}, count {count!r})")
    if start < 0 or count < 0 or int(start) + int(count) > 2**63:
        raise ValueError(f"deal numbers must be from 0 to 2**63-1 (start {start}, count {count})")
    out = np.empty((count, 4), dtype=np.uint32)
    deal_batch_into(np.uint64(seed), start, out)
    return out


def deal(seed: int, index: int) -> tuple[int, int, int, int]:
    """Deal ``index`` of ``seed``: the masks of forehand, middlehand, rearhand and the skat."""
    row = deal_batch(seed, index, 1)[0]
    return tuple(int(x) for x in row)


def _is_integer(x) -> bool:
    # A float or bool would be truncated silently, so seed 1.5 would replay seed 1.
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _check_seed(seed: int) -> None:
    if not _is_integer(seed) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an integer from 0 to 2**64-1, not {seed!r}")


@njit(cache=True)
def deal_around_one(seed, index, seat, hand, skat, out):
    """Deal ``index`` around one known hand: ``seat`` holds ``hand``, the skat is ``skat`` when it is
    given (non-zero), and every other card goes at random (the deal's own stream) to the other
    seats and, when it is not given, to the skat. Writes F, M, R, skat masks into ``out``."""
    unseen = np.uint32(~(hand | skat) & 0xFFFFFFFF)
    deck = np.empty(22, dtype=np.int64)
    n = 0
    for card in range(32):
        if (unseen >> np.uint32(card)) & np.uint32(1):
            deck[n] = card
            n += 1
    state = stream_key(seed, index, STREAM_DEAL)
    for i in range(n - 1, 0, -1):
        state, j = below(state, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    for part in range(4):
        out[part] = 0
    out[seat], out[SKAT] = hand, skat
    pos = 0
    for other in range(3):
        if other != seat:
            for _ in range(10):
                out[other] |= np.uint32(1) << np.uint32(deck[pos])
                pos += 1
    while pos < n:
        out[SKAT] |= np.uint32(1) << np.uint32(deck[pos])
        pos += 1


@njit(cache=True)
def _deal_around_into(seed, start, seat, hand, skat, out):
    for k in range(out.shape[0]):
        deal_around_one(seed, start + k, seat, hand, skat, out[k])


def deal_around(seed: int, start: int, count: int, seat: int, hand: int, skat: int = 0) -> np.ndarray:
    """Deals ``start .. start+count-1`` of ``seed`` in which ``seat`` holds the ten cards ``hand`` (and
    the skat is ``skat`` if given, else dealt): a (count, 4) uint32 array F, M, R, skat."""
    _check_seed(seed)
    if bin(hand).count("1") != 10 or (skat and (bin(skat).count("1") != 2 or hand & skat)):
        raise ValueError("a hand of ten cards, and a skat of two other cards or none")
    if seat not in (0, 1, 2) or count < 0:
        raise ValueError(f"the seat must be 0, 1 or 2 and the count at least 0, not {seat} and {count}")
    out = np.empty((count, 4), dtype=np.uint32)
    _deal_around_into(np.uint64(seed), start, seat, np.uint32(hand), np.uint32(skat), out)
    return out
