"""Whole deals at a table of three players set by a profile.

deal -> each seat's bid plan -> auction -> pick up or hand, discard, declaration
-> ten tricks -> result. Every stage works on the whole batch at once (numpy for
evaluators, numba kernels for the auction, discards and card play), and every
random choice of deal ``i`` comes from the streams keyed by ``(seed, i)``, so a
deal's game does not depend on the batch it is played in.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.auction import auction_by_max_bids
from sim.cards import SEAT_SUFFIXES
from sim.deal import SKAT, deal_batch
from sim.games import NULL
from sim.play import TRICK_LOG_SIZE, play_out
from sim.rng import STREAM_PLAY, stream_key
from sim.scoring import (classic_score, matadors, outcome_at_bid, play_outcome,
                         seeger_fabian_declarer, seeger_fabian_defender)
from sim.tricks import STATE_SIZE, declarer_result, start_play
from sim.view import VIEW_SIZE, set_declaration

from .cardplay import play_out_builtin
from .declaring import Declarations, announce, declare_after_pickup, declare_hand_games
from .discarding import discard_many
from .evaluation import declared_evaluator_columns
from .profiles import Profile

#: Result columns filled by the play kernel, in order.
RESULT_COLUMNS = ("matadors", "declarer_points", "declarer_tricks", "won", "overbid", "schneider",
                  "schwarz", "game_value", "score", "sf_f", "sf_m", "sf_r", "value_reached", "won_in_play")


@njit(cache=True)
def auction_batch(max_bids, declarer, bid):
    for k in range(max_bids.shape[0]):
        declarer[k], bid[k] = auction_by_max_bids(max_bids[k, 0], max_bids[k, 1], max_bids[k, 2])


def run_auctions(max_bids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(declarer, bid) of each deal from the seats' maximum bids; declarer -1 when passed in."""
    n = max_bids.shape[0]
    declarer, bid = np.empty(n, np.int64), np.empty(n, np.int64)
    auction_batch(np.ascontiguousarray(max_bids, dtype=np.int64), declarer, bid)
    return declarer, bid


def declare(profile: Profile, deals: np.ndarray, plans, declarer: np.ndarray, bid: np.ndarray) -> Declarations:
    """Each declarer's hand or pick-up, discard and declaration, seat by seat."""
    out = Declarations.empty(len(declarer))
    for seat, strategies in enumerate(profile.seats):
        rows = np.flatnonzero(declarer == seat)
        hand_rows = rows[plans[seat].hand[rows]]
        pickup_rows = rows[~plans[seat].hand[rows]]
        declare_hand_games(plans[seat], strategies.declarer, strategies.bidder, deals[:, SKAT], bid,
                           hand_rows, out)
        twelve = deals[pickup_rows, seat] | deals[pickup_rows, SKAT]
        declare_after_pickup(twelve, seat, bid[pickup_rows], plans[seat],
                             strategies.declarer, strategies.bidder, strategies.discarder,
                             pickup_rows, out)
    return out


# Declaration table columns, one row per game to play (int64).
DECLARER, BID, GAME, HAND, SCHNEIDER, SCHWARZ, OUVERT, SKAT_CARDS, DISCARDED = range(9)


@njit(cache=True)
def _start_deal(row, cards, state, view):
    """Set up the play state and view of one declared game; returns the declarer's twelve cards."""
    d = row[DECLARER]
    twelve = cards[d] | cards[3]
    hands = np.empty(3, dtype=np.int64)
    for s in range(3):
        hands[s] = cards[s]
    hands[d] = twelve & ~row[SKAT_CARDS]
    start_play(state, hands[0], hands[1], hands[2], row[GAME], d)
    set_declaration(view, row[HAND], row[SCHNEIDER], row[SCHWARZ], row[OUVERT], row[BID])
    return twelve


@njit(cache=True)
def _score_deal(row, state, twelve, out):
    """Write the result of a played game into ``out`` (RESULT_COLUMNS)."""
    d = row[DECLARER]
    points, tricks = declarer_result(state, row[SKAT_CARDS])
    mat = matadors(row[GAME], twelve)
    reached, won_in_play, sch, sw = play_outcome(row[GAME], row[HAND] == 1, row[SCHNEIDER] == 1,
                                                 row[SCHWARZ] == 1, row[OUVERT] == 1, mat, points, tricks)
    won, value, overbid = outcome_at_bid(row[GAME], reached, won_in_play, row[BID])
    out[0], out[1], out[2], out[3], out[4], out[5] = mat, points, tricks, won, overbid, sch
    out[6], out[7], out[8] = sw, value, classic_score(won, value)
    for s in range(3):
        out[9 + s] = seeger_fabian_declarer(won, value) if s == d else seeger_fabian_defender(won)
    out[12], out[13] = reached, won_in_play


@njit(cache=True)
def play_batch_builtin(seed, deal_ids, deals, table, params, results, logs):
    """Play and score every row with a declarer (built-in policies); other rows stay zero."""
    state, view = np.zeros(STATE_SIZE, np.int64), np.zeros(VIEW_SIZE, np.int64)
    for k in range(deals.shape[0]):
        if table[k, DECLARER] < 0:
            continue
        twelve = _start_deal(table[k], deals[k], state, view)
        seen_skat = table[k, SKAT_CARDS] if table[k, DISCARDED] else 0
        play_out_builtin(state, seen_skat, view, params, stream_key(seed, deal_ids[k], STREAM_PLAY), logs[k])
        _score_deal(table[k], state, twelve, results[k])


@njit
def play_batch(seed, deal_ids, deals, table, policy_f, policy_m, policy_r, params, results, logs):
    """:func:`play_batch_builtin` for any policies, passed as numba functions (compiled per process)."""
    state, view = np.zeros(STATE_SIZE, np.int64), np.zeros(VIEW_SIZE, np.int64)
    for k in range(deals.shape[0]):
        if table[k, DECLARER] < 0:
            continue
        twelve = _start_deal(table[k], deals[k], state, view)
        seen_skat = table[k, SKAT_CARDS] if table[k, DISCARDED] else 0
        play_out(state, seen_skat, view, policy_f, policy_m, policy_r, params,
                 stream_key(seed, deal_ids[k], STREAM_PLAY), logs[k])
        _score_deal(table[k], state, twelve, results[k])


def play_deals(profile: Profile, seed: int, start: int, count: int, log_tricks: bool = False) -> dict:
    """Play deals ``start .. start + count - 1`` of ``seed`` with ``profile``; named columns."""
    deals = deal_batch(seed, start, count)
    plans = [s.bidder.plan(deals[:, i], i) for i, s in enumerate(profile.seats)]
    max_bids = np.stack([p.max_bid for p in plans], axis=1)
    declarer, bid = run_auctions(max_bids)
    decl = declare(profile, deals, plans, declarer, bid)
    deal_ids = np.arange(start, start + count, dtype=np.int64)
    results, logs = play_and_score(profile, seed, deal_ids, deals, declarer, bid, decl)
    columns = _deal_columns(deal_ids, deals, declarer, bid, decl, plans)
    columns.update({name: results[:, i] for i, name in enumerate(RESULT_COLUMNS)})
    if log_tricks:
        columns["tricks"] = logs
    return columns


def play_and_score(profile: Profile, seed: int, deal_ids, deals, declarer, bid, decl: Declarations):
    """(results as RESULT_COLUMNS, trick logs) of declared games; rows with declarer -1 stay zero."""
    n = len(deal_ids)
    results = np.zeros((n, len(RESULT_COLUMNS)), dtype=np.int64)
    logs = np.full((n, TRICK_LOG_SIZE), -1, dtype=np.int8)
    policies = [s.card_play for s in profile.seats]
    params = np.stack([p.param_row() for p in policies])
    table = np.stack([declarer, bid, decl.game, decl.hand, decl.schneider, decl.schwarz, decl.ouvert,
                      decl.skat, decl.discarded], axis=1).astype(np.int64)
    deals = np.ascontiguousarray(deals)
    if all(p.builtin is not None for p in policies):
        play_batch_builtin(np.uint64(seed), deal_ids, deals, table, params, results, logs)
    else:
        play_batch(np.uint64(seed), deal_ids, deals, table, *(p.function for p in policies),
                   params, results, logs)
    return results, logs


def _deal_columns(deal_ids, deals, declarer, bid, decl: Declarations, plans) -> dict:
    passed = declarer < 0
    columns = {
        "deal_id": deal_ids,
        "hand_f": deals[:, 0], "hand_m": deals[:, 1], "hand_r": deals[:, 2], "skat": deals[:, SKAT],
        "passed": passed, "declarer": declarer, "bid": bid,
        "game": np.where(passed, -1, decl.game), "hand": decl.hand,
        "schneider_announced": decl.schneider, "schwarz_announced": decl.schwarz,
        "ouvert": decl.ouvert, "discard": np.where(decl.discarded, decl.skat, 0).astype(np.uint32),
    }
    for suffix, plan in zip(SEAT_SUFFIXES, plans):
        columns[f"max_bid_{suffix}"] = plan.max_bid
        columns[f"intended_game_{suffix}"] = plan.game
    return columns


def declare_every_game(profile: Profile, seed: int, start: int, count: int,
                       log_tricks: bool = False) -> dict:
    """Counterfactual games: every seat of every deal declares every game type, at bid 18.

    One row per (deal, seat, game). The seat picks up or plays hand, discards and
    announces as its profile would for that game; the other seats defend as their
    profiles play. Since no auction selects the rows, the outcomes are unbiased
    data for "how often does a hand like this win this game".
    """
    deals = deal_batch(seed, start, count)
    rows = np.arange(count * 18)
    deal_index, seat, game = rows // 18, (rows // 6) % 3, rows % 6
    decl = Declarations.empty(len(rows))
    scores = np.empty(len(rows))
    for s, strategies in enumerate(profile.seats):
        _declare_seat_every_game(strategies, s, deals, deal_index, seat, game, decl, scores)
    repeated = deals[deal_index]
    deal_ids = start + deal_index.astype(np.int64)
    bid = np.full(len(rows), 18, dtype=np.int64)
    results, logs = play_and_score(profile, seed, deal_ids, repeated, seat.astype(np.int64), bid, decl)
    hands = repeated[np.arange(len(rows)), seat]
    columns = {
        "deal_id": deal_ids, "seat": seat.astype(np.int8), "game": game.astype(np.int8), "bid": bid,
        "hand": decl.hand, "schneider_announced": decl.schneider, "schwarz_announced": decl.schwarz,
        "ouvert": decl.ouvert, "discard": np.where(decl.discarded, decl.skat, 0).astype(np.uint32),
        "evaluator_score": scores,
    }
    columns.update({name: results[:, i] for i, name in enumerate(RESULT_COLUMNS)})
    columns.update(declared_evaluator_columns(hands, seat, game))
    if log_tricks:
        columns["tricks"] = logs
    return columns


def _declare_seat_every_game(strategies, s, deals, deal_index, seat, game, decl, scores):
    """Seat ``s`` declares game after game: hand or pick-up, discard and announcements as it would."""
    bidder = strategies.bidder
    hands = deals[:, s]
    all_scores, margins = bidder.margins(hands, np.full(len(hands), s))
    for g in range(6):
        rows = np.flatnonzero((seat == s) & (game == g))
        k = deal_index[rows]
        scores[rows] = all_scores[k, g]
        hand = margins[k, g] >= bidder.hand_margin
        planned_null_ouvert = margins[k, NULL] >= bidder.ouvert_margin
        announce(strategies.declarer, np.full(hand.sum(), g), margins[k[hand], g],
                 planned_null_ouvert[hand], rows[hand], decl)
        decl.hand[rows[hand]] = True
        decl.skat[rows[hand]] = deals[k[hand], SKAT]
        _pick_up_for(strategies, s, g, hands[k[~hand]] | deals[k[~hand], SKAT], rows[~hand], decl)


def _pick_up_for(strategies, s, g, twelve, rows, decl):
    """Pick up, discard for game ``g`` and declare it (null ouvert when the kept cards allow)."""
    discards = discard_many(strategies.discarder, twelve, g)
    decl.game[rows], decl.skat[rows], decl.discarded[rows] = g, discards, True
    if g == NULL:
        margin = strategies.bidder.margins(twelve & ~discards, np.full(len(rows), s))[1][:, NULL]
        decl.ouvert[rows] = margin >= strategies.bidder.ouvert_margin
