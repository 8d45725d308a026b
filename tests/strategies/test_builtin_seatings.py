"""Tables of built-in players play in the cached loop the games the general loop plays with their kernels.

The cached loop calls the heuristic, learned and random players straight and the others through
``builtin_card``; whichever way a seat is asked, its cards and random draws are those of its own kernel.
"""

import numpy as np
import pytest

from sim.rules.deal import deal_batch
from sim.rules.play import TRICK_LOG_SIZE
from sim.rules.scoring import RESULT_COLUMNS
from strategies import load_profile
from strategies.cardplay.policy import seats_of
from strategies.deals import declare, declared_matrix, play_and_score, play_batch, run_auctions

SEED, COUNT = 7, 400


def declared_deals(profile):
    deals = deal_batch(SEED, 0, COUNT)
    plans = [s.bidder.plan(deals[:, i], i) for i, s in enumerate(profile.seats)]
    declarer, bid = run_auctions(np.stack([p.max_bid for p in plans], axis=1))
    return deals, declarer, bid, declare(profile, deals, plans, declarer, bid)


@pytest.mark.parametrize("settings", [
    [],
    ["card_play.deviation=0.3"],
    ["forehand.card_play=learned", "middlehand.card_play=random", "rearhand.card_play.deviation=0.2"],
    ["forehand.card_play=random", "middlehand.card_play=random", "rearhand.card_play=learned"],
])
def test_built_in_tables_play_the_general_loops_games(settings):
    profile = load_profile("club", settings)
    deals, declarer, bid, decl = declared_deals(profile)
    ids = np.arange(COUNT, dtype=np.int64)
    results, logs = play_and_score(profile, seed=SEED, deal_ids=ids, deals=deals, declarer=declarer, bid=bid, decl=decl)

    policies = [s.card_play for s in profile.seats]
    assert all(p.builtin is not None for p in policies)
    want_results = np.zeros((COUNT, len(RESULT_COLUMNS)), dtype=np.int64)
    want_logs = np.full((COUNT, TRICK_LOG_SIZE), -1, dtype=np.int8)
    play_batch(np.uint64(SEED), ids, np.ascontiguousarray(deals), declared_matrix(declarer, bid, decl),
               *(p.function for p in policies), seats_of(policies).params, seats_of(policies).data, want_results,
               want_logs)
    assert (logs == want_logs).all() and (results == want_results).all()
    assert (logs[declarer >= 0, 0] >= 0).all()
