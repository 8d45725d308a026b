"""Open-hand answers for game records: what ``skatsim solve`` writes for each record.

A record (:mod:`sim.rules.records`, with ``bid`` and ``play`` optional) gives a
position: the start of card play, or the point after the cards it lists. Its answer
is the open-hand value there (:mod:`sim.rules.solver`): the declarer's card points
with best play on both sides (null games: whether the declarer avoids every trick),
whether schwarz is possible, and the cards of the side to move that keep the value.

With ``trace``, each card played gets the open-hand value after it and what it gave
away: the card points its side lost against best play (null games: whether it turned
the outcome against its side). A card that gave nothing away was a best card; the
others are where a played game was lost or won by the opponents' mistakes.
"""

from __future__ import annotations

import time

import numpy as np

from . import solver
from .cards import format_card
from .games import GAME_NAMES, NULL
from .records import Position, read_position, record_id
from .tricks import CardPlay

#: The fields of an answer after ``id`` and ``passed_in`` (all null for a deal all three passed).
ANSWER_FIELDS = ("game", "declarer", "cards_played", "to_play", "declarer_points", "declarer_wins",
                 "declarer_schwarz_possible", "best_cards", "nodes", "microseconds")


def solve_record(record: dict, trace: bool = False, table: np.ndarray | None = None) -> dict:
    """The open-hand answer for one record as a JSON-ready dict (see the module doc).

    Raises :class:`sim.rules.records.RecordError` for a record that breaks a rule.
    """
    position = read_position(record)
    if position is None:
        return {"id": record_id(record), "passed_in": True, **dict.fromkeys(ANSWER_FIELDS)}
    start = time.perf_counter_ns()
    s = solver.solve(position.play.state, position.declarer_skat, table)
    microseconds = (time.perf_counter_ns() - start) // 1000
    play = position.play
    answer = {
        "id": record_id(record),
        "passed_in": False,
        "game": GAME_NAMES[position.declaration.game],
        "declarer": position.declarer,
        "cards_played": len(position.played),
        "to_play": None if play.finished else play.to_play,
        "declarer_points": s.declarer_points,
        "declarer_wins": s.declarer_wins,
        "declarer_schwarz_possible": s.schwarz_possible,
        "best_cards": [format_card(c) for c in s.best_cards],
        "nodes": s.nodes,
        "microseconds": microseconds,
    }
    if trace:
        first_lead, answer["trace"] = card_by_card(position, table)
        points = first_lead if position.declaration.game != NULL else None
        answer["first_lead"] = {"declarer_points": points,
                                "declarer_wins": bool(first_lead) if points is None else first_lead >= 61}
    return answer


def card_by_card(position: Position, table: np.ndarray | None = None) -> tuple[int, list[dict]]:
    """The open-hand value at the first lead (points, or null's 1/0), and for each card played:
    who played it, the value after it, and what it gave away."""
    tt = solver.default_table() if table is None else table
    stack = solver.new_stack()
    play = CardPlay(position.hands, position.declaration.game, position.declarer)
    skat = position.declarer_skat
    before = first_lead = int(solver.open_hand_value(play.state, skat, tt, stack))
    steps = []
    for card in position.played:
        seat = play.to_play
        play.play(card)
        after = int(solver.open_hand_value(play.state, skat, tt, stack))
        steps.append(_step(card, seat, position, before, after))
        before = after
    return first_lead, steps


def _step(card: int, seat: int, position: Position, before: int, after: int) -> dict:
    """One card of the trace. ``before``/``after``: open-hand values (points, or null's 1/0)."""
    lost = before - after if seat == position.declarer else after - before
    if position.declaration.game == NULL:
        return {"card": format_card(card), "seat": seat, "declarer_points": None,
                "declarer_wins": bool(after), "gave_away": None, "mistake": lost > 0}
    return {"card": format_card(card), "seat": seat, "declarer_points": after,
            "declarer_wins": after >= 61, "gave_away": lost, "mistake": lost > 0}
