"""Do the Bayesian Dawid–Skene model's intervals cover the truth, and do EM and the posterior
mean recover it?

A coverage study of :func:`kappalab.bayes.dawid_skene` on data drawn from the Dawid–Skene
model itself (:func:`kappalab.simulate.dawid_skene_annotations`, whose truth is the drawn
prevalences π and confusion matrices θ). For each number of items, many datasets are drawn
and fitted, and the 95 % highest-density interval (HDI) of every prevalence π_k and every
confusion entry θ_j[k, l] is checked against the truth. EM's estimate
(:func:`kappalab.annotators.dawid_skene`) and the posterior mean are compared with it too.

Design
------
K = 3 classes with prevalences (0.5, 0.3, 0.2), ``RATERS`` = 6 annotators, 4 labels per item
from distinct annotators, confusion rows drawn around a diagonal of 0.75 (concentration 50),
at ``--sizes`` items (default 100, 400, 1 600). The true class of every item is
marginalised in the fit; the model's priors are its defaults.

Outputs
-------
``annotator_coverage.csv``, one row per number of items × parameter group (``prevalence``,
``diagonal`` θ_j[k, k], ``off-diagonal`` θ_j[k, l ≠ k]): datasets, parameters checked,
coverage of the 95 % HDI with its Monte Carlo standard error (the datasets are the units:
the SE of the mean over datasets of each dataset's share of covered parameters, so that
the parameters of one dataset, which are not independent, are not counted as independent
trials), ``below``/``above`` (intervals entirely below or above the truth), the root mean
square error of the posterior mean and of EM, and seconds per fit. ``annotator_coverage.png``:
coverage against items, one line per group, with ±2 SE and the nominal 0.95; the RMSE of
the posterior mean and EM against items on log–log axes, with a slope of −1/2 for
reference.

The datasets and fits are replications of :func:`kappalab.simulate.run_study` (``--scheduler
serial`` in this process, the default a local Dask cluster; ``--checkpoint FILE`` resumes).
Run from the repository root: ``python -m experiments.annotator_coverage [--quick]``
(``--quick``: 60 items, 2 datasets, 100 draws).
"""

from __future__ import annotations

import math
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from kappalab import simulate

from experiments.study import cluster, parse_args

CONFIDENCE = 0.95
PREVALENCE = (0.5, 0.3, 0.2)
RATERS = 6
PER_ITEM = 4
ACCURACY = 0.75
GROUPS = ("prevalence", "diagonal", "off-diagonal")


def hdi(draws: np.ndarray, prob: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """The shortest interval holding ``prob`` of the draws, for every parameter at once
    (draws on the first axis): of the sorted draws, the window of ⌈prob·S⌉ that is
    narrowest."""
    ordered = np.sort(draws, axis=0)
    S = ordered.shape[0]
    span = int(math.ceil(prob * S))
    widths = ordered[span - 1:] - ordered[:S - span + 1]
    start = widths.argmin(axis=0)
    low = np.take_along_axis(ordered, start[None], axis=0)[0]
    high = np.take_along_axis(ordered, (start + span - 1)[None], axis=0)[0]
    return low, high


def grouped(pi: np.ndarray, theta: np.ndarray) -> dict[str, np.ndarray]:
    """The parameters of each group, flattened (θ: annotators × classes × labels)."""
    diagonal = np.eye(theta.shape[-1], dtype=bool)
    return {"prevalence": pi.reshape(pi.shape[:-1] + (-1,)),
            "diagonal": theta[..., diagonal],
            "off-diagonal": theta[..., ~diagonal]}


def replicate(cell: dict, rng: np.random.Generator) -> list[dict]:
    """One dataset of ``cell["n_items"]`` items: EM, the posterior, and per group the share
    of parameters whose HDI covers the truth."""
    from kappalab import annotators, bayes

    ann, truth = simulate.dawid_skene_annotations(
        cell["n_items"], n_raters=RATERS, n_classes=len(PREVALENCE),
        annotations_per_item=PER_ITEM, accuracy=ACCURACY, prevalence=np.array(PREVALENCE),
        seed=rng)
    start = time.perf_counter()
    rows = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sampling diagnostics are counted below
            post = bayes.dawid_skene(ann, draws=cell["draws"], tune=cell["tune"],
                                     chains=cell["chains"], seed=int(rng.integers(2**31 - 1)),
                                     sampler=cell["sampler"])
            em = annotators.dawid_skene(ann)
    except Exception as exc:  # reported in the table, never hidden
        return [{"group": g, "error": f"{type(exc).__name__}: {exc}"[:300]} for g in GROUPS]
    seconds = time.perf_counter() - start
    posterior = post.idata.posterior
    pi = np.asarray(posterior["pi"].stack(sample=("chain", "draw")).transpose("sample", ...))
    raters = list(ann.raters)  # the data's rater labels are the truth's codes 0 … J − 1
    theta = np.asarray(posterior["theta"].sel(rater=raters)
                       .stack(sample=("chain", "draw")).transpose("sample", ...))
    order = np.asarray(raters, dtype=int)
    truths = grouped(truth.prevalence, truth.confusion[order])
    draws = grouped(pi, theta)
    estimates = grouped(em.prevalence.to_numpy(), em.confusion)
    for group in GROUPS:
        low, high = hdi(draws[group])
        true = truths[group]
        rows.append({"group": group, "parameters": true.size,
                     "covered": float(((low <= true) & (true <= high)).mean()),
                     "below": float((high < true).mean()), "above": float((low > true).mean()),
                     "sq_error_mean": float(((draws[group].mean(axis=0) - true) ** 2).mean()),
                     "sq_error_em": float(((estimates[group] - true) ** 2).mean()),
                     "divergences": int(post.idata.sample_stats["diverging"].sum()),
                     "seconds": seconds, "error": ""})
    return rows


def run(args) -> pd.DataFrame:
    cells = [{"n_items": n, "draws": args.draws, "tune": args.tune, "chains": args.chains,
              "sampler": args.sampler} for n in args.sizes]
    with cluster(args) as client:
        return simulate.run_study(cells, replicate, args.datasets, client=client,
                                  seed=args.seed, checkpoint=args.checkpoint,
                                  description="Dawid-Skene coverage")


def summarise(records: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (n_items, group), g in records.groupby(["n_items", "group"], sort=True):
        ok = g[g["error"].fillna("") == ""]
        R = len(ok)
        cov = float(ok["covered"].mean()) if R else math.nan
        rows.append({"n_items": n_items, "group": group, "datasets": R,
                     "n_failed": len(g) - R,
                     "parameters": int(ok["parameters"].iloc[0]) if R else 0,
                     "coverage": cov,
                     "coverage_se": float(ok["covered"].std(ddof=1) / math.sqrt(R))
                     if R > 1 else math.nan,
                     "below": float(ok["below"].mean()), "above": float(ok["above"].mean()),
                     "rmse_posterior_mean": math.sqrt(ok["sq_error_mean"].mean()),
                     "rmse_em": math.sqrt(ok["sq_error_em"].mean()),
                     "divergences": int(ok["divergences"].sum()),
                     "seconds": float(ok["seconds"].mean())})
    order = {g: i for i, g in enumerate(GROUPS)}
    return pd.DataFrame(rows).sort_values(
        ["group", "n_items"], key=lambda s: s.map(order) if s.name == "group" else s,
        kind="stable").reset_index(drop=True)


def plot(table: pd.DataFrame, path) -> None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    for group, g in table.groupby("group", sort=False):
        left.errorbar(g["n_items"], g["coverage"], yerr=2 * g["coverage_se"], marker="o",
                      capsize=3, label=group)
        line, = right.plot(g["n_items"], g["rmse_posterior_mean"], "o-",
                           label=f"{group}: posterior mean")
        right.plot(g["n_items"], g["rmse_em"], "s--", color=line.get_color(),
                   label=f"{group}: EM")
    left.axhline(CONFIDENCE, color="grey", lw=0.8)
    left.set_xscale("log")
    left.set_xlabel("items")
    left.set_ylabel("coverage of the 95 % HDI (±2 SE)")
    left.legend(fontsize=8, frameon=False)
    n = np.array(sorted(table["n_items"].unique()), dtype=float)
    first = table[table["n_items"] == n[0]]["rmse_em"].max()
    right.plot(n, first * np.sqrt(n[0] / n), color="grey", lw=0.8, label="slope −1/2")
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("items")
    right.set_ylabel("RMSE against the truth")
    right.legend(fontsize=7, frameon=False)
    fig.suptitle("Bayesian Dawid–Skene on data drawn from the model", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> pd.DataFrame:
    args = parse_args(__doc__.splitlines()[0], argv, extra=[
        ("--datasets", {"type": int, "default": 100, "help": "datasets per size"}),
        ("--sizes", {"type": int, "nargs": "+", "default": [100, 400, 1600]}),
        ("--draws", {"type": int, "default": 500}),
        ("--tune", {"type": int, "default": 500}),
        ("--chains", {"type": int, "default": 1}),
        ("--sampler", {"choices": ["pymc", "nutpie"], "default": "nutpie"}),
    ])
    if args.quick:
        args.sizes, args.datasets = [60], 2
        args.draws, args.tune, args.sampler = 100, 100, "pymc"
        args.scheduler = args.scheduler or "serial"
    start = time.perf_counter()
    records = run(args)
    seconds = time.perf_counter() - start
    table = summarise(records)
    csv, png = args.out / "annotator_coverage.csv", args.out / "annotator_coverage.png"
    table.to_csv(csv, index=False)
    plot(table, png)
    with pd.option_context("display.width", 250, "display.max_columns", 30,
                           "display.float_format", "{:.4f}".format):
        print(table.drop(columns=["n_failed"]).to_string(index=False))
    failed = records[records["error"].fillna("") != ""]
    if len(failed):
        print(f"\n{len(failed)} failed rows; first: {failed['error'].iloc[0]}")
    print(f"\nruntime {seconds / 60:.1f} min ({args.datasets} datasets per size, draws "
          f"{args.draws}, tune {args.tune}, chains {args.chains}, {args.sampler})")
    print(f"wrote {csv} and {png}")
    return table


if __name__ == "__main__":
    main()
