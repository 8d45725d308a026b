"""From simulated run folders to the report: files, plots, HTML and the Markdown summary."""

from html.parser import HTMLParser

import polars as pl
import pytest

from analysis import AnalysisError, analyze
from sim.runs.simulation import simulate

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A report of two game runs of the same deals (two bidders) and one declare run."""
    root = tmp_path_factory.mktemp("runs")
    runs = [simulate(2000, seed=11, profile="random", out=root / "game", jobs=1, chunk_size=1000),
            simulate(2000, seed=11, profile="random", settings=["bidder.aggressiveness=1.0"],
                     out=root / "bolder", jobs=1, chunk_size=1000),
            simulate(200, seed=11, profile="random", mode="declare", out=root / "declare", jobs=1,
                     chunk_size=200)]
    return analyze(runs, root / "report")


class Images(HTMLParser):
    def __init__(self):
        super().__init__()
        self.sources, self.tags = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "img":
            self.sources.append(dict(attrs).get("src", ""))


def test_the_report_page_parses_and_every_image_is_embedded_or_exists(report):
    assert report.name == "report.html" and report.exists()
    page = Images()
    page.feed(report.read_text(encoding="utf-8"))
    page.close()
    assert {"html", "body", "table", "h2"} <= set(page.tags)
    assert len(page.sources) >= 8
    for source in page.sources:
        assert source.startswith("data:image/png;base64,") or (report.parent / source).exists()


def test_the_summary_names_the_passed_in_rate_and_the_comparison(report):
    summary = (report.parent / "summary.md").read_text(encoding="utf-8")
    assert "passed-in rate" in summary.lower()
    assert "Paired comparison" in summary
    assert "cannot compare game (game mode) with declare (declare mode)" in summary


def test_tables_are_written_as_csv_and_parquet_with_a_run_column(report):
    folder = report.parent / "tables"
    for name in ("contracts_by_game", "contracts_by_variant", "contracts_by_seat", "contracts_by_matadors",
                 "bid_success", "passed_in", "threshold_curves", "break_even", "bid_up_to", "heuristics",
                 "calibration", "comparison"):
        table = pl.read_parquet(folder / f"{name}.parquet")
        assert pl.read_csv(folder / f"{name}.csv").height == table.height > 0
        assert table.columns[0] in ("run", "run_a")
    runs = pl.read_parquet(folder / "contracts_by_game.parquet")["run"].unique().to_list()
    assert sorted(runs) == ["bolder", "declare", "game"]


def test_plots_are_pngs_of_readable_size(report):
    from PIL import Image

    plots = sorted((report.parent / "plots").glob("*.png"))
    assert len(plots) >= 8
    with Image.open(plots[0]) as image:
        assert image.size == (800, 500)


def test_analyze_refuses_a_folder_that_is_not_a_run(tmp_path):
    with pytest.raises(AnalysisError, match="is not a run folder"):
        analyze([tmp_path], tmp_path / "out")
