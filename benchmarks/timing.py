"""Shared helpers for the kappalab speed benchmarks (``benchmarks.bench_*``, not pytest).

Every benchmark prints a header describing the machine (numpy version, BLAS and its thread
pool, OPENBLAS_CORETYPE when set: the environment is reported, never changed), then its
measurements, and ends with one ``RESULT {...}`` line of JSON that ``run_all.py`` collects.
"""

from __future__ import annotations

import cProfile
import io
import json
import os
import platform
import pstats
import sys
import time
from typing import Any, Callable

import numpy as np


def header(title: str) -> MachineLoad:
    """Print what the timings depend on: versions, CPUs, BLAS threads, OPENBLAS_CORETYPE.

    Returns a :class:`MachineLoad` started now; call its ``report()`` at the end.
    """
    load = MachineLoad()
    print("=" * 78)
    print(title)
    print("=" * 78)
    print(f"python {platform.python_version()} on {platform.platform()}")
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count()
    print(f"CPUs usable by this process: {cpus} (os.cpu_count() = {os.cpu_count()})")
    versions = [f"numpy {np.__version__}"]
    from importlib.metadata import PackageNotFoundError, version

    for name in ("kappalab", "krippendorff", "pandas", "scipy"):
        try:
            versions.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    print(", ".join(versions))
    coretype = os.environ.get("OPENBLAS_CORETYPE")
    print(f"OPENBLAS_CORETYPE = {coretype!r} (reported as found; benchmarks do not change it)")
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        if var in os.environ:
            print(f"{var} = {os.environ[var]!r}")
    try:
        from threadpoolctl import threadpool_info

        pools = threadpool_info()
        if not pools:
            print("threadpoolctl: no native thread pool loaded yet")
        for pool in pools:
            print(
                "thread pool: {user_api}/{internal_api} {version} threads={num_threads} "
                "arch={arch} ({path})".format(
                    user_api=pool.get("user_api"),
                    internal_api=pool.get("internal_api"),
                    version=pool.get("version"),
                    num_threads=pool.get("num_threads"),
                    arch=pool.get("architecture", "?"),
                    path=os.path.basename(pool.get("filepath", "")),
                )
            )
    except ImportError:
        print("threadpoolctl not installed: thread pools not reported")
    print("Note: numpy's element-wise kernels, np.unique, np.bincount and np.nonzero are "
          "single-threaded; only BLAS calls (matmul, some einsum) use the thread pool above.")
    print("-" * 78)
    return load


class MachineLoad:
    """CPU time used by *other* processes while a benchmark runs (Linux /proc/stat).

    Timings on a shared machine are only comparable when it is quiet; this reports the share of
    all CPUs that something else used between ``start`` and ``report`` (0 % = quiet).
    """

    def __init__(self) -> None:
        self.start_busy, self.start_own, self.start_wall = self._busy(), self._own(), time.time()

    @staticmethod
    def _busy() -> float | None:
        try:
            with open("/proc/stat") as stat:
                fields = [float(v) for v in stat.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)
        return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def _own() -> float:
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system

    def others_share(self) -> float | None:
        busy = self._busy()
        if busy is None or self.start_busy is None:
            return None
        wall = time.time() - self.start_wall
        cpus = os.cpu_count() or 1
        others = (busy - self.start_busy) - (self._own() - self.start_own)
        return max(0.0, others) / (wall * cpus) if wall > 0 else None

    def report(self) -> float | None:
        share = self.others_share()
        if share is not None:
            note = "quiet" if share < 0.05 else "BUSY: timings are inflated and noisy"
            print(f"machine load from other processes during this benchmark: {share:.0%} of "
                  f"all CPUs ({note})")
        return share


def best_of(fn: Callable[[], Any], repeat: int,
            setup: Callable[[], Any] | None = None) -> tuple[float, float, Any]:
    """(best, median) wall time of ``fn()`` over ``repeat`` runs, and its last result.

    ``setup()`` runs before each timed call, outside the timer.
    """
    times = []
    result = None
    for _ in range(max(1, repeat)):
        if setup is not None:
            setup()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), float(np.median(times)), result


def fmt_time(seconds: float | None) -> str:
    if seconds is None or not np.isfinite(seconds):
        return "n/a"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.3f} s"


def fmt_bytes(n: float) -> str:
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB"]
    x = float(n)
    for unit in units:
        if x < 1024 or unit == units[-1]:
            return f"{x:.3g} {unit}"
        x /= 1024
    return f"{x:.3g} {units[-1]}"  # pragma: no cover


def profile_top(fn: Callable[[], Any], n: int = 25, sort: str = "cumulative") -> str:
    """cProfile ``fn()`` once and return the top ``n`` lines as text."""
    profiler = cProfile.Profile()
    profiler.enable()
    fn()
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.strip_dirs().sort_stats(sort).print_stats(n)
    return out.getvalue()


class CacheResetter:
    """Drop the functools.cached_property values an object computed after it was built.

    Built with the freshly constructed object: values its constructor stored in ``__dict__``
    under a cached_property name (primary data, e.g. counts of a ``from_counts`` table) are
    kept; anything cached later (per-item sums, counts, derived codes) is dropped by
    ``reset()``, so the next call recomputes it. Use ``setup=resetter.reset`` in
    :func:`best_of` to time an estimator without its caches.
    """

    def __init__(self, obj: Any):
        from functools import cached_property

        self.obj = obj
        self.names = {
            name
            for klass in type(obj).__mro__
            for name, attr in vars(klass).items()
            if isinstance(attr, cached_property)
        }
        self.primary = set(obj.__dict__) & self.names

    def reset(self) -> list[str]:
        dropped = [name for name in self.names - self.primary if name in self.obj.__dict__]
        for name in dropped:
            del self.obj.__dict__[name]
        return dropped


def emit_result(payload: dict[str, Any]) -> None:
    """The last line of a benchmark: machine-readable, collected by run_all.py."""
    print("RESULT " + json.dumps(payload, default=float))
    sys.stdout.flush()
