"""One deal as a person reads it: hands, auction, skat, declaration, each trick, the result
(in a declare-mode run: the hands and the eighteen games, one line each).

The game is regenerated from the run's seed, dealing and profile (every deal is a
pure function of its id) and checked against the logged row, so ``show`` works
whether or not the run logged its tricks. A conditional run's deal says how the run
was dealt (its fixed cards and condition).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from sim.rules.auction import max_bid_answers, run_auction
from sim.rules.cards import SEAT_NAMES, format_card, format_hand
from sim.rules.dealing import dealing_text
from sim.rules.games import GAME_NAMES, Declaration
from sim.rules.tricks import CardPlay
from sim.runs import RunError
from sim.runs.conditional import asked_of, dealt
from sim.runs.folder import check_part, part_name, read_manifest
from sim.runs.modes import play_of
from sim.runs.schema import SEATINGS, SIMULATION
from strategies.profiles import build_profile
from strategies.whole_deals import declare_every_game, play_deals

SEAT_LETTERS = "FMR"
#: Logged columns a regenerated deal must match.
CHECKED = ("declarer_points", "score", "bid")


def show_deal(folder: str | Path, deal_id: int) -> str:
    """The text of deal ``deal_id`` of the run in ``folder``."""
    manifest = read_manifest(Path(folder))
    config = manifest.config
    if config.get("source", SIMULATION) != SIMULATION:
        return _imported_deal(Path(folder), manifest, deal_id)
    if not 0 <= deal_id < config["deals"]:
        raise RunError(f"deal {deal_id} is not in this run (deals 0 to {config['deals'] - 1})")
    head = f"Deal {deal_id} of {folder} (seed {config['seed']}, profile {config.get('profile')})"
    dealing = dealing_text(config.get("dealing"), manifest.acceptance())
    if dealing:
        head += f"\nDealt only  {dealing}"
    if config["mode"] == "match":
        return "\n".join([head, *_match_mode(Path(folder), manifest, deal_id)])
    profile = build_profile(config["profile"], config["profile_spec"])
    deals = dealt(asked_of(config), config["seed"], deal_id, 1)[0]
    if config["mode"] == "declare":
        return "\n".join([head, *_declare_mode(profile, config["seed"], deal_id, deals)])
    columns = play_deals(profile, seed=config["seed"], start=deal_id, count=1, log_tricks=True, deals=deals)
    _check_against_log(Path(folder), manifest, columns)
    row = {k: v[0] for k, v in columns.items()}
    return "\n".join([head, *_hands(row), *_auction(row), *_play(row)])


def _match_mode(folder: Path, manifest, deal_id: int) -> list[str]:
    """The deal's hands and its six plays in a duplicate match, one line each."""
    play, _ = play_of(folder)
    plays = play(manifest.config["seed"], deal_id, 1)
    _check_against_log(folder, manifest, plays)
    lines = [*_hands({k: v[0] for k, v in plays.items()}), "Six plays (A and B as the seats are taken):"]
    for k in range(len(plays["seating"])):
        row = {name: column[k] for name, column in plays.items()}
        seat, alone = SEATINGS[int(row["seating"])]
        sides = "".join(alone.upper() if s == seat else ("b" if alone == "a" else "a").upper() for s in range(3))
        if row["passed"]:
            lines.append(f"  {sides}  passed in")
            continue
        decl = Declaration(int(row["game"]), bool(row["hand"]), bool(row["schneider_announced"]),
                           bool(row["schwarz_announced"]), bool(row["ouvert"]))
        outcome = "won" if row["won"] else "lost"
        sf = " / ".join(f"{int(row[k]):+d}" for k in ("sf_f", "sf_m", "sf_r"))
        lines.append(f"  {sides}  {SEAT_NAMES[int(row['declarer'])]:<11} {decl.name:<24} at {int(row['bid']):>3}:"
                     f" {int(row['declarer_points']):>3} points, {outcome}; Seeger-Fabian F/M/R {sf}")
    return lines


def _declare_mode(profile, seed: int, deal_id: int, deals: np.ndarray) -> list[str]:
    """The deal's hands (``deals``: its one row) and the eighteen games of a declare-mode run, one line each."""
    games = declare_every_game(profile, seed=seed, start=deal_id, count=1, deals=deals)
    hands = dict(zip(("hand_f", "hand_m", "hand_r", "skat"), (int(x) for x in deals[0])))
    lines = [*_hands(hands), "Every seat declares every game at bid 18:"]
    for k in range(len(games["seat"])):
        row = {name: column[k] for name, column in games.items()}
        decl = Declaration(int(row["game"]), bool(row["hand"]), bool(row["schneider_announced"]),
                           bool(row["schwarz_announced"]), bool(row["ouvert"]))
        skat = "hand" if row["hand"] else f"discards {format_hand(row['discard'], True)}"
        outcome = "won" if row["won"] else "lost"
        lines.append(f"  {SEAT_NAMES[row['seat']]:<11} {decl.name:<28} {skat:<18}"
                     f" {int(row['declarer_points']):>3} points, {trick_count(row['declarer_tricks'], 2)}:"
                     f" {outcome}, value {int(row['game_value'])}, score {int(row['score']):+d}")
    return lines


def _check_against_log(folder: Path, manifest, columns: dict) -> None:
    """The rows of a deal played again (one, or six in a match) must be the logged ones."""
    deal_id = int(columns["deal_id"][0])
    index = deal_id // manifest.config["chunk_size"]
    facts = manifest.parts.get(str(index))
    if facts is None:
        return  # not played yet: the regenerated deal is all there is
    problem = check_part(folder, index, facts)
    try:
        logged = None if problem else (pl.scan_parquet(folder / part_name(index))
                                       .filter(pl.col("deal_id") == deal_id).select(CHECKED).collect())
    except (pl.exceptions.PolarsError, OSError):
        problem = check_part(folder, index, facts, deep=True) or f"{part_name(index)} cannot be read"
    if problem:
        raise RunError(f"{folder}: {problem}; run `skatsim verify {folder} --repair` to make it again")
    for name in CHECKED:
        again = [int(v) for v in columns[name]]
        if logged.height and logged[name].to_list() != again:
            raise RunError(f"deal {deal_id}: the log says {name} {logged[name].to_list()}, playing it again"
                           f" {again}; the run was made by a different version of skatsim")


def trick_count(count, width: int = 0) -> str:
    """``1 trick``, ``0 tricks``, ``10 tricks`` (the number right-aligned in ``width``)."""
    count = int(count)
    return f"{count:>{width}} trick{'' if count == 1 else 's'}"


def _hands(row) -> list[str]:
    lines = [f"{SEAT_NAMES[s].capitalize():<11} {format_hand(row[h], True)}"
             for s, h in enumerate(("hand_f", "hand_m", "hand_r"))]
    return lines + [f"{'Skat':<11} {format_hand(row['skat'], True)}"]


def _auction(row) -> list[str]:
    max_bids = [int(row["max_bid_f"]), int(row["max_bid_m"]), int(row["max_bid_r"])]
    result = run_auction(*max_bid_answers(max_bids))
    calls = ", ".join(f"{SEAT_NAMES[s]} {c}" for s, c in result.calls)
    if result.passed_in:
        return [f"{'Auction':<11} {calls}: passed in, no game"]
    return [f"{'Auction':<11} {calls}: {SEAT_NAMES[result.declarer]} plays at {result.bid}"]


def _play(row, with_result: bool = True) -> list[str]:
    if row["passed"]:
        return []
    d = int(row["declarer"])
    decl = Declaration(int(row["game"]), bool(row["hand"]), bool(row["schneider_announced"]),
                       bool(row["schwarz_announced"]), bool(row["ouvert"]))
    skat = ("plays hand" if row["hand"]
            else f"picks up the skat, discards {format_hand(row['discard'], True)}")
    lines = [f"{'Skat':<11} {SEAT_NAMES[d]} {skat}", f"{'Game':<11} {decl.name}", "Tricks"]
    lines += _tricks(row, d)
    return lines + [_result(row, d)] if with_result else lines


def _tricks(row, declarer) -> list[str]:
    hands = [int(row[h]) for h in ("hand_f", "hand_m", "hand_r")]
    skat = int(row["skat"]) if row["hand"] else int(row["discard"])
    hands[declarer] = (hands[declarer] | int(row["skat"])) & ~skat
    play = CardPlay(hands, int(row["game"]), declarer)
    lines, trick = [], []
    for card in (int(c) for c in np.asarray(row["tricks"]) if c >= 0):
        trick.append(f"{SEAT_LETTERS[play.to_play]} {format_card(card, True):<4}")
        play.play(card)
        if len(trick) == 3:
            winner = play.trick_winners[-1]
            lines.append(f"  {len(play.trick_winners):>2}  {'  '.join(trick)} -> {SEAT_NAMES[winner]}")
            trick = []
    if trick:  # a game that ended early may stop inside a trick
        lines.append(f"  {len(play.trick_winners) + 1:>2}  {'  '.join(trick)}")
    return lines


def _result(row, declarer) -> str:
    outcome = "won" if row["won"] else ("lost (overbid)" if row["overbid"] else "lost")
    matadors = int(row["matadors"])
    with_text = "" if row["game"] == GAME_NAMES.index("null") else (
        f", {'with' if matadors > 0 else 'without'} {abs(matadors)}")
    sf = " / ".join(f"{int(row[k]):+d}" for k in ("sf_f", "sf_m", "sf_r"))
    return (f"{'Result':<11} {SEAT_NAMES[declarer]} {int(row['declarer_points'])} points,"
            f" {trick_count(row['declarer_tricks'])}{with_text}: {outcome}, value {int(row['game_value'])},"
            f" score {int(row['score']):+d}; Seeger-Fabian F/M/R {sf}")


# --- a deal of a run imported from an archive ---------------------------------------------------


def _imported_deal(folder: Path, manifest, deal_id: int) -> str:
    """An imported deal from its row: the archive's record line, hands, game, tricks and result."""
    row = _imported_row(folder, manifest, deal_id)
    row["game"] = GAME_NAMES.index(row["game"]) if row["game"] in GAME_NAMES else -1  # passed: null or "passed"
    when = "" if row["date"] is None else f", {row['date']:%Y-%m-%d %H:%M:%S} UTC"
    head = (f"Deal {deal_id} of {folder} (archive {row['archive_file']}, line {row['archive_line']},"
            f" game {row['archive_id']}{when})")
    players = [row["player_f"], row["player_m"], row["player_r"]]
    lines = [f"{line}  ({name})" if name else line for line, name in zip(_hands(row), players + [None])]
    if row["passed"]:
        return "\n".join([head, *lines, f"{'Auction':<11} passed in, no game"])
    if row.get("ended") == "penalty":
        return "\n".join([head, *lines, f"{'Ended':<11} a penalty record: a time-out or a player leaving before the"
                                          f" card play, charged to {SEAT_NAMES[row['ended_by']]}; no game was played"])
    d = int(row["declarer"])
    lines.append(f"{'Auction':<11} {SEAT_NAMES[d]} plays at {row['bid']}")
    ended = row["ended"]
    body = _play(row) if ended == "played" else _play(row, with_result=False) + [_early_end(row, d)]
    if not row["agrees"]:
        body.append("Note       the archive's result differs from the engine's (see errors.jsonl)")
    return "\n".join([head, *lines, *body])


def _imported_row(folder: Path, manifest, deal_id: int) -> dict:
    """The row of an imported deal, read from its part once the part is found whole; RunError saying why
    there is none."""
    config = manifest.config
    index = deal_id // config["chunk_size"]
    part = folder / part_name(index)
    facts = manifest.parts.get(str(index))
    problem = check_part(folder, index, facts) if facts is not None else None
    if problem:
        raise RunError(f"{folder}: {problem}; run `skatsim verify {folder} --repair`")
    try:
        found = pl.scan_parquet(part).filter(pl.col("deal_id") == deal_id).collect() if facts else None
    except (pl.exceptions.PolarsError, OSError):
        raise RunError(f"{folder}: {part.name} cannot be read; run `skatsim verify {folder} --repair`") from None
    if found is None or not found.height:
        deals = config.get("deals")
        if deals is not None and not 0 <= deal_id < deals:
            raise RunError(f"deal {deal_id} is not in this run (deals 0 to {deals - 1})")
        raise RunError(f"deal {deal_id} was not imported: its line is not a valid game (see errors.jsonl)"
                       if part.exists() else f"deal {deal_id} is not imported yet")
    return dict(found.row(0, named=True))


def _early_end(row, declarer) -> str:
    """The line of a game that ended early: how, and the server's result."""
    outcome = {True: "won", False: "lost", None: "a penalty"}[row["won"]]
    how = f"{row['ended']} by {SEAT_NAMES[row['ended_by']]}"
    if row["ended"] == "resigned" and row["ended_by"] != declarer:
        how = f"resigned by the defenders ({SEAT_NAMES[row['ended_by']]}'s resignation ended it)"
    return (f"{'Ended':<11} {how}; the server scored it: {outcome},"
            f" score {int(row['score']):+d}, {SEAT_NAMES[declarer]} {int(row['declarer_points'])} points,"
            f" {trick_count(row['declarer_tricks'])}")
