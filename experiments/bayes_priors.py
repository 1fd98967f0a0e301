"""How much do the priors of ``kappalab.bayes`` move its posteriors with few items?

A prior-sensitivity study of the Bayesian models on the designs of
``experiments/interval_coverage.py`` (same simulators, same exact truths from
``kappalab.simulate``): for every model, candidate prior and number of items, many datasets
are simulated, every candidate prior is fitted to the *same* datasets (the comparison between
priors is paired), and the posterior mean and median are compared with the truth.

Models, designs and truths
--------------------------
``reliability`` r is 0.6 in the designs of ``interval_coverage.py``; 0.3 and 0.8 check that a
prior does not merely move the posterior towards 0.6.

* ``nominal``: ``simulate.annotations(n, level="nominal", reliability=r, prevalence=(.6, .3,
  .1), annotations_per_item=(2, 5))`` → ``bayes.nominal_reliability`` ``kappa`` against
  ``truth.alpha`` (= Fleiss κ).
* ``cohen``: ``simulate.annotations(n, level="binary", reliability=r, prevalence=(.7, .3),
  annotations_per_item=2, n_raters=2, rater_bias=0.5)`` → ``bayes.cohen_kappa`` ``kappa``
  against each dataset's own ``truth.cohen_kappa``.
* ``kx_interval``: ``simulate.replications(n, level="interval", rho=0.8, reliability=(r, r))``
  → ``bayes.cross_replication(level="interval")`` ``kx`` against ``truth.kx``.
* ``kx_binary``: ``simulate.replications(n, level="binary", rho=0.8, prevalence=(.7, .3),
  reliability=(r, r))`` → ``bayes.cross_replication(level="binary")`` ``kx`` against
  ``truth.kx``.

Candidate priors (``PRIORS``; ``current`` is what the models used before this study)
-------------------------------------------------------------------------------------
* nominal: ``current`` κ ~ Beta(1, 1), π ~ Dirichlet(1); ``jeffreys_pi`` π ~ Dirichlet(1/2);
  ``perks_pi`` π ~ Dirichlet(1/K).
* cohen: the Dirichlet concentration c of each of the K² cells: ``current`` c = 1 (uniform),
  ``jeffreys`` c = 1/2, ``perks`` c = 1/K² (one prior observation in all; Perks 1947, the
  choice of Berger, Bernardo & Sun 2015 for a multinomial with many cells).
* kx_interval: ``current`` (ρ + 1)/2 ~ Beta(1, 1); ``arcsine_rho`` (ρ + 1)/2 ~ Beta(½, ½).
* kx_binary: ``current`` ρ_L ~ Beta(1, 1), (ρ_u + 1)/2 ~ Beta(1, 1); ``flat_kappa``
  ρ_L ~ Beta(1, ½), (ρ_u + 1)/2 ~ Beta(½, ½). By Sheppard's formula a
  median split of a bivariate normal with correlation r has κ = (2/π) arcsin r, so r with
  density ∝ (1 − r²)^(−1/2) makes that κ uniform: Beta(½, ½) on (ρ_u + 1)/2 exactly, and
  Beta(1, ½) on ρ_L approximately (its density ∝ (1 − ρ_L)^(−1/2) near 1). The uniform priors
  put 80% of the prior of a side's reliability below 0.69 (median 0.29).

Which priors run at which size: every candidate at 50 items and r = 0.6; ``current`` and the
shipped default (``SHIPPED``) at the other reliabilities and at 200 and 1 000 items
(``--all-priors``: every candidate everywhere; ``--priors``: some candidates only, on the same
datasets).

Outputs
-------
``bayes_priors.csv``, one row per model × prior × reliability × n_items: datasets, truth
(mean), bias of the posterior mean and its Monte Carlo SE, bias of the posterior median, bias
of the frequentist estimator on the same datasets (``bias_estimator``: Krippendorff α, Cohen
κ, ``cross_kappa``),
coverage of the 95% HDI (``Posterior.interval``) with its Monte Carlo SE √(c(1 − c)/R),
``below`` / ``above`` (share of intervals entirely below / above the truth), mean width,
warnings (``SamplingWarning`` count) and seconds per fit. ``bayes_priors.png``: the bias of
the posterior mean (±2 SE) against items, per model, one line per prior. The printed table has
the same columns.

Sampler: ``--draws`` 500 after ``--tune`` 300, ``--chains`` 1, PyMC's NUTS (the posterior mean
of a dataset has Monte Carlo error far below its spread over datasets). ``--datasets`` (100)
is scaled per model by ``SHARE``: (1.5, 0.6) × for Cohen (main cell, other cells), (1, 0) for
the nominal model, (0.8, 0.25) for κx interval and (0.4, 0.15) for κx binary, whose fits take
5–30 s each on a busy 2-core machine.

Results
-------
On this 2-core machine (shared, one process): ``--models cohen --scheduler serial`` (150
datasets at 50 items, 60 in the other cells; about 13 min) and ``--models kx_binary nominal
--datasets 50 --reliabilities 0.6 0.8 --sizes 50 200 --scheduler serial`` (κx binary: 20
datasets at 50 items, 8 in the other cells; nominal: 50; 27 min). Bias of the posterior mean
at 50 items, r = 0.6, current → shipped prior: Cohen −0.048 → −0.024 (± 0.010; sample κ
−0.010); κx binary −0.060 → −0.027 (± 0.019; paired difference 0.033 ± 0.002; sample κx
+0.010); nominal −0.004 ± 0.010 under the current prior, 0.002–0.003 lower under the
lighter π priors, so it stays. Coverage of the 95% HDI is unchanged within its Monte Carlo
error at 50, 200 and (Cohen) 1 000 items. κx interval (``--models kx_interval --datasets 60
--all-priors --scheduler serial``, 48 datasets at 50 items, 15 in the other cells; 5 min):
−0.037 ± 0.011 under the current prior, −0.024 under ``arcsine_rho`` (sample κx −0.009);
coverage at 200 and 1 000 items 93%/93% against 80%/87% of 15 datasets, too few to tell, so
that default stays.

The datasets and fits are replications of :func:`kappalab.simulate.run_study`: on a local Dask
cluster of ``--workers`` processes by default, ``--scheduler serial`` in this process,
``--scheduler tcp://host:8786`` on a cluster; ``--checkpoint FILE`` resumes an interrupted
run (one file per group of cells, FILE-0, FILE-1, …). Run from the repository root:
``python -m experiments.bayes_priors [--quick] [--models cohen kx_binary]`` (``--quick``:
nominal and Cohen only, 50 items, reliability 0.6, 2 datasets, 60 draws, in this process:
about half a minute, mostly compiling the candidate models).

References
----------
Perks, W. (1947). Some observations on inverse probability including a new indifference rule.
Journal of the Institute of Actuaries 73(2), 285–334. Jeffreys, H. (1946). An invariant form
for the prior probability in estimation problems. Proc. R. Soc. A 186, 453–461. Berger, J. O.,
Bernardo, J. M. & Sun, D. (2015). Overall objective priors. Bayesian Analysis 10(1), 189–221,
doi:10.1214/14-BA915. Sheppard, W. F. (1899). On the application of the theory of error to
cases of normal distribution and normal correlation. Phil. Trans. R. Soc. A 192, 101–167.
"""

from __future__ import annotations

import math
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import kappalab as kl
from kappalab import simulate

from experiments.study import cluster, parse_args

CONFIDENCE = 0.95
RHO = 0.8
PREVALENCE = (0.6, 0.3, 0.1)
BINARY_PREVALENCE = (0.7, 0.3)
RATER_BIAS = 0.5
MAIN_RELIABILITY = 0.6
MODELS = ("nominal", "cohen", "kx_interval", "kx_binary")

#: candidate priors per model, as the models' ``prior=`` dicts; ``current`` = before the study
PRIORS: dict[str, dict[str, dict]] = {
    "nominal": {"current": {"kappa": (1.0, 1.0), "pi": 1.0},
                "jeffreys_pi": {"pi": 0.5},
                "perks_pi": {"pi": 1.0 / len(PREVALENCE)}},
    "cohen": {"current": {"p": 1.0}, "jeffreys": {"p": 0.5},
              "perks": {"p": 1.0 / len(BINARY_PREVALENCE) ** 2}},
    "kx_interval": {"current": {"irr": (1.0, 1.0), "rho": (1.0, 1.0)},
                    "arcsine_rho": {"rho": (0.5, 0.5)}},
    "kx_binary": {"current": {"latent_icc": (1.0, 1.0), "rho": (1.0, 1.0)},
                  "flat_kappa": {"latent_icc": (1.0, 0.5), "rho": (0.5, 0.5)}},
}
#: the prior each model ships with (what --all-priors is not needed for)
SHIPPED = {"nominal": "current", "cohen": "perks", "kx_interval": "current",
           "kx_binary": "flat_kappa"}
#: datasets per cell relative to --datasets: (every prior at 50 items and r = 0.6, the
#: current and shipped priors in the other cells); the binary cross model is the slowest
SHARE = {"nominal": (1.0, 0.0), "cohen": (1.5, 0.6), "kx_interval": (0.8, 0.25),
         "kx_binary": (0.4, 0.15)}


def simulate_dataset(model: str, n_items: int, reliability: float, rng):
    """(data tuple, truth value) of one dataset of a model's design."""
    if model == "nominal":
        ann, truth = simulate.annotations(n_items, level="nominal", reliability=reliability,
                                          prevalence=PREVALENCE, annotations_per_item=(2, 5),
                                          seed=rng)
        return (ann,), truth.alpha
    if model == "cohen":
        ann, truth = simulate.annotations(n_items, level="binary", reliability=reliability,
                                          prevalence=BINARY_PREVALENCE,
                                          annotations_per_item=2, n_raters=2,
                                          rater_bias=RATER_BIAS, seed=rng)
        return (ann,), truth.cohen_kappa
    if model == "kx_interval":
        x, y, truth = simulate.replications(n_items, level="interval", rho=RHO,
                                            reliability=(reliability, reliability), seed=rng)
        return (x, y), truth.kx
    x, y, truth = simulate.replications(n_items, level="binary", rho=RHO,
                                        prevalence=BINARY_PREVALENCE,
                                        reliability=(reliability, reliability), seed=rng)
    return (x, y), truth.kx


def point_estimate(model: str, data) -> float:
    """The frequentist estimator of the same coefficient on the same data (a reference: how
    much of a posterior's bias the data themselves carry at this size)."""
    if model == "nominal":
        return float(kl.krippendorff_alpha(*data, level="nominal"))
    if model == "cohen":
        return float(kl.cohen_kappa(*data))
    return float(kl.cross_kappa(*data, level="interval" if model == "kx_interval"
                                else "nominal"))


def fit(model: str, data, prior: dict, sampler: dict, seed: int):
    """The posterior of the model's coefficient: (posterior, variable name)."""
    from kappalab import bayes  # lazy: PyMC is heavy

    if model == "nominal":
        return bayes.nominal_reliability(*data, prior=prior, seed=seed, **sampler), "kappa"
    if model == "cohen":
        return bayes.cohen_kappa(*data, prior=prior, seed=seed, **sampler), "kappa"
    level = "interval" if model == "kx_interval" else "binary"
    return (bayes.cross_replication(*data, level=level, prior=prior, seed=seed, **sampler),
            "kx")


def replicate(cell: dict, rng: np.random.Generator) -> list[dict]:
    """One dataset of the cell's design, fitted under each of the cell's priors (``cell
    ["priors"]``, names joined by "+"): a row per prior, all on the same data."""
    from kappalab.bayes import SamplingWarning

    model = cell["model"]
    data, truth = simulate_dataset(model, cell["n_items"], cell["reliability"], rng)
    sampler = {"draws": cell["draws"], "tune": cell["tune"], "chains": cell["chains"],
               "sampler": "pymc"}
    fit_seed = int(rng.integers(2**31 - 1))
    estimate = point_estimate(model, data)
    rows = []
    for name in cell["priors"].split("+"):
        start = time.perf_counter()
        row = {"prior": name, "truth": truth, "estimate": estimate, "mean": math.nan,
               "median": math.nan,
               "low": math.nan, "high": math.nan, "n_warnings": 0, "error": ""}
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                posterior, variable = fit(model, data, PRIORS[model][name], sampler,
                                          fit_seed)
            draws = np.asarray(posterior[variable], dtype=float).ravel()
            low, high = posterior.interval(variable, prob=CONFIDENCE)
            row.update(mean=float(draws.mean()), median=float(np.median(draws)),
                       low=float(low), high=float(high),
                       n_warnings=sum(issubclass(w.category, SamplingWarning)
                                      for w in caught))
        except Exception as exc:  # reported in the table, never hidden
            row["error"] = f"{type(exc).__name__}: {exc}".replace("\n", " ")[:300]
        row["seconds"] = time.perf_counter() - start
        rows.append(row)
    return rows


def design(args) -> list[tuple[list[dict], int]]:
    """Groups of cells with their number of datasets, the most informative first."""
    sampler = {"draws": args.draws, "tune": args.tune, "chains": args.chains}
    if args.quick:
        models = args.models if args.models != list(MODELS) else ["nominal", "cohen"]
        return [([{"model": m, "reliability": MAIN_RELIABILITY, "n_items": 50,
                   "priors": "+".join(PRIORS[m]), **sampler} for m in models], 2)]
    groups = []
    for model in args.models:
        main, other = (max(2, round(args.datasets * share)) if share else 0
                       for share in SHARE[model])
        def chosen(names):
            return "+".join(n for n in dict.fromkeys(names)
                            if args.priors is None or n in args.priors)

        every = chosen(PRIORS[model])
        pair = every if args.all_priors else chosen(["current", SHIPPED[model]])
        if every:
            groups.append(([{"model": model, "reliability": MAIN_RELIABILITY, "n_items": 50,
                             "priors": every, **sampler}], main))
        cells = [{"model": model, "reliability": r, "n_items": 50, "priors": pair, **sampler}
                 for r in args.reliabilities if r != MAIN_RELIABILITY]
        cells += [{"model": model, "reliability": MAIN_RELIABILITY, "n_items": size,
                   "priors": pair, **sampler} for size in args.sizes if size != 50]
        if cells and other and pair:
            groups.append((cells, other))
    return groups


def run(args) -> pd.DataFrame:
    """Every group of cells through :func:`kappalab.simulate.run_study`, group g with seed
    ``--seed`` + g (and, with ``--checkpoint FILE``, its own FILE-g checkpoint)."""
    frames = []
    with cluster(args) as client:
        for index, (cells, n) in enumerate(design(args)):
            checkpoint = (args.checkpoint.with_name(f"{args.checkpoint.stem}-{index}"
                                                    f"{args.checkpoint.suffix}")
                          if args.checkpoint else None)
            frames.append(simulate.run_study(cells, replicate, n, client=client,
                                             seed=args.seed + index, checkpoint=checkpoint,
                                             description=f"{cells[0]['model']} ({index})"))
    return pd.concat(frames, ignore_index=True)


def summarise(records: pd.DataFrame) -> pd.DataFrame:
    rows = []
    keys = ["model", "prior", "reliability", "n_items"]
    for (model, prior, reliability, n_items), g in records.groupby(keys, sort=False):
        ok = g[(g["error"].fillna("") == "") & np.isfinite(g["low"])]
        R = len(ok)
        inside = (ok["low"] <= ok["truth"]) & (ok["truth"] <= ok["high"])
        cov = float(inside.mean()) if R else math.nan
        err = ok["mean"] - ok["truth"]
        rows.append({"model": model, "prior": prior, "reliability": reliability,
                     "n_items": n_items, "datasets": R, "n_failed": len(g) - R,
                     "truth": ok["truth"].mean(), "bias_mean": err.mean(),
                     "bias_mean_se": err.std(ddof=1) / math.sqrt(R) if R > 1 else math.nan,
                     "bias_median": (ok["median"] - ok["truth"]).mean(),
                     "bias_estimator": (ok["estimate"] - ok["truth"]).mean(),
                     "coverage": cov,
                     "coverage_se": math.sqrt(cov * (1 - cov) / R) if R else math.nan,
                     "below": float((ok["high"] < ok["truth"]).mean()) if R else math.nan,
                     "above": float((ok["low"] > ok["truth"]).mean()) if R else math.nan,
                     "mean_width": (ok["high"] - ok["low"]).mean(),
                     "n_warnings": int(g["n_warnings"].sum()),
                     "seconds": g["seconds"].mean()})
    table = pd.DataFrame(rows)
    order = {m: i for i, m in enumerate(MODELS)}
    return table.sort_values(["model", "reliability", "n_items", "prior"],
                             key=lambda s: s.map(order) if s.name == "model" else s,
                             kind="stable").reset_index(drop=True)


def plot(table: pd.DataFrame, path) -> None:
    models = [m for m in MODELS if m in set(table["model"])]
    fig, axes = plt.subplots(1, len(models), figsize=(3.6 * len(models), 3.4), squeeze=False)
    for ax, model in zip(axes.flat, models):
        cell = table[(table["model"] == model)
                     & (table["reliability"] == MAIN_RELIABILITY)]
        for prior, g in cell.groupby("prior", sort=False):
            ax.errorbar(g["n_items"], g["bias_mean"], yerr=2 * g["bias_mean_se"], marker="o",
                        ms=3, capsize=2, lw=1, label=prior)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xscale("log")
        ax.set_title(model, fontsize=9)
        ax.set_xlabel("items")
        ax.legend(fontsize=7, frameon=False)
    axes[0, 0].set_ylabel("bias of the posterior mean")
    fig.suptitle(f"Posterior mean − truth (±2 Monte Carlo SE), reliability "
                 f"{MAIN_RELIABILITY}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> pd.DataFrame:
    args = parse_args(__doc__.splitlines()[0], argv, extra=[
        ("--datasets", {"type": int, "default": 100, "help": "datasets per cell"}),
        ("--sizes", {"type": int, "nargs": "+", "default": [50, 200, 1000]}),
        ("--reliabilities", {"type": float, "nargs": "+", "default": [0.3, 0.6, 0.8]}),
        ("--models", {"nargs": "+", "choices": MODELS, "default": list(MODELS)}),
        ("--priors", {"nargs": "+", "default": None,
                      "help": "run these of the candidate priors only (the datasets of a "
                              "cell are the same whichever priors run)"}),
        ("--all-priors", {"action": "store_true",
                          "help": "every candidate prior in every cell"}),
        ("--draws", {"type": int, "default": 500}),
        ("--tune", {"type": int, "default": 300}),
        ("--chains", {"type": int, "default": 1}),
    ])
    if args.quick:
        args.draws, args.tune, args.chains = 60, 60, 1
        args.scheduler = args.scheduler or "serial"  # no cluster start for seconds of work
    start = time.perf_counter()
    records = run(args)
    seconds = time.perf_counter() - start
    table = summarise(records)
    csv, png = args.out / "bayes_priors.csv", args.out / "bayes_priors.png"
    table.to_csv(csv, index=False)
    plot(table, png)
    shown = table.drop(columns=["n_failed"]).copy()
    with pd.option_context("display.width", 250, "display.max_columns", 30,
                           "display.float_format", "{:.3f}".format):
        print(shown.to_string(index=False))
    failed = records[records["error"].fillna("") != ""]
    if len(failed):
        print(f"\n{len(failed)} failed fits; first: {failed['error'].iloc[0]}")
    print(f"\nruntime {seconds / 60:.1f} min ({len(records)} fits, draws {args.draws}, "
          f"tune {args.tune}, chains {args.chains})")
    print(f"wrote {csv} and {png}")
    return table


if __name__ == "__main__":
    main()
