"""The searches' benchmarks of scripts/bench.py: the open-hand solver deal by deal, and PIMC decision by
decision, with what each search did (nodes, worlds, play-outs) beside its time."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

#: The profile of the benchmarks that measure a mechanism (conditional dealing, the scaling over
#: processes, open-hand solving) rather than the main job: the heuristic card player's, so that their
#: figures compare with the earlier ones.
CLUB = "club"


def _declared_deals(deals: int):
    """Play states from the first lead and the declarer's unplayed cards of the first ``deals``
    played deals of seed 1, declared as the club profile declares them."""
    from sim.rules.tricks import new_play
    from strategies import load_profile, play_deals

    columns = play_deals(load_profile(CLUB), seed=1, start=0, count=2 * deals + 10)
    rows = np.flatnonzero(columns["declarer"] >= 0)[:deals]
    states, skats, games = [], [], []
    for i in rows:
        declarer, game = int(columns["declarer"][i]), int(columns["game"][i])
        hands = [int(columns[f"hand_{s}"][i]) for s in "fmr"]
        skat, discard = int(columns["skat"][i]), int(columns["discard"][i])
        if not columns["hand"][i]:
            hands[declarer] = (hands[declarer] | skat) & ~discard
            skat = discard
        states.append(new_play(*hands, game, declarer))
        skats.append(skat)
        games.append(game)
    return np.stack(states), np.array(skats, dtype=np.int64), np.array(games)


@dataclass
class SolveTimes:
    """What one run of a solver benchmark measured, deal by deal."""

    micros: np.ndarray
    nodes: np.ndarray
    games: np.ndarray


def _solve_deals(question: str):
    """Per-deal solve times on one core; each run starts with a fresh table and reuses it
    across its deals, as a run of many deals would."""
    def make(deals: int):
        from sim import solver
        from sim.rules.games import NULL

        states, skats, games = _declared_deals(deals)
        stack = solver.new_stack()

        def run():
            table = solver.new_transpositions()
            micros, nodes = np.empty(len(states)), np.empty(len(states), dtype=np.int64)
            for k in range(len(states)):
                start = time.perf_counter()
                if question == "value" or games[k] == NULL:
                    solver.open_hand_value(states[k], skats[k], table, stack)
                else:
                    solver.declarer_reaches(states[k], skats[k], 61, table, stack)
                micros[k] = (time.perf_counter() - start) * 1e6
                nodes[k] = stack[solver.NODES, 0]
            return SolveTimes(micros, nodes, games)
        return run
    return make


def solve_stats(outcomes: list[SolveTimes]) -> dict:
    """Median per deal over the runs, then its distribution overall and by game type (median, mean, 95th
    percentile and largest microseconds, and the nodes searched), and the slowest deal."""
    from sim.rules.games import GAME_NAMES, GRAND, NULL

    micros = np.median(np.stack([o.micros for o in outcomes]), axis=0)
    nodes, games = outcomes[0].nodes, outcomes[0].games
    kinds = {"all": games >= 0, "suit": games < GRAND, "grand": games == GRAND, "null": games == NULL}
    stats = {}
    for kind, rows in kinds.items():
        if rows.any():
            t = micros[rows]
            stats[kind] = {"deals": int(rows.sum()), "median_us": round(float(np.median(t))),
                           "mean_us": round(float(t.mean())), "p95_us": round(float(np.percentile(t, 95))),
                           "max_us": round(float(t.max())), "median_nodes": int(np.median(nodes[rows])),
                           "mean_nodes": round(float(nodes[rows].mean())), "max_nodes": int(nodes[rows].max())}
    slowest = int(np.argmax(micros))
    stats["slowest"] = {"deal": slowest, "game": GAME_NAMES[games[slowest]], "us": round(float(micros[slowest])),
                        "nodes": int(nodes[slowest])}
    return stats


def bench_solve_full_deal(deals: int):
    """Exact open-hand value of the club profile's declared deals from the first lead (suit and grand: the
    declarer's points; null: won or lost), deal by deal, one core; overall and per game type, the median,
    mean, 95th percentile and largest microseconds per deal (each deal's median over the runs) and the
    nodes searched, and the slowest deal (:func:`solve_stats`)."""
    return _solve_deals("value")(deals)


def bench_solve_win_full_deal(deals: int):
    """``solve_full_deal`` asking only the win question from the first lead (61 points; null: no trick)."""
    return _solve_deals("win")(deals)


@dataclass
class DecisionStats:
    """What one run of the PIMC decision benchmark measured, decision by decision."""

    micros: np.ndarray
    counts: np.ndarray        # rows: worlds solved, solver calls, nodes, candidate worlds drawn


def bench_pimc_decisions(deals: int, player: str = "pimc"):
    """Every PIMC decision with a choice of the solver benchmark's declared deals from the first lead
    (default parameters, PIMC at every seat, one core), per decision: the worlds valued, the play-outs
    (``solver_calls``: the worlds and cards valued, plus the solver's searches of the last tricks with
    ``solve_last``), nodes and the time (:func:`decision_stats`)."""
    from sim.rules.cards import popcount
    from sim.rules.tricks import STATE, legal_now, play_card, to_play
    from sim.rules.view import VIEW, seat_view, set_declaration
    from strategies.cardplay.heuristic import choose_among
    from strategies.cardplay.pimc import STATS, pimc_search
    from strategies.cardplay.table import new_workspace
    from strategies.registry import build

    states, skats, _ = _declared_deals(deals)
    policy = build("card_play", player)
    params, data = np.asarray(policy.params), np.zeros(0, np.float32) if policy.data is None else policy.data

    def run():
        tt, stack = new_workspace()
        view = np.zeros(VIEW.size, dtype=np.int64)
        micros, counts, rng = [], [], np.uint64(1)
        for k in range(len(states)):
            state = states[k].copy()
            set_declaration(view, 0, 0, 0, 0, 18)
            while not state[STATE.finished]:
                legal = legal_now(state)
                seat_view(state, to_play(state), skats[k], view)
                stats = np.zeros(STATS, dtype=np.int64)
                start = time.perf_counter()
                # numba hands the stream back as a Python int, which past 2**63 it would not take again
                rng, best = pimc_search(view, legal, params, data, np.uint64(rng), tt, stack, stats)
                card = choose_among(view, best)
                if popcount(legal) > 1:
                    micros.append((time.perf_counter() - start) * 1e6)
                    counts.append(stats.copy())
                play_card(state, card)
        return DecisionStats(np.array(micros), np.array(counts).T)
    return run


def bench_pimc_solved_decisions(deals: int):
    """``pimc_decisions`` with ``pimc_solved`` at every seat: its solver calls and their nodes."""
    return bench_pimc_decisions(deals, "pimc_solved")


def decision_stats(outcomes: list[DecisionStats]) -> dict:
    """Per-decision figures of the last run: worlds, solver calls, nodes, time."""
    last = outcomes[-1]
    worlds, calls, nodes, _ = last.counts
    return {"decisions": len(last.micros),
            "worlds": {"mean": round(float(worlds.mean()), 2), "median": float(np.median(worlds)),
                       "max": int(worlds.max()), "at_most_share": round(float((worlds == worlds.max()).mean()), 3)},
            "solver_calls": {"mean": round(float(calls.mean()), 1), "median": float(np.median(calls))},
            "nodes": {"mean": round(float(nodes.mean())), "median": float(np.median(nodes))},
            "us": {"mean": round(float(last.micros.mean())), "median": round(float(np.median(last.micros))),
                   "p95": round(float(np.percentile(last.micros, 95)))}}


#: Each benchmark's name: its function, its size (deals) at full size and with ``--quick``, and its runs.
