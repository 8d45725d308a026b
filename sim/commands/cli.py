"""The ``skatsim`` command line: one click group, its commands gathered from the modules that
define them, and the console script's entry point (:func:`run`).

A user mistake ends in one line on stderr that names what is wrong and where, and a non-zero
exit; an output file is written under a temporary name and renamed only when complete, so nothing
half-written is left looking finished. numba's cached kernels are checked against the sources
before any command runs (:func:`sim.runs.compiling.check_kernel_cache`).
"""

from __future__ import annotations

import gc
import sys
import warnings

import click

from sim.runs.compiling import check_kernel_cache

from .game_records import replay, solve
from .learn import calibrate, decisions, train_group
from .playing import hand, match, simulate, strategies, tournament
from .run_folders import analyze, import_group, show, verify


class OneLineErrors(click.Group):
    """A click group whose command-line mistakes print one line, ``skatsim COMMAND: problem``,
    instead of click's usage block."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        warnings.formatwarning = _one_line_warning
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.ClickException as error:
            ctx = getattr(error, "ctx", None)  # usage errors know their command; the group has no parent
            where = "skatsim" if ctx is None or ctx.parent is None else f"skatsim {ctx.info_name}"
            click.echo(f"{where}: {error.format_message()}", err=True)
            sys.exit(error.exit_code)
        except click.Abort:
            click.echo("skatsim: interrupted", err=True)
            sys.exit(130)
        sys.exit(code or 0)


def _one_line_warning(message, category, filename, lineno, line=None) -> str:
    return f"skatsim: warning: {message}\n"


@click.group(cls=OneLineErrors)
@click.version_option(package_name="skatsim")
def main() -> None:
    """skatsim: Skat by the International Skat Order."""
    check_kernel_cache()   # before any command runs a kernel


for _command in (replay, solve, simulate, match, tournament, hand, import_group, show, verify, calibrate,
                strategies, analyze, decisions, train_group):
    main.add_command(_command)


def run() -> None:
    """The console script's entry point: ``skatsim ...``, the command line in standalone mode (it ends
    in ``SystemExit`` with the command's code), then a quick exit.

    A command that is done has written and closed its files; what is left is the interpreter's
    shutdown, which runs the exit functions, tears the modules down and, on the way, collects garbage
    over every object still alive: numba's, polars' and matplotlib's, 0.25 to 0.35 s after a run or a
    report. So the objects are moved out of the collector's reach first (``gc.freeze``): the shutdown
    then takes about 0.03 s, and is otherwise the usual one (exit functions, streams flushed, the
    command's exit code).
    """
    try:
        main()
    finally:
        gc.freeze()


if __name__ == "__main__":
    run()
