"""Speed figures of skatsim, one JSON object per line.

    python scripts/bench.py            # full sizes, median of several runs each
    python scripts/bench.py --quick    # small sizes, for a smoke run
    python scripts/bench.py --only random_play --only default_profile

Each line has ``name``, ``deals``, ``seconds`` (median), ``deals_per_s``, ``runs`` and ``compile_seconds``
(:func:`measure`), and what else its benchmark says. Benchmark ``name`` is the function ``bench_<name>``,
whose docstring says what it times (:data:`BENCHMARKS`: its sizes and runs):

- games on one core: ``random_play``, ``default_profile``, ``club_profile``, ``threshold_profile``,
  ``random_profile``, ``conditional_profile``, ``conditional_eval_profile``, ``python_player``, ``batch_player``
- PIMC card play on one core: ``pimc_deal``, ``pimc_solved_deal``, ``pimc_decisions``, ``pimc_solved_decisions``
- the open-hand solver on one core: ``solve_full_deal``, ``solve_win_full_deal``
- ``skatsim simulate``: ``simulate_1m``, ``simulate_1m_threshold``, ``simulate_1m_club``,
  ``simulate_1m_conditional``, ``simulate_1m_scored``, ``simulate_jobs_1``, ``simulate_jobs_2``,
  ``simulate_open_hand``
- a first run, compiling every kernel (not in ``--quick``): ``first_run``, ``first_run_jobs_1``, ``first_run_club``
- other commands: ``analyze_10m``, ``analyze_declare``, ``train_card_play``, ``import_iss``, ``import_iss_jobs_1``
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from bench_searches import (
    CLUB,
    DecisionStats,
    SolveTimes,
    bench_pimc_decisions,
    bench_pimc_solved_decisions,
    bench_solve_full_deal,
    bench_solve_win_full_deal,
    decision_stats,
    solve_stats,
)

from sim.rules.random_play import random_games


def bench_random_play(deals: int):
    """Complete random deals on one core: deal, random declarer and game, ten tricks, scoring."""
    return lambda: random_games(seed=1, start=0, count=deals)


def _profile_games(name: str, settings=()):
    from strategies import load_profile, play_deals

    profile = load_profile(name, list(settings))
    return lambda deals: (lambda: play_deals(profile, seed=1, start=0, count=deals))


def bench_default_profile(deals: int):
    """Complete games with the default profile (learned card play) on one core: auction, skat,
    declaration, play, result."""
    return _profile_games("default")(deals)


def bench_club_profile(deals: int):
    """Complete games with the club profile (calibrated bidding, heuristic card play) on one core."""
    return _profile_games(CLUB)(deals)


def bench_threshold_profile(deals: int):
    """Complete games with the threshold profile (rule-of-thumb bidding) on one core."""
    return _profile_games("threshold")(deals)


def bench_pimc_deal(deals: int):
    """Whole deals with PIMC card play at every seat (its defaults: 60 worlds played out), one core; the
    auction and declarations of the threshold profile. ``seconds`` / ``deals`` is the time per deal."""
    return _profile_games("threshold", ["card_play=pimc"])(deals)


def bench_pimc_solved_deal(deals: int):
    """``pimc_deal`` with ``pimc_solved`` at every seat: 10 worlds, inference, each solved open-handed."""
    return _profile_games("threshold", ["card_play=pimc_solved"])(deals)


#: Conditions of the conditional benchmarks: counted cards, met by 1.2% of deals, and an evaluator's
#: score, met by about 1.05%.
COUNTED = "jacks(forehand) >= 3 and aces(forehand) >= 2 and tens(forehand) >= 1"
SCORED = "eval('trump_length', forehand, 'clubs') >= 8.5"


def _conditional_games(where: str):
    """Complete games with the club profile on one core, dealt only where ``where`` holds."""
    from sim.runs.conditional import cached_dealing, run_dealing
    from strategies import load_profile, play_deals

    profile, dealing = load_profile(CLUB), cached_dealing(run_dealing((), where))
    return lambda deals: (lambda: play_deals(profile, seed=1, start=0, count=deals,
                                             deals=dealing.deals(1, 0, deals)))


def bench_conditional_profile(deals: int):
    """``club_profile`` dealing only deals that meet a condition of counted cards met by 1.2% of deals
    (:data:`COUNTED`, drawn directly), the dealing included."""
    return _conditional_games(COUNTED)(deals)


def bench_conditional_eval_profile(deals: int):
    """``club_profile`` dealing only deals that meet a condition of an evaluator's score met by 1.05% of deals
    (:data:`SCORED`, by rejection), the dealing included."""
    return _conditional_games(SCORED)(deals)


def bench_random_profile(deals: int):
    """Complete games with the random profile (default bidding, random cards) on one core."""
    return _profile_games("random")(deals)


def _python_players():
    """Register the lowest-winner rule twice: a plain-Python player (one call a decision, reading the view)
    and the same rule over a batch in numpy, as docs/python-players.md writes them."""
    from strategies import BatchCardPlayer, CardPlayer, names, register

    if "bench_lowest_winner" in names("card_play"):
        return

    @register("card_play", "bench_lowest_winner")
    class LowestWinner(CardPlayer):
        """The lowest legal card that wins the trick, else the lowest legal card."""

        def play(self, view):
            winners = [card for card in view.legal if view.wins(card)]
            return view.lowest(winners or view.legal)

    @register("card_play", "bench_lowest_winner_batch")
    class LowestWinnerBatch(BatchCardPlayer):
        """The same rule over a batch, in numpy."""

        def play_batch(self, views):
            legal = views.legal_cards()
            winners = legal & views.winning_cards()
            chosen = np.where(winners.any(axis=1, keepdims=True), winners, legal)
            return np.where(chosen, views.ranking(), np.iinfo(np.int64).max).argmin(axis=1)


def bench_python_player(deals: int):
    """Complete games on one core, the threshold profile's bidding, a plain-Python card player at every seat
    (one call a decision: the lowest legal card that wins the trick, else the lowest)."""
    _python_players()
    return _profile_games("threshold", ["card_play=bench_lowest_winner"])(deals)


def bench_batch_player(deals: int):
    """``python_player`` with the same rule written in numpy over a batch of decisions."""
    _python_players()
    return _profile_games("threshold", ["card_play=bench_lowest_winner_batch"])(deals)


def _simulate(jobs: int | None, profile: str = "default", *options: str):
    """``skatsim simulate`` of ``profile`` with ``options`` on ``jobs`` processes (None: every core), in a
    process of its own, with its usage (:class:`Usage`)."""
    def make(deals: int):
        def run():
            with tempfile.TemporaryDirectory() as folder:
                command = [sys.executable, "-m", "sim.commands.cli", "simulate", "--deals", str(deals),
                           "--profile", profile, "--out", str(Path(folder) / "run"), *options]
                if jobs:
                    command += ["--jobs", str(jobs)]
                return _peak_rss_mb(command)
        return run
    return make


#: Runs a command and prints the peak resident memory (KB) of its largest process. A small
#: go-between is needed: a child forked straight from this process would count this
#: process's own memory, inherited at the fork.
_MEASURE = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
            "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
            "used = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print(used.ru_maxrss, used.ru_utime + used.ru_stime)")


@dataclass(frozen=True)
class Usage:
    """What a command used: the peak resident memory of its largest process (MB) and the processor
    seconds of all its processes (on a loaded machine a steadier figure than the wall time)."""

    peak_rss_mb: float
    cpu_seconds: float


def _peak_rss_mb(command, env=None) -> Usage:
    """Run ``command``; the peak memory of its largest process (workers included) and its processor time."""
    out = subprocess.run([sys.executable, "-c", _MEASURE, *command], check=True,
                         capture_output=True, text=True, env=env).stdout
    peak, seconds = out.split()[-2:]
    return Usage(int(peak) / 1024, float(seconds))


def bench_simulate_1m(deals: int):
    """The whole command, ``skatsim simulate`` of the default profile on every core, with the peak memory of its
    largest process (``peak_rss_mb``; each of the two workers and the main process stays under it) and the
    processor seconds of all its processes (``cpu_seconds``, median)."""
    return _simulate(None)(deals)


def bench_simulate_1m_threshold(deals: int):
    """``simulate_1m`` with the threshold profile (rule-of-thumb bidding)."""
    return _simulate(None, "threshold")(deals)


def bench_simulate_1m_club(deals: int):
    """``simulate_1m`` with the club profile (heuristic card play)."""
    return _simulate(None, CLUB)(deals)


def bench_simulate_1m_conditional(deals: int):
    """``simulate_1m_club`` dealing only where :data:`COUNTED` holds (``--where``)."""
    return _simulate(None, CLUB, "--where", COUNTED)(deals)


def bench_simulate_1m_scored(deals: int):
    """``simulate_1m_club`` dealing only where :data:`SCORED` holds (``--where``)."""
    return _simulate(None, CLUB, "--where", SCORED)(deals)


def bench_simulate_jobs_1(deals: int):
    """``simulate_1m_club`` on one process (``--jobs 1``): with ``simulate_jobs_2``, the scaling."""
    return _simulate(1, CLUB)(deals)


def bench_simulate_jobs_2(deals: int):
    """``simulate_1m_club`` on two processes (``--jobs 2``): with ``simulate_jobs_1``, the scaling."""
    return _simulate(2, CLUB)(deals)


def bench_simulate_open_hand(deals: int):
    """The club profile's ``skatsim simulate --open-hand`` on every core: each declared game also solved
    from its first lead."""
    return _simulate(None, CLUB, "--open-hand", "--chunk-size", "250")(deals)


def _first_run(jobs: int | None, profile: str = "default"):
    """``skatsim simulate`` on an empty numba cache of its own: a first run after installing, compile and all."""
    def make(deals: int):
        def run():
            with tempfile.TemporaryDirectory() as folder:
                command = [sys.executable, "-m", "sim.commands.cli", "simulate", "--deals", str(deals),
                           "--profile", profile, "--out", str(Path(folder) / "run")]
                command += ["--jobs", str(jobs)] if jobs else []
                return _peak_rss_mb(command, {**os.environ, "NUMBA_CACHE_DIR": str(Path(folder) / "kernels")})
        return run
    return make


def bench_first_run(deals: int):
    """``skatsim simulate`` of the default profile on every core with an empty numba cache of its own, as
    the first run after installing, with its peak memory and the processor seconds of all its processes.
    Each run compiles every kernel: left out of ``--quick`` (unless asked for) and not warmed up."""
    return _first_run(None)(deals)


def bench_first_run_jobs_1(deals: int):
    """``first_run`` on one process (``--jobs 1``)."""
    return _first_run(1)(deals)


def bench_first_run_club(deals: int):
    """``first_run`` with the club profile."""
    return _first_run(None, CLUB)(deals)


def bench_analyze_10m(rows: int):
    """The full report of a run of ``rows`` deals (ten million at full size), resampled from a real
    20,000-deal default run, made by ``skatsim analyze`` in its own process, with its peak memory and
    processor seconds. The run is built before the clock starts (and kept for the repeated runs); the
    ``compile_seconds`` are the report of the 20,000-deal run."""
    from analysis import enlarge_run
    from sim.runs.simulation import simulate

    folder = Path(tempfile.mkdtemp(prefix="skatsim-bench-analyze-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    small = simulate(20_000, seed=1, out=folder / "small", jobs=1, chunk_size=20_000)
    big = small if rows <= 20_000 else enlarge_run(small, folder / "big", rows)
    return _analyzing(big, folder)


def bench_analyze_declare(deals: int):
    """``analyze_10m`` of a declare-mode run of every variant (42 rows a deal: 21 million rows at full size)
    of ``deals`` deals, resampled from a real 10,000-deal run of the threshold profile; the run is built
    before the clock starts."""
    from analysis import enlarge_run
    from sim.runs.simulation import simulate

    folder = Path(tempfile.mkdtemp(prefix="skatsim-bench-analyze-declare-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    small = simulate(min(deals, 10_000), seed=1, profile="threshold", mode="declare", variants="all",
                     out=folder / "small", jobs=1, chunk_size=10_000)
    big = small if deals <= 10_000 else enlarge_run(small, folder / "big", 42 * deals, rows_per_part=4_200_000)
    return _analyzing(big, folder)


def _analyzing(run_folder: Path, folder: Path):
    """A call of ``skatsim analyze`` of the run, with its usage."""

    def run():
        report = folder / "report"
        shutil.rmtree(report, ignore_errors=True)
        return _peak_rss_mb([sys.executable, "-m", "sim.commands.cli", "analyze", str(run_folder),
                             "--out", str(report)])

    return run


def bench_train_card_play(deals: int):
    """``skatsim train card-play``: one network of the learned card player fitted to a decision run of
    ``deals`` deals of the rollout teacher (the default profile, made once before timing), with its peak
    memory and processor seconds."""
    folder = Path(tempfile.mkdtemp(prefix="skatsim-bench-train-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    cli = [sys.executable, "-m", "sim.commands.cli"]
    subprocess.run([*cli, "decisions", "--deals", str(deals), "--seed", "9", "--profile", "default", "--teacher",
                    "rollout", "--jobs", "1", "--out", str(folder / "run")], check=True, capture_output=True)
    return lambda: _peak_rss_mb([*cli, "train", "card-play", str(folder / "run"), "--networks", "1",
                                 "--out", str(folder / "model.npz")])


def _import_iss(jobs: int):
    """``import_iss`` on ``jobs`` processes."""
    def make(records: int):
        from sim.imports.iss.archive import import_archives
        from sim.imports.iss.sample import constructed_games, profile_lines

        folder = Path(tempfile.mkdtemp(prefix="skatsim-bench-iss-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        archive = folder / "archive.txt"
        lines = profile_lines(count=records - records // 100)
        lines += [c.line for c in constructed_games(count=records // 100)]
        archive.write_text("\n".join(lines) + "\n", encoding="utf-8")
        chunk = max(1, -(-records // (2 * jobs)))  # two parts per process

        def run():
            out = folder / "run"
            shutil.rmtree(out, ignore_errors=True)
            imported = import_archives([archive], out, jobs=jobs, chunk_size=chunk)
            assert imported.games >= records - records // 50, "the import lost games"

        return run
    return make


def bench_import_iss(records: int):
    """Import a generated ISS archive of ``records`` lines (``deals`` in its figures) on two processes:
    read, check every game with the engine, score it, compare with the archive's result, evaluate every
    hand and write the run. The archive is generated before timing (engine games of the default profile,
    1% constructed ones with early ends); the import runs in this process, whose workers the first,
    small call has started."""
    return _import_iss(2)(records)


def bench_import_iss_jobs_1(records: int):
    """``import_iss`` on one process."""
    return _import_iss(1)(records)


BENCHMARKS = {
    "random_play": (bench_random_play, 1_000_000, 20_000, 5),
    "default_profile": (bench_default_profile, 200_000, 10_000, 5),
    "club_profile": (bench_club_profile, 200_000, 10_000, 5),
    "threshold_profile": (bench_threshold_profile, 200_000, 10_000, 5),
    "random_profile": (bench_random_profile, 200_000, 10_000, 5),
    "conditional_profile": (bench_conditional_profile, 200_000, 10_000, 5),
    "conditional_eval_profile": (bench_conditional_eval_profile, 200_000, 10_000, 5),
    "python_player": (bench_python_player, 20_000, 1_000, 5),
    "batch_player": (bench_batch_player, 100_000, 5_000, 5),
    "pimc_deal": (bench_pimc_deal, 200, 4, 3),
    "pimc_solved_deal": (bench_pimc_solved_deal, 200, 4, 3),
    "pimc_decisions": (bench_pimc_decisions, 100, 3, 1),
    "pimc_solved_decisions": (bench_pimc_solved_decisions, 100, 3, 1),
    "simulate_1m": (bench_simulate_1m, 1_000_000, 20_000, 3),
    "simulate_1m_threshold": (bench_simulate_1m_threshold, 1_000_000, 20_000, 3),
    "simulate_1m_club": (bench_simulate_1m_club, 1_000_000, 20_000, 3),
    "simulate_1m_conditional": (bench_simulate_1m_conditional, 1_000_000, 20_000, 3),
    "simulate_1m_scored": (bench_simulate_1m_scored, 1_000_000, 20_000, 3),
    "simulate_jobs_1": (bench_simulate_jobs_1, 400_000, 20_000, 3),
    "simulate_jobs_2": (bench_simulate_jobs_2, 400_000, 20_000, 3),
    "simulate_open_hand": (bench_simulate_open_hand, 2_000, 40, 3),
    "analyze_10m": (bench_analyze_10m, 10_000_000, 20_000, 3),
    "analyze_declare": (bench_analyze_declare, 500_000, 2_000, 3),
    "first_run": (bench_first_run, 2_000, 2_000, 3),
    "first_run_jobs_1": (bench_first_run_jobs_1, 2_000, 2_000, 3),
    "first_run_club": (bench_first_run_club, 2_000, 2_000, 3),
    "train_card_play": (bench_train_card_play, 10_000, 300, 3),
    "import_iss": (bench_import_iss, 200_000, 400, 5),
    "import_iss_jobs_1": (bench_import_iss_jobs_1, 200_000, 400, 3),
    "solve_full_deal": (bench_solve_full_deal, 1_000, 20, 3),
    "solve_win_full_deal": (bench_solve_win_full_deal, 1_000, 20, 3),
}


#: Left out of ``--quick`` unless asked for with ``--only``, and not warmed up: each run compiles every
#: kernel afresh.
NOT_QUICK = ("first_run", "first_run_jobs_1", "first_run_club")


def measure(name: str, make, deals: int, runs: int, warm: bool = True) -> dict:
    """The benchmark's figures: the median ``seconds`` of ``runs`` runs and ``compile_seconds``, the time of
    a first, small call with ``warm``, which compiles or loads the numba kernels untimed (``--quick``, a smoke
    run, makes no such call and times one run)."""
    start = time.perf_counter()
    if warm:
        make(10)()
    compile_seconds = time.perf_counter() - start
    run = make(deals)
    times, peaks, cpu, outcomes = [], [], [], []
    for _ in range(runs):
        start = time.perf_counter()
        peak = run()
        times.append(time.perf_counter() - start)
        if isinstance(peak, Usage):
            peaks.append(peak.peak_rss_mb)
            cpu.append(peak.cpu_seconds)
        elif isinstance(peak, (SolveTimes, DecisionStats)):
            outcomes.append(peak)
    seconds = statistics.median(times)
    result = {"name": name, "deals": deals, "seconds": round(seconds, 4),
              "deals_per_s": round(deals / seconds), "runs": runs,
              "compile_seconds": round(compile_seconds, 3)}
    if peaks:
        result["peak_rss_mb"] = round(max(peaks))
        result["cpu_seconds"] = round(statistics.median(cpu), 2)
    if outcomes and isinstance(outcomes[0], DecisionStats):
        result.update(decision_stats(outcomes))
    elif outcomes:
        result.update(solve_stats(outcomes))
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes and one run each, for a smoke run")
    parser.add_argument("--only", choices=sorted(BENCHMARKS), action="append",
                        help="run only this benchmark (may be given more than once)")
    args = parser.parse_args(argv)
    for name in args.only or [name for name in BENCHMARKS if not (args.quick and name in NOT_QUICK)]:
        make, full, quick, runs = BENCHMARKS[name]
        warm = not args.quick and name not in NOT_QUICK   # a first run compiles in every run: nothing to warm up
        result = measure(name, make, quick if args.quick else full, 1 if args.quick else runs, warm)
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
