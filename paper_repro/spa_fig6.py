r"""Fig. 6 of Nørregaard & Derczynski (2022): the variance of SPA over repeated random
subsampling, against the number of annotations used — with a constant number of annotations per
item, and with annotations added one at a time at random (sparse).

SIMULATED STAND-INS: the paper's four datasets (DAR, MBIC, BSMTWE, FECG) are not available
offline; datasets of the same shape are simulated (``spa_engine.DATASETS``: items, classes and
annotations per item from the paper, prevalence and reliability assumed).

Per dataset and round (``--rounds``, the paper used 3 000):

* constant j annotations per item (j = 2, 3, … while ≥ ``--min-items`` items have j): the items
  with ≥ j annotations in a random order, each with j of its annotations drawn at random; SPA
  (every weighting is the plain mean here) over the first N/j items, N the annotations used;
* sparse: all annotations in a random order, added one at a time; items with fewer than two
  are disregarded; SPA with flat weights read at the first prefix whose annotations on items
  with ≥ 2 reach N (N or N + 1: an item becoming pairable adds two at once).

The x-axis is N, the annotations used (on items with ≥ 2), log-spaced from 10 to all of them.
Subsampling is vectorised (``spa_engine.random_addition_block``): a random permutation of the
annotations per round, each item's arrivals ordered by one sort per item row, and the changes of
Σ k_i P_i and Σ k_i at each arrival cumulated by ``np.bincount`` on (round, prefix, slot) keys;
the j-annotation agreement of an item is its agreement after its first j arrivals (a uniformly
random j-subset). At N = all annotations the sparse SPA is the full-data value in every round
(variance 0): the subsampling is without replacement, from a finite dataset.

Model check. In the stand-ins' model (items easy or hard, θ_i ~ Dirichlet(τ_i π), annotations
iid given θ_i) the agreement of an item from j annotations has variance
Var[P̂_j] = E[(4(j − 2)ζ₁ + 2ζ₂)/(j(j − 1))] + Var(Σθ_c²) over items (U-statistic within,
Dirichlet moments between), so with a constant j the variance at N annotations is about
j·Var[P̂_j]/N (times the finite-population factor): ``theory_variance`` in the CSV and in
brackets on stdout. j·Var[P̂_j] falls with j while the pair noise dominates and rises once the
between-item spread does — so more annotations per item lower the variance at a fixed number of
annotations only up to a point (the paper saw a decrease on its datasets).

Outputs in ``--out``: ``spa_fig6.csv`` (dataset, curve, j, annotations used, items, variance,
mean SPA, rounds, model variance) and ``spa_fig6.png``.
Run: ``python -m paper_repro.spa_fig6 [--quick] [--rounds R] [--jobs J] [--out DIR]
[--seed S]``.
"""

from __future__ import annotations

import functools
import sys
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from paper_repro.spa_engine import (PAPER, SHORT_NOTE, STAND_IN_NOTE, Timer, dataset_names,
                                    item_agreement_spread, parse_args, random_addition,
                                    run_per_dataset, simulate_dataset, subsampling_rng,
                                    usage_grid, weight_table)

DEFAULT_ROUNDS = 500
QUICK_ROUNDS = 20


def run_dataset(name: str, *, quick: bool, seed: int, rounds: int, points: int,
                min_items: int) -> dict:
    timer = Timer()
    ds = simulate_dataset(name, quick=quick, seed=seed)
    targets = usage_grid(ds, points)
    constant = {}
    for j in range(2, ds.max_m + 1):
        eligible = int((ds.m >= j).sum())
        if eligible >= min_items:
            constant[j] = np.unique(np.clip(np.round(targets / j).astype(np.int64), 1, eligible))
    flat = {"flat": weight_table("flat", ds.max_m, ds.n_classes)}
    out = random_addition(ds, targets, flat, rounds, subsampling_rng(name, seed), constant)
    rows = [{"dataset": name, "curve": "sparse (random addition)", "j": np.nan,
             "annotations_used": int(x), "items": np.nan, "variance": float(v),
             "mean_spa": float(mu), "mean_used_reached": float(u), "rounds": rounds}
            for x, v, mu, u in zip(targets, out["flat"].var(axis=0, ddof=1),
                                   out["flat"].mean(axis=0), out["_used"].mean(axis=0))]
    for j, counts in constant.items():
        values = out[f"constant_{j}"]
        eligible = int((ds.m >= j).sum())
        spread = item_agreement_spread(ds.truth, j)[1]
        # n of the eligible items, drawn without replacement (finite-population factor)
        theory = spread / counts * (eligible - counts) / max(eligible - 1, 1)
        rows += [{"dataset": name, "curve": f"constant {j}", "j": j,
                  "annotations_used": int(c * j), "items": int(c), "variance": float(v),
                  "mean_spa": float(mu), "mean_used_reached": float(c * j), "rounds": rounds,
                  "theory_variance": float(t)}
                 for c, v, mu, t in zip(counts, values.var(axis=0, ddof=1), values.mean(axis=0),
                                        theory)]
    m = ds.m[ds.m > 0]
    shape = (f"{ds.n_items} items, {ds.n_classes} classes, {ds.n_annotations} annotations, "
             f"{m.min()}–{m.max()} per item")
    per_annotation = {j: j * item_agreement_spread(ds.truth, j)[1]
                      for j in range(2, ds.max_m + 1)}
    return {"rows": rows, "describe": ds.describe(), "shape": shape, "true_p": ds.truth.p_o,
            "per_annotation": per_annotation,
            "pairable_annotations": ds.pairable_annotations, "seconds": str(timer)}


def log_interp(x: np.ndarray, xp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    keep = fp > 0
    return np.exp(np.interp(np.log(x), np.log(xp[keep]), np.log(fp[keep]), left=np.nan,
                            right=np.nan))


def summarise(frame: pd.DataFrame, top: int) -> dict:
    """Sparse vs constant-2 variance, and the variance per j at one common N, a decade below
    the finite-population end of every curve (all annotations, all eligible items)."""
    sparse = frame[frame.curve.str.startswith("sparse")]
    const = {int(j): g for j, g in frame[frame.j.notna()].groupby("j")}
    lo, hi = 50, max(60, top // 10)
    window = sparse[(sparse.annotations_used >= lo) & (sparse.annotations_used <= hi)]
    summary = {"window": (lo, hi)}
    if 2 in const and len(window):
        ref = log_interp(window.annotations_used.to_numpy(float),
                         const[2].annotations_used.to_numpy(float), const[2].variance.to_numpy())
        ratio = window.variance.to_numpy() / ref
        summary["sparse_over_constant2"] = float(np.nanmedian(ratio))
    # each constant-j curve ends where all its eligible items are used: stay a decade below
    common = min([g.annotations_used.max() / 10 for g in const.values()] + [hi])
    x = float(sparse.annotations_used[sparse.annotations_used <= common].max())
    summary["common_x"] = x
    summary["variance_by_j"] = {j: float(log_interp(np.array([x]),
                                                    g.annotations_used.to_numpy(float),
                                                    g.variance.to_numpy())[0])
                                for j, g in const.items()}
    summary["theory_by_j"] = {j: float(log_interp(np.array([x]),
                                                  g.annotations_used.to_numpy(float),
                                                  g.theory_variance.to_numpy())[0])
                              for j, g in const.items()}
    return summary


def main(argv: list[str] | None = None) -> int:
    args = parse_args_fig6(argv)
    timer = Timer()
    task = functools.partial(run_dataset, quick=args.quick, seed=args.seed, rounds=args.rounds,
                             points=args.points, min_items=args.min_items)
    results = run_per_dataset(task, dataset_names(), args.jobs)
    frame = pd.DataFrame([r for name in dataset_names() for r in results[name]["rows"]])
    png, csv = args.out / "spa_fig6.png", args.out / "spa_fig6.csv"
    frame.to_csv(csv, index=False)

    fig, axes = plt.subplots(2, 2, figsize=(12, 10))
    summaries = {}
    for ax, name in zip(axes.ravel(), dataset_names()):
        sub = frame[frame.dataset == name]
        summaries[name] = summarise(sub, results[name]["pairable_annotations"])
        js = sorted(int(j) for j in sub.j.dropna().unique())
        colours = plt.cm.viridis(np.linspace(0, 0.9, max(len(js), 1)))
        for j, colour in zip(js, colours):
            g = sub[sub.j == j]
            g = g[g.variance > 1e-20]
            ax.plot(g.annotations_used, g.variance, "-", color=colour, lw=1.3,
                    label=f"{j} per item")
        g = sub[sub.curve.str.startswith("sparse") & (sub.variance > 1e-20)]
        ax.plot(g.annotations_used, g.variance, "k--", lw=2.2, label="sparse (random)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("annotations used (items with ≥ 2 annotations)")
        ax.set_ylabel("variance of SPA over rounds")
        ax.set_title(f"{name} — simulated stand-in\n{results[name]['shape']}", fontsize=9)
        ax.legend(fontsize=7, ncol=2)
    fig.suptitle(f"Fig. 6: variance of SPA over {args.rounds} random subsampling rounds — "
                 f"{SHORT_NOTE}", fontsize=10)
    fig.text(0.01, 0.005, "\n".join(textwrap.wrap(STAND_IN_NOTE, 190)), fontsize=7,
             va="bottom")
    fig.tight_layout(rect=(0, 0.03, 1, 0.97))
    fig.savefig(png, dpi=120)
    plt.close(fig)

    print(f"SPA Fig. 6 — {PAPER}")
    print(STAND_IN_NOTE)
    for name in dataset_names():
        r, s = results[name], summaries[name]
        print(f"\n{r['describe']} [{r['seconds']}]")
        if "sparse_over_constant2" in s:
            print(f"  sparse / constant-2 variance, median over N in {s['window']}: "
                  f"{s['sparse_over_constant2']:.3f}")
        by_j = ", ".join(f"j={j}: {v:.3e} ({s['theory_by_j'][j]:.3e})"
                         for j, v in s["variance_by_j"].items())
        print(f"  variance at N = {s['common_x']:.0f} annotations, measured (model theory): "
              f"{by_j}")
        best = min(r["per_annotation"], key=r["per_annotation"].get)
        print(f"  model: N·Var = j·Var[P̂_j] is smallest at j = {best} annotations per item "
              "(between-item spread of agreement vs pair noise); "
              f"j = 2..{max(r['per_annotation'])}: "
              + ", ".join(f"{v:.3f}" for v in r["per_annotation"].values()))
    print(f"\n{args.rounds} rounds; wrote {png} and {csv} in {timer}")
    return 0


def parse_args_fig6(argv):
    args = parse_args(
        "SPA Fig. 6: variance of SPA over subsampling (simulated stand-ins)", argv,
        [("--rounds", {"type": int, "default": None,
                       "help": f"subsampling rounds (default {DEFAULT_ROUNDS}, --quick "
                               f"{QUICK_ROUNDS}; the paper used 3000)"}),
         ("--points", {"type": int, "default": 40, "help": "points on the x-axis"}),
         ("--min-items", {"type": int, "default": None,
                          "help": "fewest items with j annotations for a constant-j curve "
                                  "(default 100, --quick 10)"}),
         ("--jobs", {"type": int, "default": 2, "help": "processes (one dataset each)"})])
    if args.rounds is None:
        args.rounds = QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS
    if args.min_items is None:
        args.min_items = 10 if args.quick else 100
    if args.quick:
        args.points = min(args.points, 15)
    return args


if __name__ == "__main__":
    sys.exit(main())
