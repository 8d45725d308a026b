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
            player, batch = policies[seat_of[bad]], np.flatnonzero(seat_of == seat_of[bad])
            place = int(np.searchsorted(batch, bad)) if isinstance(player, BatchCardPlayer) else None
            raise CardPlayerError(f"{_who(player)} chose {format_card(int(cards[bad]))}, which is not legal "
                                  f"(legal: {format_hand(int(legal[bad]))}) at "
                                  f"{_decision(views[rows[bad]], deal_ids[rows[bad]])}{_in_batch(place, len(batch))}")


def _answers(player, views: np.ndarray, legal: np.ndarray, *, deal_ids: np.ndarray, seed: int) -> np.ndarray:
    """The cards (ids) ``player`` chooses at the decisions of ``views``, each row the engine's view followed by
    the :data:`sim.rules.auction.AUCTION` row of its deal; a :class:`CardPlayerError` for an exception inside
    the player or an answer that is not one card a decision."""
    if isinstance(player, BatchCardPlayer):
        try:
            chosen = player.play_batch(SeatViews(views, legal, deal_id=deal_ids, seed=seed))
        except Exception as error:
            raise CardPlayerError(f"{_who(player)} raised {type(error).__name__}: {error}, deciding "
                                  f"{_batch(views, deal_ids)}") from error
        return _batch_ids(player, chosen, views, legal, deal_ids)
    cards = np.empty(len(views), np.int64)
    for i, (values, mask, deal) in enumerate(zip(views.tolist(), legal.tolist(), deal_ids.tolist())):
        try:
            chosen = player.play(SeatView(values, mask, deal_id=deal, seed=seed))
        except Exception as error:
            raise CardPlayerError(f"{_who(player)} raised {type(error).__name__}: {error}, "
                                  f"at {_decision(views[i], deal)}") from error
        card = card_id(chosen)
        if card < 0:
            raise CardPlayerError(_not_a_card(player, chosen, views[i], mask, deal))
        cards[i] = card
    return cards


def _batch_ids(player, chosen, views: np.ndarray, legal: np.ndarray, deal_ids: np.ndarray) -> np.ndarray:
    """A batch player's answer as card ids, one per decision."""
    try:
        answer = np.asarray(chosen)
    except (TypeError, ValueError):   # a ragged list
        answer = np.asarray(chosen, dtype=object) if isinstance(chosen, (list, tuple)) else np.array(None)
    if answer.shape != (len(views),):
        if answer.ndim == 1:
            what = f"{_count(len(answer), 'card')}, {_short(chosen)},"
        else:
            shape = "" if answer.ndim == 0 else f"an array of shape {answer.shape}, "
            what = f"{shape}{_short(chosen)}, not one card per decision,"
        raise CardPlayerError(f"{_who(player)} answered {what} for {_batch(views, deal_ids)}")
    if answer.dtype.kind in "iu":
        cards = answer.astype(np.int64)
        bad = np.flatnonzero((cards < 0) | (cards > 31))
        values = answer
    else:
        values = chosen if isinstance(chosen, (list, tuple)) else answer.tolist()
        cards = np.array([card_id(c) for c in values], dtype=np.int64)
        bad = np.flatnonzero(cards < 0)
    if len(bad):
        i = int(bad[0])
        raise CardPlayerError(_not_a_card(player, values[i], views[i], int(legal[i]), deal_ids[i])
                              + _in_batch(i, len(views)))
    return cards


def _who(player) -> str:
    return f"card player {player.name or type(player).__name__!r}"


def _decision(view: np.ndarray, deal_id: int) -> str:
    """Which decision a view is: the deal, the trick and the seat."""
    return f"deal {int(deal_id)}, trick {int(view[VIEW.tricks_done]) + 1}, {SEAT_NAMES[int(view[VIEW.seat])]}"


def _batch(views: np.ndarray, deal_ids: np.ndarray) -> str:
    """A batch of decisions by its size and its first decision."""
    return f"a batch of {_count(len(views), 'decision')} ({_decision(views[0], deal_ids[0])} first)"


def _in_batch(place: int | None, size: int) -> str:
    """Which decision of its batch a batch player's answer was (nothing for a player asked one at a time)."""
    return "" if place is None else f" (decision {place + 1} of a batch of {size})"


def _not_a_card(player, chosen, view: np.ndarray, legal: int, deal_id: int) -> str:
    return (f"{_who(player)} chose {_short(chosen)}, which is not a card (legal: {format_hand(int(legal))}) "
            f"at {_decision(view, deal_id)}")


def _count(n: int, word: str) -> str:
    """``n`` and ``word`` in the number ``n`` asks for: "1 card", "2 cards"."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def _short(value, width: int = 40) -> str:
    """What a player returned as a message shows it: its repr (numpy's values as Python's, an array as a
    list), cut to ``width`` characters."""
    if isinstance(value, np.ndarray):
        text = np.array2string(value, threshold=6, edgeitems=2, separator=", ")
    else:
        text = repr(value.item() if isinstance(value, np.generic) else value)
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."
