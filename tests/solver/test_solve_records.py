"""`skatsim solve` and sim.solver.open_hand: open-hand answers for game records."""

import copy
import json
from pathlib import Path

import pytest

from sim import solver
from sim.commands.cli import main
from sim.rules.cards import parse_card, parse_cards
from sim.rules.records import RecordError, read_position, replay
from sim.rules.tricks import legal_now
from sim.solver.open_hand import ANSWER_FIELDS, solve_record
from tests.command_line import stdout_runner

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "examples" / "games.jsonl"
EXAMPLES = {r["id"]: r for r in map(json.loads, GAMES.read_text().splitlines())}
PLAYED = [k for k, r in EXAMPLES.items() if "play" in r]



def _play(record: dict) -> list[str]:
    play = record["play"]
    return play.split() if isinstance(play, str) else list(play)


def _cut(record_id: str, cards: int) -> dict:
    record = copy.deepcopy(EXAMPLES[record_id])
    record["play"] = " ".join(_play(record)[:cards])
    return record


@pytest.mark.parametrize("record_id", PLAYED)
def test_trace_adds_up_from_the_first_lead_to_the_played_result(record_id):
    """The value at the first lead, less what the declarer gave away, plus what the defenders
    gave away, is what the declarer took in the game as played: every point is accounted for."""
    record = EXAMPLES[record_id]
    answer = solve_record(record, trace=True)
    played = replay(record)
    steps = answer["trace"]
    assert [s["card"] for s in steps] == _play(record)
    assert [s["trick"] for s in steps] == [1 + k // 3 for k in range(len(steps))]  # three cards a trick
    assert all((s["gave_away"] or 0) >= 0 for s in steps)  # no card does better than best play
    if answer["game"] == "null":
        assert steps[-1]["declarer_wins"] == played["won"]
        flips = sum(s["mistake"] for s in steps)
        assert answer["first_lead"]["declarer_wins"] == (played["won"] if flips % 2 == 0 else not played["won"])
        return
    declarer = played["declarer"]
    given = sum(s["gave_away"] * (1 if s["seat"] == declarer else -1) for s in steps)
    assert answer["first_lead"]["declarer_points"] - given == played["declarer_points"]
    assert answer["declarer_points"] == played["declarer_points"]  # the position after the last card
    assert answer["best_cards"] == [] and answer["to_play"] is None


@pytest.mark.parametrize("cards", [0, 1, 2, 3, 4, 14])
def test_a_partial_play_is_solved_where_it_stops(cards):
    record = _cut("rules-1", cards)
    answer = solve_record(record)
    position = read_position(record)
    state = solver.position(position.hands, "clubs", declarer=1, played=record["play"])
    exact = solver.solve(state, position.aside, solver.new_transpositions())
    assert answer["cards_played"] == cards
    assert answer["to_play"] == position.play.to_play
    assert answer["declarer_points"] == exact.declarer_points
    assert answer["declarer_wins"] == (exact.declarer_points >= 61)
    assert answer["declarer_schwarz_possible"] == exact.schwarz_possible
    best = [parse_card(c) for c in answer["best_cards"]]
    assert best and all(legal_now(state) >> c & 1 for c in best)
    assert answer["nodes"] > 0 and answer["microseconds"] >= 0


def test_a_record_without_play_or_bid_is_solved_from_the_first_lead():
    record = copy.deepcopy(EXAMPLES["rules-1"])
    del record["play"], record["bid"]
    answer = solve_record(record)
    assert answer["cards_played"] == 0 and answer["to_play"] == 0
    traced = solve_record(EXAMPLES["rules-1"], trace=True)
    assert answer["declarer_points"] == traced["first_lead"]["declarer_points"]


def test_the_bid_still_checks_the_declaration_and_the_auction():
    record = copy.deepcopy(EXAMPLES["null-23"])
    del record["auction"]
    with pytest.raises(RecordError, match="less than the bid"):
        solve_record(dict(record, bid=24))
    record = copy.deepcopy(EXAMPLES["rules-1"])
    with pytest.raises(RecordError, match="auction: ends at 18"):
        solve_record(dict(record, bid=20))
    del record["bid"]
    assert solve_record(record)["game"] == "clubs"  # the auction's final bid stands in


def test_a_deal_all_three_passed_has_no_card_play_to_solve():
    answer = solve_record(EXAMPLES["passed-in"])
    assert answer["passed_in"] is True and all(answer[k] is None for k in ANSWER_FIELDS)


def test_a_null_game_is_won_or_lost_not_counted():
    answer = solve_record(_cut("null-23", 0))
    assert answer["declarer_points"] is None and answer["declarer_schwarz_possible"] is None
    assert answer["declarer_wins"] is True


def test_illegal_cards_in_a_partial_play_are_refused():
    record = _cut("rules-1", 2)
    first, _ = record["play"].split()
    hand = parse_cards(EXAMPLES["rules-1"]["hands"][1])
    record["play"] = f"{first} DJ"  # middlehand does not hold the jack of diamonds
    assert parse_card("DJ") not in hand
    with pytest.raises(RecordError, match="card 2"):
        solve_record(record)


def test_cli_writes_one_answer_a_line(tmp_path):
    out = tmp_path / "answers.jsonl"
    result = stdout_runner().invoke(main, ["solve", str(GAMES), "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    answers = [json.loads(line) for line in out.read_text().splitlines()]
    assert [a["id"] for a in answers] == list(EXAMPLES)


def test_cli_bad_record_is_one_line_and_keep_going_goes_on(tmp_path):
    source = tmp_path / "mixed.jsonl"
    bad = dict(EXAMPLES["rules-2"], play="SA SA")
    source.write_text("\n".join(json.dumps(r) for r in (EXAMPLES["rules-1"], bad, EXAMPLES["rules-3"])) + "\n")
    stopped = stdout_runner().invoke(main, ["solve", str(source)])
    assert stopped.exit_code == 1 and len(stopped.stderr.splitlines()) == 1
    assert "line 2" in stopped.stderr and "Traceback" not in stopped.stderr
    went_on = stdout_runner().invoke(main, ["solve", "--keep-going", "--trace", str(source)])
    assert went_on.exit_code == 1
    lines = [json.loads(line) for line in went_on.stdout.splitlines()]
    assert [line.get("error") is not None for line in lines] == [False, True, False]
    assert lines[1]["line"] == 2 and "trace" in lines[2]
