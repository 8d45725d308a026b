"""Runs of card decisions with a teacher's values, and reading them back to train on.

``skatsim decisions`` plays deals with a profile as ``skatsim simulate`` does and writes, in a run
folder of mode ``decisions`` (resumable, in parts, the same for any number of jobs), one row per
card decision with a choice: the deal, the seat's view, the legal cards and the teacher's value of
each (:mod:`strategies.learning.teacher`: the open-hand value of the real deal, with ``--teacher rollout``
the end of the real deal played out by the profile's own card players, or with ``--teacher pimc`` the PIMC
search's mean over worlds drawn from the seat's view, on the same scale).
:func:`read_decisions` gathers the rows of several such runs for :mod:`strategies.learning.training`.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from sim.rules.games import GAME_NAMES
from sim.runs import RunError
from sim.runs.compiling import check_kernel_cache
from sim.runs.conditional import asked_of, dealing_record, dealing_suffix, dealt, run_dealing
from sim.runs.folder import default_folder, part_name, read_manifest
from sim.runs.players import (
    cached_profile,
    card_play_models,
    plugin_files,
    weights_digest,
    with_card_play_models,
    with_plugin_files,
)
from sim.runs.runner import TRIES, RunConfig, check_config, run
from strategies.cardplay.learned import model_path, model_weights
from strategies.learning.teacher import SCHNEIDER_WEIGHT, TEACHERS, decision_columns
from strategies.profiles import load_profile

MODE = "decisions"


@dataclass(frozen=True)
class DecisionDeals:
    """The runner's ``play(seed, start, count) -> columns`` for decisions: plain data that pickles."""

    profile: str
    spec: dict
    _: KW_ONLY
    teacher: str = "open_hand"
    teacher_model: str = ""       # the PIMC teacher's play-out model (empty: the shipped one)
    game: str | None = None       # log only the games declared as this type (a name of GAME_NAMES); None: all
    dealing: dict | None = None   # fixed cards and a condition (sim.runs.conditional.run_dealing); None: uniform

    def __call__(self, seed: int, start: int, count: int) -> dict:
        deals, tries = dealt(self.dealing, seed, start, count)
        columns = decision_columns(cached_profile(self.profile, self.spec), seed=seed, start=start, count=count,
                                   teacher=self.teacher, deals=deals, teacher_model=self.teacher_model,
                                   game=None if self.game is None else GAME_NAMES.index(self.game))
        if tries is not None:
            columns[TRIES] = tries
        return columns

    def description(self) -> dict:
        """What the manifest records of the players: the profile spelled out, the teacher, how the deals are
        dealt when not uniformly, and the digests of the models and files of Python the players read."""
        if self.teacher == "rollout":
            teacher = {"name": "rollout", "players": "the profile's own", "schneider_weight": SCHNEIDER_WEIGHT}
        elif self.teacher == "pimc":
            teacher = {"name": "pimc", "search": "the pimc card player's defaults", "model": self.teacher_model,
                       "model_weights": weights_digest(model_weights(self.teacher_model)),
                       "schneider_weight": SCHNEIDER_WEIGHT}
        else:
            teacher = {"name": "open_hand_game", "schneider_weight": SCHNEIDER_WEIGHT}
        if self.game is not None:
            teacher["game"] = self.game
        described = with_card_play_models({"profile": self.profile, "profile_spec": self.spec, "teacher": teacher,
                                           **dealing_record(self.dealing)}, card_play_models(self.profile, self.spec))
        return with_plugin_files(described, plugin_files(self.spec))

    @classmethod
    def from_description(cls, described: dict) -> DecisionDeals:
        """The play that :meth:`description` describes (a manifest's config holds it): its inverse."""
        name = described["teacher"]["name"]
        teacher = name if name in ("rollout", "pimc") else "open_hand"
        return cls(described["profile"], described["profile_spec"], teacher=teacher,
                   teacher_model=described["teacher"].get("model", ""), game=described["teacher"].get("game"),
                   dealing=asked_of(described))


def log_decisions(deals: int, *, seed: int = 0, profile: str = "default", settings=(), out=None,
                  jobs: int | None = None, chunk_size: int = 1000, progress=None, notice=None,
                  teacher: str = "open_hand", fix=(), where: str | None = None, teacher_model: str = "",
                  game: str | None = None) -> Path:
    """Play ``deals`` deals with ``profile`` and write their card decisions, valued by ``teacher`` (one of
    TEACHERS: the open-hand value of the real deal, the end of the real deal played out by the profile's
    card players, or the PIMC search's, its worlds played out by the learned player of ``teacher_model``), to a
    run folder; returns the folder; with ``game`` (a game type's name) only the games declared as that type
    are logged. The same folder again resumes the run. ``fix`` and
    ``where`` deal only such deals (as :func:`sim.runs.simulation.simulate`)."""
    check_kernel_cache()
    check_config(deals, seed=seed, mode=MODE, chunk_size=chunk_size)
    dealing = run_dealing(fix, where)
    if teacher not in TEACHERS:
        raise RunError(f"teacher must be one of {', '.join(TEACHERS)}, not {teacher!r}")
    loaded = load_profile(profile, list(settings))
    if teacher_model and teacher != "pimc":
        raise RunError("a teacher's model is the PIMC teacher's: give it with --teacher pimc")
    if teacher_model and not model_path(teacher_model).is_file():
        raise RunError(f"no model file {model_path(teacher_model)}")
    if game is not None and game not in GAME_NAMES:
        raise RunError(f"game must be one of {', '.join(GAME_NAMES)}, not {game!r}")
    play = DecisionDeals(loaded.name, loaded.spec, teacher=teacher, teacher_model=teacher_model, game=game,
                         dealing=dealing)
    config = RunConfig(deals, seed, play.description(), mode=MODE, chunk_size=chunk_size)
    kind = "decisions" if teacher == "open_hand" else f"decisions-{teacher}"
    folder = Path(out) if out is not None else default_folder(f"{kind}-{loaded.name}", seed=seed, deals=deals,
                                                              settings=dealing_suffix(dealing))
    return run(play, config, folder, jobs=jobs, progress=progress, notice=notice)


def read_decisions(folders) -> dict:
    """The rows of decision runs, concatenated: ``deal_id`` (made distinct across runs of different
    seeds by the run's position in ``folders``), ``view``, ``legal`` and ``values`` as numpy arrays.
    Each array is made once at its full size from the parts' row counts and types, and filled a part at
    a time, so the reading holds one part beside the result."""
    runs = [_decision_parts(folder) for folder in folders]
    files = [file for file_list in runs for file in file_list]
    if not files:
        raise RunError("no decisions in " + ", ".join(map(str, folders)))
    columns, at = _empty_columns([pq.ParquetFile(file) for file in files]), 0
    for k, file_list in enumerate(runs):
        for file in file_list:
            part = pq.read_table(file, columns=list(columns))
            rows = slice(at, at + part.num_rows)
            columns["deal_id"][rows] = part["deal_id"].to_numpy() + k * 10**13
            columns["legal"][rows] = part["legal"].to_numpy()
            for name in ("view", "values"):
                flat = part[name].combine_chunks().flatten().to_numpy(zero_copy_only=False)
                columns[name][rows] = flat.reshape(part.num_rows, -1)
            at = rows.stop
    return columns


def _decision_parts(folder) -> list[Path]:
    """The finished part files of the decision run in ``folder``, in order."""
    manifest = read_manifest(Path(folder))
    if manifest.mode != MODE:
        raise RunError(f"{folder} is a run of mode {manifest.mode}, not of card decisions "
                       "(make one with `skatsim decisions`)")
    return [Path(folder) / part_name(index) for index in sorted(manifest.parts_done)]


def _empty_columns(parts: list) -> dict:
    """The arrays :func:`read_decisions` fills, at the parts' total row count, each of the type that holds
    every part's values (as concatenating them would give)."""
    rows = sum(part.metadata.num_rows for part in parts)
    types = {"deal_id": [np.dtype(np.int64)], "legal": [], "view": [], "values": []}
    widths = {"values": 32}
    for part in parts:
        for field in part.schema_arrow:
            if field.name in types:
                kind = field.type
                if hasattr(kind, "list_size"):
                    widths[field.name] = kind.list_size
                    kind = kind.value_type
                types[field.name].append(np.dtype(kind.to_pandas_dtype()))
    return {name: np.empty((rows, widths[name]) if name in widths else rows, dtype=np.result_type(*kinds))
            for name, kinds in types.items()}
