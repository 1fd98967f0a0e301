"""Dawid–Skene by EM at up to ten million annotations, against crowd-kit's ``DawidSkene``.

Data: ``kappalab.simulate.dawid_skene_annotations`` at each size of ``--annotations``
(default 100 000, 1 000 000 and 10 000 000): items = annotations / ``--labels`` (default 10
labels an item, by distinct annotators drawn from a pool of annotations / ``--per-rater``
(default 500) annotators: 20 000 at 10 M), ``--classes`` = 5, each annotator's confusion
matrix drawn around a diagonal of 0.7. (With far fewer annotations an annotator, say 5,
many of its confusion rows have no mass: crowd-kit clips those cells at 1e-10 where
kappalab makes the row uniform, the posteriors part, and EM crawls along a flat
likelihood.) The ``Annotations`` are
built once per size; crowd-kit gets the same annotations as its long ``task, worker,
label`` frame of integer codes.

Timed at each size, each ``--repeat`` times (default 3) in turn:

1. ``kl.annotators.dawid_skene(ann, max_iter=10, tol=0, accelerate=False)``: ten plain EM
   iterations and the fit's
   set-up (the sparse items × (annotator, label) matrix), and at the sizes up to
   ``--peer-max`` (default 1 000 000) crowd-kit's ``DawidSkene(n_iter=10, tol=-inf)`` on its
   frame, interleaved: the ratio kappalab / crowd-kit of the medians is the ratio per
   iteration (both run the same ten M- and E-steps from the majority vote);
2. once, the fit to convergence with kappalab's defaults (SQUAREM-accelerated EM,
   ``tol=1e-10``: the largest change of a parameter and the relative change of the
   log-likelihood both below it), its iterations (cycles of two or three EM steps), time
   and peak memory (``tracemalloc``: numpy's and scipy's arrays are traced; and the
   process's peak resident memory, data included) — the target at 10 M annotations is
   ≤ 2 minutes and ≤ 4 GB.

Where the time goes (``line_profiler``, 1 M annotations, plain EM, on this 2-core machine
under load): the two sparse products of X with a dense matrix of K columns, the E-step's
``X @ log θ`` and the M-step's ``Xᵀ @ T``, are 55–60 % of an iteration and the exponentials
of the items × K log-posteriors about 18 %; the rest is element-wise passes over that
matrix. Acceleration (SQUAREM) cuts the number of iterations instead.

Run (from the repository root): ``python -m benchmarks.bench_annotators
[--annotations 100000,1000000,10000000] [--peer-max N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd

from benchmarks.timing import emit_result, fmt_time, header

import kappalab as kl
from kappalab.simulate import dawid_skene_annotations

ITERATIONS = 10


def crowd_frame(ann: kl.Annotations) -> pd.DataFrame:
    items, raters, labels = ann.codes()
    return pd.DataFrame({"task": items, "worker": raters, "label": labels})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotations", default="100000,1000000,10000000")
    parser.add_argument("--labels", type=int, default=10)
    parser.add_argument("--per-rater", type=int, default=500)
    parser.add_argument("--classes", type=int, default=5)
    parser.add_argument("--peer-max", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261207)
    args = parser.parse_args(argv)
    load = header("Dawid-Skene EM against crowd-kit's DawidSkene")
    try:
        from crowdkit.aggregation import DawidSkene
    except ImportError:
        DawidSkene = None
        print("crowd-kit is not installed: kappalab's times alone")

    rows, ok = [], True
    for n in (int(v) for v in args.annotations.split(",")):
        ann, _ = dawid_skene_annotations(n // args.labels,
                                         n_raters=max(args.labels, n // args.per_rater),
                                         n_classes=args.classes,
                                         annotations_per_item=args.labels, seed=args.seed)
        print(f"\n{ann.n_annotations} annotations: {ann.n_items} items × {args.labels}, "
              f"{ann.n_raters} annotators, {args.classes} classes")
        ours_times, theirs_times = [], []
        peer = DawidSkene is not None and n <= args.peer_max
        frame = crowd_frame(ann) if peer else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ours: not converged in 10; crowd-kit: pandas
            for _ in range(args.repeat):
                start = time.perf_counter()
                ours = kl.annotators.dawid_skene(ann, max_iter=ITERATIONS, tol=0.0,
                                                 accelerate=False)
                ours_times.append(time.perf_counter() - start)
                if peer:
                    start = time.perf_counter()
                    theirs = DawidSkene(n_iter=ITERATIONS, tol=-np.inf).fit(frame)
                    theirs_times.append(time.perf_counter() - start)
        row = {"annotations": ann.n_annotations, "iterations": ITERATIONS,
               "kappalab_median_s": float(np.median(ours_times)),
               "kappalab_min_s": min(ours_times), "kappalab_max_s": max(ours_times)}
        line = (f"  {ITERATIONS} iterations: kappalab {fmt_time(row['kappalab_median_s'])} "
                f"({fmt_time(min(ours_times))}–{fmt_time(max(ours_times))})")
        if peer:
            gap = float(np.abs(ours.posterior.to_numpy()
                               - theirs.probas_.sort_index().sort_index(axis=1).to_numpy()
                               ).max())
            ok &= gap < 1e-6  # the same ten steps (crowd-kit clips empty cells at 1e-10)
            row.update(crowdkit_median_s=float(np.median(theirs_times)),
                       crowdkit_min_s=min(theirs_times), crowdkit_max_s=max(theirs_times),
                       ratio=row["kappalab_median_s"] / float(np.median(theirs_times)),
                       posterior_gap=gap)
            line += (f", crowd-kit {fmt_time(row['crowdkit_median_s'])} "
                     f"({fmt_time(min(theirs_times))}–{fmt_time(max(theirs_times))}): "
                     f"ratio {row['ratio']:.3f}; posteriors equal to {gap:.1e}")
        print(line)
        tracemalloc.start()
        start = time.perf_counter()
        converged = kl.annotators.dawid_skene(ann)
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
        row.update(converged=converged.converged, converge_iterations=converged.n_iter,
                   converge_s=seconds, converge_peak_bytes=peak, process_peak_rss_bytes=rss,
                   per_iteration_s=seconds / converged.n_iter)
        ok &= converged.converged
        print(f"  to convergence (accelerated, tol=1e-10): {converged.n_iter} cycles in "
              f"{fmt_time(seconds)} ({fmt_time(seconds / converged.n_iter)} an iteration), "
              f"peak traced memory {peak / 2**30:.2f} GiB; the process's peak resident "
              f"memory so far (the data, crowd-kit's frame and every fit) {rss / 2**30:.2f} GiB")
        rows.append(row)
        del ann, frame, ours, converged

    largest = rows[-1]
    met = largest["converge_s"] <= 120 and largest["converge_peak_bytes"] <= 4 * 2**30
    others = load.report()
    emit_result({
        "others_cpu_share": others, "benchmark": "annotators", "rows": rows, "ok": ok,
        "target": "10 M annotations to convergence in <= 2 min and <= 4 GiB",
        "target_met": bool(met and largest["annotations"] >= 10_000_000),
    })
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
