"""Conditional runs: every kind of run deals as its fixed cards and condition ask, records them, gives the
same data for any jobs and after a kill, refuses another condition on resume, and every bad --fix or
--where is one line that writes nothing."""

import json
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from sim.commands.cli import main
from sim.runs import RunError
from sim.runs.folder import read_manifest
from sim.runs.simulation import simulate
from tests.command_line import after_writing

PROFILE = "random"
DIRECT = "jacks(forehand) >= 3 and length(forehand, 'C') >= 2"
REJECTION = "eval('grand_rule', forehand, 'grand') >= 6 and jacks(forehand) >= 1"
JACKS = np.uint32(0x80808080)


def table(folder) -> pl.DataFrame:
    return pl.read_parquet(Path(folder) / "part-*.parquet").sort("deal_id")


@pytest.fixture(scope="module")
def rejected(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs") / "rejected"
    simulate(1200, seed=5, profile=PROFILE, out=folder, jobs=1, chunk_size=400, where=REJECTION,
             fix=["skat=D7"])
    return folder


def test_a_run_deals_only_deals_meeting_its_condition_and_records_it(tmp_path):
    folder = simulate(600, seed=3, profile=PROFILE, out=tmp_path / "direct", jobs=1, chunk_size=300, where=DIRECT,
                      fix={"middlehand": "CA SA"})
    record = read_manifest(folder).config["dealing"]
    assert record["where"] == DIRECT and record["fix"] == {"middlehand": "CA SA"} and record["sampler"] == "direct"
    hands = table(folder).select("hand_f", "hand_m").to_numpy().astype(np.uint32)
    assert (np.bitwise_count(hands[:, 0] & JACKS) >= 3).all()
    assert (np.bitwise_count(hands[:, 0] & np.uint32(0x7F << 24)) >= 2).all()
    assert ((hands[:, 1] & np.uint32(1 << 30 | 1 << 22)) == np.uint32(1 << 30 | 1 << 22)).all()
    assert "tries" not in read_manifest(folder).parts["0"]   # drawn directly: no candidate turned down


def test_a_run_by_rejection_records_the_candidates_it_tried(rejected):
    manifest = read_manifest(rejected)
    record = manifest.config["dealing"]
    assert record["sampler"] == "rejection" and record["counted"] == "jacks(forehand) >= 1"
    assert record["tested"] == "eval('grand_rule', forehand, 'grand') >= 6" and record["probe"]["met"] > 0
    assert all(facts["tries"] > 400 for facts in manifest.parts.values())
    assert 0 < manifest.acceptance() < 1
    from strategies.registry import build

    data = table(rejected)
    hands = data["hand_f"].to_numpy().astype(np.uint32)
    assert (build("evaluator", "grand_rule")(hands, 0)[:, 4] >= 6).all()
    assert (data["skat"].to_numpy() & (1 << 0) == 1).all()   # D7 in every skat


def test_the_same_seed_and_condition_give_the_same_data_for_any_jobs_and_chunks(rejected, tmp_path):
    again = simulate(1200, seed=5, profile=PROFILE, out=tmp_path / "two", jobs=2, chunk_size=300, where=REJECTION,
                     fix=["skat=D7"])
    assert table(again).equals(table(rejected))
    other = simulate(400, seed=6, profile=PROFILE, out=tmp_path / "other", jobs=1, chunk_size=400, where=REJECTION,
                     fix=["skat=D7"])
    assert not table(other)["hand_f"].equals(table(rejected).head(400)["hand_f"])


@pytest.mark.slow
def test_a_conditional_run_killed_while_writing_resumes_to_the_same_data(rejected, tmp_path):
    folder = tmp_path / "killed"
    arguments = ["simulate", "--deals", "1200", "--seed", "5", "--profile", PROFILE, "--out", str(folder), "--jobs",
                 "1", "--chunk-size", "100", "--where", REJECTION, "--fix", "skat=D7"]
    script = after_writing(5, """
        data = open(where, "rb").read()
        open(where, "wb").write(data[: len(data) // 2])
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    killed = subprocess.run([sys.executable, "-c", script, *arguments], capture_output=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert read_manifest(folder).parts_done == [0, 1, 2, 3]
    result = subprocess.run([sys.executable, "-m", "sim.commands.cli", *arguments], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert table(folder).equals(table(rejected))


def test_another_condition_is_another_run_and_a_conditional_run_grows(rejected, tmp_path):
    with pytest.raises(RunError, match=r"holds a different run \(dealing\.counted .*jacks\(forehand\) >= 2"):
        simulate(1200, seed=5, profile=PROFILE, out=rejected, jobs=1, chunk_size=400, fix=["skat=D7"],
                 where=REJECTION.replace(">= 1", ">= 2"))
    with pytest.raises(RunError, match="holds a different run"):
        simulate(1200, seed=5, profile=PROFILE, out=rejected, jobs=1, chunk_size=400)
    folder = tmp_path / "growing"
    simulate(800, seed=5, profile=PROFILE, out=folder, jobs=1, chunk_size=400, where=REJECTION, fix=["skat=D7"])
    simulate(1200, seed=5, profile=PROFILE, out=folder, jobs=1, chunk_size=400, where=REJECTION, fix=["skat=D7"])
    assert table(folder).equals(table(rejected))


def test_the_default_folders_of_other_conditions_differ(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = simulate(20, seed=1, profile=PROFILE, jobs=1, where="jacks(forehand) >= 3")
    second = simulate(20, seed=1, profile=PROFILE, jobs=1, where="jacks(forehand) <= 3")
    plain = simulate(20, seed=1, profile=PROFILE, jobs=1)
    assert len({first, second, plain}) == 3 and "-dealt~" in first.name and "dealt" not in plain.name


def test_each_kind_of_run_rebuilds_its_dealing_from_its_manifest():
    from sim.runs.conditional import run_dealing
    from sim.runs.decisions import DecisionDeals
    from sim.runs.matches import MatchDeals
    from sim.runs.modes import PLAYS
    from sim.runs.simulation import ProfileDeals
    from strategies import load_profile

    spec = load_profile(PROFILE).spec
    dealing = run_dealing(["forehand=CJ"], "aces(skat) == 1")
    plays = {"game": ProfileDeals(PROFILE, spec, dealing=dealing),
             "declare": ProfileDeals(PROFILE, spec, mode="declare", dealing=dealing),
             "match": MatchDeals(PROFILE, spec, "default", spec, dealing=dealing),
             "decisions": DecisionDeals(PROFILE, spec, dealing=dealing)}
    for mode, play in plays.items():
        assert PLAYS[mode].from_description(play.description()) == play, mode
        assert play.description()["dealing"]["where"] == "aces(skat) == 1"


def test_declare_mode_and_a_match_deal_as_asked_and_show_says_so(tmp_path):
    declare = simulate(30, seed=2, profile=PROFILE, out=tmp_path / "declare", mode="declare", jobs=1,
                       where="has(middlehand, 'CJ') and has(middlehand, 'SJ')")
    assert table(declare).height == 30 * 18
    text = CliRunner().invoke(main, ["show", str(declare), "4"]).output
    assert "Dealt only  where has(middlehand, 'CJ') and has(middlehand, 'SJ'): " in text
    assert text.splitlines()[3].startswith("Middlehand  ♣J ♠J")
    result = CliRunner().invoke(main, ["match", PROFILE, "default", "--deals", "20", "--chunk-size", "10", "--out",
                                       str(tmp_path / "match"), "--fix", "rearhand=CJ SJ HJ DJ", "--json"])
    assert result.exit_code == 0, result.output
    data = table(tmp_path / "match")
    assert data.height == 120 and (data["hand_r"].to_numpy() & JACKS == JACKS).all()
    assert "rearhand holds CJ SJ HJ DJ" in CliRunner().invoke(main, ["show", str(tmp_path / "match"), "3"]).output


def test_decisions_and_a_tournament_deal_as_asked(tmp_path):
    result = CliRunner().invoke(main, ["decisions", "--deals", "6", "--profile", PROFILE, "--jobs", "1", "--out",
                                       str(tmp_path / "decisions"), "--where", "jacks(skat) == 2"])
    assert result.exit_code == 0, result.output
    assert read_manifest(tmp_path / "decisions").config["dealing"]["where"] == "jacks(skat) == 2"
    result = CliRunner().invoke(main, ["tournament", PROFILE, "threshold", "--deals", "10", "--jobs", "1",
                                       "--out", str(tmp_path / "tournament"), "--where", "aces(forehand) == 4"])
    assert result.exit_code == 0, result.output
    pairs = [p for p in (tmp_path / "tournament").iterdir() if p.is_dir()]
    data = table(pairs[0])
    assert len(pairs) == 1 and (data["hand_f"].to_numpy() & 0x40404040 == 0x40404040).all()


def test_progress_tells_the_share_of_candidates_kept(tmp_path):
    result = CliRunner().invoke(main, ["simulate", "--deals", "200", "--profile", PROFILE, "--out",
                                       str(tmp_path / "run"), "--jobs", "1", "--chunk-size", "100", "--where",
                                       "eval('classic', rearhand, 'grand') >= 4"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert lines[-1]["deals_done"] == 200 and 0 < lines[-1]["acceptance"] < 1


BAD = [
    (["--fix", "forehand=CJ CJ"], "card CJ written twice"),
    (["--fix", "forehand=CJ", "--fix", "middlehand=CJ"], "CJ fixed twice"),
    (["--fix", "forehand=CJ SJ HJ DJ CA SA HA DA C10 S10 H10"], "forehand gets 11 cards; it holds 10"),
    (["--fix", "skat=D7 D8 D9"], "skat gets 3 cards; it holds 2"),
    (["--fix", "forehand=CX"], "unknown card 'CX'"),
    (["--fix", "dealer=CJ"], "unknown seat 'dealer'"),
    (["--where", "jakcs(forehand) >= 3"], "column 1: unknown name 'jakcs'"),
    (["--where", "jacks(forhand) >= 3"], "column 7: unknown seat 'forhand'"),
    (["--where", "jacks(forehand) and 3"], "column 1: 'and' joins conditions"),
    (["--where", "eval('nosuch', forehand, 'grand') > 1"], "column 6: unknown evaluator 'nosuch'"),
    (["--where", "__import__('os').system('touch x')"], "column 1: unknown name '__import__'"),
    (["--where", "jacks(forehand) >= 3 and jacks(middlehand) >= 2"], "no deal meets the condition"),
    (["--fix", "forehand=CJ SJ HJ", "--where", "jacks(forehand) < 3"], "no deal with the fixed cards meets"),
]


@pytest.mark.parametrize("command", [["simulate", "--deals", "10"], ["match", PROFILE, PROFILE, "--deals", "10"],
                                     ["tournament", PROFILE, "threshold", "--deals", "10"],
                                     ["decisions", "--deals", "10"]])
def test_every_bad_fix_and_where_is_one_line_and_writes_nothing(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for options, says in BAD:
        result = CliRunner().invoke(main, [*command, "--out", str(tmp_path / "run"), *options])
        assert result.exit_code == 1 and result.output.count("\n") == 1, (options, result.output)
        assert result.output.startswith("skatsim: ") and says in result.output, (options, result.output)
        assert not (tmp_path / "run").exists() and not (tmp_path / "results").exists()


def test_hand_takes_a_condition_on_the_unseen_cards(tmp_path):
    from tests.command_line import stdout_runner

    result = stdout_runner().invoke(main, ["hand", "CJ SJ CA C10 CK CQ C9 SA HA D7", "--deals", "30", "--profile",
                                           "threshold", "--where", "jacks(middlehand) == 2", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["where"] == "jacks(middlehand) == 2"
    result = CliRunner().invoke(main, ["hand", "CJ SJ CA C10 CK CQ C9 SA HA D7", "--where", "jacks(forehand) == 4"])
    assert result.exit_code == 1 and "no deal with the fixed cards meets" in result.output


def test_analyze_names_the_dealing_and_warns_that_the_rates_are_conditional(rejected, tmp_path):
    result = CliRunner().invoke(main, ["analyze", str(rejected), "--out", str(tmp_path / "report")])
    assert result.exit_code == 0, result.output
    assert "skatsim: warning: rejected is dealt only skat holds D7; where eval(" in result.output
    summary = (tmp_path / "report" / "summary.md").read_text()
    assert "dealt only skat holds D7; where eval('grand_rule', forehand, 'grand') >= 6" in summary
    assert "every rate holds for those deals, not for all deals" in summary
    page = " ".join((tmp_path / "report" / "report.html").read_text().split())
    assert "rejected: dealt only deals with fixed cards or meeting a condition" in page


def test_the_example_of_the_dealing_page_runs(tmp_path, monkeypatch, capsys):
    import re

    monkeypatch.chdir(tmp_path)
    text = (Path(__file__).parents[2] / "docs" / "dealing.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], "docs/dealing.md", "exec"), {})
    assert "grand" in capsys.readouterr().out
    folder = tmp_path / "results" / "black-jacks-try"
    assert table(folder).filter(pl.col("seat") == 0).height == 2_000 * 6
    record = read_manifest(folder).config["dealing"]
    assert record["fix"] == {"forehand": "CJ SJ"} and record["sampler"] == "direct"
    assert f"{record['deals_counted'] / record['deals_in_all']:.2%}" == "2.57%"   # the share the page quotes
