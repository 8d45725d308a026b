"""Archives of the International Skat Server (../shared/ISS.md): one folder, one format.

- :mod:`sim.imports.iss.record`: one record line read and checked by the server's rules;
- :mod:`sim.imports.iss.results`: the server's result beside the engine's, and what must agree;
- :mod:`sim.imports.iss.kernels`: numba kernels that read, check and score many lines at once;
- :mod:`sim.imports.iss.archive`: archive files into a run folder;
- :mod:`sim.imports.iss.sample`: archives written by the engine, for tests and the benchmark.
"""
