"""Reading ISS record lines as bytes, in numba: the readers both kernels use, and kernel 1.

The lines of a batch lie in one byte buffer, each line a span ``a .. b`` of it. The small
readers here read a card (``CT``), cards joined by dots, the words of a field, a whole number,
a seat, an early end's token, a date and the items of the result field. :func:`scan_lines`
(kernel 1) finds each line's fields, reads its date and deal, and marks where its auction
stands in the moves (:mod:`sim.imports.iss.kernels` takes it from there).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.imports.iss.notation import GAME_LETTERS
from sim.rules.records import CLAIMED, LEFT, RESIGNED, TIMEOUT

MISSING = np.iinfo(np.int64).min  # a missing value in the kernels' outputs


# --- what a byte stands for --------------------------------------------------------------------


def _byte_codes(pairs) -> np.ndarray:
    """For each of the 256 bytes, the value ``pairs`` gives its character; -1 for the others."""
    codes = np.full(256, -1, dtype=np.int64)
    for char, value in pairs:
        codes[ord(char)] = value
    return codes


SUIT_OF = _byte_codes(zip("DHSC", range(4)))
RANK_OF = _byte_codes(zip("789QKTAJ", range(8)))
GAME_OF = _byte_codes(zip(GAME_LETTERS, range(6)))
MODIFIER_BIT = _byte_codes(zip("OHSZ", (1, 2, 4, 8)))
#: The fields read, in the order of the ``spans`` array.
FIELDS = ("ID", "DT", "P0", "P1", "P2", "MV", "R", "PC")
F_ID, F_DT, F_P0, F_P1, F_P2, F_MV, F_R, F_PC = range(8)
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


# --- small readers -----------------------------------------------------------------------------


@njit(cache=True, inline="always")
def is_space(b):
    return b == 32 or (9 <= b <= 13) or (28 <= b <= 31)


@njit(cache=True, inline="always")
def card_at(data, p):
    """The card written at ``p`` (two bytes), or -1."""
    s, r = SUIT_OF[data[p]], RANK_OF[data[p + 1]]
    return s * 8 + r if s >= 0 and r >= 0 else -1


@njit(cache=True)
def dotted_cards(data, a, b, out):
    """Cards ``XX.YY.ZZ`` in data[a:b] into ``out``; their number, or -1 if it is not such a list."""
    n = 0
    p = a
    while True:
        if p + 2 > b or n >= out.shape[0]:
            return -1
        c = card_at(data, p)
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
def tokens(data, a, b, starts, ends):
    """Whitespace-separated words of data[a:b]; their number, or -1 if there are too many."""
    n = 0
    p = a
    while p < b:
        while p < b and is_space(data[p]):
            p += 1
        if p >= b:
            break
        if n >= starts.shape[0]:
            return -1
        starts[n] = p
        while p < b and not is_space(data[p]):
            p += 1
        ends[n] = p
        n += 1
    return n


@njit(cache=True)
def number(data, a, b):
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
def seat_at(data, p):
    """0, 1, 2 for a seat digit at ``p``, 3 for ``w``, -1 otherwise."""
    b = data[p]
    if 48 <= b <= 50:
        return b - 48
    return 3 if b == 119 else -1


@njit(cache=True)
def end_kind(data, a, b):
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


# --- the result field -------------------------------------------------------------------------------


@njit(cache=True)
def _word_is(data, a, b, w):
    if b - a != _WORD_CODES[w, 0]:
        return False
    for j in range(b - a):
        if data[a + j] != _WORD_CODES[w, 1 + j]:
            return False
    return True


@njit(cache=True)
def result_items(data, a, b, items, ts, te):
    """The items of the R field into ``items`` (MISSING where absent); False if one is broken."""
    items[:] = MISSING
    n = tokens(data, a, b, ts, te)
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
            value = number(data, colon + 1, e)
            if value == MISSING or ((slot == R_S or slot == R_Z or slot == R_R) and value != 0 and value != 1):
                return False
        if items[slot] != MISSING:
            return False
        items[slot] = value
    return True



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
        while p < b and is_space(data[p]):
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
        if not is_space(data[r]):
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
    n = tokens(data, spans[F_MV, 0], spans[F_MV, 1], ts, te)
    if n < 2 or n % 2:
        return False
    for i in range(0, n, 2):
        if te[i] - ts[i] != 1 or seat_at(data, ts[i]) < 0:
            return False
    if seat_at(data, ts[0]) != 3 or dotted_cards(data, ts[1], te[1], cards) != 32:
        return False
    seen = 0
    for k in range(32):
        if seen >> cards[k] & 1:
            return False
        seen |= np.int64(1) << cards[k]
        hands[min(k // 10, 3)] |= np.int64(1) << cards[k]
    i = 2
    while i < n and seat_at(data, ts[i]) < 3 and _is_call(data, ts[i + 1], te[i + 1]):
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


