"""Two plays that differ only in cards forehand cannot see, and forehand's view of them: the setup of
the hidden-information tests of the card players."""

from __future__ import annotations

import numpy as np

from sim.rules.shuffle import deal
from sim.rules.tricks import new_play
from sim.rules.view import VIEW, seat_view, set_declaration


def view_of(state, seat):
    """The view of ``seat`` of a play at bid 18, no announcement."""
    view = np.zeros(VIEW.size, dtype=np.int64)
    set_declaration(view, 0, 0, 0, 0, 18)
    seat_view(state, seat, 0, view)
    return view


def unseen_swapped(index: int, seed: int = 9):
    """(play, the same play with a card of middlehand and one of rearhand swapped, declarer) of deal
    ``index``, its game ``index % 6`` declared by seat ``index % 3``."""
    f, m, r, _ = deal(seed, index)
    game, declarer = index % 6, index % 3
    c1, c2 = int(m) & -int(m), int(r) & -int(r)
    return new_play(f, m, r, game, declarer), new_play(f, (m & ~c1) | c2, (r & ~c2) | c1, game, declarer), declarer
