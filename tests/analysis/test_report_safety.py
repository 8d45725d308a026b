"""A report never loses what was there: an interrupted report leaves the old report whole, and no report
replaces a folder that is not a report."""

import pytest
from click.testing import CliRunner

from sim.commands.cli import main


@pytest.mark.slow
def test_an_interrupted_report_leaves_the_old_report_whole(reference, tmp_path, monkeypatch):
    from analysis import analyze, report

    out = tmp_path / "report"
    analyze([reference], out)
    before = (out / "report.html").read_text()

    def broken(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "make_plots", broken)
    with pytest.raises(KeyboardInterrupt):
        analyze([reference], out)
    assert (out / "report.html").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_a_report_never_replaces_a_folder_that_is_not_a_report(reference, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    result = CliRunner().invoke(main, ["analyze", str(reference), "--out", str(tmp_path / "mine")])
    assert result.exit_code == 1 and "is not a folder this command wrote" in result.output
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"
