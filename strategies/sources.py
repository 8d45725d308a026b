"""Strategies from a file or a module of your own, with nothing installed.

Wherever a strategy is named (``--set card_play=...``, a profile), ``FILE.py:NAME`` or ``MODULE:NAME``
names one in a file or a module: a source ending in ``.py`` or holding a ``/`` is a file, anything else
a module imported with the current folder importable. If importing it registered ``NAME`` for the role,
that is the strategy; otherwise the source's attribute ``NAME`` (a card player's class, a bidder's
factory) is registered for the role under the whole name, its keyword arguments its parameters.

A *plugin* is a file or module imported for what it registers (``--plugins``, or ``plugins = [...]`` in
a profile). A file's path is kept absolute in the names and the profile's spec, so that every process of
a run, and a run resumed from another folder, imports the same file.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from . import registry
from .registry import Strategy, StrategyError, register


def is_file(source: str) -> bool:
    """Whether a source names a file (``.py``, or a path) rather than a module."""
    return source.endswith(".py") or "/" in source or os.sep in source


def canonical_source(source: str) -> str:
    """A file's absolute path; a module's name as given."""
    return str(Path(source).expanduser().resolve()) if is_file(source) else source


def canonical_name(name: str) -> str:
    """``SOURCE:NAME`` with the source canonical (:func:`canonical_source`); any other name as given."""
    source, colon, attribute = name.rpartition(":")
    return f"{canonical_source(source)}:{attribute}" if colon and source and attribute else name


def load_plugin(source: str) -> ModuleType:
    """Import a file or a module (once a process), so that its ``@register`` decorators run."""
    if not is_file(source):
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            return importlib.import_module(source)
        except ImportError as error:
            raise StrategyError(f"cannot import module {source!r}: {error}") from None
    path = Path(source).expanduser().resolve()
    module_name = f"{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    if not path.is_file():
        raise StrategyError(f"no such file: {path}")
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module     # the play loops import a kernel's module by this name
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[module_name]
        raise StrategyError(f"{path} failed to import: {type(error).__name__}: {error}") from None
    return module


def strategy_from_source(role: str, name: str) -> Strategy:
    """The strategy ``SOURCE:NAME`` of ``role``: what importing the source registered as ``NAME``, or its
    attribute ``NAME`` registered under the whole name."""
    source, _, attribute = name.rpartition(":")
    if not source or not attribute:
        raise StrategyError(f"{role} {name!r}: write FILE.py:NAME or MODULE:NAME")
    module = load_plugin(source)
    full = canonical_name(name)
    known = registry._registry[role]    # read through the module: a test may give the registry anew
    found = known.get(full) or known.get(attribute)
    if found is not None and found.factory.__module__ == module.__name__:
        return found
    factory = getattr(module, attribute, None)
    if factory is None:
        raise StrategyError(f"{canonical_source(source)} has no {attribute!r}")
    register(role, full)(factory)
    return known[full]
