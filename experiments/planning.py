"""Sample-size planning checked by simulation: do studies of the planned size deliver?

For each design (coefficient, categories and prevalence or interval values, annotations per
item, expected reliability ρ) ``kappalab.plan`` gives the number of items N for two goals:
(a) a 95 % interval of half-width ``--half-width``; (b) power 80 % to show the coefficient
above ρ − ``--margin`` with a one-sided test at the 5 % level. For each plan, ``--studies``
(half-width) or ``--power-studies`` (power) studies of N items are simulated from the same
population model (``kappalab.simulate``: Dirichlet–multinomial categories, random-effects
interval values, every item annotated by the same m raters) and estimated with the public
estimators and their analytic intervals (``ci="analytic"``: θ̂ ± t_{N−1} SE). Reported per
plan: the mean half-width t_{N−1}·SE of the studies' intervals against the target
(criterion: within 10 %); the share of studies whose test rejects, the statistic of
``Estimate.z_test``, (θ̂ − ρ₀)/SE, above t_{N−1, 0.95} (the test ``kappalab.plan`` plans
for), against the stated power (criterion: within 3 points; the Monte Carlo standard error
of a power of 0.8 over 4 000 studies is 0.63 points) and against the power the plan
predicts; the mean estimate against ρ + the planned bias; the empirical SD of the estimates
against σ₁/√N; and the interval's coverage.

What the full run found (17 designs, 1 000 studies per half-width plan and 4 000 per power
plan; 3.0 min wall, 2.9 min CPU, with two workers on a two-core machine running one other
job): every mean half-width is within 1.4 % of the target (criterion 10 %), coverage
0.926–0.958 (the lowest, Cohen's κ with five categories at N = 69). The achieved power is
0.781–0.810 for 0.80 (mean 0.800), so every design is within 1.9 points of the stated power
(criterion 3 points) and within 2.0 points of the power the plan predicts; the mean estimates
follow the planned bias (ρ − 0.0007 to ρ − 0.0079). The power plans are 36–465 items (the
half-width plans up to 572). The largest deviation, −1.9 points (2.9 Monte Carlo SEs), is
α with two balanced categories and two annotations per item (N = 190). Runs with other random
streams found their largest, up to +2.1 points (3.4 Monte Carlo SEs), for Cohen's κ with two
balanced categories (N = 192; +0.7 points here) and Fleiss' κ with two categories and three
annotations per item (N = 124; +0.5 points here): each item has four possible outcomes, the
estimate lives on a coarse lattice, and the power moves by a few points between neighbouring
N (a separate run of 8 000 studies at N = 121 gave 0.774 for a predicted 0.794), which a normal
approximation cannot follow. Before the plan modelled the test (the first-order formula
σ₁²((z_{1−a} + z_β)/(ρ − ρ₀))² with the normal quantile), the same designs reached
0.71–0.80 (mean 0.77, 9 of 17 within 3 points): the estimated SE in the statistic, which
falls as θ̂ rises when ρ is high, and the estimators' downward bias both cost power.

Krippendorff's (2004; 2013; 2019) table of minimal sample sizes for α rests on the probability
of the rarest category and Bloch & Kraemer's (1989) variance of two raters' binary κ. Beside
each nominal design the script gives the N of that basis for goal (a), the least N with
t_{N−1}·(V_BK(ρ, min π)/N)^{1/2} ≤ h (``kappalab.planning.bloch_kraemer_variance``),
and the N ``kappalab.plan`` gives for the same categories with two annotations per item: they
coincide for two categories and two annotations (the variance of α, Fleiss' and Cohen's κ
is then exactly Bloch & Kraemer's, ``tests/test_planning.py``); with more categories, the
binary split at the rarest category ignores how the other categories are told apart, and the
two differ (``n_bloch_kraemer`` against ``n_plan_two_annotations``).

The table itself: ``kappalab.planning.krippendorff_table_size`` gives
N = ⌈2 z²_{1−p} V_BK(κ*, p_c)/Δ²⌉, κ* = (1 + α_min)/2, Δ = (1 − α_min)/2. For four equally
frequent values (p_c = 0.25) the script prints, for the two entries quoted from the table
(α_min = 0.800 and 0.667 at p = 0.05: 139 and 81 units; the full run adds the formula's
other cells at p_c = 0.25, which are computed, not published), the formula's value and N,
and kappalab.plan's N (α, two annotations per item, expected α = κ*) for the two questions
the table answers to first order: the half-width Δ at confidence 1 − 2Φ(−√2 z_{1−p}), and
the power Φ((√2 − 1) z_{1−p}) against the threshold α_min at level p; each once with the
binary split (prevalence 0.25/0.75, the table's model) and once with the four categories.
What it found: for 139 and 81, plan gives 142 and 84 for the half-width (the t quantile)
and 169 and 100 for the power with the binary split (the test with the estimated SE, which
shrinks as α̂ rises, needs more items than the first-order formula); with four categories
the variance at κ* is about half of Bloch & Kraemer's at p_c (0.1233 against 0.2560 for
α_min = 0.8), and plan gives 70 and 42 (half-width), 82 and 47 (power).
Written to ``planning_krippendorff_table.csv``.

Every replication of :func:`kappalab.simulate.run_study` simulates 50 studies in one call
(``STUDIES_PER_REPLICATION``): the cells are design × goal (half-width, power) in a fixed
order, each cell's N the plan's, and the half-width and the power studies run as two studies
over that grid (each fills the cells of its
goal, so no two cells share a random stream). They run on a local Dask cluster of every core
by default, ``--scheduler serial`` in this process or the cluster at ``--scheduler ADDRESS``;
``--checkpoint FILE`` keeps every finished study, so the same command resumes an interrupted
run. The table does not depend on where the studies ran.

Writes ``planning.csv`` and ``planning.png`` to ``--out`` (default ``results/experiments``) and
prints the table and the runtime. Run: ``python -m experiments.planning [--quick]
[--scheduler ADDRESS] [--workers N] [--checkpoint FILE]``. ``--quick`` (3 designs, 100 and 200
studies) takes about 25 s.
"""

from __future__ import annotations

import functools
import math
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.stats import norm
from scipy.stats import t as student_t

import kappalab as kl
from kappalab import simulate
from kappalab.planning import (bloch_kraemer_variance, krippendorff_table_size,
                               width_items)

from experiments.study import cluster, parse_args, run

ESTIMATORS = {"alpha": kl.krippendorff_alpha, "fleiss": kl.fleiss_kappa,
              "cohen": kl.cohen_kappa}

#: (coefficient, level, prevalence, annotations per item, reliability)
DESIGNS = [
    ("alpha", "nominal", (0.5, 0.5), 2, 0.6),
    ("alpha", "nominal", (0.2, 0.3, 0.5), 3, 0.7),
    ("alpha", "nominal", (0.2,) * 5, 5, 0.4),
    ("alpha", "nominal", (0.3, 0.3, 0.3, 0.1), 3, 0.8),
    ("alpha", "nominal", (0.9, 0.1), 4, 0.5),
    ("alpha", "interval", (), 3, 0.7),
    ("alpha", "interval", (), 2, 0.5),
    ("fleiss", "nominal", (0.5, 0.5), 3, 0.5),
    ("fleiss", "nominal", (0.1, 0.3, 0.6), 2, 0.8),
    ("fleiss", "nominal", (0.05, 0.1, 0.15, 0.3, 0.4), 4, 0.6),
    ("fleiss", "nominal", (0.25,) * 4, 5, 0.7),
    ("fleiss", "nominal", (0.8, 0.2), 2, 0.4),
    ("cohen", "nominal", (0.5, 0.5), 2, 0.6),
    ("cohen", "nominal", (0.9, 0.1), 2, 0.7),
    ("cohen", "nominal", (0.2, 0.3, 0.5), 2, 0.5),
    ("cohen", "nominal", (0.2,) * 5, 2, 0.8),
    ("cohen", "nominal", (0.4, 0.3, 0.2, 0.1), 2, 0.4),
]
QUICK = [0, 5, 13]


def label(coefficient: str, level: str, prevalence: tuple, m: int, rho: float) -> str:
    shares = "interval" if level == "interval" else "/".join(f"{p:g}" for p in prevalence)
    return f"{coefficient} {shares} m={m} ρ={rho:g}"


def make_plan(design: tuple, goal: dict):
    """kl.plan's result for one design and goal."""
    coefficient, level, prevalence, m, rho = design
    return kl.plan(coefficient, level=level, prevalence=prevalence or None,
                   annotations_per_item=m, reliability=rho, **goal)


#: studies simulated in one call by one replication (one simulation of 50 × N items is far
#: cheaper than 50 of N items); the numbers of studies must be multiples of it
STUDIES_PER_REPLICATION = 50


def replicate(cell: dict, rng: np.random.Generator, *, goal: str) -> list[dict]:
    """``STUDIES_PER_REPLICATION`` simulated studies of the cell's planned size N (the cell's
    design), simulated in one call and estimated one by one with the analytic interval;
    nothing for the cells of the other goal."""
    if cell["goal"] != goal:
        return []
    coefficient, level, prevalence, m, rho = DESIGNS[cell["design_index"]]
    n, block = cell["n_items"], STUDIES_PER_REPLICATION
    ann, truth = simulate.annotations(
        n * block, level=level, prevalence=prevalence or None, reliability=rho,
        annotations_per_item=m, n_raters=m, seed=rng)
    assert math.isclose(truth.alpha, rho, abs_tol=1e-9)
    studies = ann.to_xarray().sortby("item").values.astype(float).reshape(block, n, m)
    options = {"level": level} if coefficient == "alpha" else {}
    rows = []
    for study in range(block):
        est = ESTIMATORS[coefficient](studies[study], ci="analytic", **options)
        rows.append({"study": study, "value": float(est), "se": est.se})
    return rows


def plan_row(design: tuple, result, values: np.ndarray, ses: np.ndarray) -> dict:
    """The table row of one plan from its simulated studies' estimates and SEs."""
    coefficient, level, prevalence, m, rho = design
    n, n_studies = result.n_items, values.size
    t_quantile = float(student_t.ppf(0.975, n - 1))
    half = t_quantile * ses
    covered = np.abs(values - rho) <= half
    row = {"design": label(*design), "coefficient": coefficient, "level": level,
           "n_categories": len(prevalence) or None,
           "prevalence": "/".join(f"{p:g}" for p in prevalence), "annotations_per_item": m,
           "reliability": rho, "goal": result.goal, "item_sd": result.item_sd, "n_items": n,
           "n_studies": n_studies, "empirical_sd": values.std(ddof=1),
           "planned_se": result.standard_error(n), "mean_estimate": values.mean(),
           "coverage": covered.mean()}
    if result.goal == "half-width":
        row.update(target=result.target_half_width, achieved=half.mean(),
                   achieved_mc_se=half.std(ddof=1) / math.sqrt(n_studies),
                   ratio=half.mean() / result.target_half_width)
        row["meets_criterion"] = abs(row["ratio"] - 1) <= 0.10
    else:
        # the test a user runs: Estimate.z_test's statistic against t_{N−1, 1−a}
        z = (values - result.threshold) / ses
        power = float((z > student_t.ppf(1 - result.significance, n - 1)).mean())
        row.update(target=result.target_power, achieved=power, threshold=result.threshold,
                   planned_power=result.power, planned_bias=result.bias,
                   achieved_mc_se=math.sqrt(power * (1 - power) / n_studies),
                   ratio=power / result.target_power)
        row["meets_criterion"] = abs(power - result.target_power) <= 0.03
    return row


def krippendorff_basis(design: tuple, half_width: float) -> dict:
    """The N of Bloch & Kraemer's variance at the rarest category, and kl.plan's N for the
    same categories with two annotations per item (goal (a))."""
    coefficient, level, prevalence, m, rho = design
    if level == "interval":
        return {}
    basis = width_items(math.sqrt(bloch_kraemer_variance(rho, min(prevalence))), half_width,
                        0.95)
    two = kl.plan(coefficient, prevalence=prevalence, annotations_per_item=2, reliability=rho,
                  half_width=half_width)
    return {"n_bloch_kraemer": basis, "n_plan_two_annotations": two.n_items}


#: the entries quoted from Krippendorff's table: (α_min, p, p_c) → units
PUBLISHED = {(0.8, 0.05, 0.25): 139, (0.667, 0.05, 0.25): 81}


def krippendorff_table(quick: bool) -> pd.DataFrame:
    """Krippendorff's table at p_c = 0.25: the published entries, the formula, and
    kl.plan's N for the questions the table answers to first order (binary split and four
    categories)."""
    cells = list(PUBLISHED) if quick else [
        (a, p, 0.25) for a in (0.667, 0.8, 0.9) for p in (0.1, 0.05, 0.01, 0.005)]
    rows = []
    for alpha_min, p, share in cells:
        z = float(norm.ppf(1 - p))
        kappa, margin = (1 + alpha_min) / 2, (1 - alpha_min) / 2
        confidence = 1 - 2 * float(norm.sf(math.sqrt(2) * z))
        power = float(norm.cdf((math.sqrt(2) - 1) * z))
        row = {"alpha_min": alpha_min, "significance": p, "smallest_share": share,
               "published": PUBLISHED.get((alpha_min, p, share)),
               "formula": 2 * z * z * bloch_kraemer_variance(kappa, share) / margin ** 2,
               "n_table": krippendorff_table_size(alpha_min, share, p),
               "confidence": confidence, "power": power}
        for name, design in (("binary", {"prevalence": [share, 1 - share]}),
                             ("k", {"n_categories": round(1 / share)})):
            common = dict(annotations_per_item=2, reliability=kappa, **design)
            width = kl.plan("alpha", half_width=margin, confidence=confidence, **common)
            test = kl.plan("alpha", power=power, threshold=alpha_min, significance=p, **common)
            row.update({f"item_var_{name}": width.item_sd ** 2,
                        f"n_plan_width_{name}": width.n_items,
                        f"n_plan_power_{name}": test.n_items})
        rows.append(row)
    return pd.DataFrame(rows)


def simulate_all(args, client) -> pd.DataFrame:
    """Every design's two plans, each checked on its simulated studies: the cells are
    design × goal in a fixed order, the half-width studies and then the power studies run
    through run_study (each replicate fills the cells of its goal)."""
    indices = QUICK if args.quick else list(range(len(DESIGNS)))
    n_studies = {"half-width": 100 if args.quick else args.studies,
                 "power": 200 if args.quick else args.power_studies}
    cells, plans = [], {}
    for i in indices:
        rho = DESIGNS[i][4]
        goals = {"half-width": {"half_width": args.half_width},
                 "power": {"power": 0.8, "threshold": round(rho - args.margin, 4)}}
        for goal, options in goals.items():
            plans[(i, goal)] = result = make_plan(DESIGNS[i], options)
            cells.append({"design_index": i, "goal": goal, "n_items": result.n_items})
    for goal, count in n_studies.items():
        if count % STUDIES_PER_REPLICATION:
            raise SystemExit(f"the numbers of studies must be multiples of "
                             f"{STUDIES_PER_REPLICATION}, got {count} ({goal})")
    records = pd.concat([run(args, client, cells, functools.partial(replicate, goal=goal),
                             n_studies[goal] // STUDIES_PER_REPLICATION,
                             f"{goal} studies ({STUDIES_PER_REPLICATION} per replication)")
                         for goal in n_studies], ignore_index=True)
    rows = []
    for cell in cells:
        i, goal = cell["design_index"], cell["goal"]
        part = records[(records["design_index"] == i) & (records["goal"] == goal)]
        row = plan_row(DESIGNS[i], plans[(i, goal)], part["value"].to_numpy(dtype=float),
                       part["se"].to_numpy(dtype=float))
        rows.append({**row, **krippendorff_basis(DESIGNS[i], args.half_width)})
    return pd.DataFrame(rows)


def plot(table: pd.DataFrame, path) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(13, 0.32 * len(table) / 2 + 2.5))
    colours = {"alpha": "C0", "fleiss": "C1", "cohen": "C2"}
    for ax, goal in zip(axes, ("half-width", "power")):
        part = table[table["goal"] == goal].reset_index(drop=True)
        y = np.arange(len(part))
        for coefficient, colour in colours.items():
            rows = part["coefficient"] == coefficient
            ax.errorbar(part.loc[rows, "achieved"], y[rows],
                        xerr=2 * part.loc[rows, "achieved_mc_se"], fmt="o", color=colour,
                        label=coefficient)
        if goal == "half-width":
            target = part["target"].iloc[0]
            ax.axvspan(0.9 * target, 1.1 * target, color="0.9", label="target ± 10 %")
            ax.axvline(target, color="k", lw=0.8)
            ax.set_xlabel("mean half-width of the analytic 95 % interval")
            ax.set_title(f"(a) N for half-width {target:g}")
        else:
            ax.axvspan(0.77, 0.83, color="0.9", label="target ± 3 points")
            ax.axvline(0.8, color="k", lw=0.8)
            ax.set_xlabel("share of studies rejecting H₀: θ ≤ ρ − margin (one-sided 5 %)")
            ax.set_title("(b) N for power 0.8")
        ax.set_yticks(y, [f"{d}  N={n}" for d, n in zip(part["design"], part["n_items"])],
                      fontsize=7)
        ax.legend(fontsize=7, loc="lower right")
    for ax in axes:
        ax.invert_yaxis()
    studies = table.groupby("goal")["n_studies"].first()
    fig.suptitle(f"kappalab.plan checked on {int(studies['half-width'])} (half-width) and "
                 f"{int(studies['power'])} (power) simulated studies of the planned size per "
                 "design (bars: ±2 Monte Carlo SE)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def main(argv=None) -> pd.DataFrame:
    args = parse_args(__doc__.splitlines()[0], argv, extra=[
        ("--studies", {"type": int, "default": 1000,
                       "help": "simulated studies per half-width plan"}),
        ("--power-studies", {"type": int, "default": 4000, "dest": "power_studies",
                             "help": "simulated studies per power plan"}),
        ("--half-width", {"type": float, "default": 0.1, "dest": "half_width",
                          "help": "goal (a): half-width of the 95 % interval"}),
        ("--margin", {"type": float, "default": 0.15,
                      "help": "goal (b): the threshold is ρ − margin"}),
    ])
    start = time.perf_counter()
    with cluster(args) as client:
        table = simulate_all(args, client)
    elapsed = time.perf_counter() - start
    csv, png = args.out / "planning.csv", args.out / "planning.png"
    table.to_csv(csv, index=False)
    plot(table, png)
    shown = ["design", "goal", "n_items", "target", "achieved", "achieved_mc_se",
             "empirical_sd", "planned_se", "coverage", "meets_criterion"]
    widths, powers = table[table["goal"] == "half-width"], table[table["goal"] == "power"]
    with pd.option_context("display.width", 200):
        print(table[shown].round(4).to_string(index=False))
        basis = table.drop_duplicates("design").dropna(subset=["n_bloch_kraemer"]) if (
            "n_bloch_kraemer" in table) else table.iloc[:0]
        if len(basis):
            print("\nN for goal (a) with two annotations per item: Bloch & Kraemer at the "
                  "rarest category, and kappalab.plan")
            print(basis[["design", "n_bloch_kraemer", "n_plan_two_annotations"]]
                  .to_string(index=False))
    kripp = krippendorff_table(args.quick)
    kripp_csv = args.out / "planning_krippendorff_table.csv"
    kripp.to_csv(kripp_csv, index=False)
    print("\nKrippendorff's table (two coders, p_c = 0.25; 'published' only where quoted, "
          "'formula' = 2z²·V_BK(κ*)/Δ²) and kappalab.plan at α = κ* = (1 + α_min)/2: "
          "half-width Δ at confidence 1 − 2Φ(−√2 z), power Φ((√2 − 1)z) against α_min; "
          "binary split 0.25/0.75 and K = 4 categories")
    with pd.option_context("display.width", 200):
        print(kripp.drop(columns=["smallest_share"]).round(4).to_string(index=False))
    print(f"\nhalf-width: max |achieved/target − 1| = "
          f"{(widths['ratio'] - 1).abs().max():.3f}; power: max |achieved − target| = "
          f"{(powers['achieved'] - powers['target']).abs().max():.3f}, mean achieved "
          f"{powers['achieved'].mean():.3f}, max |achieved − planned| = "
          f"{(powers['achieved'] - powers['planned_power']).abs().max():.3f}")
    print(f"{int(table['meets_criterion'].sum())} of {len(table)} plans meet their criterion;"
          f" runtime {elapsed:.0f} s")
    print(f"wrote {csv}, {kripp_csv} and {png}")
    return table


if __name__ == "__main__":
    main()
