"""Running the command line in tests: in this process with stdout alone, or as the console script whose
part writer acts at a known point (dies, presses Ctrl-C)."""

from __future__ import annotations

import textwrap

from click.testing import CliRunner


def stdout_runner() -> CliRunner:
    """A runner whose output is stdout alone: lines told on stderr (kernels compiling on a first run)
    stay out of what the command prints."""
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2 mixes stderr in by default
    except TypeError:
        return CliRunner()


def after_writing(parts: int, action: str) -> str:
    """A script that runs the skatsim console script with pyarrow's writer made to do ``action`` (Python lines, with
    ``where`` the file just written) once a process has written ``parts`` part files: an event at a
    known point, not after a race with a timer."""
    return f"""
import os, signal, sys
import pyarrow.parquet as pq
from sim.commands.cli import run

real, calls = pq.write_table, []

def write_then_act(table, where, **options):
    calls.append(where)
    real(table, where, **options)
    if len(calls) == {parts}:
{textwrap.indent(textwrap.dedent(action).strip(), " " * 8)}

pq.write_table = write_then_act
run()  # as the console script does, with the arguments after -c
"""
