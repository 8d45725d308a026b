"""A first run's kernels compiling (sim.runs.compiling): told once and timed; on two cores the card play
compiled in this process and the rest in a second one, only while a core is free and never depended on;
each half compiles the kernels the run then plays."""

import os
from pathlib import Path

import numpy as np
import pytest


def test_kernels_compiling_are_told_once_and_timed(tmp_path, monkeypatch):
    from sim.runs.compiling import COMPILING, warm_up

    (tmp_path / "fresh_kernel.py").write_text(
        "from numba import njit\n\n@njit(cache=True)\ndef add(a, b):\n    return a + b\n\n"
        "@njit(cache=False)\ndef times(a, b):\n    return a * b\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import fresh_kernel

    told = []
    seconds = warm_up(lambda seed, start, count: fresh_kernel.add(seed, count) + fresh_kernel.times(2, 3), 5,
                      notice=told.append)
    assert told[0] == COMPILING and len(told) == 2 and told[1].startswith("compiled in ")
    assert seconds is not None and seconds > 0
    told.clear()
    assert warm_up(lambda seed, start, count: fresh_kernel.add(seed, count), 5, notice=told.append) is None
    assert told == []   # nothing compiled: nothing said


FIRST_RUN_HALVES = """
import os
from numba import njit

@njit(cache=True)
def card_play(a):
    return a + 1

@njit(cache=True)
def the_rest(a):
    return a * 3

class Play:
    def __init__(self, marker, fail=False):
        self.marker, self.fail = marker, fail

    def __call__(self, seed, start, count):
        return {"x": card_play(seed) + the_rest(seed)}

    def warm_card_play(self):
        card_play(0)

    def warm_the_rest(self, seed):
        with open(self.marker, "w") as out:
            out.write(str(os.getpid()))
        if self.fail:
            raise RuntimeError("the second process failed")
        the_rest(seed)
"""


def first_run_play(tmp_path, monkeypatch, name, fail=False):
    """A play of two fresh cached kernels, importable by a second interpreter too."""
    (tmp_path / f"{name}.py").write_text(FIRST_RUN_HALVES)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(Path(__file__).parents[2])]))
    module = __import__(name)
    return module, module.Play(str(tmp_path / "second.txt"), fail)


def test_a_first_run_on_two_cores_compiles_the_rest_in_a_second_process(tmp_path, monkeypatch):
    from sim.runs.compiling import warm_up

    module, play = first_run_play(tmp_path, monkeypatch, "halves_kernels")
    assert warm_up(play, 5, jobs=2) is not None
    assert int((tmp_path / "second.txt").read_text()) != os.getpid()
    assert module.the_rest.stats.cache_hits and not module.the_rest.stats.cache_misses   # loaded, not compiled
    assert module.card_play.stats.cache_misses   # compiled here


def test_a_first_run_does_not_depend_on_its_second_process(tmp_path, monkeypatch):
    from sim.runs.compiling import warm_up

    module, play = first_run_play(tmp_path, monkeypatch, "failing_halves_kernels", fail=True)
    assert warm_up(play, 5, jobs=2) is not None
    assert (tmp_path / "second.txt").exists()   # it started, and failed
    assert module.the_rest.stats.cache_misses   # so this process compiled the rest itself
    assert play(5, 0, 1) == {"x": 21}


def test_one_job_compiles_in_one_process(tmp_path, monkeypatch):
    from sim.runs.compiling import warm_up

    module, play = first_run_play(tmp_path, monkeypatch, "one_job_kernels")
    assert warm_up(play, 5, jobs=1) is not None
    assert not (tmp_path / "second.txt").exists()


@pytest.mark.parametrize("profile", ["default", "club"])
def test_the_card_play_half_compiles_the_kernel_the_run_plays(profile):
    """The fixed grand of the first run's card-play half has the types of a real batch, so the
    kernel it compiles is the one the run then loads, not a second one."""
    from sim.runs.simulation import ProfileDeals
    from strategies import load_profile
    from strategies.whole_deals import play_batch

    loaded = load_profile(profile)
    play = ProfileDeals(loaded.name, loaded.spec)
    play(3, 0, 20)
    played = set(play_batch.signatures)
    play.warm_card_play()
    assert set(play_batch.signatures) == played


def test_a_first_run_compiles_in_two_processes_only_while_a_core_is_free(monkeypatch):
    from sim.runs import compiling

    monkeypatch.setattr(compiling.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(compiling.os, "getloadavg", lambda: (3.0, 3.0, 3.0))
    assert not compiling.a_core_is_free()
    monkeypatch.setattr(compiling.os, "getloadavg", lambda: (0.4, 1.0, 1.0))
    assert compiling.a_core_is_free()


def test_a_play_without_card_play_bids_and_declares_as_the_whole_play():
    from sim.runs.simulation import ProfileDeals
    from strategies import load_profile

    loaded = load_profile("default")
    play = ProfileDeals(loaded.name, loaded.spec)
    whole = play(3, 0, 200)
    bid_only = play(3, 0, 200, play_cards=False)
    for name in ("declarer", "bid", "game", "hand", "discard", "schneider_announced"):
        assert np.array_equal(bid_only[name], whole[name]), name
    assert not bid_only["won"].any() and whole["won"].any()
