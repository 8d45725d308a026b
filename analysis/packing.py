"""Counting rows by many small whole-number columns, fast: the columns packed into a few int64 keys.

The cubes of analysis (:mod:`analysis.contracts`, :mod:`analysis.binning`) count the games per
ten to sixteen columns (seat, game, bid, flags, scores ...). polars groups rows by one int64
column several times faster than by many columns of mixed types, so :func:`packed_group_by`
writes each row's values as the digits of one or two int64 numbers (mixed radix: each column
has as many digits as it has values, plus one for null), groups by those, and reads the columns
back from the few aggregated rows. The result is the same as grouping by the columns themselves:
the same groups, the same values and types, in the order of the columns given.

A column's range of values comes from :data:`RANGES` or from its type (booleans, Int8, Int16);
a column of another type is grouped by as it is.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, replace

import polars as pl

#: The deal groups of a declare-mode run, and the column of each row's (:mod:`analysis.deal_groups`).
DEAL_GROUPS = 200
DEAL_GROUP = "deal_group"

#: Largest value of a packed key (the digits of one key stay below it).
KEY_LIMIT = 2**62
#: Columns whose values are narrower than their type says: (lowest value, number of values, scale),
#: the column times its scale being a whole number. ``sf_table`` is the declarer's Seeger-Fabian
#: score minus the mean of the two defenders' (:func:`analysis.games.table_sf`): halves, between
#: -3 and 3 times the int16 range.
RANGES = {
    "seat": (0, 3, 1),
    "game": (0, 6, 1),
    "value_reached": (-2**15, 2**16, 1),
    "sf_table": (-3 * 2**16, 6 * 2**16 + 1, 2),
    DEAL_GROUP: (0, DEAL_GROUPS, 1),
}
_TYPE_RANGES = {pl.Boolean: (0, 2, 1), pl.Int8: (-2**7, 2**8, 1), pl.Int16: (-2**15, 2**16, 1)}


@dataclass(frozen=True)
class Digit:
    """One column's place in a packed key: its values ``low .. low + count - 1`` (times ``scale``)."""

    name: str
    dtype: pl.DataType
    _: KW_ONLY
    low: int
    count: int
    scale: int
    stride: int = 1

    @property
    def radix(self) -> int:
        return self.count + 1  # digit 0 is null

    def code(self) -> pl.Expr:
        value = pl.col(self.name)
        whole = (value * self.scale if self.scale != 1 else value).cast(pl.Int64)
        return pl.when(value.is_null()).then(0).otherwise(whole - (self.low - 1)) * self.stride

    def value(self, key: str) -> pl.Expr:
        code = (pl.col(key) // self.stride) % self.radix
        whole = code + (self.low - 1)
        value = whole / self.scale if self.scale != 1 else whole
        return pl.when(code != 0).then(value).cast(self.dtype).alias(self.name)


def _digit(name: str, dtype: pl.DataType) -> Digit | None:
    found = RANGES.get(name) or _TYPE_RANGES.get(dtype)
    if found is None:
        return None
    low, count, scale = found
    return Digit(name, dtype, low=low, count=count, scale=scale)


def _keys(digits: list[Digit]) -> list[list[Digit]]:
    """The digits split into keys, in order, each key's digits with their strides."""
    keys: list[list[Digit]] = []
    stride = KEY_LIMIT
    for digit in digits:
        if stride * digit.radix > KEY_LIMIT:
            keys.append([])
            stride = 1
        keys[-1].append(replace(digit, stride=stride))
        stride *= digit.radix
    return keys


@dataclass(frozen=True)
class Packing:
    """How the ``columns`` of a frame are packed: the digits of each key, and the columns grouped by as
    they are."""

    columns: tuple[str, ...]
    keys: tuple[tuple[Digit, ...], ...]
    plain: tuple[str, ...]
    #: the types of the ``plain`` columns
    plain_types: tuple[pl.DataType, ...] = ()

    @classmethod
    def of(cls, schema, columns) -> Packing:
        """The packing of ``columns`` of a frame with ``schema`` (a mapping of names to types)."""
        digits = [_digit(name, schema[name]) for name in columns]
        keys = tuple(tuple(key) for key in _keys([d for d in digits if d is not None]))
        plain = tuple(name for name, d in zip(columns, digits) if d is None)
        return cls(tuple(columns), keys, plain, tuple(schema[name] for name in plain))

    @property
    def names(self) -> list[str]:
        return [f"__key{index}" for index in range(len(self.keys))]

    def add_keys(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """``frame`` with the packed keys (the packed columns are still there until a group-by drops
        them); frames built on the same keyed frame share it, so polars packs once."""
        return frame.with_columns(*(pl.sum_horizontal(*(d.code() for d in key)).alias(name)
                                    for name, key in zip(self.names, self.keys)))

    def group_by(self, keyed: pl.LazyFrame, **aggregates: pl.Expr) -> pl.LazyFrame:
        """``group_by(*columns).agg(**aggregates)`` of a frame made by :meth:`add_keys`: the columns
        with their types, in order, then the aggregates."""
        grouped = keyed.group_by(*self.names, *self.plain).agg(**aggregates)
        return grouped.select(*self._values(), *aggregates)

    def _values(self) -> list[pl.Expr]:
        values = {d.name: d.value(name) for name, key in zip(self.names, self.keys) for d in key}
        return [values.get(name, pl.col(name)) for name in self.columns]

    @property
    def packed(self) -> set[str]:
        """The columns packed into the keys (the others are :attr:`plain`)."""
        return set(self.columns) - set(self.plain)

    @property
    def code_names(self) -> list[str]:
        """The whole-number columns of :meth:`codes`: the packed keys, then a value and a null flag for
        each plain column."""
        return [*self.names, *(f"__{name}_{part}" for name in self.plain for part in ("value", "null"))]

    def codes(self) -> list[pl.Expr]:
        """Each row's values of the ``columns`` as int64 columns named :attr:`code_names`, for counting
        outside polars (:mod:`analysis.counting`); a plain column must hold whole numbers."""
        packed = [pl.sum_horizontal(*(d.code() for d in key)).alias(name) for name, key in zip(self.names, self.keys)]
        value, null = self.code_names[len(self.names)::2], self.code_names[len(self.names) + 1::2]
        plain = [expression for name, v, n in zip(self.plain, value, null)
                 for expression in (pl.col(name).fill_null(0).cast(pl.Int64).alias(v),
                                    pl.col(name).is_null().cast(pl.Int64).alias(n))]
        return [*packed, *plain]

    def decoded(self, codes: pl.DataFrame) -> pl.DataFrame:
        """The ``columns`` with their types, in order, from a frame of :meth:`codes`."""
        value, null = self.code_names[len(self.names)::2], self.code_names[len(self.names) + 1::2]
        plain = [pl.when(pl.col(n) == 0).then(pl.col(v)).cast(dtype).alias(name)
                 for name, dtype, v, n in zip(self.plain, self.plain_types, value, null)]
        return codes.with_columns(plain).select(self._values())


def packed_group_by(frame: pl.LazyFrame, columns: list[str], **aggregates: pl.Expr) -> pl.LazyFrame:
    """``frame.group_by(*columns).agg(**aggregates)`` (lazy), grouped by packed keys; the columns
    come back with their types, in the order given, then the aggregates."""
    packing = Packing.of(frame.collect_schema(), columns)
    return packing.group_by(packing.add_keys(frame), **aggregates)
