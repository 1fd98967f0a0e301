"""Bias of SPA (every weighting scheme) and of the chance-corrected spa_kappa against the truth.

Nominal data from the Dirichlet–multinomial model of ``kappalab.simulate`` (3 categories,
prevalence 0.6/0.3/0.1, population κ = α = 0.5, so P = Σπ² + (1 − Σπ²)κ = 0.73; items easy or
hard, κ_i = 0.5 ± 0.25), over a grid of the number of items (20 → 5 000), the annotations per
item (1–3, 2–6, 5–12, uniform) and the missingness mechanism (MCAR; MNAR: harder items get more
annotations, tilt strength ``--mnar-strength``). Per cell, ``--datasets`` datasets (more for the
small, cheap cells: ×6 at 20 items, ×4 at 50, ×2 at 100).

Targets and limits
------------------
* SPA (any weights k(m)) against the population probability of agreement ``truth.p_o``. Its
  large-sample limit is exact: with p(m | c) the annotation-count pmf of item class c (easy or
  hard, ½ each; MCAR: the baseline pmf; MNAR: the tilted one) and P_c the class's agreement,

      SPA → Σ_c Σ_{m≥2} p(m|c) k(m) P_c / Σ_c Σ_{m≥2} p(m|c) k(m),

  computed here from ``truth.details`` (class κ, marginals, baseline pmf, tilt) and checked
  against ``truth.p_o_pairable`` (flat) and ``truth.p_o_annotation_weighted`` (annotations).
  inv_var_class uses the limit of its estimated class distribution, π (both item classes have
  marginals π). Under MCAR every limit is ``truth.p_o``: SPA is unbiased for every scheme.
* spa_kappa = (SPA − P̂_e)/(1 − P̂_e) against ``truth.alpha`` (= κ). Its limit is
  (SPA limit − Σπ²)/(1 − Σπ²) (P̂_e → Σπ²). Even under MCAR, where the limit is κ, it is a ratio
  of two estimates from the same data and biased in small samples (the paper's §chance
  correction; O(1/n)): the summary prints the measured bias, its Monte Carlo SE, n × bias, and
  b of a weighted least-squares fit bias ≈ b/n per design and weighting.

Columns of ``spa_bias.csv``: missingness, annotations_per_item, n_items, estimator (spa /
spa_kappa), weights, truth, limit, mean, bias (mean − truth), bias_se (Monte Carlo SE),
finite_sample_bias (mean − limit), rmse, sd, rms_se (root mean square of the reported
``Estimate.se``; compare with sd), n_datasets. Writes ``spa_bias.csv`` and ``spa_bias.png`` to
``--out``.

Each dataset is a replication of :func:`kappalab.simulate.run_study`, on a local Dask cluster of
every core by default, ``--scheduler serial`` in this process or the cluster at ``--scheduler
ADDRESS``; ``--checkpoint FILE`` keeps every finished dataset, so the same command resumes an
interrupted run. The cells are mechanism × design × items × block, in that order, each of
``--datasets`` datasets: the sizes with more datasets have 6, 4 or 2 blocks, pooled in the
table. Every estimator and weighting sees the same datasets; the table does not depend on where
they ran. Run: ``python -m experiments.spa_bias [--quick] [--scheduler ADDRESS] [--workers N]
[--checkpoint FILE]``; ``--quick`` (2–6 annotations, 20 and 200 items, 8 datasets per cell)
takes about 20 s; the full grid (15 300 datasets) took 12 min with two workers on a shared
two-core machine busy with other jobs.
"""

from __future__ import annotations

import functools
import itertools

import matplotlib.pyplot as plt
from matplotlib.ticker import NullFormatter
import numpy as np
import pandas as pd

import kappalab as kl
from kappalab import simulate

from experiments.study import cluster, parse_args, run

PREVALENCE = (0.6, 0.3, 0.1)
RELIABILITY = 0.5
HETEROGENEITY = 0.5
DESIGNS = {"1-3": (1, 3), "2-6": (2, 6), "5-12": (5, 12)}  # annotations per item, uniform
SCHEMES = ("flat", "annotations", "annotations_m1", "edges", "inv_var", "inv_var_class")
KAPPA_SCHEMES = ("flat", "annotations", "edges")
MULTIPLIER = {20: 6, 50: 4, 100: 2}  # more datasets where they are cheap


def scheme_weight(scheme: str, m: np.ndarray, p: np.ndarray) -> np.ndarray:
    """k(m) for m ≥ 2, written out (the uniform inv_var is ∝ edges; inv_var_class is
    n(n−1)/(A + nB), a = Σp², b = Σp³, A = 2a + 6a² − 8b, B = 4(b − a²): docs/architecture.md)."""
    a, b = float((p ** 2).sum()), float((p ** 3).sum())
    return {"flat": np.ones_like(m), "annotations": m, "annotations_m1": m - 1,
            "edges": m * (m - 1) / 2, "inv_var": m * (m - 1) / 2,
            "inv_var_class": m * (m - 1) / (2 * a + 6 * a * a - 8 * b + 4 * m * (b - a * a)),
            }[scheme]


def spa_limits(truth) -> dict[str, float]:
    """The exact large-sample limit of SPA per scheme under the simulated design."""
    d = truth.details
    pi = np.asarray(d["marginals"], dtype=float)
    s2 = float(pi @ pi)
    kappa_c = np.asarray(d["class_kappa"], dtype=float)
    P_c = s2 + (1 - s2) * kappa_c
    h_c = 1 - P_c
    p0 = np.asarray(d["annotation_count_pmf"], dtype=float)
    m = np.arange(p0.size, dtype=float)
    strength = d["mnar_strength"] if d["missingness"] == "mnar" else 0.0
    with np.errstate(divide="ignore"):
        log_w = np.log(p0) + strength * np.outer(h_c - h_c.mean(), m)
    pm = np.exp(log_w - log_w.max(axis=1, keepdims=True))
    pm /= pm.sum(axis=1, keepdims=True)
    pairable = m >= 2
    limits = {}
    for scheme in SCHEMES:
        k = np.where(pairable, scheme_weight(scheme, np.where(pairable, m, 2.0), pi), 0.0)
        limits[scheme] = float((pm @ k) @ P_c / (pm @ k).sum())
    # the simulation module's own limits agree (a cheap consistency check)
    assert abs(limits["flat"] - truth.p_o_pairable) < 1e-10
    assert abs(limits["annotations"] - truth.p_o_annotation_weighted) < 1e-10
    return limits


KEYS = [("spa", s) for s in SCHEMES] + [("spa_kappa", s) for s in KAPPA_SCHEMES]


def replicate(cell: dict, rng: np.random.Generator, *, mnar_strength: float) -> list[dict]:
    """One dataset of the cell: a row per estimator and weighting, with its truth and exact
    large-sample limit."""
    ann, truth = simulate.annotations(
        cell["n_items"], level="nominal", prevalence=PREVALENCE, reliability=RELIABILITY,
        heterogeneity=HETEROGENEITY, annotations_per_item=DESIGNS[cell["annotations_per_item"]],
        missingness=cell["missingness"], mnar_strength=mnar_strength, seed=rng)
    limits = spa_limits(truth)
    p_e = truth.p_e
    rows = []
    for estimator, scheme in KEYS:
        fn = kl.spa if estimator == "spa" else kl.spa_kappa
        est = fn(ann, scheme=scheme)
        if estimator == "spa":
            target, limit = truth.p_o, limits[scheme]
        else:
            target, limit = truth.alpha, (limits[scheme] - p_e) / (1 - p_e)
        rows.append({"estimator": estimator, "weights": scheme, "value": est.value,
                     "se": est.se, "truth": target, "limit": limit})
    return rows


def summarise(records: pd.DataFrame) -> pd.DataFrame:
    """One row per cell (the blocks of a size pooled), estimator and weighting."""
    rows = []
    for (missingness, design, n_items, estimator, scheme), group in records.groupby(
            ["missingness", "annotations_per_item", "n_items", "estimator", "weights"],
            sort=False):
        v = group["value"].to_numpy(dtype=float)
        se = group["se"].to_numpy(dtype=float)
        last = group.iloc[-1]  # the truth and limit are the design's, the same every time
        target, limit = last["truth"], last["limit"]
        rows.append({
            "missingness": missingness, "annotations_per_item": design,
            "n_items": n_items, "estimator": estimator, "weights": scheme,
            "truth": target, "limit": limit, "mean": v.mean(), "bias": v.mean() - target,
            "bias_se": v.std(ddof=1) / np.sqrt(v.size),
            "finite_sample_bias": v.mean() - limit,
            "rmse": float(np.sqrt(np.mean((v - target) ** 2))), "sd": v.std(ddof=1),
            "rms_se": float(np.sqrt(np.nanmean(se ** 2))), "n_datasets": v.size,
        })
    return pd.DataFrame(rows)


def simulate_all(args, client) -> pd.DataFrame:
    sizes = [20, 200] if args.quick else [20, 50, 100, 200, 500, 1000, 2000, 5000]
    base = 8 if args.quick else args.datasets
    designs = ["2-6"] if args.quick else list(DESIGNS)
    cells = [{"missingness": missingness, "annotations_per_item": design, "n_items": n_items,
              "block": block}
             for missingness, design, n_items in itertools.product(("mcar", "mnar"), designs,
                                                                   sizes)
             for block in range(1 if args.quick else MULTIPLIER.get(n_items, 1))]
    records = run(args, client, cells,
                  functools.partial(replicate, mnar_strength=args.mnar_strength), base,
                  "datasets", batch_size=5)
    return summarise(records)


def plot(table: pd.DataFrame, path) -> None:
    columns = list(itertools.product(("mcar", "mnar"), table["annotations_per_item"].unique()))
    fig, axes = plt.subplots(2, len(columns), figsize=(3.2 * len(columns) + 1, 7),
                             sharex=True, squeeze=False)
    colours = dict(zip(SCHEMES, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for col, (missingness, design) in enumerate(columns):
        cell = table[(table["missingness"] == missingness)
                     & (table["annotations_per_item"] == design)]
        for row, estimator in enumerate(("spa", "spa_kappa")):
            ax = axes[row, col]
            for scheme, group in cell[cell["estimator"] == estimator].groupby("weights",
                                                                              sort=False):
                # inv_var is edges up to a constant (uniform classes): drawn dashed on top
                dashed = scheme == "inv_var"
                ax.errorbar(group["n_items"], group["bias"], yerr=2 * group["bias_se"],
                            marker="x" if dashed else "o", ms=3, lw=1, ls="--" if dashed else "-",
                            color=colours[scheme],
                            label="inv_var (= edges)" if dashed else scheme)
                # the bias that remains with infinitely many items: limit − truth
                ax.axhline(group["limit"].iloc[0] - group["truth"].iloc[0],
                           color=colours[scheme], ls=":", lw=1)
            ax.axhline(0, color="grey", lw=0.8)
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_title(f"{estimator}, {missingness.upper()}, m = {design}", fontsize=9)
            if row == 1:
                ax.set_xlabel("items")
    axes[0, 0].set_ylabel("SPA bias (mean − P)")
    axes[1, 0].set_ylabel("spa_kappa bias (mean − κ)")
    # one legend below the panels, where it covers no data (spa_kappa's schemes are among SPA's)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    fig.suptitle("SPA and spa_kappa: bias against the population truth (±2 MC SE; dotted: "
                 "large-sample limit − truth)\n"
                 f"nominal, π = {PREVALENCE}, κ = {RELIABILITY}, P = 0.73",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)


def fit_inverse_n(group: pd.DataFrame) -> tuple[float, float]:
    """Weighted least squares of finite_sample_bias = b/n (weights 1/bias_se²): (b, se(b))."""
    x = 1.0 / group["n_items"].to_numpy(dtype=float)
    y = group["finite_sample_bias"].to_numpy()
    w = 1.0 / group["bias_se"].to_numpy() ** 2
    information = float((w * x * x).sum())
    return float((w * x * y).sum() / information), float(1.0 / np.sqrt(information))


def summary(table: pd.DataFrame) -> str:
    largest = table[(table["n_items"] == table["n_items"].max()) & (table["estimator"] == "spa")]
    pivot = largest.pivot_table(index=["missingness", "annotations_per_item"], columns="weights",
                                values=["bias"], sort=False)
    gap = largest.assign(gap=largest["limit"] - largest["truth"]).pivot_table(
        index=["missingness", "annotations_per_item"], columns="weights", values=["gap"],
        sort=False)
    lines = [f"SPA bias (mean − P, P = {table['truth'].iloc[0]:.2f}) at "
             f"{table['n_items'].max()} items; Monte Carlo SE ≤ "
             f"{largest['bias_se'].max():.5f}:",
             pivot.round(5).to_string(), "",
             "exact large-sample bias (limit − P) of the same cells:",
             gap.round(5).to_string(), ""]
    kappa = table[(table["estimator"] == "spa_kappa") & (table["missingness"] == "mcar")].copy()
    kappa["z"] = kappa["finite_sample_bias"] / kappa["bias_se"]
    kappa["n_x_bias"] = kappa["n_items"] * kappa["finite_sample_bias"]
    lines += ["spa_kappa (flat weights) small-sample bias under MCAR, against κ = "
              f"{RELIABILITY} (= its limit): bias = mean − κ, bias_se = Monte Carlo SE:",
              kappa[kappa["weights"] == "flat"][
                  ["annotations_per_item", "n_items", "n_datasets", "mean", "bias", "bias_se",
                   "z", "n_x_bias", "sd", "rms_se"]].round(5).to_string(index=False), ""]
    fits = []
    for (design, scheme), group in kappa.groupby(["annotations_per_item", "weights"],
                                                 sort=False):
        b, b_se = fit_inverse_n(group)
        fits.append({"annotations_per_item": design, "weights": scheme, "b": b, "b_se": b_se,
                     "bias_at_20": b / 20, "bias_at_100": b / 100})
    lines += ["spa_kappa bias ≈ b/n under MCAR (weighted least squares over the item sizes):",
              pd.DataFrame(fits).round(5).to_string(index=False), ""]
    mnar = table[(table["estimator"] == "spa_kappa") & (table["missingness"] == "mnar")
                 & (table["n_items"] == table["n_items"].max())]
    lines += ["spa_kappa under MNAR at the largest size (limit ≠ κ: the missingness bias):",
              mnar[["annotations_per_item", "weights", "truth", "limit", "mean", "bias",
                    "bias_se"]].round(5).to_string(index=False)]
    return "\n".join(lines)


def main(argv=None) -> pd.DataFrame:
    args = parse_args(__doc__.splitlines()[0], argv, extra=[
        ("--datasets", {"type": int, "default": 150,
                        "help": "datasets per cell (×6/×4/×2 at 20/50/100 items)"}),
        ("--mnar-strength", {"type": float, "default": 2.0,
                             "help": "MNAR tilt s: p(m | i) ∝ p₀(m) exp{s m (h_i − h̄)}"}),
    ])
    with cluster(args) as client:
        table = simulate_all(args, client)
    csv, png = args.out / "spa_bias.csv", args.out / "spa_bias.png"
    table.to_csv(csv, index=False)
    plot(table, png)
    with pd.option_context("display.width", 200):
        print(summary(table))
    print(f"wrote {csv} and {png}")
    return table


if __name__ == "__main__":
    main()
