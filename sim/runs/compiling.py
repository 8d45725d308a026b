"""numba's kernels before a run plays: stale caches dropped, a first run's compile told, timed and
shared by two processes.

numba compiles each kernel once and caches it beside its source file. This module owns what the
toolkit adds to that:

- The stale-kernel check (:func:`check_kernel_cache`). numba checks only a cached kernel's own
  source file when it loads it, but the toolkit's kernels compile in functions of other modules (the
  play loop inlines the card players, the players the solver and the engine), and would keep running
  the old code of those after an edit. So a digest of every source file of ``sim`` and
  ``strategies`` is compared with the one the caches were made from; if it differs (an edit, a
  ``git checkout`` of other code), every cached kernel of both packages is deleted and numba compiles
  again, once. An installed copy whose sources never change keeps its caches; so does a tree whose
  cache folders cannot be written, or a run with ``NUMBA_CACHE_DIR`` set (numba's own rule applies
  there). It runs where kernels are about to run: before any command of the command line, at the
  start of :func:`sim.runs.runner.run` and of the public entry points of :mod:`sim.runs`
  (``simulate``, ``match``, ``log_decisions``, ``repair``), and before the tests.
- The warm-up (:func:`warm_up`): deal 0 played before the parts start, so that the kernels are
  compiled or loaded once and a run's progress rate counts playing only.
- The first-run message (:func:`compiles_told`): :data:`COMPILING` when the first kernel starts
  compiling, then how long the compile took.
- Two processes (:class:`CompiledInTwo`): on a first run with a core free, the card play's loop
  compiles in this process while a second interpreter compiles everything else into numba's cache:
  the card players' kernels that compile apart from the loop (the learned player's features) first,
  then the dealing, bidding and declaring.

It imports numba and nothing of the project.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import os
import signal
import sys
import time
from pathlib import Path
from typing import Iterator

from numba.core import event

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("sim", "strategies")
CACHE_SUFFIXES = (".nbi", ".nbc")
#: What a first run prints while numba compiles the kernels it caches beside the code.
COMPILING = "compiling the kernels (first run only)"
#: The longest this process waits for the second one of a first run before it compiles the rest itself.
SECOND_COMPILE_WAIT = 300.0


# --- the stale-kernel check -----------------------------------------------------------------


def stamp_file(root: Path) -> Path:
    return root / "sim" / "__pycache__" / "kernel-sources.txt"


def sources_digest(root: Path) -> str:
    """A digest of the path and contents of every source file of the packages."""
    digest = hashlib.sha256()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(f"{path.relative_to(root).as_posix()}\n".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def drop_stale_kernels(root: Path = ROOT) -> bool:
    """Delete the cached kernels if the sources changed since they were made; True if it did."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return False
    stamp, digest = stamp_file(root), sources_digest(root)
    try:
        if stamp.read_text(encoding="ascii") == digest:
            return False
    except OSError:
        pass  # no stamp yet: whatever caches lie about were made from unknown sources
    try:
        for package in PACKAGES:
            for path in (root / package).rglob("__pycache__/*"):
                if path.suffix in CACHE_SUFFIXES:
                    path.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        written = stamp.with_name(f"{stamp.name}.{os.getpid()}")
        written.write_text(digest, encoding="ascii")
        os.replace(written, stamp)
    except OSError:
        return False  # a read-only installation, whose sources do not change either
    return True


@functools.cache
def check_kernel_cache() -> bool:
    """:func:`drop_stale_kernels` of the toolkit's own sources, once a process, before its first
    kernel runs; True if it dropped them."""
    return drop_stale_kernels()


# --- the first-run message ------------------------------------------------------------------


def _into_a_cache(started) -> bool:
    """Whether the kernel of a numba compile event is compiled into numba's cache (``cache=True``)."""
    return type(getattr(started.data.get("dispatcher"), "_cache", None)).__name__ != "NullCache"


class _CompileNotice(event.Listener):
    """A numba event listener that tells ``notice`` once, when the first kernel starts compiling (a
    kernel loaded from numba's cache sends no such event), and times the compiling."""

    def __init__(self, notice):
        self.notice, self.began = notice, None

    def on_start(self, started) -> None:
        if self.began is None:
            self.began = time.perf_counter()
            self.notice(COMPILING if _into_a_cache(started) else "compiling the kernels of this run's strategies")

    def on_end(self, ended) -> None:
        pass


@contextlib.contextmanager
def compiles_told(notice=None) -> Iterator[list]:
    """Within the block, tell ``notice`` when numba starts compiling a kernel (once) and, at the end,
    how long it compiled. Yields a list that holds the seconds compiled afterwards (empty when every
    kernel came from the cache)."""
    listener = _CompileNotice(notice or (lambda line: None))
    seconds: list = []
    event.register("numba:compile", listener)
    try:
        yield seconds
    finally:
        event.unregister("numba:compile", listener)
    if listener.began is not None:
        seconds.append(time.perf_counter() - listener.began)
        if notice is not None:
            notice(f"compiled in {seconds[0]:.0f} s; later runs load the kernels from numba's cache")


# --- the warm-up, on one core or two --------------------------------------------------------


class CompiledInTwo:
    """A play (the runner's ``play(seed, start, count, *, play_cards=True) -> columns``) whose first run
    compiles in two processes: :meth:`warm_card_play` in one, :meth:`warm_the_rest` in the other."""

    def warm_card_play(self) -> None:
        """Compile (or load) the kernels of the card play alone."""
        raise NotImplementedError

    def warm_card_players(self) -> None:
        """Compile (or load) the kernels of the card players that compile apart from the play loop (none
        unless a play says otherwise)."""

    def warm_the_rest(self, seed: int) -> None:
        """Compile (or load) the kernels of everything but the card play's loop: first the card players'
        own (:meth:`warm_card_players`, which the loop of the other process loads as it reaches them),
        then deal 0 of ``seed`` with no card played."""
        self.warm_card_players()
        self(seed, 0, 1, play_cards=False)


def warm_up(play, seed: int, *, notice=None, jobs: int = 1) -> float | None:
    """Play deal 0 of ``seed`` in this process, so that numba compiles the kernels once (or loads
    them from its cache) before the parts start, and the progress rate counts playing only; with
    ``notice``, a compile is told as it starts and when it ends. Returns the seconds it compiled
    (None when every kernel came from the cache).

    With ``jobs`` of 2 or more, a ``play`` that has ``warm_card_play()`` and ``warm_the_rest(seed)``
    (:class:`CompiledInTwo`) compiles on two cores: this process compiles the card play's loop, and as
    soon as its first kernel compiles, a second interpreter compiles everything else
    (:func:`compile_the_rest`) into numba's cache, from which this process then loads it. Nothing
    played depends on which process compiled.
    """
    with compiles_told(notice) as seconds:
        if jobs > 1 and hasattr(play, "warm_card_play") and hasattr(play, "warm_the_rest"):
            with _the_rest_compiled_beside(play, seed):
                play.warm_card_play()
        play(seed, 0, 1)
    return seconds[0] if seconds else None


def a_core_is_free() -> bool:
    """Whether the machine's load leaves a core free: only then does a first run's second process
    pay (on busy cores it costs more than it gains: 29 to 30 s against 24 s at load 3)."""
    try:
        return os.getloadavg()[0] < (os.cpu_count() or 1) - 0.5
    except (AttributeError, OSError):  # no load average (Windows)
        return True


class _SecondCompile(event.Listener):
    """Starts the second interpreter of a first run at the first kernel that compiles into a cache."""

    def __init__(self, play, seed: int):
        self.play, self.seed, self.process, self.tried = play, seed, None, False

    def on_start(self, started) -> None:
        if self.tried or not _into_a_cache(started):
            return
        import pickle
        import subprocess

        self.tried = True
        try:   # a play that does not pickle, or no interpreter to start, leaves the compile to this process
            data = pickle.dumps((self.play, self.seed))
            self.process = subprocess.Popen(
                [sys.executable, "-c", "from sim.runs.compiling import compile_the_rest; compile_the_rest()"],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except Exception:
            return
        with contextlib.suppress(OSError):
            self.process.stdin.write(data)
            self.process.stdin.close()

    def on_end(self, ended) -> None:
        pass


@contextlib.contextmanager
def _the_rest_compiled_beside(play, seed: int) -> Iterator[None]:
    """Within the block, the first kernel that compiles starts :func:`compile_the_rest` in a second
    interpreter; at the end the block waits for it (at most :data:`SECOND_COMPILE_WAIT` seconds). A
    second process that fails or is too slow changes nothing: this process compiles what is missing."""
    listener = _SecondCompile(play, seed)
    event.register("numba:compile", listener)
    finished = False
    try:
        yield
        finished = True
    finally:
        event.unregister("numba:compile", listener)
        second = listener.process
        if second is not None:
            if finished:
                with contextlib.suppress(Exception):
                    second.wait(SECOND_COMPILE_WAIT)
            if second.poll() is None:
                second.kill()
                second.wait()


def compile_the_rest() -> None:
    """The second interpreter of a first run: reads ``(play, seed)`` pickled on its input and runs
    ``play.warm_the_rest(seed)``, so that numba caches the kernels of all but the card play's loop."""
    import pickle

    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the first process stops it
    play, seed = pickle.load(sys.stdin.buffer)
    play.warm_the_rest(seed)
    gc.freeze()  # a quick shutdown for the first process to wait for (see sim.commands.cli.run)
