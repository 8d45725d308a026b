"""The ``skatsim`` commands: the top layer, free to import every layer below it.

- :mod:`sim.commands.cli`: the click group and one subcommand per job;
- :mod:`sim.commands.options`: the options every command that plays a run takes;
- :mod:`sim.commands.show`: one deal of a run as a person reads it;
- :mod:`sim.commands.hand`: what one hand is worth, by simulation;
- :mod:`sim.commands.calibrate`: fitting a calibrated profile on declare-mode runs;
- :mod:`sim.commands.tournament`: every pair of several profiles in a duplicate match;
- :mod:`sim.commands.results`: match and tournament results as text (and JSON);
- :mod:`sim.commands.learn`: ``decisions`` and ``train card-play``, the learned card player's commands.
"""

import os

# skatsim spreads its work over processes (--jobs), not over the threads of the BLAS library behind
# NumPy: a thread pool in every process, on cores that are busy, makes the small matrix products of
# `skatsim train card-play` some ten times slower (and leaves the sums' order to the thread count).
# Read when NumPy is first imported, which the commands do after this.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
