r"""Figs 6–7 and Table 1 of Nørregaard & Derczynski (2022), Sparse Probability of Agreement, on
the REAL MBIC bias labels: the variance of SPA over random subsampling against the number of
annotations used (constant j annotations per item, and single annotations added at random), and
each weighting scheme's variance against flat's, with the area under the curve.

The data are real: MBIC (Spinde et al. 2021), 1 700 news sentences labelled Biased or
Non-biased by Mechanical Turk workers, 9–12 labels per sentence, read with
``kappalab.datasets.fetch("mbic", label="bias", duplicates=...)`` from ``KAPPALAB_DATA`` (or
kappalab's cache); without the file the script stops with a message naming the folder.

**Which labels.** SPA pairs annotations within an item and never looks at who gave them, and
the paper describes the sentences as "labelled ... by 9–12 annotators each", which holds
either way. One worker submitted the survey twice and so labelled 20 sentences twice (6 of the
20 second labels differ from the first). By default every label row of the published file is
kept (``--duplicates separate``, 17 775 labels, the second submission as a rater of its own):
an annotation-level analysis that ignores rater identity, as the paper's does, reads the file's
rows as they are. ``--duplicates first`` keeps the earlier submission (17 755 labels). The
choice moves the full-data flat SPA by 0.0001; the summary says which was used.

**Fig. 6** (``spa_fig6.analyse``; ``--rounds`` rounds, 3 000 by default as the paper): per
round, (a) constant j annotations per item for j = 2, 3, … while ≥ ``--min-items`` items have j
(every sentence has ≥ 9, so j ≤ 9 uses all 1 700 sentences and j = 10, 11, 12 only the
sentences that received that many): the items in a random order, each with a uniformly random j
of its labels, SPA over the first N/j; (b) sparse: all labels added one at a time in a random
order, SPA (flat) over the items with ≥ 2 at the first prefix whose labels on such items reach
N. The variance over rounds at each N is set beside its exact value for these data,
Var = (W_j + B_j·(E − n)/(E − 1))/n (``spa_engine.subset_agreement_components``: W_j the mean
noise of a random j-subset of an item's labels, B_j the spread of the items' full-data
agreement, E the eligible items, n = N/j), so N·Var ≈ j·W_j + j·B_j says whether more
annotations per item lower the variance at a fixed N (they do while B_j < j·W_j −
(j + 1)·W_{j+1}).

**Fig. 7 / Table 1** (``spa_fig7_table1.analyse``): all labels added in a random order, SPA
under every scheme on the same rounds; Var_s(N) − Var_flat(N) and the area under it (trapezoid
over N, 10 to all labels, log-spaced), ± a standard error from ``--batches`` batches of rounds.
The verdict on annotations_m1 (the paper: it "works well for all four datasets") is its area
against flat's and against the lowest scheme's, each difference with its batch standard error,
and in how many batches it is the lowest.

**The stand-in beside it.** The simulated MBIC stand-in of ``spa_fig6.py`` and
``spa_fig7_table1.py`` (same seed, same subsampling stream: the same numbers as those scripts
at the same ``--rounds`` and ``--points``) is run through the same functions, so the real data
and the stand-in are compared on equal terms: Fig. 6 has a panel for each, and the summary
tabulates both.

Outputs in ``--out`` (default ``results/paper_repro``): ``spa_mbic_fig6.png``,
``spa_mbic_fig6.csv`` (the curves of both panels: dataset, curve, j, annotations used, items,
variance, mean SPA, exact data variance), ``spa_mbic_fig6_scaled.png`` (N·Var against N per
curve: the constant-j curves overlap in Fig. 6, scaled by N their order in j shows),
``spa_mbic_fig6_components.png`` and
``spa_mbic_fig6_components.csv`` (per j: W_j, B_j, predicted and measured N·Var at one N),
``spa_mbic_fig7.png`` (Var − Var_flat), ``spa_mbic_fig7_relative.png``, ``spa_mbic_fig7.csv``,
``spa_mbic_table1.csv``, ``spa_mbic_table1.md`` (real data) and ``spa_mbic.md`` (the summary:
what the figures show, the verdict, the comparison with the stand-in, the runtime).

Run: ``python -m paper_repro.spa_mbic [--quick] [--out DIR] [--seed S] [--rounds R]
[--points P] [--batches B] [--min-items K] [--duplicates separate|first]``.
"""

from __future__ import annotations

import sys
import textwrap
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import kappalab as kl
from kappalab.datasets import data_folder, fetch
from kappalab.errors import InvalidParameterError

from paper_repro import spa_fig6, spa_fig7_table1 as fig7
from paper_repro.spa_engine import (PAPER, Dataset, markdown_table, parse_args,
                                    simulate_dataset, subsampling_rng)
from paper_repro.status import status_markdown, status_text

DEFAULT_ROUNDS = 3000
QUICK_ROUNDS = 20
#: the real data's and the stand-in's names in every output
REAL = "MBIC (real)"
STAND_IN = "MBIC stand-in (simulated)"
DUPLICATES = ("separate", "first")

REAL_NOTE = (
    "REAL DATA: the MBIC bias labels (Spinde et al. 2021; 1 700 sentences, Biased / Non-biased, "
    "9–12 Mechanical Turk labels each) read with kappalab.datasets.fetch('mbic', "
    "label='bias', duplicates='{duplicates}'); raters ignored, as in the SPA paper.")
COMPARE_NOTE = (
    " The panel '" + STAND_IN + "' is the simulated stand-in of spa_fig6.py (same seed and "
    "subsampling stream), shown for comparison: its prevalence, reliability and mix of easy and "
    "hard items are assumptions.")


# ============================================================================== data
def load(duplicates: str = "separate") -> tuple[kl.Annotations, list[str]]:
    """The MBIC bias labels and what reading them changed (``fetch``'s notes)."""
    dataset = fetch("mbic", label="bias", duplicates=duplicates)
    return dataset.annotations, list(dataset.notes)


def stand_in(seed: int) -> Dataset:
    """The full-size simulated MBIC of spa_fig6 / spa_fig7_table1 at ``seed``, renamed."""
    ds = simulate_dataset("MBIC", quick=False, seed=seed)
    ds.name = STAND_IN
    return ds


# ============================================================================== analysis
def run_fig6(datasets: dict[str, tuple[Dataset, np.random.Generator]], *, rounds: int,
             points: int, min_items: int) -> dict:
    """Fig. 6 of every dataset: the curves, the summaries and the W_j/B_j components."""
    results = {name: spa_fig6.analyse(ds, rounds=rounds, points=points, min_items=min_items,
                                      rng=rng) for name, (ds, rng) in datasets.items()}
    frame = pd.DataFrame([row for r in results.values() for row in r["rows"]])
    summaries = {name: spa_fig6.summarise(frame[frame.dataset == name],
                                          results[name]["pairable_annotations"])
                 for name in results}
    components = {name: spa_fig6.components_frame(name, results[name], summaries[name])
                  for name in results}
    return {"results": results, "frame": frame, "summaries": summaries,
            "components": components}


def variance_at(frame: pd.DataFrame, name: str, x: float) -> dict[str, float]:
    """Per curve of ``name`` (constant j, sparse), the measured variance at N = ``x``
    (log-log interpolation; NaN where the curve does not reach ``x``)."""
    sub = frame[frame.dataset == name]
    out = {}
    for curve, g in sub.groupby("curve", sort=False):
        out[curve] = float(spa_fig6.log_interp(np.array([x]), g.annotations_used.to_numpy(float),
                                               g.variance.to_numpy(float))[0])
    return out


def m1_verdict(result: dict, table: pd.DataFrame) -> dict:
    """annotations_m1 against flat and against every other scheme: the difference of the
    areas ∫ Var dN with its standard error over the batches of rounds (all schemes were run on
    the same rounds, so the differences are paired), its rank, in how many batches it is the
    lowest, and on how many of the grid's N (with variance > 0) its variance is below flat's."""
    areas = fig7.batch_areas(result)
    schemes = [s for s in result["schemes"] if s != fig7.ORACLE]
    t = table[~table.oracle.astype(bool)].set_index("scheme")
    rows = []
    for s in schemes:
        if s == "annotations_m1":
            continue
        diff = areas["annotations_m1"] - areas[s]
        se = float(diff.std(ddof=1) / np.sqrt(diff.size))
        value = float(t.area_variance["annotations_m1"] - t.area_variance[s])
        rows.append({"other": s, "m1_minus_other": value, "se": se,
                     "z": value / se if se > 0 else np.nan,
                     "relative_pct": 100 * value / float(t.area_variance[s])})
    stack = np.stack([areas[s] for s in schemes])
    lowest = np.array(schemes)[stack.argmin(axis=0)]
    v, f = result["variance"]["annotations_m1"], result["variance"]["flat"]
    defined = f > fig7.ZERO
    return {"rank": int(t["rank"]["annotations_m1"]), "n_schemes": len(schemes),
            "best": str(t.area_variance.idxmin()),
            "relative_area_pct": float(t.relative_area_pct["annotations_m1"]),
            "pairs": pd.DataFrame(rows),
            "batches_lowest": int((lowest == "annotations_m1").sum()),
            "batches_lowest_by_scheme": pd.Series(lowest).value_counts().to_dict(),
            "n_batches": int(stack.shape[1]),
            "points_below_flat": int((v[defined] < f[defined]).sum()),
            "points": int(defined.sum())}


def verdict_text(v: dict) -> str:
    """One paragraph: does annotations_m1 work well here?"""
    pairs = v["pairs"].set_index("other")
    flat = pairs.loc["flat"]
    best = v["best"]
    lines = [f"annotations_m1 ranks {v['rank']} of {v['n_schemes']} schemes by ∫ Var dN "
             f"(lowest: {best}); its area is {v['relative_area_pct']:+.2f} % of flat's "
             f"(difference {flat.m1_minus_other:.3e} ± {flat.se:.1e}, "
             f"{flat.z:+.1f} SE), and its variance is below flat's at "
             f"{v['points_below_flat']} of the {v['points']} points N where the variance is > 0."]
    if best != "annotations_m1":
        b = pairs.loc[best]
        lines.append(f"Against the lowest, {best}: annotations_m1 is {b.relative_pct:+.2f} % "
                     f"({b.m1_minus_other:.3e} ± {b.se:.1e}, {b.z:+.1f} SE).")
    lines.append(f"annotations_m1 is the lowest in {v['batches_lowest']} of {v['n_batches']} "
                 "batches of rounds (lowest per batch: " + ", ".join(
                     f"{s} {k}" for s, k in v["batches_lowest_by_scheme"].items()) + ").")
    below = flat.m1_minus_other + 2 * flat.se < 0
    above = flat.m1_minus_other - 2 * flat.se > 0
    if below:
        word = "lower variance than flat (beyond 2 SE)"
    elif above:
        word = "HIGHER variance than flat (beyond 2 SE)"
    else:
        word = "no variance difference from flat that the rounds can resolve (within 2 SE)"
    if best == "annotations_m1":
        rank = "and is the lowest of the schemes"
    else:
        b = pairs.loc[best]
        rank = (f"and is {'not distinguishable from' if abs(b.z) <= 2 else 'behind'} the "
                f"lowest, {best} ({b.z:+.1f} SE)")
    lines.append(f"Verdict: on the real MBIC annotations_m1 gives {word}, {rank}.")
    return " ".join(lines)


def comparison_frame(real: dict, standin: dict, table_real: pd.DataFrame,
                     table_standin: pd.DataFrame) -> pd.DataFrame:
    """Per scheme, the area relative to flat (± SE) and the rank, real beside the stand-in."""
    rows = []
    for s in real["schemes"]:
        row = {"scheme": s}
        for label, t in ((REAL, table_real), (STAND_IN, table_standin)):
            r = t.set_index("scheme").loc[s]
            area_flat = r.area_variance - r.area_minus_flat
            row[f"{label}: vs flat"] = (f"{r.relative_area_pct:+.2f} % ± "
                                        f"{100 * r.area_minus_flat_se / area_flat:.2f}")
            row[f"{label}: rank"] = int(r["rank"])
        rows.append(row)
    return pd.DataFrame(rows)


# ============================================================================== reporting
def plot_scaled(frame: pd.DataFrame, path, *, rounds: int, note: str) -> None:
    """N·Var[SPA] against N per curve, real beside the stand-in: the variance falls about like
    1/N, so multiplying by N separates the curves that overlap in Fig. 6 and shows their
    order in j at every N (the exact N·Var for the data dotted under the measured)."""
    names = [REAL, STAND_IN]
    fig, axes = plt.subplots(1, 2, figsize=(14.5, 6.2), sharey=True)
    for ax, name in zip(axes, names):
        sub = frame[frame.dataset == name]
        js = sorted(int(j) for j in sub.j.dropna().unique())
        colours = plt.cm.viridis(np.linspace(0, 0.9, max(len(js), 1)))
        styles = ["-", "--", "-.", (0, (1, 1))]
        for k, (j, colour) in enumerate(zip(js, colours)):
            g = sub[(sub.j == j) & (sub.variance > 1e-20)]
            ax.plot(g.annotations_used, g.annotations_used * g.variance, ls=styles[k % 4],
                    color=colour, lw=1.6, label=f"{j} per item")
            ax.plot(g.annotations_used, g.annotations_used * g.data_variance, ":",
                    color=colour, lw=0.9)
        g = sub[sub.curve.str.startswith("sparse") & (sub.variance > 1e-20)]
        ax.plot(g.annotations_used, g.annotations_used * g.variance, "k-", lw=2.6,
                label="sparse (random)", zorder=5)
        ax.set_xscale("log")
        ax.set_xlabel("annotations used N (items with ≥ 2 annotations)")
        ax.set_title(name, fontsize=10)
        ax.grid(True, color="0.9", lw=0.6)
    axes[0].set_ylabel("N × variance of SPA over rounds")
    axes[0].set_ylim(bottom=0)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=7, fontsize=8.5, frameon=False,
               bbox_to_anchor=(0.5, 0.06))
    fig.suptitle(f"Fig. 6 rescaled: N·Var[SPA] over {rounds} rounds (dotted: exact for the "
                 "data, (W_j + B_j·fpc)·N/n); lower is better at a given N; the curves fall to "
                 "0 where all eligible items are used", fontsize=10)
    fig.text(0.01, 0.005, "\n".join(textwrap.wrap(note, 220)), fontsize=7, va="bottom")
    fig.subplots_adjust(left=0.06, right=0.99, top=0.92, bottom=0.25, wspace=0.05)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def fig6_findings(fig6: dict, name: str) -> dict:
    """The ordering in j of N·Var (exact for the data and measured) and sparse vs constant 2."""
    comp = fig6["components"][name]
    best, move = spa_fig6.direction(comp)
    s = fig6["summaries"][name]
    return {"best": best, "move": move, "common_x": s["common_x"],
            "sparse_over_constant2": s.get("sparse_over_constant2", np.nan),
            "ratio_range": (float(comp.measured_over_predicted.min()),
                            float(comp.measured_over_predicted.max()))}


def fig6_table(fig6: dict, name: str) -> pd.DataFrame:
    c = fig6["components"][name]
    return c[["j", "eligible_items", "j_within", "j_between", "j_total", "predicted_N_var",
              "measured_N_var", "measured_over_predicted"]]


def summary_markdown(*, args, notes, ann: kl.Annotations, fig6: dict, real7: dict,
                     table_real: pd.DataFrame, standin7: dict, table_standin: pd.DataFrame,
                     verdict: dict, timings: dict, spa_full: dict) -> str:
    real_f6, stand_f6 = fig6_findings(fig6, REAL), fig6_findings(fig6, STAND_IN)
    frame = fig6["frame"]
    probe = [x for x in (200, 1000, 5000) if x <= fig6["results"][REAL]["pairable_annotations"]]
    probe_rows = []
    for x in probe:
        for name in (REAL, STAND_IN):
            v = variance_at(frame, name, x)
            probe_rows.append({"N": x, "dataset": name, **{
                k.replace("constant ", "j="): f"{v[k]:.3e}" if v[k] == v[k] else ""
                for k in v}})
    probes = pd.DataFrame(probe_rows)
    wide = table_real[~table_real.oracle.astype(bool)][
        ["scheme", "area_variance", "area_minus_flat", "area_minus_flat_se",
         "relative_area_pct", "mean_relative_variance_pct", "rank"]]
    pairs = verdict["pairs"].rename(columns={"other": "annotations_m1 vs"})
    lines = [
        "# SPA Figs 6–7 and Table 1 on the real MBIC bias labels",
        f"> {REAL_NOTE.format(duplicates=args.duplicates)}",
        f"Paper: {PAPER}. {args.rounds} subsampling rounds (the paper used 3000), seed "
        f"{args.seed}, {len(real7['targets'])} log-spaced N from 10 to all labels, "
        f"{args.batches} batches of rounds for the standard errors.",
        "## Data",
        f"{fig6['results'][REAL]['describe']}. Reading: " + "; ".join(notes) + ". "
        "Full-data SPA (kl.spa): " + ", ".join(f"{s} {v:.4f}" for s, v in spa_full.items())
        + ". Stand-in: " + fig6["results"][STAND_IN]["describe"] + ".",
        "## Fig. 6: variance against annotations used",
        f"**Real MBIC**: at a fixed N, N·Var {real_f6['move']} (lowest at j = "
        f"{real_f6['best']}); sparse / constant-2 variance (median over small N) "
        f"{real_f6['sparse_over_constant2']:.3f}. **Stand-in**: N·Var {stand_f6['move']} "
        f"(lowest at j = {stand_f6['best']}); sparse / constant-2 "
        f"{stand_f6['sparse_over_constant2']:.3f}. Every curve falls with N (more annotations, "
        "less variance; to 0 where all eligible items are used). j ≤ 9 use all 1 700 sentences; "
        "j = 10, 11, 12 only the sentences that received that many labels, so their B_j is that "
        "subset's spread.",
        f"Exact N·Var = j·W_j + j·B_j·fpc for the data against the measured, at N = "
        f"{real_f6['common_x']:.0f} (real; measured/predicted {real_f6['ratio_range'][0]:.3f}–"
        f"{real_f6['ratio_range'][1]:.3f}, 2 SE of a variance over {args.rounds} rounds ≈ "
        f"±{2 * np.sqrt(2 / max(args.rounds - 1, 1)):.1%}):",
        markdown_table(fig6_table(fig6, REAL)),
        f"Stand-in, at N = {stand_f6['common_x']:.0f} (measured/predicted "
        f"{stand_f6['ratio_range'][0]:.3f}–{stand_f6['ratio_range'][1]:.3f}):",
        markdown_table(fig6_table(fig6, STAND_IN)),
        "Measured variance at a few N (log-log interpolation; blank where a curve does not "
        "reach N; a curve bends down before its end, where all its eligible items are used):",
        markdown_table(probes, digits=3),
        "## Fig. 7 / Table 1 (real MBIC): each scheme against flat",
        markdown_table(wide, digits=4),
        "area_variance = ∫ Var dN, area_minus_flat = ∫ (Var − Var_flat) dN ± SE over batches, "
        "relative_area_pct = area_minus_flat / ∫ Var_flat dN, mean_relative_variance_pct = the "
        "mean over N of Var/Var_flat − 1. inv_var ≡ edges exactly.",
        "### Does annotations_m1 work well here?",
        verdict_text(verdict),
        markdown_table(pairs, digits=3),
        f"Paper's conclusion: {fig7.PAPER_CONCLUSION}.",
        "### Real MBIC beside the stand-in (area relative to flat ± SE, rank)",
        markdown_table(comparison_frame(real7, standin7, table_real, table_standin)),
        "The stand-in's model-optimal oracle row (not a scheme): "
        + "; ".join(f"{r.relative_area_pct:+.2f} %" for r in
                    table_standin[table_standin.oracle.astype(bool)].itertuples()) + ".",
        "## Runtime",
        "; ".join(f"{k} {v[0]:.1f} s wall / {v[1]:.1f} s CPU" for k, v in timings.items())
        + f" (OMP_NUM_THREADS={_omp()}; the machine may be shared, so wall time can exceed "
        "CPU time).",
    ]
    return "\n\n".join(s.rstrip() for s in lines) + "\n"


def _omp() -> str:
    import os

    return os.environ.get("OMP_NUM_THREADS", "unset")


class Clock:
    """Wall and CPU seconds since creation."""

    def __init__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def read(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


# ============================================================================== script
def parse(argv):
    args = parse_args(
        "SPA Figs 6–7 and Table 1 on the real MBIC bias labels", argv,
        [("--rounds", {"type": int, "default": None,
                       "help": f"subsampling rounds (default {DEFAULT_ROUNDS}, as the paper; "
                               f"--quick {QUICK_ROUNDS})"}),
         ("--points", {"type": int, "default": fig7.DEFAULT_POINTS,
                       "help": "points on the x-axis (--quick at most 15)"}),
         ("--batches", {"type": int, "default": fig7.DEFAULT_BATCHES,
                        "help": "batches of rounds for the standard errors (--quick 4)"}),
         ("--min-items", {"type": int, "default": None,
                          "help": "fewest items with j labels for a constant-j curve "
                                  "(default 100, --quick 10)"}),
         ("--duplicates", {"choices": DUPLICATES, "default": "separate",
                           "help": "the 20 repeated (sentence, worker) submissions: keep both "
                                   "(separate, default: every label of the file) or the first"})])
    if args.rounds is None:
        args.rounds = QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS
    if args.min_items is None:
        args.min_items = 10 if args.quick else 100
    if args.quick:
        args.points = min(args.points, 15)
        args.batches = min(args.batches, 4)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    total = Clock()
    timings = {}
    clock = Clock()
    try:
        ann, notes = load(args.duplicates)
    except InvalidParameterError as error:  # neither local nor downloadable
        print(f"the MBIC file could not be read from {data_folder()} (set KAPPALAB_DATA to a "
              f"folder holding mbic/raw_labels_MBIC.xlsx): {error}", file=sys.stderr)
        return 2
    timings["reading MBIC"] = clock.read()
    note = REAL_NOTE.format(duplicates=args.duplicates)
    print(f"SPA on the real MBIC — {PAPER}\n{note}")
    real = Dataset.from_annotations(ann, REAL)
    standin = stand_in(args.seed)
    spa_full = {s: float(kl.spa(ann, scheme=s).value) for s in fig7.SCHEMES}

    clock = Clock()
    fig6 = run_fig6({REAL: (real, subsampling_rng(REAL, args.seed)),
                     STAND_IN: (standin, subsampling_rng("MBIC", args.seed))},
                    rounds=args.rounds, points=args.points, min_items=args.min_items)
    timings["Fig. 6 (real + stand-in)"] = clock.read()

    clock = Clock()
    real7 = fig7.analyse_annotations(ann, REAL, rounds=args.rounds, points=args.points,
                                     batches=args.batches, seed=args.seed)
    standin7 = fig7.analyse(standin, rounds=args.rounds, points=args.points,
                            batches=args.batches, rng=subsampling_rng("MBIC", args.seed))
    timings["Fig. 7 / Table 1 (real + stand-in)"] = clock.read()

    clock = Clock()
    out = args.out
    frame = fig6["frame"]
    frame.to_csv(out / "spa_mbic_fig6.csv", index=False)
    pd.concat(fig6["components"].values()).to_csv(out / "spa_mbic_fig6_components.csv",
                                                  index=False)
    spa_fig6.plot_fig6(frame, fig6["results"], fig6["components"], out / "spa_mbic_fig6.png",
                       rounds=args.rounds, title_note="real MBIC bias labels (left) and its "
                       "simulated stand-in (right)", footer=note + COMPARE_NOTE)
    plot_scaled(frame, out / "spa_mbic_fig6_scaled.png", rounds=args.rounds,
                note=note + COMPARE_NOTE)
    spa_fig6.plot_components(fig6["components"], out / "spa_mbic_fig6_components.png",
                             rounds=args.rounds, title_note="real MBIC and its stand-in")
    paths = fig7.write_outputs({REAL: real7}, out, stem="spa_mbic", data="real data",
                               note=note, title_note="real MBIC bias labels")
    table_real = fig7.table_frame({REAL: real7}, "real data")
    table_standin = fig7.table_frame({STAND_IN: standin7})
    verdict = m1_verdict(real7, table_real)
    timings["writing"] = clock.read()
    timings["total"] = total.read()
    md = out / "spa_mbic.md"
    md.write_text(summary_markdown(args=args, notes=notes, ann=ann, fig6=fig6, real7=real7,
                                   table_real=table_real, standin7=standin7,
                                   table_standin=table_standin, verdict=verdict,
                                   timings=timings, spa_full=spa_full)
                  + "\n" + status_markdown("spa_mbic"))

    for name in (REAL, STAND_IN):
        f = fig6_findings(fig6, name)
        c = fig6["components"][name]
        print(f"\nFig. 6, {fig6['results'][name]['describe']}")
        print(f"  N·Var {f['move']} (lowest at j = {f['best']}); j·W_j + j·B_j: "
              + ", ".join(f"j={r.j}: {r.j_within:.3f}+{r.j_between:.3f}" for r in c.itertuples()))
        print(f"  measured / predicted at N = {f['common_x']:.0f}: "
              + ", ".join(f"{v:.3f}" for v in c.measured_over_predicted)
              + f"; sparse / constant-2: {f['sparse_over_constant2']:.3f}")
    print("\nTable 1, real MBIC: area relative to flat (± SE)")
    for r in table_real.itertuples():
        print(f"  {r.scheme:15s} {r.relative_area_pct:+7.2f} % ± "
              f"{100 * r.area_minus_flat_se / (r.area_variance - r.area_minus_flat):.2f}"
              f"  rank {int(r.rank)}")
    print("\n" + verdict_text(verdict))
    print(f"paper: {fig7.PAPER_CONCLUSION}")
    print("\n" + status_text("spa_mbic"))
    wrote = [out / f"spa_mbic_fig6{x}" for x in (".png", ".csv", "_scaled.png", "_components.png",
                                                 "_components.csv")] + list(paths.values())
    print(f"\n{args.rounds} rounds; wrote " + ", ".join(str(p) for p in wrote + [md])
          + f" in {timings['total'][0]:.1f} s wall, {timings['total'][1]:.1f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
