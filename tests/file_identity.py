"""What the tests read of a file to know that it was not written again."""

from __future__ import annotations

import hashlib
from pathlib import Path


def identity(path: Path) -> tuple[int, str]:
    """A file's inode and the SHA-256 of its bytes: a file written again atomically (by rename) gets a new
    inode, one changed in place new bytes; a modification time proves neither on a coarse clock."""
    return path.stat().st_ino, hashlib.sha256(Path(path).read_bytes()).hexdigest()
