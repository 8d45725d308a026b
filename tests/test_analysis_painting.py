"""Plots drawn by two processes (analysis.painting): the report is the same as drawn by one, both
processes draw, and a failing plot, an unimportable plot function or a dead second process
still give the report or the error of one process."""

from __future__ import annotations

import os
import time

import pytest

from analysis import analyze
from analysis.painting import Painter, draw_all
from analysis.registry import Report
from sim.runs.simulation import simulate


def files(folder):
    return {path.relative_to(folder): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def test_two_processes_write_the_report_of_one(tmp_path):
    run = simulate(300, seed=4, out=tmp_path / "run", jobs=1)
    one = analyze([run], tmp_path / "one", jobs=1).parent
    two = analyze([run], tmp_path / "two", jobs=2).parent
    drawn_one, drawn_two = files(one), files(two)
    assert drawn_one.keys() == drawn_two.keys() and any(p.suffix == ".png" for p in drawn_one)
    page = [name for name in drawn_one if name.name == "report.html"]
    for name in drawn_one.keys() - set(page):
        assert drawn_one[name] == drawn_two[name], name
    made = [text.read_text(encoding="utf-8").split("</p>", 1)[1] for text in (one / "report.html", two / "report.html")]
    assert made[0] == made[1]  # all but the time the page was made


def drawn_by(report, folder):
    """A plot function that writes which process ran it, slowly enough that both processes take some."""
    time.sleep(0.2)
    path = folder / f"{report}-{time.perf_counter_ns()}"
    path.write_text(str(os.getpid()))
    yield "pid", path


def failing(report, folder):
    raise ValueError("this plot cannot be drawn")
    yield  # a generator, as plot functions are


@pytest.fixture
def painter():
    started = Painter()
    yield started
    started.close()


def test_both_processes_draw_and_the_results_keep_the_order_of_the_jobs(painter, tmp_path):
    results = draw_all([drawn_by] * 8, "r", tmp_path, painter)
    pids = [int(plots[0][1].read_text()) for plots in results]
    assert os.getpid() in pids and painter.process.pid in pids
    assert all(plots[0][0] == "pid" for plots in results)


def test_a_plot_failing_in_the_second_process_raises_its_error_here(painter, tmp_path):
    with pytest.raises(ValueError, match="cannot be drawn"):
        draw_all([failing, drawn_by, drawn_by], "r", tmp_path, painter)


def test_what_the_second_process_cannot_import_or_draw_is_drawn_here(painter, tmp_path):
    def local_plots(report, folder):  # a local function cannot be sent to another process
        yield "local", folder / "local.png"

    results = draw_all([local_plots, drawn_by], Report([], {}, [], 1), tmp_path, painter)
    assert results[0] == [("local", tmp_path / "local.png")]
    painter.process.kill()
    painter.process.wait()
    after = draw_all([drawn_by, drawn_by], "r", tmp_path, painter)  # the second process is gone
    assert [int(plots[0][1].read_text()) for plots in after] == [os.getpid()] * 2
