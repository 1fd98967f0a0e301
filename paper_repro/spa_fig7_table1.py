r"""Fig. 7 and Table 1 of Nørregaard & Derczynski (2022): the variance of SPA under each
weighting scheme, minus the flat baseline, as annotations are added at random; and the area
under each curve per dataset.

SIMULATED STAND-INS: the paper's four datasets (DAR, MBIC, BSMTWE, FECG) are not available
offline; datasets of the same shape are simulated (``spa_engine.DATASETS``: items, classes and
annotations per item from the paper, prevalence and reliability assumed).

Per dataset and round (``--rounds``; the paper used 3 000) all annotations are added one at a
time in a random order; after each prefix SPA is computed with every scheme — flat,
annotations, annotations_m1, edges, inv_var (C classes, uniform), inv_var_class (the class
distribution of the full dataset's pairable annotations) — over the items with ≥ 2 annotations,
all schemes on the same rounds (paired). Var_s(N) is the variance over rounds at N annotations
used (log-spaced, 10 to all; see ``spa_fig6.py`` for the engine).

Fig. 7: Var_s(N) − Var_flat(N) (top) and Var_s(N)/Var_flat(N) − 1 (bottom).
Table 1: the area under each curve, ∫ Var_s dN and ∫ (Var_s − Var_flat) dN (trapezoid over the
grid of N), with a standard error of the latter from ``--batches`` batches of rounds, and the
area relative to flat's. The scheme with the lowest area is printed per dataset beside the
paper's conclusion (annotations_m1 works well on all four datasets).

inv_var is exactly edges (its weight is n(n − 1) times a factor of C: see ``spa_fig4.py``), so
their rows agree to rounding.

A reference row, ``model_optimal`` (an oracle, not one of the paper's schemes and not ranked),
weighs an item with n annotations by 1/Var[P̂_n] of the simulation model, between-item spread of
agreement included (``spa_engine.item_agreement_spread``): how much any weighting by n could
gain on these stand-ins. inv_var and inv_var_class model the pair noise only, as if every item
had the same agreement; the between-item spread adds a constant to every item's variance,
which flattens the optimal weights towards annotations / annotations_m1.

Outputs in ``--out``: ``spa_fig7.csv`` (the curves), ``spa_table1.csv``, ``spa_table1.md`` and
``spa_fig7.png``.
Run: ``python -m paper_repro.spa_fig7_table1 [--quick] [--rounds R] [--jobs J] [--out DIR]``.
"""

from __future__ import annotations

import functools
import sys
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from paper_repro.spa_engine import (PAPER, SCHEMES, SHORT_NOTE, STAND_IN_NOTE, Timer,
                                    batch_variances, dataset_names, markdown_table,
                                    model_optimal_table, parse_args, random_addition,
                                    run_per_dataset, simulate_dataset, subsampling_rng,
                                    trapezoid, usage_grid, weight_table)

DEFAULT_ROUNDS = 500
QUICK_ROUNDS = 20
PAPER_CONCLUSION = ("the weighting schemes in general have relatively little effect on the "
                    "variance; annotations_m1 works well for all four datasets")
#: N where every round has used every annotation: the variance is 0 for all schemes
ZERO = 1e-20
#: the oracle reference row (not ranked)
ORACLE = "model_optimal"
ALL = (*SCHEMES, ORACLE)


def run_dataset(name: str, *, quick: bool, seed: int, rounds: int, points: int,
                batches: int) -> dict:
    timer = Timer()
    ds = simulate_dataset(name, quick=quick, seed=seed)
    targets = usage_grid(ds, points)
    p = ds.class_distribution()
    tables = {s: weight_table(s, ds.max_m, ds.n_classes, p) for s in SCHEMES}
    tables[ORACLE] = model_optimal_table(ds.truth, ds.max_m)
    out = random_addition(ds, targets, tables, rounds, subsampling_rng(name, seed))
    m = ds.m[ds.m > 0]
    return {"targets": targets,
            "variance": {s: out[s].var(axis=0, ddof=1) for s in ALL},
            "mean": {s: out[s].mean(axis=0) for s in ALL},
            "batch_variance": {s: batch_variances(out[s], batches) for s in ALL},
            "oracle_weights": tables[ORACLE],
            "describe": ds.describe(), "true_p": ds.truth.p_o,
            "class_distribution": p,
            "shape": (f"{ds.n_items} items, {ds.n_classes} classes, {ds.n_annotations} "
                      f"annotations, {m.min()}–{m.max()} per item"),
            "seconds": str(timer)}


def batch_areas(r: dict) -> dict[str, np.ndarray]:
    """∫ Var_s dN within each batch of rounds, per scheme: (B,)."""
    return {s: trapezoid(r["batch_variance"][s], r["targets"]) for s in ALL}


def table_rows(name: str, r: dict, rounds: int) -> list[dict]:
    x = r["targets"]
    flat = r["variance"]["flat"]
    area_flat = float(trapezoid(flat, x))
    batches = batch_areas(r)
    defined = flat > ZERO
    rows = []
    for s in ALL:
        v = r["variance"][s]
        diff_batches = batches[s] - batches["flat"]
        rows.append({
            "dataset": name, "scheme": s, "oracle": s == ORACLE,
            "area_variance": float(trapezoid(v, x)),
            "area_minus_flat": float(trapezoid(v - flat, x)),
            "area_minus_flat_se": float(diff_batches.std(ddof=1) / np.sqrt(diff_batches.size)),
            "relative_area_pct": 100 * float(trapezoid(v - flat, x)) / area_flat,
            "mean_relative_variance_pct": 100 * float(np.mean(v[defined] / flat[defined] - 1)),
            "rounds": rounds})
    order = sorted((row for row in rows if not row["oracle"]),
                   key=lambda row: row["area_variance"])
    for rank, row in enumerate(order, 1):
        row["rank"] = rank
    rows[-1]["rank"] = np.nan  # the oracle is not ranked
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse_args(
        "SPA Fig. 7 and Table 1: variance of SPA per weighting scheme (simulated stand-ins)",
        argv,
        [("--rounds", {"type": int, "default": None,
                       "help": f"subsampling rounds (default {DEFAULT_ROUNDS}, --quick "
                               f"{QUICK_ROUNDS}; the paper used 3000)"}),
         ("--points", {"type": int, "default": 40, "help": "points on the x-axis"}),
         ("--batches", {"type": int, "default": 10,
                        "help": "batches of rounds for the standard errors"}),
         ("--jobs", {"type": int, "default": 2, "help": "processes (one dataset each)"})])
    if args.rounds is None:
        args.rounds = QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS
    if args.quick:
        args.points = min(args.points, 15)
        args.batches = min(args.batches, 4)
    timer = Timer()
    task = functools.partial(run_dataset, quick=args.quick, seed=args.seed, rounds=args.rounds,
                             points=args.points, batches=args.batches)
    results = run_per_dataset(task, dataset_names(), args.jobs)
    names = dataset_names()

    curves = pd.DataFrame([
        {"dataset": name, "scheme": s, "annotations_used": int(x),
         "variance": float(v), "variance_minus_flat": float(v - f),
         "relative_to_flat": float(v / f - 1) if f > ZERO else np.nan,
         "mean_spa": float(mu), "rounds": args.rounds}
        for name in names for s in ALL
        for x, v, f, mu in zip(results[name]["targets"], results[name]["variance"][s],
                               results[name]["variance"]["flat"], results[name]["mean"][s])])
    table = pd.DataFrame([row for name in names
                          for row in table_rows(name, results[name], args.rounds)])
    table.insert(0, "data", "simulated stand-in")
    png = args.out / "spa_fig7.png"
    curves_csv, table_csv, table_md = (args.out / "spa_fig7.csv", args.out / "spa_table1.csv",
                                       args.out / "spa_table1.md")
    curves.to_csv(curves_csv, index=False)
    table.to_csv(table_csv, index=False)

    # ---------------------------------------------------------------- figure
    fig, axes = plt.subplots(2, len(names), figsize=(4.6 * len(names), 8.2))
    colours = dict(zip(SCHEMES, plt.cm.tab10(np.arange(len(SCHEMES)))))
    colours[ORACLE] = "black"
    styles = {"inv_var": (0, (4, 3)), "edges": "-", ORACLE: ":"}
    for k, name in enumerate(names):
        sub = curves[curves.dataset == name]
        top, low = axes[0, k], axes[1, k]
        for s in ALL:
            g = sub[sub.scheme == s]
            kw = {"color": colours[s], "ls": styles.get(s, "-"), "lw": 1.4,
                  "label": s if s != ORACLE else f"{s} (oracle)"}
            top.plot(g.annotations_used, g.variance_minus_flat, **kw)
            low.plot(g.annotations_used, 100 * g.relative_to_flat, **kw)
        for ax in (top, low):
            ax.set_xscale("log")
            ax.axhline(0, color="grey", lw=0.6)
            ax.set_xlabel("annotations used (items with ≥ 2)")
        top.set_title(f"{name} — simulated stand-in\n{results[name]['shape']}", fontsize=8)
        top.set_ylabel("Var[SPA] − Var[SPA, flat]")
        low.set_ylabel("Var[SPA] / Var[SPA, flat] − 1  (%)")
        if k == 0:
            top.legend(fontsize=7)
    fig.suptitle(f"Fig. 7: variance of SPA per weighting scheme minus the flat baseline, "
                 f"{args.rounds} rounds of random addition — {SHORT_NOTE}", fontsize=10)
    fig.text(0.01, 0.005, "\n".join(textwrap.wrap(STAND_IN_NOTE, 200)), fontsize=7,
             va="bottom")
    fig.tight_layout(rect=(0, 0.03, 1, 0.96))
    fig.savefig(png, dpi=120)
    plt.close(fig)

    # ---------------------------------------------------------------- table 1
    def cell(row):
        return f"{row.area_minus_flat:.3e} ± {row.area_minus_flat_se:.1e}"

    labels = [*SCHEMES, f"{ORACLE} (oracle)"]
    wide = pd.DataFrame({"scheme": labels})
    relative = pd.DataFrame({"scheme": labels})
    absolute = pd.DataFrame({"scheme": labels})
    for name in names:
        t = table[table.dataset == name].set_index("scheme").loc[list(ALL)]
        wide[name] = [cell(row) for row in t.itertuples()]
        relative[name] = [f"{v:+.2f} %" for v in t.relative_area_pct]
        absolute[name] = [f"{v:.4e}" for v in t.area_variance]
    verdicts = []
    for name in names:
        oracle = table[(table.dataset == name) & table.oracle].iloc[0]
        t = table[(table.dataset == name) & ~table.oracle].sort_values("area_variance")
        best = t.iloc[0]
        m1 = t[t.scheme == "annotations_m1"].iloc[0]
        areas = batch_areas(results[name])
        gap = m1.area_variance - best.area_variance
        gap_batches = areas["annotations_m1"] - areas[best.scheme]
        gap_se = float(gap_batches.std(ddof=1) / np.sqrt(gap_batches.size))
        within = best.scheme == "annotations_m1" or gap <= 2 * gap_se
        verdicts.append(
            f"{name}: lowest variance {best.scheme} (area {best.area_variance:.4e}, "
            f"{best.relative_area_pct:+.2f} % vs flat); ranking "
            + " < ".join(t.scheme) + f"; annotations_m1 {m1.relative_area_pct:+.2f} % vs flat, "
            + ("the lowest" if best.scheme == "annotations_m1" else
               f"{gap / gap_se:.1f} SE above the lowest "
               f"({'within' if within else 'not within'} 2 SE)")
            + f"; model-optimal oracle {oracle.relative_area_pct:+.2f} %")
    setup = "\n".join(f"- {results[name]['describe']}" for name in names)
    shapes = "\n".join(
        f"- {name}: k(n)/k(2) for n = 2..{len(k) - 1}: "
        + ", ".join(f"{v:.2f}" for v in k[2:] / k[2])
        for name in names for k in [results[name]["oracle_weights"]])
    shapes += ("\n\n(annotations: n/2 = 1, 1.5, 2, …; annotations_m1: n − 1 = 1, 2, 3, …; "
               "edges: n(n−1)/2 = 1, 3, 6, …)")
    sections = [
        f"> {STAND_IN_NOTE}",
        f"Paper: {PAPER}. {args.rounds} rounds of random addition per dataset (the paper used "
        "3000); all schemes on the same rounds. Area = trapezoid ∫ dN over N annotations used "
        f"(items with ≥ 2), {args.points} log-spaced points from 10 to all; ± one standard "
        f"error from {args.batches} batches of rounds. inv_var_class uses the class "
        "distribution of the full dataset's pairable annotations; inv_var ≡ edges exactly.",
        "## Table 1 (analogue, simulated stand-ins): ∫ (Var[SPA] − Var[SPA, flat]) dN",
        markdown_table(wide),
        "## Area relative to flat: ∫ (Var − Var_flat) dN / ∫ Var_flat dN",
        markdown_table(relative),
        "## ∫ Var[SPA] dN",
        markdown_table(absolute),
        "## Lowest variance per dataset (simulated stand-ins)",
        "\n".join(f"- {v}" for v in verdicts),
        f"Paper's conclusion: {PAPER_CONCLUSION}.",
        "## Stand-in datasets",
        setup,
        "## Model-optimal (oracle) weights 1/Var[P̂_n], relative to n = 2",
        shapes,
    ]
    table_md.write_text("# SPA Table 1 and Fig. 7 — simulated stand-ins\n\n"
                        + "\n\n".join(s.rstrip() for s in sections) + "\n")

    print(f"SPA Fig. 7 / Table 1 — {PAPER}")
    print(STAND_IN_NOTE)
    for name in names:
        print(f"  {results[name]['describe']} [{results[name]['seconds']}]")
    print("\nTable 1 analogue (SIMULATED STAND-INS): ∫ (Var − Var_flat) dN ± SE")
    print(markdown_table(wide))
    print("\nrelative to flat:")
    print(markdown_table(relative))
    print("\nLowest variance per dataset (simulated stand-ins) beside the paper:")
    for v in verdicts:
        print(f"  {v}")
    print(f"  paper: {PAPER_CONCLUSION}")
    print(f"\n{args.rounds} rounds; wrote {png}, {curves_csv}, {table_csv}, {table_md} "
          f"in {timer}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
