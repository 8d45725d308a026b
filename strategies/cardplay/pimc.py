"""The ``pimc`` card player: perfect-information Monte Carlo on the open-hand solver.

At each decision the seat draws W worlds, deals of the cards it cannot see
consistent with everything its view shows (its own cards, the cards played, the suits
each seat has shown void in, an ouvert declarer's hand, its own discard as declarer;
the skat stays unseen by the defenders and by a declarer who played hand). In each
world every legal card is scored with the open-hand solver (:mod:`sim.solver`):
the game's result for the declarer if both sides play perfectly from there. The seat
plays the card with the best mean result for its side (the declarer the highest, a
defender the lowest); among equally good cards the heuristic player's rules choose.

Its parameters, by slot of its row: ``PIMC_WORLDS`` (W), ``PIMC_SCORE`` and
``PIMC_INFERENCE``. The result of a world (parameter ``score``):

- ``game`` (0, the default): the declarer's Seeger-Fabian result in game terms: won or
  lost (61 points, 90 with schneider announced, every trick with schwarz announced; null:
  no trick), schneider (90 points, or 30 and fewer when lost), the announced levels;
- ``points`` (1): the declarer's card points (null: won 1, lost 0), the classic PIMC.

With ``inference`` (1) a world whose declared game could not reach the bid with the
declarer's cards counts a quarter: the bid says something about the declarer's hand.

Every draw comes from the deal's own random stream, so a deal plays the same in any
batch and process; the view is all a PIMC player reads, so hidden cards never decide.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import solver
from sim.rules.cards import ALL_CARDS, lowest_card, popcount
from sim.rules.games import BASE_VALUES, NULL, NULL_VALUES
from sim.rules.rng import below
from sim.rules.scoring import matadors
from sim.rules.tricks import EFFECTIVE_SUIT, STATE_HANDS, STATE_SIZE, play_card
from sim.rules.view import (
    VIEW_BID,
    VIEW_DECLARER,
    VIEW_GAME,
    VIEW_HAND_GAME,
    VIEW_IN_TRICK,
    VIEW_LEADER,
    VIEW_OUVERT,
    VIEW_OUVERT_CARDS,
    VIEW_OWN_HAND,
    VIEW_OWN_SKAT,
    VIEW_PLAYED,
    VIEW_PLAYED_BY,
    VIEW_SCHNEIDER_ANNOUNCED,
    VIEW_SCHWARZ_ANNOUNCED,
    VIEW_SEAT,
    VIEW_TRICKS_DONE,
    VIEW_VOIDS,
    play_state_of_view,
)

from ..registry import StrategyError, register
from .heuristic import choose_among
from .policy import CardPolicy, param_values

#: Its kind in the built-in play loop (strategies.cardplay.builtin).
PIMC_KIND = 2
#: Its parameter slots: worlds per decision, the result of a world (an index of SCORES), inference (0 or 1).
PIMC_WORLDS, PIMC_SCORE, PIMC_INFERENCE = 0, 1, 2
#: Worlds a PIMC player draws at each decision: see docs/strategies.md for how it was chosen.
DEFAULT_WORLDS = 4
SCORES = ("game", "points")

#: Places a hidden card can go in a world: the two other seats (in seat order) and the skat.
SKAT_PLACE = 2
#: Tries to deal a world that respects every shown void before the voids are let go.
TRIES = 30
#: Weight of a world in which the declared game could not reach the bid (with inference on).
UNLIKELY = 0.25
WORST = -1e18

# --- worlds -----------------------------------------------------------------------------------


@njit(cache=True)
def hand_sizes(view, sizes):
    """Cards each seat still holds, from the tricks done and the current trick."""
    for s in range(3):
        sizes[s] = 10 - view[VIEW_TRICKS_DONE]
    for pos in range(view[VIEW_IN_TRICK]):
        sizes[(view[VIEW_LEADER] + pos) % 3] -= 1


@njit(cache=True)
def sample_world(view, rng, world):
    """Deal the cards ``view``'s seat cannot see, consistently with the view, into the play state
    ``world``; returns (rng, the two cards that count for the declarer unplayed).

    The hidden cards go, most constrained first, to the seats and places that may hold them
    (a seat never gets a suit it has shown void in), each to one of its free slots at random.
    """
    game, me, declarer = view[VIEW_GAME], view[VIEW_SEAT], view[VIEW_DECLARER]
    sizes = np.empty(3, dtype=np.int64)
    hand_sizes(view, sizes)
    hands = np.zeros(3, dtype=np.int64)
    hands[me] = view[VIEW_OWN_HAND]
    open_declarer = view[VIEW_OUVERT] != 0 and declarer != me
    if open_declarer:
        hands[declarer] = view[VIEW_OUVERT_CARDS]
    skat = view[VIEW_OWN_SKAT] if me == declarer else np.int64(0)
    hidden = ALL_CARDS & ~(view[VIEW_PLAYED] | view[VIEW_OWN_HAND] | view[VIEW_OUVERT_CARDS] | skat)
    seats = np.empty(2, dtype=np.int64)
    room = np.zeros(3, dtype=np.int64)        # free slots of the two other seats and of the skat
    k = 0
    for s in range(3):
        if s != me:
            seats[k] = s
            if not (open_declarer and s == declarer):
                room[k] = sizes[s]
            k += 1
    if skat == 0:
        room[SKAT_PLACE] = 2
    cards = np.empty(32, dtype=np.int64)
    allowed = np.empty(32, dtype=np.int64)
    n = 0
    m = hidden
    while m:
        c = lowest_card(m)
        m &= m - 1
        cards[n] = c
        n += 1
    for attempt in range(TRIES + 1):
        respect_voids = attempt < TRIES
        for i in range(n):
            allowed[i] = 0
            for place in range(3):
                if room[place] == 0:
                    continue
                if place < SKAT_PLACE and respect_voids:
                    if (view[VIEW_VOIDS + seats[place]] >> EFFECTIVE_SUIT[game, cards[i]]) & 1:
                        continue
                allowed[i] |= 1 << place
        rng, dealt, placed = _deal_hidden(cards, allowed, n, room, rng)
        if dealt:
            break
    for place in range(2):
        hands[seats[place]] |= placed[place]
    if skat == 0:
        skat = placed[SKAT_PLACE]
    play_state_of_view(view, hands, world)
    return rng, skat


@njit(cache=True)
def _deal_hidden(cards, allowed, n, room, rng):
    """Cards to places: the most constrained first, each to a free slot of an allowed place chosen at
    random. Returns (rng, dealt, cards per place); not dealt when some card found no free place."""
    free = room.copy()
    placed = np.zeros(3, dtype=np.int64)
    order = np.argsort(np.array([popcount(allowed[i]) * 64 + i for i in range(n)]))
    for j in range(n):
        i = order[j]
        slots = 0
        for place in range(3):
            if (allowed[i] >> place) & 1:
                slots += free[place]
        if slots == 0:
            return rng, False, placed
        rng, pick = below(rng, slots)
        for place in range(3):
            if (allowed[i] >> place) & 1:
                if pick < free[place]:
                    placed[place] |= np.int64(1) << cards[i]
                    free[place] -= 1
                    break
                pick -= free[place]
    return rng, True, placed


# --- the result of a world ------------------------------------------------------------------------


@njit(cache=True)
def _levels(view):
    """The declared game's levels without matadors: game, hand, ouvert, and each announcement
    with the level it promises (schneider announced is schneider; schwarz announced is schwarz,
    and comes with schneider announced)."""
    return (1 + view[VIEW_HAND_GAME] + 2 * view[VIEW_SCHNEIDER_ANNOUNCED] + 2 * view[VIEW_SCHWARZ_ANNOUNCED]
            + view[VIEW_OUVERT])


@njit(cache=True)
def world_result(view, child, skat, score, tt, stack):
    """The declarer's result with perfect play from ``child`` (the world after a card), in game
    terms (``score`` 0) or card points (1).

    In game terms a won game adds schneider (90 points) and schwarz (every trick) when they
    were not announced, a lost one schneider when the declarer stays at 30 or under and it
    was not announced; announced and reached levels count once, as in the engine's scoring.
    The declarer taking no trick in a lost game (a further level) is not searched for.
    """
    game = view[VIEW_GAME]
    if game == NULL:
        won = solver.open_hand_value(child, skat, tt, stack) == 1
        value = NULL_VALUES[view[VIEW_HAND_GAME] + 2 * view[VIEW_OUVERT]]
        if score == 1:
            return 1.0 if won else 0.0
        return float(value + 50) if won else float(-2 * value - 50)
    if score == 1:
        return float(solver.open_hand_value(child, skat, tt, stack))
    base = BASE_VALUES[game] * (1 + _levels(view))       # one matador: the value's scale is what matters
    schneider_announced, schwarz_announced = view[VIEW_SCHNEIDER_ANNOUNCED], view[VIEW_SCHWARZ_ANNOUNCED]
    if schwarz_announced:
        won = solver.declarer_takes_all(child, tt, stack)
    else:
        won = solver.declarer_reaches(child, skat, 90 if schneider_announced else 61, tt, stack)
    if won:
        schneider = not schneider_announced and solver.declarer_reaches(child, skat, 90, tt, stack)
        schwarz = (schneider or schneider_announced) and not schwarz_announced \
            and solver.declarer_takes_all(child, tt, stack)
        return float(base + BASE_VALUES[game] * (schneider + schwarz) + 50)
    schneidered = not schneider_announced and not solver.declarer_reaches(child, skat, 31, tt, stack)
    return float(-2 * (base + BASE_VALUES[game] * schneidered) - 50)


@njit(cache=True)
def world_weight(view, world, skat, inference):
    """1, or with inference :data:`UNLIKELY` for a world whose declared game could not reach the bid."""
    game = view[VIEW_GAME]
    if not inference or game == NULL:
        return 1.0
    declarer = view[VIEW_DECLARER]
    twelve = world[STATE_HANDS + declarer] | view[VIEW_PLAYED_BY + declarer] | skat
    value = BASE_VALUES[game] * (abs(matadors(game, twelve)) + 1 + view[VIEW_HAND_GAME])
    return 1.0 if value >= view[VIEW_BID] else UNLIKELY


# --- the player --------------------------------------------------------------------------------


@njit(cache=True)
def pimc_best(view, legal, params, rng, tt, stack):
    """(rng, the cards of best mean result) of a PIMC decision (see the module doc) with the parameters
    ``params`` (slots ``PIMC_*``). The caller picks one of the cards."""
    legal = np.int64(legal)
    if (legal & (legal - 1)) == 0:
        return rng, legal
    worlds, score, inference = int(params[PIMC_WORLDS]), int(params[PIMC_SCORE]), params[PIMC_INFERENCE] > 0
    totals = np.zeros(32)
    world = np.empty(STATE_SIZE, dtype=np.int64)
    child = np.empty(STATE_SIZE, dtype=np.int64)
    weight_sum = 0.0
    for _ in range(worlds):
        rng, skat = sample_world(view, rng, world)
        weight = world_weight(view, world, skat, inference)
        weight_sum += weight
        m = legal
        while m:
            card = lowest_card(m)
            m &= m - 1
            child[:] = world
            play_card(child, card)
            totals[card] += weight * world_result(view, child, skat, score, tt, stack)
    sign = 1.0 if view[VIEW_SEAT] == view[VIEW_DECLARER] else -1.0
    best, best_cards, m = WORST, np.int64(0), legal
    while m:
        card = lowest_card(m)
        m &= m - 1
        value = sign * totals[card] / weight_sum
        if value > best + 1e-9:
            best, best_cards = value, np.int64(1) << card
        elif value > best - 1e-9:
            best_cards |= np.int64(1) << card
    return rng, best_cards


#: The table of a PIMC player outside the built-in play loop (one per decision): 2**16 entries, laid
#: out as ``solver.new_table`` lays them out (its header words, then two words an entry).
OWN_TABLE_BITS = 16
OWN_TABLE_SIZE = len(solver.new_table(OWN_TABLE_BITS))
STACK_SHAPE = solver.new_stack().shape


@njit(cache=True)
def own_workspace():
    """A solver table and stack made for one decision."""
    return (np.zeros(OWN_TABLE_SIZE, dtype=np.uint64),
            np.zeros((STACK_SHAPE[0], STACK_SHAPE[1]), dtype=np.int64))



@njit(cache=True)
def pimc_card(view, legal, params, rng):
    """The PIMC card for a play loop that hands out no solver table: one is made per decision."""
    tt, stack = own_workspace()
    rng, best = pimc_best(view, legal, params, rng, tt, stack)
    return rng, choose_among(view, best)


@register("card_play", "pimc", ranges={"worlds": (1, 1000)})
def pimc_policy(worlds: int = DEFAULT_WORLDS, score: str = "game", inference: bool = False) -> CardPolicy:
    """Perfect-information Monte Carlo: worlds of the unseen cards, each solved open-handed (cardplay/pimc.py).

    ``worlds`` per decision; ``score`` "game" (win or loss, schneider, the announcements, in
    Seeger-Fabian points) or "points" (the declarer's card points); ``inference`` weights down
    worlds in which the declared game could not have reached the bid.
    """
    if score not in SCORES:
        raise StrategyError(f"score must be one of {', '.join(SCORES)}, not {score!r}")
    params = param_values({PIMC_WORLDS: worlds, PIMC_SCORE: SCORES.index(score), PIMC_INFERENCE: inference})
    return CardPolicy("pimc", pimc_card, params, builtin=PIMC_KIND)
