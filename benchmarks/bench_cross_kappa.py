r"""κx (cross-replication reliability) against a direct implementation of eqs 9–10.

The published implementations of κx (Wong, Paritosh & Aroyo 2021) compute the expected
disagreement of eq 10 by pairing every item with every other — O(n²) item pairs; the official
Java one takes 47 s at 20 000 items (and overflows 32-bit integers there, returning κx ≈ 1.7 on
independent data), a Python one ~12 minutes on one IRep comparison. kappalab computes both
double sums from category counts in one pass (``kappalab/coefficients/cross.py``).

Data (``make_side``): binary-or-K-category judgements, items with 1–5 annotations on each side
(uniform, missing data), each item with a true category that an annotation reports with
probability 0.6 (else a uniformly random category), the two sides sharing the items' true
categories; ``--only-one-side`` of the items (default 2 %) are annotated in X only or in Y only,
so the items-in-both rule of eqs 9–11 matters.

Reported:

1. At ``--sizes`` items (default 1 000, 2 000, 5 000; both sides): the direct implementation
   ``cross_kappa_direct`` (written below the way the published ones are: for each pair of items
   i, j, sum D over their annotation pairs, only that innermost annotation-pair sum vectorised
   with numpy) — timed once — against kappalab, best of ``--repeat``, end to end from the long
   annotation arrays (``Annotations.from_long`` of both sides + ``kl.cross_kappa``) and on
   already-built ``Annotations`` (caches dropped before each run). The values must agree to
   1e-9. Target: end-to-end kappalab ≥ 1 000× faster than the direct version at 5 000 items.
2. At ``--annotations`` per side (default 1 000 000): kappalab's estimator time on built
   ``Annotations`` (caches dropped before each run) as a ratio to building the two count
   matrices (``np.bincount(item * K + category)`` for each side), and the ingest time; the value
   is checked against ``cross_kappa_counts`` (eqs 9–10 reduced to count sums by hand, below) to
   1e-9 — R·S ≈ 10¹² there, far past 32-bit integers.

Run: ``python -m benchmarks.bench_cross_kappa [--sizes 1000,2000,5000] [--annotations N]
[--repeat R] [--profile]``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd

from benchmarks import timing

TARGET_SPEEDUP = 1000.0
TARGET_SIZE = 5000
TOLERANCE = 1e-9


# ---------------------------------------------------------------------- data
def make_side(rng: np.random.Generator, items: np.ndarray, truth: np.ndarray,
              n_categories: int, m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(item label, rater position, category) of every annotation: item ``items[k]`` gets
    ``m[k]`` annotations, each its true category with probability 0.6, else uniform."""
    item = np.repeat(items, m)
    rater = np.arange(item.size) - np.repeat(np.cumsum(m) - m, m)  # 0..m_i−1 within the item
    noise = rng.integers(0, n_categories, item.size)
    value = np.where(rng.random(item.size) < 0.6, np.repeat(truth, m), noise)
    return item, rater, value


def make_pair(n_items: int, n_categories: int, only_one_side: float, seed: int,
              annotations: int | None = None):
    """Two replications of ``n_items`` shared items (+ a share of one-sided items).

    With ``annotations`` set, the per-item counts of each side are trimmed so that each side
    has exactly that many annotations (``n_items`` is then ignored and chosen to fit)."""
    rng = np.random.default_rng(seed)
    if annotations is not None:
        n_items = int(1.05 * annotations / 3 / (1 + only_one_side / 2)) + 100  # then trimmed
    n_only = int(round(n_items * only_one_side / 2))
    n_total = n_items + 2 * n_only
    truth = rng.integers(0, n_categories, n_total)
    labels = rng.permutation(n_total)  # item labels in no particular order
    sides = []
    for s in range(2):
        # shared items 0..n_items−1, then the items of X only, then those of Y only
        idx = np.concatenate([np.arange(n_items),
                              n_items + s * n_only + np.arange(n_only)])
        m = rng.integers(1, 6, idx.size)
        if annotations is not None:
            idx = rng.permutation(idx)  # trim shared and one-sided items alike
            cum = np.cumsum(m)
            if cum[-1] < annotations:
                raise ValueError("not enough items drawn for the requested annotations")
            last = int(np.searchsorted(cum, annotations))
            m = m[:last + 1].copy()
            m[-1] -= cum[last] - annotations
            idx = idx[:last + 1]
        sides.append(make_side(rng, labels[idx], truth[idx], n_categories, m))
    return sides


# ---------------------------------------------------------------------- references
def per_item_arrays(side) -> dict[int, np.ndarray]:
    """item label -> its annotations' categories (the input the direct version loops over)."""
    item, _, value = side
    order = np.argsort(item, kind="stable")
    labels, starts = np.unique(item[order], return_index=True)
    return dict(zip(labels.tolist(), np.split(value[order], starts[1:])))


def cross_kappa_direct(x: dict, y: dict) -> float:
    r"""κx by eqs 9–11 of Wong et al. (2021) literally, nominal D (0 if equal, else 1).

    Over the n items annotated in both replications, with R(i), S(i) their annotations and
    **R** = Σ R(i), **S** = Σ S(i):

        d_o = Σ_i (R(i) + S(i))/(**R** + **S**) · Σ_r Σ_s D(x_ri, y_si) / (R(i) S(i))
        d_e = 1/(**R** **S**) · Σ_i Σ_j Σ_r Σ_s D(x_ri, y_sj)

    The double sum over items i, j is a Python loop (what the published implementations do);
    only the innermost sum over the R(i) × S(j) annotation pairs is vectorised. Counts are
    Python ints: no overflow.
    """
    common = [i for i in x if i in y]
    X = [x[i] for i in common]
    Y = [y[i] for i in common]
    R = sum(len(a) for a in X)
    S = sum(len(b) for b in Y)
    d_o = 0.0
    for a, b in zip(X, Y):
        Ri, Si = len(a), len(b)
        d_o += (Ri + Si) / (R + S) * int(np.count_nonzero(a[:, None] != b[None, :])) / (Ri * Si)
    total = 0
    for a in X:
        column = a[:, None]
        for b in Y:
            total += int(np.count_nonzero(column != b))
    d_e = total / (R * S)
    return 1.0 - d_o / d_e


def cross_kappa_counts(side_x, side_y) -> float:
    r"""Eqs 9–10 with nominal D reduced by hand to category counts (independent of kappalab).

    With n_Xic, n_Yic the counts of category c on item i and N_Xc = Σ_i n_Xic:
    Σ_{r,s} D(x_ri, y_si) = R(i)S(i) − Σ_c n_Xic n_Yic and
    Σ_{i,j} Σ_{r,s} D(x_ri, y_sj) = **R**·**S** − Σ_c N_Xc N_Yc (sums over common items).
    """
    (ix, _, vx), (iy, _, vy) = side_x, side_y
    labels = np.union1d(ix, iy)
    K = int(max(vx.max(), vy.max())) + 1
    cx = np.bincount(np.searchsorted(labels, ix) * K + vx,
                     minlength=labels.size * K).reshape(-1, K).astype(float)
    cy = np.bincount(np.searchsorted(labels, iy) * K + vy,
                     minlength=labels.size * K).reshape(-1, K).astype(float)
    Ri, Si = cx.sum(axis=1), cy.sum(axis=1)
    both = (Ri > 0) & (Si > 0)
    cx, cy, Ri, Si = cx[both], cy[both], Ri[both], Si[both]
    R, S = Ri.sum(), Si.sum()
    within = Ri * Si - (cx * cy).sum(axis=1)
    d_o = np.sum((Ri + Si) / (R + S) * within / (Ri * Si))
    d_e = (R * S - cx.sum(axis=0) @ cy.sum(axis=0)) / (R * S)
    return float(1.0 - d_o / d_e)


# ---------------------------------------------------------------------- kappalab
def ingest(side):
    import kappalab as kl

    item, rater, value = side
    return kl.Annotations.from_long(pd.DataFrame({"item": item, "rater": rater,
                                                  "value": value}))


def end_to_end(side_x, side_y) -> float:
    import kappalab as kl

    return float(kl.cross_kappa(ingest(side_x), ingest(side_y)))


# ---------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,2000,5000",
                        help="items per side for the direct comparison (comma-separated)")
    parser.add_argument("--annotations", type=int, default=1_000_000,
                        help="annotations per side for the count-matrix comparison")
    parser.add_argument("--categories", type=int, default=2)
    parser.add_argument("--only-one-side", type=float, default=0.02,
                        help="share of items annotated on one side only")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20210802)
    parser.add_argument("--profile", action="store_true",
                        help="cProfile kl.cross_kappa at the large size")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    import kappalab as kl

    load = timing.header("Cross-replication κx: kappalab vs a direct O(n²) implementation "
                         "of eqs 9–10")
    ok = True
    K = args.categories

    # ---- 1. direct O(n²) implementation vs kappalab
    print(f"direct comparison: {K} categories, 1–5 annotations per item per side, "
          f"{args.only_one_side:.0%} of items on one side only; kappalab best of "
          f"{args.repeat}, direct timed once")
    print(f"{'items':>7s}{'annotations X/Y':>17s}{'direct':>12s}{'kappalab e2e':>14s}"
          f"{'on built':>12s}{'ratio e2e':>12s}{'ratio built':>13s}{'|Δκx|':>10s}"
          f"{'κx':>10s}")
    direct_rows = []
    for n_items in sizes:
        side_x, side_y = make_pair(n_items, K, args.only_one_side, args.seed + n_items)
        x_items, y_items = per_item_arrays(side_x), per_item_arrays(side_y)
        start = time.perf_counter()
        value_direct = cross_kappa_direct(x_items, y_items)
        direct_s = time.perf_counter() - start
        e2e_best, _, value_e2e = timing.best_of(lambda: end_to_end(side_x, side_y), args.repeat)
        ax, ay = ingest(side_x), ingest(side_y)
        cx, cy = timing.CacheResetter(ax), timing.CacheResetter(ay)
        built_best, _, est = timing.best_of(lambda: kl.cross_kappa(ax, ay), args.repeat,
                                            setup=lambda: (cx.reset(), cy.reset()))
        value_counts = cross_kappa_counts(side_x, side_y)
        diff = max(abs(value_e2e - value_direct), abs(float(est) - value_direct),
                   abs(value_counts - value_direct))
        ok &= diff <= TOLERANCE
        row = {"items": n_items, "annotations_x": len(side_x[0]),
               "annotations_y": len(side_y[0]), "common_items": est.n_items,
               "direct_s": direct_s, "kappalab_end_to_end_s": e2e_best,
               "kappalab_built_s": built_best, "speedup_end_to_end": direct_s / e2e_best,
               "speedup_built": direct_s / built_best, "kx": value_direct, "abs_diff": diff}
        direct_rows.append(row)
        counts = f"{row['annotations_x']}/{row['annotations_y']}"
        print(f"{n_items:>7d}{counts:>17s}"
              f"{timing.fmt_time(direct_s):>12s}{timing.fmt_time(e2e_best):>14s}"
              f"{timing.fmt_time(built_best):>12s}{row['speedup_end_to_end']:>11.0f}×"
              f"{row['speedup_built']:>12.0f}×{diff:>10.1e}{value_direct:>10.4f}", flush=True)
    print(f"(|Δκx| = largest difference of kappalab end to end, kappalab on built Annotations "
          f"and the hand count formula from the direct value; tolerance {TOLERANCE:g}; "
          f"dropped items per side at the last size: "
          f"{est.details['n_items_dropped_x']}/{est.details['n_items_dropped_y']})")
    at_target = [r for r in direct_rows if r["items"] == TARGET_SIZE]
    speedup = at_target[0]["speedup_end_to_end"] if at_target else None

    # ---- 2. large: estimator vs building the count matrices
    print()
    side_x, side_y = make_pair(0, K, args.only_one_side, args.seed, args.annotations)
    n_ann = len(side_x[0])
    labels = np.union1d(side_x[0], side_y[0])
    codes = [np.searchsorted(labels, s[0]) * K + s[2] for s in (side_x, side_y)]
    size = labels.size * K
    bc_best, bc_median, _ = timing.best_of(
        lambda: [np.bincount(c, minlength=size) for c in codes], max(args.repeat, 10))
    ingest_best, _, pair = timing.best_of(lambda: (ingest(side_x), ingest(side_y)),
                                          args.repeat)
    ax, ay = pair
    cx, cy = timing.CacheResetter(ax), timing.CacheResetter(ay)
    est_best, est_median, est = timing.best_of(lambda: kl.cross_kappa(ax, ay), args.repeat,
                                               setup=lambda: (cx.reset(), cy.reset()))
    dropped = sorted(set(cx.reset()) | set(cy.reset()))
    reference = cross_kappa_counts(side_x, side_y)
    big_diff = abs(float(est) - reference)
    ok &= big_diff <= TOLERANCE
    ratio = est_best / bc_best
    print(f"large case: {n_ann} annotations per side ({ax.n_items} items in X, {ay.n_items} in "
          f"Y, {est.n_items} in both), {K} categories; R·S = {n_ann * n_ann:.3g} (> 2³¹)")
    print(f"  building the two count matrices (np.bincount(item*K + category) per side): best "
          f"{timing.fmt_time(bc_best)}, median {timing.fmt_time(bc_median)}")
    print(f"  ingest Annotations.from_long, both sides: best {timing.fmt_time(ingest_best)}")
    print(f"  kl.cross_kappa on the built Annotations: best {timing.fmt_time(est_best)}, median "
          f"{timing.fmt_time(est_median)} (cached {dropped or 'nothing'} dropped before each "
          "run)")
    print(f"  ratio estimator / count matrices = {ratio:.2f}×")
    print(f"  κx kappalab = {float(est)!r}, hand count formula = {reference!r}, |difference| = "
          f"{big_diff:.2g} -> {'AGREE' if big_diff <= TOLERANCE else 'DISAGREE'}")
    if args.profile:
        print()
        print("cProfile of kl.cross_kappa on the built Annotations (cumulative):")
        cx.reset(), cy.reset()
        print(timing.profile_top(lambda: kl.cross_kappa(ax, ay), n=25))

    # ---- summary
    print()
    for row in direct_rows:
        print(f"{row['items']:>6d} items: direct {timing.fmt_time(row['direct_s'])}, kappalab "
              f"{timing.fmt_time(row['kappalab_end_to_end_s'])} end to end -> "
              f"{row['speedup_end_to_end']:.0f}× faster ({row['speedup_built']:.0f}× on built "
              "Annotations)")
    if speedup is None:
        verdict = f"not measured ({TARGET_SIZE} items not in --sizes)"
    else:
        verdict = "MET" if speedup >= TARGET_SPEEDUP else "MISSED"
    print(f"target: ≥ {TARGET_SPEEDUP:g}× faster than the direct version at {TARGET_SIZE} items "
          f"(end to end): {verdict}")
    print(f"{n_ann} annotations per side: kappalab {timing.fmt_time(est_best)} = {ratio:.2f}× "
          f"building the two count matrices ({timing.fmt_time(bc_best)}); ingest "
          f"{timing.fmt_time(ingest_best)}")
    print(f"values: {'all AGREE' if ok else 'DISAGREE'} (tolerance {TOLERANCE:g})")
    others = load.report()
    target = f">= {TARGET_SPEEDUP:g}x vs direct at {TARGET_SIZE} items"
    if speedup is not None:
        target += f" (got {speedup:.0f}x)"
    timing.emit_result({
        "others_cpu_share": others,
        "benchmark": "cross_kappa",
        "annotations": n_ann, "categories": K,
        "ingest_s": ingest_best, "estimator_s": est_best, "bincount_s": bc_best,
        "ratio": ratio, "estimator_error": None,
        "direct": direct_rows, "speedup_at_target_size": speedup,
        "target": target, "target_met": speedup is not None and speedup >= TARGET_SPEEDUP,
        "kx_kappalab": float(est), "kx_reference": reference, "abs_diff": big_diff,
        "checks_ok": bool(ok),
    })
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
