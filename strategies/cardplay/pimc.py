"""The ``pimc`` card player: perfect-information Monte Carlo, its worlds played out or solved.

At each decision the seat draws worlds, deals of the cards it cannot see consistent
with everything its view shows (its own cards, the cards played, the suits each seat
has shown void in, an ouvert declarer's hand, its own discard as declarer; the skat
stays unseen by the defenders and by a declarer who played hand). In each world every
legal card is given the game's result for the declarer after it: by default the world is
played by the learned card player (:mod:`strategies.cardplay.learned`) at every seat, each
from its own view of the world (``play_out``), until its last tricks (``solve_last``, six by
default), which the open-hand solver (:mod:`sim.solver`) values; otherwise the whole world is
solved, both sides playing perfectly from there. The seat plays the card with the best mean
result for its side (the declarer the highest, a defender the lowest); a player that plays its
worlds out lets the learned player choose among that card and the cards whose mean falls short
of it by less than ``near`` standard errors (one by default), and otherwise among equally good
cards the heuristic player's rules choose.

A world played out asks what the card leads to when every seat goes on knowing only what it
sees; a world solved assumes every seat knows every card from the next card on (strategy
fusion), so the play-out is the stronger and, at about 30 microseconds a world and card,
the cheaper question: the default plays out 60 worlds where the solved player solves 10.

Its parameters, by slot of its row: ``PIMC_WORLDS`` (worlds at least),
``PIMC_SCORE``, ``PIMC_INFERENCE``, ``PIMC_MAX_WORLDS`` (at most, while the best card
is unclear by ``PIMC_CLEAR`` standard errors), ``PIMC_DEVIATION`` and ``PIMC_CANDIDATES``
(the play model and the worlds it weighs, :mod:`strategies.cardplay.pimc_inference`),
``PIMC_PLAY_OUT``, ``PIMC_INFER_BY`` (whose choices the play model reads: the rules, or the
learned player), ``PIMC_SOLVE_LAST`` (the tricks a play-out leaves to the solver) and ``PIMC_NEAR``
(the standard errors within which the learned player chooses among the cards) and
``PIMC_LEARNED_PLAYS`` (a role whose cards the learned player plays without a search: none, the
declarer or the defenders); a player that plays out, infers by the learned player, lets it choose
or play a role carries the learned model after its row. The
result of a world (parameter ``score``):

- ``game`` (0, the default): the declarer's Seeger-Fabian result in game terms: won or
  lost (61 points, 90 with schneider announced, every trick with schwarz announced; null:
  no trick), schneider (90 points, or 30 and fewer when lost), the announced levels;
- ``points`` (1): the declarer's card points (null: won 1, lost 0), the classic PIMC.

With ``inference`` (1) candidate worlds are weighed by the bid and by the cards the other
seats played, and the worlds valued are drawn by weight. Without it and with
``max_worlds`` equal to ``worlds`` the player draws and values a fixed number of worlds.

Every draw comes from the deal's own random stream, so a deal plays the same in any
batch and process; the view is all a PIMC player reads, so hidden cards never decide.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import solver
from sim.rules.cards import ALL_CARDS, lowest_card, popcount
from sim.rules.games import BASE_VALUES, NULL, NULL_VALUES
from sim.rules.play import start_turn
from sim.rules.rng import below
from sim.rules.tricks import EFFECTIVE_SUIT, STATE, declarer_result, play_card
from sim.rules.view import VIEW, play_state_of_view

from ..registry import StrategyError, register
from .heuristic import choose_among
from .learned import learned_card, learned_choice, learned_policy
from .pimc_inference import UNLIKELY, bid_weight, play_likelihood  # noqa: F401  (UNLIKELY: its weight
from .policy import CardPolicy, param_values

#: Its kind in the built-in play loop (strategies.cardplay.builtin).
PIMC_KIND = 2
#: Its parameter slots: worlds per decision, the result of a world (an index of SCORES), inference (0 or 1),
#: the most worlds of a close decision, the play model's deviation, the candidate worlds inference weighs.
PIMC_WORLDS, PIMC_SCORE, PIMC_INFERENCE, PIMC_MAX_WORLDS, PIMC_DEVIATION, PIMC_CANDIDATES = 0, 1, 2, 3, 4, 5
#: ... how many standard errors the best card's lead must be for a decision to be clear, and whether a world is
#: played out by the learned player (1) instead of solved open-handed (0).
PIMC_CLEAR, PIMC_PLAY_OUT = 6, 7
#: ... and whose choices inference reads the cards played by: the heuristic rules (0) or the learned player (1).
PIMC_INFER_BY = 8
#: ... and how many of the last tricks a world played out leaves to the open-hand solver (0: none).
PIMC_SOLVE_LAST = 9
#: ... and within how many standard errors of the best card's mean a card is near enough for the learned
#: player to choose among (0: the best mean alone decides).
PIMC_NEAR = 10
#: ... and the role whose cards the learned player plays, without a search, by its index in LEARNED_PLAYS.
PIMC_LEARNED_PLAYS = 11
LEARNED_PLAYS = ("none", "declarer", "defenders")
#: The players inference may read the cards played by (pimc_inference), by the index in slot PIMC_INFER_BY.
INFER_BY = ("heuristic", "learned")
#: Worlds a PIMC player that solves its worlds solves at each decision, and at most while the best card is
#: unclear: see docs/strategies.md for how they were chosen.
DEFAULT_WORLDS = 10
DEFAULT_MAX_WORLDS = 10
#: The play model's deviation (pimc_inference) and the candidate worlds drawn to pick the solved ones from.
DEFAULT_DEVIATION = 0.3
DEFAULT_CANDIDATES = 40
#: Worlds a PIMC player that plays its worlds out (the default) plays out at each decision, and the
#: candidate worlds it weighs for each of them.
PLAY_OUT_WORLDS = 60
PLAY_OUT_CANDIDATES_PER_WORLD = 2
#: The last tricks of a world played out that the open-hand solver values.
DEFAULT_SOLVE_LAST = 6
#: A decision is clear when the best card's mean lead over the next is this many standard errors.
DEFAULT_CLEAR = 1.0
#: Standard errors within which a player that plays its worlds out lets the learned player choose (its
#: default; a player that solves its worlds lets the best mean decide).
DEFAULT_NEAR = 1.0
SCORES = ("game", "points")

#: Places a hidden card can go in a world: the two other seats (in seat order) and the skat.
SKAT_PLACE = 2
#: Tries to deal a world that respects every shown void before the voids are let go.
TRIES = 30
WORST = -1e18

# --- worlds -----------------------------------------------------------------------------------


@njit(cache=True)
def hand_sizes(view, sizes):
    """Cards each seat still holds, from the tricks done and the current trick."""
    for s in range(3):
        sizes[s] = 10 - view[VIEW.tricks_done]
    for pos in range(view[VIEW.in_trick]):
        sizes[(view[VIEW.leader] + pos) % 3] -= 1


@njit(cache=True)
def sample_world(view, rng, world):
    """Deal the cards ``view``'s seat cannot see, consistently with the view, into the play state
    ``world``; returns (rng, the two cards that count for the declarer unplayed).

    The hidden cards go, most constrained first, to the seats and places that may hold them
    (a seat never gets a suit it has shown void in), each to one of its free slots at random.
    """
    game, me, declarer = view[VIEW.game], view[VIEW.seat], view[VIEW.declarer]
    sizes = np.empty(3, dtype=np.int64)
    hand_sizes(view, sizes)
    hands = np.zeros(3, dtype=np.int64)
    hands[me] = view[VIEW.own_hand]
    open_declarer = view[VIEW.ouvert] != 0 and declarer != me
    if open_declarer:
        hands[declarer] = view[VIEW.ouvert_cards]
    skat = view[VIEW.discard] if me == declarer else np.int64(0)
    hidden = ALL_CARDS & ~(view[VIEW.played] | view[VIEW.own_hand] | view[VIEW.ouvert_cards] | skat)
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
                    if (view[VIEW.voids + seats[place]] >> EFFECTIVE_SUIT[game, cards[i]]) & 1:
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
    return (1 + view[VIEW.hand_game] + 2 * view[VIEW.schneider_announced] + 2 * view[VIEW.schwarz_announced]
            + view[VIEW.ouvert])


@njit(cache=True)
def world_result(view, child, skat, score, tt, stack):
    """:func:`counted_result` without counting."""
    return counted_result(view, child, skat, score, tt, stack, np.zeros(STATS, dtype=np.int64))


#: Per-decision counts a PIMC search keeps: worlds valued, solver calls or play-outs, nodes, candidate worlds drawn.
STATS = 4
S_WORLDS, S_CALLS, S_NODES, S_CANDIDATES = 0, 1, 2, 3


@njit(cache=True)
def _asked(stack, stats):
    stats[S_CALLS] += 1
    stats[S_NODES] += stack[solver.NODES, 0]


@njit(cache=True)
def counted_result(view, child, skat, score, tt, stack, stats):
    """The declarer's result with perfect play from ``child`` (the world after a card), in game
    terms (``score`` 0) or card points (1).

    In game terms a won game adds schneider (90 points) and schwarz (every trick) when they
    were not announced, a lost one schneider when the declarer stays at 30 or under and it
    was not announced; announced and reached levels count once, as in the engine's scoring.
    The declarer taking no trick in a lost game (a further level) is not searched for.
    """
    game = view[VIEW.game]
    if game == NULL:
        won = solver.open_hand_value(child, skat, tt, stack) == 1
        _asked(stack, stats)
        if score == 1:
            return 1.0 if won else 0.0
        won_value, lost_value = plain_results(view)
        return won_value if won else lost_value
    if score == 1:
        points = solver.open_hand_value(child, skat, tt, stack)
        _asked(stack, stats)
        return float(points)
    schneider_announced, schwarz_announced = view[VIEW.schneider_announced], view[VIEW.schwarz_announced]
    if schwarz_announced:
        won = solver.declarer_takes_all(child, tt, stack)
    else:
        won = solver.declarer_reaches(child, skat, 90 if schneider_announced else 61, tt, stack)
    _asked(stack, stats)
    if won:
        schneider = False
        if not schneider_announced:
            schneider = solver.declarer_reaches(child, skat, 90, tt, stack)
            _asked(stack, stats)
        schwarz = False
        if (schneider or schneider_announced) and not schwarz_announced:
            schwarz = solver.declarer_takes_all(child, tt, stack)
            _asked(stack, stats)
        return _in_game_terms(view, True, schneider, schwarz, False)
    schneidered = False
    if not schneider_announced:
        schneidered = not solver.declarer_reaches(child, skat, 31, tt, stack)
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
    """The declarer's result of a world played to its end, taking ``taken`` card points (the counted skat
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
def world_weight(view, world, skat, inference):
    """1, or with inference :data:`UNLIKELY` for a world whose declared game could not reach the bid."""
    if not inference:
        return 1.0
    return bid_weight(view, world, skat)


# --- the player --------------------------------------------------------------------------------


@njit(cache=True)
def pimc_best(view, legal, params, rng, tt, stack):
    """(rng, the cards of best mean result) of a PIMC decision (see the module doc) with the parameters
    ``params`` (slots ``PIMC_*``). The caller picks one of the cards."""
    return pimc_search(view, legal, params, rng, tt, stack, np.zeros(STATS, dtype=np.int64))


#: The most worlds one decision solves, whatever ``max_worlds`` says.
WORLDS_CAP = 1000


@njit(cache=True)
def _best_cards(legal, totals, count, sign):
    """The legal cards of the best mean ``totals / count`` for the seat's side (``sign``)."""
    best, best_cards, m = WORST, np.int64(0), legal
    while m:
        card = lowest_card(m)
        m &= m - 1
        value = sign * totals[card] / count
        if value > best + 1e-9:
            best, best_cards = value, np.int64(1) << card
        elif value > best - 1e-9:
            best_cards |= np.int64(1) << card
    return best_cards


@njit(cache=True)
def _clear(results, solved, legal, sign, clear):
    """Is the best card clear after ``solved`` worlds (rows of ``results``)? Its mean lead over the
    next best card is at least ``clear`` standard errors of the lead, or the lead is the same
    in every world."""
    totals = np.zeros(32)
    for k in range(solved):
        totals += results[k]
    first = _best_cards(legal, totals, solved, sign)
    best = lowest_card(first)
    rest = legal & ~(np.int64(1) << best)
    if rest == 0:
        return True
    second = lowest_card(_best_cards(rest, totals, solved, sign))
    mean = sign * (totals[best] - totals[second]) / solved
    spread = _spread(results, solved, best, second, sign, mean)
    if spread < 1e-12:
        return True
    return mean >= clear * np.sqrt(spread / (solved - 1) / solved)


@njit(cache=True, inline="always")
def _spread(results, solved, best, card, sign, mean):
    """The squared deviations from ``mean`` over the worlds of ``best``'s lead over ``card`` for the seat's
    side."""
    spread = 0.0
    for k in range(solved):
        d = sign * (results[k, best] - results[k, card]) - mean
        spread += d * d
    return spread


@njit(cache=True)
def _played_out(view, child, skat, score, params, seen, tt, stack, stats):
    """The declarer's result (:func:`played_result`) of the world ``child`` played to its end by the learned
    card player whose model follows the parameter row, at every seat from its own view (``seen``: a view
    with the declaration every seat's view shares). With ``solve_last`` (slot PIMC_SOLVE_LAST) the play-out
    stops at the start of that many last tricks and the open-hand solver values the rest
    (:func:`counted_result`)."""
    stats[S_CALLS] += 1  # the play-out; the solver's searches at its end count too
    discard = 0 if view[VIEW.hand_game] else skat
    solved_from = 10 - int(params[PIMC_SOLVE_LAST])
    while not child[STATE.finished]:
        if child[STATE.in_trick] == 0 and child[STATE.tricks_done] >= solved_from:
            return counted_result(view, child, skat, score, tt, stack, stats)
        now = start_turn(child, discard, seen)
        play_card(child, learned_card(seen, now, params, np.uint64(0))[1])
    taken, tricks = declarer_result(child, skat)
    return played_result(view, taken, tricks, score)


@njit(cache=True)
def _value_world(view, legal, world, skat, params, tt, stack, stats, row):
    """``row[card]``: the world's result after each legal card, solved open-handed (:func:`counted_result`)
    or, with ``play_out``, played out by the learned player (:func:`_played_out`). Cards worth the same in
    the world (``solver.equal_cards``) are valued once: with every hand seen they lead to the same ends, and
    the play-out of one stands for the others."""
    score, play_out = int(params[PIMC_SCORE]), params[PIMC_PLAY_OUT] > 0
    child = np.empty(STATE.size, dtype=np.int64)
    seen = view.copy()
    speaker = np.empty(32, dtype=np.int64)
    m = solver.equal_cards(world, speaker)
    while m:
        card = lowest_card(m)
        m &= m - 1
        child[:] = world
        play_card(child, card)
        if play_out:
            row[card] = _played_out(view, child, skat, score, params, seen, tt, stack, stats)
        else:
            row[card] = counted_result(view, child, skat, score, tt, stack, stats)
    m = legal
    while m:
        card = lowest_card(m)
        m &= m - 1
        row[card] = row[speaker[card]]
    stats[S_WORLDS] += 1


@njit(cache=True)
def _draw_candidates(view, rng, params, pool, pool_skats, weights, stats):
    """Fill the candidate worlds and their weights (the bid's and the play's, pimc_inference)."""
    replay = np.empty(STATE.size, dtype=np.int64)
    seen = np.empty(VIEW.size, dtype=np.int64)
    for c in range(pool.shape[0]):
        rng, pool_skats[c] = sample_world(view, rng, pool[c])
        weights[c] = bid_weight(view, pool[c], pool_skats[c]) * play_likelihood(
            view, pool[c], pool_skats[c], params[PIMC_DEVIATION], replay, seen, params[PIMC_INFER_BY] > 0, params)
        stats[S_CANDIDATES] += 1
    return rng


@njit(cache=True)
def _pick(rng, weights):
    """An index drawn with probability proportional to ``weights``."""
    rng, draw = below(rng, np.int64(1) << 30)
    target = weights.sum() * (draw + 0.5) / (1 << 30)
    acc = 0.0
    for c in range(weights.shape[0]):
        acc += weights[c]
        if acc >= target:
            return rng, c
    return rng, weights.shape[0] - 1


@njit(cache=True)
def pimc_search(view, legal, params, rng, tt, stack, stats):
    """:func:`pimc_best`, adding to ``stats`` (slots ``S_*``) the worlds valued, the solver calls (or
    play-outs), their nodes and the candidate worlds drawn (the worlds as :func:`pimc_results` draws them).
    With ``near`` (slot PIMC_NEAR) the cards are the learned player's one card among the near cards."""
    legal = np.int64(legal)
    if (legal & (legal - 1)) == 0:
        return rng, legal
    sign = 1.0 if view[VIEW.seat] == view[VIEW.declarer] else -1.0
    totals = np.zeros(32)
    rng, solved, results = pimc_totals(view, legal, params, rng, tt, stack, stats, totals)
    best = _best_cards(legal, totals, solved, sign)
    if params[PIMC_NEAR] > 0:
        near = _near_cards(results, totals, solved, legal, best, sign, params[PIMC_NEAR])
        return rng, np.int64(1) << learned_choice(view, legal, near, params)
    return rng, best


@njit(cache=True)
def _near_cards(results, totals, solved, legal, best, sign, near):
    """The ``best`` cards and the legal cards whose mean (``totals / solved``) falls short of theirs by
    less than ``near`` standard errors of the difference over the worlds (a card short in every world by
    the same amount is not near)."""
    first = lowest_card(best)
    cards, m = best, legal & ~best
    while m:
        card = lowest_card(m)
        m &= m - 1
        mean = sign * (totals[first] - totals[card]) / solved
        spread = _spread(results, solved, first, card, sign, mean)
        if solved > 1 and mean < near * np.sqrt(spread / (solved - 1) / solved):
            cards |= np.int64(1) << card
    return cards


@njit(cache=True)
def _most_worlds(params):
    """The most worlds a decision values (slots PIMC_WORLDS and PIMC_MAX_WORLDS, capped)."""
    return min(max(int(params[PIMC_MAX_WORLDS]), int(params[PIMC_WORLDS])), WORLDS_CAP)


@njit(cache=True)
def pimc_totals(view, legal, params, rng, tt, stack, stats, totals):
    """(rng, worlds valued, their results by world): ``totals[card]`` the sum over the valued worlds of the
    declarer's result after each legal card (:func:`pimc_results`); a PIMC decision plays the best mean for
    the seat's side."""
    results = np.zeros((_most_worlds(params), 32))
    rng, solved = pimc_results(view, legal, params, rng, tt, stack, stats, results)
    for k in range(solved):
        totals += results[k]
    return rng, solved, results


@njit(cache=True)
def pimc_results(view, legal, params, rng, tt, stack, stats, results):
    """(rng, worlds valued): ``results[k, card]`` the declarer's result after each legal card in the k-th
    world valued (:func:`counted_result` solved, :func:`played_result` played out).

    Without inference and with ``max_worlds`` at most ``worlds``: ``worlds`` worlds, each drawn
    and valued in turn. Otherwise at least ``worlds`` worlds and more, up to ``max_worlds``,
    while the best card is unclear; with inference they are drawn one by one from the
    candidate worlds, each in proportion to its weight among those not drawn yet, and count
    alike (the weight chooses which worlds are valued).
    """
    legal = np.int64(legal)
    worlds, inference = int(params[PIMC_WORLDS]), params[PIMC_INFERENCE] > 0
    most = _most_worlds(params)
    sign = 1.0 if view[VIEW.seat] == view[VIEW.declarer] else -1.0
    world = np.empty(STATE.size, dtype=np.int64)
    if not inference and most == worlds:
        for k in range(worlds):
            rng, skat = sample_world(view, rng, world)
            _value_world(view, legal, world, skat, params, tt, stack, stats, results[k])
        return rng, worlds
    candidates = max(int(params[PIMC_CANDIDATES]), most) if inference else 0
    pool = np.empty((candidates, STATE.size), dtype=np.int64)
    pool_skats = np.zeros(candidates, dtype=np.int64)
    weights = np.zeros(candidates)
    if inference:
        rng = _draw_candidates(view, rng, params, pool, pool_skats, weights, stats)
    solved = 0
    while solved < most:
        if inference:
            if weights.sum() <= 0.0:
                break
            rng, c = _pick(rng, weights)
            weights[c] = 0.0            # each candidate is valued once
            _value_world(view, legal, pool[c], pool_skats[c], params, tt, stack, stats, results[solved])
        else:
            rng, skat = sample_world(view, rng, world)
            _value_world(view, legal, world, skat, params, tt, stack, stats, results[solved])
        solved += 1
        if solved >= worlds and (solved == most or _clear(results, solved, legal, sign, params[PIMC_CLEAR])):
            break
    return rng, solved


@njit(cache=True)
def plain_results(view):
    """(won, lost): the declarer's result of a world, in game terms, won or lost with no level beyond
    those declared (:func:`counted_result` adds the levels reached beyond them)."""
    if view[VIEW.game] == NULL:
        value = NULL_VALUES[view[VIEW.hand_game] + 2 * view[VIEW.ouvert]]
    else:
        value = BASE_VALUES[view[VIEW.game]] * (1 + _levels(view))   # one matador: the value's scale is what matters
    return float(value + 50), float(-2 * value - 50)


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
def learned_plays_seat(view, params):
    """Does the learned player play this seat's card (slot PIMC_LEARNED_PLAYS names its role)?"""
    role = params[PIMC_LEARNED_PLAYS]
    declarer = view[VIEW.seat] == view[VIEW.declarer]
    return (role == 1 and declarer) or (role == 2 and not declarer)


@njit(cache=True)
def pimc_card(view, legal, params, rng):
    """The PIMC card for a play loop that hands out no solver table: one is made per decision."""
    if learned_plays_seat(view, params):
        return learned_card(view, legal, params, rng)
    tt, stack = own_workspace()
    rng, best = pimc_best(view, legal, params, rng, tt, stack)
    return rng, choose_among(view, best)


@register("card_play", "pimc", ranges={"worlds": (0, 1000), "max_worlds": (0, 1000), "deviation": (0.001, 1),
                                      "candidates": (0, 1000), "clear": (0, 10), "solve_last": (0, 9),
                                      "near": (0, 10)})
def pimc_policy(worlds: int = 0, score: str = "game", inference: bool = True, max_worlds: int = 0,
                deviation: float = DEFAULT_DEVIATION, candidates: int = 0, clear: float = DEFAULT_CLEAR,
                play_out: bool = True, model: str = "", infer_by: str = "heuristic",
                solve_last: int = DEFAULT_SOLVE_LAST, near: float | None = None,
                learned_plays: str = "none") -> CardPolicy:
    """Perfect-information Monte Carlo: worlds of the unseen cards, each played out by the learned player or
    solved open-handed (cardplay/pimc.py).

    ``play_out`` plays each world to its end with the learned card player at every seat (``model``: its
    model file, default the one shipped); false solves it open-handed. ``worlds`` valued at least per
    decision (0: :data:`PLAY_OUT_WORLDS` played out, :data:`DEFAULT_WORLDS` solved), up to
    ``max_worlds`` while the best card is unclear (0: :data:`DEFAULT_MAX_WORLDS` solved with inference,
    else ``worlds``), that is while the best card's mean lead is under ``clear`` standard errors;
    ``score`` "game" (win or loss, schneider, the announcements, in Seeger-Fabian points) or "points"
    (the declarer's card points); ``inference`` weighs ``candidates`` worlds (0:
    :data:`PLAY_OUT_CANDIDATES_PER_WORLD` for each world played out, :data:`DEFAULT_CANDIDATES` solved)
    by the bid and by how likely the other seats' cards so far were in each (by the choices of
    ``infer_by``: "heuristic", the heuristic player's rules, or "learned", the learned player of
    ``model``; ``deviation`` the chance of another card) and values worlds drawn by that weight.
    ``solve_last``: the last tricks of a world played out that the open-hand solver values instead (a
    world not played out is solved whole, whatever it says). ``near``: the learned player of ``model``
    chooses among the cards whose mean falls short of the best by less than that many standard errors
    (0: the best mean decides, the heuristic's rules among equals; None: :data:`DEFAULT_NEAR` played out,
    0 solved). ``learned_plays``: "declarer" or "defenders", the seats of that role play the learned player's
    card of ``model`` without a search (a measure of where the search gains, and a cheaper player); "none"
    (the default) searches at every seat.
    """
    if score not in SCORES:
        raise StrategyError(f"score must be one of {', '.join(SCORES)}, not {score!r}")
    if infer_by not in INFER_BY:
        raise StrategyError(f"infer_by must be one of {', '.join(INFER_BY)}, not {infer_by!r}")
    if learned_plays not in LEARNED_PLAYS:
        raise StrategyError(f"learned_plays must be one of {', '.join(LEARNED_PLAYS)}, not {learned_plays!r}")
    if near is None:
        near = DEFAULT_NEAR if play_out else 0.0
    learned = play_out or infer_by == "learned" or near > 0 or learned_plays != "none"
    if model and not learned:
        raise StrategyError("model is the learned player's of play_out, infer_by=learned, near or learned_plays: "
                            "set one with it")
    if worlds == 0:
        worlds = PLAY_OUT_WORLDS if play_out else DEFAULT_WORLDS
    if max_worlds == 0:
        max_worlds = DEFAULT_MAX_WORLDS if inference and not play_out else worlds
    if candidates == 0:
        candidates = PLAY_OUT_CANDIDATES_PER_WORLD * max(worlds, max_worlds) if play_out else DEFAULT_CANDIDATES
    params = param_values({PIMC_WORLDS: worlds, PIMC_SCORE: SCORES.index(score), PIMC_INFERENCE: inference,
                           PIMC_MAX_WORLDS: max_worlds, PIMC_DEVIATION: deviation, PIMC_CANDIDATES: candidates,
                           PIMC_CLEAR: clear, PIMC_PLAY_OUT: play_out, PIMC_INFER_BY: INFER_BY.index(infer_by),
                           PIMC_SOLVE_LAST: solve_last if play_out else 0, PIMC_NEAR: near,
                           PIMC_LEARNED_PLAYS: LEARNED_PLAYS.index(learned_plays)})
    data = learned_policy(model).data if learned else None
    return CardPolicy("pimc", pimc_card, params, builtin=PIMC_KIND, data=data)
