"""Making a learned card player from the toolkit's own simulated play.

- :mod:`strategies.learning.teacher`: card decisions of simulated deals, each legal card valued by a
  teacher (the open-hand value of the real deal, or the end a rollout of the players reaches);
- :mod:`strategies.learning.lockstep_rollout`: the rollout teacher's play-outs for a profile with card
  players in Python, played in lockstep;
- :mod:`strategies.learning.training`: the ``learned`` player's linear weights per decision context,
  fitted to those values, and the report on held-out deals;
- :mod:`strategies.learning.network`: the small network fitted over the linear weights.

``skatsim decisions`` and ``skatsim train card-play`` run them; the player itself is
:mod:`strategies.cardplay.learned`.
"""
