"""Evaluators scored at analysis time: any evaluator on any run.

A run logs the scores of skatsim's own evaluators (``eval_<name>``). An evaluator the run did not
log is scored here, as the run would have logged it: each row's score is the evaluator's score of
the declarer's ten cards, from the declarer's seat, for the declared game (NaN where it does not
assess the game), in float32 (:func:`strategies.evaluators.row_scores`), so its tables are those of
a run that logged it, bit for bit. The hands are those a game-mode run logs (``hand_f``, ``hand_m``,
``hand_r``); a declare-mode run's deals are dealt again from its seed and their ids.

``skatsim analyze RUN --evaluator NAME`` asks for it: ``NAME`` is a registered evaluator (built in
or from an installed package), ``FILE.py:NAME`` or ``MODULE:NAME``. The scores are computed batch by
batch in the pass over the parts (:mod:`analysis.reading`), in bounded memory, on this machine or
on the workers of a Dask cluster (which import the file or module themselves); the score range
that sets the evaluator's grid (:mod:`analysis.binning`), which a logged column has in the parts'
statistics, comes from one pass before it (a declare-mode run: over its deals, not its rows).

This is the one place where analysis runs a strategy: it imports the evaluator registry and the
dealing of conditional runs, when a report asks for an evaluator the runs did not log.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from .runs import AnalysisError, Run, column_ranges

#: The logged hands of a game-mode run.
HANDS = ("hand_f", "hand_m", "hand_r")


def label(source: str) -> str:
    """The name a report gives an evaluator: ``NAME`` of ``FILE.py:NAME`` or ``MODULE:NAME``, else as given."""
    return source.rpartition(":")[2]


def evaluator_of(source: str):
    """The evaluator ``source`` names, with its parameters at their defaults; AnalysisError (one line) for
    one that cannot be found or loaded."""
    from strategies.registry import StrategyError, build

    try:
        return build("evaluator", source)
    except StrategyError as error:
        raise AnalysisError(str(error)) from None


def with_scored(runs: list[Run], wanted: list[str] | None) -> list[Run]:
    """The runs with each of ``wanted`` that a run did not log to be scored at analysis time (by its
    label, with the thresholds it comes with); the others as they are."""
    if not wanted:
        return runs
    sources = {label(source): source for source in dict.fromkeys(wanted)}
    if len(sources) < len(dict.fromkeys(wanted)):
        raise AnalysisError(f"two evaluators asked for share a name: {', '.join(wanted)}")
    records = {}
    out = []
    for run in runs:
        missing = [name for name in sources if name not in run.logged_scores]
        clash = [source for name, source in sources.items() if source != name and name not in missing]
        if clash:
            raise AnalysisError(f"evaluator {clash[0]!r} is named like one {run.folder} logged: give the"
                                " function another name")
        for name in missing:
            if name not in records:
                records[name] = {"source": sources[name], "thresholds": _thresholds(sources[name])}
        out.append(replace(run, scored={name: records[name] for name in missing}))
    return out


def _thresholds(source: str) -> dict[str, float]:
    """The thresholds the evaluator ``source`` comes with, by game, as a run's manifest records a logged one's."""
    from strategies.evaluators import thresholds_by_game

    return thresholds_by_game(evaluator_of(source))


@dataclass(frozen=True)
class Scores:
    """Scores one evaluator's rows of a batch (a polars function of the struct of ``deal_id``, ``seat``,
    ``game`` and, where the run logged them, ``hand_f``, ``hand_m``, ``hand_r``). A declare-mode run logs
    no hands: its deals are dealt again, each a pure function of the run's seed and the deal's id (and
    of the fixed cards and condition a conditional run was dealt with: ``dealing``, its manifest's
    record). Plain data, so that it travels to Dask workers; the evaluator is built where it is called."""

    source: str
    seed: int
    dealing: dict | None = None

    def __call__(self, rows: pl.Series) -> pl.Series:
        from strategies.evaluators import row_scores

        frame = rows.struct.unnest()
        deal_ids = frame["deal_id"].to_numpy()
        values = row_scores(evaluator_of(self.source), deal_ids, self._hands(frame, deal_ids),
                            frame["seat"].to_numpy(), frame["game"].to_numpy())
        return pl.Series(rows.name, values, dtype=pl.Float32)

    def _hands(self, frame: pl.DataFrame, deal_ids: np.ndarray) -> np.ndarray:
        """The three hands of each row's deal, (rows, 3)."""
        if "hand_f" in frame.columns:
            return np.column_stack([frame[column].to_numpy() for column in HANDS])
        if not len(deal_ids):
            return np.zeros((0, 3), dtype=np.uint32)
        from sim.runs.conditional import asked_of, dealt

        first = int(deal_ids.min())
        deals, _ = dealt(asked_of({"dealing": self.dealing}), self.seed, first, int(deal_ids.max()) - first + 1)
        return deals[deal_ids - first, :3]


def scored_score(run: Run, source: str) -> pl.Expr:
    """The score of each row of the run's frame of declared games by the evaluator ``source`` (null where
    it does not assess the row's game, as a logged score reads)."""
    hands = list(HANDS) if run.mode != "declare" else []
    scores = Scores(source, run.seed, run.config.get("dealing") if run.mode == "declare" else None)
    score = pl.struct("deal_id", *hands, "seat", "game").map_batches(scores, return_dtype=pl.Float32,
                                                                     is_elementwise=True)
    return pl.when(score.is_not_nan()).then(score)


def scored_ranges(run: Run, frame: pl.LazyFrame) -> dict[str, tuple[float, float]]:
    """(lowest, highest) score of each evaluator the run scores at analysis time, over all its games:
    over the rows of ``frame`` (its frame of declared games with their ``eval_`` columns), or, in declare
    mode, where every seat of every deal declares every game, over the deals (:func:`dealt_range`)."""
    if not run.scored:
        return {}
    if run.mode == "declare":
        return {name: dealt_range(run, record["source"]) for name, record in run.scored.items()}
    columns = [f"eval_{name}" for name in run.scored]
    found = frame.select(*(pl.col(c).min().alias(f"{c}.min") for c in columns),
                         *(pl.col(c).max().alias(f"{c}.max") for c in columns)).collect(engine="streaming")
    return {name: (_number(found[f"{c}.min"][0]), _number(found[f"{c}.max"][0]))
            for name, c in zip(run.scored, columns)}


#: Deals dealt and scored at a time for a declare-mode run's score range.
RANGE_DEALS = 200_000


def dealt_range(run: Run, source: str) -> tuple[float, float]:
    """(lowest, highest) float32 score the evaluator ``source`` gives any seat of the declare-mode run's deals
    for any game it assesses: the range of the scores the run's rows would log. A declare-mode part holds
    every deal from its first to its last (read from the Parquet statistics), which are dealt again."""
    from sim.runs.conditional import asked_of, dealt

    evaluate, asked = evaluator_of(source), asked_of({"dealing": run.config.get("dealing")})
    low, high = math.inf, -math.inf
    for first, last in _deal_ranges(run):
        for start in range(first, last + 1, RANGE_DEALS):
            deals, _ = dealt(asked, run.seed, start, min(RANGE_DEALS, last + 1 - start))
            for seat in range(3):
                scores = evaluate(deals[:, seat], np.full(len(deals), seat)).astype(np.float32)
                scores = scores[np.isfinite(scores)]
                if scores.size:
                    low, high = min(low, float(scores.min())), max(high, float(scores.max()))
    return (low, high) if low <= high else (math.nan, math.nan)


def _deal_ranges(run: Run) -> list[tuple[int, int]]:
    """The first and last deal of each of the run's parts, from the Parquet statistics."""
    return [tuple(int(end) for end in column_ranges(part, ["deal_id"])["deal_id"]) for part in run.parts]


def _number(value) -> float:
    return math.nan if value is None else float(value)
