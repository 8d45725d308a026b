"""Files and folders written whole or not at all: under a temporary name beside the target, then
renamed onto it, so that nothing half-written is ever left looking complete. The run folders' parts
and manifests are written so, and the commands' output files and reports.

A failure is told of the file the user asked for, not of its temporary one.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

from sim.runs import RunError


def write_json_atomic(path: Path, data) -> None:
    """Write ``data`` as indented JSON, its keys sorted, to the file ``path``, whole or not at all."""
    with temporary_beside(Path(path)) as tmp:
        Path(tmp).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _named_for(error: OSError, name: Path) -> OSError:
    """``error`` told of ``name``: a failure on a temporary file names the file the user asked for,
    which is the one they can do something about."""
    named = OSError(error.errno, error.strerror or str(error), str(name))
    return named.with_traceback(error.__traceback__)


def _in_place_of(name, temporary: Path, target: Path) -> Path | None:
    """Where the file ``name`` of a temporary folder goes in ``target`` (None: not in the folder)."""
    if name is None:
        return target
    try:
        return target / Path(name).relative_to(temporary)
    except ValueError:
        return None


def make_folder(folder: Path, target: Path | None = None) -> list[Path]:
    """Create ``folder`` and its parents; returns the folders it made, deepest first. An OSError
    names ``target`` (default ``folder``), says which part of the path is a file when one is, and
    leaves no folder made on the way."""
    folder, target = Path(folder), Path(target or folder)
    made = [p for p in (folder, *folder.parents) if not os.path.lexists(p)]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        remove_empty(made)
        existing = next((p for p in (folder, *folder.parents) if os.path.lexists(p)), None)
        if existing is not None and not os.path.isdir(existing):
            raise OSError(errno.ENOTDIR, f"{existing} is a file, not a folder", str(target)) from None
        raise _named_for(error, target) from None
    return made


def remove_empty(folders) -> None:
    """Remove each of ``folders`` (deepest first) that exists and is empty."""
    for made in folders:
        with contextlib.suppress(OSError):
            made.rmdir()


@contextlib.contextmanager
def temporary_beside(target: Path, tag: str = "") -> Iterator[str]:
    """A temporary file in ``target``'s folder, renamed onto ``target`` when the block succeeds; its name
    is ``.TARGET.`` and ``tag``, then random letters, then ``.tmp``.

    On any exception (a full disk, Ctrl-C) the temporary file is removed and an
    existing ``target`` is left as it was, so nothing half-written looks complete. An
    OSError of the temporary file (a read-only folder, a full disk) names ``target``.
    """
    target = Path(target)
    made = make_folder(target.parent, target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{tag}", suffix=".tmp", dir=target.parent)
    except OSError as error:
        remove_empty(made)
        raise _named_for(error, target) from None
    os.close(fd)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; these are ordinary files
        yield tmp
        os.replace(tmp, target)
    except OSError as error:
        Path(tmp).unlink(missing_ok=True)
        remove_empty(made)
        if error.filename is None or Path(error.filename) in (Path(tmp), target):
            raise _named_for(error, target) from None
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        remove_empty(made)
        raise


@contextlib.contextmanager
def folder_in_place(target: Path, belongs) -> Iterator[Path]:
    """A temporary folder beside ``target`` that replaces it when the block succeeds.

    An interrupted block leaves ``target`` as it was and no half-filled folder. An
    existing ``target`` is replaced only if ``belongs(target)`` says it is one of ours
    (a former report, say); otherwise RunError, and nothing is touched. An OSError of a
    file in the temporary folder names that file's place in ``target``.
    """
    target = Path(target)
    if target.exists() and not (target.is_dir() and belongs(target)):
        raise RunError(f"{target} exists and is not a folder this command wrote; choose another --out")
    made = make_folder(target.parent, target)
    try:
        temporary = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    except OSError as error:
        remove_empty(made)
        raise _named_for(error, target) from None
    try:
        os.chmod(temporary, 0o777 & ~_umask())  # mkdtemp makes 0700; the folder is an ordinary one
        yield temporary
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
            os.replace(target, old / target.name)
            os.replace(temporary, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(temporary, target)
    except OSError as error:
        shutil.rmtree(temporary, ignore_errors=True)
        remove_empty(made)
        name = _in_place_of(error.filename, temporary, target)
        if name is None:
            raise
        raise _named_for(error, name) from None
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        remove_empty(made)
        raise
