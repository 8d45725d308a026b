"""A profile's run: the strategies of a profile play a run of deals, logged with every evaluator's scores.

This module composes the layers: it builds the profile (:mod:`strategies`), wraps
it in the picklable function the runner calls for each part (:class:`ProfileDeals`),
names the evaluator columns as the run format says (:mod:`sim.runfolder`), and
hands both to the strategy-agnostic runner (:mod:`sim.runner`)::

    from sim.simulation import simulate
    folder = simulate(100_000, seed=1, profile="default", out="results/try")
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from strategies.profiles import Profile, build_profile, load_profile
from strategies.registry import build, logged_evaluators
from strategies.table import declare_every_game, play_deals

from .rules.cards import SEAT_SUFFIXES
from .rules.deal import deal_batch
from .rules.games import GAME_NAMES
from .runfolder import RUN_SETTINGS, RunError, evaluator_column, read_manifest
from .runner import RunConfig, check_config, run

_profiles: dict[str, Profile] = {}


def cached_profile(name: str, spec: dict) -> Profile:
    """The profile of ``spec``, built once per process (parts of a run share it)."""
    key = json.dumps(spec, sort_keys=True)
    if key not in _profiles:
        _profiles[key] = build_profile(name, spec)
    return _profiles[key]


@dataclass(frozen=True)
class ProfileDeals:
    """Plays deals with a profile: the runner's ``play(seed, start, count) -> columns``.

    Plain data, so that it pickles to worker processes; the profile is built in each
    process from its spec. Every row also gets each logged evaluator's scores
    (see :func:`evaluator_columns`), in the order of their names, so that every part
    of a run has its columns in the same order however the play was set up.
    """

    profile: str
    spec: dict
    mode: str = "game"
    log_tricks: bool = False
    evaluators: tuple[str, ...] = ()

    def __call__(self, seed: int, start: int, count: int) -> dict:
        profile = cached_profile(self.profile, self.spec)
        evaluators = sorted(self.evaluators)
        if self.mode == "declare":
            columns = declare_every_game(profile, seed, start, count, self.log_tricks)
            hands = deal_batch(seed, start, count)[columns["deal_id"] - start, columns["seat"]]
            columns.update(declared_scores(evaluators, hands, columns["seat"], columns["game"]))
            return columns
        columns = play_deals(profile, seed, start, count, self.log_tricks)
        columns.update(evaluator_columns(evaluators, columns))
        return columns

    def description(self) -> dict:
        """What the manifest records of the players: the profile spelled out and the evaluators logged."""
        return {"profile": self.profile, "profile_spec": self.spec, "log_tricks": self.log_tricks,
                "evaluators": {name: evaluator_record(name) for name in self.evaluators}}


def evaluator_record(name: str) -> dict:
    """What a run's manifest says of a logged evaluator: its thresholds by game (assessed games only)."""
    thresholds = build("evaluator", name).thresholds
    return {"thresholds": {GAME_NAMES[g]: float(t) for g, t in enumerate(thresholds) if np.isfinite(t)}}


def evaluator_columns(names, columns: dict) -> dict:
    """Each evaluator's scores of a game-mode batch: every seat's score for every game it assesses,
    and the declarer's score for the declared game (NaN for a passed-in deal or a game not assessed)."""
    out = {}
    declarer, game = columns["declarer"], np.maximum(columns["game"], 0)
    rows = np.arange(len(declarer))
    for name in names:
        evaluate = build("evaluator", name)
        assessed = np.flatnonzero(np.isfinite(evaluate.thresholds))
        declared = np.full(len(declarer), np.nan, dtype=np.float32)
        for seat, suffix in enumerate(SEAT_SUFFIXES):
            scores = evaluate(columns[f"hand_{suffix}"], seat).astype(np.float32)
            for g in assessed:
                out[evaluator_column(name, seat, g)] = scores[:, g]
            mine = declarer == seat
            declared[mine] = scores[rows[mine], game[mine]]
        out[evaluator_column(name)] = np.where(np.isfinite(declared), declared, np.nan).astype(np.float32)
    return out


def declared_scores(names, hands: np.ndarray, seats: np.ndarray, games: np.ndarray) -> dict:
    """Each evaluator's score of each row's hand for the row's game (NaN if it does not assess it)."""
    out = {}
    rows = np.arange(len(hands))
    for name in names:
        scores = build("evaluator", name)(hands, seats)[rows, games].astype(np.float32)
        out[evaluator_column(name)] = np.where(np.isfinite(scores), scores, np.nan).astype(np.float32)
    return out


def default_folder(profile: str, mode: str, seed: int, deals: int) -> Path:
    return Path("results") / f"{profile}-{mode}-seed{seed}-{deals}"


def simulate(deals: int, seed: int = 0, profile: str = "default", settings=(), out=None,
             jobs: int | None = None, chunk_size: int = 100_000, log_tricks: bool = False,
             mode: str = "game", backend: str = "local", scheduler: str | None = None,
             progress=None, notice=None) -> Path:
    """Play ``deals`` deals with ``profile`` and write them to a run folder; returns the folder.

    ``settings`` change the profile (``card_play=random``, ...). A folder holding
    the same run resumes it (playing again any part found missing or damaged, of which
    ``notice`` is told in one line). ``progress`` is called with (deals done, deals in
    all, deals per second) after each part.
    """
    check_config(deals, seed, mode, chunk_size)
    loaded = load_profile(profile, list(settings))
    play = ProfileDeals(loaded.name, loaded.spec, mode, log_tricks, tuple(logged_evaluators()))
    config = RunConfig(deals, seed, play.description(), mode, chunk_size)
    folder = Path(out) if out is not None else default_folder(loaded.name, mode, seed, deals)
    return run(play, config, folder, jobs, backend, scheduler, progress, notice)


def replay_of(folder) -> tuple[ProfileDeals, RunConfig]:
    """The play function and settings that made the profile run in ``folder``, from its manifest."""
    config = read_manifest(folder).config
    if "profile_spec" not in config:
        raise RunError(f"{folder} was not made by `skatsim simulate`; run the command that made it again")
    described = {k: v for k, v in config.items() if k not in RUN_SETTINGS}
    play = ProfileDeals(described["profile"], described["profile_spec"], config["mode"],
                        described.get("log_tricks", False), tuple(described.get("evaluators", {})))
    return play, RunConfig(config["deals"], config["seed"], play.description(), config["mode"],
                           config["chunk_size"])


def repair(folder, jobs: int | None = None, progress=None) -> dict[int, str]:
    """Check every part of the run in ``folder`` byte by byte and play the damaged ones again.

    Returns the parts that were damaged, with what was wrong. The parts are made again
    from the seed and the manifest's profile, which gives the identical data; a run
    whose strategies or evaluators changed since is refused rather than mixed.
    """
    manifest = read_manifest(folder)
    damaged = manifest.damaged_parts(folder, deep=True)
    play, config = replay_of(folder)
    if config.identity() != manifest.config:
        raise RunError(f"{folder} was made with strategies or evaluators that have changed since;"
                       " its parts cannot be made again identically")
    for index in damaged:
        manifest.drop_part(index)
        manifest.finished = None
    manifest.save(folder)
    run(play, config, folder, jobs, progress=progress)
    return damaged
