"""What the cards played say about a world: the PIMC player's inference.

A world (a deal of the cards the seat cannot see) is more likely the better it explains
what the other seats have done. Two signs are read:

- the bid (:func:`bid_weight`): a world in which the declared game could not have reached
  the bid with the declarer's cards is unlikely;
- the cards played (:func:`play_likelihood`): the play is replayed from the first lead in
  the world, and at every card another seat chose among two or more legal cards, the
  chance that a player of the model would have played it. The model is a player's choice with
  a deviation: its card with probability ``1 - d``, else any legal card alike, so its card has
  ``1 - d + d / n`` and each other card ``d / n`` of ``n`` legal ones. The player is the
  heuristic player's rules: they cost no search, and they predict how the players actually play.

Only what the view shows is read (the order of the cards played is public), so two deals
that look the same to the seat give every world the same weight.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.rules.cards import popcount
from sim.rules.games import BASE_VALUES, NULL
from sim.rules.scoring import matadors
from sim.rules.tricks import STATE, legal_now, play_card, start_play, to_play
from sim.rules.view import VIEW, seat_view, set_declaration

from .heuristic import rule_based_card

#: Weight of a world in which the declared game could not reach the bid.
UNLIKELY = 0.25


@njit(cache=True)
def bid_weight(view, world, aside):
    """1, or :data:`UNLIKELY` for a world whose declared game could not reach the bid."""
    game = view[VIEW.game]
    if game == NULL:
        return 1.0
    declarer = view[VIEW.declarer]
    twelve = world[STATE.hands + declarer] | view[VIEW.played_by + declarer] | aside
    value = BASE_VALUES[game] * (abs(matadors(game, twelve)) + 1 + view[VIEW.hand_game])
    return 1.0 if value >= view[VIEW.bid] else UNLIKELY


@njit(cache=True)
def play_likelihood(view, world, aside, deviation, replay, seen):
    """The chance of the other seats' cards so far in ``world`` under the model (module doc).

    ``aside``: the world's two cards that count for the declarer (its discard unless it played
    hand). ``replay`` (a play state) and ``seen`` (a view) are scratch arrays. Seats whose
    cards the seat sees (an ouvert declarer) have the same chance in every world: skipped.
    """
    me, declarer, game = view[VIEW.seat], view[VIEW.declarer], view[VIEW.game]
    start = np.zeros(3, dtype=np.int64)
    for s in range(3):
        start[s] = world[STATE.hands + s] | view[VIEW.played_by + s]
    start_play(replay, start[0], start[1], start[2], game, declarer)
    set_declaration(seen, view[VIEW.hand_game], view[VIEW.schneider_announced], view[VIEW.schwarz_announced],
                    view[VIEW.ouvert], view[VIEW.bid])
    discard = 0 if view[VIEW.hand_game] else aside
    likelihood = 1.0
    for k in range(3 * view[VIEW.tricks_done] + view[VIEW.in_trick]):
        seat = to_play(replay)
        card = view[VIEW.order + k]
        if seat != me and not (seat == declarer and view[VIEW.ouvert]):
            legal = np.int64(legal_now(replay))
            n = popcount(legal)
            if n > 1:
                seat_view(replay, seat, discard, seen)
                chosen = rule_based_card(seen, legal)
                likelihood *= (1.0 - deviation + deviation / n) if chosen == card else deviation / n
        play_card(replay, card)
    return likelihood
