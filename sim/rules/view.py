"""What one seat may know during card play, and nothing more.

A card-play policy is a numba function ``policy(view, legal, params, data, rng) ->
(rng, card)``. The engine builds ``view`` from the full play state with
:func:`seat_view`; hidden cards (the other hands, a skat the seat did not see)
are never copied into it, so no policy can use them. :func:`play_state_of_view`
goes back: from a view and the hands (a guess of the hidden ones, for a search)
to a play state.

The view is one int64 array laid out by :data:`VIEW` (its fields below).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import tricks as t
from .layout import layout

#: The play state's fields by name (sim.rules.tricks.STATE): those a view shares with it keep its names and
#: meanings.
_STATE = {field[0]: field for field in t.STATE_FIELDS}

VIEW = layout("View", (
    ("seat", 1, "the seat to play"),
    _STATE["game"],
    _STATE["declarer"],
    ("own_hand", 1, "the seat's own cards (mask)"),
    _STATE["leader"],
    _STATE["in_trick"],
    ("trick", 3, "the current trick's cards, -1 past those played"),
    _STATE["tricks_done"],
    ("played", 1, "every card played so far, the current trick included (mask)"),
    _STATE["won"],
    _STATE["voids"],
    ("ouvert_cards", 1, "an ouvert declarer's remaining cards, else 0 (mask)"),
    ("discard", 1, "the declarer's own discard after a pick-up; 0 in a hand game and for a defender"),
    ("hand_game", 1, "the declaration: a hand game"),
    ("schneider_announced", 1, "the declaration: schneider announced"),
    ("schwarz_announced", 1, "the declaration: schwarz announced"),
    ("ouvert", 1, "the declaration: ouvert"),
    ("bid", 1, "the final bid"),
    _STATE["played_by"],
    _STATE["order"],
))


@njit(cache=True)
def set_declaration(view, hand, schneider_announced, schwarz_announced, ouvert, bid):
    view[VIEW.hand_game], view[VIEW.schneider_announced] = hand, schneider_announced
    view[VIEW.schwarz_announced], view[VIEW.ouvert], view[VIEW.bid] = schwarz_announced, ouvert, bid


@njit(cache=True, inline="always")
def seat_view(state, seat, discard, view):
    """Fill ``view`` (declaration fields already set) with what ``seat`` may know in ``state``.

    ``discard`` is the declarer's discard after a pick-up, 0 in a hand game.
    """
    view[VIEW.seat], view[VIEW.game] = seat, state[t.STATE.game]
    declarer = state[t.STATE.declarer]
    view[VIEW.declarer], view[VIEW.own_hand] = declarer, state[t.STATE.hands + seat]
    view[VIEW.leader], view[VIEW.in_trick] = state[t.STATE.leader], state[t.STATE.in_trick]
    played = np.int64(0)
    for k in range(3):
        view[VIEW.trick + k] = state[t.STATE.trick + k] if k < state[t.STATE.in_trick] else -1
        if k < state[t.STATE.in_trick]:
            played |= np.int64(1) << state[t.STATE.trick + k]
        view[VIEW.won + k] = state[t.STATE.won + k]
        view[VIEW.voids + k] = state[t.STATE.voids + k]
        view[VIEW.played_by + k] = state[t.STATE.played_by + k]
        played |= state[t.STATE.won + k]
    view[VIEW.tricks_done], view[VIEW.played] = state[t.STATE.tricks_done], played
    for k in range(30):
        view[VIEW.order + k] = state[t.STATE.order + k]
    view[VIEW.ouvert_cards] = state[t.STATE.hands + declarer] if view[VIEW.ouvert] else 0
    view[VIEW.discard] = discard if seat == declarer else 0


@njit(cache=True)
def play_state_of_view(view, hands, state):
    """Fill the play ``state`` that ``view`` shows, with ``hands`` (three masks) as the cards each seat
    still holds: the inverse of :func:`seat_view` for whoever knows, or deals, the hidden hands.

    Game, declarer, leader, the current trick, the tricks done, and each seat's cards won, shown
    voids and cards played come from the view. The state is the engine's state of that position
    with two differences that no play from it can notice: trick slots past the cards in the
    current trick are 0 (the engine keeps the last trick's cards there), and it is not finished
    (a seat is only asked for a card while the game goes on).
    """
    state[:] = 0
    for s in range(3):
        state[t.STATE.hands + s] = hands[s]
        state[t.STATE.won + s] = view[VIEW.won + s]
        state[t.STATE.voids + s] = view[VIEW.voids + s]
        state[t.STATE.played_by + s] = view[VIEW.played_by + s]
    state[t.STATE.game], state[t.STATE.declarer] = view[VIEW.game], view[VIEW.declarer]
    state[t.STATE.leader], state[t.STATE.in_trick] = view[VIEW.leader], view[VIEW.in_trick]
    state[t.STATE.tricks_done] = view[VIEW.tricks_done]
    for k in range(30):
        state[t.STATE.order + k] = view[VIEW.order + k]
    for k in range(view[VIEW.in_trick]):
        state[t.STATE.trick + k] = view[VIEW.trick + k]
