"""Hand evaluators: a batch of hands at bidding time -> one score per game type.

An evaluator looks at a player's ten cards (the skat still unknown) and the seat
that holds them, and scores every game type the player could declare::

    scores = evaluator(hands, seats)      # hands uint32 (n,), seats 0/1/2 (n,)
    scores.shape == (n, 6)                # diamonds hearts spades clubs grand null

Higher means better.  A column an evaluator does not assess is ``-inf``.  Each
evaluator carries ``thresholds``, six numbers such that ``score >= threshold``
reads "a sensible club player would play this game from this seat, expecting an
average skat"; the threshold of a column not assessed is +inf, so that nothing
passes it.  The columns are on their own scales: compare a score with its own
column's threshold, never with another column (the four suit columns of one
evaluator share a scale).  Among the games that pass, the ``threshold`` bidder
takes the suit with the largest margin, then the most valuable of that suit,
grand and null.

Every evaluator is plain numpy over the whole batch.  A hand is split into its
four suit bytes (``hands.view(uint8)``: byte ``s`` holds the cards of suit ``s``,
bit ``rank``; bit 7 is the suit's jack) and every per-suit feature is one lookup
in a 256-entry table, so the cost per hand is a few table reads and sums.

Use :func:`evaluator` to get one by name with parameters bound, or call the
functions directly.  Write a new one as a numpy function of ``(hands, seats)``
registered with ``@register("evaluator", name, logged=True)`` (``logged``: every run
logs its scores, so analysis compares it with the others); see docs/evaluators.md.
The five evaluators below are logged; ``default`` only combines their columns.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from sim.rules.cards import ACE, JACK, TEN
from sim.rules.games import GAME_NAMES, GRAND, NULL
from sim.rules.tricks import NULL_ORDER  # null order of the rank index: A K Q J 10 9 8 7

from .registry import BoundEvaluator, build, register

GAMES = 6
SUIT_GAMES = slice(0, 4)
FOREHAND = 0


_KING = 4
_PLAIN = 0x7F  # the seven non-jack cards of a suit byte


# --- per suit-byte tables ----------------------------------------------------------------
# Index: one suit byte (bit r = the card of rank index r, bit 7 = that suit's jack).


def _bit(byte: int, rank: int) -> int:
    return byte >> rank & 1


def _table(feature: Callable[[int], float]) -> np.ndarray:
    return np.array([feature(b) for b in range(256)], dtype=np.float64)


def _length(b: int) -> int:
    """Cards of the suit in suit and grand games (the jack is a trump, not of its suit)."""
    return bin(b & _PLAIN).count("1")


def _ten_with_ace(b: int) -> int:
    return _bit(b, TEN) & _bit(b, ACE)


def _top_losers(b: int) -> int:
    """Losing-trick count of a plain suit: of the first min(length, 3) rounds, those
    in which the declarer lacks the card that wins it (A, then 10, then K)."""
    rounds = min(_length(b), 3)
    return sum(1 - _bit(b, rank) for rank in (ACE, TEN, _KING)[:rounds])


def _side_value(b: int) -> float:
    """trump_length's value of a side suit: aces, tens covered by their ace, a void,
    minus the suit's losing tricks."""
    return _bit(b, ACE) + _ten_with_ace(b) + (_length(b) == 0) - _top_losers(b)


def _grand_side_value(b: int) -> float:
    """grand_rule's value of one suit in grand."""
    ace, ten, n = _bit(b, ACE), _bit(b, TEN), _length(b)
    value = ace + ace * ten
    if ace and ten:
        value += 0.5 * _bit(b, _KING) + 0.5 * max(n - 3, 0)  # the suit runs once trumps are out
    if n and not ace:
        value -= 0.5  # the defenders cash their ace here
        if ten and n <= 2:
            value -= 0.5  # and likely catch the bare ten with it
    return value


def _null_positions(b: int) -> list[int]:
    """Null positions (0 = seven .. 7 = ace) of the cards of a suit byte, lowest first."""
    return sorted(int(NULL_ORDER[r]) for r in range(8) if _bit(b, r))


def _null_danger(b: int) -> float:
    """null_rule's danger of one suit (jack included: in null it belongs to its suit).

    The suit is safe when the declarer's i-th lowest card (from 0) sits at null
    position 2i or lower: then at most i of the cards below it are out against
    the declarer, and each of them that is led can be ducked with one of the
    declarer's own lower cards.  A card above that line by ``e`` positions adds 1/4 for
    e = 1 (lost only on a bad split), 1/2 for e = 2, and 1 for e >= 3 (lost
    whenever the suit is led: a singleton ten, or the ace in a short suit).
    """
    danger = 0.0
    for i, position in enumerate(_null_positions(b)):
        excess = position - 2 * i
        danger += 0.0 if excess <= 0 else 0.25 if excess == 1 else 0.5 if excess == 2 else 1.0
    return danger


JACK_BIT = _table(lambda b: _bit(b, JACK))
ACE_BIT = _table(lambda b: _bit(b, ACE))
TEN_WITH_ACE = _table(_ten_with_ace)
LENGTH = _table(_length)
VOID = _table(lambda b: _length(b) == 0)
SEVEN_BIT = _table(lambda b: _bit(b, 0))
NULL_VOID = _table(lambda b: b == 0)
SIDE_VALUE = _table(_side_value)
GRAND_SIDE_VALUE = _table(_grand_side_value)
NULL_DANGER = _table(_null_danger)


# --- shared plumbing ---------------------------------------------------------------------


def suit_bytes(hands) -> np.ndarray:
    """(n, 4) uint8: byte s of each hand is its suit s (diamonds, hearts, spades, clubs)."""
    hands = np.ascontiguousarray(hands, dtype="<u4").reshape(-1)
    return hands.view(np.uint8).reshape(-1, 4)


def suit_rows(hands) -> np.ndarray:
    """(4, n) uint8: row s holds suit s of every hand (:func:`suit_bytes` transposed).

    The built-in evaluators compute suit by suit on these rows: numpy's loops then run
    along the n hands rather than along four suits, several times faster.
    """
    return np.ascontiguousarray(suit_bytes(hands).T)


def suit_total(table: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """A suit-byte feature looked up in ``table`` and summed over the four suit rows, suit by suit."""
    return table.take(rows[0]) + table.take(rows[1]) + table.take(rows[2]) + table.take(rows[3])


def row_total(x: np.ndarray) -> np.ndarray:
    """The sum of the four suit rows of a (4, n) array, suit by suit."""
    return x[0] + x[1] + x[2] + x[3]


def _forehand(seats, n: int) -> np.ndarray:
    seats = np.broadcast_to(np.asarray(seats), (n,))
    return seats == FOREHAND


def _unassessed(n: int) -> np.ndarray:
    return np.full((n, GAMES), -np.inf)


def _thresholds(*values: float):
    """Decorator: attach the six default thresholds (diamonds .. null) to an evaluator."""
    def attach(func):
        func.thresholds = np.array(values, dtype=np.float64)
        func.thresholds.setflags(write=False)
        return func
    return attach


# --- the evaluators ----------------------------------------------------------------------

_NO = np.inf  # the threshold of a column not assessed: no score reaches it


@register("evaluator", "classic", logged=True)
@_thresholds(4, 4, 4, 4, 5, _NO)
def classic(hands, seats):
    """Count of jacks and aces, the classic rule of thumb for suit games and grand.

    Source: the jacks-and-aces count of Skat strategy notes (D. Parlett, The Penguin
    Book of Card Games, Skat: "at least five trumps"; the Skat strategy notes on
    pokerwiner.com/games-of-playing-cards/skat-3.html: "the important cards are
    Jacks and Aces ... three cards which are Jacks or Aces" for a suit game, and for
    grand "normally five of them, or perhaps four if you are Forehand").

    Rule, with J jacks, A aces (all four suits) and T trumps (J plus the suit's cards):

    - suit game: ``J + A + T - 5`` when T >= 5, else ``T - 5`` (short of the threshold).
      Threshold 4: six trumps with three jacks or aces (the notes' "three Jacks or
      Aces" with a long suit), five trumps with four, seven with two.
    - grand: ``J + A + [forehand] - max(0, 2 - J)``.  Threshold 5: five jacks and
      aces, four in forehand; a grand with fewer than two jacks needs one more card
      per jack missing.
    - null: not assessed (-inf).
    """
    b = suit_rows(hands)
    n = b.shape[1]
    jacks = suit_total(JACK_BIT, b)
    aces = suit_total(ACE_BIT, b)
    trumps = jacks + LENGTH.take(b)
    out = _unassessed(n)
    out[:, SUIT_GAMES] = np.where(trumps >= 5, (jacks + aces) + trumps - 5, trumps - 5).T
    out[:, GRAND] = jacks + aces + _forehand(seats, n) - np.maximum(0, 2 - jacks)
    return out


@register("evaluator", "trump_length", logged=True, ranges={"top_trump": (-10, 10), "short_trumps": (-10, 10)})
@_thresholds(5, 5, 5, 5, _NO, _NO)
def trump_length(hands, seats, top_trump=0.5, short_trumps=3.0):
    """Trump length and top trumps plus side-suit winners minus losers, for the suit games.

    Source: D. Parlett, The Penguin Book of Card Games, Skat ("for a safe suit bid
    you normally need at least five trumps including Ace or Ten, at least two side
    suits which are void or headed by an Ace, and not more than five losers"),
    with the losers of a side suit counted as in the losing-trick count of bridge,
    the top cards of a Skat suit being A, 10, K.

    Rule for the suit game in suit s, with T trumps (the jacks plus the cards of s)
    and H top trumps (the jacks, the ace of s, the ten of s beside its ace)::

        score = T + top_trump * H - short_trumps * max(0, 5 - T)
                + sum over the three side suits of
                  (ace) + (ten with its ace) + (void) - (losers)

    where the losers of a side suit are, of its first min(length, 3) rounds, those
    whose winning card (A, then 10, then K) the player lacks: a singleton ace 0,
    a singleton ten 1, A-x 1, 10-x or x-x 2, A-10-K-x 0.  Defaults top_trump 0.5,
    short_trumps 3: each trump short of Parlett's five costs three more, so a game
    with four trumps needs exceptional side strength and a four-card suit does not
    outscore a five-card one on the voids and losers of its side suits.  The seat
    is not used.

    Threshold 5 for every suit.  Parlett's examples: J J AK9 AT8 Q9, "a hand game",
    scores 6.5 in its suit; J J AK9 K AT8 Q, which "needs the skat to ditch the
    two dangerous singletons", scores 5.5; SJ DJ HA HK H9 H8 SA C9 C8 D7 (an 18
    in hearts) scores 5.5; DJ HK HQ H9 H8 SK S9 C8 C7 D10 scores 0.5.
    Grand and null: not assessed (-inf).
    """
    b = suit_rows(hands)
    jacks = suit_total(JACK_BIT, b)
    side = SIDE_VALUE.take(b)
    out = _unassessed(b.shape[1])
    trumps = jacks + LENGTH.take(b)
    out[:, SUIT_GAMES] = ((top_trump * jacks + row_total(side)) + trumps
                          + top_trump * (ACE_BIT.take(b) + TEN_WITH_ACE.take(b)) - side
                          - short_trumps * np.maximum(0, 5 - trumps)).T
    return out


@register("evaluator", "grand_rule", logged=True, ranges={"forehand_bonus": (-10, 10), "missing_jack": (-10, 10)})
@_thresholds(_NO, _NO, _NO, _NO, 6, _NO)
def grand_rule(hands, seats, forehand_bonus=1.0, missing_jack=1.5):
    """Jacks, aces, tens with their ace and the forehand lead, for grand.

    Source: the grand rule of thumb taught in club play (two jacks and three aces,
    the tens beside their aces; forehand may play one card lighter because it
    leads the first trick), as in the Skat strategy notes on
    pokerwiner.com/games-of-playing-cards/skat-3.html ("five of them, or perhaps
    four if you are Forehand ... Tens to support your Aces are much better than
    10s by themselves").

    Rule::

        score = J + 0.5 [club jack] + forehand_bonus [forehand]
                - missing_jack * max(0, 2 - J)
                + sum over the four suits of the suit's value

    with a suit's value: +1 for the ace, +1 for the ten with its ace, and if both:
    +0.5 for the king and +0.5 per card beyond the third (a long suit runs once
    the trumps are drawn); a suit held without its ace -0.5 (the defenders cash
    it), and -0.5 more when it holds a ten in at most two cards (the ten falls to
    the ace).  A grand with fewer than two jacks loses ``missing_jack`` per jack
    missing: played with the engine's own card players, grands "without 3" and
    "without 4" were lost more often than won.  Threshold 6: HJ DJ CA C10 SA S9
    HA H8 D8 D7 (two jacks, three aces, one ten beside its ace) scores 6.5 from
    forehand and 5.5 from the other seats; HJ DJ CA C10 SA S9 H9 H8 D8 D7 scores
    5 and 4.  The threshold was set so that the threshold profile's grands win more
    often than its suit games, as grands do at real tables.
    Suit games and null: not assessed (-inf).
    """
    b = suit_rows(hands)
    n = b.shape[1]
    jacks = suit_total(JACK_BIT, b)
    out = _unassessed(n)
    out[:, GRAND] = (jacks + 0.5 * JACK_BIT.take(b[3]) + suit_total(GRAND_SIDE_VALUE, b)
                     + forehand_bonus * _forehand(seats, n) - missing_jack * np.maximum(0, 2 - jacks))
    return out


@register("evaluator", "null_rule", logged=True)
@_thresholds(_NO, _NO, _NO, _NO, _NO, -1)
def null_rule(hands, seats):
    """Gaps and unguarded high cards in the null order A K Q J 10 9 8 7, for null.

    Source: the null rule of thumb of Skat strategy notes (pokerwiner.com/games-of-
    playing-cards/skat-3.html: "You need 7s ... a three-card suit containing the
    Ace or King, or a four-card suit missing the 7, or a single card of a suit
    which is not 7, 8 or 9" lose a trick), written as the safe-suit test of club
    play: a suit is safe when the player's i-th lowest card (from 0) is at null
    position 2i or lower (7 = 0, 8 = 1, 9 = 2, 10 = 3, J = 4, Q = 5, K = 6, A = 7).

    Rule: ``score = -(sum of the suits' danger)``, a suit's danger adding, for each
    of its cards above that line by e positions, 1/4 if e = 1 (a gap, lost only on
    a bad split: a singleton 8, a four-card suit without the 7), 1/2 if e = 2
    (a singleton 9, K in a three-card suit) and 1 if e >= 3 (a singleton ten or
    higher, an ace in a short suit).  Voids and safe suits add nothing; sevens
    count because a suit without its seven has a gap at the bottom.  Threshold -1:
    one sure loser, or its equal in gaps, which the skat's discards can clear.
    Suit games and grand: not assessed (-inf).  The seat is not used.
    """
    b = suit_rows(hands)
    out = _unassessed(b.shape[1])
    out[:, NULL] = -suit_total(NULL_DANGER, b)
    return out


@register("evaluator", "weighted", logged=True, ranges={
    name: (-10, 10) for name in ("jack", "trump", "ace", "ten", "void", "forehand", "null_seven", "null_void",
                                 "null_gap")})
@_thresholds(9, 9, 9, 9, 7, 0)
def weighted(hands, seats, jack=1.0, trump=1.0, ace=1.0, ten=0.5, void=0.5, forehand=1.0,
             null_seven=1.0, null_void=0.5, null_gap=2.0):
    """A point count with a weight per feature, for all six game types.

    Source: the point-count method of bridge hand evaluation (Milton Work's
    4-3-2-1 count) applied to the features of the Skat rules of thumb above; the
    weights are parameters so that they can be fitted or compared.

    Features: T trumps (jacks plus the suit's cards), J jacks, A aces, Tg tens
    with their ace, V voids among the side suits (suit games) or all suits
    (grand, null; in null the jack belongs to its suit), S sevens, D the null
    danger of :func:`null_rule`.

    - suit game: ``trump*T + jack*J + ace*A + ten*Tg + void*V``
    - grand: ``(trump + jack)*J + ace*A + ten*Tg + void*V + forehand*[forehand]``
    - null: ``null_seven*S + null_void*V - null_gap*D``

    Defaults jack 1, trump 1, ace 1, ten 0.5, void 0.5, forehand 1, null_seven 1,
    null_void 0.5, null_gap 2.  The thresholds (suits 9, grand 7, null 0) are
    calibrated for these defaults: five trumps with two jacks and two aces; two
    jacks and three aces; two sevens per sure null loser.  Changed weights keep
    them; shift them to suit your weights.
    """
    b = suit_rows(hands)
    n = b.shape[1]
    jacks = suit_total(JACK_BIT, b)
    aces = suit_total(ACE_BIT, b)
    tens = suit_total(TEN_WITH_ACE, b)
    voids = VOID.take(b)
    common = jack * jacks + ace * aces + ten * tens
    out = np.empty((n, GAMES))
    side_voids = row_total(voids) - voids
    out[:, SUIT_GAMES] = ((common + trump * jacks) + trump * LENGTH.take(b) + void * side_voids).T
    out[:, GRAND] = common + trump * jacks + void * row_total(voids) + forehand * _forehand(seats, n)
    out[:, NULL] = (null_seven * suit_total(SEVEN_BIT, b) + null_void * suit_total(NULL_VOID, b)
                    - null_gap * suit_total(NULL_DANGER, b))
    return out


@register("evaluator", "default")
@_thresholds(*trump_length.thresholds[:4], grand_rule.thresholds[GRAND], null_rule.thresholds[NULL])
def default(hands, seats):
    """The suit columns of trump_length, grand of grand_rule and null of null_rule.

    Source and rule: those of the three evaluators, each with its default
    parameters; so are the thresholds (suits 5, grand 6, null -1).
    """
    out = trump_length(hands, seats)
    out[:, GRAND] = grand_rule(hands, seats)[:, GRAND]
    out[:, NULL] = null_rule(hands, seats)[:, NULL]
    return out


# --- scores of logged rows ----------------------------------------------------------------


def declared(scores: np.ndarray, games, score_rows=None) -> np.ndarray:
    """Each row's score for its game, as float32: NaN where the evaluator does not assess the game. This is
    the value a run logs as ``eval_<name>``. Row ``i``'s scores are row ``i`` of ``scores`` (n, 6), or row
    ``score_rows[i]``."""
    scores = np.asarray(scores)
    chosen = scores[np.arange(len(scores)) if score_rows is None else score_rows, games].astype(np.float32)
    chosen[~np.isfinite(chosen)] = np.nan
    return chosen


def thresholds_by_game(evaluate) -> dict[str, float]:
    """An evaluator's thresholds by game name, of the games it assesses only: what a run's manifest records
    of it, and what a report shows beside its break-even scores."""
    return {GAME_NAMES[g]: float(t) for g, t in enumerate(evaluate.thresholds) if np.isfinite(t)}


def row_scores(evaluate, deal_ids, dealt, seats, games) -> np.ndarray:
    """:func:`declared` scores of the rows of a run: row ``i`` is seat ``seats[i]`` of deal ``deal_ids[i]``,
    whose three hands are ``dealt[i]`` (n, 3), declaring game ``games[i]``.

    Consecutive rows of one deal and seat (a declare-mode run's games and variants) are scored once: a
    score depends on the hand and the seat alone, so the values are those of scoring every row."""
    deal_ids, seats = np.asarray(deal_ids), np.asarray(seats, dtype=np.int64)
    new = np.ones(len(seats), dtype=bool)
    new[1:] = (deal_ids[1:] != deal_ids[:-1]) | (seats[1:] != seats[:-1])
    first = np.flatnonzero(new)
    scores = evaluate(np.asarray(dealt)[first, seats[first]], seats[first])
    return declared(scores, games, score_rows=np.cumsum(new) - 1)


# --- choosing one by name ----------------------------------------------------------------


def evaluator(name: str, **params) -> BoundEvaluator:
    """The evaluator registered as ``name``, with ``params`` bound: ``build("evaluator", ...)``.

    The result is called as ``scores = e(hands, seats)`` and carries the
    evaluator's ``thresholds``, ``name`` and ``params``.  An unknown name or
    parameter raises :class:`StrategyError` naming the known ones.
    """
    return build("evaluator", name, **params)
