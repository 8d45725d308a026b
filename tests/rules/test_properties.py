"""Properties over thousands of random deals and random legal play.

Every game is played card by card through the engine's play state; at each card
the engine's legal cards, trick winners, void records and final score are compared
with the slow reference written from the rule text (tests/reference.py). The
random-play kernel is checked over a larger seeded batch and replayed card by card.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.rules.auction import BID_VALUES
from sim.rules.cards import card_points, nth_card, popcount
from sim.rules.games import BASE_VALUES, GRAND, NULL, NULL_VALUES, Declaration
from sim.rules.random_play import COLUMNS, random_discard, random_games
from sim.rules.rng import STREAM_PLAY, below, stream_key
from sim.rules.scoring import game_outcome, matadors, score_game
from sim.rules.shuffle import SKAT, deal
from sim.rules.tricks import STATE, TRUMP, CardPlay, legal_now, new_play, play_card, to_play
from tests import reference as ref

FULL = 0xFFFFFFFF
seeds = st.integers(0, 2**64 - 1)
deal_numbers = st.integers(0, 2**40)


def _void_bits(game, suits):
    return sum(1 << (TRUMP if s == "trump" else ref.SUITS.index(s)) for s in suits)


def play_checked(hands, game, declarer, choices):
    """Play one game through the kernel state, checking every step against the reference.

    ``choices[k]`` picks the k-th card among the legal ones (modulo their number).
    Returns the final state.
    """
    state = new_play(hands[0], hands[1], hands[2], game, declarer)
    played = 0
    failed_to_follow = [set(), set(), set()]
    for step in range(30):
        if state[STATE.finished]:
            break
        seat = int(to_play(state))
        held = ref.texts(state[STATE.hands + seat])
        led = ref.text(int(state[STATE.trick])) if state[STATE.in_trick] else None
        legal = int(legal_now(state))
        assert set(ref.texts(legal)) == ref.legal_cards(game, held, led)
        card = int(nth_card(legal, choices[step] % popcount(legal)))
        assert not played >> card & 1
        played |= 1 << card
        if led is not None and ref.belongs_to(game, ref.text(card)) != ref.belongs_to(game, led):
            failed_to_follow[seat].add(ref.belongs_to(game, led))
        leader = int(state[STATE.leader])
        trick = [ref.text(int(state[STATE.trick + k])) for k in range(int(state[STATE.in_trick]))] + [ref.text(card)]
        winner = int(play_card(state, card))
        if len(trick) == 3:
            assert winner == (leader + ref.trick_winner(game, trick)) % 3
            assert state[STATE.leader] == winner and state[STATE.in_trick] == 0
        else:
            assert winner == -1
        # Voids record exactly the suits each seat failed to follow, and it lacks them all.
        for s in range(3):
            assert state[STATE.voids + s] == _void_bits(game, failed_to_follow[s])
            still_held = ref.texts(state[STATE.hands + s])
            for suit in failed_to_follow[s]:
                assert all(ref.belongs_to(game, c) != suit for c in still_held)
    assert state[STATE.finished]
    # Cards are conserved: what is held plus what was won is what was dealt.
    won = [int(state[STATE.won + s]) for s in range(3)]
    held = [int(state[STATE.hands + s]) for s in range(3)]
    assert won[0] & won[1] == 0 and won[0] & won[2] == 0 and won[1] & won[2] == 0
    assert won[0] | won[1] | won[2] == played
    assert played | held[0] | held[1] | held[2] == hands[0] | hands[1] | hands[2]
    assert popcount(played) == 3 * state[STATE.tricks_done]
    if game != NULL:
        assert state[STATE.tricks_done] == 10 and held == [0, 0, 0]
    else:
        # Null ends with the declarer's first trick, or after ten tricks all ducked.
        declarer_tricks = popcount(won[declarer]) // 3
        assert declarer_tricks <= 1
        if declarer_tricks == 0:
            assert state[STATE.tricks_done] == 10
        else:
            assert state[STATE.leader] == declarer  # the declarer won the trick that ended the game
    return state


game_setups = st.fixed_dictionaries({
    "seed": seeds,
    "index": deal_numbers,
    "declarer": st.integers(0, 2),
    "game": st.integers(0, 5),
    "hand": st.booleans(),
    "announce": st.sampled_from(["", "schneider", "schwarz", "ouvert"]),
    "bid": st.sampled_from([int(b) for b in BID_VALUES[:30]]),
    "discard": st.tuples(st.integers(0, 11), st.integers(0, 10)),
    "choices": st.binary(min_size=30, max_size=30),  # one byte picks each card
})


@pytest.mark.slow
@settings(max_examples=1500)
@given(game_setups)
def test_random_games_follow_the_rules(setup):
    f, m, r, skat = deal(setup["seed"], setup["index"])
    assert f | m | r | skat == FULL and popcount(f) + popcount(m) + popcount(r) + popcount(skat) == 32
    game, declarer, hand = setup["game"], setup["declarer"], setup["hand"]
    announce = setup["announce"]
    if game == NULL:
        d = Declaration(NULL, hand=hand, ouvert=announce == "ouvert")
        bid = min(setup["bid"], int(NULL_VALUES[int(hand) + 2 * (announce == "ouvert")]))
    else:
        hand = hand or announce != ""  # announcements only in hand games
        d = Declaration(game, hand=hand, schneider=announce == "schneider",
                        schwarz=announce == "schwarz", ouvert=announce == "ouvert")
        bid = setup["bid"]
    d = d.check(bid)
    hands = [f, m, r]
    twelve = hands[declarer] | skat
    if not hand:
        a, b = setup["discard"]
        cards = ref.texts(twelve)
        first = cards.pop(a)
        skat = ref.mask([first, cards[b]])
        hands[declarer] = twelve & ~skat
    state = play_checked(hands, game, declarer, setup["choices"])

    won = int(state[STATE.won + declarer])
    defenders_won = int(state[STATE.won + (declarer + 1) % 3] | state[STATE.won + (declarer + 2) % 3])
    points = card_points(won) + card_points(skat)
    if game != NULL:
        # Every card was played exactly once: the thirty in the hands, plus the skat.
        assert won | defenders_won | skat == FULL and popcount(won | defenders_won) == 30
        assert points + card_points(defenders_won) == 120
    tricks = popcount(won) // 3
    result = score_game(declarer, d, bid, twelve, points, tricks)
    mat = ref.matadors(game, ref.texts(twelve))
    assert result.matadors == mat
    expected = ref.outcome(game, d.hand, d.schneider, d.schwarz, d.ouvert, bid, mat, points, tricks)
    assert (result.won, result.game_value, result.overbid, result.schneider, result.schwarz) == expected
    assert result.score == (result.game_value if result.won else -2 * result.game_value)
    if result.won:
        assert result.game_value >= bid


@settings(max_examples=500)
@given(st.integers(0, 5), st.sets(st.integers(0, 31), min_size=12, max_size=12))
def test_matadors_agree_with_the_reference(game, cards):
    twelve = ref.mask(ref.text(c) for c in cards)
    n = matadors(game, twelve)
    assert n == ref.matadors(game, [ref.text(c) for c in cards])
    assert abs(n) <= (0 if game == NULL else 4 if game == GRAND else 11)
    assert n != 0 or game == NULL  # every suit or grand game is with or without at least 1


outcome_inputs = st.fixed_dictionaries({
    "game": st.integers(0, 5),
    "hand": st.booleans(),
    "announce": st.sampled_from(["", "schneider", "schwarz", "ouvert"]),
    "bid": st.sampled_from([int(b) for b in BID_VALUES]),
    "matadors": st.integers(1, 11),
    "points": st.integers(0, 120),
    "tricks": st.integers(0, 10),
})


@pytest.mark.slow
@settings(max_examples=1000)
@given(outcome_inputs)
def test_game_value_agrees_with_the_reference(x):
    game = x["game"]
    if game == NULL:
        d = Declaration(NULL, hand=x["hand"], ouvert=x["announce"] == "ouvert")
    else:
        d = Declaration(game, hand=x["hand"] or x["announce"] != "", schneider=x["announce"] == "schneider",
                        schwarz=x["announce"] == "schwarz", ouvert=x["announce"] == "ouvert").normalized()
    mat = 0 if game == NULL else min(x["matadors"], 4 if game == GRAND else 11)
    bid, points, tricks = x["bid"], x["points"], x["tricks"]
    won, value, overbid, schneider, schwarz = game_outcome(
        game, d.hand, d.schneider, d.schwarz, d.ouvert, bid, mat, points, tricks)
    expected = ref.outcome(game, d.hand, d.schneider, d.schwarz, d.ouvert, bid, mat, points, tricks)
    assert (bool(won), int(value), bool(overbid), bool(schneider), bool(schwarz)) == expected
    if game == NULL:
        return
    base = int(BASE_VALUES[game])
    assert value % base == 0 and value >= 2 * base
    # Overbid exactly when the value the game reached is below the bid; then the value
    # is the smallest multiple of the base reaching the bid, and the game is lost.
    reached = int(game_outcome(game, d.hand, d.schneider, d.schwarz, d.ouvert, 0, mat, points, tricks)[1])
    assert overbid == (reached < bid)
    if overbid:
        assert not won and value >= bid > value - base
    else:
        assert value == reached


# --- the random-play kernel ---------------------------------------------------------------

KERNEL_SEED = 31337
KERNEL_GAMES = 20_000


def test_random_play_kernel_columns_are_consistent():
    g = random_games(KERNEL_SEED, 0, KERNEL_GAMES)
    assert set(g) == set(COLUMNS)
    game, null = g["game"], g["game"] == NULL
    # every game type, seat and variant occurs
    assert set(game) == set(range(6)) and set(g["declarer"]) == {0, 1, 2}
    assert set(g["hand"]) == {0, 1} and set(g["ouvert"][null]) == {0, 1}
    assert (g["ouvert"][~null] == 0).all()
    assert ((0 <= g["declarer_points"]) & (g["declarer_points"] <= 120)).all()
    assert ((0 <= g["declarer_tricks"]) & (g["declarer_tricks"] <= 10)).all()
    assert (g["declarer_tricks"][null] <= 1).all()
    suit = ~null
    # won iff the rule (no announcements, bid 18: no game is overbid)
    assert (g["overbid"] == 0).all()
    assert (g["won"][suit] == (g["declarer_points"][suit] >= 61)).all()
    assert (g["won"][null] == (g["declarer_tricks"][null] == 0)).all()
    base = BASE_VALUES[game[suit]]
    assert (g["game_value"][suit] % base == 0).all() and (g["game_value"][suit] >= 2 * base).all()
    assert (g["game_value"][null] == NULL_VALUES[g["hand"][null] + 2 * g["ouvert"][null]]).all()
    assert (g["score"] == np.where(g["won"] == 1, g["game_value"], -2 * g["game_value"])).all()
    schneider = (g["declarer_points"] <= 30) | (g["declarer_points"] >= 90)
    assert (g["schneider"][suit] == schneider[suit]).all() and (g["schneider"][null] == 0).all()
    schwarz = (g["declarer_tricks"] == 0) | (g["declarer_tricks"] == 10)
    assert (g["schwarz"][suit] == schwarz[suit]).all() and (g["schwarz"][null] == 0).all()
    assert (np.vectorize(popcount)(g["discard"]) == 2).all()

    deals = np.array([deal(KERNEL_SEED, i) for i in range(2000)], dtype=np.int64)
    for i in range(2000):
        declarer = g["declarer"][i]
        twelve = int(deals[i, declarer] | deals[i, SKAT])
        discard = int(g["discard"][i])
        assert discard & ~twelve == 0
        if g["hand"][i]:
            assert discard == deals[i, SKAT]
        assert card_points(discard) <= g["declarer_points"][i]  # the skat counts for the declarer
        mat = ref.matadors(int(g["game"][i]), ref.texts(twelve))
        assert g["matadors"][i] == mat
        expected = ref.outcome(int(g["game"][i]), bool(g["hand"][i]), False, False, bool(g["ouvert"][i]),
                               18, mat, int(g["declarer_points"][i]), int(g["declarer_tricks"][i]))
        row = (bool(g["won"][i]), int(g["game_value"][i]), bool(g["overbid"][i]),
               bool(g["schneider"][i]), bool(g["schwarz"][i]))
        assert row == expected


def test_random_play_kernel_replays_card_by_card():
    """Re-make the kernel's random choices in Python and play them through CardPlay's checks."""
    count = 300
    g = random_games(KERNEL_SEED, 0, count)
    for i in range(count):
        cards = list(deal(KERNEL_SEED, i))
        rng = stream_key(np.uint64(KERNEL_SEED), i, STREAM_PLAY)
        rng, declarer = below(np.uint64(rng), 3)
        rng, game = below(np.uint64(rng), 6)
        rng, hand = below(np.uint64(rng), 2)
        if game == NULL:
            rng, _ = below(np.uint64(rng), 2)
        twelve = cards[declarer] | cards[SKAT]
        skat = cards[SKAT]
        if not hand:
            rng, skat = random_discard(np.uint64(rng), np.uint32(twelve))
            skat = int(skat)
        hands = cards[:3]
        hands[declarer] = twelve & ~skat
        play = CardPlay(hands, int(game), int(declarer))
        while not play.finished:
            legal = play.legal()
            rng, pick = below(np.uint64(rng), popcount(legal))
            play.play(int(nth_card(legal, pick)))
        won = play.won_cards(declarer)
        assert (g["declarer"][i], g["game"][i], g["hand"][i], g["discard"][i]) == (declarer, game, hand, skat)
        assert g["declarer_points"][i] == card_points(won) + card_points(skat)
        assert g["declarer_tricks"][i] == popcount(won) // 3
        assert int(play.state[STATE.declarer]) == declarer
