"""A report's evaluator tables and plots shared by two processes (analysis.sharing): the report is the
same as one process makes, both processes work, and a failing job, an unimportable job or a dead
second process still give the report or the error of one process."""

from __future__ import annotations

import os
import pickle
import time

import pytest

from analysis import all_tables, analyze, load_runs, registry
from analysis.registry import Report
from analysis.sharing import SecondProcess, share
from analysis.thresholds import MIN_ROWS
from sim.runs.simulation import simulate


def files(folder):
    return {path.relative_to(folder): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.mark.parametrize("mode", ["game", "declare"])
def test_two_processes_write_the_report_of_one(tmp_path, mode):
    run = simulate(300 if mode == "game" else 30, seed=4, mode=mode, out=tmp_path / "run", jobs=1)
    one = analyze([run], tmp_path / "one", jobs=1).parent
    two = analyze([run], tmp_path / "two", jobs=2).parent
    drawn_one, drawn_two = files(one), files(two)
    assert drawn_one.keys() == drawn_two.keys() and any(p.suffix == ".png" for p in drawn_one)
    page = [name for name in drawn_one if name.name == "report.html"]
    for name in drawn_one.keys() - set(page):
        assert drawn_one[name] == drawn_two[name], name
    made = [text.read_text(encoding="utf-8").split("</p>", 1)[1] for text in (one / "report.html", two / "report.html")]
    assert made[0] == made[1]  # all but the time the page was made


def test_every_built_in_plot_is_a_drawing_the_second_process_can_take(tmp_path):
    """Each plot is a job of its own, sent to the second process by pickling: a drawing that does
    not pickle would be drawn by the main process alone, and the two would no longer share the plots."""
    run = simulate(300, seed=4, out=tmp_path / "run", jobs=1)
    runs = load_runs([run])
    tables, notes = all_tables(runs)
    report = Report(runs, tables, notes=notes, min_rows=MIN_ROWS)
    drawings = [drawing for table in registry.tables() if table.plots is not None and table.name in tables
                for _, drawing in table.plots(report, tmp_path / "plots")]
    assert len(drawings) >= 8
    for drawing in drawings:
        assert callable(drawing) and pickle.loads(pickle.dumps(drawing)).func is drawing.func
    assert not (tmp_path / "plots").exists()  # listing the plots draws none


def drawn_by(name, folder):
    """A job that writes which process ran it, slowly enough that both processes take some."""
    time.sleep(0.2)
    path = folder / f"{name}-{time.perf_counter_ns()}"
    path.write_text(str(os.getpid()))
    return "pid", path


def failing(name, folder):
    raise ValueError("this job cannot be done")


@pytest.fixture
def second():
    started = SecondProcess()
    yield started
    started.close()


def test_both_processes_work_and_the_results_keep_the_order_of_the_jobs(second, tmp_path):
    results = share([drawn_by] * 8, ("r", tmp_path), second)
    pids = [int(path.read_text()) for _, path in results]
    assert os.getpid() in pids and second.process.pid in pids
    assert [label for label, _ in results] == ["pid"] * 8


def test_a_job_failing_in_the_second_process_raises_its_error_here(second, tmp_path):
    with pytest.raises(ValueError, match="cannot be done"):
        share([failing, drawn_by, drawn_by], ("r", tmp_path), second)


def test_what_the_second_process_cannot_import_or_do_is_done_here(second, tmp_path):
    def local_job(name, folder):  # a local function cannot be sent to another process
        return "local", folder / name

    results = share([local_job, drawn_by], ("r", tmp_path), second)
    assert results[0] == ("local", tmp_path / "r")
    second.process.kill()
    second.process.wait()
    after = share([drawn_by, drawn_by], ("r", tmp_path), second)  # the second process is gone
    assert [int(path.read_text()) for _, path in after] == [os.getpid()] * 2


def test_an_error_here_stops_the_second_process_after_its_job(second, tmp_path):
    with pytest.raises(ValueError, match="cannot be done"):
        share([drawn_by] * 6 + [failing], ("r", tmp_path), second)  # this process fails first, at the back
    assert len(list(tmp_path.glob("r-*"))) <= 2  # the second process finished at most the job it had


def test_a_second_process_starts_for_declare_mode_and_large_game_mode_reports_or_when_asked(tmp_path, monkeypatch):
    """By default a small game-mode report is made in one process (a second one would not shorten it),
    a declare-mode report in two; ``jobs`` says how many whatever the run."""
    from analysis import report

    asked = []
    monkeypatch.setattr(report.SecondProcess, "start", classmethod(lambda cls, jobs=None: asked.append(jobs)))
    game = simulate(300, seed=4, out=tmp_path / "game", jobs=1)
    declare = simulate(5, seed=4, mode="declare", out=tmp_path / "declare", jobs=1)
    analyze([game], tmp_path / "a")
    assert asked == []
    analyze([game], tmp_path / "b", jobs=2)
    analyze([declare], tmp_path / "c")
    assert asked == [2, None]
    assert report.worth_sharing(load_runs([declare])) and not report.worth_sharing(load_runs([game]))
    monkeypatch.setattr(report, "SHARED_FROM_ROWS", 300)
    assert report.worth_sharing(load_runs([game]))
