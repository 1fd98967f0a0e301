"""Size and power of ``kl.compare``: how often its test of θ_a = θ_b rejects at 5 %.

Two designs, from the latent-threshold model of ``kappalab.simulate.replications`` (binary
labels, prevalence 0.5 unless ``--prevalence``, 2 to 4 annotations per item and side, missing
completely at random, so that α and Fleiss' κ weigh the items differently and their tests
differ; on complete data the two give the same z):

* **paired**: the same items rated by two rater pools (ρ = 1: both pools see the same item
  latents), analysed paired on the common items;
* **independent**: two separate data sets (ρ = 0: unrelated items), analysed with
  ``paired=False``.

Under the null both pools have reliability 0.6 (nominal α = Fleiss' κ = 0.6 on both sides),
so a 5 % test should reject about 5 % of the studies; under the alternative the second pool
has reliability 0.7. For each design, hypothesis and number of items (100, 200, 500) the
script simulates ``--studies`` studies (2 000 by default) in one call of the simulator (items
of study s are the s-th block of ``n_items`` items: the items are independent, so the blocks
are independent studies) and runs ``kl.compare`` with the analytic standard error for
Krippendorff's α and Fleiss' κ on each. It reports the rejection rate with its Monte Carlo
standard error √(r(1 − r)/studies), the mean estimated SE of the difference against the
standard deviation of the differences over the studies, and the runtime.

Writes ``compare_power.csv`` and ``compare_power.png`` to ``--out`` (default
``results/experiments``). Run: ``python -m experiments.compare_power [--quick]``.
"""

from __future__ import annotations

import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import kappalab as kl
from kappalab import simulate

from experiments.study import parse_args, progress

ESTIMATORS = {"alpha": kl.krippendorff_alpha, "fleiss": kl.fleiss_kappa}
DESIGNS = {"paired": 1.0, "independent": 0.0}  # the correlation ρ of the two sides' items
LEVEL = 0.05
ANNOTATIONS = (2, 4)  # annotations per item and side: 2, 3 or 4, equally likely


def simulate_cell(design: str, reliability: tuple[float, float], n_items: int,
                  n_studies: int, prevalence: float, rng: np.random.Generator):
    """Every study of one cell at once: two arrays studies × items × raters (NaN where a rater
    did not annotate the item), and the population values of the two sides."""
    x, y, truth = simulate.replications(
        n_items * n_studies, level="binary", rho=DESIGNS[design], reliability=reliability,
        annotations_per_item=(ANNOTATIONS, ANNOTATIONS), prevalence=prevalence, seed=rng)
    wide = []
    for side in (x, y):  # every item has annotations, so the rows are the items in order
        table = np.asarray(side.wide, dtype=float)
        assert table.shape[0] == n_items * n_studies
        wide.append(table.reshape(n_studies, n_items, table.shape[1]))
    return wide[0], wide[1], (truth.irr_x_nominal, truth.irr_y_nominal)


def run_cell(design: str, hypothesis: str, reliability: tuple[float, float], n_items: int,
             n_studies: int, prevalence: float, rng: np.random.Generator) -> list[dict]:
    started = time.perf_counter()
    wide_x, wide_y, truths = simulate_cell(design, reliability, n_items, n_studies,
                                           prevalence, rng)
    paired = None if design == "paired" else False  # paired: detected from the item labels
    results = {name: np.empty((n_studies, 4)) for name in ESTIMATORS}
    detected = {name: 0 for name in ESTIMATORS}
    for study in range(n_studies):  # a study is one call of the estimator per side
        for name, estimator in ESTIMATORS.items():
            result = kl.compare(estimator, wide_x[study], wide_y[study], paired=paired)
            results[name][study] = (result.difference, result.se, result.p_value,
                                    result.correlation)
            detected[name] += result.paired
    seconds = time.perf_counter() - started
    rows = []
    for name, values in results.items():
        difference, se, p, correlation = values.T
        rejected = p < LEVEL
        rate = float(rejected.mean())
        rows.append({
            "design": design, "hypothesis": hypothesis, "coefficient": name,
            "n_items": n_items, "n_studies": n_studies,
            "reliability_a": reliability[0], "reliability_b": reliability[1],
            "truth_a": truths[0], "truth_b": truths[1],
            "truth_difference": truths[0] - truths[1],
            "rejection_rate": rate, "mc_se": float(np.sqrt(rate * (1 - rate) / n_studies)),
            "mean_difference": float(difference.mean()),
            "sd_difference": float(difference.std(ddof=1)),
            "mean_se": float(se.mean()), "rms_se": float(np.sqrt((se ** 2).mean())),
            "mean_correlation": float(correlation.mean()),
            "share_paired": detected[name] / n_studies,
            "seconds_cell": seconds,
        })
    return rows


def run(args) -> pd.DataFrame:
    sizes = (100,) if args.quick else tuple(args.sizes)
    n_studies = 200 if args.quick else args.studies
    hypotheses = {"null": (args.reliability, args.reliability),
                  "alternative": (args.reliability, args.alternative)}
    rng = np.random.default_rng(args.seed)
    cells = [(design, hypothesis, n) for design in DESIGNS for hypothesis in hypotheses
             for n in sizes]
    rows = []
    for design, hypothesis, n_items in progress(cells, len(cells), "cells"):
        rows += run_cell(design, hypothesis, hypotheses[hypothesis], n_items, n_studies,
                         args.prevalence, rng)
    return pd.DataFrame(rows)


def plot(table: pd.DataFrame, path) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    markers = {"alpha": "o", "fleiss": "s"}
    colours = {"paired": "C0", "independent": "C1"}
    for ax, hypothesis in zip(axes, ("null", "alternative")):
        part = table[table["hypothesis"] == hypothesis]
        for (design, name), group in part.groupby(["design", "coefficient"]):
            group = group.sort_values("n_items")
            ax.errorbar(group["n_items"], group["rejection_rate"], yerr=2 * group["mc_se"],
                        marker=markers[name], color=colours[design], capsize=3,
                        label=f"{design}, {name}")
        if hypothesis == "null":
            ax.axhline(LEVEL, color="grey", lw=1)
            ax.axhspan(0.04, 0.06, color="grey", alpha=0.15)
            ax.set_ylim(0, 0.12)
            title = (f"null: reliability {part['reliability_a'].iloc[0]:g} on both sides")
        else:
            ax.set_ylim(0, 1.02)
            title = (f"power: reliability {part['reliability_a'].iloc[0]:g} vs "
                     f"{part['reliability_b'].iloc[0]:g}")
        ax.set_xscale("log")
        ax.minorticks_off()
        ax.set_xticks(sorted(part["n_items"].unique()))
        ax.set_xticklabels([str(n) for n in sorted(part["n_items"].unique())])
        ax.set_xlabel("items per data set")
        ax.set_ylabel("share of studies rejecting at 5 % (±2 MC SE)")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7)
    fig.suptitle(f"kl.compare, analytic SE ({int(table['n_studies'].iloc[0])} studies per "
                 "point, binary labels, 2–4 annotations per item and side)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def main(argv=None) -> pd.DataFrame:
    args = parse_args(__doc__.splitlines()[0], argv, extra=[
        ("--studies", {"type": int, "default": 2000, "help": "studies per cell"}),
        ("--sizes", {"type": int, "nargs": "+", "default": [100, 200, 500],
                     "help": "items per data set"}),
        ("--reliability", {"type": float, "default": 0.6, "help": "reliability of pool a"}),
        ("--alternative", {"type": float, "default": 0.7,
                           "help": "reliability of pool b under the alternative"}),
        ("--prevalence", {"type": float, "default": 0.5, "help": "share of label 1"}),
    ])
    started = time.perf_counter()
    table = run(args)
    seconds = time.perf_counter() - started
    csv, png = args.out / "compare_power.csv", args.out / "compare_power.png"
    table.to_csv(csv, index=False)
    plot(table, png)
    shown = table[["design", "hypothesis", "coefficient", "n_items", "rejection_rate", "mc_se",
                   "sd_difference", "mean_se", "mean_correlation"]]
    print(shown.round(4).to_string(index=False))
    print(f"{len(table) // len(ESTIMATORS)} cells of {int(table['n_studies'].iloc[0])} studies "
          f"in {seconds:.0f} s")
    print(f"wrote {csv} and {png}")
    return table


if __name__ == "__main__":
    main()
