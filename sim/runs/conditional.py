"""The deals of a run: dealt uniformly, or with fixed cards and a condition on the hands
(:mod:`sim.rules.dealing`), checked before a run starts, recorded in its manifest, and built once per
process with every registered evaluator for the condition's ``eval``.

A run's play keeps what was asked (:func:`run_dealing`: ``{"fix": {seat: cards}, "where": condition}``,
plain data that pickles, or None for the uniform deal) and deals each part with :func:`dealt`; the
manifest's config holds :func:`dealing_record` under ``dealing``, from which :func:`asked_of` reads it
back.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from sim.rules.dealing import Dealing, DealingError
from sim.rules.shuffle import deal_batch
from sim.runs import RunError
from strategies.registry import build, names

_dealings: dict[str, Dealing] = {}


def run_dealing(fix=(), where: str | None = None) -> dict | None:
    """What a run asks of its deals, checked (:class:`RunError` for a mistake or a condition no deal
    meets) and written the one way: ``{"fix": {seat: cards}, "where": condition}``, or None for the
    uniform deal. ``fix``: ``SEAT=CARDS`` texts or a mapping; ``where``: a condition
    (:mod:`sim.rules.conditions`)."""
    if not fix and where is None:
        return None
    return _dealing(fix, where).asked() or None


def cached_dealing(asked: dict | None) -> Dealing | None:
    """The dealing of a run's ``asked`` (:func:`run_dealing`), built once per process; None: uniform."""
    return _dealing(asked.get("fix", {}), asked.get("where")) if asked else None


def _dealing(fix, where) -> Dealing:
    """The dealing, kept under what was asked and under the way it is written (what a manifest holds), so
    that the processes of a run find the one its main process built and checked."""
    key = _dealing_key(fix if isinstance(fix, dict) else list(fix), where)
    if key not in _dealings:
        try:
            dealing = Dealing(fix, where, evaluators={name: build("evaluator", name) for name in names("evaluator")})
        except DealingError as error:
            raise RunError(str(error)) from None
        asked = dealing.asked()
        _dealings[key] = _dealings[_dealing_key(asked.get("fix", {}), asked.get("where"))] = dealing
    return _dealings[key]


def _dealing_key(fix, where) -> str:
    return json.dumps([fix, where], sort_keys=True)


def dealing_record(asked: dict | None) -> dict:
    """What a manifest says of the dealing (``{"dealing": ...}``, :meth:`Dealing.record`); {} for the
    uniform deal, so that its manifest stays the one it always was."""
    return {"dealing": cached_dealing(asked).record()} if asked else {}


def asked_of(described: dict) -> dict | None:
    """The dealing a manifest's description asked for (its fixed cards and condition), or None."""
    record = described.get("dealing")
    if not isinstance(record, dict):
        return None
    return {key: record[key] for key in ("fix", "where") if key in record} or None


def dealt(asked: dict | None, seed: int, start: int, count: int) -> tuple[np.ndarray, int | None]:
    """Deals ``start .. start + count - 1`` of ``seed`` as ``asked`` (:func:`run_dealing`), and the
    candidate deals tried for them (None when none was turned down)."""
    if not asked:
        return deal_batch(seed, start, count), None
    return cached_dealing(asked).dealt(seed, start, count)


def dealing_suffix(asked: dict | None) -> str:
    """A conditional run's part of its default folder's name: ``-dealt~`` and 8 hex digits of its fixed
    cards and condition ('' for a run dealt uniformly), so that runs of other conditions never meet."""
    if not asked:
        return ""
    return "-dealt~" + hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()[:8]
