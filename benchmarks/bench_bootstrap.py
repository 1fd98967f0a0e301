"""Bootstrap of Krippendorff's α: 2 000 replicates against one estimate.

Data: ``--items`` items (default 100 000) × ``--raters`` raters (default 5), nominal values
1..K (``--categories``, default 5), ``--missing`` of the cells NaN (default 20 %), fixed seed.

* one estimate: ``kl.krippendorff_alpha(ann)`` on a built ``Annotations`` (its cached
  per-item counts cleared before every run);
* the bootstrap: ``kl.krippendorff_alpha(ann, ci="bootstrap", n_resamples=2000)`` on the same
  object, caches cleared too, so it includes the estimate itself.

Target: the bootstrap at most 50× one estimate. Items with the same counts share their item
statistics, so the replicates are multinomial draws over the distinct rows (see
:mod:`kappalab.uncertainty`). For scale, the peer route — recomputing
``krippendorff.alpha`` on each resampled data set — is timed on ``--peer-replicates``
replicates (default 5) and extrapolated to 2 000. A second line times continuous interval
values (every item distinct, so nothing merges: the weights are B × n) for the record, with
no target. Correctness check: the bootstrap SE within 10 % of the analytic (linearisation) SE.

Run: ``python -m benchmarks.bench_bootstrap [--items N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from benchmarks import timing
from benchmarks.bench_alpha_nominal import make_data  # the same data generator

TARGET_RATIO = 50.0
N_RESAMPLES = 2000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--raters", type=int, default=5)
    parser.add_argument("--categories", type=int, default=5)
    parser.add_argument("--missing", type=float, default=0.20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--peer-replicates", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args(argv)

    import krippendorff

    import kappalab as kl

    load = timing.header("Bootstrap of Krippendorff's alpha (nominal): 2000 replicates vs one "
                         "estimate")
    x = make_data(args.items, args.raters, args.categories, args.missing, args.seed)
    ann = kl.Annotations.from_wide(x)
    print(f"data: {args.items} items × {args.raters} raters, {args.categories} categories, "
          f"{args.missing:.0%} missing -> {ann.n_annotations} annotations; best of "
          f"{args.repeat}")

    caches = timing.CacheResetter(ann)
    one_best, one_median, one = timing.best_of(lambda: kl.krippendorff_alpha(ann), args.repeat,
                                               setup=caches.reset)
    boot_best, boot_median, boot = timing.best_of(
        lambda: kl.krippendorff_alpha(ann, ci="bootstrap", n_resamples=N_RESAMPLES, seed=1),
        args.repeat, setup=caches.reset)
    analytic = kl.krippendorff_alpha(ann, ci="analytic")
    ratio = boot_best / one_best
    checks_ok = abs(boot.se / analytic.se - 1) < 0.10 and boot.value == one.value

    # the peer route: recompute krippendorff.alpha on resampled rows
    rng = np.random.default_rng(2)
    draws = rng.integers(0, x.shape[0], size=(args.peer_replicates, x.shape[0]))
    peer_best, _, _ = timing.best_of(
        lambda: [krippendorff.alpha(reliability_data=x[d].T, level_of_measurement="nominal")
                 for d in draws], 1)
    peer_2000 = peer_best / args.peer_replicates * N_RESAMPLES

    # for the record: continuous interval values, nothing to merge
    values = np.where(np.isnan(x), np.nan, x + np.random.default_rng(3).normal(size=x.shape))
    cont = kl.Annotations.from_wide(values)
    cont_caches = timing.CacheResetter(cont)
    cont_one, _, _ = timing.best_of(lambda: kl.krippendorff_alpha(cont, level="interval"),
                                    args.repeat, setup=cont_caches.reset)
    cont_boot, _, _ = timing.best_of(
        lambda: kl.krippendorff_alpha(cont, level="interval", ci="bootstrap",
                                      n_resamples=N_RESAMPLES, seed=1),
        max(1, args.repeat // 2), setup=cont_caches.reset)

    print()
    print(f"{'':52s}{'best':>12s}{'median':>12s}")
    print(f"{'one estimate  krippendorff_alpha(ann)':52s}{timing.fmt_time(one_best):>12s}"
          f"{timing.fmt_time(one_median):>12s}")
    print(f"{'bootstrap     ci=bootstrap, 2000 replicates':52s}"
          f"{timing.fmt_time(boot_best):>12s}{timing.fmt_time(boot_median):>12s}")
    print(f"{'peer: krippendorff.alpha per replicate (x2000)':52s}"
          f"{timing.fmt_time(peer_2000):>12s}   (extrapolated from {args.peer_replicates})")
    print(f"{'continuous interval values: one estimate':52s}{timing.fmt_time(cont_one):>12s}")
    print(f"{'continuous interval values: 2000 replicates':52s}{timing.fmt_time(cont_boot):>12s}"
          f"   ({cont_boot / cont_one:.0f}× one estimate; no target)")
    print()
    print(f"alpha = {one.value:.6f}; bootstrap SE {boot.se:.6f} vs analytic SE "
          f"{analytic.se:.6f} -> {'OK' if checks_ok else 'MISMATCH'} (within 10 %)")
    verdict = "MET" if ratio <= TARGET_RATIO else "MISSED"
    print(f"bootstrap / one estimate = {ratio:.1f}×  (target ≤ {TARGET_RATIO:g}×: {verdict}); "
          f"peer route / kappalab bootstrap = {peer_2000 / boot_best:.0f}×")

    others = load.report()
    timing.emit_result({
        "others_cpu_share": others, "benchmark": "bootstrap_alpha",
        "items": args.items, "annotations": ann.n_annotations,
        "one_estimate_s": one_best, "bootstrap_s": boot_best, "ratio": ratio,
        "peer_extrapolated_s": peer_2000, "continuous_ratio": cont_boot / cont_one,
        "checks_ok": checks_ok, "target": f"<= {TARGET_RATIO:g}x one estimate",
        "target_met": ratio <= TARGET_RATIO,
    })
    return 0 if checks_ok else 1


if __name__ == "__main__":
    sys.exit(main())
