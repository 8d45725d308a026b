"""The ``skatsim`` command line: one click group, one subcommand per job.

A user mistake ends in one line on stderr that names what is wrong and where, and
a non-zero exit; an output file is written under a temporary name and renamed
only when complete, so nothing half-written is left looking finished.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import IO, Iterator

import click

from analysis import AnalysisError
from analysis import analyze as make_report
from strategies.profiles import ProfileError, profile_description, profile_names
from strategies.registry import ROLES, StrategyError, lookup, names

from .rules.records import RecordError, parse_record
from .rules.records import replay as replay_record
from .runfolder import RunError, temporary_beside
from .show import show_deal
from .simulation import simulate as run_profile

#: Exit code when some input was bad (click uses 2 for a wrong command line).
EXIT_BAD_INPUT = 1


@click.group()
@click.version_option(package_name="skatsim")
def main() -> None:
    """skatsim: Skat by the International Skat Order."""


@contextlib.contextmanager
def atomic_output(path: str | None) -> Iterator[IO[str]]:
    """A text stream for ``path`` (stdout when None) that appears only if the block completes."""
    if path is None:
        yield sys.stdout
        return
    with temporary_beside(Path(path)) as temp, open(temp, "w", encoding="utf-8") as stream:
        yield stream
        stream.flush()
        os.fsync(stream.fileno())


def _open_source(source: str) -> IO[bytes]:
    if source == "-":
        return contextlib.nullcontext(sys.stdin.buffer)
    try:
        return open(source, "rb")
    except OSError as e:
        _fail(f"cannot read {source}: {e.strerror}")


def _replay_line(line: bytes) -> tuple[dict, str | None]:
    """(result, None) for a good record; (error object, the problem) for a bad one."""
    record: dict = {}
    try:
        record = parse_record(line)
        return replay_record(record), None
    except RecordError as e:
        return {"id": record.get("id"), "error": str(e)}, str(e)


def _where(name: str, number: int, result: dict) -> str:
    record = "record without id" if result["id"] is None else f"record {json.dumps(result['id'])}"
    return f"{name}, line {number}, {record}"


@main.command(short_help="Check game records and give each game's exact result.")
@click.argument("source", default="-", metavar="[FILE|-]")
@click.option("--out", type=click.Path(dir_okay=False), help="Write the results here (atomically) instead of stdout.")
@click.option("--keep-going", is_flag=True, help="Write an error object for a bad record and go on with the next.")
def replay(source: str, out: str | None, keep_going: bool) -> None:
    """Check game records (JSON Lines, one record a line) and give each game's exact result.

    Reads FILE, or stdin for - or no FILE, and writes one JSON object a line. A bad
    record stops the run with one line on stderr and a non-zero exit; with
    --keep-going it becomes {"id", "line", "error"} and the exit is non-zero at the end.
    """
    name = "<stdin>" if source == "-" else source
    failed = 0
    with _open_source(source) as lines, atomic_output(out) as sink:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            result, problem = _replay_line(line)
            if problem is not None:
                click.echo(f"{_where(name, number, result)}: {problem}", err=True)
                if not keep_going:
                    sys.exit(EXIT_BAD_INPUT)
                failed += 1
                result = {"id": result["id"], "line": number, "error": problem}
            sink.write(json.dumps(result) + "\n")
    if failed:
        click.echo(f"{name}: {failed} bad record(s)", err=True)
        sys.exit(EXIT_BAD_INPUT)


# --- simulation ---------------------------------------------------------------------------

def _fail(message: str, code: int = EXIT_BAD_INPUT):
    click.echo(f"skatsim: {message}", err=True)
    sys.exit(code)


def _progress_reporter(total: int):
    """A tqdm bar on a terminal; otherwise one JSON line per finished part on stderr.

    ``total`` 0: the total is told with the first update.
    """
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=total or None, unit="deal", unit_scale=True, dynamic_ncols=True)

        def update(done, total_, rate):
            if bar.total is None:
                bar.total = total_
            bar.update(done - bar.n)
            bar.set_postfix_str(f"{rate:,.0f} deals/s", refresh=False)

        return update, bar.close

    def report(done, total_, rate):
        click.echo(json.dumps({"deals_done": done, "deals": total_, "deals_per_s": round(rate)}), err=True)

    return report, lambda: None


@main.command(short_help="Play a run of deals with a profile and write them to Parquet.")
@click.option("--deals", type=click.IntRange(min=1), default=1_000_000, show_default=True,
              help="How many deals to play.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help="Deal i of the run is a pure function of (seed, i).")
@click.option("--profile", default="default", show_default=True,
              help="A named profile (see `skatsim strategies`) or a .toml file.")
@click.option("--set", "settings", multiple=True, metavar="[SEAT.]ROLE[.PARAM]=VALUE",
              help="Change the profile, e.g. card_play=random, bidder.aggressiveness=1, "
                   "middlehand.card_play=random. May be repeated.")
@click.option("--out", type=click.Path(file_okay=False),
              help="Run folder [default: results/PROFILE-MODE-seedSEED-DEALS].")
@click.option("--jobs", type=click.IntRange(min=1), help="Processes or Dask workers [default: all cores].")
@click.option("--chunk-size", type=click.IntRange(min=1), default=100_000, show_default=True,
              help="Deals per part file.")
@click.option("--log-tricks", is_flag=True, help="Also log the cards in the order played.")
@click.option("--mode", type=click.Choice(["game", "declare"]), default="game", show_default=True,
              help="game: whole deals; declare: every seat declares every game type (counterfactual).")
@click.option("--backend", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="local processes, or a Dask cluster (a new local one unless --scheduler).")
@click.option("--scheduler", metavar="ADDRESS", help="Address of a running Dask scheduler (implies --backend dask).")
def simulate(deals, seed, profile, settings, out, jobs, chunk_size, log_tricks, mode, backend, scheduler):
    """Play DEALS deals with a profile and write one Parquet row per deal to a run folder.

    Running the same command again resumes an interrupted run; the output is the
    same for any --jobs, --chunk-size and backend.
    """
    update, close = _progress_reporter(deals)
    try:
        folder = run_profile(deals, seed, profile, settings, out, jobs, chunk_size, log_tricks, mode,
                     backend, scheduler, progress=update)
    except KeyboardInterrupt:
        close()
        _fail("interrupted; the finished parts are kept: run the same command again to resume", 130)
    except (RunError, ProfileError, StrategyError) as error:
        close()
        _fail(str(error))
    except OSError as error:
        close()
        _fail(f"cannot write the run: {error.strerror or error} ({error.filename or out})")
    close()
    click.echo(str(folder))


# --- archives ----------------------------------------------------------------------------


@main.group(name="import", short_help="Import game archives into a run folder.")
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
    from .archive import import_archives

    update, close = _progress_reporter(0)
    try:
        imported = import_archives(files, out, jobs, anonymize, chunk_size, progress=update)
    except KeyboardInterrupt:
        close()
        _fail("interrupted; the finished parts are kept: run the same command again to resume", 130)
    except RunError as error:
        close()
        _fail(str(error))
    except OSError as error:
        close()
        _fail(f"cannot write the run: {error.strerror or error} ({error.filename or out})")
    close()
    for problem in imported.problems:
        click.echo(problem, err=True)
    hidden = imported.bad_lines + imported.disagreements - len(imported.problems)
    if hidden > 0:
        click.echo(f"... and {hidden:,} more in {imported.errors}", err=True)
    click.echo("\n".join(imported.lines_of_text()))
    if imported.games == 0:
        _fail(f"no valid game in {', '.join(files)}; see {imported.errors}")


@main.command(short_help="Print one deal of a run as a person reads it.")
@click.argument("run", type=click.Path(file_okay=False))
@click.argument("deal_id", type=click.IntRange(min=0))
def show(run, deal_id):
    """Print deal DEAL_ID of the run in RUN: hands, auction, skat, game, tricks and result
    (of a declare-mode run: the hands and its eighteen games)."""
    try:
        click.echo(show_deal(run, deal_id))
    except RunError as error:
        _fail(str(error))


@main.command(short_help="List the strategies and named profiles.")
def strategies():
    """List every registered strategy by role, and the named profiles."""
    for role in ROLES:
        click.echo(f"{role}:")
        for name in names(role):
            click.echo(f"  {name:<14} {lookup(role, name).summary}")
    click.echo("profiles:")
    for name in profile_names():
        click.echo(f"  {name:<14} {profile_description(name)}")


@main.command(short_help="Tables, plots and a report of one or more runs.")
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(file_okay=False),
              help="Report folder [default: results/report-<first run's folder name>].")
@click.option("--evaluator", "evaluators", multiple=True,
              help="Only these evaluators in the threshold and heuristic sections (may be repeated).")
def analyze(runs, out, evaluators):
    """Write tables (CSV and Parquet), plots (PNG), report.html and summary.md for RUNS.

    Several runs are shown side by side; runs of the same seed and deals are also
    compared deal for deal.
    """
    folder = Path(out) if out else Path("results") / f"report-{Path(runs[0]).name}"
    try:
        report = make_report(list(runs), folder, evaluators=list(evaluators) or None)
    except AnalysisError as error:
        _fail(str(error))
    except OSError as error:
        _fail(f"cannot write the report: {error.strerror or error} ({error.filename or folder})")
    click.echo(str(report))


if __name__ == "__main__":
    main()
