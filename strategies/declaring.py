"""Declaring: the game, its announcements and the discard, once the auction is won.

Hand or pick-up is the bidder's plan. In a hand game the built-in ``best_margin``
declarer plays the game bid for, announcing schneider when its margin reaches
``schneider_margin`` and playing a suit or grand game ouvert when it reaches
``ouvert_margin``. After picking up the skat it
tries every game type: discards for it and scores the ten cards it would keep.
It plays the game it bid for, or switches to a more valuable game whose score
now clears its threshold by ``switch_margin`` (the skat brought a jack, an ace
or a void); kept ten of twelve cards score higher than ten dealt ones, so a
plain pass of the threshold is not enough to switch. Of those games it declares
the most valuable that reaches the bid (ties: the larger margin), else the game
with the largest margin that reaches it. Null ouvert is declared when the null
margin reaches the bidder's ouvert margin. When no game reaches the bid it
declares the suit or grand game it bid for, or the one with the largest margin,
and loses it as overbid unless schneider or schwarz lift its value. (Scores of
different game types are on different scales, so margins are compared across
games only as a last resort.)

In declare mode the game is given: a hand game is announced as above, and after a
pick-up the declarer discards for that game (null ouvert when the kept cards clear
the bidder's ouvert margin).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.rules.games import BASE_VALUES, GRAND, NULL, NULL_VALUES
from sim.rules.scoring import matadors_of

from .bidding import choose_game
from .parameters import Parameter
from .registry import register
from .roles import Declarations, DeclarerTask, declare_hand_and_pickup


@dataclass(frozen=True)
class MarginDeclarer:
    """A :class:`strategies.roles.Declarer` that compares the bidder's margins."""

    schneider_margin: float
    ouvert_margin: float
    switch_margin: float

    def declare(self, task: DeclarerTask) -> Declarations:
        return declare_hand_and_pickup(task, self.hand_games, self.after_pickup)

    def hand_games(self, task: DeclarerTask, rows: np.ndarray) -> Declarations:
        """The game bid for (or the given game), announced by the margins; a planned null the bid
        outgrew becomes the suit or grand game with the largest margin."""
        plan = task.plan
        margins = plan.assessment.margins[rows]
        if task.games is None:
            game = plan.game[rows]
            null_value = NULL_VALUES[1 + 2 * plan.ouvert[rows].astype(np.int64)]
            game = np.where((game == NULL) & (null_value < task.bids[rows]), _overbid_game(game, margins), game)
            null_ouvert = plan.ouvert[rows]
        else:
            game = task.games[rows]
            null_ouvert = plan.assessment.null_ouvert[rows]
        out = Declarations.empty(len(rows))
        self.announce(game, margins[np.arange(len(rows)), game], null_ouvert, out)
        out.hand[:] = True
        return out

    def announce(self, game: np.ndarray, margin: np.ndarray, null_ouvert: np.ndarray,
                 out: Declarations) -> None:
        """Game, ouvert and announcements of hand games: suit or grand ouvert (which announces
        schwarz) from ``ouvert_margin``, schneider from ``schneider_margin``; null ouvert as planned."""
        suit_or_grand = game != NULL
        ouvert = np.where(suit_or_grand, margin >= self.ouvert_margin, null_ouvert)
        schwarz = suit_or_grand & ouvert
        out.game[:], out.ouvert[:], out.schwarz[:] = game, ouvert, schwarz
        out.schneider[:] = suit_or_grand & (schwarz | (margin >= self.schneider_margin))

    def after_pickup(self, task: DeclarerTask, rows: np.ndarray) -> Declarations:
        """Discard and declare with the twelve cards of ``rows``."""
        if task.games is None:
            return self.choose_after_pickup(task, rows)
        return self.given_after_pickup(task, rows)

    def choose_after_pickup(self, task: DeclarerTask, rows: np.ndarray) -> Declarations:
        """Try every game: its discard and the margin of the ten cards kept; play the game bid
        for or a more valuable one that is now clearly playable (see the module doc)."""
        n, twelve, seats = len(rows), task.cards[rows], np.full(len(rows), task.seat)
        discards = np.empty((n, 6), dtype=np.uint32)
        margins = np.empty((n, 6))
        judged = {}
        for game in range(NULL + 1):
            discards[:, game] = task.discarder.discard(twelve, game)
            judged[game] = task.bidder.assess(twelve & ~discards[:, game], seats)
            margins[:, game] = judged[game].margins[:, game]
        values = np.empty((n, 6), dtype=np.int64)
        for game in range(GRAND + 1):
            values[:, game] = BASE_VALUES[game] * (np.abs(matadors_of(game, twelve)) + 1)
        null_ouvert = judged[NULL].null_ouvert
        values[:, NULL] = np.where(null_ouvert, NULL_VALUES[2], NULL_VALUES[0])
        intended, bids = task.plan.game[rows], task.bids[rows]
        playable = ((np.arange(6) == intended[:, None]) | (task.plan.assessment.playable[rows] & (margins >= 0))
                    | (margins >= self.switch_margin))
        chosen = choose_game(values, margins, playable & (values >= bids[:, None]))
        best = np.where(chosen >= 0, chosen, _overbid_game(intended, margins))
        return _picked_up(best, (best == NULL) & null_ouvert, discards[np.arange(n), best])

    def given_after_pickup(self, task: DeclarerTask, rows: np.ndarray) -> Declarations:
        """Declare the given games: the discard for each, null ouvert when the cards kept allow."""
        game, twelve = task.games[rows], task.cards[rows]
        discards = np.zeros(len(rows), dtype=np.uint32)
        ouvert = np.zeros(len(rows), dtype=bool)
        for g in np.unique(game):
            these = np.flatnonzero(game == g)
            discards[these] = task.discarder.discard(twelve[these], int(g))
            if g == NULL:
                kept = twelve[these] & ~discards[these]
                ouvert[these] = task.bidder.assess(kept, np.full(len(these), task.seat)).null_ouvert
        return _picked_up(game, ouvert, discards)


def _picked_up(game: np.ndarray, ouvert: np.ndarray, discards: np.ndarray) -> Declarations:
    out = Declarations.empty(len(game))
    out.game[:], out.ouvert[:], out.aside[:], out.discarded[:] = game, ouvert, discards, True
    return out


#: The best-margin declarer's parameters: margins past a game's threshold.
BEST_MARGIN_PARAMETERS = (
    Parameter("schneider_margin", "number", 8.0, "a hand game announces schneider from this margin", (-50, 50)),
    Parameter("ouvert_margin", "number", 12.0, "a hand suit or grand game is played ouvert from this margin",
              (-50, 50)),
    Parameter("switch_margin", "number", 2.0, "after a pick-up, another game than the one bid for is played from "
              "this margin", (-50, 50)),
)


@register("declarer", "best_margin", parameters=BEST_MARGIN_PARAMETERS)
def best_margin(schneider_margin, ouvert_margin, switch_margin) -> MarginDeclarer:
    """Play the game bid for, or a more valuable one the skat made clearly playable."""
    return MarginDeclarer(float(schneider_margin), float(ouvert_margin), float(switch_margin))


def _overbid_game(intended: np.ndarray, margins: np.ndarray) -> np.ndarray:
    """The game declared when no playable game reaches the bid: the suit or grand game bid
    for, or (a null may not be declared below the bid) the suit or grand with the largest margin."""
    suit_or_grand = (intended >= 0) & (intended != NULL)
    return np.where(suit_or_grand, intended, np.argmax(margins[:, :NULL], axis=1))
