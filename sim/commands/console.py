"""The ``skatsim`` console script: the command line of :mod:`sim.commands.cli`, then a quick exit.

A command that is done has written and closed its files; what is left is the interpreter's
shutdown, which runs the exit functions, tears the modules down and, on the way, collects garbage
over every object still alive: numba's, polars' and matplotlib's, 0.25 to 0.35 s after a run or a
report. So the script moves those objects out of the collector's reach first (``gc.freeze``): the
shutdown then takes about 0.03 s, and is otherwise the usual one (exit functions, streams flushed,
the command's exit code).
"""

from __future__ import annotations

import gc
from typing import Callable


def run() -> None:
    """The console script's entry point: ``skatsim ...``."""
    from sim.commands.cli import main

    leave_after(main)


def leave_after(command: Callable[[], None]) -> None:
    """Run the click ``command`` in standalone mode (it ends in ``SystemExit``), then leave quickly."""
    try:
        command()
    finally:
        gc.freeze()   # the objects left are never collected: the shutdown's collections skip them
