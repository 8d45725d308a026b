"""Duplicate matches: six seatings per deal, the result and its interval, the command."""

import json

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from analysis import load_run, match_result, match_splits
from sim.commands.cli import main
from sim.runs.folder import read_manifest
from sim.runs.matches import match
from sim.runs.schema import SEATINGS, seats_of


def table(folder) -> pl.DataFrame:
    return pl.read_parquet(folder / "part-*.parquet").sort("deal_id", "seating")


def test_the_six_seatings_give_each_side_every_seat_alone_and_in_the_pair():
    for side in ("a", "b"):
        held = [seats_of(side, k) for k in range(len(SEATINGS))]
        assert sorted(seat for seats in held if len(seats) == 1 for seat in seats) == [0, 1, 2]
        assert sorted(seat for seats in held if len(seats) == 2 for seat in seats) == [0, 0, 1, 1, 2, 2]
    for k in range(len(SEATINGS)):
        assert sorted(seats_of("a", k) + seats_of("b", k)) == [0, 1, 2]


@pytest.mark.parametrize("profile", ["default", "random"])
def test_a_profile_against_itself_scores_exactly_even(tmp_path, profile):
    """Same strategies on both sides: every seating plays the deal alike, so the six plays of a deal
    are one game six times, each side scores the same in every deal, and the interval is exactly [0, 0]."""
    folder = match(profile, profile, deals=150, seed=3, out=tmp_path / "self", jobs=1, chunk_size=50)
    plays = table(folder).group_by("deal_id").agg(pl.col("declarer", "game", "won", "sf_f", "sf_m", "sf_r")
                                                  .n_unique())
    assert (plays.select(pl.exclude("deal_id")) == 1).to_numpy().all()
    row = match_result(load_run(folder)).row(0, named=True)
    assert row["deals"] == 150 and row["games"] == 900
    assert (row["difference"], row["difference_low"], row["difference_high"]) == (0, 0, 0)
    assert row["sf_per_game_a"] == row["sf_per_game_b"]


def by_hand(rows: pl.DataFrame) -> tuple[float, float]:
    """A - B per game worked out from the rows alone, and its standard error over deals: in seating k one
    side sits alone at seat k // 2 (A for even k) and the other holds the two other seats."""
    per_deal: dict[int, float] = {}
    for row in rows.iter_rows(named=True):
        alone, scores = row["seating"] // 2, [row["sf_f"], row["sf_m"], row["sf_r"]]
        single, pair = scores[alone], sum(scores) - scores[alone]
        a_minus_b = single - pair if row["seating"] % 2 == 0 else pair - single
        per_deal[row["deal_id"]] = per_deal.get(row["deal_id"], 0) + a_minus_b / 6
    values = np.array(list(per_deal.values()))
    return values.mean(), values.std(ddof=1) / np.sqrt(len(values))


@pytest.fixture(scope="module")
def random_against_heuristic(tmp_path_factory):
    folder = tmp_path_factory.mktemp("match") / "random-heuristic"
    return match("random", "default", deals=300, seed=11, card_play_only=True, out=folder, jobs=1, chunk_size=100)


def test_random_card_play_loses_clearly_to_the_heuristic(random_against_heuristic):
    row = match_result(load_run(random_against_heuristic)).row(0, named=True)
    assert row["a"] == "random" and row["b"] == "default" and row["card_play_only"]
    assert row["difference_high"] < -10, row  # the whole interval on the heuristic's side
    assert row["difference"] == pytest.approx(row["sf_per_game_a"] - row["sf_per_game_b"])
    assert row["declarer_win_rate_a"] < row["declarer_win_rate_b"]


def test_the_match_difference_and_its_interval_agree_with_a_hand_computation(random_against_heuristic):
    """The difference is the mean over deals of (A's points - B's points) / 6, computed here from the seatings
    without the analysis code, and its bootstrap interval is close to the normal one of those per-deal values."""
    mean, error = by_hand(table(random_against_heuristic))
    row = match_result(load_run(random_against_heuristic)).row(0, named=True)
    assert row["difference"] == pytest.approx(mean)
    assert row["difference_low"] == pytest.approx(mean - 1.96 * error, abs=0.15 * error)
    assert row["difference_high"] == pytest.approx(mean + 1.96 * error, abs=0.15 * error)


def test_card_play_only_keeps_the_auction_and_declarations_of_a_at_every_seating(random_against_heuristic):
    data = table(random_against_heuristic)
    per_deal = data.group_by("deal_id").agg(pl.col("declarer", "bid", "game", "hand", "discard").n_unique())
    assert (per_deal.select(pl.exclude("deal_id")) == 1).to_numpy().all()
    assert data.group_by("deal_id").len()["len"].to_list() == [6] * 300


def test_the_splits_add_up(random_against_heuristic):
    splits = {r["split"]: r for r in match_splits(load_run(random_against_heuristic)).iter_rows(named=True)}
    whole = splits["all play"]
    assert whole["difference"] == pytest.approx(splits["declarer play"]["difference"]
                                                + splits["defender play"]["difference"])
    games = sum(r["games"] for name, r in splits.items() if name not in ("all play", "declarer play", "defender play"))
    passed = table(random_against_heuristic)["passed"].sum()
    assert games + passed == whole["games"]


@pytest.mark.slow
def test_a_match_is_the_same_for_any_jobs_and_chunks_and_resumes(random_against_heuristic, tmp_path):
    other = match("random", "default", deals=300, seed=11, card_play_only=True, out=tmp_path / "other", jobs=2,
                  chunk_size=70)
    assert table(other).equals(table(random_against_heuristic))
    (other / "part-00002.parquet").unlink()
    match("random", "default", deals=300, seed=11, card_play_only=True, out=tmp_path / "other", jobs=1,
          chunk_size=70)
    assert table(other).equals(table(random_against_heuristic))
    assert read_manifest(other).finished


def test_the_match_command_prints_json_with_the_promised_keys(tmp_path):
    result = CliRunner().invoke(main, ["match", "default", "random", "--deals", "60", "--seed", "2", "--jobs", "1",
                                       "--out", str(tmp_path / "m"), "--json"])
    assert result.exit_code == 0, result.output
    row = json.loads(result.output.strip().splitlines()[-1])
    assert {"a", "b", "deals", "games", "sf_per_game_a", "sf_per_game_b", "difference", "difference_low",
            "difference_high"} <= set(row)
    assert row["deals"] == 60 and row["games"] == 360 and row["difference_low"] <= row["difference"]
    text = CliRunner().invoke(main, ["match", "default", "random", "--deals", "60", "--seed", "2", "--jobs", "1",
                                     "--out", str(tmp_path / "m")])
    assert text.exit_code == 0 and "A - B (95% interval over deals)" in text.output
    shown = CliRunner().invoke(main, ["show", str(tmp_path / "m"), "7"])
    assert shown.exit_code == 0 and shown.output.count("Seeger-Fabian F/M/R") + shown.output.count("passed in") == 6


def test_a_match_with_a_bad_profile_is_one_line(tmp_path):
    result = CliRunner().invoke(main, ["match", "default", "nope", "--deals", "10", "--out", str(tmp_path / "m")])
    assert result.exit_code == 1 and result.output.count("\n") == 1 and "unknown profile 'nope'" in result.output


def test_the_summary_of_a_match_report_gives_the_match_result(random_against_heuristic, tmp_path):
    from analysis import analyze

    analyze([random_against_heuristic], tmp_path / "report")
    text = (tmp_path / "report" / "summary.md").read_text()
    row = match_result(load_run(random_against_heuristic)).row(0, named=True)
    assert "## Duplicate match" in text
    assert f"A - B {row['difference']:,.2f} [{row['difference_low']:,.2f}, {row['difference_high']:,.2f}]" in text
    assert "declare-mode runs have no auction" not in text
    assert "- **random-heuristic**: duplicate match, A = random, B = default, card play only, seed 11, 300 deals\n" \
        in text and "simulation" not in text and "match mode" not in text


def test_the_match_of_the_readme_strength_table_names_each_side_with_its_settings_and_warns_of_nothing(tmp_path):
    """``match club club --card-play-only --set-a card_play=...``: both sides bid as club does, so the calibration
    warning does not apply; the header, the JSON and the report name A with its setting."""
    from tests.command_line import stdout_runner

    asked = ["match", "club", "club", "--card-play-only", "--set-a", "card_play=random", "--deals", "10",
             "--chunk-size", "10", "--jobs", "1", "--out", str(tmp_path / "m")]
    text = stdout_runner().invoke(main, asked)
    assert text.exit_code == 0, text.output
    assert text.stdout.startswith("Duplicate match: A = club@card_play=random, B = club, card play only; 10 deals")
    assert "fitted on the play of" not in text.stderr, text.stderr
    row = json.loads(stdout_runner().invoke(main, [*asked, "--json"]).stdout)
    assert (row["a"], row["b"], row["card_play_only"]) == ("club@card_play=random", "club", True)
    assert read_manifest(tmp_path / "m").config["match"]["a"] == "club@card_play=random"
    analyzed = stdout_runner().invoke(main, ["analyze", str(tmp_path / "m"), "--out", str(tmp_path / "report"),
                                             "--jobs", "1"])
    assert analyzed.exit_code == 0, analyzed.output
    summary = (tmp_path / "report" / "summary.md").read_text()
    assert "**m**: duplicate match, A = club@card_play=random, B = club, card play only, seed 0, 10 deals" in summary
    assert "- club@card_play=random against club on 10 deals: " in summary
