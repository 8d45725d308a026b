"""Checking one record line of the International Skat Server (ISS) against the rules.

This module is the checked, one-game-at-a-time path: :func:`check_line` reads a line (its
notation: :mod:`sim.imports.iss.notation`), turns its game into a replay record
(:mod:`sim.rules.records`, which checks every rule with the engine's own code), plays it through
and compares the engine's result with the server's (:mod:`sim.imports.iss.results`). The moves
are read by the server's own rules (docs/imports.md#how-the-server-ends-a-game): ``SC`` ends
nothing, ``RE`` ends the game for the declarer or once both defenders resigned (one defender in
``PC[ISS2]`` records), ``TI.n``/``LE.n`` end the card play, and before it make a penalty record
(no game); an ouvert game may stand without its ten cards. Every problem is an
:class:`IssError` whose message names the field or move and the rule. The batch kernels (:mod:`sim.imports.iss.kernels`)
do the same for many lines at once, and come here for a line they cannot accept, to give the
message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from sim.imports.iss.notation import (
    CARD_IDS,
    END_TOKENS,
    HIDDEN,
    ISS_CARDS,
    MODIFIERS,
    IssError,
    Move,
    is_call,
    is_end,
    parse_result,
    read_cards,
    read_date,
    read_declaration,
    read_fields,
    read_moves,
)
from sim.imports.iss.results import agrees, archive_result, archive_value, engine_result
from sim.rules.auction import AuctionError, run_auction
from sim.rules.cards import SEAT_NAMES, shown
from sim.rules.games import GAME_NAMES, NULL, Declaration, IllegalDeclaration
from sim.rules.records import (
    CLAIMED,
    ENDINGS,
    LEFT,
    PASSED,
    PENALTY,
    PLAYED,
    RESIGNED,
    TIMEOUT,
    RecordError,
    replay,
)
from sim.rules.scoring import RESULT_COLUMNS, RESULT_FLAGS, result_row, seeger_fabian_seats

#: The place (``PC``) of the older server whose records end a game at one defender's ``RE``.
ISS2 = "ISS2"
#: The result items a declared game's record must give.
_REQUIRED = ("d", "outcome", "v", "m", "bid", "p", "t", "s", "z")


# --- the auction ----------------------------------------------------------------------------


class _Cut(Exception):
    """The recorded calls stop in the middle of the auction (a time-out or a player leaving)."""


class _Calls:
    """Answers ``run_auction``'s questions from the recorded calls, checking who makes each."""

    def __init__(self, moves: list[Move], may_stop: bool = False):
        self.moves = moves
        self.used = 0
        self.may_stop = may_stop

    def _take(self, seat: int, wanted: str) -> Move:
        if self.used == len(self.moves):
            if self.may_stop:
                raise _Cut()
            where = f"after move {self.moves[-1].number}" if self.moves else "after the deal"
            raise IssError(f"auction: incomplete {where}; {SEAT_NAMES[seat]} still has to {wanted}")
        move = self.moves[self.used]
        self.used += 1
        if int(move.who) != seat:
            raise IssError(f"{move}: {SEAT_NAMES[int(move.who)]} calls, but it is {SEAT_NAMES[seat]}'s turn"
                           f" to {wanted}")
        return move

    def bid_from(self, seat: int, current: int) -> int | None:
        move = self._take(seat, "bid or pass")
        if move.what == "y":
            raise IssError(f"{move}: {SEAT_NAMES[seat]} has to bid or pass here, not hold (y)")
        return None if move.what == "p" else int(move.what)

    def hold_at(self, seat: int, value: int) -> bool:
        move = self._take(seat, f"hold {value} or pass")
        if move.what not in ("y", "p"):
            raise IssError(f"{move}: {SEAT_NAMES[seat]} has to hold {value} (y) or pass (p) here, not bid")
        return move.what == "y"


def read_auction(calls: list[Move], may_stop: bool = False) -> tuple[int, int, list]:
    """(declarer or -1 when all passed, final bid, the calls as a replay record writes them);
    ``may_stop``: the calls may stop before the auction is over (then the declarer is None)."""
    script = _Calls(calls, may_stop)
    try:
        result = run_auction(script.bid_from, script.hold_at)
    except AuctionError as e:
        raise IssError(f"{calls[script.used - 1]}: {e}") from None
    except _Cut:
        return None, 0, [m.what for m in calls]
    if script.used < len(calls):
        raise IssError(f"{calls[script.used]}: the auction was over after move {calls[script.used - 1].number}")
    return (-1 if result.passed_in else result.declarer), result.bid, [call for _, call in result.calls]


def auction_of_text(text: str) -> tuple[int, int] | None:
    """(declarer, bid) of an auction written as ISS moves (``1 18 0 y 1 p 2 p``); None if it is
    not a valid auction. The batch importer asks this once per distinct auction."""
    try:
        moves = read_moves(text)
        if not all(is_call(m) for m in moves):
            return None
        declarer, bid, _ = read_auction([Move(m.number + 1, m.who, m.what) for m in moves])
    except IssError:
        return None
    return declarer, bid


# --- the declaration -------------------------------------------------------------------------


def declaration_of(game: int, modifiers: str, *, picked_up: bool, bid: int, where) -> Declaration:
    """The declaration meant by the game letter and modifiers, normalized and checked against the bid.

    ISS writes a suit or grand ouvert without ``H`` (ouvert implies hand there), and ``Z`` in a
    hand game implies ``S``; hand means the skat was not picked up.
    """
    if len(set(modifiers)) < len(modifiers) or set(modifiers) - set(MODIFIERS):
        raise IssError(f"{where}: {shown(modifiers)} are not modifiers (each of O, H, S, Z at most once)")
    ouvert, hand_letter = "O" in modifiers, "H" in modifiers
    schneider, schwarz = "S" in modifiers, "Z" in modifiers
    if picked_up and hand_letter:
        raise IssError(f"{where}: declared hand (H) after picking up the skat")
    if not picked_up and not hand_letter and not (ouvert and game != NULL):
        raise IssError(f"{where}: the skat was not picked up, but the game is not declared hand (H)")
    if game != NULL and schwarz and not picked_up:
        schneider = True
    try:
        return Declaration(game, not picked_up, schneider, schwarz, ouvert).check(bid)
    except IllegalDeclaration as e:
        raise IssError(f"{where}: {e}") from None


# --- one game ------------------------------------------------------------------------------


@dataclass
class Game:
    """A record's game as read from its moves (before the rules are checked)."""

    hands: list[int]
    skat: int
    declarer: int = -1
    bid: int = 0
    calls: list = field(default_factory=list)
    declaration: Declaration | None = None
    picked_up: bool = False
    discard: int = 0
    ouvert_cards: int | None = None
    ouvert_move: Move | None = None
    plays: list[Move] = field(default_factory=list)
    ended: int = PLAYED
    ended_by: int = -1


def read_game(moves: list[Move], one_resignation_ends: bool = False) -> Game:
    """The deal, auction, skat, declaration, cards and end of a record's moves, in order.

    ``one_resignation_ends``: the record is of the older ``ISS2`` server, where one defender's
    ``RE`` ends the game (the server of today waits for both)."""
    if not moves or moves[0].who != "w" or moves[0].what.count(".") != 31:
        raise IssError("MV: the first move must be the deal: w and 32 cards joined by dots")
    cards = _read_deal(moves[0], sum(m.what == HIDDEN for m in moves[1:]))
    masks = [_mask(cards[10 * k:10 * k + 10]) for k in range(3)] + [_mask(cards[30:])]
    seen = 0
    for c in cards:
        if seen >> c & 1:
            raise IssError(f"{moves[0]}: {ISS_CARDS[c]} dealt twice")
        seen |= 1 << c
    game = Game(masks[:3], masks[3])
    rest = moves[1:]
    calls = []
    while rest and is_call(rest[0]):
        calls.append(rest.pop(0))
    cut = bool(rest) and _is_charge(rest[0])
    game.declarer, game.bid, game.calls = read_auction(calls, may_stop=cut)
    if game.declarer is None or (cut and game.declarer >= 0):
        game.declarer = -1 if game.declarer is None else game.declarer
        _read_penalty(game, rest)
        return game
    if game.declarer < 0:
        game.ended = PASSED
        if rest:
            raise IssError(f"{rest[0]}: all three passed, so nothing follows the auction")
        return game
    if _read_skat_and_declaration(game, rest):
        _read_play(game, rest, one_resignation_ends)
    return game


def _read_deal(move: Move, hidden_later: int) -> list[int]:
    """The 32 cards of the deal; a hidden card (``??``) is a player's view when there are several,
    a damaged record when it is the only one."""
    texts = move.what.split(".")
    hidden = [i for i, t in enumerate(texts) if t == HIDDEN]
    if len(hidden) == 1 and not hidden_later:
        i = hidden[0]
        where = "the skat" if i >= 30 else f"{SEAT_NAMES[i // 10]}'s hand"
        raise IssError(f"{move}: a damaged record: card {i + 1} of the deal ({where}) is hidden (??), in a"
                       " record of all the cards")
    if hidden:
        raise IssError(f"{move}: hidden cards (??): a record written from one player's view cannot be checked")
    return read_cards(move.what, move)


def _is_charge(move: Move) -> bool:
    """A time-out (``TI.n``) or a player leaving (``LE.n``)."""
    return is_end(move) and END_TOKENS[move.what[:2]] in (TIMEOUT, LEFT)


def _read_penalty(game: Game, rest: list[Move]) -> None:
    """A time-out or a player leaving before the card play: the deal ends with a penalty, no game.
    Only further time-outs or leavings may follow."""
    first = rest[0]
    for move in rest:
        if not _is_charge(move):
            raise IssError(f"{move}: the deal ended at {first} before the card play; nothing but time-outs and"
                           " players leaving may follow")
        _read_end(move)
    game.ended, game.ended_by = _read_end(first)
    game.ended = PENALTY


def _mask(cards) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def _next(rest: list[Move], wanted: str, after: Move | None) -> Move:
    if not rest:
        where = f"after {after}" if after else "after the auction"
        raise IssError(f"MV: the record stops {where}; {wanted} is missing")
    return rest.pop(0)


def _by_declarer(move: Move, game: Game, what: str) -> None:
    if move.who != str(game.declarer):
        raise IssError(f"{move}: {what} by {_who(move.who)}, but {SEAT_NAMES[game.declarer]} won the auction")


def _who(who: str) -> str:
    return "the server" if who == "w" else SEAT_NAMES[int(who)]


def _charged(game: Game, rest: list[Move]) -> bool:
    """A time-out or a player leaving between the auction and the discard: a penalty record."""
    if rest and _is_charge(rest[0]):
        _read_penalty(game, rest)
        return True
    return False


def _read_skat_and_declaration(game: Game, rest: list[Move]) -> bool:
    """The skat and the declaration; False when a time-out or a player leaving ended the deal first."""
    move = _next(rest, "the declaration", None)
    if move.what == "s":
        _by_declarer(move, game, "picking up the skat")
        skat_shown = _next(rest, "the skat shown by the server (w and two cards)", move)
        if skat_shown.who != "w" or skat_shown.what.count(".") != 1:
            raise IssError(f"{skat_shown}: the server must show the skat here (w and two cards)")
        if _mask(read_cards(skat_shown.what, skat_shown)) != game.skat:
            raise IssError(f"{skat_shown}: the skat shown is not the skat dealt")
        game.picked_up = True
        if _charged(game, rest):
            return False
        move = _next(rest, "the declaration", skat_shown)
    _by_declarer(move, game, "the declaration")
    kind, modifiers, cards = read_declaration(move)
    game.declaration = declaration_of(kind, modifiers, picked_up=game.picked_up, bid=game.bid, where=move)
    wanted = (2 if game.picked_up else 0) + (10 if game.declaration.ouvert else 0)
    if game.picked_up and not cards and rest and _splits(rest[0], move):
        # some archives write the cards put away (and shown) as a move of its own after the game
        extra = rest.pop(0)
        cards = read_cards(extra.what, extra)
    if game.picked_up and not cards and _charged(game, rest):
        return False
    shows = game.declaration.ouvert and len(cards) == wanted
    if len(cards) != wanted and not (game.declaration.ouvert and len(cards) == wanted - 10):
        # (an ouvert game may stand without its ten cards: in the server's view they are known from the deal)
        raise IssError(f"{move}: {len(cards)} cards after the game; {_wanted_cards(game)}")
    if game.picked_up:
        game.discard = _mask(cards[:2])
        if len(set(cards[:2])) < 2:
            raise IssError(f"{move}: {ISS_CARDS[cards[0]]} put away twice")
    if shows:
        game.ouvert_cards, game.ouvert_move = _mask(cards[-10:]), move
    return True


def _splits(move: Move, declaration: Move) -> bool:
    """Whether ``move`` holds the cards of a declaration written in two moves: the same player's
    cards joined by dots."""
    return move.who == declaration.who and "." in move.what and not is_end(move)


def _wanted_cards(game: Game) -> str:
    if game.picked_up:
        return ("a null ouvert after picking up the skat is followed by the two cards put away (and may be by"
                " the ten cards shown)" if game.declaration.ouvert else "the two cards put away must follow the game")
    return "an ouvert game is followed by the ten cards shown, or by none" if game.declaration.ouvert else \
        "a hand game has no cards after the game"


def _read_play(game: Game, rest: list[Move], one_resignation_ends: bool) -> None:
    """The cards played and how the game ended, by the server's rules: ``SC`` only shows the
    declarer's cards; the declarer's ``RE`` ends the game, a defender's only once both defenders
    have resigned (or at once, ``one_resignation_ends``); ``TI.n`` and ``LE.n`` end it."""
    resigned: set[int] = set()
    end: Move | None = None
    for move in rest:
        if is_end(move):
            kind, seat = _read_end(move)
            if end is not None or kind == CLAIMED:
                continue
            if kind == RESIGNED and seat != game.declarer:
                resigned.add(seat)
                if len(resigned) < 2 and not one_resignation_ends:
                    continue
            end, game.ended, game.ended_by = move, kind, seat
            continue
        if end is not None:
            raise IssError(f"{move}: the game ended at {end}; nothing but early ends may follow")
        if move.who == "w":
            raise IssError(f"{move}: not a card played (a player and a card) nor an early end")
        if move.what == HIDDEN:
            raise IssError(f"{move}: a damaged record: {_who(move.who)}'s card in trick {len(game.plays) // 3 + 1}"
                           " is hidden (??), in a record of all the cards")
        if move.what not in CARD_IDS:
            raise IssError(f"{move}: {shown(move.what)} is not a card played nor an early end (RE, SC, TI.n, LE.n)")
        game.plays.append(move)


def _read_end(move: Move) -> tuple[int, int]:
    token, dot, tail = move.what.partition(".")
    kind = END_TOKENS[token]
    if kind in (TIMEOUT, LEFT):
        if tail not in ("0", "1", "2"):
            raise IssError(f"{move}: {token} names the seat that {ENDINGS[kind]} ({token}.0, {token}.1 or {token}.2)")
        return kind, int(tail)
    if move.who == "w":
        raise IssError(f"{move}: {token} is made by a player, not by the server")
    if kind == RESIGNED and dot:
        raise IssError(f"{move}: RE takes no cards")
    if dot:
        read_cards(tail, move)  # SC.<cards>: the cards shown, read but not needed
    return kind, int(move.who)


def replay_record(game: Game, record_id=None) -> dict:
    """The game as a replay record of :mod:`sim.rules.records`."""
    if game.declarer < 0:
        return {"id": record_id, "hands": _texts(game.hands), "skat": _text(game.skat), "auction": game.calls}
    d = game.declaration
    record = {"id": record_id, "hands": _texts(game.hands), "skat": _text(game.skat), "auction": game.calls,
              "declarer": game.declarer, "bid": game.bid, "game": GAME_NAMES[d.game], "hand": d.hand,
              "schneider": d.schneider, "schwarz": d.schwarz, "ouvert": d.ouvert,
              "play": [m.what for m in game.plays]}
    if game.picked_up:
        record["discard"] = _text(game.discard)
    if game.ended != PLAYED:
        record["ended"], record["ended_by"] = ENDINGS[game.ended], game.ended_by
    return record


def _texts(masks) -> list[str]:
    return [_text(m) for m in masks]


def _text(mask: int) -> str:
    return " ".join(ISS_CARDS[c] for c in range(32) if mask >> c & 1)


def _check_play(game: Game, result: dict) -> None:
    """Each card move is made by the seat whose turn it is (the leader: forehand, then each trick's winner)."""
    leader, winners = 0, result["trick_winners"]
    for i, move in enumerate(game.plays):
        if i % 3 == 0 and i:
            leader = winners[i // 3 - 1]
        seat = (leader + i % 3) % 3
        if move.who != str(seat):
            raise IssError(f"{move}: card {i + 1} is {SEAT_NAMES[seat]}'s to play, not {_who(move.who)}'s")


def _check_ouvert(game: Game) -> None:
    if game.ouvert_cards is None:
        return
    held = (game.hands[game.declarer] | game.skat) & ~game.discard if game.picked_up else game.hands[game.declarer]
    if game.ouvert_cards != held:
        raise IssError(f"{game.ouvert_move}: the ten cards shown are not the declarer's hand")


# --- the row --------------------------------------------------------------------------------


def game_row(game: Game, result: dict, items: dict, *, plays: list[int]) -> dict:
    """The columns of a checked game (the schema of a game-mode run; see docs/schema.md)."""
    d = game.declaration
    row = {"hand_f": game.hands[0], "hand_m": game.hands[1], "hand_r": game.hands[2], "skat": game.skat,
           "passed": game.ended == PASSED, "declarer": game.declarer, "bid": game.bid,
           "game": -1 if d is None else d.game, "hand": bool(d and d.hand),
           "schneider_announced": bool(d and d.schneider), "schwarz_announced": bool(d and d.schwarz),
           "ouvert": bool(d and d.ouvert), "discard": game.discard,
           "tricks": plays + [-1] * (30 - len(plays)), "ended": game.ended, "ended_by": game.ended_by}
    if game.ended == PASSED:
        row.update(matadors=0, declarer_points=0, declarer_tricks=0, schneider=False, schwarz=False, won=False,
                   overbid=False, game_value=0, score=0, sf_f=0, sf_m=0, sf_r=0, value_reached=0,
                   won_in_play=False)
    elif game.ended == PENALTY:  # no game: the server's score (mostly 0) and nothing else
        row.update({name: None for name in RESULT_COLUMNS}, score=items.get("v"))
    elif game.ended == PLAYED:
        row.update(_engine_result(game, result["declarer_points"], result["declarer_tricks"]))
    else:  # ended early: the server's result
        server = archive_result(items)
        outcome = server["outcome"]
        won = {"win": True, "loss": False}.get(outcome)
        value = server["game_value"] if won is not None else None
        row.update(matadors=result["matadors"], declarer_points=server["points"], declarer_tricks=server["tricks"],
                   schneider=server["schneider"], schwarz=server["schwarz"], won=won,
                   overbid=server["overbid"], game_value=value, score=server["score"])
        known = value is not None and not server["overbid"]
        row.update(value_reached=value if known else None, won_in_play=won if known else None)
        row.update(_seeger_fabian(game.declarer, won, value))
    return row


def _engine_result(game: Game, points: int, tricks: int) -> dict:
    """The result columns of a game played out, by the engine's :func:`sim.rules.scoring.result_row`."""
    d = game.declaration
    out = np.zeros(len(RESULT_COLUMNS), dtype=np.int64)
    twelve = game.hands[game.declarer] | game.skat
    result_row(d.game, d.hand, d.schneider, d.schwarz, d.ouvert, game.bid, game.declarer, twelve, points, tricks,
               out)
    return {name: bool(value) if name in RESULT_FLAGS else int(value) for name, value in zip(RESULT_COLUMNS, out)}


def _seeger_fabian(declarer: int, won, value) -> dict:
    if won is None or value is None:
        return {"sf_f": None, "sf_m": None, "sf_r": None}
    return dict(zip(("sf_f", "sf_m", "sf_r"), (int(s) for s in seeger_fabian_seats(declarer, won, value))))


@dataclass(kw_only=True)
class CheckedLine:
    """A line that holds a valid game: its row, what the record says about it, and the comparison."""

    row: dict
    fields: dict[str, str]
    date: datetime | None
    engine: dict
    archive: dict
    agrees: bool


def _check_server_result(items: dict) -> None:
    """The server's result of a game that ended early, which the row takes as it is."""
    if archive_value(items["outcome"], items["v"]) is None and items["outcome"] != "penalty":
        raise IssError(f"R: {items['outcome']} with v:{items['v']} (a won game scores its value, a lost one"
                       " minus twice it)")
    if not 0 <= items["p"] <= 120:
        raise IssError(f"R: p:{items['p']} is not a number of card points (0 to 120)")
    if not 0 <= items["t"] <= 10:
        raise IssError(f"R: t:{items['t']} is not a number of tricks (0 to 10)")


def check_line(line: str | bytes) -> CheckedLine:
    """Read, check and score one record line; :class:`IssError` names the first problem."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="replace")
    fields = read_fields(line)
    date = read_date(fields.get("DT"))
    game = read_game(read_moves(fields["MV"]), one_resignation_ends=fields.get("PC") == ISS2)
    items = parse_result(fields["R"])
    missing = [k for k in _REQUIRED if k not in items]
    if game.ended not in (PASSED, PENALTY) and missing:
        raise IssError(f"R: {'the ' + missing[0] if missing[0] in ('outcome', 'bid') else missing[0] + ':'}"
                       " is missing")
    if game.ended not in (PLAYED, PASSED, PENALTY):
        _check_server_result(items)
    result = {}
    if game.ended != PENALTY:  # a penalty record's auction, skat and declaration were checked as read
        try:
            result = replay(replay_record(game, fields.get("ID")))
        except RecordError as e:
            raise IssError(f"rules: {e}") from None
        if game.declarer >= 0:
            _check_play(game, result)
            _check_ouvert(game)
    plays = [CARD_IDS[m.what] for m in game.plays]
    row = game_row(game, result, items, plays=plays)
    engine, archive = engine_result(row), archive_result(items)
    return CheckedLine(row=row, fields=fields, date=date, engine=engine, archive=archive,
                       agrees=agrees(row, engine, archive))


