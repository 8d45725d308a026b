"""The batch view of card players in Python: every field of a :class:`SeatViews` row says what the
:class:`SeatView` of the same decision says, under the same name, and its helpers pick the cards the
plain view's helpers pick."""

import numpy as np
import pytest

from sim.rules.view import VIEW
from strategies import load_profile, play_deals, registry
from strategies.cardplay.python_players import BatchCardPlayer
from strategies.cardplay.seat_view import CARD_NAMES, RANKING, SUIT_NAMES, SeatView, SeatViews, card_names

CHECKED = []


def plain_views(views: SeatViews) -> list[SeatView]:
    """The plain view of each decision of a batch."""
    rows = np.hstack([views.array, views._auctions()])
    return [SeatView(row, legal, deal_id=deal) for row, legal, deal in zip(rows, views.legal, views.deal_id)]


def name(card: int):
    return None if card < 0 else CARD_NAMES[card]


class Comparing(BatchCardPlayer):
    """Checks its batch view against the plain views, then plays the lowest winner."""

    def play_batch(self, views):
        legal, winners = views.legal_cards(), views.legal_cards() & views.winning_cards()
        lowest, highest = views.lowest(legal), views.highest(legal)
        voids = views.void_suits()
        for i, one in enumerate(plain_views(views)):
            assert (views.seat[i], views.seat_name[i], views.declarer[i]) == (one.seat, one.seat_name, one.declarer)
            assert (views.is_declarer[i], views.role[i]) == (one.is_declarer, one.role)
            assert views.partner[i] == (-1 if one.partner is None else one.partner)
            assert (views.game_name[i], views.game_id[i], views.game[i]) == (one.game, one.game_id, one.game_id)
            assert (views.bid[i], bool(views.hand_game[i]), bool(views.ouvert[i])) == (one.bid, one.hand_game,
                                                                                     one.ouvert)
            assert (tuple(views.said[i]), views.calls[i]) == (one.said, one.calls)
            assert tuple(p for p in views.passes[i] if p >= 0) == one.passes
            assert name(views.winning_card[i]) == one.winning_card
            assert (views.declarer_points[i], views.defender_points[i]) == (one.declarer_points, one.defender_points)
            assert tuple({SUIT_NAMES[s] for s in range(5) if voids[i, seat, s]} for seat in range(3)) == one.voids
            played = views.order[i, :3 * views.tricks_done[i] + views.in_trick[i]]
            seat_of = [next(s for s in range(3) if views.played_by[i, s] >> c & 1) for c in played]
            assert list(zip(seat_of, (CARD_NAMES[c] for c in played))) == one.played
            assert [CARD_NAMES[c] for c in views.trick[i, :views.in_trick[i]]] == one.trick
            assert tuple(card_names(int(m)) for m in views.won_cards[i]) == one.won_cards
            assert (name(lowest[i]), name(highest[i])) == (one.lowest(one.legal), one.highest(one.legal))
            assert views.legal_mask[i] == one.legal_mask
        CHECKED.append(len(views))
        chosen = np.where(winners.any(axis=1, keepdims=True), winners, legal)
        return views.lowest(chosen)


@pytest.fixture
def comparing(monkeypatch):
    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    registry.register("card_play", "comparing")(Comparing)
    CHECKED.clear()


@pytest.mark.parametrize("seat", ["forehand", "middlehand", "rearhand"])
def test_every_field_of_the_batch_view_says_what_the_plain_view_says(comparing, seat):
    games = play_deals(load_profile("threshold", [f"{seat}.card_play=comparing"]), seed=3, start=0, count=60)
    assert sum(CHECKED) > 400 and len(set(games["declarer"][~games["passed"]])) == 3


def test_the_helpers_ranges_and_the_rows_without_a_card():
    views = SeatViews(np.zeros((2, VIEW.size), np.int64), np.zeros(2))
    assert RANKING.min() == 0 and RANKING.max() == 895 and views.ranking().shape == (2, 32)
    assert (views.lowest(np.zeros((2, 32), bool)) == -1).all() and (views.highest(np.zeros((2, 32), bool)) == -1).all()
    assert (views.winning_card == -1).all() and views.winning_cards().all()
    assert views.role.tolist() == ["declarer"] * 2 and views.partner.tolist() == [-1, -1]
    assert views.calls == [[], []] and repr(views) == "SeatViews(2 decisions)"
    assert repr(SeatViews(views.array[:1], views.legal[:1])) == "SeatViews(1 decision)"
