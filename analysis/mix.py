"""Game mix and how the deals ended: what the players declare, and how their deals end.

Both tables of a game-mode run come from one small cube, the count of deals per (how the
deal ended, game type):

- ``game_mix``: each game type's share of the games declared (every declared game, however it
  ended; a penalty record, where no game was played, is none), with its Wilson interval;
- ``game_ends``: the share of the deals that were played out, passed in, resigned, claimed, or
  ended by a time-out or a player leaving, or penalty records (a time-out or a player leaving
  before the card play: no game); the last five only in runs imported from archives;
  and whether such games count in contract success (see :data:`analysis.games.COUNTED_ENDS`).
"""

from __future__ import annotations

import polars as pl

from sim.rules.games import GAME_NAMES
from sim.rules.records import ENDINGS

from .games import COUNTED_ENDS, NO_DEAL, ended, game_id
from .intervals import add_rate
from .runs import Run

ALL_GAMES = "all games"
MIX_SCHEMA = {"game": pl.String, "games": pl.Int64, "declared": pl.Int64, "share": pl.Float64,
              "share_lo": pl.Float64, "share_hi": pl.Float64}
ENDS_SCHEMA = {"ended": pl.String, "deals": pl.Int64, "all_deals": pl.Int64, "share": pl.Float64,
               "share_lo": pl.Float64, "share_hi": pl.Float64, "counted_in_contract_success": pl.Boolean}


def deal_cube(run: Run) -> pl.LazyFrame:
    """Deals per (how the deal ended, game type id or null) of a game-mode run (lazy)."""
    how = "ended" if run.imported else "passed"  # labelled after counting: no string a deal
    return (run.scan().select(how, game=game_id()).group_by(how, "game").agg(n=pl.len().cast(pl.Int64))
            .select(ended=ended(run), game="game", n="n"))


def game_mix(cube: pl.DataFrame) -> pl.DataFrame:
    """Each game type's share of the declared games."""
    declared = cube.filter(~pl.col("ended").is_in(["passed", NO_DEAL]))
    total = int(declared["n"].sum())
    counts = declared.group_by("game").agg(games=pl.col("n").sum())
    table = pl.DataFrame({"game": list(range(len(GAME_NAMES)))}, schema={"game": counts.schema["game"]})
    table = (table.join(counts, on="game", how="left").with_columns(pl.col("games").fill_null(0).cast(pl.Int64))
             .with_columns(game=pl.col("game").replace_strict(list(range(6)), list(GAME_NAMES),
                                                               return_dtype=pl.String),
                           declared=pl.lit(total, dtype=pl.Int64)))
    return add_rate(table, "games", "declared", "share").select(list(MIX_SCHEMA))


def game_ends(cube: pl.DataFrame) -> pl.DataFrame:
    """The share of the deals ending each way, in the order of sim.rules.records.ENDINGS."""
    total = int(cube["n"].sum())
    counts = cube.group_by("ended").agg(deals=pl.col("n").sum())
    table = (pl.DataFrame({"ended": list(ENDINGS)}).join(counts, on="ended", how="left")
             .with_columns(pl.col("deals").fill_null(0).cast(pl.Int64), all_deals=pl.lit(total, dtype=pl.Int64),
                           counted_in_contract_success=pl.col("ended").is_in(COUNTED_ENDS)))
    return add_rate(table, "deals", "all_deals", "share").select(list(ENDS_SCHEMA))
