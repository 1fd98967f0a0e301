"""Speed at the front door: two label arrays into Cohen's κ, and a long table
into ``Annotations.from_long``.

1. ``kl.cohen_kappa(y1, y2)`` against scikit-learn's ``cohen_kappa_score(y1, y2)`` on the same
   two label arrays of ``--pairs`` pairs (default 1 000 000), once with int64 labels and once
   with string labels (a numpy unicode array): 5 categories, the second rater copying the
   first with probability 0.6. Target: kappalab no slower (ratio kappalab / sklearn ≤ 1).
2. ``kl.Annotations.from_long(df)`` on ``--rows`` rows (default 10 000 000): item ids int64,
   rater ids strings (pandas' default string dtype), values int64 1..5, complete; against the
   floor of the same work done bare — ``pandas.factorize`` of the three columns and one
   ``np.bincount`` of the items × categories counts. Target: ratio ≤ 2. (from_long also
   checks for missing keys and duplicated (item, rater) pairs, which the floor does not.)

Each time is best-of-``--repeat`` with ``time.perf_counter``; the values must agree (κ to
1e-12, the from_long counts exactly with the floor's). Run from the repository root
(the header prints which kappalab was imported):
``python -m benchmarks.bench_ingest [--pairs N] [--rows N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from benchmarks import timing

TOLERANCE = 1e-12
TARGET_COHEN = 1.0
TARGET_LONG = 2.0


def two_raters(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y1 = rng.integers(0, 5, n)
    y2 = np.where(rng.random(n) < 0.6, y1, rng.integers(0, 5, n))
    return y1, y2


def long_table(n_rows: int, raters_per_item: int, seed: int):
    import pandas as pd

    rng = np.random.default_rng(seed)
    n_items = n_rows // raters_per_item
    n_rows = n_items * raters_per_item
    pool = 50  # each item's raters: consecutive ids from a random start, so no pair repeats
    start = rng.integers(0, pool, n_items)
    rater = (np.repeat(start, raters_per_item)
             + np.tile(np.arange(raters_per_item), n_items)) % pool
    truth = rng.integers(1, 6, n_items)
    value = np.where(rng.random(n_rows) < 0.6, np.repeat(truth, raters_per_item),
                     rng.integers(1, 6, n_rows))
    names = pd.array([f"coder{r:02d}" for r in range(pool)], dtype="str")
    return pd.DataFrame({"item": np.repeat(np.arange(n_items) * 7 + 3, raters_per_item),
                         "rater": names.take(rater), "value": value})


def floor(df) -> tuple[np.ndarray, np.ndarray]:
    """The bare work: factorize the three columns, count items × categories (columns in
    order of first appearance; returned with the category labels)."""
    import pandas as pd

    items, item_labels = pd.factorize(df["item"])
    pd.factorize(df["rater"])
    values, value_labels = pd.factorize(df["value"])
    K = len(value_labels)
    counts = np.bincount(items * K + values, minlength=len(item_labels) * K)
    return counts.reshape(len(item_labels), K), np.asarray(value_labels)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--raters-per-item", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args(argv)

    from sklearn.metrics import cohen_kappa_score

    import kappalab as kl

    load = timing.header("Ingest: cohen_kappa(y1, y2) vs scikit-learn; from_long vs "
                         "factorize + bincount")
    print(f"kappalab imported from {kl.__file__}")
    ok = True
    result: dict = {"benchmark": "ingest", "pairs": args.pairs}

    y1, y2 = two_raters(args.pairs, args.seed)
    letters = np.array(["absent", "mild", "moderate", "severe", "critical"])
    print(f"\n1. Cohen's kappa from two label arrays, {args.pairs} pairs, 5 categories; best of "
          f"{args.repeat}")
    print(f"{'labels':10s}{'kappalab':>12s}{'sklearn':>12s}{'ratio':>8s}   target ≤ "
          f"{TARGET_COHEN:g}")
    for kind, a, b in (("int64", y1, y2), ("string", letters[y1], letters[y2])):
        kl_best, _, kl_est = timing.best_of(lambda: kl.cohen_kappa(a, b), args.repeat)
        sk_best, _, sk_value = timing.best_of(lambda: cohen_kappa_score(a, b), args.repeat)
        diff = abs(float(kl_est) - float(sk_value))
        ok &= diff <= TOLERANCE
        ratio = kl_best / sk_best
        print(f"{kind:10s}{timing.fmt_time(kl_best):>12s}{timing.fmt_time(sk_best):>12s}"
              f"{ratio:>8.2f}   |Δκ| = {diff:.2g}  {'MET' if ratio <= TARGET_COHEN else 'MISSED'}")
        result[f"cohen_{kind}_ratio"] = ratio
        result[f"cohen_{kind}_kappalab_s"] = kl_best
        result[f"cohen_{kind}_sklearn_s"] = sk_best

    df = long_table(args.rows, args.raters_per_item, args.seed)
    print(f"\n2. from_long on {len(df)} rows ({len(df) // args.raters_per_item} items × "
          f"{args.raters_per_item} raters of 50, rater ids {df['rater'].dtype}); best of "
          f"{args.repeat}")
    fl_best, _, (counts, labels) = timing.best_of(lambda: floor(df), args.repeat)
    kl_best, _, ann = timing.best_of(lambda: kl.Annotations.from_long(df), args.repeat)
    same = np.array_equal(ann.count_matrix, counts[:, np.argsort(labels)])
    print(f"items × categories counts identical to the floor's: {same}")
    ok &= bool(same) and ann.n_annotations == len(df)
    ratio = kl_best / fl_best
    print(f"{'factorize + bincount':34s}{timing.fmt_time(fl_best):>12s}")
    print(f"{'kappalab from_long(df)':34s}{timing.fmt_time(kl_best):>12s}")
    print(f"ratio from_long / floor = {ratio:.2f}  (target ≤ {TARGET_LONG:g}: "
          f"{'MET' if ratio <= TARGET_LONG else 'MISSED'})")
    result.update(rows=len(df), from_long_s=kl_best, floor_s=fl_best, from_long_ratio=ratio)

    result["others_cpu_share"] = load.report()
    result["agree"] = bool(ok)
    timing.emit_result(result)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
