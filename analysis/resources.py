"""What the analysis asks of the machine: the cores it may run on, and the memory it freed given back.

Imports nothing of the project, so that every module of the analysis may import it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os


def free_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@functools.cache
def _malloc_trim():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


def release_memory() -> None:
    """Give the free memory of this process's heap back to the system (glibc's ``malloc_trim``; nothing
    where there is none). numpy's arrays are allocated there, and what a pass over the parts or a
    table's bootstrap frees stays in the process otherwise: about 400 MB after the pass of a
    500,000-deal declare-mode run."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
