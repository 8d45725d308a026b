"""Runs of profiles: one profile plays a run of deals (``simulate``), or two profiles play a
duplicate match (``match``); every row is logged with every evaluator's scores.

This module composes the layers: it builds the profiles (:mod:`strategies`), wraps
them in the picklable function the runner calls for each part (:class:`ProfileDeals`,
:class:`MatchDeals`), names the evaluator columns as the run format says
(:mod:`sim.runs.folder`), and hands both to the strategy-agnostic runner
(:mod:`sim.runs.runner`)::

    from sim.runs.simulation import match, simulate
    folder = simulate(100_000, seed=1, profile="default", out="results/try")
    folder = match("default", "random", deals=2000, seed=1, out="results/match")
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.rules.cards import SEAT_NAMES, SEAT_SUFFIXES
from sim.rules.deal import deal_batch
from sim.rules.games import GAME_NAMES, NULL
from sim.runs.compiling import CompiledInTwo, check_kernel_cache
from sim.runs.folder import (
    RUN_SETTINGS,
    SEATINGS,
    SIMULATION,
    RunError,
    evaluator_column,
    older_run,
    read_manifest,
    seats_of,
)
from sim.runs.runner import RunConfig, check_config, run
from sim.solver.open_hand import first_lead_outcomes
from strategies.deals import DECLARE_VARIANTS, declare_every_game, play_deals, warm_card_play
from strategies.profiles import Profile, build_profile, load_profile, mixed_table
from strategies.registry import build, logged_evaluators

_profiles: dict[str, Profile] = {}


def cached_profile(name: str, spec: dict) -> Profile:
    """The profile of ``spec``, built once per process (parts of a run share it)."""
    key = json.dumps(spec, sort_keys=True)
    if key not in _profiles:
        _profiles[key] = build_profile(name, spec)
    return _profiles[key]


def card_play_models(name: str, spec: dict) -> dict:
    """What a run's manifest says of the models its card players read: by seat, the first 16 hex digits
    of the SHA-256 of each model's weights (seats whose player reads none left out). The spec names a
    model only by its file, or not at all for the shipped one, whose contents another skatsim may change:
    a run made with other weights is another run, and resuming it is refused."""
    seats = cached_profile(name, spec).seats
    return {seat: hashlib.sha256(np.ascontiguousarray(player.card_play.data, np.float64)).hexdigest()[:16]
            for seat, player in zip(SEAT_NAMES, seats) if player.card_play.data is not None}


def with_card_play_models(described: dict, models: dict) -> dict:
    """``described`` with ``card_play_models`` added when any card player reads a model (by seat, or by
    side and seat); a run whose players read none keeps the manifest it always had."""
    if any(models.values()):
        described["card_play_models"] = models
    return described


@dataclass(frozen=True)
class ProfileDeals(CompiledInTwo):
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
    variants: str = "profile"   # declare mode: each game as the profile declares it, or "all" variants

    open_hand: bool = False     # add each game's open-hand value and outcome at the first lead (oh_*)
    seat_scores: bool = False   # game mode: log every seat's evaluator scores, not only the declarer's

    def __call__(self, seed: int, start: int, count: int, *, play_cards: bool = True) -> dict:
        profile = cached_profile(self.profile, self.spec)
        evaluators = sorted(self.evaluators)
        if self.mode == "declare":
            columns = declare_every_game(profile, seed, start, count, self.log_tricks, self.variants,
                                         play_cards=play_cards)
            dealt = deal_batch(seed, start, count)[columns["deal_id"] - start]
            seats = columns["seat"]
            columns.update(declared_scores(evaluators, dealt[np.arange(len(seats)), seats], seats, columns["game"]))
            if self.open_hand:
                columns.update(open_hand_columns(dealt, seats, columns))
            return columns
        columns = play_deals(profile, seed, start, count, self.log_tricks, play_cards=play_cards)
        columns.update(evaluator_columns(evaluators, columns, self.seat_scores))
        if self.open_hand:
            dealt = np.column_stack([columns[f"hand_{suffix}"] for suffix in SEAT_SUFFIXES] + [columns["skat"]])
            columns.update(open_hand_columns(dealt, columns["declarer"], columns))
        return columns

    def warm_card_play(self) -> None:
        """Compile (or load) the kernels of the profile's card play alone (see :func:`sim.runs.compiling.warm_up`)."""
        warm_card_play(cached_profile(self.profile, self.spec))

    def description(self) -> dict:
        """What the manifest records of the players: the profile spelled out and the evaluators logged."""
        described = {"profile": self.profile, "profile_spec": self.spec, "log_tricks": self.log_tricks,
                     "evaluators": {name: evaluator_record(name) for name in self.evaluators}}
        with_card_play_models(described, card_play_models(self.profile, self.spec))
        if self.variants != "profile":
            described["variants"] = self.variants
        if self.open_hand:
            described["open_hand"] = True
        if self.seat_scores:
            described["seat_scores"] = True
        return described


def open_hand_columns(dealt: np.ndarray, declarer: np.ndarray, columns: dict) -> dict:
    """``oh_declarer_points`` and ``oh_won`` of each row's declared game at its first lead
    (:func:`sim.solver.open_hand.first_lead_outcomes`); null where no game was played, and the
    points also null in null games. ``dealt`` (n, 4): the hands and the skat as dealt."""
    game = np.asarray(columns["game"], np.int64)
    values, won, _ = first_lead_outcomes(
        dealt[:, :3], dealt[:, 3], declarer, game, columns["discard"], columns["bid"], columns["hand"],
        columns["schneider_announced"], columns["schwarz_announced"], columns["ouvert"])
    no_game = np.asarray(declarer) < 0
    return {"oh_declarer_points": np.ma.masked_array(values, mask=no_game | (game == NULL)),
            "oh_won": np.ma.masked_array(won, mask=no_game)}


@dataclass(frozen=True)
class MatchDeals(CompiledInTwo):
    """Plays each deal six times, once per seating of a duplicate match between profiles A and B
    (see :data:`sim.runs.folder.SEATINGS`): one row per deal and seating, deal by deal.

    With ``card_play_only`` every seat bids, discards and declares as A does; only the card
    play follows the seating. Every seating of a deal draws from that deal's own random
    streams, so the six games differ only by who sits where.
    """

    a: str
    a_spec: dict
    b: str
    b_spec: dict
    card_play_only: bool = False
    log_tricks: bool = False
    evaluators: tuple[str, ...] = ()

    def __call__(self, seed: int, start: int, count: int, *, play_cards: bool = True) -> dict:
        a, b = cached_profile(self.a, self.a_spec), cached_profile(self.b, self.b_spec)
        plays = []
        for seating in range(len(SEATINGS)):
            table = mixed_table(a, b, seats_of("a", seating), self.card_play_only)
            columns = play_deals(table, seed, start, count, self.log_tricks, play_cards=play_cards)
            columns.update(evaluator_columns(sorted(self.evaluators), columns))
            columns["seating"] = np.full(count, seating, dtype=np.int8)
            plays.append(columns)
        order = np.argsort(np.concatenate([p["deal_id"] for p in plays]), kind="stable")  # deal by deal
        return {name: np.concatenate([p[name] for p in plays])[order] for name in plays[0]}

    def warm_card_play(self) -> None:
        """Compile (or load) the kernels of every seating's card play alone (see :func:`sim.runs.compiling.warm_up`)."""
        a, b = cached_profile(self.a, self.a_spec), cached_profile(self.b, self.b_spec)
        for seating in range(len(SEATINGS)):
            warm_card_play(mixed_table(a, b, seats_of("a", seating), self.card_play_only))

    def description(self) -> dict:
        described = {"profile": f"{self.a} vs {self.b}", "log_tricks": self.log_tricks,
                     "match": {"a": self.a, "a_spec": self.a_spec, "b": self.b, "b_spec": self.b_spec,
                               "card_play_only": self.card_play_only},
                     "evaluators": {name: evaluator_record(name) for name in self.evaluators}}
        return with_card_play_models(described, {"a": card_play_models(self.a, self.a_spec),
                                                 "b": card_play_models(self.b, self.b_spec)})


def evaluator_record(name: str) -> dict:
    """What a run's manifest says of a logged evaluator: its thresholds by game (assessed games only)."""
    thresholds = build("evaluator", name).thresholds
    return {"thresholds": {GAME_NAMES[g]: float(t) for g, t in enumerate(thresholds) if np.isfinite(t)}}


def evaluator_columns(names, columns: dict, seat_scores: bool = False) -> dict:
    """Each evaluator's scores of a game-mode batch: the declarer's score for the declared game (NaN
    for a passed-in deal or a game not assessed) and, with ``seat_scores``, every seat's score for
    every game it assesses (which follow from the logged hands: ``build("evaluator", name)(hand, seat)``).

    Without ``seat_scores`` only the declarers' hands are scored (a third of the work): a row's
    scores depend on its hand and seat alone, so they are the same."""
    declarer, game = columns["declarer"], np.maximum(columns["game"], 0)
    if not seat_scores:
        played = np.flatnonzero(declarer >= 0)
        seats = np.asarray(declarer[played], dtype=np.int64)
        dealt = np.column_stack([columns[f"hand_{suffix}"] for suffix in SEAT_SUFFIXES])
        scores = declared_scores(names, dealt[played, seats], seats, game[played])
        out = {}
        for column, declared in scores.items():
            out[column] = np.full(len(declarer), np.nan, dtype=np.float32)
            out[column][played] = declared
        return out
    out = {}
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


def default_folder(profile: str, mode: str, seed: int, deals: int, settings=()) -> Path:
    """``results/PROFILE-MODE-seedSEED-DEALS``, then the ``--set`` settings, so that runs of other
    settings get other folders: ``results/default-game-seed0-50-card_play=pimc``."""
    return Path("results") / f"{profile}-{mode}-seed{seed}-{deals}{settings_suffix(settings)}"


#: Characters a folder name keeps from a setting; the others are left out.
_FOLDER_SAFE = re.compile(r"[^A-Za-z0-9._=,+-]")
_LONGEST_SUFFIX = 60


def settings_suffix(settings, label: str = "") -> str:
    """The settings as part of a folder name: ``-card_play=pimc+bidder.margin=10`` (``label`` goes
    first, ``-a-...``); '' without settings. A long one is cut and ends in a hash of the whole."""
    if not settings:
        return ""
    text = "+".join(_FOLDER_SAFE.sub("", setting) for setting in settings)
    if len(text) > _LONGEST_SUFFIX:
        digest = hashlib.sha256("\n".join(settings).encode()).hexdigest()[:8]
        text = f"{text[:_LONGEST_SUFFIX - 9]}~{digest}"
    return f"-{label}{text}"


def simulate(deals: int, seed: int = 0, profile: str = "default", settings=(), out=None,
             jobs: int | None = None, chunk_size: int = 100_000, log_tricks: bool = False,
             mode: str = "game", backend: str = "local", scheduler: str | None = None,
             progress=None, notice=None, variants: str = "profile", open_hand: bool = False,
             seat_scores: bool = False) -> Path:
    """Play ``deals`` deals with ``profile`` and write them to a run folder; returns the folder.

    ``settings`` change the profile (``card_play=random``, ...). ``variants="all"`` makes
    declare mode try every variant of every game (``strategies.deals.VARIANTS``). A folder holding
    the same run resumes it (playing again any part found missing or damaged, of which
    ``notice`` is told in one line). ``progress`` is called with (deals done, deals in
    all, deals per second) after each part. ``open_hand`` adds each game's open-hand value
    and outcome at its first lead (columns ``oh_declarer_points``, ``oh_won``). ``seat_scores`` logs
    every seat's evaluator scores for every game (game mode), not only the declarer's.
    """
    check_kernel_cache()
    check_config(deals, seed, mode, chunk_size)
    if variants not in DECLARE_VARIANTS or (variants != "profile" and mode != "declare"):
        raise RunError(f"variants must be one of {', '.join(DECLARE_VARIANTS)} ('all' in declare mode only),"
                       f" not {variants!r}")
    loaded = load_profile(profile, list(settings))
    if seat_scores and mode != "game":
        raise RunError("every seat's evaluator scores are logged in game mode only (declare mode logs each"
                       " row's own score)")
    play = ProfileDeals(loaded.name, loaded.spec, mode, log_tricks, tuple(logged_evaluators()), variants,
                        open_hand, seat_scores)
    config = RunConfig(deals, seed, play.description(), mode, chunk_size)
    folder = Path(out) if out is not None else default_folder(loaded.name, mode, seed, deals, settings)
    return run(play, config, folder, jobs, backend, scheduler, progress, notice)


def replay_of(folder) -> tuple[ProfileDeals | MatchDeals, RunConfig]:
    """The play function and settings that made the run in ``folder`` (a simulation, a match or
    a run of card decisions), from its manifest."""
    config = read_manifest(folder).config
    described = {k: v for k, v in config.items() if k not in RUN_SETTINGS}
    evaluators = tuple(described.get("evaluators", {}))
    if config["mode"] == "decisions":
        from sim.runs.decisions import DecisionDeals

        play = DecisionDeals(described["profile"], described["profile_spec"])
    elif "profile_spec" in config:
        play = ProfileDeals(described["profile"], described["profile_spec"], config["mode"],
                            described.get("log_tricks", False), evaluators, described.get("variants", "profile"),
                            described.get("open_hand", False), described.get("seat_scores", False))
    elif isinstance(described.get("match"), dict):
        sides = described["match"]
        play = MatchDeals(sides["a"], sides["a_spec"], sides["b"], sides["b_spec"],
                          sides.get("card_play_only", False), described.get("log_tricks", False), evaluators)
    else:
        raise RunError(f"{folder} was not made by `skatsim simulate` or `skatsim match`;"
                       " run the command that made it again")
    return play, RunConfig(config["deals"], config["seed"], play.description(), config["mode"],
                           config["chunk_size"])


def repair(folder, jobs: int | None = None, progress=None) -> dict[int, str]:
    """Check every part of the run in ``folder`` byte by byte and play the damaged ones again.

    Returns the parts that were damaged, with what was wrong. The parts are made again
    from the seed and the manifest's profile, which gives the identical data; a run
    whose strategies or evaluators changed since is refused rather than mixed.
    """
    check_kernel_cache()
    manifest = read_manifest(folder)
    damaged = manifest.damaged_parts(folder, deep=True)
    if not damaged:
        return damaged
    if manifest.config.get("source", SIMULATION) != SIMULATION:
        for index in damaged:
            manifest.drop_part(index)
            manifest.finished = None
        manifest.save(folder)
        raise RunError(f"{folder}: dropped {len(damaged)} damaged part(s) of an imported run; run the same"
                       " `skatsim import` command again to import them again")
    older = older_run(Path(folder), manifest.config, "repair")
    if older:
        raise RunError(older)
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


def match(a: str, b: str, deals: int = 2000, seed: int = 0, settings=(), settings_a=(), settings_b=(),
          card_play_only: bool = False, out=None, jobs: int | None = None, chunk_size: int = 500,
          log_tricks: bool = False, progress=None, notice=None) -> Path:
    """Play a duplicate match between profiles ``a`` and ``b`` (names or TOML files) into a run
    folder; returns the folder.

    Every deal is played six times: for each seat, A alone against two B players and B
    alone against two A players. ``settings`` change both profiles, ``settings_a`` and
    ``settings_b`` one of them. ``analysis.match_result`` (or ``skatsim match``) reads the
    result from the folder.
    """
    check_kernel_cache()
    check_config(deals, seed, "match", chunk_size)
    side_a = load_profile(a, [*settings, *settings_a])
    side_b = load_profile(b, [*settings, *settings_b])
    kind = "match-card-play" if card_play_only else "match"
    named = (settings_suffix(settings) + settings_suffix(settings_a, "a-") + settings_suffix(settings_b, "b-"))
    default = Path("results") / f"{kind}-{side_a.name}-{side_b.name}-seed{seed}-{deals}{named}"
    return match_profiles(side_a, side_b, deals, seed, card_play_only, default if out is None else out, jobs,
                          chunk_size, log_tricks, progress, notice)


def match_profiles(side_a: Profile, side_b: Profile, deals: int, seed: int, card_play_only: bool, out,
                   jobs: int | None = None, chunk_size: int = 500, log_tricks: bool = False, progress=None,
                   notice=None) -> Path:
    """:func:`match` between two built profiles (their names and specs go to the manifest) into the
    folder ``out``."""
    play = MatchDeals(side_a.name, side_a.spec, side_b.name, side_b.spec, card_play_only, log_tricks,
                      tuple(logged_evaluators()))
    config = RunConfig(deals, seed, play.description(), "match", chunk_size)
    return run(play, config, Path(out), jobs, progress=progress, notice=notice)
