"""Perfect-information Monte Carlo and open-hand card play: worlds consistent with the view, no
hidden card read, legal play, the same deal in any batch."""

import numpy as np
import pytest

from sim import solver
from sim.rules.cards import popcount
from sim.rules.games import NULL
from sim.rules.rng import stream_key
from sim.rules.scoring import play_outcome
from sim.rules.shuffle import deal
from sim.rules.tricks import EFFECTIVE_SUIT, STATE, legal_now, new_play, play_card, to_play
from sim.rules.view import VIEW, seat_view, set_declaration
from strategies import load_profile, play_deals
from strategies.cardplay.pimc import pimc_card
from strategies.cardplay.table import new_workspace
from strategies.cardplay.world_results import played_result, world_result
from strategies.cardplay.worlds import hand_sizes, sample_world
from strategies.registry import build
from tests.digests import MODEL_V5, kernel_arguments, play_digest

PIMC = ["card_play=pimc", "card_play.worlds=3"]


def pimc_choice(view, legal, params, data, rng):
    """(rng, the PIMC player's card) with a transposition table of its own, as the first decision of a batch."""
    tt, stack = new_workspace(16)
    return pimc_card(view, legal, params, data, rng, np.zeros(STATE.size, np.int64), np.int64(0), tt, stack)


def position(seed: int, index: int, game: int, declarer: int, cards: int):
    """A play state after ``cards`` random legal cards of deal ``index``."""
    rng = np.random.default_rng(index)
    f, m, r, skat = deal(seed, index)
    state = new_play(f, m, r, game, declarer)
    for _ in range(cards):
        legal = [c for c in range(32) if int(legal_now(state)) >> c & 1]
        play_card(state, legal[int(rng.integers(len(legal)))])
        if state[STATE.finished]:
            break
    return state, skat


def positions_to_play(seed: int, count: int, most_cards: int):
    """(index, view of the seat to play, its legal cards) of positions after ``(index * 5) % most_cards``
    random cards of deal ``index`` (every game type and declarer in turn), the finished ones left out."""
    for index in range(count):
        game, declarer = index % 6, index % 3
        state, skat = position(seed, index, game, declarer, (index * 5) % most_cards)
        if not state[STATE.finished]:
            seat = int(to_play(state))
            yield index, view_of(state, seat, skat if seat == declarer else 0), np.int64(legal_now(state))


def view_of(state, seat, skat, ouvert=False):
    view = np.zeros(VIEW.size, dtype=np.int64)
    set_declaration(view, 0, 0, 0, int(ouvert), 18)
    seat_view(state, seat, skat, view)
    return view


@pytest.mark.parametrize("index", range(40))
def test_a_world_is_consistent_with_what_the_seat_sees(index):
    game, declarer = index % 6, index % 3
    state, skat = position(5, index, game, declarer, index % 20)
    if state[STATE.finished]:
        return
    seat = int(to_play(state))
    ouvert = index % 7 == 0
    view = view_of(state, seat, skat if seat == declarer and index % 2 else 0, ouvert)
    world = np.empty(STATE.size, dtype=np.int64)
    rng = np.uint64(stream_key(3, index, 1))
    sizes = np.empty(3, dtype=np.int64)
    hand_sizes(view, sizes)
    for _ in range(20):
        rng, counted = sample_world(view, np.uint64(rng), world)
        hands = [int(world[STATE.hands + s]) for s in range(3)]
        assert hands[seat] == int(state[STATE.hands + seat])            # its own cards, as they are
        if ouvert:
            assert hands[declarer] == int(state[STATE.hands + declarer])
        assert [popcount(h) for h in hands] == list(sizes) and popcount(counted) == 2
        every = hands[0] | hands[1] | hands[2] | counted | int(view[VIEW.played])
        assert every == 0xFFFFFFFF and not (hands[0] & hands[1] or hands[1] & hands[2] or hands[0] & hands[2])
        for s in range(3):
            suits = {int(EFFECTIVE_SUIT[game, c]) for c in range(32) if hands[s] >> c & 1}
            assert not any(view[VIEW.voids + s] >> e & 1 for e in suits), "a world gave a seat a suit it lacks"


@pytest.mark.parametrize("score", [0, 1], ids=["game", "points"])
def test_a_world_scores_every_legal_card_as_one_search_per_card_does(score):
    """A world's row, where cards worth the same are solved once, equals each legal card's result
    solved on its own, in every game type, from the first lead to late tricks, mid-trick too."""
    from strategies.cardplay.pimc import _value_world
    from strategies.cardplay.world_results import STATS

    params, data = kernel_arguments(build("card_play", "pimc_solved", score=("game", "points")[score]))
    tt, stack = solver.new_transpositions(16), solver.new_stack()
    world, child = np.empty(STATE.size, dtype=np.int64), np.empty(STATE.size, dtype=np.int64)
    row, stats = np.zeros(32), np.zeros(STATS, dtype=np.int64)
    for index, view, legal in positions_to_play(17, 48, 25):
        rng = np.uint64(stream_key(17, index, 1))
        for _ in range(3):
            rng, counted = sample_world(view, np.uint64(rng), world)
            _value_world(view, legal, world, counted, params, data, tt, stack, stats, row)
            for card in range(32):
                if int(legal) >> card & 1:
                    child[:] = world
                    play_card(child, card)
                    assert row[card] == world_result(view, child, counted, score, tt, stack)


@pytest.mark.parametrize("player", ["pimc_solved", "pimc"])
def test_the_first_card_does_not_depend_on_cards_the_seat_cannot_see(player):
    """Two deals that differ only in the other seats' cards (and the skat) give the same view, so the
    PIMC player's first card is the same in both, its worlds solved or played out."""
    params, data = kernel_arguments(build("card_play", player, worlds=4))
    compared = 0
    for index in range(12):
        f, m, r, skat = deal(9, index)
        game, declarer = index % 6, index % 3
        a = new_play(f, m, r, game, declarer)
        # forehand leads: swap a card between middlehand and rearhand, and one with the skat
        mine, theirs = int(m), int(r)
        c1, c2 = mine & -mine, theirs & -theirs
        b = new_play(f, (m & ~c1) | c2, (r & ~c2) | c1, game, declarer)
        va, vb = view_of(a, 0, 0), view_of(b, 0, 0)
        assert (va == vb).all()
        rng = np.uint64(stream_key(9, index, 1))
        legal_a, legal_b = np.uint64(legal_now(a)), np.uint64(legal_now(b))  # the type the play loops pass
        assert pimc_choice(va, legal_a, params, data, rng)[1] == pimc_choice(vb, legal_b, params, data, rng)[1]
        compared += 1
    assert compared == 12


def _swapped_later(f, m, r, game, declarer, cards, seat):
    """Two play states after the same ``cards`` random legal cards: the second from a deal with one
    card of the same suit swapped between the two seats other than ``seat``, where neither has played
    it. None when no such swap exists."""
    rng = np.random.default_rng(cards)
    a = new_play(f, m, r, game, declarer)
    order = []
    while len(order) < cards and not a[STATE.finished]:
        legal = [c for c in range(32) if int(legal_now(a)) >> c & 1]
        order.append(legal[int(rng.integers(len(legal)))])
        play_card(a, order[-1])
    if a[STATE.finished] or to_play(a) != seat:
        return None
    x, y = [s for s in range(3) if s != seat]
    for c1 in range(32):
        for c2 in range(32):
            if (int(a[STATE.hands + x]) >> c1 & 1 and int(a[STATE.hands + y]) >> c2 & 1
                    and EFFECTIVE_SUIT[game, c1] == EFFECTIVE_SUIT[game, c2]):
                hands = [int(h) for h in (f, m, r)]
                hands[x] = (hands[x] & ~(1 << c1)) | (1 << c2)
                hands[y] = (hands[y] & ~(1 << c2)) | (1 << c1)
                b = new_play(*hands, game, declarer)
                for card in order:
                    play_card(b, card)
                return a, b
    return None


@pytest.mark.parametrize(("player", "settings"),
                         [("pimc_solved", {}), ("pimc", {"near": 0}), ("pimc", {"solve_last": 0, "near": 0}),
                          ("pimc", {"near": 2})],
                         ids=["solved", "played-out", "played-out-to-the-end", "played-out-near-cards-learned"])
def test_a_decision_with_inference_does_not_depend_on_cards_the_seat_cannot_see(player, settings):
    """Later in play, with the worlds weighed by the bid and by the cards played, and more worlds while
    the best card is unclear: two deals that differ only in cards the seat to play cannot see give the
    same view, the same weights and so the same card (worlds solved, played out, or played out with the
    last tricks solved; the learned player choosing among the near cards)."""
    params, data = kernel_arguments(build("card_play", player, worlds=3, max_worlds=8, inference=True, **settings))
    compared = 0
    for index in range(24):
        f, m, r, skat = deal(21, index)
        game, declarer, cards = index % 6, index % 3, 4 + index % 14
        for seat in range(3):
            pair = _swapped_later(f, m, r, game, declarer, cards, seat)
            if pair is None:
                continue
            a, b = pair
            va, vb = view_of(a, seat, skat), view_of(b, seat, skat)
            assert (va == vb).all() and not (a == b).all()
            rng = np.uint64(stream_key(21, index, 1))
            first = pimc_choice(va, np.uint64(legal_now(a)), params, data, rng)[1]
            assert first == pimc_choice(vb, np.uint64(legal_now(b)), params, data, rng)[1]
            compared += 1
    assert compared >= 12


def test_the_play_likelihood_favours_worlds_where_the_model_explains_the_cards():
    """In the real deal, where every card played is the model's card (the heuristic rules'), each choice
    of another seat counts the model's chance 1 - d + d/n; no world that fits the view is impossible."""
    from strategies.cardplay.heuristic import rule_based_card
    from strategies.cardplay.pimc_inference import play_likelihood

    replay, seen = np.empty(STATE.size, dtype=np.int64), np.empty(VIEW.size, dtype=np.int64)
    for index in range(10):
        f, m, r, skat = deal(23, index)
        game, declarer = index % 5, index % 3
        state = new_play(f, m, r, game, declarer)
        expected, plays = 1.0, []
        for _ in range(9):                         # three tricks by the model
            view = view_of(state, int(to_play(state)), skat if to_play(state) == declarer else 0)
            legal = np.int64(legal_now(state))
            plays.append((int(to_play(state)), popcount(legal)))
            card = rule_based_card(view, legal)
            play_card(state, card)
        seat = int(to_play(state))
        for who, n in plays:
            if who != seat and n > 1:
                expected *= 1 - 0.3 + 0.3 / n
        view = view_of(state, seat, skat if seat == declarer else 0)
        assert play_likelihood(view, state, skat, 0.3, replay, seen) == pytest.approx(expected)
        world = np.empty(STATE.size, dtype=np.int64)
        rng = np.uint64(stream_key(23, index, 1))
        for _ in range(10):
            rng, counted = sample_world(view, np.uint64(rng), world)
            assert 0.0 < play_likelihood(view, world, counted, 0.3, replay, seen) <= 1.0


#: SHA-256 over the columns (trick logs included) of 40 deals of seed 31, the threshold profile with
#: 4-world PIMC card play without inference, as the PIMC player before inference and adaptive worlds
#: played them.
PIMC_BEFORE_INFERENCE = "99d51ff6bbc731917b9ea6d9aa72a841e56c903a4ecee3490b8ab4710e832be3"
#: The same of the default before its worlds were played out: 10 worlds solved, with inference.
PIMC_BEFORE_PLAY_OUT = "31d8b334e24fc029713cefb1cbcd4dbea41751ef71cdab74171888da2428cd90"
#: The same of the default before the learned player chose among near cards: 60 worlds played out, the
#: last six tricks solved.
PIMC_BEFORE_NEAR = "059c2f9ffa625003954d57ce2ddac12e365bbf1dc91b365f914b9a39714540f2"


def _trick_log_digest(settings, player="pimc"):
    """The SHA-256 of every column, trick logs included, of 40 deals of ``player`` with ``settings``."""
    return play_digest(load_profile("threshold", [f"card_play={player}", *settings]), 40)


def test_four_worlds_without_inference_play_as_pimc_played_before_inference():
    settings = ["card_play.worlds=4", "card_play.max_worlds=4", "card_play.inference=false"]
    assert _trick_log_digest(settings, "pimc_solved") == PIMC_BEFORE_INFERENCE


def test_near_zero_plays_as_the_default_played_before_near_cards():
    # recorded with the worlds played out by model v5, then the shipped model
    assert _trick_log_digest(["card_play.near=0", f"card_play.model={MODEL_V5}"]) == PIMC_BEFORE_NEAR


@pytest.mark.slow
def test_worlds_solved_play_as_the_default_played_before_its_worlds_were_played_out():
    assert _trick_log_digest([], "pimc_solved") == PIMC_BEFORE_PLAY_OUT


@pytest.fixture(scope="module", params=[["card_play=pimc_solved", "card_play.worlds=3"], PIMC],
                ids=["solved", "played-out"])
def pimc_games(request):
    profile = load_profile("threshold", request.param)
    return profile, play_deals(profile, seed=13, start=0, count=24, log_tricks=True)


def test_pimc_plays_whole_deals_legally_and_the_same_in_any_batch(pimc_games):
    profile, whole = pimc_games
    assert (~whole["passed"]).sum() > 15
    alone = play_deals(profile, seed=13, start=7, count=1, log_tricks=True)
    for name, column in alone.items():
        assert np.array_equal(column[0], whole[name][7]), name


def test_open_hand_play_reaches_the_open_hand_value_from_the_first_lead():
    """With every seat playing the open-hand best card, the declarer ends with exactly the value the
    solver gives the deal at the first lead."""
    profile = load_profile("threshold", ["card_play=open_hand"])
    games = play_deals(profile, seed=17, start=0, count=30, log_tricks=True)
    table, stack = solver.new_transpositions(16), solver.new_stack()
    checked = 0
    for k in np.flatnonzero(~games["passed"]):
        d, game = int(games["declarer"][k]), int(games["game"][k])
        hands = [int(games[f"hand_{s}"][k]) for s in "fmr"]
        counted = int(games["skat"][k]) if games["hand"][k] else int(games["discard"][k])
        hands[d] = (hands[d] | int(games["skat"][k])) & ~counted
        value = solver.open_hand_value(new_play(*hands, game, d), counted, table, stack)
        if game == NULL:
            assert bool(games["won_in_play"][k]) == (value == 1)
        else:
            assert games["declarer_points"][k] == value
        checked += 1
    assert checked > 20


def test_pimc_parameters_are_checked():
    from strategies.profiles import ProfileError

    for player, settings, message in (("pimc", ["worlds=0"], "worlds must be a whole number from 1 to 1000"),
                                      ("pimc", ["score=\"tricks\""], "score must be one of 'game', 'points'"),
                                      ("pimc", ["inference=2"], "inference must be true or false"),
                                      ("pimc", ["clear=11"], "clear must be a number from 0 to 10"),
                                      ("pimc", ["model=\"mine.npz\""], "mine.npz: no such model file"),
                                      ("pimc", ["play_out=false"], "has no parameter 'play_out'"),
                                      ("pimc_solved", ["model=\"mine.npz\""], "set near with it"),
                                      ("pimc_solved", ["solve_last=3"], "has no parameter 'solve_last'"),
                                      ("pimc", ["solve_last=10"], "solve_last must be a whole number from 0 to 9"),
                                      ("pimc", ["near=-1"], "near must be a number from 0 to 10")):
        with pytest.raises(ProfileError, match=message):
            load_profile("threshold", [f"card_play={player}", *(f"card_play.{s}" for s in settings)])


def test_near_cards_are_those_short_of_the_best_by_less_than_the_standard_errors_asked():
    """Card 0 is best in the mean; card 1 is 1 short with a spread of 2 a world (a standard error of
    0.5 over 16 worlds), card 2 short by 3 in every world: card 1 is near within 2.5 standard errors
    and not within 1.5; card 2 never; for a defender (lowest mean best) the same cards by the same
    differences."""
    from strategies.cardplay.pimc import _near_cards

    worlds = 16
    results = np.zeros((worlds, 32))
    results[:, 0] = 10.0
    results[:, 1] = 10.0 - 1.0 + 2.0 * np.array([1, -1] * (worlds // 2))
    results[:, 2] = 7.0
    totals = results.sum(axis=0)
    legal, best = np.int64(0b111), np.int64(1)
    se = np.std(results[:, 0] - results[:, 1], ddof=1) / np.sqrt(worlds)
    assert 0.5 < se < 0.55
    assert _near_cards(results, totals, worlds, legal, best, 1.0, 2.5) == 0b011
    assert _near_cards(results, totals, worlds, legal, best, 1.0, 1.5) == 0b001
    assert _near_cards(results, totals, worlds, legal, best, 1.0, 10.0) == 0b011
    assert _near_cards(-results, -totals, worlds, legal, best, -1.0, 2.5) == 0b011


def test_near_cards_are_chosen_by_the_learned_player():
    """With ``near`` the card played is the learned player's choice among the cards near the best, which
    include the cards of best mean: so on the same worlds the learned player scores it at least as high as
    the card the best mean alone gives, and it often differs from that card. The learned player narrowed
    to some of its cards scores each as it does with all of them."""
    from strategies.cardplay.learned import learned_card, learned_choice

    near, data = kernel_arguments(build("card_play", "pimc", worlds=4, max_worlds=4, inference=False, near=10))
    plain, _ = kernel_arguments(build("card_play", "pimc", worlds=4, max_worlds=4, inference=False, near=0))
    learned = data
    checked = differ = 0
    for index, view, legal in positions_to_play(5, 60, 25):
        if popcount(legal) < 2:
            continue
        rng = np.uint64(stream_key(5, index, 1))
        cards = np.uint64(legal)  # the type the play loops pass
        by_near, by_mean = pimc_choice(view, cards, near, data, rng)[1], pimc_choice(view, cards, plain, data, rng)[1]
        assert learned_choice(view, legal, (np.int64(1) << by_near) | (np.int64(1) << by_mean), learned) == by_near
        differ += by_near != by_mean
        mine = learned_card(view, legal, plain, learned, rng)[1]
        assert learned_choice(view, legal, legal, learned) == mine
        other = legal & ~(np.int64(1) << mine)
        assert learned_choice(view, legal, other & -other, learned) == int(other & -other).bit_length() - 1
        checked += 1
    assert checked > 30 and differ > 3


#: Declarations as the engine normalizes them: (hand, schneider announced, schwarz announced, ouvert).
DECLARATIONS = ((0, 0, 0, 0), (1, 0, 0, 0), (1, 1, 0, 0), (1, 1, 1, 0), (1, 1, 1, 1))


def test_a_world_at_the_end_of_play_scores_as_the_engine_scores_the_game():
    """In game terms a world's result is the declarer's Seeger-Fabian score with one matador: won or
    lost, schneider and schwarz counted once whether announced or reached (docs/rules.md#game-value)."""
    table, stack = solver.new_transpositions(12), solver.new_stack()
    kinds = set()
    for index in range(120):
        game, declarer = index % 5, index % 3           # suits and grand
        state, skat = position(21, index, game, declarer, 30)
        points = solver.open_hand_value(state, int(skat), table, stack)
        tricks = popcount(int(state[STATE.won + declarer])) // 3
        for hand, schneider, schwarz, ouvert in DECLARATIONS:
            value, won, _, _ = play_outcome(game, hand, schneider, schwarz, ouvert, 1, points, tricks)
            if not won and tricks == 0:
                continue                                # the one level world_result leaves out
            view = view_of(state, declarer, 0)
            set_declaration(view, hand, schneider, schwarz, ouvert, 18)
            expected = value + 50 if won else -2 * value - 50
            assert world_result(view, state, int(skat), 0, table, stack) == expected, (index, points, tricks)
            kinds.add((bool(won), points >= 90 or points <= 30, schneider))
    assert len(kinds) >= 6, kinds


@pytest.mark.parametrize("score", [0, 1], ids=["game", "points"])
def test_a_finished_world_played_out_scores_as_a_solved_one(score):
    """At the end of play nothing is left to search: the result of a world played to its end
    (``played_result``, from the declarer's points and tricks) is the solved world's, in every game
    type, declaration and outcome."""
    from sim.rules.tricks import declarer_result

    table, stack = solver.new_transpositions(12), solver.new_stack()
    outcomes = set()
    for index in range(300):
        game, declarer = index % 6, index % 3
        state, skat = position(23, index, game, declarer, 30)
        taken, tricks = declarer_result(state, int(skat))
        for hand, schneider, schwarz, ouvert in DECLARATIONS if game != NULL else ((0, 0, 0, 0), (1, 0, 0, 1)):
            view = view_of(state, declarer, 0)
            set_declaration(view, hand, schneider, schwarz, ouvert, 18)
            solved = world_result(view, state, int(skat), score, table, stack)
            if score == 0 and solved < 0 and tricks == 0 and game != NULL:
                continue                                # the one level world_result leaves out
            assert played_result(view, taken, tricks, score) == solved, (index, taken, tricks)
            outcomes.add((game == NULL, tricks == 0 if game == NULL else taken >= 61))
    assert len(outcomes) == 4


def test_a_world_played_out_is_each_card_followed_by_the_learned_player_at_every_seat():
    """With ``play_out`` and no trick left to the solver (``solve_last`` 0) a world's row holds, for each
    legal card, the end of the world when every seat then plays the learned player from its own view: the
    play loop's play-out with the learned player at all three seats gives the same results, card
    for card."""
    from sim.rules.play import TRICK_LOG_SIZE
    from sim.rules.tricks import declarer_result
    from strategies.cardplay.pimc import _value_world
    from strategies.cardplay.table import new_workspace, play_out, table_of
    from strategies.cardplay.world_results import STATS

    params, data = kernel_arguments(build("card_play", "pimc", solve_last=0))
    learned = table_of([build("card_play", "learned")] * 3)
    tt, stack = new_workspace(12)
    world, child = np.empty(STATE.size, dtype=np.int64), np.empty(STATE.size, dtype=np.int64)
    row, stats, log = np.zeros(32), np.zeros(STATS, dtype=np.int64), np.empty(TRICK_LOG_SIZE, dtype=np.int8)
    differ = 0
    for index in range(30):
        game, declarer = index % 6, index % 3
        state, skat = position(29, index, game, declarer, (index * 7) % 25)
        if state[STATE.finished]:
            continue
        seat = int(to_play(state))
        hand = index % 4 == 0
        view = view_of(state, seat, skat if seat == declarer and not hand else 0)
        set_declaration(view, int(hand), 0, 0, 0, 18)
        legal = np.int64(legal_now(state))
        rng, counted = sample_world(view, np.uint64(stream_key(29, index, 1)), world)
        _value_world(view, legal, world, counted, params, data, tt, stack, stats, row)
        ends = set()
        for card in range(32):
            if int(legal) >> card & 1:
                child[:] = world
                play_card(child, card)
                play_out(child, 0 if hand else counted, view.copy(), learned, learned.seated, learned.params,
                         learned.data, np.uint64(0), log, counted, tt, stack)
                taken, tricks = declarer_result(child, counted)
                assert row[card] == played_result(view, taken, tricks, 0), (index, card)
                ends.add(row[card])
        differ += len(ends) > 1
    assert differ >= 3


@pytest.mark.parametrize("solve_last", [2, 3, 5])
def test_a_world_played_out_leaves_its_last_tricks_to_the_solver(solve_last):
    """With ``solve_last`` k, a card's value in a world is the learned players' play-out up to the start
    of the k-th trick from the end, and from there the world solved open-handed: the full play-out's
    cards replayed to that trick start and solved give each legal card's value."""
    from sim.rules.play import TRICK_LOG_SIZE
    from sim.rules.tricks import STATE, declarer_result
    from strategies.cardplay.pimc import _value_world
    from strategies.cardplay.table import new_workspace, play_out, table_of
    from strategies.cardplay.world_results import STATS

    params, data = kernel_arguments(build("card_play", "pimc", solve_last=solve_last))
    learned = table_of([build("card_play", "learned")] * 3)
    tt, stack = new_workspace(12)
    world, child = np.empty(STATE.size, dtype=np.int64), np.empty(STATE.size, dtype=np.int64)
    row, stats, log = np.zeros(32), np.zeros(STATS, dtype=np.int64), np.empty(TRICK_LOG_SIZE, dtype=np.int8)
    solved = changed = 0
    for index, view, legal in positions_to_play(31, 24, 22):
        _, counted = sample_world(view, np.uint64(stream_key(31, index, 1)), world)
        _value_world(view, legal, world, counted, params, data, tt, stack, stats, row)
        played = int(world[STATE.tricks_done]) * 3 + int(world[STATE.in_trick])
        for card in (c for c in range(32) if int(legal) >> c & 1):
            child[:] = world
            play_card(child, card)
            whole = child.copy()
            play_out(whole, counted, view.copy(), learned, learned.seated, learned.params, learned.data,
                     np.uint64(0), log, counted, tt, stack)
            for later in whole[STATE.order + played + 1:STATE.order + 30]:
                if child[STATE.finished] or (child[STATE.in_trick] == 0
                                             and child[STATE.tricks_done] >= 10 - solve_last):
                    break
                play_card(child, int(later))
            solved += not child[STATE.finished]
            assert row[card] == world_result(view, child, counted, 0, tt, stack), (index, card)
            changed += row[card] != played_result(view, *declarer_result(whole, counted), 0)
    assert solved >= 20 and changed >= 1   # the solver's end is not always the learned players' end
