"""Tables where every seat plays the heuristic take a direct play loop; its games are the built-in loop's."""

import numpy as np
import pytest

from sim.rules.deal import deal_batch
from sim.rules.play import TRICK_LOG_SIZE
from sim.rules.scoring import RESULT_COLUMNS
from strategies import load_profile
from strategies.cardplay.builtin import new_workspace
from strategies.deals import declare, play_and_score, play_batch_builtin, run_auctions


@pytest.mark.parametrize("settings", [[], ["card_play.deviation=0.3"]])
def test_heuristic_tables_play_the_built_in_loops_games(settings):
    profile = load_profile("default", settings)
    seed, count = 7, 400
    deals = deal_batch(seed, 0, count)
    plans = [s.bidder.plan(deals[:, i], i) for i, s in enumerate(profile.seats)]
    declarer, bid = run_auctions(np.stack([p.max_bid for p in plans], axis=1))
    decl = declare(profile, deals, plans, declarer, bid)
    ids = np.arange(count, dtype=np.int64)
    results, logs = play_and_score(profile, seed, ids, deals, declarer, bid, decl)

    params = np.stack([s.card_play.param_row() for s in profile.seats])
    declared = np.stack([declarer, bid, decl.game, decl.hand, decl.schneider, decl.schwarz, decl.ouvert,
                         decl.skat, decl.discarded], axis=1).astype(np.int64)
    want_results = np.zeros((count, len(RESULT_COLUMNS)), dtype=np.int64)
    want_logs = np.full((count, TRICK_LOG_SIZE), -1, dtype=np.int8)
    play_batch_builtin(np.uint64(seed), ids, np.ascontiguousarray(deals), declared, params, want_results,
                       want_logs, *new_workspace(8))
    assert (logs == want_logs).all() and (results == want_results).all()
    assert (logs[declarer >= 0, 0] >= 0).all()
