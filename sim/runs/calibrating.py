"""A calibrated profile: fit the win, schneider and schwarz probabilities of
:mod:`strategies.calibration` on declare-mode runs and write a profile that bids and
declares by expected score (:mod:`strategies.expected`); ``skatsim calibrate`` calls it.

The runs must try every variant of every game (``skatsim simulate --mode declare
--variants all``), so that no auction or declarer's choice selects the rows. Deals whose
number ends in 0 or 5 are held out: the fit's Brier score and reliability are measured on
them. With ``rounds``, the new profile plays a fresh declare-mode run and the model is
fitted again, since the profile's own play may change the odds; the report says how far
the fit moved::

    from sim.runs.calibrating import calibrate
    from sim.runs.simulation import simulate
    run = simulate(100_000, seed=1, profile="threshold", mode="declare", variants="all", out="results/fit-run")
    for summary in calibrate([run], "my-calibrated.toml", rounds=1):   # one per fit
        print(summary["round"], summary["brier"])
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl

from sim.rules.shuffle import deal_batch
from sim.runs import RunError
from sim.runs.atomic import temporary_beside
from sim.runs.folder import part_name, read_manifest
from sim.runs.schema import game_id
from sim.runs.simulation import simulate
from sim.statistics import brier
from strategies.calibration import GROUPS, Logistic, Model, features, key, reliability
from strategies.profiles import build_profile

HELD_OUT = 5          # deals whose id is a multiple of this are held out of the fit
MOST_ROWS = 300_000   # rows a part of the model is fitted on at most (a fixed subsample)
COLUMNS = ["deal_id", "seat", "game", "hand", "ouvert", "discard", "won_in_play", "declarer_points",
           "declarer_tricks"]


def load_rows(folders) -> tuple[pl.DataFrame, dict]:
    """The rows of declare-mode runs with every variant, each with the declaring seat's ten cards
    as dealt and the skat; and the profile spec of the first run (its discarder and card play)."""
    frames, spec = [], None
    for folder in folders:
        manifest = read_manifest(Path(folder))
        config = manifest.config
        if config["mode"] != "declare" or config.get("variants") != "all":
            raise RunError(f"{folder} is not a declare-mode run of every variant (skatsim simulate --mode declare"
                           " --variants all)")
        if config.get("dealing"):
            raise RunError(f"{folder} deals only some deals ({config['dealing'].get('where') or 'fixed cards'}): a"
                           " bidder is fitted on runs dealt uniformly, whose rates hold for every deal")
        spec = spec or config["profile_spec"]
        damaged = manifest.damaged_parts(Path(folder))
        if damaged or not manifest.finished:
            raise RunError(f"{folder}: {next(iter(damaged.values()), 'the run is not finished')}")
        parts = [Path(folder) / part_name(index) for index in manifest.parts_done]
        rows = pl.read_parquet(parts, columns=COLUMNS).with_columns(game=game_id())
        dealt = deal_batch(config["seed"], 0, config["deals"])
        ids, seats = rows["deal_id"].to_numpy(), rows["seat"].to_numpy()
        frames.append(rows.with_columns(ten=pl.Series(dealt[ids, seats]), skat=pl.Series(dealt[ids, 3]),
                                        source=pl.lit(str(folder))))
    return pl.concat(frames), spec


def training_sets(rows: pl.DataFrame):
    """(model key, group, features, outcome, held out) for every part of the model."""
    games, hand, ouvert = rows["game"].to_numpy(), rows["hand"].to_numpy(), rows["ouvert"].to_numpy()
    ten, skat, discard = (rows[c].to_numpy().astype(np.uint32) for c in ("ten", "skat", "discard"))
    seats = rows["seat"].to_numpy()
    held = rows["deal_id"].to_numpy() % HELD_OUT == 0
    outcomes = {"win": rows["won_in_play"].to_numpy(), "schneider": rows["declarer_points"].to_numpy() >= 90,
                "schwarz": rows["declarer_tricks"].to_numpy() == 10}
    group_of = {"suit": games < 4, "grand": games == 4, "null": (games == 5) & ~ouvert,
                "null_ouvert": (games == 5) & ouvert}
    for group in GROUPS:
        for situation in ("pickup", "hand", "kept"):
            rows_here = group_of[group] & (hand if situation == "hand" else ~hand)
            picked = _subsample(np.flatnonzero(rows_here))
            cards = (ten | skat) & ~discard if situation == "kept" else ten
            x = features(cards[picked], seats[picked], group, games[picked] if group == "suit" else 3)
            for outcome, y in outcomes.items():
                if outcome != "win" and group.startswith("null"):
                    continue
                yield key(outcome, group, situation), group, x, y[picked].astype(float), held[picked]


def _subsample(index: np.ndarray) -> np.ndarray:
    if len(index) <= MOST_ROWS:
        return index
    return np.sort(np.random.default_rng(len(index)).choice(index, MOST_ROWS, replace=False))


def fit(rows: pl.DataFrame) -> tuple[Model, dict]:
    """The model fitted on the rows not held out, and each part's checks on those held out."""
    parts, checks = {}, {}
    for name, group, x, y, held in training_sets(rows):
        if len(np.unique(y[~held])) < 2:
            continue  # an outcome never seen (or always): nothing to fit
        part = Logistic.fit(group, x[~held], y[~held])
        parts[name] = part
        p = part.probability(x[held])
        checks[name] = {"rows": int((~held).sum()), "held_out": int(held.sum()), "rate": float(y[held].mean()),
                        "brier": brier(p, y[held]), "brier_of_the_rate": brier(np.full(held.sum(), y[held].mean()),
                                                                                y[held]),
                        "reliability": reliability(p, y[held])}
    return Model(parts), checks


def profile_dict(model: Model, spec: dict, *, margin: float, objective: float = 0.0, description: str) -> dict:
    """A profile of the expected-score bidder and declarer with ``model``, the discarder and card play
    of ``spec`` (the profile that made the runs); the model records that card player as the one its
    probabilities describe."""
    base = spec["forehand"]
    fitted = replace(model, card_play=dict(base["card_play"])).to_dict()
    return {"description": description,
            "bidder": {"name": "expected_score", "margin": margin, "objective": objective, "model": fitted},
            "discarder": dict(base["discarder"]),
            "declarer": {"name": "expected_score", "objective": objective, "model": fitted},
            "card_play": dict(base["card_play"])}


def toml_text(data: dict, prefix: str = "") -> str:
    """A profile as TOML: plain values first, then each section under its dotted ``[name]``."""
    plain = [f"{k} = {_toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    sections = [toml_text(v, f"{prefix}{k}.") for k, v in data.items() if isinstance(v, dict)]
    head = [f"[{prefix[:-1]}]"] if prefix and plain else []
    return "\n".join([*head, *plain, "", *sections]).strip("\n") + "\n"


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf" if value < 0 else "nan")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(value)


def calibrate(runs, out, *, rounds: int = 0, deals: int = 100_000, seed: int = 1, margin: float = 0.0,
              objective: float = 0.0, jobs: int | None = None, work=None, progress=None) -> list[dict]:
    """Fit a model on ``runs``, write the profile to ``out`` (bidding and declaring by ``objective``, see
    :data:`strategies.expected.OBJECTIVE`), and refit ``rounds`` times on fresh runs of the new profile,
    its card player included. Returns one summary per fit (Brier scores on held-out deals, the change since
    the fit before)."""
    out = Path(out)
    rows, spec = load_rows(runs)
    model, checks = fit(rows)
    summaries = [_summary(0, checks, before=None, after=model, rows=rows)]
    work = Path(work) if work else out.with_suffix("")
    for k in range(1, rounds + 1):
        _write(out, model, spec=spec, margin=margin, objective=objective, rounds=k - 1)
        folder = simulate(deals, seed=seed + k, profile=str(out), out=work / f"round-{k}", jobs=jobs,
                          mode="declare", variants="all", progress=progress)
        new_rows, _ = load_rows([folder])
        new_model, checks = fit(new_rows)
        summaries.append(_summary(k, checks, before=model, after=new_model, rows=new_rows))
        model = new_model
    _write(out, model, spec=spec, margin=margin, objective=objective, rounds=rounds)
    return summaries


def _write(out: Path, model: Model, *, spec: dict, margin: float, objective: float, rounds: int) -> None:
    """Write the profile atomically, once it is known to load."""
    description = (f"Calibrated: bids and declares by expected Seeger-Fabian score ({rounds} refit round(s));"
                   " discards and plays like the profile that made its runs.")
    text = toml_text(profile_dict(model, spec, margin=margin, objective=objective, description=description))
    build_profile(out.stem, tomllib.loads(text))
    with temporary_beside(out) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")


def _summary(round_: int, checks: dict, *, before: Model | None, after: Model, rows: pl.DataFrame) -> dict:
    """Brier scores of every fitted probability (win, schneider, schwarz) on the held-out deals beside
    that of the base rate, and how far the win probabilities moved since the fit before."""
    summary = {"round": round_, "rows": rows.height,
               "brier": {name: round(c["brier"], 4) for name, c in checks.items()},
               "brier_of_the_rate": {name: round(c["brier_of_the_rate"], 4) for name, c in checks.items()}}
    if before is not None:
        summary["largest_change"] = round(_largest_change(before, after, rows), 4)
    return summary


def _largest_change(before: Model, after: Model, rows: pl.DataFrame) -> float:
    """The largest mean absolute change of a win probability over the rows' own hands."""
    change = 0.0
    sample = rows.head(20_000)
    for name, _group, x, _, _ in training_sets(sample):
        if name.startswith("win_") and name in before.parts and name in after.parts and len(x):
            change = max(change, float(np.abs(before.parts[name].probability(x)
                                              - after.parts[name].probability(x)).mean()))
    return change

