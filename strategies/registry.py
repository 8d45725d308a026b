"""Strategies by role and name: built-ins register themselves, other packages through entry points.

Roles (:mod:`strategies.roles`): ``evaluator``, ``bidder``, ``discarder``,
``declarer`` and ``card_play``. ``@register(role, name)`` records a factory: a
function whose keyword parameters are the strategy's parameters and which
returns the strategy. An evaluator is registered as the evaluator function
itself, ``f(hands, seats, **params)``; building it binds the parameters.
:func:`build` is the one way to make any strategy from its name and parameters.

A third-party package adds its own by naming a module in the entry-point group
``skatsim.strategies``; importing that module runs its ``@register`` decorators.
"""

from __future__ import annotations

import inspect
import math
import re
import warnings
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, Callable

import numpy as np

from . import roles

ROLES = ("evaluator", "bidder", "discarder", "declarer", "card_play")
#: Hands an evaluator scores in one numpy call (see BoundEvaluator).
EVALUATOR_BLOCK = 8192
ENTRY_POINT_GROUP = "skatsim.strategies"


class StrategyError(ValueError):
    """An unknown strategy, or parameters it does not take."""


class StrategyWarning(UserWarning):
    """A strategy registered without a range for a numeric parameter: its values are only checked
    to be finite numbers."""


@dataclass(frozen=True)
class Range:
    """The values a numeric parameter may take: a finite number from ``low`` to ``high``; for a
    list parameter, ``count`` such numbers, or ``inf`` where ``allow_inf`` (a threshold no score
    reaches)."""

    low: float
    high: float
    count: int | None = None
    allow_inf: bool = False

    def describe(self) -> str:
        span = f"from {self.low:g} to {self.high:g}" + (" or inf" if self.allow_inf else "")
        return f"a number {span}" if self.count is None else f"a list of {self.count} numbers, each {span}"

    def admits(self, value) -> bool:
        if self.count is None:
            return self._admits_number(value)
        return (isinstance(value, (list, tuple)) and len(value) == self.count
                and all(self._admits_number(v) for v in value))

    def _admits_number(self, value) -> bool:
        if not is_number(value):
            return False
        if self.allow_inf and value == math.inf:
            return True
        return is_finite(value) and self.low <= value <= self.high


def is_number(value) -> bool:
    """An int or float (a bool is not a number here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_finite(value) -> bool:
    """A number that is neither NaN nor infinite (an int of any size is finite)."""
    return is_number(value) and (isinstance(value, int) or math.isfinite(value))


@dataclass(frozen=True)
class Strategy:
    role: str
    name: str
    factory: Callable[..., Any]
    summary: str
    logged: bool = False      # evaluators: every run logs its scores
    ranges: dict = field(default_factory=dict)   # parameter -> Range


_registry: dict[str, dict[str, Strategy]] = {role: {} for role in ROLES}
_entry_points_loaded = False


def register(role: str, name: str, *, logged: bool = False, ranges: dict | None = None):
    """Decorator: register ``factory`` as strategy ``name`` of ``role``.

    ``factory(**params)`` returns the strategy; an evaluator is registered as the
    function ``f(hands, seats, **params)`` itself. ``logged=True`` (evaluators) makes
    every run log its scores, so that analysis can compare it with the others.
    ``ranges`` maps each numeric parameter to its :class:`Range` (or a ``(low, high)``
    pair); :func:`build` refuses values outside it, NaN and infinities.
    """
    if role not in ROLES:
        raise StrategyError(f"unknown role {role!r} (one of {', '.join(ROLES)})")
    bounds = {k: v if isinstance(v, Range) else Range(*v) for k, v in (ranges or {}).items()}

    def add(factory):
        doc = inspect.getdoc(factory) or ""
        strategy = Strategy(role, name, factory, plain_text(doc.split("\n")[0]), logged, bounds)
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


_ROLE_MARKUP = re.compile(r":[\w:.-]+:`~?(?:[^`<]*<)?([^`>]+)>?`")   # :class:`x`, :func:`~a.b`, :ref:`t <x>`
_LITERAL = re.compile(r"``([^`]+)``|`([^`]+)`")
_EMPHASIS = re.compile(r"\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*")


def plain_text(text: str) -> str:
    """A docstring line without its reStructuredText markup: ``margin`` and :class:`x` as margin
    and x, *word* as word."""
    text = _ROLE_MARKUP.sub(lambda m: m.group(1).rsplit(".", 1)[-1] if "~" in m.group(0) else m.group(1), text)
    text = _LITERAL.sub(lambda m: m.group(1) or m.group(2), text)
    return _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), text)


def missing_ranges(strategy: Strategy) -> list[str]:
    """The numeric parameters of ``strategy`` (a number by default or by annotation, and
    ``thresholds``) that declare no range."""
    found = []
    for parameter in settable_parameters(strategy).values():
        numeric = is_number(parameter.default) or str(parameter.annotation) in ("float", "int")
        if (numeric or parameter.name == "thresholds") and parameter.name not in strategy.ranges:
            found.append(parameter.name)
    return found


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
        raise StrategyError(
            f"unknown {role} {name!r} (known: {', '.join(names(role)) or 'none'})"
        ) from None


def build(role: str, name: str, **params):
    """The strategy ``name`` of ``role`` with ``params`` set; :class:`StrategyError` for an unknown
    name or parameter, naming what exists."""
    strategy = lookup(role, name)
    check_params(strategy, params)
    if role == "evaluator":
        if getattr(strategy.factory, "thresholds", None) is None:
            raise StrategyError(f"evaluator {name!r} has no thresholds attribute")
        return BoundEvaluator(name, strategy.factory, dict(params))
    built = strategy.factory(**params)
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


def settable_parameters(strategy: Strategy) -> dict[str, inspect.Parameter]:
    """The parameters a user sets: the factory's keyword parameters (an evaluator's hands and
    seats are not settable)."""
    skip = 2 if strategy.role == "evaluator" else 0
    parameters = list(inspect.signature(strategy.factory).parameters.values())[skip:]
    return {p.name: p for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


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
        expected = _expected(strategy, known[name], value)
        if expected:
            raise StrategyError(f"{strategy.role} {strategy.name!r}: {name} must be {expected}, not {value!r}")


def _expected(strategy: Strategy, parameter: inspect.Parameter, value) -> str | None:
    """What ``value`` should have been, or None when it is fine."""
    if value is None and parameter.default is None:
        return None  # left at its default
    bounds = strategy.ranges.get(parameter.name)
    if bounds is not None:
        whole = str(parameter.annotation) == "int" and bounds.count is None
        if not bounds.admits(value) or (whole and not isinstance(value, int)):
            return ("a whole number" + bounds.describe()[len("a number"):]) if whole else bounds.describe()
        return None
    kind = _KINDS.get(str(parameter.annotation))
    if kind is None and is_number(parameter.default):
        kind = _KINDS["float"]
    if kind is not None and not kind[0](value):
        return kind[1]
    return None


#: Parameter annotations whose values are checked (numeric parameters have ranges instead).
_KINDS = {
    "str": (lambda v: isinstance(v, str), "a text"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "dict | None": (lambda v: v is None or isinstance(v, dict), "a table of parameters"),
    "list | None": (lambda v: v is None or isinstance(v, list), "a list"),
    "float": (is_finite, "a finite number"),
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number"),
}


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
