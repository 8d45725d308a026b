"""Speed figures of skatsim, one JSON object per line.

    python scripts/bench.py            # full sizes, median of 5 runs each
    python scripts/bench.py --quick    # small sizes, for a smoke run
    python scripts/bench.py --only random_play

Each line has ``name``, ``deals``, ``seconds`` (median), ``deals_per_s``, the
``runs`` it took the median of and ``compile_seconds`` (the first, compiling call).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.random_play import random_games  # noqa: E402


def bench_random_play(deals: int):
    """Complete random deals on one core: deal, random declarer and game, ten tricks, scoring."""
    return lambda: random_games(seed=1, start=0, count=deals)


BENCHMARKS = {"random_play": (bench_random_play, 1_000_000, 20_000)}


def measure(name: str, make, deals: int, runs: int) -> dict:
    start = time.perf_counter()
    make(10)()
    compile_seconds = time.perf_counter() - start
    run = make(deals)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    seconds = statistics.median(times)
    return {"name": name, "deals": deals, "seconds": round(seconds, 4),
            "deals_per_s": round(deals / seconds), "runs": runs,
            "compile_seconds": round(compile_seconds, 3)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes and 3 runs, for a smoke run")
    parser.add_argument("--only", choices=sorted(BENCHMARKS), action="append",
                        help="run only this benchmark (may be given more than once)")
    args = parser.parse_args(argv)
    for name in args.only or BENCHMARKS:
        make, full, quick = BENCHMARKS[name]
        result = measure(name, make, quick if args.quick else full, 3 if args.quick else 5)
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
