"""Hand evaluators: known answers on hand-built hands, parameters, batching, and
plausible pass rates on random deals."""

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from sim.rules.cards import parse_hand
from sim.rules.games import BASE_VALUES, GRAND, NULL, NULL_VALUES
from sim.rules.shuffle import deal_batch
from strategies import evaluators as ev
from strategies import registry
from strategies.evaluators import evaluator
from strategies.registry import StrategyError, names

ROOT = Path(__file__).resolve().parents[2]
BUILT_IN = ["classic", "trump_length", "grand_rule", "null_rule", "weighted", "default"]
SEATS = [0, 1, 2]
SUITS = slice(0, 4)
CLUBS = 3
#: Game value at the lowest level, to pick the game a bidder would rather play.
LOWEST_VALUE = np.append(2 * BASE_VALUES[:5], NULL_VALUES[0])

FOUR_JACKS_FOUR_ACES = "CJ SJ HJ DJ CA SA HA DA C10 S10"
THREE_SEVENS_LOW = "C7 C8 C9 S7 S8 S10 H7 H8 H9 D8"
FOUR_JACKS_SIX_CLUBS = "CJ SJ HJ DJ C10 CK CQ C9 C8 C7"
WEAK_SCATTERED = "C10 CQ C8 SK S9 HQ H9 H8 DK D9"


def scores(name, text, seat=0, **params):
    return evaluator(name, **params)(np.array([parse_hand(text)], dtype=np.uint32), np.array([seat]))[0]


def passes(name, text, seat=0, **params):
    e = evaluator(name, **params)
    return scores(name, text, seat, **params) >= e.thresholds


def diamonds_byte(text):
    """The diamonds byte of a hand: the index into the per-suit tables."""
    mask = parse_hand(text) if text else 0
    return ev.suit_bytes(np.array([mask], dtype=np.uint32))[0, 0]


def assessed(name):
    return np.isfinite(evaluator(name).thresholds)


def random_hands(n, seed=5):
    deals = deal_batch(seed, 0, (n + 2) // 3)
    return deals[:, :3].reshape(-1)[:n].copy(), np.tile(SEATS, (n + 2) // 3)[:n].copy()


# --- registry, shapes, thresholds ------------------------------------------------------------


def test_every_built_in_is_registered():
    assert set(BUILT_IN) <= set(names("evaluator"))


@pytest.mark.parametrize("name", BUILT_IN)
def test_shape_dtype_and_unassessed_columns(name):
    hands, seats = random_hands(1000)
    e = evaluator(name)
    out = e(hands, seats)
    assert out.shape == (1000, 6) and out.dtype == np.float64
    assert e.thresholds.shape == (6,) and e.thresholds.dtype == np.float64
    # a column is -inf for every hand exactly when it is not assessed, and then its
    # threshold is +inf so that nothing passes it
    assert np.array_equal(np.isneginf(out).all(axis=0), ~assessed(name))
    assert np.isfinite(out[:, assessed(name)]).all()
    assert np.isposinf(e.thresholds[~assessed(name)]).all()
    assert not (out >= e.thresholds)[:, ~assessed(name)].any()


def test_columns_assessed_by_each_evaluator():
    games = {name: [g for g in range(6) if assessed(name)[g]] for name in BUILT_IN}
    assert games == {"classic": [0, 1, 2, 3, 4], "trump_length": [0, 1, 2, 3], "grand_rule": [4],
                     "null_rule": [5], "weighted": [0, 1, 2, 3, 4, 5], "default": [0, 1, 2, 3, 4, 5]}


def test_thresholds_cannot_be_changed_by_accident():
    with pytest.raises(ValueError):
        evaluator("classic").thresholds[0] = 0


def test_hands_as_python_ints_and_a_scalar_seat():
    text = "CJ SJ CA C10 C9 C8 SA HA H9 D7"
    e = evaluator("default")
    as_array = e(np.array([parse_hand(text)], dtype=np.uint32), np.array([1]))
    assert np.array_equal(e([parse_hand(text)], 1), as_array)


def test_suit_bytes_puts_each_suit_in_its_byte():
    b = ev.suit_bytes(np.array([parse_hand("CJ SA H7 D10 D8")], dtype=np.uint32))[0]
    assert b.tolist() == [1 << 5 | 1 << 1, 1 << 0, 1 << 6, 1 << 7]


# --- parameters -------------------------------------------------------------------------------


def test_unknown_parameter_lists_the_valid_ones():
    with pytest.raises(StrategyError) as err:
        evaluator("weighted", jak=2)
    message = str(err.value)
    assert "'jak'" in message
    for p in ("jack", "trump", "ace", "ten", "void", "forehand", "null_seven", "null_void", "null_gap"):
        assert re.search(rf"\b{p}\b", message)


def test_parameter_of_an_evaluator_without_parameters():
    with pytest.raises(StrategyError, match="its parameters: none"):
        evaluator("classic", jack=2)


def test_unknown_evaluator_lists_the_known_ones():
    with pytest.raises(StrategyError, match="classic"):
        evaluator("clasic")


def test_bound_evaluator_carries_name_params_and_thresholds():
    e = evaluator("weighted", jack=2.0)
    assert e.name == "weighted" and e.params == {"jack": 2.0}
    assert np.array_equal(e.thresholds, ev.weighted.thresholds)


def test_weighted_weights_change_the_scores_as_their_terms_say():
    hand = "CJ SJ CA C10 C9 C8 SA HA H9 D7"  # 2 jacks, 3 aces, 1 ten with its ace, sevens: D7
    base = scores("weighted", hand)
    more_jack = scores("weighted", hand, jack=3.0)
    assert np.allclose(more_jack - base, [4, 4, 4, 4, 4, 0])  # 2 jacks * 2 more
    no_aces = scores("weighted", hand, ace=0.0)
    assert np.allclose(base - no_aces, [3, 3, 3, 3, 3, 0])
    assert np.allclose(scores("weighted", hand, forehand=0.0) - base, [0, 0, 0, 0, -1, 0])
    assert np.allclose(scores("weighted", hand, seat=1) - base, [0, 0, 0, 0, -1, 0])
    assert scores("weighted", hand, null_gap=0.0)[NULL] == 1.0  # one seven, no void
    # trumps: diamonds and spades 2 jacks + 1 card, hearts + 2, clubs + 4; grand the jacks
    assert np.allclose(scores("weighted", hand, trump=2.0) - base, [3, 4, 3, 6, 2, 0])


def test_trump_length_and_grand_rule_parameters():
    hand = "CJ SJ CA C10 C9 C8 SA HA H9 D7"
    assert scores("trump_length", hand, top_trump=1.5)[CLUBS] - scores("trump_length", hand)[CLUBS] == 4
    no_bonus = scores("grand_rule", hand, forehand_bonus=0.0)[GRAND]
    assert no_bonus == scores("grand_rule", hand, seat=2)[GRAND]


# --- known answers ----------------------------------------------------------------------------


@pytest.mark.parametrize("seat", SEATS)
@pytest.mark.parametrize("name", [n for n in BUILT_IN if n not in ("trump_length", "null_rule")])
def test_four_jacks_four_aces_is_a_grand(name, seat):
    ok = passes(name, FOUR_JACKS_FOUR_ACES, seat)
    assert ok[GRAND]
    # a bidder plays the most valuable game that passes: grand
    assert np.argmax(np.where(ok, LOWEST_VALUE, -1)) == GRAND


@pytest.mark.parametrize("name", BUILT_IN)
def test_three_sevens_and_low_cards_is_a_null_and_nothing_else(name):
    for seat in SEATS:
        ok = passes(name, THREE_SEVENS_LOW, seat)
        assert not ok[:5].any()
        assert ok[NULL] == assessed(name)[NULL]


@pytest.mark.parametrize("name", ["classic", "trump_length", "weighted", "default"])
def test_four_jacks_and_six_clubs_is_a_clubs_game(name):
    ok = passes(name, FOUR_JACKS_SIX_CLUBS, 1)
    assert ok[CLUBS]
    s = scores(name, FOUR_JACKS_SIX_CLUBS, 1)
    assert s[CLUBS] == s[SUITS].max()


def test_a_trump_suit_of_four_does_not_pass_on_its_voids():
    # the same hand: diamonds would hold only the four jacks
    assert not passes("trump_length", FOUR_JACKS_SIX_CLUBS)[0]


@pytest.mark.parametrize("seat", SEATS)
@pytest.mark.parametrize("name", BUILT_IN)
def test_weak_scattered_hand_passes_nothing(name, seat):
    assert not passes(name, WEAK_SCATTERED, seat).any()


def test_classic_counts():
    # J + A = 5; clubs: T = 6 -> 5 + 6 - 5 = 6; hearts: T = 4 -> 4 - 5; diamonds: T = 3
    hand = "CJ SJ CA C10 C9 C8 SA HA H9 D7"
    assert scores("classic", hand).tolist()[:5] == [-2, -1, -2, 6, 6]
    assert scores("classic", hand, seat=2)[GRAND] == 5
    # one jack and four aces: 5 - 1 for the missing second jack, + 1 in forehand
    assert scores("classic", "CJ CA SA HA DA C7 S7 H7 D7 D8")[GRAND] == 5
    assert scores("classic", "CJ CA SA HA DA C7 S7 H7 D7 D8", seat=1)[GRAND] == 4


def test_trump_length_on_parletts_examples():
    # "J J AK9 AT8 Q9", a hand game in hearts; "J J AK9 K AT8 Q" needs the skat
    assert scores("trump_length", "CJ SJ HA HK H9 SA S10 S8 CQ C9")[1] == 6.5
    assert scores("trump_length", "CJ SJ HA HK H9 SK DA D10 D8 CQ")[1] == 5.5
    assert passes("trump_length", "SJ DJ HA HK H9 H8 SA C9 C8 D7")[1]
    assert scores("trump_length", "DJ HK HQ H9 H8 SK S9 C8 C7 D10")[1] == 0.5


def test_trump_length_side_suit_values():
    def value(text):
        return ev.SIDE_VALUE[diamonds_byte(text)]
    assert value("DA") == 1          # ace, no loser
    assert value("D10") == -1        # one loser
    assert value("DA D10") == 2      # ace, ten with ace
    assert value("DA D7") == 0       # ace, one loser
    assert value("DK D7") == -2
    assert value("DA D10 DK D7") == 2
    assert value("DJ") == 1          # the jack is a trump: diamonds is void


def test_grand_rule_forehand_leads():
    hand = "HJ DJ CA C10 SA S9 HA H8 D8 D7"  # without 2, one ace-ten, two more aces
    assert scores("grand_rule", hand, 0)[GRAND] == 6.5
    assert scores("grand_rule", hand, 1)[GRAND] == scores("grand_rule", hand, 2)[GRAND] == 5.5
    assert passes("grand_rule", hand, 0)[GRAND] and not passes("grand_rule", hand, 1)[GRAND]


def test_grand_rule_counts_a_missing_jack_against_the_grand():
    two_jacks = scores("grand_rule", "HJ DJ CA C10 SA S10 HA H10 D8 D7", 1)[GRAND]
    one_jack = scores("grand_rule", "DJ C9 CA C10 SA S10 HA H10 D8 D7", 1)[GRAND]
    assert two_jacks - one_jack == 1 + 1.5


@pytest.mark.parametrize("name", ["classic", "grand_rule", "weighted", "default"])
def test_forehand_grand_scores_at_least_as_well_as_other_seats(name):
    hands, _ = random_hands(3000)
    e = evaluator(name)
    by_seat = [e(hands, np.full(len(hands), seat))[:, GRAND] for seat in SEATS]
    assert (by_seat[0] >= by_seat[1]).all() and (by_seat[0] >= by_seat[2]).all()
    assert (by_seat[0] > by_seat[1]).any()
    others = [e(hands, np.full(len(hands), seat))[:, :4] for seat in SEATS]
    assert np.array_equal(others[0], others[1]) and np.array_equal(others[1], others[2])


def test_grand_rule_suit_values():
    def value(text):
        return ev.GRAND_SIDE_VALUE[diamonds_byte(text)]
    assert value("DA") == 1
    assert value("DA D10") == 2
    assert value("DA D10 DK") == 2.5
    assert value("DA D10 D9 D8 D7") == 3.0    # two cards past the third
    assert value("DK D7") == -0.5             # no ace
    assert value("D10 D7") == -1.0            # and a bare ten
    assert value("D10 D8 D7") == -0.5
    assert value("") == 0


@pytest.mark.parametrize("cards, danger", [
    ("", 0), ("D7", 0), ("D7 D9", 0), ("D7 D9 DJ", 0), ("D7 D8 D10 DK", 0),
    ("D7 D9 DJ DK", 0), ("D7 D8 D9 D10 DJ DQ DK DA", 0),
    ("D8", 0.25), ("D8 D9 D10 DJ", 0.25),          # no seven: a gap at the bottom
    ("D9", 0.5), ("D7 D9 DK", 0.5),
    ("D10", 1), ("DA", 1), ("D7 D8 DA", 1), ("DJ", 1),
    ("D7 DQ DK DA", 1 + 0.5 + 0.25),               # Q 3 above its line, K 2, A 1
])
def test_null_danger_in_null_order(cards, danger):
    assert ev.NULL_DANGER[diamonds_byte(cards)] == danger


def test_null_rule_score_and_seat():
    assert scores("null_rule", THREE_SEVENS_LOW)[NULL] == -0.25  # the bare D8
    # ten and jack sit in their suits in null: a singleton jack is a sure loser
    assert scores("null_rule", "C7 C8 C9 S7 S8 S9 H7 H8 H9 DJ")[NULL] == -1
    assert scores("null_rule", FOUR_JACKS_FOUR_ACES)[NULL] == -9
    hands, seats = random_hands(2000)
    e = evaluator("null_rule")
    assert np.array_equal(e(hands, 0), e(hands, 2))


def test_default_is_made_of_its_three_parts():
    hands, seats = random_hands(3000)
    d = evaluator("default")(hands, seats)
    assert np.array_equal(d[:, SUITS], evaluator("trump_length")(hands, seats)[:, SUITS])
    assert np.array_equal(d[:, GRAND], evaluator("grand_rule")(hands, seats)[:, GRAND])
    assert np.array_equal(d[:, NULL], evaluator("null_rule")(hands, seats)[:, NULL])
    t = evaluator("default").thresholds
    assert t.tolist() == [*ev.trump_length.thresholds[:4], ev.grand_rule.thresholds[GRAND],
                          ev.null_rule.thresholds[NULL]]


# --- batches and properties -------------------------------------------------------------------


@pytest.mark.parametrize("name", BUILT_IN)
def test_batch_equals_one_by_one_and_order_does_not_matter(name):
    hands, seats = random_hands(60, seed=9)
    rng = np.random.default_rng(0)
    seats = rng.integers(0, 3, len(hands))
    e = evaluator(name)
    batch = e(hands, seats)
    single = np.vstack([e(hands[k:k + 1], seats[k:k + 1]) for k in range(len(hands))])
    assert np.array_equal(batch, single)
    order = rng.permutation(len(hands))
    assert np.array_equal(e(hands[order], seats[order]), batch[order])


def test_suits_are_symmetric():
    # swapping two suits swaps their columns (the jacks stay where they are)
    for name in ("classic", "trump_length", "weighted", "default"):
        a, b = scores(name, "CJ HJ C10 CK C9 C8 SA S7 H9 D8"), scores(name, "CJ HJ H10 HK H9 H8 SA S7 C9 D8")
        assert a[CLUBS] == b[1] and a[1] == b[CLUBS]
        assert a[0] == b[0] and a[2] == b[2] and a[GRAND] == b[GRAND]


hands_10 = st.sets(st.integers(0, 31), min_size=10, max_size=10).map(lambda ids: sum(1 << c for c in ids))


@given(hands_10, st.sampled_from([7, 15, 23, 31]), st.integers(0, 2))
def test_a_jack_for_a_small_card_never_lowers_a_suit_or_grand_column(hand, jack, seat):
    """Replacing a 7, 8 or 9 by a missing jack makes every trump game at least as good."""
    small = [c for c in range(32) if hand >> c & 1 and c & 7 in (0, 1, 2)]
    assume(not hand >> jack & 1 and small)
    better = hand & ~(1 << small[0]) | 1 << jack
    batch = np.array([hand, better], dtype=np.uint32)
    for name in ("classic", "trump_length", "grand_rule", "weighted", "default"):
        s = evaluator(name)(batch, seat)
        assert (s[1, :5] >= s[0, :5]).all(), name


# --- random deals -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def many_hands():
    return random_hands(150_000, seed=3)


@pytest.mark.parametrize("name", BUILT_IN)
def test_pass_rates_on_random_hands_are_plausible(name, many_hands):
    hands, seats = many_hands
    e = evaluator(name)
    ok = e(hands, seats) >= e.thresholds
    rate = ok.mean(axis=0)
    for g in range(4):
        if assessed(name)[g]:
            assert 0.03 <= rate[g] <= 0.2, (name, g, rate[g])
    if assessed(name)[GRAND]:
        assert 0.02 <= rate[GRAND] <= 0.2
    if assessed(name)[NULL]:
        assert 0.005 <= rate[NULL] <= 0.08
    if assessed(name).all():
        assert 0.15 <= ok.any(axis=1).mean() <= 0.70


# --- the documentation example ----------------------------------------------------------------


def test_the_example_in_docs_runs(capsys, monkeypatch):
    # register the example's evaluator in a copy of the registry, so that it is gone after the test
    copy = {role: dict(known) for role, known in registry._registry.items()}
    monkeypatch.setattr(registry, "_registry", copy)
    text = (ROOT / "docs" / "evaluators.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/evaluators.md", "exec"), {})
    out = capsys.readouterr().out
    assert "long_suit passes clubs in" in out and "trump_length passes clubs in" in out
    assert "long_suit" in names("evaluator")
