"""numba's cached kernels are dropped when a source of sim or strategies changes (sim.runs.compiling),
and kept while nothing changed, so no kernel runs the old code of a module it compiled in."""

from __future__ import annotations

from sim.runs.compiling import drop_stale_kernels


def tree(root):
    for package in ("sim", "strategies"):
        (root / package / "sub" / "__pycache__").mkdir(parents=True)
        (root / package / "sub" / "module.py").write_text("x = 1\n")
    return root


def cache(root):
    kernels = [root / "sim" / "sub" / "__pycache__" / "module.kernel-1.py311.nbi",
               root / "strategies" / "sub" / "__pycache__" / "module.kernel-1.py311.1.nbc"]
    for path in kernels:
        path.write_bytes(b"compiled")
    (root / "sim" / "sub" / "__pycache__" / "module.cpython-311.pyc").write_bytes(b"bytecode")
    return kernels


def test_caches_of_unknown_sources_are_dropped_and_then_kept(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    root = tree(tmp_path)
    kernels = cache(root)
    assert drop_stale_kernels(root) and not any(path.exists() for path in kernels)
    assert (root / "sim" / "sub" / "__pycache__" / "module.cpython-311.pyc").exists()  # only numba's files
    kernels = cache(root)
    assert not drop_stale_kernels(root) and all(path.exists() for path in kernels)


def test_an_edit_of_any_source_drops_every_cached_kernel(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    root = tree(tmp_path)
    drop_stale_kernels(root)
    kernels = cache(root)
    (root / "strategies" / "sub" / "module.py").write_text("x = 2\n")
    assert drop_stale_kernels(root) and not any(path.exists() for path in kernels)
    (root / "strategies" / "sub" / "new.py").write_text("y = 1\n")  # a new module counts too
    kernels = cache(root)
    assert drop_stale_kernels(root) and not any(path.exists() for path in kernels)


def test_a_cache_folder_of_its_own_is_left_to_numba(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "elsewhere"))
    root = tree(tmp_path)
    kernels = cache(root)
    assert not drop_stale_kernels(root) and all(path.exists() for path in kernels)
