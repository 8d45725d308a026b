"""The built-in tables of a report, registered by name (see :mod:`analysis.registry`).

Each registration says what the table is computed from, which runs it applies to, and its plots,
report part and summary lines. The order here is the order of the tables and of the summary;
the report sections come in the order they are registered below.
"""

from __future__ import annotations

from functools import partial

import polars as pl

from . import page, plots, summary
from .compare import comparisons
from .contracts import (
    CONTRACT_COUNT,
    by_bid,
    by_game,
    by_matadors,
    by_seat,
    by_variant,
    passed_in,
    passed_in_query,
)
from .evaluator_comparison import MEASURE_SCHEMAS, calibration, measures_by_group, rank, score_counts
from .formats import slug
from .match import match_result, match_splits
from .mix import deal_cube, game_ends, game_mix
from .pairs import DRAW_SCHEMA, against_best, measure_draws
from .registry import EVALUATOR_CUBES, RUN, RUNS, Evaluator, Section, Source, Table, register, register_section
from .thresholds import THRESHOLD_SCHEMAS, bid_table, break_even_shipped, curves, lead_split

#: The declared games counted per seat, game, declaration, bid and result (analysis.contracts).
CONTRACT_CUBE = Source("contract cube", cube=CONTRACT_COUNT)
#: Deals and passed-in deals of a game-mode run.
PASSED_IN = Source("passed-in counts", lambda run, frame: passed_in_query(run), sums=("deals", "passed"))
#: Deals per how they ended and game type (analysis.mix).
DEAL_ENDS = Source("deals by how they ended", lambda run, frame: deal_cube(run), sums=("n",))


# --- plots: (caption, drawing) of each plot of a table; the report draws them -----------------


def match_plots(report, folder):
    yield "Duplicate match", partial(plots.match_differences, report.tables["match_splits"], folder / "match.png")


def by_game_plots(report, folder):
    table = report.tables["contracts_by_game"]
    yield "Declarer win rate by game type", partial(
        plots.grouped_bars, table, "contract", "win_rate", folder / "win_rate_by_game.png",
        "Declarer win rate by game type (95% Wilson intervals)", "declarer win rate", percent=True)
    yield "Mean Seeger-Fabian score by game type", partial(
        plots.grouped_bars, table, "contract", "mean_sf", folder / "seeger_fabian_by_game.png",
        "Declarer's mean Seeger-Fabian score per game (95% intervals)", "Seeger-Fabian points per game")


def matador_plots(report, folder):
    yield "Win rate by matadors", partial(plots.by_matadors, report.tables["contracts_by_matadors"],
                                          folder / "win_rate_by_matadors.png")


def bid_plots(report, folder):
    yield "Bid success", partial(plots.bid_success, report.tables["bid_success"], folder / "bid_success.png")


def evaluator_plots(report, folder):
    yield "ROC AUC", partial(plots.evaluator_ranking, report.tables["evaluators"], folder / "evaluators_auc.png")


def pair_plots(report, folder):
    yield ("ROC AUC against the best, paired",
           partial(plots.pairs_against_best, report.tables["evaluator_pairs"], folder / "evaluator_pairs.png"))


def calibration_plots(report, folder):
    for run, part in report.tables["calibration"].group_by("run", maintain_order=True):
        path = folder / f"calibration_{slug(run[0])}.png"
        yield f"Calibration, run {run[0]}", partial(plots.calibration, part, run[0], path, min_rows=report.min_rows)


def threshold_plots(report, folder):
    table, even = report.tables["threshold_curves"], report.tables["break_even"]
    splits = {run.label: lead_split(run) for run in report.runs}
    for run, evaluator in table.select("run", "evaluator").unique(maintain_order=True).rows():
        pick = (pl.col("run") == run) & (pl.col("evaluator") == evaluator)
        path = folder / f"thresholds_{slug(run)}_{slug(evaluator)}.png"
        yield (f"{evaluator} thresholds, run {run}",
               partial(plots.threshold_curves, table.filter(pick), even.filter(pick), evaluator, run=run,
                       path=path, min_rows=report.min_rows, split=splits[run]))


def comparison_plots(report, folder):
    yield "Paired differences", partial(plots.comparison, report.tables["comparison"], folder / "comparison.png")


# --- evaluator tables: make(cube, evaluator) -----------------------------------------------


def threshold_curves(cube, evaluator: Evaluator):
    return curves(cube, evaluator.grid)


def break_even(cube, evaluator: Evaluator):
    return break_even_shipped(cube, min_rows=evaluator.min_rows, shipped=evaluator.shipped, objective="own")


def break_even_against_table(cube, evaluator: Evaluator):
    return break_even_shipped(cube, min_rows=evaluator.min_rows, shipped=evaluator.shipped, objective="table")


def bid_up_to(cube, evaluator: Evaluator):
    return bid_table(cube, evaluator.grid, min_rows=evaluator.min_rows)


def measured(cube, evaluator: Evaluator):
    return measures_by_group(score_counts(cube, evaluator.grid))


def calibrated(cube, evaluator: Evaluator):
    return calibration(score_counts(cube, evaluator.grid), evaluator.grid)


def pair_draws(cube, evaluator: Evaluator):
    return measure_draws(cube if evaluator.paired is None else evaluator.paired, evaluator.grid)


def measured_open_hand(cube, evaluator: Evaluator):
    return measures_by_group(score_counts(cube, evaluator.grid, "oh_won"))


# --- the registrations ---------------------------------------------------------------------

for name, intro in (("match", lambda report: [page.MATCH_INTRO]), ("contracts", page.contracts_intro),
                    ("bids", lambda report: [page.BIDS_INTRO]),
                    ("thresholds", lambda report: [page.THRESHOLDS_INTRO]),
                    ("evaluators", lambda report: [page.EVALUATORS_INTRO]),
                    ("comparison", lambda report: [page.COMPARISON_INTRO])):
    register_section(Section(name, intro))

for table in (
    Table("match", match_result, RUN, modes=("match",), section="match", html=page.match_html,
          summary=summary.match_part),
    Table("match_splits", match_splits, RUN, modes=("match",), plots=match_plots, section="match",
          html=page.match_splits_html),
    Table("passed_in", passed_in, PASSED_IN, modes=("game",), section="contracts", html=page.passed_in_html,
          summary=summary.passed_in_part),
    Table("game_mix", game_mix, DEAL_ENDS, modes=("game",), section="contracts", html=page.game_mix_html,
          summary=summary.mix_part),
    Table("game_ends", game_ends, DEAL_ENDS, modes=("game",), section="contracts", html=page.game_ends_html),
    Table("contracts_by_game", by_game, CONTRACT_CUBE, plots=by_game_plots, section="contracts",
          html=page.by_game_html, summary=summary.contracts_part),
    Table("contracts_by_variant", by_variant, CONTRACT_CUBE, section="contracts",
          html=page.by_variant_html),
    Table("contracts_by_seat", by_seat, CONTRACT_CUBE, section="contracts", html=page.by_seat_html),
    Table("contracts_by_matadors", by_matadors, CONTRACT_CUBE, plots=matador_plots, section="contracts",
          html=page.by_matadors_html),
    Table("bid_success", by_bid, CONTRACT_CUBE, modes=("game",), plots=bid_plots, section="bids",
          html=page.bid_success_html),
    # the summary gives the best evaluators before the break-even scores
    Table("evaluators", measured, EVALUATOR_CUBES, schema=MEASURE_SCHEMAS["evaluators"],
          finish=rank, plots=evaluator_plots, section="evaluators", html=page.evaluators_html,
          summary=summary.evaluators_part),
    Table("evaluator_pairs", pair_draws, EVALUATOR_CUBES, schema=DRAW_SCHEMA, finish=against_best,
          plots=pair_plots, section="evaluators", html=page.evaluator_pairs_html),
    Table("calibration", calibrated, EVALUATOR_CUBES, schema=MEASURE_SCHEMAS["calibration"],
          plots=calibration_plots),  # its plots are in the part of evaluators
    Table("evaluators_open_hand", measured_open_hand, EVALUATOR_CUBES, open_hand=True,
          schema=MEASURE_SCHEMAS["evaluators"], finish=rank, section="evaluators",
          html=page.evaluators_open_hand_html),
    Table("threshold_curves", threshold_curves, EVALUATOR_CUBES, schema=THRESHOLD_SCHEMAS["threshold_curves"],
          plots=threshold_plots),  # its plots are in the part of break_even
    Table("break_even", break_even, EVALUATOR_CUBES, schema=THRESHOLD_SCHEMAS["break_even"],
          section="thresholds", html=page.break_even_html, summary=summary.break_even_part),
    Table("break_even_table", break_even_against_table, EVALUATOR_CUBES,
          schema=THRESHOLD_SCHEMAS["break_even_table"]),  # shown beside break_even in its part
    Table("bid_up_to", bid_up_to, EVALUATOR_CUBES, schema=THRESHOLD_SCHEMAS["bid_up_to"],
          section="thresholds", html=page.bid_up_to_html),
    Table("comparison", comparisons, RUNS, plots=comparison_plots,
          section="comparison", html=page.comparison_html, summary=summary.comparison_part),
):
    register(table)
