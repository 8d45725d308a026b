"""One command at a time in a run folder: the folder's lock, held for the command's life.

A command that writes a run folder (a run, an import, ``verify``) holds ``run.lock`` in it:
an operating-system lock on an open file (``flock``; on Windows a lock of the file's first
byte), which the system lets go when the process ends in any way, so a lock left by a killed
command never blocks the next one. The file names the process that holds it (process id,
host, command line) for the message of a second command, which stops at once; it is removed
when the command ends.

The holder is also named by a short random ``token``: the temporary files the command's
processes write carry it in their names, so that the command removes its own temporary files
when it stops (:func:`remove_own_temporaries`) and no other's, and a worker that writes a
part for a command that has stopped (a Dask worker finishing a task after its client has
gone) finds the token gone and keeps nothing (:func:`still_held`).

Imports nothing of the project but the run errors.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import shutil
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

from sim.runs import RunError

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

LOCK = "run.lock"
#: Errors that say the lock is held by another open file.
_HELD = {errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES, getattr(errno, "EDEADLOCK", errno.EDEADLK)}
#: Errors that say the folder cannot be written at all: a command that only reads goes on unlocked.
_READ_ONLY = {errno.EACCES, errno.EPERM, errno.EROFS}

#: The folders this thread holds: real path -> token; a command holding a folder may call what
#: holds it again (``verify --repair`` runs the run), which takes nothing more.
_held = threading.local()
#: The open lock files of this process.
_open: set[int] = set()


def _forked() -> None:
    """In a forked process (a worker of the run): close the lock files, which stay locked by the
    process that holds them. A worker left running by a killed command then holds no lock, and the
    next command is not kept waiting for it."""
    for fd in _open:
        with contextlib.suppress(OSError):
            os.close(fd)
    _open.clear()
    vars(_held).pop("folders", None)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def _lock(fd: int) -> None:
    """Lock the open file ``fd`` for this open file alone, or OSError at once if another holds it."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    else:
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)


def _take(path: Path) -> int | None:
    """The open, locked lock file ``path``; None when another process holds it."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            _lock(fd)
        except OSError as error:
            os.close(fd)
            if error.errno in _HELD:
                return None
            raise
        # its former holder may have removed the file between our open and our lock: then ours is
        # a file no one else finds, and the lock is taken again on the file at the path
        with contextlib.suppress(FileNotFoundError):
            if os.path.samestat(os.fstat(fd), os.stat(path)):
                return fd
        os.close(fd)


def holder_of(folder: Path) -> dict:
    """What the lock file of ``folder`` says of the process that holds it ({} when it says nothing)."""
    try:
        told = json.loads((Path(folder) / LOCK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return told if isinstance(told, dict) else {}


def _in_use(folder: Path) -> RunError:
    """The error of a command that finds ``folder`` held; the holder names itself as soon as it holds
    it, so a lock that names no one yet is read again for up to a second."""
    told, until = holder_of(folder), time.monotonic() + 1
    while not told and time.monotonic() < until and (Path(folder) / LOCK).exists():
        time.sleep(0.01)
        told = holder_of(folder)
    who = "another command"
    if "pid" in told:
        who = f"process {told['pid']}" + (f" on {told['host']}" if told.get("host") != socket.gethostname() else "")
        if told.get("command"):
            who += f" ({told['command']})"
    return RunError(f"{folder} is in use by {who}; wait for it to finish: a run folder is written by one command"
                    " at a time")


def command_line() -> str:
    """This process's command line as a person typed it, at most 120 characters."""
    words = [Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python", *sys.argv[1:]]
    if words[0] in ("cli.py", "__main__.py"):
        words[0] = "skatsim"
    text = " ".join(words)
    return text if len(text) <= 120 else text[:119] + "…"


@contextlib.contextmanager
def holding(folder: Path, *, only_reading: bool = False) -> Iterator[str | None]:
    """Hold the run folder ``folder`` (which exists) for the block; yields the holder's token.

    RunError in one line, naming the process, when another command holds it. When the block ends,
    in any way, the temporary files that carry the token are removed (the command's workers have
    stopped by then) and the lock with them. A command ``only_reading`` a folder it cannot write
    goes on unlocked (the token None). Holding a folder this thread holds already yields its token.
    """
    folder = Path(folder)
    key = os.path.realpath(folder)
    held = vars(_held).setdefault("folders", {})
    if key in held:
        yield held[key]
        return
    path = folder / LOCK
    try:
        fd = _take(path)
    except OSError as error:
        if not (only_reading and error.errno in _READ_ONLY):
            raise RunError(f"cannot write to {folder}: {error.strerror or error}") from None
        fd = -1
    if fd == -1:
        yield None
        return
    if fd is None:
        raise _in_use(folder)
    token = secrets.token_hex(4)
    told = {"pid": os.getpid(), "host": socket.gethostname(), "command": command_line(), "token": token}
    held[key] = token
    _open.add(fd)
    try:
        os.ftruncate(fd, 0)   # a killed holder's words are still there
        os.write(fd, json.dumps(told).encode("utf-8"))
        yield token
    finally:
        del held[key]
        _open.discard(fd)
        remove_own_temporaries(folder, token)
        with contextlib.suppress(OSError):
            if fcntl is not None:   # removed while locked, so that no one locks a file about to go
                os.unlink(path)
        os.close(fd)
        if fcntl is None:
            with contextlib.suppress(OSError):
                os.unlink(path)


def still_held(folder: Path, token: str | None) -> bool:
    """Whether the command of ``token`` still holds ``folder`` (always, for no token)."""
    return token is None or holder_of(folder).get("token") == token


def temporary_tag(token: str | None) -> str:
    """What the temporary files of the holder ``token`` carry in their names, before a random part."""
    return f"{token}-" if token else ""


def remove_own_temporaries(folder: Path, token: str) -> None:
    """Remove the temporary files of the holder ``token`` in ``folder`` and the folders in it."""
    for path in Path(folder).rglob(f".*.{temporary_tag(token)}*.tmp"):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
