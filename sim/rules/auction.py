"""The auction as the Skat Order runs it.

Middlehand bids to forehand, who holds ("yes") or passes; then rearhand bids to
the survivor. The senior player only has to hold a value, the junior must name a
higher one; jumps are allowed and a pass is final. If middlehand and rearhand both
pass without a bid, forehand may play at 18 or pass; if all three pass the deal
is passed in.

:func:`run_auction` is driven by each seat's answers, so a bidder may decide
from a maximum, from what it has heard, or from anything else it knows.
:func:`auction_by_max_bids` is the kernel for bidders that bid up to a fixed
maximum, one value at a time; both give the same declarer and bid for such
bidders. The kernel also writes what every seat heard (:data:`AUCTION`): each
seat's highest value named or held and the order of the passes, from which
:func:`calls_heard` gives back the calls. A seat's maximum bid is private; these
calls are public.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Union

import numpy as np
from numba import njit

from .cards import FOREHAND, MIDDLEHAND, REARHAND, SEAT_NAMES
from .layout import layout

#: The 63 legal bids: every value a game can reach.
BID_VALUES = np.array(
    [18, 20, 22, 23, 24, 27, 30, 33, 35, 36, 40, 44, 45, 46, 48, 50, 54, 55, 59, 60, 63, 66,
     70, 72, 77, 80, 81, 84, 88, 90, 96, 99, 100, 108, 110, 117, 120, 121, 126, 130, 132, 135,
     140, 143, 144, 150, 153, 154, 156, 160, 162, 165, 168, 170, 176, 180, 187, 192, 198, 204,
     216, 240, 264],
    dtype=np.int64,
)
_LEGAL_BIDS = frozenset(int(v) for v in BID_VALUES)
LOWEST_BID = 18

Call = Union[int, str]  # a value named, "yes" (held) or "pass"

#: What every seat heard in an auction of bidders who bid one value at a time, one int64 row a deal.
#: Without an auction (a game given its declarer: declare mode, ``skatsim hand``) the row is
#: :func:`no_auction`'s: no value said, no pass.
AUCTION = layout("Auction", (
    ("said", 3, "per seat, the highest value it named or held (0: none)"),
    ("passes", 3, "the seats in the order they passed, -1 past the passes"),
))


class AuctionError(ValueError):
    """A call the Skat Order does not allow."""


@dataclass
class AuctionResult:
    """Who won the auction and at what value; ``declarer`` is None when the deal is passed in."""

    declarer: int | None
    bid: int
    calls: list[tuple[int, Call]] = field(default_factory=list)

    @property
    def passed_in(self) -> bool:
        return self.declarer is None


def is_legal_bid(value: int) -> bool:
    return value in _LEGAL_BIDS


def next_bid(value: int) -> int | None:
    """The lowest legal bid above ``value`` (None above 264)."""
    i = int(np.searchsorted(BID_VALUES, value, side="right"))
    return int(BID_VALUES[i]) if i < len(BID_VALUES) else None


BidFrom = Callable[[int, int], "int | None"]
HoldAt = Callable[[int, int], bool]


def run_auction(bid_from: BidFrom, hold_at: HoldAt) -> AuctionResult:
    """Run an auction.

    ``bid_from(seat, current)`` returns the value the seat names above ``current``
    (0 before any bid), or None to pass; ``hold_at(seat, value)`` says whether the
    senior seat holds ``value``. Forehand's lone game is asked as
    ``bid_from(FOREHAND, 0)``, answered with 18 or None.
    """
    calls: list[tuple[int, Call]] = []
    survivor, current = _bid_against(MIDDLEHAND, FOREHAND, 0, bid_from, hold_at, calls)
    survivor, current = _bid_against(REARHAND, survivor, current, bid_from, hold_at, calls)
    if current:
        return AuctionResult(survivor, current, calls)
    alone = bid_from(FOREHAND, 0)
    if alone is None:
        calls.append((FOREHAND, "pass"))
        return AuctionResult(None, 0, calls)
    if alone != LOWEST_BID:
        raise AuctionError(f"forehand playing alone bids 18, not {alone}")
    calls.append((FOREHAND, LOWEST_BID))
    return AuctionResult(FOREHAND, LOWEST_BID, calls)


def _bid_against(bidder, holder, current, bid_from, hold_at, calls):
    """One duel: ``bidder`` names values to ``holder`` until one passes; returns (survivor, value)."""
    while True:
        value = bid_from(bidder, current)
        if value is None:
            calls.append((bidder, "pass"))
            return holder, current
        if not is_legal_bid(value):
            raise AuctionError(f"{SEAT_NAMES[bidder]} bids {value}, which is not a legal bid value")
        if value <= current:
            raise AuctionError(f"{SEAT_NAMES[bidder]} bids {value}, not above the {current} already held")
        calls.append((bidder, value))
        if not hold_at(holder, value):
            calls.append((holder, "pass"))
            return bidder, value
        calls.append((holder, "yes"))
        current = value


def max_bid_answers(max_bids) -> tuple[BidFrom, HoldAt]:
    """Answers of bidders who bid one step at a time up to a fixed maximum (0: pass at once)."""

    def bid_from(seat: int, current: int) -> int | None:
        value = next_bid(current)
        return value if value is not None and value <= max_bids[seat] else None

    def hold_at(seat: int, value: int) -> bool:
        return value <= max_bids[seat]

    return bid_from, hold_at


@njit(cache=True, inline="always")
def _duel_by_max(bidder_max, holder_max, current_index):
    """Duel over bid indices; returns (bidder survives, index of the value reached, -1 for none)."""
    i = current_index + 1
    while i < BID_VALUES.shape[0]:
        value = BID_VALUES[i]
        if value > bidder_max:
            return False, i - 1
        if value > holder_max:
            return True, i
        i += 1
    return False, i - 1


@njit(cache=True, inline="always")
def _hear_duel(heard, bidder, holder, before, reached, bidder_wins, passes):
    """Write a duel into ``heard`` (the values named and held, who passed); returns the passes so far."""
    if reached > before:
        heard[AUCTION.said + bidder] = BID_VALUES[reached]
        held = reached - 1 if bidder_wins else reached
        if held >= 0:
            heard[AUCTION.said + holder] = max(heard[AUCTION.said + holder], BID_VALUES[held])
    heard[AUCTION.passes + passes] = holder if bidder_wins else bidder
    return passes + 1


@njit(cache=True)
def auction_by_max_bids(max_f, max_m, max_r, heard=None):
    """(declarer, bid) of an auction between max-bid bidders; declarer -1 when passed in. ``heard``, an
    :data:`AUCTION` row, is filled with what every seat heard when it is given."""
    maxes = (max_f, max_m, max_r)
    if heard is not None:
        heard[:] = -1
        heard[AUCTION.said:AUCTION.said + 3] = 0
    survivor, index, passes = 0, -1, 0
    for bidder in (1, 2):
        bidder_wins, reached = _duel_by_max(maxes[bidder], maxes[survivor], index)
        if heard is not None:
            passes = _hear_duel(heard, bidder, survivor, index, reached, bidder_wins, passes)
        index = reached
        if bidder_wins:
            survivor = bidder
    if index >= 0:
        return survivor, BID_VALUES[index]
    if max_f >= BID_VALUES[0]:
        if heard is not None:
            heard[AUCTION.said + FOREHAND] = BID_VALUES[0]
        return 0, BID_VALUES[0]
    if heard is not None:
        heard[AUCTION.passes + passes] = FOREHAND
    return -1, 0


def no_auction(count: int) -> np.ndarray:
    """:data:`AUCTION` rows of games given their declarer without an auction: no value said, no pass."""
    heard = np.full((count, AUCTION.size), -1, np.int64)
    heard[:, AUCTION.said:AUCTION.said + 3] = 0
    return heard


def calls_heard(heard) -> list[tuple[int, Call]]:
    """The calls of an auction, in order, from what every seat heard (an :data:`AUCTION` row) and as
    :func:`run_auction` records them: ``(seat, value)`` for a value named, ``(seat, "yes")`` for one held,
    ``(seat, "pass")``. Empty without an auction.

    A seat that passed bid exactly up to the highest value it said, and the declarer never refused, so
    bidders with those maxima replay the same calls."""
    said, passes = list(heard[AUCTION.said:AUCTION.said + 3]), list(heard[AUCTION.passes:AUCTION.passes + 3])
    if passes[0] < 0:
        return []
    maxima = [int(said[seat]) if seat in passes else int(BID_VALUES[-1]) for seat in range(3)]
    return run_auction(*max_bid_answers(maxima)).calls
