"""Game records stopped where the declarer missed an announcement (docs/rules.md#when-a-game-ends):
schwarz announced (a suit or grand ouvert too) at the defenders' first trick, schneider announced
once the defenders have 31 points; scored as lost with the points and tricks taken so far."""

from __future__ import annotations

import numpy as np
import pytest

from sim.rules.cards import cards_of, format_card
from sim.rules.records import RecordError, replay
from sim.rules.shuffle import deal_batch
from sim.rules.tricks import CardPlay

#: Clubs ouvert with 1 by middlehand: forehand leads SA, the defenders take the first trick.
CLUBS_OUVERT = {"hands": ["H9 H10 C8 SA D8 DQ CQ SJ SQ CK", "S8 C10 C7 CA C9 D7 CJ H7 H8 HJ",
                          "HA HK S9 D10 S7 DJ DK SK D9 DA"],
                "skat": "HQ S10", "declarer": "middlehand", "bid": 18, "game": "clubs", "hand": True,
                "ouvert": True}


def test_clubs_ouvert_stopped_at_the_defenders_first_trick_is_the_rules_example():
    r = replay({**CLUBS_OUVERT, "play": "SA S8 SK"})
    assert (r["declarer_points"], r["declarer_tricks"], r["matadors"]) == (13, 0, 1)
    assert (r["won"], r["schneider"], r["schwarz"]) == (False, True, True)
    assert (r["game_value"], r["score"]) == (96, -192)  # level 8: 1 + game, hand, schneider (2), schwarz (2), ouvert


def test_the_game_may_also_be_played_on_after_the_miss_but_not_stop_elsewhere():
    with pytest.raises(RecordError, match="play: too short"):
        replay({**CLUBS_OUVERT, "play": "SA S8"})
    with pytest.raises(RecordError, match="play: too short"):
        replay({**CLUBS_OUVERT, "play": "SA S8 SK H9 H8 HA"})  # the second trick: not where it was missed


def _schneider_game():
    """A clubs hand game with schneider announced, played with random legal cards, in which the
    defenders pass 30 points before the last trick; (record, cards up to the miss, all cards)."""
    rng = np.random.default_rng(3)
    for deal in deal_batch(5, 0, 200):
        hands = [int(h) for h in deal[:3]]
        play = CardPlay(hands, 3, 0)
        cards, missed = [], None
        while not play.finished:
            legal = cards_of(play.legal())
            cards.append(int(legal[rng.integers(len(legal))]))
            play.play(cards[-1])
            if missed is None and play.announcement_missed(True, False):
                missed = len(cards)
        if missed is not None and missed < 27:
            record = {"hands": [" ".join(format_card(c) for c in cards_of(h)) for h in hands],
                      "skat": " ".join(format_card(c) for c in cards_of(int(deal[3]))), "declarer": 0, "bid": 18,
                      "game": "clubs", "hand": True, "schneider": True}
            return record, [format_card(c) for c in cards[:missed]], [format_card(c) for c in cards]
    raise AssertionError("no such game in 200 deals")


def test_schneider_announced_stopped_once_the_defenders_pass_30():
    record, stopped, full = _schneider_game()
    r = replay({**record, "play": stopped})
    assert r["won"] is False and r["score"] == -2 * r["game_value"]
    assert len(r["trick_winners"]) == len(stopped) // 3 and r["trick_winners"][-1] != 0
    assert replay({**record, "play": full})["won"] is False  # played on to the end: lost all the same
    with pytest.raises(RecordError, match="play: too short"):
        replay({**record, "play": full[:len(stopped) + 3]})
