"""Matadors, game value, won or lost, overbid, and the classic and Seeger-Fabian scores.

The kernels take plain numbers so that every player, the replay checker and the
bulk runner score a game with the same code. :func:`result_row` turns a finished game
into the result columns of a run (:data:`RESULT_COLUMNS`), for the table that plays deals
in bulk and for the importers alike; :func:`seeger_fabian_seats` gives the three seats'
Seeger-Fabian scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from .games import BASE_VALUES, GRAND, NULL, NULL_VALUES, Declaration

#: Trumps of each suit game and grand from the highest down:
#: CJ SJ HJ DJ, then A 10 K Q 9 8 7 of the trump suit (grand uses the first four).
TRUMP_SEQUENCE = np.array(
    [[31, 23, 15, 7] + [g * 8 + r for r in (6, 5, 4, 3, 2, 1, 0)] for g in range(4)]
    + [[31, 23, 15, 7] + [-1] * 7],
    dtype=np.int64,
)

#: Seeger-Fabian: bonus for a won game, penalty for a lost one, and what each
#: defender gets when the declarer loses at a three-player table.
SF_WON_BONUS = 50
SF_LOST_PENALTY = 50
SF_DEFENDER_BONUS = 40

#: The result columns of a finished game, in the order :func:`result_row` writes them.
RESULT_COLUMNS = ("matadors", "declarer_points", "declarer_tricks", "won", "overbid", "schneider",
                  "schwarz", "game_value", "score", "sf_f", "sf_m", "sf_r", "value_reached", "won_in_play")
#: Where each column stands in the row (``RESULT_SF``: forehand's score, then middlehand's and rearhand's).
(RESULT_MATADORS, RESULT_POINTS, RESULT_TRICKS, RESULT_WON, RESULT_OVERBID, RESULT_SCHNEIDER, RESULT_SCHWARZ,
 RESULT_VALUE, RESULT_SCORE, RESULT_SF) = range(10)
RESULT_REACHED, RESULT_WON_IN_PLAY = 12, 13
#: The result columns that are true or false (the others are whole numbers).
RESULT_FLAGS = ("won", "overbid", "schneider", "schwarz", "won_in_play")


@njit(cache=True)
def matadors(game, twelve_cards):
    """Signed matadors over the declarer's twelve cards: +N "with N", -N "without N", 0 in null."""
    if game == NULL:
        return 0
    cards = np.uint32(twelve_cards)
    length = 11 if game < GRAND else 4
    with_top = (cards >> np.uint32(31)) & np.uint32(1)
    run = 0
    for k in range(length):
        held = (cards >> np.uint32(TRUMP_SEQUENCE[game, k])) & np.uint32(1)
        if held != with_top:
            break
        run += 1
    return run if with_top else -run


@njit(cache=True)
def play_outcome(game, hand, schneider_announced, schwarz_announced, ouvert, matadors_,
                 declarer_points, declarer_tricks):
    """(value reached, won by the cards, schneider, schwarz) of a finished game, before the bid counts.

    The declaration must be normalized (ouvert implies hand and schwarz announced in
    suit and grand; schwarz announced implies schneider announced). ``schneider``
    and ``schwarz`` say whether either party ended schneider or schwarz (always
    False in null).
    """
    if game == NULL:
        return NULL_VALUES[int(hand) + 2 * int(ouvert)], declarer_tricks == 0, False, False
    schneider = declarer_points >= 90 or declarer_points <= 30
    schwarz = declarer_tricks == 10 or declarer_tricks == 0
    level = (abs(matadors_) + 1 + int(hand) + int(schneider or schneider_announced)
             + int(schneider_announced) + int(schwarz or schwarz_announced)
             + int(schwarz_announced) + int(ouvert))
    if schwarz_announced:
        won = declarer_tricks == 10
    elif schneider_announced:
        won = declarer_points >= 90
    else:
        won = declarer_points >= 61
    return BASE_VALUES[game] * level, won, schneider, schwarz


@njit(cache=True)
def outcome_at_bid(game, value_reached, won_in_play, bid):
    """(won, game value, overbid) of a game that reached ``value_reached`` when the bid was ``bid``.

    Overbid: a value below the bid loses, at the smallest multiple of the base value
    that reaches the bid. A null worth less than the bid cannot be declared at all
    (Declaration.check), so a null's outcome does not depend on the bid here.
    """
    if value_reached >= bid or game == NULL:
        return won_in_play, value_reached, False
    base = BASE_VALUES[game]
    return False, base * ((bid + base - 1) // base), True


@njit(cache=True)
def game_outcome(game, hand, schneider_announced, schwarz_announced, ouvert, bid, matadors_,
                 declarer_points, declarer_tricks):
    """(won, game value, overbid, schneider, schwarz) of a finished game: play_outcome, then the bid."""
    value, won, schneider, schwarz = play_outcome(game, hand, schneider_announced, schwarz_announced,
                                                  ouvert, matadors_, declarer_points, declarer_tricks)
    won, value, overbid = outcome_at_bid(game, value, won, bid)
    return won, value, overbid, schneider, schwarz


@njit(cache=True, inline="always")
def classic_score(won, value):
    return value if won else -2 * value


@njit(cache=True, inline="always")
def seeger_fabian_declarer(won, value):
    return value + SF_WON_BONUS if won else -2 * value - SF_LOST_PENALTY


@njit(cache=True, inline="always")
def seeger_fabian_defender(won):
    return 0 if won else SF_DEFENDER_BONUS


@njit(cache=True)
def seeger_fabian_seats(declarer, won, value):
    """(forehand, middlehand, rearhand) Seeger-Fabian scores of a game ``declarer`` won or lost at ``value``."""
    mine, theirs = seeger_fabian_declarer(won, value), seeger_fabian_defender(won)
    return (mine if declarer == 0 else theirs, mine if declarer == 1 else theirs, mine if declarer == 2 else theirs)


@njit(cache=True)
def result_row(game, hand, schneider_announced, schwarz_announced, ouvert, bid, declarer, twelve_cards,
               declarer_points, declarer_tricks, out):
    """Write the result of a finished game into ``out`` (:data:`RESULT_COLUMNS`, an int64 array).

    The declaration must be normalized; ``twelve_cards`` are the declarer's ten cards and the
    skat (for the matadors), the points and tricks those the declarer took (the skat's points
    included). Callable from Python with a small numpy array for ``out``.
    """
    mat = matadors(game, twelve_cards)
    reached, won_in_play, schneider, schwarz = play_outcome(game, hand, schneider_announced, schwarz_announced,
                                                            ouvert, mat, declarer_points, declarer_tricks)
    won, value, overbid = outcome_at_bid(game, reached, won_in_play, bid)
    out[RESULT_MATADORS], out[RESULT_POINTS], out[RESULT_TRICKS] = mat, declarer_points, declarer_tricks
    out[RESULT_WON], out[RESULT_OVERBID], out[RESULT_SCHNEIDER], out[RESULT_SCHWARZ] = won, overbid, schneider, schwarz
    out[RESULT_VALUE], out[RESULT_SCORE] = value, classic_score(won, value)
    out[RESULT_SF], out[RESULT_SF + 1], out[RESULT_SF + 2] = seeger_fabian_seats(declarer, won, value)
    out[RESULT_REACHED], out[RESULT_WON_IN_PLAY] = reached, won_in_play


@dataclass(frozen=True)
class GameResult:
    declarer: int
    declaration: Declaration
    bid: int
    matadors: int
    declarer_points: int
    declarer_tricks: int
    won: bool
    game_value: int
    overbid: bool
    schneider: bool
    schwarz: bool

    @property
    def score(self) -> int:
        """Classic list score of the declarer: +value won, -2 x value lost."""
        return int(classic_score(self.won, self.game_value))

    @property
    def seeger_fabian(self) -> tuple[int, int, int]:
        """Seeger-Fabian score of forehand, middlehand and rearhand."""
        return tuple(int(s) for s in seeger_fabian_seats(self.declarer, self.won, self.game_value))


def score_game(declarer: int, declaration: Declaration, bid: int, twelve_cards: int,
               declarer_points: int, declarer_tricks: int) -> GameResult:
    """Score a finished game; ``declaration`` must be legal for ``bid`` (see Declaration.check)."""
    d = declaration.normalized()
    mat = int(matadors(d.game, twelve_cards))
    won, value, overbid, schneider, schwarz = game_outcome(
        d.game, d.hand, d.schneider, d.schwarz, d.ouvert, bid, mat, declarer_points, declarer_tricks
    )
    return GameResult(declarer, d, bid, mat, declarer_points, declarer_tricks, bool(won), int(value),
                      bool(overbid), bool(schneider), bool(schwarz))


@njit(cache=True)
def _matadors_into(game, cards, out):
    for k in range(cards.shape[0]):
        out[k] = matadors(game, cards[k])


def matadors_of(game: int, cards: np.ndarray) -> np.ndarray:
    """Signed matadors of many card sets (uint32 masks) for one game type."""
    out = np.empty(cards.shape[0], dtype=np.int64)
    _matadors_into(game, np.ascontiguousarray(cards, dtype=np.uint32), out)
    return out


def seeger_fabian_at_bid(game: int, value_reached, won_in_play, bid) -> np.ndarray:
    """The declarer's Seeger-Fabian score had a game of this type been declared at ``bid`` (int64).

    Arrays broadcast together; the overbid rule is :func:`outcome_at_bid`, written here with numpy
    so that a caller (analysis) need not load numba's kernels for it.
    """
    value, won, bid = np.broadcast_arrays(np.asarray(value_reached, dtype=np.int64),
                                          np.asarray(won_in_play, dtype=np.bool_), np.asarray(bid, dtype=np.int64))
    if game != NULL:
        base = int(BASE_VALUES[game])
        overbid = value < bid
        won = won & ~overbid
        value = np.where(overbid, base * ((bid + base - 1) // base), value)
    return np.where(won, value + SF_WON_BONUS, -2 * value - SF_LOST_PENALTY).astype(np.int64)
