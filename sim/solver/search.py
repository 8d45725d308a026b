"""The search: a fail-soft alpha-beta over the value of the remaining cards.

The value searched is what the declarer still wins from here. :func:`_search` walks
card by card with an explicit stack of frames (:mod:`sim.solver.frames`), one per card
played since the root, so that numba compiles (and caches) it as one loop. Windows are
exclusive: a result ``g <= alpha`` is an upper bound of the value, ``g >= beta`` a
lower bound, anything between exact. Each node is opened (:func:`_enter`: the transposition table,
sure points, the moves in order), played move by move (:func:`_play_next`, with null
windows after the first move) and closed (:func:`_finish`, storing its bounds at trick
starts). The search kernels allocate nothing and run without numba's reference
counting (_nrt=False): counting the references of the transposition table and the stack at every
call cost about a quarter of the time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.rules.cards import CARD_POINTS, popcount
from sim.rules.tricks import BEATERS, ORDER, TRUMP_MASKS, legal_moves, trick_winner
from sim.solver.bounds import _declarer_sure, _defenders_sure, _highest
from sim.solver.endgame import _three_tricks, _trick_value, _two_tricks
from sim.solver.frames import (
    F_ADD,
    F_ALPHA,
    F_ALPHA0,
    F_BEST,
    F_BETA,
    F_BETA0,
    F_CARD,
    F_COUNT,
    F_G,
    F_HANDS,
    F_IN_TRICK,
    F_KEY0,
    F_KEY1,
    F_LAID,
    F_LAID_ALL,
    F_LEADER,
    F_LOWER,
    F_MOVES,
    F_NEXT,
    F_NULLED,
    F_REDO_ALPHA,
    F_REDO_BETA,
    F_REST,
    F_SEAT,
    F_TRICK,
    F_UPPER,
    NODES,
    NULL_AVOID,
    POINTS,
)
from sim.solver.layout import (
    _CARD_AT,
    _POSITION,
    _canonical,
    _card_at_place,
    _layout,
    _lowest,
    _representatives,
    _squeezed_place,
)
from sim.solver.transpositions import _probe, _store

#: What playing a move into the next frame did when it is not the child's value: a node to search.
PUSHED = -1


@njit(cache=True, _nrt=False)
def _last_trick(frames, p, game, declarer, mode):
    """Value of the last trick, one card in each hand."""
    leader = frames[p, F_LEADER]
    first = _lowest(frames[p, F_HANDS + leader])
    second = _lowest(frames[p, F_HANDS + (leader + 1) % 3])
    third = _lowest(frames[p, F_HANDS + (leader + 2) % 3])
    winner = (leader + trick_winner(game, first, second, third)) % 3
    return max(_trick_value(declarer, mode, winner, first, second, third), 0)


@njit(cache=True, _nrt=False)
def _order(frames, p, game, declarer, mode, moves, seat, n, best):
    """Write the moves (laid out) into the frame as cards, most promising first; their number.

    A card that likely brings the trick to the mover's side comes first, adding its
    points; otherwise the cheapest card. "Likely": no opponent still to play can beat
    the trick's best card with a card it may play. A declarer on lead without such a
    card leads a trump before a plain card, the highest of the fewest points first
    (draws the defenders' trumps; on 300 deals 14% fewer nodes for the win question).
    """
    leader, c0, c1 = frames[p, F_LEADER], frames[p, F_TRICK], frames[p, F_TRICK + 1]
    count = 0
    declarer_side = seat == declarer
    third_follows = np.int64(0)
    if n == 1:
        # the third hand follows the same lead whatever this card is
        third_follows = np.int64(legal_moves(frames[p, F_HANDS + (leader + 2) % 3], game, c0))
    x = moves
    while x:
        card = _CARD_AT[game, _lowest(x)]
        x &= x - 1
        pts = CARD_POINTS[card]
        if card == best:
            score = 100000
        else:
            lead, top, winner = card, card, seat
            if n == 1:
                lead = c0
                winner = (leader + trick_winner(game, c0, card, card)) % 3
                top = card if winner == seat else c0
            elif n == 2:
                lead = c0
                winner = (leader + trick_winner(game, c0, c1, card)) % 3
            # good for the mover's side: the declarer's trick, in null a defenders' trick
            for k in range(n + 1, 3):
                later = (leader + k) % 3
                if (later == declarer) != (winner == declarer):
                    follows = third_follows if n == 1 else np.int64(legal_moves(frames[p, F_HANDS + later], game, lead))
                    beating = follows & BEATERS[game, top]
                    if beating:
                        winner, top = later, _CARD_AT[game, _highest(_layout(game, beating))]
            own = ((winner == declarer) != (mode == NULL_AVOID)) == declarer_side
            if mode == POINTS:
                if own:
                    score = 2000 + 16 * pts - ORDER[game, card]
                elif n == 0 and declarer_side and (TRUMP_MASKS[game] >> card) & 1:
                    score = 1500 - 16 * pts + ORDER[game, card]
                else:
                    score = 1000 - 16 * pts - ORDER[game, card]
            elif own and mode == NULL_AVOID and declarer_side:
                score = 2000 + ORDER[game, card]    # shed the highest card that stays under
            else:
                score = (2000 if own else 1000) - ORDER[game, card]
        key = score * 64 + card
        i = count
        while i > 0 and frames[p, F_MOVES + i - 1] < key:
            frames[p, F_MOVES + i] = frames[p, F_MOVES + i - 1]
            i -= 1
        frames[p, F_MOVES + i] = key
        count += 1
    return count


@njit(cache=True, _nrt=False)
def _probe_trick_start(tt, frames, p, game, declarer, mode):
    """Look the trick start up in the transposition table: (lower, upper, best card), and keep its key in the frame."""
    l0, l1, l2 = frames[p, F_LAID], frames[p, F_LAID + 1], frames[p, F_LAID + 2]
    laid_out = l0 | l1 | l2
    k0, k1, k2 = _canonical(game, l0, l1, l2)
    key0 = k0 | (k1 << 32)
    key1 = k2 | (frames[p, F_LEADER] << 32) | (mode << 34) | (game << 36) | (declarer << 39)
    frames[p, F_KEY0], frames[p, F_KEY1], frames[p, F_LAID_ALL] = key0, key1, laid_out
    lower, upper, place = _probe(tt, key0, key1)
    return lower, upper, (_card_at_place(game, laid_out, place) if place >= 0 else -1)


@njit(cache=True, _nrt=False)
def _settle_three(tt, frames, p, game, declarer, mode, alpha, beta, lower, upper):
    """The last three tricks from the trick start of frame ``p``, played out directly; their
    bounds stored as :func:`_finish` stores a searched node's (without a best card)."""
    leader = frames[p, F_LEADER]
    g = _three_tricks(game, declarer, mode, leader, frames[p, F_HANDS + leader],
                      frames[p, F_HANDS + (leader + 1) % 3], frames[p, F_HANDS + (leader + 2) % 3], alpha, beta)
    if g <= alpha:
        upper = min(upper, g)
    elif g >= beta:
        lower = max(lower, g)
    else:
        lower, upper = g, g
    _store(tt, frames[p, F_KEY0], frames[p, F_KEY1], lower, upper, -1)
    return g


@njit(cache=True, _nrt=False)
def _enter(tt, frames, p, game, declarer, mode):
    """Open the node of frame ``p``: its value if known at once, else -1 after listing its moves."""
    n, rest = frames[p, F_IN_TRICK], frames[p, F_REST]
    alpha, beta = frames[p, F_ALPHA], frames[p, F_BETA]
    if rest <= alpha or rest == 0:
        return rest
    if beta <= 0:
        return 0
    best, lower, upper = -1, 0, 127
    if n == 0:
        left = popcount(frames[p, F_HANDS])
        if left == 1:
            return _last_trick(frames, p, game, declarer, mode)
        if left == 2:
            leader = frames[p, F_LEADER]
            return _two_tricks(game, declarer, mode, leader, frames[p, F_HANDS + leader],
                               frames[p, F_HANDS + (leader + 1) % 3], frames[p, F_HANDS + (leader + 2) % 3])
        # the declarer's sure points first: they settle a third of the trick starts without the
        # transposition table's memory (on the bench deals 3 to 11% less time in the median)
        mine = 0
        if mode == POINTS:
            mine = _declarer_sure(frames, p, game, declarer)
            if mine >= beta:
                return mine
        lower, upper, best = _probe_trick_start(tt, frames, p, game, declarer, mode)
        if lower >= beta or lower == upper:
            return lower
        if upper <= alpha:
            return upper
        if mode == POINTS:
            theirs = _defenders_sure(frames, p, game, declarer)
            if rest - theirs <= alpha:
                return rest - theirs
            lower, upper = max(lower, mine), min(upper, rest - theirs)
        alpha, beta = max(alpha, lower - 1), min(beta, upper + 1)
        frames[p, F_ALPHA], frames[p, F_BETA] = alpha, beta
        if left == 3:
            return _settle_three(tt, frames, p, game, declarer, mode, alpha, beta, lower, upper)
    frames[p, F_ALPHA0], frames[p, F_BETA0] = alpha, beta
    frames[p, F_LOWER], frames[p, F_UPPER] = lower, upper
    seat = (frames[p, F_LEADER] + n) % 3
    in_play = frames[p, F_LAID] | frames[p, F_LAID + 1] | frames[p, F_LAID + 2]
    legal = frames[p, F_LAID + seat]
    if n > 0:
        c0 = frames[p, F_TRICK]
        in_play |= np.int64(1) << _POSITION[game, c0]
        if n > 1:
            in_play |= np.int64(1) << _POSITION[game, frames[p, F_TRICK + 1]]
        # the engine's rule says which cards may follow; laid out only when not the whole hand
        hand = frames[p, F_HANDS + seat]
        follow = np.int64(legal_moves(hand, game, c0))
        if follow != hand:
            legal = _layout(game, follow)
    if legal & (legal - 1) == 0:
        # a forced card: nothing to group or order
        frames[p, F_COUNT], frames[p, F_MOVES] = 1, _CARD_AT[game, _lowest(legal)]
    else:
        moves = _representatives(frames, p, game, declarer, mode, seat, n, legal, in_play)
        frames[p, F_COUNT] = _order(frames, p, game, declarer, mode, moves, seat, n, best)
    frames[p, F_SEAT], frames[p, F_NEXT], frames[p, F_BEST] = seat, 0, -1
    frames[p, F_REDO_ALPHA], frames[p, F_REDO_BETA], frames[p, F_NULLED] = 0, 0, 0
    frames[p, F_G] = -1 if seat == declarer else 1000
    return -1


@njit(cache=True, _nrt=False)
def _play_next(frames, p, game, declarer, mode):
    """Play the frame's next move into frame ``p + 1``: PUSHED, or the value of the position after
    it when known without a search (the count ended, nothing left to win, or the window
    already passed)."""
    i = frames[p, F_NEXT]
    frames[p, F_NEXT] = i + 1
    card = frames[p, F_MOVES + i] & 63
    frames[p, F_CARD] = card
    seat, n = frames[p, F_SEAT], frames[p, F_IN_TRICK]
    q = p + 1
    for s in range(3):
        frames[q, F_HANDS + s] = frames[p, F_HANDS + s]
        frames[q, F_LAID + s] = frames[p, F_LAID + s]
    frames[q, F_HANDS + seat] &= ~(np.int64(1) << card)
    frames[q, F_LAID + seat] &= ~(np.int64(1) << _POSITION[game, card])
    frames[q, F_REST] = frames[p, F_REST]
    add = 0
    if n < 2:
        frames[q, F_LEADER], frames[q, F_IN_TRICK] = frames[p, F_LEADER], n + 1
        frames[q, F_TRICK], frames[q, F_TRICK + 1] = frames[p, F_TRICK], frames[p, F_TRICK + 1]
        frames[q, F_TRICK + n] = card
    else:
        c0, c1 = frames[p, F_TRICK], frames[p, F_TRICK + 1]
        winner = (frames[p, F_LEADER] + trick_winner(game, c0, c1, card)) % 3
        add = _trick_value(declarer, mode, winner, c0, c1, card)
        if add < 0:
            frames[p, F_ADD] = 0
            return 0
        frames[q, F_LEADER], frames[q, F_IN_TRICK] = winner, 0
        frames[q, F_REST] -= CARD_POINTS[c0] + CARD_POINTS[c1] + CARD_POINTS[card] if mode == POINTS else 1
    frames[p, F_ADD] = add
    alpha, beta = frames[p, F_ALPHA], frames[p, F_BETA]
    frames[p, F_NULLED] = 0
    if frames[p, F_REDO_BETA] > frames[p, F_REDO_ALPHA]:
        alpha, beta = frames[p, F_REDO_ALPHA], frames[p, F_REDO_BETA]
        frames[p, F_REDO_ALPHA], frames[p, F_REDO_BETA] = 0, 0
    elif i > 0 and beta - alpha > 1:
        # after the first move only a null window: is this one better at all?
        frames[p, F_NULLED] = 1
        if seat == declarer:
            beta = alpha + 1
        else:
            alpha = beta - 1
    alpha, beta = alpha - add, beta - add
    rest = frames[q, F_REST]
    if rest <= alpha or rest == 0:
        return rest         # the child's value is known without opening it
    if beta <= 0:
        return 0
    frames[q, F_ALPHA], frames[q, F_BETA] = alpha, beta
    return PUSHED


@njit(cache=True, _nrt=False)
def _finish(tt, frames, p, game):
    """The node's value; a trick start stores its bounds and best card."""
    g = frames[p, F_G]
    if frames[p, F_IN_TRICK] == 0:
        lower, upper = frames[p, F_LOWER], frames[p, F_UPPER]
        if g <= frames[p, F_ALPHA0]:
            upper = min(upper, g)
        elif g >= frames[p, F_BETA0]:
            lower = max(lower, g)
        else:
            lower, upper = g, g
        place = _squeezed_place(game, frames[p, F_LAID_ALL], frames[p, F_BEST])
        _store(tt, frames[p, F_KEY0], frames[p, F_KEY1], lower, upper, place)
    return g


@njit(cache=True, inline="always")
def _take(frames, p, v, declarer):
    """Take a move's value into node ``p``; True on a cutoff."""
    if frames[p, F_SEAT] == declarer:
        if v > frames[p, F_G]:
            frames[p, F_G], frames[p, F_BEST] = v, frames[p, F_CARD]
            if v >= frames[p, F_BETA]:
                return True
            if v > frames[p, F_ALPHA]:
                frames[p, F_ALPHA] = v
    elif v < frames[p, F_G]:
        frames[p, F_G], frames[p, F_BEST] = v, frames[p, F_CARD]
        if v <= frames[p, F_ALPHA]:
            return True
        if v < frames[p, F_BETA]:
            frames[p, F_BETA] = v
    return False


@njit(cache=True, _nrt=False)
def _search(tt, frames, game, declarer, mode, alpha, beta):
    """Fail-soft alpha-beta on the root position in frame 0 with the window (alpha, beta).

    Returns ``g``: an upper bound of the value of the remaining cards when ``g <= alpha``,
    a lower bound when ``g >= beta``, else the value. Adds its nodes to ``frames[NODES, 0]``.
    """
    frames[0, F_ALPHA], frames[0, F_BETA] = alpha, beta
    p = np.int64(0)
    value = _enter(tt, frames, p, game, declarer, mode)
    nodes = 1
    while True:
        if value >= 0:
            if p == 0:
                break
            p -= 1
            v = frames[p, F_ADD] + value
        elif frames[p, F_NEXT] == frames[p, F_COUNT]:
            value = _finish(tt, frames, p, game)
            continue
        else:
            known = _play_next(frames, p, game, declarer, mode)
            if known == PUSHED:
                p += 1
                nodes += 1
                value = _enter(tt, frames, p, game, declarer, mode)
                continue
            v = frames[p, F_ADD] + known
        if frames[p, F_NULLED] and frames[p, F_ALPHA] < v < frames[p, F_BETA]:
            # the null window says this move is better: search it again with the full window
            frames[p, F_NEXT] -= 1
            if frames[p, F_SEAT] == declarer:
                frames[p, F_REDO_ALPHA], frames[p, F_REDO_BETA] = v - 1, frames[p, F_BETA]
            else:
                frames[p, F_REDO_ALPHA], frames[p, F_REDO_BETA] = frames[p, F_ALPHA], v + 1
            value = -1
            continue
        value = _finish(tt, frames, p, game) if _take(frames, p, v, declarer) else -1
    frames[NODES, 0] += nodes
    return value
