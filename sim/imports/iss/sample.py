"""Sample ISS archives made by the engine: the test data of the importer and of its benchmark.

No real archive ships with skatsim, so the importer is tested on records written here:

- :func:`profile_lines`: the deals of a profile played by the engine in bulk
  (:func:`strategies.whole_deals.play_deals`), one record per deal, passed-in deals included; the
  imported rows must equal the simulated ones;
- :func:`constructed_games`: games the built-in profiles rarely or never play (every game type
  from every seat, hand, ouvert and announced games, overbids, random legal cards) and games that
  end early (RE, SC, TI.n, LE.n), each with the replay record it was made from, in both of the
  forms an archive may use (a declaration after picking up the skat in one move or in two,
  ``SC`` with or without cards, ``passed`` or a placeholder for a passed-in deal).
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from datetime import datetime, timedelta, timezone
from functools import lru_cache

import numpy as np
from numba import njit

from sim.imports.iss.notation import ISS_CARDS, declaration_text, format_line, result_text
from sim.rules.auction import BID_VALUES, max_bid_answers, run_auction
from sim.rules.cards import CARD_POINTS, SEAT_NAMES, card_points, cards_of
from sim.rules.games import GAME_NAMES, Declaration, IllegalDeclaration, null_value
from sim.rules.records import replay
from sim.rules.scoring import (
    RESULT_COLUMNS,
    RESULT_MATADORS,
    RESULT_OVERBID,
    RESULT_SCHNEIDER,
    RESULT_SCHWARZ,
    RESULT_VALUE,
    result_row,
)
from sim.rules.shuffle import deal_batch
from sim.rules.tricks import CardPlay, trick_winner
from strategies.profiles import load_profile
from strategies.whole_deals import play_deals

START = datetime(2024, 5, 1, tzinfo=timezone.utc)
PLAYERS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")
_CALLS = {"yes": "y", "pass": "p"}


#: The cards of one suit byte of a mask (bit r: the card of rank r), as ISS texts.
_SUIT_BYTE_CARDS = [[[ISS_CARDS[8 * suit + r] for r in range(8) if byte >> r & 1] for byte in range(256)]
                    for suit in range(4)]


def cards_text(mask: int) -> str:
    """A set of cards as ISS writes it: ``D7.DQ.HA``, lowest card id first."""
    return ".".join([*_SUIT_BYTE_CARDS[0][mask & 255], *_SUIT_BYTE_CARDS[1][mask >> 8 & 255],
                     *_SUIT_BYTE_CARDS[2][mask >> 16 & 255], *_SUIT_BYTE_CARDS[3][mask >> 24 & 255]])


def _players(k: int) -> tuple[str, str, str]:
    """Players of record ``k``: three of PLAYERS, changing seats from record to record."""
    n = len(PLAYERS)
    return PLAYERS[k % n], PLAYERS[(k + 1) % n], PLAYERS[(k + 3) % n]


def auction_moves(calls) -> list[tuple[str, str]]:
    return [(str(seat), _CALLS.get(call, str(call))) for seat, call in calls]


@njit(cache=True)
def _seats_of_play(games, logs, seats):
    """The seat that played each logged card (forehand leads, then each trick's winner)."""
    for k in range(logs.shape[0]):
        leader = 0
        for t in range(10):
            if logs[k, 3 * t] < 0:
                break
            for j in range(3):
                seats[k, 3 * t + j] = (leader + j) % 3
            if logs[k, 3 * t + 2] >= 0:
                leader = (leader + trick_winner(games[k], logs[k, 3 * t], logs[k, 3 * t + 1],
                                                logs[k, 3 * t + 2])) % 3


def profile_lines(profile: str = "default", *, seed: int = 1, start: int = 0, count: int = 1000,
                  first_id: int = 1) -> list[str]:
    """Records of deals ``start .. start + count - 1`` of ``seed`` as ``profile`` plays them."""
    columns = play_deals(load_profile(profile), seed=seed, start=start, count=count, log_tricks=True)
    logs = columns["tricks"]
    seats = np.full(logs.shape, -1, dtype=np.int64)
    _seats_of_play(np.maximum(columns["game"], 0).astype(np.int64), logs.astype(np.int64), seats)
    rows = {name: values.tolist() for name, values in columns.items() if name != "tricks"}
    lines = []
    for k in range(count):
        row = {name: values[k] for name, values in rows.items()}
        moves = [("w", _deal_text(row))] + _auction_moves(row["max_bid_f"], row["max_bid_m"], row["max_bid_r"])
        if row["passed"]:
            result = result_text(-1, "passed", 0)
        else:
            moves += _declaration_moves(row) + [(str(s), ISS_CARDS[c]) for s, c in zip(seats[k], logs[k]) if c >= 0]
            result = result_text(row["declarer"], "win" if row["won"] else "loss", row["score"],
                                 matadors=row["matadors"], overbid=row["overbid"], points=row["declarer_points"],
                                 tricks=row["declarer_tricks"], schneider=row["schneider"], schwarz=row["schwarz"])
        lines.append(format_line(first_id + k, START + timedelta(seconds=start + k), _players(start + k),
                                 moves=moves, result=result))
    return lines


@lru_cache(maxsize=100_000)
def _auction_moves(max_f: int, max_m: int, max_r: int) -> list[tuple[str, str]]:
    """The auction of bidders who bid up to these maxima, one value at a time, as ISS moves."""
    return auction_moves(run_auction(*max_bid_answers([max_f, max_m, max_r])).calls)


def _deal_text(row: dict) -> str:
    return ".".join(cards_text(row[h]) for h in ("hand_f", "hand_m", "hand_r", "skat"))


def _declaration_moves(row: dict) -> list[tuple[str, str]]:
    d = Declaration(row["game"], row["hand"], row["schneider_announced"], row["schwarz_announced"], row["ouvert"])
    who = str(row["declarer"])
    held = (row[("hand_f", "hand_m", "hand_r")[row["declarer"]]] | row["skat"]) & ~row["discard"] \
        if not row["hand"] else row[("hand_f", "hand_m", "hand_r")[row["declarer"]]]
    shown = cards_of(held) if row["ouvert"] else []
    if row["hand"]:
        return [(who, declaration_text(d, [], shown))]
    return [(who, "s"), ("w", cards_text(row["skat"])), (who, declaration_text(d, cards_of(row["discard"]), shown))]


# --- constructed games ----------------------------------------------------------------------------


@dataclass
class Constructed:
    """A constructed record line and what it was made from."""

    line: str
    record: dict          # the replay record of sim.rules.records
    server: dict          # the R field's result (archive terms: sim.imports.iss.record.archive_result)
    _: KW_ONLY
    split: bool = False   # the declaration was written in two moves


DECLARATIONS = [(g, hand, s, z, o) for g in range(6) for hand in (False, True) for s in (False, True)
                for z in (False, True) for o in (False, True)]


def _random_declaration(rng: np.random.Generator) -> Declaration:
    while True:
        game, hand, s, z, o = DECLARATIONS[rng.integers(len(DECLARATIONS))]
        d = Declaration(game, hand, s, z, o)
        try:
            return d.check(18)
        except IllegalDeclaration:
            continue


def _auction_for(rng: np.random.Generator, declarer: int, bid: int) -> list:
    """Calls (seat, call) of an auction that ``declarer`` wins at ``bid``, in one of a few shapes."""
    below = [int(v) for v in BID_VALUES if v < bid]
    low = below[rng.integers(len(below))] if below and rng.random() < 0.5 else None
    if declarer == 0:
        if bid == 18 and rng.random() < 0.5:
            return [(1, "pass"), (2, "pass"), (0, 18)]
        if low is None:
            return [(1, bid), (0, "yes"), (1, "pass"), (2, "pass")]
        return [(1, low), (0, "yes"), (1, "pass"), (2, bid), (0, "yes"), (2, "pass")]
    if declarer == 1:
        first = [(1, low), (0, "yes")] if low is not None else []
        return first + [(1, bid), (0, "pass"), (2, "pass")]
    if low is None:
        return [(1, "pass"), (2, bid), (0, "pass")]
    return [(1, low), (0, "pass"), (2, bid), (1, "pass")]


def _dealt(seed: int, count: int):
    """Deals ``0 .. count - 1`` of ``seed``: each one's number, its three hands and skat (card masks),
    and the record's first move, which deals them."""
    deals = deal_batch(seed, 0, count)
    for k in range(count):
        hands, skat = [int(h) for h in deals[k, :3]], int(deals[k, 3])
        yield k, hands, skat, [("w", ".".join(cards_text(m) for m in (*hands, skat)))]


def constructed_games(seed: int = 7, count: int = 200, *, early_share: float = 0.25,
                      passed_share: float = 0.05, first_id: int = 100_000) -> list[Constructed]:
    """``count`` constructed records: random declarations, bids and legal cards on the deals of ``seed``."""
    rng = np.random.default_rng(seed)
    out = []
    for k, hands, skat, moves in _dealt(seed, count):
        base = {"id": str(first_id + k), "hands": [cards_text(h).replace(".", " ") for h in hands],
                "skat": cards_text(skat).replace(".", " ")}
        heading = (first_id + k, START + timedelta(days=1, seconds=k), _players(k))  # id, date, players
        if rng.random() < passed_share:
            record = {**base, "auction": ["pass", "pass", "pass"]}
            moves += [("1", "p"), ("2", "p"), ("0", "p")]
            placeholder = rng.random() < 0.5
            server = {"declarer": -1, "outcome": "loss" if placeholder else "passed", "score": 0}
            line = format_line(*heading, moves=moves, result=result_text(-1, server["outcome"], 0))
            out.append(Constructed(line, record, server))
            continue
        out.append(_constructed_game(rng, hands, skat, moves=moves, base=base, heading=heading,
                                     early_share=early_share))
    return out


def _constructed_game(rng, hands, skat, *, moves, base, heading, early_share) -> Constructed:
    """A random game on ``hands`` and ``skat`` after the deal's ``moves``: ``base`` the replay record
    so far, ``heading`` the record's (id, date, players)."""
    declarer = int(rng.integers(3))
    d = _random_declaration(rng)
    twelve = hands[declarer] | skat
    if d.is_null:
        bid = int(rng.choice([v for v in BID_VALUES if v <= null_value(d.hand, d.ouvert)]))
    else:  # any bid up to a little above what the game can reach: some games are overbid
        bid = int(rng.choice(BID_VALUES[:20]))
    calls = _auction_for(rng, declarer, bid)
    moves += auction_moves(calls)
    put_away = skat
    if not d.hand:
        ids = cards_of(twelve)
        put_away = (1 << int(ids[rng.integers(12)]))
        while bin(put_away).count("1") < 2:
            put_away |= 1 << int(ids[rng.integers(12)])
    held = twelve & ~put_away
    in_play = list(hands)
    in_play[declarer] = held
    play = CardPlay(in_play, d.game, declarer)
    cards, seats, missed = [], [], None
    while not play.finished:
        legal = cards_of(play.legal())
        seats.append(play.to_play)
        cards.append(int(legal[rng.integers(len(legal))]))
        play.play(cards[-1])
        if missed is None and play.announcement_missed(d.schneider, d.schwarz):
            missed = len(cards)
    stopped = missed is not None and rng.random() < 0.7
    if stopped:  # the server stops a game whose announcement is missed
        cards, seats = cards[:missed], seats[:missed]
    record = {**base, "auction": [c for _, c in calls], "declarer": SEAT_NAMES[declarer], "bid": bid,
              "game": GAME_NAMES[d.game], "hand": d.hand, "schneider": d.schneider, "schwarz": d.schwarz,
              "ouvert": d.ouvert, "play": [ISS_CARDS[c] for c in cards]}
    who = str(declarer)
    shown = cards_of(held) if d.ouvert else []
    split = False
    if d.hand:
        moves.append((who, declaration_text(d, [], shown)))
    else:
        record["discard"] = cards_text(put_away).replace(".", " ")
        moves += [(who, "s"), ("w", cards_text(skat))]
        text = declaration_text(d, cards_of(put_away), shown)
        split = rng.random() < 0.3
        if split:  # the older form: the game, then the cards put away (and shown) as a move of their own
            game_letters, _, cards_part = text.partition(".")
            moves += [(who, game_letters), (who, cards_part)]
        else:
            moves.append((who, text))
    if rng.random() < early_share and not stopped:
        return _ended_early(rng, record, moves, cards=cards, seats=seats, declarer=declarer, d=d, bid=bid,
                            twelve=twelve, put_away=put_away, heading=heading, split=split)
    moves += _with_shows_and_resignations(rng, seats, cards, declarer=declarer, held=held)
    r = replay(record)
    server = {"declarer": declarer, "outcome": "win" if r["won"] else "loss", "score": r["score"],
              "matadors": r["matadors"], "overbid": r["overbid"], "points": r["declarer_points"],
              "tricks": r["declarer_tricks"], "schneider": r["schneider"], "schwarz": r["schwarz"]}
    line = format_line(*heading, moves=moves, result=result_text(**server))
    return Constructed(line, record, server, split=split)


def _with_shows_and_resignations(rng, seats, cards, *, declarer, held) -> list[tuple[str, str]]:
    """The cards of a game played on as moves, with the moves that end nothing as the server writes
    them now and then: the declarer showing the cards (``SC``, ``SC.<cards>``) and one defender
    resigning alone (``RE``), each before a random card."""
    moves = [(str(s), ISS_CARDS[c]) for s, c in zip(seats, cards)]
    extra = []
    if rng.random() < 0.2:
        at = int(rng.integers(len(cards) + 1))
        token = "SC"
        still_held = _still_held(held, [c for s, c in zip(seats[:at], cards[:at]) if s == declarer])
        if still_held and rng.random() < 0.5:
            token = "SC." + cards_text(still_held)
        extra.append((at, (str(declarer), token)))
    if rng.random() < 0.1:
        defender = (declarer + 1 + int(rng.integers(2))) % 3
        extra.append((int(rng.integers(len(cards) + 1)), (str(defender), "RE")))
    for at, move in sorted(extra, key=lambda e: -e[0]):
        moves.insert(at, move)
    return moves


def _ended_early(rng, record, moves, *, cards, seats, declarer, d, bid, twelve, put_away, heading,
                 split) -> Constructed:
    """The game cut before its last card and ended by the declarer's RE, both defenders' RE, TI.n or
    LE.n (an SC or one defender's RE may come before), with a result as a server might give it: the
    remaining tricks go to the side that did not give up."""
    cut = int(rng.integers(len(cards)))
    kind = ("RE", "RE2", "TI", "LE")[rng.integers(4)]
    defenders = [(declarer + 1) % 3, (declarer + 2) % 3]
    rng.shuffle(defenders)
    who = declarer if kind == "RE" else defenders[1] if kind == "RE2" else int(rng.integers(3))
    moves += _with_shows_and_resignations(rng, seats[:cut], cards[:cut], declarer=declarer, held=twelve & ~put_away) \
        if kind != "RE2" else [(str(s), ISS_CARDS[c]) for s, c in zip(seats[:cut], cards[:cut])]
    if kind == "RE":
        moves.append((str(who), "RE"))
    elif kind == "RE2":
        if rng.random() < 0.5:
            moves.append((str(declarer), "SC"))
        moves += [(str(defenders[0]), "RE"), (str(defenders[1]), "RE")]
    else:
        moves.append(("w", f"{kind}.{who}"))
    declarer_wins = kind == "RE2" or (kind in ("TI", "LE") and who != declarer)
    played_points = _points_taken(cards[:cut], seats[:cut], game=d.game, declarer=declarer)
    rest = sum(int(CARD_POINTS[c]) for c in cards[cut:])
    points = played_points[0] + int(card_points(put_away)) + (rest if declarer_wins else 0)
    tricks = played_points[1] + ((10 - played_points[2]) if declarer_wins else 0)
    if d.is_null:
        tricks = 0 if declarer_wins else max(1, tricks)
    row = np.zeros(len(RESULT_COLUMNS), dtype=np.int64)  # the game as if the cards had decided it so
    result_row(d.game, d.hand, d.schneider, d.schwarz, d.ouvert, bid, declarer, twelve, points, tricks, row)
    mat, value = int(row[RESULT_MATADORS]), int(row[RESULT_VALUE])
    overbid, schneider, schwarz = bool(row[RESULT_OVERBID]), bool(row[RESULT_SCHNEIDER]), bool(row[RESULT_SCHWARZ])
    penalty = kind in ("TI", "LE") and who != declarer
    outcome = "penalty" if penalty else ("win" if declarer_wins and not overbid else "loss")
    score = 0 if penalty else (value if outcome == "win" else -2 * value)
    penalties = [0, 0, 0]
    if penalty:
        penalties[who] = -50
    server = {"declarer": declarer, "outcome": outcome, "score": score, "matadors": mat, "overbid": overbid,
              "points": points, "tricks": tricks, "schneider": schneider, "schwarz": schwarz}
    result = result_text(**server, left=who if kind == "LE" else -1, timeout=who if kind == "TI" else -1,
                         resigned=kind in ("RE", "RE2"), penalties=penalties)
    ended = {"RE": "resigned", "RE2": "resigned", "TI": "timeout", "LE": "left"}[kind]
    record = {**record, "play": record["play"][:cut], "ended": ended, "ended_by": who}
    return Constructed(format_line(*heading, moves=moves, result=result), record, server, split=split)


def _still_held(hand: int, played) -> int:
    for c in played:
        hand &= ~(1 << c)
    return hand


def _points_taken(cards, seats, *, game, declarer) -> tuple[int, int, int]:
    """(declarer's card points, declarer's tricks, tricks completed) of the cards played so far."""
    points = tricks = done = 0
    for t in range(len(cards) // 3):
        trick = cards[3 * t:3 * t + 3]
        winner = seats[3 * t + int(trick_winner(game, *trick))]
        done += 1
        if winner == declarer:
            points += sum(int(CARD_POINTS[c]) for c in trick)
            tricks += 1
    return points, tricks, done


def penalty_records(seed: int = 9, count: int = 20, first_id: int = 200_000) -> list[Constructed]:
    """Records of deals a time-out or a player leaving ended before the card play (``d:-1 penalty``
    and a penalty point, or, after the pick-up, the declarer's loss): in the auction, once it is
    over, or after the skat was picked up. The kernels leave them to the checked path."""
    rng = np.random.default_rng(seed)
    out = []
    for k, _, skat, moves in _dealt(seed, count):
        winner = int(rng.integers(3))
        calls = _auction_for(rng, winner, int(rng.choice(BID_VALUES[:8])))
        where = int(rng.integers(3))  # 0: in the auction, 1: after it, 2: after picking up the skat
        if where == 0:
            calls = calls[:int(rng.integers(len(calls)))]
        moves += auction_moves(calls)
        declarer = winner if where else -1
        if where == 2:
            moves += [(str(declarer), "s"), ("w", cards_text(skat))]
        who = int(rng.integers(3)) if where < 2 else declarer
        kind = ("TI", "LE")[rng.integers(2)]
        moves.append(("w", f"{kind}.{who}"))
        penalties = [0, 0, 0]
        penalties[who] = 1
        outcome = "penalty" if declarer < 0 or who != declarer else "loss"
        result = result_text(declarer if outcome == "loss" else -1, outcome, 0, left=who if kind == "LE" else -1,
                             timeout=who if kind == "TI" else -1, penalties=penalties)
        server = {"declarer": declarer if outcome == "loss" else -1, "outcome": outcome, "charged": who}
        line = format_line(first_id + k, START + timedelta(days=2, seconds=k), _players(k), moves=moves, result=result)
        out.append(Constructed(line, {"declarer": declarer, "ended": "penalty", "ended_by": who}, server))
    return out

