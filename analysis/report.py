"""From run folders to a report: tables (CSV and Parquet), plots (PNG), report.html and summary.md.

    from analysis import analyze
    analyze(["results/default-game-seed1-1000000"], "results/report")   # -> results/report/report.html

The HTML page is self-contained (plots embedded as base64 PNG); ``summary.md``
holds the key figures in a few lines. docs/analysis.md explains every table and plot.
Which tables there are, and what the plots, the page and the summary show of each, the
registry says (:mod:`analysis.registry`, :mod:`analysis.catalogue`).
"""

from __future__ import annotations

import time
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from sim.runs import RunError
from sim.runs.atomic import folder_in_place

from . import registry
from .page import METHODS_HTML, STYLE, image_html, runs_html
from .reading import Reading
from .registry import Report
from .runs import AnalysisError, find_damage, load_runs
from .scoring import label, with_scored
from .sharing import SecondProcess, share
from .summary import summary_markdown
from .tables import all_tables
from .thresholds import MIN_ROWS


def analyze(runs, out, *, evaluators: list[str] | None = None, min_rows: int = MIN_ROWS,
            jobs: int | None = None, backend: str = "local", scheduler: str | None = None,
            progress=None) -> Path:
    """Analyse the run folders ``runs`` into the folder ``out``; returns the path of report.html.

    Raises :class:`analysis.AnalysisError` (one line) for a folder that is not a
    run, an empty run, a run of another schema version, a damaged part (named), an
    ``out`` that exists and is not a report, or a Dask scheduler that cannot be reached. The
    report is written to a temporary folder and moved into place when complete, replacing an
    older report: an interrupted analysis never leaves a half report that looks whole.

    ``evaluators``: only these in the evaluator tables (None: every one the runs logged); one a run did not
    log (a registered name, ``FILE.py:NAME`` or ``MODULE:NAME``) is scored at analysis time from the
    logged hands, as logging it would have (:mod:`analysis.scoring`).

    ``jobs``: processes sharing the evaluator tables and the plots (None: two on a machine of two
    cores or more, for a declare-mode run or game-mode runs of :data:`SHARED_FROM_ROWS` rows or more,
    see :func:`worth_sharing` and :mod:`analysis.sharing`); the report is the same either way.

    ``backend``: where the runs' parts are counted, ``"local"`` or ``"dask"``: on the workers of the
    Dask cluster at ``scheduler``, or of a new local one of ``jobs`` workers (:mod:`analysis.reading`);
    the tables are the same either way. ``progress`` is told after each batch of parts (parts read,
    parts in all, rows read, rows in all, rows per second).
    """
    reading = Reading(backend, scheduler=scheduler, jobs=jobs, progress=progress)
    try:
        return _analyze(runs, Path(out), evaluators=evaluators, min_rows=min_rows, jobs=jobs, reading=reading)
    finally:
        reading.close()


def _analyze(runs, out: Path, *, evaluators, min_rows: int, jobs: int | None, reading: Reading) -> Path:
    checked = with_scored(load_runs(runs), evaluators)
    evaluators = [label(source) for source in evaluators] if evaluators else None
    second = SecondProcess.start(jobs) if jobs is not None or worth_sharing(checked) else None
    try:
        with folder_in_place(out, is_report) as folder:  # made before the pass: a bad --out fails at once
            tables, notes = _tables(checked, evaluators, min_rows=min_rows, second=second, reading=reading)
            write_report(folder, Report(checked, tables, notes=notes, min_rows=min_rows), second)
    except RunError as error:
        raise AnalysisError(str(error)) from None
    finally:
        if second is not None:
            second.close()
    return out / "report.html"


#: Game-mode runs of fewer rows in all are analysed in one process unless ``jobs`` asks for two.
SHARED_FROM_ROWS = 100_000


def worth_sharing(runs) -> bool:
    """Whether a second process shortens the report of ``runs``: with a declare-mode run (its evaluator
    tables resample 200 deal groups), or game-mode runs of at least :data:`SHARED_FROM_ROWS` rows. A
    smaller report is over before the second interpreter has imported what it needs."""
    return any(run.mode != "game" for run in runs) or sum(
        pq.read_metadata(part).num_rows for run in runs for part in run.parts) >= SHARED_FROM_ROWS


def _tables(checked, evaluators, *, min_rows: int, second: SecondProcess | None, reading: Reading):
    """Every table of the runs, and the notes; a damaged part named in one line."""
    try:
        return all_tables(checked, evaluators, min_rows=min_rows, second=second, reading=reading)
    except (pl.exceptions.PolarsError, pa.ArrowException, OSError):
        found = [message for message in map(find_damage, checked) if message]
        if not found:
            raise
        raise AnalysisError(found[0]) from None


def write_report(folder: Path, report: Report, second: SecondProcess | None = None) -> None:
    write_tables(report.tables, folder / "tables")
    figures = make_plots(report, folder / "plots", second)
    (folder / "summary.md").write_text(summary_markdown(report), encoding="utf-8")
    (folder / "report.html").write_text(report_html(report, figures), encoding="utf-8")


def is_report(folder: Path) -> bool:
    """A report folder (which a new report may replace): it holds report.html, or nothing."""
    return (folder / "report.html").is_file() or not any(folder.iterdir())


def write_tables(tables: dict[str, pl.DataFrame], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, table in tables.items():
        table.write_csv(folder / f"{name}.csv")
        table.write_parquet(folder / f"{name}.parquet")


def make_plots(report: Report, folder: Path, second: SecondProcess | None = None) -> list[tuple[str, str, Path]]:
    """(table name, caption, file) of every plot the tables allow, in the order of registration; a plot
    without data is left out, and its part of the page says so. A second process draws some: each
    plot given as a drawing (a function of no arguments) is a job of its own."""
    plotted = [table for table in registry.tables() if table.plots is not None and table.name in report.tables]
    listed = [(table.name, caption, drawing) for table in plotted for caption, drawing in table.plots(report, folder)]
    drawn = iter(share([drawing for _, _, drawing in listed if callable(drawing)], (), second))
    files = [next(drawn) if callable(drawing) else drawing for _, _, drawing in listed]
    return [(name, caption, path) for (name, caption, _), path in zip(listed, files)
            if path is not None]  # a plot without data is not drawn


def report_html(report: Report, figures: list[tuple[str, str, Path]]) -> str:
    """The page: the runs, then each registered section with its tables' parts, then the methods."""
    for name, caption, path in figures:
        report.images[name] = report.images.get(name, "") + image_html(path, caption)
    parts = [f"<h1>skatsim analysis</h1>\n<p>Made {time.strftime('%Y-%m-%d %H:%M')} from {len(report.runs)} "
             "run(s). Rates and means carry a 95% interval (a mean of too few games says so); the methods "
             "are at the end. The tables are in "
             "<code>tables/</code> as CSV and Parquet, the plots in <code>plots/</code>.</p>\n",
             "<h2>Runs</h2>\n", runs_html(report.runs)]
    for section in registry.sections():
        parts += section_html(report, section)
    parts.append(METHODS_HTML.format(min_rows=report.min_rows))
    return (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>skatsim analysis</title>"
            f"<style>{STYLE}</style></head>\n<body>\n{''.join(parts)}</body></html>\n")


def section_html(report: Report, section: registry.Section) -> list[str]:
    """The section's intro and its tables' parts; nothing when none of its tables is there and no part
    shows anything."""
    tables = registry.in_section(section.name)
    parts = [text for table in tables if table.html is not None for text in table.html(report)]
    if not parts and not any(table.name in report.tables for table in tables):
        return []
    return [*section.intro(report), *parts]
