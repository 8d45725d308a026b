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
import tempfile
from pathlib import Path
from typing import IO, Iterator

import click

from .records import RecordError, parse_record, replay as replay_record

#: Exit code when some input was bad (click uses 2 for a wrong command line).
EXIT_BAD_INPUT = 1


@click.group()
@click.version_option(package_name="skatsim")
def main() -> None:
    """skatsim: Skat by the International Skat Order."""


@contextlib.contextmanager
def atomic_output(path: str | None) -> Iterator[IO[str]]:
    """A text stream for ``path`` (stdout when None) that appears only if the block completes.

    The file is written under a temporary name beside its final place (parent folders
    created) and renamed over it at the end; on any exception, including a
    non-zero exit, the temporary file is removed and an existing file is left as it was.
    """
    if path is None:
        yield click.get_text_stream("stdout")
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.chmod(temp, 0o666 & ~_umask())  # mkstemp makes it private; give it a normal file's mode
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _open_source(source: str) -> IO[bytes]:
    if source == "-":
        return contextlib.nullcontext(click.get_binary_stream("stdin"))
    try:
        return open(source, "rb")
    except OSError as e:
        raise click.ClickException(f"cannot read {source}: {e.strerror}") from None


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
