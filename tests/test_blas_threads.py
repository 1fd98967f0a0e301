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
