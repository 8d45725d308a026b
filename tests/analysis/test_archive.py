"""Analysis of runs imported from ISS archives: read like simulations, early ends kept apart, the
game mix and how the deals ended, and humans beside bots in one report."""

from __future__ import annotations

import json

import polars as pl
import pytest
from click.testing import CliRunner

from analysis import AnalysisError, analyze, contract_success, load_run
from analysis.compare import check_comparable
from analysis.games import games
from analysis.tables import run_tables
from sim.commands.cli import main
from sim.imports.iss.archive import import_archives
from sim.imports.iss.sample import constructed_games, penalty_records, profile_lines
from sim.runs.simulation import simulate

DEALS = 400


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("archive-analysis")
    same = root / "same.txt"
    same.write_text("\n".join(profile_lines("default", seed=5, count=DEALS)) + "\n")
    import_archives([same], root / "humans-same", jobs=1, chunk_size=150)
    mixed = root / "mixed.txt"
    mixed.write_text("\n".join(profile_lines("default", seed=6, count=300)
                               + [c.line for c in constructed_games(seed=8, count=300, early_share=0.4)]
                               + [c.line for c in penalty_records(seed=8, count=12)]) + "\n")
    import_archives([mixed], root / "humans", jobs=1)
    simulate(DEALS, seed=5, profile="default", out=root / "bots", jobs=1, chunk_size=150)
    return root


def test_an_imported_run_says_what_it_is(folders):
    run = load_run(folders / "humans")
    assert run.imported and run.source == "iss" and run.mode == "game" and run.complete
    assert run.origin == "imported ISS archive (mixed.txt)"
    assert load_run(folders / "bots").origin == "simulation, profile default, seed 5"


def test_imported_engine_games_give_the_simulations_tables(folders):
    """The same deals played by the same profile, once simulated and once written as an archive and
    imported: every contract table is the same, except that an archive has no bid plans, so whether a
    defender's limit reached the bid is unknown there."""
    humans, bots = contract_success(load_run(folders / "humans-same")), contract_success(load_run(folders / "bots"))
    auction = pl.selectors.starts_with("contested", "auctions")
    for name in humans:
        if "auctions" in humans[name].columns:
            assert (humans[name]["auctions"] == 0).all() and humans[name]["contested_rate"].is_null().all()
            assert (bots[name]["auctions"] == bots[name]["games"]).all(), name
        assert humans[name].drop(auction, strict=False).equals(bots[name].drop(auction, strict=False)), name


def test_contract_success_counts_only_games_played_out_or_conceded(folders):
    run = load_run(folders / "humans")
    rows = run.scan().collect()
    ends = rows["ended"].cast(pl.String)
    counted = rows.filter(ends.is_in(["played", "resigned", "claimed"]) & rows["won"].is_not_null())
    assert (ends == "timeout").any() and (ends == "left").any() and (ends == "resigned").any()
    assert games(run).collect().height == counted.height
    by_game = contract_success(run)["contracts_by_game"]
    assert by_game.filter(pl.col("contract") == "all games")["games"][0] == counted.height


def test_game_mix_and_how_the_deals_ended(folders):
    run = load_run(folders / "humans")
    rows = run.scan().collect()
    tables = run_tables(run)
    mix, ends = tables["game_mix"], tables["game_ends"]
    declared = rows.filter(~pl.col("passed") & (pl.col("ended").cast(pl.String) != "penalty"))
    assert mix["games"].sum() == declared.height
    assert mix["share"].sum() == pytest.approx(1.0)
    assert ends["deals"].sum() == rows.height
    found = dict(zip(ends["ended"], ends["deals"]))
    assert list(found) == ["played", "passed", "resigned", "claimed", "timeout", "left", "penalty"]
    assert found["penalty"] == 12
    for name, n in found.items():
        assert n == (rows["ended"].cast(pl.String) == name).sum()
    counted = dict(zip(ends["ended"], ends["counted_in_contract_success"]))
    assert counted == {"played": True, "passed": False, "resigned": True, "claimed": True, "timeout": False,
                       "left": False, "penalty": False}
    assert tables["threshold_curves"].height and tables["evaluators"].height


def test_penalty_records_are_neither_games_nor_passed_in_deals(folders):
    run = load_run(folders / "humans")
    rows = run.scan().collect()
    penalty = rows["ended"].cast(pl.String) == "penalty"
    assert penalty.sum() == 12 and not rows.filter(penalty)["passed"].any()
    passed_in = run_tables(run)["passed_in"]
    assert passed_in["deals"][0] == rows.height - 12
    assert passed_in["passed"][0] == rows["passed"].sum()


def test_an_archive_is_not_compared_deal_for_deal(folders):
    with pytest.raises(AnalysisError, match="humans is an imported archive"):
        check_comparable(load_run(folders / "humans"), load_run(folders / "bots"))


@pytest.mark.slow
def test_humans_beside_bots_in_one_report(folders, tmp_path):
    result = CliRunner().invoke(main, ["analyze", str(folders / "humans"), str(folders / "bots"),
                                       "--out", str(tmp_path / "report")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert "imported ISS archive (mixed.txt)" in page and "simulation, profile default, seed 5" in page
    assert "Contract success counts only the games played out or\nconceded" in page
    assert "<h3>Game mix</h3>" in page and "<h3>How the deals ended</h3>" in page
    summary = (tmp_path / "report" / "summary.md").read_text(encoding="utf-8")
    assert "| game | humans | bots |" in summary and "| ended | humans | bots |" in summary
    assert "- **humans**: imported ISS archive (mixed.txt), game mode" in summary
    tables = tmp_path / "report" / "tables"
    for name in ("passed_in", "game_mix", "contracts_by_game", "bid_success"):
        assert set(pl.read_parquet(tables / f"{name}.parquet")["run"]) == {"humans", "bots"}, name
    assert "humans is an imported archive" in summary


@pytest.mark.slow
def test_an_import_in_progress_is_analysed_as_a_partial_run(folders, tmp_path):
    import shutil

    folder = tmp_path / "partial"
    shutil.copytree(folders / "humans-same", folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["config"]["deals"], manifest["finished"] = None, None
    del manifest["parts"]["2"]  # part 2 not imported yet
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / "part-00002.parquet").unlink()
    run = load_run(folder)
    assert not run.complete and run.deals == 0
    assert analyze([folder], tmp_path / "report").exists()
