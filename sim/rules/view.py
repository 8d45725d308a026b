"""What one seat may know during card play, and nothing more.

A card-play policy is a numba function ``policy(view, legal, params, rng) ->
(rng, card)``. The engine builds ``view`` from the full play state with
:func:`seat_view`; hidden cards (the other hands, a skat the seat did not see)
are never copied into it, so no policy can use them. :func:`play_state_of_view`
goes back: from a view and the hands (a guess of the hidden ones, for a search)
to a play state.

View layout (one int64 array of VIEW_SIZE)::

    VIEW_SEAT           the seat to play
    VIEW_GAME           game type id
    VIEW_DECLARER       declarer seat
    VIEW_OWN_HAND       the seat's own cards (mask)
    VIEW_LEADER         seat that led the trick
    VIEW_IN_TRICK       cards in the current trick
    VIEW_TRICK+0..2     the current trick's cards
    VIEW_TRICKS_DONE    completed tricks
    VIEW_PLAYED         every card played so far, the current trick included (mask)
    VIEW_WON+0..2       cards each seat has won in tricks (masks; taken tricks are public)
    VIEW_VOIDS+0..2     effective suits each seat has shown it lacks (bit 4 = trump)
    VIEW_PLAYED_BY+0..2 the cards each seat has played (masks)
    VIEW_OUVERT_CARDS   an ouvert declarer's remaining cards, else 0 (mask)
    VIEW_OWN_SKAT       the declarer's own discard (or the skat it played hand with,
                        which it may not look at: 0 then); 0 for a defender
    VIEW_HAND_GAME, VIEW_SCHNEIDER_ANNOUNCED, VIEW_SCHWARZ_ANNOUNCED, VIEW_OUVERT
                        declaration flags
    VIEW_BID            the final bid
    VIEW_ORDER+0..29    every card played so far, in the order played (public)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import tricks as t

VIEW_SEAT = 0
VIEW_GAME = 1
VIEW_DECLARER = 2
VIEW_OWN_HAND = 3
VIEW_LEADER = 4
VIEW_IN_TRICK = 5
VIEW_TRICK = 6
VIEW_TRICKS_DONE = 9
VIEW_PLAYED = 10
VIEW_WON = 11
VIEW_VOIDS = 14
VIEW_OUVERT_CARDS = 17
VIEW_OWN_SKAT = 18
VIEW_HAND_GAME = 19
VIEW_SCHNEIDER_ANNOUNCED = 20
VIEW_SCHWARZ_ANNOUNCED = 21
VIEW_OUVERT = 22
VIEW_BID = 23
VIEW_PLAYED_BY = 24
VIEW_ORDER = 27
VIEW_SIZE = 57


@njit(cache=True)
def set_declaration(view, hand, schneider_announced, schwarz_announced, ouvert, bid):
    view[VIEW_HAND_GAME], view[VIEW_SCHNEIDER_ANNOUNCED] = hand, schneider_announced
    view[VIEW_SCHWARZ_ANNOUNCED], view[VIEW_OUVERT], view[VIEW_BID] = schwarz_announced, ouvert, bid


@njit(cache=True, inline="always")
def seat_view(state, seat, declarer_skat, view):
    """Fill ``view`` (declaration fields already set) with what ``seat`` may know in ``state``.

    ``declarer_skat`` is the declarer's discard after a pick-up, 0 in a hand game.
    """
    view[VIEW_SEAT], view[VIEW_GAME] = seat, state[t.STATE_GAME]
    declarer = state[t.STATE_DECLARER]
    view[VIEW_DECLARER], view[VIEW_OWN_HAND] = declarer, state[t.STATE_HANDS + seat]
    view[VIEW_LEADER], view[VIEW_IN_TRICK] = state[t.STATE_LEADER], state[t.STATE_IN_TRICK]
    played = np.int64(0)
    for k in range(3):
        view[VIEW_TRICK + k] = state[t.STATE_TRICK + k] if k < state[t.STATE_IN_TRICK] else -1
        if k < state[t.STATE_IN_TRICK]:
            played |= np.int64(1) << state[t.STATE_TRICK + k]
        view[VIEW_WON + k] = state[t.STATE_WON + k]
        view[VIEW_VOIDS + k] = state[t.STATE_VOIDS + k]
        view[VIEW_PLAYED_BY + k] = state[t.STATE_PLAYED_BY + k]
        played |= state[t.STATE_WON + k]
    view[VIEW_TRICKS_DONE], view[VIEW_PLAYED] = state[t.STATE_TRICKS_DONE], played
    for k in range(30):
        view[VIEW_ORDER + k] = state[t.STATE_ORDER + k]
    view[VIEW_OUVERT_CARDS] = state[t.STATE_HANDS + declarer] if view[VIEW_OUVERT] else 0
    view[VIEW_OWN_SKAT] = declarer_skat if seat == declarer else 0


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
        state[t.STATE_HANDS + s] = hands[s]
        state[t.STATE_WON + s] = view[VIEW_WON + s]
        state[t.STATE_VOIDS + s] = view[VIEW_VOIDS + s]
        state[t.STATE_PLAYED_BY + s] = view[VIEW_PLAYED_BY + s]
    state[t.STATE_GAME], state[t.STATE_DECLARER] = view[VIEW_GAME], view[VIEW_DECLARER]
    state[t.STATE_LEADER], state[t.STATE_IN_TRICK] = view[VIEW_LEADER], view[VIEW_IN_TRICK]
    state[t.STATE_TRICKS_DONE] = view[VIEW_TRICKS_DONE]
    for k in range(30):
        state[t.STATE_ORDER + k] = view[VIEW_ORDER + k]
    for k in range(view[VIEW_IN_TRICK]):
        state[t.STATE_TRICK + k] = view[VIEW_TRICK + k]
