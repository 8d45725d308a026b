"""The commands on run folders that no profile plays: ``import iss`` (game archives made a run),
``show`` (one deal of a run), ``verify`` (every part byte by byte, damaged ones made again) and
``analyze`` (tables, plots and a report of runs).

The commands import the layers they need when they run, so that ``skatsim --help`` starts in a
fraction of a second.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from sim.runs import RunError

from .terminal import fail, reading_progress, tell, writing_run

#: polars' allocator (jemalloc) gives the memory it frees back to the system after half a second
#: rather than ten: the report's two processes take turns with large frames, and each kept what
#: it had freed (a 500,000-deal declare-mode report: 1.8 instead of 2.1 GB at its peak, 2026-12-05).
POLARS_MEMORY, RETURN_FREED_MEMORY = "_RJEM_MALLOC_CONF", "dirty_decay_ms:500,muzzy_decay_ms:0"


@click.group(name="import", short_help="Import game archives into a run folder.")
def import_group() -> None:
    """Import game archives into run folders that `skatsim analyze` reads like simulations."""


@import_group.command(name="iss", short_help="Import International Skat Server archives.")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Run folder to write.")
@click.option("--jobs", type=click.IntRange(min=1), help="Processes [default: all cores].")
@click.option("--anonymize", is_flag=True, help="Write a stable hash of each player's name instead of the name.")
@click.option("--chunk-size", type=click.IntRange(min=1), default=50_000, show_default=True,
              help="Record lines per part file.")
def import_iss(files, out, jobs, anonymize, chunk_size):
    """Check every game of ISS archive FILES (plain text, .bz2 or .gz) and write them to a run folder.

    Bad lines and games whose result differs from the archive's are listed in RUN/errors.jsonl
    (the first few on stderr) and do not make the exit status non-zero; an unreadable or damaged
    file, a folder holding another run, or archives without a single valid game do. Running the
    same command again finishes an interrupted import.
    """
    from sim.imports.iss.archive import import_archives

    with writing_run(0, out) as update:
        imported = import_archives(files, out, jobs=jobs, anonymize=anonymize, chunk_size=chunk_size, progress=update)
    for problem in imported.problems:
        tell(problem)
    hidden = imported.bad_lines + imported.disagreements - len(imported.problems)
    if hidden > 0:
        tell(f"... and {hidden:,} more in {imported.errors}")
    click.echo("\n".join(imported.lines_of_text()))
    if imported.games == 0:
        fail(f"no valid game in {', '.join(files)}; see {imported.errors}")


@click.command(short_help="Print one deal of a run as a person reads it.")
@click.argument("run", type=click.Path(file_okay=False))
@click.argument("deal_id", type=click.IntRange(min=0))
def show(run, deal_id):
    """Print deal DEAL_ID of the run in RUN: hands, auction, skat, game, tricks and result
    (of a declare-mode run: the hands and its eighteen games)."""
    from sim.commands.show import show_deal
    from sim.runs.compiling import compiles_told
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    try:
        with compiles_told(tell):
            text = show_deal(run, deal_id)
        click.echo(text)
    except RunError as error:
        fail(str(error))
    except (ProfileError, StrategyError) as error:
        fail(f"{run}: cannot play the deal again with the run's strategies: {error}")


@click.command(short_help="Check every part of a run byte by byte; --repair makes damaged parts again.")
@click.argument("run", type=click.Path(file_okay=False))
@click.option("--repair", is_flag=True,
              help="Play the damaged or missing parts again (the same seed gives the same data) and remove "
                   "the stray files.")
@click.option("--jobs", type=click.IntRange(min=1), help="Processes for --repair [default: all cores].")
def verify(run, repair, jobs):
    """Compare every finished part of the run in RUN with the manifest (size, rows, CRC-32 of its
    bytes), and look for stray files: anything in RUN that is not the manifest, a finished part or
    the lock (a temporary file of a killed command, a part the manifest does not list). Prints one
    line per damaged part and a line naming the stray files, and exits 1, unless --repair made the
    parts again and removed the stray files. A run folder another command is writing is not
    verified."""
    from sim.runs.folder import read_manifest
    from sim.runs.lock import holding
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    folder = Path(run)
    try:
        read_manifest(folder)   # a folder that holds no run is named as such, and not written
        with holding(folder, only_reading=not repair):
            manifest, damaged, stray = _check_run(folder, repair, jobs)
    except RunError as error:
        fail(str(error))
    except (ProfileError, StrategyError) as error:
        fail(f"{run}: cannot play the damaged parts again with the run's strategies: {error}")
    except OSError as error:
        fail(f"cannot write {error.filename or run}: {error.strerror or error}")
    done = [f"made {len(damaged)} damaged part(s) again"] if damaged else []
    done += [f"removed {len(stray)} stray file(s)"] if stray else []
    click.echo(f"{run}: {''.join(part + '; ' for part in done)}every finished part is whole{_unfinished(manifest)}")


def _check_run(folder: Path, repair: bool, jobs):
    """``verify`` of the run in ``folder``, which this command holds: (the manifest after it, the parts
    that were damaged, the stray files). Without ``repair``, a damaged part or a stray file fails the
    command in one line."""
    from sim.runs.folder import read_manifest, remove_files, stray_files

    manifest = read_manifest(folder)
    damaged = manifest.damaged_parts(folder, deep=True)
    stray = stray_files(folder, manifest)
    for problem in damaged.values():
        tell(f"{folder}: {problem}")
    if (damaged or stray) and not repair:
        found = [f"{len(damaged)} damaged part(s)"] if damaged else []
        found += [f"{len(stray)} stray file(s) (not the manifest, a finished part or the lock: {_named(folder, stray)})"
                  ] if stray else []
        what = ["make the parts again"] if damaged else []
        what += ["remove the stray files"] if stray else []
        fail(f"{folder}: {' and '.join(found)}; run `skatsim verify {folder} --repair` to {' and '.join(what)}")
    remove_files(stray)
    if damaged:
        from sim.runs.modes import repair as repair_run

        repair_run(folder, jobs=jobs)
        manifest = read_manifest(folder)
    return manifest, damaged, stray


def _named(folder: Path, paths: list[Path], most: int = 5) -> str:
    """The first ``most`` of ``paths`` by their names in ``folder``, and how many more."""
    names = ", ".join(str(path.relative_to(folder)) for path in paths[:most])
    return names + (f" and {len(paths) - most:,} more" if len(paths) > most else "")


def _unfinished(manifest) -> str:
    """What is left to do of a run whose parts are not all finished, in a few words ('' if none)."""
    done = len(manifest.parts)
    if manifest.config.get("deals") is None:
        return f" ({done} parts finished; the import is not: run it again to finish it)"
    planned = -(-manifest.config["deals"] // manifest.config["chunk_size"])
    return "" if done == planned else f" ({done} of {planned} parts finished: run it again to finish it)"


@click.command(short_help="Tables, plots and a report of one or more runs.")
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(file_okay=False),
              help="Report folder [default: results/report-<first run's folder name>].")
@click.option("--evaluator", "evaluators", multiple=True,
              help="Only these evaluators in the threshold and evaluator sections (may be repeated); one the"
                   " runs did not log (a registered name, FILE.py:NAME or MODULE:NAME) is scored from the"
                   " logged hands.")
@click.option("--jobs", type=click.IntRange(min=1),
              help="Processes sharing the evaluator tables and the plots, and the workers of a new local "
                   "Dask cluster [default: 2 on a machine of two cores or more, for a declare-mode run or "
                   "game-mode runs of 100,000 rows or more; all cores for Dask].")
@click.option("--backend", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="Count the parts here, or on a Dask cluster (a new local one unless --scheduler).")
@click.option("--scheduler", metavar="ADDRESS", help="Address of a running Dask scheduler (implies --backend dask).")
def analyze(runs, out, evaluators, jobs, backend, scheduler):
    """Write tables (CSV and Parquet), plots (PNG), report.html and summary.md for RUNS.

    Several runs are shown side by side; runs of the same seed and deals are also
    compared deal for deal. The parts are read in one pass, in memory that grows with the
    tables, not the rows; with --backend dask they are counted on the cluster's workers, which
    must see the run folders at the same paths. The tables are the same either way.
    """
    os.environ.setdefault(POLARS_MEMORY, RETURN_FREED_MEMORY)  # read when polars loads, here and in the second process
    from analysis import AnalysisError
    from analysis import analyze as make_report

    folder = Path(out) if out else Path("results") / f"report-{Path(runs[0]).name}"
    update, close = reading_progress()
    try:
        _warn_of_conditional_runs(runs)
        report = make_report(list(runs), folder, evaluators=list(evaluators) or None, jobs=jobs, backend=backend,
                             scheduler=scheduler, progress=update)
    except AnalysisError as error:
        close()
        fail(str(error))
    except OSError as error:
        close()
        fail(f"cannot write {error.filename or folder}: {error.strerror or error}")
    close()
    click.echo(str(report))


def _warn_of_conditional_runs(runs) -> None:
    """A line on stderr for each run dealt with fixed cards or a condition: its rates are conditional."""
    from analysis import load_runs

    for run in load_runs(runs):
        if run.dealing:
            tell(f"skatsim: warning: {run.label} is dealt only {run.dealing}; its rates hold for those deals only")
