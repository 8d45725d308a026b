"""The server's result of an ISS record beside the engine's: what each says, and what must agree.

:func:`archive_result` reads the ``R`` field's items in the engine's terms, :func:`engine_result`
gives a checked row's result in the same terms, and :func:`agrees` compares the items that
:func:`compared` names for the row: every item for a game played out, what the cards decide for
one that ended early, nobody declaring for a passed-in deal, the seat charged for a penalty record.
"""

from __future__ import annotations

from sim.rules.games import NULL
from sim.rules.records import CLAIMED, LEFT, PASSED, PENALTY, PLAYED, RESIGNED, TIMEOUT


def archive_result(items: dict) -> dict:
    """The server's result in the engine's terms (what :func:`engine_result` gives for a game)."""
    outcome, score = items.get("outcome"), items.get("v")
    charged = _charged_seat(items)
    return {"declarer": items.get("d"), "outcome": outcome, "score": score,
            "game_value": archive_value(outcome, score), "matadors": items.get("m"),
            "overbid": None if "bid" not in items else items["bid"] == "overbid",
            "points": items.get("p"), "tricks": items.get("t"),
            "schneider": _flag(items, "s"), "schwarz": _flag(items, "z"),
            **({} if charged is None else {"charged": charged})}


def _charged_seat(items: dict) -> int | None:
    """The seat the server charged with a time-out (``to:n``) or with leaving (``l:n``)."""
    for key in ("to", "l"):
        if items.get(key, -1) >= 0:
            return items[key]
    return None


def _flag(items: dict, key: str) -> bool | None:
    return None if key not in items else bool(items[key])


def archive_value(outcome: str | None, score: int | None) -> int | None:
    """The game value behind the server's score: the score when won, minus half of it when lost."""
    if score is None:
        return None
    if outcome == "win" and score > 0:
        return score
    if outcome == "loss" and score < 0 and score % 2 == 0:
        return -score // 2
    return None


def engine_result(row: dict) -> dict:
    """The engine's result of a checked game in the terms of :func:`archive_result`."""
    if row["passed"]:
        return {"declarer": -1, "outcome": "passed", "score": 0}
    if row["ended"] == PENALTY:
        return {"declarer": row["declarer"], "outcome": "penalty", "charged": row["ended_by"]}
    won = row["won"]
    return {"declarer": row["declarer"], "outcome": None if won is None else ("win" if won else "loss"),
            "score": row["score"], "game_value": row["game_value"], "matadors": row["matadors"],
            "overbid": row["overbid"], "points": row["declarer_points"], "tricks": row["declarer_tricks"],
            "schneider": row["schneider"], "schwarz": row["schwarz"]}


#: What must agree between the engine and the server: for a game played out, every item; for a
#: game that ended early, what the cards decide; for a passed-in deal, that nobody declared; for a
#: penalty record, the declarer (-1 when the auction was not over) and the seat charged.
COMPARED = {
    PLAYED: ("declarer", "outcome", "game_value", "score", "matadors", "overbid", "points", "tricks", "schneider",
             "schwarz"),
    PASSED: ("declarer", "score"),
    **{end: ("declarer", "matadors") for end in (RESIGNED, CLAIMED, TIMEOUT, LEFT)},
    PENALTY: ("declarer", "charged"),
}
#: A game stopped at the trick that missed its announcement: the server's ``s:`` and ``z:`` then
#: say only what the tricks left unplayed would have decided, so they are not compared.
STOPPED = COMPARED[PLAYED][:-2]


def compared(row: dict) -> tuple[str, ...]:
    """The items of the results compared for a row (see :data:`COMPARED` and :data:`STOPPED`)."""
    return STOPPED if stopped(row) else COMPARED[row["ended"]]


def stopped(row: dict) -> bool:
    """A suit or grand game scored by the cards but not played to the last trick (its announcement missed)."""
    return row["ended"] == PLAYED and row["game"] != NULL and row["tricks"][29] < 0


def agrees(row: dict, engine: dict, archive: dict) -> bool:
    if row["ended"] == PASSED:  # older archives write placeholders for a passed-in deal
        return archive["declarer"] in (None, -1) and archive["score"] in (None, 0)
    if row["ended"] == PENALTY:  # once the auction is over the server may name its winner, or no one
        return archive["declarer"] in (-1, engine["declarer"]) and archive.get("charged") == engine["charged"]
    return all(engine[key] == archive.get(key) for key in compared(row))
