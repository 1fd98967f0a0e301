"""kernels.single_blas_thread: one BLAS thread inside the block, the previous limits restored
after it (nested blocks and blocks in several threads included), and estimates unchanged."""

import sys
import threading

import numpy as np
import pytest

threadpoolctl = pytest.importorskip("threadpoolctl")

import kappalab as kl  # noqa: E402
from kappalab.kernels import single_blas_thread  # noqa: E402


def blas_threads():
    return sorted(pool["num_threads"] for pool in threadpoolctl.threadpool_info()
                  if pool["user_api"] == "blas")


def test_one_thread_inside_and_the_limits_restored_after():
    with threadpoolctl.threadpool_limits(2, "blas"):
        before = blas_threads()
        with single_blas_thread():
            assert set(blas_threads()) <= {1}
            with single_blas_thread():  # nested: still one thread, and not restored early
                pass
            assert set(blas_threads()) <= {1}
        assert blas_threads() == before


def test_a_block_in_another_thread_leaves_the_limits_alone():
    # OpenBLAS takes a thread count only from the thread that started it: a block in a worker
    # thread (a thread-pool scheduler) must neither change the count nor restore it later
    with threadpoolctl.threadpool_limits(2, "blas"):
        before = blas_threads()
        entered, release, seen = threading.Event(), threading.Event(), []

        def work():
            with single_blas_thread():
                entered.set()
                release.wait(timeout=30)
                seen.append(float(np.ones(3) @ np.ones(3)))

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        try:
            entered.wait(timeout=30)
            with single_blas_thread():  # the main thread's own block still limits
                assert set(blas_threads()) <= {1}
            during = blas_threads()
        finally:
            release.set()
            worker.join(timeout=30)
        assert during == before and blas_threads() == before and seen == [3.0]


def test_an_estimate_leaves_the_blas_threads_as_they_were():
    rng = np.random.default_rng(0)
    data = rng.integers(1, 5, size=(200, 4))
    # first run: what the estimate imports on first use (scipy's parts, which may bring a
    # BLAS library of their own) is loaded before the limits are read
    kl.krippendorff_alpha(data, level="ordinal", ci="analytic")
    with threadpoolctl.threadpool_limits(2, "blas"):
        before = blas_threads()
        est = kl.krippendorff_alpha(data, level="ordinal", ci="analytic")
        assert blas_threads() == before
    assert np.isfinite(est.value) and est.se > 0


def test_a_large_estimate_still_limits_blas_threads(monkeypatch):
    """Above ``SMALL_BLAS_CELLS`` cells the estimate sets the one-thread limit; below it
    does not (the value is the same either way)."""
    from kappalab import kernels

    entered = []

    class Limiter:
        def restore_original_limits(self):
            pass

    class Controller:
        def limit(self, limits, user_api):
            entered.append((limits, user_api))
            return Limiter()

    small = np.array([[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2]], float)
    big = np.tile(small, (kernels.SMALL_BLAS_CELLS // 8, 1))  # items × (K + 3) above it
    kl.fleiss_kappa(big)  # what it imports on first use, imported before the controller
    monkeypatch.setattr(kernels._BlasLimit, "controller", Controller())
    monkeypatch.setattr(kernels._BlasLimit, "modules_seen", len(sys.modules))
    kl.fleiss_kappa(small)
    assert entered == []
    # Fleiss' κ of repeated items is that of the items: by hand P_o = (1/3 + 1 + 1 + 1/3)/4
    # = 2/3, π = (5, 5, 2)/12, P_e = 54/144, κ = (2/3 − 3/8)/(1 − 3/8) = 7/15
    assert float(kl.fleiss_kappa(big)) == pytest.approx(7 / 15, abs=1e-12)
    assert float(kl.fleiss_kappa(small)) == pytest.approx(7 / 15, abs=1e-12)
    assert entered and entered[0] == (1, "blas")


def test_a_blas_library_loaded_after_the_first_block_is_limited_too():
    """The controller found in the first block must not miss a BLAS library loaded later
    (scipy's, which the lazily imported parts of scipy bring): checked in a fresh
    interpreter, where scipy's BLAS is not loaded before the first block."""
    import subprocess

    code = (
        "import numpy as np, threadpoolctl\n"
        "import kappalab\n"
        "from kappalab.kernels import single_blas_thread\n"
        "with threadpoolctl.threadpool_limits(2, 'blas'):\n"
        "    with single_blas_thread():\n"
        "        pass\n"
        "    import scipy.linalg, scipy.special  # scipy's own BLAS, if it has one\n"
        "    with single_blas_thread():\n"
        "        inside = sorted(p['num_threads'] for p in threadpoolctl.threadpool_info()\n"
        "                        if p['user_api'] == 'blas')\n"
        "print(' '.join(map(str, inside)))\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    assert set(out.split()) == {"1"}, out
