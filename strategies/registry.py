"""Strategies by role and name: built-ins register themselves, other packages through entry points.

Roles (:mod:`strategies.roles`): ``evaluator``, ``bidder``, ``discarder``,
``declarer`` and ``card_play``. ``@register(role, name, parameters=...)`` records a
factory, a function that takes the strategy's parameters as keyword arguments and
returns the strategy, with the declaration of those parameters
(:mod:`strategies.parameters`); a strategy that declares none has its factory's
keyword parameters, with ``ranges`` for the numbers. An evaluator is registered as
the evaluator function itself, ``f(hands, seats, **params)``; building it binds the
parameters. :func:`build` is the one way to make any strategy from its name and
parameters.

A third-party package adds its own by naming a module in the entry-point group
``skatsim.strategies``; importing that module runs its ``@register`` decorators. A file or a module of
one's own needs no package: wherever a strategy is named, ``FILE.py:NAME`` or ``MODULE:NAME`` names one
in it (:func:`strategy_from_source`), and a *plugin* is a file or module imported for what it
registers (:func:`load_plugin`). A file's path is kept absolute in names and profiles, so that every
process of a run, and a run resumed from another folder, imports the same file; :func:`plugin_digest` is
what a run records of its contents.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
import threading
import warnings
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import numpy as np

from . import roles
from .parameters import Parameter, Range, from_signature

ROLES = ("evaluator", "bidder", "discarder", "declarer", "card_play")
#: Hands an evaluator scores in one numpy call (see BoundEvaluator).
EVALUATOR_BLOCK = 8192
ENTRY_POINT_GROUP = "skatsim.strategies"


class StrategyError(ValueError):
    """An unknown strategy, or parameters it does not take (or, as
    :class:`strategies.cardplay.python_players.CardPlayerError`, a card player in Python that failed)."""


class StrategyWarning(UserWarning):
    """A strategy registered without a range for a numeric parameter: its values are only checked
    to be finite numbers."""


@dataclass(frozen=True)
class Strategy:
    role: str
    name: str
    factory: Callable[..., Any]
    summary: str
    parameters: tuple[Parameter, ...] = ()
    logged: bool = False      # skatsim's own evaluators: every run logs their scores

    @property
    def ranges(self) -> dict:
        """parameter -> :class:`Range`, for the parameters that have one."""
        return {p.name: p.range for p in self.parameters if p.range is not None}


_registry: dict[str, dict[str, Strategy]] = {role: {} for role in ROLES}
#: The module of the evaluators every run logs (``register(..., logged=True)``).
OWN_EVALUATORS = "strategies.evaluators"
_entry_points_loaded = False


def register(role: str, name: str, *, parameters: tuple[Parameter, ...] | None = None, logged: bool = False,
             ranges: dict | None = None):
    """Decorator: register ``factory`` as strategy ``name`` of ``role``.

    ``factory(**params)`` returns the strategy; an evaluator is registered as the
    function ``f(hands, seats, **params)`` itself. ``parameters`` declares its parameters
    (:class:`strategies.parameters.Parameter`), whose names the factory takes as keyword
    arguments; without it they are the factory's keyword parameters, with ``ranges`` mapping
    each numeric one to its :class:`Range` (or a ``(low, high)`` pair). :func:`build` refuses
    values outside a range, NaN and infinities. ``logged=True`` marks skatsim's own evaluators, whose
    scores every run logs (:data:`OWN_EVALUATORS`); what a run logs is then fixed by skatsim's version,
    never by what else is installed. Any other evaluator is scored at analysis time
    (``skatsim analyze RUN --evaluator NAME``), as logging it would have, and asking another module's
    evaluator to be logged is refused.
    """
    if role not in ROLES:
        raise StrategyError(f"unknown role {role!r} (one of {', '.join(ROLES)})")
    bounds = {k: v if isinstance(v, Range) else Range(*v) for k, v in (ranges or {}).items()}

    def add(factory):
        if logged and factory.__module__ != OWN_EVALUATORS:
            raise StrategyError(f"evaluator {name!r}: logged=True is for skatsim's own evaluators, which every run"
                                f" logs; score yours on any run with `skatsim analyze RUN --evaluator {name}`")
        doc = inspect.getdoc(factory) or ""
        declared = parameters if parameters is not None else \
            from_signature(factory, bounds, skip=2 if role == "evaluator" else 0)
        if parameters is not None:
            _check_factory(role, name, factory, declared)
        strategy = Strategy(role, name, factory, plain_text(doc.split("\n")[0]), tuple(declared), logged)
        unbounded = missing_ranges(strategy)
        if unbounded:
            where = ".".join(filter(None, (factory.__module__, factory.__qualname__)))
            verb = "has" if len(unbounded) == 1 else "have"
            warnings.warn(f"{role} {name!r} ({where}): {', '.join(unbounded)} {verb}"
                          f" no range, so any finite number is taken; declare one when registering:"
                          f" @register({role!r}, {name!r}, ranges={{{unbounded[0]!r}: (low, high)}})",
                          StrategyWarning, stacklevel=2)
        _registry[role][name] = strategy
        return factory

    return add


def _check_factory(role: str, name: str, factory, parameters) -> None:
    """A factory registered with a declaration takes exactly the declared names as keyword arguments."""
    skip = 2 if role == "evaluator" else 0
    taken = [p.name for p in list(inspect.signature(factory).parameters.values())[skip:]]
    if taken != [p.name for p in parameters]:
        raise StrategyError(f"{role} {name!r}: its factory takes {', '.join(taken) or 'nothing'}, but it declares "
                            f"{', '.join(p.name for p in parameters) or 'nothing'}")


_ROLE_MARKUP = re.compile(r":[\w:.-]+:`~?(?:[^`<]*<)?([^`>]+)>?`")   # :class:`x`, :func:`~a.b`, :ref:`t <x>`
_LITERAL = re.compile(r"``([^`]+)``|`([^`]+)`")
#: *word* and **word**, as reStructuredText reads them: a star after a letter or digit (0.5*tens) is no markup.
_EMPHASIS = re.compile(r"(?<![\w*])\*\*(\S(?:[^*]*?\S)?)\*\*(?![\w*])|(?<![\w*])\*(\S(?:[^*]*?\S)?)\*(?![\w*])")


def plain_text(text: str) -> str:
    """A docstring line without its reStructuredText markup: ``margin`` and :class:`x` as margin
    and x, *word* as word."""
    text = _ROLE_MARKUP.sub(lambda m: m.group(1).rsplit(".", 1)[-1] if "~" in m.group(0) else m.group(1), text)
    text = _LITERAL.sub(lambda m: m.group(1) or m.group(2), text)
    return _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), text)


def missing_ranges(strategy: Strategy) -> list[str]:
    """The numeric parameters of ``strategy`` that declare no range."""
    return [p.name for p in strategy.parameters if p.kind in ("number", "whole", "numbers") and p.range is None]


def builtin(strategy: Strategy) -> bool:
    """Whether ``strategy`` ships with skatsim (rather than coming from another package)."""
    return strategy.factory.__module__.split(".")[0] == __name__.split(".")[0]


def names(role: str) -> list[str]:
    _load_entry_points()
    return sorted(_registry[role])


def lookup(role: str, name: str) -> Strategy:
    _load_entry_points()
    if role not in ROLES:
        raise StrategyError(f"unknown role {role!r} (one of {', '.join(ROLES)})")
    try:
        return _registry[role][name]
    except KeyError:
        if isinstance(name, str) and ":" in name:     # FILE.py:NAME or MODULE:NAME
            return strategy_from_source(role, name)
        raise StrategyError(
            f"unknown {role} {name!r} (known: {', '.join(names(role)) or 'none'})"
        ) from None


def build(role: str, name: str, **params):
    """The strategy ``name`` of ``role`` with ``params`` set (the others at their defaults);
    :class:`StrategyError` for an unknown name or parameter, naming what exists."""
    strategy = lookup(role, name)
    check_params(strategy, params)
    if role == "evaluator":
        if getattr(strategy.factory, "thresholds", None) is None:
            raise StrategyError(f"evaluator {name!r} has no thresholds attribute")
        return BoundEvaluator(name, strategy.factory, dict(params))
    built = strategy.factory(**{**{p.name: p.default for p in strategy.parameters}, **params})
    if getattr(built, "name", "") is None:
        built.name = name   # a strategy in plain Python learns its registered name, for its errors
    _check_role(role, name, built)
    return built


def _check_role(role: str, name: str, built) -> None:
    """A bidder, discarder or declarer must have its role's methods (strategies.roles), or it
    would fail deep inside a run."""
    protocol = {"bidder": roles.Bidder, "discarder": roles.Discarder, "declarer": roles.Declarer}.get(role)
    if protocol is not None and not isinstance(built, protocol):
        members = {m for m in vars(protocol) if not m.startswith("_")} | set(protocol.__annotations__)
        wanted = ", ".join(m for m in sorted(members) if not hasattr(built, m))
        raise StrategyError(f"{role} {name!r} lacks {wanted}: see strategies.roles.{protocol.__name__}")


def logged_evaluators() -> list[str]:
    """The evaluators registered for logging, in the order they were registered."""
    _load_entry_points()
    return [name for name, s in _registry["evaluator"].items() if s.logged]


def settable_parameters(strategy: Strategy) -> dict[str, Parameter]:
    """The parameters a user sets, by name (an evaluator's hands and seats are not settable)."""
    return {p.name: p for p in strategy.parameters}


def check_params(strategy: Strategy, params: dict[str, Any]) -> None:
    """Raise StrategyError when ``params`` are not parameters of the strategy, or a value is not of
    the parameter's kind or outside its range (the message gives the range)."""
    known = settable_parameters(strategy)
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise StrategyError(
            f"{strategy.role} {strategy.name!r} has no parameter {', '.join(map(repr, unknown))}"
            f" (its parameters: {', '.join(sorted(known)) or 'none'})"
        )
    for name, value in params.items():
        expected = known[name].expected(value)
        if expected:
            raise StrategyError(f"{strategy.role} {strategy.name!r}: {name} must be {expected}, not {value!r}")


@dataclass(frozen=True)
class BoundEvaluator:
    """An evaluator function with its parameters bound: ``scores = e(hands, seats)`` (see
    :class:`strategies.roles.Evaluator`)."""

    name: str
    function: Callable[..., np.ndarray]
    params: dict = field(default_factory=dict)

    def __call__(self, hands, seats) -> np.ndarray:
        hands = np.asarray(hands)
        if len(hands) <= EVALUATOR_BLOCK:
            return self.function(hands, seats, **self.params)
        # A row's scores depend on its hand and seat alone, so a large batch is scored in blocks
        # whose numpy temporaries stay in the processor's cache: about twice as fast.
        seats = np.broadcast_to(np.asarray(seats), hands.shape)
        out = np.empty((len(hands), 6))
        for start in range(0, len(hands), EVALUATOR_BLOCK):
            block = slice(start, start + EVALUATOR_BLOCK)
            out[block] = self.function(hands[block], seats[block], **self.params)
        return out

    @property
    def thresholds(self) -> np.ndarray:
        return self.function.thresholds


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for point in entry_points(group=ENTRY_POINT_GROUP):
        point.load()


# --- strategies from a file or a module of one's own ---------------------------------------


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


#: Held while a file is imported: a thread that asks for it meanwhile (a Dask worker's threads, the two
#: threads of a report's pass) waits for the whole module, not the half-made one in ``sys.modules``.
_importing = threading.RLock()


def load_plugin(source: str) -> ModuleType:
    """Import a file or a module (once a process), so that its ``@register`` decorators run."""
    if is_file(source):
        with _importing:
            return _load_file(source)
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(source)  # Python's own import lock makes other threads wait
    except ImportError as error:
        raise StrategyError(f"cannot import module {source!r}: {error}") from None


def _load_file(source: str) -> ModuleType:
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
        _imported[str(path)] = file_digest(path)
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[module_name]
        _imported.pop(str(path), None)
        raise StrategyError(f"{path} failed to import: {type(error).__name__}: {error}") from None
    return module


#: The files this process imported with :func:`load_plugin`: absolute path -> :func:`file_digest` of the
#: contents it imported.
_imported: dict[str, str] = {}


def file_digest(path) -> str:
    """The first 16 hex digits of the SHA-256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def plugin_digest(source: str) -> str:
    """What a run records of the file ``source`` (a plugin or the file of a ``FILE.py:NAME``): the
    :func:`file_digest` of the contents this process imported (importing it now if it has not).

    A process imports a file once, so a file edited since then would play its old code under the new
    contents' digest: :class:`StrategyError` says so, and a new process plays the new version."""
    load_plugin(source)
    path = canonical_source(source)
    try:
        now = file_digest(path)
    except OSError as error:
        raise StrategyError(f"cannot read {path}: {error.strerror or error}") from None
    imported = _imported.get(path, now)
    if now != imported:
        raise StrategyError(f"{path} has changed since this Python process imported it; start a new process"
                            " to play its new version")
    return imported


def strategy_from_source(role: str, name: str) -> Strategy:
    """The strategy ``SOURCE:NAME`` of ``role``: what importing the source registered as ``NAME``, or its
    attribute ``NAME`` registered under the whole name."""
    source, _, attribute = name.rpartition(":")
    if not source or not attribute:
        raise StrategyError(f"{role} {name!r}: write FILE.py:NAME or MODULE:NAME")
    module = load_plugin(source)
    full = canonical_name(name)
    known = _registry[role]
    found = known.get(full) or known.get(attribute)
    if found is not None and found.factory.__module__ == module.__name__:
        return found
    factory = getattr(module, attribute, None)
    if factory is None:
        raise StrategyError(f"{canonical_source(source)} has no {attribute!r}")
    register(role, full)(factory)
    return known[full]
