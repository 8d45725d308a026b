"""Open-hand (double-dummy) solver: the exact value of a card-play position with all hands known.

With every hand open, the declarer maximizes the card points they take and the
two defenders, a team, minimize them. The solver answers for any position of a
play state (:mod:`sim.rules.tricks`), mid-trick included:

- suit and grand games: the declarer's card points at the end of the game (the two
  cards that count for the declarer unplayed and the tricks already won included),
  whether that wins (61 or more), whether a threshold is reached (31, 61, 90 or any
  other), whether the declarer can take every trick (schwarz);
- null games: whether the declarer can avoid taking any trick;
- the best cards of the side to move: every legal card that keeps the open-hand value
  (for null, that keeps the outcome).

From Python, on one position::

    from sim import solver

    hands = ["CJ SJ HJ DJ CA SA HA DA C10 S10", "C9 C8 C7 S9 S8 S7 H9 H8 H7 D9",
             "CK CQ SK SQ HK HQ DK DQ D8 D7"]
    state = solver.position(hands, "grand", declarer=0)
    s = solver.solve(state, declarer_skat="H10 D10")
    s.declarer_points, s.declarer_wins, s.schwarz_possible   # 120, True, True
    s.best_cards                                           # all ten of forehand's cards keep 120
    solver.can_reach(state, "H10 D10", 90)                 # True: schneider

    # a position after some cards (checked against the rules as they are played)
    later = solver.position(hands, "grand", declarer=1, played="CJ C9")
    solver.solve(later, "H10 D10").declarer_points         # 20: only the skat

``solve`` takes an optional ``table`` (:func:`new_table`) to keep between calls; by
default a module-wide 16 MB table is used. Entries are keyed by the whole position
(hands, leader, game, declarer, what is counted), so one table serves any mix of
deals, games and declarers without clearing.

From numba (for example a Monte Carlo card player solving many sampled worlds per
decision), with a table and a search stack made once per thread::

    table, stack = solver.new_table(), solver.new_stack()
    value = solver.open_hand_value(state, declarer_skat, table, stack)
    nodes = stack[solver.NODES, 0]
    solver.solve_batch(states, declarer_skats, table, out_values, out_nodes)

``open_hand_value`` gives the declarer's card points (suit, grand) or 1 / 0 (null:
the declarer avoids every trick / does not); :func:`declarer_reaches`,
:func:`declarer_takes_all`, :func:`keeping_cards` and :func:`card_values` are the
other kernels. Each resets the node counter ``stack[NODES, 0]`` and leaves its count
there.

How it searches: a fail-soft alpha-beta over the value of the remaining cards
(principal variation search for exact values, null windows for thresholds), card by
card with an explicit stack so that numba compiles one cached loop. Legal cards and
trick winners come from the engine (:func:`sim.rules.tricks.legal_moves`,
:func:`sim.rules.tricks.trick_winner`). At each trick start a transposition table
keyed by the remaining hands stores bounds of the remaining value and the best card;
positions that differ only by which of two interchangeable low cards (7 8 9, or two
jacks) is gone share an entry. Cards of one hand that no card in play separates count
once when they are worth the same points (any card in null and schwarz searches).
Cheap sure points cut early: trumps no one can beat, and the winners the side on lead
can cash in a row. Moves are ordered with the stored best card first, then cards that
likely win the trick for the mover's side (adding points), then the cheapest.
See docs/solver.md for the measured speed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from sim.rules.cards import (
    ACE,
    CARD_POINTS,
    JACKS,
    SEAT_NAMES,
    TEN,
    card_points,
    cards_of,
    nth_card,
    parse_card,
    parse_cards,
    parse_hand,
    popcount,
)
from sim.rules.games import NULL, game_id
from sim.rules.tricks import (
    BEATERS,
    EFFECTIVE_SUIT,
    ORDER,
    STATE_DECLARER,
    STATE_FINISHED,
    STATE_GAME,
    STATE_HANDS,
    STATE_IN_TRICK,
    STATE_LEADER,
    STATE_SIZE,
    STATE_TRICK,
    STATE_WON,
    TRUMP,
    TRUMP_MASKS,
    CardPlay,
    legal_moves,
    legal_now,
    play_card,
    to_play,
    trick_winner,
)

#: What a search counts: the card points the declarer wins (suit and grand games), the
#: tricks the declarer wins before the defenders take one (schwarz), the tricks the
#: declarer avoids before taking one (null).
POINTS, SCHWARZ, NULL_AVOID = 0, 1, 2


# --- cards laid out by each game's order ---------------------------------------------------
#
# Every game gets its own layout of the 32 cards: suit by suit (effective suits,
# trumps last), each from its lowest card up, so that a suit is a run of bits and "the
# next higher card of the same suit still in play" is the lowest set bit above a place.


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


# --- sure points ------------------------------------------------------------------------
#
# Cheap bounds at a trick start, for suit and grand games: points a side takes however
# the other plays. Trumps that win whenever they are played (_trump_points), and the
# winners the side on lead can cash one after another (_quick_points). Every trick a
# side surely wins also holds a card from each of the other two hands: at least the
# lowest card points those hands hold.

#: Laid-out places of each game's trumps (the last suit of the layout).
_TRUMP_PLACES = np.array([sum(1 << q for q in range(32) if EFFECTIVE_SUIT[g, _CARD_AT[g, q]] == TRUMP)
                          for g in range(6)], dtype=np.int64)
#: Cards by their points, lowest first: 7 8 9, jacks, queens, kings, tens, aces.
_POINT_CLASSES = np.array([sum(1 << (8 * s + r) for s in range(4) for r in (0, 1, 2)), int(JACKS),
                           sum(1 << (8 * s + 3) for s in range(4)), sum(1 << (8 * s + 4) for s in range(4)),
                           sum(1 << (8 * s + TEN) for s in range(4)), sum(1 << (8 * s + ACE) for s in range(4))],
                          dtype=np.int64)
_CLASS_POINTS = np.array([0, 2, 3, 4, 10, 11], dtype=np.int64)
#: _POINTS_BY_BYTE[game, k, byte]: card points of the laid-out places 8k..8k+7 set in ``byte``.
_POINTS_BY_BYTE = np.array([[[sum(int(_LAYOUT_POINTS[g, 8 * k + i]) for i in range(8) if v >> i & 1)
                              for v in range(256)] for k in range(4)] for g in range(6)], dtype=np.uint8)


@njit(cache=True, inline="always")
def _highest(mask):
    return 63 - np.int64(leading_zeros(np.uint64(mask)))


@njit(cache=True, _nrt=False)
def _lowest_points(hand, k):
    """The least card points ``k`` cards of ``hand`` can hold."""
    total = 0
    for c in range(6):
        if k <= 0:
            break
        take = min(popcount(hand & _POINT_CLASSES[c]), k)
        total += take * _CLASS_POINTS[c]
        k -= take
    return total


@njit(cache=True, inline="always")
def _top_trumps(game, own, other):
    """Laid-out trumps of ``own`` higher than every trump of ``other``."""
    trumps = own & _TRUMP_PLACES[game]
    theirs = other & _TRUMP_PLACES[game]
    if theirs == 0:
        return trumps
    return trumps & ~((np.int64(2) << _highest(theirs)) - 1)


@njit(cache=True, inline="always")
def _laid_points(game, laid):
    return (np.int64(_POINTS_BY_BYTE[game, 0, laid & 255]) + np.int64(_POINTS_BY_BYTE[game, 1, (laid >> 8) & 255])
            + np.int64(_POINTS_BY_BYTE[game, 2, (laid >> 16) & 255])
            + np.int64(_POINTS_BY_BYTE[game, 3, (laid >> 24) & 255]))


#: Laid-out places of each effective suit (trumps 4), by game.
_SUIT_PLACES = np.array([[sum(1 << q for q in range(32) if EFFECTIVE_SUIT[g, _CARD_AT[g, q]] == e)
                          for e in range(5)] for g in range(6)], dtype=np.int64)


@njit(cache=True, inline="always")
def _least_given(hand, trumps, trump_tricks, tricks):
    """The least card points ``hand`` puts into ``tricks`` tricks, the first ``trump_tricks`` of
    them led with trumps (followed with trumps while it has them)."""
    forced = min(trump_tricks, popcount(hand & trumps))
    return _lowest_points(hand & trumps, forced) + _lowest_points(hand & ~trumps, tricks - forced)


@njit(cache=True, _nrt=False)
def _quick_points(frames, p, game, leader):
    """Points the leader's side surely wins by cashing the leader's winners from the top.

    First trumps, then each plain suit, as long as the leader's highest card of the suit
    beats every card of it left elsewhere: the others keep their highest cards and
    follow with the others, and a hand with trumps left must not be void in a plain suit
    led (it has followed every lead so far and discarded nothing).
    """
    a, b = (leader + 1) % 3, (leader + 2) % 3
    own, la, lb = frames[p, F_LAID + leader], frames[p, F_LAID + a], frames[p, F_LAID + b]
    trumps = _TRUMP_PLACES[game]
    mine, trumps_a, trumps_b = own & trumps, la & trumps, lb & trumps
    k, points = 0, 0
    while mine:
        t = _highest(mine)
        if (trumps_a and _highest(trumps_a) > t) or (trumps_b and _highest(trumps_b) > t):
            break
        k += 1
        points += _LAYOUT_POINTS[game, t]
        mine &= ~(np.int64(1) << t)
        trumps_a &= trumps_a - 1
        trumps_b &= trumps_b - 1
    trump_tricks = k
    for e in range(4):
        places = _SUIT_PLACES[game, e]
        mine, suit_a, suit_b = own & places, la & places, lb & places
        while mine:
            c = _highest(mine)
            if (suit_a and _highest(suit_a) > c) or (suit_b and _highest(suit_b) > c):
                break
            if (suit_a == 0 and trumps_a) or (suit_b == 0 and trumps_b):
                break  # a hand void here with a trump left could ruff
            k += 1
            points += _LAYOUT_POINTS[game, c]
            mine &= ~(np.int64(1) << c)
            suit_a &= suit_a - 1
            suit_b &= suit_b - 1
    if k == 0:
        return 0
    card_trumps = np.int64(TRUMP_MASKS[game])
    return (points + _least_given(frames[p, F_HANDS + a], card_trumps, trump_tricks, k)
            + _least_given(frames[p, F_HANDS + b], card_trumps, trump_tricks, k))


@njit(cache=True, _nrt=False)
def _trump_points(frames, p, game, seat, others):
    """Points a hand's trumps surely win against the trumps of ``others`` (laid out).

    Its trumps above all of theirs win with their own points. Apart from that, each of
    its trumps wins unless someone plays a higher one on it, and each of their trumps
    beats at most one: so it wins at least as many tricks as it has trumps less theirs
    above its lowest, worth at least its lowest trump points. The other two hands put a
    card each into those tricks.
    """
    own = frames[p, F_LAID + seat]
    mine = own & _TRUMP_PLACES[game]
    if mine == 0:
        return 0
    theirs = others & _TRUMP_PLACES[game]
    top = _top_trumps(game, own, others)
    beaten = popcount(theirs & ~((np.int64(2) << _lowest(mine)) - 1))
    wins = popcount(mine) - min(popcount(mine), beaten)
    a, b = frames[p, F_HANDS + (seat + 1) % 3], frames[p, F_HANDS + (seat + 2) % 3]
    k = popcount(top)
    by_top = _laid_points(game, top) + _lowest_points(a, k) + _lowest_points(b, k) if k else 0
    if wins <= k:
        return by_top
    hand = frames[p, F_HANDS + seat]
    by_count = (_lowest_points(hand & np.int64(TRUMP_MASKS[game]), wins) + _lowest_points(a, wins)
                + _lowest_points(b, wins))
    return max(by_top, by_count)


@njit(cache=True, _nrt=False)
def _sure_points(frames, p, game, declarer):
    """(the declarer's sure points, the defenders' sure points) from the trick start of frame ``p``."""
    d1, d2 = (declarer + 1) % 3, (declarer + 2) % 3
    own, one, two = frames[p, F_LAID + declarer], frames[p, F_LAID + d1], frames[p, F_LAID + d2]
    mine = _trump_points(frames, p, game, declarer, one | two)
    # a defender's partner may overtake, but a trick the two of them win is theirs
    theirs = max(_trump_points(frames, p, game, d1, own), _trump_points(frames, p, game, d2, own))
    leader = frames[p, F_LEADER]
    if leader == declarer:
        mine = max(mine, _quick_points(frames, p, game, leader))
    else:
        theirs = max(theirs, _quick_points(frames, p, game, leader))
    return mine, theirs


# --- transposition table -------------------------------------------------------------------
#
# Entries are two uint64 words: the key (the three hands, the leader, what is counted,
# the game and the declarer; 96 + 9 bits) and, above the key's 41 bits in the second
# word, the bounds of the value of the remaining tricks, the best card and the
# generation. Word 0 of the table counts solves (the generation), entries follow in
# buckets of four. A position means the same in every deal, so the table need not be
# cleared between positions; the generation only tells the replacement which entries
# belong to earlier solves.

KEY_BITS = 41
KEY_MASK = (1 << KEY_BITS) - 1
BUCKET = 4
_TABLE_HEADER = 8                                         # one cache line: buckets stay on lines


def new_table(bits: int = 20) -> np.ndarray:
    """A transposition table of ``2**bits`` entries (16 bytes each), made once and passed to every solve."""
    if not 8 <= bits <= 30:
        raise ValueError(f"table bits must be from 8 to 30, not {bits}")
    return np.zeros(_TABLE_HEADER + 2 * (1 << bits), dtype=np.uint64)


@njit(cache=True, inline="always")
def _bucket(tt, key0, key1):
    # splitmix64's finalizer over both words: every key bit reaches the bucket number
    h = np.uint64(key0) ^ (np.uint64(key1) * np.uint64(0x9E3779B97F4A7C15))
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    buckets = np.uint64((tt.shape[0] - _TABLE_HEADER) // (2 * BUCKET))
    return _TABLE_HEADER + np.int64(h & (buckets - np.uint64(1))) * 2 * BUCKET


@njit(cache=True, _nrt=False)
def _probe(tt, key0, key1):
    """(lower bound, upper bound, best card) of a stored position; (0, 127, -1) when not stored."""
    base = _bucket(tt, key0, key1)
    for i in range(BUCKET):
        w0, w1 = tt[base + 2 * i], tt[base + 2 * i + 1]
        if w0 == np.uint64(key0) and (w1 & np.uint64(KEY_MASK)) == np.uint64(key1):
            data = np.int64(w1 >> np.uint64(KEY_BITS))
            return data & 127, (data >> 7) & 127, ((data >> 14) & 63) - 1
    return 0, 127, -1


@njit(cache=True, _nrt=False)
def _store(tt, key0, key1, lower, upper, best):
    """Store bounds (merged with what is stored); a new entry evicts an old or the smallest one."""
    base = _bucket(tt, key0, key1)
    gen = np.int64(tt[0]) & 3
    victim, victim_rank = base, np.int64(1) << 40
    for i in range(BUCKET):
        at = base + 2 * i
        w0, w1 = tt[at], tt[at + 1]
        if w0 == np.uint64(key0) and (w1 & np.uint64(KEY_MASK)) == np.uint64(key1):
            data = np.int64(w1 >> np.uint64(KEY_BITS))
            lower, upper = max(lower, data & 127), min(upper, (data >> 7) & 127)
            victim = at
            break
        if w0 == 0 and w1 == 0:
            rank = np.int64(-1)
        else:
            old = (np.int64(w1 >> np.uint64(KEY_BITS + 20)) & 3) != gen
            rank = popcount(w1 & np.uint64(0xFFFFFFFF)) + (0 if old else 64)
        if rank < victim_rank:
            victim, victim_rank = at, rank
    data = lower | (upper << 7) | ((best + 1) << 14) | (gen << 20)
    tt[victim] = np.uint64(key0)
    tt[victim + 1] = np.uint64(key1) | (np.uint64(data) << np.uint64(KEY_BITS))


# --- the search ------------------------------------------------------------------------------
#
# A fail-soft alpha-beta search over the value of the remaining cards: what the
# declarer still wins from here. It walks card by card with an explicit stack of
# frames, one per card played since the root, so that numba compiles (and caches) it
# as one loop. Windows are exclusive: a result ``g <= alpha`` is an upper bound of the
# value, ``g >= beta`` a lower bound, anything between exact. A frame holds the hands
# twice, as card masks for the rules and laid out for equivalent cards and the table.
# The search kernels allocate nothing and run without numba's reference counting
# (_nrt=False): counting the references of the table and the stack at every call cost
# about a quarter of the time.

F_HANDS, F_LAID, F_LEADER, F_IN_TRICK, F_TRICK, F_REST = 0, 3, 6, 7, 8, 10
F_ALPHA, F_BETA, F_ALPHA0, F_BETA0 = 11, 12, 13, 14      # the window now, and as searched
F_COUNT, F_NEXT, F_G, F_BEST, F_CARD, F_ADD, F_SEAT = 15, 16, 17, 18, 19, 20, 21
F_LOWER, F_UPPER, F_KEY0, F_KEY1, F_LAID_ALL = 22, 23, 24, 25, 26
F_MOVES = 27                                              # up to ten moves, best first
F_NULLED, F_REDO_ALPHA, F_REDO_BETA = 37, 38, 39          # principal variation search
FRAME_SIZE = 40
STACK = 33                                                # 30 cards, the end, spare rows
NODES = STACK - 1                                         # row of the node counter
PUSHED, STOPPED = 0, 1


def new_stack() -> np.ndarray:
    """The search stack: one per thread, reused by every search (node counter in ``[NODES, 0]``)."""
    return np.zeros((STACK, FRAME_SIZE), dtype=np.int64)


@njit(cache=True, inline="always")
def _trick_value(declarer, mode, winner, c0, c1, c2):
    """What the declarer counts from a trick; -1 when the trick ends the count (schwarz, null)."""
    if mode == POINTS:
        return CARD_POINTS[c0] + CARD_POINTS[c1] + CARD_POINTS[c2] if winner == declarer else 0
    if (winner == declarer) != (mode == NULL_AVOID):
        return 1
    return -1


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
    the trick's best card with a card it may play.
    """
    leader, c0, c1 = frames[p, F_LEADER], frames[p, F_TRICK], frames[p, F_TRICK + 1]
    count = 0
    declarer_side = seat == declarer
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
                    beating = np.int64(legal_moves(frames[p, F_HANDS + later], game, lead)) & BEATERS[game, top]
                    if beating:
                        winner, top = later, _CARD_AT[game, _highest(_layout(game, beating))]
            own = ((winner == declarer) != (mode == NULL_AVOID)) == declarer_side
            if mode == POINTS:
                score = (2000 + 16 * pts if own else 1000 - 16 * pts) - ORDER[game, card]
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
    """Look the trick start up in the table: (lower, upper, best card), and keep its key in the frame."""
    l0, l1, l2 = frames[p, F_LAID], frames[p, F_LAID + 1], frames[p, F_LAID + 2]
    laid_out = l0 | l1 | l2
    k0, k1, k2 = _canonical(game, l0, l1, l2)
    key0 = k0 | (k1 << 32)
    key1 = k2 | (frames[p, F_LEADER] << 32) | (mode << 34) | (game << 36) | (declarer << 39)
    frames[p, F_KEY0], frames[p, F_KEY1], frames[p, F_LAID_ALL] = key0, key1, laid_out
    lower, upper, place = _probe(tt, key0, key1)
    return lower, upper, (_card_at_place(game, laid_out, place) if place >= 0 else -1)


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
        if frames[p, F_HANDS] & (frames[p, F_HANDS] - 1) == 0:
            return _last_trick(frames, p, game, declarer, mode)
        lower, upper, best = _probe_trick_start(tt, frames, p, game, declarer, mode)
        if lower >= beta or lower == upper:
            return lower
        if upper <= alpha:
            return upper
        if mode == POINTS:
            mine, theirs = _sure_points(frames, p, game, declarer)
            if mine >= beta:
                return mine
            if rest - theirs <= alpha:
                return rest - theirs
            lower, upper = max(lower, mine), min(upper, rest - theirs)
        alpha, beta = max(alpha, lower - 1), min(beta, upper + 1)
        frames[p, F_ALPHA], frames[p, F_BETA] = alpha, beta
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
    """Play the frame's next move into frame ``p + 1``; STOPPED when the trick ends the count."""
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
            return STOPPED
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
    frames[q, F_ALPHA], frames[q, F_BETA] = alpha - add, beta - add
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
        elif _play_next(frames, p, game, declarer, mode) == PUSHED:
            p += 1
            nodes += 1
            value = _enter(tt, frames, p, game, declarer, mode)
            continue
        else:
            v = 0
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


# --- roots --------------------------------------------------------------------------------


@njit(cache=True)
def _set_root(frames, state, mode):
    """Frame 0 from an engine play state."""
    game = state[STATE_GAME]
    all_cards = np.int64(0)
    for s in range(3):
        frames[0, F_HANDS + s] = state[STATE_HANDS + s]
        frames[0, F_LAID + s] = _layout(game, state[STATE_HANDS + s])
        all_cards |= state[STATE_HANDS + s]
    n = state[STATE_IN_TRICK]
    frames[0, F_LEADER], frames[0, F_IN_TRICK] = state[STATE_LEADER], n
    frames[0, F_TRICK] = state[STATE_TRICK] if n > 0 else -1
    frames[0, F_TRICK + 1] = state[STATE_TRICK + 1] if n > 1 else -1
    if mode == POINTS:
        rest = card_points(all_cards)
        for k in range(n):
            rest += CARD_POINTS[state[STATE_TRICK + k]]
    else:
        rest = (popcount(all_cards) + n) // 3
    frames[0, F_REST] = rest


@njit(cache=True, inline="always")
def _taken(state, declarer_skat):
    """The declarer's card points so far: tricks won and the two cards that count unplayed."""
    return card_points(state[STATE_WON + state[STATE_DECLARER]]) + card_points(declarer_skat)


@njit(cache=True)
def _points(state, declarer_skat, tt, stack):
    """Exact declarer points of a suit or grand position: one principal variation search."""
    taken = _taken(state, declarer_skat)
    if state[STATE_FINISHED]:
        return taken
    mode = np.int64(POINTS)
    _set_root(stack, state, mode)
    return taken + _search(tt, stack, state[STATE_GAME], state[STATE_DECLARER], mode, np.int64(-1),
                           stack[0, F_REST] + 1)


@njit(cache=True)
def _reaches(state, declarer_skat, threshold, tt, stack):
    """Does the declarer of a suit or grand position reach ``threshold`` points? One null-window test."""
    need = threshold - _taken(state, declarer_skat)
    if state[STATE_FINISHED] or need <= 0:
        return need <= 0
    mode = np.int64(POINTS)
    _set_root(stack, state, mode)
    return _search(tt, stack, state[STATE_GAME], state[STATE_DECLARER], mode, need - 1, need) >= need


@njit(cache=True)
def _takes_every_trick(state, mode, tt, stack):
    """Null (NULL_AVOID): does the declarer avoid every trick? Schwarz (SCHWARZ): take every one?"""
    declarer = state[STATE_DECLARER]
    won = state[STATE_WON + declarer]
    if mode == NULL_AVOID:
        if state[STATE_FINISHED] or won:
            return won == 0
    elif state[STATE_WON + (declarer + 1) % 3] or state[STATE_WON + (declarer + 2) % 3]:
        return False
    elif state[STATE_FINISHED]:
        return True
    _set_root(stack, state, mode)
    tricks = stack[0, F_REST]
    return _search(tt, stack, state[STATE_GAME], declarer, mode, tricks - 1, tricks) >= tricks


@njit(cache=True)
def open_hand_value(state, declarer_skat, tt, stack):
    """Open-hand value of a play state: the declarer's card points at the end (suit and grand
    games), or 1 when the declarer avoids every trick and 0 when not (null).

    ``declarer_skat`` (a mask) holds the two cards that count for the declarer unplayed:
    the discard, or the skat of a hand game. Leaves the node count in ``stack[NODES, 0]``.
    """
    stack[NODES, 0] = 0
    tt[0] += np.uint64(1)
    if state[STATE_GAME] == NULL:
        return 1 if _takes_every_trick(state, np.int64(NULL_AVOID), tt, stack) else 0
    return _points(state, np.int64(declarer_skat), tt, stack)


@njit(cache=True)
def declarer_reaches(state, declarer_skat, threshold, tt, stack):
    """Suit and grand games: can the declarer reach ``threshold`` card points (31, 61, 90 ...)?

    The defenders can hold the declarer under ``threshold`` exactly when this is False.
    """
    stack[NODES, 0] = 0
    tt[0] += np.uint64(1)
    return _reaches(state, np.int64(declarer_skat), np.int64(threshold), tt, stack)


@njit(cache=True)
def declarer_takes_all(state, tt, stack):
    """Suit and grand games: can the declarer take every trick (schwarz)? The defenders can take
    one exactly when this is False; False once they have."""
    stack[NODES, 0] = 0
    tt[0] += np.uint64(1)
    return _takes_every_trick(state, np.int64(SCHWARZ), tt, stack)


@njit(cache=True)
def _keeps(child, declarer_skat, value, mover_is_declarer, tt, stack):
    """Does the position after a card keep ``value`` (points, or the null outcome 1/0)?"""
    if child[STATE_GAME] == NULL:
        return (1 if _takes_every_trick(child, np.int64(NULL_AVOID), tt, stack) else 0) == value
    if mover_is_declarer:
        return _reaches(child, declarer_skat, value, tt, stack)
    return not _reaches(child, declarer_skat, value + 1, tt, stack)


@njit(cache=True)
def keeping_cards(state, declarer_skat, value, tt, stack):
    """Mask of the legal cards of the side to move that keep the open-hand ``value``.

    ``value`` is what :func:`open_hand_value` returned for ``state``; the count of
    nodes adds up over the cards tried.
    """
    stack[NODES, 0] = 0
    tt[0] += np.uint64(1)
    declarer_skat = np.int64(declarer_skat)
    keep = np.int64(0)
    if state[STATE_FINISHED]:
        return keep
    mover_is_declarer = to_play(state) == state[STATE_DECLARER]
    child = np.empty(STATE_SIZE, dtype=np.int64)
    legal = np.int64(legal_now(state))
    nodes = 0
    while legal:
        card = _lowest(legal)
        legal &= legal - 1
        child[:] = state
        play_card(child, card)
        stack[NODES, 0] = 0
        if _keeps(child, declarer_skat, value, mover_is_declarer, tt, stack):
            keep |= np.int64(1) << card
        nodes += stack[NODES, 0]
    stack[NODES, 0] = nodes
    return keep


@njit(cache=True)
def card_values(state, declarer_skat, tt, stack, out):
    """``out[card]``: the open-hand value after each legal card of the side to move; -1 for the others.

    Exact for every card, so dearer than :func:`keeping_cards`; the node count adds up.
    """
    out[:] = -1
    if state[STATE_FINISHED]:
        stack[NODES, 0] = 0
        return
    child = np.empty(STATE_SIZE, dtype=np.int64)
    legal = np.int64(legal_now(state))
    nodes = 0
    while legal:
        card = _lowest(legal)
        legal &= legal - 1
        child[:] = state
        play_card(child, card)
        out[card] = open_hand_value(child, declarer_skat, tt, stack)
        nodes += stack[NODES, 0]
    stack[NODES, 0] = nodes


@njit(cache=True)
def solve_batch(states, declarer_skats, tt, out_values, out_nodes):
    """:func:`open_hand_value` of each row of ``states`` (n, STATE_SIZE) into ``out_values``.

    ``declarer_skats`` (n,) holds each row's two cards that count for the declarer; the
    node counts go to ``out_nodes``. The table is shared by all rows.
    """
    stack = np.zeros((STACK, FRAME_SIZE), dtype=np.int64)
    for k in range(states.shape[0]):
        out_values[k] = open_hand_value(states[k], declarer_skats[k], tt, stack)
        out_nodes[k] = stack[NODES, 0]


# --- Python API ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Solution:
    """The open-hand answer for one position.

    ``declarer_points``: the declarer's card points at the end with best play on both
    sides (None in null). ``declarer_wins``: 61 or more; in null, no trick taken.
    ``schwarz_possible``: the declarer can take every trick (None in null).
    ``best_cards``: the legal cards of the side to move that keep the value (for null,
    the outcome), lowest id first; empty once the game is over. ``nodes``: positions
    searched, all questions together.
    """

    game: int
    declarer_points: int | None
    declarer_wins: bool
    schwarz_possible: bool | None
    best_cards: tuple[int, ...]
    nodes: int


_DEFAULT_TABLE: list[np.ndarray] = []


def default_table() -> np.ndarray:
    """The module-wide transposition table the Python API uses when given none (made on first use)."""
    if not _DEFAULT_TABLE:
        _DEFAULT_TABLE.append(new_table())
    return _DEFAULT_TABLE[0]


def _workspace(table):
    return (default_table() if table is None else table), new_stack()


def _skat_mask(declarer_skat) -> int:
    return parse_hand(declarer_skat) if isinstance(declarer_skat, (str, list, tuple)) else int(declarer_skat)


def _checked(state) -> np.ndarray:
    state = np.asarray(state)
    if state.shape != (STATE_SIZE,) or state.dtype != np.int64:
        raise ValueError(f"a play state is an int64 array of {STATE_SIZE} (sim.rules.tricks), not {state.dtype} "
                         f"{state.shape}")
    return state


def position(hands, game, declarer, played=()) -> np.ndarray:
    """A play state from the three hands as play starts (the declarer's after the discard; masks
    or text), the game (name or id), the declarer (0, 1, 2 or a seat name) and the cards already
    played in order (ids, or text such as ``"CA C7 C8 SJ"``), each checked against the rules."""
    masks = [parse_hand(h) if isinstance(h, (str, list, tuple)) else int(h) for h in hands]
    seat = SEAT_NAMES.index(declarer) if isinstance(declarer, str) else int(declarer)
    play = CardPlay(masks, game_id(game), seat)
    cards = parse_cards(played) if isinstance(played, str) else [
        parse_card(c) if isinstance(c, str) else c for c in played]
    for c in cards:
        play.play(c)
    return play.state.copy()


def solve(state, declarer_skat=0, table: np.ndarray | None = None, best_cards: bool = True) -> Solution:
    """Everything the solver knows about one position (see :class:`Solution`).

    ``declarer_skat``: the two cards that count for the declarer unplayed (mask or
    text): the discard, or the skat of a hand game. ``table``: a transposition table
    to reuse (:func:`new_table`); by default a module-wide one.
    """
    state = _checked(state)
    tt, stack = _workspace(table)
    skat = _skat_mask(declarer_skat)
    game = int(state[STATE_GAME])
    value = int(open_hand_value(state, skat, tt, stack))
    nodes = int(stack[NODES, 0])
    keep = ()
    if best_cards:
        keep = tuple(cards_of(int(keeping_cards(state, skat, value, tt, stack))))
        nodes += int(stack[NODES, 0])
    if game == NULL:
        return Solution(game, None, bool(value), None, keep, nodes)
    schwarz = bool(declarer_takes_all(state, tt, stack))
    nodes += int(stack[NODES, 0])
    return Solution(game, value, value >= 61, schwarz, keep, nodes)


def can_reach(state, declarer_skat, threshold: int, table: np.ndarray | None = None) -> bool:
    """Suit and grand games: can the declarer reach ``threshold`` card points (31 out of
    schneider, 61 to win, 90 schneider)? False means the defenders can hold them under it."""
    state = _checked(state)
    if int(state[STATE_GAME]) == NULL:
        raise ValueError("null games have no card points to reach; use solve() for whether the declarer wins")
    tt, stack = _workspace(table)
    return bool(declarer_reaches(state, _skat_mask(declarer_skat), int(threshold), tt, stack))


def schwarz_possible(state, table: np.ndarray | None = None) -> bool:
    """Suit and grand games: can the declarer take every trick? False means the defenders can take one."""
    state = _checked(state)
    if int(state[STATE_GAME]) == NULL:
        raise ValueError("schwarz is not a question in null games")
    tt, stack = _workspace(table)
    return bool(declarer_takes_all(state, tt, stack))
