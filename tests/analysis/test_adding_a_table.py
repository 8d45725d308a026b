"""The worked example of docs/adding-a-table.md runs as written: its table, plot and part
of the report appear, its counts are right, and the tables of the registry are looked up by name."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from analysis import all_tables, analyze, load_run, load_runs, registry, run_tables
from analysis.registry import RUN, Report, Section, Table
from analysis.report import report_html
from analysis.summary import summary_markdown
from analysis.thresholds import MIN_ROWS
from sim.rules.cards import JACKS, SUIT_MASKS
from sim.runs.simulation import simulate

DOC = Path(__file__).resolve().parents[2] / "docs" / "adding-a-table.md"
NAME = "contracts_by_trumps"


def documented_code() -> str:
    """The first Python block of the page."""
    section = DOC.read_text(encoding="utf-8")
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.fixture
def registered(monkeypatch):
    """The registry with the documented table added; the built-in registry again after the test."""
    monkeypatch.setattr(registry, "TABLES", dict(registry.TABLES))
    monkeypatch.setattr(registry, "SECTIONS", dict(registry.SECTIONS))
    exec(compile(documented_code(), str(DOC), "exec"), {"__name__": "adding_a_table"})
    return registry.TABLES[NAME]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("adding")
    return {"game": simulate(200, seed=21, out=root / "game", jobs=1),
            "declare": simulate(20, seed=21, mode="declare", out=root / "declare", jobs=1)}


def trumps_held(row: dict) -> int:
    """The trumps among the declarer's ten cards, counted in Python from the logged row."""
    held = row[f"hand_{'fmr'[row['declarer']]}"]
    ten = held if row["hand"] else (held | row["skat"]) & ~row["discard"]
    suit = ("diamonds", "hearts", "spades", "clubs").index(row["game"])
    return bin(ten & int(JACKS | SUIT_MASKS[suit])).count("1")


def test_the_documented_table_counts_the_trumps_of_every_suit_game(registered, folders):
    run = load_run(folders["game"])
    table = run_tables(run)[NAME]
    rows = (run.scan().filter(~pl.col("passed"), pl.col("game").cast(pl.String).is_in(
        ["diamonds", "hearts", "spades", "clubs"])).collect())
    expected = pl.DataFrame({"trumps": [trumps_held(r) for r in rows.iter_rows(named=True)],
                             "won": rows["won"]}).group_by("trumps").agg(games=pl.len(), won=pl.col("won").sum())
    assert table.select("trumps", "games", "won").sort("trumps").cast(pl.Int64).equals(
        expected.sort("trumps").cast(pl.Int64))
    suit_games = run_tables(run)["contracts_by_game"].filter(pl.col("contract") == "suit games")["games"]
    assert table["games"].sum() == suit_games.item()
    assert (table["win_rate"] - table["won"] / table["games"]).abs().max() < 1e-12


def test_the_documented_table_is_in_the_report_where_its_registration_says(registered, folders, tmp_path):
    report = analyze([folders["game"], folders["declare"]], tmp_path / "report")
    table = pl.read_parquet(report.parent / "tables" / f"{NAME}.parquet")
    assert set(table["run"]) == {"game"}  # declare-mode rows do not log the hands
    assert (report.parent / "plots" / "win_rate_by_trumps.png").exists()
    page = report.read_text(encoding="utf-8")
    contracts, bids = page.index("<h2>Contract success</h2>"), page.index("<h2>Bid success</h2>")
    assert contracts < page.index("<h3>By trumps held (suit games)</h3>") < bids
    assert 'alt="Win rate by trumps held"' in page


def test_without_the_registration_there_is_no_such_table(folders):
    assert NAME not in run_tables(load_run(folders["game"]))


def test_a_new_section_and_a_table_of_the_run_come_in_their_registered_order(monkeypatch, folders):
    monkeypatch.setattr(registry, "TABLES", dict(registry.TABLES))
    monkeypatch.setattr(registry, "SECTIONS", dict(registry.SECTIONS))
    registry.register_section(Section("deal counts", lambda report: ["<h2>Deal counts</h2>\n"]))

    def deal_count(run):
        return pl.DataFrame({"deals": [run.deals]})

    registry.register(Table("deal_count", deal_count, RUN, modes=("game", "declare"), section="deal counts",
                            html=lambda report: [f"<p>{report.tables['deal_count']['deals'].sum()} deals</p>\n"],
                            summary=lambda report: ["## Deals", "", "counted", ""]))
    with pytest.raises(ValueError, match="registered already"):
        registry.register(Table("deal_count", deal_count, RUN))
    runs = load_runs([folders["game"], folders["declare"]])
    tables, notes = all_tables(runs)
    assert list(tables)[-2:] == ["comparison", "deal_count"]
    assert tables["deal_count"]["deals"].to_list() == [200, 20]
    report = Report(runs, tables, notes=notes, min_rows=MIN_ROWS)
    page = report_html(report, [])
    assert page.index("<h2>Strategy comparison</h2>") < page.index("<p>220 deals</p>") < page.index("<h2>Methods")
    summary = summary_markdown(report)
    assert summary.index("## Paired comparison") < summary.index("## Deals\n\ncounted\n")
