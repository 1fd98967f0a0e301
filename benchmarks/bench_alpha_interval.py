"""Interval α on continuous values (every value distinct): must be O(N).

Data: ``--items`` × ``--raters`` (default 200 000 × 5 = 1 000 000 annotations), value =
item effect N(0, 1) + rater noise N(0, 0.7²), so every value is distinct and α ≈ 0.67;
``--missing`` of the cells NaN (default 0).

Reported, on the same data:

1. ingest: ``Annotations.from_wide(x)`` (best of ``--repeat``);
2. the estimator on the already-built ``Annotations``:
   ``kl.krippendorff_alpha(ann, "interval")`` with ann's cached per-item sums
   (functools.cached_property values) dropped before each timed run, so every run recomputes
   them;
3. one ``np.bincount(item_codes, weights=values, minlength=n_items)`` pass over the same
   annotations, and the ratio estimator / bincount (target ≤ 5×).

The full-size ratio is measured in pairs so that both sides see the same machine load: each of
``--repeat`` rounds (after one untimed round) times the bincount (best of 3 back-to-back
passes) and then the estimator (caches dropped), both in wall time and in the CPU time of the
process (``time.process_time``: every thread of the process, BLAS threads included), and the
figures are the medians of the rounds' ratios, printed with their spread (lowest–highest
round). The target is judged on the CPU-time ratio: on a shared machine the wall time also
counts the time the process waits for a core, which says nothing about the estimator (the
wall ratio is printed beside it; on a quiet machine the two agree).

The estimator runs in a forked child process under an address-space limit
(``--mem-limit-gb``) and a timeout (``--timeout``), so an O(V²) allocation fails cleanly with
MemoryError instead of swapping the machine, and a super-linear run is stopped. Before it, a
scaling probe times the estimator and records its peak traced memory (tracemalloc) at small
sizes (larger ones while it stays fast) and fits the growth exponents (O(N) ⇒ ≈ 1; the memory
exponent is the robust one, time at tiny sizes is dominated by fixed overhead).

Correctness: the big case is checked against an independent numpy formula written below
(two-pass, per-item sums of squared deviations on the wide array — no bincount, no moments).

Context: the `krippendorff` package builds a units × V × V value-count tensor (V distinct
values), so its memory need at this size is estimated, not run; it is run for real on a small
continuous case (``--small-items`` × raters, 10 % missing), timing both libraries and checking
that they — and the reference formula — agree to 1e-9.

Run: ``python -m benchmarks.bench_alpha_interval [--items N] [--repeat R] [--profile]``.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import sys
import time
import tracemalloc
import traceback

import numpy as np

from benchmarks import timing

TARGET_RATIO = 5.0
TOLERANCE = 1e-9
PROBE_ITEMS = (500, 1000, 2000)


# ---------------------------------------------------------------------- data and reference
def make_data(n_items: int, n_raters: int, missing: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 1.0, size=(n_items, 1)) + rng.normal(0.0, 0.7, size=(n_items, n_raters))
    if missing > 0:
        x[rng.random(x.shape) < missing] = np.nan
    return x


def interval_alpha_reference(x: np.ndarray) -> float:
    r"""Krippendorff's interval α from the wide array, written independently of kappalab.

    Krippendorff (2011): α = 1 − D_o/D_e with, over units u with m_u ≥ 2 values (n values in
    all), δ² = (c − k)² and ordered pairs of values within a unit (D_o) or over all pairable
    values (D_e):

        D_o = (1/n) Σ_u Σ_{i≠j in u} (x_i − x_j)² / (m_u − 1)
        D_e = 1/(n(n − 1)) Σ_{i≠j} (x_i − x_j)²

    and Σ_{i≠j} (x_i − x_j)² = 2 m SS for m values with sum of squared deviations SS from
    their mean. Hence D_o = (2/n) Σ_u m_u SS_u/(m_u − 1), D_e = 2 SS_tot/(n − 1),

        α = 1 − (n − 1)/n · Σ_u [m_u SS_u / (m_u − 1)] / SS_tot.

    SS are two-pass (deviations from the mean), row-wise on the wide array: O(items × raters).
    """
    present = ~np.isnan(x)
    m = present.sum(axis=1)
    pairable = m >= 2
    xs, ps, ms = x[pairable], present[pairable], m[pairable].astype(float)
    n = ms.sum()
    filled = np.where(ps, xs, 0.0)
    unit_mean = filled.sum(axis=1) / ms
    ss_unit = np.where(ps, (xs - unit_mean[:, None]) ** 2, 0.0).sum(axis=1)
    grand_mean = filled.sum() / n
    ss_total = np.where(ps, (xs - grand_mean) ** 2, 0.0).sum()
    return float(1.0 - (n - 1.0) / n * np.sum(ms * ss_unit / (ms - 1.0)) / ss_total)


def krippendorff_memory(n_units: int, n_values: int, n_raters: int) -> tuple[int, int]:
    """Bytes the `krippendorff` package (0.9) allocates for interval data with V values.

    From its source: ``_reliability_data_to_value_counts`` compares raters × units against
    the V-value domain (a units × raters × V bool array), then ``_coincidences`` builds
    units × V × V arrays: ``diagonals`` (float64), the outer product of value counts (int64)
    and their difference (float64) are alive together, then the division makes another.
    Returns (one units × V × V float64 tensor, peak ≈ 3 of them + the bool array).
    """
    one_tensor = n_units * n_values * n_values * 8
    return one_tensor, 3 * one_tensor + n_units * n_raters * n_values


# ---------------------------------------------------------------------- kappalab runs
def time_estimator(ann, caches: timing.CacheResetter, repeat: int):
    """Best-of-``repeat`` time of the estimator on ``ann``, its caches dropped before each run."""
    import kappalab as kl

    return timing.best_of(lambda: kl.krippendorff_alpha(ann, level="interval"), repeat,
                          setup=caches.reset)


def peak_traced_bytes(fn) -> int:
    """Peak memory traced by tracemalloc during fn() (numpy reports its buffers)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _vm_size_bytes() -> int:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _timed(fn) -> tuple[float, float]:
    """(wall, process CPU) seconds of one call of ``fn``."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def paired_ratios(ann, caches: timing.CacheResetter, baseline, repeat: int):
    """``repeat`` rounds of (baseline, estimator) times, each round timing the baseline (the
    fastest of 3 back-to-back calls) right before the estimator (its caches dropped), so that
    both see the same load. Returns ``{"baseline": [(wall, cpu), …], "estimator": […]}`` and
    the estimator's last result."""
    import kappalab as kl

    times: dict[str, list[tuple[float, float]]] = {"baseline": [], "estimator": []}
    est = []
    baseline()  # an untimed round first: the child's first allocations fault their pages in
    caches.reset()
    kl.krippendorff_alpha(ann, level="interval")
    for _ in range(max(1, repeat)):
        times["baseline"].append(min((_timed(baseline) for _ in range(3)),
                                     key=lambda t: t[0]))
        caches.reset()
        times["estimator"].append(_timed(
            lambda: est.append(kl.krippendorff_alpha(ann, level="interval"))))
    return times, est[-1]


def _estimator_child(conn, ann, caches, baseline, repeat: int, limit_bytes: int) -> None:
    """In a forked child: cap the address space, time the estimator against the baseline in
    pairs (:func:`paired_ratios`), send the outcome."""
    try:
        soft_limit = _vm_size_bytes() + limit_bytes
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            soft_limit = min(soft_limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (soft_limit, hard))
        times, est = paired_ratios(ann, caches, baseline, repeat)
        conn.send({"ok": True, **times, "value": float(est)})
    except BaseException as exc:  # report anything, MemoryError included
        tb = traceback.extract_tb(exc.__traceback__)
        where = [f"{os.path.basename(f.filename)}:{f.lineno} in {f.name}: {f.line}"
                 for f in tb if "kappalab" in f.filename]
        conn.send({"ok": False, "error": f"{type(exc).__name__}: {exc}", "where": where})
    finally:
        conn.close()


def run_estimator_guarded(ann, caches, baseline, repeat: int, limit_bytes: int,
                          timeout: float) -> dict:
    ctx = mp.get_context("fork")
    parent_conn, child_conn = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_estimator_child, args=(child_conn, ann, caches, baseline, repeat,
                                                       limit_bytes))
    start = time.perf_counter()
    child.start()
    child_conn.close()
    outcome = None
    if parent_conn.poll(timeout):
        try:
            outcome = parent_conn.recv()
        except EOFError:
            outcome = None
    child.join(5)
    if child.is_alive():
        child.kill()  # only the child started just above
        child.join()
    if outcome is None:
        elapsed = time.perf_counter() - start
        if elapsed >= timeout:
            return {"ok": False, "error": f"timed out after {timeout:g} s", "where": []}
        return {"ok": False, "error": f"child died (exit code {child.exitcode})", "where": []}
    return outcome


# ---------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--raters", type=int, default=5)
    parser.add_argument("--missing", type=float, default=0.0)
    parser.add_argument("--repeat", type=int, default=9,
                        help="rounds of the paired full-size timing (and repeats elsewhere)")
    parser.add_argument("--seed", type=int, default=20240602)
    parser.add_argument("--small-items", type=int, default=200,
                        help="items of the small case run with the krippendorff package")
    parser.add_argument("--mem-limit-gb", type=float, default=None,
                        help="extra address space for the estimator child (default: half of "
                             "MemAvailable, at most 8)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds allowed for the guarded full-size estimator runs")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile the estimator at the largest probe size")
    args = parser.parse_args(argv)

    import krippendorff

    import kappalab as kl

    load = timing.header("Krippendorff's alpha, interval, continuous values: O(N)?")
    ok = True

    # ---- big case: data, reference, bincount baseline
    x = make_data(args.items, args.raters, args.missing, args.seed)
    present = ~np.isnan(x)
    item_codes, _ = np.nonzero(present)
    values = x[present]
    n_ann = int(values.size)
    n_distinct = int(np.unique(values).size)
    print(f"data: {args.items} items × {args.raters} raters, {args.missing:.0%} missing -> "
          f"{n_ann} annotations, {n_distinct} distinct values "
          f"({'all distinct' if n_distinct == n_ann else 'NOT all distinct'}); seed {args.seed}")

    t0 = time.perf_counter()
    alpha_ref = interval_alpha_reference(x)
    ref_time = time.perf_counter() - t0
    print(f"reference formula (independent numpy, wide array): alpha = {alpha_ref!r} "
          f"({timing.fmt_time(ref_time)})")

    def baseline():
        return np.bincount(item_codes, weights=values, minlength=args.items)

    bc_best, bc_median, _ = timing.best_of(baseline, max(args.repeat, 20))
    print(f"one np.bincount(item_codes, weights=values) over {n_ann} annotations: best "
          f"{timing.fmt_time(bc_best)}, median {timing.fmt_time(bc_median)}")

    ingest_best, ingest_median, ann = timing.best_of(lambda: kl.Annotations.from_wide(x),
                                                     args.repeat)
    caches = timing.CacheResetter(ann)  # ann is fresh: nothing cached beyond its own data
    print(f"ingest Annotations.from_wide(x): best {timing.fmt_time(ingest_best)}, median "
          f"{timing.fmt_time(ingest_median)}  -> {ann.n_categories} categories (V)")

    # ---- scaling probe (small sizes, in process)
    print()
    print("scaling probe: kappalab estimator on a built Annotations (caches cleared), "
          f"{args.raters} raters, all values distinct")
    print(f"{'annotations':>12s}{'V':>8s}{'best time':>12s}{'peak traced mem':>18s}"
          f"{'alpha - reference':>20s}")
    probe = []
    probe_ann = None
    sizes = list(PROBE_ITEMS)
    while sizes:
        n_items = sizes.pop(0)
        xp = make_data(n_items, args.raters, 0.0, args.seed + n_items)
        probe_ann = kl.Annotations.from_wide(xp)
        probe_caches = timing.CacheResetter(probe_ann)
        t_best, _, est = time_estimator(probe_ann, probe_caches, 3)
        dropped = probe_caches.reset()
        peak = peak_traced_bytes(lambda: kl.krippendorff_alpha(probe_ann, level="interval"))
        err = float(est) - interval_alpha_reference(xp)
        ok &= abs(err) <= TOLERANCE
        probe.append((probe_ann.n_annotations, probe_ann.n_categories, t_best, peak))
        print(f"{probe_ann.n_annotations:>12d}{probe_ann.n_categories:>8d}"
              f"{timing.fmt_time(t_best):>12s}{timing.fmt_bytes(peak):>18s}{err:>20.2e}")
        # fast (fixed overhead dominates): probe larger sizes so the slope means something
        if not sizes and t_best < 0.02 and n_items * 4 <= args.items:
            sizes.append(n_items * 4)
    print(f"(cached values dropped before each timed run: {sorted(dropped) or 'none'})")
    # least-squares slope of log(cost) on log(N) over the three largest probe sizes
    fit = probe[-3:]
    log_n = np.log([row[0] for row in fit])
    time_exp = float(np.polyfit(log_n, np.log([row[2] for row in fit]), 1)[0])
    mem_exp = float(np.polyfit(log_n, np.log([row[3] for row in fit]), 1)[0])
    n2, t2, p2 = probe[-1][0], probe[-1][2], probe[-1][3]
    time_extrap = t2 * (n_ann / n2) ** time_exp
    mem_extrap = p2 * (n_ann / n2) ** mem_exp
    print(f"growth over the three largest probes (log-log slope): time ∝ N^{time_exp:.2f}, "
          f"memory ∝ N^{mem_exp:.2f} (O(N) ⇒ 1.0)")
    print(f"extrapolated to N = {n_ann}: time ≈ {timing.fmt_time(time_extrap)}, peak memory "
          f"≈ {timing.fmt_bytes(mem_extrap)}")
    if args.profile:
        print()
        print(f"cProfile of the estimator at N = {probe_ann.n_annotations} (cumulative):")
        probe_caches.reset()
        print(timing.profile_top(lambda: kl.krippendorff_alpha(probe_ann, level="interval"), n=25))

    # ---- the full-size estimator, guarded
    if args.mem_limit_gb is None:
        avail = 0
        try:
            with open("/proc/meminfo") as meminfo:
                for line in meminfo:
                    if line.startswith("MemAvailable:"):
                        avail = int(line.split()[1]) * 1024
        except OSError:
            pass
        limit = int(min(8 * 2**30, avail / 2)) if avail else 8 * 2**30
    else:
        limit = int(args.mem_limit_gb * 2**30)
    print()
    print(f"full size: kl.krippendorff_alpha(ann, 'interval') on the built Annotations, "
          f"{args.repeat} rounds paired with the bincount, in a child process limited to "
          f"+{timing.fmt_bytes(limit)} address space and {args.timeout:g} s")
    ratio_low = ratio_high = est_median = bc_round_median = None
    wall_ratio = wall_low = wall_high = est_cpu = bc_cpu = None
    outcome = run_estimator_guarded(ann, caches, baseline, args.repeat, limit, args.timeout)
    if outcome["ok"]:
        est_times, bc_times = np.array(outcome["estimator"]), np.array(outcome["baseline"])
        ratios = est_times / bc_times  # rounds × (wall, cpu)
        est_best, est_median = float(est_times[:, 0].min()), float(np.median(est_times[:, 0]))
        bc_round_median = float(np.median(bc_times[:, 0]))
        est_cpu, bc_cpu = (float(np.median(t[:, 1])) for t in (est_times, bc_times))
        wall_ratio = float(np.median(ratios[:, 0]))
        wall_low, wall_high = float(ratios[:, 0].min()), float(ratios[:, 0].max())
        ratio = float(np.median(ratios[:, 1]))
        ratio_low, ratio_high = float(ratios[:, 1].min()), float(ratios[:, 1].max())
        est_value = outcome["value"]
        diff = abs(est_value - alpha_ref)
        ok &= diff <= TOLERANCE
        print(f"{'':12s}{'estimator (median, spread)':>40s}{'bincount (median)':>20s}"
              f"{'ratio (median, spread)':>28s}")
        for k, kind in enumerate(("wall", "CPU")):
            e, b, r = est_times[:, k], bc_times[:, k], ratios[:, k]
            print(f"{kind + ' time':12s}{timing.fmt_time(float(np.median(e))):>14s} "
                  f"({timing.fmt_time(float(e.min()))} – {timing.fmt_time(float(e.max()))})"
                  .ljust(52)
                  + f"{timing.fmt_time(float(np.median(b))):>20s}"
                  f"{float(np.median(r)):>12.2f}× ({float(r.min()):.2f}× – {float(r.max()):.2f}×)")
        print(f"alpha kappalab = {est_value!r}, reference = {alpha_ref!r}, |difference| = "
              f"{diff:.3g} -> {'AGREE' if diff <= TOLERANCE else 'DISAGREE'}")
    else:
        est_best, est_value, ratio, diff = None, None, None, None
        print(f"estimator FAILED: {outcome['error']}")
        for frame in outcome["where"]:
            print(f"    at {frame}")

    # ---- krippendorff package: memory estimate at full size, real run at small size
    print()
    one, peak = krippendorff_memory(args.items, n_distinct, args.raters)
    one_issue, _ = krippendorff_memory(1000, 5000, 5)
    print("krippendorff package (interval needs a units × V × V tensor, V distinct values):")
    print(f"  at {args.items} units, V = {n_distinct}: one tensor {timing.fmt_bytes(one)}, "
          f"peak ≈ {timing.fmt_bytes(peak)} -> not run")
    print(f"  (at 1 000 units × 5 raters, V = 5 000: one tensor {timing.fmt_bytes(one_issue)})")

    xs = make_data(args.small_items, args.raters, 0.10, args.seed + 1)
    small_ref = interval_alpha_reference(xs)
    ann_small = kl.Annotations.from_wide(xs)
    v_small = ann_small.n_categories
    small_repeat = min(args.repeat, 3)
    kr_best, _, kr_value = timing.best_of(
        lambda: krippendorff.alpha(reliability_data=xs.T, level_of_measurement="interval"),
        small_repeat)
    kl_best, _, kl_small = timing.best_of(lambda: kl.krippendorff_alpha(xs, level="interval"),
                                          small_repeat)
    kr_peak = peak_traced_bytes(
        lambda: krippendorff.alpha(reliability_data=xs.T, level_of_measurement="interval"))
    kl_peak = peak_traced_bytes(lambda: kl.krippendorff_alpha(xs, level="interval"))
    small_one, small_model = krippendorff_memory(args.small_items, v_small, args.raters)
    d_kr = abs(float(kl_small) - float(kr_value))
    d_ref = abs(float(kr_value) - small_ref)
    ok &= d_kr <= TOLERANCE and d_ref <= TOLERANCE
    print(f"  small case, run for real: {args.small_items} items × {args.raters} raters, 10% "
          f"missing, {ann_small.n_annotations} annotations, V = {v_small}; best of "
          f"{small_repeat}, end to end from the raw array")
    print(f"    krippendorff.alpha(x.T): {timing.fmt_time(kr_best)}, peak traced memory "
          f"{timing.fmt_bytes(kr_peak)} (model: one tensor {timing.fmt_bytes(small_one)}, "
          f"peak ≈ {timing.fmt_bytes(small_model)})")
    print(f"    kl.krippendorff_alpha(x): {timing.fmt_time(kl_best)}, peak traced memory "
          f"{timing.fmt_bytes(kl_peak)}")
    print(f"    alpha kappalab = {float(kl_small)!r}, krippendorff = {float(kr_value)!r}, "
          f"reference = {small_ref!r}")
    print(f"    |kappalab - krippendorff| = {d_kr:.3g}, |krippendorff - reference| = "
          f"{d_ref:.3g} -> {'AGREE' if d_kr <= TOLERANCE and d_ref <= TOLERANCE else 'DISAGREE'}")
    print(f"    speed-up krippendorff / kappalab = {kr_best / kl_best:.1f}×")

    # ---- summary
    print()
    print(f"ingest from_wide             {timing.fmt_time(ingest_best):>12s}")
    print(f"estimator (built Annotations) {timing.fmt_time(est_median):>11s} wall, "
          f"{timing.fmt_time(est_cpu)} CPU  (medians of {args.repeat} rounds)")
    print(f"one np.bincount pass          {timing.fmt_time(bc_round_median):>11s} wall, "
          f"{timing.fmt_time(bc_cpu)} CPU  (medians, same rounds)")
    if ratio is not None:
        verdict = "MET" if ratio <= TARGET_RATIO else "MISSED"
        print(f"ratio estimator / bincount = {ratio:.2f}× in CPU time (median of the rounds' "
              f"ratios, spread {ratio_low:.2f}× – {ratio_high:.2f}×); in wall time "
              f"{wall_ratio:.2f}× ({wall_low:.2f}× – {wall_high:.2f}×)  "
              f"(target ≤ {TARGET_RATIO:g}× in CPU time: {verdict})")
    else:
        print(f"ratio estimator / bincount = n/a: the estimator failed at this size "
              f"(target ≤ {TARGET_RATIO:g}×: MISSED)")
    others = load.report()
    timing.emit_result({
        "others_cpu_share": others,
        "benchmark": "alpha_interval",
        "items": args.items, "raters": args.raters, "annotations": n_ann,
        "distinct_values": n_distinct,
        "ingest_s": ingest_best, "estimator_s": est_median, "estimator_best_s": est_best,
        "bincount_s": bc_round_median, "estimator_cpu_s": est_cpu, "bincount_cpu_s": bc_cpu,
        "ratio": ratio, "ratio_min": ratio_low, "ratio_max": ratio_high,
        "wall_ratio": wall_ratio, "wall_ratio_min": wall_low, "wall_ratio_max": wall_high,
        "rounds": args.repeat, "target": f"<= {TARGET_RATIO:g}x (CPU time)",
        "target_met": ratio is not None and ratio <= TARGET_RATIO,
        "estimator_error": None if outcome["ok"] else outcome["error"],
        "alpha_kappalab": est_value, "alpha_reference": alpha_ref, "abs_diff": diff,
        "probe_time_exponent": time_exp, "probe_memory_exponent": mem_exp,
        "krippendorff_tensor_bytes": one, "small_krippendorff_s": kr_best,
        "small_kappalab_s": kl_best, "small_agree": d_kr <= TOLERANCE and d_ref <= TOLERANCE,
        "checks_ok": bool(ok),
    })
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
