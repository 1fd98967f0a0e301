"""agreement_report on crowd data, and Light's κ with its analytic standard error.

Crowd data: N annotations, three per item, from a pool of R raters (most rater pairs share no
item, those that do share one or two). Target: ``agreement_report`` with default options on
100 000 annotations from 3 000 raters in under 5 s. With ``ci="analytic"`` (what the command
line prints by default) the report also carries every standard error.

Light's κ: complete data, 300 items × R raters × 3 categories, value and analytic SE, against
the peer route (scikit-learn's ``cohen_kappa_score`` over every pair of raters, value only).

Run: ``python -m benchmarks.bench_report [--annotations 100000] [--raters 3000]``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import warnings

import numpy as np
import pandas as pd

from benchmarks.timing import best_of, emit_result, fmt_time, header

import kappalab as kl


def crowd(n_annotations: int, n_raters: int, per_item: int = 3, n_categories: int = 3,
          seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n_items = n_annotations // per_item
    items = np.repeat(np.arange(n_items), per_item)
    # per_item distinct raters per item: a random rater and the next ones round the pool
    first = rng.integers(0, n_raters, n_items)
    raters = (first[:, None] + np.arange(per_item) * rng.integers(1, n_raters // per_item,
                                                                  (n_items, 1))) % n_raters
    truth = rng.integers(0, n_categories, n_items)
    labels = np.where(rng.random(items.size) < 0.7, truth[items],
                      rng.integers(0, n_categories, items.size))
    return pd.DataFrame({"item": items, "rater": raters.ravel(), "value": labels})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotations", type=int, default=100_000)
    parser.add_argument("--raters", type=int, default=3_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--light-raters", default="40,80,300")
    args = parser.parse_args(argv)
    load = header("agreement_report on crowd data; Light's kappa and its analytic SE")

    frame = crowd(args.annotations, args.raters)
    ann = kl.Annotations.from_long(frame)
    print(f"crowd data: {ann}")
    warnings.simplefilter("ignore", kl.errors.PairwiseMeanWarning)
    default_s, _, report = best_of(lambda: kl.agreement_report(ann), args.repeat)
    analytic_s, _, with_se = best_of(lambda: kl.agreement_report(ann, ci="analytic"),
                                  args.repeat)
    print(f"agreement_report(ann):                 {fmt_time(default_s)}")
    print(f"agreement_report(ann, ci='analytic'):  {fmt_time(analytic_s)}")
    print(with_se[["coefficient", "value", "se", "note"]].to_string(index=False))
    checks_ok = bool(np.isfinite(with_se["se"]).all())

    light = []
    rng = np.random.default_rng(1)
    for n_raters in (int(r) for r in args.light_raters.split(",")):
        truth = rng.integers(0, 3, 300)
        x = np.where(rng.random((300, n_raters)) < 0.6, truth[:, None],
                     rng.integers(0, 3, (300, n_raters)))
        seconds, _, est = best_of(lambda: kl.light_kappa(x, ci="analytic"), 1)
        from sklearn.metrics import cohen_kappa_score

        def peer():
            return np.mean([cohen_kappa_score(x[:, g], x[:, h])
                            for g, h in itertools.combinations(range(n_raters), 2)])

        peer_s, _, peer_value = best_of(peer, 1)
        agree = abs(est.value - peer_value) < 1e-12
        checks_ok &= agree and bool(np.isfinite(est.se))
        print(f"Light's kappa, 300 items x {n_raters} raters: value + analytic SE "
              f"{fmt_time(seconds)} (se {est.se:.4f}); sklearn pairwise mean, value only, "
              f"{fmt_time(peer_s)}; values {'agree' if agree else 'DISAGREE'}")
        light.append({"raters": n_raters, "kappalab_s": seconds, "sklearn_s": peer_s})

    target_met = default_s < 5.0
    print(f"target: agreement_report on {args.annotations} annotations from {args.raters} "
          f"raters < 5 s: {'met' if target_met else 'MISSED'} ({default_s:.2f} s)")
    emit_result({"benchmark": "report_crowd", "annotations": args.annotations,
                 "raters": args.raters, "report_s": default_s, "report_analytic_s": analytic_s,
                 "light": light, "target": "< 5 s", "target_met": target_met,
                 "checks_ok": checks_ok, "others_cpu_share": load.report()})
    return 0 if checks_ok else 1


if __name__ == "__main__":
    sys.exit(main())
