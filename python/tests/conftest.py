"""pytest set-up for the wagener package's tests (run by CTest: python_tests, python_cuda_tests)."""

import os

import pytest
from hypothesis import settings

# A fresh random search every run, no example database written into the tree, no deadline on
# shared machines; a failure prints the falsifying example and how to reproduce it.
settings.register_profile("wagener", database=None, deadline=None, print_blob=True)
settings.load_profile("wagener")


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: needs a CUDA device (and CuPy or PyTorch for most tests)")


def pytest_sessionfinish(session, exitstatus):
    """With WAGENER_ALL_SKIPPED_EXIT=N, exit with N when tests ran and every one skipped, so that
    CTest reports the device tests as skipped, not passed, on a machine without a GPU."""
    code = os.environ.get("WAGENER_ALL_SKIPPED_EXIT")
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if not code or reporter is None or exitstatus != 0:
        return
    stats = reporter.stats
    if stats.get("skipped") and not stats.get("passed") and not stats.get("failed"):
        session.exitstatus = int(code)


@pytest.fixture
def rng():
    """A fresh seed per test (printed, so a failure shows it); WAGENER_TEST_SEED=N replays N."""
    import numpy as np

    seed = int(os.environ.get("WAGENER_TEST_SEED") or np.random.SeedSequence().entropy)
    print(f"seed {seed} (WAGENER_TEST_SEED={seed} replays it)")
    return np.random.default_rng(seed)
