"""summary.md: the key figures of a report in a few lines of Markdown."""

from __future__ import annotations

import polars as pl

from .formats import contract_columns, mean_column, number, rate_text, rows_of
from .runs import Run

POOLED_GROUPS = ("suit games", "grand", "null")


def markdown_table(header: list[str], body: list[list[str]]) -> list[str]:
    if not body:
        return ["(none)", ""]
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(row) + " |" for row in body), ""]


def summary_markdown(runs: list[Run], tables: dict, notes: list[str]) -> str:
    lines = ["# skatsim analysis: summary", "",
             "Full report: `report.html`; tables in `tables/` (CSV, Parquet), plots in `plots/`.", ""]
    for part in (runs_part(runs), passed_in_part(tables), contracts_part(tables), heuristics_part(tables),
                 break_even_part(tables), comparison_part(tables, notes)):
        lines += part
    return "\n".join(lines) + "\n"


def runs_part(runs: list[Run]) -> list[str]:
    return ["## Runs", "", *(f"- **{r.label}**: {r.mode} mode, seed {r.seed}, profile {r.profile}, "
                             f"{r.deals:,} deals{'' if r.complete else ' (partial run)'}" for r in runs), ""]


def passed_in_part(tables: dict) -> list[str]:
    lines = ["## Passed-in rate", ""]
    if "passed_in" not in tables:
        return lines + ["Not measured: declare-mode runs have no auction (every seat declares every game).",
                        ""]
    return lines + [f"- {row['run']}: {rate_text(row, 'passed_rate')} of {row['deals']:,} deals"
                    for row in tables["passed_in"].iter_rows(named=True)] + [""]


def contracts_part(tables: dict) -> list[str]:
    if "contracts_by_game" not in tables:
        return []
    columns = {**contract_columns("run", "contract", results=("games", "win rate")),
               "mean Seeger-Fabian": lambda r: number(r["mean_sf"])}
    return ["## Declarer win rate by game type (95% intervals)", "",
            *markdown_table(*rows_of(tables["contracts_by_game"], columns))]


def heuristics_part(tables: dict) -> list[str]:
    if "heuristics" not in tables:
        return []
    best = tables["heuristics"].filter(pl.col("group").is_in(POOLED_GROUPS), pl.col("rank") == 1)
    columns = {"run": "run", "game group": "group", "best evaluator": "evaluator",
               "ROC AUC (95% interval)": mean_column("auc", 3)}
    return ["## Best evaluator by ROC AUC", "", *markdown_table(*rows_of(best, columns))]


def break_even_part(tables: dict) -> list[str]:
    if "break_even" not in tables:
        return []
    rows = tables["break_even"].filter(pl.col("seats") == "all", pl.col("status") == "crossing")
    columns = {"run": "run", "evaluator": "evaluator", "game": "game",
               "break-even score (95% interval)": mean_column("break_even", 2),
               "shipped threshold": lambda r: number(r["evaluator_threshold"], 2)}
    return ["## Break-even scores (all seats)", "",
            "The score from which the expected Seeger-Fabian score beats passing (in game-mode runs: "
            "among the games declared).", "", *markdown_table(*rows_of(rows, columns))]


def comparison_part(tables: dict, notes: list[str]) -> list[str]:
    lines = []
    if "comparison" in tables:
        columns = {"A": "run_a", "B": "run_b", "metric": "metric",
                   "B - A (95% interval)": mean_column("difference", 3)}
        lines += ["## Paired comparison (same deals)", "",
                  *markdown_table(*rows_of(tables["comparison"], columns))]
    return lines + [f"- {note}" for note in notes]
