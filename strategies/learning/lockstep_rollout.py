"""The rollout teacher with card players in Python: the play-outs played in lockstep.

:func:`strategies.learning.teacher.log_decisions` plays each legal card out in numba, which a card
player in Python is not. Here the games are played first (in lockstep, as every run plays them); their
cards are replayed to keep each decision with a choice, with the play stream as it stands after the
seat's choice (the kernel players' seats choose again, and so draw as they did); then every legal card of
a block of decisions is played out at once by :func:`strategies.lockstep.play_in_lockstep` from that
stream, the kernel players' seats in numba and the seats in Python asked for all the play-outs waiting on
them. Each card is valued by the end it leads to, on the teacher's scale.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.rules.cards import popcount
from sim.rules.play import TRICK_LOG_SIZE, finish_turn, start_turn
from sim.rules.tricks import STATE, play_card, to_play
from sim.rules.view import VIEW

from ..cardplay.table import SEARCH_TRANSPOSITION_BITS, table_card, table_of
from ..lockstep import play_in_lockstep
from ..whole_deals import DECLARED_ASIDE, DECLARED_DECLARER, DECLARED_DISCARDED, start_game

#: At most this many play-outs are played in lockstep at once, so that memory stays flat.
PLAY_OUTS_AT_ONCE = 20_000


@njit(cache=True)
def replay_decisions(seed, deal_ids, deals, declared, played, table, seated, params, data, tt, stack, rows, views,
                     legals, states, rngs):
    """Replay the cards ``played`` of every declared row, keeping each decision with a choice: its row, the
    seat's view, the legal cards, the play state before the card and the play stream after the seat's
    choice (a kernel player's seat of ``table``, ``seated`` not -1, chooses again to draw as it did).
    Returns the count kept."""
    # The deal and turn loop of teacher.log_decisions, which values the cards where this one keeps states and
    # streams (see there).
    state, view = np.zeros(STATE.size, np.int64), np.zeros(VIEW.size, np.int64)
    log = np.full(TRICK_LOG_SIZE, -1, dtype=np.int8)
    kept = 0
    for k in range(deals.shape[0]):
        if declared[k, DECLARED_DECLARER] < 0:
            continue
        _, discard, rng = start_game(seed, deal_ids[k], declared[k], deals[k], state, view)
        n = 0
        while not state[STATE.finished]:
            seat = to_play(state)
            legal = start_turn(state, discard, view)
            card = np.int64(played[k, n])
            if seated[seat] >= 0:
                rng, again = table_card(table, seated[seat], seat, view, legal, params, data, rng, state,
                                        declared[k, DECLARED_ASIDE], tt, stack)
                if again != card:
                    raise ValueError("a kernel card player chose another card when its game was replayed")
            if popcount(legal) > 1:
                rows[kept], legals[kept], rngs[kept] = k, legal, rng
                views[kept], states[kept] = view, state
                kept += 1
            finish_turn(state, legal, card, log, n)
            n += 1
    return kept


@njit(cache=True)
def play_first_cards(states, cards):
    """Play ``cards[i]`` in ``states[i]``: each play-out's first card."""
    for i in range(states.shape[0]):
        play_card(states[i], cards[i])


def rollout_decisions(policies, *, seed: int, deal_ids, deals, declared, heard, played, end_values) -> dict:
    """The decisions of the games ``played`` (their trick logs, a row per deal of ``declared``) with the
    rollout teacher's values: ``deal_id``, ``view``, ``legal`` and ``values`` as
    :func:`strategies.learning.teacher.decision_columns` gives them. ``end_values(states, asides,
    schneider_announced, out)`` is the teacher's scale: the value of each finished play-out."""
    table, size = table_of(policies), len(deal_ids) * 27
    tt, stack = table.workspace(SEARCH_TRANSPOSITION_BITS)
    rows, legals, rngs = np.empty(size, np.int64), np.empty(size, np.uint32), np.empty(size, np.uint64)
    views, states = np.empty((size, VIEW.size), np.int64), np.empty((size, STATE.size), np.int64)
    kept = replay_decisions(np.uint64(seed), deal_ids, deals, declared, played, table, table.seated, table.params,
                            table.data, tt, stack, rows, views, legals, states, rngs)
    values = np.full((kept, 32), np.nan, np.float32)
    cards = (legals[:kept, None] >> np.arange(32, dtype=np.uint32)) & 1 != 0
    decision, card = np.nonzero(cards)
    for at in range(0, len(decision), PLAY_OUTS_AT_ONCE):
        these, first = decision[at:at + PLAY_OUTS_AT_ONCE], card[at:at + PLAY_OUTS_AT_ONCE]
        children, aside = _played_out(policies, these, first, seed=seed, deal_ids=deal_ids, declared=declared,
                                      heard=heard, rows=rows, views=views, states=states, rngs=rngs)
        out = np.empty(len(these), np.float64)
        end_values(children, aside, views[these, VIEW.schneider_announced], out)
        values[these, first] = out
    return {"deal_id": deal_ids[rows[:kept]], "view": views[:kept], "legal": legals[:kept], "values": values}


def _played_out(policies, decision, card, *, seed, deal_ids, declared, heard, rows, views, states, rngs):
    """The finished play-outs that start with ``card[i]`` at ``decision[i]``, and the cards that count for
    their declarers unplayed."""
    row = rows[decision]
    children = states[decision]
    play_first_cards(children, card.astype(np.int64))
    aside = np.ascontiguousarray(declared[row, DECLARED_ASIDE])
    discards = np.where(declared[row, DECLARED_DISCARDED] != 0, aside, 0)
    play_in_lockstep(policies, seed=seed, deal_ids=deal_ids[row], states=children, views=views[decision],
                     heard=heard[row], discards=discards, asides=aside, rngs=rngs[decision],
                     logs=np.full((len(row), TRICK_LOG_SIZE), -1, np.int8), search_bits=SEARCH_TRANSPOSITION_BITS)
    return children, aside
