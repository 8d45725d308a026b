"""The auction's calls in the views of card players in Python: every seat hears the calls as the
engine's auction ran them, and nothing of the other seats' maximum bids."""

import numpy as np
import pytest

from sim.rules.cards import FOREHAND as F
from sim.rules.cards import MIDDLEHAND as M
from sim.rules.cards import REARHAND as R
from strategies import load_profile, play_deals, registry, whole_deals
from strategies.cardplay.python_players import BatchCardPlayer, CardPlayer
from strategies.one_hand import HandBidder, HandDeclaration, HandDeclarer, HandPlan

SEEN = []


class Listening(CardPlayer):
    def play(self, view):
        SEEN.append(("one", view.deal_id, view.seat, view.array.tolist(), view.legal, view.bid, view.said,
                     view.passes, view.calls))
        return view.lowest(view.legal)


class BatchListening(BatchCardPlayer):
    def play_batch(self, views):
        SEEN.append(("batch", views.deal_id.tolist(), views.seat.tolist(), views.array.tolist(),
                     views.said.tolist(), views.passes.tolist()))
        return views.legal_cards().argmax(axis=1)


class Maxima(HandBidder):
    """Bids up to the maximum given for its seat, meaning clubs."""

    maxima = (0, 0, 0)

    def plan_hand(self, hand, seat):
        return HandPlan(max_bid=self.maxima[seat], game="clubs")


class Clubs(HandDeclarer):
    def declare_hand(self, cards, *, seat, bid, hand_game, game):
        return HandDeclaration("clubs")


@pytest.fixture
def listening(monkeypatch):
    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    for role, name, strategy in (("card_play", "listening", Listening), ("bidder", "maxima", Maxima),
                                 ("card_play", "batch_listening", BatchListening), ("declarer", "clubs", Clubs)):
        registry.register(role, name)(strategy)
    SEEN.clear()


def heard_in_play(maxima, card_play) -> list:
    """What the card players saw in five deals whose seats bid up to ``maxima``."""
    SEEN.clear()
    profile = load_profile("threshold", ["bidder=maxima", "declarer=clubs", f"card_play={card_play}"])
    Maxima.maxima = maxima
    games = play_deals(profile, seed=3, start=0, count=5)
    assert not games["passed"].any()
    return list(SEEN)


def test_every_seat_hears_the_calls_of_its_deals_auction(listening):
    seen = heard_in_play((30, 22, 27), "listening")
    calls = [(M, 18), (F, "yes"), (M, 20), (F, "yes"), (M, 22), (F, "yes"), (M, "pass"),
             (R, 23), (F, "yes"), (R, 24), (F, "yes"), (R, 27), (F, "yes"), (R, "pass")]
    assert len(seen) == 5 * 30
    assert {(bid, said, passes, tuple(heard)) for *_, bid, said, passes, heard in seen} == {
        (27, (27, 22, 27), (M, R), tuple(calls))}
    batch = heard_in_play((30, 22, 27), "batch_listening")
    assert len(batch) >= 30
    assert all(said == [[27, 22, 27]] * len(said) and passes == [[M, R, -1]] * len(passes)
               for *_, said, passes in batch)


@pytest.mark.parametrize("card_play", ["listening", "batch_listening"])
def test_other_seats_maxima_reach_no_view_but_through_the_calls(listening, card_play):
    """Forehand wins at 20 over middlehand and rearhand passes at once, holding 30 or 264, rearhand willing
    to bid nothing or 18 (below the 20 held): the views are the same, decision by decision; a middlehand
    that bids one value more is heard."""
    same = heard_in_play((30, 20, 0), card_play)
    assert heard_in_play((264, 20, 18), card_play) == same
    assert heard_in_play((30, 22, 0), card_play) != same


def test_a_game_without_an_auction_hears_no_call(listening):
    profile = load_profile("threshold", ["bidder=maxima", "card_play=listening"])
    Maxima.maxima = (30, 20, 0)
    whole_deals.declare_every_game(profile, seed=3, start=0, count=1)
    assert len(SEEN) > 12 * 30   # the null games may end early
    assert {(said, passes, tuple(calls)) for *_, said, passes, calls in SEEN} == {((0, 0, 0), (), ())}
    SEEN.clear()
    profile = load_profile("threshold", ["bidder=maxima", "card_play=batch_listening"])
    whole_deals.declare_every_game(profile, seed=3, start=0, count=1)
    assert all(np.all(np.array(said) == 0) and np.all(np.array(passes) == -1) for *_, said, passes in SEEN)
