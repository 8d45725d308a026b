"""Card decisions of simulated deals, each with a teacher's value of every legal card.

The deals are played as :func:`strategies.whole_deals.play_deals` plays them (the same auction,
declarations and cards, from the same random streams). At every decision with more than one
legal card the seat's view and legal cards are kept, and each legal card is valued on the real
deal, every hand open, in game terms for the declarer:

- suit and grand: 1 when the declarer still wins after the card (61 points, 90 with schneider
  announced), plus ``SCHNEIDER_WEIGHT`` when it still makes schneider (90), minus it when the
  defenders can still make it schneider (the declarer held under 31), each asked of the open-hand
  solver (:func:`sim.solver.declarer_reaches`);
- null: 1 when the declarer still avoids every trick, else 0.

One position looks the same to the seat in many deals; averaged over them the teacher's value
is the card's value given what the seat knows, the hidden cards distributed as they really are
after this auction and this play. :mod:`strategies.learning.training` fits a card player to these values.

The second teacher, ``rollout``, plays each legal card on the real deal and then the rest of the game
with every seat's own card player (the profile's), each from its own view, and values the card by the
end it leads to, on the first teacher's scale. Averaged over the deals that look the same to the seat,
that is the card's value when everyone goes on playing as they do, so a student fitted to it learns the
card that does best against the players as they are (one step of policy improvement), where the
open-hand value rewards plays that only work with every card seen. The card played is valued by the
end of the game as played. It costs a play-out per legal card, about a tenth of the open-hand
teacher's time with the learned player at every seat.

The third teacher, ``pimc``, does not look at the hidden cards: at every decision it asks the ``pimc`` card
player's search (:func:`strategies.cardplay.pimc.pimc_totals`, with that player's defaults: worlds drawn from
the seat's view, weighed by inference, each played out by the learned player of the teacher's model) and
values each legal card by its mean result over the worlds, put on the first teacher's scale: the declarer's
result in game terms less that of the declared game lost, over the span between the declared game won and
lost (null: the share of worlds won; suit and grand: 1 won, 0 lost, the levels made or suffered beyond the
declared ones a little above or below). Averaged over deals that look the same it is the search's value of
the card, which knows more than the student without seeing more. Its worlds come from a stream of their
own (``STREAM_TEACHER``), so the game is played as without the teacher. It costs a PIMC search a decision,
about 0.08 s a deal on one core.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import solver
from sim.rules.auction import AUCTION
from sim.rules.cards import lowest_card, popcount
from sim.rules.games import NULL
from sim.rules.play import TRICK_LOG_SIZE, finish_turn, start_turn
from sim.rules.rng import STREAM_TEACHER, stream_key
from sim.rules.shuffle import deal_batch
from sim.rules.tricks import STATE, declarer_result, play_card, to_play
from sim.rules.view import VIEW

from ..cardplay.learned import model_weights
from ..cardplay.pimc import PIMC, PIMC_PARAMETERS, PLAYS_OUT, pimc_totals
from ..cardplay.python_players import is_python_player
from ..cardplay.table import new_workspace, play_out, table_card, table_of
from ..cardplay.world_results import STATS, plain_results
from ..parameters import row
from ..profiles import Profile
from ..whole_deals import (
    DECLARED_ASIDE,
    DECLARED_DECLARER,
    declare,
    declared_matrix,
    play_and_score,
    run_auctions,
    start_game,
)
from .lockstep_rollout import rollout_decisions

#: The weight of schneider (made or suffered) beside winning (1) in the teacher's value.
SCHNEIDER_WEIGHT = 0.25
#: At most this many decisions with a choice in one deal (30 cards, the last of each seat forced).
DECISIONS_PER_DEAL = 27
#: The solver's transposition table of the teacher: 2**20 entries, shared by a batch of deals.
TEACHER_TRANSPOSITION_BITS = 20
#: The teachers: the open-hand value on the real deal, the end of the real deal played out by the seats'
#: own players, and the PIMC search's mean over worlds drawn from the seat's view.
TEACHERS = ("open_hand", "rollout", "pimc")
OPEN_HAND_TEACHER, ROLLOUT_TEACHER, PIMC_TEACHER = 0, 1, 2


@njit(cache=True)
def _game_value(child, aside, win_at, tt, stack):
    """The teacher's value of a suit or grand position from null-window questions only."""
    if solver.declarer_reaches(child, aside, win_at, tt, stack):
        if win_at < 90 and solver.declarer_reaches(child, aside, 90, tt, stack):
            return 1.0 + SCHNEIDER_WEIGHT
        return 1.0
    if not solver.declarer_reaches(child, aside, 31, tt, stack):
        return -SCHNEIDER_WEIGHT
    return 0.0


@njit(cache=True, inline="always")
def _points_value(taken, win_at):
    """The teacher's value of a suit or grand game the declarer ends with ``taken`` card points."""
    if taken >= win_at:
        return 1.0 + SCHNEIDER_WEIGHT if win_at < 90 and taken >= 90 else 1.0
    return -SCHNEIDER_WEIGHT if taken < 31 else 0.0


@njit(cache=True, inline="always")
def _end_value(finished, aside, schneider_announced):
    """The rollout teacher's value of a finished game: null won (1) or lost (0), else :func:`_points_value`."""
    taken, tricks = declarer_result(finished, aside)
    if finished[STATE.game] == NULL:
        return 1.0 if tricks == 0 else 0.0
    return _points_value(taken, 90 if schneider_announced else 61)


@njit(cache=True)
def _solved_value(child, aside, win_at, tt, stack):
    """The first teacher's value of a position: null won (1) or lost (0), else :func:`_game_value`."""
    if child[STATE.game] == NULL:
        return float(solver.open_hand_value(child, aside, tt, stack))
    return _game_value(child, aside, win_at, tt, stack)


@njit(cache=True)
def card_teacher_values(state, aside, legal, schneider_announced, tt, stack, out):
    """``out[card]``: the teacher's value of each legal card (see the module; NaN for the cards not legal)."""
    out[:] = np.nan
    child = np.empty(STATE.size, dtype=np.int64)
    cards = np.int64(legal)
    win_at = 90 if schneider_announced else 61
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        child[:] = state
        play_card(child, card)
        out[card] = _solved_value(child, aside, win_at, tt, stack)


@njit(cache=True)
def rollout_teacher_values(state, discard, aside, legal, view, table, seated, params, data, rng, tt, stack, out):
    """``out[card]``: the value, on the open-hand teacher's scale, of the end each legal card leads to on the
    real deal when every seat then plays its own card player (of ``table``, with its ``seated``, ``params``
    and ``data``) from its view, all
    from the random state ``rng`` (NaN for the cards not legal). ``view`` (the seat's) gives the declaration
    every seat's view shares."""
    out[:] = np.nan
    child = np.empty(STATE.size, dtype=np.int64)
    seen = view.copy()
    log = np.empty(TRICK_LOG_SIZE, dtype=np.int8)
    cards = np.int64(legal)
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        child[:] = state
        play_card(child, card)
        play_out(child, discard, seen, table, seated, params, data, rng, log, aside, tt, stack)
        out[card] = _end_value(child, aside, view[VIEW.schneider_announced])


@njit(cache=True)
def pimc_teacher_values(view, legal, params, data, rng, tt, stack, out):
    """(rng, ``out[card]``): the PIMC teacher's value of each legal card (see the module; NaN for the cards not
    legal): :func:`strategies.cardplay.pimc.pimc_totals` with the PIMC row ``params`` and the learned model
    ``data`` of its play-outs, from the random state ``rng``, each card's mean result put on the first teacher's
    scale."""
    out[:] = np.nan
    legal = np.int64(legal)
    totals = np.zeros(32)
    rng, solved, _ = pimc_totals(view, legal, params, data, rng, tt, stack, np.zeros(STATS, dtype=np.int64), totals)
    won, lost = plain_results(view)
    cards = legal
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        out[card] = (totals[card] / solved - lost) / (won - lost)
    return rng


def pimc_teacher_row(model: str = "") -> tuple[np.ndarray, np.ndarray]:
    """(params, data) of the PIMC teacher: the ``pimc`` card player's default row, its worlds played out by the
    learned player of ``model`` (a file or a shipped model's name, :func:`strategies.cardplay.learned.model_path`;
    empty: the shipped one)."""
    defaults = {p.name: p.default for p in PIMC_PARAMETERS}
    params = np.asarray(row(PIMC, (*PIMC_PARAMETERS, PLAYS_OUT), {**defaults, "play_out": True}), dtype=np.float64)
    return params, np.ascontiguousarray(model_weights(model), dtype=np.float32)


@njit(cache=True)
def end_values(states, asides, schneider_announced, out):
    """``out[i]``: the rollout teacher's value of the finished game ``states[i]``."""
    for i in range(states.shape[0]):
        out[i] = _end_value(states[i], asides[i], schneider_announced[i])


@njit(cache=True)
def log_decisions(seed, deal_ids, deals, declared, table, seated, params, data, tt, stack, deal_of, views, legals,
                  values, teacher, played, teacher_params, teacher_data):
    """Play every declared row as :func:`strategies.whole_deals.play_batch` does, with the players of ``table``,
    keeping each decision with a choice: its deal id, the seat's view, the legal cards and the values of
    ``teacher`` (``OPEN_HAND_TEACHER``, ``ROLLOUT_TEACHER`` or ``PIMC_TEACHER``, whose search reads the row
    ``teacher_params`` and the model ``teacher_data``, :func:`pimc_teacher_row`). The seat chooses its card
    first, so that the rollouts go on from the random state its own play goes on from: the value of the card
    played is the end of the game as played; the PIMC teacher draws its worlds from the deal's teacher stream.
    With ``played`` (the trick logs of the games played already, a row per deal) the cards are those of the logs
    and no player is asked, for the open-hand and PIMC teachers. Returns the count kept."""
    # The deal and turn loop of lockstep_rollout.replay_decisions, which keeps states and streams where this
    # one values the cards: one kernel for both would carry the other's arrays through every decision.
    state, view = np.zeros(STATE.size, np.int64), np.zeros(VIEW.size, np.int64)
    log = np.full(TRICK_LOG_SIZE, -1, dtype=np.int8)
    kept = 0
    for k in range(deals.shape[0]):
        if declared[k, DECLARED_DECLARER] < 0:
            continue
        _, discard, rng = start_game(seed, deal_ids[k], declared[k], deals[k], state, view)
        counted = declared[k, DECLARED_ASIDE]
        worlds_rng = stream_key(seed, deal_ids[k], STREAM_TEACHER)
        n = 0
        while not state[STATE.finished]:
            seat = to_play(state)
            legal = start_turn(state, discard, view)
            if played is None:
                rng, card = table_card(table, seated[seat], seat, view, legal, params, data, rng, state, counted, tt,
                                       stack)
            else:
                card = np.int64(played[k, n])
            if popcount(legal) > 1:
                deal_of[kept], legals[kept] = deal_ids[k], legal
                views[kept] = view
                if teacher == ROLLOUT_TEACHER:
                    rollout_teacher_values(state, discard, counted, legal, view, table, seated, params, data, rng,
                                           tt, stack, values[kept])
                elif teacher == PIMC_TEACHER:
                    worlds_rng = pimc_teacher_values(view, legal, teacher_params, teacher_data, worlds_rng, tt, stack,
                                                     values[kept])
                else:
                    card_teacher_values(state, counted, legal, view[VIEW.schneider_announced], tt, stack,
                                        values[kept])
                kept += 1
            finish_turn(state, legal, card, log, n)
            n += 1
    return kept


def decision_columns(profile: Profile, *, seed: int, start: int, count: int, teacher: str = "open_hand",
                     deals: np.ndarray | None = None, teacher_model: str = "", game: int | None = None) -> dict:
    """The decisions of deals ``start .. start + count - 1`` of ``seed`` played by ``profile``: ``deal_id``,
    ``view`` (n, VIEW.size), ``legal`` and ``values`` (n, 32) of ``teacher`` (one of TEACHERS; the PIMC
    teacher's worlds played out by the learned player of ``teacher_model``, :func:`pimc_teacher_row`). ``deals``
    as in :func:`strategies.whole_deals.play_deals`. With ``game`` (a game type) only the games declared as
    that type are played, valued and kept (the deals are dealt, bid and declared alike). With a card player in
    Python the games are played first (:func:`strategies.whole_deals.play_and_score`) and their cards then
    valued, the rollouts played in lockstep (:mod:`strategies.learning.lockstep_rollout`)."""
    if teacher not in TEACHERS:
        raise ValueError(f"teacher must be one of {', '.join(TEACHERS)}, not {teacher!r}")
    policies = [s.card_play for s in profile.seats]
    in_python = any(is_python_player(p) for p in policies)
    deals = deal_batch(seed, start, count) if deals is None else deals
    plans = [s.bidder.plan(deals[:, i], i) for i, s in enumerate(profile.seats)]
    heard = np.empty((count, AUCTION.size), np.int64)
    declarer, bid = run_auctions(np.stack([p.max_bid for p in plans], axis=1), heard=heard)
    decl = declare(profile, deals, plans, declarer, bid)
    deal_ids = np.arange(start, start + count, dtype=np.int64)
    if game is not None:
        declarer = np.where(decl.game == game, declarer, -1)   # the other games are neither played nor valued
    played = None
    if in_python:
        _, played = play_and_score(profile, seed=seed, deal_ids=deal_ids, deals=deals, declarer=declarer, bid=bid,
                                   decl=decl, heard=heard)
        if teacher == "rollout":
            return rollout_decisions(policies, seed=seed, deal_ids=deal_ids, deals=np.ascontiguousarray(deals),
                                     declared=declared_matrix(declarer, bid, decl), heard=heard, played=played,
                                     end_values=end_values)
    tt, stack = new_workspace(TEACHER_TRANSPOSITION_BITS)
    size = count * DECISIONS_PER_DEAL
    deal_of, legals = np.empty(size, np.int64), np.empty(size, np.uint32)
    views, values = np.empty((size, VIEW.size), np.int64), np.empty((size, 32), np.float32)
    table = table_of(policies)
    if teacher == "pimc":
        teacher_params, teacher_data = pimc_teacher_row(teacher_model)
    else:
        teacher_params, teacher_data = np.zeros(PIMC.size), np.zeros(1, np.float32)
    kept = log_decisions(np.uint64(seed), deal_ids, np.ascontiguousarray(deals), declared_matrix(declarer, bid, decl),
                         table, table.seated, table.params, table.data, tt, stack, deal_of, views, legals, values,
                         TEACHERS.index(teacher), played, teacher_params, teacher_data)
    return {"deal_id": deal_of[:kept], "view": views[:kept], "legal": legals[:kept], "values": values[:kept]}
