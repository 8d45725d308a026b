"""ISS record lines in bulk: numba kernels read, check and score many lines at once.

The lines of a batch lie in one byte buffer. Two kernels and one lookup do the work:

1. :func:`scan_lines` finds each record's fields, reads the deal and the date, and marks
   where the auction stands in the moves;
2. the lines are grouped by their auction's text (a hash, then a byte-for-byte check), and each
   distinct auction is replayed once by the engine's auction (:func:`sim.imports.iss.record.auction_of_text`,
   cached), giving the declarer and the bid;
3. :func:`replay_lines` reads the skat, the declaration (legal or not by a table the
   engine's :meth:`Declaration.check <sim.rules.games.Declaration.check>` filled), plays the
   cards with the engine's kernels (``legal_now``, ``play_card``), scores the game with the
   engine's scoring kernels, reads the server's result and compares the two.

The kernels accept only what the checked path :func:`sim.imports.iss.record.check_line` accepts, and give
the same row; a line they do not accept is *flagged*, and the importer asks the checked path,
which gives the exact one-line problem (or, for a form the kernels leave to it, the row).
No rule of Skat is written here: legality and results come from the engine's kernels and
tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from sim.imports.iss.record import (
    CLAIMED,
    GAME_LETTERS,
    LEFT,
    PASSED,
    PLAYED,
    RESIGNED,
    TIMEOUT,
    IssError,
    auction_of_text,
    declaration_of,
)
from sim.rules.auction import BID_VALUES
from sim.rules.scoring import (
    classic_score,
    matadors,
    outcome_at_bid,
    play_outcome,
    seeger_fabian_declarer,
    seeger_fabian_defender,
)
from sim.rules.tricks import STATE_FINISHED, STATE_HANDS, STATE_SIZE, declarer_result, legal_now, play_card, start_play
from sim.rules.tricks import to_play as seat_to_play

MISSING = np.iinfo(np.int64).min  # a missing value in the kernels' outputs

# --- byte tables -------------------------------------------------------------------------------


def _table(pairs) -> np.ndarray:
    table = np.full(256, -1, dtype=np.int64)
    for char, value in pairs:
        table[ord(char)] = value
    return table


SUIT_OF = _table(zip("DHSC", range(4)))
RANK_OF = _table(zip("789QKTAJ", range(8)))
GAME_OF = _table(zip(GAME_LETTERS, range(6)))
MODIFIER_BIT = _table(zip("OHSZ", (1, 2, 4, 8)))
#: The fields read, in the order of the ``spans`` array.
FIELDS = ("ID", "DT", "P0", "P1", "P2", "MV", "R")
F_ID, F_DT, F_P0, F_P1, F_P2, F_MV, F_R = range(7)
MAX_TOKENS = 640

# Result items (the R field), in the order of the kernels' item array.
R_KEYS = ("d", "v", "m", "p", "t", "s", "z", "p0", "p1", "p2", "l", "to", "r")
R_D, R_V, R_M, R_P, R_T, R_S, R_Z = range(7)
R_R = R_KEYS.index("r")  # 'r:', a flag (0 or 1)
R_OUTCOME, R_BID = 13, 14  # outcome: 0 win, 1 loss, 2 penalty, 3 passed; bid: 0 bidok, 1 overbid
R_SIZE = 15
_KEY_CODES = np.zeros((len(R_KEYS), 3), dtype=np.int64)  # up to two letters and the length
for _i, _key in enumerate(R_KEYS):
    _KEY_CODES[_i, 0] = ord(_key[0])
    _KEY_CODES[_i, 1] = ord(_key[1]) if len(_key) > 1 else 0
    _KEY_CODES[_i, 2] = len(_key)
_WORDS = ("win", "loss", "penalty", "passed", "bidok", "overbid")
_WORD_CODES = np.zeros((len(_WORDS), 8), dtype=np.int64)
for _i, _word in enumerate(_WORDS):
    _WORD_CODES[_i, 0] = len(_word)
    for _j, _char in enumerate(_word):
        _WORD_CODES[_i, 1 + _j] = ord(_char)
_LABELS = np.zeros((len(FIELDS), 2), dtype=np.int64)
for _i, _label in enumerate(FIELDS):
    _LABELS[_i, 0] = ord(_label[0])
    _LABELS[_i, 1] = ord(_label[1]) if len(_label) > 1 else 0

# Columns of the replay kernel's output, one row per line.
(O_DECLARER, O_BID, O_GAME, O_HAND, O_SCHNEIDER_ANNOUNCED, O_SCHWARZ_ANNOUNCED, O_OUVERT, O_DISCARD,
 O_MATADORS, O_POINTS, O_TRICKS, O_SCHNEIDER, O_SCHWARZ, O_WON, O_OVERBID, O_VALUE, O_SCORE, O_SF_F,
 O_SF_M, O_SF_R, O_REACHED, O_WON_IN_PLAY, O_ENDED, O_ENDED_BY, O_AGREES) = range(25)
OUT_SIZE = 25
#: The result columns of the run (sim.runs.folder), in the order of the O_* columns from O_MATADORS on.
RESULT_COLUMNS = ("matadors", "declarer_points", "declarer_tricks", "schneider", "schwarz", "won", "overbid",
                  "game_value", "score", "sf_f", "sf_m", "sf_r", "value_reached", "won_in_play")


def declaration_table() -> np.ndarray:
    """Legal declarations by [game, modifier bits (O 1, H 2, S 4, Z 8), picked up, bid index]:
    the normalized declaration as bits (hand 1, schneider 2, schwarz 4, ouvert 8), or -1 when the
    ISS rules of writing a declaration or the engine's :meth:`Declaration.check` reject it."""
    table = np.full((6, 16, 2, len(BID_VALUES)), -1, dtype=np.int64)
    for game in range(6):
        for bits in range(16):
            letters = "".join(c for c, b in zip("OHSZ", (1, 2, 4, 8)) if bits & b)
            for picked in (0, 1):
                for b, bid in enumerate(BID_VALUES):
                    try:
                        d = declaration_of(game, letters, bool(picked), int(bid), "")
                    except IssError:
                        continue
                    table[game, bits, picked, b] = d.hand + 2 * d.schneider + 4 * d.schwarz + 8 * d.ouvert
    return table


# --- small readers -----------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _space(b):
    return b == 32 or (9 <= b <= 13) or (28 <= b <= 31)


@njit(cache=True, inline="always")
def _card(data, p):
    """The card written at ``p`` (two bytes), or -1."""
    s, r = SUIT_OF[data[p]], RANK_OF[data[p + 1]]
    return s * 8 + r if s >= 0 and r >= 0 else -1


@njit(cache=True)
def _dotted_cards(data, a, b, out):
    """Cards ``XX.YY.ZZ`` in data[a:b] into ``out``; their number, or -1 if it is not such a list."""
    n = 0
    p = a
    while True:
        if p + 2 > b or n >= out.shape[0]:
            return -1
        c = _card(data, p)
        if c < 0:
            return -1
        out[n] = c
        n += 1
        p += 2
        if p == b:
            return n
        if data[p] != 46:  # '.'
            return -1
        p += 1


@njit(cache=True)
def _tokens(data, a, b, starts, ends):
    """Whitespace-separated words of data[a:b]; their number, or -1 if there are too many."""
    n = 0
    p = a
    while p < b:
        while p < b and _space(data[p]):
            p += 1
        if p >= b:
            break
        if n >= starts.shape[0]:
            return -1
        starts[n] = p
        while p < b and not _space(data[p]):
            p += 1
        ends[n] = p
        n += 1
    return n


@njit(cache=True)
def _number(data, a, b):
    """A whole number -?digits (at most 5 digits, within +-32767) in data[a:b], or MISSING."""
    neg = a < b and data[a] == 45
    p = a + 1 if neg else a
    if p >= b or b - p > 5:
        return MISSING
    value = 0
    while p < b:
        d = data[p] - 48
        if d < 0 or d > 9:
            return MISSING
        value = value * 10 + d
        p += 1
    if value > 32767:
        return MISSING
    return -value if neg else value


@njit(cache=True)
def _seat_of(data, p):
    """0, 1, 2 for a seat digit at ``p``, 3 for ``w``, -1 otherwise."""
    b = data[p]
    if 48 <= b <= 50:
        return b - 48
    return 3 if b == 119 else -1


@njit(cache=True)
def _end_kind(data, a, b):
    """RESIGNED, CLAIMED, TIMEOUT or LEFT for a word that starts an early end, else -1."""
    if b - a < 2 or (b - a > 2 and data[a + 2] != 46):
        return -1
    x, y = data[a], data[a + 1]
    if x == 82 and y == 69:  # RE
        return RESIGNED
    if x == 83 and y == 67:  # SC
        return CLAIMED
    if x == 84 and y == 73:  # TI
        return TIMEOUT
    if x == 76 and y == 69:  # LE
        return LEFT
    return -1


@njit(cache=True)
def _is_call(data, a, b):
    if b - a == 1 and (data[a] == 121 or data[a] == 112):  # y, p
        return True
    for p in range(a, b):
        if data[p] < 48 or data[p] > 57:
            return False
    return b > a


@njit(cache=True)
def _days_from_civil(y, m, d):
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


@njit(cache=True)
def _date(data, a, b):
    """Seconds since 1970 of ``YYYY-MM-DD/HH:MM:SS/UTC`` in data[a:b], or MISSING."""
    if b - a != 23:
        return MISSING
    digits = np.empty(14, dtype=np.int64)
    n = 0
    for i in range(23):
        ch = data[a + i]
        if i in (4, 7):
            ok = ch == 45
        elif i == 10 or i == 19:
            ok = ch == 47
        elif i in (13, 16):
            ok = ch == 58
        elif i >= 20:
            ok = ch == (85, 84, 67)[i - 20]
        else:
            ok = 48 <= ch <= 57
            if ok:
                digits[n] = ch - 48
                n += 1
        if not ok:
            return MISSING
    year = digits[0] * 1000 + digits[1] * 100 + digits[2] * 10 + digits[3]
    month, day = digits[4] * 10 + digits[5], digits[6] * 10 + digits[7]
    hour, minute, second = digits[8] * 10 + digits[9], digits[10] * 10 + digits[11], digits[12] * 10 + digits[13]
    if year < 1 or month < 1 or month > 12 or day < 1 or hour > 23 or minute > 59 or second > 59:
        return MISSING
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    month_days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]
    if day > month_days:
        return MISSING
    return _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second


# --- kernel 1: fields, deal, auction -------------------------------------------------------------


@njit(cache=True)
def _fields(data, a, b, spans):
    """Spans of the fields read (``spans[f] = start, end`` of the value, -1 if absent); False when
    the line is not a well-formed record."""
    start = -1
    for p in range(a, b - 1):
        if data[p] == 40 and data[p + 1] == 59:  # (;
            start = p
            break
    if start < 0:
        return False
    spans[:, :] = -1
    p = start + 2
    while True:
        while p < b and _space(data[p]):
            p += 1
        if p + 1 < b and data[p] == 59 and data[p + 1] == 41:  # ;)
            break
        if p >= b or not (65 <= data[p] <= 90):
            return False
        q = p + 1
        while q < b and (65 <= data[q] <= 90 or 48 <= data[q] <= 57):
            q += 1
        if q >= b or data[q] != 91:  # [
            return False
        v = q + 1
        while v < b and data[v] != 93:  # ]
            v += 1
        if v >= b:
            return False
        for f in range(_LABELS.shape[0]):
            length = 2 if _LABELS[f, 1] else 1
            if q - p == length and data[p] == _LABELS[f, 0] and (length == 1 or data[p + 1] == _LABELS[f, 1]):
                if spans[f, 0] >= 0:
                    return False
                spans[f, 0], spans[f, 1] = q + 1, v
        p = v + 1
    for r in range(p + 2, b):
        if not _space(data[r]):
            return False
    return spans[F_MV, 0] >= 0 and spans[F_R, 0] >= 0


@njit(cache=True)
def _scan_one(data, a, b, spans, hands, auction, date, ts, te, cards):
    """Fields, date, deal and the auction's span of one line; False when the line is flagged."""
    if not _fields(data, a, b, spans):
        return False
    if spans[F_DT, 0] >= 0:
        date[0] = _date(data, spans[F_DT, 0], spans[F_DT, 1])
        if date[0] == MISSING:
            return False
    n = _tokens(data, spans[F_MV, 0], spans[F_MV, 1], ts, te)
    if n < 2 or n % 2:
        return False
    for i in range(0, n, 2):
        if te[i] - ts[i] != 1 or _seat_of(data, ts[i]) < 0:
            return False
    if _seat_of(data, ts[0]) != 3 or _dotted_cards(data, ts[1], te[1], cards) != 32:
        return False
    seen = 0
    for k in range(32):
        if seen >> cards[k] & 1:
            return False
        seen |= np.int64(1) << cards[k]
        hands[min(k // 10, 3)] |= np.int64(1) << cards[k]
    i = 2
    while i < n and _seat_of(data, ts[i]) < 3 and _is_call(data, ts[i + 1], te[i + 1]):
        i += 2
    auction[0] = ts[2] if i > 2 else te[1]
    auction[1] = te[i - 1] if i > 2 else te[1]
    auction[2] = i
    auction[3] = _hash(data, auction[0], auction[1])
    return True


@njit(cache=True)
def _hash(data, a, b):
    """FNV-1a hash of data[a:b] (as int64): finds the lines that share an auction text."""
    h = np.uint64(0xCBF29CE484222325)
    for p in range(a, b):
        h = (h ^ np.uint64(data[p])) * np.uint64(0x100000001B3)
    return np.int64(h)


@njit(cache=True)
def same_text(data, auction, first, ok):
    """Clear ``ok`` of a line whose auction text differs from that of the line ``first[k]`` it was
    grouped with by hash (a collision): such a line goes to the checked path."""
    for k in range(first.shape[0]):
        if not ok[k]:
            continue
        r = first[k]
        a, b, ra, rb = auction[k, 0], auction[k, 1], auction[r, 0], auction[r, 1]
        if b - a != rb - ra:
            ok[k] = False
            continue
        for j in range(b - a):
            if data[a + j] != data[ra + j]:
                ok[k] = False
                break


@njit(cache=True)
def scan_lines(data, starts, ends, ok, spans, hands, auction, dates):
    """Kernel 1 over every line: ``ok`` false flags a line; ``auction`` holds the start and end of
    the auction's text and the index of the first word after it."""
    ts, te = np.empty(MAX_TOKENS, np.int64), np.empty(MAX_TOKENS, np.int64)
    cards = np.empty(32, np.int64)
    date = np.empty(1, np.int64)
    for k in range(starts.shape[0]):
        date[0] = MISSING
        hands[k, :] = 0
        ok[k] = _scan_one(data, starts[k], ends[k], spans[k], hands[k], auction[k], date, ts, te, cards)
        dates[k] = date[0]


# --- kernel 2: skat, declaration, play, result -------------------------------------------------------


@njit(cache=True)
def _word_is(data, a, b, w):
    if b - a != _WORD_CODES[w, 0]:
        return False
    for j in range(b - a):
        if data[a + j] != _WORD_CODES[w, 1 + j]:
            return False
    return True


@njit(cache=True)
def _result(data, a, b, items, ts, te):
    """The items of the R field into ``items`` (MISSING where absent); False if one is broken."""
    items[:] = MISSING
    n = _tokens(data, a, b, ts, te)
    if n < 0:
        return False
    for i in range(n):
        s, e = ts[i], te[i]
        word = -1
        for w in range(_WORD_CODES.shape[0]):
            if _word_is(data, s, e, w):
                word = w
        if word >= 0:
            slot, value = (R_OUTCOME, word) if word < 4 else (R_BID, word - 4)
        else:
            colon = s
            while colon < e and data[colon] != 58:
                colon += 1
            slot = -1
            for key in range(_KEY_CODES.shape[0]):
                length = _KEY_CODES[key, 2]
                if colon - s == length and data[s] == _KEY_CODES[key, 0] and (
                        length == 1 or data[s + 1] == _KEY_CODES[key, 1]):
                    slot = key
            if slot < 0 or colon >= e:
                return False
            value = _number(data, colon + 1, e)
            if value == MISSING or ((slot == R_S or slot == R_Z or slot == R_R) and value != 0 and value != 1):
                return False
        if items[slot] != MISSING:
            return False
        items[slot] = value
    return True


@njit(cache=True)
def _server_value(outcome, score):
    if outcome == 0 and score > 0:
        return score
    if outcome == 1 and score < 0 and score % 2 == 0:
        return -score // 2
    return MISSING


@njit(cache=True)
def _put_sf(out, declarer, won, value):
    for s in range(3):
        out[O_SF_F + s] = seeger_fabian_declarer(won, value) if s == declarer else seeger_fabian_defender(won)


@njit(cache=True)
def _replay_one(data, mv, rs, first, hand_masks, declarer, bid_index, table, out, log, ts, te, cards, items, state):
    """Kernel 2 for one line; False when the line is flagged."""
    n = _tokens(data, mv[0], mv[1], ts, te)
    if not _result(data, rs[0], rs[1], items, ts[n:], te[n:]):
        return False
    log[:] = -1
    out[:] = 0
    out[O_ENDED_BY] = -1
    i = first
    if declarer < 0:  # passed in
        if i != n:
            return False
        out[O_DECLARER], out[O_GAME], out[O_ENDED] = -1, -1, PASSED
        out[O_AGREES] = (items[R_D] == MISSING or items[R_D] == -1) and (items[R_V] == MISSING or items[R_V] == 0)
        return True
    for key in (R_D, R_OUTCOME, R_V, R_M, R_BID, R_P, R_T, R_S, R_Z):
        if items[key] == MISSING:
            return False
    skat = hand_masks[3]
    picked = 0
    if i < n and te[i + 1] - ts[i + 1] == 1 and data[ts[i + 1]] == 115:  # s
        if _seat_of(data, ts[i]) != declarer or i + 2 >= n or _seat_of(data, ts[i + 2]) != 3:
            return False
        if _dotted_cards(data, ts[i + 3], te[i + 3], cards) != 2:
            return False
        if (np.int64(1) << cards[0]) | (np.int64(1) << cards[1]) != skat:
            return False
        picked = 1
        i += 4
    # the declaration: a game letter, modifiers, then cards after dots
    if i >= n or _seat_of(data, ts[i]) != declarer:
        return False
    s, e = ts[i + 1], te[i + 1]
    game = GAME_OF[data[s]]
    if game < 0:
        return False
    bits = 0
    p = s + 1
    while p < e and 65 <= data[p] <= 90:
        bit = MODIFIER_BIT[data[p]]
        if bit < 0 or bits & bit:
            return False
        bits |= bit
        p += 1
    count = 0
    if p < e:
        if data[p] != 46:
            return False
        count = _dotted_cards(data, p + 1, e, cards)
        if count < 0:
            return False
    flags = table[game, bits, picked, bid_index]
    if flags < 0:
        return False
    hand, ouvert = flags & 1, (flags >> 3) & 1
    i += 2
    if picked and count == 0 and i < n and _seat_of(data, ts[i]) == declarer \
            and _end_kind(data, ts[i + 1], te[i + 1]) < 0:
        has_dot = False
        for q in range(ts[i + 1], te[i + 1]):
            has_dot = has_dot or data[q] == 46
        if has_dot:  # the cards put away, written as a move of their own
            count = _dotted_cards(data, ts[i + 1], te[i + 1], cards)
            if count < 0:
                return False
            i += 2
    if count != 2 * picked + 10 * ouvert:
        return False
    twelve = hand_masks[declarer] | skat
    put_away = skat
    if picked:
        put_away = (np.int64(1) << cards[0]) | (np.int64(1) << cards[1])
        if cards[0] == cards[1] or put_away & ~twelve:
            return False
    held = twelve & ~put_away
    if ouvert:
        shown = 0
        for k in range(count - 10, count):
            shown |= np.int64(1) << cards[k]
        if shown != held:
            return False
    # the cards
    hands3 = np.empty(3, np.int64)
    for seat in range(3):
        hands3[seat] = hand_masks[seat]
    hands3[declarer] = held
    start_play(state, hands3[0], hands3[1], hands3[2], game, declarer)
    played = 0
    while i < n and _end_kind(data, ts[i + 1], te[i + 1]) < 0:
        seat = _seat_of(data, ts[i])
        if seat > 2 or te[i + 1] - ts[i + 1] != 2 or state[STATE_FINISHED]:
            return False
        c = _card(data, ts[i + 1])
        if c < 0 or seat != seat_to_play(state) or not (state[STATE_HANDS + seat] >> c) & 1:
            return False
        if not (np.int64(legal_now(state)) >> c) & 1:
            return False
        play_card(state, c)
        log[played] = c
        played += 1
        i += 2
    ended = PLAYED
    if i < n:
        for j in range(i, n, 2):
            kind = _end_kind(data, ts[j + 1], te[j + 1])
            seat = _seat_of(data, ts[j])
            length = te[j + 1] - ts[j + 1]
            if kind < 0:
                return False
            if kind == TIMEOUT or kind == LEFT:
                if length != 4 or data[ts[j + 1] + 3] < 48 or data[ts[j + 1] + 3] > 50:
                    return False
                seat = data[ts[j + 1] + 3] - 48
            elif seat > 2 or (kind == RESIGNED and length != 2):
                return False
            elif length > 2 and _dotted_cards(data, ts[j + 1] + 3, te[j + 1], cards) < 0:
                return False
            if j == i:
                ended, out[O_ENDED_BY] = kind, seat
        if state[STATE_FINISHED]:
            return False
    elif not state[STATE_FINISHED]:
        return False
    sch_announced, sw_announced = (flags >> 1) & 1, (flags >> 2) & 1
    mat = matadors(game, twelve)
    out[O_DECLARER], out[O_BID], out[O_GAME], out[O_HAND] = declarer, BID_VALUES[bid_index], game, hand
    out[O_SCHNEIDER_ANNOUNCED], out[O_SCHWARZ_ANNOUNCED], out[O_OUVERT] = sch_announced, sw_announced, ouvert
    out[O_DISCARD] = put_away if picked else 0
    out[O_MATADORS], out[O_ENDED] = mat, ended
    if ended == PLAYED:
        points, tricks = declarer_result(state, put_away)
        reached, won_in_play, schneider, schwarz = play_outcome(game, hand == 1, sch_announced == 1,
                                                                sw_announced == 1, ouvert == 1, mat, points, tricks)
        won, value, overbid = outcome_at_bid(game, reached, won_in_play, BID_VALUES[bid_index])
        score = classic_score(won, value)
        out[O_POINTS], out[O_TRICKS], out[O_SCHNEIDER], out[O_SCHWARZ] = points, tricks, schneider, schwarz
        out[O_WON], out[O_OVERBID], out[O_VALUE], out[O_SCORE] = won, overbid, value, score
        out[O_REACHED], out[O_WON_IN_PLAY] = reached, won_in_play
        _put_sf(out, declarer, won, value)
        out[O_AGREES] = (items[R_D] == declarer and items[R_OUTCOME] == (0 if won else 1) and items[R_V] == score
                         and items[R_M] == mat and items[R_BID] == overbid and items[R_P] == points
                         and items[R_T] == tricks and items[R_S] == schneider and items[R_Z] == schwarz)
        return True
    # ended early: the server's result
    outcome, score = items[R_OUTCOME], items[R_V]
    value = _server_value(outcome, score)
    if value == MISSING and outcome != 2:
        return False
    if items[R_P] < 0 or items[R_P] > 120 or items[R_T] < 0 or items[R_T] > 10:
        return False
    out[O_POINTS], out[O_TRICKS], out[O_SCHNEIDER], out[O_SCHWARZ] = items[R_P], items[R_T], items[R_S], items[R_Z]
    out[O_OVERBID], out[O_SCORE] = items[R_BID], score
    if outcome == 2:  # a penalty: no outcome of the game
        out[O_WON], out[O_VALUE], out[O_REACHED], out[O_WON_IN_PLAY] = MISSING, MISSING, MISSING, MISSING
        out[O_SF_F], out[O_SF_M], out[O_SF_R] = MISSING, MISSING, MISSING
    else:
        won = outcome == 0
        out[O_WON], out[O_VALUE] = won, value
        _put_sf(out, declarer, won, value)
        if items[R_BID] == 1:
            out[O_REACHED], out[O_WON_IN_PLAY] = MISSING, MISSING
        else:
            out[O_REACHED], out[O_WON_IN_PLAY] = value, won
    out[O_AGREES] = items[R_D] == declarer and items[R_M] == mat
    return True


@njit(cache=True)
def replay_lines(data, spans, first, hands, declarer, bid_index, table, ok, out, logs):
    """Kernel 2 over the lines that kernel 1 and the auction passed (``ok``); clears ``ok`` of a
    line it flags. ``out`` gets the O_* columns, ``logs`` the cards in the order played."""
    ts, te = np.empty(MAX_TOKENS, np.int64), np.empty(MAX_TOKENS, np.int64)
    cards = np.empty(32, np.int64)
    items = np.empty(R_SIZE, np.int64)
    state = np.zeros(STATE_SIZE, np.int64)
    for k in range(spans.shape[0]):
        if not ok[k]:
            continue
        ok[k] = _replay_one(data, spans[k, F_MV], spans[k, F_R], first[k], hands[k], declarer[k], bid_index[k],
                            table, out[k], logs[k], ts, te, cards, items, state)


# --- a batch -------------------------------------------------------------------------------------

_auctions: dict[bytes, tuple[int, int] | None] = {}
_table_cache: list[np.ndarray] = []
_BID_INDEX = {int(v): i for i, v in enumerate(BID_VALUES)}


def _declarations() -> np.ndarray:
    if not _table_cache:
        _table_cache.append(declaration_table())
    return _table_cache[0]


def _auction(text: bytes) -> tuple[int, int] | None:
    """(declarer, bid index) of an auction text, replayed by the engine once per distinct text."""
    if text not in _auctions:
        if len(_auctions) > 1_000_000:
            _auctions.clear()
        found = auction_of_text(text.decode("ascii", errors="replace"))
        _auctions[text] = None if found is None else (found[0], _BID_INDEX.get(found[1], 0))
    return _auctions[text]


def _auctions_of(data: bytes, buf: np.ndarray, auction: np.ndarray, ok: np.ndarray):
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


@dataclass
class Batch:
    """What the kernels made of a batch of lines (one entry per line)."""

    ok: np.ndarray       # bool: the kernels accepted the line (False: ask sim.imports.iss.record.check_line)
    spans: np.ndarray    # (n, 7, 2): where ID, DT, P0, P1, P2, MV, R stand in the buffer
    hands: np.ndarray    # (n, 4): forehand, middlehand, rearhand, skat as dealt
    dates: np.ndarray    # seconds since 1970 (UTC), MISSING when absent
    out: np.ndarray      # (n, OUT_SIZE): the O_* columns
    logs: np.ndarray     # (n, 30) int8: the cards in the order played, -1 after the last


def check_batch(data: bytes, starts: np.ndarray, ends: np.ndarray) -> Batch:
    """Read, check and score the lines ``data[starts[k]:ends[k]]``."""
    buf = np.frombuffer(data, dtype=np.uint8)
    n = len(starts)
    ok = np.zeros(n, dtype=np.bool_)
    spans = np.full((n, len(FIELDS), 2), -1, dtype=np.int64)
    hands = np.zeros((n, 4), dtype=np.int64)
    auction = np.zeros((n, 4), dtype=np.int64)  # start, end of the auction's text, the word after it, its hash
    dates = np.full(n, MISSING, dtype=np.int64)
    scan_lines(buf, starts, ends, ok, spans, hands, auction, dates)
    declarer, bid_index = _auctions_of(data, buf, auction, ok)
    out = np.zeros((n, OUT_SIZE), dtype=np.int64)
    logs = np.full((n, 30), -1, dtype=np.int8)
    replay_lines(buf, spans, auction[:, 2], hands, declarer, bid_index, _declarations(), ok, out, logs)
    return Batch(ok, spans, hands, dates, out, logs)

