"""What a command tells the person at the terminal: a mistake in one line and a non-zero exit, the
progress of a long job (a bar on a terminal, JSON lines elsewhere), and lines of notice on stderr.

Every command module uses it; it imports nothing of the commands.
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Callable, Iterator

import click

from sim.runs import RunError

#: Exit code when some input was bad (click uses 2 for a wrong command line).
EXIT_BAD_INPUT = 1


def fail(message: str, code: int = EXIT_BAD_INPUT):
    """Say what is wrong in one line on stderr and leave with ``code``."""
    click.echo(f"skatsim: {message}", err=True)
    sys.exit(code)


def tell(line: str) -> None:
    """A line of notice on stderr (kernels compiling, a damaged part played again)."""
    click.echo(line, err=True)


def progress(new_bar: Callable, move_bar: Callable, line: Callable[..., dict]) -> tuple[Callable, Callable]:
    """(update, close) of a long job's progress on stderr. On a terminal a tqdm bar, made by
    ``new_bar(tqdm, *told)`` with the first update (lines told before it stay above it) and moved by
    ``move_bar(bar, *told)``; elsewhere one JSON object an update, ``line(*told)``."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        bars = []

        def update(*told, **named):
            if not bars:
                bars.append(new_bar(tqdm, *told, **named))
            move_bar(bars[0], *told, **named)

        return update, lambda: [bar.close() for bar in bars]

    def report(*told, **named):
        click.echo(json.dumps(line(*told, **named)), err=True)

    return report, lambda: None


def run_progress(total: int) -> tuple[Callable, Callable]:
    """The progress of a run, told with (deals done, deals in all, deals per second) after each part, and
    in a conditional run dealt by rejection the share of candidate deals kept (``acceptance``).

    ``total`` 0: the total is told with the first update. The bar shows the runner's rate once, with
    the time left at that rate.
    """
    def new_bar(tqdm, done, told_total, rate, acceptance=None):
        return tqdm(total=told_total or total or None, unit="deal", unit_scale=True, dynamic_ncols=True,
                    bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]")

    def move_bar(bar, done, told_total, rate, acceptance=None):
        if bar.total is None and told_total:
            bar.total = told_total
        bar.update(done - bar.n)
        left = f", {time_left(told_total - done, rate)} left" if told_total else ""
        kept = "" if acceptance is None else f", {100 * acceptance:.3g}% of candidate deals kept"
        bar.set_postfix_str(f"{rate:,.0f} deals/s{left}{kept}", refresh=True)

    def line(done, told_total, rate, acceptance=None):
        told = {"deals_done": done, "deals": told_total, "deals_per_s": round(rate)}
        return told if acceptance is None else {**told, "acceptance": round(acceptance, 6)}

    return progress(new_bar, move_bar, line)


def reading_progress() -> tuple[Callable, Callable]:
    """The progress of an analysis reading runs' parts, told with (parts read, parts in all, rows read,
    rows in all, rows per second) after each batch of parts."""
    def new_bar(tqdm, parts, total, rows, all_rows, rate):
        return tqdm(total=total, unit="part", dynamic_ncols=True,
                    bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} parts [{elapsed}{postfix}]")

    def move_bar(bar, parts, total, rows, all_rows, rate):
        bar.update(parts - bar.n)
        bar.set_postfix_str(f"{rows:,} of {all_rows:,} rows, {rate:,.0f} rows/s", refresh=True)

    return progress(new_bar, move_bar,
                    lambda parts, total, rows, all_rows, rate: {"parts_read": parts, "parts": total, "rows_read": rows,
                                                                "rows": all_rows, "rows_per_s": round(rate)})


def time_left(deals: int, rate: float) -> str:
    """``h:mm:ss`` or ``m:ss`` for ``deals`` more deals at ``rate`` deals a second."""
    seconds = round(deals / rate) if rate > 0 else 0
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


@contextlib.contextmanager
def writing_run(total: int, out, *errors: type[Exception]) -> Iterator[Callable]:
    """Progress for a command that writes a run folder, and its failures as one line each.

    Yields the progress callback. An interrupt keeps the finished parts (exit 130); a
    ``RunError`` or one of ``errors`` is told as it is; a failed write names the file.
    """
    update, close = run_progress(total)
    try:
        yield update
    except KeyboardInterrupt:
        close()
        fail("interrupted; the finished parts are kept: run the same command again to resume", 130)
    except (RunError, *errors) as error:
        close()
        fail(str(error))
    except OSError as error:
        close()
        fail(f"cannot write {error.filename or out}: {error.strerror or error}")
    close()
