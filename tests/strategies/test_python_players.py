"""Card players in plain Python, one decision at a time or a batch at once, and the lockstep loop that
plays them: the same cards as the fast loop for the same choices, one clear line for a player's
mistake, and nothing of the hidden cards in a seat's view."""

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from sim.rules.cards import parse_hand
from sim.rules.games import GRAND, NULL
from sim.rules.play import start_turn
from sim.rules.shuffle import SKAT, deal_batch
from sim.rules.tricks import STATE, legal_now, new_play, play_card
from sim.rules.view import VIEW, seat_view, set_declaration
from strategies import load_profile, play_deals, registry, whole_deals
from strategies.cardplay.heuristic import heuristic_card
from strategies.cardplay.python_players import BatchCardPlayer, CardPlayer, CardPlayerError
from strategies.cardplay.seat_view import CARD_NAMES, SeatView, SeatViews
from strategies.one_hand import HandBidder, HandDeclaration, HandDeclarer, HandDiscarder, HandPlan
from strategies.roles import Declarations

ROOT = Path(__file__).resolve().parents[2]
SEED, COUNT = 5, 300
ROW, DATA = np.zeros(1), np.zeros(1, np.float32)


def heuristic_of(view_array, legal) -> int:
    """The heuristic's card (its deviation 0, so it draws nothing) for one view of the engine."""
    return int(heuristic_card(view_array, np.uint32(legal), ROW, DATA, np.uint64(0))[1])


class AskedHeuristic(CardPlayer):
    def play(self, view):
        return CARD_NAMES[heuristic_of(view.array, view.legal_mask)]


class BatchedHeuristic(BatchCardPlayer):
    def play_batch(self, views):
        return np.array([heuristic_of(row, legal) for row, legal in zip(views.array, views.legal)])


@pytest.fixture
def players(monkeypatch):
    """A registry of its own with the test players in it."""
    monkeypatch.setattr(registry, "_registry", {r: dict(k) for r, k in registry._registry.items()})
    for name, player in (("asked_heuristic", AskedHeuristic), ("batched_heuristic", BatchedHeuristic)):
        registry.register("card_play", name)(player)
    return registry.register


def tricks_and_results(settings) -> dict:
    return play_deals(load_profile("threshold", settings), seed=SEED, start=0, count=COUNT, log_tricks=True)


@pytest.mark.parametrize("settings", [["card_play=asked_heuristic"], ["card_play=batched_heuristic"],
                                      ["middlehand.card_play=asked_heuristic", "rearhand.card_play=learned"],
                                      ["forehand.card_play=batched_heuristic", "middlehand.card_play=learned"]])
def test_python_players_play_what_the_fast_loop_plays_for_the_same_choices(players, settings):
    same = [s.replace("asked_heuristic", "heuristic").replace("batched_heuristic", "heuristic") for s in settings]
    ours, fast = tricks_and_results(settings), tricks_and_results(same)
    assert (ours["declarer"] >= 0).sum() > 200
    for column in ("tricks", "declarer_points", "score", "won"):
        np.testing.assert_array_equal(ours[column], fast[column], err_msg=column)


def test_a_player_learns_its_registered_name_and_its_parameters(players):
    @players("card_play", "patient", ranges={"patience": (0, 10)})
    class Patient(CardPlayer):
        def __init__(self, *, patience=3):
            self.patience = patience

        def play(self, view):
            return view.legal[-1]

    seat = load_profile("threshold", ["card_play=patient", "card_play.patience=7"]).seats[0].card_play
    assert (seat.name, seat.patience) == ("patient", 7)


def failing(players, play, batch=False, count=COUNT):
    base = BatchCardPlayer if batch else CardPlayer
    players("card_play", "clumsy")(type("Clumsy", (base,), {"play_batch" if batch else "play": play}))
    with pytest.raises(CardPlayerError) as caught:
        play_deals(load_profile("threshold", ["middlehand.card_play=clumsy"]), seed=SEED, start=0, count=count)
    message = str(caught.value)
    assert "\n" not in message
    return message


def first_illegal(view):
    """A card of the hand that is not legal when there is one, else the first legal card."""
    return ([c for c in view.hand if c not in view.legal] or view.legal)[0]


def test_an_illegal_card_names_the_player_the_card_the_deal_and_the_decision(players):
    message = failing(players, lambda self, view: first_illegal(view))
    assert re.fullmatch(r"card player 'clumsy' chose \w+, which is not legal \(legal: [\w ]+\) at deal \d+, "
                        r"trick \d+, middlehand", message), message


LEGAL_AT = r"\(legal: [\w ]+\) at deal \d+, trick 1, middlehand"


@pytest.mark.parametrize("answer, shown", [(3.5, "3.5"), (None, "None"), ("X11", "'X11'"), (32, "32"),
                                           (np.int64(-1), "-1"), ("Z" * 100, "'" + "Z" * 36 + "...")],
                         ids=["float", "None", "name", "32", "numpy", "long"])
def test_an_answer_that_is_not_a_card_is_shown_in_one_line(players, answer, shown):
    message = failing(players, lambda self, view: answer)
    assert re.fullmatch(rf"card player 'clumsy' chose {re.escape(shown)}, which is not a card {LEGAL_AT}",
                        message), message


def test_an_exception_inside_a_player_names_it_and_the_decision(players):
    message = failing(players, lambda self, view: 1 / 0)
    assert message.startswith("card player 'clumsy' raised ZeroDivisionError: division by zero, at deal ")
    assert ", trick 1, middlehand" in message


IN_BATCH = r"\(decision (\d+) of a batch of (\d+)\)"
BATCH = r"for a batch of (\d+ decisions?) \(deal 0, trick 1, middlehand first\)"


@pytest.mark.parametrize("answer, count, told", [
    (lambda views: np.full(len(views), 99), COUNT, rf"chose 99, which is not a card {LEGAL_AT} {IN_BATCH}"),
    (lambda views: [None] * len(views), COUNT, rf"chose None, which is not a card {LEGAL_AT} {IN_BATCH}"),
    (lambda views: ["X11"] * len(views), COUNT, rf"chose 'X11', which is not a card {LEGAL_AT} {IN_BATCH}"),
    (lambda views: np.full(len(views), 3.5), COUNT, rf"chose 3.5, which is not a card {LEGAL_AT} {IN_BATCH}"),
    (lambda views: np.zeros(1, np.int64), COUNT, rf"answered 1 card, \[0\], {BATCH}"),
    (lambda views: np.zeros(len(views) + 1, np.int64), COUNT, rf"answered \d+ cards, \[0, 0, ..., 0, 0\], {BATCH}"),
    (lambda views: 3.5, 1, rf"answered 3.5, not one card per decision, {BATCH}"),
    (lambda views: None, 1, rf"answered None, not one card per decision, {BATCH}"),
    (lambda views: views.legal_cards(), COUNT,
     rf"answered an array of shape \(\d+, 32\), \[\[.*, not one card per decision, {BATCH}"),
    (lambda views: 1 / 0, COUNT, rf"raised ZeroDivisionError: division by zero, deciding {BATCH[4:]}"),
    (lambda views: [first_illegal(SeatView(row, legal)) for row, legal in zip(views.array, views.legal)], COUNT,
     rf"chose \w+, which is not legal \(legal: [\w ]+\) at deal \d+, trick \d+, middlehand {IN_BATCH}"),
])
def test_a_batch_players_mistake_shows_its_answer_and_the_batchs_size(players, answer, count, told):
    message = failing(players, lambda self, views: answer(views), batch=True, count=count)
    found = re.fullmatch(rf"card player 'clumsy' {told}", message)
    assert found, message
    if "first" in told:   # the batch's size, in words of the right number
        assert found.group(1) == ("1 decision" if count == 1 else f"{found.group(1).split()[0]} decisions")
    elif "of a batch" in told:
        assert 1 <= int(found.group(1)) <= int(found.group(2))


def test_the_readable_view_says_what_the_engine_view_holds():
    hands = [parse_hand(h) for h in ("CJ SJ CA C10 CK SA S10 HA H10 D7", "HJ DJ CQ C9 SK SQ HK HQ D8 D9",
                                     "C8 C7 S9 S8 S7 H9 H8 H7 DA D10")]
    state, view = new_play(*hands, 3, 0), np.zeros(VIEW.size, np.int64)
    set_declaration(view, 0, 0, 0, 0, 24)
    for card in ("CJ", "HJ", "C7", "CA"):   # one trick, then the declarer leads clubs' ace
        play_card(state, parse_hand(card).bit_length() - 1)
    legal = start_turn(state, parse_hand("DK DQ"), view)
    seen = SeatView(view, legal)
    assert (seen.seat_name, seen.role, seen.partner, seen.game, seen.bid) == ("middlehand", "defender", 2, "clubs", 24)
    assert seen.played == [(0, "CJ"), (1, "HJ"), (2, "C7"), (0, "CA")] and seen.trick == ["CA"]
    assert seen.legal == ["DJ", "C9", "CQ"] and seen.winning_card == "CA" and seen.wins("DJ") and not seen.wins("C9")
    assert seen.lowest(seen.legal) == "C9" and seen.highest(seen.legal) == "DJ" and seen.suit("DJ") == "trump"
    assert seen.discard == [] and seen.declarer_points == 2 + 2 and seen.defender_points == 0
    assert seen.of_suit("hearts") == ["HQ", "HK"] and seen.voids == (set(), set(), set())
    many = SeatViews(view[None, :], np.array([legal]))
    chosen = np.flatnonzero(many.legal_cards()[0] & many.winning_cards()[0])
    assert [CARD_NAMES[c] for c in chosen] == [c for c in seen.legal if seen.wins(c)]


def hidden_shuffled(state, seat: int, ouvert: bool, rng) -> np.ndarray:
    """``state`` with the cards ``seat`` cannot see (the other hands, but an ouvert declarer's) dealt anew
    between the seats that hold them, each keeping its count."""
    other = state.copy()
    hidden_seats = [s for s in range(3) if s != seat and not (ouvert and s == state[STATE.declarer])]
    pool = [c for s in hidden_seats for c in range(32) if state[STATE.hands + s] >> c & 1]
    rng.shuffle(pool)
    for s in hidden_seats:
        count = bin(int(state[STATE.hands + s])).count("1")
        other[STATE.hands + s] = sum(1 << c for c in pool[:count])
        pool = pool[count:]
    return other


@pytest.mark.parametrize("game, ouvert", [(3, False), (GRAND, False), (NULL, False), (NULL, True)])
def test_a_seats_view_is_the_same_whatever_the_cards_it_cannot_see(game, ouvert):
    """At every point of play of many deals, each seat's view (engine and readable) is unchanged when the
    cards hidden from it are dealt anew; the declarer's discard reaches the declarer only."""
    rng = np.random.default_rng(3)
    for row in deal_batch(9, 0, 40):
        declarer, discard = int(rng.integers(3)), int(row[SKAT])
        state = new_play(*(int(h) for h in row[:3]), game, declarer)
        while not state[STATE.finished]:
            for seat in range(3):
                views = []
                for position in (state, hidden_shuffled(state, seat, ouvert, rng)):
                    view = np.zeros(VIEW.size, np.int64)
                    set_declaration(view, 0, 0, 0, int(ouvert), 23)
                    seat_view(position, seat, discard, view)
                    views.append(view)
                assert (views[0] == views[1]).all()
                assert views[0][VIEW.discard] == (discard if seat == declarer else 0)
                readable = [SeatView(v, legal_now(state)) for v in views]
                assert [repr(v) for v in readable] == [repr(readable[0])] * 2
            mover = legal_now(state)
            play_card(state, int(rng.choice([c for c in range(32) if mover >> c & 1])))


def test_a_defenders_python_player_sees_nothing_of_the_skat(players):
    """Two deals that differ only in the skat the declarer picked up (the same twelve cards, the same
    discard) give every seat's player the same views, decision by decision."""
    seen = []

    @players("card_play", "watching")
    class Watching(CardPlayer):
        def play(self, view):
            seen.append((view.seat, view.array.tolist(), view.legal))
            return view.lowest(view.legal)

    first = [parse_hand(h) for h in ("CJ SJ CA C10 CK SA S10 HA H10 D7", "HJ DJ CQ C9 SK SQ HK HQ D8 D9",
                                     "C8 C7 S9 S8 S7 H9 H8 H7 DA D10", "DK DQ")]
    second = [first[0] & ~parse_hand("D7 H10") | parse_hand("DK DQ"), *first[1:3], parse_hand("D7 H10")]
    profile = load_profile("threshold", ["card_play=watching"])
    decl = Declarations.empty(1)
    decl.game[:], decl.aside[:], decl.discarded[:] = 3, parse_hand("DK DQ"), True
    for cards in (first, second):
        whole_deals.play_and_score(profile, seed=1, deal_ids=np.zeros(1, np.int64), deals=np.array([cards], np.uint32),
                             declarer=np.zeros(1, np.int64), bid=np.full(1, 18), decl=decl)
    assert len(seen) == 60 and seen[:30] == seen[30:]


def test_the_examples_of_docs_python_players_run_as_printed(players, capsys, monkeypatch, tmp_path):
    text = (ROOT / "docs" / "python-players.md").read_text()
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        module = re.match(r"# (\w+\.py)\n", block)
        if module:   # a file the page says to save; the blocks after it use it
            (tmp_path / module.group(1)).write_text(block)
        else:
            exec(compile(block, "docs/python-players.md", "exec"), {})
    out = capsys.readouterr().out
    assert "the same cards: True" in out
    printed = re.findall(r"prints\n\n```\n(.*?)```", text, re.S)
    assert len(printed) == 2 and all(shown in out for shown in printed)
    assert float(re.search(r"declarer win rate: ([0-9.]+)", out).group(1)) > 0.4
    assert re.search(r"A - B: [+-]\d+\.\d \([+-]\d+\.\d to [+-]\d+\.\d\) Seeger-Fabian points a game", out)


class PlainBidder(HandBidder):
    given = None   # set by plain_profile

    def plan_hand(self, hand, seat):
        assert len(hand) == 10
        return self.given if "CJ" in hand or "SJ" in hand else HandPlan()


class PlainDeclarer(HandDeclarer):
    declaration = None

    def declare_hand(self, cards, *, seat, bid, hand_game, game):
        return self.declaration or HandDeclaration(game or "grand")


class PlainDiscarder(HandDiscarder):
    cards = None

    def discard_hand(self, twelve, game):
        return self.cards or twelve[:2]


@pytest.fixture
def one_hand(players):
    for role, player in (("bidder", PlainBidder), ("declarer", PlainDeclarer), ("discarder", PlainDiscarder)):
        players(role, "plain")(player)


def plain_profile(bidder=None, declaration=None, discard=None):
    profile = load_profile("threshold", ["bidder=plain", "declarer=plain", "discarder=plain"])
    for seat in profile.seats:
        seat.bidder.given = bidder or HandPlan(max_bid=24, game="clubs")
        seat.declarer.declaration, seat.discarder.cards = declaration, discard
    return profile


def test_one_hand_roles_play_whole_deals_and_the_declare_mode(one_hand):
    games = play_deals(plain_profile(), seed=2, start=0, count=200)
    played = ~games["passed"]
    hands = np.stack([games["hand_f"], games["hand_m"], games["hand_r"]])
    nobody_bids = (((hands >> 31) | (hands >> 23)) & 1).sum(axis=0) == 0
    assert (games["passed"] == nobody_bids).all() and played.sum() > 150
    assert (games["game"][played] == GRAND).all() and (games["bid"][played] <= 24).all()
    assert (games["discard"][played] != 0).all()
    every = whole_deals.declare_every_game(plain_profile(), seed=2, start=0, count=5)
    assert (every["game"] == np.tile(np.arange(6), 15)).all()


@pytest.mark.parametrize("plan, declaration, discard, told", [
    (HandPlan(max_bid=19, game="clubs"), None, None, "bidder 'plain' at \\w+ with [\\w ]+: 19 is not a bid"),
    (HandPlan(max_bid=18, game="skat"), None, None, "unknown game 'skat'"),
    (HandPlan(max_bid=18, game="clubs", ouvert=True), None, None, "only a null is planned ouvert"),
    (HandPlan(max_bid=30, game="clubs"), HandDeclaration("null"), None,
     "declarer 'plain' at \\w+ with [\\w ]+: null is worth 23, less than the bid"),
    (HandPlan(max_bid=18, game="clubs"), HandDeclaration("grand", discard=("CJ",)), None,
     "declarer 'plain' at \\w+ with [\\w ]+: discarded \\('CJ',\\), not two of its twelve cards"),
    (HandPlan(max_bid=18, game="clubs"), None, ["XX", "CJ"],
     "discarder 'plain' with [\\w ]+: discarded \\['XX', 'CJ'\\], not two of its twelve cards"),
])
def test_a_one_hand_strategy_against_the_rules_is_one_line(one_hand, plan, declaration, discard, told):
    with pytest.raises(registry.StrategyError, match=told) as caught:
        play_deals(plain_profile(plan, declaration, discard), seed=2, start=0, count=200)
    assert "\n" not in str(caught.value)


def test_a_batchs_random_numbers_come_from_each_deals_own_stream():
    views = np.zeros((4, VIEW.size), np.int64)
    views[:, VIEW.seat] = [0, 1, 1, 2]
    ids = np.array([7, 7, 8, 9])
    drawn = SeatViews(views, np.zeros(4), deal_id=ids, seed=3).uniform()
    alone = SeatViews(views[2:3], np.zeros(1), deal_id=ids[2:3], seed=3).uniform()
    other_seed = SeatViews(views, np.zeros(4), deal_id=ids, seed=4).uniform()
    assert ((drawn >= 0) & (drawn < 1)).all() and len(set(drawn)) == 4 and drawn[2] == alone[0]
    assert not (drawn == other_seed).any()


def test_one_hand_roles_are_told_their_own_cards_and_the_auction_only(one_hand, monkeypatch):
    """Deals that differ only in the cards a seat cannot see ask its bidder, and its declarer of a hand game,
    the same questions; a declarer after a pick-up is given its twelve cards."""
    asked = []
    monkeypatch.setattr(PlainBidder, "plan_hand", lambda self, hand, seat: asked.append(("bid", hand, seat))
                        or (HandPlan(max_bid=18, game="clubs", hand=seat == 0) if seat == 0 else HandPlan()))
    monkeypatch.setattr(PlainDeclarer, "declare_hand",
                        lambda self, cards, **said: asked.append(("declare", cards, said)) or HandDeclaration("clubs"))
    dealt = deal_batch(4, 0, 1)
    unseen = [c for c in range(32) if (int(dealt[0, 1]) | int(dealt[0, 2]) | int(dealt[0, SKAT])) >> c & 1]
    unseen = np.random.default_rng(0).permutation(unseen)   # the others' hands and the skat dealt anew
    other = dealt.copy()
    other[0, 1:] = [sum(1 << int(c) for c in part) for part in (unseen[:10], unseen[10:20], unseen[20:])]
    for cards in (dealt, other):
        play_deals(plain_profile(), seed=4, start=0, count=1, deals=cards)
    forehand = [q for q in asked if q[0] == "declare" or q[2] == 0]
    assert len(forehand) == 4 and forehand[:2] == forehand[2:]
    assert forehand[1] == ("declare", forehand[0][1], {"seat": 0, "bid": 18, "hand_game": True, "game": None})


def test_threads_that_load_one_file_at_once_all_find_what_it_defines(tmp_path):
    """A Dask worker's threads may each load a player's or evaluator's file at the same moment: none may
    take the module while another is still importing it."""
    path = tmp_path / "slow_evaluator.py"
    path.write_text("import time\n\nfrom strategies.evaluators import weighted\n\ntime.sleep(0.3)\n\n\n"
                    "def slow(hands, seats):\n    return weighted(hands, seats)\n\n\n"
                    "slow.thresholds = weighted.thresholds\n")
    with ThreadPoolExecutor(3) as pool:
        found = list(pool.map(lambda _: registry.build("evaluator", f"{path}:slow"), range(3)))
    assert [f.name for f in found] == [f"{path}:slow"] * 3
