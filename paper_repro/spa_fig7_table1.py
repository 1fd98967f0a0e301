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

Fig. 7 (``spa_fig7.png``): Var_s(N) − Var_flat(N), one panel per dataset (2 columns); the
same relative to flat, Var_s(N)/Var_flat(N) − 1, in ``spa_fig7_relative.png``. Every scheme has
its own colour, line style and marker (markers staggered); inv_var is drawn as a thin dashed
line over edges' thick pale one (they coincide exactly), flat and the oracle underneath.
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

Outputs in ``--out``: ``spa_fig7.csv`` (the curves), ``spa_table1.csv``, ``spa_table1.md``,
``spa_fig7.png`` and ``spa_fig7_relative.png``.
Run: ``python -m paper_repro.spa_fig7_table1 [--quick] [--rounds R] [--jobs J] [--out DIR]``
(3 000 rounds by default, as the paper).

Another dataset (e.g. the real MBIC) goes through the same functions::

    ann = kl.Annotations.from_long(...)                    # any nominal Annotations
    results = {"MBIC": analyse_annotations(ann, "MBIC")}   # 3 000 rounds, no oracle row
    write_outputs(results, out, stem="spa_mbic", data="real data",
                  note="Real MBIC annotations.", title_note="MBIC (real data)")

:func:`analyse` does the same for a :class:`spa_engine.Dataset`; :func:`curves_frame`,
:func:`table_frame`, :func:`plot_fig7` and :func:`table1_markdown` are the pieces of
:func:`write_outputs`.
"""

from __future__ import annotations

import functools
import sys
import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import kappalab as kl
from paper_repro.spa_engine import (PAPER, SCHEMES, SHORT_NOTE, STAND_IN_NOTE, Dataset, Timer,
                                    batch_variances, dataset_names, markdown_table,
                                    model_optimal_table, parse_args, random_addition,
                                    run_per_dataset, simulate_dataset, subsampling_rng,
                                    trapezoid, usage_grid, weight_table)
from paper_repro.status import status_markdown, status_text

DEFAULT_ROUNDS = 3000
QUICK_ROUNDS = 20
DEFAULT_POINTS = 40
DEFAULT_BATCHES = 10
DEFAULT_SEED = 20220812
PAPER_CONCLUSION = ("the weighting schemes in general have relatively little effect on the "
                    "variance; annotations_m1 works well for all four datasets")
#: N where every round has used every annotation: the variance is 0 for all schemes
ZERO = 1e-20
#: the oracle reference row (not ranked; simulated data only)
ORACLE = "model_optimal"
ALL = (*SCHEMES, ORACLE)

#: how each scheme is drawn: colour, line style, width, marker, z-order (higher = on top).
#: edges and inv_var coincide exactly: edges thick and pale underneath, inv_var thin dashed on
#: top; flat (the zero line of Fig. 7) and the oracle below the schemes.
STYLE: dict[str, dict] = {
    "flat": {"color": "0.45", "ls": "-", "lw": 1.6, "marker": None, "zorder": 1},
    "annotations": {"color": "tab:orange", "ls": "-", "lw": 1.8, "marker": "o", "zorder": 4},
    "annotations_m1": {"color": "tab:green", "ls": (0, (6, 2)), "lw": 2.0, "marker": "s",
                       "zorder": 5},
    "edges": {"color": "tab:red", "ls": "-", "lw": 4.5, "marker": "D", "zorder": 2,
              "alpha": 0.45},
    "inv_var": {"color": "tab:blue", "ls": (0, (3, 2)), "lw": 1.5, "marker": "x", "zorder": 6},
    "inv_var_class": {"color": "tab:purple", "ls": "-.", "lw": 1.8, "marker": "^",
                      "zorder": 3},
    ORACLE: {"color": "black", "ls": ":", "lw": 2.0, "marker": None, "zorder": 1.5},
}
LABELS = {"inv_var": "inv_var (≡ edges: dashed over it)",
          ORACLE: f"{ORACLE} (oracle, not a scheme)"}


# ============================================================================== analysis
def analyse(ds: Dataset, *, rounds: int = DEFAULT_ROUNDS, points: int = DEFAULT_POINTS,
            batches: int = DEFAULT_BATCHES, rng: np.random.Generator | None = None) -> dict:
    """Every scheme's SPA over ``rounds`` rounds of random addition on ``ds`` (all schemes on
    the same rounds), summarised per N: the result that the table and figure functions take.
    The oracle row is added only when ``ds`` has a simulation truth."""
    timer = Timer()
    rng = subsampling_rng(ds.name, DEFAULT_SEED) if rng is None else rng
    targets = usage_grid(ds, points)
    p = ds.class_distribution()
    tables = {s: weight_table(s, ds.max_m, ds.n_classes, p) for s in SCHEMES}
    if ds.truth is not None:
        tables[ORACLE] = model_optimal_table(ds.truth, ds.max_m)
    schemes = list(tables)
    out = random_addition(ds, targets, tables, rounds, rng)
    return {"label": ds.name, "rounds": rounds, "batches": batches, "schemes": schemes,
            "targets": targets,
            "variance": {s: out[s].var(axis=0, ddof=1) for s in schemes},
            "mean": {s: out[s].mean(axis=0) for s in schemes},
            "batch_variance": {s: batch_variances(out[s], batches) for s in schemes},
            "oracle_weights": tables.get(ORACLE),
            "describe": ds.describe(),
            "true_p": None if ds.truth is None else ds.truth.p_o,
            "class_distribution": p, "shape": ds.shape(), "seconds": str(timer)}


def analyse_annotations(ann: kl.Annotations, label: str, *, rounds: int = DEFAULT_ROUNDS,
                        points: int = DEFAULT_POINTS, batches: int = DEFAULT_BATCHES,
                        seed: int = DEFAULT_SEED) -> dict:
    """:func:`analyse` of any nominal :class:`kappalab.Annotations` (raters ignored), named
    ``label`` in the outputs; the subsampling stream is drawn from ``seed`` and ``label``."""
    ds = Dataset.from_annotations(ann, label)
    return analyse(ds, rounds=rounds, points=points, batches=batches,
                   rng=subsampling_rng(label, seed))


def run_dataset(name: str, *, quick: bool, seed: int, rounds: int, points: int,
                batches: int) -> dict:
    """Simulate the stand-in ``name`` and :func:`analyse` it."""
    ds = simulate_dataset(name, quick=quick, seed=seed)
    return analyse(ds, rounds=rounds, points=points, batches=batches,
                   rng=subsampling_rng(name, seed))


def batch_areas(r: dict) -> dict[str, np.ndarray]:
    """∫ Var_s dN within each batch of rounds, per scheme: (B,)."""
    return {s: trapezoid(r["batch_variance"][s], r["targets"]) for s in r["schemes"]}


def table_rows(name: str, r: dict) -> list[dict]:
    """Table 1 rows of one dataset: per scheme, the areas, their SE and the rank."""
    x = r["targets"]
    flat = r["variance"]["flat"]
    area_flat = float(trapezoid(flat, x))
    batches = batch_areas(r)
    defined = flat > ZERO
    rows = []
    for s in r["schemes"]:
        v = r["variance"][s]
        diff_batches = batches[s] - batches["flat"]
        rows.append({
            "dataset": name, "scheme": s, "oracle": s == ORACLE,
            "area_variance": float(trapezoid(v, x)),
            "area_minus_flat": float(trapezoid(v - flat, x)),
            "area_minus_flat_se": float(diff_batches.std(ddof=1) / np.sqrt(diff_batches.size)),
            "relative_area_pct": 100 * float(trapezoid(v - flat, x)) / area_flat,
            "mean_relative_variance_pct": 100 * float(np.mean(v[defined] / flat[defined] - 1)),
            "rounds": r["rounds"], "rank": np.nan})
    order = sorted((row for row in rows if not row["oracle"]),
                   key=lambda row: row["area_variance"])
    for rank, row in enumerate(order, 1):
        row["rank"] = rank
    return rows


def curves_frame(results: dict[str, dict]) -> pd.DataFrame:
    """The Fig. 7 curves of every dataset in ``results`` ({label: :func:`analyse` result})."""
    return pd.DataFrame([
        {"dataset": name, "scheme": s, "annotations_used": int(x),
         "variance": float(v), "variance_minus_flat": float(v - f),
         "relative_to_flat": float(v / f - 1) if f > ZERO else np.nan,
         "mean_spa": float(mu), "rounds": r["rounds"]}
        for name, r in results.items() for s in r["schemes"]
        for x, v, f, mu in zip(r["targets"], r["variance"][s], r["variance"]["flat"],
                               r["mean"][s])])


def table_frame(results: dict[str, dict], data: str = "simulated stand-in") -> pd.DataFrame:
    """Table 1 (long: one row per dataset and scheme), ``data`` in its first column."""
    table = pd.DataFrame([row for name, r in results.items() for row in table_rows(name, r)])
    table.insert(0, "data", data)
    return table


# ============================================================================== figure
def plot_fig7(curves: pd.DataFrame, results: dict[str, dict], path: Path, *,
              quantity: str = "minus_flat", title: str | None = None,
              note: str = STAND_IN_NOTE) -> None:
    """One panel per dataset of ``results`` (2 columns; a single dataset gets one wide
    panel), the legend below the panels. ``quantity``: ``"minus_flat"`` (Var_s − Var_flat, the
    paper's Fig. 7) or ``"relative"`` (Var_s/Var_flat − 1, in %)."""
    column, ylabel = {
        "minus_flat": ("variance_minus_flat", "Var[SPA] − Var[SPA, flat]"),
        "relative": ("relative_to_flat", "Var[SPA] / Var[SPA, flat] − 1  (%)")}[quantity]
    names = list(results)
    ncols = min(2, len(names))
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(8.0 * ncols if ncols > 1 else 10.0,
                                                    5.4 * nrows + 1.6), squeeze=False)
    for ax, name in zip(axes.ravel(), names):
        sub = curves[curves.dataset == name]
        r = results[name]
        n_points = len(r["targets"])
        every = max(2, n_points // 8)
        for k, s in enumerate(r["schemes"]):
            g = sub[sub.scheme == s].sort_values("annotations_used")
            y = g[column] * (100 if quantity == "relative" else 1)
            style = dict(STYLE[s])
            marker = style.pop("marker")
            ax.plot(g.annotations_used, y, label=LABELS.get(s, s), marker=marker,
                    markevery=(k % every, every) if marker else None, ms=6,
                    mfc="none" if marker in ("o", "s", "D", "^") else None, **style)
        ax.set_xscale("log")
        ax.axhline(0, color="0.75", lw=0.8, zorder=0)
        ax.grid(True, which="major", color="0.9", lw=0.6, zorder=0)
        ax.set_xlabel("annotations used N (items with ≥ 2 annotations)")
        ax.set_ylabel(ylabel)
        if quantity == "minus_flat":
            ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
        ax.set_title(f"{name}\n{r['shape']}", fontsize=10)
    for ax in axes.ravel()[len(names):]:
        ax.set_visible(False)
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=9, frameon=False,
               handlelength=4.2, bbox_to_anchor=(0.5, 0.035))
    rounds = next(iter(results.values()))["rounds"]
    if title is None:
        what = ("minus the flat baseline" if quantity == "minus_flat"
                else "relative to the flat baseline")
        title = (f"Fig. 7: variance of SPA per weighting scheme {what}, {rounds} rounds of "
                 f"random addition — {SHORT_NOTE}")
    fig.suptitle(title, fontsize=11)
    fig.text(0.01, 0.005, "\n".join(textwrap.wrap(note, 200)), fontsize=7, va="bottom")
    height = 5.4 * nrows + 1.6
    fig.subplots_adjust(left=0.08, right=0.98, top=1 - 1.0 / height, bottom=1.45 / height,
                        hspace=0.38, wspace=0.2)
    fig.savefig(path, dpi=120)
    plt.close(fig)


# ============================================================================== table 1
def verdicts(table: pd.DataFrame, results: dict[str, dict]) -> list[str]:
    """Per dataset: the lowest-variance scheme, the ranking, where annotations_m1 stands."""
    lines = []
    for name in results:
        t = table[(table.dataset == name) & ~table.oracle].sort_values("area_variance")
        best = t.iloc[0]
        m1 = t[t.scheme == "annotations_m1"].iloc[0]
        areas = batch_areas(results[name])
        gap = m1.area_variance - best.area_variance
        gap_batches = areas["annotations_m1"] - areas[best.scheme]
        gap_se = float(gap_batches.std(ddof=1) / np.sqrt(gap_batches.size))
        within = best.scheme == "annotations_m1" or gap <= 2 * gap_se
        line = (f"{name}: lowest variance {best.scheme} (area {best.area_variance:.4e}, "
                f"{best.relative_area_pct:+.2f} % vs flat); ranking "
                + " < ".join(t.scheme) + f"; annotations_m1 {m1.relative_area_pct:+.2f} % vs "
                "flat, " + ("the lowest" if best.scheme == "annotations_m1" else
                            f"{gap / gap_se:.1f} SE above the lowest "
                            f"({'within' if within else 'not within'} 2 SE)"))
        oracle = table[(table.dataset == name) & table.oracle]
        if len(oracle):
            line += f"; model-optimal oracle {oracle.iloc[0].relative_area_pct:+.2f} %"
        lines.append(line)
    return lines


def table1_markdown(table: pd.DataFrame, results: dict[str, dict], *,
                    note: str = STAND_IN_NOTE, data: str = "simulated stand-ins") -> str:
    """The markdown of Table 1 (area minus flat ± SE, relative area, ∫ Var dN), the
    lowest-variance scheme per dataset beside the paper's conclusion, and the datasets."""
    names = list(results)
    first = next(iter(results.values()))
    schemes = [s for s in ALL if any(s in r["schemes"] for r in results.values())]
    labels = [f"{s} (oracle)" if s == ORACLE else s for s in schemes]
    wide = pd.DataFrame({"scheme": labels})
    relative = pd.DataFrame({"scheme": labels})
    absolute = pd.DataFrame({"scheme": labels})
    for name in names:
        t = table[table.dataset == name].set_index("scheme").reindex(schemes)
        wide[name] = [f"{row.area_minus_flat:.3e} ± {row.area_minus_flat_se:.1e}"
                      if row.area_variance == row.area_variance else "" for row in t.itertuples()]
        relative[name] = [f"{v:+.2f} %" if v == v else "" for v in t.relative_area_pct]
        absolute[name] = [f"{v:.4e}" if v == v else "" for v in t.area_variance]
    setup = "\n".join(f"- {results[name]['describe']}" for name in names)
    shapes = "\n".join(
        f"- {name}: k(n)/k(2) for n = 2..{len(k) - 1}: "
        + ", ".join(f"{v:.2f}" for v in k[2:] / k[2])
        for name in names for k in [results[name]["oracle_weights"]] if k is not None)
    sections = [
        f"> {note}",
        f"Paper: {PAPER}. {first['rounds']} rounds of random addition per dataset (the paper "
        "used 3000); all schemes on the same rounds. Area = trapezoid ∫ dN over N annotations "
        f"used (items with ≥ 2), {len(first['targets'])} log-spaced points from 10 to all; ± "
        f"one standard error from {first['batches']} batches of rounds. inv_var_class uses "
        "the class distribution of the full dataset's pairable annotations; inv_var ≡ edges "
        "exactly.",
        f"## Table 1 (analogue, {data}): ∫ (Var[SPA] − Var[SPA, flat]) dN",
        markdown_table(wide),
        "## Area relative to flat: ∫ (Var − Var_flat) dN / ∫ Var_flat dN",
        markdown_table(relative),
        "## ∫ Var[SPA] dN",
        markdown_table(absolute),
        f"## Lowest variance per dataset ({data})",
        "\n".join(f"- {v}" for v in verdicts(table, results)),
        f"Paper's conclusion: {PAPER_CONCLUSION}.",
        "## Datasets",
        setup,
    ]
    if shapes:
        sections += ["## Model-optimal (oracle) weights 1/Var[P̂_n], relative to n = 2",
                     shapes + "\n\n(annotations: n/2 = 1, 1.5, 2, …; annotations_m1: n − 1 = "
                     "1, 2, 3, …; edges: n(n−1)/2 = 1, 3, 6, …)"]
    return "\n\n".join(s.rstrip() for s in sections) + "\n"


def write_outputs(results: dict[str, dict], out: Path, *, stem: str = "spa",
                  data: str = "simulated stand-in", note: str = STAND_IN_NOTE,
                  title_note: str = SHORT_NOTE, appendix: str = "") -> dict[str, Path]:
    """Fig. 7 and Table 1 of ``results`` ({label: :func:`analyse` result}) into ``out``:
    ``{stem}_fig7.png``, ``{stem}_fig7_relative.png``, ``{stem}_fig7.csv``,
    ``{stem}_table1.csv`` and ``{stem}_table1.md`` (``appendix`` at its end). Returns the
    paths by kind."""
    out = Path(out)
    rounds = next(iter(results.values()))["rounds"]
    curves = curves_frame(results)
    table = table_frame(results, data)
    paths = {"png": out / f"{stem}_fig7.png", "png_relative": out / f"{stem}_fig7_relative.png",
             "curves": out / f"{stem}_fig7.csv", "table": out / f"{stem}_table1.csv",
             "markdown": out / f"{stem}_table1.md"}
    curves.to_csv(paths["curves"], index=False)
    table.to_csv(paths["table"], index=False)
    for quantity, key in (("minus_flat", "png"), ("relative", "png_relative")):
        what = ("minus the flat baseline" if quantity == "minus_flat"
                else "relative to the flat baseline")
        plot_fig7(curves, results, paths[key], quantity=quantity, note=note,
                  title=f"Fig. 7: variance of SPA per weighting scheme {what}, {rounds} rounds "
                        f"of random addition — {title_note}")
    paths["markdown"].write_text(f"# SPA Table 1 and Fig. 7 ({data})\n\n"
                                 + table1_markdown(table, results, note=note, data=data)
                                 + (f"\n{appendix}" if appendix else ""))
    return paths


# ============================================================================== script
def main(argv: list[str] | None = None) -> int:
    args = parse_args(
        "SPA Fig. 7 and Table 1: variance of SPA per weighting scheme (simulated stand-ins)",
        argv,
        [("--rounds", {"type": int, "default": None,
                       "help": f"subsampling rounds (default {DEFAULT_ROUNDS}, as the paper; "
                               f"--quick {QUICK_ROUNDS})"}),
         ("--points", {"type": int, "default": DEFAULT_POINTS, "help": "points on the x-axis"}),
         ("--batches", {"type": int, "default": DEFAULT_BATCHES,
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
    results = {name: results[name] for name in dataset_names()}
    paths = write_outputs(results, args.out, appendix=status_markdown("spa_fig7_table1"))
    table = pd.read_csv(paths["table"])
    table["oracle"] = table["oracle"].astype(bool)

    print(f"SPA Fig. 7 / Table 1 — {PAPER}")
    print(STAND_IN_NOTE)
    for name in results:
        print(f"  {results[name]['describe']} [{results[name]['seconds']}]")
    print("\nTable 1 analogue (SIMULATED STAND-INS): relative area "
          "∫ (Var − Var_flat) dN / ∫ Var_flat dN")
    wide = table.pivot(index="scheme", columns="dataset", values="relative_area_pct")
    wide = wide.reindex(list(ALL))[list(results)]
    print(markdown_table(wide.reset_index().rename(columns={"scheme": "scheme"}), digits=3))
    print("\nLowest variance per dataset (simulated stand-ins) beside the paper:")
    for v in verdicts(table, results):
        print(f"  {v}")
    print(f"  paper: {PAPER_CONCLUSION}")
    print("\n" + status_text("spa_fig7_table1"))
    print(f"\n{args.rounds} rounds; wrote " + ", ".join(str(p) for p in paths.values())
          + f" in {timer}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
