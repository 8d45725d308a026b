"""The open-hand solver: against a slow minimax of the rules, its own properties, and known deals."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim import solver
from sim.rules.cards import card_points, cards_of, parse_hand
from sim.rules.games import GAME_NAMES, GRAND, NULL
from sim.rules.shuffle import deal
from sim.rules.tricks import STATE, IllegalPlay, legal_now, new_play, play_card, to_play
from sim.solver.bounds import _sure_points
from sim.solver.frames import F_REST, POINTS
from sim.solver.roots import _set_root

# A small table shared by every test: positions of different games and declarers
# meet in it, as they do in a Monte Carlo player's table.
TABLE = solver.new_transpositions(16)
STACK = solver.new_stack()
GAMES = range(6)


# --- the reference: plain minimax over the engine's rules, no pruning, no table ------------


def _children(state):
    legal = int(legal_now(state))
    for card in cards_of(legal):
        child = state.copy()
        play_card(child, card)
        yield card, child


def minimax(state, aside):
    """Declarer points (suit, grand) or 1 / 0 (null: no trick taken / a trick taken), best play."""
    declarer = state[STATE.declarer]
    if state[STATE.finished]:
        won = int(state[STATE.won + declarer])
        if state[STATE.game] == NULL:
            return 0 if won else 1
        return int(card_points(won)) + int(card_points(aside))
    values = [minimax(child, aside) for _, child in _children(state)]
    return max(values) if to_play(state) == declarer else min(values)


def minimax_schwarz(state):
    """Can the declarer of a suit or grand game take every trick? Plain minimax over True/False."""
    declarer = state[STATE.declarer]
    if state[STATE.won + (declarer + 1) % 3] or state[STATE.won + (declarer + 2) % 3]:
        return False
    if state[STATE.finished]:
        return True
    values = [minimax_schwarz(child) for _, child in _children(state)]
    return max(values) if to_play(state) == declarer else min(values)


# --- positions -----------------------------------------------------------------------------


def random_position(seed, game, declarer, cards_played):
    """Deal ``seed`` played at random (legal cards) for ``cards_played`` cards; (state, skat).

    The skat stands in for the two cards that count for the declarer unplayed. A null
    game may end before that, at the declarer's first trick.
    """
    rng = np.random.default_rng(seed)
    f, m, r, skat = deal(7, seed)
    state = new_play(f, m, r, game, declarer)
    for _ in range(cards_played):
        if state[STATE.finished]:
            break
        legal = cards_of(int(legal_now(state)))
        play_card(state, legal[rng.integers(len(legal))])
    return state, skat


def endgames(game, count, seed=0):
    """``count`` unfinished positions of ``game`` with 1 to 4 tricks left and 0 to 2 cards in the
    current trick, the declarer in every seat."""
    rng = np.random.default_rng([seed, game])
    found = []
    while len(found) < count:
        tricks_left, in_trick = int(rng.integers(1, 5)), int(rng.integers(3))
        state, skat = random_position(int(rng.integers(2**31)), game, len(found) % 3,
                                      (10 - tricks_left) * 3 + in_trick)
        if not state[STATE.finished]:
            found.append((state, skat))
    return found


def value(state, skat):
    return int(solver.open_hand_value(state, skat, TABLE, STACK))


def taken_so_far(state, skat):
    """(declarer points so far with the skat, defenders' points so far)."""
    declarer = state[STATE.declarer]
    mine = int(card_points(state[STATE.won + declarer])) + int(card_points(skat))
    theirs = sum(int(card_points(state[STATE.won + s])) for s in range(3) if s != declarer)
    return mine, theirs


# --- against the reference -----------------------------------------------------------------


def _check_against_minimax(game, count, seed):
    cases = endgames(game, count, seed)
    for state, skat in cases:
        assert value(state, skat) == minimax(state, skat), (GAME_NAMES[game], state.tolist(), skat)
    in_trick = {int(s[STATE.in_trick]) for s, _ in cases}
    assert in_trick == {0, 1, 2}


@pytest.mark.parametrize("game", GAMES, ids=GAME_NAMES)
def test_endgames_agree_with_minimax(game):
    _check_against_minimax(game, 40, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES, ids=GAME_NAMES)
def test_thousands_of_endgames_agree_with_minimax(game):
    _check_against_minimax(game, 500, seed=2)


@pytest.mark.parametrize("game", range(5), ids=GAME_NAMES[:5])
def test_schwarz_agrees_with_minimax(game):
    for state, _ in endgames(game, 25, seed=3):
        got = bool(solver.declarer_takes_all(state, TABLE, STACK))
        assert got == minimax_schwarz(state), (GAME_NAMES[game], state.tolist())


# --- properties on deeper positions ----------------------------------------------------------

positions = st.builds(random_position, st.integers(0, 2**31 - 1), st.sampled_from(list(GAMES)),
                      st.integers(0, 2), st.integers(9, 29))


def _card_values(state, skat):
    out = np.empty(32, dtype=np.int64)
    solver.card_values(state, skat, TABLE, STACK, out)
    return {c: int(out[c]) for c in range(32) if out[c] >= 0}


@settings(max_examples=80)
@given(positions)
def test_value_is_the_best_move_value_and_best_cards_keep_it(case):
    state, skat = case
    v = value(state, skat)
    if state[STATE.finished]:
        assert v == minimax(state, skat)
        return
    after = _card_values(state, skat)
    assert set(after) == set(cards_of(int(legal_now(state))))
    best = max(after.values()) if to_play(state) == state[STATE.declarer] else min(after.values())
    assert v == best
    keep = int(solver.keeping_cards(state, skat, v, TABLE, STACK))
    assert cards_of(keep) == sorted(c for c, w in after.items() if w == v)


@settings(max_examples=80)
@given(positions)
def test_values_lie_between_the_points_taken(case):
    state, skat = case
    if state[STATE.game] == NULL:
        assert value(state, skat) in (0, 1)
        return
    mine, theirs = taken_so_far(state, skat)
    assert mine <= value(state, skat) <= 120 - theirs


@settings(max_examples=50)
@given(positions.filter(lambda case: case[0][STATE.game] != NULL))
def test_every_threshold_agrees_with_the_exact_value(case):
    state, skat = case
    v = value(state, skat)
    for threshold in range(0, 122):
        assert bool(solver.declarer_reaches(state, skat, threshold, TABLE, STACK)) == (v >= threshold), threshold


@settings(max_examples=150)
@given(st.integers(0, 2**31 - 1), st.sampled_from(list(range(5))), st.integers(0, 2), st.integers(1, 8))
def test_sure_points_bound_the_value(seed, game, declarer, tricks_played):
    """The cheap bounds cut the search, so they must hold: sure points never exceed what a
    side gets with best play on both sides."""
    state, skat = random_position(seed, game, declarer, 3 * tricks_played)
    stack = solver.new_stack()
    _set_root(stack, state, np.int64(POINTS))
    mine, theirs = _sure_points(stack, np.int64(0), np.int64(game), np.int64(declarer))
    remaining = value(state, skat) - taken_so_far(state, skat)[0]
    assert mine <= remaining <= stack[0, F_REST] - theirs


def test_schwarz_needs_every_trick_and_all_points():
    for game in range(5):
        for state, skat in endgames(game, 10, seed=4):
            if solver.declarer_takes_all(state, TABLE, STACK):
                assert value(state, skat) == 120 - taken_so_far(state, skat)[1]


# --- one transposition table for every game, the batch kernel ----------------------------------------------


def test_a_shared_table_gives_the_values_of_fresh_tables():
    shared = solver.new_transpositions(12)  # small: entries of many games and declarers evict each other
    for game in GAMES:
        for declarer in range(3):
            state, skat = random_position(5, game, declarer, 15)
            fresh = solver.open_hand_value(state, skat, solver.new_transpositions(12), solver.new_stack())
            assert solver.open_hand_value(state, skat, shared, STACK) == fresh


def test_solve_batch_agrees_with_one_position_at_a_time():
    cases = [random_position(seed, seed % 6, seed % 3, 15 + seed % 4) for seed in range(12)]
    states = np.stack([s for s, _ in cases])
    skats = np.array([k for _, k in cases], dtype=np.int64)
    values, nodes = np.empty(12, np.int64), np.empty(12, np.int64)
    solver.solve_batch(states, skats, solver.new_transpositions(14), values, nodes)
    assert values.tolist() == [value(s, k) for s, k in cases]
    unfinished = np.array([not s[STATE.finished] for s, _ in cases])
    assert (nodes[unfinished] > 0).all() and (nodes[~unfinished] == 0).all()


# --- known deals -----------------------------------------------------------------------------

ALL_WINNERS = ["CJ SJ HJ DJ CA SA HA DA C10 S10", "C9 C8 C7 S9 S8 S7 H9 H8 H7 D9",
               "CK CQ SK SQ HK HQ DK DQ D8 D7"]


@pytest.mark.parametrize("game", GAMES, ids=GAME_NAMES)
def test_equal_cards_are_worth_the_same_after_every_question(game):
    """A card that ``equal_cards`` lets another speak for has the same exact value and the same
    schwarz answer, on positions from the first lead to the last tricks, mid-trick too."""
    speaker, values = np.empty(32, dtype=np.int64), np.empty(32, dtype=np.int64)
    shared = 0
    for seed in range(60):
        state, skat = random_position(1000 * game + seed, game, seed % 3, (seed * 7) % 27)
        if state[STATE.finished]:
            continue
        legal = int(legal_now(state))
        speakers = int(solver.equal_cards(state, speaker))
        assert speakers & ~legal == 0
        assert all((speaker[c] >= 0) == bool(legal >> c & 1) for c in range(32))
        solver.card_values(state, skat, TABLE, STACK, values)
        for card in cards_of(legal):
            same = int(speaker[card])
            assert speakers >> same & 1
            if same == card:
                continue
            shared += 1
            assert values[card] == values[same], (state.tolist(), card, same)
            if game != NULL:
                a, b = state.copy(), state.copy()
                play_card(a, card)
                play_card(b, same)
                assert solver.declarer_takes_all(a, TABLE, STACK) == solver.declarer_takes_all(b, TABLE, STACK)
    assert shared > 0


def test_equal_cards_keep_apart_cards_another_seat_can_split():
    """Spade 7 and 9 of one hand are alike only while no other hand holds the 8 and it does not
    lie in the trick; the 10 and the ace (10 and 11 points) are never alike; the jacks are."""
    speaker = np.empty(32, dtype=np.int64)
    s7, s8, s9, s10, sa = cards_of(parse_hand("S7 S8 S9 S10 SA"))
    forehand = parse_hand("S7 S9 S10 SA CJ SJ C7 C8 H7 H8")
    middle = parse_hand("S8 SK SQ HJ DJ C9 CQ CK H9 HQ")
    rear = parse_hand("C10 CA H10 HA HK D7 D8 D9 DQ DK")
    state = new_play(forehand, middle, rear, GRAND, 0)
    solver.equal_cards(state, speaker)
    assert len({int(speaker[c]) for c in (s7, s9, s10, sa)}) == 4
    club_jack, spade_jack = cards_of(parse_hand("CJ SJ"))
    assert speaker[club_jack] == speaker[spade_jack]
    state = new_play(forehand ^ (1 << s9) | (1 << s8), middle ^ (1 << s8) | (1 << s9), rear, GRAND, 0)
    solver.equal_cards(state, speaker)
    assert speaker[s7] == speaker[s8]                   # 7 and 8 of one hand, nothing between
    led = new_play(middle, forehand, rear, GRAND, 0)    # the 8 is led, the 7 and 9 follow it
    play_card(led, s8)
    solver.equal_cards(led, speaker)
    assert speaker[s7] != speaker[s9]

def test_grand_with_four_jacks_and_four_aces_takes_everything():
    state = solver.position(ALL_WINNERS, "grand", declarer=0)
    s = solver.solve(state, "H10 D10", transpositions=TABLE)
    assert (s.declarer_points, s.declarer_wins, s.schwarz_possible) == (120, True, True)
    assert s.best_cards == tuple(cards_of(parse_hand(ALL_WINNERS[0])))  # any card keeps 120
    assert solver.can_reach(state, "H10 D10", 90, transpositions=TABLE)
    assert s.nodes > 0


def test_mid_trick_position_of_a_known_deal():
    # middlehand declares grand with the defenders holding every jack, ace and ten but two
    state = solver.position(ALL_WINNERS, "grand", declarer=1, played="CJ C9")
    s = solver.solve(state, "H10 D10", transpositions=TABLE)
    assert (s.declarer_points, s.declarer_wins, s.schwarz_possible) == (20, False, False)
    assert s.best_cards == tuple(cards_of(parse_hand(ALL_WINNERS[2])))  # the trick is lost whatever


def test_declarer_with_only_sevens_eights_and_nines_takes_nothing():
    hands = ["H7 H8 H9 S7 S8 S9 D7 D8 D9 C7", "CJ SJ CA C10 CK CQ SA S10 SK SQ",
             "HJ DJ HA H10 HK HQ DA D10 DK DQ"]
    state = solver.position(hands, "grand", declarer=0)
    s = solver.solve(state, "C8 C9", transpositions=TABLE)
    assert (s.declarer_points, s.declarer_wins, s.schwarz_possible) == (0, False, False)
    assert not solver.can_reach(state, "C8 C9", 1, transpositions=TABLE)


def test_null_with_the_lowest_cards_is_won_and_with_the_highest_lost():
    low = ["C7 S7 S8 S9 H7 H8 H9 D7 D8 D9", "CA CK CQ CJ C10 SA SK SQ SJ S10",
           "C9 C8 HA HK HQ HJ H10 DA DK DQ"]
    s = solver.solve(solver.position(low, "null", declarer=0), transpositions=TABLE)
    assert (s.declarer_points, s.declarer_wins, s.schwarz_possible) == (None, True, None)
    assert s.best_cards == tuple(cards_of(parse_hand(low[0])))
    high = [low[1], low[0], low[2]]
    s = solver.solve(solver.position(high, "null", declarer=0), transpositions=TABLE)
    assert not s.declarer_wins and s.best_cards == tuple(cards_of(parse_hand(high[0])))


def test_a_finished_game_keeps_its_result():
    state = solver.position(ALL_WINNERS, "grand", declarer=0)
    while not state[STATE.finished]:
        play_card(state, cards_of(int(legal_now(state)))[-1])
    assert int(state[STATE.tricks_done]) == 10
    s = solver.solve(state, "H10 D10", transpositions=TABLE)
    assert (s.declarer_points, s.best_cards) == (120, ())


def test_positions_are_checked_and_questions_fit_the_game():
    with pytest.raises(IllegalPlay):
        solver.position(ALL_WINNERS, "grand", declarer=0, played="CJ CK")  # middlehand has no CK
    null_state = solver.position(ALL_WINNERS, "null", declarer=0)
    with pytest.raises(ValueError):
        solver.can_reach(null_state, 0, 61)
    with pytest.raises(ValueError):
        solver.schwarz_possible(null_state)
    with pytest.raises(ValueError):
        solver.solve(np.zeros(5, dtype=np.int64))
    assert solver.solve(solver.position(ALL_WINNERS, GRAND, declarer="forehand"), "H10 D10").declarer_points == 120
