"""ISS record lines in bulk: numba kernels read, check and score many lines at once.

The lines of a batch lie in one byte buffer. Two kernels and one lookup do the work:

1. :func:`sim.imports.iss.scan.scan_lines` finds each line's fields, reads the deal and the
   date, and marks where the auction stands in the moves;
2. the lines are grouped by their auction's text (a hash, then a byte-for-byte check), and each
   distinct auction is replayed once by the engine's auction (:func:`sim.imports.iss.record.auction_of_text`,
   cached), giving the declarer and the bid;
3. :func:`replay_lines` takes each line in steps: the end of the auction, the skat and the
   declaration (legal or not by the array of legal declarations the engine's
   :meth:`Declaration.check <sim.rules.games.Declaration.check>` filled), the cards played with the engine's kernels
   (``legal_now``, ``play_card``) and how the game ended, and the result: the engine's
   :func:`sim.rules.scoring.result_row` for a game played out, the server's for one that ended
   early, compared with the server's result field.

The kernels accept only what the checked path :func:`sim.imports.iss.record.check_line` accepts, and give
the same row; a line they do not accept is *flagged*, and the importer asks the checked path,
which gives the exact one-line problem (or, for a form the kernels leave to it, the row).
No rule of Skat is written here: legality and results come from the engine's kernels and
lookup arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from sim.imports.iss.notation import IssError
from sim.imports.iss.record import auction_of_text, declaration_of
from sim.imports.iss.scan import (
    F_MV,
    F_PC,
    F_R,
    FIELDS,
    GAME_OF,
    MAX_TOKENS,
    MISSING,
    MODIFIER_BIT,
    R_BID,
    R_D,
    R_M,
    R_OUTCOME,
    R_P,
    R_S,
    R_SIZE,
    R_T,
    R_V,
    R_Z,
    card_at,
    dotted_cards,
    end_kind,
    result_items,
    same_text,
    scan_lines,
    seat_at,
    tokens,
)
from sim.rules.auction import BID_VALUES
from sim.rules.records import CLAIMED, LEFT, PASSED, PLAYED, RESIGNED, TIMEOUT
from sim.rules.scoring import RESULT_COLUMNS, matadors, result_row, seeger_fabian_seats
from sim.rules.tricks import STATE, announcement_missed, declarer_result, legal_now, play_card, start_play
from sim.rules.tricks import to_play as seat_to_play

# Columns of the replay kernel's output, one row per line: the declaration, the result columns
# (sim.rules.scoring.RESULT_COLUMNS, in its order from O_RESULT on), how the game ended, the comparison.
O_DECLARER, O_BID, O_GAME, O_HAND, O_SCHNEIDER_ANNOUNCED, O_SCHWARZ_ANNOUNCED, O_OUVERT, O_DISCARD = range(8)
O_RESULT = 8
(O_MATADORS, O_POINTS, O_TRICKS, O_WON, O_OVERBID, O_SCHNEIDER, O_SCHWARZ, O_VALUE, O_SCORE, O_SF, O_REACHED,
 O_WON_IN_PLAY) = (O_RESULT + RESULT_COLUMNS.index(name) for name in (
    "matadors", "declarer_points", "declarer_tricks", "won", "overbid", "schneider", "schwarz", "game_value", "score",
    "sf_f", "value_reached", "won_in_play"))
O_ENDED, O_ENDED_BY, O_AGREES = range(O_RESULT + len(RESULT_COLUMNS), O_RESULT + len(RESULT_COLUMNS) + 3)
OUT_SIZE = O_AGREES + 1


def legal_declarations() -> np.ndarray:
    """Legal declarations by [game, modifier bits (O 1, H 2, S 4, Z 8), picked up, bid index]:
    the normalized declaration as bits (hand 1, schneider 2, schwarz 4, ouvert 8), or -1 when the
    ISS rules of writing a declaration or the engine's :meth:`Declaration.check` reject it."""
    legal = np.full((6, 16, 2, len(BID_VALUES)), -1, dtype=np.int64)
    for game in range(6):
        for bits in range(16):
            letters = "".join(c for c, b in zip("OHSZ", (1, 2, 4, 8)) if bits & b)
            for picked in (0, 1):
                for b, bid in enumerate(BID_VALUES):
                    try:
                        d = declaration_of(game, letters, picked_up=bool(picked), bid=int(bid), where="")
                    except IssError:
                        continue
                    legal[game, bits, picked, b] = d.hand + 2 * d.schneider + 4 * d.schwarz + 8 * d.ouvert
    return legal



# --- kernel 2: the steps of one line ------------------------------------------------------------------


@njit(cache=True)
def _server_value(outcome, score):
    if outcome == 0 and score > 0:
        return score
    if outcome == 1 and score < 0 and score % 2 == 0:
        return -score // 2
    return MISSING


@njit(cache=True, inline="always")
def _passed_in(first, n, items, out):
    """The auction step of a deal all three passed: nothing may follow the calls."""
    if first != n:
        return False
    out[O_DECLARER], out[O_GAME], out[O_ENDED] = -1, -1, PASSED
    out[O_AGREES] = (items[R_D] == MISSING or items[R_D] == -1) and (items[R_V] == MISSING or items[R_V] == 0)
    return True


@njit(cache=True, inline="always")
def _result_given(items):
    """Whether the server's result of a declared game has every item the row and the comparison need."""
    for key in (R_D, R_OUTCOME, R_V, R_M, R_BID, R_P, R_T, R_S, R_Z):
        if items[key] == MISSING:
            return False
    return True


@njit(cache=True, inline="always")
def _pick_up(data, ts, te, i, n, declarer, skat, cards):
    """The declarer picking up the skat (``s``, then the server showing it) at word ``i``: the word
    after it, ``i`` itself for a hand game, or -1 when the line is flagged."""
    if not (i < n and te[i + 1] - ts[i + 1] == 1 and data[ts[i + 1]] == 115):  # s
        return i
    if seat_at(data, ts[i]) != declarer or i + 2 >= n or seat_at(data, ts[i + 2]) != 3:
        return -1
    if dotted_cards(data, ts[i + 3], te[i + 3], cards) != 2:
        return -1
    if (np.int64(1) << cards[0]) | (np.int64(1) << cards[1]) != skat:
        return -1
    return i + 4


@njit(cache=True, inline="always")
def _declaration(data, ts, te, i, n, hand_masks, declarer, picked, bid_index, legal, cards):
    """The declaration step at word ``i``: a game letter, modifiers, then cards after dots (the two
    put away, the ten shown of an ouvert game), legal by ``legal`` (:func:`legal_declarations`).
    Returns (the word after it, the game type, the declaration's bits in ``legal``, the cards put
    away); the word -1 when the line is flagged."""
    if i >= n or seat_at(data, ts[i]) != declarer:
        return -1, 0, 0, 0
    s, e = ts[i + 1], te[i + 1]
    game = GAME_OF[data[s]]
    if game < 0:
        return -1, 0, 0, 0
    bits = 0
    p = s + 1
    while p < e and 65 <= data[p] <= 90:
        bit = MODIFIER_BIT[data[p]]
        if bit < 0 or bits & bit:
            return -1, 0, 0, 0
        bits |= bit
        p += 1
    count = 0
    if p < e:
        if data[p] != 46:
            return -1, 0, 0, 0
        count = dotted_cards(data, p + 1, e, cards)
        if count < 0:
            return -1, 0, 0, 0
    flags = legal[game, bits, picked, bid_index]
    if flags < 0:
        return -1, 0, 0, 0
    ouvert = (flags >> 3) & 1
    i += 2
    if picked and count == 0 and i < n and seat_at(data, ts[i]) == declarer \
            and end_kind(data, ts[i + 1], te[i + 1]) < 0:
        has_dot = False
        for q in range(ts[i + 1], te[i + 1]):
            has_dot = has_dot or data[q] == 46
        if has_dot:  # the cards put away, written as a move of their own
            count = dotted_cards(data, ts[i + 1], te[i + 1], cards)
            if count < 0:
                return -1, 0, 0, 0
            i += 2
    shows = count == 2 * picked + 10 * ouvert
    if not shows and not (ouvert and count == 2 * picked):  # an ouvert game may stand without its ten cards
        return -1, 0, 0, 0
    skat = hand_masks[3]
    twelve = hand_masks[declarer] | skat
    put_away = skat
    if picked:
        put_away = (np.int64(1) << cards[0]) | (np.int64(1) << cards[1])
        if cards[0] == cards[1] or put_away & ~twelve:
            return -1, 0, 0, 0
    if ouvert and shows:
        shown = 0
        for k in range(count - 10, count):
            shown |= np.int64(1) << cards[k]
        if shown != twelve & ~put_away:
            return -1, 0, 0, 0
    return i, game, flags, put_away


@njit(cache=True, inline="always")
def _end_token(data, ts, te, j, cards):
    """(kind, seat) of the early end at word ``j`` (the seat named by ``TI.n``/``LE.n``, else the
    player's); kind -1 when it is not an early end, -2 when it is a broken one."""
    kind = end_kind(data, ts[j + 1], te[j + 1])
    if kind < 0:
        return -1, 0
    seat = seat_at(data, ts[j])
    length = te[j + 1] - ts[j + 1]
    if kind == TIMEOUT or kind == LEFT:
        if length != 4 or data[ts[j + 1] + 3] < 48 or data[ts[j + 1] + 3] > 50:
            return -2, 0
        return kind, data[ts[j + 1] + 3] - 48
    if seat > 2 or (kind == RESIGNED and length != 2):
        return -2, 0
    if length > 2 and dotted_cards(data, ts[j + 1] + 3, te[j + 1], cards) < 0:
        return -2, 0
    return kind, seat


@njit(cache=True, inline="always")
def _play(data, ts, te, i, n, hand_masks, declarer, held, game, announced, one_resignation_ends, state, log, cards,
          out):
    """The play step from word ``i`` by the server's rules: each card played by the seat to play and
    legal by the engine's kernels (into ``log``); ``SC`` shows the declarer's cards and ends nothing;
    the declarer's ``RE`` ends the game, a defender's once both defenders resigned (or at once,
    ``one_resignation_ends``); ``TI.n``, ``LE.n`` end it. Returns how the game ended (PLAYED when
    the last trick was played or the announcement was missed; its seat into ``out[O_ENDED_BY]``),
    or -1 when the line is flagged."""
    hands = np.empty(3, np.int64)
    for seat in range(3):
        hands[seat] = hand_masks[seat]
    hands[declarer] = held
    start_play(state, hands[0], hands[1], hands[2], game, declarer)
    played, resigned, ended = 0, 0, -1
    while i < n:
        kind, seat = _end_token(data, ts, te, i, cards)
        i += 2
        if kind == -2:
            return -1
        if kind >= 0:
            if ended >= 0 or kind == CLAIMED:
                continue
            if kind == RESIGNED and seat != declarer:
                resigned |= 1 << seat
                if resigned != (7 & ~(1 << declarer)) and not one_resignation_ends:
                    continue
            ended, out[O_ENDED_BY] = kind, seat
            continue
        seat = seat_at(data, ts[i - 2])
        if ended >= 0 or seat > 2 or te[i - 1] - ts[i - 1] != 2 or state[STATE.finished]:
            return -1
        c = card_at(data, ts[i - 1])
        if c < 0 or seat != seat_to_play(state) or not (state[STATE.hands + seat] >> c) & 1:
            return -1
        if not (np.int64(legal_now(state)) >> c) & 1:
            return -1
        play_card(state, c)
        log[played] = c
        played += 1
    if ended >= 0:
        return -1 if state[STATE.finished] else ended
    if state[STATE.finished] or announcement_missed(state, (announced >> 1) & 1 == 1, (announced >> 2) & 1 == 1):
        return PLAYED
    return -1


@njit(cache=True, inline="always")
def _played_result(game, flags, bid, declarer, twelve, put_away, state, items, out):
    """The result step of a game played out: the engine's result row, compared with the server's."""
    points, tricks = declarer_result(state, put_away)
    result_row(game, flags & 1 == 1, (flags >> 1) & 1 == 1, (flags >> 2) & 1 == 1, (flags >> 3) & 1 == 1, bid,
               declarer, twelve, points, tricks, out[O_RESULT:O_ENDED])
    stopped = not state[STATE.finished]  # at the trick that missed the announcement: s and z not compared
    out[O_AGREES] = (items[R_D] == declarer and items[R_OUTCOME] == (0 if out[O_WON] else 1)
                     and items[R_V] == out[O_SCORE] and items[R_M] == out[O_MATADORS]
                     and items[R_BID] == out[O_OVERBID] and items[R_P] == points and items[R_T] == tricks
                     and (stopped or (items[R_S] == out[O_SCHNEIDER] and items[R_Z] == out[O_SCHWARZ])))


@njit(cache=True, inline="always")
def _server_result(declarer, mat, items, out):
    """The result step of a game that ended early: the server's result as it is, once it is possible;
    False when the line is flagged."""
    outcome, score = items[R_OUTCOME], items[R_V]
    value = _server_value(outcome, score)
    if value == MISSING and outcome != 2:
        return False
    if items[R_P] < 0 or items[R_P] > 120 or items[R_T] < 0 or items[R_T] > 10:
        return False
    out[O_MATADORS] = mat
    out[O_POINTS], out[O_TRICKS], out[O_SCHNEIDER], out[O_SCHWARZ] = items[R_P], items[R_T], items[R_S], items[R_Z]
    out[O_OVERBID], out[O_SCORE] = items[R_BID], score
    if outcome == 2:  # a penalty: no outcome of the game
        out[O_WON], out[O_VALUE], out[O_REACHED], out[O_WON_IN_PLAY] = MISSING, MISSING, MISSING, MISSING
        out[O_SF], out[O_SF + 1], out[O_SF + 2] = MISSING, MISSING, MISSING
    else:
        won = outcome == 0
        out[O_WON], out[O_VALUE] = won, value
        out[O_SF], out[O_SF + 1], out[O_SF + 2] = seeger_fabian_seats(declarer, won, value)
        if items[R_BID] == 1:
            out[O_REACHED], out[O_WON_IN_PLAY] = MISSING, MISSING
        else:
            out[O_REACHED], out[O_WON_IN_PLAY] = value, won
    out[O_AGREES] = items[R_D] == declarer and items[R_M] == mat
    return True


@njit(cache=True)
def _replay_one(data, mv, rs, pc, first, hand_masks, declarer, bid_index, legal, out, log, ts, te, cards, items,
                state):
    """Kernel 2 for one line, step by step: the auction's end, the declaration, the play, the result;
    False when the line is flagged."""
    n = tokens(data, mv[0], mv[1], ts, te)
    if not result_items(data, rs[0], rs[1], items, ts[n:], te[n:]):
        return False
    log[:] = -1
    out[:] = 0
    out[O_ENDED_BY] = -1
    if declarer < 0:
        return _passed_in(first, n, items, out)
    if not _result_given(items):
        return False
    skat = hand_masks[3]
    i = _pick_up(data, ts, te, first, n, declarer, skat, cards)
    if i < 0:
        return False
    picked = 1 if i > first else 0
    i, game, flags, put_away = _declaration(data, ts, te, i, n, hand_masks, declarer, picked, bid_index, legal, cards)
    if i < 0:
        return False
    twelve = hand_masks[declarer] | skat
    iss2 = pc[1] - pc[0] == 4 and data[pc[0]] == 73 and data[pc[0] + 1] == 83 and data[pc[0] + 2] == 83 \
        and data[pc[0] + 3] == 50  # PC[ISS2]
    ended = _play(data, ts, te, i, n, hand_masks, declarer, twelve & ~put_away, game, flags, iss2, state, log, cards,
                  out)
    if ended < 0:
        return False
    out[O_DECLARER], out[O_BID], out[O_GAME], out[O_HAND] = declarer, BID_VALUES[bid_index], game, flags & 1
    out[O_SCHNEIDER_ANNOUNCED], out[O_SCHWARZ_ANNOUNCED] = (flags >> 1) & 1, (flags >> 2) & 1
    out[O_OUVERT], out[O_DISCARD], out[O_ENDED] = (flags >> 3) & 1, put_away if picked else 0, ended
    if ended == PLAYED:
        _played_result(game, flags, BID_VALUES[bid_index], declarer, twelve, put_away, state, items, out)
        return True
    return _server_result(declarer, matadors(game, twelve), items, out)


@njit(cache=True)
def replay_lines(data, spans, first, hands, declarer, bid_index, legal, ok, out, logs):
    """Kernel 2 over the lines that kernel 1 and the auction passed (``ok``); clears ``ok`` of a
    line it flags. ``out`` gets the O_* columns, ``logs`` the cards in the order played."""
    ts, te = np.empty(MAX_TOKENS, np.int64), np.empty(MAX_TOKENS, np.int64)
    cards = np.empty(32, np.int64)
    items = np.empty(R_SIZE, np.int64)
    state = np.zeros(STATE.size, np.int64)
    for k in range(spans.shape[0]):
        if not ok[k]:
            continue
        ok[k] = _replay_one(data, spans[k, F_MV], spans[k, F_R], spans[k, F_PC], first[k], hands[k], declarer[k],
                            bid_index[k], legal, out[k], logs[k], ts, te, cards, items, state)


# --- the lines of a batch ------------------------------------------------------------------------

_auctions: dict[bytes, tuple[int, int] | None] = {}
_legal_cache: list[np.ndarray] = []
_BID_INDEX = {int(v): i for i, v in enumerate(BID_VALUES)}


def _declarations() -> np.ndarray:
    if not _legal_cache:
        _legal_cache.append(legal_declarations())
    return _legal_cache[0]


def _auction(text: bytes) -> tuple[int, int] | None:
    """(declarer, bid index) of an auction text, replayed by the engine once per distinct text."""
    if text not in _auctions:
        if len(_auctions) > 1_000_000:
            _auctions.clear()
        found = auction_of_text(text.decode("ascii", errors="replace"))
        _auctions[text] = None if found is None else (found[0], _BID_INDEX.get(found[1], 0))
    return _auctions[text]


def _auctions_of(data: bytes, buf: np.ndarray, auction: np.ndarray, *, ok: np.ndarray):
    """(declarer, bid index) of every accepted line: each distinct auction text replayed once by the
    engine; a line whose auction is not valid is flagged (``ok`` cleared)."""
    n = len(ok)
    declarer, bid_index = np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=np.int64)
    lines = np.flatnonzero(ok)
    if not len(lines):
        return declarer, bid_index
    hashes, first, group = np.unique(auction[lines, 3], return_index=True, return_inverse=True)
    representative = np.zeros(n, dtype=np.int64)
    representative[lines] = lines[first][group]
    same_text(buf, auction, representative, ok)
    found = [_auction(data[auction[r, 0]:auction[r, 1]]) for r in lines[first]]
    valid = np.array([f is not None for f in found])
    seats = np.array([f[0] if f else -1 for f in found], dtype=np.int64)
    bids = np.array([f[1] if f else 0 for f in found], dtype=np.int64)
    declarer[lines], bid_index[lines] = seats[group], bids[group]
    ok[lines] &= valid[group]
    return declarer, bid_index


@dataclass(kw_only=True)
class CheckedLines:
    """What the kernels made of the lines of a batch (one entry per line)."""

    ok: np.ndarray       # bool: the kernels accepted the line (False: ask sim.imports.iss.record.check_line)
    spans: np.ndarray    # (n, 7, 2): where ID, DT, P0, P1, P2, MV, R stand in the buffer
    hands: np.ndarray    # (n, 4): forehand, middlehand, rearhand, skat as dealt
    dates: np.ndarray    # seconds since 1970 (UTC), MISSING when absent
    out: np.ndarray      # (n, OUT_SIZE): the O_* columns
    logs: np.ndarray     # (n, 30) int8: the cards in the order played, -1 after the last


def check_lines(data: bytes, starts: np.ndarray, ends: np.ndarray) -> CheckedLines:
    """Read, check and score the lines ``data[starts[k]:ends[k]]``."""
    buf = np.frombuffer(data, dtype=np.uint8)
    n = len(starts)
    ok = np.zeros(n, dtype=np.bool_)
    spans = np.full((n, len(FIELDS), 2), -1, dtype=np.int64)
    hands = np.zeros((n, 4), dtype=np.int64)
    auction = np.zeros((n, 4), dtype=np.int64)  # start, end of the auction's text, the word after it, its hash
    dates = np.full(n, MISSING, dtype=np.int64)
    scan_lines(buf, starts, ends, ok, spans, hands, auction, dates)
    declarer, bid_index = _auctions_of(data, buf, auction, ok=ok)
    out = np.zeros((n, OUT_SIZE), dtype=np.int64)
    logs = np.full((n, 30), -1, dtype=np.int8)
    replay_lines(buf, spans, auction[:, 2], hands, declarer, bid_index, _declarations(), ok, out, logs)
    return CheckedLines(ok=ok, spans=spans, hands=hands, dates=dates, out=out, logs=logs)

