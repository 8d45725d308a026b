"""Cards laid out by each game's order, and the cards of a hand worth searching.

Every game gets its own layout of the 32 cards: suit by suit (effective suits, trumps
last), each from its lowest card up, so that a suit is a run of bits and "the next
higher card of the same suit still in play" is the lowest set bit above a place. The
tables here give each card's place and back, the runs of interchangeable cards and
their squeezing (the canonical hands the transposition table is keyed by), and
:func:`_representatives`: of the cards of one hand that no card in play separates, the
one or few worth trying.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from sim.rules.cards import CARD_POINTS, nth_card, popcount
from sim.rules.games import NULL
from sim.rules.tricks import BEATERS, EFFECTIVE_SUIT, ORDER, legal_moves, trick_winner
from sim.solver.frames import F_HANDS, F_LEADER, F_TRICK, POINTS


def _layout_tables():
    """Per game: each card's place, the card at each place, the places above it in its suit,
    each place's points, and byte-wise tables to lay out a mask."""
    position = np.zeros((6, 32), dtype=np.int64)
    card_at = np.zeros((6, 32), dtype=np.int64)
    above = np.zeros((6, 32), dtype=np.int64)
    points = np.zeros((6, 32), dtype=np.int64)
    by_byte = np.zeros((6, 4, 256), dtype=np.uint32)
    for game in range(6):
        cards = sorted(range(32), key=lambda c: (EFFECTIVE_SUIT[game, c], ORDER[game, c]))
        for pos, c in enumerate(cards):
            position[game, c], card_at[game, pos], points[game, pos] = pos, c, CARD_POINTS[c]
        for pos, c in enumerate(cards):
            above[game, pos] = sum(1 << p for p in range(pos + 1, 32)
                                   if EFFECTIVE_SUIT[game, card_at[game, p]] == EFFECTIVE_SUIT[game, c])
        for k in range(4):
            for value in range(256):
                by_byte[game, k, value] = sum(1 << int(position[game, 8 * k + i]) for i in range(8) if value >> i & 1)
    return position, card_at, above, points, by_byte


_POSITION, _CARD_AT, _ABOVE, _LAYOUT_POINTS, _LAYOUT_BY_BYTE = _layout_tables()


def _run_tables():
    """Runs of each game's layout: neighbours in one suit's order worth the same points.

    Cards of a run are interchangeable once the others of it are gone: the position
    with the remaining ones squeezed to the run's low end is the same game.
    """
    run_start = np.zeros((6, 32), dtype=np.int64)
    run_mask = np.zeros((6, 32), dtype=np.int64)
    runs = np.zeros((6, 8, 2), dtype=np.int64)
    run_count = np.zeros(6, dtype=np.int64)
    for game in range(6):
        pos = 0
        while pos < 32:
            end = pos + 1
            suit = EFFECTIVE_SUIT[game, _CARD_AT[game, pos]]
            while (end < 32 and EFFECTIVE_SUIT[game, _CARD_AT[game, end]] == suit
                   and (game == NULL or _LAYOUT_POINTS[game, end] == _LAYOUT_POINTS[game, pos])):
                end += 1
            mask = (1 << (end - pos)) - 1
            run_start[game, pos:end], run_mask[game, pos:end] = pos, mask
            if end - pos > 1:
                runs[game, run_count[game]] = pos, mask
                run_count[game] += 1
            pos = end
    return run_start, run_mask, runs, run_count


_RUN_START, _RUN_MASK, _RUNS, _RUN_COUNT = _run_tables()


#: _SQUEEZE[r, h]: the bits of h (a subset of the 4-bit r) moved down onto the lowest popcount(r)
#: places; longer runs (a null suit) go a nibble at a time. (Tables stay small: numba builds
#: them into every kernel that reads them.)
_SQUEEZE = np.array([[sum(1 << i for i, b in enumerate(b for b in range(4) if r >> b & 1) if h >> b & 1)
                      for h in range(16)] for r in range(16)], dtype=np.uint8)


@njit(cache=True, inline="always")
def _layout(game, mask):
    return np.int64(_LAYOUT_BY_BYTE[game, 0, mask & 255] | _LAYOUT_BY_BYTE[game, 1, (mask >> 8) & 255]
                    | _LAYOUT_BY_BYTE[game, 2, (mask >> 16) & 255] | _LAYOUT_BY_BYTE[game, 3, (mask >> 24) & 255])


@njit(cache=True, inline="always")
def _lowest(mask):
    return np.int64(trailing_zeros(np.uint64(mask)))


@njit(cache=True, _nrt=False)
def _trick_side(frames, p, game, declarer, seat, n, card):
    """+1 when the current trick goes to the mover's side whatever is played after ``card``,
    -1 when it goes to the other side, 0 when the players after the mover decide."""
    leader = frames[p, F_LEADER]
    c0 = frames[p, F_TRICK]
    mine = seat == declarer
    if n == 2:
        winner = (leader + trick_winner(game, c0, frames[p, F_TRICK + 1], card)) % 3
        return 1 if (winner == declarer) == mine else -1
    if n == 1:
        winner = (leader + trick_winner(game, c0, card, card)) % 3
        top = card if winner == seat else c0
        third = (leader + 2) % 3
        side = 1 if (winner == declarer) == mine else -1
        if (third == declarer) == (winner == declarer):
            return side
        legal = np.int64(legal_moves(frames[p, F_HANDS + third], game, c0))
        beating = legal & BEATERS[game, top]
        if beating == 0:
            return side
        return -side if beating == legal else 0
    for k in range(1, 3):
        later = (seat + k) % 3
        if (later == declarer) != mine and np.int64(legal_moves(frames[p, F_HANDS + later], game, card)) & BEATERS[
                game, card]:
            return 0
    return 1


@njit(cache=True, _nrt=False)
def _representatives(frames, p, game, declarer, mode, seat, n, legal, in_play):
    """The laid-out ``legal`` cards worth trying; of each group of cards of this hand that no
    card in play separates (they take tricks alike), one card or a few.

    When points do not count (null, schwarz) one card speaks for its group. When they do:
    if the trick goes to one side whichever card of the group is played, the mover gives it
    the group's most points when it is the mover's side and the fewest otherwise (the
    others do as well later, the same tricks going the same way); else one card of each
    run of equal points.
    """
    keep = np.int64(0)
    x = legal
    while x:
        b = _lowest(x)
        group, top = np.int64(1) << b, b
        while True:
            up = in_play & _ABOVE[game, top]
            if up == 0 or not (legal >> _lowest(up)) & 1:
                break
            top = _lowest(up)
            group |= np.int64(1) << top
        x &= ~group
        if group & (group - 1) == 0 or mode != POINTS:
            keep |= np.int64(1) << top
            continue
        side = _trick_side(frames, p, game, declarer, seat, n, _CARD_AT[game, b])
        if side != 0:
            chosen, chosen_points = top, _LAYOUT_POINTS[game, top]
            y = group & ~(np.int64(1) << top)
            while y:
                m = _lowest(y)
                y &= y - 1
                if (_LAYOUT_POINTS[game, m] > chosen_points) == (side > 0) and _LAYOUT_POINTS[game, m] != chosen_points:
                    chosen, chosen_points = m, _LAYOUT_POINTS[game, m]
            keep |= np.int64(1) << chosen
            continue
        y = group
        while y:
            m = _lowest(y)
            y &= y - 1
            if y == 0 or _LAYOUT_POINTS[game, _lowest(y)] != _LAYOUT_POINTS[game, m]:
                keep |= np.int64(1) << m
    return keep


@njit(cache=True, inline="always")
def _squeeze(run, bits):
    """The bits of ``bits`` (within ``run``, both 8 bits at most) moved onto the lowest places."""
    low = np.int64(_SQUEEZE[run & 15, bits & 15])
    return low | (np.int64(_SQUEEZE[run >> 4, bits >> 4]) << popcount(run & 15))


@njit(cache=True, _nrt=False)
def _canonical(game, l0, l1, l2):
    """The three laid-out hands with every run squeezed to its low end (see _run_tables)."""
    r = l0 | l1 | l2
    for k in range(_RUN_COUNT[game]):
        start, mask = _RUNS[game, k, 0], _RUNS[game, k, 1]
        rr = (r >> start) & mask
        if rr & (rr + 1) == 0:
            continue
        keep = ~(mask << start)
        l0 = (l0 & keep) | (_squeeze(rr, (l0 >> start) & mask) << start)
        l1 = (l1 & keep) | (_squeeze(rr, (l1 >> start) & mask) << start)
        l2 = (l2 & keep) | (_squeeze(rr, (l2 >> start) & mask) << start)
    return l0, l1, l2


@njit(cache=True, inline="always")
def _squeezed_place(game, laid_out, card):
    """The place of ``card`` in the squeezed layout of the cards ``laid_out``."""
    b = _POSITION[game, card]
    start = _RUN_START[game, b]
    rr = (laid_out >> start) & _RUN_MASK[game, b]
    return start + popcount(rr & ((np.int64(1) << (b - start)) - 1))


@njit(cache=True, inline="always")
def _card_at_place(game, laid_out, place):
    """The card of the cards ``laid_out`` at ``place`` of their squeezed layout."""
    start = _RUN_START[game, place]
    rr = (laid_out >> start) & _RUN_MASK[game, place]
    return _CARD_AT[game, start + nth_card(rr, place - start)]
