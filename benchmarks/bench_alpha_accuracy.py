"""Nominal α on ten million annotations against its exact rational value: the accuracy of the
spine's totals, and the estimator's time.

Data: ``--annotations`` annotations (default 10 000 000) on ``--items`` items (default a
fifth as many), each annotation of a uniformly drawn item, so that the items have 0 to ~20
annotations (Poisson-like); each is the item's true category (one of ``--categories``,
default 5) with probability 1/2, else a uniformly drawn category; long format, the rater of
an annotation being its rank within its item. Drawn with a fixed seed.

The exact α is computed in rational arithmetic (``fractions``) from the definition,

    α = 1 − (n − 1) Σ_i (m_i² − Σ_c n_ic²)/(m_i − 1) / (n² − Σ_c N_c²),

over the items with m_i ≥ 2 annotations (n_ic their counts, n = Σ m_i, N_c = Σ_i n_ic): the
integers are summed exactly in int64 and the sum over items is grouped by m_i, so only a
handful of fractions are added. kappalab's value, ``kl.krippendorff_alpha(frame)``, must be
within 1e-13 of it (target); with ``--peer`` the ``krippendorff`` package's value on the same
data (a raters × items table) is shown beside it.

The estimator on the built ``Annotations`` (its cached per-item counts cleared before every
run) is timed best-of-``--repeat``: the totals are summed by blocks of 128 items and then
pairwise (``kappalab.kernels.column_totals``), which must cost no more than a single pass.

Run (from the repository root): ``python -m benchmarks.bench_alpha_accuracy
[--annotations N] [--repeat R] [--peer]``.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction

import numpy as np
import pandas as pd

from benchmarks import timing
from tests.test_extreme_values import exact_nominal_alpha  # the oracle of the 1 M test

TARGET = 1e-13


def make_data(n: int, n_items: int, n_categories: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    item = rng.integers(0, n_items, n)
    truth = rng.integers(0, n_categories, n_items)
    value = np.where(rng.random(n) < 0.5, truth[item], rng.integers(0, n_categories, n))
    order = np.argsort(item, kind="stable")
    start = np.searchsorted(item[order], np.arange(n_items))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - start[item[order]]  # each annotation's rank in its item
    return pd.DataFrame({"item": item, "rater": rank, "value": value})


def peer_alpha(frame: pd.DataFrame, n_items: int) -> float:
    import krippendorff

    table = np.full((int(frame["rater"].max()) + 1, n_items), np.nan)
    table[frame["rater"].to_numpy(), frame["item"].to_numpy()] = frame["value"].to_numpy()
    return float(krippendorff.alpha(reliability_data=table, level_of_measurement="nominal"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotations", type=int, default=10_000_000)
    parser.add_argument("--items", type=int, default=None,
                        help="number of items (default: annotations / 5)")
    parser.add_argument("--categories", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--peer", action="store_true",
                        help="also the krippendorff package's value on the same data")
    args = parser.parse_args(argv)
    n_items = args.items or max(1, args.annotations // 5)

    import kappalab as kl

    load = timing.header("nominal alpha at ten million annotations: accuracy against the "
                         "exact rational value")
    frame = make_data(args.annotations, n_items, args.categories, args.seed)
    print(f"data: {args.annotations} annotations on {n_items} items (0 to "
          f"{int(np.bincount(frame['item']).max())} annotations each), {args.categories} "
          f"categories, long format; seed {args.seed}")
    exact = exact_nominal_alpha(frame["item"].to_numpy(), frame["value"].to_numpy(), n_items,
                                args.categories)
    ann = kl.Annotations.from_long(frame)
    caches = timing.CacheResetter(ann)
    best, median, est = timing.best_of(lambda: kl.krippendorff_alpha(ann), args.repeat,
                                       setup=caches.reset)
    value = float(est.value)
    error = float(abs(Fraction(value) - exact))
    print(f"alpha exact (fractions) = {float(exact)!r}")
    print(f"alpha kappalab          = {value!r}   |error| = {error:.3g}")
    peer_error = None
    if args.peer:
        peer = peer_alpha(frame, n_items)
        peer_error = float(abs(Fraction(peer) - exact))
        print(f"alpha krippendorff      = {peer!r}   |error| = {peer_error:.3g}")
    met = error <= TARGET
    print(f"|error| ≤ {TARGET:g}: {'MET' if met else 'MISSED'}")
    print(f"estimator on the built Annotations: best {timing.fmt_time(best)}, median "
          f"{timing.fmt_time(median)} (best of {args.repeat})")
    others = load.report()
    timing.emit_result({
        "others_cpu_share": others, "benchmark": "alpha_accuracy",
        "annotations": args.annotations, "items": n_items, "alpha_exact": float(exact),
        "alpha_kappalab": value, "abs_error": error, "peer_abs_error": peer_error,
        "estimator_s": best, "estimator_median_s": median, "agree": met,
        "target": f"|error| <= {TARGET:g}", "target_met": met,
    })
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
