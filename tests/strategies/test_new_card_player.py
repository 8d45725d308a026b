"""A new kernel card player is one module and one registration: docs/writing-strategies.md's ``lowest``
player, saved as its own module and imported, plays by name in whole deals, in a batch beside a player
in Python, in ``simulate``, ``match`` and ``decisions``, with no other edit."""

import importlib
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.rules.cards import nth_card, popcount
from sim.rules.tricks import ORDER, TRUMP_MASKS, CardPlay
from strategies import load_profile, play_deals, registry

ROOT = Path(__file__).resolve().parents[2]
SEED, COUNT = 11, 120


@pytest.fixture
def lowest(tmp_path, monkeypatch):
    """The doc's module saved in a folder of its own and imported (registered for this test only)."""
    page = (ROOT / "docs" / "writing-strategies.md").read_text()
    module = next(b for b in re.findall(r"```python\n(.*?)```", page, re.S) if b.startswith("# lowest_players.py"))
    (tmp_path / "lowest_players.py").write_text(module)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    sys.modules.pop("lowest_players", None)
    yield importlib.import_module("lowest_players")
    sys.modules.pop("lowest_players", None)   # another test saves the page's module in a folder of its own


def lowest_rank(game: int, legal: int, save_trumps: bool) -> int:
    others = legal & ~int(TRUMP_MASKS[game])
    cards = others if save_trumps and others else legal
    ranked = [nth_card(cards, i) for i in range(popcount(cards))]
    return min(ranked, key=lambda c: (ORDER[game, c], c))


def lowest_seats_checked(games: dict, seats: dict) -> int:
    """Replay every played game and check the cards of ``seats`` (seat -> save_trumps): the lowest rank."""
    checked = 0
    for k in np.flatnonzero(~games["passed"]):
        declarer, game = int(games["declarer"][k]), int(games["game"][k])
        hands = [int(games[c][k]) for c in ("hand_f", "hand_m", "hand_r")]
        if not games["hand"][k]:
            hands[declarer] = (hands[declarer] | int(games["skat"][k])) & ~int(games["discard"][k])
        play = CardPlay(hands, game, declarer)
        for card in (int(c) for c in games["tricks"][k] if c >= 0):
            seat = play.to_play
            if seat in seats:
                assert card == lowest_rank(game, play.legal(), seats[seat]), (k, seat)
                checked += 1
            play.play(card)
    return checked


def test_a_new_kernel_player_plays_by_name_in_whole_deals(lowest):
    profile = load_profile("club", ["card_play=lowest", "rearhand.card_play.save_trumps=true"])
    games = play_deals(profile, seed=SEED, start=0, count=COUNT, log_tricks=True)
    assert lowest_seats_checked(games, {0: False, 1: False, 2: True}) > 500


def test_a_new_kernel_player_sits_beside_a_player_in_python(lowest):
    from strategies.cardplay import CardPlayer

    class Highest(CardPlayer):
        def play(self, view):
            return view.legal[-1]

    registry.register("card_play", "highest_test", parameters=())(Highest)
    profile = load_profile("club", ["card_play=lowest", "middlehand.card_play=highest_test"])
    games = play_deals(profile, seed=SEED, start=0, count=COUNT, log_tricks=True)
    assert lowest_seats_checked(games, {0: False, 2: False}) > 300


@pytest.mark.slow
def test_a_new_kernel_player_plays_in_simulate_match_and_decisions(lowest, tmp_path):
    from analysis import load_run
    from sim.runs.decisions import log_decisions, read_decisions
    from sim.runs.matches import match
    from sim.runs.simulation import simulate

    run = load_run(simulate(300, seed=SEED, profile="club", settings=["card_play=lowest"], out=tmp_path / "sim",
                            jobs=1))
    assert run.complete and run.config["profile_spec"]["forehand"]["card_play"]["name"] == "lowest"
    # the seats of both sides play lowest, A's saving trumps: one player, the loop form the runs above compiled
    played = load_run(match("club", "club", deals=40, seed=SEED, settings=["card_play=lowest"], card_play_only=True,
                            settings_a=["card_play.save_trumps=true"], out=tmp_path / "match", jobs=1))
    assert played.complete
    decisions = read_decisions([log_decisions(40, seed=SEED, profile="club", settings=["card_play=lowest"],
                                              teacher="rollout", out=tmp_path / "decisions", jobs=1)])
    assert len(decisions["deal_id"]) > 100 and np.isfinite(decisions["values"]).sum() > 200


def test_a_table_refuses_what_no_loop_can_seat_in_one_line():
    """A kernel the loops cannot import by name, or a player that reads a model given none, is refused
    before anything is played, naming the player."""
    from numba import njit

    from strategies.cardplay import CardPolicy, KernelPlayer
    from strategies.cardplay.table import table_of

    @njit
    def nested(view, legal, params, data, rng):
        return rng, 0

    with pytest.raises(registry.StrategyError, match="card player 'nested': its kernel must be a numba function"):
        table_of([CardPolicy("nested", nested)] * 3)
    reads = registry.build("card_play", "learned")
    without = CardPolicy("learned", KernelPlayer(reads.function, reads_model=True))
    with pytest.raises(registry.StrategyError, match="card player 'learned' reads a model, and none was given"):
        table_of([reads, reads, without])


def test_a_table_seats_each_player_once_with_each_seats_own_row():
    """Seats that share a player share its kernel in the table, and each keeps its own parameters."""
    from strategies.cardplay.table import table_of

    players = [registry.build("card_play", "heuristic", deviation=d) for d in (0.0, 0.5)] + \
        [registry.build("card_play", "learned")]
    table = table_of(players)
    assert len(table.players) == 2 and list(table.seated) == [0, 0, 1]
    assert table.params[1, 0] == 0.5 and not table.searches and table.data[2].any() and not table.data[0].any()
