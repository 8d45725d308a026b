"""Game records of games that ended early (``ended``, ``ended_by``): checked up to where they
stopped, with what the cards decide and no outcome."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.rules.records import EARLY_ENDS, RecordError, replay

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = {r["id"]: r for r in map(json.loads, (ROOT / "examples" / "games.jsonl").read_text().splitlines())}


def cut(record_id: str, cards: int, **changes) -> dict:
    record = dict(EXAMPLES[record_id])
    play = record["play"].split() if isinstance(record["play"], str) else list(record["play"])
    return {**record, "play": play[:cards], **changes}


@pytest.mark.parametrize("how", EARLY_ENDS)
def test_a_game_that_ended_early_replays_up_to_its_end(how):
    r = replay(cut("rules-1", 7, ended=how, ended_by="forehand"))
    assert (r["ended"], r["ended_by"]) == (how, 0)
    assert r["trick_winners"] == [1, 1]  # two tricks complete, the third stopped after one card
    assert r["matadors"] == 2 and r["declaration"] == "clubs"
    for outcome in ("won", "game_value", "score", "seeger_fabian", "overbid", "schneider", "schwarz"):
        assert r[outcome] is None


def test_points_so_far_count_the_completed_tricks_and_the_discard():
    full = replay(EXAMPLES["rules-1"])
    r = replay(cut("rules-1", 6, ended="resigned", ended_by=2))
    assert r["declarer_tricks"] == sum(w == full["declarer"] for w in full["trick_winners"][:2])
    assert 0 <= r["declarer_points"] <= full["declarer_points"]


def test_a_game_may_end_before_the_first_card():
    r = replay(cut("rules-3", 0, ended="left", ended_by="middlehand"))
    assert r["trick_winners"] == [] and r["declarer_tricks"] == 0


def test_a_complete_game_reports_no_early_end():
    r = replay(EXAMPLES["rules-1"])
    assert r["ended"] is None and r["ended_by"] is None


@pytest.mark.parametrize(("changes", "message"), [
    ({"ended": "resigned", "ended_by": 0}, "was played to its end (the game ended with the tenth trick)"),
    ({"ended": "gave up", "ended_by": 0}, "field 'ended' must be resigned, claimed, timeout, left"),
    ({"ended": "left"}, "field 'ended_by' is missing: who left?"),
    ({"ended_by": 1}, "'ended_by' is given, but 'ended' is missing"),
    ({"ended": "timeout", "ended_by": 3}, "field 'ended_by' must be forehand, middlehand, rearhand or 0, 1, 2"),
])
def test_bad_early_ends(changes, message):
    record = {**EXAMPLES["rules-1"], **changes}
    with pytest.raises(RecordError, match=message.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?")):
        replay(record)


def test_a_null_game_lost_at_its_trick_is_over_and_cannot_end_early():
    record = dict(EXAMPLES["rules-6-hand"], ended="resigned", ended_by=0)
    with pytest.raises(RecordError, match="null game ended at trick 4"):
        replay(record)


def test_the_cards_before_an_early_end_are_checked():
    record = cut("rules-1", 7, ended="claimed", ended_by=1)
    record["play"][2], record["play"][3] = record["play"][3], record["play"][2]
    with pytest.raises(RecordError, match="card 3 .trick 1."):
        replay(record)


def test_a_passed_in_deal_cannot_end_early():
    record = {"hands": EXAMPLES["rules-1"]["hands"], "skat": EXAMPLES["rules-1"]["skat"],
              "auction": ["pass", "pass", "pass"], "ended": "left", "ended_by": 0}
    with pytest.raises(RecordError, match="ended: all three passed"):
        replay(record)
