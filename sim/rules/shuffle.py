"""The shuffle: deal ``i`` of seed ``s`` is a pure function of ``(s, i)``.

Each deal shuffles the 32 cards with a Fisher-Yates shuffle driven by the deal's
own random stream, so every one of the 32! / (10!^3 2!) deals is equally likely.
The first ten cards go to forehand, the next ten to middlehand, the next ten to
rearhand and the last two to the skat.

:func:`deal_by_counts` deals with cards fixed and, for a condition on the hands, with count
tables (:mod:`sim.rules.count_tables`); :mod:`sim.rules.dealing` chooses how a run deals.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards import popcount
from .rng import GOLDEN, STREAM_DEAL, STREAM_REDEAL, below, below_wide, mix64, stream_key

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
    check_deal_numbers(seed, start, count)
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


def check_deal_numbers(seed: int, start: int, count: int) -> None:
    """ValueError unless ``seed`` and the deals ``start .. start+count-1`` are deals there are."""
    _check_seed(seed)
    if not (_is_integer(start) and _is_integer(count)):
        raise ValueError(f"deal numbers must be integers (start {start!r}, count {count!r})")
    if start < 0 or count < 0 or int(start) + int(count) > 2**63:
        raise ValueError(f"deal numbers must be from 0 to 2**63-1 (start {start}, count {count})")


def _check_seed(seed: int) -> None:
    if not _is_integer(seed) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an integer from 0 to 2**64-1, not {seed!r}")


#: Cards of each part of a deal: forehand, middlehand, rearhand, skat.
PART_SIZES = np.array([10, 10, 10, 2], dtype=np.int64)


@njit(cache=True, inline="always")
def attempt_key(seed, index, attempt):
    """The stream of candidate ``attempt`` (0, 1, ...) of deal ``index``: the deal's own stream first,
    then streams of their own, so that a deal's candidates do not depend on any other deal."""
    if attempt == 0:
        return stream_key(seed, index, STREAM_DEAL)
    return mix64(stream_key(seed, index, STREAM_REDEAL) + np.uint64(attempt) * GOLDEN)


#: The order in which the parts take the shuffled cards from the top: the skat, rearhand, middlehand,
#: forehand, as :func:`deal_one` deals them.
DEAL_ORDER = np.array([3, 2, 1, 0], dtype=np.int64)


@njit(cache=True, inline="always")
def deal_by_counts(state, fixed, order, dealt, class_cards, class_starts, pool_cards, counts, parts, cumulative,
                   pool, cards, out):
    """One deal with the ``fixed`` cards (F, M, R, skat masks) from the stream ``state``, writing the
    four masks into ``out``.

    With count tables (see :mod:`sim.rules.count_tables`): one of the tables ``counts`` (K, classes,
    parts) is drawn with the weights whose running sums are ``cumulative``; then of each class of
    cards (``class_cards[class_starts[c]:class_starts[c + 1]]``) the table's number of cards goes to
    each part of ``parts``, chosen uniformly. The cards left over and ``pool_cards`` are shuffled
    (Fisher-Yates from the top) and the parts in ``order`` take their open places from the top. Only
    the top ``dealt`` of them are shuffled and given (all of them: a whole deal); a part past them keeps
    its fixed cards alone. Without tables (no classes, one table) and in :data:`DEAL_ORDER` this is the
    whole deal: with nothing fixed the deal of :func:`deal_one`.
    ``pool`` and ``cards`` are room for 32 cards each, made once for many deals.
    """
    for p in range(4):
        out[p] = fixed[p]
    table = 0
    if cumulative.shape[0] > 1:
        state, u = below_wide(state, cumulative[-1])
        table = np.searchsorted(cumulative, u, side="right")
    n = pool_cards.shape[0]
    pool[:n] = pool_cards
    for c in range(class_starts.shape[0] - 1):
        size = class_starts[c + 1] - class_starts[c]
        cards[:size] = class_cards[class_starts[c]:class_starts[c + 1]]
        taken = 0
        for q in range(parts.shape[0]):
            for _ in range(counts[table, c, q]):
                state, r = below(state, size - taken)
                cards[taken], cards[taken + r] = cards[taken + r], cards[taken]
                out[parts[q]] |= np.uint32(1) << np.uint32(cards[taken])
                taken += 1
        for j in range(taken, size):
            pool[n] = cards[j]
            n += 1
    bottom = max(n - dealt, 0)
    for i in range(n - 1, max(bottom, 1) - 1, -1):
        state, j = below(state, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    at = n
    for p in order:
        places = PART_SIZES[p] - popcount(out[p])
        if at - places < bottom:
            break
        for _ in range(places):
            at -= 1
            out[p] |= np.uint32(1) << np.uint32(pool[at])


@njit(cache=True)
def deal_candidates(seed, ids, attempts, fixed, order, dealt, class_cards, class_starts, pool_cards, counts, parts,
                    cumulative, out):
    """Candidate ``attempts[r]`` of deal ``ids[r]`` of ``seed`` into ``out[r]`` for every row ``r``
    (:func:`deal_by_counts` from the stream :func:`attempt_key`)."""
    pool, cards = np.empty(32, dtype=np.int64), np.empty(32, dtype=np.int64)
    for r in range(ids.shape[0]):
        deal_by_counts(attempt_key(seed, ids[r], attempts[r]), fixed, order, dealt, class_cards, class_starts,
                       pool_cards, counts, parts, cumulative, pool, cards, out[r])


def free_cards(fixed) -> np.ndarray:
    """The cards no part holds fixed, lowest first (int64)."""
    held = 0
    for mask in fixed:
        held |= int(mask)
    return np.array([c for c in range(32) if not held >> c & 1], dtype=np.int64)
