"""Plots of the analysis tables, as PNG files of about 800 x 500 pixels.

Every plot draws a 95% interval: error bars on bars and points, shaded bands on
lines. Several runs share one plot where their tables share an axis.

Figures are made without pyplot and rendered by the Agg backend when saved, so
importing analysis changes no matplotlib setting of a notebook.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter

from sim.rules.games import GAME_NAMES

SIZE = (8, 5)  # inches, at DPI: 800 x 500 pixels
DPI = 100
MIN_GAMES_PLOTTED = 20
BAND_ALPHA = 0.2


def _figure(panels: int = 1):
    fig = Figure(figsize=SIZE, dpi=DPI)
    axes = fig.subplots(1, panels, squeeze=False)
    return fig, list(axes[0])


def drawn(plot):
    """Decorator: a plot of a table without rows is not drawn (returns None).

    A plot whose own selection (games >= a minimum, a finite value) leaves nothing returns
    None as well, so that no empty axes are saved.
    """
    @functools.wraps(plot)  # its name too, so that a drawing of it pickles for the second process
    def draw(table: pl.DataFrame, *args, **kwargs):
        return plot(table, *args, **kwargs) if table.height else None
    return draw


def save(fig, path: Path) -> Path:
    """Lay the figure out and write it as a PNG file.

    The figure is put on an Agg canvas first, so that the layout and the drawing share one
    renderer and each text is measured once (the same file, about a tenth less time).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(fig)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    return path


def _legend(ax, **options) -> None:
    """A legend if anything is labelled (an empty panel gets none), beside the panel on its right, where it
    hides no data."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**{"loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "borderaxespad": 0.0, **options})


def _percent(ax, axis: str = "y") -> None:
    formatter = PercentFormatter(1.0, decimals=None)
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(formatter)


def _finite(name: str) -> pl.Expr:
    return pl.col(name).is_not_null() & pl.col(name).is_finite()


def _errors(table: pl.DataFrame, name: str) -> np.ndarray:
    value = table[name].to_numpy()
    return np.abs(np.vstack([value - table[f"{name}_lo"].to_numpy(), table[f"{name}_hi"].to_numpy() - value]))


@drawn
def grouped_bars(table: pl.DataFrame, category: str, value: str, path: Path, title: str,
                 ylabel: str, percent: bool = False) -> Path | None:
    """Bars of ``value`` per ``category``, one bar per run, with interval error bars."""
    table = table.filter(_finite(value))
    if not table.height:
        return None
    categories = list(dict.fromkeys(table[category].to_list()))
    runs = list(dict.fromkeys(table["run"].to_list()))
    fig, (ax,) = _figure()
    width = 0.8 / len(runs)
    for i, run in enumerate(runs):
        part = table.filter(pl.col("run") == run)
        x = np.array([categories.index(c) for c in part[category]]) + (i - (len(runs) - 1) / 2) * width
        ax.bar(x, part[value].to_numpy(), width, yerr=_errors(part, value), capsize=3, label=run)
    ax.set_xticks(range(len(categories)), categories, rotation=20, ha="right")
    ax.set(title=title, ylabel=ylabel)
    if percent:
        _percent(ax)
    ax.axhline(0, color="black", linewidth=0.6)
    low, high = ax.get_ylim()
    ax.set_ylim(low, high + 0.18 * (high - low))  # room for the legend above the bars
    _legend(ax, title="run", loc="upper center", ncol=min(len(runs), 6), fontsize="small")
    return save(fig, path)


def _band(ax, x, table: pl.DataFrame, *, name: str, label: str, **style):
    line, = ax.plot(x, table[name].to_numpy(), marker="o", markersize=3, label=label, **style)
    ax.fill_between(x, table[f"{name}_lo"].to_numpy(), table[f"{name}_hi"].to_numpy(),
                    color=line.get_color(), alpha=BAND_ALPHA, linewidth=0)
    return line


@drawn
def bid_success(table: pl.DataFrame, path: Path) -> Path | None:
    """Declarer win rate against the final bid, one panel per game group (suit games, grand, null): one point
    a bid with its Wilson interval, per run."""
    groups = ["suit games", "grand", "null"]
    games = table.filter(pl.col("contract").is_in(groups), pl.col("games") >= MIN_GAMES_PLOTTED)
    shown = [group for group in groups if group in set(games["contract"].to_list())]
    if not shown:
        return None
    fig = Figure(figsize=(5 * len(shown) + 1.5, 4.5), dpi=DPI)
    for ax, group in zip(fig.subplots(1, len(shown), squeeze=False)[0], shown):
        for run in dict.fromkeys(games["run"].to_list()):
            part = games.filter(pl.col("run") == run, pl.col("contract") == group).sort("bid")
            # one point a bid: a line would join bids that have no games between them (after 48 come 50, 54 ...)
            ax.errorbar(part["bid"].to_numpy(), part["win_rate"].to_numpy(), yerr=_errors(part, "win_rate"),
                        fmt="o", markersize=3, capsize=2, label=run)
        ax.set(title=group, xlabel="final bid (game value points)", ylabel="declarer win rate")
        _percent(ax)
    _legend(ax, title="run", fontsize="small")
    fig.suptitle(f"Bid success: declarer win rate by final bid, 95% Wilson intervals (bids with >= "
                 f"{MIN_GAMES_PLOTTED} games)")
    return save(fig, path)


@drawn
def by_matadors(table: pl.DataFrame, path: Path) -> Path | None:
    """Win rate by signed matadors, suit games and grand side by side."""
    plotted = table.filter(pl.col("games") >= MIN_GAMES_PLOTTED)
    if not plotted.filter(pl.col("contract").is_in(["suit games", "grand"])).height:
        return None
    fig, axes = _figure(2)
    for ax, contract in zip(axes, ("suit games", "grand")):
        rows = plotted.filter(pl.col("contract") == contract)
        if not rows.height:
            ax.text(0.5, 0.5, f"no matador count with\n>= {MIN_GAMES_PLOTTED} games", ha="center",
                    va="center", transform=ax.transAxes, color="grey")
        for run in dict.fromkeys(rows["run"].to_list()):
            part = rows.filter(pl.col("run") == run).sort("matadors")
            _band(ax, part["matadors"].to_numpy(), part, name="win_rate", label=run)
        ax.set(title=f"{contract}", xlabel="matadors (+ with, - without)", ylabel="declarer win rate")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # matadors are whole numbers
        _percent(ax)
        _legend(ax, title="run", fontsize="small")
    fig.suptitle("Win rate by matadors (95% Wilson bands)")
    return save(fig, path)


@drawn
def threshold_curves(curves: pl.DataFrame, break_even: pl.DataFrame, evaluator: str, *, run: str,
                     path: Path, min_rows: int, split: tuple[str, str] = ("all", "all")) -> Path | None:
    """Win rate and expected Seeger-Fabian score against the evaluator's score, one line per game, of the
    games of one ``split`` (variant, seats)."""
    chosen = (pl.col("variant") == split[0]) & (pl.col("seats") == split[1])
    rows = curves.filter(chosen, pl.col("rows") >= min_rows)
    if not rows.height:
        return None
    fig, (left, right) = _figure(2)
    even = break_even.filter(chosen)
    for game in (g for g in GAME_NAMES if g in set(rows["game"].to_list())):
        part = rows.filter(pl.col("game") == game).sort("mean_score")
        x = part["mean_score"].to_numpy()
        _band(left, x, part, name="win_rate", label=game)
        line = _band(right, x, part, name="mean_sf", label=game)
        crossing = even.filter(pl.col("game") == game)["break_even"].to_list()
        if crossing and np.isfinite(crossing[0]):
            right.axvline(crossing[0], color=line.get_color(), linestyle=":", linewidth=1)
    left.set(title="win rate", xlabel=f"{evaluator} score", ylabel="declarer win rate")
    _percent(left)
    right.axhline(0, color="black", linewidth=0.8)
    right.set(title="expected score (dotted: break-even)", xlabel=f"{evaluator} score",
              ylabel="Seeger-Fabian points per game")
    _legend(left, title="game", fontsize="small")
    variant, seats = ("every variant" if split[0] == "all" else f"{split[0]} games",
                      "all seats" if split[1] == "all" else split[1])
    fig.suptitle(f"{evaluator} score against outcome, run {run}, {variant}, {seats}\n"
                 f"(score bins with >= {min_rows} games, 95% bands)")
    return save(fig, path)


@drawn
def evaluator_ranking(table: pl.DataFrame, path: Path) -> Path | None:
    """ROC AUC of each evaluator per pooled game group, with bootstrap intervals, one marker per run."""
    rows = table.filter(pl.col("group").is_in(["suit games", "grand", "null"]), _finite("auc"))
    if not rows.height:  # no group has both won and lost games
        return None
    fig, (ax,) = _figure()
    _markers_by_run(ax, rows.with_columns(label=pl.format("{}: {}", "group", "evaluator")), "auc")
    ax.axvline(0.5, color="grey", linestyle="--", linewidth=0.8)
    ax.set(title="Evaluator score as a predictor of winning (95% bootstrap)",
           xlabel="ROC AUC (0.5 = chance, 1 = perfect)")
    _legend(ax, title="run", fontsize="small")
    return save(fig, path)


def _markers_by_run(ax, rows: pl.DataFrame, value: str) -> None:
    """A marker per row with its interval on the x axis, a row of the plot per ``label`` (in the order of
    the group, then ``value``), the runs side by side within it."""
    labels = list(dict.fromkeys(rows.sort("group", value)["label"].to_list()))
    runs = list(dict.fromkeys(rows["run"].to_list()))
    for i, run in enumerate(runs):
        part = rows.filter(pl.col("run") == run)
        y = np.array([labels.index(label) for label in part["label"].to_list()])
        ax.errorbar(part[value].to_numpy(), y + (i - (len(runs) - 1) / 2) * 0.2, xerr=_errors(part, value),
                    fmt="o", capsize=3, label=run)
    ax.set_yticks(range(len(labels)), labels)


@drawn
def pairs_against_best(table: pl.DataFrame, path: Path) -> Path | None:
    """Each evaluator's ROC AUC minus the best's per pooled game group, with the paired intervals, one
    marker per run (the best, at 0 by construction, left out)."""
    rows = table.filter(pl.col("group").is_in(["suit games", "grand", "null"]),
                        pl.col("evaluator") != pl.col("against"), _finite("auc_diff_lo"))
    if not rows.height:
        return None
    fig, (ax,) = _figure()
    _markers_by_run(ax, rows.with_columns(label=pl.format("{}: {} - {}", "group", "evaluator", "against")), "auc_diff")
    ax.axvline(0.0, color="grey", linestyle="--", linewidth=0.8)
    ax.set(title="ROC AUC minus the best's, same games (paired 95% interval)",
           xlabel="ROC AUC difference (0 = as good as the best)")
    _legend(ax, title="run", fontsize="small")
    return save(fig, path)


@drawn
def calibration(table: pl.DataFrame, run: str, path: Path, *, min_rows: int) -> Path | None:
    """Fitted win probability against the observed win rate per score bin, one panel per game group."""
    rows = table.filter(pl.col("games") >= min_rows)
    groups = [g for g in ("suit games", "grand", "null") if g in set(rows["group"].to_list())]
    if not groups:
        return None
    fig = Figure(figsize=(5 * len(groups), 5), dpi=DPI)  # square panels: the diagonal is the reading line
    axes = list(fig.subplots(1, len(groups), squeeze=False)[0])
    for ax, group in zip(axes, groups):
        for evaluator in dict.fromkeys(rows.filter(pl.col("group") == group)["evaluator"].to_list()):
            part = rows.filter(pl.col("group") == group, pl.col("evaluator") == evaluator).sort("predicted")
            ax.errorbar(part["predicted"].to_numpy(), part["win_rate"].to_numpy(),
                        yerr=_errors(part, "win_rate"), fmt="o-", markersize=3, capsize=2, label=evaluator)
        ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=0.8)
        ax.set(title=group, xlabel="fitted win probability", ylabel="observed win rate",
               xlim=(0, 1), ylim=(0, 1))
        _percent(ax)
        _percent(ax, "x")
        _legend(ax, fontsize="x-small")
    fig.suptitle(f"Calibration of the logistic fits, run {run} (score bins with >= {min_rows} games)")
    return save(fig, path)


@drawn
def comparison(table: pl.DataFrame, path: Path) -> Path | None:
    """Paired differences (B - A) per metric with intervals: scores in points, rates in percentage points."""
    table = table.filter(_finite("difference"))
    if not table.height:
        return None
    is_rate = table["metric"].str.contains("rate")
    parts = [(table.filter(~is_rate), "difference in points"), (table.filter(is_rate), "difference in rate")]
    parts = [(part, unit) for part, unit in parts if part.height]
    fig = Figure(figsize=SIZE, dpi=DPI)
    axes = fig.subplots(len(parts), 1, squeeze=False,
                        gridspec_kw={"height_ratios": [p["metric"].n_unique() + 1 for p, _ in parts]})
    pairs = list(dict.fromkeys(table.select("run_a", "run_b").rows()))
    for ax, (part, unit) in zip(axes[:, 0], parts):
        metrics = list(dict.fromkeys(part["metric"].to_list()))
        for i, (a, b) in enumerate(pairs):
            rows = part.filter(pl.col("run_a") == a, pl.col("run_b") == b)
            y = np.array([metrics.index(m) for m in rows["metric"]]) + (i - (len(pairs) - 1) / 2) * 0.2
            ax.errorbar(rows["difference"].to_numpy(), y, xerr=_errors(rows, "difference"), fmt="o",
                        capsize=3, label=f"{b} - {a}")
        ax.set_yticks(range(len(metrics)), metrics, fontsize="small")
        ax.invert_yaxis()
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set(xlabel=unit)
        if part is parts[-1][0] and unit.endswith("rate"):
            _percent(ax, "x")
        _legend(ax, fontsize="small", title="B - A")
    fig.suptitle("Paired differences between runs on the same deals (95% intervals)")
    return save(fig, path)


@drawn
def match_differences(splits: pl.DataFrame, path: Path) -> Path | None:
    """A duplicate match: the difference A - B of Seeger-Fabian points per game, overall, by role
    and by game type, with 95% intervals over deals; one marker per match run."""
    rows = splits.filter(_finite("difference"))
    if not rows.height:
        return None
    fig, (ax,) = _figure()
    labels = list(dict.fromkeys(rows["split"].to_list()))
    runs = list(dict.fromkeys(rows["run"].to_list()))
    for i, run in enumerate(runs):
        part = rows.filter(pl.col("run") == run)
        y = np.array([labels.index(s) for s in part["split"]]) + (i - (len(runs) - 1) / 2) * 0.2
        low = part["difference"] - part["difference_low"]
        high = part["difference_high"] - part["difference"]
        ax.errorbar(part["difference"].to_numpy(), y, xerr=np.vstack([low.to_numpy(), high.to_numpy()]),
                    fmt="o", capsize=3, label=run)
    ax.set_yticks(range(len(labels)), labels, fontsize="small")
    ax.invert_yaxis()
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set(xlabel="A - B, Seeger-Fabian points per game (95% interval over deals)")
    _legend(ax, fontsize="small", title="match")
    fig.suptitle("Duplicate match: where A gains on B (right of 0) or loses")
    return save(fig, path)
