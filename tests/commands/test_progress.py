"""The progress of `skatsim simulate`: JSON lines off a terminal; on one, a bar with the rate once and the
time left."""

import json
import sys

from click.testing import CliRunner

from sim.commands.cli import main
from tests.reference_run import PROFILE


def test_progress_is_machine_readable_off_a_terminal(tmp_path):
    result = CliRunner().invoke(main, ["simulate", "--deals", "200", "--profile", PROFILE, "--out",
                                       str(tmp_path / "run"), "--jobs", "1", "--chunk-size", "100"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert lines[-1]["deals_done"] == 200 and lines[-1]["deals"] == 200


def test_the_progress_bar_shows_the_rate_once_with_the_time_left(monkeypatch):
    import io

    from sim.commands.terminal import run_progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    update, close = run_progress(3000)
    assert terminal.getvalue() == ""   # no bar before the first part: lines told before it stay clean
    update(1000, 3000, 500.0)
    update(2000, 3000, 800.0)
    close()
    last = terminal.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    assert last.count("deals/s") == 1 and "deal/s" not in last and "800 deals/s, 0:01 left" in last, last
