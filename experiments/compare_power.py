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
script simulates ``--studies`` studies (2 000 by default) and runs ``kl.compare`` with the
analytic standard error for Krippendorff's α and Fleiss' κ on each. It reports the rejection
rate with its Monte Carlo standard error √(r(1 − r)/studies), the mean estimated SE of the
difference against the standard deviation of the differences over the studies, and the
runtime (``seconds_cell``: the compute time of a cell's studies, summed over the workers).

Each study is a replication of :func:`kappalab.simulate.run_study` (cells = design ×
hypothesis × items, in that order; both coefficients on the same study), on a local Dask
cluster of every core by default, ``--scheduler serial`` in this process or the cluster at
``--scheduler ADDRESS``; ``--checkpoint FILE`` keeps every finished study, so the same command
resumes an interrupted run. The rejection rates do not depend on where the studies ran.

Writes ``compare_power.csv`` and ``compare_power.png`` to ``--out`` (default
``results/experiments``). Run: ``python -m experiments.compare_power [--quick]
[--scheduler ADDRESS] [--workers N] [--checkpoint FILE]``. ``--quick`` (100 items, 200 studies
per cell) takes about 30 s; the full run (12 cells × 2 000 studies) about 9 min with two
workers (measured on a shared two-core machine).
"""

from __future__ import annotations

import functools
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import kappalab as kl
from kappalab import simulate

from experiments.study import cluster, parse_args, run

ESTIMATORS = {"alpha": kl.krippendorff_alpha, "fleiss": kl.fleiss_kappa}
DESIGNS = {"paired": 1.0, "independent": 0.0}  # the correlation ρ of the two sides' items
LEVEL = 0.05
ANNOTATIONS = (2, 4)  # annotations per item and side: 2, 3 or 4, equally likely


def replicate(cell: dict, rng: np.random.Generator, *, prevalence: float) -> list[dict]:
    """One study: the two sides' data sets (items × raters, NaN where a rater did not annotate
    the item) and kl.compare of both coefficients on them; a row per coefficient."""
    started = time.perf_counter()
    n_items = cell["n_items"]
    x, y, truth = simulate.replications(
        n_items, level="binary", rho=DESIGNS[cell["design"]],
        reliability=(cell["reliability_a"], cell["reliability_b"]),
        annotations_per_item=(ANNOTATIONS, ANNOTATIONS), prevalence=prevalence, seed=rng)
    wide = []
    for side in (x, y):  # every item has annotations, so the rows are the items in order
        table = np.asarray(side.wide, dtype=float)
        assert table.shape[0] == n_items
        wide.append(table)
    paired = None if cell["design"] == "paired" else False  # paired: from the item labels
    rows = []
    for name, estimator in ESTIMATORS.items():
        result = kl.compare(estimator, wide[0], wide[1], paired=paired)
        rows.append({"coefficient": name, "difference": result.difference, "se": result.se,
                     "p_value": result.p_value, "correlation": result.correlation,
                     "paired": bool(result.paired), "truth_a": truth.irr_x_nominal,
                     "truth_b": truth.irr_y_nominal})
    seconds = time.perf_counter() - started
    for row in rows:
        row["seconds"] = seconds
    return rows


def summarise(records: pd.DataFrame) -> pd.DataFrame:
    """One row per cell and coefficient: rejection rate, its Monte Carlo SE, the spread of the
    differences against the mean estimated SE."""
    rows = []
    for (design, hypothesis, n_items, coefficient), group in records.groupby(
            ["design", "hypothesis", "n_items", "coefficient"], sort=False):
        difference, se = group["difference"].to_numpy(), group["se"].to_numpy()
        n_studies = len(group)
        rate = float((group["p_value"].to_numpy() < LEVEL).mean())
        first = group.iloc[0]
        rows.append({
            "design": design, "hypothesis": hypothesis, "coefficient": coefficient,
            "n_items": n_items, "n_studies": n_studies,
            "reliability_a": first["reliability_a"], "reliability_b": first["reliability_b"],
            "truth_a": first["truth_a"], "truth_b": first["truth_b"],
            "truth_difference": first["truth_a"] - first["truth_b"],
            "rejection_rate": rate, "mc_se": float(np.sqrt(rate * (1 - rate) / n_studies)),
            "mean_difference": float(difference.mean()),
            "sd_difference": float(difference.std(ddof=1)),
            "mean_se": float(se.mean()), "rms_se": float(np.sqrt((se ** 2).mean())),
            "mean_correlation": float(group["correlation"].mean()),
            "share_paired": float(group["paired"].mean()),
            # each study's time is on both of its rows: count it once
            "seconds_cell": float(group["seconds"].sum()),
        })
    return pd.DataFrame(rows)


def simulate_all(args, client) -> pd.DataFrame:
    sizes = (100,) if args.quick else tuple(args.sizes)
    n_studies = 200 if args.quick else args.studies
    hypotheses = {"null": (args.reliability, args.reliability),
                  "alternative": (args.reliability, args.alternative)}
    cells = [{"design": design, "hypothesis": hypothesis, "n_items": n,
              "reliability_a": hypotheses[hypothesis][0],
              "reliability_b": hypotheses[hypothesis][1]}
             for design in DESIGNS for hypothesis in hypotheses for n in sizes]
    records = run(args, client, cells, functools.partial(replicate, prevalence=args.prevalence),
                  n_studies, "studies", batch_size=5)
    return summarise(records)


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
    with cluster(args) as client:
        table = simulate_all(args, client)
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
