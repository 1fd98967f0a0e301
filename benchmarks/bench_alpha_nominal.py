"""Krippendorff's α (nominal), kappalab against the `krippendorff` package.

Data: ``--items`` items × ``--raters`` raters (default 200 000 × 10), values 1..K
(``--categories``, default 5) stored as float, ``--missing`` of the cells NaN (default 30 %),
drawn with a fixed seed. Both libraries start from the same raw items × raters numpy array:

* kappalab: ``kl.krippendorff_alpha(x)`` end to end (ingest + estimator);
* krippendorff: ``krippendorff.alpha(reliability_data=x.T, level_of_measurement="nominal")``
  (it wants raters × items; the transpose is a free view and is inside its timer).

Each is timed best-of-``--repeat`` with ``time.perf_counter``; the two values must agree to
1e-9. Target: kappalab ≥ 5× faster. For interpretation the kappalab time is also
split into ingest (``Annotations.from_wide``) and the estimator on the built ``Annotations``
(its cached per-item counts cleared before every run). ``--profile`` adds a cProfile listing.

Run: ``python -m benchmarks.bench_alpha_nominal [--items N] [--repeat R] [--profile]``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from benchmarks import timing

TARGET_SPEEDUP = 5.0
TOLERANCE = 1e-9


def make_data(n_items: int, n_raters: int, n_categories: int, missing: float,
              seed: int) -> np.ndarray:
    """Each item has a true category; a rater reports it with probability 0.6, else a
    uniformly random category (so α is clearly positive, not ≈ 0)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, n_categories + 1, size=(n_items, 1))
    noise = rng.integers(1, n_categories + 1, size=(n_items, n_raters))
    x = np.where(rng.random((n_items, n_raters)) < 0.6, truth, noise).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    return x


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--raters", type=int, default=10)
    parser.add_argument("--categories", type=int, default=5)
    parser.add_argument("--missing", type=float, default=0.30)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--profile", action="store_true",
                        help="print a cProfile listing of one kappalab call")
    args = parser.parse_args(argv)

    import krippendorff

    import kappalab as kl

    load = timing.header("Krippendorff's alpha, nominal: kappalab vs krippendorff")
    x = make_data(args.items, args.raters, args.categories, args.missing, args.seed)
    n_annotations = int(np.count_nonzero(~np.isnan(x)))
    print(f"data: {args.items} items × {args.raters} raters, {args.categories} categories "
          f"(1..{args.categories} as float), {args.missing:.0%} missing cells "
          f"-> {n_annotations} annotations; seed {args.seed}; best of {args.repeat}")

    # ---- end to end, same raw array
    kl_best, kl_median, kl_est = timing.best_of(lambda: kl.krippendorff_alpha(x), args.repeat)
    kr_best, kr_median, kr_value = timing.best_of(
        lambda: krippendorff.alpha(reliability_data=x.T, level_of_measurement="nominal"),
        args.repeat,
    )
    kl_value = float(kl_est)
    kr_value = float(kr_value)
    diff = abs(kl_value - kr_value)
    agree = diff <= TOLERANCE
    speedup = kr_best / kl_best

    # ---- where kappalab's time goes: ingest vs estimator on a built Annotations
    ingest_best, _, ann = timing.best_of(lambda: kl.Annotations.from_wide(x), args.repeat)
    caches = timing.CacheResetter(ann)
    est_best, _, est2 = timing.best_of(
        lambda: kl.krippendorff_alpha(ann, level="nominal"), args.repeat, setup=caches.reset,
    )
    assert abs(float(est2) - kl_value) <= TOLERANCE
    dropped = caches.reset()

    print()
    print(f"{'':34s}{'best':>12s}{'median':>12s}")
    print(f"{'kappalab  krippendorff_alpha(x)':34s}{timing.fmt_time(kl_best):>12s}"
          f"{timing.fmt_time(kl_median):>12s}")
    print(f"{'krippendorff alpha(x.T)':34s}{timing.fmt_time(kr_best):>12s}"
          f"{timing.fmt_time(kr_median):>12s}")
    print(f"{'  kappalab ingest from_wide(x)':34s}{timing.fmt_time(ingest_best):>12s}")
    print(f"{'  kappalab estimator on Annotations':34s}{timing.fmt_time(est_best):>12s}"
          f"   (cached {sorted(dropped) or 'nothing'} dropped before each run)")
    print()
    print(f"alpha  kappalab     = {kl_value!r}")
    print(f"alpha  krippendorff = {kr_value!r}")
    print(f"|difference| = {diff:.3g}  ->  {'AGREE' if agree else 'DISAGREE'} "
          f"(tolerance {TOLERANCE:g})")
    verdict = "MET" if speedup >= TARGET_SPEEDUP else "MISSED"
    print(f"speed-up krippendorff / kappalab (best times) = {speedup:.2f}×  "
          f"(target ≥ {TARGET_SPEEDUP:g}×: {verdict})")

    if args.profile:
        print()
        print("cProfile of one kl.krippendorff_alpha(x) call (cumulative):")
        print(timing.profile_top(lambda: kl.krippendorff_alpha(x), n=30))

    others = load.report()
    timing.emit_result({
        "others_cpu_share": others,
        "benchmark": "alpha_nominal",
        "items": args.items, "raters": args.raters, "annotations": n_annotations,
        "kappalab_s": kl_best, "krippendorff_s": kr_best, "speedup": speedup,
        "kappalab_ingest_s": ingest_best, "kappalab_estimator_s": est_best,
        "alpha_kappalab": kl_value, "alpha_krippendorff": kr_value, "abs_diff": diff,
        "agree": agree, "target": f">= {TARGET_SPEEDUP:g}x",
        "target_met": speedup >= TARGET_SPEEDUP,
    })
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
