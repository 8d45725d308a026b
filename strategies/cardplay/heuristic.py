"""The heuristic card player: the rules of thumb a decent club player follows.

Draw trumps, cash masters, lead through the declarer, smear the partner's tricks, stay
under in null: one small kernel per rule, each reading what the seat knows through
:mod:`strategies.cardplay.heuristic_facts`. :func:`choose_among` is the same rules' choice
among cards a search finds equally good (the ``pimc`` and ``open_hand`` players use it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.rules.cards import CARD_POINTS, card_points, lowest_card, nth_card, popcount
from sim.rules.games import NULL
from sim.rules.rng import below
from sim.rules.tricks import ABOVE, BEATERS, BELOW, EFFECTIVE_SUIT, ORDER, TRUMP
from sim.rules.view import VIEW

from ..parameters import Parameter, row, slots
from ..registry import register
from .heuristic_facts import (
    ID_PLACE,
    NO_KEY,
    SUIT_CARDS,
    TRUMP_CARDS,
    can_beat,
    cards_out,
    cheapest_card,
    cheapest_winning_card,
    declarer_has_played,
    defenders_may_hold,
    highest_card,
    lowest_in_order,
    masters,
    may_hold,
    most_points,
    partner_of,
    seat_at,
    trick_points,
    winning_position,
)
from .policy import CardPolicy, KernelPlayer

#: Its parameters, and their slots in its row.
HEURISTIC_PARAMETERS = (
    Parameter("deviation", "number", 0.0, "the probability of a uniformly random legal card instead of the rules' "
              "card (0: the rules alone)", (0, 1)),
)
HEURISTIC = slots("Heuristic", HEURISTIC_PARAMETERS)

# Sort key places of the rules below, beyond those of strategies.cardplay.heuristic_facts:
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


# --- suit and grand: the declarer ---------------------------------------------------------


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
    d = view[VIEW.declarer]
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
    best, best_key, m = -1, NO_KEY, side
    while m:
        c = lowest_card(m)
        m &= m - 1
        suit_points = card_points(hand & SUIT_CARDS[game, EFFECTIVE_SUIT[game, c]])
        key = CARD_POINTS[c] * SIDE_POINTS_PLACE + suit_points * SUIT_POINTS_PLACE + ORDER[game, c] * ID_PLACE + c
        if key < best_key:
            best, best_key = c, key
    return best


@njit(cache=True)
def declarer_lead(view, legal, game, out):
    """Draw trumps while the defenders may hold any; then cash safe side masters; else lead low."""
    trumps = legal & TRUMP_CARDS[game]
    if trumps and defenders_may_hold(view, out) & TRUMP_CARDS[game]:
        return draw_trumps(game, trumps, out)
    side = legal & ~TRUMP_CARDS[game]
    safe = safe_leads(view, game, side, out)
    if safe:
        return cash_masters(game, safe)
    if side:
        return low_side_card(game, side, view[VIEW.own_hand])
    return draw_trumps(game, trumps, out)


@njit(cache=True)
def sure_winners(view, game, winners, led, out):
    """Winners the seats still to play cannot beat (by what each may hold)."""
    # what the seats after this one may hold (nothing for a position already played: it beats nothing)
    second = may_hold(view, seat_at(view, 1), out) if view[VIEW.in_trick] < 1 else np.int64(0)
    third = may_hold(view, seat_at(view, 2), out) if view[VIEW.in_trick] < 2 else np.int64(0)
    found, m = np.int64(0), winners
    while m:
        c = lowest_card(m)
        m &= m - 1
        if not can_beat(game, second, c, led) and not can_beat(game, third, c, led):
            found |= np.int64(1) << c
    return found


@njit(cache=True)
def declarer_follow(view, legal, game, out):
    """Take the trick with the cheapest winner when playing last, when it holds points, or
    when a winner is sure (a defender still to play could otherwise smear); else play the
    cheapest card, keeping trumps and masters."""
    led = EFFECTIVE_SUIT[game, view[VIEW.trick]]
    winning = view[VIEW.trick + winning_position(view)]
    winners = legal & BEATERS[game, winning]
    if winners:
        if view[VIEW.in_trick] == 2:
            return cheapest_winning_card(game, winners)
        sure = sure_winners(view, game, winners, led, out)
        if sure:
            return cheapest_winning_card(game, sure)
        if trick_points(view) > 0:
            return cheapest_winning_card(game, winners)
    keep = TRUMP_CARDS[game] | masters(game, legal, out)
    return cheapest_card(game, legal, keep)


# --- suit and grand: the defenders --------------------------------------------------------


# The search for the card of least key repeats low_side_card's on purpose: a kernel cannot take the key
# as an argument and stay cached, and each rule's key is what the rule says.
@njit(cache=True)
def lead_through_declarer(view, game, side, out, declarer_cards):
    """A low card of the best side suit to lead. Avoid suits the declarer will trump or
    (ouvert) holds the master of; when the declarer plays second ("the short way"), lead
    the long suit through it, when it plays last ("the long way"), a short one; prefer
    suits where the declarer may hold few cards and suits the partner can trump; never a
    bare ten while its ace is out."""
    me, partner = view[VIEW.seat], partner_of(view)
    declarer_second = (me + 1) % 3 == view[VIEW.declarer]
    trumps = TRUMP_CARDS[game]
    partner_cards = may_hold(view, partner, out)
    best, best_key = -1, NO_KEY
    for suit in range(4):
        mine = side & SUIT_CARDS[game, suit]
        if mine == 0:
            continue
        suit_out = SUIT_CARDS[game, suit] & out
        key = 0
        if (declarer_cards & SUIT_CARDS[game, suit]) == 0 and declarer_cards & trumps:
            key += DECLARER_TRUMPS_IT
        elif view[VIEW.ouvert] and suit_out and declarer_cards >> highest_card(game, suit_out) & 1:
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
def defender_lead(view, legal, game, out):
    """Cash a master the declarer cannot beat; else lead through the declarer; trumps last."""
    declarer_cards = may_hold(view, view[VIEW.declarer], out)
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
def defender_follow(view, legal, game, out):
    """Smear when the partner's card will win; beat the declarer's card with the cheapest
    winner; take over a trick the declarer could still win when a card of ours is sure;
    else play the cheapest card."""
    declarer = view[VIEW.declarer]
    led = EFFECTIVE_SUIT[game, view[VIEW.trick]]
    pos = winning_position(view)
    winning = view[VIEW.trick + pos]
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
    best, best_key, m = -1, -NO_KEY, cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        danger = popcount(out & BELOW[NULL, c]) - popcount(hand & BELOW[NULL, c])
        key = danger * DANGER_PLACE + ORDER[NULL, c] * ID_PLACE + c
        if key > best_key:
            best, best_key = c, key
    return best


@njit(cache=True)
def null_declarer_follow(view, legal, game, out):
    """Stay under the winning card; when that is impossible and a defender still plays,
    the lowest card gives that defender the best chance of being forced over it (played
    last, the trick is lost whatever the card). Void: discard the riskiest card."""
    winning = view[VIEW.trick + winning_position(view)]
    led = EFFECTIVE_SUIT[game, view[VIEW.trick]]
    following = legal & SUIT_CARDS[NULL, led]
    if following:
        card = stay_under(game, following, winning)
        if card >= 0:
            return card
        if view[VIEW.in_trick] == 1:
            return lowest_in_order(game, following)
        return highest_card(game, following)
    return riskiest_null_card(view[VIEW.own_hand], legal, out)


@njit(cache=True, inline="always")
def lowest_of_null_suit(game, cards, suit):
    """The lowest of ``cards`` in the null suit ``suit`` (0..3), or -1 when none is of it: what a null lead
    leads of a suit."""
    mine = cards & SUIT_CARDS[NULL, suit]
    if mine == 0:
        return -1
    return lowest_in_order(game, mine)


@njit(cache=True)
def null_declarer_lead(view, legal, game, out):
    """The lowest card of the safest suit: fewest defenders' cards below it, and some above
    it so that a defender holding the suit must go over it."""
    defenders = defenders_may_hold(view, out)
    best, best_key = -1, NO_KEY
    for suit in range(4):
        card = lowest_of_null_suit(game, legal, suit)
        if card < 0:
            continue
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
def null_defender_lead(view, legal, game, out):
    """A low card of a suit the declarer still may hold, where the declarer has the fewest
    cards to duck under it (the ouvert hand shows them exactly)."""
    declarer_cards = may_hold(view, view[VIEW.declarer], out)
    best, best_key = -1, NO_KEY
    for suit in range(4):
        card = lowest_of_null_suit(game, legal, suit)
        if card < 0:
            continue
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
    declarer_cards = may_hold(view, view[VIEW.declarer], out)
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
def null_defender_follow(view, legal, game, out):
    """Duck under the declarer's winning card; play low while the declarer is still to play
    so that its card is more likely to win; once it has escaped, shed a high card."""
    pos = winning_position(view)
    winning = view[VIEW.trick + pos]
    led = EFFECTIVE_SUIT[game, view[VIEW.trick]]
    following = legal & SUIT_CARDS[NULL, led]
    if not following:
        return null_discard(view, legal, out)
    if seat_at(view, pos) == view[VIEW.declarer]:
        card = stay_under(game, following, winning)
        return card if card >= 0 else highest_card(game, following)
    if not declarer_has_played(view):
        return lowest_in_order(game, following)
    return highest_card(game, following)


# --- the player ---------------------------------------------------------------------------


@njit(cache=True, inline="always")
def rule_based_card(view, legal):
    """The heuristic's card: dispatch on game type, role and whether the seat leads. Each rule is given
    the game and the cards out (:func:`strategies.cardplay.heuristic_facts.cards_out`) with the view."""
    game, out = view[VIEW.game], cards_out(view)
    leads = view[VIEW.in_trick] == 0
    if view[VIEW.seat] == view[VIEW.declarer]:
        if game == NULL:
            return null_declarer_lead(view, legal, game, out) if leads else null_declarer_follow(view, legal, game, out)
        return declarer_lead(view, legal, game, out) if leads else declarer_follow(view, legal, game, out)
    if game == NULL:
        return null_defender_lead(view, legal, game, out) if leads else null_defender_follow(view, legal, game, out)
    return defender_lead(view, legal, game, out) if leads else defender_follow(view, legal, game, out)


@njit(cache=True, inline="always")
def heuristic_card(view, legal, params, data, rng):
    """A club player's card by rule of thumb (see the rule kernels above).

    ``params[HEURISTIC.deviation]`` is the probability of a deviation: a uniformly random
    legal card instead (0, the default, never deviates and never draws from ``rng``).
    """
    return heuristic_choice(view, legal, params[HEURISTIC.deviation], rng)


@njit(cache=True, inline="always")
def heuristic_turn(view, legal, params, data, seat, rng):
    """:func:`heuristic_card` as the play loops ask it (:class:`strategies.cardplay.policy.KernelPlayer`):
    the deviation read from the parameter matrix without slicing a row each turn (a slice of an array
    costs two atomic reference counts)."""
    return heuristic_choice(view, legal, params[seat, HEURISTIC.deviation], rng)


@njit(cache=True, inline="always")
def heuristic_choice(view, legal, deviation, rng):
    """:func:`heuristic_card` given its deviation as a number."""
    legal = np.int64(legal)
    if (legal & (legal - 1)) == 0:
        return rng, lowest_card(legal)
    if deviation > 0.0:
        rng, draw = below(rng, np.int64(_DEVIATION_STEPS))
        if draw < deviation * _DEVIATION_STEPS:
            rng, pick = below(rng, popcount(legal))
            return rng, nth_card(legal, pick)
    return rng, rule_based_card(view, legal)


#: What the play loops need to know of it.
HEURISTIC_PLAYER = KernelPlayer(heuristic_card, turn=heuristic_turn)


@register("card_play", "heuristic", parameters=HEURISTIC_PARAMETERS)
def heuristic_policy(deviation) -> CardPolicy:
    """Club-player rules of thumb: draw trumps, cash masters, smear, stay under in null."""
    return CardPolicy("heuristic", HEURISTIC_PLAYER, row(HEURISTIC, HEURISTIC_PARAMETERS, {"deviation": deviation}))


@njit(cache=True)
def choose_among(view, cards):
    """One of ``cards`` (all as good as each other to a search): the heuristic's choice among them."""
    cards = np.int64(cards)
    if (cards & (cards - 1)) == 0:
        return lowest_card(cards)
    return rule_based_card(view, cards)
