"""The ``skatsim`` console script: the command line of :mod:`sim.commands.cli`, then a quick exit.

A command that is done has written and closed its files. The script then runs what was registered
to run at exit (a pool's clean-up, a temporary folder's removal) and leaves with the command's exit
code, without tearing down its modules: numba, polars and matplotlib took 0.3 to 0.8 s to tear down
after a run or a report. While another thread still works, or where the interpreter cannot run its
exit functions early, it exits as usual.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import Callable


def run() -> None:
    """The console script's entry point: ``skatsim ...``."""
    from sim.commands.cli import main

    leave_after(main)


def leave_after(command: Callable[[], None]) -> None:
    """Run the click ``command`` in standalone mode (it ends in ``SystemExit``), then leave quickly."""
    try:
        command()
    except SystemExit as done:
        if not _may_leave_now(done.code):
            raise
        atexit._run_exitfuncs()
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed pipe, say: exit as usual, which reports it
            raise done from None
        os._exit(done.code or 0)


def _may_leave_now(code) -> bool:
    """An exit code of a number (or none), no thread left but daemons, and exit functions that can run now."""
    others = [thread for thread in threading.enumerate() if thread is not threading.main_thread()]
    return (isinstance(code, (int, type(None))) and all(thread.daemon for thread in others)
            and hasattr(atexit, "_run_exitfuncs"))
