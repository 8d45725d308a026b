"""numba's compiled kernels on disk dropped when any source of the toolkit changed.

numba caches each compiled kernel beside its own source file and, when it loads one, checks
only that file's time stamp. A kernel that compiles in functions of other modules (the play
loop inlines the card players, the players the solver and the engine) would keep running the
old code of those modules after they were edited. So on import a digest of every source file
of ``sim`` and ``strategies`` is compared with the one the caches were made from; if it
differs (an edit, a ``git checkout`` of other code), every cached kernel of both packages is
deleted and numba compiles again (about 20 s, once). An installed copy whose sources never
change keeps its caches; so does a tree whose cache folders cannot be written, or a run with
``NUMBA_CACHE_DIR`` set (numba's own rule applies there).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sim", "strategies")
CACHE_SUFFIXES = (".nbi", ".nbc")


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
