"""Speed of the analysis: the time of a full report of one run.

``bench_analyze(folder)`` times a full report in this process (scripts/bench.py runs
``skatsim analyze`` in a process of its own, to measure its memory too). ``enlarge_run`` builds a
large run for it from a small real one: its deals are drawn again at random
(with replacement) into parts of the same schema, numbered as new deals. Such a
run has realistic columns and value distributions for timing, but it is not a
simulation: use it for benchmarks only.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim.runs.atomic import write_json_atomic
from sim.runs.folder import MANIFEST, part_facts, part_name, write_parquet

from .report import analyze
from .runs import load_run


def bench_analyze(run_folder, out=None) -> float:
    """Seconds for ``analyze([run_folder], out)`` (a temporary folder unless ``out`` is given)."""
    if out is not None:
        return _timed(run_folder, Path(out))
    with tempfile.TemporaryDirectory(prefix="skatsim-bench-") as folder:
        return _timed(run_folder, Path(folder))


def _timed(run_folder, out: Path) -> float:
    start = time.perf_counter()
    analyze([run_folder], out)
    return time.perf_counter() - start


def enlarge_run(source, out, rows: int, *, rows_per_part: int = 100_000, seed: int = 0) -> Path:
    """A run folder of about ``rows`` rows resampled from the deals of the run in ``source``."""
    run, out = load_run(source), Path(out)
    out.mkdir(parents=True, exist_ok=False)
    source_rows = pq.read_table(list(run.parts))
    # declare mode: 3 seats x 6 games a deal, or 3 x 14 variants with --variants all
    per_deal = source_rows.num_rows // max(1, len(set(source_rows.column("deal_id").to_pylist())))
    deals_per_part = max(1, rows_per_part // per_deal)
    parts = -(-rows // (deals_per_part * per_deal))
    rng = np.random.default_rng(seed)
    facts = {}
    for index in range(parts):
        picked = rng.integers(0, source_rows.num_rows // per_deal, deals_per_part)
        rows_taken = (picked[:, None] * per_deal + np.arange(per_deal)).ravel()
        first = index * deals_per_part
        ids = np.repeat(np.arange(first, first + deals_per_part, dtype=np.int64), per_deal)
        part = source_rows.take(pa.array(rows_taken))
        column = part.schema.get_field_index("deal_id")
        part = part.set_column(column, part.schema.field(column), pa.array(ids))
        write_parquet(part, out / part_name(index))
        facts[str(index)] = part_facts(out / part_name(index))
    manifest = json.loads((run.folder / MANIFEST).read_text(encoding="utf-8"))
    manifest["config"].update(deals=parts * deals_per_part, chunk_size=deals_per_part)
    manifest.update(parts=facts)
    write_json_atomic(out / MANIFEST, manifest)
    return out
