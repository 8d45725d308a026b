"""Strategies by role and name: built-ins register themselves, other packages through entry points.

Roles: ``evaluator`` (hand -> score per game type), ``bidder``, ``discarder``,
``declarer`` and ``card_play``. A third-party package adds its own by naming a
module in the entry-point group ``skatsim.strategies``; importing that module
runs its ``@register`` decorators.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Callable

ROLES = ("evaluator", "bidder", "discarder", "declarer", "card_play")
ENTRY_POINT_GROUP = "skatsim.strategies"


class StrategyError(ValueError):
    """An unknown strategy, or parameters it does not take."""


@dataclass(frozen=True)
class Strategy:
    role: str
    name: str
    factory: Callable[..., Any]
    summary: str


_registry: dict[str, dict[str, Strategy]] = {role: {} for role in ROLES}
_entry_points_loaded = False


def register(role: str, name: str):
    """Decorator: register ``factory`` as strategy ``name`` of ``role``.

    ``factory(**params)`` must return the strategy; for evaluators the factory is
    the evaluator itself when it takes no parameters beyond the hands.
    """
    if role not in ROLES:
        raise StrategyError(f"unknown role {role!r} (one of {', '.join(ROLES)})")

    def add(factory):
        doc = inspect.getdoc(factory) or ""
        _registry[role][name] = Strategy(role, name, factory, doc.split("\n")[0])
        return factory

    return add


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


def check_params(strategy: Strategy, params: dict[str, Any], skip: int = 0) -> None:
    """Raise StrategyError when ``params`` are not keyword parameters of the strategy's factory.

    ``skip`` positional parameters (such as the hands an evaluator is called with) are not
    parameters a user sets.
    """
    signature = inspect.signature(strategy.factory)
    settable = [p for p in list(signature.parameters.values())[skip:]
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    known = {p.name for p in settable}
    unknown = sorted(set(params) - known)
    if unknown:
        raise StrategyError(
            f"{strategy.role} {strategy.name!r} has no parameter {', '.join(map(repr, unknown))}"
            f" (its parameters: {', '.join(sorted(known)) or 'none'})"
        )


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for point in entry_points(group=ENTRY_POINT_GROUP):
        point.load()
