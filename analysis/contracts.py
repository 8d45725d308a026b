"""Contract success: how often each game, variant, seat, matador count and bid wins, and what it scores.

One lazy query per run aggregates the declared games into a small "contract
cube" (one row per distinct combination of seat, game, declaration, bid and
result, with its count ``n``); every table here is a cheap aggregation of that
cube. Rates carry Wilson intervals, mean scores a normal or bootstrap interval
(see :mod:`analysis.intervals`). The cube of a declare-mode run is also split by deal
group, and its intervals resample whole deals (:mod:`analysis.deal_groups`): a deal gives
18 rows (42 with every variant) that share its cards.
"""

from __future__ import annotations

import polars as pl

from sim.rules.games import GAME_NAMES, GRAND, NULL

from .counting import Cube
from .deal_groups import add_deal_rates, by_deals, deal_mean_table
from .games import SEATS, deals
from .intervals import add_rate, mean_table
from .reading import count_run
from .runs import Run

CUBE_KEYS = ["seat", "game", "bid", "hand", "ouvert", "schneider_announced", "schwarz_announced",
             "matadors", "won", "schneider", "schwarz", "overbid", "game_value", "score", "sf", "oh_won", "contested"]
SUIT_GAMES = "suit games"
ALL_GAMES = "all games"


#: What the contract cube counts: the games per :data:`CUBE_KEYS` (and deal group in declare mode).
CONTRACT_COUNT = Cube(tuple(CUBE_KEYS))


def contract_cube(frame: pl.LazyFrame) -> pl.LazyFrame:
    """Counts ``n`` of the games of a :func:`analysis.games.games` frame per :data:`CUBE_KEYS` (lazy),
    and per deal group in declare mode."""
    return CONTRACT_COUNT.lazy(frame)


def passed_in_query(run: Run) -> pl.LazyFrame:
    """Game and match mode: deals and passed-in deals of the run (lazy; in a match every play of a
    deal counts)."""
    return deals(run).select(deals=pl.len(), passed=pl.col("passed").sum())


def game_label() -> pl.Expr:
    return pl.col("game").replace_strict(list(range(6)), list(GAME_NAMES), return_dtype=pl.String)


def variant_label() -> pl.Expr:
    """The declaration's name: ``clubs hand schneider announced``, ``grand ouvert hand``, ``null ouvert``."""
    def word(flag, text):
        return pl.when(flag).then(pl.lit(text)).otherwise(pl.lit(""))

    open_ = pl.col("ouvert")
    return pl.concat_str(game_label(), word(open_, " ouvert"), word(pl.col("hand"), " hand"),
                         word(pl.col("schwarz_announced") & ~open_, " schwarz announced"),
                         word(pl.col("schneider_announced") & ~pl.col("schwarz_announced") & ~open_,
                              " schneider announced"))


def success_table(cube: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Per group of ``keys``: games, win / schneider / schwarz / overbid rates with Wilson
    intervals, mean game value, and mean classic and Seeger-Fabian score of the declarer;
    and, of the games solved open-handed (``oh_games``, 0 in a run without), the open-hand
    win rate ``oh_win_rate``."""
    n = pl.col("n")
    counts = cube.group_by(keys).agg(
        games=n.sum(), won=(n * pl.col("won")).sum(), schneider_count=(n * pl.col("schneider")).sum(),
        schwarz_count=(n * pl.col("schwarz")).sum(), overbid_count=(n * pl.col("overbid")).sum(),
        mean_value=(n * pl.col("game_value")).sum() / n.sum(),
        oh_games=(n * pl.col("oh_won").is_not_null()).sum(), oh_won=(n * pl.col("oh_won").fill_null(False)).sum(),
        auctions=(n * pl.col("contested").is_not_null()).sum(),
        contested_count=(n * pl.col("contested").fill_null(False)).sum(),
    ).sort(keys)
    for count, total, name in RATES:
        counts = add_rate(counts, count, total, name)
    if by_deals(cube):
        counts = add_deal_rates(counts, cube, keys, rates=deal_rates())
    for value, name in (("score", "mean_score"), ("sf", "mean_sf")):
        means = (deal_mean_table(cube, keys, pl.col(value), count=n, name=name) if by_deals(cube)
                 else mean_table(cube, keys, value, name=name))
        counts = counts.join(means, on=keys, how="left", nulls_equal=True)
    return counts


#: (count, total, name) of each rate of a contract table.
RATES = (("won", "games", "win_rate"), ("schneider_count", "games", "schneider_rate"),
         ("schwarz_count", "games", "schwarz_rate"), ("overbid_count", "games", "overbid_rate"),
         ("oh_won", "oh_games", "oh_win_rate"), ("contested_count", "auctions", "contested_rate"))


def deal_rates() -> dict[str, tuple[pl.Expr, pl.Expr]]:
    """Each rate of :data:`RATES` as (count, total) over the cube's rows, for resampling deals."""
    n, solved = pl.col("n"), pl.col("oh_won").is_not_null()
    rates = {name: (n * pl.col(flag), n) for flag, name in (("won", "win_rate"), ("schneider", "schneider_rate"),
                                                             ("schwarz", "schwarz_rate"), ("overbid", "overbid_rate"))}
    rates["oh_win_rate"] = (n * pl.col("oh_won").fill_null(False), n * solved)
    rates["contested_rate"] = (n * pl.col("contested").fill_null(False), n * pl.col("contested").is_not_null())
    return rates


def _pooled(cube: pl.DataFrame, column: str, label: pl.Expr, *, pools: dict[str, pl.Expr]) -> pl.DataFrame:
    """``cube`` labelled per row by ``label``, plus copies labelled by each pool name for its rows."""
    parts = [cube.with_columns(label.alias(column))]
    parts += [cube.filter(where).with_columns(pl.lit(name).alias(column)) for name, where in pools.items()]
    return pl.concat(parts)


SUIT = pl.col("game") < GRAND
POOLS = {SUIT_GAMES: SUIT, ALL_GAMES: pl.lit(True)}


def by_game(cube: pl.DataFrame) -> pl.DataFrame:
    """Each game type, the suit games together, and all games."""
    table = success_table(_pooled(cube, "contract", game_label(), pools=POOLS), ["contract"])
    return _in_order(table, "contract", [*GAME_NAMES, SUIT_GAMES, ALL_GAMES])


def by_variant(cube: pl.DataFrame) -> pl.DataFrame:
    """Each declaration (``spades hand``, ``null ouvert hand`` ...), and the hand and ouvert
    suit and grand games together."""
    not_null = pl.col("game") != NULL
    pools = {"hand games (suit, grand)": not_null & pl.col("hand"),
             "ouvert games (suit, grand)": not_null & pl.col("ouvert")}
    table = success_table(_pooled(cube, "contract", variant_label(), pools=pools), ["contract"])
    order = pl.col("contract").str.contains(r"\(").cast(pl.Int8)
    return table.sort(order, pl.col("contract"))


def by_seat(cube: pl.DataFrame) -> pl.DataFrame:
    """Each game type (and all games) by the declarer's seat."""
    seat = pl.col("seat").replace_strict([0, 1, 2], list(SEATS), return_dtype=pl.String)
    pooled = _pooled(cube, "contract", game_label(), pools={ALL_GAMES: pl.lit(True)})
    table = success_table(pooled.with_columns(declarer=seat), ["contract", "declarer"])
    return _in_order(table, "contract", [*GAME_NAMES, ALL_GAMES])


def by_matadors(cube: pl.DataFrame) -> pl.DataFrame:
    """Suit games (each and together) and grand by signed matadors (+2 "with 2", -3 "without 3")."""
    trumps = cube.filter(pl.col("game") != NULL)
    pooled = _pooled(trumps, "contract", game_label(), pools={SUIT_GAMES: SUIT})
    table = success_table(pooled, ["contract", "matadors"])
    return _in_order(table, "contract", [*GAME_NAMES, SUIT_GAMES])


def by_bid(cube: pl.DataFrame) -> pl.DataFrame:
    """Bid success: the declarer's win and overbid rates by final bid, all games and by group."""
    group = (pl.when(pl.col("game") < GRAND).then(pl.lit(SUIT_GAMES))
             .otherwise(game_label()))
    table = success_table(_pooled(cube, "contract", group, pools={ALL_GAMES: pl.lit(True)}), ["contract", "bid"])
    return _in_order(table, "contract", [ALL_GAMES, SUIT_GAMES, "grand", "null"])


def passed_in(counts: pl.DataFrame) -> pl.DataFrame:
    """The passed-in rate from :func:`passed_in_query`'s counts, with its Wilson interval."""
    return add_rate(counts.cast({"deals": pl.Int64, "passed": pl.Int64}), "passed", "deals", "passed_rate")


def _in_order(table: pl.DataFrame, column: str, order: list[str]) -> pl.DataFrame:
    rank = pl.col(column).replace_strict(order, list(range(len(order))), default=len(order))
    others = [c for c in ("declarer", "matadors", "bid") if c in table.columns]
    return table.sort(rank, *others)


TABLES = {"contracts_by_game": by_game, "contracts_by_variant": by_variant,
          "contracts_by_seat": by_seat, "contracts_by_matadors": by_matadors, "bid_success": by_bid}


def contract_tables(cube: pl.DataFrame, mode: str = "game") -> dict[str, pl.DataFrame]:
    """Every contract table of a collected cube (no bid success in declare mode, which bids 18)."""
    return {name: make(cube) for name, make in TABLES.items() if mode != "declare" or name != "bid_success"}


def contract_success(run: Run) -> dict[str, pl.DataFrame]:
    """All contract tables of a run, and its passed-in rate in game mode (one scan each)."""
    tables = contract_tables(count_run(run, [], [CONTRACT_COUNT])[0], run.mode)
    if run.mode != "declare":
        tables["passed_in"] = passed_in(passed_in_query(run).collect())
    return tables
