"""A seat's view of card play, and the play state built back from a view and the hands."""

import numpy as np
import pytest

from sim.rules.cards import nth_card, popcount
from sim.rules.games import GAME_NAMES
from sim.rules.rng import below, stream_key
from sim.rules.shuffle import deal
from sim.rules.tricks import STATE, legal_now, new_play, play_card, to_play
from sim.rules.view import VIEW, play_state_of_view, seat_view, set_declaration


def random_card(state, rng):
    legal = int(legal_now(state))
    rng, pick = below(np.uint64(rng), popcount(legal))
    return rng, nth_card(legal, pick)


def position(index, cards):
    """A game of deal ``index`` after ``cards`` random legal cards (fewer when a null ends early)."""
    hands = deal(3, index)
    game, declarer = index % len(GAME_NAMES), index % 3
    state = new_play(int(hands[0]), int(hands[1]), int(hands[2]), game, declarer)
    rng = stream_key(np.uint64(3), index, 0)
    for _ in range(cards):
        if state[STATE.finished]:
            break
        rng, card = random_card(state, rng)
        play_card(state, card)
    return state, rng


def view_of(state, seat, ouvert):
    view = np.zeros(VIEW.size, dtype=np.int64)
    set_declaration(view, 0, 0, 0, ouvert, 18)
    seat_view(state, seat, 0, view)
    return view


def rebuilt(state, seat, view):
    """The state built from ``seat``'s view, its own cards as the view shows them and the others' true hands."""
    hands = state[STATE.hands:STATE.hands + 3].copy()
    hands[seat] = view[VIEW.own_hand]
    out = np.full(STATE.size, -7, dtype=np.int64)
    play_state_of_view(view, hands, out)
    return out


@pytest.mark.parametrize("index", range(40))
def test_the_state_built_from_a_view_is_the_state_the_view_was_taken_from(index):
    """Every slot comes back except the trick slots past the current trick, which the builder clears."""
    state, _ = position(index, index % 30)
    if state[STATE.finished]:
        return
    expected = state.copy()
    expected[STATE.trick + expected[STATE.in_trick]:STATE.trick + 3] = 0
    for seat in range(3):
        view = view_of(state, seat, ouvert=index % 2)
        assert np.array_equal(rebuilt(state, seat, view), expected), (index, seat)


@pytest.mark.parametrize("index", range(0, 60, 3))
def test_play_goes_on_from_the_built_state_as_from_the_real_one(index):
    """The same cards from the built state and from the engine's give the same tricks and the same end."""
    state, rng = position(index, index % 17)
    if state[STATE.finished]:
        return
    seat = to_play(state)
    copy = rebuilt(state, seat, view_of(state, seat, ouvert=0))
    assert legal_now(copy) == legal_now(state)
    while not state[STATE.finished]:
        rng, card = random_card(state, rng)
        assert play_card(copy, card) == play_card(state, card)
    assert np.array_equal(copy, state)
