"""The notation of International Skat Server records: reading and writing a line.

The format is described in docs/imports.md#the-servers-record-format.

A record is one line ``(;GM[Skat]...ID[..]DT[..]P0[..]P1[..]P2[..]MV[..]R[..];)`` as the server
writes its archives: the moves ``MV`` hold the deal, the auction, the skat, the declaration and
the cards played (or an early end: ``RE``, ``SC``, ``TI.n``, ``LE.n``), and ``R`` the server's
result. This module holds the notation: cards (``CT`` for the ten of clubs), the fields of a
line, the moves, the declaration's letters, the result's items, and :func:`format_line`, which
writes a record (the sample archives of the tests and the benchmark come from it). Whether a
record's game keeps the rules is :mod:`sim.imports.iss.record`'s business. Every problem is an
:class:`IssError` whose message names the field or move.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone

from sim.rules.cards import format_card, shown
from sim.rules.games import NULL, Declaration
from sim.rules.records import CLAIMED, LEFT, RESIGNED, TIMEOUT

#: ISS card notation: suit letter and rank, ``T`` for ten (``CT``), by card id.
ISS_CARDS = tuple(format_card(c).replace("10", "T") for c in range(32))
CARD_IDS = {text: c for c, text in enumerate(ISS_CARDS)}
HIDDEN = "??"
#: Game letters of a declaration, by game type id (diamonds 0 ... null 5).
GAME_LETTERS = "DHSCGN"
MODIFIERS = "OHSZ"  # ouvert, hand, schneider announced, schwarz announced
#: The early ends of the moves, by their token (the codes of :data:`sim.rules.records.ENDINGS`).
END_TOKENS = {"RE": RESIGNED, "SC": CLAIMED, "TI": TIMEOUT, "LE": LEFT}
OUTCOMES = ("win", "loss", "penalty", "passed")
#: The fields of a record this importer reads (others, such as OW or CO, are skipped).
READ_FIELDS = ("ID", "DT", "P0", "P1", "P2", "MV", "R", "PC")
DATE_FORMAT = "%Y-%m-%d/%H:%M:%S/UTC"
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}/\d{2}:\d{2}:\d{2}/UTC")
_FIELD = re.compile(r"\s*([A-Z][A-Z0-9]*)\[([^\]]*)\]")
_CALL = re.compile(r"\d+|y|p")
_DECLARATION = re.compile(r"([DHSCGN])([A-Z]*)((?:\.[^.\s]*)*)")
#: Result items with a whole number, and the words that stand alone.
_NUMBERS = ("d", "v", "m", "p", "t", "s", "z", "p0", "p1", "p2", "l", "to", "r")
_FLAGS = ("s", "z", "r")


class IssError(ValueError):
    """A line that is not a valid game record; the message names the field or move and the problem."""


# --- the line and its fields --------------------------------------------------------------


def is_record_line(line: str | bytes) -> bool:
    """A line the importer accounts for: not blank and not a ``#`` comment."""
    text = line.strip()
    return bool(text) and not text.startswith("#" if isinstance(text, str) else b"#")


def read_fields(line: str) -> dict[str, str]:
    """The ``LABEL[value]`` fields between ``(;`` and ``;)``; text before ``(;`` is skipped."""
    start = line.find("(;")
    if start < 0:
        raise IssError("no record: the line has no '(;'")
    fields: dict[str, str] = {}
    pos = start + 2
    while True:
        while pos < len(line) and line[pos].isspace():
            pos += 1
        if line.startswith(";)", pos):
            break
        match = _FIELD.match(line, pos)
        if match is None:
            raise IssError(_broken_at(line, pos))
        label, value = match.groups()
        if label in fields and label in READ_FIELDS:
            raise IssError(f"field {label} appears twice")
        fields[label] = value
        pos = match.end()
    if line[pos + 2:].strip():
        raise IssError(f"text after the end of the record (';)') at character {pos + 3}")
    for label in ("MV", "R"):
        if label not in fields:
            raise IssError(f"field {label} is missing")
    return fields


def _broken_at(line: str, pos: int) -> str:
    rest = line[pos:].rstrip("\r\n")
    if not rest:
        return "the record ends without ';)' (the line is cut short)"
    if "]" not in rest and "[" in rest:
        label = rest.split("[", 1)[0]
        return f"field {label or '?'} is not closed with ']' (the line is cut short)"
    return f"broken field at character {pos + 1}: {rest[:20]!r}"


def read_date(text: str | None) -> datetime | None:
    if text is None:
        return None
    if _DATE.fullmatch(text):
        try:
            return datetime.strptime(text, DATE_FORMAT).replace(tzinfo=timezone.utc)
        except ValueError:
            pass
    raise IssError(f"DT: {shown(text)} is not a date and time like 2024-05-01/12:00:00/UTC")


# --- the result field ---------------------------------------------------------------------


def parse_result(text: str) -> dict:
    """The items of the ``R`` field: ``d``, ``outcome`` (win, loss, penalty, passed), ``v``,
    ``m``, ``bid`` (bidok, overbid), ``p``, ``t``, ``s``, ``z``, ``p0`` ... ``r``, as given."""
    items: dict = {}
    for item in text.split():
        if item in OUTCOMES:
            key, value = "outcome", item
        elif item in ("bidok", "overbid"):
            key, value = "bid", item
        else:
            key, _, number = item.partition(":")
            if key not in _NUMBERS or not re.fullmatch(r"-?\d+", number):
                raise IssError(f"R: {shown(item)} is not a result item (d:N, win, loss, v:N, m:N, bidok, p:N ...)")
            value = int(number)
            if abs(value) > 32767:
                raise IssError(f"R: {shown(item)} is out of range")
            if key in _FLAGS and value not in (0, 1):
                raise IssError(f"R: {shown(item)} must be {key}:0 or {key}:1")
        if key in items:
            raise IssError(f"R: {key if key in _NUMBERS else 'the ' + key} is given twice")
        items[key] = value
    return items


# --- moves ---------------------------------------------------------------------------------


@dataclass
class Move:
    number: int    # 1 for the deal
    who: str       # "w", "0", "1", "2"
    what: str

    def __str__(self) -> str:
        return f"move {self.number} ({_cut(self.who)} {_cut(self.what)})"


def _cut(text: str, most: int = 24) -> str:
    return text if len(text) <= most else text[:most - 3] + "..."


def read_moves(text: str) -> list[Move]:
    tokens = text.split()
    if len(tokens) % 2:
        raise IssError(f"MV: {len(tokens)} word{'' if len(tokens) == 1 else 's'}; the moves are pairs of who and"
                       " what")
    moves = [Move(i // 2 + 1, tokens[i], tokens[i + 1]) for i in range(0, len(tokens), 2)]
    for move in moves:
        if move.who not in ("w", "0", "1", "2"):
            raise IssError(f"{move}: {shown(move.who)} is not a player (0, 1, 2) or the server (w)")
    return moves


def read_card(text: str, where) -> int:
    if text == HIDDEN:
        raise IssError(f"{where}: a hidden card (??) where the record must show the card")
    if text not in CARD_IDS:
        raise IssError(f"{where}: {shown(text)} is not a card (a suit C S H D and a rank 7 8 9 T J Q K A, e.g. CT)")
    return CARD_IDS[text]


def read_cards(text: str, where) -> list[int]:
    """Cards joined by dots (``HJ.S9``)."""
    return [read_card(t, where) for t in text.split(".")]


def is_call(move: Move) -> bool:
    return move.who != "w" and _CALL.fullmatch(move.what) is not None


def is_end(move: Move) -> bool:
    return move.what[:2] in END_TOKENS and (len(move.what) == 2 or move.what[2] == ".")


# --- the declaration ------------------------------------------------------------------------


def read_declaration(move: Move) -> tuple[int, str, list[int]]:
    """(game type id, modifier letters, the cards after the dots) of a declaration move."""
    match = _DECLARATION.fullmatch(move.what)
    if match is None:
        raise IssError(f"{move}: not a declaration (a game letter D H S C G N, modifiers O H S Z, then cards)")
    letter, modifiers, cards = match.groups()
    return GAME_LETTERS.index(letter), modifiers, read_cards(cards[1:], move) if cards else []


# --- writing a record ------------------------------------------------------------------------


def declaration_text(d: Declaration, picked_up_cards: list[int], ouvert_cards: list[int]) -> str:
    """A declaration move as ISS writes it: ``C.HJ.S9``, ``GH``, ``NOH.<ten>``, ``GO.<ten>``."""
    letters = GAME_LETTERS[d.game]
    if d.ouvert:
        letters += "O"
    if d.hand and not (d.ouvert and d.game != NULL):
        letters += "H"
        if d.schneider and not d.schwarz:
            letters += "S"
        if d.schwarz:
            letters += "Z"
    return ".".join([letters] + [ISS_CARDS[c] for c in picked_up_cards + ouvert_cards])


def result_text(declarer: int, outcome: str, score: int, *, matadors: int = 0, overbid: bool = False,
                points: int = 0, tricks: int = 0, schneider: bool = False, schwarz: bool = False, left: int = -1,
                timeout: int = -1, resigned: bool = False, penalties=(0, 0, 0)) -> str:
    """An ``R`` field's items in the server's order. What is not given is as in a deal without a game: no
    matadors, points, tricks or flags (0), no one left or timed out (-1), no penalty points."""
    return (f"d:{declarer} {outcome} v:{score} m:{matadors} {'overbid' if overbid else 'bidok'} p:{points}"
            f" t:{tricks} s:{int(schneider)} z:{int(schwarz)} p0:{penalties[0]} p1:{penalties[1]}"
            f" p2:{penalties[2]} l:{left} to:{timeout} r:{int(resigned)}")


def format_line(game_id, date: datetime, players, *, moves: list[tuple[str, str]], result: str,
                series: int = 1) -> str:
    """One record line (without the line break)."""
    mv = " ".join(f"{who} {what}" for who, what in moves)
    names = "".join(f"P{i}[{name}]" for i, name in enumerate(players))
    return (f"(;GM[Skat]PC[International Skat Server]CO[]SE[{series}]ID[{game_id}]"
            f"DT[{date.strftime(DATE_FORMAT)}]{names}R0[]R1[]R2[]MV[{mv} ]R[{result}] ;)")
