"""Every command that writes files, given an output it cannot write: one line naming the file the
user asked for, a non-zero exit, and nothing left behind (no target, no temporary file, no folder
made on the way)."""

import errno
import os
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.commands.cli import main
from sim.runs.atomic import folder_in_place, temporary_beside
from sim.runs.simulation import simulate

EXAMPLES = str(Path(__file__).resolve().parents[2] / "examples" / "games.jsonl")
TOO_LONG = "x" * 300   # a folder name no file system takes


@pytest.fixture
def read_only(tmp_path, monkeypatch):
    """A folder nothing can be written to: read-only by its mode, or, for root (whom modes do not
    stop), by file system calls that refuse it as a read-only mount does."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return

    def refusing(real, where):
        def call(*args, **kwargs):
            if str(folder) in str(where(args, kwargs)):
                raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(where(args, kwargs)))
            return real(*args, **kwargs)
        return call

    monkeypatch.setattr(tempfile, "mkstemp", refusing(tempfile.mkstemp, lambda a, k: k.get("dir")))
    monkeypatch.setattr(tempfile, "mkdtemp", refusing(tempfile.mkdtemp, lambda a, k: k.get("dir")))
    monkeypatch.setattr(os, "mkdir", refusing(os.mkdir, lambda a, k: a[0]))
    monkeypatch.setattr(os, "access", lambda path, mode, real=os.access: str(folder) not in str(path)
                        and real(path, mode))
    yield folder


def unwritable(kind: str, tmp_path: Path, read_only: Path, name: str) -> Path:
    """An output path that cannot be written: below a file, in a folder that cannot be made, or in
    a read-only folder."""
    if kind == "below a file":
        (tmp_path / "README.md").write_text("a file\n")
        return tmp_path / "README.md" / name
    if kind == "folder that cannot be made":
        return tmp_path / "new" / TOO_LONG / name
    return read_only / name


def assert_one_line_and_nothing_left(result, tmp_path: Path, target: Path, before: set):
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    assert lines[0].startswith("skatsim: cannot write") and str(target) in lines[0] and ".tmp" not in lines[0], lines[0]
    assert not target.exists()
    left = {p for p in tmp_path.rglob("*")} - before
    assert not left, left


KINDS = ["below a file", "folder that cannot be made", "read-only folder"]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    return simulate(200, seed=1, profile="random", out=tmp_path_factory.mktemp("runs") / "run", jobs=1,
                    chunk_size=100)


@pytest.fixture(scope="module")
def declare_run(tmp_path_factory):
    return simulate(60, seed=1, profile="threshold", out=tmp_path_factory.mktemp("runs") / "declare", jobs=1,
                    chunk_size=60, mode="declare", variants="all")


def _command(name: str, target: Path, small_run: Path, declare_run: Path) -> list[str]:
    return {
        "replay": ["replay", EXAMPLES, "--out", str(target)],
        "solve": ["solve", EXAMPLES, "--out", str(target)],
        "simulate": ["simulate", "--deals", "20", "--profile", "random", "--jobs", "1", "--out", str(target)],
        "match": ["match", "random", "threshold", "--deals", "5", "--jobs", "1", "--out", str(target)],
        "tournament": ["tournament", "random", "threshold", "--deals", "5", "--jobs", "1", "--out", str(target)],
        "analyze": ["analyze", str(small_run), "--out", str(target)],
        "calibrate": ["calibrate", str(declare_run), "--out", str(target)],
        "import iss": ["import", "iss", str(Path(EXAMPLES).parent / "iss.txt"), "--jobs", "1", "--out", str(target)],
    }[name]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", ["replay", "solve", "simulate", "match", "tournament", "analyze", "calibrate",
                                     "import iss"])
def test_an_output_that_cannot_be_written_is_one_line_and_leaves_nothing(command, kind, tmp_path, read_only,
                                                                         small_run, declare_run):
    suffix = {"replay": ".jsonl", "solve": ".jsonl", "calibrate": ".toml"}.get(command, "")
    target = unwritable(kind, tmp_path, read_only, f"out{suffix}")
    before = set(tmp_path.rglob("*"))
    result = CliRunner().invoke(main, _command(command, target, small_run, declare_run))
    assert_one_line_and_nothing_left(result, tmp_path, target, before)


def test_below_a_file_says_which_part_of_the_path_is_a_file(tmp_path):
    (tmp_path / "README.md").write_text("a file\n")
    result = CliRunner().invoke(main, ["replay", EXAMPLES, "--out", str(tmp_path / "README.md" / "a" / "x.jsonl")])
    assert f"{tmp_path / 'README.md'} is a file, not a folder" in result.output


def test_a_failed_atomic_write_names_the_target_not_its_temporary_file(tmp_path):
    target = tmp_path / "profile.toml"
    with pytest.raises(OSError) as error, temporary_beside(target) as tmp:
        raise OSError(errno.ENOSPC, "No space left on device", tmp)
    assert error.value.filename == str(target) and not list(tmp_path.iterdir())


def test_a_failed_write_in_a_temporary_folder_names_its_place_in_the_target(tmp_path):
    target = tmp_path / "report"
    with pytest.raises(OSError) as error, folder_in_place(target, lambda folder: True) as temporary:
        raise OSError(errno.ENOSPC, "No space left on device", str(temporary / "tables" / "mix.csv"))
    assert error.value.filename == str(target / "tables" / "mix.csv") and not list(tmp_path.iterdir())


def test_verify_repair_that_cannot_write_the_part_is_one_line(tmp_path, monkeypatch):
    folder = simulate(100, seed=2, profile="random", out=tmp_path / "run", jobs=1, chunk_size=50)
    part = folder / "part-00001.parquet"
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    real = tempfile.mkstemp

    def read_only(*args, **kwargs):
        if Path(kwargs.get("dir", "")) == folder:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(kwargs["dir"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    result = CliRunner().invoke(main, ["verify", str(folder), "--repair", "--jobs", "1"])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert result.output.strip().splitlines()[-1].startswith("skatsim: cannot write ")
    assert not list(folder.glob("*.tmp")) and not list(folder.glob(".*.tmp"))


def test_a_folder_put_in_place_has_the_mode_of_any_new_folder(tmp_path):
    with folder_in_place(tmp_path / "report", lambda folder: True) as temporary:
        (temporary / "report.html").write_text("<html></html>")
    (tmp_path / "plain").mkdir()
    assert (tmp_path / "report").stat().st_mode & 0o777 == (tmp_path / "plain").stat().st_mode & 0o777
