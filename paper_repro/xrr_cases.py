r"""The paper's three cases (Wong, Paritosh & Aroyo 2021, §4.3–4.4) as simulated scenarios, and
eq 14's ceiling: κx is capped by the larger of the two IRRs.

Cases (paper values, IRep, Mexico City = X):

* sadness, Mexico City vs Budapest: IRR 0.5147 / 0.5175, κx 0.4709 — agreement generalises;
* contentment, Mexico City vs Kuala Lumpur: IRR 0.4494 / 0.6363, κx −0.0344 — high IRR that
  does not generalise beyond each pool;
* awe, Mexico City vs Budapest: IRR 0.1208 / 0.117, κx 0.0817, normalized κx 0.6872 — low IRR
  yet a faithful replication.

Each case is a binary replication pair of :func:`kappalab.simulate.replications` whose
population truths equal the paper's numbers: ``reliability`` = the two IRRs (the model's
nominal α is its reliability exactly), and the items' latent correlation ``rho`` solved by
Brent's method so that ``truth.kx`` equals the paper's κx (to 1e-12); normalized κx then
follows by eq 13. The prevalence of "present" is not reported in the paper: it is an
assumption per case (``PREVALENCE``), and the solved ``rho`` depends on it, the truths do not.
For each case ``--datasets`` datasets of ``--items`` items with 1–5 annotations per item on each
side are simulated and estimated with kappalab (Krippendorff's α for the IRRs, ``cross_kappa``,
``normalized_cross_kappa``, and Spearman's corrected correlation ρ_xy when
``kappalab.coefficients.disattenuation`` is installed); the table gives the paper's value, the
first dataset's estimate, the mean and 2.5–97.5 % range over the datasets, and the truth.

Eq 14 (κx ≈ ρ_xy √IRR_X √IRR_Y, so κx ≤ max IRR when ρ_xy ≤ 1) is checked in the truths over a
grid of rho, IRR_X, IRR_Y, prevalence and a marginal shift of Y, and in the estimates (every
simulated dataset of the cases and of a few boundary scenarios with rho = 1).

Outputs in ``--out`` (default ``results/paper_repro``): ``xrr_cases.csv`` (paper vs estimate vs
truth), ``xrr_cases_eq14.csv`` (the truth grid), ``xrr_cases_estimates.csv`` (one row per
simulated dataset), ``xrr_cases.md`` and ``xrr_cases.png``.

The data are simulated stand-ins for IRep, which is not available offline.

Run: ``python -m paper_repro.xrr_cases [--quick] [--out DIR] [--seed S]``.
"""

from __future__ import annotations

import itertools
import math
import textwrap
import time

import numpy as np
import pandas as pd
from scipy.optimize import brentq

import kappalab as kl
from kappalab import simulate

from paper_repro.reporting import (ANNOTATIONS_PER_ITEM, STAND_IN_NOTE,
                                   load_disattenuated_correlation, markdown_table, parse_args,
                                   quietly, write_markdown)

CASES = [
    {"case": "sadness", "x": "Mexico City", "y": "Budapest", "irr_x": 0.5147, "irr_y": 0.5175,
     "kx": 0.4709, "normalized_kx": None,
     "claim": "similar IRRs and κx ≈ IRR: the agreement generalises beyond each pool"},
    {"case": "contentment", "x": "Mexico City", "y": "Kuala Lumpur", "irr_x": 0.4494,
     "irr_y": 0.6363, "kx": -0.0344, "normalized_kx": None,
     "claim": "high IRRs, κx ≈ 0: the agreement stays within each pool"},
    {"case": "awe", "x": "Mexico City", "y": "Budapest", "irr_x": 0.1208, "irr_y": 0.117,
     "kx": 0.0817, "normalized_kx": 0.6872,
     "claim": "low IRRs and low κx, high normalized κx: a faithful replication"},
]

#: assumed prevalence of "present" per label (not reported in the paper)
PREVALENCE = {"sadness": 0.20, "contentment": 0.15, "awe": 0.10}

#: truths equal to the cap (rho = 1, equal IRRs, no shift: κx = IRR) exceed it by rounding only
ROUNDING = 1e-12

MEASURES = ["IRR_X", "IRR_Y", "kx", "normalized_kx", "rho_xy"]
LABELS = {"IRR_X": "IRR_X", "IRR_Y": "IRR_Y", "kx": "κx", "normalized_kx": "normalized κx",
          "rho_xy": "ρ_xy (Spearman)"}


# ---------------------------------------------------------------------- truths
def replication_truth(rho: float, irr_x: float, irr_y: float, prevalence: float,
                      shift: float = 0.0) -> simulate.Truth:
    """The population truths of a binary replication pair (the one simulated item is unused)."""
    return simulate.replications(1, level="binary", rho=rho, reliability=(irr_x, irr_y),
                                 annotations_per_item=2, prevalence=prevalence, shift=shift,
                                 seed=0)[2]


def solve_rho(kx: float, irr_x: float, irr_y: float, prevalence: float) -> float:
    """The latent correlation rho whose population κx is ``kx`` (κx is increasing in rho)."""
    f = lambda rho: replication_truth(rho, irr_x, irr_y, prevalence).kx - kx  # noqa: E731
    lo, hi = f(-1.0), f(1.0)
    if not lo <= 0.0 <= hi:
        raise ValueError(f"κx = {kx} is outside the model's range [{lo + kx:.4f}, {hi + kx:.4f}] "
                         f"for IRRs {irr_x}, {irr_y} and prevalence {prevalence}")
    return brentq(f, -1.0, 1.0, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=200)


# ---------------------------------------------------------------------- estimates
def estimate(ax, ay, disattenuated, seed) -> dict[str, float]:
    """The triangulation of one simulated pair: IRR_X, IRR_Y (nominal α), κx, normalized κx,
    and ρ_xy (Spearman-corrected, split-half) when available."""
    nkx = quietly(kl.normalized_cross_kappa, ax, ay)
    out = {"IRR_X": float(nkx.details["irr_x"]), "IRR_Y": float(nkx.details["irr_y"]),
           "kx": float(nkx.details["cross_kappa"]), "normalized_kx": float(nkx.value),
           "rho_xy": float("nan")}
    if disattenuated is not None:
        out["rho_xy"] = float(quietly(disattenuated, ax, ay, reliability="split_half",
                                      seed=seed).rho)
    return out


def simulate_case(n_items: int, rho: float, irr_x: float, irr_y: float, prevalence: float,
                  n_datasets: int, rng: np.random.Generator, disattenuated,
                  **extra) -> list[dict[str, float]]:
    rows = []
    for k in range(n_datasets):
        ax, ay, _ = simulate.replications(
            n_items, level="binary", rho=rho, reliability=(irr_x, irr_y),
            annotations_per_item=ANNOTATIONS_PER_ITEM, prevalence=prevalence, seed=rng)
        rows.append({**extra, "dataset": k, **estimate(ax, ay, disattenuated,
                                                       int(rng.integers(2**31)))})
    return rows


# ---------------------------------------------------------------------- eq 14 grid
def eq14_grid(quick: bool) -> pd.DataFrame:
    rhos = [0.0, 0.5, 1.0] if quick else [0.0, 0.25, 0.5, 0.75, 0.9, 1.0]
    irrs = [0.05, 0.3, 0.7] if quick else [0.05, 0.1, 0.2, 0.3, 0.5, 0.7]
    prevalences = [0.05, 0.4] if quick else [0.05, 0.1, 0.2, 0.4]
    shifts = [0.0, 0.5]
    rows = []
    for rho, irr_x, irr_y, p, shift in itertools.product(rhos, irrs, irrs, prevalences, shifts):
        t = replication_truth(rho, irr_x, irr_y, p, shift)
        rows.append({"rho": rho, "irr_x": t.irr_x, "irr_y": t.irr_y, "prevalence": p,
                     "shift": shift, "kx": t.kx, "normalized_kx": t.normalized_kx,
                     "rho_true_scores": t.rho, "max_irr": max(t.irr_x, t.irr_y),
                     "geometric_mean_irr": math.sqrt(t.irr_x * t.irr_y)})
    grid = pd.DataFrame(rows)
    grid["kx_minus_max_irr"] = grid["kx"] - grid["max_irr"]
    grid["kx_minus_geometric_mean"] = grid["kx"] - grid["geometric_mean_irr"]
    return grid


# ---------------------------------------------------------------------- plot
def plot(table: pd.DataFrame, grid: pd.DataFrame, estimates: pd.DataFrame, path) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(19, 4.8),
                             gridspec_kw={"width_ratios": [1, 1, 1, 1.15]})
    measures = [m for m in MEASURES if table.loc[table["measure"] == m, "mean"].notna().any()]
    for ax, case in zip(axes[:3], CASES):
        sub = table[table["case"] == case["case"]].set_index("measure").loc[measures]
        pos = np.arange(len(measures))
        lower = (sub["mean"] - sub["q2.5"]).to_numpy()
        upper = (sub["q97.5"] - sub["mean"]).to_numpy()
        ax.bar(pos, sub["mean"], width=0.6, color="C0", alpha=0.55,
               yerr=[lower, upper], capsize=4, label="simulated: mean, 2.5–97.5 %")
        ax.plot(pos, sub["estimate"], "o", color="C0", ms=6, label="simulated: dataset 1")
        ax.plot(pos, sub["truth"], "_", color="C3", ms=26, mew=2.5, label="truth")
        paper = sub["paper"].to_numpy(dtype=float)
        ax.plot(pos, paper, "D", color="k", ms=6, mfc="none", mew=1.5, label="paper")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xticks(pos, [LABELS[m] for m in measures], rotation=20)
        ax.set_ylim(-0.25, 1.3)
        ax.set_title(f"{case['case']}: {case['x']} vs {case['y']}", fontsize=10)
        ax.text(0.03, 0.97, textwrap.fill(case["claim"], 48), transform=ax.transAxes,
                va="top", fontsize=7.5)
    axes[0].set_ylabel("value")
    handles, labels = axes[0].get_legend_handles_labels()
    ax = axes[3]
    lim = [0, 0.75]
    ax.plot(lim, lim, "k-", lw=1, label="κx = max IRR (eq 14's cap)")
    est = estimates
    ax.scatter(np.maximum(est["IRR_X"], est["IRR_Y"]), est["kx"], s=6, color="C0", alpha=0.35,
               label="estimates (every simulated dataset)")
    ax.scatter(grid["max_irr"], grid["kx"], s=12, color="C3", marker="x",
               label="truths (grid of rho, IRRs, prevalence, shift)")
    ax.set_xlabel("max(IRR_X, IRR_Y)")
    ax.set_ylabel("κx")
    ax.set_title("eq 14: κx is capped by the larger IRR", fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    fig.suptitle("Wong et al. (2021) §4.3–4.4 on simulated stand-ins for IRep "
                 "(binary replications; IRep is not available offline)", fontsize=11)
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)


# ---------------------------------------------------------------------- main
def run(args) -> dict[str, pd.DataFrame]:
    n_datasets = 5 if args.quick else args.datasets
    n_items = 300 if args.quick else args.items
    rng = np.random.default_rng(args.seed)
    disattenuated = load_disattenuated_correlation()
    if disattenuated is None:
        print("kappalab.coefficients.disattenuation is not available: ρ_xy is left out")

    table_rows, scenario_rows, estimate_rows = [], [], []
    for case in CASES:
        p = PREVALENCE[case["case"]]
        rho = solve_rho(case["kx"], case["irr_x"], case["irr_y"], p)
        truth = replication_truth(rho, case["irr_x"], case["irr_y"], p)
        scenario_rows.append({"case": case["case"], "X": case["x"], "Y": case["y"],
                              "prevalence (assumed)": p, "solved latent rho": rho,
                              "n_items": n_items, "annotations per item": "1–5 per side",
                              "datasets": n_datasets})
        rows = simulate_case(n_items, rho, case["irr_x"], case["irr_y"], p, n_datasets, rng,
                             disattenuated, case=case["case"], group="case")
        estimate_rows += rows
        frame = pd.DataFrame(rows)
        paper = {"IRR_X": case["irr_x"], "IRR_Y": case["irr_y"], "kx": case["kx"],
                 "normalized_kx": case["normalized_kx"], "rho_xy": None}
        truths = {"IRR_X": truth.irr_x, "IRR_Y": truth.irr_y, "kx": truth.kx,
                  "normalized_kx": truth.normalized_kx, "rho_xy": truth.rho}
        for m in MEASURES:
            value, source = paper[m], "stated"
            if m == "normalized_kx" and value is None:  # eq 13 from the paper's stated values
                value = case["kx"] / math.sqrt(case["irr_x"] * case["irr_y"])
                source = "eq 13 of stated values"
            if m == "rho_xy":
                value, source = float("nan"), "not reported"
            col = frame[m].to_numpy(dtype=float)
            finite = col[np.isfinite(col)]
            table_rows.append({
                "case": case["case"], "measure": m, "paper": value, "paper_source": source,
                "estimate": col[0], "mean": finite.mean() if finite.size else np.nan,
                "sd": finite.std(ddof=1) if finite.size > 1 else np.nan,
                "q2.5": np.quantile(finite, 0.025) if finite.size else np.nan,
                "q97.5": np.quantile(finite, 0.975) if finite.size else np.nan,
                "truth": truths[m], "truth_minus_paper": truths[m] - value})

    # estimates at the boundary of eq 14: perfect latent correlation (rho = 1)
    boundary = [(0.1, 0.1), (0.3, 0.6), (0.6, 0.6)]
    for irr_x, irr_y in boundary:
        estimate_rows += simulate_case(
            n_items, 1.0, irr_x, irr_y, 0.2, max(2, n_datasets // 4), rng, disattenuated,
            case=f"rho=1, IRR {irr_x}/{irr_y}", group="boundary")

    grid = eq14_grid(args.quick)
    return {"table": pd.DataFrame(table_rows), "scenarios": pd.DataFrame(scenario_rows),
            "estimates": pd.DataFrame(estimate_rows), "grid": grid}


def eq14_summary(grid: pd.DataFrame, estimates: pd.DataFrame) -> pd.DataFrame:
    est_max = np.maximum(estimates["IRR_X"], estimates["IRR_Y"])
    est_gm = np.sqrt(np.clip(estimates["IRR_X"], 0, None) * np.clip(estimates["IRR_Y"], 0, None))
    rows = [
        {"where": "truths (grid)", "n": len(grid),
         "κx > max IRR": int((grid["kx_minus_max_irr"] > ROUNDING).sum()),
         "max of κx − max IRR": grid["kx_minus_max_irr"].max(),
         "κx > √(IRR_X·IRR_Y)": int((grid["kx_minus_geometric_mean"] > ROUNDING).sum()),
         "max of κx − √(IRR_X·IRR_Y)": grid["kx_minus_geometric_mean"].max()},
    ]
    for group, sub in estimates.groupby("group", sort=False):
        m, g = est_max[sub.index], est_gm[sub.index]
        rows.append({"where": f"estimates ({group})", "n": len(sub),
                     "κx > max IRR": int((sub["kx"] > m).sum()),
                     "max of κx − max IRR": float((sub["kx"] - m).max()),
                     "κx > √(IRR_X·IRR_Y)": int((sub["kx"] > g).sum()),
                     "max of κx − √(IRR_X·IRR_Y)": float((sub["kx"] - g).max())})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(__doc__.splitlines()[0], argv, extra=[
        ("--datasets", {"type": int, "default": 200,
                        "help": "simulated datasets per case (full run)"}),
        ("--items", {"type": int, "default": 1000, "help": "items per dataset (full run)"}),
    ])
    start = time.perf_counter()
    print(STAND_IN_NOTE)
    out = run(args)
    table, scenarios, estimates, grid = (out[k] for k in ("table", "scenarios", "estimates",
                                                           "grid"))
    summary = eq14_summary(grid, estimates)

    table.to_csv(args.out / "xrr_cases.csv", index=False)
    grid.to_csv(args.out / "xrr_cases_eq14.csv", index=False)
    estimates.to_csv(args.out / "xrr_cases_estimates.csv", index=False)
    plot(table, grid, estimates, args.out / "xrr_cases.png")

    shown = table.copy()
    shown["measure"] = shown["measure"].map(LABELS)
    shown = shown[["case", "measure", "paper", "paper_source", "estimate", "mean", "q2.5",
                   "q97.5", "truth"]].rename(columns={
                       "estimate": "estimate (dataset 1)", "mean": "mean over datasets",
                       "q2.5": "2.5 %", "q97.5": "97.5 %"})
    cases_md = markdown_table(shown, formats={
        "paper": lambda v: "—" if np.isnan(v) else f"{v:.4f}"})
    scenarios_md = markdown_table(scenarios, digits=6)
    summary_md = markdown_table(summary, digits=4, formats={
        "max of κx − max IRR": lambda v: f"{v:.3g}",
        "max of κx − √(IRR_X·IRR_Y)": lambda v: f"{v:.3g}"})
    write_markdown(args.out / "xrr_cases.md", "xrr cases: paper vs simulated estimate vs truth", [
        "## Scenarios\n\nPopulation truths solved to the paper's IRRs and κx (latent rho by "
        "Brent's method on truth.kx); prevalence assumed.\n\n" + scenarios_md,
        "## Paper value vs simulated estimate vs truth\n\n" + cases_md,
        "## Eq 14: κx is capped by the larger IRR\n\nTruths over a grid of rho ∈ [0, 1], "
        "IRR_X, IRR_Y ∈ [0.05, 0.7], prevalence and a shift of Y's marginals (a truth counts "
        f"as above the cap when it exceeds it by more than {ROUNDING:g}: at rho = 1 with equal "
        "IRRs κx equals the IRR, up to rounding); estimates of every simulated dataset "
        "(cases, and perfect latent correlation rho = 1).\n\n"
        + summary_md,
        "Figure: `xrr_cases.png`; tables: `xrr_cases.csv`, `xrr_cases_eq14.csv`, "
        "`xrr_cases_estimates.csv`.",
    ])
    print()
    print("Scenarios:")
    print(scenarios_md)
    print()
    print("Paper value vs simulated estimate vs truth:")
    print(cases_md)
    print()
    print("Eq 14 (κx ≤ max IRR):")
    print(summary_md)
    print()
    print(f"wrote {args.out / 'xrr_cases.png'}, xrr_cases.csv, xrr_cases_eq14.csv, "
          f"xrr_cases_estimates.csv, xrr_cases.md in {args.out} "
          f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
