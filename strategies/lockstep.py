"""The play loop of a seating with card players in Python: a batch of deals played in lockstep.

numba plays the seats of kernel players (:func:`strategies.cardplay.table.table_card`) of every deal of
the batch until each game is over or waits for a seat whose player is written in Python
(:mod:`strategies.cardplay.python_players`). Then each such player answers for every deal waiting on
its seat: a :class:`BatchCardPlayer` in one call with the :class:`SeatViews` of them all, a
:class:`CardPlayer` one :class:`SeatView` at a time. numba checks and plays the cards, and the loop
goes on until every game is over. A deal's cards are the ones ``play_out`` plays for the same
choices: the same rules kernels, the same random stream for the kernel players' seats.
:func:`strategies.whole_deals.play_batch_python` sets the games up and scores them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.rules.cards import SEAT_NAMES, format_card, format_hand
from sim.rules.play import check_card, log_and_play, start_turn
from sim.rules.tricks import STATE, to_play
from sim.rules.view import VIEW

from .cardplay.python_players import BatchCardPlayer, CardPlayerError
from .cardplay.seat_view import SeatView, SeatViews, card_id
from .cardplay.table import table_card, table_of


@njit(cache=True)
def advance_games(states, views, discards, asides, table, seated, params, data, rngs, logs, counts, tt, stack,
                  waiting, legals):
    """Play the kernel players' seats of every game (those of ``table``) until it is over or a seat played in
    Python (``seated`` -1) is to play; returns how many games wait, their rows in ``waiting`` and their legal
    cards in ``legals`` (their views filled)."""
    n = 0
    for k in range(states.shape[0]):
        state = states[k]
        while not state[STATE.finished]:
            seat = to_play(state)
            legal = start_turn(state, discards[k], views[k])
            if seated[seat] < 0:
                waiting[n], legals[n] = k, legal
                n += 1
                break
            rngs[k], card = table_card(table, seated[seat], seat, views[k], legal, params, data, rngs[k], state,
                                       asides[k], tt, stack)
            check_card(legal, card)
            log_and_play(state, card, logs[k], counts[k])
            counts[k] += 1
    return n


@njit(cache=True)
def play_cards(states, waiting, legals, cards, logs, counts):
    """Play ``cards[i]`` in game ``waiting[i]``; returns -1, or the first ``i`` whose card is not legal."""
    for i in range(waiting.shape[0]):
        card, legal = cards[i], np.uint32(legals[i])
        if card < 0 or card > 31 or not (legal >> np.uint32(card)) & np.uint32(1):
            return i
        k = waiting[i]
        log_and_play(states[k], card, logs[k], counts[k])
        counts[k] += 1
    return -1


def play_in_lockstep(policies, *, seed: int, deal_ids, states, views, heard, discards, asides, rngs, logs,
                     search_bits: int) -> None:
    """Play every game of ``states`` to its end (the games set up and their views' declarations set, one row
    each; a finished state for a deal without a game), logging the cards in ``logs``. ``heard`` is what every
    seat heard in each deal's auction (:data:`sim.rules.auction.AUCTION` rows). ``discards`` are the
    declarer's discards as the views show them, ``asides`` the cards that count for the declarer unplayed,
    ``rngs`` each deal's play stream; ``search_bits`` sizes the solver's table of searching players."""
    n = len(deal_ids)
    table = table_of(policies)
    tt, stack = table.workspace(search_bits)
    counts, waiting, legals = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    views = np.hstack([views, heard])   # each view followed by its auction: a decision's row holds both
    while True:
        count = advance_games(states, views, discards, asides, table, table.seated, table.params, table.data, rngs,
                              logs, counts, tt, stack, waiting, legals)
        if count == 0:
            return
        rows, legal = waiting[:count], legals[:count]
        cards = np.empty(count, np.int64)
        seat_of = views[rows, VIEW.seat]
        for seat in np.unique(seat_of):
            mine = np.flatnonzero(seat_of == seat)
            these = rows[mine]
            cards[mine] = _answers(policies[seat], views[these], legal[mine], deal_ids=deal_ids[these], seed=seed)
        bad = play_cards(states, rows, legal, cards, logs, counts)
        if bad >= 0:
            raise CardPlayerError(_illegal(policies[seat_of[bad]], views[rows[bad]], legal[bad], cards[bad],
                                           deal_ids[rows[bad]]))


def _answers(player, views: np.ndarray, legal: np.ndarray, *, deal_ids: np.ndarray, seed: int) -> np.ndarray:
    """The cards ``player`` chooses at the decisions of ``views`` (ids; -1 for what is not a card), each row the
    engine's view followed by the :data:`sim.rules.auction.AUCTION` row of its deal."""
    if isinstance(player, BatchCardPlayer):
        try:
            chosen = player.play_batch(SeatViews(views, legal, deal_id=deal_ids, seed=seed))
        except Exception as error:
            raise CardPlayerError(f"{_who(player)} raised {type(error).__name__}: {error}, deciding for "
                                  f"{len(views)} deals from {_decision(views[0], deal_ids[0])}") from error
        return _batch_ids(player, chosen, views, deal_ids)
    cards = np.empty(len(views), np.int64)
    for i, (values, mask, deal) in enumerate(zip(views.tolist(), legal.tolist(), deal_ids.tolist())):
        try:
            cards[i] = card_id(player.play(SeatView(values, mask, deal_id=deal, seed=seed)))
        except Exception as error:
            raise CardPlayerError(f"{_who(player)} raised {type(error).__name__}: {error}, "
                                  f"at {_decision(views[i], deal)}") from error
    return cards


def _batch_ids(player, chosen, views: np.ndarray, deal_ids: np.ndarray) -> np.ndarray:
    """A batch player's answer as card ids, one per decision."""
    chosen = np.asarray(chosen)
    if chosen.shape != (len(views),):
        raise CardPlayerError(f"{_who(player)} answered {chosen.shape[0] if chosen.ndim else 'one'} cards"
                              f"{'' if chosen.ndim <= 1 else f' in shape {chosen.shape}'} for {len(views)} "
                              f"decisions, from {_decision(views[0], deal_ids[0])}")
    if chosen.dtype.kind in "iu":
        return np.where((chosen >= 0) & (chosen < 32), chosen, -1).astype(np.int64)
    return np.array([card_id(c) for c in chosen.tolist()], dtype=np.int64)


def _who(player) -> str:
    return f"card player {player.name or type(player).__name__!r}"


def _decision(view: np.ndarray, deal_id: int) -> str:
    """Which decision a view is: the deal, the trick and the seat."""
    return f"deal {int(deal_id)}, trick {int(view[VIEW.tricks_done]) + 1}, {SEAT_NAMES[int(view[VIEW.seat])]}"


def _illegal(player, view: np.ndarray, legal: int, card: int, deal_id: int) -> str:
    shown = "something that is not a card" if card < 0 else format_card(int(card))
    return (f"{_who(player)} chose {shown}, which is not legal, at {_decision(view, deal_id)} "
            f"(legal: {format_hand(int(legal))})")
