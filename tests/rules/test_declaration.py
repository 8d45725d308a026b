"""Declarations: which announcements are allowed, what ouvert implies, null variants."""

import pytest

from sim.rules.games import (
    BASE_VALUES,
    CLUBS_GAME,
    DIAMONDS_GAME,
    GAME_NAMES,
    GRAND,
    HEARTS_GAME,
    NULL,
    NULL_VALUES,
    SPADES_GAME,
    Declaration,
    IllegalDeclaration,
    game_id,
    null_value,
)

SUIT_AND_GRAND = [DIAMONDS_GAME, HEARTS_GAME, SPADES_GAME, CLUBS_GAME, GRAND]


def test_base_values():
    assert list(BASE_VALUES[:5]) == [9, 10, 11, 12, 24]


def test_null_values():
    assert list(NULL_VALUES) == [23, 35, 46, 59]
    assert null_value(hand=False, ouvert=False) == 23
    assert null_value(hand=True, ouvert=False) == 35
    assert null_value(hand=False, ouvert=True) == 46
    assert null_value(hand=True, ouvert=True) == 59


def test_game_names():
    assert GAME_NAMES == ("diamonds", "hearts", "spades", "clubs", "grand", "null")
    assert game_id("Clubs") == CLUBS_GAME and game_id(" grand ") == GRAND and game_id(5) == NULL
    for bad in ("ramsch", "", 6, -1, True, None):
        with pytest.raises(IllegalDeclaration, match="unknown game"):
            game_id(bad)


@pytest.mark.parametrize("game", SUIT_AND_GRAND)
def test_plain_and_hand_games_are_legal(game):
    assert Declaration(game).check(18) == Declaration(game)
    assert Declaration(game, hand=True).check(18) == Declaration(game, hand=True)


@pytest.mark.parametrize("game", SUIT_AND_GRAND)
def test_schneider_and_schwarz_only_in_hand_games(game):
    with pytest.raises(IllegalDeclaration, match="hand game"):
        Declaration(game, schneider=True).check(18)
    with pytest.raises(IllegalDeclaration, match="hand game"):
        Declaration(game, schwarz=True).check(18)
    assert Declaration(game, hand=True, schneider=True).check(18).schneider


@pytest.mark.parametrize("game", SUIT_AND_GRAND)
def test_schwarz_announced_includes_schneider_announced(game):
    d = Declaration(game, hand=True, schwarz=True).check(18)
    assert d.schwarz and d.schneider and not d.ouvert


@pytest.mark.parametrize("game", SUIT_AND_GRAND)
def test_ouvert_implies_hand_and_schwarz_announced(game):
    d = Declaration(game, hand=True, ouvert=True).check(18)
    assert d == Declaration(game, hand=True, schneider=True, schwarz=True, ouvert=True)
    # Ouvert after picking up the skat is not a suit or grand game the rules know.
    with pytest.raises(IllegalDeclaration, match="ouvert"):
        Declaration(game, ouvert=True).check(18)


@pytest.mark.parametrize("hand, ouvert, value", [
    (False, False, 23), (True, False, 35), (False, True, 46), (True, True, 59)])
def test_null_variants(hand, ouvert, value):
    d = Declaration(NULL, hand=hand, ouvert=ouvert)
    assert d.check(18) == d  # null ouvert after picking up the skat is legal
    assert d.check(value) == d
    with pytest.raises(IllegalDeclaration, match="less than the bid"):
        d.check(value + 1)


def test_null_worth_less_than_the_bid_is_illegal():
    with pytest.raises(IllegalDeclaration, match="less than the bid"):
        Declaration(NULL).check(24)
    with pytest.raises(IllegalDeclaration):
        Declaration(NULL, hand=True).check(36)
    with pytest.raises(IllegalDeclaration):
        Declaration(NULL, hand=True, ouvert=True).check(60)
    assert Declaration(NULL, hand=True, ouvert=True).check(59).ouvert


def test_null_has_no_schneider_or_schwarz():
    for flags in ({"schneider": True}, {"schwarz": True}):
        with pytest.raises(IllegalDeclaration, match="null"):
            Declaration(NULL, hand=True, **flags).check(18)


def test_null_ouvert_does_not_imply_hand_or_schwarz():
    d = Declaration(NULL, ouvert=True).check(18)
    assert d.ouvert and not d.hand and not d.schwarz and not d.schneider


@pytest.mark.parametrize("game", SUIT_AND_GRAND)
def test_suit_and_grand_games_below_the_bid_are_legal(game):
    # The game may still reach the bid during play (schneider, schwarz, matadors in the skat).
    assert Declaration(game).check(264) == Declaration(game)
    assert Declaration(game, hand=True).check(120) == Declaration(game, hand=True)


def test_names():
    assert Declaration(CLUBS_GAME).name == "clubs"
    assert Declaration(GRAND, hand=True).name == "grand hand"
    assert Declaration(SPADES_GAME, hand=True, schneider=True).name == "spades hand schneider announced"
    assert Declaration(HEARTS_GAME, hand=True, schwarz=True).normalized().name == "hearts hand schwarz announced"
    assert Declaration(CLUBS_GAME, hand=True, ouvert=True).normalized().name == "clubs ouvert hand"
    assert Declaration(NULL, hand=True, ouvert=True).name == "null ouvert hand"
    assert Declaration(NULL, ouvert=True).name == "null ouvert"


def test_illegal_declaration_is_a_value_error():
    assert issubclass(IllegalDeclaration, ValueError)
