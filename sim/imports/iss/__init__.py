"""Archives of the International Skat Server (docs/imports.md): one folder, one format.

- :mod:`sim.imports.iss.notation`: the notation of a record line: cards, fields, moves,
  declaration and result text, reading and writing a line;
- :mod:`sim.imports.iss.record`: one line checked by the rules engine and the server's rules (the
  checked path);
- :mod:`sim.imports.iss.results`: the server's result beside the engine's, and what must agree;
- :mod:`sim.imports.iss.scan` and :mod:`sim.imports.iss.kernels`: numba kernels that read,
  check and score many lines at once (the fast path, which accepts exactly what the checked
  path accepts);
- :mod:`sim.imports.iss.files`: archive files, their identity and compression, cut into batches;
- :mod:`sim.imports.iss.columns`: a batch turned into the columns of a run and its problems;
- :mod:`sim.imports.iss.archive`: the format as the run writer takes it (:class:`IssArchives`);
- :mod:`sim.imports.iss.sample`: archives written by the engine, for tests and the benchmark.
"""
