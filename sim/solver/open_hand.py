"""Open-hand answers for game records: what ``skatsim solve`` writes for each record.

A record (:mod:`sim.rules.records`, with ``bid`` and ``play`` optional) gives a
position: the start of card play, or the point after the cards it lists. Its answer
is the open-hand value there (:mod:`sim.solver`): the declarer's card points
with best play on both sides (null games: whether the declarer avoids every trick),
whether schwarz is possible, and the cards of the side to move that keep the value.

:func:`first_lead_outcomes` gives the open-hand value and outcome of a batch of
declared games at their first lead (the columns ``oh_*`` of ``skatsim simulate --open-hand``).

With ``trace``, each card played gets the open-hand value after it and what it gave
away: the card points its side lost against best play (null games: whether it turned
the outcome against its side). A card that gave nothing away was a best card; the
others are where a played game was lost or won by the opponents' mistakes.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from sim.rules.cards import format_card
from sim.rules.games import GAME_NAMES, NULL
from sim.rules.records import Position, read_position, record_id
from sim.rules.scoring import game_outcome, matadors
from sim.rules.tricks import STATE, CardPlay, start_play
from sim.solver.api import default_transpositions, solve
from sim.solver.frames import NODES, new_stack
from sim.solver.roots import declarer_takes_all, open_hand_value

#: The fields of an answer after ``id`` and ``passed_in`` (all null for a deal all three passed).
ANSWER_FIELDS = ("game", "declarer", "cards_played", "to_play", "declarer_points", "declarer_wins",
                 "declarer_schwarz_possible", "best_cards", "nodes", "microseconds")


def solve_record(record: dict, trace: bool = False, transpositions: np.ndarray | None = None) -> dict:
    """The open-hand answer for one record as a JSON-ready dict (see the module doc).

    Raises :class:`sim.rules.records.RecordError` for a record that breaks a rule.
    """
    position = read_position(record)
    if position is None:
        return {"id": record_id(record), "passed_in": True, **dict.fromkeys(ANSWER_FIELDS)}
    start = time.perf_counter_ns()
    s = solve(position.play.state, position.aside, transpositions)
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
        first_lead, answer["trace"] = card_by_card(position, transpositions)
        points = first_lead if position.declaration.game != NULL else None
        answer["first_lead"] = {"declarer_points": points,
                                "declarer_wins": bool(first_lead) if points is None else first_lead >= 61}
    return answer


def card_by_card(position: Position, transpositions: np.ndarray | None = None) -> tuple[int, list[dict]]:
    """The open-hand value at the first lead (points, or null's 1/0), and for each card played:
    its trick (1 to 10), who played it, the value after it, and what it gave away."""
    tt = default_transpositions() if transpositions is None else transpositions
    stack = new_stack()
    play = CardPlay(position.hands, position.declaration.game, position.declarer)
    aside = position.aside
    before = first_lead = int(open_hand_value(play.state, aside, tt, stack))
    steps = []
    for card in position.played:
        seat, trick = play.to_play, len(play.trick_winners) + 1
        play.play(card)
        after = int(open_hand_value(play.state, aside, tt, stack))
        steps.append({"trick": trick, **_step(card, seat, position, before, after)})
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


#: What the declarer must reach to win, from the lowest: (card points, tricks) of a game won
#: plainly, schneider, and schwarz; scored by the engine to find the lowest that wins at the bid.
_LEVELS = np.array([[61, 5], [90, 8], [120, 10]], dtype=np.int64)


def first_lead_outcomes(hands, skat, declarer, game, discard, bid, hand, schneider, schwarz, ouvert,
                        transpositions: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Open-hand outcomes of declared games at their first lead, row by row: (values, won, nodes).

    ``hands`` (n, 3): the hands as dealt; ``skat``: the skat as dealt; ``declarer``: the
    seat, -1 for a deal without a game; ``game``: the game id; ``discard``: the two cards
    put away, 0 for a hand game (whose skat counts instead); ``bid`` and the declaration's
    flags (normalized, as the engine plays them).

    ``values``: the declarer's card points with best play on both sides (suit, grand), or
    1 when the declarer of a null game avoids every trick and 0 when not; -1 without a
    game. ``won``: the declarer wins the game as declared at its bid with best play on both
    sides: the bid and the announcements set what must be reached (61 or 90 card points,
    or every trick), the engine's scoring says which. ``nodes``: positions searched.
    """
    n = len(declarer)
    values, won, nodes = np.full(n, -1, np.int64), np.zeros(n, np.bool_), np.zeros(n, np.int64)
    flags = np.column_stack([np.asarray(a, np.int64).reshape(n) for a in
                             (declarer, game, discard, bid, hand, schneider, schwarz, ouvert)])
    tt = default_transpositions() if transpositions is None else transpositions
    _first_lead_outcomes(np.asarray(hands, np.int64).reshape(n, 3), np.asarray(skat, np.int64).reshape(n),
                         flags, tt, new_stack(), values, won, nodes)
    return values, won, nodes


@njit(cache=True)
def _needed_level(game, flags, twelve):
    """The lowest of :data:`_LEVELS` at which the game wins at its bid; 3 when none does (overbid)."""
    mat = matadors(game, twelve)
    for level in range(3):
        won, _, _, _, _ = game_outcome(game, flags[4] == 1, flags[5] == 1, flags[6] == 1, flags[7] == 1,
                                       flags[3], mat, _LEVELS[level, 0], _LEVELS[level, 1])
        if won:
            return level
    return 3


@njit(cache=True)
def _first_lead_outcomes(hands, skat, flags, tt, stack, values, won, nodes):
    state = np.zeros(STATE.size, dtype=np.int64)
    in_play = np.empty(3, dtype=np.int64)
    for k in range(len(values)):
        d, game, discard = flags[k, 0], flags[k, 1], flags[k, 2]
        if d < 0:
            continue
        aside = discard if discard else skat[k]
        twelve = hands[k, d] | skat[k]
        in_play[:] = hands[k]
        in_play[d] = twelve & ~aside
        start_play(state, in_play[0], in_play[1], in_play[2], game, d)
        values[k] = open_hand_value(state, aside, tt, stack)
        nodes[k] = stack[NODES, 0]
        if game == NULL:
            won[k] = values[k] == 1
            continue
        level = _needed_level(game, flags[k], twelve)
        if level < 2:
            won[k] = values[k] >= _LEVELS[level, 0]
        elif level == 2:
            won[k] = declarer_takes_all(state, tt, stack)
            nodes[k] += stack[NODES, 0]
