"""Shared test settings and fixtures.

Hypothesis runs derandomized by default, so every run of the suite tries the same
examples and a failure in CI can be reproduced anywhere. Set
``HYPOTHESIS_PROFILE=explore`` to search with fresh random examples instead.

numba's cached kernels are checked against the sources once, before any test loads one.

The ``reference`` run is here, not in one folder's files, because tests of runs, of commands and of
analysis read it.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

from sim.runs.compiling import check_kernel_cache

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore",
    derandomize=False,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config):
    """Drop stale cached kernels in the main process, before the test modules are imported and before
    pytest-xdist starts its workers."""
    if not hasattr(config, "workerinput"):
        check_kernel_cache()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The reference run of tests/reference_run.py (the runner's, `show`'s and the report's tests), made once
    for each test file that asks for it."""
    from tests.reference_run import reference_run

    return reference_run(tmp_path_factory.mktemp("runs") / "reference")
