"""Do kappalab's nominal 95% intervals cover the exact population truth?

For each coefficient, interval method and number of items, many datasets are simulated by
``kappalab.simulate`` (whose truths are exact: closed forms or bivariate-normal probabilities,
never Monte Carlo) and the share of datasets whose 95% interval contains the truth is the
*coverage*, with its Monte Carlo SE √(c(1 − c)/R) (R datasets), the mean interval width and the
bias (mean of estimate − truth).

Designs, coefficients and the truth each targets
------------------------------------------------
Every design is MCAR, so every estimator's large-sample limit equals the item-population truth
(checked at run time against ``truth.details["estimator_limits"]`` and, for κx,
``truth.details["kx_annotation_weighted"]``; the ``limit`` column).

* ``nominal``: ``simulate.annotations(n, level="nominal", reliability=0.6,
  prevalence=(.6, .3, .1), annotations_per_item=(2, 5))`` (Dirichlet–multinomial, 2–5
  annotations per item from a pool of 5). **krippendorff_alpha** (nominal) against
  ``truth.alpha`` = 0.6 and **fleiss_kappa** against ``truth.fleiss_kappa`` = 0.6, on the same
  datasets.
* ``cohen``: ``simulate.annotations(n, level="binary", reliability=0.6, prevalence=(.7, .3),
  annotations_per_item=2, n_raters=2, rater_bias=0.5)``: two raters rate every item; each
  dataset draws its two raters' threshold shifts β_g ~ N(0, 0.5²), so Cohen's κ ≠ Scott's π and
  the truth ``truth.cohen_kappa`` (exact for the drawn pair, by bivariate-normal rectangles)
  differs from dataset to dataset: coverage is of each dataset's own truth (the ``truth``
  column is their mean, ``truth_sd`` their spread). **cohen_kappa**.
* ``kx_interval``: ``simulate.replications(n, level="interval", rho=0.8)`` (ICC 0.6 on both
  sides, 3 annotations per item per side): **kx_interval** = ``kl.cross_kappa(x, y,
  "interval")`` against ``truth.kx`` = 2ρσ_b² / (2σ_b² + 2σ_w²) = 0.48.
* ``kx_binary``: ``simulate.replications(n, level="binary", rho=0.8, prevalence=(.7, .3))``:
  **kx_binary** = ``kl.cross_kappa(x, y, "nominal")`` against ``truth.kx`` ≈ 0.4406 (a
  bivariate-normal rectangle).
* ``spa``: the nominal model with 1–6 annotations per item (some items unpairable): **spa_flat**
  = ``kl.spa(ann, "flat")`` against ``truth.p_o_pairable`` = Σπ² + (1 − Σπ²)κ = 0.784.

Interval methods
----------------
Frequentist, every estimator's ``ci=``: ``analytic`` (delta method, θ̂ ± t SE),
``bootstrap`` (item bootstrap, percentile), ``bootstrap-bca``, ``bayesian-bootstrap``
(percentile) and ``jackknife`` (θ̂ ± t SE), with ``--resamples`` (2 000) replicates,
confidence 0.95, a seed per dataset derived from ``--seed``. ``--datasets`` (500) datasets per
cell at 50, 200 and 1 000 items. For α also ``krippendorff``, Krippendorff's bootstrap of the
pairable values (Hayes & Krippendorff 2007; ``kl.krippendorff_alpha(..., ci="krippendorff")``,
percentile), which resamples value pairs from the coincidence matrix rather than items. It
treats a unit's values as independent, so on the nominal design (2–5 annotations per item,
items differing in their category distributions) its intervals are about 0.69 times as wide
as the item bootstrap's and cover α in 85.2%, 84.6% and 82.6% of 500 datasets at 50, 200 and
1 000 items (Monte Carlo SE 1.6–1.7 points; the item bootstrap 93.2%, 96.0%, 95.2%).
``--designs`` restricts the frequentist part to some designs (e.g. ``--designs nominal`` for α
and Fleiss' κ only).

Bayesian (``method = "pymc"``, the 95% HDI of ``Posterior.interval``; estimate = posterior
mean), from ``kappalab.bayes`` (imported only here), on the first ``--mcmc-datasets`` (100)
datasets of the same cells: α and Fleiss ↔ ``nominal_reliability`` ``kappa`` (one fit serves
both rows); SPA ↔ ``nominal_reliability`` ``p_o`` on the SPA data; Cohen ↔ ``bayes.cohen_kappa``
``kappa``; κx ↔ ``cross_replication(x, y, level="interval" | "binary")`` ``kx``.
``--draws``/``--tune`` (500/500), ``--chains`` (2), ``--sampler`` (``nutpie``, whose numba
compilation of each model is paid once per worker; ``pymc`` with ``--quick``). Warnings raised
during a fit (divergences, R-hat > 1.01) are counted in ``n_warnings``.

Outputs and verdicts
--------------------
``coverage.csv`` (one row per coefficient × method × n_items): coefficient, method, n_items,
datasets, n_invalid (NaN interval or error; excluded from the coverage), coverage, coverage_se,
mean_width, bias, truth, truth_sd, limit, miss_low / miss_high (share of intervals entirely
above / below the truth), n_warnings, seconds (per dataset). ``coverage.png``: coverage against
items per coefficient, one line per method (±2 Monte Carlo SE), the 93–97% band shaded. The
printed output has the coverage table (coefficient × method, columns = items) and a verdict for
every cell with ≥ 200 items outside 93–97%: it under- (over-) covers when its coverage is more
than 2 Monte Carlo SEs below 93% (above 97%), the SE taken at that band edge, √(b(1 − b)/R)
(so that a coverage of 100% is judged too), given at least 20 datasets. Nothing is tuned: the
methods run as shipped.

Run from the repository root:
``python -m experiments.interval_coverage [--quick] [--no-mcmc] [--mcmc] [--scheduler ADDRESS]
[--workers N] [--checkpoint FILE]``. The datasets are the replications of
:func:`kappalab.simulate.run_study` (cells = designs × numbers of items; the frequentist and the
Bayesian parts draw the same datasets of a cell), on a local Dask cluster of every core by
default or on the cluster at ``--scheduler``; ``--checkpoint FILE`` keeps every finished
dataset, and the same command again resumes an interrupted run. ``--quick``: 50 and 200 items,
20 datasets, 200 resamples, no MCMC unless ``--mcmc`` (then 2 datasets, 50 draws, one chain);
about 15 s. ``--mcmc-designs`` runs the PyMC models of some designs only.

The default run (500 datasets per frequentist cell, 100 per Bayesian cell, 2 chains × (500 +
500), nutpie) took 16.8 min on this 2-core machine with a local cluster of 2 workers: 4.1 min
for the frequentist part and 12.4 min for the 1 500 Bayesian fits, numba's cache empty at the
start, so each worker compiled each of the five models once (14–53 s each). Per fit (the
compilations fall in the 1 000-item cells, which run first): nominal 0.19–1.6 s, Cohen
0.11–0.41 s, κx interval 0.22–1.2 s, κx binary 2.6–3.5 s, SPA 0.18–0.50 s. With
``--sampler pymc`` the same part took 53.8 min (κx binary 13–16 s per fit).
"""

from __future__ import annotations

import functools
import math
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import matplotlib.pyplot as plt
from matplotlib.ticker import NullFormatter
import numpy as np
import pandas as pd

import kappalab as kl
from kappalab import simulate

from experiments.study import cluster, finish_panels, parse_args, run

CONFIDENCE = 0.95
BAND = (0.93, 0.97)
RELIABILITY = 0.6
PREVALENCE = (0.6, 0.3, 0.1)
BINARY_PREVALENCE = (0.7, 0.3)
RATER_BIAS = 0.5
RHO = 0.8
FREQUENTIST = ("analytic", "bootstrap", "bootstrap-bca", "bayesian-bootstrap", "jackknife")
KRIPPENDORFF = "krippendorff"  # Krippendorff's bootstrap of pairable values: α only
MCMC = "pymc"
MIN_VERDICT_DATASETS = 20  # fewer datasets (--quick --mcmc) get no verdict
METHODS = FREQUENTIST + (KRIPPENDORFF, MCMC)


# ------------------------------------------------------------------------------ designs
def _nominal(n, rng):
    ann, truth = simulate.annotations(n, level="nominal", reliability=RELIABILITY,
                                      prevalence=PREVALENCE, annotations_per_item=(2, 5),
                                      seed=rng)
    return (ann,), truth


def _cohen(n, rng):
    ann, truth = simulate.annotations(n, level="binary", reliability=RELIABILITY,
                                      prevalence=BINARY_PREVALENCE, annotations_per_item=2,
                                      n_raters=2, rater_bias=RATER_BIAS, seed=rng)
    return (ann,), truth


def _kx_interval(n, rng):
    x, y, truth = simulate.replications(n, level="interval", rho=RHO, seed=rng)
    return (x, y), truth


def _kx_binary(n, rng):
    x, y, truth = simulate.replications(n, level="binary", rho=RHO,
                                        prevalence=BINARY_PREVALENCE, seed=rng)
    return (x, y), truth


def _spa(n, rng):
    ann, truth = simulate.annotations(n, level="nominal", reliability=RELIABILITY,
                                      prevalence=PREVALENCE, annotations_per_item=(1, 6),
                                      seed=rng)
    return (ann,), truth


DESIGNS: dict[str, Callable] = {"nominal": _nominal, "cohen": _cohen,
                                "kx_interval": _kx_interval, "kx_binary": _kx_binary,
                                "spa": _spa}


@dataclass(frozen=True)
class Coefficient:
    name: str
    design: str
    estimator: Callable  # (*data, **ci options) -> Estimate
    truth: Callable  # Truth -> float
    limit: Callable  # Truth -> the estimator's large-sample limit under the design
    bayes: tuple[str, str, dict]  # (model in kappalab.bayes, variable, model options)
    own_methods: tuple[str, ...] = ()  # frequentist ci= names of this estimator only


COEFFICIENTS = (
    Coefficient("krippendorff_alpha", "nominal",
                lambda ann, **o: kl.krippendorff_alpha(ann, level="nominal", **o),
                lambda t: t.alpha, lambda t: t.details["estimator_limits"]["alpha_nominal"],
                ("nominal_reliability", "kappa", {}), (KRIPPENDORFF,)),
    Coefficient("fleiss_kappa", "nominal", lambda ann, **o: kl.fleiss_kappa(ann, **o),
                lambda t: t.fleiss_kappa,
                lambda t: t.details["estimator_limits"]["fleiss_kappa"],
                ("nominal_reliability", "kappa", {})),
    Coefficient("cohen_kappa", "cohen", lambda ann, **o: kl.cohen_kappa(ann, **o),
                lambda t: t.cohen_kappa, lambda t: t.details["estimator_limits"]["conger_kappa"],
                ("cohen_kappa", "kappa", {})),
    Coefficient("kx_interval", "kx_interval",
                lambda x, y, **o: kl.cross_kappa(x, y, level="interval", **o),
                lambda t: t.kx, lambda t: t.details["kx_annotation_weighted"],
                ("cross_replication", "kx", {"level": "interval"})),
    Coefficient("kx_binary", "kx_binary",
                lambda x, y, **o: kl.cross_kappa(x, y, level="nominal", **o),
                lambda t: t.kx, lambda t: t.details["kx_annotation_weighted"],
                ("cross_replication", "kx", {"level": "binary"})),
    Coefficient("spa_flat", "spa", lambda ann, **o: kl.spa(ann, scheme="flat", **o),
                lambda t: t.p_o_pairable,
                lambda t: t.details["estimator_limits"]["percent_agreement"],
                ("nominal_reliability", "p_o", {})),
)
COEFFICIENT_NAMES = tuple(c.name for c in COEFFICIENTS)


def grid(sizes) -> list[dict]:
    """The study's cells, every design × number of items in a fixed order: a cell's position
    seeds its datasets (:func:`kappalab.simulate.run_study`), so the frequentist and the
    Bayesian parts see the same datasets whichever designs each runs."""
    return [{"design": design, "n_items": n} for n in sorted(sizes, reverse=True)
            for design in DESIGNS]


def dataset(design: str, n_items: int, replication: int, seed: int, sizes):
    """The data and truth of one replication of a cell (the study's own draw of them)."""
    cell = grid(sizes).index({"design": design, "n_items": n_items})
    return DESIGNS[design](n_items, simulate.replication_rng(seed, cell, replication))


def _record(coefficient, method, truth, limit, estimate=math.nan, low=math.nan, high=math.nan,
            error="", n_warnings=0, seconds=math.nan, warning=""):
    return {"coefficient": coefficient, "method": method, "estimate": estimate, "low": low,
            "high": high, "truth": truth, "limit": limit, "error": error,
            "n_warnings": n_warnings, "warning": warning, "seconds": seconds}


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".replace("\n", " ")[:300]


# ------------------------------------------------------------------------------ replications
def frequentist_replication(cell: dict, rng: np.random.Generator, *, designs: tuple,
                            n_resamples: int) -> list[dict]:
    """Every coefficient of the cell's design × every frequentist method on one dataset."""
    if cell["design"] not in designs:
        return []
    data, truth = DESIGNS[cell["design"]](cell["n_items"], rng)
    ci_seed = int(rng.integers(2 ** 63))
    rows = []
    for coefficient in COEFFICIENTS:
        if coefficient.design != cell["design"]:
            continue
        target, limit = coefficient.truth(truth), coefficient.limit(truth)
        for method in FREQUENTIST + coefficient.own_methods:
            start = time.perf_counter()
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    est = coefficient.estimator(*data, ci=method, n_resamples=n_resamples,
                                                confidence=CONFIDENCE, seed=ci_seed)
                low, high = (est.ci if est.ci is not None else (math.nan, math.nan))
                rows.append(_record(coefficient.name, method, target, limit,
                                    float(est.value), float(low), float(high),
                                    n_warnings=len(caught),
                                    seconds=time.perf_counter() - start))
            except Exception as exc:  # reported, never hidden
                rows.append(_record(coefficient.name, method, target, limit,
                                    error=_error(exc), seconds=time.perf_counter() - start))
    return rows


def _posterior_mean(posterior, name: str) -> float:
    return float(np.mean(posterior[name]))


def mcmc_replication(cell: dict, rng: np.random.Generator, *, designs: tuple,
                     sampler: dict) -> list[dict]:
    """The Bayesian model(s) of the cell's design on one dataset: a row per coefficient."""
    if cell["design"] not in designs:
        return []
    from kappalab import bayes  # lazy: PyMC is heavy

    data, truth = DESIGNS[cell["design"]](cell["n_items"], rng)
    fit_seed = int(rng.integers(2 ** 31))
    rows, fits = [], {}
    for coefficient in COEFFICIENTS:
        if coefficient.design != cell["design"]:
            continue
        target, limit = coefficient.truth(truth), coefficient.limit(truth)
        model, variable, options = coefficient.bayes
        key = (model, tuple(sorted(options.items())))
        start = time.perf_counter()
        try:
            if key not in fits:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    posterior = getattr(bayes, model)(*data, **options, **sampler,
                                                      seed=fit_seed)
                flagged = [w for w in caught if issubclass(w.category, bayes.SamplingWarning)]
                fits[key] = (posterior, flagged, time.perf_counter() - start)
            posterior, flagged, seconds = fits[key]
            low, high = posterior.interval(variable, prob=CONFIDENCE)
            rows.append(_record(coefficient.name, MCMC, target, limit,
                                _posterior_mean(posterior, variable), float(low), float(high),
                                n_warnings=len(flagged), seconds=seconds,
                                warning=" | ".join(str(w.message) for w in flagged)
                                .replace("\n", " ")[:300]))
        except Exception as exc:
            rows.append(_record(coefficient.name, MCMC, target, limit,
                                error=_error(exc) + " | " + traceback.format_exc(limit=-2)
                                .replace("\n", " ")[-300:],
                                seconds=time.perf_counter() - start))
    return rows


# ------------------------------------------------------------------------------ summaries
def band_distance(coverage: float, datasets: int) -> tuple[str, float]:
    """('under' | 'over' | '', z): how many Monte Carlo SEs the coverage lies outside the
    93–97% band, the SE taken at the nearest band edge b, √(b(1 − b)/R)."""
    if datasets < MIN_VERDICT_DATASETS or math.isnan(coverage):
        return "", 0.0
    for edge, verdict in ((BAND[0], "under"), (BAND[1], "over")):
        se = math.sqrt(edge * (1 - edge) / datasets)
        z = (edge - coverage) / se if verdict == "under" else (coverage - edge) / se
        if z > 2:
            return verdict, z
    return "", 0.0


def _spread(values: pd.Series) -> float:
    """The standard deviation of the truths (0 when they agree to rounding)."""
    sd = float(values.std(ddof=0))
    return sd if sd > 1e-12 else 0.0


def summarise(records: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (coefficient, method, n_items), cell in records.groupby(
            ["coefficient", "method", "n_items"], sort=False):
        valid = cell[np.isfinite(cell["low"]) & np.isfinite(cell["high"])
                     & (cell["error"] == "")]
        R = len(valid)
        covered = (valid["low"] <= valid["truth"]) & (valid["truth"] <= valid["high"])
        coverage = float(covered.mean()) if R else math.nan
        rows.append({
            "coefficient": coefficient, "method": method, "n_items": n_items,
            "datasets": len(cell), "n_invalid": len(cell) - R, "coverage": coverage,
            "coverage_se": math.sqrt(coverage * (1 - coverage) / R) if R else math.nan,
            "mean_width": float((valid["high"] - valid["low"]).mean()) if R else math.nan,
            "bias": float((cell["estimate"] - cell["truth"]).mean()),
            "truth": float(cell["truth"].mean()),
            "truth_sd": _spread(cell["truth"]),
            "limit": float(cell["limit"].mean()),
            "miss_low": float((valid["low"] > valid["truth"]).mean()) if R else math.nan,
            "miss_high": float((valid["high"] < valid["truth"]).mean()) if R else math.nan,
            "n_warnings": int(cell["n_warnings"].sum()),
            "seconds": float(cell["seconds"].mean()),
        })
    table = pd.DataFrame(rows)
    order = {name: i for i, name in enumerate(COEFFICIENT_NAMES)}
    morder = {name: i for i, name in enumerate(METHODS)}
    return (table.assign(_c=table["coefficient"].map(order), _m=table["method"].map(morder))
            .sort_values(["_c", "_m", "n_items"]).drop(columns=["_c", "_m"])
            .reset_index(drop=True))


def _pivot(table: pd.DataFrame, value: str, fmt: Callable[[pd.Series], str]) -> pd.DataFrame:
    shown = table.assign(_cell=[fmt(row) for _, row in table.iterrows()])
    pivot = shown.pivot(index=["coefficient", "method"], columns="n_items", values="_cell")
    order = [(c, m) for c in COEFFICIENT_NAMES for m in METHODS if (c, m) in pivot.index]
    pivot = pivot.loc[order].fillna("")
    pivot.columns = [f"n={n}" for n in pivot.columns]
    return pivot


def _coverage_cell(row) -> str:
    if row["datasets"] == 0 or math.isnan(row["coverage"]):
        return "  —"
    verdict, _ = band_distance(row["coverage"], row["datasets"] - row["n_invalid"])
    mark = {"under": "↓", "over": "↑", "": " "}[verdict] if row["n_items"] >= 200 else " "
    invalid = f" ({row['n_invalid']} NaN)" if row["n_invalid"] else ""
    return f"{100 * row['coverage']:5.1f} ±{100 * row['coverage_se']:.1f}{mark}" \
           f" [{row['datasets'] - row['n_invalid']}]{invalid}"


def report(table: pd.DataFrame) -> str:
    lines = ["Coverage of nominal 95% intervals (%, ± Monte Carlo SE; [datasets]); "
             "↓/↑ = under/over-covers (≥ 200 items, > 2 SE outside 93–97%):",
             _pivot(table, "coverage", _coverage_cell).to_string(), "",
             "Mean interval width (and bias = mean estimate − truth):",
             _pivot(table, "mean_width", lambda r: f"{r['mean_width']:.4f} ({r['bias']:+.4f})")
             .to_string(), ""]
    truths = (table.groupby("coefficient", sort=False)
              .agg(truth=("truth", "mean"), truth_sd=("truth_sd", "max"),
                   limit=("limit", "mean")).reset_index())
    lines += ["Truths (mean over datasets; cohen_kappa's varies with the drawn rater pair) and "
              "the estimators' large-sample limits:", truths.to_string(index=False), ""]
    verdicts = []
    for _, row in table[table["n_items"] >= 200].iterrows():
        R = int(row["datasets"] - row["n_invalid"])
        verdict, z = band_distance(row["coverage"], R)
        if verdict:
            side = ("the truth lies above the interval in {:.1%}, below it in {:.1%} of "
                    "datasets").format(row["miss_high"], row["miss_low"])
            verdicts.append(f"  {row['coefficient']} / {row['method']} at {row['n_items']} "
                            f"items {verdict}-covers: {row['coverage']:.1%} ± "
                            f"{row['coverage_se']:.1%} over {R} datasets ({z:.1f} SE "
                            f"{'below 93' if verdict == 'under' else 'above 97'}%; {side})")
    if verdicts:
        lines += ["Cells with ≥ 200 items outside the 93–97% target (> 2 Monte Carlo SE):",
                  *verdicts]
    else:
        lines += ["Every cell with ≥ 200 items is within 2 Monte Carlo SE of the 93–97% band."]
    return "\n".join(lines)


def failures(records: pd.DataFrame, seed: int, sizes) -> str:
    """The errors and NaN intervals, with how to reproduce the first of each kind."""
    bad = records[(records["error"] != "") | ~np.isfinite(records["low"])
                  | ~np.isfinite(records["high"])]
    if bad.empty:
        return "No method failed or returned a NaN interval."
    lines = [f"{len(bad)} failed or NaN intervals:"]
    for (coefficient, method), group in bad.groupby(["coefficient", "method"], sort=False):
        first = group.iloc[0]
        design = next(c.design for c in COEFFICIENTS if c.name == coefficient)
        what = first["error"] or "NaN interval"
        lines.append(f"  {coefficient} / {method}: {len(group)} datasets (n_items "
                     f"{sorted(group['n_items'].unique())}); first: {what}; reproduce with "
                     f"interval_coverage.dataset({design!r}, {first['n_items']}, "
                     f"{first['replication']}, {seed}, sizes={sizes})")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ figure
def plot(table: pd.DataFrame, path) -> None:
    names = [c for c in COEFFICIENT_NAMES if c in set(table["coefficient"])]
    columns = 3
    rows = math.ceil(len(names) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.4 * rows), sharex=True,
                             sharey=True, squeeze=False)
    colours = dict(zip(METHODS, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    sizes = sorted(table["n_items"].unique())
    for ax, name in zip(axes.flat, names):
        ax.axhspan(100 * BAND[0], 100 * BAND[1], color="tab:green", alpha=0.15, lw=0)
        ax.axhline(100 * CONFIDENCE, color="grey", lw=0.8)
        cell = table[table["coefficient"] == name]
        offsets = dict(zip(METHODS, np.linspace(-0.04, 0.04, len(METHODS))))
        for method, group in cell.groupby("method", sort=False):
            x = group["n_items"] * 10 ** offsets[method]  # a small dodge on the log axis
            ax.errorbar(x, 100 * group["coverage"], yerr=200 * group["coverage_se"],
                        marker="o", ms=3, lw=1, capsize=2, color=colours[method],
                        ls="--" if method == MCMC else "-", label=method)
        ax.set_xscale("log")
        ax.set_xticks(sizes)
        ax.set_xticklabels([str(s) for s in sizes])
        ax.xaxis.set_minor_formatter(NullFormatter())
        truth = cell["truth"].mean()
        ax.set_title(f"{name} (truth {'≈ ' if cell['truth_sd'].max() > 0 else ''}"
                     f"{truth:.3g})", fontsize=9)
    low = min(80.0, 100 * float(np.nanmin(table["coverage"] - 2 * table["coverage_se"])) - 1)
    for ax in axes.flat:
        ax.set_ylim(max(0.0, low), 100.5)
    finish_panels(fig, axes, path, "Coverage of nominal 95% intervals against the exact "
                  "population truth (±2 Monte Carlo SE; band 93–97%)", n_panels=len(names))


# ------------------------------------------------------------------------------ main
def check_truths(sizes, seed: int) -> None:
    """Under MCAR every estimator's limit is its truth (the simulate docstring): checked."""
    for coefficient in COEFFICIENTS:
        _, truth = dataset(coefficient.design, min(sizes), 0, seed, sizes)
        target, limit = coefficient.truth(truth), coefficient.limit(truth)
        if not abs(target - limit) < 1e-9:
            raise AssertionError(f"{coefficient.name}: limit {limit} ≠ truth {target}")


def main(argv=None) -> pd.DataFrame:
    args = parse_args(__doc__.splitlines()[0], argv, extra=[
        ("--datasets", {"type": int, "default": 500,
                        "help": "datasets per cell for the frequentist methods"}),
        ("--resamples", {"type": int, "default": 2000, "help": "bootstrap replicates"}),
        ("--mcmc-datasets", {"type": int, "default": 100,
                             "help": "datasets per cell for the PyMC models"}),
        ("--draws", {"type": int, "default": 500}),
        ("--tune", {"type": int, "default": 500}),
        ("--chains", {"type": int, "default": 2}),
        ("--sampler", {"choices": ["pymc", "nutpie"], "default": None,
                       "help": "NUTS of nutpie (each model compiled once per worker; the "
                               "default) or of PyMC (the default with --quick)"}),
        ("--no-mcmc", {"action": "store_true", "help": "skip the PyMC models"}),
        ("--designs", {"nargs": "+", "choices": list(DESIGNS), "default": list(DESIGNS),
                       "help": "the designs whose frequentist intervals run (default: all)"}),
        ("--mcmc-designs", {"nargs": "+", "choices": list(DESIGNS), "default": list(DESIGNS),
                            "help": "the designs whose PyMC models run (default: all)"}),
        ("--mcmc", {"action": "store_true", "help": "with --quick: run the PyMC models too"}),
        ("--sizes", {"type": int, "nargs": "+", "default": None,
                     "help": "numbers of items (default 50 200 1000; --quick: 50 200)"}),
        ("--save-datasets", {"type": Path, "default": None, "metavar": "CSV",
                             "help": "also write every interval (one row per dataset and "
                                     "method) to this file"}),
    ])
    sizes = args.sizes or ([50, 200] if args.quick else [50, 200, 1000])
    n_datasets = 20 if args.quick else args.datasets
    n_resamples = 200 if args.quick else args.resamples
    run_mcmc = not args.no_mcmc and (args.mcmc or not args.quick)
    mcmc_datasets = 2 if args.quick else args.mcmc_datasets
    sampler = ({"draws": 50, "tune": 50, "chains": 1} if args.quick else
               {"draws": args.draws, "tune": args.tune, "chains": args.chains})
    sampler["sampler"] = args.sampler or ("pymc" if args.quick else "nutpie")
    if run_mcmc:  # fail now, not after the frequentist part
        try:
            from kappalab.bayes.sampling import require_pymc, resolve_sampler
            require_pymc()
            resolve_sampler(sampler["sampler"])
        except ImportError as exc:
            raise SystemExit(f"the MCMC part needs kappalab.bayes and PyMC ({exc}); "
                             "run with --no-mcmc to skip it") from exc
    check_truths(sizes, args.seed)

    cells = grid(sizes)
    designs, mcmc_designs = tuple(args.designs), tuple(args.mcmc_designs)
    with cluster(args) as client:
        start = time.perf_counter()
        records = run(args, client, cells, functools.partial(
            frequentist_replication, designs=designs, n_resamples=n_resamples),
            n_datasets, "frequentist")
        frequentist_seconds = time.perf_counter() - start
        mcmc_seconds = math.nan
        if run_mcmc:
            start = time.perf_counter()
            records = pd.concat([records, run(args, client, cells, functools.partial(
                mcmc_replication, designs=mcmc_designs, sampler=sampler),
                mcmc_datasets, "pymc")], ignore_index=True)
            mcmc_seconds = time.perf_counter() - start
        workers = 1 if client == "serial" else len(client.scheduler_info()["workers"])
    table = summarise(records)

    csv, png = args.out / "coverage.csv", args.out / "coverage.png"
    table.to_csv(csv, index=False)
    plot(table, png)
    if args.save_datasets:
        records.to_csv(args.save_datasets, index=False)
    with pd.option_context("display.width", 250, "display.max_columns", 20,
                           "display.max_colwidth", 60):
        print(report(table))
    print()
    print(failures(records, args.seed, sizes))
    print(f"\nruntime: frequentist part {frequentist_seconds / 60:.1f} min "
          f"({len(cells)} cells × {n_datasets} datasets × {len(FREQUENTIST)} methods "
          f"(α also {KRIPPENDORFF}), "
          f"{n_resamples} resamples, "
          f"{workers} worker{'s' if workers > 1 else ''})"
          + (f"; MCMC part {mcmc_seconds / 60:.1f} min ({mcmc_datasets} datasets per cell, "
             f"{sampler})" if run_mcmc else "; MCMC part skipped"))
    print(f"wrote {csv} and {png}")
    return table


if __name__ == "__main__":
    main()
