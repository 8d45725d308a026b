"""Game records: check one recorded game against the rules and give its exact result.

A record is a JSON object (a dict here) describing one deal as it was played::

    id          any JSON value naming the record (optional)
    hands       three hands as dealt: forehand, middlehand, rearhand (10 cards each)
    skat        the two skat cards as dealt
    auction     optional: the calls in spoken order, each a bid value, "yes" (held)
                or "pass"; e.g. [18, "yes", 20, "pass", "pass"]
    declarer    "forehand", "middlehand", "rearhand" or 0, 1, 2
    bid         the final bid
    game        diamonds, hearts, spades, clubs, grand or null
    hand, schneider, schwarz, ouvert
                true or false (default false); schneider and schwarz are announcements
    discard     the two cards put away after picking up the skat (not in hand games)
    play        the cards in the order played, from forehand's first lead, as a list
                or one space-separated string; a null game the declarer loses stops
                at the trick the declarer takes, and a game whose announcement is
                missed may stop at the trick that missed it (schwarz announced, a suit
                or grand ouvert included: the defenders' first trick; schneider
                announced: the trick that takes the defenders past 30 points), lost
                and scored with the points and tricks taken so far (docs/rules.md#when-a-game-ends)
    ended       optional, for a game that stopped before its end: "resigned" (the
                declarer gave up or the defenders conceded), "claimed" (the declarer
                showed the cards and claimed the rest), "timeout" (a player ran out of
                time) or "left" (a player left the table); the play then stops where
                the game stopped, and the cards do not decide its outcome
    ended_by    with ended: the seat that resigned, claimed, timed out or left

A deal all three passed (auction ["pass", "pass", "pass"]) has no declarer, game,
bid, discard or play. Every rule is checked by the engine's own code (auction,
declaration, card play, scoring); this module only reads the record, drives the
engine and names where a record goes wrong. Every problem raises
:class:`RecordError` with the position and the rule broken in its message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .auction import LOWEST_BID, AuctionError, AuctionResult, is_legal_bid, run_auction
from .cards import SEAT_NAMES, CardError, cards_of, format_card, parse_card, parse_hand, shown
from .games import GAME_NAMES, Declaration, IllegalDeclaration, game_id
from .scoring import matadors, score_game
from .tricks import CardPlay, IllegalPlay

FIELDS = ("id", "hands", "skat", "auction", "declarer", "bid", "game", "hand", "schneider",
          "schwarz", "ouvert", "discard", "play", "ended", "ended_by")
ANNOUNCEMENTS = ("hand", "schneider", "schwarz", "ouvert")
#: A record of the longest legal form is under 2,000 characters; far longer lines are not records.
MAX_LINE = 100_000
#: Fields that only a played game has; a passed-in deal must not give them.
GAME_FIELDS = ("declarer", "bid", "game", "discard", "play", "ended", "ended_by")
#: How a deal ends: played out (to the last trick, or a null game ended by the declarer's trick),
#: passed in, or stopped early: resigned, claimed, a time-out, a player leaving; or, in an
#: archive, a penalty record (a time-out or a player leaving before the card play: no game was
#: played). The ``ended`` column of an imported run holds these, and the indices below are the
#: importers' codes for them.
ENDINGS = ("played", "passed", "resigned", "claimed", "timeout", "left", "penalty")
PLAYED, PASSED, RESIGNED, CLAIMED, TIMEOUT, LEFT, PENALTY = range(len(ENDINGS))
#: How a game that stopped before its end ended (the field ``ended``).
EARLY_ENDS = ENDINGS[RESIGNED:PENALTY]


class RecordError(ValueError):
    """A game record that is malformed or breaks a rule; the message says where and which rule."""


def parse_record(line: str | bytes) -> dict:
    """The record on one line of JSON Lines input."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise RecordError(f"not UTF-8 text (byte {e.start + 1})") from None
    line = line.strip()
    if len(line) > MAX_LINE:
        raise RecordError(f"a line of {len(line):,} characters is too long for a game record"
                          f" (at most {MAX_LINE:,})")
    try:
        record = json.loads(line, object_pairs_hook=_object_once, parse_constant=_not_json)
    except json.JSONDecodeError as e:
        raise RecordError(f"bad JSON at character {e.pos + 1}: {e.msg}") from None
    except RecursionError:
        raise RecordError("bad JSON: values nested too deeply for a game record") from None
    except ValueError as e:  # a number of thousands of digits, NaN, a key given twice
        raise RecordError(f"bad JSON: {_digits(e)}") from None
    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, not {_json_type(record)}")
    return record


def _digits(error: ValueError) -> str:
    text = str(error)
    return "a number of more than 4,300 digits" if "digits" in text and "limit" in text.lower() else text


def _not_json(constant: str):
    raise ValueError(f"{constant} is not a JSON value")


def _object_once(pairs: list) -> dict:
    """A JSON object whose keys are all different: a field given twice would make a record ambiguous."""
    record = dict(pairs)
    if len(record) < len(pairs):
        seen = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"field {shown(twice)} is given twice")
    return record


def _json_type(value) -> str:
    names = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "true or false"}
    return names.get(type(value), "null")


def replay(record: dict) -> dict:
    """Check a record against the rules and play it through; the game's result as a dict."""
    table = _first_lead(record, bid_required=True)
    if table is None:
        return passed_in_result(record)
    declarer, declaration, bid, twelve, put_away, in_play = table
    ended = read_ended(record)
    d = declaration.normalized()
    play = play_through(read_play(record), in_play, declaration.game, declarer, ended is not None,
                        announced=(d.schneider, d.schwarz))
    if ended is not None:
        return early_end_result(record, declarer, declaration, bid, twelve, put_away, play, ended)
    return game_result(record, declarer, declaration, bid, twelve, put_away, play)


def _first_lead(record: dict, bid_required: bool) -> tuple | None:
    """A record checked up to the first lead: (declarer, declaration, bid, the declarer's twelve
    cards, the discard, the three hands in play); None for a deal all three passed.

    Without a required bid the declaration is checked against the auction's final bid, or
    the lowest bid (18) when there is no auction either.
    """
    _check_field_names(record)
    hands, skat = read_deal(record)
    auction = read_auction(record)
    if auction is not None and auction.passed_in:
        return None
    declarer = read_declarer(record)
    if bid_required or _field(record, "bid") is not None:
        bid = read_bid(record)
    else:
        bid = LOWEST_BID if auction is None else auction.bid
    if auction is not None:
        _check_auction_winner(auction, declarer, bid)
    declaration = read_declaration(record, bid)
    twelve = hands[declarer] | skat
    put_away = read_discard(record, declaration, twelve, skat)
    in_play = list(hands)
    in_play[declarer] = twelve & ~put_away
    return declarer, declaration, bid, twelve, put_away, in_play


@dataclass(frozen=True)
class Position:
    """A recorded game at the point its record stops: the start of card play when the
    record has no ``play``, else after the cards it gives (mid-trick, or the end)."""

    declarer: int
    declaration: Declaration
    aside: int      # the two cards that count for the declarer unplayed
    hands: list[int]        # the three hands at the first lead (the declarer's after the discard)
    played: list[int]       # the cards played, in order
    play: CardPlay          # the play state after them


def read_position(record: dict) -> Position | None:
    """A record's card-play position, checked like :func:`replay`; ``bid`` and ``play`` may be
    missing (see :func:`_first_lead` for a missing bid). None for a deal all three passed (it
    has no card play)."""
    table = _first_lead(record, bid_required=False)
    if table is None:
        passed_in_result(record)
        return None
    declarer, declaration, _, _, put_away, in_play = table
    read_ended(record)
    cards = [] if _field(record, "play") is None else read_play(record)
    play = play_through(cards, in_play, declaration.game, declarer, partial=True)
    return Position(declarer, declaration, put_away, in_play, cards, play)


# --- fields ------------------------------------------------------------------------------


def _field(record: dict, name: str):
    """A field's value; a missing field and JSON null both read as None."""
    return record.get(name)


def _check_field_names(record: dict) -> None:
    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, not {_json_type(record)}")
    unknown = [k for k in record if k not in FIELDS]
    if unknown:
        raise RecordError(f"unknown field {shown(unknown[0])} (known fields: {', '.join(FIELDS)})")
    if record_id(record) is None and record.get("id") is not None:
        raise RecordError(f"field 'id' must be a text or a number, not {shown(record['id'])}")


def record_id(record) -> str | int | float | None:
    """The record's id when it is one a result may carry (a text or a number), else None."""
    value = record.get("id") if isinstance(record, dict) else None
    return value if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None


def _required(record: dict, name: str):
    value = _field(record, name)
    if value is None:
        raise RecordError(f"field {name!r} is missing")
    return value


def _flag(record: dict, name: str) -> bool:
    value = _field(record, name)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise RecordError(f"field {shown(name)} must be true or false, not {shown(value)}")
    return value


# --- cards and the deal ------------------------------------------------------------------


def _card_list(value, where: str) -> list[str]:
    """The card texts of a list of strings or of one string separated by spaces or commas."""
    if isinstance(value, str):
        return value.replace(",", " ").split()
    if isinstance(value, list) and all(isinstance(t, str) for t in value):
        return value
    raise RecordError(f"{where}: cards are a list of card texts or one string like 'CJ SA H10', not {shown(value)}")


def _card(text: str, where: str) -> int:
    try:
        return parse_card(text)
    except CardError as e:
        raise RecordError(f"{where}: {e}") from None


def _card_set(value, where: str, size: int) -> int:
    """Mask of exactly ``size`` distinct cards."""
    try:
        mask = parse_hand(_card_list(value, where))
    except CardError as e:
        raise RecordError(f"{where}: {e}") from None
    count = bin(mask).count("1")
    if count != size:
        raise RecordError(f"{where} has {count} cards, not {size}")
    return mask


def read_deal(record: dict) -> tuple[list[int], int]:
    """The three hands and the skat as dealt, checked to be the 32 cards once each."""
    raw = _required(record, "hands")
    if not isinstance(raw, list) or len(raw) != 3:
        raise RecordError("field 'hands' must list three hands: forehand, middlehand, rearhand")
    hands = [_card_set(hand, f"{SEAT_NAMES[seat]}'s hand", 10) for seat, hand in enumerate(raw)]
    skat = _card_set(_required(record, "skat"), "skat", 2)
    parts = hands + [skat]
    names = [f"{s}'s hand" for s in SEAT_NAMES] + ["the skat"]
    for i in range(4):
        for j in range(i + 1, 4):
            both = parts[i] & parts[j]
            if both:
                raise RecordError(f"card {format_card(cards_of(both)[0])} dealt twice: in {names[i]} and in {names[j]}")
    return hands, skat


# --- the auction -------------------------------------------------------------------------


class _ScriptedCalls:
    """Answers ``run_auction``'s questions from the recorded calls, in order."""

    def __init__(self, calls: list):
        self.calls = calls
        self.used = 0

    def _take(self, seat: int, wanted: str):
        if self.used == len(self.calls):
            raise RecordError(f"auction: incomplete after call {self.used}; {SEAT_NAMES[seat]} still has to {wanted}")
        self.used += 1
        return self.calls[self.used - 1]

    def bid_from(self, seat: int, current: int) -> int | None:
        call = self._take(seat, "bid or pass")
        if call == "yes":
            raise RecordError(f"auction call {self.used}: {SEAT_NAMES[seat]} has to bid or pass here,"
                              " not hold ('yes')")
        return None if call == "pass" else call

    def hold_at(self, seat: int, value: int) -> bool:
        call = self._take(seat, f"hold {value} or pass")
        if isinstance(call, int):
            raise RecordError(f"auction call {self.used}: {SEAT_NAMES[seat]} has to hold {value} ('yes')"
                              f" or pass here, not bid {call}")
        return call == "yes"


def _read_calls(raw) -> list:
    if not isinstance(raw, list):
        raise RecordError("field 'auction' must be a list of calls, e.g. [18, \"yes\", 20, \"pass\", \"pass\"]")
    calls = []
    for i, call in enumerate(raw, 1):
        if isinstance(call, str) and call.strip().lower() in ("yes", "pass"):
            calls.append(call.strip().lower())
        elif isinstance(call, int) and not isinstance(call, bool):
            calls.append(call)
        else:
            raise RecordError(f"auction call {i}: {shown(call)} is not a call (a bid value, \"yes\" or \"pass\")")
    return calls


def read_auction(record: dict) -> AuctionResult | None:
    """The recorded auction replayed by the engine's rules; None when the record has none."""
    raw = _field(record, "auction")
    if raw is None:
        return None
    script = _ScriptedCalls(_read_calls(raw))
    try:
        result = run_auction(script.bid_from, script.hold_at)
    except AuctionError as e:
        raise RecordError(f"auction call {script.used}: {e}") from None
    left = len(script.calls) - script.used
    if left:
        raise RecordError(f"auction: complete after call {script.used}, with {_calls(left)} left over")
    return result


def _calls(n: int) -> str:
    return "1 call" if n == 1 else f"{n} calls"


def _check_auction_winner(auction: AuctionResult, declarer: int, bid: int) -> None:
    if auction.declarer != declarer:
        raise RecordError(f"auction: won by {SEAT_NAMES[auction.declarer]}, but the declarer is {SEAT_NAMES[declarer]}")
    if auction.bid != bid:
        raise RecordError(f"auction: ends at {auction.bid}, but the bid is {bid}")


# --- declarer, bid, declaration, discard ---------------------------------------------------


def read_declarer(record: dict) -> int:
    value = _field(record, "declarer")
    if value is None:
        raise RecordError("field 'declarer' is missing (a deal all three passed is recorded with "
                          "\"auction\": [\"pass\", \"pass\", \"pass\"] and no declarer)")
    if isinstance(value, str) and value.strip().lower() in SEAT_NAMES:
        return SEAT_NAMES.index(value.strip().lower())
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 3:
        return value
    raise RecordError(f"field 'declarer' must be forehand, middlehand, rearhand or 0, 1, 2, not {shown(value)}")


def read_bid(record: dict) -> int:
    value = _required(record, "bid")
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"field 'bid' must be a whole number, not {shown(value)}")
    if not is_legal_bid(value):
        raise RecordError(f"bid {value} is not a legal bid value (18, 20, 22, 23, 24, 27, ... 264)")
    return value


def read_declaration(record: dict, bid: int) -> Declaration:
    """The declaration, normalized and checked against the bid."""
    try:
        game = game_id(_required(record, "game"))
        return Declaration(game, *(_flag(record, name) for name in ANNOUNCEMENTS)).check(bid)
    except IllegalDeclaration as e:
        raise RecordError(f"declaration: {e}") from None


def read_discard(record: dict, declaration: Declaration, twelve: int, skat: int) -> int:
    """The two cards that count for the declarer unplayed: the discard, or the skat in a hand game."""
    raw = _field(record, "discard")
    if declaration.hand:
        if raw is not None:
            raise RecordError("discard: a hand game leaves the skat untouched, so it has no discard")
        return skat
    if raw is None:
        raise RecordError("discard: missing; the declarer picked up the skat and must put two cards away")
    discard = _card_set(raw, "discard", 2)
    stray = discard & ~twelve
    if stray:
        raise RecordError(f"discard: {format_card(cards_of(stray)[0])} is not among the declarer's twelve cards")
    return discard


# --- card play ---------------------------------------------------------------------------


def read_play(record: dict) -> list[int]:
    texts = _card_list(_required(record, "play"), "play")
    return [_card(t, _position(i)) for i, t in enumerate(texts)]


def _position(i: int) -> str:
    return f"card {i + 1} (trick {i // 3 + 1})"


def play_through(cards: list[int], hands: list[int], game: int, declarer: int,
                 ended_early: bool = False, partial: bool = False,
                 announced: tuple[bool, bool] = (False, False)) -> CardPlay:
    """The recorded cards played one by one under the engine's rules of card play.

    ``ended_early``: the game stopped before its end (the record's ``ended``), so the
    play must stop before the game is over rather than at its end. ``partial``: any
    number of cards is fine (a position to solve), complete or not. ``announced``:
    (schneider, schwarz) announced; the play may then also stop at the trick that
    missed the announcement.
    """
    play = CardPlay(hands, game, declarer)
    for i, c in enumerate(cards):
        if play.finished:
            raise RecordError(f"{_position(i)}: {_how_it_ended(play)}; "
                              f"{_cards(len(cards) - i)} too many")
        try:
            play.play(c)
        except IllegalPlay as e:
            raise RecordError(f"{_position(i)}: {e}") from None
    if partial:
        return play
    if ended_early:
        if play.finished:
            raise RecordError(f"ended: the game was played to its end ({_how_it_ended(play)}),"
                              " so it did not end early")
        return play
    if not play.finished and not play.announcement_missed(*announced):
        raise RecordError(f"play: too short; the game is not over after {len(cards)} cards: "
                          f"{_position(len(cards))} is {SEAT_NAMES[play.to_play]}'s to play")
    return play


def _cards(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


def read_ended(record: dict) -> tuple[str, int] | None:
    """(how, seat) of a game that stopped before its end; None for a game played to its end."""
    how, seat = _field(record, "ended"), _field(record, "ended_by")
    if how is None:
        if seat is not None:
            raise RecordError("field 'ended_by' is given, but 'ended' is missing")
        return None
    if how not in EARLY_ENDS:
        raise RecordError(f"field 'ended' must be {', '.join(EARLY_ENDS)}, not {shown(how)}")
    if seat is None:
        raise RecordError(f"field 'ended_by' is missing: who {how}?")
    if isinstance(seat, str) and seat.strip().lower() in SEAT_NAMES:
        return how, SEAT_NAMES.index(seat.strip().lower())
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < 3:
        return how, seat
    raise RecordError(f"field 'ended_by' must be forehand, middlehand, rearhand or 0, 1, 2, not {shown(seat)}")


def _how_it_ended(play: CardPlay) -> str:
    done = len(play.trick_winners)
    if done < 10:
        return f"the null game ended at trick {done}, which the declarer took"
    return "the game ended with the tenth trick"


# --- results -----------------------------------------------------------------------------


def game_result(record: dict, declarer: int, declaration: Declaration, bid: int, twelve: int,
                put_away: int, play: CardPlay) -> dict:
    points, tricks = play.declarer_result(put_away)
    r = score_game(declarer, declaration, bid, twelve, points, tricks)
    return {
        "id": record_id(record), "passed_in": False, "declarer": declarer,
        "game": GAME_NAMES[declaration.game], "declaration": r.declaration.name, "bid": bid,
        "declarer_points": points, "declarer_tricks": tricks, "trick_winners": play.trick_winners,
        "matadors": r.matadors, "schneider": r.schneider, "schwarz": r.schwarz,
        "overbid": r.overbid, "won": r.won, "game_value": r.game_value, "score": r.score,
        "seeger_fabian": list(r.seeger_fabian), "ended": None, "ended_by": None,
    }


def early_end_result(record: dict, declarer: int, declaration: Declaration, bid: int, twelve: int,
                     put_away: int, play: CardPlay, ended: tuple[str, int]) -> dict:
    """A game that stopped before its end: what the cards decide (matadors, the points and tricks
    taken so far, the skat included); its outcome and scores are null, since the cards did not
    decide them (an archive's result says how its server scored such a game)."""
    points, tricks = play.declarer_result(put_away)
    d = declaration.normalized()
    return {
        "id": record_id(record), "passed_in": False, "declarer": declarer,
        "game": GAME_NAMES[declaration.game], "declaration": d.name, "bid": bid,
        "declarer_points": points, "declarer_tricks": tricks, "trick_winners": play.trick_winners,
        "matadors": int(matadors(d.game, twelve)), "schneider": None, "schwarz": None,
        "overbid": None, "won": None, "game_value": None, "score": None, "seeger_fabian": None,
        "ended": ended[0], "ended_by": ended[1],
    }


def passed_in_result(record: dict) -> dict:
    """A deal all three passed: nothing played, every score 0."""
    for name in GAME_FIELDS:
        value = _field(record, name)
        if value is not None and not (name == "bid" and type(value) is int and value == 0):
            raise RecordError(f"{name}: all three passed, so the deal was not played and has no {name}")
    for name in ANNOUNCEMENTS:
        if _flag(record, name):
            raise RecordError(f"{name}: all three passed, so nothing was declared")
    return {
        "id": record_id(record), "passed_in": True, "declarer": None, "game": None,
        "declaration": None, "bid": 0, "declarer_points": None, "declarer_tricks": None,
        "trick_winners": [], "matadors": None, "schneider": False, "schwarz": False,
        "overbid": False, "won": None, "game_value": 0, "score": 0, "seeger_fabian": [0, 0, 0],
        "ended": None, "ended_by": None,
    }
