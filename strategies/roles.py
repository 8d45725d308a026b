"""The five roles of a Skat player, each a small protocol with one documented contract.

Every decision of a deal belongs to one role. A strategy is an object that fulfils
its role's protocol; it is registered by name (:mod:`strategies.registry`) and
chosen per seat in a profile (:mod:`strategies.profiles`). All roles work on
batches: arrays of hands, one row per deal.

- :class:`Evaluator`: ten cards and a seat -> a score per game type.
- :class:`Bidder`: ten cards and a seat -> an assessment of every game type and a
  bid plan (maximum bid, intended game, hand or pick-up).
- :class:`Discarder`: twelve cards and a game -> the two cards put away.
- :class:`Declarer`: after the auction -> the declaration (game, announcements,
  ouvert) and the discard; the same method serves game mode, where the declarer
  chooses the game, and declare mode, where the game is given.
- a card player: what the seat may see -> a legal card; a numba kernel declared as a
  :class:`strategies.cardplay.policy.KernelPlayer` (at bulk speed), or a class in plain Python
  (:mod:`strategies.cardplay.python_players`: one decision or a batch of them at a time).

Arrays: hands and card sets are uint32 bitmasks (``sim.rules.cards``), seats 0, 1,
2 (forehand, middlehand, rearhand), game type ids 0..5 (diamonds, hearts, spades,
clubs, grand, null), bids from ``sim.rules.auction.BID_VALUES``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Protocol, runtime_checkable

import numpy as np


def concatenate(parts: list):
    """Dataclasses of arrays (an Assessment, a BidPlan, Declarations) of consecutive row blocks, joined."""
    first = parts[0]
    joined = {}
    for f in fields(first):
        values = [getattr(p, f.name) for p in parts]
        joined[f.name] = concatenate(values) if is_dataclass(values[0]) else np.concatenate(values)
    return type(first)(**joined)


@runtime_checkable
class Evaluator(Protocol):
    """Scores a batch of ten-card hands at bidding time, one column per game type.

    ``evaluator(hands, seats)`` takes hands uint32 (n,) and seats (n,) or a scalar, and
    returns float64 (n, 6): higher is better, ``-inf`` in a column it does not assess.
    ``thresholds`` (6,) reads "a club player would play this game from this score on";
    +inf for a column not assessed. ``name`` is its registered name.
    """

    name: str
    thresholds: np.ndarray

    def __call__(self, hands: np.ndarray, seats) -> np.ndarray: ...


@dataclass(frozen=True)
class Assessment:
    """A bidder's judgement of every game type for a batch of ten-card hands (n rows, 6 games).

    ``margins`` say how far each game clears the bidder's bar: a game is playable
    from 0 on, and the four suit games share one scale, so their margins compare.
    """

    scores: np.ndarray        # float64 (n, 6): the evaluator scores the margins come from
    margins: np.ndarray       # float64 (n, 6): playable from 0 on
    hand: np.ndarray          # bool (n, 6): would play this game hand (without the skat)
    null_ouvert: np.ndarray   # bool (n,): would play null ouvert

    @property
    def playable(self) -> np.ndarray:
        return self.margins >= 0

    def take(self, rows) -> "Assessment":
        """The assessment of ``rows`` only."""
        return Assessment(self.scores[rows], self.margins[rows], self.hand[rows], self.null_ouvert[rows])


@dataclass(frozen=True)
class BidPlan:
    """What each hand of a batch does in the auction, and the assessment it comes from."""

    max_bid: np.ndarray       # int64 (n,): bids up to this value; 0 = passes at once
    game: np.ndarray          # int64 (n,): the game it means to play, -1 = none
    hand: np.ndarray          # bool (n,): means to play that game hand
    ouvert: np.ndarray        # bool (n,): means to play null ouvert
    assessment: Assessment

    def take(self, rows) -> "BidPlan":
        """The plan of ``rows`` only."""
        return BidPlan(self.max_bid[rows], self.game[rows], self.hand[rows], self.ouvert[rows],
                       self.assessment.take(rows))


@runtime_checkable
class Bidder(Protocol):
    """Judges hands and plans the auction.

    ``assess(hands, seats)`` judges every game type for ten cards (the declarer also
    asks it about the ten it keeps after a pick-up); ``plan(hands, seats)`` gives the
    maximum bid, the intended game and hand or pick-up. The auction itself is run by
    the engine from the maximum bids (``sim.rules.auction``).
    """

    def assess(self, hands: np.ndarray, seats) -> Assessment: ...

    def plan(self, hands: np.ndarray, seats) -> BidPlan: ...


@runtime_checkable
class Discarder(Protocol):
    """``discard(twelves, game)``: for twelve-card sets uint32 (n,) and one game type, the
    two cards put away as uint32 (n,) masks (any two of the twelve are legal)."""

    name: str

    def discard(self, twelves: np.ndarray, game: int) -> np.ndarray: ...


@dataclass(frozen=True)
class DeclarerTask:
    """What a declarer knows when it declares: the rows of one seat's games.

    ``cards`` are the ten cards for a hand game (the skat stays unseen) and the
    twelve with the skat after a pick-up; hand or pick-up is the bidder's decision
    (``hand``). ``games`` is None when the declarer chooses the game (game mode), or
    the game each row must declare (declare mode).
    """

    seat: int
    cards: np.ndarray          # uint32 (n,)
    hand: np.ndarray           # bool (n,)
    bids: np.ndarray           # int64 (n,)
    plan: BidPlan              # the bidder's plan of the ten cards as dealt
    bidder: Bidder             # to judge the cards kept after a pick-up
    discarder: Discarder
    games: np.ndarray | None = None

    def take(self, rows) -> "DeclarerTask":
        """The task of ``rows`` only."""
        return replace(self, cards=self.cards[rows], hand=self.hand[rows], bids=self.bids[rows],
                       plan=self.plan.take(rows), games=None if self.games is None else self.games[rows])


@dataclass
class Declarations:
    """Declarations of a batch of games (rows of passed-in deals stay zero)."""

    game: np.ndarray        # int64
    hand: np.ndarray        # bool
    schneider: np.ndarray   # bool, announced
    schwarz: np.ndarray     # bool, announced
    ouvert: np.ndarray      # bool
    aside: np.ndarray       # uint32: the two cards that count for the declarer unplayed (discard, or the skat in hand)
    discarded: np.ndarray   # bool: the skat was picked up and two cards discarded

    @classmethod
    def empty(cls, n: int) -> "Declarations":
        z = np.zeros(n, dtype=bool)
        return cls(np.zeros(n, np.int64), z, z.copy(), z.copy(), z.copy(), np.zeros(n, np.uint32), z.copy())

    def put(self, rows: np.ndarray, other: "Declarations") -> None:
        """Copy ``other`` (one row per entry of ``rows``) into ``rows``."""
        for name in ("game", "hand", "schneider", "schwarz", "ouvert", "aside", "discarded"):
            getattr(self, name)[rows] = getattr(other, name)


@runtime_checkable
class Declarer(Protocol):
    """``declare(task)``: the declarations of a :class:`DeclarerTask`, one row per row of the task.

    For a pick-up the declaration's ``aside`` is the discard (two of the twelve cards)
    and ``discarded`` is set; for a hand game the caller sets it to the skat. A null
    worth less than the bid must not be declared (``Declaration.check``).
    """

    def declare(self, task: DeclarerTask) -> Declarations: ...


def declare_hand_and_pickup(task: DeclarerTask, hand_games, after_pickup) -> Declarations:
    """The declarations of a task whose hand-game rows are declared by ``hand_games(task, rows)`` and
    whose pick-up rows by ``after_pickup(task, rows)``: the split every built-in declarer makes."""
    out = Declarations.empty(len(task.cards))
    hand, pick_up = np.flatnonzero(task.hand), np.flatnonzero(~task.hand)
    out.put(hand, hand_games(task, hand))
    out.put(pick_up, after_pickup(task, pick_up))
    return out

