"""Game types, declarations and the rules that make a declaration legal.

Game type ids: diamonds 0, hearts 1, spades 2, clubs 3 (the trump suit's id),
grand 4, null 5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cards import shown

DIAMONDS_GAME, HEARTS_GAME, SPADES_GAME, CLUBS_GAME, GRAND, NULL = 0, 1, 2, 3, 4, 5
GAME_NAMES = ("diamonds", "hearts", "spades", "clubs", "grand", "null")

#: Base value of each game type (null has values by variant instead).
BASE_VALUES = np.array([9, 10, 11, 12, 24, 0], dtype=np.int64)

#: Null values by variant, indexed by hand + 2 * ouvert: null, null hand, null ouvert, null ouvert hand.
NULL_VALUES = np.array([23, 35, 46, 59], dtype=np.int64)


class IllegalDeclaration(ValueError):
    """A declaration the Skat Order does not allow."""


def game_id(name: str | int) -> int:
    """Game type id from its name (``clubs``, ``grand``, ``null`` ...) or id."""
    if isinstance(name, int) and not isinstance(name, bool) and 0 <= name < 6:
        return name
    if isinstance(name, str) and name.strip().lower() in GAME_NAMES:
        return GAME_NAMES.index(name.strip().lower())
    raise IllegalDeclaration(f"unknown game {shown(name)} (one of {', '.join(GAME_NAMES)})")


@dataclass(frozen=True)
class Declaration:
    """What the declarer announces.

    For suit and grand games ``ouvert`` implies hand and schwarz announced, and
    schwarz announced implies schneider announced; :meth:`normalized` fills in what
    is implied (scoring normalizes, so an ouvert game always counts its hand level),
    :meth:`check` rejects what is not allowed, such as a suit game ouvert after
    picking up the skat.
    """

    game: int
    hand: bool = False
    schneider: bool = False
    schwarz: bool = False
    ouvert: bool = False

    @property
    def is_null(self) -> bool:
        return self.game == NULL

    def normalized(self) -> "Declaration":
        if self.is_null:
            return self
        schwarz = self.schwarz or self.ouvert
        return Declaration(self.game, self.hand or self.ouvert, self.schneider or schwarz, schwarz,
                           self.ouvert)

    def check(self, bid: int) -> "Declaration":
        """The normalized declaration, or :class:`IllegalDeclaration` naming the broken rule."""
        d = self.normalized()
        if d.is_null:
            if self.schneider or self.schwarz:
                raise IllegalDeclaration("schneider or schwarz cannot be announced in a null game")
            if null_value(d.hand, d.ouvert) < bid:
                raise IllegalDeclaration(
                    f"{d.name} is worth {null_value(d.hand, d.ouvert)}, less than the bid {bid}"
                )
            return d
        if self.ouvert and not self.hand:
            raise IllegalDeclaration("a suit or grand game can only be played ouvert as a hand game"
                                     " (not after picking up the skat)")
        if (d.schneider or d.schwarz) and not d.hand:
            raise IllegalDeclaration("schneider and schwarz can only be announced in a hand game")
        return d

    @property
    def name(self) -> str:
        words = [GAME_NAMES[self.game]]
        if self.ouvert:
            words.append("ouvert")
        if self.hand:
            words.append("hand")
        if not self.is_null and self.schwarz and not self.ouvert:
            words.append("schwarz announced")
        elif not self.is_null and self.schneider and not self.ouvert:
            words.append("schneider announced")
        return " ".join(words)


def null_value(hand: bool, ouvert: bool) -> int:
    return int(NULL_VALUES[int(hand) + 2 * int(ouvert)])
