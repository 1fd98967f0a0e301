"""Ordinal α and Fleiss' κ with its analytic SE at a million items: the cost of the spine's
skinny matrix products and of the standard error's passes over the item rows.

Data: ``--items`` items (default 1 000 000) × ``--raters`` raters (default 5), each rating
one of 5 ordered categories (a latent item score plus rater noise, cut at fixed
thresholds), no missing cells; the ``Annotations`` is built once (``from_wide``).

Timed, each ``--repeat`` times (default 5) in turn so that all see the same machine load:

1. ``kl.krippendorff_alpha(ann, level="ordinal")``;
2. ``kl.fleiss_kappa(ann, ci="analytic")`` and, with Gwet's ordinal weights (a K × K
   matrix, so the items' n_iᵀ W n_i is an items × K by K × K product),
   ``kl.fleiss_kappa(ann, weights="ordinal", ci="analytic")``;
3. ``kl.krippendorff_alpha(ann, level="ordinal", ci="analytic")``;
4. ``kl.krippendorff_alpha(ann, level="ordinal", ci="bootstrap", n_resamples=200)``: the
   items' identical rows of statistics are merged before resampling
   (``kappalab.kernels.distinct_rows``), which dominates at this size.

Each line prints the median, the spread (fastest–slowest) and the best of the repeats. The
products of an items × s matrix with an s-vector or an s × s matrix (s a handful of
columns) are memory-bound: run on a multi-threaded BLAS of a loaded machine they can cost
many times their single-threaded time, which is why kappalab runs them on one BLAS thread
(``kappalab.kernels.single_blas_thread``); the header shows the BLAS thread pools.

Run (from the repository root): ``python -m benchmarks.bench_large_items [--items N]
[--repeat R]``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from benchmarks.timing import emit_result, fmt_time, header

import kappalab as kl


def make_data(n_items: int, n_raters: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(n_items, 1)) + rng.normal(0.0, 0.7, size=(n_items, n_raters))
    return np.digitize(latent, [-1.2, -0.4, 0.4, 1.2]) + 1  # categories 1 … 5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--raters", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20240602)
    args = parser.parse_args(argv)
    load = header("ordinal alpha and Fleiss' kappa (analytic SE) at many items")

    ann = kl.Annotations.from_wide(make_data(args.items, args.raters, args.seed))
    print(f"data: {ann.n_items} items × {args.raters} raters, {ann.n_categories} ordered "
          f"categories, {ann.n_annotations} annotations")
    cases = {
        "ordinal alpha": lambda: kl.krippendorff_alpha(ann, level="ordinal"),
        "fleiss_kappa ci=analytic": lambda: kl.fleiss_kappa(ann, ci="analytic"),
        "fleiss ordinal w ci=analytic": lambda: kl.fleiss_kappa(ann, weights="ordinal",
                                                                ci="analytic"),
        "ordinal alpha ci=analytic": lambda: kl.krippendorff_alpha(ann, level="ordinal",
                                                                   ci="analytic"),
        "ordinal alpha ci=bootstrap": lambda: kl.krippendorff_alpha(
            ann, level="ordinal", ci="bootstrap", n_resamples=200, seed=1),
    }
    results = {name: fn() for name, fn in cases.items()}  # warm the data's caches
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.repeat):
        for name, fn in cases.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)

    print(f"{'':28s}{'median':>12s}{'spread (min–max)':>26s}   value (SE)")
    rows = []
    for name, seconds in times.items():
        est = results[name]
        median, low, high = float(np.median(seconds)), min(seconds), max(seconds)
        se = "" if est.se is None else f" ({est.se:.3g})"
        print(f"{name:28s}{fmt_time(median):>12s}{fmt_time(low):>13s} – {fmt_time(high):<10s}"
              f"   {float(est):.6f}{se}")
        rows.append({"case": name, "median_s": median, "min_s": low, "max_s": high})
    others = load.report()
    emit_result({
        "others_cpu_share": others, "benchmark": "large_items", "items": args.items,
        "raters": args.raters, "repeat": args.repeat, "rows": rows,
        "ok": all(np.isfinite(float(est)) for est in results.values()),
        "target": "none (reported)", "target_met": True,
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
