"""Numbers of the analysis tables as text for people: rates in percent, intervals in brackets."""

from __future__ import annotations

import re

import polars as pl

from .intervals import TOO_FEW

MISSING = "–"


def number(value, digits: int = 1) -> str:
    if value is None or value != value:
        return MISSING
    return f"{value:,.{digits}f}"


def counted(n: int, noun: str) -> str:
    """``1 deal``, ``1,000 deals``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def short(value) -> str:
    """A score as short as it is exact: 3, 5.5, -1.25."""
    return MISSING if value is None or value != value else f"{value:g}"


def percent(value, digits: int = 1) -> str:
    if value is None or value != value:
        return MISSING
    return f"{100 * value:.{digits}f}%"


def rate_text(row: dict, name: str) -> str:
    """``74.6% (71.6–77.4%)``: a rate and its interval."""
    low = percent(row[name + "_lo"]).rstrip("%")
    return f"{percent(row[name])} ({low}–{percent(row[name + '_hi'])})"


def mean_text(row: dict, name: str, digits: int = 1) -> str:
    """``32.8 (27.3 to 38.3)``: a mean and its interval; ``74.0 (too few)`` for a group too small for one
    (see :data:`analysis.intervals.MIN_GAMES`)."""
    if row.get(name + "_interval") == TOO_FEW:
        return f"{number(row[name], digits)} ({TOO_FEW})"
    low, high = number(row[name + "_lo"], digits), number(row[name + "_hi"], digits)
    return f"{number(row[name], digits)} ({low} to {high})"


def cell(value) -> str:
    if isinstance(value, float):
        return number(value, 2)
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return MISSING if value is None else str(value)


def rows_of(table: pl.DataFrame, columns: dict) -> tuple[list[str], list[list[str]]]:
    """Header and text cells of a small table.

    ``columns`` maps each header to a column name or to a function of the row (a dict).
    """
    body = [[spec(row) if callable(spec) else cell(row[spec]) for spec in columns.values()]
            for row in table.iter_rows(named=True)]
    return list(columns), body


def rate_column(name: str):
    return lambda row: rate_text(row, name)


def mean_column(name: str, digits: int = 1):
    return lambda row: mean_text(row, name, digits)


#: The columns of a contract table as people read them.
CONTRACT_COLUMNS = {
    "games": "games",
    "win rate": rate_column("win_rate"),
    "schneider": rate_column("schneider_rate"),
    "schwarz": rate_column("schwarz_rate"),
    "overbid": rate_column("overbid_rate"),
    "mean value": lambda row: number(row["mean_value"]),
    "classic score": mean_column("mean_score"),
    "Seeger-Fabian": mean_column("mean_sf"),
    "contested": lambda row: rate_text(row, "contested_rate") if row["auctions"] else MISSING,
}


def contract_columns(*keys: str, results=tuple(CONTRACT_COLUMNS)) -> dict:
    """``keys`` as they are, then the named contract columns."""
    return {**{key: key for key in keys}, **{name: CONTRACT_COLUMNS[name] for name in results}}


def side_by_side(table: pl.DataFrame, key: str, *, rate: str, count: str) -> tuple[list[str], list[list[str]]]:
    """One row per value of ``key``, one column per run: the rate with its interval, and the count."""
    runs = list(dict.fromkeys(table["run"].to_list()))
    cells: dict[str, dict[str, str]] = {}
    for row in table.iter_rows(named=True):
        text = MISSING if row[rate] is None else f"{rate_text(row, rate)}, {row[count]:,}"
        cells.setdefault(row[key], {})[row["run"]] = text
    return [key, *runs], [[value, *(cells[value].get(r, MISSING) for r in runs)] for value in cells]


def slug(text: str) -> str:
    """``text`` as a part of a file name: ``bolder run 2`` -> ``bolder_run_2``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "run"
