"""skatsim: Skat by the International Skat Order, simulated in bulk.

The package is layered, each layer importing only those below it:

- :mod:`sim.rules`: the rules engine (cards, dealing, auction, declarations, trick
  play, what a seat may see, scoring, game records);
- :mod:`strategies` (a package of its own): who bids, discards, declares and plays;
- :mod:`sim.runs.folder`: the format of a run folder (manifest, Parquet parts, schema);
- :mod:`analysis` (a package of its own): tables, plots and reports of run folders;
- on top, :mod:`sim.runs.runner` (runs of deals on every core), :mod:`sim.runs.simulation`
  (a profile's run: ``simulate``), :mod:`sim.commands.show` and the command line :mod:`sim.commands.cli`.

This module only knows the installed version, so that importing the engine never
imports the layers above it.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("skatsim")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"
