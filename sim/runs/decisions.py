"""Runs of card decisions with a teacher's values, and reading them back to train on.

``skatsim decisions`` plays deals with a profile as ``skatsim simulate`` does and writes, in a run
folder of mode ``decisions`` (resumable, in parts, the same for any number of jobs), one row per
card decision with a choice: the deal, the seat's view, the legal cards and the teacher's value of
each (:mod:`strategies.teacher`: the open-hand value of the real deal, with ``--teacher pimc`` or
``pimc_play_out`` PIMC's value from the seat's view, its worlds solved or played out, or with
``--teacher rollout`` the end of the real deal played out by the profile's own card players, on the
same scale). :func:`read_decisions` gathers the rows of several such runs for
:mod:`strategies.training`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from sim.runs.folder import RunError, part_name, read_manifest
from sim.runs.runner import RunConfig, check_config, run
from sim.runs.simulation import cached_profile, card_play_models, with_card_play_models
from strategies.cardplay.learned import SHIPPED_MODEL
from strategies.cardplay.pimc import (
    DEFAULT_CANDIDATES,
    DEFAULT_DEVIATION,
    DEFAULT_MAX_WORLDS,
    DEFAULT_SOLVE_LAST,
    DEFAULT_WORLDS,
    PLAY_OUT_CANDIDATES_PER_WORLD,
    PLAY_OUT_WORLDS,
)
from strategies.profiles import load_profile
from strategies.teacher import ROLES, SCHNEIDER_WEIGHT, TEACHERS, decision_columns

MODE = "decisions"
#: The most last tricks of a rollout the solver may value (9: the play-out plays the first trick only).
MAX_SOLVE_LAST = 9


@dataclass(frozen=True)
class DecisionDeals:
    """The runner's ``play(seed, start, count) -> columns`` for decisions: plain data that pickles."""

    profile: str
    spec: dict
    points: bool = True
    teacher: str = "open_hand"
    solve_last: int = 0
    roles: str = "all"

    def __call__(self, seed: int, start: int, count: int) -> dict:
        return decision_columns(cached_profile(self.profile, self.spec), seed, start, count, self.points,
                                self.teacher, self.solve_last, self.roles)

    def description(self) -> dict:
        if self.teacher == "pimc":
            teacher = {"name": "pimc", "worlds": DEFAULT_WORLDS, "max_worlds": DEFAULT_MAX_WORLDS, "inference": True,
                       "deviation": DEFAULT_DEVIATION, "candidates": DEFAULT_CANDIDATES, "score": "game",
                       "scale": "declared game lost 0, won 1"}
        elif self.teacher == "pimc_play_out":
            teacher = {"name": "pimc_play_out", "worlds": PLAY_OUT_WORLDS, "inference": True,
                       "candidates": PLAY_OUT_WORLDS * PLAY_OUT_CANDIDATES_PER_WORLD, "deviation": DEFAULT_DEVIATION,
                       "played_out_by": SHIPPED_MODEL.name, "solve_last": DEFAULT_SOLVE_LAST, "score": "game",
                       "scale": "declared game lost 0, won 1"}
        elif self.teacher == "rollout":
            teacher = {"name": "rollout", "players": "the profile's own", "schneider_weight": SCHNEIDER_WEIGHT}
            if self.solve_last:  # runs made before the setting keep resuming
                teacher["solve_last"] = self.solve_last
        else:
            teacher = {"name": "open_hand_game", "schneider_weight": SCHNEIDER_WEIGHT, "points": self.points}
        if self.roles != "all":  # runs made before the setting keep resuming
            teacher["roles"] = self.roles
        return with_card_play_models({"profile": self.profile, "profile_spec": self.spec, "teacher": teacher},
                                     card_play_models(self.profile, self.spec))


def default_folder(profile: str, seed: int, deals: int, teacher: str = "open_hand") -> Path:
    kind = "" if teacher == "open_hand" else f"-{teacher}"
    return Path("results") / f"decisions{kind}-{profile}-seed{seed}-{deals}"


def log_decisions(deals: int, seed: int = 0, profile: str = "default", settings=(), out=None,
                  jobs: int | None = None, chunk_size: int = 1000, progress=None, notice=None,
                  points: bool = True, teacher: str = "open_hand", solve_last: int = 0, roles: str = "all") -> Path:
    """Play ``deals`` deals with ``profile`` and write their card decisions, valued by ``teacher`` (one of
    TEACHERS: the open-hand value of the real deal, PIMC's from the seat's view, or the end of the real
    deal played out by the profile's card players, its last ``solve_last`` tricks valued open-handed), to a
    run folder; returns the folder. The same folder again resumes the run. Without ``points``, and with the
    ``pimc``, ``pimc_play_out`` and ``rollout`` teachers, the parts have no ``points`` column (the open-hand
    game values alone are about four times faster than with the points). ``roles`` (one of ROLES): whose
    decisions are kept, every seat's or one role's."""
    check_config(deals, seed, MODE, chunk_size)
    if teacher not in TEACHERS:
        raise RunError(f"teacher must be one of {', '.join(TEACHERS)}, not {teacher!r}")
    if not 0 <= solve_last <= MAX_SOLVE_LAST:
        raise RunError(f"solve_last must be 0 to {MAX_SOLVE_LAST} tricks, not {solve_last}")
    if solve_last and teacher != "rollout":
        raise RunError(f"solve_last is a setting of the rollout teacher, not of {teacher}")
    if roles not in ROLES:
        raise RunError(f"roles must be one of {', '.join(ROLES)}, not {roles!r}")
    points = points and teacher == "open_hand"
    loaded = load_profile(profile, list(settings))
    if any(s.card_play.builtin is None for s in loaded.seats):
        raise RunError("decisions are logged with skatsim's own card players only")
    play = DecisionDeals(loaded.name, loaded.spec, points, teacher, solve_last, roles)
    config = RunConfig(deals, seed, play.description(), MODE, chunk_size)
    folder = Path(out) if out is not None else default_folder(loaded.name, seed, deals, teacher)
    return run(play, config, folder, jobs, progress=progress, notice=notice)


def read_decisions(folders) -> dict:
    """The rows of decision runs, concatenated: ``deal_id`` (made distinct across runs of different
    seeds by the run's position in ``folders``), ``view``, ``legal``, ``values``, ``points`` as numpy
    arrays (``points`` NaN for a run without them: written with ``--no-points``, by a ``pimc`` or the
    ``rollout`` teacher or before the teacher kept them) and ``teacher``, each row's index in TEACHERS.
    Each array is made once at its full size from the parts' row counts and types, and filled a part at
    a time, so the reading holds one part beside the result."""
    runs = [_decision_parts(folder) for folder in folders]
    files = [file for _, file_list in runs for file in file_list]
    if not files:
        raise RunError("no decisions in " + ", ".join(map(str, folders)))
    columns, at = _empty_columns([pq.ParquetFile(file) for file in files]), 0
    for k, (teacher, file_list) in enumerate(runs):
        for file in file_list:
            table = pq.read_table(file)
            rows = slice(at, at + table.num_rows)
            columns["deal_id"][rows] = table["deal_id"].to_numpy() + k * 10**13
            columns["legal"][rows] = table["legal"].to_numpy()
            columns["teacher"][rows] = teacher
            if "points" not in table.column_names:
                columns["points"][rows] = np.nan
            for name in ("view", "values", "points"):
                if name in table.column_names:
                    flat = table[name].combine_chunks().flatten().to_numpy(zero_copy_only=False)
                    columns[name][rows] = flat.reshape(table.num_rows, -1)
            at = rows.stop
    return columns


def _decision_parts(folder) -> tuple[int, list[Path]]:
    """(the run's teacher, as an index in TEACHERS; its finished part files, in order)."""
    manifest = read_manifest(Path(folder))
    if manifest.mode != MODE:
        raise RunError(f"{folder} is a run of mode {manifest.mode}, not of card decisions "
                       "(make one with `skatsim decisions`)")
    name = manifest.config.get("teacher", {}).get("name")
    teacher = TEACHERS.index(name if name in TEACHERS else "open_hand")   # the open hand's is open_hand_game
    return teacher, [Path(folder) / part_name(index) for index in sorted(manifest.parts_done)]


def _empty_columns(parts: list) -> dict:
    """The arrays :func:`read_decisions` fills, at the parts' total row count, each of the type that holds
    every part's values (as concatenating them would give; ``points`` at least float32, its NaN)."""
    rows = sum(part.metadata.num_rows for part in parts)
    types = {"deal_id": [np.dtype(np.int64)], "legal": [], "view": [], "values": [], "points": [np.dtype(np.float32)]}
    widths = {"values": 32, "points": 32}
    for part in parts:
        for field in part.schema_arrow:
            if field.name in types:
                kind = field.type
                if hasattr(kind, "list_size"):
                    widths[field.name] = kind.list_size
                    kind = kind.value_type
                types[field.name].append(np.dtype(kind.to_pandas_dtype()))
    columns = {name: np.empty((rows, widths[name]) if name in widths else rows, dtype=np.result_type(*kinds))
               for name, kinds in types.items()}
    columns["teacher"] = np.empty(rows, dtype=np.int8)
    return columns
