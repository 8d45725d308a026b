"""Every script in scripts/ runs, and the benchmark prints what its docstring promises."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_bench_quick_prints_one_json_object_per_benchmark():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench.py"), "--quick"],
                         capture_output=True, text=True, check=True).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows, "bench.py printed nothing"
    for row in rows:
        assert {"name", "deals", "seconds", "deals_per_s"} <= row.keys()
        assert row["deals"] > 0 and row["seconds"] > 0
        assert abs(row["deals_per_s"] - row["deals"] / row["seconds"]) <= 0.01 * row["deals_per_s"] + 1
