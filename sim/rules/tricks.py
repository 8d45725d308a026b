"""Trick play: which cards may be played, who wins a trick.

These kernels are the only copy of the rules of card play; the replay checker,
the random and heuristic players and any search over card play call them.

Order tables::

    EFFECTIVE_SUIT[game, card]  the suit a card belongs to in play: 0..3 for a
                                plain suit, TRUMP (4) for a trump
    ORDER[game, card]           the card's height within that suit: plain suits
                                by rank index (A 10 K Q 9 8 7); in suit and grand
                                games the jacks rank 8..11 above the trump suit's
                                own cards; in null A K Q J 10 9 8 7
    ABOVE, BELOW[game, card]    the higher, lower cards of the card's effective suit
    BEATERS[game, card]         the cards that win over the card when it leads the trick
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards import CARD_POINTS, JACK, JACKS, SEAT_NAMES, SUIT_MASKS, card_points, format_card, popcount
from .games import NULL

TRUMP = 4
# Height of each rank index (7 8 9 Q K 10 A J) in null's order A K Q J 10 9 8 7.
NULL_ORDER = np.array([0, 1, 2, 5, 6, 3, 7, 4], dtype=np.int64)


def _order_tables():
    eff = np.zeros((6, 32), dtype=np.int64)
    order = np.zeros((6, 32), dtype=np.int64)
    for game in range(6):
        for c in range(32):
            suit, rank = c >> 3, c & 7
            if game == NULL:
                eff[game, c], order[game, c] = suit, NULL_ORDER[rank]
            elif rank == JACK:
                eff[game, c], order[game, c] = TRUMP, 8 + suit
            elif suit == game:
                eff[game, c], order[game, c] = TRUMP, rank
            else:
                eff[game, c], order[game, c] = suit, rank
    return eff, order


EFFECTIVE_SUIT, ORDER = _order_tables()

#: Trumps of each game type as masks: the jacks plus the trump suit; grand the jacks; null none.
TRUMP_MASKS = np.array(
    [JACKS | SUIT_MASKS[g] for g in range(4)] + [JACKS, 0], dtype=np.uint32
)



def _card_relations():
    """ABOVE / BELOW[game, card]: the higher / lower cards of the card's effective suit;
    BEATERS[game, card]: the cards that win over the card when it leads the trick so far
    (higher cards of its effective suit, and every trump over a plain card)."""
    above = np.zeros((6, 32), dtype=np.int64)
    below = np.zeros((6, 32), dtype=np.int64)
    for game in range(6):
        for c in range(32):
            for d in range(32):
                if EFFECTIVE_SUIT[game, d] == EFFECTIVE_SUIT[game, c]:
                    if ORDER[game, d] > ORDER[game, c]:
                        above[game, c] |= 1 << d
                    elif ORDER[game, d] < ORDER[game, c]:
                        below[game, c] |= 1 << d
    beaters = above.copy()
    for game in range(6):
        for c in range(32):
            if EFFECTIVE_SUIT[game, c] != TRUMP:
                beaters[game, c] |= int(TRUMP_MASKS[game])
    return above, below, beaters


ABOVE, BELOW, BEATERS = _card_relations()

@njit(cache=True, inline="always")
def suit_mask(game, effective_suit):
    """All cards of one effective suit (a plain suit without its jack, or the trumps)."""
    if effective_suit == TRUMP:
        return TRUMP_MASKS[game]
    if game == NULL:
        return SUIT_MASKS[effective_suit]
    return SUIT_MASKS[effective_suit] & ~TRUMP_MASKS[game]


@njit(cache=True, inline="always")
def legal_moves(hand, game, lead_card):
    """Cards of ``hand`` that may be played; ``lead_card`` < 0 when the player leads."""
    hand = np.uint32(hand)
    if lead_card < 0:
        return hand
    follow = hand & suit_mask(game, EFFECTIVE_SUIT[game, lead_card])
    return follow if follow else hand


@njit(cache=True, inline="always")
def trick_winner(game, first, second, third):
    """Position (0 = the leader, 1, 2) of the card that wins the trick."""
    best, best_card = 0, first
    for pos in range(1, 3):
        c = second if pos == 1 else third
        e, b = EFFECTIVE_SUIT[game, c], EFFECTIVE_SUIT[game, best_card]
        if (e == b and ORDER[game, c] > ORDER[game, best_card]) or (e == TRUMP and b != TRUMP):
            best, best_card = pos, c
    return best


# --- the state of card play -------------------------------------------------------------
#
# One int64 array holds everything card play needs, so a kernel, a search or a
# solver can copy a position with a slice and step it with play_card:
#
# The slots are named STATE_* (a seat's view has VIEW_* slots of its own, sim.rules.view):
#
#   STATE_HANDS+0..2    the cards each seat still holds (masks)
#   STATE_GAME          game type id
#   STATE_DECLARER      declarer seat
#   STATE_LEADER        seat that led the trick
#   STATE_IN_TRICK      cards in the current trick (0..2)
#   STATE_TRICK+0..2    the cards of the current trick in the order played
#   STATE_TRICKS_DONE   completed tricks
#   STATE_WON+0..2      cards won in tricks, by seat (masks)
#   STATE_FINISHED      1 after the tenth trick, or after the null declarer's first trick
#   STATE_VOIDS+0..2    effective suits (bit 0..3 plain suits, bit 4 trump) each seat has
#                       shown it lacks by not following; public knowledge every player may use
#   STATE_PLAYED_BY+0..2 the cards each seat has played (masks; public, as every card is
#                       played face up)
#   STATE_ORDER+0..29   every card played so far, in the order played (slot 3 * trick +
#                       place in the trick); with forehand's first lead it tells who
#                       played each card

STATE_HANDS = 0
STATE_GAME = 3
STATE_DECLARER = 4
STATE_LEADER = 5
STATE_IN_TRICK = 6
STATE_TRICK = 7
STATE_TRICKS_DONE = 10
STATE_WON = 11
STATE_FINISHED = 14
STATE_VOIDS = 15
STATE_PLAYED_BY = 18
STATE_ORDER = 21
STATE_SIZE = 51


@njit(cache=True)
def start_play(state, f, m, r, game, declarer):
    """Set ``state`` to the first lead: forehand leads, hands as given (the declarer's after the discard)."""
    state[:] = 0
    state[STATE_HANDS], state[STATE_HANDS + 1], state[STATE_HANDS + 2] = f, m, r
    state[STATE_GAME], state[STATE_DECLARER] = game, declarer


def new_play(f, m, r, game, declarer):
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    start_play(state, f, m, r, game, declarer)
    return state


@njit(cache=True, inline="always")
def to_play(state):
    return (state[STATE_LEADER] + state[STATE_IN_TRICK]) % 3


@njit(cache=True, inline="always")
def legal_now(state):
    """Legal cards of the seat to play."""
    lead = state[STATE_TRICK] if state[STATE_IN_TRICK] else -1
    return legal_moves(state[STATE_HANDS + to_play(state)], state[STATE_GAME], lead)


@njit(cache=True, inline="always")
def play_card(state, card):
    """Play ``card`` (assumed legal) for the seat to play; closes the trick after the third card.

    Returns the winner's seat when the card closed a trick, else -1.
    """
    seat = to_play(state)
    state[STATE_HANDS + seat] &= ~(np.int64(1) << card)
    state[STATE_PLAYED_BY + seat] |= np.int64(1) << card
    if state[STATE_IN_TRICK]:
        led = EFFECTIVE_SUIT[state[STATE_GAME], state[STATE_TRICK]]
        if EFFECTIVE_SUIT[state[STATE_GAME], card] != led:
            state[STATE_VOIDS + seat] |= np.int64(1) << led
    state[STATE_TRICK + state[STATE_IN_TRICK]] = card
    state[STATE_ORDER + 3 * state[STATE_TRICKS_DONE] + state[STATE_IN_TRICK]] = card
    state[STATE_IN_TRICK] += 1
    if state[STATE_IN_TRICK] < 3:
        return -1
    game = state[STATE_GAME]
    first, second, third = state[STATE_TRICK], state[STATE_TRICK + 1], state[STATE_TRICK + 2]
    winner = (state[STATE_LEADER] + trick_winner(game, first, second, third)) % 3
    for k in range(3):
        state[STATE_WON + winner] |= np.int64(1) << state[STATE_TRICK + k]
    state[STATE_LEADER], state[STATE_IN_TRICK] = winner, 0
    state[STATE_TRICKS_DONE] += 1
    if state[STATE_TRICKS_DONE] == 10 or (game == NULL and winner == state[STATE_DECLARER]):
        state[STATE_FINISHED] = 1
    return winner


@njit(cache=True, inline="always")
def declarer_result(state, declarer_skat):
    """(declarer card points with the skat, declarer tricks) of a finished play state.

    ``declarer_skat`` holds the two cards that count for the declarer unplayed: the
    discard, or the skat of a hand game.
    """
    won = state[STATE_WON + state[STATE_DECLARER]]
    return card_points(won) + card_points(declarer_skat), popcount(won) // 3


@njit(cache=True, inline="always")
def announcement_missed(state, schneider, schwarz):
    """Whether the trick just closed made the declarer miss an announcement, where the game may
    stop (RULES.md, Winning): with schwarz announced the defenders' first trick, with schneider
    announced the trick that takes the defenders past 30 points. False in a null game, in the
    middle of a trick, and once the game is over."""
    done = state[STATE_TRICKS_DONE]
    declarer = state[STATE_DECLARER]
    if state[STATE_GAME] == NULL or state[STATE_IN_TRICK] or done == 0 or state[STATE_FINISHED]:
        return False
    if state[STATE_LEADER] == declarer:  # the declarer took the trick just closed
        return False
    against = state[STATE_WON + (declarer + 1) % 3] | state[STATE_WON + (declarer + 2) % 3]
    if schwarz:
        return popcount(against) == 3
    if schneider:
        points = card_points(against)
        last = (CARD_POINTS[state[STATE_TRICK]] + CARD_POINTS[state[STATE_TRICK + 1]]
                + CARD_POINTS[state[STATE_TRICK + 2]])
        return points > 30 and points - last <= 30
    return False


class IllegalPlay(ValueError):
    """A card that may not be played at this point."""


class CardPlay:
    """The ten tricks of one game card by card, each card checked, over the kernel state.

    ``hands`` are the three hands as play starts (the declarer's after the discard).
    """

    def __init__(self, hands, game: int, declarer: int):
        self.state = new_play(int(hands[0]), int(hands[1]), int(hands[2]), game, declarer)
        self.trick_winners: list[int] = []

    @property
    def finished(self) -> bool:
        return bool(self.state[STATE_FINISHED])

    @property
    def to_play(self) -> int:
        return int(to_play(self.state))

    def legal(self) -> int:
        return int(legal_now(self.state))

    def hand(self, seat: int) -> int:
        return int(self.state[STATE_HANDS + seat])

    def won_cards(self, seat: int) -> int:
        return int(self.state[STATE_WON + seat])

    def announcement_missed(self, schneider: bool, schwarz: bool) -> bool:
        """Whether the trick just closed made the declarer miss schneider or schwarz announced
        (:func:`announcement_missed`): the game may stop there, lost."""
        return bool(announcement_missed(self.state, schneider, schwarz))

    def declarer_result(self, declarer_skat: int) -> tuple[int, int]:
        """(declarer card points with ``declarer_skat``, declarer tricks) of the finished game."""
        points, tricks = declarer_result(self.state, declarer_skat)
        return int(points), int(tricks)

    def play(self, card: int) -> None:
        # Card ids often come from records or other programs; a bad one gets a clear error.
        if not isinstance(card, (int, np.integer)) or isinstance(card, bool) or not 0 <= card < 32:
            raise IllegalPlay(f"{card!r} is not a card id (0 to 31)")
        card = int(card)
        if self.finished:
            raise IllegalPlay(f"the game is over; {format_card(card)} is one card too many")
        seat = self.to_play
        if not self.hand(seat) >> card & 1:
            raise IllegalPlay(f"{SEAT_NAMES[seat]} does not hold {format_card(card)}")
        if not self.legal() >> card & 1:
            lead = format_card(int(self.state[STATE_TRICK]))
            raise IllegalPlay(f"{SEAT_NAMES[seat]} plays {format_card(card)} but must follow {lead} (revoke)")
        winner = int(play_card(self.state, card))
        if winner >= 0:
            self.trick_winners.append(winner)
