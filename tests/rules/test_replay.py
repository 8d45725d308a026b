"""Game-record replay: the worked examples of the Skat Order's scoring rules as known answers
(docs/rules.md#known-answers), every kind of bad record, and the ``skatsim replay`` command end to end."""

from __future__ import annotations

import copy
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.commands.cli import main
from sim.rules.cards import CARD_POINTS, cards_of, format_card, format_hand, mask_of, parse_card, parse_hand
from sim.rules.records import RecordError, parse_record, replay
from sim.rules.shuffle import deal
from sim.rules.tricks import CardPlay
from tests.command_line import stdout_runner

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "examples" / "games.jsonl"
BAD_GAMES = ROOT / "examples" / "bad_games.jsonl"
EXAMPLES = {r["id"]: r for r in map(json.loads, GAMES.read_text().splitlines())}


def example(record_id: str, **changes) -> dict:
    """A copy of an example record with some fields changed (None removes a field)."""
    record = copy.deepcopy(EXAMPLES[record_id])
    for name, value in changes.items():
        if value is None:
            record.pop(name, None)
        else:
            record[name] = value
    return record


def play_of(record_id: str) -> list[str]:
    play = EXAMPLES[record_id]["play"]
    return play.split() if isinstance(play, str) else list(play)


def twelve(record: dict) -> int:
    seat = ("forehand", "middlehand", "rearhand").index(record["declarer"])
    return parse_hand(record["hands"][seat]) | parse_hand(record["skat"])


# --- the worked examples of the rules (International Skat Order) -------------------------

# id: (declaration, bid, declarer points, matadors, won, overbid, schneider, schwarz,
#      game value, classic score, Seeger-Fabian of the declarer, of each defender)
KNOWN_ANSWERS = {
    "rules-1": ("clubs", 18, 75, 2, True, False, False, False, 36, 36, 86, 0),
    "rules-2": ("spades hand", 18, 95, -3, True, False, True, False, 66, 66, 116, 0),
    "rules-3": ("grand", 18, 58, 1, False, False, False, False, 48, -96, -146, 40),
    "rules-4": ("hearts hand", 36, 70, 1, False, True, False, False, 40, -80, -130, 40),
    "rules-5": ("clubs hand", 48, None, -1, False, True, False, False, 48, -96, -146, 40),
    "rules-6-ouvert": ("null ouvert", 18, None, 0, True, False, False, False, 46, 46, 96, 0),
    "rules-6-hand": ("null hand", 18, None, 0, False, False, False, False, 35, -70, -120, 40),
    "rules-7": ("clubs ouvert hand", 18, 120, 2, True, False, True, True, 108, 108, 158, 0),
    "rules-8": ("grand hand schneider announced", 18, 89, 4, False, False, False, False, 192, -384, -434, 40),
    "rules-9": ("diamonds", 18, 28, 1, False, False, True, False, 27, -54, -104, 40),
    "rules-10": ("grand", 18, 120, 4, True, False, True, False, 144, 144, 194, 0),
}


@pytest.mark.parametrize("record_id", sorted(KNOWN_ANSWERS))
def test_worked_example(record_id):
    (declaration, bid, points, matadors, won, overbid, schneider, schwarz, value, score,
     sf_declarer, sf_defender) = KNOWN_ANSWERS[record_id]
    r = replay(EXAMPLES[record_id])
    assert r["declaration"] == declaration and r["bid"] == bid
    if points is not None:
        assert r["declarer_points"] == points
    assert (r["matadors"], r["won"], r["overbid"]) == (matadors, won, overbid)
    assert (r["schneider"], r["schwarz"]) == (schneider, schwarz)
    assert (r["game_value"], r["score"]) == (value, score)
    expected_sf = [sf_defender] * 3
    expected_sf[r["declarer"]] = sf_declarer
    assert r["seeger_fabian"] == expected_sf
    assert r["passed_in"] is False


def test_example_1_holds_two_matadors_after_pick_up():
    record = EXAMPLES["rules-1"]
    held = twelve(record)
    assert "discard" in record and not record.get("hand")
    assert held >> parse_card("CJ") & 1 and held >> parse_card("SJ") & 1
    assert not held >> parse_card("HJ") & 1


def test_example_2_declarer_holds_only_the_diamond_jack():
    held = twelve(EXAMPLES["rules-2"])
    assert [held >> parse_card(j) & 1 for j in ("CJ", "SJ", "HJ", "DJ")] == [0, 0, 0, 1]


def test_example_5_jack_of_spades_lies_in_the_skat():
    record = EXAMPLES["rules-5"]
    assert "SJ" in record["skat"].split()
    assert not {"CJ", "SJ"} & set(record["hands"][0].split()) and record["declarer"] == "forehand"
    r = replay(record)
    # "without 2, game 3, hand 4" would be 48; the skat makes it without 1: 3 x 12 = 36.
    assert r["won"] is False and 61 <= r["declarer_points"] <= 89


def test_example_6_null_ouvert_takes_no_trick():
    r = replay(EXAMPLES["rules-6-ouvert"])
    assert len(r["trick_winners"]) == 10 and r["declarer"] not in r["trick_winners"]
    assert r["declarer_tricks"] == 0


def test_example_6_null_hand_ends_at_the_fourth_trick():
    r = replay(EXAMPLES["rules-6-hand"])
    assert len(play_of("rules-6-hand")) == 12
    assert len(r["trick_winners"]) == 4 and r["trick_winners"][-1] == r["declarer"]
    assert r["declarer"] not in r["trick_winners"][:3]


def test_example_7_declarer_takes_every_trick():
    r = replay(EXAMPLES["rules-7"])
    assert r["trick_winners"] == [r["declarer"]] * 10 and r["declarer_tricks"] == 10


def test_example_8_defenders_take_31():
    r = replay(EXAMPLES["rules-8"])
    assert 120 - r["declarer_points"] == 31


def test_example_9_declarer_took_tricks_so_no_schwarz():
    r = replay(EXAMPLES["rules-9"])
    assert 0 < r["declarer_tricks"] < 10


def test_example_10_defenders_one_trick_of_seven_eight_nine():
    r = replay(EXAMPLES["rules-10"])
    lost = [k for k, w in enumerate(r["trick_winners"]) if w != r["declarer"]]
    assert len(lost) == 1
    trick = play_of("rules-10")[3 * lost[0]: 3 * lost[0] + 3]
    assert sorted(t[1:] for t in trick) == ["7", "8", "9"]


def test_every_example_record_replays():
    results = [replay(r) for r in EXAMPLES.values()]
    assert len(results) >= 10
    assert sum(1 for r in results if r["passed_in"]) == 1
    assert any(EXAMPLES[r["id"]].get("auction") for r in results if not r["passed_in"])


def test_declarer_and_defenders_share_120_points():
    """The skat of a hand game and the discard count for the declarer (rules-10 puts away 21)."""
    for record in EXAMPLES.values():
        r = replay(record)
        if r["passed_in"] or record["game"] == "null":
            continue
        play = play_of(record["id"])
        defenders = sum(int(CARD_POINTS[parse_card(c)])
                        for k, winner in enumerate(r["trick_winners"]) if winner != r["declarer"]
                        for c in play[3 * k: 3 * k + 3])
        assert r["declarer_points"] + defenders == 120, record["id"]


# --- auctions -----------------------------------------------------------------------------


def test_passed_in_deal_scores_zero():
    r = replay(EXAMPLES["passed-in"])
    assert r["passed_in"] is True and r["declarer"] is None and r["game"] is None
    assert (r["score"], r["game_value"], r["seeger_fabian"]) == (0, 0, [0, 0, 0])
    assert r["trick_winners"] == []


def test_forehand_lone_game():
    record = example("rules-8")
    assert record["auction"] == ["pass", "pass", 18]
    assert replay(record)["declarer"] == 0


def test_auction_calls_are_case_insensitive_and_seats_may_be_numbers():
    record = example("rules-1", auction=[18, "PASS", "Pass"], declarer=1)
    assert replay(record)["score"] == 36


@pytest.mark.parametrize("auction, message", [
    ([19, "pass", "pass"], "auction call 1: middlehand bids 19, which is not a legal bid value"),
    ([20, "yes", 18], "auction call 3: middlehand bids 18, not above the 20"),
    (["yes", "pass", "pass"], "auction call 1: middlehand has to bid or pass here, not hold"),
    ([18, 20, "pass"], "auction call 2: forehand has to hold 18 ('yes') or pass here, not bid 20"),
    ([18, "pass"], "auction: incomplete after call 2; rearhand still has to bid or pass"),
    ([18, "pass", "pass", "pass"], "auction: complete after call 3, with 1 call left over"),
    ([18, "pass", 20, "pass"], "auction: won by rearhand, but the declarer is middlehand"),
    ([20, "pass", "pass"], "auction: ends at 20, but the bid is 18"),
    (["pass", "pass", 20], "auction call 3: forehand playing alone bids 18, not 20"),
    (["pass", "pass", "pass"], "declarer: all three passed"),
    ([18, "hold", "pass"], "auction call 2: 'hold' is not a call"),
    ("18 pass pass", "field 'auction' must be a list of calls"),
])
def test_bad_auction(auction, message):
    with pytest.raises(RecordError, match="^" + _escape(message)):
        replay(example("rules-1", auction=auction))


def _escape(text: str) -> str:
    return re.escape(text)


def test_passed_in_deal_must_not_be_played():
    with pytest.raises(RecordError, match="^play: all three passed"):
        replay(example("passed-in", play="CA"))
    with pytest.raises(RecordError, match="^hand: all three passed"):
        replay(example("passed-in", hand=True))
    assert replay(example("passed-in", bid=0))["passed_in"] is True


# --- bad records ----------------------------------------------------------------------------


def _swap(play: list[str], i: int, j: int) -> str:
    play = list(play)
    play[i], play[j] = play[j], play[i]
    return " ".join(play)


R1 = EXAMPLES["rules-1"]

BAD_RECORDS = [
    # the deal
    ({"hands": [R1["hands"][0].replace("H10", "H11")] + R1["hands"][1:]},
     "forehand's hand: unknown card 'H11'"),
    ({"skat": "SJ DA"}, "card DA dealt twice: in forehand's hand and in the skat"),
    ({"hands": [R1["hands"][0] + " D8"] + R1["hands"][1:], "skat": "SJ"}, "forehand's hand has 11 cards, not 10"),
    ({"hands": R1["hands"][:2]}, "field 'hands' must list three hands"),
    ({"hands": R1["hands"][:2] + [R1["hands"][2] + " " + R1["hands"][2].split()[0]]},
     "rearhand's hand: card DJ written twice"),
    ({"skat": "SJ"}, "skat has 1 cards, not 2"),
    ({"skat": None}, "field 'skat' is missing"),
    ({"hands": [R1["hands"][0], R1["hands"][1], [1, 2]]}, "rearhand's hand: cards are a list of card texts"),
    # card play
    ({"play": _swap(play_of("rules-1"), 3, 4)}, "card 4 (trick 2): middlehand does not hold C7"),
    ({"play": _swap(play_of("rules-1"), 2, 4)}, "card 3 (trick 1): rearhand plays C7 but must follow DA (revoke)"),
    ({"play": " ".join(play_of("rules-1")[:29])},
     "play: too short; the game is not over after 29 cards: card 30 (trick 10) is middlehand's to play"),
    ({"play": " ".join(play_of("rules-1") + ["DA"])},
     "card 31 (trick 11): the game ended with the tenth trick; 1 card too many"),
    ({"play": " ".join(play_of("rules-1")[:4] + ["X7"] + play_of("rules-1")[5:])},
     "card 5 (trick 2): unknown card 'X7'"),
    ({"play": []}, "play: too short; the game is not over after 0 cards: card 1 (trick 1) is forehand's to play"),
    ({"play": None}, "field 'play' is missing"),
    # skat and discard
    ({"discard": "D7 DJ"}, "discard: DJ is not among the declarer's twelve cards"),
    ({"discard": "D7"}, "discard has 1 cards, not 2"),
    ({"discard": None}, "discard: missing; the declarer picked up the skat"),
    ({"hand": True}, "discard: a hand game leaves the skat untouched"),
    # declaration and bid
    ({"schneider": True}, "declaration: schneider and schwarz can only be announced in a hand game"),
    ({"ouvert": True}, "declaration: a suit or grand game can only be played ouvert as a hand game"),
    ({"game": "ramsch"}, "declaration: unknown game 'ramsch'"),
    ({"game": "null", "auction": None, "bid": 24}, "declaration: null is worth 23, less than the bid 24"),
    ({"game": "null", "schneider": True}, "declaration: schneider or schwarz cannot be announced in a null game"),
    ({"bid": 19, "auction": None}, "bid 19 is not a legal bid value"),
    ({"bid": "18", "auction": None}, "field 'bid' must be a whole number"),
    ({"declarer": "dealer"}, "field 'declarer' must be forehand, middlehand, rearhand or 0, 1, 2"),
    ({"declarer": None}, "field 'declarer' is missing"),
    ({"hand": "no"}, "field 'hand' must be true or false"),
    ({"schnieder": True}, "unknown field 'schnieder'"),
]


@pytest.mark.parametrize("changes, message", BAD_RECORDS, ids=[m[:40] for _, m in BAD_RECORDS])
def test_bad_record(changes, message):
    with pytest.raises(RecordError, match="^" + _escape(message)):
        replay(example("rules-1", **changes))


def test_the_declarer_may_put_away_trumps_and_jacks_and_they_still_count():
    """Any two cards may go away, jacks included: example 1's declarer puts away CJ and SJ, whose 4
    points count for the declarer and who still make the game "with 2" (matadors count all twelve
    cards)."""
    hands = [parse_hand(h) for h in R1["hands"]]
    put_away = parse_hand("CJ SJ")
    hands[1] = (hands[1] | parse_hand(R1["skat"])) & ~put_away
    rng, play, played = random.Random(1), CardPlay(hands, 3, 1), []  # clubs (game 3) by middlehand (seat 1)
    while not play.finished:
        played.append(rng.choice(cards_of(play.legal())))
        play.play(played[-1])
    r = replay(example("rules-1", discard="CJ SJ", play=" ".join(format_card(c) for c in played)))
    taken = sum(int(CARD_POINTS[played[3 * k + i]]) for k, w in enumerate(r["trick_winners"]) if w == 1
                for i in range(3))
    assert (r["declarer_points"], r["matadors"]) == (taken + 4, 2)


def test_null_game_lost_at_trick_four_stops_there():
    more = play_of("rules-6-hand") + ["DA", "D9", "D8"]
    ended = "card 13 (trick 5): the null game ended at trick 4, which the declarer took"
    with pytest.raises(RecordError, match=_escape(ended)):
        replay(example("rules-6-hand", play=" ".join(more)))


def test_ouvert_suit_game_must_be_hand():
    with pytest.raises(RecordError, match="ouvert as a hand game"):
        replay(example("rules-7", hand=False, discard="S7 D7"))


@pytest.mark.parametrize("line, message", [
    ('{"id": 1, "hands": [', "bad JSON at character"),
    ("[1, 2]", "a record is a JSON object, not an array"),
    (b"\xff{}", "not UTF-8 text"),
])
def test_bad_line(line, message):
    with pytest.raises(RecordError, match=_escape(message)):
        parse_record(line)


def test_record_notation_variants():
    record = example("rules-1")
    as_list = example("rules-1", play=play_of("rules-1"), hands=[h.split() for h in record["hands"]])
    lower = example("rules-1", play=" ".join(play_of("rules-1")).lower().replace("10", "t"))
    assert replay(as_list) == replay(record) == replay(lower)


EXPECTED_BAD = {
    "bad-unknown-card": "forehand's hand: unknown card 'H11'",
    "bad-dealt-twice": "card DA dealt twice",
    "bad-hand-size": "forehand's hand has 11 cards, not 10",
    "bad-not-held": "card 4 (trick 2): middlehand does not hold",
    "bad-revoke": "(revoke)",
    "bad-discard": "discard: DJ is not among the declarer's twelve cards",
    "bad-hand-with-discard": "discard: a hand game leaves the skat untouched",
    "bad-null-below-bid": "declaration: null ouvert is worth 46, less than the bid 48",
    "bad-schneider-not-hand": "declaration: schneider and schwarz can only be announced in a hand game",
    "bad-auction-value": "auction call 1: middlehand bids 19",
    "bad-auction-not-higher": "auction call 5: middlehand bids 20, not above the 20",
    "bad-auction-incomplete": "auction: incomplete after call 8",
    "bad-auction-left-over": "auction: complete after call 3, with 1 call left over",
    "bad-auction-other-bid": "auction: ends at 36, but the bid is 35",
    "bad-play-short": "play: too short",
    "bad-play-after-end": "card 13 (trick 5): the null game ended at trick 4",
    "bad-game-name": "declaration: unknown game 'ramsch'",
    "bad-declarer": "field 'declarer' must be",
    "bad-field": "unknown field 'schnieder'",
}


def test_every_bad_example_fails_for_its_own_reason():
    lines = BAD_GAMES.read_text().splitlines()
    seen = set()
    for line in lines:
        with pytest.raises(RecordError) as failure:
            replay(parse_record(line))
        record_id = json.loads(line)["id"] if line.endswith("}") else None
        if record_id is not None:
            assert EXPECTED_BAD[record_id] in str(failure.value), record_id
            seen.add(record_id)
    assert seen == set(EXPECTED_BAD)


# --- random legal games: whatever the play, a complete legal record replays -------------------


GAME_NAMES = ["diamonds", "hearts", "spades", "clubs", "grand", "null"]


def _random_record(seed: int) -> dict:
    """Deal ``seed``: a random declarer and game, hand or a random discard, random legal cards."""
    rng = random.Random(seed)
    hands, skat = list(deal(seed, 0)[:3]), deal(seed, 0)[3]
    declarer, game, hand = rng.randrange(3), rng.randrange(6), rng.random() < 0.3
    held = hands[declarer] | skat
    put_away = skat if hand else mask_of(rng.sample(cards_of(held), 2))
    in_play = list(hands)
    in_play[declarer] = held & ~put_away
    play, played = CardPlay(in_play, game, declarer), []
    while not play.finished:
        played.append(rng.choice(cards_of(play.legal())))
        play.play(played[-1])
    record = {"id": seed, "hands": [format_hand(h) for h in hands], "skat": format_hand(skat),
              "declarer": declarer, "bid": 18, "game": GAME_NAMES[game], "hand": hand,
              "play": " ".join(format_card(c) for c in played)}
    if not hand:
        record["discard"] = format_hand(put_away)
    return record


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_random_legal_games_replay(seed):
    record = _random_record(seed)
    r = replay(record)
    tricks = len(r["trick_winners"])
    assert r["declarer_tricks"] == r["trick_winners"].count(r["declarer"])
    if record["game"] != "null":
        assert tricks == 10
        assert r["won"] == (r["declarer_points"] >= 61 and not r["overbid"])
    else:
        assert r["won"] == (tricks == 10 and r["declarer_tricks"] == 0)
    with pytest.raises(RecordError, match="too short"):
        replay(dict(record, play=" ".join(record["play"].split()[:-1])))


# --- the command line -----------------------------------------------------------------------



def _lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def test_cli_replays_examples_to_stdout():
    result = stdout_runner().invoke(main, ["replay", str(GAMES)])
    assert result.exit_code == 0, result.stderr
    out = _lines(result.stdout)
    assert [r["id"] for r in out] == list(EXAMPLES)
    assert out[0]["score"] == 36 and out[0]["seeger_fabian"] == [0, 86, 0]


def test_cli_out_is_written_atomically_with_parent_folders(tmp_path):
    target = tmp_path / "deep" / "er" / "results.jsonl"
    result = stdout_runner().invoke(main, ["replay", str(GAMES), "--out", str(target)])
    assert result.exit_code == 0 and result.stdout == ""
    assert [r["id"] for r in _lines(target.read_text())] == list(EXAMPLES)
    assert os.listdir(target.parent) == ["results.jsonl"]


def _mixed_input(tmp_path: Path) -> Path:
    """Good, blank and bad lines: line 1 good, 2 blank, 3 bad (revoke), 4 good."""
    bad = example("rules-1", id="broken", play=_swap(play_of("rules-1"), 2, 4))
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([json.dumps(EXAMPLES["rules-2"]), "", json.dumps(bad),
                               json.dumps(EXAMPLES["rules-3"])]) + "\n")
    return path


def test_cli_bad_record_stops_and_leaves_no_output(tmp_path):
    source = _mixed_input(tmp_path)
    target = tmp_path / "out" / "results.jsonl"
    result = stdout_runner().invoke(main, ["replay", str(source), "--out", str(target)])
    assert result.exit_code != 0
    assert result.stderr.strip().splitlines() == [
        f'{source}, line 3, record "broken": card 3 (trick 1): rearhand plays C7 but must follow DA (revoke)']
    assert not target.exists() and not target.parent.exists()  # nor the folder made for it


def test_cli_bad_record_keeps_an_existing_out_file(tmp_path):
    target = tmp_path / "results.jsonl"
    target.write_text("earlier results\n")
    result = stdout_runner().invoke(main, ["replay", str(_mixed_input(tmp_path)), "--out", str(target)])
    assert result.exit_code != 0
    assert target.read_text() == "earlier results\n"
    assert sorted(os.listdir(tmp_path)) == ["mixed.jsonl", "results.jsonl"]


def test_cli_keep_going_writes_error_objects(tmp_path):
    target = tmp_path / "results.jsonl"
    result = stdout_runner().invoke(main, ["replay", str(_mixed_input(tmp_path)), "--out", str(target), "--keep-going"])
    assert result.exit_code != 0
    out = _lines(target.read_text())
    assert [r["id"] for r in out] == ["rules-2", "broken", "rules-3"]
    assert out[1] == {"id": "broken", "line": 3,
                      "error": "card 3 (trick 1): rearhand plays C7 but must follow DA (revoke)"}
    assert out[0]["game_value"] == 66 and out[2]["score"] == -96
    assert 'line 3, record "broken"' in result.stderr


def test_cli_keep_going_on_bad_examples_fails_every_line(tmp_path):
    result = stdout_runner().invoke(main, ["replay", str(BAD_GAMES), "--keep-going"])
    assert result.exit_code != 0
    out = _lines(result.stdout)
    assert len(out) == len(BAD_GAMES.read_text().splitlines())
    assert all("error" in r for r in out)
    assert out[-1]["id"] is None and out[-1]["error"].startswith("bad JSON")


@pytest.mark.parametrize("bad, problem", [
    ('{"a":' * 3000 + "1" + "}" * 3000, "bad JSON: values nested too deeply for a game record"),
    ("[" * 50_000, "bad JSON: values nested too deeply for a game record"),
    ('{"bid": ' + "9" * 5000 + "}", "bad JSON: a number of more than 4,300 digits"),
    ('{"id": "x", "id": "y"}', "bad JSON: field 'id' is given twice"),
    ('{"id": NaN}', "bad JSON: NaN is not a JSON value"),
    ('{"id": ' + "[" * 500 + "]" * 500 + "}", "field 'id' must be a text or a number, not [[[[...]]]]"),
    ('{"hands": "' + "x" * 200_000 + '"}',
     "a line of 200,013 characters is too long for a game record (at most 100,000)"),
], ids=["nested objects", "nested arrays", "huge number", "field twice", "NaN", "nested id", "long line"])
def test_keep_going_survives_any_bad_line_and_scores_the_rest(tmp_path, bad, problem):
    """A record nested thousands deep, a huge number, a duplicated field... each becomes one error
    object; every record after it is still scored."""
    good = GAMES.read_text().splitlines()
    source = tmp_path / "mixed.jsonl"
    source.write_text("\n".join([good[0], bad, *good[1:3]]) + "\n")
    result = stdout_runner().invoke(main, ["replay", str(source), "--keep-going"])
    assert result.exit_code == 1 and "Traceback" not in result.output + result.stderr
    out = _lines(result.stdout)
    assert [r.get("error") for r in out] == [None, problem, None, None]
    assert out[1]["line"] == 2 and out[1]["id"] is None
    assert result.stderr.splitlines()[0] == f"{source}, line 2, record without id: {problem}"


def test_cli_reads_stdin():
    text = "\n" + GAMES.read_text()
    for args in (["replay"], ["replay", "-"]):
        result = stdout_runner().invoke(main, args, input=text)
        assert result.exit_code == 0
        assert len(_lines(result.stdout)) == len(EXAMPLES)
    result = stdout_runner().invoke(main, ["replay"], input='\n{"id": "x"}\n')
    assert result.exit_code != 0
    assert result.stderr.startswith('<stdin>, line 2, record "x": field \'hands\' is missing')


def test_cli_missing_input_file(tmp_path):
    result = stdout_runner().invoke(main, ["replay", str(tmp_path / "nope.jsonl")])
    assert result.exit_code != 0
    assert "cannot read" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_console_script_exit_codes(tmp_path):
    """The real process: exit status, stdout and stderr kept apart, no traceback."""
    command = [sys.executable, "-c", "from sim.commands.cli import main; main()", "replay", str(_mixed_input(tmp_path))]
    bad = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 1 and len(bad.stderr.splitlines()) == 1
    assert len(bad.stdout.splitlines()) == 1  # the good line before the bad one
