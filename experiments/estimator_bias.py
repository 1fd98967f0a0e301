"""Bias and RMSE of the agreement estimators against the exact population truth.

For nominal data from the Dirichlet–multinomial model of ``kappalab.simulate`` (3 categories,
prevalence 0.6/0.3/0.1, population κ = α = 0.5), over a grid of the number of items
(20 → 5 000), the annotations per item (2, 3, and 2–6 uniformly) and the missingness mechanism
(MCAR, and MNAR: harder items get more annotations), each estimator is computed on
``--datasets`` independent datasets per cell:

* Krippendorff's α, Fleiss' κ and Conger's κ (Cohen's κ when two raters annotate every item)
  against the population κ = α (``truth.alpha``);
* percent agreement and SPA with flat weights (the same estimator: the mean item agreement
  over items with two or more annotations) against the population P_o of those items
  (``truth.p_o_pairable``; ``experiments/spa_bias.py`` covers SPA's other weightings).

The table also carries each estimator's large-sample limit under the design
(``truth.details["estimator_limits"]``): under MNAR Krippendorff's α converges to the
annotation-weighted α, not to the population α, which shows as a bias that does not shrink
with more items. Writes ``estimator_bias.csv`` and ``estimator_bias.png`` to ``--out``.
Run: ``python -m experiments.estimator_bias [--quick]``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt

import kappalab as kl
from kappalab import simulate

from experiments.study import parse_args, progress

PREVALENCE = (0.6, 0.3, 0.1)
RELIABILITY = 0.5
DESIGNS = {"2": 2, "3": 3, "2-6": (2, 6)}  # annotations per item
ESTIMATORS = {
    "krippendorff_alpha": (kl.krippendorff_alpha, "alpha"),
    "fleiss_kappa": (kl.fleiss_kappa, "alpha"),
    "conger_kappa": (kl.conger_kappa, "alpha"),
    "percent_agreement": (kl.percent_agreement, "p_o_pairable"),
    "spa_flat": (lambda ann: kl.spa(ann, scheme="flat"), "p_o_pairable"),
}
LIMIT_KEYS = {"krippendorff_alpha": "alpha_nominal", "fleiss_kappa": "fleiss_kappa",
              "conger_kappa": "conger_kappa", "percent_agreement": "percent_agreement",
              "spa_flat": "percent_agreement"}


def run(args) -> pd.DataFrame:
    sizes = [20, 100] if args.quick else [20, 50, 100, 200, 500, 1000, 2000, 5000]
    n_datasets = 6 if args.quick else args.datasets
    rng = np.random.default_rng(args.seed)
    grid = list(itertools.product(("mcar", "mnar"), DESIGNS.items(), sizes))
    rows = []
    for missingness, (design, per_item), n_items in progress(grid, len(grid), "cells"):
        values = {name: [] for name in ESTIMATORS}
        for _ in range(n_datasets):
            ann, truth = simulate.annotations(
                n_items, level="nominal", prevalence=PREVALENCE, reliability=RELIABILITY,
                annotations_per_item=per_item, missingness=missingness, mnar_strength=1.0,
                seed=rng)
            for name, (estimator, _) in ESTIMATORS.items():
                values[name].append(float(estimator(ann)))
        limits = truth.details.get("estimator_limits", {})
        for name, (_, truth_field) in ESTIMATORS.items():
            v = np.asarray(values[name])
            target = getattr(truth, truth_field)
            rows.append({
                "missingness": missingness, "annotations_per_item": design,
                "n_items": n_items, "estimator": name, "truth": target,
                "limit": limits.get(LIMIT_KEYS[name], np.nan),
                "mean": v.mean(), "bias": v.mean() - target,
                "bias_se": v.std(ddof=1) / np.sqrt(v.size),
                "rmse": float(np.sqrt(np.mean((v - target) ** 2))),
                "sd": v.std(ddof=1), "n_datasets": v.size,
            })
    return pd.DataFrame(rows)


def plot(table: pd.DataFrame, path) -> None:
    designs = list(DESIGNS)
    fig, axes = plt.subplots(2, len(designs) * 2, figsize=(16, 6.5), sharex=True)
    for col, (missingness, design) in enumerate(itertools.product(("mcar", "mnar"), designs)):
        cell = table[(table["missingness"] == missingness)
                     & (table["annotations_per_item"] == design)]
        for name, group in cell.groupby("estimator"):
            axes[0, col].errorbar(group["n_items"], group["bias"], yerr=2 * group["bias_se"],
                                  marker="o", ms=3, label=name)
            axes[1, col].plot(group["n_items"], group["rmse"], marker="o", ms=3, label=name)
        axes[0, col].axhline(0, color="grey", lw=0.8)
        axes[0, col].set_title(f"{missingness.upper()}, m = {design}", fontsize=9)
        for row in (0, 1):
            axes[row, col].set_xscale("log")
        axes[1, col].set_yscale("log")
        axes[1, col].set_xlabel("items")
    axes[0, 0].set_ylabel("bias (mean − truth)")
    axes[1, 0].set_ylabel("RMSE")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("Estimator bias and RMSE against the population truth "
                 f"(nominal, π = {PREVALENCE}, κ = {RELIABILITY})")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> pd.DataFrame:
    args = parse_args(__doc__.splitlines()[0], argv, extra=[
        ("--datasets", {"type": int, "default": 100, "help": "datasets per cell"}),
    ])
    table = run(args)
    csv, png = args.out / "estimator_bias.csv", args.out / "estimator_bias.png"
    table.to_csv(csv, index=False)
    plot(table, png)
    largest = table[table["n_items"] == table["n_items"].max()]
    print(largest[["missingness", "annotations_per_item", "estimator", "truth", "limit",
                   "mean", "bias", "bias_se", "rmse"]].round(4).to_string(index=False))
    print(f"wrote {csv} and {png}")
    return table


if __name__ == "__main__":
    main()
