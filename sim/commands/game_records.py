"""The commands on game records (JSON Lines, one record a line): ``replay`` checks and scores them,
``solve`` gives their open-hand value. Both read a file or stdin and write one JSON object a line,
to stdout or to a file that appears only when complete."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import IO, Callable, Iterator

import click

from sim.rules.records import RecordError, parse_record, record_id
from sim.rules.records import replay as replay_record
from sim.runs.atomic import temporary_beside

from .terminal import EXIT_BAD_INPUT, fail


@click.command(short_help="Check game records and give each game's exact result.")
@click.argument("source", default="-", metavar="[FILE|-]")
@click.option("--out", type=click.Path(dir_okay=False), help="Write the results here (atomically) instead of stdout.")
@click.option("--keep-going", is_flag=True, help="Write an error object for a bad record and go on with the next.")
def replay(source: str, out: str | None, keep_going: bool) -> None:
    """Check game records (JSON Lines, one record a line) and give each game's exact result.

    Reads FILE, or stdin for - or no FILE, and writes one JSON object a line. A bad
    record stops the run with one line on stderr and a non-zero exit; with
    --keep-going it becomes {"id", "line", "error"} and the exit is non-zero at the end.
    """
    answer_records(source, out, keep_going=keep_going, answer=replay_record)


@click.command(short_help="The open-hand value of game records: best play with every hand seen.")
@click.argument("source", default="-", metavar="[FILE|-]")
@click.option("--out", type=click.Path(dir_okay=False), help="Write the answers here (atomically) instead of stdout.")
@click.option("--trace", is_flag=True, help="Add, for every card played, the open-hand value after it "
                                            "and the points it gave away.")
@click.option("--keep-going", is_flag=True, help="Write an error object for a bad record and go on with the next.")
def solve(source: str, out: str | None, trace: bool, keep_going: bool) -> None:
    """Solve game records open-handed (every hand seen): the declarer's card points with
    best play on both sides, from the position where each record's play stops.

    Records are those of replay, with "bid" and "play" optional: without "play" the
    position is the first lead; with some cards, the position after them (mid-trick
    too). Writes one JSON object a line: id, game, declarer, cards_played, to_play,
    declarer_points (null in null games), declarer_wins, declarer_schwarz_possible,
    best_cards (the cards of the side to move that keep the value), nodes,
    microseconds; with --trace, "trace" lists every card played with the value after
    it and what it gave away. Bad records as in replay.
    """
    from sim.solver import new_transpositions
    from sim.solver.open_hand import solve_record

    transpositions = new_transpositions()   # the solver's, shared by the records
    answer_records(source, out, keep_going=keep_going,
                   answer=lambda record: solve_record(record, trace, transpositions))


def answer_records(source: str, out: str | None, *, keep_going: bool, answer: Callable[[dict], dict]) -> None:
    """Read JSON Lines records from ``source`` and write ``answer(record)`` for each, one a line.

    A bad record stops with one line on stderr and a non-zero exit; with ``keep_going``
    it becomes an error object and the exit is non-zero at the end.
    """
    name = "<stdin>" if source == "-" else source
    failed = 0
    try:
        with _open_source(source) as lines, atomic_output(out) as sink:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                result, problem = _answer_line(line, answer)
                if problem is not None:
                    click.echo(f"{_where(name, number, result)}: {problem}", err=True)
                    if not keep_going:
                        sys.exit(EXIT_BAD_INPUT)
                    failed += 1
                    result = {"id": result["id"], "line": number, "error": problem}
                sink.write(json.dumps(result) + "\n")
    except OSError as error:
        if out is None or error.filename != str(Path(out)):
            raise
        fail(f"cannot write {out}: {error.strerror}")
    if failed:
        click.echo(f"{name}: {failed} bad record(s)", err=True)
        sys.exit(EXIT_BAD_INPUT)


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
        fail(f"cannot read {source}: {e.strerror}")


def _answer_line(line: bytes, answer: Callable[[dict], dict]) -> tuple[dict, str | None]:
    """(answer, None) for a good record; (error object, the problem) for a bad one."""
    record: dict = {}
    try:
        record = parse_record(line)
        return answer(record), None
    except RecordError as e:
        return {"id": record_id(record), "error": str(e)}, str(e)


def _where(name: str, number: int, result: dict) -> str:
    record = "record without id" if result["id"] is None else f"record {json.dumps(result['id'])}"
    return f"{name}, line {number}, {record}"
