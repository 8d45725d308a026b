"""The engine's own baseline: complete deals played by random legal choices.

Every deal gets a random declarer (bid 18), a random game type, hand or skat
pick-up with a random discard, for null a random open or closed variant, and ten
tricks of uniformly random legal cards; then it is scored like any other game.
It exercises every rule on millions of deals and times the engine's hot path.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards import nth_card, popcount
from .games import NULL
from .rng import STREAM_PLAY, below, stream_key
from .scoring import classic_score, game_outcome, matadors
from .shuffle import SKAT, deal_one
from .tricks import STATE, declarer_result, legal_now, play_card, start_play

#: Columns of a batch of random games, in the order the kernel fills them.
COLUMNS = ("declarer", "game", "hand", "ouvert", "discard", "matadors", "declarer_points",
           "declarer_tricks", "won", "game_value", "overbid", "schneider", "schwarz", "score")


@njit(cache=True)
def random_discard(state, twelve):
    """Two distinct random cards of the twelve; returns (state, mask of the two)."""
    state, a = below(state, 12)
    state, b = below(state, 11)
    first = nth_card(twelve, a)
    second = nth_card(twelve & ~(np.uint32(1) << np.uint32(first)), b)
    return state, (np.uint32(1) << np.uint32(first)) | (np.uint32(1) << np.uint32(second))


@njit(cache=True)
def play_random_games(seed, start, out):
    """Play deals ``start .. start + len(out) - 1``; one row of ``out`` per deal, columns as COLUMNS."""
    cards = np.empty(4, dtype=np.uint32)
    play = np.empty(STATE.size, dtype=np.int64)
    for k in range(out.shape[0]):
        deal_one(seed, start + k, cards)
        rng = stream_key(seed, start + k, STREAM_PLAY)
        rng, declarer = below(rng, 3)
        rng, game = below(rng, 6)
        rng, hand = below(rng, 2)
        ouvert = 0
        if game == NULL:
            rng, ouvert = below(rng, 2)
        twelve = cards[declarer] | cards[SKAT]
        skat = cards[SKAT]
        if not hand:
            rng, skat = random_discard(rng, twelve)
        hands = cards.copy()
        hands[declarer] = twelve & ~skat
        start_play(play, hands[0], hands[1], hands[2], game, declarer)
        while not play[STATE.finished]:
            legal = legal_now(play)
            rng, pick = below(rng, popcount(legal))
            play_card(play, nth_card(legal, pick))
        points, tricks = declarer_result(play, skat)
        mat = matadors(game, twelve)
        won, value, overbid, schneider, schwarz = game_outcome(
            game, hand == 1, False, False, ouvert == 1, 18, mat, points, tricks)
        row = out[k]
        row[0], row[1], row[2], row[3], row[4] = declarer, game, hand, ouvert, skat
        row[5], row[6], row[7], row[8], row[9] = mat, points, tricks, won, value
        row[10], row[11], row[12], row[13] = overbid, schneider, schwarz, classic_score(won, value)


def random_games(seed: int, start: int, count: int) -> dict[str, np.ndarray]:
    """Random games for deals ``start .. start + count - 1`` of ``seed``, as named columns."""
    out = np.empty((count, len(COLUMNS)), dtype=np.int64)
    play_random_games(np.uint64(seed), start, out)
    return {name: out[:, i] for i, name in enumerate(COLUMNS)}
