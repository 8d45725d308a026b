"""From simulated run folders to the report: files, plots, HTML and the Markdown summary."""

from html.parser import HTMLParser

import numpy as np
import polars as pl
import pytest

from analysis import AnalysisError, analyze
from sim.runs.simulation import simulate
from tests.handmade_runs import clubs_games, declare_rows, write_run


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


@pytest.mark.slow
def test_the_report_page_parses_and_every_image_is_embedded_or_exists(report):
    assert report.name == "report.html" and report.exists()
    page = Images()
    page.feed(report.read_text(encoding="utf-8"))
    page.close()
    assert {"html", "body", "table", "h2"} <= set(page.tags)
    assert len(page.sources) >= 8
    for source in page.sources:
        assert source.startswith("data:image/png;base64,") or (report.parent / source).exists()


@pytest.mark.slow
def test_the_summary_names_the_passed_in_rate_and_the_comparison(report):
    summary = (report.parent / "summary.md").read_text(encoding="utf-8")
    assert "passed-in rate" in summary.lower()
    assert "Paired comparison" in summary
    assert "cannot compare game (game mode) with declare (declare mode)" in summary


@pytest.mark.slow
def test_tables_are_written_as_csv_and_parquet_with_a_run_column(report):
    folder = report.parent / "tables"
    for name in ("contracts_by_game", "contracts_by_variant", "contracts_by_seat", "contracts_by_matadors",
                 "bid_success", "passed_in", "threshold_curves", "break_even", "break_even_table", "bid_up_to",
                 "evaluators",
                 "calibration", "comparison"):
        table = pl.read_parquet(folder / f"{name}.parquet")
        assert pl.read_csv(folder / f"{name}.csv").height == table.height > 0
        assert table.columns[0] in ("run", "run_a")
    runs = pl.read_parquet(folder / "contracts_by_game.parquet")["run"].unique().to_list()
    assert sorted(runs) == ["bolder", "declare", "game"]


@pytest.mark.slow
def test_plots_are_pngs_of_readable_size(report):
    from PIL import Image

    plots = sorted((report.parent / "plots").glob("*.png"))
    assert len(plots) >= 8
    for plot in plots:  # 800 x 500 a panel, or 500 wide a panel in a row of panels
        with Image.open(plot) as image:
            width, height = image.size
            assert 800 <= width <= 2400 and 450 <= height <= 600, (plot.name, image.size)


def test_analyze_refuses_a_folder_that_is_not_a_run(tmp_path):
    with pytest.raises(AnalysisError, match="is not a run folder"):
        analyze([tmp_path], tmp_path / "out")


def test_the_figures_of_a_report_are_those_worked_out_by_hand(tmp_path):
    """Two hand-made runs of the same 42 deals: forehand plays clubs worth 24 in 40 of them (Seeger-Fabian
    +74 won, -98 lost) and two are passed in; A wins every game, B every other one."""
    a = write_run(tmp_path / "a", clubs_games([True] * 40, passed=2))
    b = write_run(tmp_path / "b", clubs_games([True, False] * 20, passed=2))
    report = analyze([a, b], tmp_path / "report")
    tables = report.parent / "tables"
    clubs = pl.read_csv(tables / "contracts_by_game.csv").filter(pl.col("contract") == "clubs")
    a_row, b_row = (clubs.row(by_predicate=pl.col("run") == run, named=True) for run in ("a", "b"))
    # Wilson: 40 of 40 from 40 / (40 + z²) = 0.9124 to 1; 20 of 40: 0.5 +- z / (40 + z²) sqrt(10 + z²/4)
    assert (a_row["games"], a_row["win_rate"], a_row["win_rate_hi"]) == (40, 1.0, 1.0)
    assert a_row["win_rate_lo"] == pytest.approx(0.9124, abs=1e-4)
    assert (b_row["win_rate_lo"], b_row["win_rate_hi"]) == (pytest.approx(0.3520, abs=1e-4),
                                                            pytest.approx(0.6480, abs=1e-4))
    # B's mean (74 - 98) / 2 = -12, standard deviation 87.1: about -12 +- 27
    assert b_row["mean_sf"] == pytest.approx(-12.0) and b_row["mean_sf_interval"] == "bootstrap"
    assert b_row["mean_sf_lo"] == pytest.approx(-39.0, abs=4) and b_row["mean_sf_hi"] == pytest.approx(15.0, abs=4)
    assert a_row["mean_sf_lo"] == a_row["mean_sf_hi"] == 74.0  # every game scores 74
    page = report.read_text(encoding="utf-8")
    assert "100.0% (91.2–100.0%)" in page and "50.0% (35.2–64.8%)" in page
    summary = (report.parent / "summary.md").read_text(encoding="utf-8")
    assert "- a: 4.8% (1.3–15.8%) of 42 deals" in summary  # 2 of 42 passed in, Wilson
    compared = pl.read_csv(tables / "comparison.csv")
    forehand = compared.row(by_predicate=pl.col("metric") == "Seeger-Fabian score of forehand per deal", named=True)
    assert forehand["rows"] == 42 and forehand["difference"] == pytest.approx(-172 * 20 / 42)
    assert f"{-172 * 20 / 42:,.3f} (" in page


def test_the_page_shows_both_break_evens_side_by_side_and_what_game_mode_selects(tmp_path):
    """A declare run whose classic scores break even at 2 + 9 / 38.5 = 2.23 on the declarer's own score and
    at 2 + 29 / 48.5 = 2.60 against the table (tests/analysis/test_runs.py works both out), beside a
    game run: the page gives both in one row, and says of the game run that its rows are selected."""
    rows = [(2.0, True)] * 2 + [(2.0, False)] * 2 + [(3.0, True)] * 3 + [(3.0, False)]
    declared = write_run(tmp_path / "declare", declare_rows(rows), mode="declare")
    played = clubs_games([True, False] * 20)
    played["eval_classic"] = np.repeat([2.0, 3.0], 20).astype(np.float32)
    report = analyze([declared, write_run(tmp_path / "game", played)], tmp_path / "report", min_rows=1)
    page = report.read_text(encoding="utf-8")
    assert "<th>against the table, all seats</th>" in page
    row = page[page.index("<tr><td>declare</td><td>classic</td><td>diamonds</td>"):].split("</tr>")[0]
    assert "<td>2.23 (" in row and "<td>55.8%</td>" in row and "<td>2.60 (" in row and "<td>64.9%</td>" in row
    assert "<b>Selection caveat</b> for game-mode runs (game)" in page
    assert "<b>Range restriction</b> in game-mode runs (game)" in page
    table = pl.read_csv(tmp_path / "report" / "tables" / "break_even_table.csv")
    assert set(table["objective"]) == {"table"} and set(table["run"]) == {"declare", "game"}
