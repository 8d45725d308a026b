"""Tournaments: every pair in a duplicate match, the standings with intervals, resumable like a match."""

import json

import polars as pl
import pytest
from click.testing import CliRunner

from analysis import load_run, match_result, rank_tournament
from analysis.tournament import PAIRS, PLOT, STANDINGS, SUMMARY
from sim.commands.cli import main
from sim.runs import RunError
from sim.runs.folder import read_manifest
from sim.runs.matches import match
from sim.runs.tournaments import pair_folder, play_tournament

PLAYERS = ("threshold", "random", "threshold@bidder.aggressiveness=2")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    return rank_tournament(play_tournament(PLAYERS, deals=12, seed=5, out=tmp_path_factory.mktemp("t") / "cup", jobs=1,
                                           chunk_size=6))


def test_every_pair_plays_one_match_in_its_own_folder(played):
    assert played.pairs.height == 3
    assert [(r["a"], r["b"]) for r in played.pairs.iter_rows(named=True)] == [
        (PLAYERS[0], PLAYERS[1]), (PLAYERS[0], PLAYERS[2]), (PLAYERS[1], PLAYERS[2])]
    for row in played.pairs.iter_rows(named=True):
        folder = pair_folder(played.folder, row["a"], row["b"])
        assert row["folder"] == str(folder) and read_manifest(folder).finished
        assert row["deals"] == 12 and row["games"] == 72
    for name in (STANDINGS, PAIRS, PLOT, SUMMARY):
        assert (played.folder / name).stat().st_size > 0


def test_the_summary_gives_the_ranking_and_every_match_with_its_interval(played):
    lines = (played.folder / SUMMARY).read_text().splitlines()
    ranked = [line for line in lines if line.startswith("| 1 ") or line.startswith("| 2 ") or line.startswith("| 3 ")]
    assert [line.split(" | ")[1] for line in ranked] == played.standings["player"].to_list()
    for row in played.pairs.iter_rows(named=True):
        shown = f"| {row['a']} | {row['b']} | 12 | 72 | {row['difference']:+.1f} ({row['difference_low']:+.1f} to "
        assert any(line.startswith(shown) for line in lines), shown
    assert any("12 deals each" in line for line in lines)


def test_the_standings_rank_by_points_against_the_field_which_add_up_to_zero(played):
    table = played.standings
    assert table["rank"].to_list() == [1, 2, 3] and sorted(table["player"].to_list()) == sorted(PLAYERS)
    assert table["against_field"].to_list() == sorted(table["against_field"].to_list(), reverse=True)
    assert abs(table["against_field"].sum()) < 1e-9   # what one player gains, the others lose
    for row in table.iter_rows(named=True):
        assert row["games"] == 2 * 72 and row["matches"] == 2
        assert row["against_field_low"] <= row["against_field"] <= row["against_field_high"]
        assert row["sf_per_game_low"] <= row["sf_per_game"] <= row["sf_per_game_high"]
    written = pl.read_csv(played.folder / STANDINGS)
    assert written["player"].to_list() == table["player"].to_list()


def test_two_players_give_exactly_their_match(tmp_path):
    result = rank_tournament(play_tournament(["threshold", "random"], deals=15, seed=2, out=tmp_path / "t", jobs=1,
                                             chunk_size=15))
    alone = match_result(load_run(match("threshold", "random", deals=15, seed=2, out=tmp_path / "m", jobs=1,
                                        chunk_size=15))).row(0, named=True)
    first = result.standings.filter(pl.col("player") == "threshold").row(0, named=True)
    assert first["against_field"] == pytest.approx(alone["difference"])
    assert (first["against_field_low"], first["against_field_high"]) == pytest.approx(
        (alone["difference_low"], alone["difference_high"]))


def test_a_tournament_resumes_a_match_cut_short(played, tmp_path):
    folder = tmp_path / "cup"
    play_tournament(PLAYERS, deals=12, seed=5, out=folder, jobs=1, chunk_size=6)
    (pair_folder(folder, PLAYERS[1], PLAYERS[2]) / "part-00001.parquet").unlink()
    again = rank_tournament(play_tournament(PLAYERS, deals=12, seed=5, out=folder, jobs=1, chunk_size=6))
    assert again.standings.equals(played.standings)


def test_card_play_only_bids_as_the_first_player_in_every_match(tmp_path):
    result = rank_tournament(play_tournament(["threshold", "random", "threshold@card_play=random"], deals=10, seed=3,
                                             card_play_only=True, out=tmp_path / "t", jobs=1, chunk_size=10))
    auctions = [pl.read_parquet(pair_folder(result.folder, r["a"], r["b"]) / "part-*.parquet")
                .sort("deal_id", "seating").select("deal_id", "declarer", "bid", "game", "discard")
                for r in result.pairs.iter_rows(named=True)]
    assert all(auction.equals(auctions[0]) for auction in auctions)
    same = result.pairs.filter(pl.col("a") == "random").row(0, named=True)   # random vs threshold@card_play=random
    assert same["difference"] == 0


@pytest.mark.parametrize("players, message", [
    (["threshold"], "needs two players or more"),
    (["threshold", "random", "threshold"], "player 'threshold' is named twice"),
    (["threshold", "random@"], "is not PROFILE or PROFILE@ROLE=NAME"),
])
def test_bad_players_are_refused(players, message, tmp_path):
    with pytest.raises(RunError, match=message):
        play_tournament(players, deals=5, out=tmp_path / "t", jobs=1)
    assert not (tmp_path / "t").exists()


def test_the_command_prints_the_ranking_and_json(tmp_path):
    command = ["tournament", "threshold", "random", "--deals", "8", "--seed", "1", "--jobs", "1",
               "--out", str(tmp_path / "t")]
    text = CliRunner().invoke(main, command)
    assert text.exit_code == 0, text.output
    lines = text.output.strip().splitlines()
    ranking = [line for line in lines if line.lstrip().startswith(("1  ", "2  "))]
    assert len(ranking) == 2 and "against the field" in text.output and "threshold vs random" in text.output
    answer = json.loads(CliRunner().invoke(main, [*command, "--json"]).output.strip().splitlines()[-1])
    assert [row["rank"] for row in answer["standings"]] == [1, 2] and len(answer["pairs"]) == 1
    bad = CliRunner().invoke(main, ["tournament", "threshold", "nope", "--deals", "5", "--out", str(tmp_path / "b")])
    assert bad.exit_code == 1 and bad.output.count("\n") == 1 and "unknown profile 'nope'" in bad.output
