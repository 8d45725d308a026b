"""Bidders, discarders and declarers written for one hand in plain Python, adapted to the batch roles.

The roles of :mod:`strategies.roles` take whole batches of hands; a person trying an idea writes
one hand at a time instead, with cards by name (``CJ``, ``H10``) and games by name (``clubs``,
``grand``, ``null``). Each class here is a role of :mod:`strategies.roles` whose batch methods ask
its one-hand method row by row:

- :class:`HandBidder`: ``plan_hand(hand, seat) -> HandPlan`` (the maximum bid, the game meant, hand
  or pick-up, null ouvert);
- :class:`HandDiscarder`: ``discard_hand(twelve, game) -> two cards``;
- :class:`HandDeclarer`: ``declare_hand(cards, seat=, bid=, hand_game=, game=) -> HandDeclaration``.

Registered like every strategy: the class is the factory and its keyword arguments its parameters.
What a one-hand method is given is the seat's own cards and what the auction said, nothing else.
A plan or a declaration against the rules stops the run with one line naming the strategy and the hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.rules.auction import BID_VALUES
from sim.rules.cards import SEAT_NAMES
from sim.rules.games import GAME_NAMES, NULL, Declaration, IllegalDeclaration, game_id

from .cardplay.seat_view import card_id, card_names
from .registry import StrategyError
from .roles import Assessment, BidPlan, Declarations, DeclarerTask

_BIDS = frozenset(int(v) for v in BID_VALUES)


@dataclass(frozen=True)
class HandPlan:
    """What one hand does in the auction: bid up to ``max_bid`` (0: pass at once) meaning to play
    ``game`` (a game's name, None for none), ``hand`` without the skat, null ``ouvert``."""

    max_bid: int = 0
    game: str | None = None
    hand: bool = False
    ouvert: bool = False


@dataclass(frozen=True)
class HandDeclaration:
    """A declaration of one hand: ``game`` by name; ``discard`` two of the twelve cards after a pick-up
    (None: the seat's discarder chooses), none in a hand game; the announcements."""

    game: str
    discard: tuple | list | None = None
    schneider: bool = False
    schwarz: bool = False
    ouvert: bool = False


class _OneHand:
    name: str | None = None   # the registered name, set when the strategy is built

    def _fail(self, role: str, what: str, cards: int, seat: int | None) -> StrategyError:
        where = "" if seat is None else f" at {SEAT_NAMES[seat]}"
        return StrategyError(f"{role} {self.name or type(self).__name__!r}{where} with "
                             f"{' '.join(card_names(int(cards)))}: {what}")


class HandBidder(_OneHand):
    """A :class:`strategies.roles.Bidder` written for one hand: override :meth:`plan_hand`."""

    def plan_hand(self, hand: list[str], seat: int) -> HandPlan:
        raise NotImplementedError(f"{type(self).__name__} must define plan_hand(hand, seat)")

    def plan(self, hands: np.ndarray, seats) -> BidPlan:
        hands = np.asarray(hands, dtype=np.uint32)
        seats = np.broadcast_to(seats, hands.shape)
        n = len(hands)
        max_bid, game = np.zeros(n, np.int64), np.full(n, -1, np.int64)
        hand, ouvert = np.zeros(n, bool), np.zeros(n, bool)
        for i, (cards, seat) in enumerate(zip(hands.tolist(), seats.tolist())):
            plan = self.plan_hand(card_names(cards), seat)
            max_bid[i], game[i], hand[i], ouvert[i] = self._checked(plan, cards, seat)
        margins = np.full((n, 6), -1.0)
        margins[max_bid > 0, game[max_bid > 0]] = 0.0
        hands_of_game = np.zeros((n, 6), bool)
        hands_of_game[max_bid > 0, game[max_bid > 0]] = hand[max_bid > 0]
        return BidPlan(max_bid, game, hand, ouvert, Assessment(margins.copy(), margins, hands_of_game, ouvert))

    def assess(self, hands: np.ndarray, seats) -> Assessment:
        """The plan's game as the one playable game (margin 0, the others -1)."""
        return self.plan(hands, seats).assessment

    def _checked(self, plan, cards: int, seat: int) -> tuple[int, int, bool, bool]:
        if not isinstance(plan, HandPlan):
            raise self._fail("bidder", f"plan_hand gave {plan!r}, not a HandPlan", cards, seat)
        if plan.max_bid == 0:
            return 0, -1, False, False
        if plan.max_bid not in _BIDS:
            raise self._fail("bidder", f"{plan.max_bid!r} is not a bid (18, 20, 22, 23, ... 264, or 0 to pass)",
                             cards, seat)
        try:
            game = game_id(plan.game)
        except IllegalDeclaration as error:
            raise self._fail("bidder", str(error), cards, seat) from None
        if plan.ouvert and game != NULL:
            raise self._fail("bidder", "only a null is planned ouvert here (a suit or grand ouvert is declared)",
                             cards, seat)
        return plan.max_bid, game, bool(plan.hand), bool(plan.ouvert)


class HandDiscarder(_OneHand):
    """A :class:`strategies.roles.Discarder` written for one hand: override :meth:`discard_hand`."""

    def discard_hand(self, twelve: list[str], game: str):
        raise NotImplementedError(f"{type(self).__name__} must define discard_hand(twelve, game)")

    def discard(self, twelves: np.ndarray, game: int) -> np.ndarray:
        out = np.zeros(len(twelves), np.uint32)
        for i, twelve in enumerate(np.asarray(twelves, np.uint32).tolist()):
            out[i] = _two_of(self, "discarder", twelve, self.discard_hand(card_names(twelve), GAME_NAMES[game]), None)
        return out


def _two_of(strategy, role: str, twelve: int, cards, seat: int | None) -> int:
    """The mask of two cards of ``twelve``, or the strategy's mistake as one line."""
    ids = [card_id(c) for c in cards] if isinstance(cards, (list, tuple)) else []
    mask = sum(1 << c for c in set(ids) if c >= 0)
    if len(ids) != 2 or bin(mask).count("1") != 2 or mask & ~twelve:
        raise strategy._fail(role, f"discarded {cards!r}, not two of its twelve cards", twelve, seat)
    return mask


class HandDeclarer(_OneHand):
    """A :class:`strategies.roles.Declarer` written for one hand: override :meth:`declare_hand`.

    ``cards`` are the ten of a hand game or the twelve after a pick-up; ``game`` is the game to
    declare in declare mode, None when the declarer chooses."""

    def declare_hand(self, cards: list[str], *, seat: int, bid: int, hand_game: bool,
                     game: str | None) -> HandDeclaration:
        raise NotImplementedError(f"{type(self).__name__} must define declare_hand(cards, ...)")

    def declare(self, task: DeclarerTask) -> Declarations:
        out = Declarations.empty(len(task.cards))
        left = []   # pick-ups whose discard the seat's discarder chooses
        for i, cards in enumerate(task.cards.tolist()):
            given = None if task.games is None else GAME_NAMES[int(task.games[i])]
            hand = bool(task.hand[i])
            said = self.declare_hand(card_names(cards), seat=task.seat, bid=int(task.bids[i]), hand_game=hand,
                                     game=given)
            game = self._game(said, given, cards, task.seat, int(task.bids[i]), hand)
            out.game[i], out.ouvert[i] = game.game, game.ouvert
            out.schneider[i], out.schwarz[i], out.hand[i] = game.schneider, game.schwarz, game.hand
            if not hand and said.discard is None:
                left.append(i)
            elif not hand:
                out.aside[i], out.discarded[i] = _two_of(self, "declarer", cards, said.discard, task.seat), True
        for g in np.unique(out.game[left]):
            rows = np.asarray(left)[out.game[left] == g]
            out.aside[rows], out.discarded[rows] = task.discarder.discard(task.cards[rows], int(g)), True
        return out

    def _game(self, said, given, cards: int, seat: int, bid: int, hand: bool) -> Declaration:
        if not isinstance(said, HandDeclaration):
            raise self._fail("declarer", f"declare_hand gave {said!r}, not a HandDeclaration", cards, seat)
        try:
            game = game_id(said.game)
            if given is not None and game != game_id(given):
                raise IllegalDeclaration(f"declared {said.game} where {given} was to be declared")
            if hand and said.discard:
                raise IllegalDeclaration("discarded in a hand game (the skat stays unseen)")
            return Declaration(game, hand, bool(said.schneider), bool(said.schwarz), bool(said.ouvert)).check(bid)
        except IllegalDeclaration as error:
            raise self._fail("declarer", str(error), cards, seat) from None


__all__ = ["HandBidder", "HandDeclaration", "HandDeclarer", "HandDiscarder", "HandPlan"]
