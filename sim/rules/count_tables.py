"""Exact conditional dealing by counts: the deals meeting a condition on counted cards, drawn directly.

A condition whose features all count cards (every feature but ``eval``: jacks, aces, tens, points,
length, trumps, has) is true or false by how many cards of each *class* each part of the deal
holds, a class being the cards that every feature of the condition counts alike (for ``jacks(F) >=
3 and length(F, 'C') >= 4``: the jacks, the clubs below them, the rest). A *count table* says, for
each class and each part the condition names, how many of the class's cards that part holds. The
deals with the fixed cards that have one table are ``prod over classes of multinomial(class size;
its counts, the rest)`` times the ways of dealing the rest into the parts not named, an exact
integer (every deal count is below 2**52).

:func:`count_tables` lists every table the fixed cards allow, keeps those that meet the condition
with their numbers of deals, and so gives the condition's exact share of the deals. Drawing a table
with those weights and then the cards of each class uniformly (:func:`sim.rules.shuffle.deal_by_counts`)
deals from exactly the conditional distribution of the uniform deal, whatever the share: a condition
met by one deal in a billion is dealt as fast as any. Conditions with too many tables (several parts
and point counts, say) are left to rejection (:mod:`sim.rules.dealing`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .cards import popcount
from .conditions import Feature, card_weights, evaluate, features
from .shuffle import PART_SIZES, free_cards

#: The most count tables a condition may have to be dealt by counts, and the most rows on the way to them.
MOST_TABLES = 2**20
MOST_ROWS = 2**22
_BINOMIAL = np.array([[math.comb(n, k) for k in range(33)] for n in range(33)], dtype=np.int64)


@dataclass(frozen=True)
class CountTables:
    """The count tables meeting a condition, as :func:`sim.rules.shuffle.deal_by_counts` takes them, and the
    exact numbers of deals: ``meeting`` the condition among the ``possible`` ones with the fixed cards."""

    class_cards: np.ndarray   # the free cards, class by class (int64)
    class_starts: np.ndarray  # where each class starts in class_cards, and the end (int64)
    pool_cards: np.ndarray    # free cards in no class (int64): all of them when no part is counted
    counts: np.ndarray        # (tables, classes, parts) int8
    parts: np.ndarray         # the parts counted (int64)
    cumulative: np.ndarray    # running sums of the tables' numbers of deals (int64)
    meeting: int
    possible: int

    def arrays(self) -> tuple:
        return (self.class_cards, self.class_starts, self.pool_cards, self.counts, self.parts, self.cumulative)


def deals_with(fixed) -> int:
    """How many deals there are with the ``fixed`` cards (F, M, R, skat masks)."""
    # Python's count, not the popcount kernel: dealing.py calls this at import, and a kernel call would
    # load numba's compiler (about 60 MB and 0.25 s) into every process that imports the rules.
    opens = [int(size) - int(mask).bit_count() for size, mask in zip(PART_SIZES, fixed)]
    return _multinomial(sum(opens), opens)


def _multinomial(total: int, parts) -> int:
    ways, left = 1, total
    for part in parts:
        ways *= math.comb(left, part)
        left -= part
    return ways


def count_tables(fixed, condition=None) -> CountTables | None:
    """The count tables of the deals with the ``fixed`` cards that meet ``condition`` (whose features all
    count cards; None: every deal), or None when there are more than :data:`MOST_TABLES`."""
    fixed = np.asarray(fixed, dtype=np.uint32)
    possible = deals_with(fixed)
    counted = features(condition) if condition is not None else []
    parts = np.array(sorted({f.part for f in counted}), dtype=np.int64)
    free = free_cards(fixed)
    if not len(parts):
        holds = condition is None or bool(evaluate(condition, _Constant())[0])
        return _tables([], free, np.zeros((1, 0, 0), np.int8), parts, np.array([possible if holds else 0]),
                       possible)
    weights = _distinct_weights(counted)
    classes = _classes(free, weights)
    opens = np.array([PART_SIZES[p] - popcount(int(fixed[p])) for p in parts], dtype=np.int64)
    listed = _every_table(classes, opens)
    if listed is None:
        return None
    counts, ways = listed
    rest = [int(PART_SIZES[p]) - popcount(int(fixed[p])) for p in range(4) if p not in parts]
    ways = ways * _multinomial(sum(rest), rest)
    values = CountValues(counts, classes=classes, parts=parts, fixed=fixed)
    met = evaluate(condition, values) & (ways > 0)
    return _tables(classes, np.zeros(0, np.int64), counts[met], parts, ways[met], possible)


def _tables(classes, pool, counts, parts, ways, possible) -> CountTables:
    cards = np.array([c for cls in classes for c in cls], dtype=np.int64)
    starts = np.cumsum([0, *map(len, classes)]).astype(np.int64)
    cumulative = np.cumsum(ways).astype(np.int64)
    return CountTables(cards, starts, np.asarray(pool, np.int64), np.ascontiguousarray(counts, np.int8), parts,
                       cumulative, int(cumulative[-1]) if len(cumulative) else 0, possible)


class _Constant:
    """The values of a condition that names no feature: one row."""
    rows = 1


def _distinct_weights(counted: list[Feature]) -> np.ndarray:
    """What each card adds to each distinct counting feature (the seats left aside): (features, 32)."""
    keys = {(f.name, f.argument): f for f in counted}
    return np.array([card_weights(f) for f in keys.values()], dtype=np.int64)


def _classes(free: np.ndarray, weights: np.ndarray) -> list[list[int]]:
    """The free cards grouped by what every feature adds for them, the largest group last."""
    groups: dict[tuple, list[int]] = {}
    for card in free:
        groups.setdefault(tuple(weights[:, card]), []).append(int(card))
    return sorted(groups.values(), key=lambda cards: (len(cards), cards[0]))


def _splits(size: int, opens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every way to give a class of ``size`` cards to the counted parts (at most their open places each,
    the rest to the others): (ways, parts) counts, and the number of card choices of each."""
    ranges = [range(min(size, int(o)) + 1) for o in opens]
    splits = np.array([s for s in itertools.product(*ranges) if sum(s) <= size], dtype=np.int8)
    return splits, _choices(size, splits)


def _choices(size: int, splits: np.ndarray) -> np.ndarray:
    """multinomial(size; the split's counts, the rest) for each split (int64, exact)."""
    ways, left = np.ones(len(splits), dtype=np.int64), np.full(len(splits), size, dtype=np.int64)
    for q in range(splits.shape[1]):
        taken = splits[:, q].astype(np.int64)
        ways *= _BINOMIAL[left, taken]
        left -= taken
    return ways


def _every_table(classes, opens: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Every count table that fills the counted parts' open places exactly, (tables, classes, parts)
    int8, with its number of card choices; None past the limits. The largest class comes last: its
    counts are what the others leave open. Each class's step keeps the row it came from, and the
    tables are read back from the last step at the end."""
    sizes = [len(c) for c in classes]
    later = np.append(np.cumsum(sizes[::-1])[::-1], 0)  # later[c]: the cards of classes c, c + 1, ...
    used = np.zeros((1, len(opens)), dtype=np.int8)
    ways = np.ones(1, dtype=np.int64)
    steps = []
    for c, size in enumerate(sizes[:-1]):
        splits, choices = _splits(size, opens)
        if len(used) * len(splits) > MOST_ROWS:
            return None
        row, split = np.repeat(np.arange(len(used)), len(splits)), np.tile(np.arange(len(splits)), len(used))
        after = used[row] + splits[split]
        need = opens - after
        ok = (need >= 0).all(axis=1) & (need.sum(axis=1) <= later[c + 1])
        row, split = row[ok], split[ok]
        steps.append((row, splits[split]))
        used, ways = after[ok], ways[row] * choices[split]
        if len(used) > 2 * MOST_TABLES:   # nearly every partial table is completed by the classes left
            return None
    last = (opens - used).astype(np.int8)
    ok = (last >= 0).all(axis=1) & (last.sum(axis=1, dtype=np.int64) <= (sizes[-1] if sizes else 0))
    if ok.sum() > MOST_TABLES:
        return None
    counts = np.zeros((int(ok.sum()), len(sizes), len(opens)), dtype=np.int8)
    at = np.flatnonzero(ok)
    if sizes:
        counts[:, -1] = last[at]
        ways = ways[at] * _choices(sizes[-1], last[at])
    for c in range(len(steps) - 1, -1, -1):
        row, chosen = steps[c]
        counts[:, c] = chosen[at]
        at = row[at]
    return counts, ways


class CountValues:
    """The values of counting features over count tables (:func:`sim.rules.conditions.evaluate` reads them):
    what the fixed cards of the part add, and what each class's cards there add."""

    def __init__(self, counts: np.ndarray, *, classes, parts: np.ndarray, fixed: np.ndarray):
        self.counts, self.classes, self.parts, self.fixed, self.rows = counts, classes, list(parts), fixed, len(counts)

    def feature(self, node: Feature) -> np.ndarray:
        weights = card_weights(node)
        held = int(self.fixed[node.part])
        value = sum(int(weights[c]) for c in range(32) if held >> c & 1)
        per_class = np.array([weights[cards[0]] for cards in self.classes], dtype=np.int64)
        value = value + self.counts[:, :, self.parts.index(node.part)].astype(np.int64) @ per_class
        return value >= 1 if node.name == "has" else value
