"""The numba kernels on an engine play state: open-hand value, thresholds, schwarz, best cards.

Each sets the root frame from the play state, counts what the declarer has already
taken, and asks the search (:mod:`sim.solver.search`) one question or a few:
:func:`open_hand_value` (one principal variation search; null: one null window),
:func:`declarer_reaches` and :func:`declarer_takes_all` (one null window each),
:func:`keeping_cards` and :func:`card_values` (each legal card of the side to move) and
:func:`solve_batch` (many states, one transposition table); :func:`equal_cards` finds the legal cards that
are worth the same without a search. Each counts a new solve in the transposition table and
leaves its node count in ``stack[NODES, 0]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.rules.cards import CARD_POINTS, card_points, popcount
from sim.rules.games import NULL
from sim.rules.tricks import STATE, legal_now, play_card, to_play
from sim.solver.frames import (
    F_HANDS,
    F_IN_TRICK,
    F_LAID,
    F_LEADER,
    F_REST,
    F_TRICK,
    FRAME_SIZE,
    NODES,
    NULL_AVOID,
    POINTS,
    SCHWARZ,
    STACK,
)
from sim.solver.layout import _CARD_AT, _POSITION, _RUN_START, _layout, _lowest
from sim.solver.search import _search


@njit(cache=True)
def _set_root(frames, state, mode):
    """Frame 0 from an engine play state."""
    game = state[STATE.game]
    all_cards = np.int64(0)
    for s in range(3):
        frames[0, F_HANDS + s] = state[STATE.hands + s]
        frames[0, F_LAID + s] = _layout(game, state[STATE.hands + s])
        all_cards |= state[STATE.hands + s]
    n = state[STATE.in_trick]
    frames[0, F_LEADER], frames[0, F_IN_TRICK] = state[STATE.leader], n
    frames[0, F_TRICK] = state[STATE.trick] if n > 0 else -1
    frames[0, F_TRICK + 1] = state[STATE.trick + 1] if n > 1 else -1
    if mode == POINTS:
        rest = card_points(all_cards)
        for k in range(n):
            rest += CARD_POINTS[state[STATE.trick + k]]
    else:
        rest = (popcount(all_cards) + n) // 3
    frames[0, F_REST] = rest


@njit(cache=True, inline="always")
def _taken(state, aside):
    """The declarer's card points so far: tricks won and the two cards that count unplayed."""
    return card_points(state[STATE.won + state[STATE.declarer]]) + card_points(aside)


@njit(cache=True)
def _points(state, aside, tt, stack):
    """Exact declarer points of a suit or grand position: one principal variation search."""
    taken = _taken(state, aside)
    if state[STATE.finished]:
        return taken
    mode = np.int64(POINTS)
    _set_root(stack, state, mode)
    return taken + _search(tt, stack, state[STATE.game], state[STATE.declarer], mode, np.int64(-1),
                           stack[0, F_REST] + 1)


@njit(cache=True)
def _reaches(state, aside, threshold, tt, stack):
    """Does the declarer of a suit or grand position reach ``threshold`` points? One null-window test."""
    need = threshold - _taken(state, aside)
    if state[STATE.finished] or need <= 0:
        return need <= 0
    mode = np.int64(POINTS)
    _set_root(stack, state, mode)
    return _search(tt, stack, state[STATE.game], state[STATE.declarer], mode, need - 1, need) >= need


@njit(cache=True)
def _takes_every_trick(state, mode, tt, stack):
    """Null (NULL_AVOID): does the declarer avoid every trick? Schwarz (SCHWARZ): take every one?"""
    declarer = state[STATE.declarer]
    won = state[STATE.won + declarer]
    if mode == NULL_AVOID:
        if state[STATE.finished] or won:
            return won == 0
    elif state[STATE.won + (declarer + 1) % 3] or state[STATE.won + (declarer + 2) % 3]:
        return False
    elif state[STATE.finished]:
        return True
    _set_root(stack, state, mode)
    tricks = stack[0, F_REST]
    return _search(tt, stack, state[STATE.game], declarer, mode, tricks - 1, tricks) >= tricks


@njit(cache=True)
def open_hand_value(state, aside, tt, stack):
    """Open-hand value of a play state: the declarer's card points at the end (suit and grand
    games), or 1 when the declarer avoids every trick and 0 when not (null).

    ``aside`` (a mask) holds the two cards that count for the declarer unplayed:
    the discard, or the skat of a hand game. Leaves the node count in ``stack[NODES, 0]``.
    """
    stack[NODES, 0] = 0
    tt[0] += np.uint64(1)
    if state[STATE.game] == NULL:
        return 1 if _takes_every_trick(state, np.int64(NULL_AVOID), tt, stack) else 0
    return _points(state, np.int64(aside), tt, stack)


@njit(cache=True)
def declarer_reaches(state, aside, threshold, tt, stack):
    """Suit and grand games: can the declarer reach ``threshold`` card points (31, 61, 90 ...)?

    The defenders can hold the declarer under ``threshold`` exactly when this is False.
    """
    stack[NODES, 0] = 0
    tt[0] += np.uint64(1)
    return _reaches(state, np.int64(aside), np.int64(threshold), tt, stack)


@njit(cache=True)
def declarer_takes_all(state, tt, stack):
    """Suit and grand games: can the declarer take every trick (schwarz)? The defenders can take
    one exactly when this is False; False once they have."""
    stack[NODES, 0] = 0
    tt[0] += np.uint64(1)
    return _takes_every_trick(state, np.int64(SCHWARZ), tt, stack)


@njit(cache=True)
def _keeps(child, aside, value, mover_is_declarer, tt, stack):
    """Does the position after a card keep ``value`` (points, or the null outcome 1/0)?"""
    if child[STATE.game] == NULL:
        return (1 if _takes_every_trick(child, np.int64(NULL_AVOID), tt, stack) else 0) == value
    if mover_is_declarer:
        return _reaches(child, aside, value, tt, stack)
    return not _reaches(child, aside, value + 1, tt, stack)


@njit(cache=True, inline="always")
def _play_lowest(state, legal, child):
    """Play the lowest card of ``legal`` on a copy of ``state`` in ``child``: (that card, the rest of
    ``legal``). :func:`keeping_cards` and :func:`card_values` walk the legal cards with it, one asking a
    yes/no question of each child and the other its exact value: a numba kernel cannot take the question
    as an argument and still be cached."""
    card = _lowest(legal)
    child[:] = state
    play_card(child, card)
    return card, legal & (legal - 1)


@njit(cache=True)
def keeping_cards(state, aside, value, tt, stack):
    """Mask of the legal cards of the side to move that keep the open-hand ``value``.

    ``value`` is what :func:`open_hand_value` returned for ``state``; the count of
    nodes adds up over the cards tried.
    """
    stack[NODES, 0] = 0
    tt[0] += np.uint64(1)
    aside = np.int64(aside)
    keep = np.int64(0)
    if state[STATE.finished]:
        return keep
    mover_is_declarer = to_play(state) == state[STATE.declarer]
    child = np.empty(STATE.size, dtype=np.int64)
    legal = np.int64(legal_now(state))
    nodes = 0
    while legal:
        card, legal = _play_lowest(state, legal, child)
        stack[NODES, 0] = 0
        if _keeps(child, aside, value, mover_is_declarer, tt, stack):
            keep |= np.int64(1) << card
        nodes += stack[NODES, 0]
    stack[NODES, 0] = nodes
    return keep


@njit(cache=True)
def card_values(state, aside, tt, stack, out):
    """``out[card]``: the open-hand value after each legal card of the side to move; -1 for the others.

    Exact for every card, so dearer than :func:`keeping_cards`; the node count adds up.
    """
    out[:] = -1
    if state[STATE.finished]:
        stack[NODES, 0] = 0
        return
    child = np.empty(STATE.size, dtype=np.int64)
    legal = np.int64(legal_now(state))
    nodes = 0
    while legal:
        card, legal = _play_lowest(state, legal, child)
        out[card] = open_hand_value(child, aside, tt, stack)
        nodes += stack[NODES, 0]
    stack[NODES, 0] = nodes


@njit(cache=True)
def solve_batch(states, asides, tt, out_values, out_nodes):
    """:func:`open_hand_value` of each row of ``states`` (n, STATE.size) into ``out_values``.

    ``asides`` (n,) holds each row's two cards that count for the declarer; the
    node counts go to ``out_nodes``. The transposition table is shared by all rows.
    """
    stack = np.zeros((STACK, FRAME_SIZE), dtype=np.int64)
    for k in range(states.shape[0]):
        out_values[k] = open_hand_value(states[k], asides[k], tt, stack)
        out_nodes[k] = stack[NODES, 0]


@njit(cache=True)
def equal_cards(state, out):
    """``out[card]``: for each legal card of the side to move, the card that speaks for it, worth
    exactly as much after any question (-1 for the cards not legal); returns the mask of the
    cards that speak for themselves.

    Two cards of one hand are worth the same when they are of one run of the game's layout (one
    suit's neighbours of equal points; in null any neighbours of a suit) and no card still held
    by a seat or lying in the current trick ranks between them: every trick then goes the same
    way for the same points whichever of them is played.
    """
    out[:] = -1
    game = state[STATE.game]
    in_play = np.int64(0)
    for s in range(3):
        in_play |= _layout(game, state[STATE.hands + s])
    for k in range(state[STATE.in_trick]):
        in_play |= np.int64(1) << _POSITION[game, state[STATE.trick + k]]
    speakers = np.int64(0)
    previous, speaker = np.int64(-1), np.int64(-1)
    m = _layout(game, np.int64(legal_now(state)))
    while m:
        place = _lowest(m)
        m &= m - 1
        card = np.int64(_CARD_AT[game, place])
        if previous < 0 or _RUN_START[game, place] != _RUN_START[game, previous] or (
                in_play & ((np.int64(1) << place) - 1) & ~((np.int64(2) << previous) - 1)):
            speaker = card
            speakers |= np.int64(1) << card
        out[card] = speaker
        previous = place
    return speakers
