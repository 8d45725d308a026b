"""The features of a ten-card hand for each game group, hand by hand in numba kernels.

These are the inputs of the fitted probabilities of :mod:`strategies.calibration`
(names and order: :data:`strategies.calibration.FEATURES`): counts of trumps, jacks,
aces, tens beside their ace and voids, the matadors, the scores of the built-in
evaluators (``trump_length``, ``classic``, ``weighted``, ``grand_rule``,
``null_rule``, with their default parameters) and the seat. Every feature is a
small multiple of 1/4, so it is exact in float64 whatever the order of the sums.

A hand is first summed up suit by suit (:func:`hand_facts`, from the evaluators'
256-entry suit-byte tables); each group's features are then a few additions of
those facts (:func:`suit_features`, :func:`grand_features`, :func:`null_features`).
The expected-score kernels (:mod:`strategies.expected`) call them for every hand
they judge; :func:`features` gives a whole batch as an (n, k) array, for fitting.
"""

from __future__ import annotations

import inspect

import numpy as np
from numba import njit

from sim.rules.games import GRAND, NULL
from sim.rules.scoring import matadors

from .evaluators import (
    ACE_BIT,
    GRAND_SIDE_VALUE,
    JACK_BIT,
    LENGTH,
    NULL_DANGER,
    NULL_VOID,
    SEVEN_BIT,
    SIDE_VALUE,
    TEN_WITH_ACE,
    VOID,
    grand_rule,
    trump_length,
    weighted,
)


def _default(evaluator, name: str) -> float:
    """The default of one parameter of an evaluator (the features use the evaluators as shipped)."""
    return float(inspect.signature(evaluator).parameters[name].default)


TOP_TRUMP, SHORT_TRUMPS = _default(trump_length, "top_trump"), _default(trump_length, "short_trumps")
FOREHAND_BONUS, MISSING_JACK = _default(grand_rule, "forehand_bonus"), _default(grand_rule, "missing_jack")
W_JACK, W_TRUMP, W_ACE, W_TEN, W_VOID, W_FOREHAND, W_NULL_SEVEN, W_NULL_VOID, W_NULL_GAP = (
    _default(weighted, name) for name in ("jack", "trump", "ace", "ten", "void", "forehand", "null_seven",
                                          "null_void", "null_gap"))

def _matador_tables() -> tuple[np.ndarray, np.ndarray]:
    """Signed matadors by trump word, counted by the engine's rule (:func:`sim.rules.scoring.matadors`):
    for a suit game, bits 10 .. 7 of the word are the jacks (clubs .. diamonds) and bits 6 .. 0 the trump
    suit's A 10 K Q 9 8 7, the trump order from the top; for grand, the four jack bits alone."""
    jacks = [(8, 31), (4, 23), (2, 15), (1, 7)]   # bit of the jack word, card id
    def hand(word: int, suit_cards: int) -> np.uint32:
        cards = sum(1 << card for bit, card in jacks if word >> 7 & bit) | suit_cards << 24
        return np.uint32(cards)
    suit = np.array([matadors(3, hand(w, w & 0x7F)) for w in range(1 << 11)], dtype=np.int64)
    grand = np.array([matadors(GRAND, hand(w << 7, 0)) for w in range(1 << 4)], dtype=np.int64)
    return suit, grand


SUIT_MATADORS, GRAND_MATADORS = _matador_tables()

#: The number of features of each group: suit, grand, null (null ouvert has null's).
SUIT_FEATURES, GRAND_FEATURES, NULL_FEATURES = 13, 11, 7
MOST_FEATURES = SUIT_FEATURES

# Columns of a hand's facts: five blocks of one per suit, the matadors of each suit game and grand,
# then the totals over the hand.
LENGTH_OF, ACE_OF, TEN_OF, VOID_OF, SIDE_OF, MATADORS_OF = 0, 4, 8, 12, 16, 20
(JACKS, CLUB_JACK, ACES, TENS, VOIDS, SIDE_TOTAL, LONG_SUIT, GRAND_SIDE, SEVENS, NULL_VOIDS, DANGER,
 WORST_SUIT, FOREHAND, MIDDLEHAND) = range(MATADORS_OF + GRAND + 1, MATADORS_OF + GRAND + 15)
FACTS = MIDDLEHAND + 1


@njit(cache=True, inline="always")
def jack_word(cards):
    """The four jacks of a card set as bits 3 .. 0 (clubs .. diamonds)."""
    return ((cards >> np.uint32(28)) & np.uint32(8)) | ((cards >> np.uint32(21)) & np.uint32(4)) \
        | ((cards >> np.uint32(14)) & np.uint32(2)) | ((cards >> np.uint32(7)) & np.uint32(1))


@njit(cache=True, inline="always")
def signed_matadors(game, cards):
    """:func:`sim.rules.scoring.matadors` of a suit game or grand, from the tables."""
    jacks = jack_word(cards)
    if game == GRAND:
        return GRAND_MATADORS[jacks]
    return SUIT_MATADORS[(jacks << np.uint32(7)) | ((cards >> np.uint32(8 * game)) & np.uint32(0x7F))]


# hand_facts and group_features are inlined into the bidder's kernels: called, each call would cost two
# atomic reference counts for every array passed, several calls a hand. Compiled into each kernel (with
# the play loop's inlined helpers) they add about 3 s of processor time to the first run.
@njit(cache=True, inline="always")
def hand_facts(hand, seat, facts):
    """Sum up ten cards held at ``seat`` into ``facts`` (FACTS numbers, columns above); the
    matadors are those of the suit games and grand over these ten cards."""
    for name in range(JACKS, FACTS):
        facts[name] = 0.0
    for game in range(GRAND + 1):
        facts[MATADORS_OF + game] = signed_matadors(game, hand)
    for s in range(4):
        b = (hand >> np.uint32(8 * s)) & np.uint32(0xFF)
        facts[LENGTH_OF + s] = LENGTH[b]
        facts[ACE_OF + s] = ACE_BIT[b]
        facts[TEN_OF + s] = TEN_WITH_ACE[b]
        facts[VOID_OF + s] = VOID[b]
        facts[SIDE_OF + s] = SIDE_VALUE[b]
        facts[JACKS] += JACK_BIT[b]
        facts[ACES] += ACE_BIT[b]
        facts[TENS] += TEN_WITH_ACE[b]
        facts[VOIDS] += VOID[b]
        facts[SIDE_TOTAL] += SIDE_VALUE[b]
        facts[LONG_SUIT] = max(facts[LONG_SUIT], LENGTH[b] * ACE_BIT[b])
        facts[GRAND_SIDE] += GRAND_SIDE_VALUE[b]
        facts[SEVENS] += SEVEN_BIT[b]
        facts[NULL_VOIDS] += NULL_VOID[b]
        facts[DANGER] += NULL_DANGER[b]
        facts[WORST_SUIT] = max(facts[WORST_SUIT], NULL_DANGER[b])
    facts[CLUB_JACK] = JACK_BIT[(hand >> np.uint32(24)) & np.uint32(0xFF)]
    facts[FOREHAND] = 1.0 if seat == 0 else 0.0
    facts[MIDDLEHAND] = 1.0 if seat == 1 else 0.0


@njit(cache=True, inline="always")
def suit_features(facts, trump, x):
    """The suit game's features with ``trump`` (0 diamonds .. 3 clubs) as trump suit, into ``x``."""
    jacks, aces, tens, voids = facts[JACKS], facts[ACES], facts[TENS], facts[VOIDS]
    length, ace, ten, void = (facts[LENGTH_OF + trump], facts[ACE_OF + trump], facts[TEN_OF + trump],
                              facts[VOID_OF + trump])
    trumps = jacks + length
    x[0], x[1], x[2] = trumps, jacks, facts[CLUB_JACK]
    x[3] = max(facts[MATADORS_OF + trump], 0.0)
    x[4], x[5], x[6], x[7] = ace + ten, aces - ace, tens - ten, voids - void
    x[8] = (TOP_TRUMP * jacks + facts[SIDE_TOTAL] + trumps + TOP_TRUMP * (ace + ten) - facts[SIDE_OF + trump]
            - SHORT_TRUMPS * max(0.0, 5 - trumps))                                            # trump_length
    x[9] = (jacks + aces) + trumps - 5 if trumps >= 5 else trumps - 5                          # classic
    x[10] = (W_JACK * jacks + W_ACE * aces + W_TEN * tens + W_TRUMP * jacks + W_TRUMP * length
             + W_VOID * (voids - void))                                                        # weighted
    x[11], x[12] = facts[FOREHAND], facts[MIDDLEHAND]


@njit(cache=True, inline="always")
def grand_features(facts, x):
    """The grand's features, into ``x``."""
    jacks, aces, tens, voids, forehand = facts[JACKS], facts[ACES], facts[TENS], facts[VOIDS], facts[FOREHAND]
    x[0], x[1], x[2], x[3], x[4], x[5] = jacks, facts[CLUB_JACK], aces, tens, voids, facts[LONG_SUIT]
    x[6] = (jacks + 0.5 * facts[CLUB_JACK] + facts[GRAND_SIDE] + FOREHAND_BONUS * forehand
            - MISSING_JACK * max(0.0, 2 - jacks))                                              # grand_rule
    x[7] = jacks + aces + forehand - max(0.0, 2 - jacks)                                       # classic
    x[8] = (W_JACK * jacks + W_ACE * aces + W_TEN * tens + W_TRUMP * jacks + W_VOID * voids
            + W_FOREHAND * forehand)                                                           # weighted
    x[9], x[10] = forehand, facts[MIDDLEHAND]


@njit(cache=True, inline="always")
def null_features(facts, x):
    """The features of null (plain or ouvert), into ``x``."""
    x[0] = -facts[DANGER]                                                                      # null_rule
    x[1] = W_NULL_SEVEN * facts[SEVENS] + W_NULL_VOID * facts[NULL_VOIDS] - W_NULL_GAP * facts[DANGER]
    x[2], x[3], x[4] = facts[SEVENS], facts[NULL_VOIDS], facts[WORST_SUIT]
    x[5], x[6] = facts[FOREHAND], facts[MIDDLEHAND]


@njit(cache=True, inline="always")
def group_features(facts, game, x):
    """The features of the group of ``game`` (a suit game's own trump; grand; null), into ``x``; returns
    their number."""
    if game < GRAND:
        suit_features(facts, game, x)
        return SUIT_FEATURES
    if game == GRAND:
        grand_features(facts, x)
        return GRAND_FEATURES
    null_features(facts, x)
    return NULL_FEATURES


@njit(cache=True)
def _features_into(hands, seats, games, out):
    facts, x = np.empty(FACTS), np.empty(MOST_FEATURES)
    for k in range(hands.shape[0]):
        hand_facts(hands[k], seats[k], facts)
        count = group_features(facts, games[k], x)
        for i in range(count):
            out[k, i] = x[i]


def features(hands, seats, group: str, trump=3) -> np.ndarray:
    """The (n, k) features of ten-card ``hands`` held at ``seats`` for one game ``group`` (suit, grand,
    null or null_ouvert; for suit, ``trump`` is the trump suit of all rows or of each row)."""
    hands = np.ascontiguousarray(hands, dtype=np.uint32).reshape(-1)
    n = len(hands)
    game = {"suit": trump, "grand": GRAND}.get(group, NULL)
    games = np.ascontiguousarray(np.broadcast_to(np.asarray(game, dtype=np.int64), (n,)))
    seats = np.ascontiguousarray(np.broadcast_to(np.asarray(seats, dtype=np.int64), (n,)))
    out = np.empty((n, {"suit": SUIT_FEATURES, "grand": GRAND_FEATURES}.get(group, NULL_FEATURES)))
    _features_into(hands, seats, games, out)
    return out
