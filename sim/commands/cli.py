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
import warnings
from pathlib import Path
from typing import IO, Callable, Iterator

import click

from sim.rules.records import RecordError, parse_record, record_id
from sim.rules.records import replay as replay_record
from sim.runs.compiling import check_kernel_cache
from sim.runs.folder import RunError, temporary_beside

from .options import SET_VALUES, run_options

# The commands import the layers they need (strategies, analysis) when they run, so that
# `skatsim replay` or `--help` start in a fraction of a second.

#: Exit code when some input was bad (click uses 2 for a wrong command line).
EXIT_BAD_INPUT = 1


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


def answer_records(source: str, out: str | None, keep_going: bool, answer: Callable[[dict], dict]) -> None:
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
        _fail(f"cannot write {out}: {error.strerror}")
    if failed:
        click.echo(f"{name}: {failed} bad record(s)", err=True)
        sys.exit(EXIT_BAD_INPUT)


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
    answer_records(source, out, keep_going, replay_record)


@main.command(short_help="The open-hand value of game records: best play with every hand seen.")
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
    from sim.solver import new_table
    from sim.solver.open_hand import solve_record

    table = new_table()
    answer_records(source, out, keep_going, lambda record: solve_record(record, trace, table))


# --- simulation ---------------------------------------------------------------------------

def _fail(message: str, code: int = EXIT_BAD_INPUT):
    click.echo(f"skatsim: {message}", err=True)
    sys.exit(code)


def _progress_reporter(total: int):
    """A tqdm bar on a terminal; otherwise one JSON line per finished part on stderr.

    ``total`` 0: the total is told with the first update. The bar appears with the first
    finished part (lines told before it, such as kernels compiling, stay above it) and shows
    the runner's rate once, with the time left at that rate.
    """
    if sys.stderr.isatty():
        from tqdm import tqdm

        bars = []

        def update(done, total_, rate):
            if not bars:
                bars.append(tqdm(total=total_ or total or None, unit="deal", unit_scale=True, dynamic_ncols=True,
                                 bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"))
            bar = bars[0]
            if bar.total is None and total_:
                bar.total = total_
            bar.update(done - bar.n)
            left = f", {_time_left(total_ - done, rate)} left" if total_ else ""
            bar.set_postfix_str(f"{rate:,.0f} deals/s{left}", refresh=True)

        return update, lambda: [bar.close() for bar in bars]

    def report(done, total_, rate):
        click.echo(json.dumps({"deals_done": done, "deals": total_, "deals_per_s": round(rate)}), err=True)

    return report, lambda: None


def _time_left(deals: int, rate: float) -> str:
    """``h:mm:ss`` or ``m:ss`` for ``deals`` more deals at ``rate`` deals a second."""
    seconds = round(deals / rate) if rate > 0 else 0
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


@contextlib.contextmanager
def _writing_run(total: int, out, *errors: type[Exception]) -> Iterator[Callable]:
    """Progress for a command that writes a run folder, and its failures as one line each.

    Yields the progress callback. An interrupt keeps the finished parts (exit 130); a
    ``RunError`` or one of ``errors`` is told as it is; a failed write names the file.
    """
    update, close = _progress_reporter(total)
    try:
        yield update
    except KeyboardInterrupt:
        close()
        _fail("interrupted; the finished parts are kept: run the same command again to resume", 130)
    except (RunError, *errors) as error:
        close()
        _fail(str(error))
    except OSError as error:
        close()
        _fail(f"cannot write {error.filename or out}: {error.strerror or error}")
    close()


@main.command(short_help="Play a run of deals with a profile and write them to Parquet.")
@run_options(deals=1_000_000, chunk_size=100_000,
             out="Run folder [default: results/PROFILE-MODE-seedSEED-DEALS, then the --set settings]."
                 " A finished run asked for with more --deals grows.",
             profile="A named profile (see `skatsim strategies`) or a .toml file.",
             settings="Change the profile, e.g. card_play=random, bidder.margin=10, middlehand.card_play=random, "
                      + SET_VALUES + " May be repeated.",
             jobs="Processes or Dask workers [default: all cores].")
@click.option("--log-tricks", is_flag=True, help="Also log the cards in the order played.")
@click.option("--mode", type=click.Choice(["game", "declare"]), default="game", show_default=True,
              help="game: whole deals; declare: every seat declares every game type (counterfactual).")
@click.option("--variants", type=click.Choice(["profile", "all"]), default="profile", show_default=True,
              help="declare mode: each game as the profile declares it, or every variant (pick-up and hand;"
                   " null plain, hand, ouvert, ouvert hand).")
@click.option("--open-hand", is_flag=True,
              help="Also solve every declared game open-handed from its first lead (columns oh_declarer_points,"
                   " oh_won); far slower than playing.")
@click.option("--seat-scores", is_flag=True,
              help="game mode: also log every seat's evaluator scores for every game (eval_NAME_SEAT_GAME), not"
                   " only the declarer's; they follow from the logged hands and double a run's size.")
@click.option("--backend", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="local processes, or a Dask cluster (a new local one unless --scheduler).")
@click.option("--scheduler", metavar="ADDRESS", help="Address of a running Dask scheduler (implies --backend dask).")
def simulate(deals, seed, profile, settings, out, jobs, chunk_size, log_tricks, mode, variants, open_hand,
             seat_scores, backend, scheduler):
    """Play DEALS deals with a profile and write one Parquet row per deal to a run folder.

    Running the same command again resumes an interrupted run, and with more --deals
    grows a finished one (deal i depends on the seed and i alone); the output is the
    same for any --jobs, --chunk-size and backend.
    """
    from sim.runs.simulation import simulate as run_profile
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    with _writing_run(deals, out, ProfileError, StrategyError) as update:
        folder = run_profile(deals, seed, profile, settings, out, jobs, chunk_size, log_tricks, mode,
                             backend, scheduler, progress=update, notice=lambda line: click.echo(line, err=True),
                             variants=variants, open_hand=open_hand, seat_scores=seat_scores)
    click.echo(str(folder))


@main.command(short_help="A duplicate match between two profiles: which is stronger, with its interval.")
@click.argument("a")
@click.argument("b")
@click.option("--deals", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Deals; each is played six times (every seat, A alone against two B and B alone against two A).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True, help="Seed of the deals.")
@click.option("--card-play-only", is_flag=True,
              help="Bid, discard and declare as A at every seat: only the card play is compared.")
@click.option("--set", "settings", multiple=True, metavar="[SEAT.]ROLE[.PARAM]=VALUE",
              help="Change both profiles (as simulate --set).")
@click.option("--set-a", "settings_a", multiple=True, metavar="[SEAT.]ROLE[.PARAM]=VALUE", help="Change profile A.")
@click.option("--set-b", "settings_b", multiple=True, metavar="[SEAT.]ROLE[.PARAM]=VALUE", help="Change profile B.")
@click.option("--out", type=click.Path(file_okay=False), help="Run folder [default: results/match-A-B-seedS-N].")
@click.option("--jobs", type=click.IntRange(min=1), help="Processes [default: all cores].")
@click.option("--chunk-size", type=click.IntRange(min=1), default=500, show_default=True, help="Deals per part file.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
def match(a, b, deals, seed, card_play_only, settings, settings_a, settings_b, out, jobs, chunk_size, as_json):
    """Play a duplicate match between profiles A and B (names or TOML files) and print Seeger-Fabian
    points per game for each, their difference A - B with a 95% interval over deals, the same by
    declarer and defender play and by game type, and each side's declarer win rate.

    The run is written like any run (resumable; `skatsim analyze` reports it).
    """
    from analysis import AnalysisError, load_run, match_result, match_splits
    from sim.runs.simulation import match as play_match
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    with _writing_run(deals, out, ProfileError, StrategyError, AnalysisError) as update:
        folder = play_match(a, b, deals, seed, settings, settings_a, settings_b, card_play_only, out, jobs,
                            chunk_size, progress=update, notice=lambda line: click.echo(line, err=True))
        run = load_run(folder)
        result, splits = match_result(run), match_splits(run)
    if as_json:
        row = result.row(0, named=True)
        row.update(folder=str(folder), splits=splits.to_dicts())
        click.echo(json.dumps(row))
    else:
        from sim.commands.results import match_text

        click.echo(match_text(result.row(0, named=True), splits, folder))


@main.command(short_help="Every pair of several profiles in a duplicate match: a table, a ranking and a plot.")
@click.argument("players", nargs=-1, required=True, metavar="PLAYER PLAYER [PLAYER ...]")
@click.option("--deals", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Deals of every match; each is played six times (as skatsim match does).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help="Seed of the deals (the same deals in every match).")
@click.option("--card-play-only", is_flag=True,
              help="Bid, discard and declare as the first player at every seat of every match: only the card"
                   " play is compared.")
@click.option("--set", "settings", multiple=True, metavar="[SEAT.]ROLE[.PARAM]=VALUE",
              help="Change every player's profile (as simulate --set).")
@click.option("--out", type=click.Path(file_okay=False),
              help="Tournament folder, one match run folder per pair in it"
                   " [default: results/tournament-PLAYERS-seedS-N].")
@click.option("--jobs", type=click.IntRange(min=1), help="Processes [default: all cores].")
@click.option("--chunk-size", type=click.IntRange(min=1), default=500, show_default=True, help="Deals per part file.")
@click.option("--json", "as_json", is_flag=True, help="Print the standings and the matches as one JSON object.")
def tournament(players, deals, seed, card_play_only, settings, out, jobs, chunk_size, as_json):
    """Play every pair of PLAYERS in a duplicate match on the same deals and print each player's
    Seeger-Fabian points per game and its points less its opponents' ("against the field"), each
    with a 95% interval over deals, ranked; then every match's A - B. A PLAYER is a profile name or
    .toml file, with settings after @: default@card_play=pimc@card_play.worlds=8.

    Writes standings.csv, pairs.csv, tournament.png and summary.md to the tournament folder; running the same
    command again resumes the matches not finished (and grows them with more --deals).
    """
    from analysis import AnalysisError
    from sim.commands.results import tournament_json, tournament_text
    from sim.commands.tournament import play_tournament
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    matches = len(players) * (len(players) - 1) // 2
    with _writing_run(matches * deals, out, ProfileError, StrategyError, AnalysisError) as update:
        result = play_tournament(players, deals, seed, card_play_only, settings, out, jobs, chunk_size,
                                 progress=update, notice=lambda line: click.echo(line, err=True))
    click.echo(tournament_json(result) if as_json else tournament_text(result))


@main.command(short_help="What one hand is worth: every game played out over many deals of the unseen cards.")
@click.argument("cards", metavar='"CJ SJ HA H10 ..."')
@click.option("--seat", type=click.Choice(["forehand", "middlehand", "rearhand"]), default="forehand",
              show_default=True, help="The seat that holds the hand.")
@click.option("--skat", help="The skat, if known (two cards).")
@click.option("--deals", type=click.IntRange(1, 1_000_000), default=2000, show_default=True,
              help="Deals of the unseen cards.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True, help="Seed of those deals.")
@click.option("--profile", default="default", show_default=True,
              help="Whose discards and card play (at every seat) decide the games.")
@click.option("--set", "settings", multiple=True, metavar="[SEAT.]ROLE[.PARAM]=VALUE",
              help="Change the profile (as simulate --set).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: the hand, seat, skat, profile, settings, deals and seed asked about,"
                   " the advice, and games (one entry per game variant).")
def hand(cards, seat, skat, deals, seed, profile, settings, as_json):
    """For the ten CARDS at a seat, deal the unseen cards many times, play every game in every
    variant with the profile's players, and print each one's win rate (95% interval), expected
    Seeger-Fabian score at 18, schneider rate and the highest bid worth making; then the advice."""
    from sim.commands.hand import HandError, advice, judge_hand, read_hand
    from sim.runs.compiling import compiles_told
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    try:
        held, where, known = read_hand(cards, seat, skat)
        with compiles_told(lambda line: click.echo(line, err=True)):
            table = judge_hand(held, where, known, deals, seed, profile, settings)
    except (HandError, ProfileError, StrategyError) as error:
        _fail(str(error))
    if as_json:
        from sim.rules.cards import SEAT_NAMES, format_hand

        asked = {"hand": format_hand(held), "seat": SEAT_NAMES[where], "skat": format_hand(known) if known else None,
                 "profile": profile, "settings": list(settings), "deals": deals, "seed": seed}
        click.echo(json.dumps({**asked, "advice": advice(table), "games": table.to_dicts()}))
        return
    click.echo(f"{'game':<26}{'wins (95% interval)':>24}{'expected SF':>13}{'schneider':>11}{'bid up to':>11}")
    for row in table.iter_rows(named=True):
        rate = f"{100 * row['win_rate']:.1f}% ({100 * row['win_rate_lo']:.1f}-{100 * row['win_rate_hi']:.1f})"
        click.echo(f"{row['game']:<26}{rate:>24}{row['expected_sf']:>+13.1f}{100 * row['schneider_rate']:>10.1f}%"
                   f"{row['bid_up_to'] or '-':>11}")
    click.echo(advice(table))


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
    from sim.imports.iss.archive import import_archives

    with _writing_run(0, out) as update:
        imported = import_archives(files, out, jobs, anonymize, chunk_size, progress=update)
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
    from sim.commands.show import show_deal
    from sim.runs.compiling import compiles_told
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    try:
        with compiles_told(lambda line: click.echo(line, err=True)):
            text = show_deal(run, deal_id)
        click.echo(text)
    except RunError as error:
        _fail(str(error))
    except (ProfileError, StrategyError) as error:
        _fail(f"{run}: cannot play the deal again with the run's strategies: {error}")


@main.command(short_help="Check every part of a run byte by byte; --repair makes damaged parts again.")
@click.argument("run", type=click.Path(file_okay=False))
@click.option("--repair", is_flag=True,
              help="Play the damaged or missing parts again (the same seed gives the same data).")
@click.option("--jobs", type=click.IntRange(min=1), help="Processes for --repair [default: all cores].")
def verify(run, repair, jobs):
    """Compare every finished part of the run in RUN with the manifest (size, rows, CRC-32 of its
    bytes). Prints one line per damaged part and exits 1, unless --repair made them again."""
    from sim.runs.folder import read_manifest
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    try:
        manifest = read_manifest(Path(run))
        damaged = manifest.damaged_parts(Path(run), deep=True)
        for problem in damaged.values():
            click.echo(f"{run}: {problem}", err=True)
        if damaged and not repair:
            _fail(f"{run}: {len(damaged)} damaged part(s); run `skatsim verify {run} --repair` to make them again")
        if damaged:
            from sim.runs.simulation import repair as repair_run

            repair_run(Path(run), jobs)
            manifest = read_manifest(Path(run))
    except RunError as error:
        _fail(str(error))
    except (ProfileError, StrategyError) as error:
        _fail(f"{run}: cannot play the damaged parts again with the run's strategies: {error}")
    except OSError as error:
        _fail(f"cannot write {error.filename or run}: {error.strerror or error}")
    done = len(manifest.parts)
    if manifest.config.get("deals") is None:
        state = f" ({done} parts finished; the import is not: run it again to finish it)"
    else:
        planned = -(-manifest.config["deals"] // manifest.config["chunk_size"])
        state = "" if done == planned else f" ({done} of {planned} parts finished: run it again to finish it)"
    made = f"made {len(damaged)} damaged part(s) again; " if damaged else ""
    click.echo(f"{run}: {made}every finished part is whole{state}")


@main.command(short_help="Fit win probabilities on declare-mode runs; write a profile that bids by expected score.")
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="The profile to write (.toml).")
@click.option("--rounds", type=click.IntRange(0, 20), default=0, show_default=True,
              help="Refit on fresh declare-mode runs of the new profile this many times.")
@click.option("--deals", type=click.IntRange(min=100), default=100_000, show_default=True,
              help="Deals of each refit round's run.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 21), default=1, show_default=True,
              help="Round k's run uses seed + k.")
@click.option("--margin", type=click.FloatRange(-200, 200), default=0.0, show_default=True,
              help="Bid while the best expected result beats passing by this many points.")
@click.option("--jobs", type=click.IntRange(min=1), help="Processes for the rounds' runs [default: all cores].")
def calibrate(runs, out, rounds, deals, seed, margin, jobs):
    """Fit the win, schneider and schwarz probabilities of every game on RUNS (declare-mode runs of every
    variant: skatsim simulate --mode declare --variants all) and write a profile whose bidder and
    declarer choose by expected Seeger-Fabian score. Prints each fit's Brier scores on held-out deals."""
    from sim.commands.calibrate import calibrate as fit_profile
    from strategies.profiles import ProfileError
    from strategies.registry import StrategyError

    try:
        summaries = fit_profile(runs, out, rounds, deals, seed, margin, jobs)
    except (RunError, ProfileError, StrategyError) as error:
        _fail(str(error))
    except OSError as error:
        _fail(f"cannot write {error.filename or out}: {error.strerror or error}")
    for summary in summaries:
        click.echo(json.dumps(summary))
    click.echo(out)


@main.command(short_help="List the strategies and named profiles.")
def strategies():
    """List every registered strategy by role, and the named profiles."""
    from strategies.profiles import profile_description, profile_names
    from strategies.registry import ROLES, lookup, names

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
@click.option("--jobs", type=click.IntRange(min=1),
              help="Processes sharing the evaluator tables and the plots "
                   "[default: 2 on a machine of two cores or more].")
def analyze(runs, out, evaluators, jobs):
    """Write tables (CSV and Parquet), plots (PNG), report.html and summary.md for RUNS.

    Several runs are shown side by side; runs of the same seed and deals are also
    compared deal for deal.
    """
    from analysis import AnalysisError
    from analysis import analyze as make_report

    folder = Path(out) if out else Path("results") / f"report-{Path(runs[0]).name}"
    try:
        _check_evaluators(runs, evaluators)
        report = make_report(list(runs), folder, evaluators=list(evaluators) or None, jobs=jobs)
    except AnalysisError as error:
        _fail(str(error))
    except OSError as error:
        _fail(f"cannot write {error.filename or folder}: {error.strerror or error}")
    click.echo(str(report))


def _check_evaluators(runs, wanted) -> None:
    """Fail in one line when ``--evaluator`` names an evaluator none of the runs logged."""
    from analysis import load_runs
    from analysis.games import evaluator_columns

    logged = sorted({name for run in load_runs(runs) for name in evaluator_columns(run)})
    unknown = [name for name in dict.fromkeys(wanted) if name not in logged]
    if unknown:
        _fail(f"unknown evaluator {', '.join(map(repr, unknown))}: the runs logged {', '.join(logged) or 'none'}")


from .learn import decisions, train_group  # noqa: E402  (commands of their own module)

main.add_command(decisions)
main.add_command(train_group)


if __name__ == "__main__":
    from sim.commands.console import leave_after

    leave_after(main)
