"""What one seat may know during card play, and nothing more.

A card-play policy is a numba function ``policy(view, legal, params, rng) ->
(rng, card)``. The engine builds ``view`` from the full play state with
:func:`seat_view`; hidden cards (the other hands, a skat the seat did not see)
are never copied into it, so no policy can use them.

View layout (one int64 array of VIEW_SIZE)::

    SEAT           the seat to play             GAME        game type id
    DECLARER       declarer seat                OWN_HAND    the seat's own cards (mask)
    LEADER         seat that led the trick       IN_TRICK    cards in the current trick
    TRICK+0..2     the current trick's cards     TRICKS_DONE completed tricks
    PLAYED         every card played so far, the current trick included (mask)
    WON+0..2       cards each seat has won in tricks (masks; taken tricks are public)
    VOIDS+0..2     effective suits each seat has shown it lacks (bit 4 = trump)
    OUVERT_CARDS   an ouvert declarer's remaining cards, else 0 (mask)
    OWN_SKAT       the declarer's own discard (or the skat it played hand with,
                   which it may not look at: 0 then); 0 for a defender
    HAND_GAME, SCHNEIDER_ANNOUNCED, SCHWARZ_ANNOUNCED, OUVERT   declaration flags
    BID            the final bid
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import tricks as t

(SEAT, GAME, DECLARER, OWN_HAND, LEADER, IN_TRICK, TRICK, TRICKS_DONE, PLAYED, WON, VOIDS,
 OUVERT_CARDS, OWN_SKAT, HAND_GAME, SCHNEIDER_ANNOUNCED, SCHWARZ_ANNOUNCED, OUVERT, BID) = (
    0, 1, 2, 3, 4, 5, 6, 9, 10, 11, 14, 17, 18, 19, 20, 21, 22, 23)
VIEW_SIZE = 24


@njit(cache=True)
def set_declaration(view, hand, schneider_announced, schwarz_announced, ouvert, bid):
    view[HAND_GAME], view[SCHNEIDER_ANNOUNCED] = hand, schneider_announced
    view[SCHWARZ_ANNOUNCED], view[OUVERT], view[BID] = schwarz_announced, ouvert, bid


@njit(cache=True)
def seat_view(state, seat, declarer_skat, view):
    """Fill ``view`` (declaration fields already set) with what ``seat`` may know in ``state``.

    ``declarer_skat`` is the declarer's discard after a pick-up, 0 in a hand game.
    """
    view[SEAT], view[GAME] = seat, state[t.GAME]
    declarer = state[t.DECLARER]
    view[DECLARER], view[OWN_HAND] = declarer, state[t.HANDS + seat]
    view[LEADER], view[IN_TRICK] = state[t.LEADER], state[t.IN_TRICK]
    played = np.int64(0)
    for k in range(3):
        view[TRICK + k] = state[t.TRICK + k] if k < state[t.IN_TRICK] else -1
        if k < state[t.IN_TRICK]:
            played |= np.int64(1) << state[t.TRICK + k]
        view[WON + k] = state[t.WON + k]
        view[VOIDS + k] = state[t.VOIDS + k]
        played |= state[t.WON + k]
    view[TRICKS_DONE], view[PLAYED] = state[t.TRICKS_DONE], played
    view[OUVERT_CARDS] = state[t.HANDS + declarer] if view[OUVERT] else 0
    view[OWN_SKAT] = declarer_skat if seat == declarer else 0
