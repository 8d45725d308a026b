"""The ``skatsim`` commands: the top layer, free to import every layer below it.

- :mod:`sim.commands.cli`: the click group, every command registered in it, and the console
  script's entry point;
- :mod:`sim.commands.terminal`: what a command tells the person at the terminal: a mistake in one
  line, progress, notices;
- :mod:`sim.commands.options`: the options every command that plays a run takes;
- :mod:`sim.commands.game_records`: ``replay`` and ``solve``, the commands on game records;
- :mod:`sim.commands.playing`: ``simulate``, ``match``, ``tournament``, ``hand`` and ``strategies``;
- :mod:`sim.commands.run_folders`: ``import iss``, ``show``, ``verify`` and ``analyze``;
- :mod:`sim.commands.learn`: ``calibrate``, ``decisions`` and ``train card-play``;
- behind the commands, what they print: :mod:`sim.commands.show` (one deal of a run as a person
  reads it) and :mod:`sim.commands.results` (match and tournament results as text and JSON).
"""

import os

# skatsim spreads its work over processes (--jobs), not over the threads of the BLAS library behind
# NumPy: a thread pool in every process, on cores that are busy, makes the small matrix products of
# `skatsim train card-play` some ten times slower (and leaves the sums' order to the thread count).
# Read when NumPy is first imported, which the commands do after this.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
