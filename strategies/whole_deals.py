"""Whole deals played by the three players a profile seats.

deal -> each seat's bid plan -> auction -> pick up or hand, discard, declaration
-> ten tricks -> result. Every stage works on the whole batch at once (numpy for
evaluators, numba kernels for the auction, discards and card play), and every
random choice of deal ``i`` comes from the streams keyed by ``(seed, i)``, so a
deal's game does not depend on the batch it is played in.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.rules.auction import AUCTION, auction_by_max_bids, no_auction
from sim.rules.cards import SEAT_SUFFIXES
from sim.rules.games import GRAND, NULL
from sim.rules.play import TRICK_LOG_SIZE
from sim.rules.rng import STREAM_PLAY, stream_key
from sim.rules.scoring import RESULT_COLUMNS, result_row
from sim.rules.shuffle import SKAT, deal_batch
from sim.rules.tricks import STATE, declarer_result, start_play
from sim.rules.view import VIEW, set_declaration

from .cardplay.python_players import is_python_player
from .cardplay.table import SEARCH_TRANSPOSITION_BITS, play_out, table_of
from .lockstep import play_in_lockstep
from .profiles import Profile
from .roles import Declarations, DeclarerTask


@njit(cache=True)
def auction_batch(max_bids, declarer, bid, heard):
    for k in range(max_bids.shape[0]):
        if heard is None:
            declarer[k], bid[k] = auction_by_max_bids(max_bids[k, 0], max_bids[k, 1], max_bids[k, 2])
        else:
            declarer[k], bid[k] = auction_by_max_bids(max_bids[k, 0], max_bids[k, 1], max_bids[k, 2], heard[k])


def run_auctions(max_bids: np.ndarray, *, heard: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(declarer, bid) of each deal from the seats' maximum bids; declarer -1 when passed in. ``heard``
    (n, AUCTION.size), when given, is filled with what every seat heard (:data:`sim.rules.auction.AUCTION`)."""
    n = max_bids.shape[0]
    declarer, bid = np.empty(n, np.int64), np.empty(n, np.int64)
    auction_batch(np.ascontiguousarray(max_bids, dtype=np.int64), declarer, bid, heard)
    return declarer, bid


def declare(profile: Profile, deals: np.ndarray, plans, declarer: np.ndarray, bid: np.ndarray) -> Declarations:
    """Each declarer's declaration and discard, seat by seat; a hand game keeps the skat as dealt."""
    out = Declarations.empty(len(declarer))
    for seat, strategies in enumerate(profile.seats):
        rows = np.flatnonzero(declarer == seat)
        out.put(rows, declare_for(strategies, seat, deals[rows], plans[seat].take(rows), bid[rows]))
    return out


def declare_for(strategies, seat: int, deals: np.ndarray, plan, bids: np.ndarray,
                games: np.ndarray | None = None) -> Declarations:
    """The declarations of ``seat`` for its rows of ``deals``: hand or pick-up as its bidder planned
    (for the given ``games`` in declare mode), the declarer's choices, the skat of hand games."""
    if games is None:
        hand = plan.hand
    else:
        hand = plan.assessment.hand[np.arange(len(games)), games]
    ten, skat = deals[:, seat], deals[:, SKAT]
    task = DeclarerTask(seat, np.where(hand, ten, ten | skat), hand, bids, plan, strategies.bidder,
                        strategies.discarder, games)
    out = strategies.declarer.declare(task)
    out.aside[hand] = skat[hand]
    return out


# Columns of the declared games, one row per game to play (int64): the matrix ``declared``.
(DECLARED_DECLARER, DECLARED_BID, DECLARED_GAME, DECLARED_HAND, DECLARED_SCHNEIDER, DECLARED_SCHWARZ, DECLARED_OUVERT,
 DECLARED_ASIDE, DECLARED_DISCARDED) = range(9)


@njit(cache=True, inline="always")  # once a deal: compiled inside the loops that call it
def start_game(seed, deal_id, row, cards, state, view):
    """Set up the play state and view of one declared game (``row`` of the matrix ``declared``, ``cards`` its
    deal); returns the declarer's twelve cards, its discard as the views show it (0 in a hand game) and the
    deal's play stream."""
    d = row[DECLARED_DECLARER]
    twelve = cards[d] | cards[3]
    kept = twelve & ~row[DECLARED_ASIDE]
    start_play(state, kept if d == 0 else cards[0], kept if d == 1 else cards[1], kept if d == 2 else cards[2],
               row[DECLARED_GAME], d)
    set_declaration(view, row[DECLARED_HAND], row[DECLARED_SCHNEIDER], row[DECLARED_SCHWARZ], row[DECLARED_OUVERT],
                    row[DECLARED_BID])
    return twelve, row[DECLARED_ASIDE] if row[DECLARED_DISCARDED] else 0, stream_key(seed, deal_id, STREAM_PLAY)


@njit(cache=True, inline="always")  # once a deal: compiled inside the loops that call it
def _score_deal(row, state, twelve, out):
    """Write the result of a played game into ``out`` (RESULT_COLUMNS, from the engine's result_row)."""
    points, tricks = declarer_result(state, row[DECLARED_ASIDE])
    result_row(row[DECLARED_GAME], row[DECLARED_HAND] == 1, row[DECLARED_SCHNEIDER] == 1, row[DECLARED_SCHWARZ] == 1,
               row[DECLARED_OUVERT] == 1, row[DECLARED_BID], row[DECLARED_DECLARER], twelve, points, tricks, out)


@njit(cache=True)
def play_batch(seed, deal_ids, deals, declared, table, seated, params, data, results, logs, tt, stack):
    """Play and score every row with a declarer, the seats' card players those of ``table`` (its ``seated``,
    ``params`` and ``data``, :class:`strategies.cardplay.table.Table`); other rows stay zero. The searching
    players share the solver's transposition table ``tt`` and ``stack`` over the whole batch."""
    state, view = np.zeros(STATE.size, np.int64), np.zeros(VIEW.size, np.int64)
    for k in range(deals.shape[0]):
        if declared[k, DECLARED_DECLARER] < 0:
            continue
        twelve, discard, rng = start_game(seed, deal_ids[k], declared[k], deals[k], state, view)
        play_out(state, discard, view, table, seated, params, data, rng, logs[k], declared[k, DECLARED_ASIDE],
                 tt, stack)
        _score_deal(declared[k], state, twelve, results[k])


@njit(cache=True)
def start_batch(seed, deal_ids, deals, declared, states, views, discards, twelves, rngs):
    """Set up the play state, the view and the play stream of every declared game, one row each (the state
    of a deal without a game finished)."""
    for k in range(deals.shape[0]):
        states[k, STATE.finished] = 1
        if declared[k, DECLARED_DECLARER] < 0:
            continue
        twelves[k], discards[k], rngs[k] = start_game(seed, deal_ids[k], declared[k], deals[k], states[k], views[k])


@njit(cache=True)
def score_batch(declared, states, twelves, results):
    """Score every played game of the batch (rows without a declarer stay zero)."""
    for k in range(declared.shape[0]):
        if declared[k, DECLARED_DECLARER] >= 0:
            _score_deal(declared[k], states[k], twelves[k], results[k])


def play_batch_python(policies, *, seed: int, deal_ids, deals, declared, heard, results, logs) -> None:
    """:func:`play_batch` for a seating with card players in Python at any seats: the games of the
    batch set up at once, played in lockstep (:mod:`strategies.lockstep`), scored at once. ``heard`` is what
    every seat heard in each deal's auction (:data:`sim.rules.auction.AUCTION` rows)."""
    n = len(deal_ids)
    states, views = np.zeros((n, STATE.size), np.int64), np.zeros((n, VIEW.size), np.int64)
    discards, twelves, rngs = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.uint64)
    start_batch(np.uint64(seed), deal_ids, deals, declared, states, views, discards, twelves, rngs)
    play_in_lockstep(policies, seed=seed, deal_ids=deal_ids, states=states, views=views, heard=heard,
                     discards=discards, asides=np.ascontiguousarray(declared[:, DECLARED_ASIDE]), rngs=rngs, logs=logs,
                     search_bits=SEARCH_TRANSPOSITION_BITS)
    score_batch(declared, states, twelves, results)


def play_deals(profile: Profile, *, seed: int, start: int, count: int, log_tricks: bool = False,
               play_cards: bool = True, deals: np.ndarray | None = None) -> dict:
    """Play deals ``start .. start + count - 1`` of ``seed`` with ``profile``; named columns. ``deals``
    (count, 4) are their hands and skat when they are not the uniform deals of ``seed`` (a conditional
    run's, :mod:`sim.rules.dealing`). Without ``play_cards`` no card is played (:func:`play_and_score`)."""
    deals = deal_batch(seed, start, count) if deals is None else deals
    plans = [s.bidder.plan(deals[:, i], i) for i, s in enumerate(profile.seats)]
    max_bids = np.stack([p.max_bid for p in plans], axis=1)
    asked = any(is_python_player(s.card_play) for s in profile.seats)   # only players in Python hear the calls
    heard = np.empty((count, AUCTION.size), np.int64) if asked else None
    declarer, bid = run_auctions(max_bids, heard=heard)
    decl = declare(profile, deals, plans, declarer, bid)
    deal_ids = np.arange(start, start + count, dtype=np.int64)
    results, logs = play_and_score(profile, seed=seed, deal_ids=deal_ids, deals=deals, declarer=declarer, bid=bid,
                                   decl=decl, heard=heard, play_cards=play_cards)
    columns = _deal_columns(deal_ids, deals, declarer, bid, decl, plans)
    columns.update({name: results[:, i] for i, name in enumerate(RESULT_COLUMNS)})
    if log_tricks:
        columns["tricks"] = logs
    return columns


def play_and_score(profile: Profile, *, seed: int, deal_ids, deals, declarer, bid, decl: Declarations,
                   heard: np.ndarray | None = None, play_cards: bool = True):
    """(results as RESULT_COLUMNS, trick logs) of declared games; rows with declarer -1 stay zero. ``heard``
    is what every seat heard in each deal's auction (:data:`sim.rules.auction.AUCTION` rows), for card
    players in Python; None for games given their declarer without an auction.

    Without ``play_cards`` no card is played and every row stays zero: a first run compiles the
    kernels of everything else a deal needs that way in one process while another compiles the card
    play (:func:`warm_card_play`)."""
    n = len(deal_ids)
    results = np.zeros((n, len(RESULT_COLUMNS)), dtype=np.int64)
    logs = np.full((n, TRICK_LOG_SIZE), -1, dtype=np.int8)
    if not play_cards:
        return results, logs
    policies = [s.card_play for s in profile.seats]
    declared = declared_matrix(declarer, bid, decl)
    deals = np.ascontiguousarray(deals)
    if any(is_python_player(p) for p in policies):
        play_batch_python(policies, seed=seed, deal_ids=deal_ids, deals=deals, declared=declared,
                          heard=no_auction(n) if heard is None else heard, results=results, logs=logs)
    else:
        table = table_of(policies)
        play_batch(np.uint64(seed), deal_ids, deals, declared, table, table.seated, table.params, table.data,
                   results, logs, *table.workspace())
    return results, logs


def warm_card_play(profile: Profile) -> None:
    """Play one fixed grand with the card players of ``profile``, so that numba compiles (or loads from
    its cache) the card-play kernels, and none of the dealing, bidding or declaring ones."""
    ten = (1 << 10) - 1
    deals = np.array([[ten, ten << 10, ten << 20, 3 << 30]], dtype=np.uint32)
    decl = Declarations.empty(1)
    decl.game[:], decl.hand[:], decl.aside[:] = GRAND, True, deals[:, SKAT]
    play_and_score(profile, seed=0, deal_ids=np.zeros(1, np.int64), deals=deals, declarer=np.zeros(1, np.int64),
                   bid=np.full(1, 18), decl=decl)


def warm_card_players(profile: Profile) -> None:
    """Compile (or load from numba's cache) the kernels of the card players of ``profile`` that compile apart
    from the play loop (their declarations' ``compiled_apart``), and nothing else: a first run's second
    process does so while the first compiles the loop (:func:`warm_card_play`), which then loads them."""
    for compile_apart in dict.fromkeys(f for p in table_of([s.card_play for s in profile.seats]).players
                                       for f in p.compiled_apart):
        compile_apart()


def declared_matrix(declarer, bid, decl: Declarations) -> np.ndarray:
    """The matrix ``declared`` of the play kernels: one row per deal, the DECLARED_* columns."""
    return np.stack([declarer, bid, decl.game, decl.hand, decl.schneider, decl.schwarz, decl.ouvert,
                     decl.aside, decl.discarded], axis=1).astype(np.int64)


def _deal_columns(deal_ids, deals, declarer, bid, decl: Declarations, plans) -> dict:
    passed = declarer < 0
    columns = {
        "deal_id": deal_ids,
        "hand_f": deals[:, 0], "hand_m": deals[:, 1], "hand_r": deals[:, 2], "skat": deals[:, SKAT],
        "passed": passed, "declarer": declarer, "bid": bid,
        "game": np.where(passed, -1, decl.game), "hand": decl.hand,
        "schneider_announced": decl.schneider, "schwarz_announced": decl.schwarz,
        "ouvert": decl.ouvert, "discard": np.where(decl.discarded, decl.aside, 0).astype(np.uint32),
    }
    for suffix, plan in zip(SEAT_SUFFIXES, plans):
        columns[f"max_bid_{suffix}"] = plan.max_bid
        columns[f"intended_game_{suffix}"] = plan.game
    return columns


#: The ways a game is declared when every variant is tried: suit and grand games after picking up
#: the skat and hand (without announcements); null plain, hand, ouvert and ouvert hand.
VARIANTS = (*((game, hand, False) for game in range(GRAND + 1) for hand in (False, True)),
            *((NULL, hand, ouvert) for ouvert in (False, True) for hand in (False, True)))
#: What declare mode may try: each game type as the profile would declare it, or every variant.
DECLARE_VARIANTS = ("profile", "all")


def declare_every_game(profile: Profile, *, seed: int, start: int, count: int, log_tricks: bool = False,
                       variants: str = "profile", play_cards: bool = True, deals: np.ndarray | None = None) -> dict:
    """Counterfactual games: every seat of every deal declares every game type, at bid 18.

    With ``variants="profile"``, one row per (deal, seat, game): the seat picks up or
    plays hand, discards and announces as its profile would for that game (the same
    declarer method as in a whole deal, told which game to declare). With
    ``variants="all"``, one row per (deal, seat, variant of :data:`VARIANTS`): every game
    both after picking up (discarding as the profile would) and hand, and null in its
    four variants. The other seats defend as their profiles play. Since no auction
    selects the rows, the outcomes are unbiased data for "how often does a hand like
    this win this game". ``deals`` as in :func:`play_deals`. Without ``play_cards`` no card is played
    (:func:`play_and_score`).
    """
    deals = deal_batch(seed, start, count) if deals is None else deals
    if variants == "all":
        per_deal = 3 * len(VARIANTS)
        rows = np.arange(count * per_deal)
        deal_index, seat, variant = rows // per_deal, (rows // len(VARIANTS)) % 3, rows % len(VARIANTS)
        game = np.array([v[0] for v in VARIANTS])[variant]
    else:
        rows = np.arange(count * 18)
        deal_index, seat, game = rows // 18, (rows // 6) % 3, rows % 6
    decl = Declarations.empty(len(rows))
    scores = np.empty(len(rows))
    bid = np.full(len(rows), 18, dtype=np.int64)
    for s, strategies in enumerate(profile.seats):
        mine = np.flatnonzero(seat == s)
        k = deal_index[mine]
        plan = strategies.bidder.plan(deals[:, s], s).take(k)
        scores[mine] = plan.assessment.scores[np.arange(len(mine)), game[mine]]
        if variants == "all":
            for v, (g, hand, ouvert) in enumerate(VARIANTS):
                these = mine[variant[mine] == v]
                chosen = declare_variant(strategies.discarder, deals[deal_index[these]], seat=s, game=g, hand=hand,
                                         ouvert=ouvert)
                decl.put(these, chosen)
        else:
            decl.put(mine, declare_for(strategies, s, deals[k], plan, bid[mine], game[mine]))
    repeated = deals[deal_index]
    deal_ids = start + deal_index.astype(np.int64)
    results, logs = play_and_score(profile, seed=seed, deal_ids=deal_ids, deals=repeated,
                                   declarer=seat.astype(np.int64), bid=bid, decl=decl,
                                   play_cards=play_cards)
    columns = {
        "deal_id": deal_ids, "seat": seat.astype(np.int8), "game": game.astype(np.int8), "bid": bid,
        "hand": decl.hand, "schneider_announced": decl.schneider, "schwarz_announced": decl.schwarz,
        "ouvert": decl.ouvert, "discard": np.where(decl.discarded, decl.aside, 0).astype(np.uint32),
        "evaluator_score": scores,
    }
    columns.update({name: results[:, i] for i, name in enumerate(RESULT_COLUMNS)})
    if log_tricks:
        columns["tricks"] = logs
    return columns


def declare_variant(discarder, deals: np.ndarray, *, seat: int, game: int, hand: bool, ouvert: bool) -> Declarations:
    """``seat`` declares ``game`` in one variant for every deal of ``deals`` (no announcements): after
    a pick-up it discards with ``discarder`` for that game; a hand game keeps the skat as dealt."""
    out = Declarations.empty(len(deals))
    out.game[:], out.hand[:], out.ouvert[:] = game, hand, ouvert
    if hand:
        out.aside[:] = deals[:, SKAT]
    else:
        out.aside[:] = discarder.discard(deals[:, seat] | deals[:, SKAT], game)
        out.discarded[:] = True
    return out
