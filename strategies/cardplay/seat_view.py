"""What a seat knows at a card decision, with names: the view a card player in plain Python reads.

:class:`SeatView` is one decision, :class:`SeatViews` many decisions at once (numpy arrays with the
same names, one row per decision). Both are built from the engine's view of the seat
(:data:`sim.rules.view.VIEW`), its legal cards and what every seat heard in the auction
(:data:`sim.rules.auction.AUCTION`) only, never from the play state or the seats' maximum bids, so they
hold nothing the seat may not know. Cards are written as everywhere in skatsim (``CJ``, ``H10``); a player
may also answer with a card id 0..31 (:mod:`sim.rules.cards`).
"""

from __future__ import annotations

from functools import cached_property, lru_cache

import numpy as np

from sim.rules.auction import AUCTION, calls_heard, no_auction
from sim.rules.cards import CARD_POINTS, SEAT_NAMES, format_card
from sim.rules.games import GAME_NAMES
from sim.rules.tricks import BEATERS, EFFECTIVE_SUIT, ORDER, TRUMP, TRUMP_MASKS
from sim.rules.view import VIEW

#: Every card's name by id: ``CARD_NAMES[31] == "CJ"``.
CARD_NAMES = tuple(format_card(c) for c in range(32))
#: Card id by name (``T`` for 10 as well).
CARD_IDS = {**{name: c for c, name in enumerate(CARD_NAMES)},
            **{name.replace("10", "T"): c for c, name in enumerate(CARD_NAMES) if "10" in name}}
#: The effective suits as the views name them: the four plain suits and ``trump``.
SUIT_NAMES = ("diamonds", "hearts", "spades", "clubs", "trump")
#: RANKING[game, card]: the card's place in the game's order over all cards (plain cards below trumps,
#: then by height within the suit, then by card id): the key of ``lowest`` and ``highest``.
RANKING = (((EFFECTIVE_SUIT == TRUMP) * 16 + ORDER) * 32 + np.arange(32)).astype(np.int64)

_RANKING = RANKING.tolist()
_BEATERS = BEATERS.tolist()
_EFFECTIVE = EFFECTIVE_SUIT.tolist()
_POINTS = CARD_POINTS.tolist()
_TRUMPS = [int(m) for m in TRUMP_MASKS]
_NO_AUCTION = tuple(no_auction(1)[0].tolist())


def card_names(mask: int) -> list[str]:
    """The names of the cards of a mask, lowest id first."""
    names = []
    while mask:
        low = mask & -mask
        names.append(CARD_NAMES[low.bit_length() - 1])
        mask ^= low
    return names


def card_id(card) -> int:
    """The id of a card given by name (``"H10"``) or id; -1 for anything that is not a card."""
    if isinstance(card, str):
        return CARD_IDS.get(card.strip().upper(), -1)
    try:
        c = int(card)
    except (TypeError, ValueError):
        return -1
    return c if 0 <= c < 32 and c == card else -1


class SeatView:
    """What the seat to play knows at one decision, by name.

    Who: ``seat`` (0 forehand, 1 middlehand, 2 rearhand) and ``seat_name``, ``declarer`` (its seat),
    ``is_declarer``, ``role`` (``"declarer"`` or ``"defender"``), ``partner`` (a defender's fellow
    defender, None for the declarer). The declaration: ``game`` (``"clubs"`` .. ``"diamonds"``,
    ``"grand"``, ``"null"``; ``game_id`` 0..5), ``hand_game``, ``schneider_announced``,
    ``schwarz_announced``, ``ouvert`` and ``bid`` (the final bid). The auction: ``calls`` (every call in
    order as (seat, value named, ``"yes"`` for a value held, or ``"pass"``)), ``said`` (per seat the
    highest value it named or held, 0 for none) and ``passes`` (the seats in the order they passed); all
    three empty or 0 for a game given its declarer without an auction (declare mode, ``skatsim hand``).
    The cards: ``hand`` (the seat's
    own), ``legal`` (the cards it may play now), ``trick`` (the cards on the table, in the order played)
    and ``leader`` (who led them), ``played`` (every card played so far as (seat, card), in order),
    ``tricks_done``, ``won_cards`` (the cards each seat has taken in tricks), ``declarer_points`` and
    ``defender_points`` (card points taken in tricks so far; the declarer's skat counts only at the
    end), ``voids`` (per seat, the suits it has shown it lacks, ``"trump"`` among them),
    ``ouvert_cards`` (an ouvert declarer's remaining cards, else empty) and ``discard`` (the
    declarer's own discard after a pick-up; empty for a defender and in a hand game). ``deal_id`` is the
    deal's id in its run; ``array`` the engine's view itself (int64) and ``legal_mask`` the legal cards
    as a mask, for a player that calls the engine's kernels; ``rng`` a numpy Generator of the deal's own
    stream for this decision, for a player that draws at random.
    """

    __slots__ = ("_v", "legal_mask", "deal_id", "_seed", "_array")

    def __init__(self, values, legal_mask: int, *, deal_id: int = 0, heard=None, seed: int = 0, array=None):
        """``values``: the engine's view, and after it the :data:`sim.rules.auction.AUCTION` row of the deal's
        auction, unless ``heard`` gives that row (neither: a game without an auction)."""
        self._v = values if isinstance(values, list) else np.asarray(values).tolist()
        if heard is not None:
            self._v = self._v[:VIEW.size] + [int(v) for v in heard]
        self.legal_mask, self.deal_id, self._seed, self._array = int(legal_mask), int(deal_id), int(seed), array

    @property
    def _heard(self):
        return self._v[VIEW.size:] if len(self._v) > VIEW.size else _NO_AUCTION

    def _field(self, name):
        return self._v[getattr(VIEW, name)]

    # The properties below are alike in shape, each reading a field of the view: they differ in what they
    # make of it, and each keeps its name and type for help() and a player's editor.
    @property
    def seat(self) -> int:
        return self._v[VIEW.seat]

    @property
    def seat_name(self) -> str:
        return SEAT_NAMES[self._v[VIEW.seat]]

    @property
    def declarer(self) -> int:
        return self._v[VIEW.declarer]

    @property
    def is_declarer(self) -> bool:
        return self._v[VIEW.seat] == self._v[VIEW.declarer]

    @property
    def role(self) -> str:
        return "declarer" if self.is_declarer else "defender"

    @property
    def partner(self) -> int | None:
        return None if self.is_declarer else 3 - self.seat - self.declarer

    @property
    def game(self) -> str:
        return GAME_NAMES[self._v[VIEW.game]]

    @property
    def game_id(self) -> int:
        return self._v[VIEW.game]

    hand_game = property(lambda self: bool(self._field("hand_game")))
    schneider_announced = property(lambda self: bool(self._field("schneider_announced")))
    schwarz_announced = property(lambda self: bool(self._field("schwarz_announced")))
    ouvert = property(lambda self: bool(self._field("ouvert")))
    bid = property(lambda self: self._field("bid"))
    leader = property(lambda self: self._field("leader"))
    tricks_done = property(lambda self: self._field("tricks_done"))

    @property
    def calls(self) -> list[tuple[int, int | str]]:
        return list(_calls(tuple(self._heard)))

    @property
    def said(self) -> tuple[int, int, int]:
        return tuple(int(v) for v in self._heard[AUCTION.said:AUCTION.said + 3])

    @property
    def passes(self) -> tuple[int, ...]:
        return tuple(int(s) for s in self._heard[AUCTION.passes:AUCTION.passes + 3] if s >= 0)

    @property
    def hand(self) -> list[str]:
        return card_names(self._v[VIEW.own_hand])

    @property
    def legal(self) -> list[str]:
        return card_names(self.legal_mask)

    @property
    def trick(self) -> list[str]:
        at = VIEW.trick
        return [CARD_NAMES[c] for c in self._v[at:at + self._v[VIEW.in_trick]]]

    @property
    def played(self) -> list[tuple[int, str]]:
        v = self._v
        count = 3 * v[VIEW.tricks_done] + v[VIEW.in_trick]
        by = v[VIEW.played_by:VIEW.played_by + 3]
        return [(0 if by[0] >> c & 1 else 1 if by[1] >> c & 1 else 2, CARD_NAMES[c])
                for c in v[VIEW.order:VIEW.order + count]]

    @property
    def won_cards(self) -> tuple[list[str], list[str], list[str]]:
        return tuple(card_names(m) for m in self._v[VIEW.won:VIEW.won + 3])

    @property
    def declarer_points(self) -> int:
        return self.points(card_names(self._v[VIEW.won + self.declarer]))

    @property
    def defender_points(self) -> int:
        return sum(self.points(card_names(self._v[VIEW.won + s])) for s in range(3) if s != self.declarer)

    @property
    def voids(self) -> tuple[set[str], set[str], set[str]]:
        return tuple({SUIT_NAMES[s] for s in range(5) if m >> s & 1} for m in self._v[VIEW.voids:VIEW.voids + 3])

    @property
    def ouvert_cards(self) -> list[str]:
        return card_names(self._v[VIEW.ouvert_cards])

    @property
    def discard(self) -> list[str]:
        return card_names(self._v[VIEW.discard])

    @property
    def array(self) -> np.ndarray:
        return np.asarray(self._v[:VIEW.size], dtype=np.int64) if self._array is None else self._array

    @property
    def rng(self) -> np.random.Generator:
        v = self._v
        played = 3 * v[VIEW.tricks_done] + v[VIEW.in_trick]
        return np.random.default_rng([self._seed, self.deal_id, v[VIEW.seat], played])

    # --- the rules' helpers ---------------------------------------------------------------

    def is_trump(self, card: str) -> bool:
        return bool(_TRUMPS[self._v[VIEW.game]] >> CARD_IDS[card] & 1)

    def trumps(self, cards=None) -> list[str]:
        """The trumps of this game among ``cards`` (all 32 cards when None)."""
        trumps = _TRUMPS[self._v[VIEW.game]]
        return card_names(trumps) if cards is None else [c for c in cards if trumps >> CARD_IDS[c] & 1]

    def suit(self, card: str) -> str:
        """The suit ``card`` belongs to in this game: ``"trump"`` or its plain suit (a jack is trump in
        suit and grand games)."""
        return SUIT_NAMES[_EFFECTIVE[self._v[VIEW.game]][CARD_IDS[card]]]

    def of_suit(self, suit: str, cards=None) -> list[str]:
        """The cards of ``suit`` (as :meth:`suit` names it) among ``cards`` (the seat's hand when None)."""
        wanted, effective = SUIT_NAMES.index(suit), _EFFECTIVE[self._v[VIEW.game]]
        return [c for c in (self.hand if cards is None else cards) if effective[CARD_IDS[c]] == wanted]

    def beats(self, card: str, other: str) -> bool:
        """Whether ``card`` played after ``other`` takes the trick from it (``other`` leading or winning so
        far): a higher card of its suit, or a trump over a plain card."""
        return bool(_BEATERS[self._v[VIEW.game]][CARD_IDS[other]] >> CARD_IDS[card] & 1)

    @property
    def winning_card(self) -> str | None:
        """The card that wins the trick on the table so far; None before the lead."""
        v, game = self._v, self._v[VIEW.game]
        if not v[VIEW.in_trick]:
            return None
        best = v[VIEW.trick]
        if v[VIEW.in_trick] == 2 and _BEATERS[game][best] >> v[VIEW.trick + 1] & 1:
            best = v[VIEW.trick + 1]
        return CARD_NAMES[best]

    def wins(self, card: str) -> bool:
        """Whether ``card`` would win the trick on the table so far (any card does when leading)."""
        best = self.winning_card
        return best is None or self.beats(card, best)

    def lowest(self, cards) -> str:
        """The lowest of ``cards`` in this game's order (plain cards below trumps)."""
        ranking = _RANKING[self._v[VIEW.game]]
        return min(cards, key=lambda c: ranking[CARD_IDS[c]])

    def highest(self, cards) -> str:
        """The highest of ``cards`` in this game's order."""
        ranking = _RANKING[self._v[VIEW.game]]
        return max(cards, key=lambda c: ranking[CARD_IDS[c]])

    @staticmethod
    def points(cards) -> int:
        """The card points of a card or of a list of cards."""
        if isinstance(cards, str):
            return _POINTS[CARD_IDS[cards]]
        return sum(_POINTS[CARD_IDS[c]] for c in cards)

    def __repr__(self) -> str:
        return (f"SeatView({self.seat_name}, {self.role} in {self.game}, hand {' '.join(self.hand)}, "
                f"trick {' '.join(self.trick) or '-'}, legal {' '.join(self.legal)})")


@lru_cache(maxsize=4096)
def _calls(heard: tuple) -> tuple:
    """The calls of an auction (:func:`sim.rules.auction.calls_heard`), kept for the next view of it."""
    return tuple(calls_heard(heard))


_BITS = np.uint32(1) << np.arange(32, dtype=np.uint32)
_FIELDS = ("seat", "game", "declarer", "leader", "in_trick", "tricks_done", "hand_game", "schneider_announced",
           "schwarz_announced", "ouvert", "bid")
_SEAT_NAMES, _GAME_NAMES = np.array(SEAT_NAMES), np.array(GAME_NAMES)
_ROLES = np.array(["declarer", "defender"])
_POINTS_ARRAY = CARD_POINTS.astype(np.int64)
_UNRANKED = int(RANKING.max()) + 1


class SeatViews:
    """Many decisions at once, one row each, in numpy arrays named as :class:`SeatView`'s attributes.

    Every field has one row per decision (n of them). Seats are 0 forehand, 1 middlehand, 2 rearhand;
    card ids 0..31 (:data:`CARD_NAMES`); a mask of cards has bit ``c`` set for card id ``c``.

    Who, (n,): ``seat`` and ``declarer`` (int64 0..2), ``seat_name`` (str, ``"forehand"`` ..
    ``"rearhand"``), ``is_declarer`` (bool), ``role`` (str, ``"declarer"`` or ``"defender"``),
    ``partner`` (int64, a defender's fellow defender 0..2, -1 for the declarer).

    The declaration, (n,): ``game`` and ``game_id`` (int64 0..5: 0 diamonds, 1 hearts, 2 spades,
    3 clubs, 4 grand, 5 null; what :class:`SeatView` calls ``game_id``), ``game_name`` (str, the name
    :class:`SeatView` calls ``game``), ``hand_game``, ``schneider_announced``, ``schwarz_announced``,
    ``ouvert`` (int64 0 or 1), ``bid`` (int64, the final bid, 18..264). The auction, (n, 3) int64:
    ``said`` (per seat the highest value it named or held, 18..264, 0 for none) and ``passes`` (the
    seats in the order they passed, -1 past the passes); ``calls`` a list with each decision's
    :attr:`SeatView.calls`.

    The cards, uint32 masks (n,): ``hand``, ``legal`` (also ``legal_mask``), ``played`` (every card
    played so far, the trick on the table included), ``ouvert_cards`` (an ouvert declarer's remaining
    cards, else 0), ``discard`` (the declarer's own discard after a pick-up, else 0). int64 (n,):
    ``leader`` (0..2, who led the trick on the table), ``in_trick`` (0..2, the cards on the table),
    ``tricks_done`` (0..9), ``winning_card`` (the id of the card that wins the trick so far, -1 when
    leading), ``declarer_points`` and ``defender_points`` (0..120, card points taken in tricks so far;
    the declarer's skat counts only at the end), ``deal_id``. ``trick`` int64 (n, 3): the ids of the
    cards on the table in the order played, -1 past ``in_trick``. int64 (n, 3), one column per seat:
    ``won`` (also ``won_cards``: masks of the cards each seat has taken in tricks),
    ``played_by`` (masks of the cards each seat has played) and ``voids`` (masks of the suits each seat
    has shown it lacks, bit ``s`` for ``SUIT_NAMES[s]``: 0 diamonds, 1 hearts, 2 spades, 3 clubs,
    4 trump; :meth:`void_suits` as bools). ``order`` int64 (n, 30): the ids of the cards played so
    far in order (the first ``3 * tricks_done + in_trick`` of a row, the rest 0); with ``played_by``
    it tells what :attr:`SeatView.played` lists. ``array`` int64 (n, ``VIEW.size``): the engine's
    views (:data:`sim.rules.view.VIEW`).

    The helpers' (n, 32) arrays are indexed by card id; :meth:`lowest` and :meth:`highest` give a card
    id per decision.
    """

    def __init__(self, array: np.ndarray, legal: np.ndarray, *, deal_id=None, heard=None, seed: int = 0):
        """``array``: the engine's views, each followed by its deal's :data:`sim.rules.auction.AUCTION` row
        unless ``heard`` gives those rows (neither: games without an auction)."""
        if array.shape[1] > VIEW.size:
            array, heard = array[:, :VIEW.size], array[:, VIEW.size:]
        self.array, self.legal = array, np.asarray(legal, dtype=np.uint32)
        self.deal_id = np.zeros(len(array), np.int64) if deal_id is None else np.asarray(deal_id, np.int64)
        self._heard = heard
        self._seed = int(seed)
        for name in _FIELDS:
            setattr(self, name, array[:, getattr(VIEW, name)])
        for name in ("own_hand", "played", "ouvert_cards", "discard"):
            setattr(self, "hand" if name == "own_hand" else name, array[:, getattr(VIEW, name)].astype(np.uint32))
        for name, width in (("trick", 3), ("won", 3), ("played_by", 3), ("voids", 3), ("order", 30)):
            at = getattr(VIEW, name)
            setattr(self, name, array[:, at:at + width])

    def __len__(self) -> int:
        return len(self.array)

    # The fields below are worked out only when read, so that a player pays for those it reads alone.
    game_id = property(lambda self: self.game)
    legal_mask = property(lambda self: self.legal)
    won_cards = property(lambda self: self.won)

    @cached_property
    def seat_name(self) -> np.ndarray:
        return _SEAT_NAMES[self.seat]

    @cached_property
    def game_name(self) -> np.ndarray:
        return _GAME_NAMES[self.game]

    @cached_property
    def is_declarer(self) -> np.ndarray:
        return self.seat == self.declarer

    @cached_property
    def role(self) -> np.ndarray:
        return _ROLES[(~self.is_declarer).astype(np.int64)]

    @cached_property
    def partner(self) -> np.ndarray:
        return np.where(self.is_declarer, -1, 3 - self.seat - self.declarer)

    @cached_property
    def winning_card(self) -> np.ndarray:
        first, second = np.maximum(self.trick[:, 0], 0), np.maximum(self.trick[:, 1], 0)
        second_wins = (self.in_trick == 2) & ((BEATERS[self.game, first] >> second) & 1).astype(bool)
        return np.where(self.in_trick == 0, -1, np.where(second_wins, second, first))

    @cached_property
    def declarer_points(self) -> np.ndarray:
        return self.points(self.won[np.arange(len(self.array)), self.declarer])

    @property
    def defender_points(self) -> np.ndarray:
        return self.points(self.won).sum(axis=1) - self.declarer_points

    @property
    def said(self) -> np.ndarray:
        return self._auctions()[:, AUCTION.said:AUCTION.said + 3]

    @property
    def passes(self) -> np.ndarray:
        return self._auctions()[:, AUCTION.passes:AUCTION.passes + 3]

    @property
    def calls(self) -> list[list[tuple[int, int | str]]]:
        return [list(_calls(tuple(row))) for row in self._auctions().tolist()]

    def _auctions(self) -> np.ndarray:
        if self._heard is None:
            self._heard = np.tile(_NO_AUCTION, (len(self.array), 1))
        return np.asarray(self._heard, np.int64)

    @staticmethod
    def cards(masks) -> np.ndarray:
        """bool (..., 32): the cards of each mask (an array of masks of any shape)."""
        return (np.asarray(masks, np.uint32)[..., None] & _BITS) != 0

    @staticmethod
    def points(masks) -> np.ndarray:
        """int64, the shape of ``masks``: the card points of each mask's cards (0..120)."""
        return SeatViews.cards(masks) @ _POINTS_ARRAY

    def legal_cards(self) -> np.ndarray:
        """bool (n, 32): the legal cards of each decision."""
        return self.cards(self.legal)

    def trump_cards(self) -> np.ndarray:
        """bool (n, 32): the trumps of each decision's game."""
        return self.cards(TRUMP_MASKS[self.game])

    def void_suits(self) -> np.ndarray:
        """bool (n, 3, 5): ``[i, seat, s]`` whether the seat has shown it lacks suit ``SUIT_NAMES[s]``."""
        return (self.voids[..., None] >> np.arange(5)) & 1 != 0

    def ranking(self) -> np.ndarray:
        """int64 (n, 32): :data:`RANKING` of each decision's game, 0..895 and no two cards alike (lower is
        lower in the game's order; a plain card 0..511, a trump 512..895)."""
        return RANKING[self.game]

    def lowest(self, cards) -> np.ndarray:
        """int64 (n,): the id of the lowest card of each row of ``cards`` (bool (n, 32)) in the game's order,
        as :meth:`SeatView.lowest`; -1 for a row without a card."""
        cards = np.asarray(cards, bool)
        chosen = np.where(cards, self.ranking(), _UNRANKED).argmin(axis=1)
        return np.where(cards.any(axis=1), chosen, -1)

    def highest(self, cards) -> np.ndarray:
        """int64 (n,): the id of the highest card of each row of ``cards`` (bool (n, 32)); -1 for a row
        without a card."""
        cards = np.asarray(cards, bool)
        chosen = np.where(cards, self.ranking(), -1).argmax(axis=1)
        return np.where(cards.any(axis=1), chosen, -1)

    def winning_cards(self) -> np.ndarray:
        """bool (n, 32): the cards that would win the trick on the table so far (all when leading)."""
        best = self.winning_card
        return np.where((best < 0)[:, None], True, self.cards(BEATERS[self.game, np.maximum(best, 0)]))

    def uniform(self) -> np.ndarray:
        """float64 (n,): a number in [0, 1) per decision from the deal's own stream (the same in any batch)."""
        played = 3 * self.tricks_done + self.in_trick
        key = _mix(np.uint64(self._seed) ^ _mix(self.deal_id.astype(np.uint64) * _GOLDEN))
        key = _mix(key + (self.seat * 32 + played).astype(np.uint64) * _GOLDEN)
        return (key >> np.uint64(11)).astype(np.float64) / 2.0**53

    def __repr__(self) -> str:
        n = len(self.array)
        return f"SeatViews({n} decision{'' if n == 1 else 's'})"


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser over an array (as :func:`sim.rules.rng.mix64`)."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


__all__ = ["CARD_IDS", "CARD_NAMES", "RANKING", "SUIT_NAMES", "SeatView", "SeatViews", "card_id", "card_names"]
