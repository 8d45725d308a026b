"""Analysis of skatsim runs: polars over the Parquet parts of run folders.

One call makes the whole report::

    from analysis import analyze
    analyze(["results/run-a", "results/run-b"], "results/report")   # -> results/report/report.html

The same computations are importable one by one for notebooks; each returns
polars DataFrames (see docs/analysis.md):

- :func:`load_run` checks a run folder (:class:`AnalysisError` if it is not one);
- :func:`contract_success` win rates, scores and the passed-in rate;
- :func:`thresholds` score curves, break-even scores and "bid up to" tables;
- :func:`compare_evaluators` ROC AUC, Brier score, log loss and calibration per evaluator;
- :func:`compare_runs` paired differences between two runs of the same deals;
- :func:`match_result`, :func:`match_splits` the result of a duplicate match (``skatsim match``), and
  :func:`match_table` the table it prints;
- :func:`rank_tournament` the standings of a tournament's matches (``skatsim tournament``), and
  :func:`tournament_table` the table it prints;
- :func:`wilson`, :func:`auc`, :func:`break_even`, :func:`sf_at_bid` the statistics themselves.

Modules: :mod:`~analysis.runs` (run folders checked and scanned), :mod:`~analysis.games` (the
declared games of a run in one lazy frame), :mod:`~analysis.binning` (evaluator scores on a
grid), :mod:`~analysis.intervals` (95% intervals), :mod:`~analysis.contracts`,
:mod:`~analysis.mix`, :mod:`~analysis.thresholds`, :mod:`~analysis.evaluator_comparison`,
:mod:`~analysis.compare`, :mod:`~analysis.match`, :mod:`~analysis.tournament` (the tables),
:mod:`~analysis.registry` and :mod:`~analysis.catalogue` (every table registered by name),
:mod:`~analysis.tables` (every table of a set of runs), :mod:`~analysis.reading` and
:mod:`~analysis.counting` (the pass over a run's parts, here or on a Dask cluster),
:mod:`~analysis.resources`, :mod:`~analysis.formats`, :mod:`~analysis.plots`, :mod:`~analysis.page`,
:mod:`~analysis.summary`, :mod:`~analysis.sharing` (two processes sharing the slow parts) and
:mod:`~analysis.report` (the report), :mod:`~analysis.benchmark` (its speed).
"""

from .benchmark import bench_analyze, enlarge_run
from .compare import compare_runs
from .contracts import contract_success
from .evaluator_comparison import auc, compare_evaluators
from .intervals import wilson
from .match import match_result, match_splits, match_table
from .report import analyze
from .runs import AnalysisError, Run, load_run, load_runs
from .tables import all_tables, run_tables
from .thresholds import break_even, sf_at_bid, thresholds
from .tournament import Tournament, rank_tournament, tournament_table

__all__ = [
    "analyze", "AnalysisError", "Run", "load_run", "load_runs", "contract_success", "thresholds",
    "compare_evaluators", "compare_runs", "run_tables", "all_tables", "wilson", "auc", "break_even",
    "sf_at_bid", "bench_analyze", "enlarge_run", "match_result", "match_splits", "match_table", "rank_tournament",
    "tournament_table", "Tournament",
]
