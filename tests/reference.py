"""Slow reference rules, written straight from the rule text of the International Skat Order.

Nothing here uses the engine's tables or bit tricks: cards are texts like ``"HJ"``
and ``"D10"``, orders are the lists of the rules written out, and every function
is the plainest loop that says what the rule says. The tests compare the engine's
fast kernels with these on known positions and on thousands of random games.

The only thing shared with the engine is the card id encoding of the design
(``id = suit * 8 + rank``, suits D H S C, ranks 7 8 9 Q K 10 A J), used to turn
the engine's ids and masks into texts.
"""

from __future__ import annotations

from functools import cache

SUITS = "DHSC"
RANKS = ("7", "8", "9", "Q", "K", "10", "A", "J")

# Game ids of the engine: the trump suit's index for suit games, then grand and null.
GAME_SUIT = {0: "D", 1: "H", 2: "S", 3: "C"}
GRAND, NULL = 4, 5

CARD_POINTS = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
JACKS_HIGH_TO_LOW = ["CJ", "SJ", "HJ", "DJ"]
PLAIN_HIGH_TO_LOW = ["A", "10", "K", "Q", "9", "8", "7"]
NULL_HIGH_TO_LOW = ["A", "K", "Q", "J", "10", "9", "8", "7"]
BASE_VALUE = {0: 9, 1: 10, 2: 11, 3: 12, GRAND: 24}
NULL_VALUE = {(False, False): 23, (True, False): 35, (False, True): 46, (True, True): 59}


# --- cards ----------------------------------------------------------------------------

def text(card_id: int) -> str:
    return SUITS[card_id // 8] + RANKS[card_id % 8]


def texts(mask: int) -> list[str]:
    """Texts of the cards of a mask, lowest id first."""
    mask, out = int(mask), []
    while mask:
        low = mask & -mask
        out.append(text(low.bit_length() - 1))
        mask ^= low
    return out


def card_id(card: str) -> int:
    return SUITS.index(card[0]) * 8 + RANKS.index(card[1:])


def mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << card_id(c)
    return m


def suit(card: str) -> str:
    return card[0]


def rank(card: str) -> str:
    return card[1:]


def points(cards) -> int:
    return sum(CARD_POINTS[rank(c)] for c in cards)


# --- card order -----------------------------------------------------------------------

@cache
def trumps(game: int) -> tuple[str, ...]:
    """The trumps of a game, highest first."""
    if game == NULL:
        return ()
    if game == GRAND:
        return tuple(JACKS_HIGH_TO_LOW)
    return tuple(JACKS_HIGH_TO_LOW + [GAME_SUIT[game] + r for r in PLAIN_HIGH_TO_LOW])


def belongs_to(game: int, card: str) -> str:
    """The suit a card counts as in play: ``"trump"`` or its suit letter."""
    return "trump" if card in trumps(game) else suit(card)


def strength(game: int, card: str) -> int:
    """Higher is stronger; only comparable between cards that belong to the same suit."""
    if card in trumps(game):
        order = trumps(game)
        return len(order) - order.index(card)
    order = NULL_HIGH_TO_LOW if game == NULL else PLAIN_HIGH_TO_LOW
    return len(order) - order.index(rank(card))


def legal_cards(game: int, hand, led: str | None) -> set[str]:
    """Cards of ``hand`` that may be played to a trick led with ``led`` (None: leading)."""
    hand = set(hand)
    if led is None:
        return hand
    same = {c for c in hand if belongs_to(game, c) == belongs_to(game, led)}
    return same or hand


def trick_winner(game: int, trick) -> int:
    """Position in the trick (0 = the lead) of the winning card."""
    trump_cards = [i for i, c in enumerate(trick) if belongs_to(game, c) == "trump"]
    led_suit = belongs_to(game, trick[0])
    candidates = trump_cards or [i for i, c in enumerate(trick) if belongs_to(game, c) == led_suit]
    return max(candidates, key=lambda i: strength(game, trick[i]))


# --- game value -----------------------------------------------------------------------

def matadors(game: int, twelve) -> int:
    """"With N" as +N, "without N" as -N, over the declarer's twelve cards; 0 in null."""
    if game == NULL:
        return 0
    order = trumps(game)
    holds_top = order[0] in twelve
    n = 0
    for c in order:
        if (c in twelve) != holds_top:
            break
        n += 1
    return n if holds_top else -n


def outcome(game, hand, schneider_announced, schwarz_announced, ouvert, bid, matadors_,
            declarer_points, declarer_tricks):
    """(won, value, overbid, schneider, schwarz) of a normalized declaration, from the rules."""
    if game == NULL:
        return declarer_tricks == 0, NULL_VALUE[(bool(hand), bool(ouvert))], False, False, False
    defender_points = 120 - declarer_points
    schneider = declarer_points <= 30 or defender_points <= 30
    schwarz = declarer_tricks == 0 or declarer_tricks == 10
    if schwarz_announced:
        won = declarer_tricks == 10
    elif schneider_announced:
        won = defender_points <= 30
    else:
        won = declarer_points > 60
    levels = ["game"]
    levels += ["hand"] if hand else []
    levels += ["schneider"] if schneider or schneider_announced else []
    levels += ["schneider announced"] if schneider_announced else []
    levels += ["schwarz"] if schwarz or schwarz_announced else []
    levels += ["schwarz announced"] if schwarz_announced else []
    levels += ["ouvert"] if ouvert else []
    multiplier = abs(matadors_) + len(levels)
    base = BASE_VALUE[game]
    overbid = base * multiplier < bid
    if overbid:
        won = False
        while base * multiplier < bid:
            multiplier += 1
    return won, base * multiplier, overbid, schneider, schwarz


def all_game_values() -> set[int]:
    """Every value a game can have: the legal bids."""
    values = set(NULL_VALUE.values())
    for game, base in BASE_VALUE.items():
        most_matadors = 4 if game == GRAND else 11
        for level in range(2, most_matadors + 8):  # with/without 1.., game, 6 more levels
            values.add(base * level)
    return values


# --- the auction between bidders with a fixed maximum -----------------------------------

def auction_by_max_bids(maxes, bids) -> tuple[int | None, int]:
    """(declarer or None, bid) when each seat bids and holds up to its maximum.

    The player with the highest reachable maximum wins, the senior one on a tie. A loser
    senior to the winner forces the bid to the first value above its maximum; a junior
    one pushes it to the last value it could name itself.
    """
    bids = sorted(int(b) for b in bids)
    reach = [max([b for b in bids if b <= m], default=0) for m in maxes]
    if max(reach) == 0:
        return None, 0
    winner = max(range(3), key=lambda s: (reach[s], -s))
    bid = bids[0]
    for seat in range(3):
        if seat == winner:
            continue
        if seat < winner:
            bid = max(bid, min(b for b in bids if b > maxes[seat]))
        else:
            bid = max(bid, reach[seat])
    return winner, bid


# --- game records -------------------------------------------------------------------------

SEAT_NAMES = ("forehand", "middlehand", "rearhand")
GAME_NAMES = ("diamonds", "hearts", "spades", "clubs", "grand", "null")
SUIT_SPELLINGS = {"D": "D", "H": "H", "S": "S", "C": "C", "♦": "D", "♥": "H", "♠": "S", "♣": "C"}


def spelled_card(text) -> str | None:
    """The card a record's text names (``cj``, ``HT``, `` ♥A``: any case, spaces around, T for 10),
    as the rules write it; None when it names no card."""
    if not isinstance(text, str):
        return None
    t = text.strip().upper()
    suit_, rank_ = SUIT_SPELLINGS.get(t[:1]), "10" if t[1:] == "T" else t[1:]
    return suit_ + rank_ if suit_ and rank_ in RANKS else None


def spelled_cards(value) -> list | None:
    """The cards of a record's card list (texts, or one text separated by spaces or commas), None
    for a card that is not one; None for a value that is no card list."""
    if isinstance(value, str):
        return [spelled_card(t) for t in value.replace(",", " ").split()]
    if isinstance(value, list) and all(isinstance(t, str) for t in value):
        return [spelled_card(t) for t in value]
    return None


def named(value, names: tuple[str, ...]) -> int | None:
    """The index of a record's seat or game: a name in any case, or the index itself."""
    if isinstance(value, str) and value.strip().lower() in names:
        return names.index(value.strip().lower())
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
        return value
    return None


def record_card_play(record: dict) -> dict:
    """The card play of a recorded game replayed by the rules alone, from forehand's first lead:
    every card must be in its player's hand and follow suit, and a game that did not end early must
    end where the rules end it (the tenth trick; in null the first trick the declarer takes).
    ValueError names the first card that breaks a rule; else the seats that took the complete tricks
    and the declarer's card points, the skat (hand game) or discard included."""
    declarer, game = named(record["declarer"], SEAT_NAMES), named(record["game"], GAME_NAMES)
    hands = [list(spelled_cards(h)) for h in record["hands"]]
    skat = spelled_cards(record["skat"])
    put_away = skat if record.get("hand") else spelled_cards(record["discard"])
    if not record.get("hand"):
        hands[declarer] = [c for c in hands[declarer] + skat if c not in put_away]
    cards = spelled_cards(record["play"])
    leader, winners, taken = 0, [], []
    for start in range(0, len(cards), 3):
        trick = cards[start:start + 3]
        if winners and (len(winners) == 10 or (game == NULL and winners[-1] == declarer)):
            raise ValueError(f"card {start + 1}: the game is over")
        for i, card in enumerate(trick):
            player = (leader + i) % 3
            if card not in legal_cards(game, hands[player], trick[0] if i else None):
                raise ValueError(f"card {start + i + 1}: {card} may not be played by {SEAT_NAMES[player]}")
            hands[player].remove(card)
        if len(trick) == 3:
            leader = (leader + trick_winner(game, trick)) % 3
            winners.append(leader)
            taken += trick if leader == declarer else []
    over = len(winners) == 10 or (game == NULL and declarer in winners)
    if record.get("ended") is None and (not over or len(cards) != 3 * len(winners)):
        raise ValueError(f"the play stops after {len(cards)} cards, before the game is over")
    return {"trick_winners": winners, "declarer_points": points(taken + put_away)}
