"""How a run deals: uniformly, or with fixed cards and a condition on the hands, from the exact
conditional distribution of the uniform deal.

Deal ``i`` of a run is a pure function of the seed, the dealing and ``i``, whatever the batch
it is made in. :class:`Dealing` chooses the sampler:

- nothing fixed and no condition: the uniform deal of :func:`sim.rules.shuffle.deal_batch`;
- fixed cards: the other cards dealt uniformly into the open places (:func:`sim.rules.shuffle.deal_by_counts`);
- a condition whose features all count cards (every feature but ``eval``), or the part of it joined by
  ``and`` that does: drawn directly and exactly by its count tables (:mod:`sim.rules.count_tables`),
  whatever its share of the deals;
- the rest of a condition (``eval``, or counts with too many tables): by rejection. Deal ``i``'s
  candidates come from its own streams (attempt 0, 1, ..., :func:`sim.rules.shuffle.attempt_key`), each
  drawn as above, and the first that meets the rest is the deal; the candidates are tested many at a
  time with numpy.

A condition no deal meets is refused at once: counted exactly, or after :data:`PROBE_TRIES` candidates
with none meeting it.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .cards import CardError, format_hand, parse_hand, popcount
from .conditions import (
    PARTS,
    ConditionError,
    HandValues,
    condition_text,
    conjuncts,
    counts_cards,
    evaluate,
    features,
    joined,
    parse,
)
from .count_tables import CountTables, count_tables, deals_with
from .shuffle import DEAL_ORDER, PART_SIZES, check_deal_numbers, deal_batch, deal_candidates

#: Candidates a condition dealt by rejection is tried on before it is refused as met by no deal, and
#: the seed of those tries (the same for every run, so that a condition is refused or not alike).
PROBE_TRIES = 2**20
PROBE_SEED = 0x5EED
#: Candidates tested at once, and tried at most for one deal before the run stops.
CANDIDATES = 2**16
MOST_TRIES = 2**32
ALL_DEALS = deals_with((0, 0, 0, 0))


class DealingError(ValueError):
    """Fixed cards or a condition that cannot be dealt: one line naming the problem."""


def read_fixed(fix) -> tuple[int, int, int, int]:
    """The fixed cards of forehand, middlehand, rearhand and the skat (masks) from ``SEAT=CARDS`` texts
    (``forehand=CJ SJ``) or a mapping of seat to cards; :class:`DealingError` names the first mistake."""
    items = list(fix.items()) if isinstance(fix, Mapping) else [_seat_and_cards(text) for text in fix or ()]
    fixed = [0, 0, 0, 0]
    for seat, cards in items:
        said = f"fixed cards {seat}={cards}"
        part = str(seat).strip().lower()
        if part not in PARTS:
            raise DealingError(f"{said}: unknown seat {str(seat).strip()!r} (forehand, middlehand, rearhand or skat)")
        try:
            mask = parse_hand(cards)
        except (CardError, AttributeError, TypeError):
            raise DealingError(f"{said}: {_card_problem(cards)}") from None
        if not mask:
            raise DealingError(f"{said}: no cards named")
        twice = mask & (fixed[0] | fixed[1] | fixed[2] | fixed[3])
        if twice:
            raise DealingError(f"{said}: {format_hand(twice)} fixed twice")
        p = PARTS.index(part)
        fixed[p] |= mask
        if popcount(fixed[p]) > PART_SIZES[p]:
            raise DealingError(f"{said}: {part} gets {popcount(fixed[p])} cards; it holds {PART_SIZES[p]}")
    return tuple(fixed)


def _seat_and_cards(text) -> tuple[str, str]:
    if not isinstance(text, str) or "=" not in text:
        raise DealingError(f"fixed cards {text!r}: write SEAT=CARDS, e.g. forehand=CJ SJ")
    seat, cards = text.split("=", 1)
    return seat, cards


def _card_problem(cards) -> str:
    try:
        parse_hand(cards)
    except CardError as error:
        return str(error)
    except (AttributeError, TypeError):
        return "the cards are a text such as CJ SJ HA"
    return ""


class Dealing:
    """The deals of a run: ``fix`` (``SEAT=CARDS`` texts or a mapping) and ``where`` (a condition,
    :mod:`sim.rules.conditions`); ``evaluators`` maps the names ``eval`` takes to evaluators,
    ``scores = e(hands, seat)``. :class:`DealingError` for a mistake or a condition no deal meets."""

    def __init__(self, fix=(), where: str | None = None, *, evaluators: Mapping | None = None):
        self.fixed = read_fixed(fix)
        self.evaluators = dict(evaluators or {})
        try:
            self.condition = parse(where, self.evaluators) if where is not None else None
        except ConditionError as error:
            raise DealingError(str(error)) from None
        self.uniform = self.condition is None and not any(self.fixed)
        self.tables, self.counted, self.tested = self._plan()
        self.order, self.tested_places = self._order()
        self.probe = self._probe() if self.tested is not None else None

    def _plan(self) -> tuple[CountTables, object, object]:
        """(the count tables of the part of the condition dealt directly, that part, the rest)."""
        items = conjuncts(self.condition) if self.condition is not None else []
        counting = [k for k, item in enumerate(items) if counts_cards(item)]
        chosen, tables = counting, count_tables(self.fixed, joined([items[k] for k in counting]))
        if tables is None:   # too many tables together: as many of the parts as fit, one by one
            chosen, tables = [], count_tables(self.fixed)
            for k in counting:
                more = count_tables(self.fixed, joined([items[j] for j in [*chosen, k]]))
                if more is not None:
                    chosen, tables = [*chosen, k], more
                    if not more.meeting:
                        break
        if not tables.meeting:
            raise DealingError(f"no deal{self._with_fixed()} meets {self._said()} (every deal counted)")
        counted = joined([items[k] for k in chosen])
        return tables, counted, joined([item for k, item in enumerate(items) if k not in chosen])

    def _order(self) -> tuple[np.ndarray, int]:
        """The order in which the parts take the shuffled cards (:func:`sim.rules.shuffle.deal_by_counts`),
        and how many places a candidate needs dealt for the tested part of the condition: the parts it
        reads go first, so that a candidate is tested on a few cards dealt, and only the one kept is
        dealt whole (from the same stream, so with the same cards there)."""
        if self.tested is None:
            return DEAL_ORDER, 32
        read = sorted({f.part for f in features(self.tested)} - set(self.tables.parts.tolist()))
        order = np.array([*read, *(p for p in DEAL_ORDER if p not in read)], dtype=np.int64)
        return order, sum(int(PART_SIZES[p]) - popcount(self.fixed[p]) for p in read)

    def _with_fixed(self) -> str:
        return " with the fixed cards" if any(self.fixed) else ""

    def _said(self) -> str:
        return "the fixed cards" if self.condition is None else f"the condition {condition_text(self.condition)}"

    def _probe(self) -> dict:
        """How many of the first candidates of the probe's seed meet the tested part; DealingError when
        none of :data:`PROBE_TRIES` does."""
        tried = met = 0
        while tried < PROBE_TRIES and met < 1000:
            ids = np.arange(tried, tried + CANDIDATES, dtype=np.int64)
            candidates = self._candidates(PROBE_SEED, ids, np.zeros(len(ids), np.int64), self.tested_places)
            met += int(self._meets(candidates).sum())
            tried += CANDIDATES
        if not met:
            raise DealingError(f"no deal in {tried:,} tries{self._with_fixed()} meets {self._said()}: it is"
                               f" impossible, or met by fewer than about one deal in {tried:,}, too few to deal by"
                               " trying")
        return {"tries": tried, "met": met}

    def _candidates(self, seed: int, ids: np.ndarray, attempts: np.ndarray, places: int = 32) -> np.ndarray:
        """Candidates ``attempts`` of the deals ``ids``, the top ``places`` of their shuffled cards dealt."""
        out = np.empty((len(ids), 4), dtype=np.uint32)
        deal_candidates(np.uint64(seed), ids, attempts, np.asarray(self.fixed, np.uint32), self.order, places,
                        *self.tables.arrays(), out)
        return out

    def _meets(self, candidates: np.ndarray) -> np.ndarray:
        return evaluate(self.tested, HandValues(candidates, self.evaluators))

    def deals(self, seed: int, start: int, count: int) -> np.ndarray:
        """Deals ``start .. start+count-1`` of ``seed``: a (count, 4) uint32 array, F, M, R, skat."""
        return self.dealt(seed, start, count)[0]

    def dealt(self, seed: int, start: int, count: int) -> tuple[np.ndarray, int | None]:
        """(:meth:`deals`, the candidates tried for them, or None when every deal is drawn directly)."""
        check_deal_numbers(seed, start, count)
        if self.uniform:
            return deal_batch(seed, start, count), None
        ids = np.arange(start, start + count, dtype=np.int64)
        if self.tested is None:
            return self._candidates(seed, ids, np.zeros(count, np.int64)), None
        return self._rejection(seed, ids)

    def _rejection(self, seed: int, ids: np.ndarray) -> tuple[np.ndarray, int]:
        """Each deal's first candidate that meets the tested part; candidates are made ``block`` at a time
        a deal (about half of the tries a deal takes), which changes the speed and never the deals."""
        out = np.empty((len(ids), 4), dtype=np.uint32)
        tries = np.zeros(len(ids), dtype=np.int64)
        block = int(min(CANDIDATES, max(1, self.probe["tries"] // (2 * self.probe["met"]))))
        pending = np.arange(len(ids))
        while len(pending):
            rows = pending[:max(1, CANDIDATES // block)]
            attempts = tries[rows, None] + np.arange(block)
            candidates = self._candidates(seed, np.repeat(ids[rows], block), attempts.ravel(), self.tested_places)
            met = self._meets(candidates).reshape(len(rows), block)
            hit = met.any(axis=1)
            first = met.argmax(axis=1)
            kept = attempts[hit, first[hit]]
            out[rows[hit]] = self._candidates(seed, ids[rows[hit]], kept)
            tries[rows] += np.where(hit, first + 1, block)
            if tries[rows[~hit]].max(initial=0) >= MOST_TRIES:
                raise DealingError(f"deal {ids[rows[~hit][0]]} of seed {seed} met {self._said()} in none of"
                                   f" {MOST_TRIES:,} tries")
            pending = np.concatenate([rows[~hit], pending[len(rows):]])
        return out, int(tries.sum())

    def asked(self) -> dict:
        """What was asked, written the one way skatsim writes it: ``fix`` (seat: cards) and ``where``."""
        asked = {}
        fixed = {PARTS[p]: format_hand(mask) for p, mask in enumerate(self.fixed) if mask}
        if fixed:
            asked["fix"] = fixed
        if self.condition is not None:
            asked["where"] = condition_text(self.condition)
        return asked

    def record(self) -> dict:
        """What a manifest records of the dealing: :meth:`asked`, the sampler, the part of the condition
        dealt directly by counts (``counted``) and the part by rejection (``tested``), the deals with the
        fixed cards meeting the counted part against all deals (exact), and the probe's tries."""
        record = {**self.asked(), "sampler": "direct" if self.tested is None else "rejection"}
        if self.counted is not None:
            record["counted"] = condition_text(self.counted)
        if self.tested is not None:
            record["tested"] = condition_text(self.tested)
            record["probe"] = self.probe
        record.update(deals_counted=self.tables.meeting, deals_in_all=ALL_DEALS)
        return record


def share_text(share: float) -> str:
    """A share of the deals for people: ``7.93% of deals`` or ``one deal in 233,725``."""
    if share >= 0.001:
        return f"{100 * share:.3g}% of deals"
    return f"one deal in {1 / share:,.0f}"


def dealing_text(record: dict | None, acceptance: float | None = None) -> str | None:
    """A run's dealing (a manifest's record, :meth:`Dealing.record`) in one line, with the share of the
    deals that meet it: ``forehand holds CJ SJ; where jacks(middlehand) >= 2: 4.3% of deals (exact),
    drawn directly``; by rejection the share is estimated with ``acceptance`` (the share of candidates
    kept; the probe's when None). None for a run dealt uniformly."""
    if not record:
        return None
    said = [f"{seat} holds {cards}" for seat, cards in record.get("fix", {}).items()]
    if record.get("where"):
        said.append(f"where {record['where']}")
    share = record["deals_counted"] / record["deals_in_all"]
    if record.get("sampler") != "rejection":
        return f"{'; '.join(said)}: {share_text(share)} (exact), drawn directly"
    probe = record.get("probe") or {"tries": 1, "met": 1}
    kept = acceptance if acceptance is not None else probe["met"] / probe["tries"]
    return (f"{'; '.join(said)}: about {share_text(share * kept)}, by rejection"
            f" ({100 * kept:.3g}% of candidates kept)")
