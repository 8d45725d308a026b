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
from .layout import layout

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
# solver can copy a position with a slice and step it with play_card. A seat's view
# has a layout of its own (sim.rules.view), which declares the fields it shares with
# the state by their names here.

#: The fields of the play state (name, size, meaning).
STATE_FIELDS = (
    ("hands", 3, "the cards each seat still holds (masks)"),
    ("game", 1, "game type id"),
    ("declarer", 1, "declarer seat"),
    ("leader", 1, "seat that led the trick"),
    ("in_trick", 1, "cards in the current trick (0..2)"),
    ("trick", 3, "the cards of the current trick in the order played"),
    ("tricks_done", 1, "completed tricks"),
    ("won", 3, "cards won in tricks, by seat (masks; taken tricks are public)"),
    ("finished", 1, "1 after the tenth trick, or after the null declarer's first trick"),
    ("voids", 3, "effective suits (bit 0..3 plain suits, bit 4 trump) each seat has shown it lacks by not "
                 "following; public knowledge every player may use"),
    ("played_by", 3, "the cards each seat has played (masks; public, as every card is played face up)"),
    ("order", 30, "every card played so far, in the order played (slot 3 * trick + place in the trick); "
                  "with forehand's first lead it tells who played each card"),
)
STATE = layout("State", STATE_FIELDS)


@njit(cache=True)
def start_play(state, f, m, r, game, declarer):
    """Set ``state`` to the first lead: forehand leads, hands as given (the declarer's after the discard)."""
    state[:] = 0
    state[STATE.hands], state[STATE.hands + 1], state[STATE.hands + 2] = f, m, r
    state[STATE.game], state[STATE.declarer] = game, declarer


def new_play(f, m, r, game, declarer):
    state = np.zeros(STATE.size, dtype=np.int64)
    start_play(state, f, m, r, game, declarer)
    return state


@njit(cache=True, inline="always")
def to_play(state):
    return (state[STATE.leader] + state[STATE.in_trick]) % 3


@njit(cache=True, inline="always")
def legal_now(state):
    """Legal cards of the seat to play."""
    lead = state[STATE.trick] if state[STATE.in_trick] else -1
    return legal_moves(state[STATE.hands + to_play(state)], state[STATE.game], lead)


@njit(cache=True, inline="always")
def play_card(state, card):
    """Play ``card`` (assumed legal) for the seat to play; closes the trick after the third card.

    Returns the winner's seat when the card closed a trick, else -1.
    """
    seat = to_play(state)
    state[STATE.hands + seat] &= ~(np.int64(1) << card)
    state[STATE.played_by + seat] |= np.int64(1) << card
    if state[STATE.in_trick]:
        led = EFFECTIVE_SUIT[state[STATE.game], state[STATE.trick]]
        if EFFECTIVE_SUIT[state[STATE.game], card] != led:
            state[STATE.voids + seat] |= np.int64(1) << led
    state[STATE.trick + state[STATE.in_trick]] = card
    state[STATE.order + 3 * state[STATE.tricks_done] + state[STATE.in_trick]] = card
    state[STATE.in_trick] += 1
    if state[STATE.in_trick] < 3:
        return -1
    game = state[STATE.game]
    first, second, third = state[STATE.trick], state[STATE.trick + 1], state[STATE.trick + 2]
    winner = (state[STATE.leader] + trick_winner(game, first, second, third)) % 3
    for k in range(3):
        state[STATE.won + winner] |= np.int64(1) << state[STATE.trick + k]
    state[STATE.leader], state[STATE.in_trick] = winner, 0
    state[STATE.tricks_done] += 1
    if state[STATE.tricks_done] == 10 or (game == NULL and winner == state[STATE.declarer]):
        state[STATE.finished] = 1
    return winner


@njit(cache=True, inline="always")
def declarer_result(state, aside):
    """(declarer card points with the skat, declarer tricks) of a finished play state.

    ``aside`` holds the two cards that count for the declarer unplayed: the
    discard, or the skat of a hand game.
    """
    won = state[STATE.won + state[STATE.declarer]]
    return card_points(won) + card_points(aside), popcount(won) // 3


@njit(cache=True, inline="always")
def announcement_missed(state, schneider, schwarz):
    """Whether the trick just closed made the declarer miss an announcement, where the game may
    stop (docs/rules.md#when-a-game-ends): with schwarz announced the defenders' first trick, with schneider
    announced the trick that takes the defenders past 30 points. False in a null game, in the
    middle of a trick, and once the game is over."""
    done = state[STATE.tricks_done]
    declarer = state[STATE.declarer]
    if state[STATE.game] == NULL or state[STATE.in_trick] or done == 0 or state[STATE.finished]:
        return False
    if state[STATE.leader] == declarer:  # the declarer took the trick just closed
        return False
    against = state[STATE.won + (declarer + 1) % 3] | state[STATE.won + (declarer + 2) % 3]
    if schwarz:
        return popcount(against) == 3
    if schneider:
        points = card_points(against)
        last = (CARD_POINTS[state[STATE.trick]] + CARD_POINTS[state[STATE.trick + 1]]
                + CARD_POINTS[state[STATE.trick + 2]])
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
        return bool(self.state[STATE.finished])

    @property
    def to_play(self) -> int:
        return int(to_play(self.state))

    def legal(self) -> int:
        return int(legal_now(self.state))

    def hand(self, seat: int) -> int:
        return int(self.state[STATE.hands + seat])

    def won_cards(self, seat: int) -> int:
        return int(self.state[STATE.won + seat])

    def announcement_missed(self, schneider: bool, schwarz: bool) -> bool:
        """Whether the trick just closed made the declarer miss schneider or schwarz announced
        (:func:`announcement_missed`): the game may stop there, lost."""
        return bool(announcement_missed(self.state, schneider, schwarz))

    def declarer_result(self, aside: int) -> tuple[int, int]:
        """(declarer card points with ``aside``, declarer tricks) of the finished game."""
        points, tricks = declarer_result(self.state, aside)
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
            lead = format_card(int(self.state[STATE.trick]))
            raise IllegalPlay(f"{SEAT_NAMES[seat]} plays {format_card(card)} but must follow {lead} (revoke)")
        winner = int(play_card(self.state, card))
        if winner >= 0:
            self.trick_winners.append(winner)
