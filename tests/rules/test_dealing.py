"""Fixed cards and conditions: the deals follow the exact conditional law of the uniform deal (chi-square
against hypergeometric counts, for the seats and the skat, drawn directly and by rejection), are a pure
function of (seed, dealing, deal number), and every mistake or impossible condition is one line."""

import math
import time

import numpy as np
import pytest

from sim.rules.cards import CARD_POINTS, format_hand, parse_hand
from sim.rules.conditions import parse
from sim.rules.count_tables import count_tables, deals_with
from sim.rules.dealing import ALL_DEALS, Dealing, DealingError, dealing_text, read_fixed
from sim.rules.shuffle import deal_batch
from tests.rules.test_deal import chi2_threshold

C = math.comb
JACKS, ACES = np.uint32(0x80808080), np.uint32(0x40404040)
N = 20_000


def jack_count(hands, seats):
    """A test evaluator whose every column is the hand's number of jacks."""
    return np.repeat(np.bitwise_count(np.asarray(hands, np.uint32) & JACKS)[:, None], 6, axis=1).astype(float)


EVALUATORS = {"jack_count": jack_count}


def count(deals, part, mask):
    return np.bitwise_count(deals[:, part] & mask).astype(np.int64)


def chi_square(observed_cells, weights: dict) -> tuple[float, int]:
    """The chi-square of the observed cells (a list of tuples, one a deal) against exact weights by cell."""
    total = sum(weights.values())
    cells, counts = np.unique(np.array(observed_cells), axis=0, return_counts=True)
    seen = {tuple(int(x) for x in cell): n for cell, n in zip(cells, counts)}
    assert set(seen) <= set(weights), set(seen) - set(weights)   # no deal outside the law's cells
    n = len(observed_cells)
    statistic = sum((seen.get(cell, 0) - n * w / total) ** 2 / (n * w / total) for cell, w in weights.items())
    return statistic, len(weights) - 1


def assert_follows(observed_cells, weights: dict) -> None:
    statistic, df = chi_square(observed_cells, weights)
    assert statistic < chi2_threshold(df), (statistic, df)


# --- the laws ------------------------------------------------------------------------------------


def test_fixed_cards_deal_the_others_uniformly_into_the_open_places():
    deals = Dealing(["forehand=CJ SJ", "skat=D7"]).deals(11, 0, N)
    f, skat = parse_hand("CJ SJ"), parse_hand("D7")
    assert ((deals[:, 0] & f) == f).all() and ((deals[:, 3] & skat) == skat).all()
    # 29 free cards with two jacks: forehand draws 8 of them, middlehand 10, the skat 1
    assert_follows(list(zip(count(deals, 0, JACKS))), {(2 + k,): C(2, k) * C(27, 8 - k) for k in range(3)})
    assert_follows(list(zip(count(deals, 1, JACKS))), {(k,): C(2, k) * C(27, 10 - k) for k in range(3)})
    other = deals[:, 3] & ~np.uint32(skat)
    card = np.log2(other.astype(np.float64)).astype(int)
    free = [c for c in range(32) if not (f | skat) >> c & 1]
    assert_follows(list(zip(card)), {(c,): 1 for c in free})


def test_a_counted_condition_is_dealt_directly_with_the_exact_law_of_its_seat_and_the_skat():
    dealing = Dealing((), "jacks(forehand) >= 3")
    assert dealing.record()["sampler"] == "direct"
    deals = dealing.deals(12, 0, N)
    jacks, aces, skat_jacks = count(deals, 0, JACKS), count(deals, 0, ACES), count(deals, 3, JACKS)
    assert_follows(list(zip(jacks, aces)),
                   {(j, a): C(4, j) * C(4, a) * C(24, 10 - j - a) for j in (3, 4) for a in range(5)})
    assert_follows(list(zip(jacks, skat_jacks)),
                   {(j, k): C(4, j) * C(28, 10 - j) * C(4 - j, k) * C(18 + j, 2 - k)
                    for j in (3, 4) for k in range(min(2, 4 - j) + 1)})


def test_a_condition_on_the_skat_has_the_exact_law_of_the_skat():
    deals = Dealing((), "jacks(skat) >= 1 and points(skat) >= 12").deals(13, 0, N)
    points = CARD_POINTS
    pairs = {}
    for a in range(32):
        for b in range(a + 1, 32):
            if (a % 8 == 7 or b % 8 == 7) and points[a] + points[b] >= 12:
                pairs[(a, b)] = 1
    cards = [tuple(c for c in range(32) if int(s) >> c & 1) for s in deals[:, 3]]
    assert_follows(cards, pairs)


def test_rejection_deals_the_exact_law_too_with_fixed_cards():
    dealing = Dealing(["rearhand=CA"], "eval('jack_count', middlehand, 'grand') >= 3", evaluators=EVALUATORS)
    record = dealing.record()
    assert record["sampler"] == "rejection" and "counted" not in record
    deals, tries = dealing.dealt(14, 0, N)
    assert tries > N
    assert_follows(list(zip(count(deals, 1, JACKS), count(deals, 1, ACES))),
                   {(j, a): C(4, j) * C(3, a) * C(24, 10 - j - a) for j in (3, 4) for a in range(4)})
    assert_follows(list(zip(count(deals, 3, JACKS))), _skat_jacks_given_middlehand())


def _skat_jacks_given_middlehand() -> dict:
    """Jacks in the skat when middlehand holds 3 or 4 of them and rearhand CA: the free cards left are 21 of
    forehand, rearhand and the skat (forehand 10, rearhand 9, skat 2), with 4 - j jacks."""
    weights = {}
    for j in (3, 4):
        middle = C(4, j) * C(27, 10 - j)   # CA fixed elsewhere: 27 non-jacks free
        for k in range(min(2, 4 - j) + 1):
            weights[(k,)] = weights.get((k,), 0) + middle * C(4 - j, k) * C(17 + j, 2 - k)
    return weights


def test_a_condition_is_split_into_its_counted_part_and_the_part_by_rejection():
    dealing = Dealing((), "jacks(forehand) >= 2 and eval('jack_count', middlehand, 'grand') >= 2",
                      evaluators=EVALUATORS)
    record = dealing.record()
    assert record["counted"] == "jacks(forehand) >= 2"
    assert record["tested"] == "eval('jack_count', middlehand, 'grand') >= 2"
    deals = dealing.deals(15, 0, N)
    assert (count(deals, 0, JACKS) == 2).all() and (count(deals, 1, JACKS) == 2).all()
    assert_follows(list(zip(count(deals, 0, ACES))), {(a,): C(4, a) * C(24, 8 - a) for a in range(5)})


# --- exact counts --------------------------------------------------------------------------------


def test_the_count_tables_hold_every_deal_exactly_once():
    assert ALL_DEALS == math.factorial(32) // (math.factorial(10) ** 3 * 2)
    fixed = read_fixed(["forehand=CJ HA", "skat=D7"])
    for condition in ("jacks(forehand) >= 0", "jacks(middlehand) + aces(skat) + length(rearhand, 'H') >= 0",
                      "points(forehand) >= 0 and has(skat, 'SJ') or not has(skat, 'SJ')",
                      "trumps(forehand, 'C') + trumps(middlehand, 'grand') + tens(rearhand) + jacks(skat) >= 0"):
        tables = count_tables(fixed, parse(condition))
        assert tables.meeting == tables.possible == deals_with(fixed), condition
    assert deals_with(fixed) == math.comb(29, 8) * math.comb(21, 10) * math.comb(11, 10)


def test_the_share_of_a_counted_condition_is_its_exact_hypergeometric_count():
    share = Dealing((), "jacks(forehand) >= 3").record()
    hands = C(4, 3) * C(28, 7) + C(4, 4) * C(28, 6)
    assert share["deals_counted"] == hands * C(22, 10) * C(12, 10)
    assert dealing_text(share) == "where jacks(forehand) >= 3: 7.93% of deals (exact), drawn directly"
    rare = Dealing((), "jacks(forehand) == 4 and aces(forehand) == 4")
    assert rare.record()["deals_counted"] == C(24, 2) * C(22, 10) * C(12, 10)
    assert "one deal in 233,7" in dealing_text(rare.record())
    assert ((rare.deals(1, 0, 100)[:, 0] & 0xC0C0C0C0) == 0xC0C0C0C0).all()   # as fast as any


# --- a pure function of (seed, dealing, deal number) --------------------------------------------


@pytest.mark.parametrize("fix, where", [
    ((), None), (["middlehand=CJ SJ HA", "skat=D7"], None), ((), "jacks(forehand) >= 3 and length(forehand, 'C') >= 3"),
    ((), "eval('jack_count', forehand, 'grand') >= 2 and points(skat) >= 10"),
    (["forehand=CJ"], "points(forehand) + points(middlehand) + points(rearhand) >= 100"),
])
def test_a_deal_does_not_depend_on_the_batch_it_is_dealt_in(fix, where):
    dealing = Dealing(fix, where, evaluators=EVALUATORS)
    whole = dealing.deals(2024, 0, 400)
    for start, count_ in [(0, 1), (5, 17), (100, 300), (399, 1), (37, 0)]:
        assert (Dealing(fix, where, evaluators=EVALUATORS).deals(2024, start, count_)
                == whole[start:start + count_]).all()
    assert (np.bitwise_or.reduce(whole, axis=1) == 0xFFFFFFFF).all()
    assert (np.bitwise_count(whole) == [10, 10, 10, 2]).all()
    assert not (whole == Dealing(fix, where, evaluators=EVALUATORS).deals(2025, 0, 400)).all()


def test_the_uniform_deal_and_a_fixed_hand_deal_as_they_always_did():
    assert (Dealing().deals(9, 1000, 500) == deal_batch(9, 1000, 500)).all()
    # a hand fixed (as `skatsim hand` deals): the deals as that command always dealt them
    hand = format_hand(0b1111111111 << 3)
    assert Dealing({"middlehand": hand}).deals(5, 0, 2).tolist() == [
        [2550996999, 8184, 666025984, 1077936128], [1908555782, 8184, 2352783361, 33619968]]
    assert Dealing((), "jacks(forehand) >= 3 and aces(forehand) >= 2").deals(1, 0, 2).tolist() == [
        [2705621441, 1485849622, 103365152, 131080], [3099616384, 1141510429, 53807202, 33280]]


# --- mistakes ------------------------------------------------------------------------------------


@pytest.mark.parametrize("fix, says", [
    (["forehand=CJ SJ CJ"], "card CJ written twice"),
    (["forehand=CJ SJ", "middlehand=HA SJ"], "fixed cards middlehand=HA SJ: SJ fixed twice"),
    (["forehand=CJ SJ HJ DJ CA SA HA DA C10 S10 H10"], "forehand gets 11 cards; it holds 10"),
    (["forehand=CJ SJ HJ DJ CA", "forehand=SA HA DA C10 S10 H10"], "forehand gets 11 cards; it holds 10"),
    (["skat=D7 D8 D9"], "skat gets 3 cards; it holds 2"),
    (["forehand=CJ X9"], "unknown card 'X9'"),
    (["dealer=CJ"], "unknown seat 'dealer' (forehand, middlehand, rearhand or skat)"),
    (["forehand CJ"], "write SEAT=CARDS"),
    (["forehand="], "no cards named"),
    ({"forehand": 7}, "the cards are a text"),
])
def test_every_bad_fix_is_one_line(fix, says):
    with pytest.raises(DealingError) as raised:
        Dealing(fix)
    assert says in str(raised.value) and "\n" not in str(raised.value), str(raised.value)


@pytest.mark.parametrize("fix, where, says", [
    ((), "jacks(forehand) >= 3 and jacks(middlehand) >= 2", "no deal meets the condition"),
    ((), "jacks(forehand) > 4", "(every deal counted)"),
    (["forehand=CJ SJ HJ"], "jacks(forehand) <= 2", "no deal with the fixed cards meets"),
    (["skat=CJ SJ"], "has(forehand, 'CJ')", "no deal with the fixed cards meets"),
    ((), "eval('jack_count', forehand, 'grand') > 4", "no deal in 1,048,576 tries meets"),
    ((), "eval('jack_count', forehand, 'grand') + eval('jack_count', middlehand, 'grand') >= 5",
     "impossible, or met by fewer than about one deal in 1,048,576"),
])
def test_a_condition_no_deal_meets_is_refused_quickly(fix, where, says):
    began = time.perf_counter()
    with pytest.raises(DealingError) as raised:
        Dealing(fix, where, evaluators=EVALUATORS)
    assert says in str(raised.value) and "\n" not in str(raised.value), str(raised.value)
    assert time.perf_counter() - began < 10


def test_a_mistake_in_the_condition_is_a_dealing_error_naming_its_column():
    with pytest.raises(DealingError, match=r"column 7: unknown seat 'forhand'"):
        Dealing((), "jacks(forhand) >= 3")
    with pytest.raises(DealingError, match=r"unknown evaluator 'jack_count' \(known: none\)"):
        Dealing((), "eval('jack_count', forehand, 'grand') >= 3")
