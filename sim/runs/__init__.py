"""Runs of deals: the run folder's format, the runner that fills it, and the runs skatsim's players make.

The run format, which analysis and the importers read and write too:

- :mod:`sim.runs.schema`: the columns of a run's parts, their Arrow types and labels, versioned;
- :mod:`sim.runs.folder`: the run folder: its parts and manifest, checked, and where a run goes
  when it is not told;
- :mod:`sim.runs.atomic`: files and folders written whole or not at all;
- :mod:`sim.runs.lock`: one command at a time in a run folder, and its temporary files removed
  when it stops.

The runs:

- :mod:`sim.runs.compiling`: numba's kernels before a run plays: stale caches dropped, the
  warm-up, the first run's message and its two processes;
- :mod:`sim.runs.runner`: a strategy-agnostic run of deals, cut into parts, on every core
  or on a Dask cluster (:mod:`sim.runs.cluster`, which analysis uses too); resumed and grown;
- :mod:`sim.runs.players`: who plays a run, as its processes build them and its manifest and rows
  record them (profiles, models, evaluators);
- :mod:`sim.runs.conditional`: how a run deals: uniformly, or with fixed cards and a condition on the
  hands, checked, recorded and built once a process;
- :mod:`sim.runs.simulation`: a profile's run (``simulate``);
- :mod:`sim.runs.matches`: a duplicate match between two profiles (``match``);
- :mod:`sim.runs.tournaments`: every pair of several profiles in such a match (``play_tournament``;
  :func:`analysis.rank_tournament` ranks them);
- :mod:`sim.runs.decisions`: card decisions valued by a teacher, and reading them back;
- :mod:`sim.runs.calibrating`: a profile that bids and declares by expected score, fitted on
  declare-mode runs and refitted on its own (``calibrate``);
- :mod:`sim.runs.hands`: what one hand is worth, every game played out over deals of the unseen
  cards (``judge_hand``);
- :mod:`sim.runs.modes`: the play of each mode of run, rebuilt from its manifest, and repair.

Imports the rules engine, the solver and the strategies; never analysis, the importers
or the commands.
"""


class RunError(ValueError):
    """A run that cannot start, continue or be read: bad settings, a foreign or damaged folder."""
