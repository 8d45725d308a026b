"""Card-play policies: which card to play, from what the seat may know.

A policy is a numba function ``policy(view, legal, params, rng) -> (rng, card)``
(the view layout is in :mod:`sim.rules.view`; ``legal`` is the uint32 mask of legal
cards; ``params`` a float64 array of the policy's parameters; ``rng`` the seat's
random state for :func:`sim.rules.rng.below`). Register a factory that returns a
:class:`CardPolicy` to make a policy available by name.

Built in: ``random`` (uniformly random legal cards), ``heuristic`` (a club player's
rules of thumb: draw trumps, cash masters, smear, stay under in null), ``pimc``
(perfect-information Monte Carlo on the open-hand solver, :mod:`strategies.pimc`) and
``open_hand`` (the open-hand best card, seeing every hand: an upper bound).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit

from sim.rules.cards import ALL_CARDS, CARD_POINTS, card_points, lowest_card, nth_card, popcount
from sim.rules.games import NULL
from sim.rules.play import finish_turn, start_turn
from sim.rules.rng import below
from sim.rules.tricks import (
    ABOVE,
    BEATERS,
    BELOW,
    EFFECTIVE_SUIT,
    ORDER,
    STATE_FINISHED,
    TRUMP,
    TRUMP_MASKS,
    to_play,
    trick_winner,
)
from sim.rules.view import (
    VIEW_DECLARER,
    VIEW_GAME,
    VIEW_IN_TRICK,
    VIEW_LEADER,
    VIEW_OUVERT,
    VIEW_OUVERT_CARDS,
    VIEW_OWN_HAND,
    VIEW_OWN_SKAT,
    VIEW_PLAYED,
    VIEW_SEAT,
    VIEW_TRICK,
    VIEW_VOIDS,
)

from .pimc import open_hand_best, own_workspace, pimc_best
from .registry import StrategyError, register

#: Length of the parameter row every policy receives (unused entries are 0).
PARAMS_SIZE = 8
#: The last entry of a built-in policy's row says which built-in it is (see builtin_card).
BUILTIN_KIND = PARAMS_SIZE - 1
RANDOM_KIND, HEURISTIC_KIND, PIMC_KIND, OPEN_HAND_KIND = 0, 1, 2, 3
#: Built-in kinds that search with the open-hand solver (the play loop hands them its table).
SEARCHING_KINDS = (PIMC_KIND, OPEN_HAND_KIND)


@dataclass(frozen=True)
class CardPolicy:
    """A card-play policy: its numba function and parameters.

    ``builtin`` is the kind id of a built-in policy (None for any other); tables of
    built-in policies only run a kernel that numba can cache between processes.
    """

    name: str
    function: Callable
    params: tuple[float, ...] = ()
    builtin: int | None = None

    def param_row(self) -> np.ndarray:
        if len(self.params) > BUILTIN_KIND:
            raise ValueError(f"a card-play policy takes at most {BUILTIN_KIND} parameters")
        row = np.zeros(PARAMS_SIZE, dtype=np.float64)
        row[: len(self.params)] = self.params
        row[BUILTIN_KIND] = -1 if self.builtin is None else self.builtin
        return row


@njit(cache=True)
def random_card(view, legal, params, rng):
    """A uniformly random legal card."""
    rng, pick = below(rng, popcount(legal))
    return rng, nth_card(legal, pick)


@register("card_play", "random")
def random_policy() -> CardPolicy:
    """Uniformly random legal cards: the baseline every other player is measured against."""
    return CardPolicy("random", random_card, builtin=RANDOM_KIND)


# === The heuristic player ===============================================================
#
# Rules a decent club player follows, one small kernel per rule. Every fact comes from
# the view: cards "out" are those the seat has neither seen played nor holds (nor
# discarded, for the declarer); a card is a "master" when no higher card of its
# effective suit is out; a seat "may hold" the cards out minus the suits it has shown
# void in (an ouvert declarer: exactly its open cards). Masks are int64 here.


#: SUIT_CARDS[game, effective suit]: the cards of a plain suit (without its jack) or the trumps.
SUIT_CARDS = np.array([[sum(1 << c for c in range(32) if EFFECTIVE_SUIT[g, c] == s) for s in range(5)]
                       for g in range(6)], dtype=np.int64)
#: VOID_CARDS[game, void bits]: the cards of every effective suit in a VIEW_VOIDS entry.
VOID_CARDS = np.array([[sum(int(SUIT_CARDS[g, s]) for s in range(5) if bits >> s & 1) for bits in range(32)]
                       for g in range(6)], dtype=np.int64)
TRUMP_CARDS = TRUMP_MASKS.astype(np.int64)
_NO_KEY = 1 << 30

# --- sort keys ---------------------------------------------------------------------------
#
# A choice among cards compares a tuple of criteria packed into one integer, the most
# important criterion in the highest place. The card id (0..31) fills the lowest place, so
# ties always break the same way; a card's height in its suit (ORDER, 0..11) sits above it;
# card points (0..11) above that; and a flag for cards to spare above everything.

ID_PLACE = 32                 # ORDER * ID_PLACE + card: by height, then by card id (< 512)
POINTS_PLACE = 512            # CARD_POINTS * POINTS_PLACE + the height key: by points first
TRUMP_PLACE = 1024            # a trump only after every winner of the led suit (above any height key)
KEEP_PLACE = 1 << 16          # cards to spare (trumps, masters) only when nothing else is left
SUIT_POINTS_PLACE = 64        # low_side_card: points at stake in the suit (< 64) above the height key
SIDE_POINTS_PLACE = 4096      # low_side_card: the card's own points above the suit's points
DANGER_PLACE = 1024           # riskiest_null_card: the danger (-7..7) above the height key
VOID_SUIT_PLACE = 1024        # null_discard: first the suits the declarer cannot hold, above any height key
LAST_RESORT = 1 << 20         # null leads: a lead that surely loses goes after every other

# A defender's lead in suit and grand games (lower is better), in lead points:
DECLARER_TRUMPS_IT = 4000     # the declarer is void in the suit and holds trumps
DECLARER_HOLDS_MASTER = 2000  # ouvert: the open hand holds the suit's best card
PARTNER_TRUMPS_SHORT_WAY = 500  # the partner can trump it, the declarer playing second
PARTNER_TRUMPS_LONG_WAY = 200   # the same, the declarer playing last
OWN_LENGTH = 100              # per card of ours: lead long through the declarer, short around it
DECLARER_LENGTH = 60          # per card the declarer may hold in the suit: lead where it is short
BARE_TEN = 1000               # only a ten to lead while its ace is out: the ace would catch it
LEAD_HEIGHT = 8               # then the lowest card (ORDER * 8), then the lowest suit (0..3)
#: Resolution of the deviation probability.
_DEVIATION_STEPS = 1 << 24


# --- facts from the view ----------------------------------------------------------------


@njit(cache=True)
def cards_out(view):
    """Cards in the other hands or an unseen skat: neither played, nor held, nor discarded by this seat."""
    return ~(view[VIEW_PLAYED] | view[VIEW_OWN_HAND] | view[VIEW_OWN_SKAT]) & ALL_CARDS


@njit(cache=True)
def may_hold(view, seat, out):
    """Cards ``seat`` may still hold: an ouvert declarer's open cards, else the cards out
    outside the suits it has shown void in (and outside the declarer's open cards)."""
    if view[VIEW_OUVERT] and seat == view[VIEW_DECLARER]:
        return view[VIEW_OUVERT_CARDS]
    return out & ~VOID_CARDS[view[VIEW_GAME], view[VIEW_VOIDS + seat]] & ~view[VIEW_OUVERT_CARDS]


@njit(cache=True)
def partner_of(view):
    """The other defender (seats are 0, 1, 2)."""
    return 3 - view[VIEW_SEAT] - view[VIEW_DECLARER]


@njit(cache=True)
def seat_at(view, position):
    """The seat that plays ``position`` (0 = lead) in the current trick."""
    return (view[VIEW_LEADER] + position) % 3


@njit(cache=True)
def winning_position(view):
    """Position of the card that wins the trick so far (the trick is not empty)."""
    first, n = view[VIEW_TRICK], view[VIEW_IN_TRICK]
    second = view[VIEW_TRICK + 1] if n > 1 else first
    return trick_winner(view[VIEW_GAME], first, second, second)


@njit(cache=True)
def trick_points(view):
    total = 0
    for pos in range(view[VIEW_IN_TRICK]):
        total += CARD_POINTS[view[VIEW_TRICK + pos]]
    return total


@njit(cache=True)
def declarer_has_played(view):
    for pos in range(view[VIEW_IN_TRICK]):
        if seat_at(view, pos) == view[VIEW_DECLARER]:
            return True
    return False


@njit(cache=True)
def masters(game, cards, out):
    """The cards of ``cards`` that no card out can top in their own effective suit."""
    found, m = np.int64(0), cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        if (ABOVE[game, c] & out) == 0:
            found |= np.int64(1) << c
    return found


@njit(cache=True)
def can_beat(game, holdings, winning, led):
    """Whether a seat that may hold ``holdings`` can beat ``winning`` in a trick led in
    effective suit ``led``. A seat that may hold the led suit is taken to follow it; one
    that cannot hold it may trump."""
    if holdings & SUIT_CARDS[game, led]:
        return EFFECTIVE_SUIT[game, winning] == led and (holdings & ABOVE[game, winning]) != 0
    return (holdings & BEATERS[game, winning]) != 0


# --- choosing one card of a set -----------------------------------------------------------


@njit(cache=True)
def highest_card(game, cards):
    """The highest card by order (of two equal orders the higher card id)."""
    best, best_key, m = -1, -1, cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        key = ORDER[game, c] * ID_PLACE + c
        if key > best_key:
            best, best_key = c, key
    return best


@njit(cache=True)
def lowest_in_order(game, cards):
    """The lowest card by order (of two equal orders the lower card id)."""
    best, best_key, m = -1, _NO_KEY, cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        key = ORDER[game, c] * ID_PLACE + c
        if key < best_key:
            best, best_key = c, key
    return best


@njit(cache=True)
def cheapest_winning_card(game, winners):
    """Cards of the led suit before trumps, the lowest first: the points of the trick are
    taken either way, so the cost of a winner is the trick-taking power spent on it."""
    best, best_key, m = -1, _NO_KEY, winners
    while m:
        c = lowest_card(m)
        m &= m - 1
        key = ORDER[game, c] * ID_PLACE + c + (TRUMP_PLACE if EFFECTIVE_SUIT[game, c] == TRUMP else 0)
        if key < best_key:
            best, best_key = c, key
    return best


@njit(cache=True)
def cheapest_card(game, cards, keep):
    """The card that gives away least: fewest points, then lowest order; cards in ``keep``
    (trumps, masters) only when nothing else is left."""
    best, best_key, m = -1, _NO_KEY, cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        key = CARD_POINTS[c] * POINTS_PLACE + ORDER[game, c] * ID_PLACE + c + (KEEP_PLACE if keep >> c & 1 else 0)
        if key < best_key:
            best, best_key = c, key
    return best


@njit(cache=True)
def most_points(game, cards, keep):
    """The card with most points, the lower of equal ones; cards in ``keep`` only when nothing else is left."""
    best, best_key, m = -1, -_NO_KEY, cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        key = CARD_POINTS[c] * POINTS_PLACE - ORDER[game, c] * ID_PLACE - c - (KEEP_PLACE if keep >> c & 1 else 0)
        if key > best_key:
            best, best_key = c, key
    return best


# --- suit and grand: the declarer ---------------------------------------------------------


@njit(cache=True)
def defenders_may_hold(view, out):
    """Cards either defender may hold (the skat of a hand game included: nobody has seen it)."""
    d = view[VIEW_DECLARER]
    return may_hold(view, (d + 1) % 3, out) | may_hold(view, (d + 2) % 3, out)


@njit(cache=True)
def draw_trumps(game, trumps, out):
    """Lead the highest trump when nothing out tops it; otherwise a low trump, by points
    first so that a jack goes before a ten the ace could catch."""
    top = highest_card(game, trumps)
    if (ABOVE[game, top] & out) == 0:
        return top
    return cheapest_card(game, trumps, np.int64(0))


@njit(cache=True)
def safe_leads(view, game, cards, out):
    """Cards neither defender can beat when led (by what each may hold)."""
    d = view[VIEW_DECLARER]
    first, second = may_hold(view, (d + 1) % 3, out), may_hold(view, (d + 2) % 3, out)
    found, m = np.int64(0), cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        led = EFFECTIVE_SUIT[game, c]
        if not can_beat(game, first, c, led) and not can_beat(game, second, c, led):
            found |= np.int64(1) << c
    return found


@njit(cache=True)
def cash_masters(game, masters_):
    """The master with most points first: aces, then tens whose ace is gone."""
    return most_points(game, masters_, np.int64(0))


@njit(cache=True)
def low_side_card(game, side, hand):
    """A low card of the side suit where the hand has the fewest points at stake: leading
    from a suit with a ten or an ace invites the defenders to win cheaply or smear."""
    best, best_key, m = -1, _NO_KEY, side
    while m:
        c = lowest_card(m)
        m &= m - 1
        suit_points = card_points(hand & SUIT_CARDS[game, EFFECTIVE_SUIT[game, c]])
        key = CARD_POINTS[c] * SIDE_POINTS_PLACE + suit_points * SUIT_POINTS_PLACE + ORDER[game, c] * ID_PLACE + c
        if key < best_key:
            best, best_key = c, key
    return best


@njit(cache=True)
def declarer_lead(view, legal):
    """Draw trumps while the defenders may hold any; then cash safe side masters; else lead low."""
    game, out = view[VIEW_GAME], cards_out(view)
    trumps = legal & TRUMP_CARDS[game]
    if trumps and defenders_may_hold(view, out) & TRUMP_CARDS[game]:
        return draw_trumps(game, trumps, out)
    side = legal & ~TRUMP_CARDS[game]
    safe = safe_leads(view, game, side, out)
    if safe:
        return cash_masters(game, safe)
    if side:
        return low_side_card(game, side, view[VIEW_OWN_HAND])
    return draw_trumps(game, trumps, out)


@njit(cache=True)
def sure_winners(view, game, winners, led, out):
    """Winners the seats still to play cannot beat (by what each may hold)."""
    found, m = np.int64(0), winners
    while m:
        c = lowest_card(m)
        m &= m - 1
        safe = True
        for pos in range(view[VIEW_IN_TRICK] + 1, 3):
            if can_beat(game, may_hold(view, seat_at(view, pos), out), c, led):
                safe = False
        if safe:
            found |= np.int64(1) << c
    return found


@njit(cache=True)
def declarer_follow(view, legal):
    """Take the trick with the cheapest winner when playing last, when it holds points, or
    when a winner is sure (a defender still to play could otherwise smear); else play the
    cheapest card, keeping trumps and masters."""
    game, out = view[VIEW_GAME], cards_out(view)
    led = EFFECTIVE_SUIT[game, view[VIEW_TRICK]]
    winning = view[VIEW_TRICK + winning_position(view)]
    winners = legal & BEATERS[game, winning]
    if winners:
        if view[VIEW_IN_TRICK] == 2:
            return cheapest_winning_card(game, winners)
        sure = sure_winners(view, game, winners, led, out)
        if sure:
            return cheapest_winning_card(game, sure)
        if trick_points(view) > 0:
            return cheapest_winning_card(game, winners)
    keep = TRUMP_CARDS[game] | masters(game, legal, out)
    return cheapest_card(game, legal, keep)


# --- suit and grand: the defenders --------------------------------------------------------


@njit(cache=True)
def lead_through_declarer(view, game, side, out, declarer_cards):
    """A low card of the best side suit to lead. Avoid suits the declarer will trump or
    (ouvert) holds the master of; when the declarer plays second ("the short way"), lead
    the long suit through it, when it plays last ("the long way"), a short one; prefer
    suits where the declarer may hold few cards and suits the partner can trump; never a
    bare ten while its ace is out."""
    me, partner = view[VIEW_SEAT], partner_of(view)
    declarer_second = (me + 1) % 3 == view[VIEW_DECLARER]
    trumps = TRUMP_CARDS[game]
    partner_cards = may_hold(view, partner, out)
    best, best_key = -1, _NO_KEY
    for suit in range(4):
        mine = side & SUIT_CARDS[game, suit]
        if mine == 0:
            continue
        suit_out = SUIT_CARDS[game, suit] & out
        key = 0
        if (declarer_cards & SUIT_CARDS[game, suit]) == 0 and declarer_cards & trumps:
            key += DECLARER_TRUMPS_IT
        elif view[VIEW_OUVERT] and suit_out and declarer_cards >> highest_card(game, suit_out) & 1:
            key += DECLARER_HOLDS_MASTER
        if (partner_cards & SUIT_CARDS[game, suit]) == 0 and partner_cards & trumps:
            key -= PARTNER_TRUMPS_SHORT_WAY if declarer_second else PARTNER_TRUMPS_LONG_WAY
        length = popcount(mine)
        key += -OWN_LENGTH * length if declarer_second else OWN_LENGTH * length
        key += DECLARER_LENGTH * popcount(declarer_cards & SUIT_CARDS[game, suit])
        card = lowest_in_order(game, mine)
        if CARD_POINTS[card] >= 10 and ABOVE[game, card] & out:
            key += BARE_TEN
        key += ORDER[game, card] * LEAD_HEIGHT + suit
        if key < best_key:
            best, best_key = card, key
    return best


@njit(cache=True)
def defender_lead(view, legal):
    """Cash a master the declarer cannot beat; else lead through the declarer; trumps last."""
    game, out = view[VIEW_GAME], cards_out(view)
    declarer_cards = may_hold(view, view[VIEW_DECLARER], out)
    side = legal & ~TRUMP_CARDS[game]
    cash, m = np.int64(0), side
    while m:
        c = lowest_card(m)
        m &= m - 1
        if not can_beat(game, declarer_cards, c, EFFECTIVE_SUIT[game, c]):
            cash |= np.int64(1) << c
    if cash:
        return cash_masters(game, cash)
    if side:
        return lead_through_declarer(view, game, side, out, declarer_cards)
    top = masters(game, legal, out)
    if top:
        return highest_card(game, top)
    return cheapest_card(game, legal, np.int64(0))


@njit(cache=True)
def smear_points(game, legal, led, out):
    """Give the partner's trick the card with most points ("schmieren", a ten is the
    classic), keeping trumps (unless trumps were led) and the masters of other suits."""
    keep = masters(game, legal, out) & ~SUIT_CARDS[game, led]
    if led != TRUMP:
        keep |= TRUMP_CARDS[game]
    return most_points(game, legal, keep)


@njit(cache=True)
def defender_follow(view, legal):
    """Smear when the partner's card will win; beat the declarer's card with the cheapest
    winner; take over a trick the declarer could still win when a card of ours is sure;
    else play the cheapest card."""
    game, out = view[VIEW_GAME], cards_out(view)
    declarer = view[VIEW_DECLARER]
    led = EFFECTIVE_SUIT[game, view[VIEW_TRICK]]
    pos = winning_position(view)
    winning = view[VIEW_TRICK + pos]
    keep = TRUMP_CARDS[game] | masters(game, legal, out)
    if seat_at(view, pos) != declarer:
        declarer_cards = may_hold(view, declarer, out)
        if declarer_has_played(view) or not can_beat(game, declarer_cards, winning, led):
            return smear_points(game, legal, led, out)
        winners = legal & BEATERS[game, winning]
        sure = sure_winners(view, game, winners, led, out)
        if sure:
            return cheapest_winning_card(game, sure)
        return cheapest_card(game, legal, keep)
    winners = legal & BEATERS[game, winning]
    if winners:
        return cheapest_winning_card(game, winners)
    return cheapest_card(game, legal, keep)


# --- null ---------------------------------------------------------------------------------


@njit(cache=True)
def stay_under(game, cards, winning):
    """The highest card that stays under the winning card, or -1: it sheds the most
    dangerous card the trick allows."""
    under = cards & BELOW[game, winning]
    if under:
        return highest_card(game, under)
    return -1


@njit(cache=True)
def riskiest_null_card(hand, cards, out):
    """For a discard by the null declarer: the card the defenders could most often lead
    under (cards out below it, less the declarer's own cards below it), highest first."""
    best, best_key, m = -1, -_NO_KEY, cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        danger = popcount(out & BELOW[NULL, c]) - popcount(hand & BELOW[NULL, c])
        key = danger * DANGER_PLACE + ORDER[NULL, c] * ID_PLACE + c
        if key > best_key:
            best, best_key = c, key
    return best


@njit(cache=True)
def null_declarer_follow(view, legal):
    """Stay under the winning card; when that is impossible and a defender still plays,
    the lowest card gives that defender the best chance of being forced over it (played
    last, the trick is lost whatever the card). Void: discard the riskiest card."""
    game = view[VIEW_GAME]
    winning = view[VIEW_TRICK + winning_position(view)]
    led = EFFECTIVE_SUIT[game, view[VIEW_TRICK]]
    following = legal & SUIT_CARDS[NULL, led]
    if following:
        card = stay_under(game, following, winning)
        if card >= 0:
            return card
        if view[VIEW_IN_TRICK] == 1:
            return lowest_in_order(game, following)
        return highest_card(game, following)
    return riskiest_null_card(view[VIEW_OWN_HAND], legal, cards_out(view))


@njit(cache=True)
def null_declarer_lead(view, legal):
    """The lowest card of the safest suit: fewest defenders' cards below it, and some above
    it so that a defender holding the suit must go over it."""
    game, out = view[VIEW_GAME], cards_out(view)
    defenders = defenders_may_hold(view, out)
    best, best_key = -1, _NO_KEY
    for suit in range(4):
        mine = legal & SUIT_CARDS[NULL, suit]
        if mine == 0:
            continue
        card = lowest_in_order(game, mine)
        under = popcount(defenders & BELOW[NULL, card])
        over = popcount(defenders & ABOVE[NULL, card])
        # fewest defenders' cards under it first (8 places of 256), then most over it (16 each)
        key = under * 256 - over * 16 + ORDER[NULL, card]
        if over == 0:
            key += LAST_RESORT  # no defender can go over it: the declarer takes the trick
        if key < best_key:
            best, best_key = card, key
    return best


@njit(cache=True)
def null_defender_lead(view, legal):
    """A low card of a suit the declarer still may hold, where the declarer has the fewest
    cards to duck under it (the ouvert hand shows them exactly)."""
    game, out = view[VIEW_GAME], cards_out(view)
    declarer_cards = may_hold(view, view[VIEW_DECLARER], out)
    best, best_key = -1, _NO_KEY
    for suit in range(4):
        mine = legal & SUIT_CARDS[NULL, suit]
        if mine == 0:
            continue
        card = lowest_in_order(game, mine)
        theirs = declarer_cards & SUIT_CARDS[NULL, suit]
        # fewest declarer's cards under it (64 each), then the lowest card (4 each), then the suit
        key = popcount(theirs & BELOW[NULL, card]) * 64 + ORDER[NULL, card] * 4 + suit
        if theirs == 0:
            key += LAST_RESORT  # the declarer is void there and simply discards
        if key < best_key:
            best, best_key = card, key
    return best


@njit(cache=True)
def null_discard(view, legal, out):
    """A defender's discard: the highest card, first from suits the declarer cannot hold:
    low cards are what catches the declarer, high ones are useless."""
    declarer_cards = may_hold(view, view[VIEW_DECLARER], out)
    best, best_key, m = -1, -1, legal
    while m:
        c = lowest_card(m)
        m &= m - 1
        key = ORDER[NULL, c] * ID_PLACE + c
        if (declarer_cards & SUIT_CARDS[NULL, EFFECTIVE_SUIT[NULL, c]]) == 0:
            key += VOID_SUIT_PLACE
        if key > best_key:
            best, best_key = c, key
    return best


@njit(cache=True)
def null_defender_follow(view, legal):
    """Duck under the declarer's winning card; play low while the declarer is still to play
    so that its card is more likely to win; once it has escaped, shed a high card."""
    game = view[VIEW_GAME]
    winning = view[VIEW_TRICK + winning_position(view)]
    led = EFFECTIVE_SUIT[game, view[VIEW_TRICK]]
    following = legal & SUIT_CARDS[NULL, led]
    if not following:
        return null_discard(view, legal, cards_out(view))
    if seat_at(view, winning_position(view)) == view[VIEW_DECLARER]:
        card = stay_under(game, following, winning)
        return card if card >= 0 else highest_card(game, following)
    if not declarer_has_played(view):
        return lowest_in_order(game, following)
    return highest_card(game, following)


# --- the policy ---------------------------------------------------------------------------


@njit(cache=True)
def rule_based_card(view, legal):
    """The heuristic's card: dispatch on game type, role and whether the seat leads."""
    leads = view[VIEW_IN_TRICK] == 0
    if view[VIEW_SEAT] == view[VIEW_DECLARER]:
        if view[VIEW_GAME] == NULL:
            return null_declarer_lead(view, legal) if leads else null_declarer_follow(view, legal)
        return declarer_lead(view, legal) if leads else declarer_follow(view, legal)
    if view[VIEW_GAME] == NULL:
        return null_defender_lead(view, legal) if leads else null_defender_follow(view, legal)
    return defender_lead(view, legal) if leads else defender_follow(view, legal)


@njit(cache=True)
def heuristic_card(view, legal, params, rng):
    """A club player's card by rule of thumb (see the rule kernels above).

    ``params[0]`` is the probability of a deviation: a uniformly random legal card
    instead (0, the default, never deviates and never draws from ``rng``).
    """
    legal = np.int64(legal)
    if (legal & (legal - 1)) == 0:
        return rng, lowest_card(legal)
    if params[0] > 0.0:
        rng, draw = below(rng, np.int64(_DEVIATION_STEPS))
        if draw < params[0] * _DEVIATION_STEPS:
            rng, pick = below(rng, popcount(legal))
            return rng, nth_card(legal, pick)
    return rng, rule_based_card(view, legal)


@register("card_play", "heuristic", ranges={"deviation": (0, 1)})
def heuristic_policy(deviation: float = 0.0) -> CardPolicy:
    """Club-player rules of thumb: draw trumps, cash masters, smear, stay under in null.

    ``deviation`` is the probability (0 to 1) of playing a uniformly random legal card
    instead of the rule's card; the default 0 plays the rules deterministically.
    """
    return CardPolicy("heuristic", heuristic_card, (float(deviation),), builtin=HEURISTIC_KIND)


# --- the built-in policies in one cached play loop -------------------------------------------


@njit(cache=True)
def choose_among(view, cards):
    """One of ``cards`` (all as good as each other to a search): the heuristic's choice among them."""
    cards = np.int64(cards)
    if (cards & (cards - 1)) == 0:
        return lowest_card(cards)
    return rule_based_card(view, cards)


@njit(cache=True)
def builtin_card(view, legal, params, rng, state, counted_skat, tt, stack):
    """The card of the built-in policy named by ``params[BUILTIN_KIND]``. The searching players use the
    solver's table ``tt`` and ``stack``; only ``open_hand`` reads the full ``state`` (it sees every hand)."""
    kind = params[BUILTIN_KIND]
    if kind == HEURISTIC_KIND:
        return heuristic_card(view, legal, params, rng)
    if kind == PIMC_KIND:
        rng, best = pimc_best(view, legal, params, rng, tt, stack)
        return rng, choose_among(view, best)
    if kind == OPEN_HAND_KIND:
        return rng, choose_among(view, open_hand_best(state, counted_skat, legal, tt, stack))
    return random_card(view, legal, params, rng)


@njit(cache=True)
def play_out_builtin(state, declarer_skat, view, params, rng, log, counted_skat, tt, stack):
    """:func:`sim.rules.play.play_out` for built-in policies, calling them directly so numba can cache it.

    ``declarer_skat`` is the declarer's discard as the views show it (0 in a hand game);
    ``counted_skat`` the two cards that count for the declarer unplayed, for the open-hand player.
    """
    log[:] = -1
    n = 0
    while not state[STATE_FINISHED]:
        seat = to_play(state)
        legal = start_turn(state, declarer_skat, view)
        rng, card = builtin_card(view, legal, params[seat], rng, state, counted_skat, tt, stack)
        finish_turn(state, legal, card, log, n)
        n += 1
    return rng


# --- the searching players --------------------------------------------------------------------

#: Worlds a PIMC player draws at each decision: see docs/strategies.md for how it was chosen.
DEFAULT_WORLDS = 4
SCORES = ("game", "points")


@njit(cache=True)
def pimc_card(view, legal, params, rng):
    """The PIMC card for a play loop that hands out no solver table: one is made per decision."""
    tt, stack = own_workspace()
    rng, best = pimc_best(view, legal, params, rng, tt, stack)
    return rng, choose_among(view, best)


@register("card_play", "pimc", ranges={"worlds": (1, 1000)})
def pimc_policy(worlds: int = DEFAULT_WORLDS, score: str = "game", inference: bool = False) -> CardPolicy:
    """Perfect-information Monte Carlo: worlds of the unseen cards, each solved open-handed (strategies/pimc.py).

    ``worlds`` per decision; ``score`` "game" (win or loss, schneider, the announcements, in
    Seeger-Fabian points) or "points" (the declarer's card points); ``inference`` weights down
    worlds in which the declared game could not have reached the bid.
    """
    if score not in SCORES:
        raise StrategyError(f"score must be one of {', '.join(SCORES)}, not {score!r}")
    return CardPolicy("pimc", pimc_card, (float(worlds), float(SCORES.index(score)), float(inference)),
                      builtin=PIMC_KIND)


@njit(cache=True)
def _needs_every_hand(view, legal, params, rng):
    raise ValueError("the open_hand player sees every hand and plays only in skatsim's own play loop")


@register("card_play", "open_hand")
def open_hand_policy() -> CardPolicy:
    """The open-hand best card, seeing every hand: an upper bound of any card player (it cheats)."""
    return CardPolicy("open_hand", _needs_every_hand, builtin=OPEN_HAND_KIND)
