"""From run folders to a report: tables (CSV and Parquet), plots (PNG), report.html and summary.md.

    from analysis import analyze
    analyze(["results/default-game-seed1-1000000"], "results/report")   # -> results/report/report.html

The HTML page is self-contained (plots embedded as base64 PNG); ``summary.md``
holds the key figures in a few lines. docs/analysis.md explains every table and plot.
"""

from __future__ import annotations

import base64
import html
import re
import time
from pathlib import Path

import polars as pl
import pyarrow as pa

from sim.runs.folder import RunError, folder_in_place

from . import plots
from .formats import (
    MISSING,
    contract_columns,
    mean_column,
    number,
    percent,
    rate_column,
    rate_text,
    rows_of,
    short,
    side_by_side,
)
from .games import SEATS
from .runs import AnalysisError, Run, find_damage, load_runs
from .summary import POOLED_GROUPS, summary_markdown
from .tables import all_tables
from .thresholds import MIN_ROWS


def analyze(runs, out, evaluators: list[str] | None = None, min_rows: int = MIN_ROWS) -> Path:
    """Analyse the run folders ``runs`` into the folder ``out``; returns the path of report.html.

    Raises :class:`analysis.AnalysisError` (one line) for a folder that is not a
    run, an empty run, a run of another schema version, a damaged part (named), or an
    ``out`` that exists and is not a report. The report is written to a temporary
    folder and moved into place when complete, replacing an older report: an
    interrupted analysis never leaves a half report that looks whole.
    """
    checked = load_runs(runs)
    try:
        tables, notes = all_tables(checked, evaluators, min_rows)
    except (pl.exceptions.PolarsError, pa.ArrowException, OSError):
        found = [message for message in map(find_damage, checked) if message]
        if not found:
            raise
        raise AnalysisError(found[0]) from None
    try:
        with folder_in_place(Path(out), is_report) as folder:
            write_report(folder, checked, tables, notes, min_rows)
    except RunError as error:
        raise AnalysisError(str(error)) from None
    return Path(out) / "report.html"


def write_report(folder: Path, runs: list[Run], tables: dict, notes: list[str], min_rows: int) -> None:
    write_tables(tables, folder / "tables")
    figures = make_plots(tables, folder / "plots", min_rows)
    (folder / "summary.md").write_text(summary_markdown(runs, tables, notes, min_rows), encoding="utf-8")
    (folder / "report.html").write_text(report_html(runs, tables, figures, notes, min_rows), encoding="utf-8")


def is_report(folder: Path) -> bool:
    """A report folder (which a new report may replace): it holds report.html, or nothing."""
    return (folder / "report.html").is_file() or not any(folder.iterdir())


def write_tables(tables: dict[str, pl.DataFrame], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, table in tables.items():
        table.write_csv(folder / f"{name}.csv")
        table.write_parquet(folder / f"{name}.parquet")


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "run"


# --- plots ---------------------------------------------------------------------------------


def make_plots(tables: dict[str, pl.DataFrame], folder: Path, min_rows: int) -> list[tuple[str, str, Path]]:
    """(section, caption, file) of every plot the tables allow; a plot without data is left out, and its
    section of the page says so."""
    figures = []
    drawn = (*_match_plots(tables, folder), *_contract_plots(tables, folder),
             *_threshold_plots(tables, folder, min_rows), *_heuristic_plots(tables, folder, min_rows))
    for section, caption, path in drawn:
        if path is not None:  # a plot without data is not drawn
            figures.append((section, caption, path))
    return figures


def _match_plots(tables, folder):
    if "match_splits" in tables:
        yield ("match", "Duplicate match",
               plots.match_differences(tables["match_splits"], folder / "match.png"))


def _contract_plots(tables, folder):
    if "contracts_by_game" in tables:
        by_game = tables["contracts_by_game"]
        yield ("contracts", "Declarer win rate by game type", plots.grouped_bars(
            by_game, "contract", "win_rate", folder / "win_rate_by_game.png",
            "Declarer win rate by game type (95% Wilson intervals)", "declarer win rate", percent=True))
        yield ("contracts", "Mean Seeger-Fabian score by game type", plots.grouped_bars(
            by_game, "contract", "mean_sf", folder / "seeger_fabian_by_game.png",
            "Declarer's mean Seeger-Fabian score per game (95% intervals)", "Seeger-Fabian points per game"))
        yield ("matadors", "Win rate by matadors",
               plots.by_matadors(tables["contracts_by_matadors"], folder / "win_rate_by_matadors.png"))
    if "bid_success" in tables:
        yield "bids", "Bid success", plots.bid_success(tables["bid_success"], folder / "bid_success.png")
    if "comparison" in tables:
        yield ("comparison", "Paired differences",
               plots.comparison(tables["comparison"], folder / "comparison.png"))


def _threshold_plots(tables, folder, min_rows):
    if "threshold_curves" not in tables:
        return
    curves, even = tables["threshold_curves"], tables["break_even"]
    for run, evaluator in curves.select("run", "evaluator").unique(maintain_order=True).rows():
        pick = (pl.col("run") == run) & (pl.col("evaluator") == evaluator)
        path = folder / f"thresholds_{slug(run)}_{slug(evaluator)}.png"
        yield ("thresholds", f"{evaluator} thresholds, run {run}",
               plots.threshold_curves(curves.filter(pick), even.filter(pick), evaluator, run, path, min_rows))


def _heuristic_plots(tables, folder, min_rows):
    if "heuristics" not in tables:
        return
    yield ("heuristics", "ROC AUC",
           plots.heuristic_ranking(tables["heuristics"], folder / "heuristics_auc.png"))
    for run, part in tables["calibration"].group_by("run", maintain_order=True):
        path = folder / f"calibration_{slug(run[0])}.png"
        yield "calibration", f"Calibration, run {run[0]}", plots.calibration(part, run[0], path, min_rows)


# --- the page ------------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
img { max-width: 100%; height: auto; display: block; margin: 0.5em 0 1.5em; }
.note { background: #fff6dc; border-left: 4px solid #e0b000; padding: 0.5em 1em; }
details { margin: 0.5em 0; } summary { cursor: pointer; font-weight: 600; }
code { background: #f4f4f4; padding: 0 0.2em; }
.missing { color: #666; font-style: italic; }
"""


def html_table(header: list[str], body: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>\n" for row in body)
    return f"<table><thead><tr>{head}</tr></thead><tbody>\n{rows}</tbody></table>\n"


def frame_html(table: pl.DataFrame, columns: dict) -> str:
    return html_table(*rows_of(table, columns))


def folded(summary: str, content: str) -> str:
    return f"<details><summary>{html.escape(summary)}</summary>{content}</details>\n"


def note(text: str) -> str:
    return f"<p class='note'>{text}</p>\n"


def missing(text: str) -> str:
    """The one sentence that stands for a table or plot without (enough) data."""
    return f"<p class='missing'>{html.escape(text)}</p>\n"


def table_or(table: pl.DataFrame, columns: dict, sentence: str) -> str:
    """The table, or ``sentence`` if it has no rows."""
    return frame_html(table, columns) if table.height else missing(sentence)


def plots_or(images: dict, section: str, sentence: str) -> str:
    """The section's plots, or ``sentence`` if none had data."""
    return images.get(section) or missing(sentence)


def image_html(path: Path, caption: str) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(caption)}">\n'


def report_html(runs: list[Run], tables: dict, figures: list, notes: list[str], min_rows: int) -> str:
    images = {}
    for section, caption, path in figures:
        images[section] = images.get(section, "") + image_html(path, caption)
    parts = [f"<h1>skatsim analysis</h1>\n<p>Made {time.strftime('%Y-%m-%d %H:%M')} from {len(runs)} run(s). "
             "Every figure carries a 95% interval; the methods are at the end. The tables are in "
             "<code>tables/</code> as CSV and Parquet, the plots in <code>plots/</code>.</p>\n",
             "<h2>Runs</h2>\n", runs_html(runs), *match_html(tables, images), *contracts_html(runs, tables, images),
             *bids_html(tables, images), *thresholds_html(runs, tables, images, min_rows),
             *heuristics_html(runs, tables, images, min_rows),
             *comparison_html(tables, images, notes), METHODS_HTML.format(min_rows=min_rows)]
    return (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>skatsim analysis</title>"
            f"<style>{STYLE}</style></head>\n<body>\n{''.join(parts)}</body></html>\n")


def runs_html(runs: list[Run]) -> str:
    header = ["run", "what", "mode", "deals", "parts", "complete", "folder"]
    body = [[r.label, r.origin, r.mode, f"{r.deals:,}", f"{len(r.parts)} of {r.parts_planned}",
             "yes" if r.complete else "no (partial run)", str(r.folder)] for r in runs]
    return html_table(header, body)


# One sentence each for a table or plot without (enough) data.
NO_GAMES = "No game was declared in these runs: every deal was passed in."
NO_TRUMP_GAMES = "No suit game or grand was declared, so there are no matadors to count."
NO_SCORES = ("No declared game has an evaluator score: no game was declared, or the runs log none of the "
             "evaluators asked for.")
NO_AUC = "Too few games to compare the evaluators: no game group has both a won and a lost game yet."
NO_SUIT_GAMES = "No suit game was declared."
NO_BID_UP_TO = "At no bid does the expected score stay positive from some score bin on."
TOO_FEW_PLOTTED = f"Too few games to plot: no {{what}} has {plots.MIN_GAMES_PLOTTED} games yet."
TOO_FEW_BINS = "Too few games for {what}: no score bin has {min_rows} games yet."

DECLARE_NOTE = """The rows of declare-mode runs ({runs}) describe every seat declaring every game at bid 18
(no auction), not the games a table would play."""

IMPORTED_NOTE = """{runs}: imported from game archives. Contract success counts only the games played out or
conceded (resigned or claimed); games a time-out or a player leaving ended are scored by the server's penalty
rules, not by the cards, and appear only under How the deals ended. The game mix counts every game declared."""

BIDS_INTRO = """<h2>Bid success</h2>
<p>How often the declarer wins against the final bid (all games here; by game group in
<code>tables/bid_success.csv</code>). Overbid: the value the game reached fell short of the bid.</p>
"""

THRESHOLDS_INTRO = """<h2>Bidding thresholds</h2>
<p>For each evaluator and game type: the win rate and expected Seeger-Fabian score of the declarer
against the evaluator's score, and the <b>break-even score</b>, from which the expected score stays
positive (passing scores 0). 'shipped threshold' is the threshold the evaluator comes with. Two
objectives: the declarer's <b>own</b> Seeger-Fabian score (what the built-in bidders weigh), and his
score <b>against the table</b>, minus the mean of the two defenders' (who get 40 each when he loses),
the yardstick of the duplicate match; a game worth 18 breaks even at 55.8% wins on the first, 64.9% on
the second. Bid up to X below is for the declarer's own score.</p>
"""

SELECTION_CAVEAT = """<b>Selection caveat</b> for game-mode runs ({runs}): their rows are only the games
that were declared after the auction. Hands the bidders passed are missing, so scores below the bidder's
threshold are rare and those that appear were declared for other reasons, and the expected scores include
the actual bids and overbids. Set thresholds from declare-mode runs, where every seat declares every game
at bid 18."""

BID_UP_TO_INTRO = """<h3>Bid up to X when the score reaches Y</h3>
<p>For each bid X: the lowest score (a bin's lower edge) from which the expected Seeger-Fabian score of
playing the game at bid X stays positive, for forehand / middlehand / rearhand. Games are replayed at X
with the overbid rule. Bins with fewer than {min_rows} games are not used; {missing}: never positive.</p>
"""

HEURISTICS_CAVEAT = """<b>Range restriction</b> in game-mode runs ({runs}): the measures see only the games the
auction let through, declared by bidders whose models read these evaluators; hands below the bidders'
thresholds are missing. That lowers the AUC, and by different amounts for different evaluators: compare
evaluators on declare-mode runs (<code>skatsim simulate --mode declare</code>), where every seat declares
every game."""

HEURISTICS_INTRO = """<h2>Heuristic comparison</h2>
<p>How well each evaluator's score predicts that the declarer wins, on the same games: ROC AUC (higher is
better), and the Brier score and log loss of a logistic fit of the score (lower is better; compare the
Brier score with that of always predicting the base rate).</p>
"""

OPEN_HAND_NOTE = """The open-hand win rate (runs made with <code>--open-hand</code>) is how often the declared game is
won with best play on both sides, every hand seen, from the first lead: what the cards allow, without the
card players' mistakes and without the declarer's advantage of hidden cards."""

OPEN_HAND_HEURISTICS = """<h3>Against open-hand outcomes</h3>
<p>The same measures with the game won open-handed (best play, every hand seen) as the target: a target free
of the card players' mistakes, the way bridge hand evaluators are judged against double-dummy results.</p>
"""

COMPARISON_INTRO = """<h2>Strategy comparison</h2>
<p>Runs with the same seed hold the same deals; each later run is compared with the first deal for deal
(B minus A), so the interval is that of the mean per-deal difference.</p>
"""


MATCH_INTRO = """<h2>Duplicate match</h2>
<p>Every deal was played six times: for each seat, A alone against two B players and B alone against two A
players, so the luck of the cards cancels. Seeger-Fabian points per game of the seats each side held (a
passed-in deal counts as a game scoring 0), and the difference A - B with its 95% interval, a bootstrap
over deals. Declarer and defender play divide by every game, so they add up to the whole; a game type
divides by its own games. The split by game type compares A and B on the games each side chose: where the
sides bid and declare differently, a game type holds different deals and hands for A and B (in a card-play
only match both play the games A declared), so it shows where each side's points come from, not which
side plays that game better.</p>
"""


def match_html(tables: dict, images: dict) -> list[str]:
    if "match" not in tables:
        return []
    sides = {"run": "run", "A": "a", "B": "b", "card play only": lambda r: "yes" if r["card_play_only"] else "no",
             "deals": "deals", "games": "games",
             "A - B per game": lambda r: f"{number(r['difference'], 2)} ({number(r['difference_low'], 2)} to "
                                         f"{number(r['difference_high'], 2)})",
             "A declarer win rate": rate_column("declarer_win_rate_a"),
             "B declarer win rate": rate_column("declarer_win_rate_b")}
    splits = {"run": "run", "play": "split", "games": "games", "A": lambda r: number(r["sf_per_game_a"], 2),
              "B": lambda r: number(r["sf_per_game_b"], 2),
              "A - B (95% interval)": lambda r: f"{number(r['difference'], 2)} ({number(r['difference_low'], 2)}"
                                               f" to {number(r['difference_high'], 2)})"}
    return [MATCH_INTRO, frame_html(tables["match"], sides), frame_html(tables["match_splits"], splits),
            images.get("match", "")]


def contracts_html(runs: list[Run], tables: dict, images: dict) -> list[str]:
    if "contracts_by_game" not in tables:
        return []
    parts = ["<h2>Contract success</h2>\n"]
    declare_runs = ", ".join(r.label for r in runs if r.mode == "declare")
    if declare_runs:
        parts.append(note(DECLARE_NOTE.format(runs=html.escape(declare_runs))))
    imported = ", ".join(r.label for r in runs if r.imported)
    if imported:
        parts.append(note(IMPORTED_NOTE.format(runs=html.escape(imported))))
    if "passed_in" in tables:
        columns = {"run": "run", "deals": "deals", "passed in": "passed",
                   "passed-in rate": rate_column("passed_rate")}
        parts += ["<h3>Passed-in deals</h3>\n", frame_html(tables["passed_in"], columns)]
    parts += mix_html(tables, bool(imported))
    if not tables["contracts_by_game"].height:
        return parts + [missing(NO_GAMES)]
    brief = ("games", "win rate", "Seeger-Fabian")
    matadors = tables["contracts_by_matadors"]
    by_game = contract_columns("run", "contract")
    if any(r.open_hand for r in runs):
        by_game["open-hand win rate"] = lambda r: rate_text(r, "oh_win_rate") if r["oh_games"] else MISSING
        parts.append(note(OPEN_HAND_NOTE))
    return parts + [
        "<h3>By game type</h3>\n",
        frame_html(tables["contracts_by_game"], by_game),
        images.get("contracts", ""), "<h3>By declaration</h3>\n",
        frame_html(tables["contracts_by_variant"], contract_columns("run", "contract")),
        "<h3>By declarer's seat</h3>\n",
        frame_html(tables["contracts_by_seat"],
                   contract_columns("run", "contract", "declarer", results=brief)),
        "<h3>By matadors</h3>\n",
        *([missing(NO_TRUMP_GAMES)] if not matadors.height else [
            plots_or(images, "matadors", TOO_FEW_PLOTTED.format(what="matador count")),
            folded("Table", frame_html(matadors, contract_columns("run", "contract", "matadors",
                                                                   results=brief)))])]


def mix_html(tables: dict, imported: bool) -> list[str]:
    """The game mix of the runs side by side, and how the deals ended (when a run is imported)."""
    if "game_mix" not in tables:
        return []
    parts = ["<h3>Game mix</h3>\n<p>Each game type's share of the games declared (95% Wilson interval), and "
             "the number of games.</p>\n", html_table(*side_by_side(tables["game_mix"], "game", "share", "games"))]
    if imported:
        parts += ["<h3>How the deals ended</h3>\n<p>Share of all deals (95% Wilson interval) and the number of "
                  "deals; contract success counts played, resigned and claimed games.</p>\n",
                  html_table(*side_by_side(tables["game_ends"], "ended", "share", "deals"))]
    return parts


def bids_html(tables: dict, images: dict) -> list[str]:
    if "bid_success" not in tables:
        return []
    bids = tables["bid_success"].filter(pl.col("contract") == "all games")
    if not bids.height:
        return [BIDS_INTRO, missing(NO_GAMES)]
    columns = contract_columns("run", "bid", results=("games", "win rate", "overbid", "Seeger-Fabian"))
    return [BIDS_INTRO, plots_or(images, "bids", TOO_FEW_PLOTTED.format(what="final bid")),
            folded("Table", frame_html(bids, columns))]


def break_even_pivot(table: pl.DataFrame,
                     against_table: pl.DataFrame | None = None) -> tuple[list[str], list[list[str]]]:
    """One row per run, evaluator and game: the break-even score of all seats (with interval) and per seat,
    and of all seats for the score against the table (``against_table``, the table objective's rows)."""
    header = ["run", "evaluator", "game", "break-even, all seats", *SEATS, "win rate there",
              "against the table, all seats", "win rate there", "shipped threshold"]
    others = {} if against_table is None else {
        (row["run"], row["evaluator"], row["game"]): row
        for row in against_table.filter(pl.col("seats") == "all").iter_rows(named=True)}
    body = []
    for (run, evaluator, game), part in table.group_by("run", "evaluator", "game", maintain_order=True):
        seats = {row["seats"]: row for row in part.iter_rows(named=True)}
        first, other = seats.get("all", {}), others.get((run, evaluator, game), {})
        body.append([run, evaluator, game, _even_text(first, interval=True),
                     *(_even_text(seats.get(s, {})) for s in SEATS),
                     percent(first.get("win_rate_at_break_even")), _even_text(other, interval=True),
                     percent(other.get("win_rate_at_break_even")), number(first.get("evaluator_threshold"), 2)])
    return header, body


def _even_text(row: dict, interval: bool = False) -> str:
    if not row:
        return MISSING
    if row["status"] != "crossing":
        return row["status"]
    return mean_column("break_even", 2)(row) if interval else number(row["break_even"], 2)


def bid_up_to_html(table: pl.DataFrame) -> str:
    """Bids (merged into ranges where nothing changes) by game; a cell: 'forehand / middlehand / rearhand'."""
    games = list(dict.fromkeys(table["game"].to_list()))
    cells: dict[int, dict] = {}
    for row in table.filter(pl.col("seats") != "all").iter_rows(named=True):
        cells.setdefault(row["bid"], {}).setdefault(row["game"], {})[row["seats"]] = short(row["score_from"])
    body, last = [], None
    for bid in sorted(cells):
        values = [" / ".join(cells[bid].get(g, {}).get(s, MISSING) for s in SEATS) for g in games]
        if body and values == last:
            body[-1][0] = f"{body[-1][0].split('–')[0]}–{bid}"
        else:
            body.append([str(bid), *values])
        last = values
    return html_table(["bid", *games], body)


def thresholds_html(runs: list[Run], tables: dict, images: dict, min_rows: int) -> list[str]:
    if "break_even" not in tables:
        return []
    even = tables["break_even"]
    if not even.height:
        return [THRESHOLDS_INTRO, missing(NO_SCORES)]
    if not (even["bins_used"] > 0).any():
        return [THRESHOLDS_INTRO, missing(TOO_FEW_BINS.format(what="bidding thresholds", min_rows=min_rows))]
    parts = [THRESHOLDS_INTRO]
    game_runs = ", ".join(r.label for r in runs if r.mode == "game")
    if game_runs:
        parts.append(note(SELECTION_CAVEAT.format(runs=html.escape(game_runs))))
    parts += [html_table(*break_even_pivot(even, tables.get("break_even_table"))),
              plots_or(images, "thresholds", TOO_FEW_BINS.format(what="score curves", min_rows=min_rows)),
              BID_UP_TO_INTRO.format(min_rows=min_rows, missing=MISSING)]
    if not tables["bid_up_to"].height:
        parts.append(missing(NO_BID_UP_TO))
    for (run, evaluator), part in tables["bid_up_to"].group_by("run", "evaluator", maintain_order=True):
        parts.append(folded(f"{evaluator}, run {run}", bid_up_to_html(part)))
    return parts


HEURISTIC_COLUMNS = {"run": "run", "group": "group", "rank": "rank", "evaluator": "evaluator",
                     "games": "games", "win rate": lambda r: percent(r["win_rate"]),
                     "ROC AUC": mean_column("auc", 3), "Brier": mean_column("brier", 4),
                     "Brier of base rate": lambda r: number(r["brier_reference"], 4),
                     "log loss": mean_column("log_loss", 4)}


def heuristics_html(runs: list[Run], tables: dict, images: dict, min_rows: int) -> list[str]:
    if "heuristics" not in tables:
        return []
    measured = tables["heuristics"]
    if not measured.height:
        return [HEURISTICS_INTRO, missing(NO_SCORES)]
    if not measured["rank"].is_not_null().any():
        return [HEURISTICS_INTRO, missing(NO_AUC)]
    pooled = pl.col("group").is_in(POOLED_GROUPS)
    game_runs = ", ".join(r.label for r in runs if r.mode == "game")
    caveat = [note(HEURISTICS_CAVEAT.format(runs=html.escape(game_runs)))] if game_runs else []
    parts = [HEURISTICS_INTRO, *caveat, table_or(measured.filter(pooled), HEURISTIC_COLUMNS, NO_SCORES),
             plots_or(images, "heuristics", NO_AUC),
             plots_or(images, "calibration", TOO_FEW_BINS.format(what="calibration plots", min_rows=min_rows)),
             folded("Each suit game", table_or(measured.filter(~pooled), HEURISTIC_COLUMNS, NO_SUIT_GAMES))]
    open_hand = tables.get("heuristics_open_hand")
    if open_hand is not None and open_hand.height:
        parts += [OPEN_HAND_HEURISTICS, table_or(open_hand.filter(pooled), HEURISTIC_COLUMNS, NO_SCORES),
                  folded("Each suit game", table_or(open_hand.filter(~pooled), HEURISTIC_COLUMNS, NO_SUIT_GAMES))]
    return parts


def comparison_html(tables: dict, images: dict, notes: list[str]) -> list[str]:
    if "comparison" not in tables and not notes:
        return []
    parts = [COMPARISON_INTRO, *(note(html.escape(n)) for n in notes)]
    if "comparison" in tables and tables["comparison"].height:
        columns = {"A": "run_a", "B": "run_b", "metric": "metric", "rows": "rows",
                   "A mean": lambda r: number(r["mean_a"], 3), "B mean": lambda r: number(r["mean_b"], 3),
                   "B - A": mean_column("difference", 3), "interval": "difference_interval"}
        parts += [frame_html(tables["comparison"], columns), images.get("comparison", "")]
    return parts


METHODS_HTML = """
<h2>Methods</h2>
<ul>
<li><b>Rates</b> (win, schneider, schwarz, overbid, passed-in): Wilson score 95% interval.</li>
<li><b>Means</b> (classic and Seeger-Fabian scores, paired differences): normal interval, mean ± 1.96
standard errors, for groups of at least 500; below that a percentile bootstrap (2,000 Poisson resamples
of the counts of each distinct value, fixed seed); below 30 games no interval ('too few'): none holds
95% for so few scores.</li>
<li><b>Declare-mode runs</b>: a deal gives 18 rows (42 with every variant) sharing its cards, so every
interval resamples whole deals (in groups of deals, deal number mod 200): means and the measures below
by a bootstrap over deals, rates by the Wilson interval at the effective number of games that bootstrap
gives; 'too few' means fewer than 30 deals.</li>
<li><b>Break-even score</b>: among the score bins with at least {min_rows} games, the lowest bin from which
every bin's expected Seeger-Fabian score is above 0 (the value of passing); the break-even is interpolated
linearly between that bin's mean score and the one below to where the expected score is 0. Interval:
percentile bootstrap (1,000 Poisson resamples of the aggregated counts). 'positive throughout' and
'never positive' mean there is no crossing inside the data.</li>
<li><b>Bid up to X</b>: each game is replayed at bid X with the overbid rule (value reached below X: lost
at the lowest multiple of the base value reaching X; a null variant worth less than X counts as lost at
the lowest null value reaching X).</li>
<li><b>Heuristics</b>: ROC AUC by the rank (Mann-Whitney) formula, ties counting one half; a logistic fit
for Brier score and log loss; percentile bootstrap intervals (1,000 Poisson resamples of the won and lost
counts per score, the fit repeated on each).</li>
</ul>
"""
