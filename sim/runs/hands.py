"""What one hand is worth, by simulation (``skatsim hand`` prints it).

For ten cards at a seat (and the skat, if it is known), the unseen cards are dealt N
times (seeded; deal ``i`` is a pure function of the seed and ``i``): a run's dealing with
those cards fixed (:mod:`sim.rules.dealing`), and with a condition on the other hands when one is
given. Every game is
declared in every variant (picked up with the profile's discard, or hand; null plain,
hand, ouvert and ouvert hand) and played out by the profile's card players at all three
seats. Each variant's win rate (Wilson interval), expected Seeger-Fabian score at 18,
schneider rate, and the highest bid at which its expected score stays positive are the
answer; the best variant is the advice, or passing when none scores above 0::

    from sim.runs.hands import advice, judge_hand, read_hand
    cards, seat, skat = read_hand("CJ SJ HA H10 HK H9 H8 SA CA D7", "forehand", None)
    table = judge_hand(cards, seat, skat, deals=2000, seed=0, profile="default")   # one row per variant
    print(advice(table))
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.rules.auction import BID_VALUES
from sim.rules.cards import SEAT_NAMES, CardError, format_hand, parse_hand
from sim.rules.games import GAME_NAMES, NULL, Declaration
from sim.rules.scoring import seeger_fabian_at_bid
from sim.runs import RunError
from sim.runs.conditional import dealt, run_dealing
from sim.statistics import wilson
from strategies.profiles import load_profile
from strategies.whole_deals import RESULT_COLUMNS, VARIANTS, declare_variant, play_and_score


class HandError(ValueError):
    """A hand, seat or skat written wrongly."""


def read_hand(text: str, seat: str | int, skat: str | None) -> tuple[int, int, int]:
    """(cards, seat, skat or 0) from what a person writes; HandError names the problem."""
    try:
        hand = parse_hand(text)
        known = parse_hand(skat) if skat else 0
    except CardError as error:
        raise HandError(str(error)) from None
    if bin(hand).count("1") != 10:
        raise HandError(f"a hand has ten cards, not {bin(hand).count('1')}")
    if known and bin(known).count("1") != 2:
        raise HandError(f"the skat has two cards, not {bin(known).count('1')}")
    if hand & known:
        raise HandError("a card of the skat is also in the hand")
    if isinstance(seat, str) and seat.strip().lower() in SEAT_NAMES:
        seat = SEAT_NAMES.index(seat.strip().lower())
    if seat not in (0, 1, 2):
        raise HandError(f"unknown seat {seat!r} (forehand, middlehand or rearhand)")
    return hand, seat, known


def judge_hand(hand: int, seat: int, skat: int = 0, *, deals: int = 2000, seed: int = 0,
               profile: str = "default", settings=(), where: str | None = None) -> pl.DataFrame:
    """One row per game variant: win rate and interval, expected Seeger-Fabian score at 18,
    schneider rate and the highest bid worth making (0: none), best first. ``where``: a condition the
    deals of the unseen cards meet (:mod:`sim.rules.conditions`), e.g. ``jacks(middlehand) == 0``."""
    players = load_profile(profile, list(settings))
    fixed = {SEAT_NAMES[seat]: format_hand(hand), **({"skat": format_hand(skat)} if skat else {})}
    try:
        cards = dealt(run_dealing(fixed, where), seed, 0, deals)[0]
    except RunError as error:
        raise HandError(str(error)) from None
    ids = np.arange(deals, dtype=np.int64)
    rows = []
    for variant in VARIANTS:
        game, hand, ouvert = variant
        decl = declare_variant(players.seats[seat].discarder, cards, seat=seat, game=game, hand=hand, ouvert=ouvert)
        results, _ = play_and_score(players, seed=seed, deal_ids=ids, deals=cards, declarer=np.full(deals, seat),
                                    bid=np.full(deals, 18), decl=decl)
        rows.append(_judged(variant, {n: results[:, i] for i, n in enumerate(RESULT_COLUMNS)}))
    return pl.DataFrame(rows).sort("expected_sf", descending=True)


def _judged(variant: tuple[int, bool, bool], result: dict) -> dict:
    """The row of one variant, (game, hand, ouvert), from the results of its games."""
    game, play_hand, ouvert = variant
    won = result["won"].astype(bool)
    low, high = wilson(won.sum(), len(won))
    bids = BID_VALUES[BID_VALUES <= result["value_reached"].max()]
    expected = [seeger_fabian_at_bid(game, result["value_reached"], result["won_in_play"], bid).mean()
                for bid in bids]
    worth = [int(bid) for bid, e in zip(bids, expected) if e > 0]
    return {"game": Declaration(game, play_hand, ouvert=ouvert).name, "game_type": GAME_NAMES[game],
            "hand": play_hand, "ouvert": ouvert, "deals": len(won), "win_rate": won.mean(), "win_rate_lo": low,
            "win_rate_hi": high, "expected_sf": float(expected[0]) if expected else float("nan"),
            "schneider_rate": float((result["declarer_points"] >= 90).mean()) if game != NULL else 0.0,
            "bid_up_to": max(worth) if worth else 0}


def advice(table: pl.DataFrame) -> str:
    """What to do with the hand, in one line: play the first variant of ``table`` (:func:`judge_hand`'s,
    best first), with its win rate, expected score and highest bid; or pass when it is worth no bid."""
    best = table.row(0, named=True)
    if best["expected_sf"] <= 0 or best["bid_up_to"] == 0:
        return "pass: no game is worth playing from this seat (expected score at most 0)"
    return (f"play {best['game']}: wins {100 * best['win_rate']:.0f}%, expected {best['expected_sf']:+.1f}"
            f" Seeger-Fabian points at 18; bid up to {best['bid_up_to']}")
