r"""Fig. 7 of Wong, Paritosh & Aroyo (2021): normalized κx against Spearman's corrected
correlation ρ_xy over 31 labels × 3 city pairs = 93 replication pairs (paper: Pearson r = 0.99).

The IRep data are not available offline; the 93 pairs are simulated stand-ins: binary
(present/absent) replications from :func:`kappalab.simulate.replications`, each pair with its
own settings drawn at random (seeded) to span what IRep's emotions do —

* IRR of each side (the model's population nominal α) uniform on [0.05, 0.7];
* the items' latent correlation ``rho`` uniform on [0, 1] (the true correlation of the item
  mean scores, ``truth.rho``, then spans ≈ 0 to 1);
* the prevalence of "present" uniform on [0.05, 0.4], shared by both sides;
* a few hundred to 1 000 items (uniform on 300..1000), 1–5 annotations per item on each side
  (uniform: missing data), from a pool of 5 raters per side.

Each pair is simulated on its own (a city's annotations are not shared between its two pairs).
For each pair: normalized κx (``kl.normalized_cross_kappa``: κx / √(α_X α_Y), eq 13) and ρ_xy
(``disattenuated_correlation(x, y, reliability="split_half")``, eq 12: the Pearson r of the
item mean scores over the items rated on both sides, corrected by the split-half reliabilities
of the two means); their Pearson correlation over the pairs is printed beside the paper's 0.99.
The exact population values (``truth.normalized_kx``, ``truth.rho``) are drawn as the
reference. ``--studies`` repeats the whole 93-pair study with fresh data to show how much the
correlation varies from one draw to the next (the figure and the per-pair table are study 1).

Outputs in ``--out`` (default ``results/paper_repro``): ``xrr_fig7.png``, ``xrr_fig7.csv`` (one
row per pair of study 1: settings, truths, estimates), ``xrr_fig7_studies.csv`` (one row per
study) and ``xrr_fig7.md``.

Run: ``python -m paper_repro.xrr_fig7 [--quick] [--out DIR] [--seed S] [--studies N]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd

import kappalab as kl
from kappalab import simulate

from paper_repro.reporting import (ANNOTATIONS_PER_ITEM, STAND_IN_NOTE,
                                   load_disattenuated_correlation, markdown_table, parse_args,
                                   pearson, quietly, write_markdown)

PAPER_CORRELATION = 0.99
N_LABELS = 31
CITY_PAIRS = ["Mexico City–Budapest", "Mexico City–Kuala Lumpur", "Budapest–Kuala Lumpur"]
IRR_RANGE = (0.05, 0.7)
RHO_RANGE = (0.0, 1.0)
PREVALENCE_RANGE = (0.05, 0.4)
ITEMS_RANGE = (300, 1000)


def draw_settings(rng: np.random.Generator, n_labels: int, items_range) -> pd.DataFrame:
    rows = []
    for label in range(1, n_labels + 1):
        for pair in CITY_PAIRS:
            rows.append({
                "label": f"label_{label:02d}", "city_pair": pair,
                "n_items": int(rng.integers(items_range[0], items_range[1] + 1)),
                "prevalence": float(rng.uniform(*PREVALENCE_RANGE)),
                "reliability_x": float(rng.uniform(*IRR_RANGE)),
                "reliability_y": float(rng.uniform(*IRR_RANGE)),
                "latent_rho": float(rng.uniform(*RHO_RANGE)),
            })
    return pd.DataFrame(rows)


def run_study(settings: pd.DataFrame, rng: np.random.Generator, disattenuated,
              n_splits: int) -> pd.DataFrame:
    rows = []
    for s in settings.itertuples(index=False):
        ax, ay, truth = simulate.replications(
            s.n_items, level="binary", rho=s.latent_rho,
            reliability=(s.reliability_x, s.reliability_y),
            annotations_per_item=ANNOTATIONS_PER_ITEM, prevalence=s.prevalence, seed=rng)
        nkx = quietly(kl.normalized_cross_kappa, ax, ay)
        dis = quietly(disattenuated, ax, ay, reliability="split_half", n_splits=n_splits,
                      seed=int(rng.integers(2**31)))
        rows.append({
            **s._asdict(),
            "truth_irr_x": truth.irr_x, "truth_irr_y": truth.irr_y, "truth_kx": truth.kx,
            "truth_normalized_kx": truth.normalized_kx, "truth_rho": truth.rho,
            "irr_x": float(nkx.details["irr_x"]), "irr_y": float(nkx.details["irr_y"]),
            "kx": float(nkx.details["cross_kappa"]), "normalized_kx": float(nkx.value),
            "r_xy": float(dis.r), "reliability_mean_x": float(dis.reliability_x),
            "reliability_mean_y": float(dis.reliability_y), "rho_xy": float(dis.rho),
            "n_annotations_x": ax.n_annotations, "n_annotations_y": ay.n_annotations,
        })
    return pd.DataFrame(rows)


def study_summary(pairs: pd.DataFrame) -> dict[str, float]:
    both = np.isfinite(pairs["normalized_kx"]) & np.isfinite(pairs["rho_xy"])
    return {
        "pairs": len(pairs), "pairs_used": int(both.sum()),
        "normalized_kx_undefined": int((~np.isfinite(pairs["normalized_kx"])).sum()),
        "rho_xy_undefined": int((~np.isfinite(pairs["rho_xy"])).sum()),
        "pearson_normalized_kx_vs_rho_xy": pearson(pairs["normalized_kx"], pairs["rho_xy"]),
        "pearson_normalized_kx_vs_truth": pearson(pairs["normalized_kx"],
                                                  pairs["truth_normalized_kx"]),
        "pearson_rho_xy_vs_truth": pearson(pairs["rho_xy"], pairs["truth_rho"]),
        "pearson_truths": pearson(pairs["truth_normalized_kx"], pairs["truth_rho"]),
        "mean_error_normalized_kx": float(np.nanmean(pairs["normalized_kx"]
                                                     - pairs["truth_normalized_kx"])),
        "mean_error_rho_xy": float(np.nanmean(pairs["rho_xy"] - pairs["truth_rho"])),
        "max_abs_truth_normalized_kx_minus_rho": float(
            (pairs["truth_normalized_kx"] - pairs["truth_rho"]).abs().max()),
        "rho_xy_above_1": int((pairs["rho_xy"] > 1).sum()),
        "normalized_kx_above_1": int((pairs["normalized_kx"] > 1).sum()),
    }


def plot(pairs: pd.DataFrame, summary: dict, studies: pd.DataFrame, path) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12.5, 5.6))
    ax = axes[0]
    both = np.isfinite(pairs["normalized_kx"]) & np.isfinite(pairs["rho_xy"])
    lo = float(min(-0.1, pairs.loc[both, ["normalized_kx", "rho_xy"]].min().min() - 0.05))
    hi = float(max(1.1, pairs.loc[both, ["normalized_kx", "rho_xy"]].max().max() + 0.05))
    ax.plot([lo, hi], [lo, hi], color="grey", lw=1, label="y = x")
    markers = dict(zip(CITY_PAIRS, ["o", "s", "^"]))
    for pair, sub in pairs[both].groupby("city_pair", sort=False):
        ax.scatter(sub["rho_xy"], sub["normalized_kx"], s=22, marker=markers[pair],
                   alpha=0.75, label=f"{pair} (simulated)")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("Spearman-corrected ρ_xy (split-half), estimated")
    ax.set_ylabel("normalized κx, estimated")
    r = summary["pearson_normalized_kx_vs_rho_xy"]
    text = (f"Pearson r = {r:.3f} over {int(summary['pairs_used'])} pairs\n"
            f"(paper, IRep: {PAPER_CORRELATION:.2f})")
    if len(studies) > 1:
        q = studies["pearson_normalized_kx_vs_rho_xy"].quantile([0.025, 0.5, 0.975])
        text += (f"\n{len(studies)} studies: median {q[0.5]:.3f}, "
                 f"2.5–97.5 % {q[0.025]:.3f}–{q[0.975]:.3f}")
    ax.text(0.03, 0.97, text, transform=ax.transAxes, va="top", fontsize=9,
            bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "none"})
    ax.legend(fontsize=7.5, loc="lower right")
    ax.set_title("Fig. 7: normalized κx vs ρ_xy (simulated stand-ins for IRep)", fontsize=10)

    ax = axes[1]
    ax.plot([lo, hi], [lo, hi], color="grey", lw=1)
    ax.scatter(pairs["truth_rho"], pairs["normalized_kx"], s=16, color="C0", alpha=0.7,
               label="normalized κx, estimated")
    ax.scatter(pairs["truth_rho"], pairs["rho_xy"], s=16, color="C1", marker="x", alpha=0.8,
               label="ρ_xy, estimated")
    ax.scatter(pairs["truth_rho"], pairs["truth_normalized_kx"], s=10, color="k", marker=".",
               label="normalized κx, truth")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("truth: correlation of the item mean scores (truth.rho)")
    ax.set_ylabel("value")
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("both against the exact population values", fontsize=10)
    fig.suptitle("Binary replications, IRR 0.05–0.7, 300–1000 items, 1–5 annotations per item "
                 "per side — the data are simulated, not IRep", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(__doc__.splitlines()[0], argv, extra=[
        ("--studies", {"type": int, "default": 20,
                       "help": "repetitions of the 93-pair study (full run; study 1 is plotted)"}),
        ("--splits", {"type": int, "default": 100,
                      "help": "random split-halves per reliability (full run)"}),
    ])
    start = time.perf_counter()
    disattenuated = load_disattenuated_correlation()
    if disattenuated is None:
        print("kappalab.coefficients.disattenuation (disattenuated_correlation) is not "
              "available: Fig. 7 needs it", file=sys.stderr)
        return 2
    print(STAND_IN_NOTE)
    n_labels = 4 if args.quick else N_LABELS
    items_range = (150, 300) if args.quick else ITEMS_RANGE
    n_studies = 1 if args.quick else args.studies
    n_splits = 10 if args.quick else args.splits
    rng = np.random.default_rng(args.seed)

    first, studies = None, []
    for k in range(n_studies):
        settings = draw_settings(rng, n_labels, items_range)
        pairs = run_study(settings, rng, disattenuated, n_splits)
        studies.append({"study": k + 1, **study_summary(pairs)})
        if first is None:
            first = pairs
        print(f"study {k + 1}/{n_studies}: Pearson(normalized κx, ρ_xy) = "
              f"{studies[-1]['pearson_normalized_kx_vs_rho_xy']:.4f} over "
              f"{studies[-1]['pairs_used']} pairs ({time.perf_counter() - start:.0f} s)",
              flush=True)
    studies = pd.DataFrame(studies)
    summary = studies.iloc[0].to_dict()

    first.to_csv(args.out / "xrr_fig7.csv", index=False)
    studies.to_csv(args.out / "xrr_fig7_studies.csv", index=False)
    plot(first, summary, studies, args.out / "xrr_fig7.png")

    r = summary["pearson_normalized_kx_vs_rho_xy"]
    headline = pd.DataFrame([
        {"quantity": "Pearson r, normalized κx vs ρ_xy (estimates)", "simulated (study 1)": r,
         "paper (IRep)": PAPER_CORRELATION},
        {"quantity": "Pearson r, normalized κx estimate vs truth",
         "simulated (study 1)": summary["pearson_normalized_kx_vs_truth"],
         "paper (IRep)": np.nan},
        {"quantity": "Pearson r, ρ_xy estimate vs truth",
         "simulated (study 1)": summary["pearson_rho_xy_vs_truth"], "paper (IRep)": np.nan},
        {"quantity": "Pearson r, truths (normalized κx vs ρ)",
         "simulated (study 1)": summary["pearson_truths"], "paper (IRep)": np.nan},
        {"quantity": "mean (estimate − truth), normalized κx",
         "simulated (study 1)": summary["mean_error_normalized_kx"], "paper (IRep)": np.nan},
        {"quantity": "mean (estimate − truth), ρ_xy",
         "simulated (study 1)": summary["mean_error_rho_xy"], "paper (IRep)": np.nan},
    ])
    headline_md = markdown_table(headline, formats={
        "paper (IRep)": lambda v: "—" if np.isnan(v) else f"{v:.2f}"})
    counts_md = (f"Pairs: {int(summary['pairs'])}; both measures defined: "
                 f"{int(summary['pairs_used'])} (normalized κx undefined — an estimated IRR ≤ 0 "
                 f"— in {int(summary['normalized_kx_undefined'])}, ρ_xy undefined in "
                 f"{int(summary['rho_xy_undefined'])}); ρ_xy > 1 in "
                 f"{int(summary['rho_xy_above_1'])}, normalized κx > 1 in "
                 f"{int(summary['normalized_kx_above_1'])}. Largest |truth normalized κx − truth "
                 f"ρ| = {summary['max_abs_truth_normalized_kx_minus_rho']:.2g} (equal prevalence "
                 "on both sides makes the two population values coincide).")
    sections = ["## Headline\n\n" + headline_md + "\n\n" + counts_md]
    if n_studies > 1:
        q = studies["pearson_normalized_kx_vs_rho_xy"].quantile([0.0, 0.025, 0.5, 0.975, 1.0])
        spread = (f"Over {n_studies} independent repetitions of the 93-pair study, the Pearson r "
                  f"of normalized κx vs ρ_xy has median {q[0.5]:.4f}, 2.5–97.5 % "
                  f"{q[0.025]:.4f}–{q[0.975]:.4f}, range {q[0.0]:.4f}–{q[1.0]:.4f}.")
        sections.append("## Study-to-study spread\n\n" + spread + "\n\n" + markdown_table(
            studies[["study", "pairs_used", "pearson_normalized_kx_vs_rho_xy",
                     "pearson_normalized_kx_vs_truth", "pearson_rho_xy_vs_truth"]]))
    design = pd.DataFrame([
        {"setting": "pairs", "value": f"{n_labels} labels × {len(CITY_PAIRS)} city pairs"},
        {"setting": "IRR of each side (population α)", "value": f"U{IRR_RANGE}"},
        {"setting": "latent rho", "value": f"U{RHO_RANGE}"},
        {"setting": "prevalence of 'present'", "value": f"U{PREVALENCE_RANGE}"},
        {"setting": "items", "value": f"uniform on {items_range[0]}..{items_range[1]}"},
        {"setting": "annotations per item, each side", "value": "uniform on 1..5 (5 raters)"},
        {"setting": "split-halves per reliability", "value": str(n_splits)},
        {"setting": "seed", "value": str(args.seed)},
    ])
    sections.append("## Design\n\n" + markdown_table(design))
    sections.append("Figure: `xrr_fig7.png`; per-pair table: `xrr_fig7.csv`; per-study: "
                    "`xrr_fig7_studies.csv`.")
    write_markdown(args.out / "xrr_fig7.md", "Fig. 7: normalized κx vs Spearman-corrected ρ_xy",
                   sections)
    print()
    print(headline_md)
    print(counts_md)
    if n_studies > 1:
        print(spread)
    print(f"\nPearson r(normalized κx, ρ_xy) = {r:.4f}   (paper, IRep: {PAPER_CORRELATION:.2f})")
    print(f"wrote xrr_fig7.png, xrr_fig7.csv, xrr_fig7_studies.csv, xrr_fig7.md in {args.out} "
          f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
