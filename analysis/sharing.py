"""A report's slow, independent pieces shared by two processes: the evaluator tables and the plots.

The bootstraps of the evaluator tables and the drawing of the plots (about a quarter of a
second for each of a report's dozen plots) are Python and numpy that hold the interpreter's
lock, so a thread would not help. A :class:`SecondProcess` starts another interpreter (running
:func:`main`) when a report starts, so that its imports overlap the pass over the parts. Then
:func:`share` gives it the shared inputs once (one evaluator's cube; a plot's drawing carries its
own table) and the two processes take jobs from the two ends of one queue until it is empty; then
the second process lets go of the inputs. A job is a function that is called with those inputs:
the same function of the same inputs, so the tables and the files are the same whichever process
ran it.

A job the second process cannot import (a function defined in ``__main__``, or a table
registered only in the main process) is run by the main process, and so is everything left if
the second process cannot start or stops. A job that fails there is run again here, so its
error is raised as if one process had done everything.
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

from .resources import free_cores, release_memory

#: What the second process answers to a job: done (with its result), or not done (run it here).
DONE, NOT_DONE = "done", "not done"


class SecondProcess:
    """Another interpreter that runs jobs sent to it, one at a time."""

    def __init__(self):
        package_root = Path(__file__).resolve().parents[1]
        path = os.pathsep.join(filter(None, [str(package_root), os.environ.get("PYTHONPATH")]))
        self.process = subprocess.Popen([sys.executable, "-c", "from analysis.sharing import main; main()"],
                                        env=dict(os.environ, PYTHONPATH=path),
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.alive = True

    @classmethod
    def start(cls, jobs: int | None = None) -> SecondProcess | None:
        """A second process when two may work (``jobs`` >= 2, or None on a machine of two cores or more)."""
        if (free_cores() if jobs is None else jobs) < 2:
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
        except Exception:  # a lambda, say: run here
            return (NOT_DONE, None)
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
            return pickle.load(self.process.stdout)
        except (OSError, EOFError, pickle.UnpicklingError):
            self.alive = False  # the process is gone: everything left is run here
            return None

    def close(self) -> None:
        try:
            self.process.stdin.close()
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


def share(jobs: list, inputs: tuple, second: SecondProcess | None) -> list:
    """``job(*inputs)`` of every job, in the order of ``jobs``; the second process, if there is one,
    takes jobs from the front of the queue while this one takes them from the back."""
    results, done = [None] * len(jobs), [False] * len(jobs)
    waiting = deque(range(len(jobs)))
    feeder = None
    if second is not None and jobs and second.ask(("inputs", inputs)) == (DONE, None):
        feeder = threading.Thread(target=_feed, args=(second, jobs), daemon=True,
                                  kwargs={"waiting": waiting, "results": results, "done": done})
        feeder.start()
    try:
        while True:
            try:
                index = waiting.pop()
            except IndexError:  # the queue is empty
                break
            results[index], done[index] = jobs[index](*inputs), True
    except BaseException:  # an error or Ctrl-C here: the second process stops after its job too
        waiting.clear()
        raise
    finally:
        if feeder is not None:
            feeder.join()
    for index in (i for i, finished in enumerate(done) if not finished):  # not done there
        results[index] = jobs[index](*inputs)
    if feeder is not None:
        second.ask(("inputs", ()))  # the second process lets go of the inputs
    return results


def _feed(second: SecondProcess, jobs: list, *, waiting: deque, results: list, done: list) -> None:
    while True:
        try:
            index = waiting.popleft()
        except IndexError:
            return
        reply = second.ask(("job", jobs[index]))
        if reply is None:
            return
        if reply[0] == DONE:
            results[index], done[index] = reply[1], True


def serve(incoming, outgoing) -> None:
    """The second process: answer messages until the main process closes the pipe."""
    inputs = ()
    while True:
        try:
            kind, body = pickle.load(incoming)
        except EOFError:
            return
        except Exception:  # a job whose function this process cannot import
            reply = (NOT_DONE, None)
        else:
            if kind == "inputs":
                inputs, reply = body, (DONE, None)
            else:
                try:
                    reply = (DONE, body(*inputs))
                except Exception:  # the main process runs it again and raises the error
                    reply = (NOT_DONE, None)
                release_memory()
        try:
            data = pickle.dumps(reply)
        except Exception:
            data = pickle.dumps((NOT_DONE, None))
        outgoing.write(data)
        outgoing.flush()


def main() -> None:
    """The second process's entry point."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the main process, which closes this one
    protocol = sys.stdout.buffer
    sys.stdout = sys.stderr  # anything printed by a job must not reach the pipe
    from analysis import catalogue  # noqa: F401  (the built-in tables)

    serve(sys.stdin.buffer, protocol)
    sys.stderr.flush()
    os._exit(0)  # every result went through the pipe: no interpreter shutdown for the main process to wait for
