"""Importing the command line and the analysis runs no kernel: a report of a game-mode run never needs
numba's compiler, and loading it into a process costs about 60 MB and a quarter of a second."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LOADED = """
import sys
import sim.commands.cli, analysis.report
from numba.core.dispatcher import Dispatcher
print(sorted(f"{name}.{key}" for name, module in list(sys.modules.items())
             if name.split(".")[0] in ("sim", "strategies", "analysis")
             for key, value in vars(module).items() if isinstance(value, Dispatcher) and value.overloads))
"""


def test_importing_the_command_line_and_the_analysis_runs_no_kernel():
    out = subprocess.run([sys.executable, "-c", LOADED], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout
