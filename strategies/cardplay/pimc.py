"""The ``pimc`` and ``pimc_solved`` card players: perfect-information Monte Carlo.

At each decision the seat draws worlds, deals of the cards it cannot see consistent with
everything its view shows (:mod:`strategies.cardplay.worlds`), and gives every legal card the
game's result for the declarer after it in each world (:mod:`strategies.cardplay.world_results`).
``pimc`` plays each world out with the learned card player (:mod:`strategies.cardplay.learned`)
at every seat, each from its own view of the world, until its last tricks (``solve_last``), which
the open-hand solver (:mod:`sim.solver`) values; ``pimc_solved`` solves each whole world, both
sides playing perfectly from there. The seat plays the card with the best mean result for its
side (the declarer the highest, a defender the lowest); with ``near`` the learned player chooses
among that card and the cards whose mean falls short of it by less than ``near`` standard errors
(``pimc``: one), and otherwise among equally good cards the heuristic player's rules choose.

A world played out asks what the card leads to when every seat goes on knowing only what it
sees; a world solved assumes every seat knows every card from the next card on (strategy
fusion), so the play-out is the stronger and, at about 30 microseconds a world and card,
the cheaper question: ``pimc`` plays out 60 worlds where ``pimc_solved`` solves 10.

With ``inference`` the candidate worlds are weighed by the bid and by the cards the other seats
played (:mod:`strategies.cardplay.pimc_inference`), and the worlds valued are drawn by weight.
Without it and with ``max_worlds`` equal to ``worlds`` the player draws and values a fixed number
of worlds.

Every draw comes from the deal's own random stream, so a deal plays the same in any
batch and process; the view is all a PIMC player reads, so hidden cards never decide.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import solver
from sim.rules.cards import lowest_card
from sim.rules.play import start_turn
from sim.rules.rng import below
from sim.rules.tricks import STATE, declarer_result, play_card
from sim.rules.view import VIEW

from ..parameters import Parameter, row, slots, with_defaults
from ..registry import StrategyError, register
from .heuristic import choose_among
from .learned import learned_card, learned_choice, model_weights
from .pimc_inference import bid_weight, play_likelihood
from .policy import CardPolicy, KernelPlayer
from .world_results import S_CALLS, S_CANDIDATES, S_WORLDS, SCORES, STATS, counted_result, played_result
from .worlds import sample_world

#: The parameters of ``pimc`` (docs/card-players.md says how the defaults were chosen).
PIMC_PARAMETERS = (
    Parameter("worlds", "whole", 60, "worlds valued at least at each decision", (1, 1000)),
    Parameter("max_worlds", "whole", 60, "worlds valued at most, while the best card is unclear", (1, 1000)),
    Parameter("clear", "number", 1.0, "standard errors of the best card's mean lead over the next that make a "
              "decision clear (only between worlds and max_worlds)", (0, 10)),
    Parameter("score", "choice", "game", "a world's result: the declarer's Seeger-Fabian result in game terms, "
              "or its card points (the classic PIMC)", choices=SCORES),
    Parameter("inference", "flag", True, "weigh the candidate worlds by the bid and the cards played, and value "
              "worlds drawn by weight"),
    Parameter("deviation", "number", 0.3, "the play model's chance of another card than the heuristic rules' one",
              (0.001, 1)),
    Parameter("candidates", "whole", 120, "candidate worlds drawn and weighed by inference (at least max_worlds)",
              (0, 1000)),
    Parameter("near", "number", 1.0, "the learned player chooses among the cards whose mean falls short of the "
              "best by less than this many standard errors (0: the best mean, the rules among equals)", (0, 10)),
    Parameter("solve_last", "whole", 6, "the last tricks of a world played out that the open-hand solver values "
              "(0: played to the end)", (0, 9)),
    Parameter("model", "text", "", "the learned player's model, for the play-outs and near: a file or a shipped "
              "model's name (v4, v6, v7) (empty: the newest shipped)"),
)
#: The parameters of ``pimc_solved``: those of ``pimc`` but ``solve_last``, and its own defaults.
PIMC_SOLVED_PARAMETERS = with_defaults(tuple(p for p in PIMC_PARAMETERS if p.name != "solve_last"),
                                       worlds=10, max_worlds=10, candidates=40, near=0.0)
#: The row both players' kernel reads: their parameters, and whether the worlds are played out.
PLAYS_OUT = Parameter("play_out", "flag", True, "worlds played out by the learned player, not solved")
PIMC = slots("Pimc", (*PIMC_PARAMETERS, PLAYS_OUT))
WORST = -1e18


@njit(cache=True)
def pimc_best(view, legal, params, data, rng, tt, stack):
    """(rng, the cards of best mean result) of a PIMC decision (see the module doc) with the row
    ``params`` (:data:`PIMC`) and the learned model ``data``. The caller picks one of the cards."""
    return pimc_search(view, legal, params, data, rng, tt, stack, np.zeros(STATS, dtype=np.int64))


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
def _played_out(view, child, aside, score, params, data, seen, tt, stack, stats):
    """The declarer's result (:func:`played_result`) of the world ``child`` played to its end by the learned
    card player of the model ``data``, at every seat from its own view (``seen``: a view
    with the declaration every seat's view shares). With ``solve_last`` the play-out
    stops at the start of that many last tricks and the open-hand solver values the rest
    (:func:`counted_result`)."""
    stats[S_CALLS] += 1  # the play-out; the solver's searches at its end count too
    discard = 0 if view[VIEW.hand_game] else aside
    solved_from = 10 - int(params[PIMC.solve_last])
    while not child[STATE.finished]:
        if child[STATE.in_trick] == 0 and child[STATE.tricks_done] >= solved_from:
            return counted_result(view, child, aside, score, tt, stack, stats)
        now = start_turn(child, discard, seen)
        play_card(child, learned_card(seen, now, params, data, np.uint64(0))[1])
    taken, tricks = declarer_result(child, aside)
    return played_result(view, taken, tricks, score)


@njit(cache=True)
def _value_world(view, legal, world, aside, params, data, tt, stack, stats, row):
    """``row[card]``: the world's result after each legal card, solved open-handed (:func:`counted_result`)
    or, with ``play_out``, played out by the learned player (:func:`_played_out`). Cards worth the same in
    the world (``solver.equal_cards``) are valued once: with every hand seen they lead to the same ends, and
    the play-out of one stands for the others."""
    score, play_out = int(params[PIMC.score]), params[PIMC.play_out] > 0
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
            row[card] = _played_out(view, child, aside, score, params, data, seen, tt, stack, stats)
        else:
            row[card] = counted_result(view, child, aside, score, tt, stack, stats)
    m = legal
    while m:
        card = lowest_card(m)
        m &= m - 1
        row[card] = row[speaker[card]]
    stats[S_WORLDS] += 1


@njit(cache=True)
def _draw_candidates(view, rng, params, pool, pool_asides, weights, stats):
    """Fill the candidate worlds and their weights (the bid's and the play's, pimc_inference)."""
    replay = np.empty(STATE.size, dtype=np.int64)
    seen = np.empty(VIEW.size, dtype=np.int64)
    for c in range(pool.shape[0]):
        rng, pool_asides[c] = sample_world(view, rng, pool[c])
        weights[c] = bid_weight(view, pool[c], pool_asides[c]) * play_likelihood(
            view, pool[c], pool_asides[c], params[PIMC.deviation], replay, seen)
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
def pimc_search(view, legal, params, data, rng, tt, stack, stats):
    """:func:`pimc_best`, adding to ``stats`` (slots ``S_*``) the worlds valued, the solver calls (or
    play-outs), their nodes and the candidate worlds drawn (the worlds as :func:`pimc_results` draws them).
    With ``near`` the cards are the learned player's (of the model ``data``) one card among the near cards."""
    legal = np.int64(legal)
    if (legal & (legal - 1)) == 0:
        return rng, legal
    sign = 1.0 if view[VIEW.seat] == view[VIEW.declarer] else -1.0
    totals = np.zeros(32)
    rng, solved, results = pimc_totals(view, legal, params, data, rng, tt, stack, stats, totals)
    best = _best_cards(legal, totals, solved, sign)
    if params[PIMC.near] > 0:
        near = _near_cards(results, totals, solved, legal, best, sign, params[PIMC.near])
        return rng, np.int64(1) << learned_choice(view, legal, near, data)
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
    """The most worlds a decision values (``worlds`` and ``max_worlds``, capped)."""
    return min(max(int(params[PIMC.max_worlds]), int(params[PIMC.worlds])), WORLDS_CAP)


@njit(cache=True)
def pimc_totals(view, legal, params, data, rng, tt, stack, stats, totals):
    """(rng, worlds valued, their results by world): ``totals[card]`` the sum over the valued worlds of the
    declarer's result after each legal card (:func:`pimc_results`); a PIMC decision plays the best mean for
    the seat's side."""
    results = np.zeros((_most_worlds(params), 32))
    rng, solved = pimc_results(view, legal, params, data, rng, tt, stack, stats, results)
    for k in range(solved):
        totals += results[k]
    return rng, solved, results


@njit(cache=True)
def pimc_results(view, legal, params, data, rng, tt, stack, stats, results):
    """(rng, worlds valued): ``results[k, card]`` the declarer's result after each legal card in the k-th
    world valued (solved, or with ``play_out`` played out: :mod:`strategies.cardplay.world_results`).

    Without inference and with ``max_worlds`` at most ``worlds``: ``worlds`` worlds, each drawn
    and valued in turn. Otherwise at least ``worlds`` worlds and more, up to ``max_worlds``,
    while the best card is unclear; with inference they are drawn one by one from the
    candidate worlds, each in proportion to its weight among those not drawn yet, and count
    alike (the weight chooses which worlds are valued).
    """
    legal = np.int64(legal)
    worlds, inference = int(params[PIMC.worlds]), params[PIMC.inference] > 0
    most = _most_worlds(params)
    sign = 1.0 if view[VIEW.seat] == view[VIEW.declarer] else -1.0
    world = np.empty(STATE.size, dtype=np.int64)
    if not inference and most == worlds:
        for k in range(worlds):
            rng, aside = sample_world(view, rng, world)
            _value_world(view, legal, world, aside, params, data, tt, stack, stats, results[k])
        return rng, worlds
    candidates = max(int(params[PIMC.candidates]), most) if inference else 0
    pool = np.empty((candidates, STATE.size), dtype=np.int64)
    pool_asides = np.zeros(candidates, dtype=np.int64)
    weights = np.zeros(candidates)
    if inference:
        rng = _draw_candidates(view, rng, params, pool, pool_asides, weights, stats)
    solved = 0
    while solved < most:
        if inference:
            if weights.sum() <= 0.0:
                break
            rng, c = _pick(rng, weights)
            weights[c] = 0.0            # each candidate is valued once
            _value_world(view, legal, pool[c], pool_asides[c], params, data, tt, stack, stats, results[solved])
        else:
            rng, aside = sample_world(view, rng, world)
            _value_world(view, legal, world, aside, params, data, tt, stack, stats, results[solved])
        solved += 1
        if solved >= worlds and (solved == most or _clear(results, solved, legal, sign, params[PIMC.clear])):
            break
    return rng, solved


@njit(cache=True)
def pimc_card(view, legal, params, data, rng, state, aside, tt, stack):
    """The PIMC card: the heuristic's choice among :func:`pimc_best`'s cards (the play state and the cards
    aside, which every searching player is handed, are not read)."""
    rng, best = pimc_best(view, legal, params, data, rng, tt, stack)
    return rng, choose_among(view, best)


#: What the play loops need to know of both players: they search (the model they play worlds out with, if
#: any, is their data).
PIMC_PLAYER = KernelPlayer(pimc_card, searches=True)


@register("card_play", "pimc", parameters=PIMC_PARAMETERS)
def pimc_policy(worlds, max_worlds, clear, score, inference, deviation, candidates, near, solve_last,
                model) -> CardPolicy:
    """Perfect-information Monte Carlo: worlds of the unseen cards, each played out by the learned player."""
    return _pimc("pimc", dict(locals()), play_out=True)


@register("card_play", "pimc_solved", parameters=PIMC_SOLVED_PARAMETERS)
def pimc_solved_policy(worlds, max_worlds, clear, score, inference, deviation, candidates, near,
                       model) -> CardPolicy:
    """Perfect-information Monte Carlo: worlds of the unseen cards, each solved open-handed."""
    if model and near == 0:
        raise StrategyError("model is the learned player's that chooses among the near cards: set near with it")
    return _pimc("pimc_solved", {**locals(), "solve_last": 0}, play_out=False)


def _pimc(name: str, values: dict, play_out: bool) -> CardPolicy:
    """A PIMC player of ``values`` (its parameters by name) with its worlds played out or solved."""
    params = row(PIMC, (*PIMC_PARAMETERS, PLAYS_OUT), {**values, "play_out": play_out})
    learned = play_out or values["near"] > 0
    return CardPolicy(name, PIMC_PLAYER, params, data=model_weights(values["model"]) if learned else None)
