"""The report page's pieces: HTML building blocks, the sections' intros and each table's part.

Every part takes the :class:`analysis.registry.Report` and returns its HTML strings, none when
its table is not there; :mod:`analysis.catalogue` says which part belongs to which table and
section, and :func:`analysis.report.report_html` puts them together in that order.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

import polars as pl

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
from .intervals import TOO_FEW
from .registry import Part, Report
from .runs import Run
from .summary import POOLED_GROUPS
from .thresholds import in_lead_split

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 96em; margin: 2em auto; padding: 0 1em; color: #222; }
table { display: block; overflow-x: auto; border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }
th, td { white-space: nowrap; border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
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
    """``table`` as HTML; ``columns`` maps each header to a column or a function of the row (a dict)."""
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


def plots_or(report: Report, name: str, sentence: str) -> str:
    """The plots of table ``name``, or ``sentence`` if none had data."""
    return report.images.get(name) or missing(sentence)


def image_html(path: Path, caption: str) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(caption)}">\n'


def titled_table(name: str, heading: str, columns: dict, *, intro: str = "",
                 empty: str = "No rows: none of these runs has games for this table.") -> Part:
    """The part of a plain table ``name``: an h3 ``heading``, ``intro`` (HTML), its plots, then the
    table folded (or the sentence ``empty`` when it has no rows); nothing when no run has it."""
    def part(report: Report) -> list[str]:
        table = report.tables.get(name)
        if table is None:
            return []
        parts = [f"<h3>{html.escape(heading)}</h3>\n", f"<p>{intro}</p>\n" if intro else ""]
        if not table.height:
            return [*parts, missing(empty)]
        return [*parts, report.images.get(name, ""), folded("Table", frame_html(table, columns))]
    return part


def runs_html(runs: list[Run]) -> str:
    header = ["run", "what", "mode", "deals", "parts", "complete", "folder"]
    body = [[r.label, r.origin, r.mode, f"{r.deals:,}" if not r.imported else r.size(),
             f"{len(r.parts)} of {r.parts_planned}",
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
(no auction), not the games players would bid and declare."""

CONDITIONAL_NOTE = """{runs}: dealt only deals with fixed cards or meeting a condition (see Runs above). Every
rate and score of such a run holds for those deals, not for all deals: compare it with runs dealt the same way.
"""

IMPORTED_NOTE = """{runs}: imported from game archives. Contract success counts only the games played out or
conceded (resigned or claimed); games a time-out or a player leaving ended are scored by the server's penalty
rules, not by the cards, and appear only under How the deals ended. The game mix counts every game declared."""

BIDS_INTRO = """<h2>Bid success</h2>
<p>How often the declarer wins against the final bid (all games here; by game group in
<code>tables/bid_success.csv</code>). Overbid: the value the game reached fell short of the bid.
Contested: a defender's own bid limit reached the final bid, so two hands were worth the same value
and the declarer kept the game at it (the listener holds at a tie). The win rate dips where nearly
every game is contested: 48 is the value of a grand with or without 1 and 72 of a grand with or
without 2, so at those bids the declarer mostly plays a grand against a defender whose hand was
worth the same grand, with the jacks the declarer lacks.</p>
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
the actual bids and overbids. That is why a game-mode break-even can lie far below the threshold the
evaluator ships with, even below 0: the few low-scoring hands that were declared won often, having been
chosen by a bidder that saw more than this one score. Set thresholds from declare-mode runs, where every
seat declares every game at bid 18."""

BID_UP_TO_INTRO = """<h3>Bid up to X when the score reaches Y</h3>
<p>For each bid X: the lowest score (a bin's lower edge) from which the expected Seeger-Fabian score of
playing the game at bid X stays positive, for forehand / middlehand / rearhand. Games are replayed at X
with the overbid rule. Bins with fewer than {min_rows} games are not used; {missing}: never positive.</p>
"""

RANGE_CAVEAT = """<b>Range restriction</b> in game-mode runs ({runs}): the measures see only the games the
auction let through, declared by bidders whose models read these evaluators; hands below the bidders'
thresholds are missing. That lowers the AUC, and by different amounts for different evaluators: compare
evaluators on declare-mode runs (<code>skatsim simulate --mode declare</code>), where every seat declares
every game. The same selection bends the calibration plots of these runs away from the diagonal: a
logistic curve in one score cannot follow a win rate that the bidders have already cut (few declared games
at low scores, and those few are special: a good skat, or a game the bidding forced), so points lie far
off the diagonal, with intervals that exclude it, where the curve misdescribes the games. On declare-mode
runs, which declare every hand, the fits of the built-in evaluators lie close to it."""

EVALUATORS_INTRO = """<h2>Evaluator comparison</h2>
<p>How well each evaluator's score predicts that the declarer wins, on the same games: ROC AUC (higher is
better), and the Brier score and log loss of a logistic fit of the score (lower is better; compare the
Brier score with that of always predicting the base rate).</p>
"""

BIDDER_NOTE = """<b>bidder</b> is no evaluator of its own: it is the score the run's bidder gave each hand for each game
when it planned its bidding (declare mode), in that bidder's units: a <code>threshold</code> bidder's evaluator
score, or the expected Seeger-Fabian score of the expected-score bidder of <code>default</code>."""

OPEN_HAND_NOTE = """The open-hand win rate (runs made with <code>--open-hand</code>) is how often the declared game is
won with best play on both sides, every hand seen, from the first lead: what the cards allow, without the
card players' mistakes and without the declarer's advantage of hidden cards."""

OPEN_HAND_INTRO = """<h3>Against open-hand outcomes</h3>
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


def _interval(name: str):
    return lambda r: f"{number(r[name], 2)} ({number(r[name + '_low'], 2)} to {number(r[name + '_high'], 2)})"


def match_html(report: Report) -> list[str]:
    if "match" not in report.tables:
        return []
    sides = {"run": "run", "A": "a", "B": "b", "card play only": lambda r: "yes" if r["card_play_only"] else "no",
             "deals": "deals", "games": "games", "A - B per game": _interval("difference"),
             "A declarer win rate": rate_column("declarer_win_rate_a"),
             "B declarer win rate": rate_column("declarer_win_rate_b")}
    return [frame_html(report.tables["match"], sides)]


def match_splits_html(report: Report) -> list[str]:
    if "match_splits" not in report.tables:
        return []
    splits = {"run": "run", "play": "split", "games": "games", "A": lambda r: number(r["sf_per_game_a"], 2),
              "B": lambda r: number(r["sf_per_game_b"], 2), "A - B (95% interval)": _interval("difference")}
    return [frame_html(report.tables["match_splits"], splits), report.images.get("match_splits", "")]


# --- contract success ----------------------------------------------------------------------


def _labels(runs: list[Run], which) -> str:
    return ", ".join(r.label for r in runs if which(r))


def contracts_intro(report: Report) -> list[str]:
    """The heading, and notes on the declare-mode and imported runs."""
    parts = ["<h2>Contract success</h2>\n"]
    declare_runs = _labels(report.runs, lambda r: r.mode == "declare")
    if declare_runs:
        parts.append(note(DECLARE_NOTE.format(runs=html.escape(declare_runs))))
    imported = _labels(report.runs, lambda r: r.imported)
    if imported:
        parts.append(note(IMPORTED_NOTE.format(runs=html.escape(imported))))
    conditional = _labels(report.runs, lambda r: r.dealing)
    if conditional:
        parts.append(note(CONDITIONAL_NOTE.format(runs=html.escape(conditional))))
    return parts


def passed_in_html(report: Report) -> list[str]:
    if "passed_in" not in report.tables:
        return []
    columns = {"run": "run", "deals": "deals", "passed in": "passed", "passed-in rate": rate_column("passed_rate")}
    return ["<h3>Passed-in deals</h3>\n", frame_html(report.tables["passed_in"], columns)]


def game_mix_html(report: Report) -> list[str]:
    """The game mix of the runs side by side."""
    if "game_mix" not in report.tables:
        return []
    return ["<h3>Game mix</h3>\n<p>Each game type's share of the games declared (95% Wilson interval), and "
            "the number of games.</p>\n",
            html_table(*side_by_side(report.tables["game_mix"], "game", rate="share", count="games"))]


def game_ends_html(report: Report) -> list[str]:
    """How the deals ended, when a run is imported (in a simulation every deal is played or passed)."""
    if "game_ends" not in report.tables or not any(r.imported for r in report.runs):
        return []
    return ["<h3>How the deals ended</h3>\n<p>Share of all deals (95% Wilson interval) and the number of "
            "deals; contract success counts played, resigned and claimed games.</p>\n",
            html_table(*side_by_side(report.tables["game_ends"], "ended", rate="share", count="deals"))]


BRIEF = ("games", "win rate", "Seeger-Fabian")


def declared(report: Report) -> bool:
    """Whether any game was declared (the contract tables have rows)."""
    return "contracts_by_game" in report.tables and report.tables["contracts_by_game"].height > 0


def by_game_html(report: Report) -> list[str]:
    if "contracts_by_game" not in report.tables:
        return []
    if not declared(report):
        return [missing(NO_GAMES)]
    parts, by_game = [], contract_columns("run", "contract")
    if any(r.open_hand for r in report.runs):
        by_game["open-hand win rate"] = lambda r: rate_text(r, "oh_win_rate") if r["oh_games"] else MISSING
        parts.append(note(OPEN_HAND_NOTE))
    return [*parts, "<h3>By game type</h3>\n", frame_html(report.tables["contracts_by_game"], by_game),
            report.images.get("contracts_by_game", "")]


def by_variant_html(report: Report) -> list[str]:
    if not declared(report):
        return []
    return ["<h3>By declaration</h3>\n",
            frame_html(report.tables["contracts_by_variant"], contract_columns("run", "contract"))]


def by_seat_html(report: Report) -> list[str]:
    if not declared(report):
        return []
    return ["<h3>By declarer's seat</h3>\n",
            frame_html(report.tables["contracts_by_seat"], contract_columns("run", "contract", "declarer",
                                                                            results=BRIEF))]


def by_matadors_html(report: Report) -> list[str]:
    if not declared(report):
        return []
    matadors = report.tables["contracts_by_matadors"]
    if not matadors.height:
        return ["<h3>By matadors</h3>\n", missing(NO_TRUMP_GAMES)]
    return ["<h3>By matadors</h3>\n",
            plots_or(report, "contracts_by_matadors", TOO_FEW_PLOTTED.format(what="matador count")),
            folded("Table", frame_html(matadors, contract_columns("run", "contract", "matadors", results=BRIEF)))]


def bid_success_html(report: Report) -> list[str]:
    if "bid_success" not in report.tables:
        return []
    bids = report.tables["bid_success"].filter(pl.col("contract") == "all games")
    if not bids.height:
        return [missing(NO_GAMES)]
    columns = contract_columns("run", "bid", results=("games", "win rate", "overbid", "contested", "Seeger-Fabian"))
    return [plots_or(report, "bid_success", TOO_FEW_PLOTTED.format(what="final bid")),
            folded("Table", frame_html(bids, columns))]


# --- bidding thresholds --------------------------------------------------------------------


def break_even_pivot(table: pl.DataFrame,
                     against_table: pl.DataFrame | None = None) -> tuple[list[str], list[list[str]]]:
    """One row per run, evaluator, game and variant: the break-even score of all seats (with interval) and
    per seat, and of all seats for the score against the table (``against_table``, the table objective's
    rows)."""
    header = ["run", "evaluator", "game", "variant", "break-even, all seats", *SEATS, "win rate there",
              "against the table, all seats", "win rate there", "shipped threshold"]
    keys = ("run", "evaluator", "game", "variant")
    every_seat = [] if against_table is None else against_table.filter(pl.col("seats") == "all").iter_rows(named=True)
    others = {tuple(row[k] for k in keys): row for row in every_seat}
    body = []
    for key, part in table.group_by(*keys, maintain_order=True):
        seats = {row["seats"]: row for row in part.iter_rows(named=True)}
        first, other = seats.get("all", {}), others.get(key, {})
        body.append([*key, _even_text(first, interval=True),
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


def bid_up_to_pivot(table: pl.DataFrame) -> str:
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


def thresholds_found(report: Report) -> bool:
    """Whether some score bin has enough games for break-even scores."""
    even = report.tables.get("break_even")
    return even is not None and even.height > 0 and bool((even["bins_used"] > 0).any())


def break_even_html(report: Report) -> list[str]:
    """The break-even scores of both objectives side by side, the selection caveat of game-mode runs, and
    the score curves' plots."""
    if "break_even" not in report.tables:
        return []
    even, min_rows = report.tables["break_even"], report.min_rows
    if not even.height:
        return [missing(NO_SCORES)]
    if not thresholds_found(report):
        return [missing(TOO_FEW_BINS.format(what="bidding thresholds", min_rows=min_rows))]
    parts = []
    game_runs = _labels(report.runs, lambda r: r.mode == "game")
    if game_runs:
        parts.append(note(SELECTION_CAVEAT.format(runs=html.escape(game_runs))))
    against = report.tables.get("break_even_table")
    parts.append(html_table(*break_even_pivot(in_lead_split(even, report.runs, by=("variant",)), against)))
    if (even["variant"] != "all").any():
        parts.append(folded("Every variant", html_table(*break_even_pivot(even, against))))
    return [*parts, plots_or(report, "threshold_curves", TOO_FEW_BINS.format(what="score curves", min_rows=min_rows))]


def bid_up_to_html(report: Report) -> list[str]:
    if not thresholds_found(report):
        return []
    table = report.tables["bid_up_to"]
    parts = [BID_UP_TO_INTRO.format(min_rows=report.min_rows, missing=MISSING)]
    if not table.height:
        parts.append(missing(NO_BID_UP_TO))
    leading = in_lead_split(table, report.runs, by=("variant",))
    for (run, evaluator), part in leading.group_by("run", "evaluator", maintain_order=True):
        variant = part["variant"][0]
        parts.append(folded(f"{evaluator}, run {run}" + ("" if variant == "all" else f", {variant} games"),
                            bid_up_to_pivot(part)))
    return parts


# --- evaluator comparison --------------------------------------------------------------------

MEASURE_COLUMNS = {"run": "run", "group": "group", "rank": "rank", "evaluator": "evaluator",
                     "games": "games", "win rate": lambda r: percent(r["win_rate"]),
                     "ROC AUC": mean_column("auc", 3), "Brier": mean_column("brier", 4),
                     "Brier of base rate": lambda r: number(r["brier_reference"], 4),
                     "log loss": mean_column("log_loss", 4)}
POOLED = pl.col("group").is_in(POOLED_GROUPS)


def ranked(report: Report) -> bool:
    """Whether some game group of the evaluator comparison has a ranking (both won and lost games)."""
    measured = report.tables.get("evaluators")
    return measured is not None and measured.height > 0 and bool(measured["rank"].is_not_null().any())


def _measures(table: pl.DataFrame) -> list[str]:
    """The pooled groups' rows, and the rows of each suit game folded."""
    return [table_or(table.filter(POOLED), MEASURE_COLUMNS, NO_SCORES),
            folded("Each suit game", table_or(table.filter(~POOLED), MEASURE_COLUMNS, NO_SUIT_GAMES))]


def evaluators_html(report: Report) -> list[str]:
    """The range-restriction caveat of game-mode runs, the measures of every evaluator, their plot and the
    calibration plots."""
    if "evaluators" not in report.tables:
        return []
    if not report.tables["evaluators"].height:
        return [missing(NO_SCORES)]
    if not ranked(report):
        return [missing(NO_AUC)]
    pooled, each_suit = _measures(report.tables["evaluators"])
    game_runs = _labels(report.runs, lambda r: r.mode == "game")
    caveat = [note(RANGE_CAVEAT.format(runs=html.escape(game_runs)))] if game_runs else []
    if "bidder" in report.tables["evaluators"]["evaluator"].to_list():
        caveat.append(note(BIDDER_NOTE))
    return [*caveat, pooled, plots_or(report, "evaluators", NO_AUC),
            plots_or(report, "calibration", TOO_FEW_BINS.format(what="calibration plots", min_rows=report.min_rows)),
            each_suit]


PAIRS_INTRO = """<h3>Against the best, paired</h3>
<p>Each evaluator's measures minus those of the best evaluator of its game group (the highest ROC AUC), on
the same games, with the 95% interval of the difference: every evaluator is measured on the same resampled
deals, so the interval is that of the difference itself, narrower than the two evaluators' own intervals
suggest when they overlap. <i>indistinguishable</i>: the AUC difference's interval holds 0; <i>worse</i>: it
does not. A negative AUC difference, and a positive Brier or log-loss difference, is worse than the best.</p>
"""


def pair_text(measure: str, digits: int):
    """A pair table's difference in ``measure`` and its interval (none for too few deals)."""
    def text(row: dict) -> str:
        if row[f"{measure}_diff"] is None:
            return MISSING
        difference, low, high = (row[f"{measure}_diff{end}"] for end in ("", "_lo", "_hi"))
        if low is None:
            return f"{number(difference, digits)} ({TOO_FEW})"
        return f"{number(difference, digits)} ({number(low, digits)} to {number(high, digits)})"
    return text


PAIR_COLUMNS = {"run": "run", "group": "group", "evaluator": "evaluator", "against": "against", "games": "games",
                "ROC AUC difference": pair_text("auc", 4), "Brier difference": pair_text("brier", 5),
                "log loss difference": pair_text("log_loss", 5), "verdict": "verdict"}


def evaluator_pairs_html(report: Report) -> list[str]:
    """Every evaluator against the best of its game group: the pooled groups, then each suit game folded."""
    pairs = report.tables.get("evaluator_pairs")
    if pairs is None or not pairs.height or not ranked(report):
        return []
    return [PAIRS_INTRO, table_or(pairs.filter(POOLED), PAIR_COLUMNS, NO_AUC), report.images.get("evaluator_pairs", ""),
            folded("Each suit game", table_or(pairs.filter(~POOLED), PAIR_COLUMNS, NO_SUIT_GAMES))]


def evaluators_open_hand_html(report: Report) -> list[str]:
    open_hand = report.tables.get("evaluators_open_hand")
    if not ranked(report) or open_hand is None or not open_hand.height:
        return []
    return [OPEN_HAND_INTRO, *_measures(open_hand)]


def comparison_html(report: Report) -> list[str]:
    """Notes on the runs not compared, and the paired differences."""
    parts = [note(html.escape(n)) for n in report.notes]
    compared = report.tables.get("comparison")
    if compared is not None and compared.height:
        columns = {"A": "run_a", "B": "run_b", "metric": "metric", "rows": "rows",
                   "A mean": lambda r: number(r["mean_a"], 3), "B mean": lambda r: number(r["mean_b"], 3),
                   "B - A": mean_column("difference", 3), "interval": "difference_interval"}
        parts += [frame_html(compared, columns), report.images.get("comparison", "")]
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
<li><b>Evaluator comparison</b>: ROC AUC by the rank (Mann-Whitney) formula, ties counting one half; a logistic fit
for Brier score and log loss; percentile bootstrap intervals (1,000 Poisson resamples of the won and lost
counts per score, the fit repeated on each).</li>
</ul>
"""
