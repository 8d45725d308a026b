"""skatsim: Skat by the International Skat Order, simulated in bulk.

The code is layered, one folder a layer (the statistics one module), each importing only those
below it (the import contract in pyproject.toml, checked by ``lint-imports``, holds it so):

- :mod:`sim.statistics`: logistic fits of a win probability and their Brier score and log loss,
  shared by the strategies and the analysis; it imports nothing of the toolkit;
- :mod:`sim.rules`: the rules engine (cards, dealing, auction, declarations, trick play,
  what a seat may see, scoring, game records); it imports nothing above it;
- :mod:`sim.solver`: the open-hand solver and its answers for records and declared games;
- :mod:`strategies` (a package of its own): who bids, discards, declares and plays;
- :mod:`sim.runs`: the run folder's format, the runner that fills it and the runs of profiles;
- :mod:`analysis` (a package of its own): tables, plots and reports of run folders; it reads
  the run format (:mod:`sim.runs.schema`, :mod:`sim.runs.folder`) and what a run used from its
  manifest, never the strategies;
- :mod:`sim.imports`: game archives of other programs turned into runs (ISS);
- :mod:`sim.commands`: the ``skatsim`` command line and the commands behind it.

This module only knows the installed version, so that importing the engine never imports the
layers above it, and does nothing else: numba's cached kernels are checked against the sources
where kernels are about to run (:mod:`sim.runs.compiling`)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("skatsim")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"
