"""The built-in play loop, and how a new card player joins it as docs/writing-strategies.md shows.

The doc's worked example is run as printed: its module goes into a scratch package, its
changes to strategies/cardplay/builtin.py and __init__.py are applied to copies of those
files, and the scratch loop must play card for card what the general loop plays (a slow test:
numba compiles both loops for the new player). The quick test checks that the changes still
fit the files and that the player plays as documented.
"""

import importlib
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.rules.cards import nth_card, popcount
from sim.rules.play import TRICK_LOG_SIZE
from sim.rules.rng import STREAM_PLAY, stream_key
from sim.rules.tricks import ORDER, STATE, TRUMP_MASKS, legal_now, new_play, play_card, to_play
from sim.rules.view import VIEW
from strategies import deals, load_profile, play_deals, registry
from strategies.cardplay import builtin
from strategies.cardplay.policy import seats_of

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Joining the fast play loop"
SEED, COUNT = 11, 300


def doc_section() -> str:
    text = (ROOT / "docs" / "writing-strategies.md").read_text()
    return text[text.index(SECTION):].split("\n## ", 1)[0]


def apply_diff(source: str, diff: str) -> str:
    """``source`` with each hunk of ``diff`` (context, - and + lines) applied; each must match exactly once."""
    for hunk in re.split(r"^@@.*\n", diff, flags=re.M)[1:]:
        lines = hunk.splitlines(keepends=True)
        old = "".join(line[1:] for line in lines if line[0] in " -")
        new = "".join(line[1:] for line in lines if line[0] in " +")
        assert source.count(old) == 1, f"a change of docs/writing-strategies.md no longer fits:\n{old}"
        source = source.replace(old, new)
    return source


def scratch_package(tmp_path: Path) -> str:
    """The doc's module and the patched builtin.py as package ``fast_loop_example``; the other modules
    they import are the package's own."""
    section = doc_section()
    module = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    diffs = re.findall(r"```diff\n(.*?)```", section, re.S)
    assert module.startswith("# strategies/cardplay/lowest.py\n") and len(diffs) == 2
    cardplay = ROOT / "strategies" / "cardplay"
    patched_init = apply_diff((cardplay / "__init__.py").read_text(), diffs[1])
    assert "lowest" in patched_init
    package = tmp_path / "fast_loop_example"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "lowest.py").write_text(module)
    (package / "builtin.py").write_text(apply_diff((cardplay / "builtin.py").read_text(), diffs[0]))
    for path in package.glob("*.py"):
        text = re.sub(r"^from \.\.(\w+)", r"from strategies.\1", path.read_text(), flags=re.M)
        text = re.sub(r"^from \.(\w+)", lambda m: m.group(0) if (package / f"{m.group(1)}.py").exists()
                      else f"from strategies.cardplay.{m.group(1)}", text, flags=re.M)
        path.write_text(text)
    return package.name


@pytest.fixture
def lowest_loop(tmp_path, monkeypatch):
    """The scratch package's builtin and lowest modules, the doc's player registered (for this test only)."""
    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    monkeypatch.syspath_prepend(str(tmp_path))
    name = scratch_package(tmp_path)
    try:
        yield importlib.import_module(f"{name}.builtin"), importlib.import_module(f"{name}.lowest")
    finally:
        for module in [m for m in sys.modules if m.startswith(name)]:
            del sys.modules[module]


def fast_loop_logs(loop, games: dict, policies) -> np.ndarray:
    """The trick logs of the declared games of ``games`` played again in ``loop``'s play_out_builtin."""
    seats = seats_of(policies)
    tt, stack = loop.new_workspace(8)
    logs = np.full((len(games["deal_id"]), TRICK_LOG_SIZE), -1, dtype=np.int8)
    row = np.zeros(9, dtype=np.int64)
    state, view = np.zeros(STATE.size, np.int64), np.zeros(VIEW.size, np.int64)
    for k in np.flatnonzero(~games["passed"]):
        discarded = not games["hand"][k]
        skat_cards = games["discard"][k] if discarded else games["skat"][k]
        row[:] = (games["declarer"][k], games["bid"][k], games["game"][k], games["hand"][k],
                  games["schneider_announced"][k], games["schwarz_announced"][k], games["ouvert"][k],
                  skat_cards, discarded)
        cards = np.array([games[c][k] for c in ("hand_f", "hand_m", "hand_r", "skat")], dtype=np.int64)
        deals._start_deal(row, cards, state, view)
        loop.play_out_builtin(state, np.int64(skat_cards if discarded else 0), view, seats.kinds, seats.params,
                              seats.data, np.uint64(stream_key(SEED, games["deal_id"][k], STREAM_PLAY)), logs[k],
                              np.int64(skat_cards), tt, stack)  # the types deals.py passes
    return logs


def lowest_rank(game: int, legal: int, save_trumps: bool) -> int:
    others = legal & ~int(TRUMP_MASKS[game])
    cards = others if save_trumps and others else legal
    ranked = [nth_card(cards, i) for i in range(popcount(cards))]
    return min(ranked, key=lambda c: (ORDER[game, c], c))


@pytest.mark.slow
def test_the_worked_example_joins_the_fast_loop_and_plays_as_the_general_loop(lowest_loop):
    """The doc's three steps: the player's kind reaches its kernel in the cached loop, which plays
    the same cards as the general loop (where the package's own builtin.py sends the new kind)."""
    loop, lowest = lowest_loop
    assert lowest.LOWEST_KIND in loop.BUILTIN_KINDS and lowest.LOWEST_KIND not in builtin.BUILTIN_KINDS
    for settings in (["card_play=lowest"], ["forehand.card_play=lowest", "forehand.card_play.save_trumps=true"]):
        profile = load_profile("default", settings)
        games = play_deals(profile, seed=SEED, start=0, count=COUNT, log_tricks=True)
        played = ~games["passed"]
        assert played.sum() > COUNT // 2
        fast = fast_loop_logs(loop, games, [s.card_play for s in profile.seats])
        assert np.array_equal(fast[played], games["tricks"][played]), settings


def test_the_worked_example_plays_the_lowest_legal_card(lowest_loop):
    """Every card is the lowest legal one (a trump last at the seat that saves them). The package's own
    builtin.py has no branch for the new kind, so deals.py plays it in the general loop with its own kernel
    (builtin_card would have played random cards for it)."""
    games = play_deals(load_profile("default", ["card_play=lowest", "middlehand.card_play.save_trumps=true"]),
                       seed=SEED, start=0, count=60, log_tricks=True)
    checked = 0
    for k in np.flatnonzero(~games["passed"]):
        declarer, game = int(games["declarer"][k]), int(games["game"][k])
        hands = [int(games[c][k]) for c in ("hand_f", "hand_m", "hand_r")]
        if games["hand"][k]:
            twelve = hands[declarer]
        else:
            twelve = (hands[declarer] | int(games["skat"][k])) & ~int(games["discard"][k])
        hands[declarer] = twelve
        state = new_play(*hands, game, declarer)
        for card in games["tricks"][k]:
            if card < 0:
                break
            assert card == lowest_rank(game, int(legal_now(state)), to_play(state) == 1), (k, card)
            play_card(state, int(card))
            checked += 1
    assert checked > 500

