"""kernels.single_blas_thread: one BLAS thread inside the block, the previous limits restored
after it (nested blocks and blocks in several threads included), and estimates unchanged."""

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

    monkeypatch.setattr(kernels._BlasLimit, "controller", Controller())
    small = np.array([[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2]], float)
    big = np.tile(small, (kernels.SMALL_BLAS_CELLS // 8, 1))  # items × (K + 3) above it
    kl.fleiss_kappa(small)
    assert entered == []
    # Fleiss' κ of repeated items is that of the items: by hand P_o = (1/3 + 1 + 1 + 1/3)/4
    # = 2/3, π = (5, 5, 2)/12, P_e = 54/144, κ = (2/3 − 3/8)/(1 − 3/8) = 7/15
    assert float(kl.fleiss_kappa(big)) == pytest.approx(7 / 15, abs=1e-12)
    assert float(kl.fleiss_kappa(small)) == pytest.approx(7 / 15, abs=1e-12)
    assert entered and entered[0] == (1, "blas")
