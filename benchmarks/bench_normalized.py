"""normalized κx against κx: the normalization by the two IRRs should cost little (target:
at most 1.5× κx).

Normalized κx = κx/√(IRR_X·IRR_Y) (Wong, Paritosh & Aroyo 2021, eq 13) adds, to κx, each
side's Krippendorff α on the common items; on the item-sum spine its statistics are κx's
beside both α's, so its value is one more pass over each side's counts and ``combine`` is a
closed form of O(s) on the totals (the parts' totals are reduced once, not at each
``combine``). Target: ``normalized_cross_kappa`` ≤ 1.5× ``cross_kappa`` at 20 000 items, on
interval and on nominal data, value only and with ``ci="analytic"``.

Data: ``kl.simulate.replications`` (ρ = 0.7, reliabilities 0.5 and 0.6, 3 and 4 annotations
per item; interval scores for the interval level, 5 ordered categories read as nominal for
the nominal level), the two ``Annotations`` built once; the two estimators are timed
alternately, best of ``--repeat`` each, so that both see the same machine load.

Run (from the repository root): ``python -m benchmarks.bench_normalized [--items 20000]
[--repeat 30]``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from benchmarks.timing import best_of, emit_result, fmt_time, header

import kappalab as kl

TARGET_RATIO = 1.5


def alternate(first, second, repeat: int) -> tuple[float, float]:
    """Best wall time of each of two calls, timed in turn ``repeat`` times."""
    best = [np.inf, np.inf]
    for _ in range(repeat):
        for k, fn in enumerate((first, second)):
            seconds, _, _ = best_of(fn, 1)
            best[k] = min(best[k], seconds)
    return best[0], best[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args(argv)
    load = header("normalized cross-kappa against cross-kappa")

    rows, checks_ok = [], True
    for level, simulated in (("interval", {"level": "interval"}),
                             ("nominal", {"level": "ordinal", "n_categories": 5})):
        ax, ay, _ = kl.simulate.replications(args.items, rho=0.7, reliability=(0.5, 0.6),
                                             annotations_per_item=(3, 4), seed=1, **simulated)
        for ci in (None, "analytic"):
            plain = kl.cross_kappa(ax, ay, level=level, ci=ci)  # warm both (caches of the data)
            normalized = kl.normalized_cross_kappa(ax, ay, level=level, ci=ci)
            # eq 13 from the two estimators' own numbers
            irr = [float(kl.krippendorff_alpha(ann, level=level)) for ann in (ax, ay)]
            agree = abs(normalized.value - plain.value / np.sqrt(irr[0] * irr[1])) < 1e-12
            checks_ok &= agree and (ci is None or np.isfinite(normalized.se))
            cross_s, normalized_s = alternate(
                lambda: kl.cross_kappa(ax, ay, level=level, ci=ci),
                lambda: kl.normalized_cross_kappa(ax, ay, level=level, ci=ci), args.repeat)
            ratio = normalized_s / cross_s
            print(f"{level:8s} ci={str(ci):8s}  cross_kappa {fmt_time(cross_s):>10s}  "
                  f"normalized_cross_kappa {fmt_time(normalized_s):>10s}  ratio {ratio:.2f}"
                  f"  (eq 13 {'holds' if agree else 'FAILS'})")
            rows.append({"level": level, "ci": ci, "cross_kappa_s": cross_s,
                         "normalized_s": normalized_s, "ratio": ratio})
    worst = max(row["ratio"] for row in rows)
    target_met = worst <= TARGET_RATIO
    print(f"target: normalized_cross_kappa <= {TARGET_RATIO}x cross_kappa at {args.items} "
          f"items: {'met' if target_met else 'MISSED'} (worst ratio {worst:.2f})")
    emit_result({"benchmark": "normalized_cross_kappa", "items": args.items, "rows": rows,
                 "target": f"<= {TARGET_RATIO}x cross_kappa", "target_met": target_met,
                 "checks_ok": checks_ok, "others_cpu_share": load.report()})
    return 0 if checks_ok else 1


if __name__ == "__main__":
    sys.exit(main())
