"""The runner: same data for any jobs, chunks and backend; atomic parts; resumable after a kill or Ctrl-C;
damaged parts found and made again; runs that grow; clear errors; folders named by their settings."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from sim.commands.cli import main
from sim.runs import RunError
from sim.runs.folder import MANIFEST, read_manifest
from sim.runs.schema import SCHEMA_VERSION
from sim.runs.simulation import simulate
from strategies.registry import StrategyError
from tests.command_line import after_writing
from tests.digests import MODEL_V5
from tests.file_identity import identity
from tests.reference_run import PROFILE, table


def test_a_run_has_a_manifest_and_one_row_per_deal(reference):
    manifest = read_manifest(reference)
    assert manifest.parts_done == [0, 1, 2] and manifest.finished
    assert manifest.config["schema_version"] == SCHEMA_VERSION
    assert manifest.config["profile_spec"]["rearhand"]["card_play"]["name"] == "random"
    data = table(reference)
    assert data["deal_id"].to_list() == list(range(3000))
    assert {"hand_f", "skat", "won", "sf_r", "eval_classic", "tricks"} <= set(data.columns)
    assert "eval_classic_f_clubs" not in data.columns  # every seat's scores only when asked for


def test_every_seat_s_scores_are_logged_when_asked_for_and_change_nothing_else(reference, tmp_path):
    from strategies.registry import build

    folder = simulate(1000, seed=7, profile=PROFILE, out=tmp_path / "run", jobs=1, chunk_size=1000,
                      log_tricks=True, seat_scores=True)
    assert read_manifest(folder).config["seat_scores"] is True
    data, plain = table(folder), table(reference).head(1000)
    assert data.select(plain.columns).equals(plain)
    scores = build("evaluator", "classic")(data["hand_m"].to_numpy(), 1)
    assert data["eval_classic_m_grand"].to_list() == scores[:, 4].astype("float32").tolist()


def test_a_run_of_an_older_schema_version_is_not_resumed_or_repaired(reference, tmp_path):
    folder = simulate(1000, seed=7, profile=PROFILE, out=tmp_path / "run", jobs=1, chunk_size=500)
    manifest = read_manifest(folder)
    manifest.config["schema_version"] = SCHEMA_VERSION - 1
    manifest.save(folder)
    with pytest.raises(RunError, match=f"schema version {SCHEMA_VERSION - 1}; .* cannot resume or grow it"):
        simulate(2000, seed=7, profile=PROFILE, out=folder, jobs=1, chunk_size=500)
    flip_a_byte(folder / "part-00000.parquet")
    repaired = CliRunner().invoke(main, ["verify", str(folder), "--repair", "--jobs", "1"])
    assert repaired.exit_code == 1 and "cannot repair it (analysis still reads it)" in repaired.output
    assert len(repaired.output.strip().splitlines()) <= 2 and "Traceback" not in repaired.output


@pytest.mark.slow
def test_jobs_and_chunk_size_do_not_change_the_data(reference, tmp_path):
    other = simulate(3000, seed=7, profile=PROFILE, out=tmp_path / "other", jobs=2, chunk_size=700,
                     log_tricks=True)
    assert table(other).equals(table(reference))


def test_another_seed_gives_other_deals(reference, tmp_path):
    other = simulate(1000, seed=8, profile=PROFILE, out=tmp_path / "s8", jobs=1, chunk_size=1000)
    assert not table(other)["hand_f"].equals(table(reference)["hand_f"].head(1000))


def test_running_again_resumes_and_skips_finished_parts(reference, tmp_path):
    folder = tmp_path / "resumed"
    simulate(3000, seed=7, profile=PROFILE, out=folder, jobs=1, chunk_size=1000, log_tricks=True)
    (folder / "part-00001.parquet").unlink()
    first = identity(folder / "part-00000.parquet")
    simulate(3000, seed=7, profile=PROFILE, out=folder, jobs=1, chunk_size=1000, log_tricks=True)
    assert identity(folder / "part-00000.parquet") == first
    assert table(folder).equals(table(reference))


#: Runs skatsim with the writer made to die (SIGKILL, no clean-up) halfway through the bytes of the
#: fifth part file it writes.
KILLED_WHILE_WRITING = after_writing(5, """
    data = open(where, "rb").read()
    open(where, "wb").write(data[: len(data) // 2])
    os.kill(os.getpid(), signal.SIGKILL)
""")


@pytest.mark.slow
def test_a_run_killed_while_writing_a_part_resumes_to_the_same_data(reference, tmp_path):
    folder = tmp_path / "killed"
    arguments = ["simulate", "--deals", "3000", "--seed", "7", "--profile", PROFILE, "--out", str(folder),
                 "--jobs", "1", "--chunk-size", "100", "--log-tricks"]
    killed = subprocess.run([sys.executable, "-c", KILLED_WHILE_WRITING, *arguments], capture_output=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert [p.name for p in sorted(folder.glob("part-*.parquet"))] == [f"part-0000{i}.parquet" for i in range(4)]
    assert len(list(folder.glob("*.tmp"))) == 1  # the half-written fifth part, never renamed into place
    assert read_manifest(folder).parts_done == [0, 1, 2, 3] and not read_manifest(folder).finished
    kept = {p.name: identity(p) for p in folder.glob("part-*.parquet")}
    result = subprocess.run([sys.executable, "-m", "sim.commands.cli", *arguments], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert table(folder).equals(table(reference))
    assert not list(folder.glob("*.tmp"))
    assert {name: identity(folder / name) for name in kept} == kept  # the finished parts were not written again


#: Runs skatsim with the writer made to press Ctrl-C (SIGINT to the whole process group, as a
#: terminal does) once a worker has written its second part.
INTERRUPTED = after_writing(2, "os.killpg(0, signal.SIGINT)")


@pytest.mark.skipif(sys.platform != "linux", reason="the workers are forked on Linux only")
def test_ctrl_c_on_two_processes_is_one_line_leaves_no_worker_and_resumes(reference, tmp_path):
    folder = tmp_path / "interrupted"
    arguments = ["simulate", "--deals", "3000", "--seed", "7", "--profile", PROFILE, "--out", str(folder),
                 "--jobs", "2", "--chunk-size", "100", "--log-tricks"]
    interrupted = subprocess.Popen([sys.executable, "-c", INTERRUPTED, *arguments], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True,
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    _, stderr = interrupted.communicate(timeout=300)
    assert interrupted.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == (
        "skatsim: interrupted; the finished parts are kept: run the same command again to resume")
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):  # no worker of the run is left
        os.killpg(interrupted.pid, 0)
    assert not read_manifest(folder).finished
    result = subprocess.run([sys.executable, "-m", "sim.commands.cli", *arguments], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert table(folder).equals(table(reference))


def test_a_folder_of_another_run_is_refused(reference):
    with pytest.raises(RunError, match="holds a different run.*seed 7 there, 9 asked"):
        simulate(3000, seed=9, profile=PROFILE, out=reference, jobs=1, chunk_size=1000, log_tricks=True)


def test_a_folder_with_other_files_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="not empty and holds no run"):
        simulate(10, profile=PROFILE, out=tmp_path, jobs=1)


@pytest.mark.parametrize("deals, seed, mode, chunk, message", [
    (0, 1, "game", 10, "number of deals"), (10, -1, "game", 10, "seed"),
    (10, 1, "play", 10, "unknown mode"), (10, 1, "game", 0, "chunk size")])
def test_bad_numbers_are_named(tmp_path, deals, seed, mode, chunk, message):
    with pytest.raises(RunError, match=message):
        simulate(deals, seed=seed, profile=PROFILE, out=tmp_path / "x", mode=mode, chunk_size=chunk)


def test_a_full_disk_leaves_no_half_written_part(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    def full(table, where, **kwargs):
        Path(where).write_bytes(b"PAR1 half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pq, "write_table", full)
    result = CliRunner().invoke(main, ["simulate", "--deals", "200", "--profile", PROFILE, "--out",
                                       str(tmp_path / "run"), "--jobs", "1", "--chunk-size", "100"])
    assert result.exit_code == 1
    assert "No space left on device" in result.output and "Traceback" not in result.output
    assert not list((tmp_path / "run").glob("part-*")) and not list((tmp_path / "run").glob("*.tmp"))
    assert read_manifest(tmp_path / "run").parts_done == []


def test_declare_mode_logs_every_seat_and_game(tmp_path):
    folder = simulate(50, seed=3, profile=PROFILE, out=tmp_path / "declare", mode="declare", jobs=1)
    text = CliRunner().invoke(main, ["show", str(folder), "7"]).output
    assert text.count("points,") == 18 and "Every seat declares every game" in text
    data = table(folder)
    assert data.height == 50 * 3 * 6
    counts = data.group_by("seat", "game").len()
    assert counts.height == 18 and (counts["len"] == 50).all()
    assert (data.filter(pl.col("game") == "null")["eval_null_rule"].is_not_nan()).all()
    assert (data.filter(pl.col("game") == "grand")["eval_trump_length"].is_nan()).all()


@pytest.mark.slow
def test_dask_backend_gives_the_same_data(reference, tmp_path):
    pytest.importorskip("dask.distributed")
    folder = simulate(3000, seed=7, profile=PROFILE, out=tmp_path / "dask", jobs=2, chunk_size=1000,
                      log_tricks=True, backend="dask")
    assert table(folder).equals(table(reference))


def test_only_skatsims_own_evaluators_are_logged_and_another_is_refused_in_one_line(monkeypatch):
    from strategies import registry

    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    with pytest.raises(StrategyError, match="logged=True is for skatsim's own evaluators.*--evaluator jacks_only"):
        registry.register("evaluator", "jacks_only", logged=True)(jacks_only)
    assert registry.logged_evaluators() == ["classic", "trump_length", "grand_rule", "null_rule", "weighted"]


def test_installing_an_evaluator_leaves_a_run_resumable_and_growable_and_analysis_scores_it(tmp_path, monkeypatch):
    """What a run logs does not depend on what is installed: a run made before an evaluator was registered
    is reused and grows after, and analysis scores the new evaluator on it."""
    from analysis import compare_evaluators, load_run
    from analysis.scoring import with_scored
    from strategies import registry

    folder = simulate(200, seed=3, profile=PROFILE, out=tmp_path / "run", jobs=1, chunk_size=100)
    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    registry.register("evaluator", "jacks_only")(jacks_only)
    before = table(folder)
    assert simulate(200, seed=3, profile=PROFILE, out=folder, jobs=1, chunk_size=100) == folder
    assert table(folder).equals(before)
    simulate(300, seed=3, profile=PROFILE, out=folder, jobs=1, chunk_size=100)
    assert table(folder).height == 300 and "eval_jacks_only" not in table(folder).columns
    [run] = with_scored([load_run(folder)], ["jacks_only"])
    assert "jacks_only" in compare_evaluators(run)["evaluators"]["evaluator"].to_list()


def jacks_only(hands, seats):
    """Jacks, for every suit game."""
    from strategies.evaluators import JACK_BIT, suit_rows, suit_total

    scores = np.full((len(hands), 6), -np.inf)
    scores[:, :4] = suit_total(JACK_BIT, suit_rows(hands))[:, None]
    return scores


jacks_only.thresholds = np.array([2.0, 2.0, 2.0, 2.0, np.inf, np.inf])


def cut_short(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_part_cut_short_after_it_was_written_is_played_again_on_resume(reference, tmp_path):
    folder = simulate(3000, seed=7, profile=PROFILE, out=tmp_path / "run", jobs=1, chunk_size=1000,
                      log_tricks=True)
    cut_short(folder / "part-00001.parquet")
    notices = []
    simulate(3000, seed=7, profile=PROFILE, out=folder, jobs=1, chunk_size=1000, log_tricks=True,
             notice=notices.append)
    assert len(notices) == 1 and "part-00001.parquet has" in notices[0] and "playing it again" in notices[0]
    assert table(folder).equals(table(reference))
    assert read_manifest(folder).finished


def test_analyze_and_show_name_a_damaged_part_and_say_what_to_do(reference, tmp_path):
    folder = simulate(3000, seed=7, profile=PROFILE, out=tmp_path / "run", jobs=1, chunk_size=1000,
                      log_tricks=True)
    cut_short(folder / "part-00002.parquet")
    runner = CliRunner()
    for command in (["analyze", str(folder), "--out", str(tmp_path / "report")], ["show", str(folder), "2500"]):
        result = runner.invoke(main, command)
        assert result.exit_code == 1, result.output
        assert result.output.strip().count("\n") == 0 and "Traceback" not in result.output
        assert "part-00002.parquet" in result.output and f"skatsim verify {folder} --repair" in result.output
    assert not (tmp_path / "report").exists()


def test_verify_finds_a_flipped_byte_and_repair_makes_the_part_again(reference, tmp_path):
    folder = simulate(3000, seed=7, profile=PROFILE, out=tmp_path / "run", jobs=1, chunk_size=1000,
                      log_tricks=True)
    runner = CliRunner()
    assert runner.invoke(main, ["verify", str(folder)]).exit_code == 0
    flip_a_byte(folder / "part-00000.parquet")
    found = runner.invoke(main, ["verify", str(folder)])
    assert found.exit_code == 1 and "part-00000.parquet is damaged" in found.output
    assert "Traceback" not in found.output
    repaired = runner.invoke(main, ["verify", str(folder), "--repair", "--jobs", "1"])
    assert repaired.exit_code == 0, repaired.output
    assert "made 1 damaged part(s) again" in repaired.output
    assert table(folder).equals(table(reference))
    assert runner.invoke(main, ["verify", str(folder)]).exit_code == 0


# --- a play rebuilt from its manifest; the progress rate -----------------------------------


def test_each_kind_of_run_rebuilds_its_play_from_the_description_in_its_manifest():
    from sim.runs.decisions import DecisionDeals
    from sim.runs.matches import MatchDeals
    from sim.runs.modes import PLAYS
    from sim.runs.simulation import ProfileDeals
    from strategies import load_profile

    spec, other = load_profile(PROFILE).spec, load_profile("default").spec
    plays = {"game": ProfileDeals(PROFILE, spec, evaluators=("classic",), open_hand=True, seat_scores=True),
             "declare": ProfileDeals(PROFILE, spec, mode="declare", variants="all", log_tricks=True),
             "match": MatchDeals(PROFILE, spec, "default", other, card_play_only=True, evaluators=("classic",)),
             "decisions": DecisionDeals(PROFILE, spec, teacher="rollout")}
    for mode, play in plays.items():
        assert PLAYS[mode].from_description(play.description()) == play, mode


def test_the_progress_rate_leaves_out_the_first_call(tmp_path):
    from sim.runs.simulation import ProfileDeals
    from strategies import load_profile

    loaded = load_profile(PROFILE)
    play = ProfileDeals(loaded.name, loaded.spec)
    play(0, 0, 1)   # compiled in this process already

    class SlowFirstCall:
        """Like a first run: the first call waits for its kernels."""
        called = 0

        def __call__(self, seed, start, count):
            SlowFirstCall.called += 1
            if SlowFirstCall.called == 1:
                time.sleep(2.0)
            return play(seed, start, count)

    from sim.runs.runner import RunConfig, run

    rates = []
    config = RunConfig(1000, 3, play.description(), chunk_size=500)
    run(SlowFirstCall(), config, tmp_path / "run", jobs=1, progress=lambda done, total, rate: rates.append(rate))
    assert min(rates) > 1000 / 2.0, rates   # the two seconds are not in the rate


# --- growing a run; folders named by their settings ----------------------------------------


def test_a_run_asked_for_with_more_deals_grows_to_the_run_it_would_have_been(reference, tmp_path):
    folder = tmp_path / "growing"
    simulate(1500, seed=7, profile=PROFILE, out=folder, jobs=1, chunk_size=1000, log_tricks=True)
    whole = identity(folder / "part-00000.parquet")
    told = []
    simulate(3000, seed=7, profile=PROFILE, out=folder, jobs=1, chunk_size=1000, log_tricks=True, notice=told.append)
    assert f"{folder}: growing the run from 1,500 to 3,000 deals" in told
    assert table(folder).equals(table(reference))   # the part cut short at 1,500 was played again whole
    assert identity(folder / "part-00000.parquet") == whole  # the whole part was not written again
    manifest = read_manifest(folder)
    assert manifest.config["deals"] == 3000 and manifest.finished and manifest.parts_done == [0, 1, 2]


def test_a_run_grows_on_the_command_line_but_never_shrinks(tmp_path):
    command = ["simulate", "--profile", PROFILE, "--jobs", "1", "--chunk-size", "50", "--out", str(tmp_path / "r")]
    assert CliRunner().invoke(main, [*command, "--deals", "100"]).exit_code == 0
    grown = CliRunner().invoke(main, [*command, "--deals", "150"])
    assert grown.exit_code == 0 and "growing the run from 100 to 150 deals" in grown.output
    assert len(table(tmp_path / "r")) == 150
    shrunk = CliRunner().invoke(main, [*command, "--deals", "120"])
    assert shrunk.exit_code == 1 and "holds a run of 150 deals; a run grows but never shrinks" in shrunk.output
    other = CliRunner().invoke(main, [*command, "--deals", "200", "--seed", "3"])
    assert other.exit_code == 1 and "holds a different run (seed 0 there, 3 asked)" in other.output


def test_the_default_folder_names_the_settings_so_runs_do_not_collide(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    plain = CliRunner().invoke(main, ["simulate", "--deals", "20", "--profile", PROFILE, "--jobs", "1"])
    changed = CliRunner().invoke(main, ["simulate", "--deals", "20", "--profile", PROFILE, "--jobs", "1",
                                        "--set", "card_play=heuristic", "--set", "bidder.thresholds=[7,7,7,7,7,inf]"])
    assert plain.exit_code == 0 and changed.exit_code == 0, changed.output
    assert plain.output.strip().splitlines()[-1] == str(Path("results") / "random-game-seed0-20")
    assert changed.output.strip().splitlines()[-1] == str(
        Path("results") / "random-game-seed0-20-card_play=heuristic+bidder.thresholds=7,7,7,7,7,inf")


def test_a_long_list_of_settings_makes_a_short_folder_name():
    from sim.runs.folder import settings_suffix

    settings = [f"bidder.thresholds=[{k}, {k}, {k}, {k}, {k}, inf]" for k in range(6)]
    suffix = settings_suffix(settings)
    assert len(suffix) <= 61 and suffix != settings_suffix(settings[:-1] + ["bidder.margin=1"])


def test_a_run_records_the_weights_its_card_players_read_and_is_not_resumed_with_others(tmp_path):
    run_of = {"deals": 30, "seed": 2, "profile": "default", "jobs": 1, "chunk_size": 10}
    v5 = simulate(out=tmp_path / "v5", settings=[f"card_play.model={MODEL_V5}"], **run_of)
    shipped = simulate(out=tmp_path / "shipped", **run_of)
    recorded = read_manifest(v5).config["card_play_models"]
    assert set(recorded) == {"forehand", "middlehand", "rearhand"} and len(set(recorded.values())) == 1
    assert read_manifest(shipped).config["card_play_models"]["forehand"] != recorded["forehand"]
    assert "card_play_models" not in read_manifest(simulate(20, profile="club", out=tmp_path / "club", jobs=1)).config
    manifest = json.loads((shipped / MANIFEST).read_text())  # as if made by another skatsim's model
    manifest["config"]["card_play_models"] = recorded
    (shipped / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(RunError, match=r"holds a different run \(card players reading other model weights than"):
        simulate(out=shipped, **run_of)
