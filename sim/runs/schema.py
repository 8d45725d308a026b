"""The columns of a run's parts: their names, Arrow types and labels, one set a mode, versioned.

Every part of a run has exactly the same columns and types (documented in docs/schema.md),
versioned by :data:`SCHEMA_VERSION`; :func:`to_arrow` makes a part's columns into them, and
:func:`game_id` reads the game labels back as ids. The runner and the importers write them, and
analysis and calibration read them.

This module imports only the rules engine.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from sim.rules.cards import SEAT_SUFFIXES
from sim.rules.games import GAME_NAMES
from sim.rules.play import TRICK_LOG_SIZE
from sim.rules.view import VIEW

SCHEMA_VERSION = 4
#: Older schema versions analysis still reads (version 2: a passed-in deal's game is null; version 3:
#: every seat's evaluator scores always logged).
READABLE_VERSIONS = (2, 3, 4)
MODES = ("game", "declare", "match", "decisions")

GAME_TYPE = pa.dictionary(pa.int8(), pa.string())
#: The ``game`` of a passed-in deal (and the ``intended_game_*`` of a seat that means to pass): a
#: label of its own, so that it is never confused with the null game in a printed frame.
PASSED = "passed"
GAME_LABELS = (*GAME_NAMES, PASSED)

#: Columns shared by every mode, with their Parquet types.
_RESULT_TYPES = {
    "matadors": pa.int8(), "declarer_points": pa.int8(), "declarer_tricks": pa.int8(),
    "schneider": pa.bool_(), "schwarz": pa.bool_(), "won": pa.bool_(), "overbid": pa.bool_(),
    "game_value": pa.int16(), "score": pa.int16(), "sf_f": pa.int16(), "sf_m": pa.int16(),
    "sf_r": pa.int16(), "value_reached": pa.int16(), "won_in_play": pa.bool_(),
}
_DECLARATION_TYPES = {
    "hand": pa.bool_(), "schneider_announced": pa.bool_(), "schwarz_announced": pa.bool_(),
    "ouvert": pa.bool_(), "discard": pa.uint32(),
}
GAME_MODE_TYPES = {
    "deal_id": pa.int64(), "hand_f": pa.uint32(), "hand_m": pa.uint32(), "hand_r": pa.uint32(),
    "skat": pa.uint32(), "passed": pa.bool_(), "declarer": pa.int8(), "bid": pa.int16(),
    "game": GAME_TYPE, **_DECLARATION_TYPES, **_RESULT_TYPES,
    "max_bid_f": pa.int16(), "max_bid_m": pa.int16(), "max_bid_r": pa.int16(),
    "intended_game_f": GAME_TYPE, "intended_game_m": GAME_TYPE, "intended_game_r": GAME_TYPE,
}
DECLARE_MODE_TYPES = {
    "deal_id": pa.int64(), "seat": pa.int8(), "game": GAME_TYPE, "bid": pa.int16(), **_DECLARATION_TYPES,
    "evaluator_score": pa.float32(), **_RESULT_TYPES,
}
TRICKS_TYPE = pa.list_(pa.int8(), TRICK_LOG_SIZE)
#: Columns of a run played with ``--open-hand`` (game and declare mode): each declared game's
#: open-hand value at its first lead; null without a game, the points also null in null games.
OPEN_HAND_TYPES = {"oh_declarer_points": pa.int8(), "oh_won": pa.bool_()}
EVALUATOR_PREFIX = "eval_"
#: A duplicate match: every deal played six times, one row per deal and seating (see SEATINGS).
MATCH_MODE_TYPES = {**GAME_MODE_TYPES, "seating": pa.int8()}
#: Card decisions with a teacher's values (``skatsim decisions``): one row per decision with a choice;
#: ``view`` is the seat's view (sim.rules.view), ``values`` the teacher's value of each card (by card
#: id; NaN for the cards not legal).
DECISION_MODE_TYPES = {"deal_id": pa.int64(), "view": pa.list_(pa.int64(), VIEW.size), "legal": pa.uint32(),
                       "values": pa.list_(pa.float32(), 32)}
MODE_TYPES = {"game": GAME_MODE_TYPES, "declare": DECLARE_MODE_TYPES, "match": MATCH_MODE_TYPES,
              "decisions": DECISION_MODE_TYPES}

#: The seatings of a duplicate match between A and B: seating k puts one player alone at seat
#: ``k // 2`` (forehand, middlehand, rearhand) against two of the other: A alone for even k, B
#: alone for odd k. Over the six seatings each side holds every seat alone and in the pair.
SEATINGS = tuple((seat, alone) for seat in range(3) for alone in ("a", "b"))


def seats_of(side: str, seating: int) -> tuple[int, ...]:
    """The seats ``side`` ("a" or "b") holds in ``seating``."""
    seat, alone = SEATINGS[seating]
    return (seat,) if side == alone else tuple(s for s in range(3) if s != seat)


#: Where a run's deals come from (the manifest's ``config.source``): played by the simulation
#: (the default; the key is absent), or imported from an archive of the International Skat Server.
SIMULATION, ISS_ARCHIVE = "simulation", "iss"
#: Columns an imported run has beside those of game mode. Game-mode columns the archive cannot
#: give are null there (the bid plans ``max_bid_*``, ``intended_game_*``), and so are the outcome
#: columns of a game a time-out or penalty ended (see docs/schema.md).
ARCHIVE_TYPES = {
    "archive_file": pa.dictionary(pa.int16(), pa.string()), "archive_line": pa.int64(),
    "archive_id": pa.string(), "date": pa.timestamp("s", tz="UTC"),
    "player_f": pa.string(), "player_m": pa.string(), "player_r": pa.string(),
    "ended": pa.dictionary(pa.int8(), pa.string()), "ended_by": pa.int8(), "agrees": pa.bool_(),
}  # ended: one of sim.rules.records.ENDINGS


def evaluator_column(evaluator: str, seat: int | None = None, game: int | None = None) -> str:
    """The column of an evaluator's scores.

    Without a seat: ``eval_<evaluator>``, the declarer's score for the declared game
    (one per row in every mode; what analysis reads). With a seat and a game:
    ``eval_<evaluator>_<f|m|r>_<game>``, that seat's score for that game (game mode).
    """
    if seat is None:
        return f"{EVALUATOR_PREFIX}{evaluator}"
    return f"{EVALUATOR_PREFIX}{evaluator}_{SEAT_SUFFIXES[seat]}_{GAME_NAMES[game]}"


def game_labels(ids: np.ndarray, unknown: np.ndarray | None = None) -> pa.Array:
    """Game type ids as dictionary strings (:data:`GAME_LABELS`); -1 (no game: passed in) becomes
    ``passed``, and the rows ``unknown`` marks become null (an archive that does not say)."""
    ids = np.asarray(ids, dtype=np.int8)
    ids = np.where(ids < 0, GAME_LABELS.index(PASSED), ids).astype(np.int8)
    return pa.DictionaryArray.from_arrays(pa.array(ids, mask=unknown, type=pa.int8()), pa.array(GAME_LABELS))


def game_id():
    """The ``game`` dictionary column as a polars expression of its id 0..5; null for a passed-in deal
    (labelled ``passed`` since schema version 3, null before). polars is imported here, when a reader
    asks, and not with the module: the runs write their parts without it."""
    import polars as pl

    game = pl.lit(None, pl.Int8)
    for number, name in reversed(list(enumerate(GAME_NAMES))):  # comparing labels reads no string
        game = pl.when(pl.col("game") == name).then(pl.lit(number, pl.Int8)).otherwise(game)
    return game.alias("game")


def to_arrow(columns: dict, mode: str, source: str = SIMULATION) -> pa.Table:
    """The part's rows in Arrow, in the documented schema; evaluator scores (``eval_*``) become float32.

    A column may be a numpy array, a numpy masked array (masked: null) or a pyarrow array; an
    imported run (``source`` not the simulation) also has the :data:`ARCHIVE_TYPES` columns.
    """
    types = dict(MODE_TYPES[mode])
    types.update({k: pa.float32() for k in columns if k.startswith(EVALUATOR_PREFIX)})
    if "tricks" in columns:
        types["tricks"] = TRICKS_TYPE
    if "oh_won" in columns:
        types.update(OPEN_HAND_TYPES)
    metadata = {"skatsim_schema_version": str(SCHEMA_VERSION), "skatsim_mode": mode}
    if source != SIMULATION:
        types.update(ARCHIVE_TYPES)
        metadata["skatsim_source"] = source
    missing = set(types) - set(columns)
    if missing:
        raise ValueError(f"columns missing for the {mode} schema: {', '.join(sorted(missing))}")
    arrays = {name: _arrow(columns[name], kind) for name, kind in types.items()}
    schema = pa.schema([pa.field(n, t) for n, t in types.items()], metadata=metadata)
    return pa.Table.from_pydict(arrays, schema=schema)


def _arrow(values, kind):
    if isinstance(values, pa.Array):
        return values if values.type == kind else values.cast(kind)
    if isinstance(values, np.ma.MaskedArray):
        if kind == GAME_TYPE:
            return game_labels(np.ma.filled(values, -1), np.ma.getmaskarray(values))
        return pa.array(np.ma.getdata(values).astype(kind.to_pandas_dtype()), mask=np.ma.getmaskarray(values),
                        type=kind)
    if kind == GAME_TYPE:
        return game_labels(values)
    if isinstance(kind, pa.FixedSizeListType):
        flat = pa.array(np.asarray(values, dtype=kind.value_type.to_pandas_dtype()).ravel())
        return pa.FixedSizeListArray.from_arrays(flat, kind.list_size)
    return pa.array(np.asarray(values).astype(kind.to_pandas_dtype(), copy=False))
