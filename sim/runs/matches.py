"""A duplicate match between two profiles (``match``): every deal played six times, once per seating
of A and B, one row per deal and seating; every row is logged with every evaluator's scores::

    from sim.runs.matches import match
    folder = match("default", "random", deals=2000, seed=1, out="results/match")
    cards = match("club", "club", card_play_only=True, settings_a=["card_play=learned"],
                  settings_b=["card_play=heuristic"])   # two card players on the same auctions
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, replace
from pathlib import Path

import numpy as np

from sim.runs.compiling import CompiledInTwo, check_kernel_cache
from sim.runs.conditional import asked_of, dealing_record, dealing_suffix, dealt, run_dealing
from sim.runs.folder import default_folder, settings_suffix
from sim.runs.players import (
    cached_profile,
    card_play_models,
    evaluator_columns,
    evaluator_record,
    other_fit_warning,
    plugin_files,
    with_card_play_models,
    with_plugin_files,
)
from sim.runs.runner import TRIES, RunConfig, check_config, run
from sim.runs.schema import SEATINGS, seats_of
from strategies.profiles import Profile, load_profile, mixed_seating
from strategies.registry import logged_evaluators
from strategies.whole_deals import play_deals, warm_card_play, warm_card_players


@dataclass(frozen=True)
class MatchDeals(CompiledInTwo):
    """Plays each deal six times, once per seating of a duplicate match between profiles A and B
    (see :data:`sim.runs.schema.SEATINGS`): one row per deal and seating, deal by deal.

    With ``card_play_only`` every seat bids, discards and declares as A does; only the card
    play follows the seating. Every seating of a deal draws from that deal's own random
    streams, so the six games differ only by who sits where. The deals are dealt once for all six,
    uniformly or as ``dealing`` asks (:func:`sim.runs.conditional.run_dealing`).
    """

    a: str
    a_spec: dict
    b: str
    b_spec: dict
    _: KW_ONLY
    card_play_only: bool = False
    log_tricks: bool = False
    evaluators: tuple[str, ...] = ()
    dealing: dict | None = None

    def __call__(self, seed: int, start: int, count: int, *, play_cards: bool = True) -> dict:
        deals, tries = dealt(self.dealing, seed, start, count)
        plays = []
        for seating, seated in enumerate(self._seated()):
            columns = play_deals(seated, seed=seed, start=start, count=count, log_tricks=self.log_tricks,
                                 play_cards=play_cards, deals=deals)
            columns.update(evaluator_columns(sorted(self.evaluators), columns))
            columns["seating"] = np.full(count, seating, dtype=np.int8)
            plays.append(columns)
        order = np.argsort(np.concatenate([p["deal_id"] for p in plays]), kind="stable")  # deal by deal
        columns = {name: np.concatenate([p[name] for p in plays])[order] for name in plays[0]}
        if tries is not None:
            columns[TRIES] = tries
        return columns

    def _seated(self) -> list[Profile]:
        """The players of every seating in turn, A's and B's strategies at the seats each side holds."""
        a, b = cached_profile(self.a, self.a_spec), cached_profile(self.b, self.b_spec)
        return [mixed_seating(a, b, a_seats=seats_of("a", seating),
                              card_play_only=self.card_play_only) for seating in range(len(SEATINGS))]

    def warm_card_play(self) -> None:
        """Compile (or load) the kernels of every seating's card play alone (see :func:`sim.runs.compiling.warm_up`)."""
        for seated in self._seated():
            warm_card_play(seated)

    def warm_card_players(self) -> None:
        """Compile (or load) every seating's card players' kernels that compile apart from the play loop."""
        for seated in self._seated():
            warm_card_players(seated)

    def description(self) -> dict:
        """What the manifest records of the players: both sides' profiles spelled out, whether only the
        card play differs, the evaluators logged, how the deals are dealt when not uniformly, and the digests
        of the models and files of Python the players read (:mod:`sim.runs.players`)."""
        described = {"profile": f"{self.a} vs {self.b}", "log_tricks": self.log_tricks,
                     "match": {"a": self.a, "a_spec": self.a_spec, "b": self.b, "b_spec": self.b_spec,
                               "card_play_only": self.card_play_only},
                     "evaluators": {name: evaluator_record(name) for name in self.evaluators},
                     **dealing_record(self.dealing)}
        with_card_play_models(described, {"a": card_play_models(self.a, self.a_spec),
                                          "b": card_play_models(self.b, self.b_spec)})
        return with_plugin_files(described, plugin_files(self.a_spec, self.b_spec))

    @classmethod
    def from_description(cls, described: dict) -> MatchDeals:
        """The play that :meth:`description` describes (a manifest's config holds it): its inverse."""
        sides = described["match"]
        return cls(sides["a"], sides["a_spec"], sides["b"], sides["b_spec"],
                   card_play_only=sides.get("card_play_only", False), log_tricks=described.get("log_tricks", False),
                   evaluators=tuple(described.get("evaluators", {})), dealing=asked_of(described))


def match(a: str, b: str, *, deals: int = 2000, seed: int = 0, settings=(), settings_a=(), settings_b=(),
          card_play_only: bool = False, out=None, jobs: int | None = None, chunk_size: int = 500,
          log_tricks: bool = False, progress=None, notice=None, fix=(), where: str | None = None,
          calibration_warning: bool = True) -> Path:
    """Play a duplicate match between profiles ``a`` and ``b`` (names or TOML files) into a run
    folder; returns the folder.

    Every deal is played six times: for each seat, A alone against two B players and B
    alone against two A players. ``settings`` change both profiles, ``settings_a`` and
    ``settings_b`` one of them; each side is named with the settings it plays with, as a tournament's
    player is written (``club@card_play=random``), in the manifest and so in the result and the report.
    ``fix`` and ``where`` deal only such deals (as :func:`sim.runs.simulation.simulate`).
    ``analysis.match_result`` (or ``skatsim match``) reads the result from the folder. If a side bids with
    win probabilities fitted on another card player's play than its own, ``notice`` is told so in one line
    once the folder takes the run, unless ``calibration_warning`` is False or the match is ``card_play_only``
    (where both sides bid alike).
    """
    check_kernel_cache()
    check_config(deals, seed=seed, mode="match", chunk_size=chunk_size)
    dealing = run_dealing(fix, where)
    changes_a, changes_b = [*settings, *settings_a], [*settings, *settings_b]
    side_a, side_b = load_profile(a, changes_a), load_profile(b, changes_b)
    if out is None:
        kind = "match-card-play" if card_play_only else "match"
        named = settings_suffix(settings) + settings_suffix(settings_a, "a-") + settings_suffix(settings_b, "b-")
        out = default_folder(f"{kind}-{side_a.name}-{side_b.name}", seed=seed, deals=deals,
                             settings=named + dealing_suffix(dealing))
    side_a, side_b = named_with_settings(side_a, changes_a), named_with_settings(side_b, changes_b)
    return match_profiles(side_a, side_b, deals=deals, seed=seed, card_play_only=card_play_only, out=out, jobs=jobs,
                          chunk_size=chunk_size, log_tricks=log_tricks, progress=progress, notice=notice,
                          dealing=dealing, warning=match_warning([side_a, side_b], card_play_only)
                          if calibration_warning else None)


def named_with_settings(profile: Profile, settings) -> Profile:
    """``profile`` named as a tournament's player is written: its name, then each of ``settings`` after an
    ``@`` (``club@card_play=random``); without settings, as it is."""
    return replace(profile, name="@".join([profile.name, *settings]))


def match_warning(sides, card_play_only: bool) -> str | None:
    """The one line that tells of ``sides`` (profiles) bidding with win probabilities fitted on another card
    player's play than their own (:func:`sim.runs.players.other_fit_warning`); None in a card-play-only
    match, where every seat bids as the first side does whoever plays its cards."""
    return None if card_play_only else other_fit_warning(sides)


def match_profiles(side_a: Profile, side_b: Profile, *, deals: int, seed: int, card_play_only: bool, out,
                   jobs: int | None = None, chunk_size: int = 500, log_tricks: bool = False, progress=None,
                   notice=None, dealing: dict | None = None, warning: str | None = None) -> Path:
    """:func:`match` between two built profiles (their names and specs go to the manifest) into the
    folder ``out``, dealt as ``dealing`` asks (:func:`sim.runs.conditional.run_dealing`; None: uniformly);
    ``notice`` is told ``warning`` once the folder takes the run (:func:`sim.runs.runner.run`)."""
    play = MatchDeals(side_a.name, side_a.spec, side_b.name, side_b.spec, card_play_only=card_play_only,
                      log_tricks=log_tricks, evaluators=tuple(logged_evaluators()), dealing=dealing)
    config = RunConfig(deals, seed, play.description(), mode="match", chunk_size=chunk_size)
    return run(play, config, Path(out), jobs=jobs, progress=progress, notice=notice, warning=warning)
