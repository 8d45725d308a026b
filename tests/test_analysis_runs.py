"""Analysis of small hand-made run folders: errors, contract success, thresholds, paired comparison."""

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from analysis import AnalysisError, bench_analyze, compare_runs, contract_success, load_run, thresholds
from analysis.mix import deal_cube, game_mix
from sim.runs.folder import (
    DECLARE_MODE_TYPES,
    GAME_MODE_TYPES,
    SCHEMA_VERSION,
    Manifest,
    part_facts,
    part_name,
    read_manifest,
    write_part,
)

CLUBS, DIAMONDS, NULL = 3, 0, 5


#: What the manifest of a hand-made run says of its evaluator: classic, with its shipped thresholds.
CLASSIC = {"classic": {"thresholds": {"diamonds": 4.0, "hearts": 4.0, "spades": 4.0, "clubs": 4.0,
                                      "grand": 5.0}}}


def write_run(folder, columns: dict, mode: str = "game", seed: int = 7, schema_version=SCHEMA_VERSION):
    """A finished run folder with one part holding ``columns`` (every schema column, defaults zero);
    an ``eval_classic`` column is the classic evaluator's, as its manifest says."""
    folder.mkdir(parents=True, exist_ok=True)
    n = len(next(iter(columns.values())))
    types = GAME_MODE_TYPES if mode == "game" else DECLARE_MODE_TYPES
    full = {name: np.zeros(n, dtype=np.int64) for name in types}
    full.update({name: np.zeros(n, dtype=np.float32) for name in ("evaluator_score",) if name in types})
    full.update({name: np.full(n, CLUBS) for name in types if "game" in name})
    full["deal_id"] = np.arange(n)
    full.update(columns)
    facts = write_part(folder, 0, full, mode)
    config = {"deals": n, "seed": seed, "profile": "handmade", "profile_spec": {}, "mode": mode,
              "chunk_size": n, "log_tricks": False, "schema_version": schema_version,
              "evaluators": CLASSIC if "eval_classic" in columns else {}}
    Manifest(config, {}, {"0": facts}, created="2024-01-01T00:00:00", finished="2024-01-01T00:00:01").save(folder)
    return folder


def clubs_games(won: list[bool], passed: int = 0, hand_f=None) -> dict:
    """Forehand plays clubs at 18 'with 1' (value 24) in each deal, then ``passed`` deals are passed in."""
    won = np.array(won + [False] * passed)
    played = np.array([True] * (len(won) - passed) + [False] * passed)
    sf_declarer = np.where(won, 24 + 50, -2 * 24 - 50)
    defenders = np.where(won, 0, 40)
    columns = {"passed": ~played, "declarer": np.where(played, 0, -1), "bid": np.where(played, 18, 0),
               "game": np.where(played, CLUBS, -1), "matadors": np.where(played, 1, 0),
               "declarer_points": np.where(won, 70, 50), "declarer_tricks": np.where(won, 6, 4),
               "won": won, "game_value": np.where(played, 24, 0), "score": np.where(won, 24, -48) * played,
               "sf_f": sf_declarer * played, "sf_m": defenders * played, "sf_r": defenders * played,
               "value_reached": np.where(played, 24, 0), "won_in_play": won}
    if hand_f is not None:
        columns["hand_f"] = np.asarray(hand_f)
    return columns


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
    expected = f"schema version {SCHEMA_VERSION + 1}.*reads versions 2 and {SCHEMA_VERSION}"
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
    assert clubs["mean_sf_interval"] == "bootstrap"
    assert clubs["mean_sf_lo"] <= clubs["mean_sf"] <= clubs["mean_sf_hi"]
    passed = tables["passed_in"].row(0, named=True)
    assert (passed["deals"], passed["passed"], passed["passed_rate"]) == (12, 2, pytest.approx(2 / 12))
    matadors = tables["contracts_by_matadors"].row(by_predicate=_is("contract", "clubs"), named=True)
    assert matadors["matadors"] == 1 and matadors["games"] == 10
    seat = tables["contracts_by_seat"].filter(_is("contract", "all games"))
    assert seat["declarer"].to_list() == ["forehand"]
    assert tables["bid_success"].filter(_is("contract", "all games"))["bid"].to_list() == [18]


def _is(column, value):
    import polars as pl

    return pl.col(column) == value


# --- thresholds from a constructed declare-mode log ----------------------------------------


def declare_rows(scores_and_wins: list[tuple[float, bool]]) -> dict:
    """Forehand declares diamonds 'with 1' at 18 (value 18): won +68, lost -86 Seeger-Fabian."""
    score = np.array([s for s, _ in scores_and_wins], dtype=np.float32)
    won = np.array([w for _, w in scores_and_wins])
    return {"seat": np.zeros(len(won)), "game": np.full(len(won), DIAMONDS), "matadors": np.ones(len(won)),
            "declarer_points": np.where(won, 70, 50), "declarer_tricks": np.where(won, 6, 4), "won": won,
            "game_value": np.full(len(won), 18), "score": np.where(won, 18, -36),
            "sf_f": np.where(won, 68, -86), "sf_m": np.where(won, 0, 40), "sf_r": np.where(won, 0, 40),
            "bid": np.full(len(won), 18), "value_reached": np.full(len(won), 18), "won_in_play": won,
            "eval_classic": score}


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


# --- paired comparison ---------------------------------------------------------------------


def test_paired_comparison_of_two_runs_of_the_same_deals(tmp_path):
    a = load_run(write_run(tmp_path / "a", clubs_games([True] * 4)))
    b = load_run(write_run(tmp_path / "b", clubs_games([True, True, False, False])))
    table = compare_runs(a, b)
    row = {r["metric"]: r for r in table.iter_rows(named=True)}
    forehand = row["Seeger-Fabian score of forehand per deal"]
    assert (forehand["rows"], forehand["mean_a"], forehand["mean_b"]) == (4, 74, (74 + 74 - 98 - 98) / 4)
    assert forehand["difference"] == pytest.approx(-86.0)          # differences 0, 0, -172, -172
    assert -172 <= forehand["difference_lo"] <= -86 <= forehand["difference_hi"] <= 0
    assert row["Seeger-Fabian score of middlehand per deal"]["difference"] == pytest.approx(20.0)
    assert row["declarer win rate (deals played in both)"]["difference"] == pytest.approx(-0.5)
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
    seconds = bench_analyze(folder, tmp_path / "report")
    assert seconds > 0
    assert (tmp_path / "report" / "report.html").exists()


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
