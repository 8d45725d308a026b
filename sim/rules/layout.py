"""Layouts of the engine's flat int64 arrays, each declared once: named fields and their sizes.

A layout is a named tuple of offsets, generated from the declaration, with ``size`` the length of
the array: ``state[STATE.hands + seat]``, ``np.zeros(STATE.size)``. numba reads a global named
tuple of integers as constants, so a kernel indexes a field as fast as with a literal offset.
The docstring of each layout's class lists its fields with their meaning.
"""

from __future__ import annotations

from collections import namedtuple


def layout(name: str, fields: tuple[tuple[str, int, str], ...]):
    """The offsets of ``fields`` (name, size, meaning), laid out one after another, and ``size``."""
    offsets, at = {}, 0
    for field, size, _ in fields:
        offsets[field] = at
        at += size
    kind = namedtuple(name, [*offsets, "size"])
    lines = [f"{field}{'' if size == 1 else f'+0..{size - 1}'}: {meaning}" for field, size, meaning in fields]
    kind.__doc__ = f"Offsets of the fields of {name}:\n\n" + "\n".join(f"- {line}" for line in lines)
    return kind(**offsets, size=at)
