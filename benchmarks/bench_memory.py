"""Nominal coefficients on a million distinct labels: time and peak memory.

1 000 000 items × 2 annotations; the two labels of an item agree with probability 0.4 and are
otherwise new labels, so the data hold ~1.6 million distinct labels on 2 000 000
annotations. An items × categories count table would have 1.6e12 cells (13 TB); nominal α,
Fleiss' κ, Gwet's AC1, percent agreement and SPA must run in O(annotations) memory. Each is
timed with its analytic standard error, its peak memory measured with ``tracemalloc``
(numpy's allocations included), and its value checked against the closed forms of this
design (D_o, D_e, P_o, P_e from label counts).

Run: ``python -m benchmarks.bench_memory [--items 1000000]``.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc

import numpy as np
import pandas as pd

from benchmarks.timing import emit_result, fmt_bytes, fmt_time, header

import kappalab as kl


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    load = header("nominal coefficients on a million distinct labels: time and peak memory")

    n = args.items
    rng = np.random.default_rng(0)
    agree = rng.random(n) < 0.4
    first = np.arange(n) * 2
    second = np.where(agree, first, first + 1)
    frame = pd.DataFrame({"item": np.repeat(np.arange(n), 2), "rater": np.tile([0, 1], n),
                          "value": np.column_stack([first, second]).ravel()})
    start = time.perf_counter()
    ann = kl.Annotations.from_long(frame)
    print(f"{ann}: read in {fmt_time(time.perf_counter() - start)}")

    N = 2 * n
    _, counts = np.unique(frame["value"].to_numpy(), return_counts=True)
    K = counts.size
    d_o, d_e = 2 * (~agree).sum() / N, (N**2 - (counts.astype(float) ** 2).sum()) / (N * (N - 1))
    p_o, p_e = agree.mean(), ((counts / N) ** 2).sum()
    gwet_p_e = (1 - p_e) / (K - 1)
    expected = {
        "krippendorff_alpha": (kl.krippendorff_alpha, 1 - d_o / d_e),
        "fleiss_kappa": (kl.fleiss_kappa, (p_o - p_e) / (1 - p_e)),
        "gwet_ac1": (kl.gwet_ac, (p_o - gwet_p_e) / (1 - gwet_p_e)),
        "percent_agreement": (kl.percent_agreement, p_o),
        "spa": (kl.spa, p_o),
    }
    print(f"{K} distinct labels; a dense items × categories table would be {n * K:.2e} cells "
          f"({fmt_bytes(8.0 * n * K)})")
    rows, checks_ok = [], True
    for name, (estimator, value) in expected.items():
        tracemalloc.start()
        start = time.perf_counter()
        est = estimator(ann, ci="analytic")
        seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        agree_value = abs(est.value - value) <= 1e-12 * max(1.0, abs(value))
        checks_ok &= agree_value and bool(np.isfinite(est.se))
        print(f"{name:20s} value {est.value:.6f} (closed form {value:.6f}, "
              f"{'agree' if agree_value else 'DISAGREE'}), se {est.se:.2e}: "
              f"{fmt_time(seconds)}, peak {fmt_bytes(peak)}")
        rows.append({"coefficient": name, "seconds": seconds, "peak_bytes": peak})
    largest = max(row["peak_bytes"] for row in rows)
    target_met = largest < 2 * 2**30
    print(f"largest peak: {fmt_bytes(largest)} (target: O(annotations), here < 2 GiB: "
          f"{'met' if target_met else 'MISSED'})")
    emit_result({"benchmark": "many_labels", "annotations": N, "categories": K,
                 "rows": rows, "target": "< 2 GiB peak", "target_met": target_met,
                 "checks_ok": checks_ok, "others_cpu_share": load.report()})
    return 0 if checks_ok else 1


if __name__ == "__main__":
    sys.exit(main())
