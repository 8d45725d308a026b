"""The condition language: what it reads, how it writes it back, what it refuses (every mistake named
by its column), and the features' values against a count of the cards by hand."""

import numpy as np
import pytest

from sim.rules.cards import CARD_POINTS, cards_of
from sim.rules.conditions import (
    MAX_DEPTH,
    MAX_LENGTH,
    ConditionError,
    HandValues,
    condition_text,
    conjuncts,
    counts_cards,
    evaluate,
    parse,
)
from sim.rules.shuffle import deal_batch

EVALUATORS = ("trump_length", "grand_rule")


@pytest.mark.parametrize("text, written", [
    ("jacks(forehand) >= 3 and length(forehand, 'C') >= 4", "jacks(forehand) >= 3 and length(forehand, 'C') >= 4"),
    ("has(middlehand, CJ) and not has(middlehand, \"SJ\")", "has(middlehand, 'CJ') and not has(middlehand, 'SJ')"),
    ("1 <= aces(rearhand) <= 2 or points(skat) >= 10", "1 <= aces(rearhand) <= 2 or points(skat) >= 10"),
    ("eval(trump_length, forehand, GRAND) >= 5.5", "eval('trump_length', forehand, 'grand') >= 5.5"),
    ("(jacks(forehand) + jacks(skat)) * 2 >= -3 - -1", "(jacks(forehand) + jacks(skat)) * 2 >= -3 - -1"),
    ("trumps(Forehand, clubs) >= 7 or trumps(forehand, 'grand') == 4 and tens(skat) != 0",
     "trumps(forehand, 'C') >= 7 or trumps(forehand, 'grand') == 4 and tens(skat) != 0"),
    ("(has(skat, 'H10') or has(skat, 'HT')) and length(rearhand, hearts) == 0",
     "(has(skat, 'H10') or has(skat, 'H10')) and length(rearhand, 'H') == 0"),
    ("not (jacks(forehand) == 4)", "not jacks(forehand) == 4"),
])
def test_a_condition_is_read_and_written_back_the_one_way(text, written):
    node = parse(text, EVALUATORS)
    assert condition_text(node) == written
    assert condition_text(parse(written, EVALUATORS)) == written


def test_and_binds_tighter_than_or_and_a_top_and_splits_into_its_parts():
    node = parse("jacks(forehand) >= 1 or jacks(middlehand) >= 1 and aces(skat) == 1")
    assert [condition_text(c) for c in conjuncts(node)] == [condition_text(node)]
    node = parse("(jacks(forehand) >= 1 or jacks(middlehand) >= 1) and aces(skat) == 1 and eval(trump_length,"
                 " rearhand, null) > 0", EVALUATORS)
    parts = conjuncts(node)
    assert [condition_text(c) for c in parts][1:] == ["aces(skat) == 1", "eval('trump_length', rearhand, 'null') > 0"]
    assert [counts_cards(c) for c in parts] == [True, True, False]


@pytest.mark.parametrize("text, column, says", [
    ("jakcs(forehand) >= 3", 1, "unknown name 'jakcs'"),
    ("jacks(forhand) >= 3", 7, "unknown seat 'forhand'"),
    ("length(forehand, 'X') >= 3", 18, "unknown suit 'X'"),
    ("has(forehand, 'C11')", 15, "unknown card 'C11'"),
    ("eval('nosuch', forehand, grand) > 1", 6, "unknown evaluator 'nosuch' (known: grand_rule, trump_length)"),
    ("eval(trump_length, skat, grand) > 1", 20, "not the skat"),
    ("eval(trump_length, forehand, ramsch) > 1", 30, "unknown game 'ramsch'"),
    ("trumps(forehand, null) > 1", 18, "null has no trumps"),
    ("jacks(forehand)", 1, "the condition is a number"),
    ("jacks(forehand) and aces(forehand) > 1", 1, "'and' joins conditions, and jacks(forehand) is a number"),
    ("not points(skat)", 5, "'not' joins conditions, and points(skat) is a number"),
    ("has(skat, CJ) > 0", 1, "'>' compares numbers, and has(skat, 'CJ') is a condition"),
    ("has(skat, CJ) + 1 > 0", 1, "'+' takes numbers"),
    ("-has(skat, CJ)", 2, "'-' takes a number"),
    ("jacks(forehand) = 3", 17, "'=' is no comparison; write =="),
    ("jacks(forehand) >= 3 jacks", 22, "expected and, or or the end"),
    ("length(forehand) > 1", 16, "expected ',' and SUIT (length(SEAT, SUIT))"),
    ("jacks(forehand, skat) > 1", 15, "expected ')' after the arguments of jacks(SEAT)"),
    ("jacks(3) > 1", 7, "expected SEAT (jacks(SEAT)), found '3'"),
    ("(jacks(forehand) > 1", 21, "expected ')', found the end"),
    ("jacks(forehand) > 1234567890123", 19, "more than 12 digits"),
    ("", 1, "the condition is empty"),
    ("  ", 1, "the condition is empty"),
])
def test_every_mistake_is_one_line_naming_its_column(text, column, says):
    with pytest.raises(ConditionError) as raised:
        parse(text, EVALUATORS)
    message = str(raised.value)
    assert raised.value.column == column and says in message, message
    assert "\n" not in message and f"column {column}:" in message


@pytest.mark.parametrize("text, column", [
    ("forehand.__class__", 1),                          # attribute access
    ("jacks(forehand).__class__ > 0", 16),
    ("__import__('os').system('true')", 1),            # calling another name, an import, a dunder name
    ("import os", 1),
    ("open('/etc/passwd') == 1", 1),
    ("__builtins__ == 1", 1),
    ("lambda: jacks(forehand) > 1", 1),                # a lambda
    ("[x for x in jacks(forehand)] == 1", 1),           # comprehensions, sets, dictionaries
    ("{1: 2} == 1", 1),
    ("9 ** 9 ** 9 ** 9 > 1", 3),                       # a huge power
    ("jacks(forehand) >= 3; import os", 21),
    ("jacks(forehand) >= 3 # comment", 22),
    ("'CJ' == 'CJ'", 1),
    ("f'{1}' == 1", 1),
    ("jacks(forehand) if 1 else 2", 17),
])
def test_the_usual_escapes_are_refused_where_they_start(text, column):
    with pytest.raises(ConditionError) as raised:
        parse(text, EVALUATORS)
    assert raised.value.column == column, str(raised.value)


def test_a_very_long_or_deeply_nested_condition_is_refused_at_once():
    long = " or ".join(["jacks(forehand) >= 1"] * 60)
    assert len(long) > MAX_LENGTH
    with pytest.raises(ConditionError, match=f"at most {MAX_LENGTH:,}"):
        parse(long)
    deep = "(" * (MAX_DEPTH + 5) + "jacks(skat) > 0" + ")" * (MAX_DEPTH + 5)
    with pytest.raises(ConditionError, match=f"nested more than {MAX_DEPTH} deep"):
        parse(deep)
    with pytest.raises(ConditionError, match="nested"):
        parse("not " * 200 + "has(skat, CJ)")
    with pytest.raises(ConditionError, match="nested"):
        parse("-" * 200 + "1 > 0")
    assert condition_text(parse("(" * 20 + "jacks(skat) > 0" + ")" * 20)) == "jacks(skat) > 0"


def test_a_condition_that_is_not_a_text_is_refused():
    with pytest.raises(ConditionError, match="a condition is a text"):
        parse(["jacks(forehand) > 1"])


def _by_hand(hand: int, count) -> int:
    return sum(count(card) for card in cards_of(hand))


def test_the_features_count_the_cards_as_the_rules_do():
    deals = deal_batch(3, 0, 300)
    values = HandValues(deals)
    parts = ("forehand", "middlehand", "rearhand", "skat")
    for p, part in enumerate(parts):
        hands = [int(h) for h in deals[:, p]]
        expected = {
            f"jacks({part})": [_by_hand(h, lambda c: c % 8 == 7) for h in hands],
            f"aces({part})": [_by_hand(h, lambda c: c % 8 == 6) for h in hands],
            f"tens({part})": [_by_hand(h, lambda c: c % 8 == 5) for h in hands],
            f"points({part})": [_by_hand(h, lambda c: int(CARD_POINTS[c])) for h in hands],
            f"length({part}, 'S')": [_by_hand(h, lambda c: c // 8 == 2 and c % 8 != 7) for h in hands],
            f"trumps({part}, 'H')": [_by_hand(h, lambda c: c // 8 == 1 or c % 8 == 7) for h in hands],
            f"trumps({part}, 'grand')": [_by_hand(h, lambda c: c % 8 == 7) for h in hands],
        }
        for feature, counted in expected.items():
            assert evaluate(parse(f"{feature} == 0 or {feature} > 0"), values).all()
            for k in range(4):
                assert evaluate(parse(f"{feature} == {k}"), values).tolist() == [n == k for n in counted], feature
        held = evaluate(parse(f"has({part}, 'CJ')"), values)
        assert held.tolist() == [bool(h >> 31 & 1) for h in hands]


def test_eval_reads_the_evaluator_s_score_of_the_seat_for_the_game():
    from strategies.registry import build

    deals = deal_batch(5, 0, 200)
    grand_rule = build("evaluator", "grand_rule")
    scores = grand_rule(deals[:, 1], 1)[:, 4]
    values = HandValues(deals, {"grand_rule": grand_rule})
    met = evaluate(parse("eval(grand_rule, middlehand, grand) >= 6", ["grand_rule"]), values)
    assert met.tolist() == (scores >= 6).tolist() and 0 < met.sum() < len(met)


def test_arithmetic_and_constants_give_one_value_a_row():
    deals = deal_batch(1, 0, 50)
    values = HandValues(deals)
    total = evaluate(parse("points(forehand) + points(middlehand) + points(rearhand) + points(skat) == 120"), values)
    assert total.all() and total.shape == (50,)
    assert evaluate(parse("1 < 2"), values).all() and not evaluate(parse("2 * 3 == 7"), values).any()
    huge = parse("points(forehand) * 999999999999 * 999999999999 * 999999999999 > 0 or jacks(skat) >= 0")
    assert evaluate(huge, values).all()   # no number wraps round
    assert np.array_equal(evaluate(parse("not has(skat, CJ)"), values), deals[:, 3] >> 31 & 1 == 0)
