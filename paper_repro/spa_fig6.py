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

Why more annotations per item can *raise* the variance (the FECG stand-in). With j annotations
on each of n = N/j items, SPA is a mean of n item agreements, each P̂_j = P_i + (pair noise):

    Var[SPA] = (W_j + B·(E − n)/(E − 1))/n,   so   N·Var ≈ j·W_j + j·B,

W_j the pair noise of j annotations (within items; it shrinks like 1/j, so j·W_j falls) and B
the spread of the items' own agreement P_i between items (fixed: j·B grows linearly in j). More
annotations per item lower the variance at a fixed N only while the pair noise saved exceeds
B: from j to j + 1 iff B < j·W_j − (j + 1)·W_{j+1}. The stand-ins mix easy and hard items
(``heterogeneity``); in the FECG stand-in (3 classes, reliability 0.5) the easy items are nearly
unanimous and the hard ones not, B is large against the pair noise, and the curves rise with j
from j = 3 on — the opposite of the paper's FECG, whose items must differ less in agreement
relative to their pair noise. The script verifies this two ways:

* exactly on the data: :func:`spa_engine.subset_agreement_components` gives W_j (the mean over
  items of the variance of P̂_j over random j-subsets, multivariate hypergeometric moments) and
  B_j (the variance over the items with ≥ j annotations of their full-data agreement), hence
  the variance of every constant-j point (``data_variance`` in the CSV); the measured variance
  over rounds agrees with it to Monte-Carlo error (±√(2/rounds));
* in the simulation model (items easy or hard, θ_i ~ Dirichlet(τ_i π), annotations iid given
  θ_i): W_j = E[(4(j − 2)ζ₁ + 2ζ₂)/(j(j − 1))] (U-statistic), B = Var(Σθ_c²) (Dirichlet
  moments) — ``theory_variance`` in the CSV — and the population share of each kind of item.

The figure states this under each panel, ``spa_fig6_components.png`` plots j·W_j, j·B_j and
their sum against the measured N·Var at one common N, and ``spa_fig6.md`` tabulates them.

Outputs in ``--out``: ``spa_fig6.csv`` (dataset, curve, j, annotations used, items, variance,
mean SPA, rounds, exact data variance, model variance), ``spa_fig6_components.csv`` (per
dataset and j: W_j, B_j, the model's, and the measured N·Var at a common N),
``spa_fig6.png``, ``spa_fig6_components.png`` and ``spa_fig6.md``.
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

from paper_repro.spa_engine import (PAPER, SHORT_NOTE, STAND_IN_NOTE, Dataset, Timer,
                                    constant_j_variance, dataset_names,
                                    dirichlet_agreement_moments, item_agreement_components,
                                    markdown_table, parse_args, random_addition,
                                    run_per_dataset, simulate_dataset, subsampling_rng,
                                    subset_agreement_components, usage_grid, weight_table)
from paper_repro.status import status_markdown, status_text

DEFAULT_ROUNDS = 3000
QUICK_ROUNDS = 20


def run_dataset(name: str, *, quick: bool, seed: int, rounds: int, points: int,
                min_items: int) -> dict:
    """Simulate the stand-in ``name`` and :func:`analyse` it."""
    ds = simulate_dataset(name, quick=quick, seed=seed)
    return analyse(ds, rounds=rounds, points=points, min_items=min_items,
                   rng=subsampling_rng(name, seed))


def analyse(ds: Dataset, *, rounds: int, points: int, min_items: int,
            rng: np.random.Generator) -> dict:
    """Fig. 6 curves of one dataset (any :class:`~paper_repro.spa_engine.Dataset`; the model
    columns only when it has a simulation truth) and its variance components per j."""
    timer = Timer()
    name = ds.name
    targets = usage_grid(ds, points)
    constant = {}
    for j in range(2, ds.max_m + 1):
        eligible = int((ds.m >= j).sum())
        if eligible >= min_items:
            constant[j] = np.unique(np.clip(np.round(targets / j).astype(np.int64), 1, eligible))
    flat = {"flat": weight_table("flat", ds.max_m, ds.n_classes)}
    out = random_addition(ds, targets, flat, rounds, rng, constant)
    rows = [{"dataset": name, "curve": "sparse (random addition)", "j": np.nan,
             "annotations_used": int(x), "items": np.nan, "variance": float(v),
             "mean_spa": float(mu), "mean_used_reached": float(u), "rounds": rounds}
            for x, v, mu, u in zip(targets, out["flat"].var(axis=0, ddof=1),
                                   out["flat"].mean(axis=0), out["_used"].mean(axis=0))]
    components = []
    for j, counts in constant.items():
        values = out[f"constant_{j}"]
        comp = subset_agreement_components(ds, j)
        exact = constant_j_variance(comp, counts)
        row = {"j": j, "eligible": comp["eligible"], "within": comp["within"],
               "between": comp["between"]}
        theory = np.full(counts.size, np.nan)
        if ds.truth is not None:
            _, w, b = item_agreement_components(ds.truth, j)
            # n of the eligible items without replacement: the factor on the between part only
            theory = (w + b * (comp["eligible"] - counts) / max(comp["eligible"] - 1, 1)) / counts
            row.update(model_within=w, model_between=b)
        components.append(row)
        rows += [{"dataset": name, "curve": f"constant {j}", "j": j,
                  "annotations_used": int(c * j), "items": int(c), "variance": float(v),
                  "mean_spa": float(mu), "mean_used_reached": float(c * j), "rounds": rounds,
                  "data_variance": float(d), "theory_variance": float(t)}
                 for c, v, mu, d, t in zip(counts, values.var(axis=0, ddof=1),
                                           values.mean(axis=0), exact, theory)]
    kinds = []
    if ds.truth is not None:  # the stand-in's kinds of item (½ each): mean true agreement
        pi = np.asarray(ds.truth.prevalence, dtype=float)
        kinds = [dirichlet_agreement_moments(tau * pi)[0]
                 for tau in ds.truth.details["class_tau"]]
    return {"rows": rows, "components": components, "describe": ds.describe(),
            "shape": ds.shape(), "true_p": None if ds.truth is None else ds.truth.p_o,
            "item_kinds": kinds, "pairable_annotations": ds.pairable_annotations,
            "seconds": str(timer)}


def log_interp(x: np.ndarray, xp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """fp(x) interpolated linearly in log-log over the positive fp (NaN outside them, and
    everywhere when there are none: a real dataset has no model variance)."""
    keep = fp > 0
    if not keep.any():
        return np.full(np.shape(x), np.nan)
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

    def at_x(column):
        return {j: float(log_interp(np.array([x]), g.annotations_used.to_numpy(float),
                                    g[column].to_numpy(float))[0]) for j, g in const.items()}

    summary["variance_by_j"] = at_x("variance")
    summary["data_by_j"] = at_x("data_variance")
    summary["theory_by_j"] = at_x("theory_variance")
    return summary


def components_frame(name: str, result: dict, summary: dict) -> pd.DataFrame:
    """Per j: W_j, B_j (data, exact), N·Var predicted and measured at the common N, model."""
    x = summary["common_x"]
    rounds = int(result["rows"][0]["rounds"])
    rows = []
    for c in result["components"]:
        j = c["j"]
        n = x / j
        fpc = (c["eligible"] - n) / max(c["eligible"] - 1, 1)
        measured = x * summary["variance_by_j"][j]
        row = {"dataset": name, "j": j, "eligible_items": c["eligible"],
               "within_W": c["within"], "between_B": c["between"],
               "j_within": j * c["within"], "j_between": j * c["between"],
               "j_total": j * (c["within"] + c["between"]),
               "common_N": x, "fpc_between": fpc,
               "predicted_N_var": j * (c["within"] + c["between"] * fpc),
               "measured_N_var": measured,
               "measured_N_var_se": measured * np.sqrt(2 / max(rounds - 1, 1))}
        row["measured_over_predicted"] = row["measured_N_var"] / row["predicted_N_var"]
        if "model_within" in c:
            row.update(model_j_within=j * c["model_within"],
                       model_j_between=j * c["model_between"])
        rows.append(row)
    return pd.DataFrame(rows)


def direction(comp: pd.DataFrame) -> tuple[int, str]:
    """(j with the lowest j·(W_j + B_j), how N·Var moves with j) from the data components."""
    total = comp.set_index("j").j_total
    best = int(total.idxmin())
    js = list(total.index)
    if best == js[0]:
        return best, f"rises with j from j = {best}"
    if best == js[-1]:
        return best, "falls with j throughout"
    return best, f"falls up to j = {best}, then rises"


def caption(name: str, comp: pd.DataFrame, result: dict) -> str:
    """The text under a panel: why the constant-j curves are ordered as they are."""
    best, move = direction(comp)
    c = comp.set_index("j")
    js = list(c.index)
    shown = sorted({js[0], best, js[-1]})
    parts = ", ".join(f"j={j}: {c.j_within[j]:.2f}+{c.j_between[j]:.2f}" for j in shown)
    text = (f"Variance at a fixed N {move.replace('rises', 'RISES')} (lowest at j = {best}). "
            f"At fixed N there are N/j items: N·Var ≈ j·W_j + j·B — pair noise within items "
            f"W_j (×j: falls with j) + spread of the items' agreement between items B (×j: "
            f"rises). These data, j·W_j + j·B_j: {parts}.")
    if best < js[-1] - 1:
        kinds = result.get("item_kinds") or []
        why = (" (the stand-in's items are half easy, mean agreement "
               f"{max(kinds):.2f}, half hard, {min(kinds):.2f})" if len(kinds) == 2 else "")
        text += (f" Past j = {best} the between-item spread B = {c.between_B[best]:.3f}{why} "
                 f"exceeds the pair noise an extra annotation saves")
        if name == "FECG":
            text += (" — the opposite of the paper's FECG, where more annotations per item "
                     "lowered the variance: its real items must differ less in agreement, "
                     "relative to their pair noise, than this stand-in's")
        text += "."
    return text


def plot_fig6(frame: pd.DataFrame, results: dict, components: dict, path, *, rounds: int,
              title_note: str = SHORT_NOTE, footer: str = STAND_IN_NOTE) -> None:
    """Variance against annotations used per dataset (2 columns), a caption under each panel."""
    names = list(results)
    ncols = min(2, len(names))
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(7.4 * ncols, 6.9 * nrows), squeeze=False)
    for ax, name in zip(axes.ravel(), names):
        sub = frame[frame.dataset == name]
        js = sorted(int(j) for j in sub.j.dropna().unique())
        colours = plt.cm.viridis(np.linspace(0, 0.9, max(len(js), 1)))
        for j, colour in zip(js, colours):
            g = sub[sub.j == j]
            g = g[g.variance > 1e-20]
            ax.plot(g.annotations_used, g.variance, "-", color=colour, lw=1.3,
                    label=f"{j} per item")
        g = sub[sub.curve.str.startswith("sparse") & (sub.variance > 1e-20)]
        ax.plot(g.annotations_used, g.variance, "k--", lw=2.2, label="sparse (random)",
                zorder=5)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("annotations used N (items with ≥ 2 annotations)")
        ax.set_ylabel("variance of SPA over rounds")
        ax.set_title(f"{name}\n{results[name]['shape']}", fontsize=9)
        ax.legend(fontsize=7, ncol=2, loc="lower left")
        ax.text(0.0, -0.15, "\n".join(textwrap.wrap(caption(name, components[name],
                                                             results[name]), 100)),
                transform=ax.transAxes, va="top", ha="left", fontsize=7.6,
                bbox={"boxstyle": "round", "fc": "#f4f4f4", "ec": "#bbbbbb"})
    for ax in axes.ravel()[len(names):]:
        ax.set_visible(False)
    fig.suptitle(f"Fig. 6: variance of SPA over {rounds} random subsampling rounds — "
                 f"{title_note}", fontsize=10)
    fig.text(0.01, 0.005, "\n".join(textwrap.wrap(footer, 190)), fontsize=7, va="bottom")
    fig.subplots_adjust(left=0.07, right=0.98, top=1 - 0.14 / nrows, bottom=0.26 / nrows + 0.03,
                        hspace=0.7, wspace=0.22)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_components(components: dict, path, *, rounds: int, title_note: str = SHORT_NOTE
                    ) -> None:
    """Per dataset against j: j·W_j, j·B_j·fpc and their sum (exact, from the data) with the
    measured N·Var at the common N (± 2 SE), and the model's j·W_j and j·B."""
    names = list(components)
    ncols = min(2, len(names))
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.6 * ncols, 4.6 * nrows), squeeze=False)
    for ax, name in zip(axes.ravel(), names):
        c = components[name]
        ax.plot(c.j, c.j_within, "-o", color="tab:blue", label="j·W_j  pair noise within items")
        ax.plot(c.j, c.j_between * c.fpc_between, "-s", color="tab:orange",
                label="j·B_j  spread between items (× finite-pop. factor)")
        ax.plot(c.j, c.predicted_N_var, "-", color="black", lw=2,
                label="sum: exact N·Var for these data")
        ax.errorbar(c.j, c.measured_N_var, yerr=2 * c.measured_N_var_se, fmt="D", ms=5,
                    color="tab:red", capsize=2, zorder=5,
                    label=f"measured N·Var over {rounds} rounds (± 2 SE)")
        if "model_j_within" in c:
            ax.plot(c.j, c.model_j_within, ":", color="tab:blue", lw=1.3,
                    label="model j·W_j (population)")
            ax.plot(c.j, c.model_j_between, ":", color="tab:orange", lw=1.3,
                    label="model j·B (population)")
        ax.set_xlabel("j annotations per item")
        ax.set_ylabel("N × variance of SPA")
        ax.set_title(f"{name}: at N = {c.common_N.iloc[0]:.0f} annotations used", fontsize=9)
        ax.set_ylim(bottom=0)
        ax.xaxis.get_major_locator().set_params(integer=True)
    for ax in axes.ravel()[len(names):]:
        ax.set_visible(False)
    legend = {}  # every panel's entries (a real dataset's panel has no model lines)
    for ax in axes.ravel()[:len(names)]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    fig.legend(list(legend.values()), list(legend), loc="lower center", ncol=3, fontsize=8,
               frameon=False)
    fig.suptitle("Fig. 6, why: N·Var = j·W_j + j·B_j — pair noise falls with j, the between-item "
                 f"term rises — {title_note}", fontsize=10)
    fig.subplots_adjust(left=0.08, right=0.98, top=1 - 0.16 / nrows, bottom=0.04 + 0.2 / nrows,
                        hspace=0.35, wspace=0.2)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def markdown_report(results: dict, summaries: dict, components: dict, rounds: int,
                    note: str = STAND_IN_NOTE) -> str:
    """spa_fig6.md: the explanation and the component tables."""
    sections = [f"> {note}",
                f"Paper: {PAPER}. {rounds} random subsampling rounds per dataset (the paper "
                "used 3000).",
                "## Why the variance at a fixed number of annotations can rise with j",
                "With j annotations on each of n = N/j items, SPA is the mean of n item "
                "agreements P̂_j = P_i + pair noise, so Var[SPA] = (W_j + B_j·(E − n)/(E − 1))/n "
                "and N·Var ≈ j·W_j + j·B_j: W_j, the pair noise of j annotations, shrinks "
                "about like 1/j, so j·W_j falls; B_j, the spread of the items' own agreement "
                "between items, does not shrink, so j·B_j grows linearly in j. Going from j to "
                "j + 1 annotations per item lowers the variance only if B < j·W_j − "
                "(j + 1)·W_{j+1}. The stand-ins mix easy and hard items; where the easy ones "
                "are nearly unanimous (FECG: 3 classes, reliability 0.5) B is large and the "
                "curves rise with j — the opposite of the paper, whose datasets' items must "
                "differ less in agreement relative to their pair noise.",
                "W_j and B_j below are exact for these data (multivariate hypergeometric "
                "moments of a random j-subset of each item's annotations; B_j over the items "
                "with ≥ j annotations), and their sum predicts the measured variance. On the "
                "data W_j is the noise of which j of an item's m annotations are drawn (0 at "
                "j = m) and B_j the spread of the items' full-data agreement (noise of their m "
                "annotations included); the model columns separate the population's pair "
                "noise from the spread of the items' true agreement. "
                "`measured/predicted` should be 1 within about ±"
                f"{2 * np.sqrt(2 / max(rounds - 1, 1)):.0%} (2 SE of a variance over "
                f"{rounds} rounds)."]
    for name in results:
        s, c = summaries[name], components[name]
        best, move = direction(c)
        table = c[["j", "eligible_items", "j_within", "j_between", "j_total",
                   "predicted_N_var", "measured_N_var", "measured_over_predicted"]
                  + [k for k in ("model_j_within", "model_j_between") if k in c]]
        kinds = results[name].get("item_kinds") or []
        sections += [f"## {name}",
                     f"{results[name]['describe']}. N·Var {move} (lowest at j = {best})"
                     + (f"; easy items' mean agreement {max(kinds):.3f}, hard items' "
                        f"{min(kinds):.3f}" if len(kinds) == 2 else "")
                     + (f"; sparse / constant-2 variance (median over N in {s['window']}): "
                        f"{s['sparse_over_constant2']:.3f}" if "sparse_over_constant2" in s
                        else "") + ".",
                     f"At N = {s['common_x']:.0f} annotations used:",
                     markdown_table(table)]
    return "# SPA Fig. 6 — variance of SPA over subsampling\n\n" \
        + "\n\n".join(x.rstrip() for x in sections) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = parse_args_fig6(argv)
    timer = Timer()
    task = functools.partial(run_dataset, quick=args.quick, seed=args.seed, rounds=args.rounds,
                             points=args.points, min_items=args.min_items)
    results = run_per_dataset(task, dataset_names(), args.jobs)
    results = {name: results[name] for name in dataset_names()}
    frame = pd.DataFrame([r for name in results for r in results[name]["rows"]])
    png, csv = args.out / "spa_fig6.png", args.out / "spa_fig6.csv"
    comp_png, comp_csv = args.out / "spa_fig6_components.png", args.out / "spa_fig6_components.csv"
    md = args.out / "spa_fig6.md"
    frame.to_csv(csv, index=False)
    summaries = {name: summarise(frame[frame.dataset == name],
                                 results[name]["pairable_annotations"]) for name in results}
    components = {name: components_frame(name, results[name], summaries[name])
                  for name in results}
    pd.concat(components.values()).to_csv(comp_csv, index=False)
    plot_fig6(frame, results, components, png, rounds=args.rounds)
    plot_components(components, comp_png, rounds=args.rounds)
    md.write_text(markdown_report(results, summaries, components, args.rounds) + "\n"
                  + status_markdown("spa_fig6"))

    print(f"SPA Fig. 6 — {PAPER}")
    print(STAND_IN_NOTE)
    for name in results:
        r, s, c = results[name], summaries[name], components[name]
        print(f"\n{r['describe']} [{r['seconds']}]")
        if "sparse_over_constant2" in s:
            print(f"  sparse / constant-2 variance, median over N in {s['window']}: "
                  f"{s['sparse_over_constant2']:.3f}")
        by_j = ", ".join(f"j={j}: {v:.3e} ({s['data_by_j'][j]:.3e}, {s['theory_by_j'][j]:.3e})"
                         for j, v in s["variance_by_j"].items())
        print(f"  variance at N = {s['common_x']:.0f} annotations, measured (exact for the "
              f"data, model theory): {by_j}")
        best, move = direction(c)
        print("  N·Var ≈ j·W_j + j·B_j (pair noise within items + spread between items), "
              "data: " + ", ".join(f"j={row.j}: {row.j_within:.3f}+{row.j_between:.3f}"
                                    for row in c.itertuples())
              + f" -> N·Var {move}; lowest at j = {best}")
        print("  measured / predicted N·Var: "
              + ", ".join(f"{v:.3f}" for v in c.measured_over_predicted))
    print("\n" + status_text("spa_fig6"))
    print(f"\n{args.rounds} rounds; wrote {png}, {comp_png}, {csv}, {comp_csv}, {md} in {timer}")
    return 0


def parse_args_fig6(argv):
    args = parse_args(
        "SPA Fig. 6: variance of SPA over subsampling (simulated stand-ins)", argv,
        [("--rounds", {"type": int, "default": None,
                       "help": f"subsampling rounds (default {DEFAULT_ROUNDS}, as the paper; "
                               f"--quick {QUICK_ROUNDS})"}),
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
