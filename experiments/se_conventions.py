"""Which standard-error convention covers: the linearisation, Gwet's formula or the asymptotic one?

Three conventions give a standard error from the items' influences without resampling
(:func:`kappalab.uncertainty.analytic_interval`):

* ``analytic`` (kappalab's default): the linearisation of the estimator as defined, divisor
  n − 1, interval θ̂ ± t_{n−1} SE;
* ``gwet``: Gwet's (2014) formula, as irrCAC computes it. It treats the number of pairable
  items as fixed, which adds θ̂ (n u_i/T_u − 1) to every item's influence; with items rated
  once it is larger than the linearisation (12 % for AC1 on Gwet's raw_4raters example);
* ``asymptotic``: the linearisation with divisor n and a normal interval, the large-sample
  convention of Fleiss, Cohen & Everitt (1969) that SAS PROC FREQ and statsmodels report for
  Cohen's κ.

The study measures how often each convention's nominal 95% interval covers the exact
population truth, on designs where items are rated once:

* ``single_1to5``: ``simulate.annotations(n, level="nominal", reliability=0.6,
  prevalence=(.6, .3, .1), annotations_per_item=(1, 5))`` (MCAR, a pool of 5 raters; a fifth of
  the items rated once);
* ``single_1to2``: the same with 1–2 annotations per item (half the items rated once);
* ``cohen``: two raters rating every item, binary, prevalence (.7, .3), reliability 0.6,
  rater shifts β_g ~ N(0, 0.5²) drawn per dataset (as ``experiments.interval_coverage``), so
  each dataset has its own truth, Cohen's κ of the drawn pair.

Coefficients and truths: on the single-rating designs Fleiss' κ and Conger's κ against
``truth.fleiss_kappa`` (no rater bias: the two are equal), Gwet's AC1 against (P_o − P_e)/(1 −
P_e) with P_o = ``truth.p_o_pairable`` and P_e = Σ π_k(1 − π_k)/(K − 1) at the prevalence π,
Brennan–Prediger against (P_o − 1/K)/(1 − 1/K) and percent agreement against P_o, each with
``analytic``, ``gwet`` and ``asymptotic``; on ``cohen`` Cohen's κ against ``truth.cohen_kappa``
with ``analytic`` and ``asymptotic`` (without singly-rated items Gwet's formula is the
linearisation). Under MCAR every estimator converges to its truth (checked at the start
against ``truth.details["estimator_limits"]``).

Outputs: ``se_conventions.csv`` (one row per design × coefficient × method × items:
coverage, its Monte Carlo SE √(c(1 − c)/R), mean width, mean SE, the standard deviation of
estimate − truth over the datasets and the ratio of the mean SE to it, misses on each side)
and ``se_conventions.png`` (coverage against items, ±2 Monte Carlo SE). The printed report has
the coverage table, the SE ratios and, per design, the mean distance of each convention's
coverage from 95%.

Run from the repository root: ``python -m experiments.se_conventions [--quick] [--datasets R]
[--sizes N ...] [--scheduler ADDRESS] [--workers N] [--checkpoint FILE]``. The datasets are the
replications of :func:`kappalab.simulate.run_study` (cells = designs × numbers of items).
``--quick``: 50 and 200 items, 20 datasets (about 10 s). The default run (1 000 datasets per
cell at 50, 200 and 1 000 items; Monte Carlo SE 0.7 points at 95 %) took 6.9 minutes with
one worker on a shared two-core machine (``python -m experiments.se_conventions --workers
1``). Its results and the choice of the default are in docs/guide/uncertainty.md,
"Standard-error conventions".
"""

from __future__ import annotations

import functools
import math
import time
import warnings

import matplotlib.pyplot as plt
from matplotlib.ticker import NullFormatter
import numpy as np
import pandas as pd

import kappalab as kl
from kappalab import simulate

from experiments.study import cluster, finish_panels, parse_args, run

CONFIDENCE = 0.95
RELIABILITY = 0.6
PREVALENCE = (0.6, 0.3, 0.1)
BINARY_PREVALENCE = (0.7, 0.3)
RATER_BIAS = 0.5
METHODS = ("analytic", "gwet", "asymptotic")
DESIGNS = {"single_1to5": (1, 5), "single_1to2": (1, 2), "cohen": 2}


def _population(p_o: float, prevalence, chance: str) -> float:
    """A chance-corrected coefficient of the population, (P_o − P_e)/(1 − P_e)."""
    pi = np.asarray(prevalence, dtype=float)
    K = pi.size
    p_e = {"gwet": float((pi * (1 - pi)).sum() / (K - 1)), "uniform": 1.0 / K,
           "none": 0.0}[chance]
    return (p_o - p_e) / (1 - p_e)


#: (coefficient, estimator, truth from the Truth, its large-sample limit, designs, methods)
COEFFICIENTS = (
    ("fleiss_kappa", kl.fleiss_kappa, lambda t: t.fleiss_kappa,
     lambda t: t.details["estimator_limits"]["fleiss_kappa"], ("single_1to5", "single_1to2"),
     METHODS),
    ("conger_kappa", kl.conger_kappa, lambda t: t.fleiss_kappa,
     lambda t: t.details["estimator_limits"]["conger_kappa"], ("single_1to5", "single_1to2"),
     METHODS),
    ("gwet_ac1", kl.gwet_ac, lambda t: _population(t.p_o_pairable, t.prevalence, "gwet"),
     lambda t: _population(t.details["estimator_limits"]["percent_agreement"], t.prevalence,
                           "gwet"), ("single_1to5", "single_1to2"), METHODS),
    ("brennan_prediger", kl.brennan_prediger,
     lambda t: _population(t.p_o_pairable, t.prevalence, "uniform"),
     lambda t: _population(t.details["estimator_limits"]["percent_agreement"], t.prevalence,
                           "uniform"), ("single_1to5", "single_1to2"), METHODS),
    ("percent_agreement", kl.percent_agreement, lambda t: t.p_o_pairable,
     lambda t: t.details["estimator_limits"]["percent_agreement"],
     ("single_1to5", "single_1to2"), METHODS),
    ("cohen_kappa", kl.cohen_kappa, lambda t: t.cohen_kappa,
     lambda t: t.details["estimator_limits"]["conger_kappa"], ("cohen",),
     ("analytic", "asymptotic")),
)
COEFFICIENT_NAMES = tuple(c[0] for c in COEFFICIENTS)


def dataset(design: str, n_items: int, rng: np.random.Generator):
    """The annotations and truth of one dataset of a design."""
    if design == "cohen":
        return simulate.annotations(n_items, level="binary", reliability=RELIABILITY,
                                    prevalence=BINARY_PREVALENCE, annotations_per_item=2,
                                    n_raters=2, rater_bias=RATER_BIAS, seed=rng)
    return simulate.annotations(n_items, level="nominal", reliability=RELIABILITY,
                                prevalence=PREVALENCE, annotations_per_item=DESIGNS[design],
                                n_raters=5, seed=rng)


def replicate(cell: dict, rng: np.random.Generator) -> list[dict]:
    """Every coefficient of the cell's design × its conventions on one dataset."""
    ann, truth = dataset(cell["design"], cell["n_items"], rng)
    rows = []
    for name, estimator, target, limit, designs, methods in COEFFICIENTS:
        if cell["design"] not in designs:
            continue
        for method in methods:
            start = time.perf_counter()
            row = {"coefficient": name, "method": method, "truth": target(truth),
                   "limit": limit(truth), "estimate": math.nan, "se": math.nan,
                   "low": math.nan, "high": math.nan, "error": ""}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # an undefined value is a NaN row
                    est = estimator(ann, ci=method, confidence=CONFIDENCE)
                row["estimate"] = float(est.value)
                if est.ci is not None:
                    row.update(se=float(est.se), low=float(est.ci[0]), high=float(est.ci[1]))
            except Exception as exc:  # reported, never hidden
                row["error"] = f"{type(exc).__name__}: {exc}"[:300]
            row["seconds"] = time.perf_counter() - start
            rows.append(row)
    return rows


def summarise(records: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (design, name, method, n_items), cell in records.groupby(
            ["design", "coefficient", "method", "n_items"], sort=False):
        valid = cell[np.isfinite(cell["low"]) & np.isfinite(cell["high"])]
        R = len(valid)
        covered = (valid["low"] <= valid["truth"]) & (valid["truth"] <= valid["high"])
        coverage = float(covered.mean()) if R else math.nan
        error = valid["estimate"] - valid["truth"]
        sd_error = float(error.std(ddof=1)) if R > 1 else math.nan
        rows.append({
            "design": design, "coefficient": name, "method": method, "n_items": n_items,
            "datasets": len(cell), "n_invalid": len(cell) - R, "coverage": coverage,
            "coverage_se": math.sqrt(coverage * (1 - coverage) / R) if R else math.nan,
            "mean_width": float((valid["high"] - valid["low"]).mean()) if R else math.nan,
            "mean_se": float(valid["se"].mean()) if R else math.nan,
            "sd_error": sd_error,
            "se_ratio": float(valid["se"].mean()) / sd_error if R > 1 else math.nan,
            "bias": float(error.mean()) if R else math.nan,
            "truth": float(cell["truth"].mean()), "limit": float(cell["limit"].mean()),
            "miss_low": float((valid["low"] > valid["truth"]).mean()) if R else math.nan,
            "miss_high": float((valid["high"] < valid["truth"]).mean()) if R else math.nan,
            "seconds": float(cell["seconds"].mean()),
        })
    return pd.DataFrame(rows)


def _pivot(table: pd.DataFrame, fmt) -> pd.DataFrame:
    shown = table.assign(_cell=[fmt(row) for _, row in table.iterrows()])
    pivot = shown.pivot(index=["design", "coefficient", "method"], columns="n_items",
                        values="_cell")
    order = [(d, c, m) for d in DESIGNS for c in COEFFICIENT_NAMES for m in METHODS
             if (d, c, m) in pivot.index]
    pivot = pivot.loc[order].fillna("")
    pivot.columns = [f"n={n}" for n in pivot.columns]
    return pivot


def distances(table: pd.DataFrame) -> pd.DataFrame:
    """Per design and convention: the mean and largest |coverage − 95%| over its cells."""
    gap = table.assign(gap=(table["coverage"] - CONFIDENCE).abs())
    return (gap.groupby(["design", "method"], sort=False)["gap"]
            .agg(mean_gap="mean", max_gap="max").reset_index())


def report(table: pd.DataFrame) -> str:
    lines = ["Coverage of nominal 95% intervals (%, ± Monte Carlo SE; [valid datasets]):",
             _pivot(table, lambda r: f"{100 * r['coverage']:5.1f} ±{100 * r['coverage_se']:.1f}"
                    f" [{r['datasets'] - r['n_invalid']}]").to_string(), "",
             "Mean SE / standard deviation of (estimate − truth) over the datasets:",
             _pivot(table, lambda r: f"{r['se_ratio']:.3f}").to_string(), "",
             "Distance of the coverage from 95% (points), per design and convention:"]
    gaps = distances(table)
    lines.append(gaps.assign(mean_gap=100 * gaps["mean_gap"], max_gap=100 * gaps["max_gap"])
                 .round(2).to_string(index=False))
    return "\n".join(lines)


def plot(table: pd.DataFrame, path) -> None:
    panels = [(d, c) for d in DESIGNS for c in COEFFICIENT_NAMES
              if ((table["design"] == d) & (table["coefficient"] == c)).any()]
    columns = 5
    rows = math.ceil(len(panels) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.3 * columns, 3.0 * rows), sharex=True,
                             sharey=True, squeeze=False)
    colours = dict(zip(METHODS, ("C0", "C3", "C2")))
    sizes = sorted(table["n_items"].unique())
    low = min(85.0, 100 * float(np.nanmin(table["coverage"] - 2 * table["coverage_se"])) - 1)
    for ax, (design, name) in zip(axes.flat, panels):
        ax.axhline(100 * CONFIDENCE, color="grey", lw=0.8)
        cell = table[(table["design"] == design) & (table["coefficient"] == name)]
        for method, group in cell.groupby("method", sort=False):
            dodge = 10 ** {"analytic": -0.03, "gwet": 0.0, "asymptotic": 0.03}[method]
            ax.errorbar(group["n_items"] * dodge, 100 * group["coverage"],
                        yerr=200 * group["coverage_se"], marker="o", ms=3, lw=1, capsize=2,
                        color=colours[method], label=method)
        ax.set_xscale("log")
        ax.set_xticks(sizes)
        ax.set_xticklabels([str(s) for s in sizes])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.xaxis.set_tick_params(labelbottom=True)  # every panel, not only the last row's
        ax.set_ylim(max(0.0, low), 100.5)
        ax.set_title(f"{name} ({design})", fontsize=8)
    finish_panels(fig, axes, path, "Coverage of nominal 95% intervals by standard-error "
                  "convention (±2 Monte Carlo SE)", n_panels=len(panels), top=0.96)


def check_truths(sizes, seed: int) -> None:
    """Under MCAR every estimator's limit is its truth (the simulate docstring): checked."""
    rng = np.random.default_rng(seed)
    for design in DESIGNS:
        _, truth = dataset(design, min(sizes), rng)
        for name, _, target, limit, designs, _ in COEFFICIENTS:
            if design in designs and not abs(target(truth) - limit(truth)) < 1e-9:
                raise AssertionError(f"{name} on {design}: limit {limit(truth)} ≠ truth "
                                     f"{target(truth)}")


def main(argv=None) -> pd.DataFrame:
    args = parse_args(__doc__.splitlines()[0], argv, extra=[
        ("--datasets", {"type": int, "default": 1000, "help": "datasets per cell"}),
        ("--sizes", {"type": int, "nargs": "+", "default": None,
                     "help": "numbers of items (default 50 200 1000; --quick: 50 200)"}),
    ])
    sizes = args.sizes or ([50, 200] if args.quick else [50, 200, 1000])
    n_datasets = 20 if args.quick else args.datasets
    check_truths(sizes, args.seed)
    cells = [{"design": design, "n_items": n} for n in sorted(sizes, reverse=True)
             for design in DESIGNS]
    start = time.perf_counter()
    with cluster(args) as client:
        records = run(args, client, cells, functools.partial(replicate), n_datasets,
                      "datasets", batch_size=10)
        workers = 1 if client == "serial" else len(client.scheduler_info()["workers"])
    minutes = (time.perf_counter() - start) / 60
    table = summarise(records)
    csv, png = args.out / "se_conventions.csv", args.out / "se_conventions.png"
    table.to_csv(csv, index=False)
    plot(table, png)
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(report(table))
    errors = records[records["error"] != ""]
    if len(errors):
        print(f"\n{len(errors)} estimates raised; first: {errors.iloc[0]['error']}")
    print(f"\nruntime {minutes:.1f} min ({len(cells)} cells × {n_datasets} datasets, {workers} "
          f"worker{'s' if workers > 1 else ''})")
    print(f"wrote {csv} and {png}")
    return table


if __name__ == "__main__":
    main()
