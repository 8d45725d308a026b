"""The rules discarder keeps the first best pair in card order, scored as its module doc says."""

import numpy as np

from sim.rules.cards import ACE, CARD_POINTS, TEN
from sim.rules.games import NULL
from sim.rules.tricks import NULL_ORDER, TRUMP_MASKS
from strategies.discarding import discard_by_rules, rules_discarder


def _cards(mask):
    return [c for c in range(32) if mask >> c & 1]


def _suits(mask):
    return {c >> 3 for c in _cards(mask)}


def _value(twelve, side, game, a, b, params):
    """The pair's value, term by term as the module doc gives it."""
    points, void, ace, null_height, guarded_ten = params
    pair = 1 << a | 1 << b
    voids = len(_suits(side)) - len(_suits(side & ~pair))
    if game == NULL:
        return null_height * (NULL_ORDER[a & 7] + NULL_ORDER[b & 7]) + void * voids
    rest = twelve & ~pair
    aces = sum((c & 7) == ACE for c in (a, b))
    tens = sum((c & 7) == TEN and rest >> ((c & ~7) + ACE) & 1 for c in (a, b))
    return points * (CARD_POINTS[a] + CARD_POINTS[b]) + void * voids - ace * aces - guarded_ten * tens


def _reference(twelve, game, params):
    side = twelve & ~int(TRUMP_MASKS[game])
    pool = _cards(side) if len(_cards(side)) >= 2 else _cards(twelve)
    best, best_pair = -1e18, 0
    for i, a in enumerate(pool):
        for b in pool[i + 1:]:
            value = _value(twelve, side, game, a, b, params)
            if value > best:
                best, best_pair = value, 1 << a | 1 << b
    return best_pair


def test_rules_discarder_matches_its_rule_for_any_weights():
    rng = np.random.default_rng(11)
    twelves = np.array([sum(1 << int(c) for c in rng.choice(32, 12, replace=False)) for _ in range(300)],
                       dtype=np.uint32)
    for weights in ([1.0, 12.0, 25.0, 3.0, 12.0], rng.uniform(-40, 40, 5).round(1), rng.uniform(-1000, 1000, 5)):
        discarder = rules_discarder(*weights)
        for game in range(NULL + 1):
            got = discarder.discard(twelves, game)
            want = [_reference(int(t), game, discarder.params) for t in twelves]
            assert got.tolist() == want
            assert discard_by_rules(twelves[0], game, discarder.params) == want[0]
