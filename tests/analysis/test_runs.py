"""Analysis of small hand-made run folders: errors, contract success, thresholds, paired comparison."""

import time

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from analysis import AnalysisError, bench_analyze, compare_runs, contract_success, load_run, thresholds
from analysis.formats import mean_text
from analysis.mix import deal_cube, game_mix
from sim.rules.games import NULL
from sim.runs.folder import part_facts, part_name, read_manifest
from sim.runs.schema import SCHEMA_VERSION
from tests.handmade_runs import CLUBS, clubs_games, declare_rows, write_run

# --- run folders that cannot be analysed ---------------------------------------------------


def test_a_folder_without_manifest_is_not_a_run(tmp_path):
    with pytest.raises(AnalysisError, match="is not a run folder") as error:
        load_run(tmp_path)
    assert str(tmp_path) in str(error.value) and "\n" not in str(error.value)


def test_a_missing_folder_is_named(tmp_path):
    with pytest.raises(AnalysisError, match="is not a folder"):
        load_run(tmp_path / "nowhere")


def test_a_run_without_finished_parts_is_empty(tmp_path):
    folder = write_run(tmp_path / "run", clubs_games([True]))
    manifest = read_manifest(folder)
    manifest.drop_part(0)
    manifest.save(folder)
    with pytest.raises(AnalysisError, match="is an empty run") as error:
        load_run(folder)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("damage", ["delete", "truncate", "append"])
def test_a_missing_or_damaged_part_is_named_with_what_to_do(tmp_path, damage):
    folder = write_run(tmp_path / "run", clubs_games([True, False]))
    part = folder / part_name(0)
    if damage == "delete":
        part.unlink()
    else:
        data = part.read_bytes()
        part.write_bytes(data[: len(data) // 2] if damage == "truncate" else data + b"more")
    with pytest.raises(AnalysisError, match=r"part-00000\.parquet .*run `skatsim verify .* --repair`") as error:
        load_run(folder)
    assert "\n" not in str(error.value)


def test_a_run_of_another_schema_version_is_refused(tmp_path):
    folder = write_run(tmp_path / "old", clubs_games([True]), schema_version=SCHEMA_VERSION + 1)
    expected = f"schema version {SCHEMA_VERSION + 1}.*reads versions 2, 3 and {SCHEMA_VERSION}"
    with pytest.raises(AnalysisError, match=expected):
        load_run(folder)


def test_a_damaged_manifest_is_named(tmp_path):
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(AnalysisError, match="is damaged"):
        load_run(tmp_path)


# --- contract success ----------------------------------------------------------------------


def test_win_rate_passed_in_rate_and_mean_scores_of_a_known_log(tmp_path):
    run = load_run(write_run(tmp_path / "run", clubs_games([True] * 8 + [False] * 2, passed=2)))
    tables = contract_success(run)
    clubs = tables["contracts_by_game"].row(by_predicate=_is("contract", "clubs"), named=True)
    assert (clubs["games"], clubs["won"]) == (10, 8)
    assert clubs["win_rate"] == 0.8
    assert clubs["win_rate_lo"] == pytest.approx(0.4902, abs=1e-4)
    assert clubs["win_rate_hi"] == pytest.approx(0.9433, abs=1e-4)
    assert clubs["mean_sf"] == pytest.approx((8 * 74 - 2 * 98) / 10)
    assert clubs["mean_score"] == pytest.approx((8 * 24 - 2 * 48) / 10)
    # ten games are too few for an interval of a mean (the percentile bootstrap would say 74 for one game)
    assert clubs["mean_sf_interval"] == "too few"
    assert clubs["mean_sf_lo"] is None and clubs["mean_sf_hi"] is None
    assert mean_text(clubs, "mean_sf") == "39.6 (too few)"
    passed = tables["passed_in"].row(0, named=True)
    assert (passed["deals"], passed["passed"], passed["passed_rate"]) == (12, 2, pytest.approx(2 / 12))
    matadors = tables["contracts_by_matadors"].row(by_predicate=_is("contract", "clubs"), named=True)
    assert matadors["matadors"] == 1 and matadors["games"] == 10
    seat = tables["contracts_by_seat"].filter(_is("contract", "all games"))
    assert seat["declarer"].to_list() == ["forehand"]
    assert tables["bid_success"].filter(_is("contract", "all games"))["bid"].to_list() == [18]


def test_a_game_is_contested_when_a_defenders_own_limit_reached_the_final_bid(tmp_path):
    """Forehand declares clubs at 18 in each deal. Middlehand's limit 18 (deals 0 to 2) or rearhand's 20
    (deal 3) contests it; forehand's own limit and limits below the bid do not (deals 4 to 9)."""
    games = clubs_games([True] * 10)
    games["max_bid_f"] = np.full(10, 24)
    games["max_bid_m"] = np.array([18, 18, 18, 0, 0, 0, 0, 17, 0, 0])
    games["max_bid_r"] = np.array([0, 0, 0, 20, 0, 0, 0, 0, 0, 0])
    bids = contract_success(load_run(write_run(tmp_path / "run", games)))["bid_success"]
    row = bids.row(by_predicate=_is("contract", "all games"), named=True)
    assert (row["auctions"], row["contested_count"], row["contested_rate"]) == (10, 4, pytest.approx(0.4))
    assert row["contested_rate_lo"] < 0.4 < row["contested_rate_hi"]


def test_the_mean_score_of_forty_games_has_the_interval_worked_out_by_hand(tmp_path):
    """32 of 40 clubs games won: Seeger-Fabian 74 or -98, mean 39.6, standard deviation 172 * sqrt(0.8 * 0.2)
    = 68.8 (69.7 with n - 1), so a 95% interval of about 39.6 +- 1.96 * 69.7 / sqrt(40) = [18.0, 61.2]; the
    percentile bootstrap of so lopsided a sample sits near it."""
    run = load_run(write_run(tmp_path / "run", clubs_games([True] * 32 + [False] * 8)))
    clubs = contract_success(run)["contracts_by_game"].row(by_predicate=_is("contract", "clubs"), named=True)
    assert clubs["mean_sf"] == pytest.approx(39.6) and clubs["mean_sf_interval"] == "bootstrap"
    assert clubs["mean_sf_lo"] == pytest.approx(18.0, abs=3) and clubs["mean_sf_hi"] == pytest.approx(61.2, abs=3)
    # Wilson of 32 in 40: centre (32 + z²/2) / (40 + z²), half z / (40 + z²) * sqrt(32 * 8 / 40 + z²/4)
    assert (clubs["win_rate_lo"], clubs["win_rate_hi"]) == (pytest.approx(0.6524, abs=1e-4),
                                                            pytest.approx(0.8950, abs=1e-4))
    assert clubs["schwarz_rate_lo"] == 0.0 and clubs["overbid_rate_lo"] == 0.0  # exactly: no such game


def _is(column, value):
    import polars as pl

    return pl.col(column) == value


# --- thresholds from a constructed declare-mode log ----------------------------------------


def test_break_even_and_bid_table_of_a_constructed_declare_run(tmp_path):
    rows = [(2.0, True)] * 2 + [(2.0, False)] * 2 + [(3.0, True)] * 3 + [(3.0, False)]
    run = load_run(write_run(tmp_path / "declare", declare_rows(rows), mode="declare"))
    tables = thresholds(run, ["classic"], min_rows=1)
    even = tables["break_even"].row(by_predicate=_is("seats", "all"), named=True)
    assert even["status"] == "crossing"
    assert even["break_even"] == pytest.approx(2 + 9 / 38.5)
    assert even["win_rate_at_break_even"] == pytest.approx(86 / 154)
    assert even["evaluator_threshold"] == 4.0
    curve = tables["threshold_curves"].filter(_is("seats", "all")).sort("bin_from")
    assert curve["mean_sf"].to_list() == [-9.0, 29.5]
    assert curve["win_rate"].to_list() == [0.5, 0.75]
    # at 18 the game is worth playing from the bin at 3; at 20 every game (value 18) is overbid
    bids = tables["bid_up_to"].filter(_is("seats", "all"))
    assert bids.select("bid", "score_from").rows() == [(18, 3.0)]


def test_break_even_against_the_table_counts_the_defenders_bonus(tmp_path):
    """Against the table a lost game costs the defenders' mean bonus too: -86 - 40 = -126. The bin at 2
    expects (2 * 68 - 2 * 126) / 4 = -29, the bin at 3 (3 * 68 - 126) / 4 = 19.5: break-even at
    2 + 29 / 48.5, where the win rate is 126 / 194 (68 p = 126 (1 - p))."""
    rows = [(2.0, True)] * 2 + [(2.0, False)] * 2 + [(3.0, True)] * 3 + [(3.0, False)]
    run = load_run(write_run(tmp_path / "declare", declare_rows(rows), mode="declare"))
    tables = thresholds(run, ["classic"], min_rows=1)
    table = tables["break_even_table"].row(by_predicate=_is("seats", "all"), named=True)
    own = tables["break_even"].row(by_predicate=_is("seats", "all"), named=True)
    assert (own["objective"], table["objective"]) == ("own", "table")
    assert table["break_even"] == pytest.approx(2 + 29 / 48.5)
    assert table["win_rate_at_break_even"] == pytest.approx(126 / 194)


# --- paired comparison ---------------------------------------------------------------------


def test_paired_comparison_of_two_runs_of_the_same_deals(tmp_path):
    a = load_run(write_run(tmp_path / "a", clubs_games([True] * 4)))
    b = load_run(write_run(tmp_path / "b", clubs_games([True, True, False, False])))
    table = compare_runs(a, b)
    row = {r["metric"]: r for r in table.iter_rows(named=True)}
    forehand = row["Seeger-Fabian score of forehand per deal"]
    assert (forehand["rows"], forehand["mean_a"], forehand["mean_b"]) == (4, 74, (74 + 74 - 98 - 98) / 4)
    assert forehand["difference"] == pytest.approx(-86.0)          # differences 0, 0, -172, -172
    assert forehand["difference_interval"] == "too few" and forehand["difference_lo"] is None
    assert row["Seeger-Fabian score of middlehand per deal"]["difference"] == pytest.approx(20.0)
    assert row["declarer win rate (deals played in both)"]["difference"] == pytest.approx(-0.5)


def test_the_paired_difference_of_forty_deals_has_the_interval_worked_out_by_hand(tmp_path):
    """B loses 20 of the 40 games A wins: differences 0 and -172, mean -86, standard deviation 87.1, so about
    -86 +- 1.96 * 87.1 / sqrt(40) = [-113.0, -59.0]; a difference that is 0 in every deal has [0, 0]."""
    a = load_run(write_run(tmp_path / "a", clubs_games([True] * 40)))
    b = load_run(write_run(tmp_path / "b", clubs_games([True, False] * 20)))
    row = {r["metric"]: r for r in compare_runs(a, b).iter_rows(named=True)}
    forehand = row["Seeger-Fabian score of forehand per deal"]
    assert forehand["difference"] == pytest.approx(-86.0) and forehand["difference_interval"] == "bootstrap"
    assert forehand["difference_lo"] == pytest.approx(-113.0, abs=4)
    assert forehand["difference_hi"] == pytest.approx(-59.0, abs=4)
    passed = row["passed-in rate"]
    assert (passed["difference"], passed["difference_lo"], passed["difference_hi"]) == (0.0, 0.0, 0.0)


def test_runs_of_different_seeds_or_modes_are_not_paired(tmp_path):
    a = load_run(write_run(tmp_path / "a", clubs_games([True] * 4), seed=1))
    b = load_run(write_run(tmp_path / "b", clubs_games([True] * 4), seed=2))
    with pytest.raises(AnalysisError, match="seeds differ"):
        compare_runs(a, b)
    d = load_run(write_run(tmp_path / "d", declare_rows([(1.0, True)]), mode="declare", seed=1))
    with pytest.raises(AnalysisError, match="declare mode"):
        compare_runs(a, d)


def test_the_same_seed_with_other_cards_is_refused(tmp_path):
    a = load_run(write_run(tmp_path / "a", clubs_games([True] * 4, hand_f=[1, 2, 3, 4])))
    b = load_run(write_run(tmp_path / "b", clubs_games([True] * 4, hand_f=[1, 2, 3, 5])))
    with pytest.raises(AnalysisError, match="1 of their 4 common deals hold different cards"):
        compare_runs(a, b)


def test_bench_analyze_times_a_whole_report(tmp_path):
    folder = write_run(tmp_path / "run", clubs_games([True, False] * 20, passed=5))
    began = time.perf_counter()
    seconds = bench_analyze(folder, tmp_path / "report")
    assert 0 < seconds <= time.perf_counter() - began  # the time of the report, not of something else
    summary = (tmp_path / "report" / "summary.md").read_text(encoding="utf-8")
    assert "- run: 11.1% (" in summary  # 5 of 45 deals passed in: the report of this run was written


# --- the game of a passed-in deal, now and in schema version 2 ---------------------------------


def null_and_passed_games() -> dict:
    """Clubs won, a null game lost, two deals passed in."""
    columns = clubs_games([True, False], passed=2)
    columns["game"] = np.array([CLUBS, NULL, -1, -1])
    return columns


def as_schema_2(folder):
    """Rewrite the run in ``folder`` as schema version 2 wrote it: a passed-in deal's game null."""
    part = folder / part_name(0)
    table = pq.read_table(part)
    names = table["game"].combine_chunks().dictionary.to_pylist()
    games = [None if g == "passed" else g for g in table["game"].to_pylist()]
    old = pa.DictionaryArray.from_arrays(pa.array([None if g is None else names.index(g) for g in games],
                                                  pa.int8()), pa.array(names[:6]))
    pq.write_table(table.set_column(table.schema.get_field_index("game"), "game", old), part, compression="zstd")
    manifest = read_manifest(folder)
    manifest.config["schema_version"] = 2
    manifest.parts["0"] = part_facts(part)
    manifest.save(folder)
    return folder


def test_a_printed_frame_tells_the_null_game_from_a_passed_in_deal(tmp_path):
    folder = write_run(tmp_path / "run", null_and_passed_games())
    counts = pl.read_parquet(folder / part_name(0))["game"].cast(pl.String).value_counts()
    assert dict(counts.iter_rows()) == {"clubs": 1, "null": 1, "passed": 2}
    assert "passed" in str(pl.read_parquet(folder / part_name(0)).select("game"))


def test_a_run_of_schema_version_2_is_analysed_as_before(tmp_path):
    new = write_run(tmp_path / "new", null_and_passed_games())
    old = as_schema_2(write_run(tmp_path / "old", null_and_passed_games()))
    assert pl.read_parquet(old / part_name(0))["game"].null_count() == 2
    for name, table in contract_success(load_run(new)).items():
        assert table.equals(contract_success(load_run(old))[name]), name
    mix = {label: game_mix(deal_cube(load_run(folder)).collect()) for label, folder in (("new", new), ("old", old))}
    assert mix["new"].equals(mix["old"])
    assert mix["new"].filter(pl.col("games") > 0)["game"].to_list() == ["clubs", "null"]
