"""A run folder is written by one command at a time, and a command that fails leaves nothing
half-written in it: a second command on a folder in use says so in one line, a lock left by a
killed command blocks nothing, a failing run removes its temporary files, and ``verify`` names
stray files and ``--repair`` removes them."""

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.commands.cli import main
from sim.runs import RunError
from sim.runs import folder as run_folder
from sim.runs.folder import read_manifest, write_part
from sim.runs.lock import LOCK, holding
from sim.runs.runner import RunConfig, run
from strategies import CardPlayer, registry

ROOT = Path(__file__).resolve().parents[2]
PROFILE = "random"  # the runner does not care who plays; random compiles fastest


@pytest.fixture(scope="module")
def play():
    from sim.runs.simulation import ProfileDeals
    from strategies import load_profile

    loaded = load_profile(PROFILE)
    deals = ProfileDeals(loaded.name, loaded.spec)
    deals(0, 0, 1)   # compiled, or loaded from numba's cache, once for the module
    return deals


def names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def whole(folder: Path, parts: int) -> bool:
    """Whether the run in ``folder`` is finished, every part byte for byte as its manifest says, and
    nothing else is in the folder."""
    manifest = read_manifest(folder)
    return (bool(manifest.finished) and manifest.parts_done == list(range(parts))
            and not manifest.damaged_parts(folder, deep=True)
            and names(folder) == ["manifest.json", *(f"part-{i:05d}.parquet" for i in range(parts))])


# --- the lock -----------------------------------------------------------------------------------------


def test_a_second_holder_is_told_which_process_holds_the_folder_and_the_lock_goes_with_the_first(tmp_path):
    with holding(tmp_path) as token:
        assert (tmp_path / LOCK).exists() and token
        refused = []
        second = threading.Thread(target=lambda: refused.append(_refusal(tmp_path)))
        second.start()
        second.join()
        assert re.fullmatch(rf"{tmp_path} is in use by process {os.getpid()} \(.+\); wait for it to finish: "
                            r"a run folder is written by one command at a time", refused[0])
        with holding(tmp_path) as again:   # this thread holds it already
            assert again == token
        assert (tmp_path / LOCK).exists()
    assert names(tmp_path) == []
    with holding(tmp_path):
        pass


def _refusal(folder: Path) -> str:
    with pytest.raises(RunError) as refused, holding(folder):
        pass
    return str(refused.value)


HOLD = """
import sys, time
from sim.runs.lock import holding
with holding(sys.argv[1]):
    print("held", flush=True)
    time.sleep(60)
"""


def holder(folder: Path) -> subprocess.Popen:
    """Another process holding ``folder`` until it is killed."""
    process = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert process.stdout.readline() == "held\n"
    return process


def test_a_command_on_a_folder_another_process_holds_says_so_in_one_line_and_touches_nothing(tmp_path, play):
    folder = run(play, RunConfig(100, 5, play.description(), chunk_size=100), tmp_path / "run", jobs=1)
    (folder / ".part-00001.parquet.ab12cd34-xyz.tmp").write_bytes(b"being written")
    before = names(folder)
    other = holder(folder)
    try:
        for command in (["simulate", "--deals", "200", "--seed", "5", "--profile", PROFILE, "--chunk-size", "100",
                         "--out", str(folder), "--jobs", "1"],
                        ["verify", str(folder)], ["verify", str(folder), "--repair"]):
            result = CliRunner().invoke(main, command)
            assert result.output == (f"skatsim: {folder} is in use by process {other.pid} (-c {folder}); wait"
                                     " for it to finish: a run folder is written by one command at a time\n")
            assert result.exit_code == 1
        assert names(folder) == sorted([*before, LOCK])
    finally:
        other.kill()
        other.wait()


def test_a_lock_left_by_a_killed_command_does_not_block_the_next(tmp_path, play):
    folder = tmp_path / "run"
    folder.mkdir()
    killed = holder(folder)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    assert (folder / LOCK).exists()   # left behind, but no process holds it
    run(play, RunConfig(200, 1, play.description(), chunk_size=100), folder, jobs=1)
    assert whole(folder, 2)


#: Holds the folder, forks a worker that goes on for a minute (its process id printed), and dies
#: as a killed command does.
KILLED_WITH_A_WORKER_LEFT = """
import os, signal, sys, time
from sim.runs.lock import holding
with holding(sys.argv[1]):
    worker = os.fork()
    if worker == 0:
        for stream in (1, 2):   # the test reads the output until it ends
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream)
        time.sleep(60)
        os._exit(0)
    print(worker, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_worker_left_running_by_a_killed_command_does_not_hold_its_lock(tmp_path):
    killed = subprocess.run([sys.executable, "-c", KILLED_WITH_A_WORKER_LEFT, str(tmp_path)], capture_output=True,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    worker = int(killed.stdout)
    try:
        assert killed.returncode == -signal.SIGKILL and (tmp_path / LOCK).exists()
        os.kill(worker, 0)   # still running
        with holding(tmp_path):
            pass
    finally:
        os.kill(worker, signal.SIGKILL)


# --- two commands on one folder -----------------------------------------------------------------------


def two_commands_at_once(folder: Path, play) -> list[str]:
    """What two runs into ``folder``, started at once in two threads, end with: ``finished`` or the
    error's text. Whichever holds the folder first plays only once the other has ended, so the two
    always overlap."""
    start, one_ended, outcomes = threading.Barrier(2), threading.Event(), []

    def waiting_play(seed, first, count):
        assert one_ended.wait(10), "the other command never ended"
        return play(seed, first, count)

    def command():
        start.wait()
        try:
            run(waiting_play, RunConfig(300, 2, play.description(), chunk_size=100), folder, jobs=1)
            outcomes.append("finished")
        except RunError as error:
            outcomes.append(str(error))
        finally:
            one_ended.set()

    commands = [threading.Thread(target=command) for _ in range(2)]
    for thread in commands:
        thread.start()
    for thread in commands:
        thread.join(30)
    return sorted(outcomes, key=lambda outcome: outcome != "finished")


def test_of_two_commands_started_on_one_folder_one_finishes_whole_and_the_other_says_it_is_in_use(tmp_path, play):
    for attempt in range(20):
        folder = tmp_path / f"run{attempt}"
        outcomes = two_commands_at_once(folder, play)
        assert len(outcomes) == 2 and outcomes[0] == "finished", outcomes
        assert outcomes[1].startswith(f"{folder} is in use by process {os.getpid()} ("), outcomes
        assert whole(folder, 3), names(folder)


#: Runs the skatsim console script with pyarrow's writer made to wait for the file named by
#: ``SKATSIM_TEST_GO`` before it writes: the command holds its folder until the test says go.
WAITS_TO_WRITE = """
import os, pathlib, time
import pyarrow.parquet as pq
from sim.commands.cli import run

real, go = pq.write_table, pathlib.Path(os.environ["SKATSIM_TEST_GO"])

def write_when_told(table, where, **options):
    until = time.monotonic() + 60
    while not go.exists() and time.monotonic() < until:
        time.sleep(0.02)
    real(table, where, **options)

pq.write_table = write_when_told
run()  # as the console script does, with the arguments after -c
"""


def test_a_second_skatsim_on_a_folder_in_use_says_which_process_holds_it_and_the_first_finishes_whole(tmp_path):
    folder, go = tmp_path / "run", tmp_path / "go"
    arguments = ["simulate", "--deals", "300", "--seed", "2", "--profile", PROFILE, "--chunk-size", "100",
                 "--jobs", "1", "--out", str(folder)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SKATSIM_TEST_GO": str(go)}
    first = subprocess.Popen([sys.executable, "-c", WAITS_TO_WRITE, *arguments], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        until = time.monotonic() + 60
        while not (folder / "manifest.json").exists() and time.monotonic() < until:   # it holds the folder
            time.sleep(0.02)
        second = subprocess.run([sys.executable, "-m", "sim.commands.cli", *arguments], env=env, capture_output=True,
                                text=True, timeout=120)
        go.touch()
        _, told = first.communicate(timeout=120)
    finally:
        first.kill()
    assert second.returncode == 1 and second.stderr.count("\n") == 1, second.stderr
    assert second.stderr.startswith(f"skatsim: {folder} is in use by process {first.pid} (-c simulate --deals 300 ")
    assert first.returncode == 0, told
    assert whole(folder, 3), names(folder)


# --- nothing half-written -----------------------------------------------------------------------------


class WaitsThenBreaks(CardPlayer):
    """Plays the first legal card, and raises at deal 200 once part 1 is being written (by another worker)."""

    folder: Path | None = None

    def play(self, view):
        if view.deal_id >= 200:
            until = time.monotonic() + 20
            while not list(self.folder.glob(".part-00001.parquet.*.tmp")) and time.monotonic() < until:
                time.sleep(0.01)
            raise ZeroDivisionError("division by zero")
        return view.legal[0]


def slow_writer(real):
    """pyarrow's writer, made to stop halfway through the bytes of part 1 for a minute (the worker is
    stopped in the middle of writing it)."""
    def write(rows, path):
        real(rows, path)
        if ".part-00001.parquet." in str(path):
            data = Path(path).read_bytes()
            Path(path).write_bytes(data[: len(data) // 2])
            time.sleep(60)
    return write


@pytest.mark.skipif(sys.platform != "linux", reason="the workers are forked on Linux only")
def test_a_run_whose_player_fails_leaves_only_the_finished_parts_and_the_manifest(monkeypatch, tmp_path):
    """On two processes: one raises at deal 200 while the other is halfway through writing part 1."""
    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    registry.register("card_play", "breaks")(WaitsThenBreaks)
    monkeypatch.setattr(WaitsThenBreaks, "folder", tmp_path / "run")
    monkeypatch.setattr(run_folder, "write_parquet", slow_writer(run_folder.write_parquet))
    began = time.monotonic()
    result = CliRunner().invoke(main, ["simulate", "--deals", "400", "--chunk-size", "100", "--jobs", "2",
                                       "--profile", PROFILE, "--set", "middlehand.card_play=breaks",
                                       "--out", str(tmp_path / "run")])
    assert result.exit_code == 1 and "raised ZeroDivisionError: division by zero, at deal 2" in result.output
    assert time.monotonic() - began < 50   # the worker writing part 1 was stopped, not waited for
    manifest = read_manifest(tmp_path / "run")
    assert not manifest.finished and 1 not in manifest.parts_done
    assert names(tmp_path / "run") == ["manifest.json", *(f"part-{i:05d}.parquet" for i in manifest.parts_done)]


def test_a_run_that_fails_in_this_process_removes_its_temporary_files(tmp_path, play):
    def breaks(seed, first, count):
        if first == 100:
            raise KeyboardInterrupt
        return play(seed, first, count)

    folder = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run(breaks, RunConfig(300, 3, play.description(), chunk_size=100), folder, jobs=1)
    assert names(folder) == ["manifest.json", "part-00000.parquet"]


def test_a_part_finished_for_a_command_that_has_stopped_is_not_kept(tmp_path, play):
    """As a worker of a Dask cluster finishing a task after its command has gone."""
    columns = play(6, 0, 10)
    with holding(tmp_path) as token:
        write_part(tmp_path, 0, dict(columns), "game", holder=token)
    with pytest.raises(RunError, match="no longer held by the command"):
        write_part(tmp_path, 1, dict(columns), "game", holder=token)
    with holding(tmp_path), pytest.raises(RunError, match="no longer held by the command"):
        write_part(tmp_path, 1, dict(columns), "game", holder=token)   # another command's now
    assert names(tmp_path) == ["part-00000.parquet"]


# --- verify -------------------------------------------------------------------------------------------


def test_verify_names_stray_files_and_repair_removes_them(tmp_path, play):
    folder = run(play, RunConfig(200, 4, play.description(), chunk_size=100), tmp_path / "run", jobs=1)
    (folder / ".part-00001.parquet.x1y2z3.tmp").write_bytes(b"PAR1 half")
    (folder / "notes.txt").write_text("mine")
    (folder / ".gitkeep").write_text("")
    runner = CliRunner()
    found = runner.invoke(main, ["verify", str(folder)])
    assert found.exit_code == 1, found.output
    assert found.output == (f"skatsim: {folder}: 2 stray file(s) (not the manifest, a finished part or the lock:"
                            f" .part-00001.parquet.x1y2z3.tmp, notes.txt); run `skatsim verify {folder} --repair`"
                            " to remove the stray files\n")
    repaired = runner.invoke(main, ["verify", str(folder), "--repair"])
    assert repaired.exit_code == 0, repaired.output
    assert repaired.output.endswith(f"{folder}: removed 2 stray file(s); every finished part is whole\n")
    assert names(folder) == [".gitkeep", "manifest.json", "part-00000.parquet", "part-00001.parquet"]
    assert runner.invoke(main, ["verify", str(folder)]).exit_code == 0
    for index in range(7):
        (folder / f"stray-{index}").write_text("")
    many = runner.invoke(main, ["verify", str(folder)])
    assert many.exit_code == 1 and "(not the manifest, a finished part or the lock: stray-0, stray-1, stray-2," \
        " stray-3, stray-4 and 2 more);" in many.output and many.output.count("\n") == 1, many.output
