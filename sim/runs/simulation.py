"""A profile's run: one profile plays a run of deals (``simulate``), in game mode (whole deals) or
declare mode (every seat declares every game); every row is logged with every evaluator's scores.

This module composes the layers: it builds the profile (:mod:`strategies`), wraps it in the
picklable function the runner calls for each part (:class:`ProfileDeals`), which adds the logged
evaluators' scores (:mod:`sim.runs.players`) to the columns of :mod:`sim.runs.schema`, and hands it
to the strategy-agnostic runner (:mod:`sim.runs.runner`)::

    from sim.runs.simulation import simulate
    folder = simulate(100_000, seed=1, profile="default", out="results/try")

With ``fix`` and ``where`` a run deals only deals with those cards fixed that meet the condition
(:mod:`sim.runs.conditional`)."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from pathlib import Path

import numpy as np

from sim.rules.games import NULL
from sim.runs import RunError
from sim.runs.compiling import CompiledInTwo, check_kernel_cache
from sim.runs.conditional import asked_of, dealing_record, dealing_suffix, dealt, run_dealing
from sim.runs.folder import default_folder, settings_suffix
from sim.runs.players import (
    cached_profile,
    card_play_models,
    declared_scores,
    evaluator_columns,
    evaluator_record,
    other_fit_warning,
    plugin_files,
    with_card_play_models,
    with_plugin_files,
)
from sim.runs.runner import TRIES, RunConfig, check_config, run
from sim.solver.open_hand import first_lead_outcomes
from strategies.profiles import load_profile
from strategies.registry import logged_evaluators
from strategies.whole_deals import DECLARE_VARIANTS, declare_every_game, play_deals, warm_card_play, warm_card_players


@dataclass(frozen=True)
class ProfileDeals(CompiledInTwo):
    """Plays deals with a profile: the runner's ``play(seed, start, count) -> columns``.

    Plain data, so that it pickles to worker processes; the profile (and the ``dealing``,
    :func:`sim.runs.conditional.run_dealing`) is built in each process. Every row also gets each logged
    evaluator's scores
    (see :func:`sim.runs.players.evaluator_columns`), in the order of their names, so that every part
    of a run has its columns in the same order however the play was set up.
    """

    profile: str
    spec: dict
    _: KW_ONLY
    mode: str = "game"
    log_tricks: bool = False
    evaluators: tuple[str, ...] = ()
    variants: str = "profile"   # declare mode: each game as the profile declares it, or "all" variants
    open_hand: bool = False     # add each game's open-hand value and outcome at the first lead (oh_*)
    seat_scores: bool = False   # game mode: log every seat's evaluator scores, not only the declarer's
    dealing: dict | None = None  # fixed cards and a condition (sim.runs.conditional.run_dealing); None: uniform

    def __call__(self, seed: int, start: int, count: int, *, play_cards: bool = True) -> dict:
        deals, tries = dealt(self.dealing, seed, start, count)
        if self.mode == "declare":
            columns = self._declare_mode(seed, start, deals, play_cards=play_cards)
        else:
            columns = play_deals(cached_profile(self.profile, self.spec), seed=seed, start=start, count=count,
                                 log_tricks=self.log_tricks, play_cards=play_cards, deals=deals)
            columns.update(evaluator_columns(sorted(self.evaluators), columns, self.seat_scores))
            if self.open_hand:
                columns.update(open_hand_columns(deals, columns["declarer"], columns))
        if tries is not None:
            columns[TRIES] = tries
        return columns

    def _declare_mode(self, seed: int, start: int, deals: np.ndarray, *, play_cards: bool) -> dict:
        """Every seat declares every game (or variant): one row each, with its own evaluator scores."""
        columns = declare_every_game(cached_profile(self.profile, self.spec), seed=seed, start=start, count=len(deals),
                                     log_tricks=self.log_tricks, variants=self.variants, play_cards=play_cards,
                                     deals=deals)
        rows = deals[columns["deal_id"] - start]
        seats = columns["seat"]
        columns.update(declared_scores(sorted(self.evaluators), hands=rows[np.arange(len(seats)), seats],
                                       seats=seats, games=columns["game"]))
        if self.open_hand:
            columns.update(open_hand_columns(rows, seats, columns))
        return columns

    def warm_card_play(self) -> None:
        """Compile (or load) the kernels of the profile's card play alone (see :func:`sim.runs.compiling.warm_up`)."""
        warm_card_play(cached_profile(self.profile, self.spec))

    def warm_card_players(self) -> None:
        """Compile (or load) the profile's card players' kernels that compile apart from the play loop."""
        warm_card_players(cached_profile(self.profile, self.spec))

    def description(self) -> dict:
        """What the manifest records of the players: the profile spelled out, how it plays (the mode and
        its options), the evaluators logged, how it deals when not uniformly, and the digests of the models
        and files of Python its players read (:mod:`sim.runs.players`)."""
        described = {"profile": self.profile, "profile_spec": self.spec, "mode": self.mode,
                     "log_tricks": self.log_tricks,
                     "evaluators": {name: evaluator_record(name) for name in self.evaluators}}
        with_card_play_models(described, card_play_models(self.profile, self.spec))
        with_plugin_files(described, plugin_files(self.spec))
        if self.variants != "profile":
            described["variants"] = self.variants
        if self.open_hand:
            described["open_hand"] = True
        if self.seat_scores:
            described["seat_scores"] = True
        described.update(dealing_record(self.dealing))
        return described

    @classmethod
    def from_description(cls, described: dict) -> ProfileDeals:
        """The play that :meth:`description` describes (a manifest's config holds it): its inverse."""
        return cls(described["profile"], described["profile_spec"], mode=described["mode"],
                   log_tricks=described.get("log_tricks", False), evaluators=tuple(described.get("evaluators", {})),
                   variants=described.get("variants", "profile"), open_hand=described.get("open_hand", False),
                   seat_scores=described.get("seat_scores", False), dealing=asked_of(described))


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


def simulate(deals: int, *, seed: int = 0, profile: str = "default", settings=(), out=None,
             jobs: int | None = None, chunk_size: int = 100_000, log_tricks: bool = False,
             mode: str = "game", backend: str = "local", scheduler: str | None = None,
             progress=None, notice=None, variants: str = "profile", open_hand: bool = False,
             seat_scores: bool = False, fix=(), where: str | None = None, calibration_warning: bool = True) -> Path:
    """Play ``deals`` deals with ``profile`` and write them to a run folder; returns the folder.

    ``settings`` change the profile (``card_play=random``, ...). ``variants="all"`` makes
    declare mode try every variant of every game (``strategies.whole_deals.VARIANTS``). A folder holding
    the same run resumes it (playing again any part found missing or damaged, of which
    ``notice`` is told in one line). ``progress`` is called with (deals done, deals in
    all, deals per second) after each part. ``open_hand`` adds each game's open-hand value
    and outcome at its first lead (columns ``oh_declarer_points``, ``oh_won``). ``seat_scores`` logs
    every seat's evaluator scores for every game (game mode), not only the declarer's. ``fix``
    (``SEAT=CARDS`` texts or a mapping of seat to cards) and ``where`` (a condition on the hands) deal only
    such deals, from the exact conditional distribution (:mod:`sim.rules.dealing`). If the profile bids with
    win probabilities fitted on another card player's play than its own, ``notice`` is told so in one line
    once the folder takes the run, unless ``calibration_warning`` is False.
    """
    check_kernel_cache()
    check_config(deals, seed=seed, mode=mode, chunk_size=chunk_size)
    dealing = run_dealing(fix, where)
    if variants not in DECLARE_VARIANTS or (variants != "profile" and mode != "declare"):
        raise RunError(f"variants must be one of {', '.join(DECLARE_VARIANTS)} ('all' in declare mode only),"
                       f" not {variants!r}")
    loaded = load_profile(profile, list(settings))
    if seat_scores and mode != "game":
        raise RunError("every seat's evaluator scores are logged in game mode only (declare mode logs each"
                       " row's own score)")
    play = ProfileDeals(loaded.name, loaded.spec, mode=mode, log_tricks=log_tricks,
                        evaluators=tuple(logged_evaluators()), variants=variants, open_hand=open_hand,
                        seat_scores=seat_scores, dealing=dealing)
    config = RunConfig(deals, seed, play.description(), mode=mode, chunk_size=chunk_size)
    named = settings_suffix(settings) + dealing_suffix(dealing)
    folder = Path(out) if out is not None else default_folder(f"{loaded.name}-{mode}", seed=seed, deals=deals,
                                                              settings=named)
    return run(play, config, folder, jobs=jobs, backend=backend, scheduler=scheduler, progress=progress,
               notice=notice, warning=other_fit_warning([loaded]) if calibration_warning else None)
