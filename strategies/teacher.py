"""Card decisions of simulated deals, each with a teacher's value of every legal card.

The deals are played as :func:`strategies.deals.play_deals` plays them (the same auction,
declarations and cards, from the same random streams). At every decision with more than one
legal card the seat's view and legal cards are kept, and each legal card is valued on the real
deal, every hand open, in game terms for the declarer:

- suit and grand: 1 when the declarer still wins after the card (61 points, 90 with schneider
  announced), plus ``SCHNEIDER_WEIGHT`` when it still makes schneider (90), minus it when the
  defenders can still make it schneider (the declarer held under 31). Both come from the
  declarer's exact open-hand card points after the card (one search of the solver per card,
  :func:`sim.solver.open_hand_value`), which are kept too: where every card keeps the game,
  the points still tell a card that gives some away;
- null: 1 when the declarer still avoids every trick, else 0.

One position looks the same to the seat in many deals; averaged over them the teacher's value
is the card's value given what the seat knows, the hidden cards distributed as they really are
after this auction and this play. :mod:`strategies.training` fits a card player to these values.

The second teacher, ``pimc``, values each legal card as the ``pimc`` card player that solves its worlds
(``play_out`` false, its defaults otherwise) does from the seat's view alone
(:func:`strategies.cardplay.pimc.pimc_totals`: its 10 worlds, with inference, each solved open-handed):
the mean over its worlds of the declarer's result in game terms, put on the first teacher's scale, 0
for the declared game lost and 1 for it won with no further level
(:func:`strategies.cardplay.pimc.plain_results`; schneider, schwarz and their losses lie beyond, as
PIMC weighs them). Its worlds come from a stream of the deal's own
(``STREAM_TEACHER``), so a run gives the same values for a seed in any part or process. The same teacher
``pimc_play_out`` values the cards as the ``pimc`` player at its defaults does (60 worlds drawn with
inference, each played out by the shipped learned player at every seat, the last tricks solved): its
mean over those worlds, on the same scale. It costs about 0.13 s of processor time a deal.

The third teacher, ``rollout``, plays each legal card on the real deal and then the rest of the game
with every seat's own card player (the profile's), each from its own view, and values the card by the
end it leads to, on the first teacher's scale. Averaged over the deals that look the same to the seat,
that is the card's value when everyone goes on playing as they do, so a student fitted to it learns the
card that does best against the players as they are (one step of policy improvement), where the
open-hand value rewards plays that only work with every card seen. The card played is valued by the
end of the game as played. It costs a play-out per legal card, about a tenth of the open-hand
teacher's time with the learned player at every seat.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import solver
from sim.rules.cards import lowest_card, popcount
from sim.rules.deal import deal_batch
from sim.rules.games import NULL
from sim.rules.play import TRICK_LOG_SIZE, finish_turn, start_turn
from sim.rules.rng import STREAM_PLAY, STREAM_TEACHER, stream_key
from sim.rules.tricks import STATE, declarer_result, play_card, to_play
from sim.rules.view import VIEW

from .cardplay.builtin import builtin_card, new_workspace, play_out_builtin
from .cardplay.pimc import STATS, pimc_policy, pimc_totals, plain_results
from .deals import (
    DECLARED_DECLARER,
    DECLARED_DISCARDED,
    DECLARED_SKAT_CARDS,
    _start_deal,
    declare,
    declared_matrix,
    param_matrix,
    run_auctions,
)
from .profiles import Profile

#: The weight of schneider (made or suffered) beside winning (1) in the teacher's value.
SCHNEIDER_WEIGHT = 0.25
#: At most this many decisions with a choice in one deal (30 cards, the last of each seat forced).
DECISIONS_PER_DEAL = 27
#: The solver's table of the teacher: 2**20 entries, shared by a batch of deals.
TEACHER_TABLE_BITS = 20
#: The teachers: the open-hand value on the real deal, PIMC's value from the seat's view (its worlds solved),
#: the end of the real deal played out by the seats' own players, and PIMC's value with its worlds played out.
TEACHERS = ("open_hand", "pimc", "rollout", "pimc_play_out")
OPEN_HAND_TEACHER, PIMC_TEACHER, ROLLOUT_TEACHER, PIMC_PLAY_OUT_TEACHER = 0, 1, 2, 3
#: Whose decisions a run keeps: every seat's, the declarer's or the defenders'.
ROLES = ("all", "declarer", "defenders")
EVERY_ROLE, DECLARER_ROLE, DEFENDERS_ROLE = 0, 1, 2


@njit(cache=True)
def _game_value(child, counted_skat, win_at, tt, stack):
    """The teacher's value of a suit or grand position from null-window questions only."""
    if solver.declarer_reaches(child, counted_skat, win_at, tt, stack):
        if win_at < 90 and solver.declarer_reaches(child, counted_skat, 90, tt, stack):
            return 1.0 + SCHNEIDER_WEIGHT
        return 1.0
    if not solver.declarer_reaches(child, counted_skat, 31, tt, stack):
        return -SCHNEIDER_WEIGHT
    return 0.0


@njit(cache=True, inline="always")
def _points_value(taken, win_at):
    """The teacher's value of a suit or grand game the declarer ends with ``taken`` card points."""
    if taken >= win_at:
        return 1.0 + SCHNEIDER_WEIGHT if win_at < 90 and taken >= 90 else 1.0
    return -SCHNEIDER_WEIGHT if taken < 31 else 0.0


@njit(cache=True)
def _solved_value(child, counted_skat, win_at, tt, stack):
    """The first teacher's value of a position: null won (1) or lost (0), else :func:`_game_value`."""
    if child[STATE.game] == NULL:
        return float(solver.open_hand_value(child, counted_skat, tt, stack))
    return _game_value(child, counted_skat, win_at, tt, stack)


@njit(cache=True)
def card_teacher_values(state, counted_skat, legal, schneider_announced, tt, stack, out, points, with_points):
    """``out[card]``: the teacher's value of each legal card (see the module); ``points[card]``: the
    declarer's open-hand card points at the end after it (suit and grand with ``with_points``; NaN
    in null, for the cards not legal and without ``with_points``)."""
    out[:] = np.nan
    points[:] = np.nan
    child = np.empty(STATE.size, dtype=np.int64)
    cards = np.int64(legal)
    win_at = 90 if schneider_announced else 61
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        child[:] = state
        play_card(child, card)
        if state[STATE.game] == NULL or not with_points:
            out[card] = _solved_value(child, counted_skat, win_at, tt, stack)
            continue
        taken = solver.open_hand_value(child, counted_skat, tt, stack)
        points[card] = taken
        out[card] = _points_value(taken, win_at)


@njit(cache=True)
def rollout_teacher_values(state, seen_skat, counted_skat, legal, view, params, rng, tt, stack, out, solve_last):
    """``out[card]``: the value, on the open-hand teacher's scale, of the end each legal card leads to on the
    real deal when every seat then plays its own card player (``params``, a row per seat) from its view, all
    from the random state ``rng`` (NaN for the cards not legal). ``view`` (the seat's) gives the declaration
    every seat's view shares. With ``solve_last`` the play stops where that many tricks are left and the
    open-hand value of the rest counts, as the first teacher values a card."""
    out[:] = np.nan
    child = np.empty(STATE.size, dtype=np.int64)
    seen = view.copy()
    log = np.empty(TRICK_LOG_SIZE, dtype=np.int8)
    win_at = 90 if view[VIEW.schneider_announced] else 61
    cards = np.int64(legal)
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        child[:] = state
        play_card(child, card)
        play_out_builtin(child, seen_skat, seen, params, rng, log, counted_skat, tt, stack, 10 - solve_last)
        if not child[STATE.finished]:
            out[card] = _solved_value(child, counted_skat, win_at, tt, stack)
            continue
        taken, tricks = declarer_result(child, counted_skat)
        if state[STATE.game] == NULL:
            out[card] = 1.0 if tricks == 0 else 0.0
        else:
            out[card] = _points_value(taken, win_at)


@njit(cache=True)
def pimc_teacher_values(view, legal, pimc_params, rng, tt, stack, out):
    """(rng): ``out[card]`` PIMC's value of each legal card from ``view`` (see the module; NaN for the
    cards not legal), its worlds drawn from ``rng``. Reads nothing but the view."""
    out[:] = np.nan
    totals = np.zeros(32)
    rng, solved, _ = pimc_totals(view, legal, pimc_params, rng, tt, stack, np.zeros(STATS, dtype=np.int64), totals)
    won, lost = plain_results(view)
    cards = np.int64(legal)
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        out[card] = (totals[card] / solved - lost) / (won - lost) if solved else 0.0
    return rng


@njit(cache=True)
def log_decisions(seed, deal_ids, deals, declared, params, tt, stack, deal_of, views, legals, values, points,
                  with_points, teacher, pimc_params, solve_last, role):
    """Play every declared row as the built-in loop does, keeping each decision with a choice:
    its deal id, the seat's view, the legal cards and the values of ``teacher`` (``OPEN_HAND_TEACHER``,
    ``PIMC_TEACHER`` or ``PIMC_PLAY_OUT_TEACHER`` with the parameter row ``pimc_params``, or
    ``ROLLOUT_TEACHER``) of the seats of ``role`` (an index in ROLES). The seat chooses its
    card first, so that the rollouts go on from the random state its own play goes on from: the value of
    the card played is the end of the game as played (with ``solve_last``, its last tricks solved). Returns
    the count kept."""
    state, view = np.zeros(STATE.size, np.int64), np.zeros(VIEW.size, np.int64)
    log = np.full(TRICK_LOG_SIZE, -1, dtype=np.int8)
    kept = 0
    for k in range(deals.shape[0]):
        if declared[k, DECLARED_DECLARER] < 0:
            continue
        _start_deal(declared[k], deals[k], state, view)
        seen_skat = declared[k, DECLARED_SKAT_CARDS] if declared[k, DECLARED_DISCARDED] else 0
        counted = declared[k, DECLARED_SKAT_CARDS]
        rng = stream_key(seed, deal_ids[k], STREAM_PLAY)
        worlds_rng = stream_key(seed, deal_ids[k], STREAM_TEACHER)
        n = 0
        while not state[STATE.finished]:
            seat = to_play(state)
            legal = start_turn(state, seen_skat, view)
            rng, card = builtin_card(view, legal, params[seat], rng, state, counted, tt, stack)
            declaring = seat == declared[k, DECLARED_DECLARER]
            if popcount(legal) > 1 and (role == EVERY_ROLE or (role == DECLARER_ROLE) == declaring):
                deal_of[kept], legals[kept] = deal_ids[k], legal
                views[kept] = view
                if teacher == PIMC_TEACHER or teacher == PIMC_PLAY_OUT_TEACHER:
                    points[kept] = np.nan
                    worlds_rng = pimc_teacher_values(view, legal, pimc_params, worlds_rng, tt, stack, values[kept])
                elif teacher == ROLLOUT_TEACHER:
                    points[kept] = np.nan
                    rollout_teacher_values(state, seen_skat, counted, legal, view, params, rng, tt, stack,
                                           values[kept], solve_last)
                else:
                    card_teacher_values(state, counted, legal, view[VIEW.schneider_announced], tt, stack,
                                        values[kept], points[kept], with_points)
                kept += 1
            finish_turn(state, legal, card, log, n)
            n += 1
    return kept


def decision_columns(profile: Profile, seed: int, start: int, count: int, points: bool = True,
                     teacher: str = "open_hand", solve_last: int = 0, roles: str = "all") -> dict:
    """The decisions of deals ``start .. start + count - 1`` of ``seed`` played by ``profile``
    (built-in card players only): ``deal_id``, ``view`` (n, VIEW.size), ``legal``, ``values`` (n, 32)
    of ``teacher`` (one of TEACHERS) and, with ``points`` and the open-hand teacher, ``points`` (n, 32).
    ``solve_last``: the last tricks of each of the rollout teacher's play-outs that the solver values;
    ``roles``: whose decisions (one of ROLES)."""
    if teacher not in TEACHERS:
        raise ValueError(f"teacher must be one of {', '.join(TEACHERS)}, not {teacher!r}")
    if roles not in ROLES:
        raise ValueError(f"roles must be one of {', '.join(ROLES)}, not {roles!r}")
    points = points and teacher == "open_hand"
    deals = deal_batch(seed, start, count)
    plans = [s.bidder.plan(deals[:, i], i) for i, s in enumerate(profile.seats)]
    declarer, bid = run_auctions(np.stack([p.max_bid for p in plans], axis=1))
    decl = declare(profile, deals, plans, declarer, bid)
    policies = [s.card_play for s in profile.seats]
    if any(p.builtin is None for p in policies):
        raise ValueError("decisions are logged with skatsim's own card players only")
    deal_ids = np.arange(start, start + count, dtype=np.int64)
    tt, stack = new_workspace(TEACHER_TABLE_BITS)
    size = count * DECISIONS_PER_DEAL
    deal_of, legals = np.empty(size, np.int64), np.empty(size, np.uint32)
    views, values = np.empty((size, VIEW.size), np.int64), np.empty((size, 32), np.float32)
    points_kept = np.empty((size, 32), np.float32)
    kept = log_decisions(np.uint64(seed), deal_ids, np.ascontiguousarray(deals),
                         declared_matrix(declarer, bid, decl), param_matrix(policies), tt, stack,
                         deal_of, views, legals, values, points_kept, points, TEACHERS.index(teacher),
                         pimc_policy(play_out=teacher == "pimc_play_out").param_row(), solve_last,
                         ROLES.index(roles))
    columns = {"deal_id": deal_of[:kept], "view": views[:kept], "legal": legals[:kept], "values": values[:kept]}
    if points:
        columns["points"] = points_kept[:kept]
    return columns
