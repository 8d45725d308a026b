"""A strategy's parameters, declared once: name, kind, default, the values it may take, one line of doc.

A built-in strategy registers its declaration (``@register(role, name, parameters=(...))``) and its
factory takes those names as keyword arguments with no defaults of its own; the registry fills the
defaults, checks every value a profile or ``--set`` gives against the declaration, and ``skatsim
strategies`` and the docs print it. A strategy of another package may instead declare its
parameters by its factory's signature, with ``ranges`` for the numbers (:func:`from_signature`).

A card player's kernel reads its numeric, true-or-false and chosen-by-name parameters from a row of
floats: :func:`slots` lays that row out from the declaration (a named tuple of offsets, which numba
reads as constants: ``params[PIMC.worlds]``) and :func:`row` writes it, a choice as its index among
the choices (:meth:`Parameter.code`). :func:`first_sentence` gives the sentence that ``skatsim strategies``
prints beside a strategy's name.
"""

from __future__ import annotations

import inspect
import math
import re
from collections import namedtuple
from dataclasses import dataclass, replace
from typing import Any, Callable

#: The kinds of parameter, by the name a declaration gives.
KINDS = ("number", "whole", "flag", "choice", "text", "numbers", "section")


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
class Parameter:
    """One parameter of a strategy.

    ``kind`` is one of :data:`KINDS`: ``number`` and ``whole`` within ``range``, ``flag`` true or
    false, ``choice`` one of ``choices``, ``text`` any text, ``numbers`` a list within ``range``,
    ``section`` a section of settings (a dict) or none.
    """

    name: str
    kind: str
    default: Any
    doc: str
    range: Range | None = None
    choices: tuple[str, ...] = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"parameter {self.name!r}: kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if isinstance(self.range, tuple):
            object.__setattr__(self, "range", Range(*self.range))
        if self.kind == "choice" and self.default not in self.choices:
            raise ValueError(f"parameter {self.name!r}: the default {self.default!r} is not one of its choices")

    def expected(self, value) -> str | None:
        """What ``value`` should have been, or None when the parameter takes it."""
        if value is None and self.default is None:
            return None  # left at its default
        if self.kind in ("number", "whole", "numbers") and self.range is not None:
            whole = self.kind == "whole"
            if not self.range.admits(value) or (whole and not isinstance(value, int)):
                return self.values()
            return None
        if self.kind == "choice":
            return None if value in self.choices else "one of " + ", ".join(map(repr, self.choices))
        test, wanted = _CHECKS[self.kind]
        return None if test(value) else wanted

    def code(self, value) -> float:
        """The parameter's value as a kernel reads it from a row: a number, 1 or 0 for a flag, a choice's
        index among the choices."""
        if self.kind == "choice":
            return float(self.choices.index(value))
        return float(value)

    def values(self) -> str:
        """The values it may take, in words."""
        bounded = self.range.describe() if self.range else None
        if self.kind == "whole":
            return "a whole number" + (bounded[len("a number"):] if bounded else "")
        words = {"number": bounded or "a number", "flag": "true or false", "text": "a text",
                 "choice": " or ".join(f'"{c}"' for c in self.choices), "numbers": bounded or "a list of numbers",
                 "section": "a section of settings"}
        return words[self.kind]

    def describe(self) -> str:
        """One line: the name, the default, the values it may take and the doc."""
        default = "none" if self.default is None else _toml(self.default)
        return f"{self.name} = {default} ({self.values()}){': ' + self.doc if self.doc else ''}"


_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "number": (is_finite, "a finite number"),
    "whole": (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number"),
    "flag": (lambda v: isinstance(v, bool), "true or false"),
    "text": (lambda v: isinstance(v, str), "a text"),
    "numbers": (lambda v: isinstance(v, list), "a list"),
    "section": (lambda v: v is None or isinstance(v, dict), "a section of parameters"),
}


def with_defaults(parameters: tuple[Parameter, ...], **defaults) -> tuple[Parameter, ...]:
    """The declaration ``parameters`` with other defaults for some (a player built on another's)."""
    unknown = set(defaults) - {p.name for p in parameters}
    if unknown:
        raise ValueError(f"no parameter {', '.join(sorted(unknown))} to give a default")
    return tuple(replace(p, default=defaults[p.name]) if p.name in defaults else p for p in parameters)


def from_signature(factory: Callable, ranges: dict, skip: int = 0) -> tuple[Parameter, ...]:
    """The declaration of a strategy that declares its parameters by its factory's signature: each
    keyword parameter with its default, of the kind its annotation or default says, within its
    ``ranges`` entry (``skip``: the leading parameters that are not settable, an evaluator's hands and
    seats)."""
    found = []
    for p in list(inspect.signature(factory).parameters.values())[skip:]:
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            continue
        default = None if p.default is p.empty else p.default
        found.append(Parameter(p.name, _kind_of(p, ranges.get(p.name)), default, "", ranges.get(p.name)))
    return tuple(found)


def _kind_of(parameter: inspect.Parameter, bounds) -> str:
    annotation = str(parameter.annotation)
    named = {"str": "text", "bool": "flag", "int": "whole", "float": "number", "dict | None": "section",
             "list | None": "numbers", "list": "numbers"}
    if annotation in named:
        return named[annotation]
    if isinstance(bounds, Range) and bounds.count is not None:
        return "numbers"
    if isinstance(parameter.default, bool):
        return "flag"
    if is_number(parameter.default) or bounds is not None:
        return "number"
    if isinstance(parameter.default, str):
        return "text"
    return "section"


def slots(name: str, parameters: tuple[Parameter, ...]):
    """The row a card player's kernel reads, laid out from its declaration: a named tuple of the offsets
    of its numbers, whole numbers, flags and choices (texts and tables are not in the row), and
    ``size``."""
    kept = [p.name for p in parameters if p.kind in ("number", "whole", "flag", "choice")]
    return namedtuple(name, [*kept, "size"])(*range(len(kept)), size=len(kept))


def row(layout, parameters: tuple[Parameter, ...], values: dict) -> tuple[float, ...]:
    """The row of ``layout`` (:func:`slots`) holding ``values`` (by name; a parameter not given takes its
    default, and one the row has no slot for is left out)."""
    declared = {p.name: p for p in parameters}
    out = [0.0] * layout.size
    for name in layout._fields[:-1]:
        out[getattr(layout, name)] = declared[name].code(values.get(name, declared[name].default))
    return tuple(out)


def markdown_table(parameters: tuple[Parameter, ...]) -> str:
    """The declaration as a Markdown table, as the docs print it: a row a parameter with its default, the
    values it may take and its doc."""
    lines = ["| parameter | default | values | meaning |", "|---|---|---|---|"]
    for p in parameters:
        default = "none" if p.default is None else f"`{_toml(p.default)}`"
        lines.append(f"| `{p.name}` | {default} | {p.values()} | {p.doc} |")
    return "\n".join(lines)


_SENTENCE_END = re.compile(r"(?<=[.?!])\s+(?=[A-Z])")   # a full stop, a space, a capital letter
_ROLE_MARKUP = re.compile(r":[\w:.-]+:`(~?)(?:[^`<]*<)?([^`>]+)>?`")   # :class:`x`, :func:`~a.b`, :ref:`t <x>`
_LITERAL = re.compile(r"``([^`]+)``|`([^`]+)`")


def first_sentence(doc: str | None) -> str:
    """The first sentence of a docstring, whole, in one line: its first paragraph's lines joined up to the
    first ".", "?" or "!" that a space and a capital letter follow (the whole paragraph if none does).
    ``literal`` and :role:`name` markup show as the text they mark (``~a.b`` as ``b``); every other
    character is kept as written (``*``, hyphens, quotes)."""
    paragraph = " ".join(line.strip() for line in (doc or "").strip().split("\n\n")[0].splitlines())
    end = _SENTENCE_END.search(paragraph)
    sentence = paragraph[:end.start()] if end else paragraph
    sentence = _ROLE_MARKUP.sub(lambda m: m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2), sentence)
    return _LITERAL.sub(lambda m: m.group(1) or m.group(2), sentence)


def _toml(value) -> str:
    """A value as a profile or ``--set`` writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return f"{value:g}" if isinstance(value, float) else str(value)
