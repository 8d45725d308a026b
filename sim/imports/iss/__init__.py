"""Archives of the International Skat Server (../shared/ISS.md): one folder, one format.

- :mod:`sim.imports.iss.notation`: the notation of a record line: cards, fields, moves,
  declaration and result text, and writing a line;
- :mod:`sim.imports.iss.record`: one line checked against the rules (the checked path);
- :mod:`sim.imports.iss.scan` and :mod:`sim.imports.iss.kernels`: numba kernels that read,
  check and score the lines of a batch at once;
- :mod:`sim.imports.iss.archive`: archive files into a run folder;
- :mod:`sim.imports.iss.sample`: archives written by the engine, for tests and the benchmark.
"""
