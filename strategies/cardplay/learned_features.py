"""What the ``learned`` card player reads from a view: one row of numbers per legal card.

A decision falls into one of :data:`CONTEXTS` (the game class: suit, grand or null; the
seat's side: declarer or defender; its position in the trick: lead, second, third), and
each context has its own weights over the rows of :data:`FEATURES`: what the card is
(trump, points, height, how many higher cards are out, a master, the own length in its
suit, a bare ten), what it does to the trick (follows, trumps, throws off, wins now, wins
surely, the points it adds to whose trick), what the other seats have shown (voids of the
partner and the opponents in its suit, a partner void in it who may trump, trumps out), who
plays next (a defender with the declarer on its left: the declarer plays right after it, and the
card's points, height and trump standing beside that) and the stage of the game (tricks
done, the points each side has taken), and whether it is the card the heuristic player's rules
choose (:mod:`strategies.cardplay.heuristic`), so that the weights learn where to leave those
rules. Every number comes from the view (see
:mod:`strategies.cardplay.heuristic_facts` for "out" and "may hold"), so the hidden cards
never decide. A null's card also gets what a null turns on (zero in the other games): whether the
suit can be underled until the holder must take a trick, and for a defender the declarer's and the
partner's cards below and above it.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from sim.rules.cards import ACE, CARD_POINTS, TEN, card_points, lowest_card, popcount
from sim.rules.games import GRAND, NULL
from sim.rules.tricks import ABOVE, BEATERS, BELOW, EFFECTIVE_SUIT, ORDER, TRUMP
from sim.rules.view import VIEW

from .heuristic import rule_based_card
from .heuristic_facts import SUIT_CARDS, TRUMP_CARDS, can_beat, cards_out, may_hold, winning_position

#: The numbers of one legal card, in the order of a weight row.
FEATURES = (
    "bias", "trump", "points", "height", "higher_out", "master", "lower_out", "own_in_suit", "singleton",
    "out_in_suit", "own_above", "lowest_own", "trump_x_trumps_out", "trump_x_own_trumps", "wins_now",
    "points_x_partner_wins", "points_x_wins_now", "points_x_opponent_keeps", "trick_points_x_wins_now",
    "follows", "trumps_in", "throws_off", "wins_surely", "points_x_wins_surely", "opponent_void",
    "partner_void", "points_x_may_be_beaten", "tricks_done", "trump_x_tricks_done", "points_x_master",
    "side_points_x_wins_now", "trump_x_own_in_suit", "bare_ten", "ace_with_ten_out", "jack",
    "suit_led_before", "points_x_last_to_play", "opponents_may_trump", "height_x_null_safe",
    "lowest_out_x_points", "heuristic_choice", "declarer_next", "points_x_declarer_next",
    "partner_may_trump", "height_x_declarer_next",
    "side_points", "opponent_points", "own_trumps", "trumps_out", "own_masters",
    "trick_points_x_wins_surely", "reaches_game_surely", "may_give_game",
    "null_exposed", "null_suit_unsafe", "null_unsafe_without", "null_declarer_below", "null_declarer_above",
    "null_partner_below", "null_declarer_catchable",
)
#: The features of the model files of version 3, the first of FEATURES (such a file still plays).
FEATURES_V3 = FEATURES[:45]
N_FEATURES_V3 = len(FEATURES_V3)
#: The features of the model files of version 4 (v7's), the first 53 of FEATURES (such a file still plays).
FEATURES_V4 = FEATURES[:53]
#: Features of version 4 whose number is the same for every card of a decision (the game's state): the
#: player adds their share of the scores once a decision. They follow FEATURES_V3 directly.
DECISION_FEATURES = (45, 50)
N_FEATURES = len(FEATURES)
#: Decision contexts: game class (suit, grand, null) x side (declarer, defender) x position in the trick.
N_CONTEXTS = 18
CONTEXTS = tuple(f"{g}_{side}_{pos}" for g in ("suit", "grand", "null") for side in ("declarer", "defender")
                 for pos in ("lead", "second", "third"))


#: Each card's points and height (its place in the order of its game's suit) as the rows hold them: divided
#: once here, the same numbers as dividing in the kernel.
POINTS_SHARE = CARD_POINTS / 11.0
HEIGHT = ORDER / 11.0


@njit(cache=True)
def context_of(view):
    """The decision's context (0 .. N_CONTEXTS - 1): game class, side and position in the trick."""
    game = view[VIEW.game]
    game_class = 2 if game == NULL else (1 if game == GRAND else 0)
    side = 0 if view[VIEW.seat] == view[VIEW.declarer] else 1
    return game_class * 6 + side * 3 + view[VIEW.in_trick]


@njit(cache=True)
def _points_taken(view):
    """Card points (the seat's side, the other side) have taken as far as the seat knows them: the
    declarer's side counts its discard, which a defender does not see."""
    d = view[VIEW.declarer]
    declarer = card_points(view[VIEW.won + d])
    defenders = card_points(view[VIEW.won + (d + 1) % 3]) + card_points(view[VIEW.won + (d + 2) % 3])
    if view[VIEW.seat] == d:
        return declarer + card_points(view[VIEW.discard]), defenders
    return defenders, declarer


@njit(cache=True)
def _masters(game, own, out):
    """How many of the own cards no card out is higher than in their suit."""
    count, cards = 0, own
    while cards:
        c = lowest_card(cards)
        cards &= cards - 1
        if (ABOVE[game, c] & out) == 0:
            count += 1
    return count


@njit(cache=True)
def _led_before(view, suit_cards):
    """Whether a card of these cards was already played in an earlier trick or this one."""
    played = np.int64(0)
    for s in range(3):
        played |= view[VIEW.won + s]
    return (played & suit_cards) != 0


@njit(cache=True)
def null_exposed(game, card, mine, others):
    """In a null, how many more of ``others`` (cards of the card's suit that other hands may hold) than of
    ``mine`` (its holder's in that suit) lie below ``card``: above 0, the others can lead under it until
    it must take a trick."""
    return popcount(others & BELOW[game, card]) - popcount(mine & BELOW[game, card])


@njit(cache=True)
def null_unsafe(game, mine, others):
    """Whether a null holding ``mine`` of one suit can be caught by ``others``: one of its cards has more of
    theirs than of its own below it (pairing both from the lowest, one of mine is above its partner)."""
    cards = mine
    while cards:
        c = lowest_card(cards)
        cards &= cards - 1
        if null_exposed(game, c, mine, others) > 0:
            return True
    return False


@njit(cache=True, inline="always")
def _holds(view, s, out):
    """The cards seat ``s`` may hold as the seat of ``view`` knows it (its own hand if it is that seat)."""
    return view[VIEW.own_hand] if s == view[VIEW.seat] else may_hold(view, s, out)


@njit(cache=True)
def card_features(view, legal, rows):
    """Fill ``rows[k]`` with the FEATURES of the k-th legal card (lowest card id first); returns their count."""
    return card_features_given(view, legal, rule_based_card(view, np.int64(legal)), rows)


#: The types the learned player's choice calls :func:`card_features_given` with in the play loop (a view, the
#: legal cards, the heuristic's card, the rows on the stack): :func:`compile_card_features` compiles it for them.
LOOP_TYPES = (types.int64[::1], types.int64, types.int64, types.float32[:, ::1])


def compile_card_features() -> None:
    """Compile :func:`card_features_given` for the play loop's types (:data:`LOOP_TYPES`), or load it from
    numba's cache, apart from the loop: a first run's second process does so while the first compiles
    the loop, which then loads it (:mod:`sim.runs.compiling`)."""
    card_features_given.compile(LOOP_TYPES)


@njit(cache=True)
def card_features_given(view, legal, rule_card, rows):
    """:func:`card_features` told the heuristic's card ``rule_card`` (:func:`rule_based_card` of the view and
    ``legal``). The play loop works that card out beside the heuristic player's, so that this kernel
    compiles without the heuristic's rules, and a first run can compile it in its second process."""
    game, seat, d = view[VIEW.game], view[VIEW.seat], view[VIEW.declarer]
    own, out = view[VIEW.own_hand], cards_out(view)
    trumps_out = popcount(out & TRUMP_CARDS[game])
    own_trumps = popcount(own & TRUMP_CARDS[game])
    n, tricks_done = view[VIEW.in_trick], view[VIEW.tricks_done]
    side_taken, opponents_taken = _points_taken(view)
    side_points = side_taken / 120.0
    side_goal, opponent_goal = (61, 60) if seat == d else (60, 61)
    masters = _masters(game, own, out) / 4.0
    holds = (_holds(view, np.int64(0), out), _holds(view, np.int64(1), out), _holds(view, np.int64(2), out))
    led, winner_card, winner_seat, in_trick_points = -1, -1, -1, 0
    if n > 0:
        led = EFFECTIVE_SUIT[game, view[VIEW.trick]]
        pos = winning_position(view)
        winner_card, winner_seat = view[VIEW.trick + pos], (view[VIEW.leader] + pos) % 3
        for k in range(n):
            in_trick_points += CARD_POINTS[view[VIEW.trick + k]]
    partner_wins = winner_seat >= 0 and winner_seat != seat and (winner_seat == d) == (seat == d)
    opponent_wins = winner_seat >= 0 and not partner_wins
    declarer_next = 1.0 if seat != d and (seat + 1) % 3 == d else 0.0
    cards, k = np.int64(legal), 0
    while cards:
        c = lowest_card(cards)
        cards &= cards - 1
        row = rows[k]
        e = EFFECTIVE_SUIT[game, c]
        suit = SUIT_CARDS[game, e]
        points = POINTS_SHARE[c]
        is_trump = 1.0 if e == TRUMP else 0.0
        higher_out = popcount(ABOVE[game, c] & out)
        own_in_suit = popcount(own & suit)
        wins = n == 0 or ((EFFECTIVE_SUIT[game, winner_card] == e and ORDER[game, c] > ORDER[game, winner_card])
                          or (e == TRUMP and EFFECTIVE_SUIT[game, winner_card] != TRUMP))
        wins_now = 1.0 if (n > 0 and wins) else 0.0
        trick_led = e if n == 0 else led
        beaten, opponent_void, partner_void, opponents_trump, partner_trumps = False, 0.0, 0.0, 0.0, 0.0
        for later in range(n + 1, 3):
            s = (view[VIEW.leader] + later) % 3
            if wins and can_beat(game, holds[s], c, trick_led):
                beaten = True
        for s in range(3):
            if s == seat:
                continue
            void = (holds[s] & suit) == 0
            if (s == d) == (seat == d):
                partner_void = 1.0 if void else 0.0
                if void and e != TRUMP and holds[s] & TRUMP_CARDS[game]:
                    partner_trumps = 1.0
            elif void:
                opponent_void = 1.0
                if e != TRUMP and holds[s] & TRUMP_CARDS[game]:
                    opponents_trump = 1.0
        surely = 1.0 if wins and not beaten else 0.0
        row[0], row[1], row[2] = 1.0, is_trump, points
        row[3] = HEIGHT[game, c]
        row[4] = higher_out / 4.0
        row[5] = 1.0 if higher_out == 0 else 0.0
        row[6] = popcount(BELOW[game, c] & out) / 4.0
        row[7] = own_in_suit / 4.0
        row[8] = 1.0 if own_in_suit == 1 else 0.0
        row[9] = popcount(out & suit) / 4.0
        row[10] = popcount(own & ABOVE[game, c]) / 4.0
        row[11] = 1.0 if (own & BELOW[game, c]) == 0 else 0.0
        row[12] = is_trump * trumps_out / 4.0
        row[13] = is_trump * own_trumps / 4.0
        row[14] = wins_now
        row[15] = points if partner_wins and not wins_now else 0.0
        row[16] = points * wins_now
        row[17] = points if opponent_wins and not wins_now else 0.0
        row[18] = in_trick_points / 11.0 * wins_now
        row[19] = 1.0 if n > 0 and e == led else 0.0
        row[20] = 1.0 if n > 0 and e == TRUMP and led != TRUMP else 0.0
        row[21] = 1.0 if n > 0 and e != led and e != TRUMP else 0.0
        row[22] = surely
        row[23] = points * surely
        row[24] = opponent_void
        row[25] = partner_void
        row[26] = points if (n == 0 or wins) and beaten else 0.0
        row[27] = tricks_done / 9.0
        row[28] = is_trump * tricks_done / 9.0
        row[29] = points * row[5]
        row[30] = side_points * wins_now
        row[31] = is_trump * own_in_suit / 4.0
        rank = c & 7
        row[32] = 1.0 if rank == TEN and e != TRUMP and (out >> ((c & ~7) + ACE)) & 1 else 0.0
        row[33] = 1.0 if rank == ACE and e != TRUMP and (out >> ((c & ~7) + TEN)) & 1 else 0.0
        row[34] = 1.0 if rank == 7 and game != NULL else 0.0
        row[35] = 1.0 if _led_before(view, suit) else 0.0
        row[36] = points if n == 2 else 0.0
        row[37] = opponents_trump
        row[38] = row[3] * (1.0 if (n > 0 and not wins) or (n == 0 and beaten) else 0.0)
        row[39] = points * (1.0 if (BEATERS[game, c] & out) != 0 else 0.0)
        row[40] = 1.0 if c == rule_card else 0.0
        row[41] = declarer_next
        row[42] = points * declarer_next
        row[43] = partner_trumps
        row[44] = row[3] * declarer_next
        row[45], row[46] = side_points, opponents_taken / 120.0
        row[47], row[48], row[49] = own_trumps / 4.0, trumps_out / 4.0, masters
        row[50] = in_trick_points / 11.0 * surely
        trick_total = in_trick_points + CARD_POINTS[c]
        row[51] = 1.0 if game != NULL and surely and side_taken + trick_total >= side_goal else 0.0
        row[52] = 1.0 if game != NULL and not surely and opponents_taken + trick_total >= opponent_goal else 0.0
        if game == NULL:
            _null_features(view, c, suit, own, out, holds, row)
        else:
            for f in range(53, N_FEATURES):
                row[f] = 0.0
        k += 1
    return k


@njit(cache=True, inline="always")
def _null_features(view, c, suit, own, out, holds, row):
    """The features of a null's card ``c`` (of ``suit``): for the seat's own holding of the suit, how far
    the card can be underled (its excess of cards out below it over its own below it), whether the holding
    can be caught, and whether it can after the card leaves it; for a defender, the declarer's cards that
    may lie below and above it, the partner's below it, and (declarer ouvert) whether the declarer's
    open holding of the suit can be caught by the defenders' cards."""
    game, seat, d = view[VIEW.game], view[VIEW.seat], view[VIEW.declarer]
    mine, others = own & suit, out & suit
    row[53] = max(0, null_exposed(game, c, mine, others)) / 4.0
    row[54] = 1.0 if null_unsafe(game, mine, others) else 0.0
    row[55] = 1.0 if null_unsafe(game, mine & ~(np.int64(1) << c), others) else 0.0
    if seat == d:
        row[56], row[57], row[58], row[59] = 0.0, 0.0, 0.0, 0.0
        return
    declarers = holds[d] & suit
    row[56] = popcount(declarers & BELOW[game, c]) / 4.0
    row[57] = popcount(declarers & ABOVE[game, c]) / 4.0
    row[58] = popcount(holds[3 - seat - d] & suit & BELOW[game, c]) / 4.0
    caught = False
    if view[VIEW.ouvert]:
        caught = null_unsafe(game, declarers, (own | (out & ~view[VIEW.ouvert_cards])) & suit)
    row[59] = 1.0 if caught else 0.0
