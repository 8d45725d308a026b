"""Dealing: a pure function of (seed, deal number), 10/10/10/2, and uniform."""

import math

import numpy as np
import pytest

from sim.rules.cards import popcount
from sim.rules.rng import STREAM_DEAL, STREAM_PLAY, below, stream_key
from sim.rules.shuffle import SKAT, deal, deal_batch

PLACE_SHARES = np.array([10, 10, 10, 2]) / 32  # forehand, middlehand, rearhand, skat


def chi2_threshold(df: int, z: float = 5.0) -> float:
    """Upper quantile of chi-square with ``df`` degrees of freedom (Wilson-Hilferty), z sigmas out."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def test_deal_is_ten_ten_ten_two_of_all_32_cards():
    deals = deal_batch(11, 0, 2000)
    counts = np.vectorize(popcount)(deals)
    assert (counts[:, :3] == 10).all() and (counts[:, SKAT] == 2).all()
    union = np.bitwise_or.reduce(deals, axis=1)
    assert (union == 0xFFFFFFFF).all()
    # disjoint: the four masks together hold exactly 32 cards
    assert (counts.sum(axis=1) == 32).all()


def test_same_seed_and_number_give_the_same_deal():
    assert deal(42, 7) == deal(42, 7)
    assert deal(42, 7) != deal(42, 8)
    assert deal(42, 7) != deal(43, 7)


def test_deal_does_not_depend_on_the_batch_it_is_made_in():
    whole = deal_batch(2024, 0, 300)
    for start, count in [(0, 1), (5, 17), (100, 200), (299, 1), (37, 0)]:
        part = deal_batch(2024, start, count)
        assert part.shape == (count, 4)
        assert (part == whole[start:start + count]).all()
    assert deal(2024, 123) == tuple(int(x) for x in whole[123])


def test_deal_is_fixed_forever_for_a_given_seed():
    # Reproducibility across versions: a changed dealer would silently change every
    # published run. These are the engine's deals as first released.
    f, m, r, skat = deal(1, 0)
    assert (f, m, r, skat) == (3424133394, 830621320, 38115428, 2097153)


def test_large_seeds_and_numbers_work():
    top = 2**64 - 1
    f, m, r, skat = deal(top, 10**12)
    assert f | m | r | skat == 0xFFFFFFFF
    assert deal(top, 0) != deal(top - 1, 0)


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, 2.0, "7", None, True])
def test_bad_seed_is_rejected(seed):
    with pytest.raises(ValueError, match="seed"):
        deal(seed, 0)
    with pytest.raises(ValueError, match="seed"):
        deal_batch(seed, 0, 3)


@pytest.mark.parametrize("start, count", [(-1, 1), (0, -1), (2.5, 1), (0, 1.0), (2**63, 1)])
def test_bad_deal_numbers_are_rejected(start, count):
    with pytest.raises(ValueError, match="deal number"):
        deal_batch(3, start, count)


def test_uniform_placement_of_each_card():
    """Each card lands in F, M, R, skat with probabilities 10/32, 10/32, 10/32, 2/32."""
    n = 200_000
    deals = deal_batch(20240601, 0, n)
    bits = ((deals[:, :, None] >> np.arange(32, dtype=np.uint32)) & 1).astype(np.int64)
    counts = bits.sum(axis=0).T  # (card, place)
    expected = n * PLACE_SHARES
    chi2_per_card = ((counts - expected) ** 2 / expected).sum(axis=1)
    # Card totals and place totals are fixed, so the table has 31 * 3 degrees of freedom.
    assert chi2_per_card.sum() < chi2_threshold(93)
    # No single card is biased either (3 degrees of freedom each).
    assert chi2_per_card.max() < chi2_threshold(3, z=5.5)


@pytest.mark.slow
def test_pairs_of_cards_are_independent():
    """Two given cards share a place as often as the deal's counts say, for every pair."""
    n = 200_000
    deals = deal_batch(77, 0, n)
    bits = ((deals[:, :, None] >> np.arange(32, dtype=np.uint32)) & 1).astype(np.float64)
    sizes = np.array([10, 10, 10, 2])
    iu = np.triu_indices(32, 1)
    worst = 0.0
    for place in range(4):
        together = (bits[:, place, :].T @ bits[:, place, :])[iu]
        p = sizes[place] * (sizes[place] - 1) / (32 * 31)
        z = (together - n * p) / math.sqrt(n * p * (1 - p))
        worst = max(worst, float(np.abs(z).max()))
    # 4 x 496 pair counts; 5.5 sigma is far beyond chance for ~2000 mildly dependent cells.
    assert worst < 5.5


def test_streams_of_different_purposes_and_deals_differ():
    keys = {int(stream_key(np.uint64(s), i, p)) for s in range(3) for i in range(50)
            for p in (STREAM_DEAL, STREAM_PLAY)}
    assert len(keys) == 3 * 50 * 2


@pytest.mark.parametrize("n", [1, 2, 3, 7, 12, 32])
def test_below_is_uniform_and_in_range(n):
    state = stream_key(np.uint64(99), n, 0)
    draws = 30_000
    counts = np.zeros(n, dtype=np.int64)
    for _ in range(draws):
        state, v = below(np.uint64(state), n)
        assert 0 <= v < n
        counts[v] += 1
    if n > 1:
        expected = draws / n
        assert ((counts - expected) ** 2 / expected).sum() < chi2_threshold(n - 1)


def test_below_handles_the_largest_range():
    state = stream_key(np.uint64(1), 0, 0)
    for _ in range(100):
        state, v = below(np.uint64(state), 2**32)
        assert 0 <= v < 2**32


def test_below_rejects_the_biased_draws():
    """For n = 3 * 2**30 a plain multiply-shift maps two draws onto every third value;
    Lemire's rejection must drop one of them, so each residue mod 3 gets a third."""
    n = 3 * 2**30
    state = stream_key(np.uint64(5), 0, 0)
    residues = np.zeros(3, dtype=np.int64)
    for _ in range(6000):
        state, v = below(np.uint64(state), n)
        residues[v % 3] += 1
    # Without rejection residue 0 would get one half; binomial sd here is about 37.
    assert np.abs(residues - 2000).max() < 250
