"""Cards, their notation, card points and bitmask hands.

Encoding (fixed for the whole toolkit)::

    card id = suit * 8 + rank
    suit    diamonds 0, hearts 1, spades 2, clubs 3
    rank    7 8 9 Q K 10 A J  ->  0 1 2 3 4 5 6 7

The rank index is the plain-suit order of suit and grand games (7 lowest, A
highest), and the four jacks (rank 7) order among themselves by suit, so the
jack of clubs is card 31, the highest card id.  A hand, a skat or a set of
played cards is a uint32 bitmask with bit ``card id`` set.

Text notation is a suit letter and a rank: ``CJ SJ HA H10 HK D7``.  ``T`` is
accepted for 10, and the symbols ``♣ ♠ ♥ ♦`` are accepted for the suit letters.
"""

from __future__ import annotations

import reprlib

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

DIAMONDS, HEARTS, SPADES, CLUBS = 0, 1, 2, 3
SUIT_LETTERS = "DHSC"
SUIT_SYMBOLS = "♦♥♠♣"
RANK_NAMES = ("7", "8", "9", "Q", "K", "10", "A", "J")
JACK = 7
ACE = 6
TEN = 5

FOREHAND, MIDDLEHAND, REARHAND = 0, 1, 2
SEAT_NAMES = ("forehand", "middlehand", "rearhand")
#: Seat suffixes of the logged columns: hand_f, sf_m, max_bid_r ...
SEAT_SUFFIXES = "fmr"

#: Card points by rank index: 7 8 9 Q K 10 A J.
RANK_POINTS = np.array([0, 0, 0, 3, 4, 10, 11, 2], dtype=np.int64)
#: Card points by card id.
CARD_POINTS = np.tile(RANK_POINTS, 4)
#: Every card of the deck as a mask (int64, as the play state holds masks).
ALL_CARDS = np.int64(0xFFFFFFFF)

#: The four jacks: bit 7 of every suit byte.
JACKS = np.uint32(0x80808080)
#: All eight cards of a suit (jacks included), by suit.
SUIT_MASKS = np.array([0xFF << (8 * s) for s in range(4)], dtype=np.uint32)

# Masks of all cards with a given card-point value, for point counting by popcount.
_ACES = np.uint32(sum(1 << (8 * s + ACE) for s in range(4)))
_TENS = np.uint32(sum(1 << (8 * s + TEN) for s in range(4)))
_KINGS = np.uint32(sum(1 << (8 * s + 4) for s in range(4)))
_QUEENS = np.uint32(sum(1 << (8 * s + 3) for s in range(4)))


class CardError(ValueError):
    """A card, a hand or a set of cards written or built wrongly."""


_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxother, _SHOWN.maxlong = 3, 60, 60, 40
_SHOWN.maxlist, _SHOWN.maxdict = 8, 6


def shown(value) -> str:
    """A value as an error message quotes it: its repr, cut short (a bad input may be huge or deeply nested)."""
    return _SHOWN.repr(value)


def card(suit: int, rank: int) -> int:
    """The card id of a suit index and a rank index."""
    return suit * 8 + rank


# --- bit operations, shared by every kernel -------------------------------------------


@intrinsic
def _count_bits(typingctx, mask):
    """The processor's population count of an unsigned 32-bit mask."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint32(types.uint32), codegen


@intrinsic
def _trailing_zeros(typingctx, mask):
    """The processor's count of trailing zero bits of an unsigned 32-bit mask (32 for an empty one)."""
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))
    return types.uint32(types.uint32), codegen


@njit(cache=True, inline="always")
def popcount(mask):
    """Number of set bits of a 32-bit mask."""
    return np.int64(_count_bits(np.uint32(mask)))


@njit(cache=True, inline="always")
def lowest_card(mask):
    """The id of the lowest set bit of a non-empty mask (32 for an empty one)."""
    return np.int64(_trailing_zeros(np.uint32(mask)))


@njit(cache=True, inline="always")
def nth_card(mask, n):
    """The id of the n-th lowest set bit (n from 0) of a mask."""
    m = np.uint32(mask)
    for _ in range(n):
        m &= m - np.uint32(1)
    return lowest_card(m)


@njit(cache=True, inline="always")
def card_points(mask):
    """Sum of the card points of a set of cards."""
    m = np.uint32(mask)
    return (
        11 * popcount(m & _ACES)
        + 10 * popcount(m & _TENS)
        + 4 * popcount(m & _KINGS)
        + 3 * popcount(m & _QUEENS)
        + 2 * popcount(m & JACKS)
    )


# --- notation --------------------------------------------------------------------------

_SUIT_BY_CHAR = {c: i for i, c in enumerate(SUIT_LETTERS)}
_SUIT_BY_CHAR.update({c: i for i, c in enumerate(SUIT_SYMBOLS)})
_RANK_BY_TEXT = {r: i for i, r in enumerate(RANK_NAMES)}
_RANK_BY_TEXT["T"] = TEN


def parse_card(text: str) -> int:
    """Card id of one card written like ``CJ``, ``H10``, ``HT`` or ``♥A``."""
    t = text.strip().upper()
    if len(t) >= 2 and t[0] in _SUIT_BY_CHAR and t[1:] in _RANK_BY_TEXT:
        return card(_SUIT_BY_CHAR[t[0]], _RANK_BY_TEXT[t[1:]])
    raise CardError(f"unknown card {shown(text)} (write a suit C S H D and a rank A 10 K Q J 9 8 7, e.g. CJ or H10)")


def parse_cards(text: str | list[str]) -> list[int]:
    """Card ids of cards separated by spaces or commas, or of a list of card texts."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(t) for t in tokens]


def parse_hand(text: str | list[str]) -> int:
    """Bitmask of a set of cards; a card written twice is an error."""
    mask = 0
    for c in parse_cards(text):
        if mask >> c & 1:
            raise CardError(f"card {format_card(c)} written twice")
        mask |= 1 << c
    return mask


def format_card(card_id: int, symbols: bool = False) -> str:
    suit = SUIT_SYMBOLS if symbols else SUIT_LETTERS
    return suit[card_id >> 3] + RANK_NAMES[card_id & 7]


def cards_of(mask: int) -> list[int]:
    """Card ids of a mask, lowest id first."""
    mask = int(mask)
    return [c for c in range(32) if mask >> c & 1]


def format_hand(mask: int, symbols: bool = False) -> str:
    """A hand as people sort it: jacks first, then clubs, spades, hearts, diamonds, high to low."""
    ids = cards_of(mask)
    ids.sort(key=lambda c: (c & 7 != JACK, -(c >> 3), -(c & 7)))
    return " ".join(format_card(c, symbols) for c in ids)


def mask_of(ids) -> int:
    mask = 0
    for c in ids:
        mask |= 1 << int(c)
    return mask
