"""summary.md: the key figures of a report in a few lines of Markdown.

After the runs, each registered table with a summary part adds its lines, in the order the
tables were registered (:mod:`analysis.catalogue`); each part takes the
:class:`analysis.registry.Report` and gives no lines when its table is not there.
"""

from __future__ import annotations

import polars as pl

from . import registry
from .formats import MISSING, contract_columns, counted, mean_column, number, rate_text, rows_of, side_by_side
from .registry import Report
from .runs import Run
from .thresholds import in_lead_split

POOLED_GROUPS = ("suit games", "grand", "null")
NO_SCORES = "None: no declared game has an evaluator score."


def markdown_table(header: list[str], body: list[list[str]], empty: str = "None.") -> list[str]:
    """The lines of a Markdown table, or the sentence ``empty`` if it has no rows."""
    if not body:
        return [empty, ""]
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(row) + " |" for row in body), ""]


def summary_markdown(report: Report) -> str:
    lines = ["# skatsim analysis: summary", "",
             "Full report: `report.html`; tables in `tables/` (CSV, Parquet), plots in `plots/`.", ""]
    lines += runs_part(report.runs)
    for table in registry.tables():
        if table.summary is not None:
            lines += table.summary(report)
    return "\n".join(lines) + "\n"


def runs_part(runs: list[Run]) -> list[str]:
    lines = ["## Runs", ""]
    for r in runs:
        mode = "" if r.mode == "match" else f"{r.mode} mode, "   # a match's origin says it is one
        lines.append(f"- **{r.label}**: {r.origin}, {mode}"
                     f"{counted(r.deals, 'deal') if not r.imported else r.size()}"
                     f"{'' if r.complete else ' (partial run)'}")
    conditional = ", ".join(r.label for r in runs if r.dealing)
    if conditional:
        lines += ["", f"{conditional}: dealt only deals with fixed cards or meeting a condition; every rate holds for"
                      " those deals, not for all deals."]
    imported = ", ".join(r.label for r in runs if r.imported)
    if imported:
        lines += ["", f"{imported}: imported from game archives; contract success counts only games played out or"
                      " conceded (resigned or claimed), not those a time-out or a player leaving ended."]
    return lines + [""]


def mix_part(report: Report) -> list[str]:
    """The game mix side by side, and how the deals ended when a run is imported."""
    runs, tables = report.runs, report.tables
    if "game_mix" not in tables:
        return []
    lines = ["## Game mix (share of declared games, 95% intervals, games)", "",
             *markdown_table(*side_by_side(tables["game_mix"], "game", rate="share", count="games"))]
    if any(r.imported for r in runs):
        lines += ["## How the deals ended (share of deals, 95% intervals, deals)", "",
                  *markdown_table(*side_by_side(tables["game_ends"], "ended", rate="share", count="deals"))]
    return lines


def match_part(report: Report) -> list[str]:
    """The duplicate match's result: each side's Seeger-Fabian points per game and A - B with its interval."""
    if "match" not in report.tables:
        return []
    lines = ["## Duplicate match (Seeger-Fabian points per game, A - B with its 95% interval over deals)", ""]
    for row in report.tables["match"].iter_rows(named=True):
        lines.append(f"- {row['a']} against {row['b']} on {counted(row['deals'], 'deal')}: "
                     f"A {number(row['sf_per_game_a'], 2)}, B {number(row['sf_per_game_b'], 2)}, "
                     f"A - B {number(row['difference'], 2)} [{number(row['difference_low'], 2)}, "
                     f"{number(row['difference_high'], 2)}]")
    return lines + [""]


def passed_in_part(report: Report) -> list[str]:
    """The passed-in rate of each game-mode run; a sentence saying why there is none otherwise."""
    tables = report.tables
    lines = ["## Passed-in rate", ""]
    if "passed_in" not in tables:
        if all(run.mode == "match" for run in report.runs):
            return []  # a match's passed-in deals count in its points per game (see the match part)
        return lines + ["Not measured: declare-mode runs have no auction (every seat declares every game).",
                        ""]
    return lines + [f"- {row['run']}: {rate_text(row, 'passed_rate')} of {counted(row['deals'], 'deal')}"
                    for row in tables["passed_in"].iter_rows(named=True)] + [""]


def contracts_part(report: Report) -> list[str]:
    tables = report.tables
    if "contracts_by_game" not in tables:
        return []
    columns = {**contract_columns("run", "contract", results=("games", "win rate")),
               "mean Seeger-Fabian": lambda r: number(r["mean_sf"])}
    if (tables["contracts_by_game"]["oh_games"] > 0).any():
        columns["open-hand win rate"] = lambda r: rate_text(r, "oh_win_rate") if r["oh_games"] else MISSING
    return ["## Declarer win rate by game type (95% intervals)", "",
            *markdown_table(*rows_of(tables["contracts_by_game"], columns),
                            empty="No game was declared: every deal was passed in.")]


def evaluators_part(report: Report) -> list[str]:
    tables = report.tables
    if "evaluators" not in tables:
        return []
    measured = tables["evaluators"]
    best = measured.filter(pl.col("group").is_in(POOLED_GROUPS), pl.col("rank") == 1)
    columns = {"run": "run", "game group": "group", "best evaluator": "evaluator",
               "ROC AUC (95% interval)": mean_column("auc", 3),
               "indistinguishable from it (paired)": _indistinguishable(tables.get("evaluator_pairs"))}
    empty = (NO_SCORES if not measured.height
             else "None yet: no game group has both a won and a lost game.")
    return ["## Best evaluator by ROC AUC", "", *markdown_table(*rows_of(best, columns), empty=empty)]


def _indistinguishable(pairs: pl.DataFrame | None):
    """The evaluators whose paired AUC difference from a row's best holds 0 (analysis.pairs), by name."""
    def names(row: dict) -> str:
        if pairs is None:
            return MISSING
        found = pairs.filter(pl.col("run") == row["run"], pl.col("group") == row["group"],
                             pl.col("verdict") == "indistinguishable")["evaluator"].to_list()
        return ", ".join(found) or "none"
    return names


def break_even_part(report: Report) -> list[str]:
    tables, min_rows = report.tables, report.min_rows
    if "break_even" not in tables:
        return []
    even = tables["break_even"]
    rows = in_lead_split(even, report.runs).filter(pl.col("status") == "crossing")
    if not even.height:
        empty = NO_SCORES
    elif not (even["bins_used"] > 0).any():
        empty = f"None yet: no score bin has {min_rows} games."
    else:
        empty = f"None found: no expected-score curve crosses 0 among the score bins with {min_rows} games."
    columns = {"run": "run", "evaluator": "evaluator", "game": "game",
               "variant": lambda r: "every variant" if r["variant"] == "all" else r["variant"],
               "seats": lambda r: "all seats" if r["seats"] == "all" else r["seats"],
               "break-even score (95% interval)": mean_column("break_even", 2),
               "shipped threshold": lambda r: number(r["evaluator_threshold"], 2)}
    lines = ["## Break-even scores", "",
             "The score from which the declarer's expected Seeger-Fabian score beats passing, for the variant and "
             "seats each run was dealt for (a declare-mode run of every variant: the pick-up games; a run dealt for "
             "one seat: that seat); every variant and seat, and against the table (minus the defenders' mean): "
             "`tables/break_even.csv`, `tables/break_even_table.csv`.", ""]
    game_mode = [run.label for run in report.runs if run.mode == "game"]
    if not game_mode:
        return [*lines, *markdown_table(*rows_of(rows, columns), empty=empty)]
    declared = pl.col("run").is_in(game_mode)
    if len(game_mode) < len(report.runs):
        lines += [*markdown_table(*rows_of(rows.filter(~declared), columns), empty=empty), ""]
    return [*lines, "### Among the games declared (game mode)", "",
            "These runs hold only the games an auction let through, bid by players whose own evaluators chose "
            "them: where a declared game's expected score turns positive, not a threshold to bid on (take those "
            "from a declare-mode run).", "",
            *markdown_table(*rows_of(rows.filter(declared), columns), empty=empty)]


def comparison_part(report: Report) -> list[str]:
    tables, notes = report.tables, report.notes
    if "comparison" not in tables and not notes:
        return []
    lines = ["## Paired comparison (same deals)", ""]
    if "comparison" in tables and tables["comparison"].height:
        columns = {"A": "run_a", "B": "run_b", "metric": "metric",
                   "B - A (95% interval)": mean_column("difference", 3)}
        lines += markdown_table(*rows_of(tables["comparison"], columns))
    return lines + [f"- {note}" for note in notes]
