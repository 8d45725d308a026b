"""ISS record lines: the example games of the format notes, engine games written as lines and read
back (the same rows), both forms an archive may use, and bad lines. The kernels
(sim.imports.iss.kernels) must accept exactly what the checked path
(sim.imports.iss.record.check_line) accepts, with the same rows."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from sim.imports.iss.kernels import (
    O_AGREES,
    O_BID,
    O_DECLARER,
    O_DISCARD,
    O_ENDED,
    O_ENDED_BY,
    O_GAME,
    O_HAND,
    O_OUVERT,
    O_RESULT,
    O_SCHNEIDER_ANNOUNCED,
    O_SCHWARZ_ANNOUNCED,
    check_lines,
)
from sim.imports.iss.notation import IssError, parse_result
from sim.imports.iss.record import check_line
from sim.imports.iss.sample import constructed_games, penalty_records, profile_lines
from sim.imports.iss.scan import MISSING
from sim.rules.cards import SEAT_NAMES
from sim.rules.records import replay
from sim.rules.scoring import RESULT_COLUMNS
from strategies import load_profile, play_deals

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = [line for line in (ROOT / "examples" / "iss.txt").read_text().splitlines() if line.startswith("(;")]
#: What the server's R field says of each example, and the engine must give.
EXAMPLE_RESULTS = [
    {"declarer": 0, "outcome": "loss", "score": -96, "game_value": 48, "matadors": 1, "overbid": True, "points": 44,
     "tricks": 4, "schneider": False, "schwarz": False},
    {"declarer": 0, "outcome": "loss", "score": -144, "game_value": 72, "matadors": -1, "overbid": False,
     "points": 32, "tricks": 2, "schneider": False, "schwarz": False},
    {"declarer": 0, "outcome": "loss", "score": -46, "game_value": 23, "matadors": 0, "overbid": False,
     "points": 25, "tricks": 1, "schneider": False, "schwarz": False},
    {"declarer": 1, "outcome": "loss", "score": -120, "game_value": 60, "matadors": -5, "overbid": False,
     "points": 57, "tricks": 4, "schneider": False, "schwarz": False},
]
COLUMNS = ("hand_f", "hand_m", "hand_r", "skat", "passed", "declarer", "bid", "game", "hand", "schneider_announced",
           "schwarz_announced", "ouvert", "discard", "matadors", "declarer_points", "declarer_tricks", "schneider",
           "schwarz", "won", "overbid", "game_value", "score", "sf_f", "sf_m", "sf_r", "value_reached",
           "won_in_play")


def checked_lines(lines: list[str]):
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    lengths = np.array([len(line.encode("utf-8")) + 1 for line in lines], dtype=np.int64)
    ends = np.cumsum(lengths)
    return check_lines(data, ends - lengths, ends)


def kernel_rows(lines: list[str]) -> tuple[np.ndarray, list[dict]]:
    """(accepted, rows) of the kernels, rows in the checked path's terms."""
    b = checked_lines(lines)
    rows = []
    for k in range(len(lines)):
        o = b.out[k]
        row = {"hand_f": b.hands[k, 0], "hand_m": b.hands[k, 1], "hand_r": b.hands[k, 2], "skat": b.hands[k, 3],
               "passed": o[O_ENDED] == 1, "declarer": o[O_DECLARER], "bid": o[O_BID], "game": o[O_GAME],
               "hand": o[O_HAND] == 1, "schneider_announced": o[O_SCHNEIDER_ANNOUNCED] == 1,
               "schwarz_announced": o[O_SCHWARZ_ANNOUNCED] == 1, "ouvert": o[O_OUVERT] == 1,
               "discard": o[O_DISCARD], "ended": o[O_ENDED], "ended_by": o[O_ENDED_BY],
               "tricks": b.logs[k].tolist()}
        for i, name in enumerate(RESULT_COLUMNS):
            row[name] = None if o[O_RESULT + i] == MISSING else o[O_RESULT + i]
        rows.append({k2: (v if v is None or isinstance(v, list) else int(v)) for k2, v in row.items()})
    return b.ok, rows


def same_row(kernel: dict, checked: dict) -> bool:
    keys = (*COLUMNS, "ended", "ended_by")
    return all(kernel[k] == (None if checked[k] is None else int(checked[k])) for k in keys) \
        and kernel["tricks"] == checked["tricks"]


# --- the example games of docs/imports.md ------------------------------------------------------------------


@pytest.mark.parametrize("number", range(4))
def test_example_lines_match_the_servers_results(number):
    checked = check_line(EXAMPLES[number])
    assert checked.agrees
    assert checked.engine == EXAMPLE_RESULTS[number] == checked.archive


def test_example_lines_in_the_kernels():
    ok, rows = kernel_rows(EXAMPLES)
    assert ok.all()
    b = checked_lines(EXAMPLES)
    assert (b.out[:, O_AGREES] == 1).all()
    for line, row in zip(EXAMPLES, rows):
        assert same_row(row, check_line(line).row)


def test_example_declarations():
    rows = [check_line(line).row for line in EXAMPLES]
    assert [(r["game"], r["hand"], r["bid"], r["declarer"]) for r in rows] == [(3, False, 44, 0), (4, True, 48, 0),
                                                                               (5, False, 23, 0), (1, False, 50, 1)]
    assert rows[2]["tricks"][6] == -1  # the null game stopped after two tricks


# --- engine games written as lines and read back ----------------------------------------------------------


def test_profile_games_round_trip():
    """Deals played by the engine -> lines -> kernels: the same rows as the simulation logged."""
    count = 600
    lines = profile_lines("default", seed=3, start=0, count=count)
    simulated = play_deals(load_profile("default"), seed=3, start=0, count=count, log_tricks=True)
    ok, rows = kernel_rows(lines)
    assert ok.all()
    for name in COLUMNS:
        kernel = np.array([r[name] for r in rows])
        assert (kernel == np.asarray(simulated[name]).astype(np.int64)).all(), name
    assert (np.array([r["tricks"] for r in rows]) == simulated["tricks"]).all()
    assert simulated["passed"].any() and (~simulated["passed"]).any()


def test_profile_games_round_trip_through_the_checked_path():
    lines = profile_lines("random", seed=4, count=60)
    simulated = play_deals(load_profile("random"), seed=4, start=0, count=60, log_tricks=True)
    for k, line in enumerate(lines):
        checked = check_line(line)
        assert checked.agrees
        for name in COLUMNS:
            assert int(checked.row[name]) == int(simulated[name][k]), name


CONSTRUCTED = constructed_games(seed=11, count=240)


def test_constructed_games_cover_every_kind():
    records = [c.record for c in CONSTRUCTED]
    games = {r.get("game") for r in records}
    assert games == {"diamonds", "hearts", "spades", "clubs", "grand", "null", None}
    assert any(r.get("ouvert") and r["game"] == "null" and not r["hand"] for r in records)
    assert any(r.get("ouvert") and r["game"] == "grand" for r in records)
    assert any(r.get("schwarz") and not r.get("ouvert") for r in records)
    assert {r.get("ended") for r in records} == {None, "resigned", "timeout", "left"}
    assert any(c.split for c in CONSTRUCTED)
    played = [c for c in CONSTRUCTED if "ended" not in c.record and c.record.get("game")]
    assert any(c.server["overbid"] for c in played)
    assert any(c.server["outcome"] == "passed" for c in CONSTRUCTED) and any(
        c.server["outcome"] == "loss" and c.server["declarer"] == -1 for c in CONSTRUCTED)


def test_constructed_games_read_back_as_the_engine_replays_them():
    """A constructed line reads back as the engine replays the record it was made from."""
    for c in CONSTRUCTED:
        check_constructed(c)


def check_constructed(c):
    checked = check_line(c.line)
    assert checked.agrees
    expected = replay(c.record)
    row = checked.row
    if expected["passed_in"]:
        assert row["passed"] and row["declarer"] == -1
        return
    assert row["declarer"] == expected["declarer"] and row["bid"] == expected["bid"]
    assert row["matadors"] == expected["matadors"]
    if c.record.get("ended"):
        assert row["ended"] == ["played", "passed", "resigned", "claimed", "timeout", "left"].index(c.record["ended"])
        assert row["ended_by"] == c.record["ended_by"]
        server = c.server  # an early end is scored as the server did
        assert (row["declarer_points"], row["declarer_tricks"], row["score"]) == (
            server["points"], server["tricks"], server["score"])
        assert row["won"] == {"win": True, "loss": False}.get(server["outcome"])
    else:
        for key in ("declarer_points", "declarer_tricks", "won", "overbid", "game_value", "score", "schneider",
                    "schwarz"):
            assert row[key] == expected[key], key


def test_constructed_games_in_the_kernels():
    lines = [c.line for c in CONSTRUCTED]
    ok, rows = kernel_rows(lines)
    assert ok.all()
    for line, row in zip(lines, rows):
        assert same_row(row, check_line(line).row)


# --- the forms an archive may use --------------------------------------------------------------------------


def variants(line: str) -> list[str]:
    return [
        "Game 900: " + line,                                                        # text before (;
        line.replace("PC[International Skat Server]", "PC[Internet Skat Server]"),  # older place
        line.replace("R2[]", "R2[]OW[1]"),                                          # whose view
        line.replace("MV[", "MV[ ").replace(" ;)", ";)"),                            # spacing
        re.sub(r"R\[[^\]]*\]", "", line).replace("MV[", "R[" + _result(line) + "]MV["),  # fields in another order
    ]


def _result(line: str) -> str:
    return re.search(r"R\[([^\]]*)\]", line).group(1)


@pytest.mark.parametrize("form", range(5))
def test_accepted_forms(form):
    lines = [variants(line)[form] for line in EXAMPLES]
    ok, rows = kernel_rows(lines)
    for line, row, original in zip(lines, rows, EXAMPLES):
        checked = check_line(line)
        assert checked.agrees and checked.row == check_line(original).row
        assert same_row(row, checked.row)


def test_split_declaration_and_shown_cards():
    split = [c.line for c in CONSTRUCTED if c.split]
    shown = [c.line for c in CONSTRUCTED if " SC." in c.line]
    assert split and shown
    ok, _ = kernel_rows(split + shown)
    assert ok.all()


def test_constructed_games_hold_the_servers_kinds_of_moves():
    """SC followed by more cards, a defender resigning alone and playing on, both defenders resigning,
    and games stopped at a missed announcement: the kernels read them as the checked path does."""
    def moves(c):
        return moves_of(c.line)
    shown_then_played = [c for c in CONSTRUCTED if any(t.startswith("SC") for t in moves(c)[:-2])
                         and re.search(r" SC(\.\S+)? \d [CSHD][7-9TJQKA] ", c.line)]
    alone = [c for c in CONSTRUCTED if "ended" not in c.record and " RE " in c.line]
    both = [c for c in CONSTRUCTED if c.record.get("ended") == "resigned"
            and SEAT_NAMES.index(c.record["declarer"]) != c.record["ended_by"]]
    stopped = [c for c in CONSTRUCTED if "ended" not in c.record and c.record.get("game") not in (None, "null")
               and len(c.record["play"]) < 30]
    assert shown_then_played and alone and both and stopped
    for c in shown_then_played + alone + both + stopped:
        check_constructed(c)
    for c in stopped:
        assert not check_line(c.line).row["won"]
    ok, rows = kernel_rows([c.line for c in both + stopped])
    assert ok.all()


def test_one_defenders_resignation_ends_the_game_only_in_iss2_records():
    c = next(c for c in CONSTRUCTED if "ended" not in c.record and c.record.get("game") != "null"
             and re.search(r" \d RE \d [CSHD][7-9TJQKA] ", c.line))
    tokens = moves_of(c.line)
    at = next(i for i in range(1, len(tokens), 2) if tokens[i] == "RE")
    cut = with_moves(c.line, tokens[:at + 1])
    with pytest.raises(IssError, match="play: too short"):
        check_line(cut)  # today's server: the game goes on after one defender's RE
    iss2 = cut.replace("PC[International Skat Server]", "PC[ISS2]")
    row = check_line(iss2).row
    assert row["ended"] == 2 and row["ended_by"] == int(tokens[at - 1])
    ok, rows = kernel_rows([cut, iss2])
    assert ok.tolist() == [False, True] and same_row(rows[1], row)


def test_penalty_records_read_by_the_checked_path():
    records = penalty_records(count=30)
    ok, _ = kernel_rows([c.line for c in records])
    assert not ok.any()  # left to the checked path
    for c in records:
        checked = check_line(c.line)
        assert checked.agrees and checked.row["ended"] == 6 and checked.row["ended_by"] == c.record["ended_by"]
        assert not checked.row["passed"] and checked.row["won"] is None


def test_passed_in_deal_with_placeholders():
    line = next(c.line for c in CONSTRUCTED if c.server.get("outcome") == "loss" and c.server["declarer"] == -1)
    checked = check_line(line)
    assert checked.row["passed"] and checked.agrees


# --- bad lines ---------------------------------------------------------------------------------------------


GOOD = EXAMPLES[0]


def moves_of(line: str) -> list[str]:
    return re.search(r"MV\[([^\]]*)\]", line).group(1).split()


def with_moves(line: str, tokens: list[str]) -> str:
    return re.sub(r"MV\[[^\]]*\]", "MV[" + " ".join(tokens) + " ]", line)


def swapped_moves(line: str, i: int, j: int) -> str:
    """The line with moves i and j (counted from 0, the deal) swapped, who and what together."""
    tokens = moves_of(line)
    pairs = [tokens[k:k + 2] for k in range(0, len(tokens), 2)]
    pairs[i], pairs[j] = pairs[j], pairs[i]
    return with_moves(line, [t for p in pairs for t in p])


BAD = {
    "no record": ("GM[Skat]ID[1]", "no record: the line has no '(;'"),
    "cut short": (GOOD[:300], "is not closed with ']'"),
    "no end": (GOOD.replace(" ;)", ""), "the record ends without ';)'"),
    "after end": (GOOD + " (;", "text after the end of the record"),
    "duplicate field": (GOOD.replace("R0[]", "ID[5]"), "field ID appears twice"),
    "no result": (re.sub(r"R\[[^\]]*\]", "", GOOD), "field R is missing"),
    "broken field": (GOOD.replace("R0[]", "R0 []"), "broken field at character"),
    "date": (GOOD.replace("2024-05-01/12", "2024-13-01/12"), "DT: '2024-13-01/12:00:00/UTC' is not a date"),
    "odd moves": (with_moves(GOOD, moves_of(GOOD)[:-1]), "the moves are pairs of who and what"),
    "bad who": (GOOD.replace(" 1 DJ ", " 3 DJ "), "'3' is not a player"),
    "dealt twice": (GOOD.replace("HK.HT.HA", "HK.HK.HA"), "HK dealt twice"),
    "hidden cards": (GOOD.replace("w HK.HT.HA", "w ??.??.HA"), "a record written from one player's view"),
    "one hidden card": (GOOD.replace("w HK.HT", "w ??.HT"), "a damaged record: card 1 of the deal (forehand's hand)"),
    "one hidden card played": (GOOD.replace(" 1 DJ ", " 1 ?? "), "a damaged record: middlehand's card in trick 1"),
    "unknown card": (GOOD.replace("w HK.HT", "w HX.HT"), "'HX' is not a card"),
    "short deal": (GOOD.replace("w HK.HT.", "w "), "the first move must be the deal"),
    "illegal bid": (GOOD.replace(" 1 44 ", " 1 43 "), "middlehand bids 43, which is not a legal bid value"),
    "wrong bidder": (GOOD.replace(" 1 44 0 y", " 2 44 0 y"), "rearhand calls, but it is middlehand's turn"),
    "hold instead of bid": (GOOD.replace(" 1 44 0 y", " 1 y 0 y"), "has to bid or pass here, not hold"),
    "skat by another": (GOOD.replace(" 0 s ", " 1 s "), "picking up the skat by middlehand"),
    "wrong skat shown": (GOOD.replace("w H7.S9 0 C", "w H7.S8 0 C"), "the skat shown is not the skat dealt"),
    "hand after pick-up": (GOOD.replace(" 0 C.HJ.S9 ", " 0 CH.HJ.S9 "), "declared hand (H) after picking up"),
    "no discard": (GOOD.replace(" 0 C.HJ.S9 ", " 0 C "), "0 cards after the game"),
    "discard not held": (GOOD.replace(" 0 C.HJ.S9 ", " 0 C.HJ.D8 "), "D8 is not among the declarer's twelve cards"),
    "bad declaration": (GOOD.replace(" 0 C.HJ.S9 ", " 0 X.HJ.S9 "), "not a declaration"),
    "schneider after pick-up": (GOOD.replace(" 0 C.HJ.S9 ", " 0 CS.HJ.S9 "), "only be announced in a hand game"),
    "revoke": (GOOD.replace(" 2 HQ ", " 2 SK ").replace(" 2 SK 1 D7", " 2 HQ 1 D7"), "revoke"),
    "card not held": (GOOD.replace(" 1 DJ ", " 1 SJ "), "middlehand does not hold SJ"),
    "out of turn": (swapped_moves(GOOD, 9, 10), "does not hold"),
    "wrong player named": (GOOD.replace(" 1 DJ 2 HQ", " 2 DJ 2 HQ"), "is middlehand's to play, not rearhand's"),
    "too short": (with_moves(GOOD, moves_of(GOOD)[:-2]), "the game is not over after 29 cards"),
    "too long": (with_moves(GOOD, moves_of(GOOD) + ["0", "HA"]), "1 card too many"),
    "end then card": (with_moves(GOOD, moves_of(GOOD)[:-6] + ["0", "RE", "1", "DQ"]), "nothing but early ends"),
    "end after the end": (with_moves(GOOD, moves_of(GOOD) + ["0", "RE"]), "so it did not end early"),
    "time-out seat": (with_moves(GOOD, moves_of(GOOD)[:-6] + ["w", "TI.5"]), "TI.0, TI.1 or TI.2"),
    "resign by the server": (with_moves(GOOD, moves_of(GOOD)[:-6] + ["w", "RE"]), "made by a player"),
    "unknown result item": (GOOD.replace("bidok", "bidOK").replace("overbid", "x:1"), "is not a result item"),
    "result item twice": (GOOD.replace(" t:4 ", " t:4 t:4 "), "t is given twice"),
    "result missing item": (GOOD.replace(" p:44 ", " "), "R: p: is missing"),
    "result not a number": (GOOD.replace(" p:44 ", " p:4x4 "), "'p:4x4' is not a result item"),
    "result flag": (GOOD.replace(" s:0 ", " s:2 "), "must be s:0 or s:1"),
    "skat and declaration swapped": (swapped_moves(GOOD, 6, 7), "the server must show the skat here"),
    "bids swapped": (swapped_moves(GOOD, 1, 2), "forehand calls, but it is middlehand's turn"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_line_is_reported_with_its_problem(name):
    line, message = BAD[name]
    with pytest.raises(IssError) as error:
        check_line(line)
    assert message in str(error.value)
    assert "\n" not in str(error.value)
    ok, _ = kernel_rows([line])
    assert not ok[0], "the kernels accepted a line the checked path rejects"


def test_kernels_flag_what_the_checked_path_rejects_and_agree_on_the_rest():
    """Random damage to valid lines (cut, bytes changed, moves swapped): every line the kernels
    accept, the checked path accepts with the same row."""
    rng = random.Random(5)
    good = EXAMPLES + [c.line for c in CONSTRUCTED[:60]] + profile_lines(count=40, seed=9)
    damaged = []
    for _ in range(1500):
        line = rng.choice(good)
        kind = rng.randrange(4)
        if kind == 0:
            line = line[:rng.randrange(len(line))]
        elif kind == 1:
            at = rng.randrange(len(line))
            line = line[:at] + rng.choice("0123456789wpysHDCSGNOZ.[] ?-:TJQKA") + line[at + 1:]
        elif kind == 2:
            n = len(moves_of(line)) // 2
            line = swapped_moves(line, rng.randrange(1, n), rng.randrange(1, n))
        else:
            at = rng.randrange(len(line))
            line = line[:at] + line[at + 1:]
        damaged.append(line)
    ok, rows = kernel_rows(damaged)
    rejected = 0
    for line, accepted, row in zip(damaged, ok, rows):
        try:
            checked = check_line(line)
        except IssError:
            rejected += 1
            assert not accepted, f"the kernels accept a line the checked path rejects: {line}"
            continue
        if accepted:
            assert same_row(row, checked.row)
    assert rejected > 1000


def test_disagreement_is_found_and_kept():
    line = GOOD.replace(" p:44 ", " p:45 ")
    checked = check_line(line)
    assert not checked.agrees
    assert checked.engine["points"] == 44 and checked.archive["points"] == 45
    b = checked_lines([line])
    assert b.ok[0] and b.out[0, O_AGREES] == 0


def test_result_items():
    items = parse_result("d:0 loss v:-96 m:1 overbid p:44 t:4 s:0 z:0 p0:0 p1:0 p2:0 l:-1 to:-1 r:0")
    assert items == {"d": 0, "outcome": "loss", "v": -96, "m": 1, "bid": "overbid", "p": 44, "t": 4, "s": 0, "z": 0,
                     "p0": 0, "p1": 0, "p2": 0, "l": -1, "to": -1, "r": 0}
    assert parse_result("d:-1 passed") == {"d": -1, "outcome": "passed"}


def test_lines_grouped_by_an_auction_hash_must_share_its_text():
    """Lines are grouped by a hash of their auction's text; a line whose text differs from its group's
    (a hash collision) is left to the checked path rather than given another line's auction."""
    from sim.imports.iss.scan import same_text

    data = np.frombuffer(b"1 18 0 y 1 p 2 p|1 18 0 y 1 p 2 p|1 20 0 p 2 p", dtype=np.uint8)
    auction = np.array([[0, 16, 0, 7], [17, 33, 0, 7], [34, 46, 0, 7]], dtype=np.int64)
    ok = np.ones(3, dtype=np.bool_)
    same_text(data, auction, np.zeros(3, dtype=np.int64), ok)
    assert ok.tolist() == [True, True, False]
