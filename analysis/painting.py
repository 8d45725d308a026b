"""A report's plots drawn by two processes at once.

Drawing a plot is Python inside matplotlib (about a quarter of a second for each of a report's
dozen plots) and holds the interpreter's lock, so a thread would not help. A :class:`Painter`
starts a second interpreter (running :func:`main`) when a report starts, so that its
imports overlap the pass over the parts. Once the tables are made, the main process and the
second one take the tables' plots from the two ends of one queue until it is empty. Each
table's plots are drawn by one of them from the same tables into the same folder, so the files
are the same either way.

A plot function the second process cannot import (one defined in ``__main__``, say) is drawn
by the main process, and so is everything if the second process cannot start or dies. A plot
that fails in the second process is drawn again by the main process, which so raises the error
itself.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
from collections import deque
from pathlib import Path

#: Replies of the second process: done (with the plots drawn), or not done (the main process draws them).
DRAWN, NOT_DRAWN = "drawn", "not drawn"


def free_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Painter:
    """The second process, or None for a report drawn by one process (``start()`` decides)."""

    def __init__(self):
        package_root = Path(__file__).resolve().parents[1]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(package_root),
                                                                         os.environ.get("PYTHONPATH")])))
        self.process = subprocess.Popen([sys.executable, "-c", "from analysis.painting import main; main()"], env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.alive = True

    @classmethod
    def start(cls, jobs: int | None = None) -> Painter | None:
        """A painter when two processes may draw (``jobs`` >= 2, or None on a machine of two cores or more)."""
        jobs = free_cores() if jobs is None else jobs
        if jobs < 2:
            return None
        try:
            return cls()
        except OSError:
            return None

    def ask(self, message):
        """Send one message and read the reply; None once the process is gone."""
        if not self.alive:
            return None
        try:
            data = pickle.dumps(message)
        except Exception:  # a lambda, say: drawn here
            return (NOT_DRAWN, None)
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
            return pickle.load(self.process.stdout)
        except (OSError, EOFError, pickle.UnpicklingError):
            self.alive = False  # the process is gone: everything left is drawn here
            return None

    def close(self) -> None:
        try:
            self.process.stdin.close()
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


def draw_all(jobs: list, report, folder: Path, painter: Painter | None) -> list:
    """Per plot function of ``jobs`` the list of ``plots(report, folder)``, in the order of ``jobs``.

    With a painter, the second process takes jobs from the front of the queue while this one
    takes them from the back."""
    results = [None] * len(jobs)
    waiting = deque(range(len(jobs)))
    helper = None
    if painter is not None and painter.ask(("report", report, folder)) == (DRAWN, None):
        helper = threading.Thread(target=_feed, args=(painter, jobs, waiting, results), daemon=True)
        helper.start()
    try:
        while waiting:
            try:
                index = waiting.pop()
            except IndexError:  # the second process took the last one
                break
            results[index] = list(jobs[index](report, folder))
    finally:
        if helper is not None:
            helper.join()
    for index in (i for i, result in enumerate(results) if result is None):  # not drawn there
        results[index] = list(jobs[index](report, folder))
    return results


def _feed(painter: Painter, jobs: list, waiting: deque, results: list) -> None:
    while True:
        try:
            index = waiting.popleft()
        except IndexError:
            return
        reply = painter.ask(("plots", jobs[index]))
        if reply is None:
            return
        if reply[0] == DRAWN:
            results[index] = reply[1]


def serve(incoming, outgoing) -> None:
    """The second process: answer messages until the main process closes the pipe."""
    report = folder = None
    while True:
        try:
            kind, *body = pickle.load(incoming)
        except EOFError:
            return
        except Exception:  # a plot function this process cannot import
            reply = (NOT_DRAWN, None)
        else:
            if kind == "report":
                report, folder = body
                reply = (DRAWN, None)
            else:
                try:
                    reply = (DRAWN, list(body[0](report, folder)))
                except Exception:  # the main process draws it again and raises the error
                    reply = (NOT_DRAWN, None)
        outgoing.write(pickle.dumps(reply))
        outgoing.flush()


def main() -> None:
    """The second process's entry point."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the main process, which closes this one
    protocol = sys.stdout.buffer
    sys.stdout = sys.stderr  # anything printed while drawing must not reach the pipe
    serve(sys.stdin.buffer, protocol)
