"""The declarer's result of a world after a card: solved open-handed from there, or played to its end.

In game terms (``score`` 0, :data:`GAME_TERMS`), the declarer's Seeger-Fabian result: won or lost
(61 points, 90 with schneider announced, every trick with schwarz announced; null: no trick), the
levels reached beyond those declared (schneider, schwarz; schneider suffered in a lost game)
counted once as the engine's scoring counts them, with one matador, since only the scale between
results matters. In card points (``score`` 1, :data:`CARD_POINTS`): the declarer's card points
(null: won 1, lost 0), the classic PIMC question.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import solver
from sim.rules.games import BASE_VALUES, NULL, NULL_VALUES
from sim.rules.view import VIEW

#: The scales of a world's result, by the index a kernel reads.
SCORES = ("game", "points")
GAME_TERMS, CARD_POINTS = 0, 1


@njit(cache=True)
def _levels(view):
    """The declared game's levels without matadors: game, hand, ouvert, and each announcement
    with the level it promises (schneider announced is schneider; schwarz announced is schwarz,
    and comes with schneider announced)."""
    return (1 + view[VIEW.hand_game] + 2 * view[VIEW.schneider_announced] + 2 * view[VIEW.schwarz_announced]
            + view[VIEW.ouvert])


@njit(cache=True)
def world_result(view, child, aside, score, tt, stack):
    """:func:`counted_result` without counting."""
    return counted_result(view, child, aside, score, tt, stack, np.zeros(STATS, dtype=np.int64))


#: Per-decision counts a PIMC search keeps: worlds valued, solver calls or play-outs, nodes, candidate worlds drawn.
STATS = 4
S_WORLDS, S_CALLS, S_NODES, S_CANDIDATES = 0, 1, 2, 3


@njit(cache=True)
def _asked(stack, stats):
    stats[S_CALLS] += 1
    stats[S_NODES] += stack[solver.NODES, 0]


@njit(cache=True)
def counted_result(view, child, aside, score, tt, stack, stats):
    """The declarer's result with perfect play from ``child`` (the world after a card), in game
    terms (``score`` 0) or card points (1).

    In game terms a won game adds schneider (90 points) and schwarz (every trick) when they
    were not announced, a lost one schneider when the declarer stays at 30 or under and it
    was not announced; announced and reached levels count once, as in the engine's scoring.
    The declarer taking no trick in a lost game (a further level) is not searched for.
    """
    game = view[VIEW.game]
    if game == NULL:
        won = solver.open_hand_value(child, aside, tt, stack) == 1
        _asked(stack, stats)
        if score == 1:
            return 1.0 if won else 0.0
        won_value, lost_value = plain_results(view)
        return won_value if won else lost_value
    if score == 1:
        points = solver.open_hand_value(child, aside, tt, stack)
        _asked(stack, stats)
        return float(points)
    schneider_announced, schwarz_announced = view[VIEW.schneider_announced], view[VIEW.schwarz_announced]
    if schwarz_announced:
        won = solver.declarer_takes_all(child, tt, stack)
    else:
        won = solver.declarer_reaches(child, aside, 90 if schneider_announced else 61, tt, stack)
    _asked(stack, stats)
    if won:
        schneider = False
        if not schneider_announced:
            schneider = solver.declarer_reaches(child, aside, 90, tt, stack)
            _asked(stack, stats)
        schwarz = False
        if (schneider or schneider_announced) and not schwarz_announced:
            schwarz = solver.declarer_takes_all(child, tt, stack)
            _asked(stack, stats)
        return _in_game_terms(view, True, schneider, schwarz, False)
    schneidered = False
    if not schneider_announced:
        schneidered = not solver.declarer_reaches(child, aside, 31, tt, stack)
        _asked(stack, stats)
    return _in_game_terms(view, False, False, False, schneidered)


@njit(cache=True, inline="always")
def _in_game_terms(view, won, schneider, schwarz, schneidered):
    """The declarer's result in game terms of a suit or grand game won (with ``schneider`` and ``schwarz``
    reached beyond those announced) or lost (``schneidered``: held to 30 without schneider announced)."""
    if won:
        return plain_results(view)[0] + BASE_VALUES[view[VIEW.game]] * (schneider + schwarz)
    return plain_results(view)[1] - 2 * BASE_VALUES[view[VIEW.game]] * schneidered


@njit(cache=True)
def played_result(view, taken, tricks, score):
    """The declarer's result of a world played to its end, taking ``taken`` card points (the cards aside
    included) and ``tricks`` tricks: in game terms (``score`` 0) as :func:`counted_result` counts a solved
    world, or card points (1; null: won 1, lost 0)."""
    if view[VIEW.game] == NULL:
        won = tricks == 0
        if score == 1:
            return 1.0 if won else 0.0
        won_value, lost_value = plain_results(view)
        return won_value if won else lost_value
    if score == 1:
        return float(taken)
    schneider_announced, schwarz_announced = view[VIEW.schneider_announced], view[VIEW.schwarz_announced]
    if schwarz_announced:
        won = tricks == 10
    else:
        won = taken >= (90 if schneider_announced else 61)
    if won:
        schneider = not schneider_announced and taken >= 90
        schwarz = (schneider or schneider_announced) and not schwarz_announced and tricks == 10
        return _in_game_terms(view, True, schneider, schwarz, False)
    return _in_game_terms(view, False, False, False, not schneider_announced and taken < 31)


@njit(cache=True)
def plain_results(view):
    """(won, lost): the declarer's result of a world, in game terms, won or lost with no level beyond
    those declared (:func:`counted_result` adds the levels reached beyond them)."""
    if view[VIEW.game] == NULL:
        value = NULL_VALUES[view[VIEW.hand_game] + 2 * view[VIEW.ouvert]]
    else:
        value = BASE_VALUES[view[VIEW.game]] * (1 + _levels(view))   # one matador: the value's scale is what matters
    return float(value + 50), float(-2 * value - 50)
