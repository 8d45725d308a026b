"""The declared games of a run as one lazy frame with the same columns in both modes.

Game mode (one row per deal) keeps the deals that were played; declare mode (one
row per deal, seat and game, every game declared at bid 18) keeps every row.
Either way each row is one game, with:

    deal_id       the deal it was played on
    seat          the declarer (0 forehand, 1 middlehand, 2 rearhand)
    game          game type id (0 diamonds, 1 hearts, 2 spades, 3 clubs, 4 grand, 5 null)
    bid           the final bid (18 in declare mode)
    sf            the declarer's Seeger-Fabian score; ``score`` is the classic one
    sf_table      the declarer's Seeger-Fabian score minus the mean of the two defenders'
                  (who get 40 each when the declarer loses): the declarer's result against
                  the table, the yardstick of a duplicate match (see :mod:`analysis.thresholds`)
    value_reached the game value the play reached, before the overbid rule (as logged)
    won_in_play   won by the cards, before the overbid rule (as logged)
    eval_<name>   each logged evaluator's score of the declarer's ten cards for this game
                  (the run's ``eval_<name>`` column; which evaluators a run logged, its
                  manifest says)
    oh_won        the game won with best play on both sides, every hand seen (a run made
                  with ``--open-hand``; null in other runs)
    contested     a defender's own bid limit reached the final bid: two hands were worth
                  the same value, and the declarer kept the game at it (game and match
                  mode; null in declare mode, which has no auction, and in an archive
                  without bid plans)

plus the declaration and result columns of the schema (hand, ouvert, matadors, ...).
``value_reached`` and ``won_in_play`` let analysis replay a game at another bid. A
declare-mode frame also has ``deal_group`` (:mod:`analysis.deal_groups`): its intervals
resample whole deals, since the rows of one deal share its cards.
"""

from __future__ import annotations

import polars as pl

from sim.rules.cards import SEAT_NAMES
from sim.runs.schema import evaluator_column, game_id

from .deal_groups import deal_group
from .runs import BIDDER_SCORE, Run
from .scoring import scored_score

SEATS = SEAT_NAMES

RESULT_COLUMNS = ("hand", "ouvert", "schneider_announced", "schwarz_announced", "matadors", "won",
                  "schneider", "schwarz", "overbid", "game_value", "score")


def evaluator_columns(run: Run) -> dict[str, str]:
    """Evaluator name -> the column of the declarer's score for the declared game, for every
    evaluator the run's manifest says it logged (declare mode: the bidder's own score first)."""
    found = {BIDDER_SCORE: "evaluator_score"} if run.mode == "declare" else {}
    found.update({name: evaluator_column(name) for name in run.logged_evaluators})
    return found


def declared_score(column: str) -> pl.Expr:
    """The declarer's score for the declared game; NaN (a game not assessed) becomes null."""
    score = pl.col(column).cast(pl.Float32)
    return pl.when(score.is_finite()).then(score)


def games(run: Run, evaluators: list[str] | None = None) -> pl.LazyFrame:
    """The run's declared games with the columns above; ``evaluators`` limits the eval_ columns (None: all).

    Build every aggregation of a run from one such frame: polars then computes it once.
    """
    scan = run.scan()
    found = evaluator_columns(run)
    wanted = found if evaluators is None else {e: found[e] for e in evaluators if e in found}
    if run.mode == "declare":
        frame = scan.with_columns(pl.col("seat").cast(pl.Int8), sf=seat_sf("seat"))
    else:
        frame = scan.filter(~pl.col("passed"), *decided(run)).rename({"declarer": "seat"}).with_columns(
            sf=seat_sf("seat"))
    frame = frame.with_columns(game=game_id())
    scores = [declared_score(column).alias(f"eval_{name}") for name, column in wanted.items()]
    scores += [scored_score(run, record["source"]).alias(f"eval_{name}") for name, record in run.scored.items()
               if evaluators is None or name in evaluators]
    open_hand = pl.col("oh_won") if run.open_hand else pl.lit(None, pl.Boolean).alias("oh_won")
    groups = [deal_group()] if run.mode == "declare" else []
    rival = pl.lit(None, pl.Boolean).alias("contested") if run.mode == "declare" else contested()
    return frame.select("deal_id", "seat", "game", "bid", *RESULT_COLUMNS, "sf", table_sf(),
                        pl.col("value_reached").cast(pl.Int32), "won_in_play", open_hand, rival, *scores, *groups)


def contested() -> pl.Expr:
    """``contested``: the highest bid limit of the two defenders (columns ``max_bid_f`` ...) is at
    least the final bid; null where the limits are not known."""
    limits = [pl.when(pl.col("seat") != seat).then(pl.col(f"max_bid_{suffix}"))
              for seat, suffix in enumerate("fmr")]
    return (pl.max_horizontal(*limits) >= pl.col("bid")).alias("contested")


def table_sf() -> pl.Expr:
    """``sf_table``: the declarer's Seeger-Fabian score minus the mean of the two defenders' (frame of
    :func:`games`, with ``sf`` and the three seats' ``sf_f``, ``sf_m``, ``sf_r``)."""
    every = pl.col("sf_f").cast(pl.Float64) + pl.col("sf_m") + pl.col("sf_r")
    return (pl.col("sf") - (every - pl.col("sf")) / 2).alias("sf_table")


#: How an imported game may have ended and still count as a contract played: played out (a null
#: game ended by the declarer's trick included), resigned or claimed (the outcome conceded by one
#: side). Games a time-out or a player leaving ended are scored by the server's penalty rules, not
#: by the cards, and count only in the table of how the deals ended.
COUNTED_ENDS = ("played", "resigned", "claimed")
#: An imported record of a time-out or a player leaving before the card play: neither a game nor a
#: passed-in deal, it counts only in the table of how the deals ended.
NO_DEAL = "penalty"


def decided(run: Run) -> list[pl.Expr]:
    """Filters keeping the games whose outcome the play decided (an imported run: COUNTED_ENDS, with
    an outcome); none for a simulation, whose games are all played out."""
    if not run.imported:
        return []
    return [pl.col("ended").cast(pl.String).is_in(COUNTED_ENDS), pl.col("won").is_not_null()]


def ended(run: Run) -> pl.Expr:
    """How each deal ended: the ``ended`` column of an imported run; ``passed`` or ``played`` otherwise."""
    if run.imported:
        return pl.col("ended").cast(pl.String)
    return pl.when(pl.col("passed")).then(pl.lit("passed")).otherwise(pl.lit("played"))


def seat_sf(seat: str, suffix: str = "") -> pl.Expr:
    """The Seeger-Fabian score of the seat named in column ``seat`` (columns ``sf_f<suffix>`` ...)."""
    s = pl.col(seat)
    return (pl.when(s == 0).then(pl.col(f"sf_f{suffix}")).when(s == 1).then(pl.col(f"sf_m{suffix}"))
            .otherwise(pl.col(f"sf_r{suffix}")))


def deals(run: Run) -> pl.LazyFrame:
    """Game mode: one row per deal with whether it was passed in (match mode: one per play). An
    imported run's penalty records (no game was played: see :data:`NO_DEAL`) are not deals here."""
    scan = run.scan()
    if run.imported:
        scan = scan.filter(pl.col("ended").cast(pl.String) != NO_DEAL)
    return scan.select("deal_id", "passed")
