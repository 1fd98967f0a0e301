"""The kappa paradox: at fixed latent agreement, κ falls with the prevalence; P_o does not.

Feinstein & Cicchetti (1990): two raters who agree just as well on the underlying trait
produce a κ that collapses as one category becomes rare, while their percent agreement rises.
Here: binary judgements from the latent-threshold model (``kappalab.simulate``, level
"binary") with the latent ICC held fixed, two raters per item, the minority prevalence moving
from 0.5 to 0.99 in the majority category. For each prevalence: the population values (exact,
from the simulation module) and the mean of each estimator over ``--datasets`` simulated
datasets of ``--items`` items — Cohen's κ, Scott's π, Krippendorff's α, Gwet's AC1 and percent
agreement.

Each simulated dataset is a replication of :func:`kappalab.simulate.run_study` (cells = the
majority shares, in increasing order), on a local Dask cluster of every core by default,
``--scheduler serial`` in this process or the cluster at ``--scheduler ADDRESS``;
``--checkpoint FILE`` keeps every finished dataset, so the same command resumes an interrupted
run. The table does not depend on where the datasets ran.

Writes ``kappa_paradox.csv`` and ``kappa_paradox.png`` to ``--out`` (default
``results/experiments``). Run: ``python -m experiments.kappa_paradox [--quick]
[--scheduler ADDRESS] [--workers N] [--checkpoint FILE]``. ``--quick`` (5 shares × 4 datasets)
takes about 15 s; the full run (25 shares × 100 datasets of 1 000 items) about 35 s
(two workers).
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt

import kappalab as kl
from kappalab import simulate

from experiments.study import cluster, parse_args, run

ESTIMATORS = {
    "cohen_kappa": kl.cohen_kappa,
    "scott_pi": kl.scott_pi,
    "krippendorff_alpha": kl.krippendorff_alpha,
    "gwet_ac1": kl.gwet_ac,
    "percent_agreement": kl.percent_agreement,
}


def population_ac1(p_o: float, prevalence: np.ndarray) -> float:
    """Gwet's AC1 of the population: P_e = Σ π_k (1 − π_k)/(K − 1)."""
    p_e = float((prevalence * (1 - prevalence)).sum() / (prevalence.size - 1))
    return (p_o - p_e) / (1 - p_e)


def replicate(cell: dict, rng: np.random.Generator, *, items: int,
              latent_icc: float) -> dict:
    """One dataset at the cell's majority share: every estimator and the population values."""
    ann, truth = simulate.annotations(
        items, level="binary", prevalence=1.0 - cell["majority_share"], latent_icc=latent_icc,
        annotations_per_item=2, n_raters=2, seed=rng)
    prevalence = np.array(truth.prevalence)
    row = {"truth_kappa": truth.alpha, "truth_percent_agreement": truth.p_o,
           "truth_ac1": population_ac1(truth.p_o, prevalence), "truth_p_e": truth.p_e}
    for name, estimator in ESTIMATORS.items():
        row[name] = float(estimator(ann))
    return row


def summarise(records: pd.DataFrame, latent_icc: float) -> pd.DataFrame:
    """One row per majority share: the population values and each estimator's mean and
    Monte Carlo SE over the datasets."""
    rows = []
    for share, group in records.groupby("majority_share", sort=False):
        last = group.iloc[-1]  # the population values are the same for every dataset
        row = {"majority_share": share, "latent_icc": latent_icc,
               "truth_kappa": last["truth_kappa"],
               "truth_percent_agreement": last["truth_percent_agreement"],
               "truth_ac1": last["truth_ac1"], "truth_p_e": last["truth_p_e"]}
        for name in ESTIMATORS:
            values = group[name].to_numpy()
            row[f"mean_{name}"] = values.mean()
            row[f"se_{name}"] = values.std(ddof=1) / np.sqrt(values.size)
        rows.append(row)
    return pd.DataFrame(rows)


def simulate_all(args, client) -> pd.DataFrame:
    majority = np.linspace(0.5, 0.99, 5 if args.quick else 25)
    n_datasets = 4 if args.quick else args.datasets
    cells = [{"majority_share": float(share)} for share in majority]
    records = run(args, client, cells, functools.partial(
        replicate, items=args.items, latent_icc=args.latent_icc), n_datasets, "datasets",
        batch_size=10)
    return summarise(records, args.latent_icc)


def draw(table: pd.DataFrame):
    """The figure of :func:`summarise`'s table: each estimator's mean ± 2 Monte Carlo SE per
    majority share, and the population values.

    With two raters and no missing annotation κ, π and α nearly coincide: their markers are
    hollow, of three shapes, and set side by side (0.3 of the step between shares, at most
    0.006, to the left, none, to the right), so that none hides under another; the legend
    says so.
    """
    fig, ax = plt.subplots(figsize=(7, 4.5))
    shares = table["majority_share"].to_numpy(dtype=float)
    step = min(float(np.diff(shares).min()) if shares.size > 1 else 0.02, 0.02)
    # name: (colour, marker, hollow, offset in steps)
    styles = {"cohen_kappa": ("C0", "o", True, -0.3), "scott_pi": ("C1", "s", True, 0.0),
              "krippendorff_alpha": ("C2", "^", True, 0.3),
              "gwet_ac1": ("C3", "o", False, 0.0), "percent_agreement": ("C4", "o", False, 0.0)}
    for name, (colour, marker, hollow, offset) in styles.items():
        ax.errorbar(shares + offset * step, table[f"mean_{name}"],
                    yerr=2 * table[f"se_{name}"], fmt=marker, ms=4 if hollow else 3,
                    color=colour, markerfacecolor="none" if hollow else colour,
                    elinewidth=0.8, label=name)
    ax.plot(table["majority_share"], table["truth_kappa"], "-", color="C0",
            label="population κ = π = α")
    ax.plot(table["majority_share"], table["truth_ac1"], "--", color="C3",
            label="population AC1")
    ax.plot(table["majority_share"], table["truth_percent_agreement"], ":", color="C4",
            label="population percent agreement")
    ax.set_xlabel("share of the majority category")
    ax.set_ylabel("coefficient")
    ax.set_title(f"Kappa paradox at fixed latent ICC {table['latent_icc'].iloc[0]:.2f} "
                 "(binary, 2 raters per item)")
    ax.set_ylim(-0.05, 1.02)
    ax.legend(fontsize=7, loc="lower left", title_fontsize=7,
              title="κ, π and α nearly coincide: their markers are set side by side")
    fig.tight_layout()
    return fig


def plot(table: pd.DataFrame, path) -> None:
    fig = draw(table)
    fig.savefig(path, dpi=130)
    plt.close(fig)


def main(argv=None) -> pd.DataFrame:
    args = parse_args(__doc__.splitlines()[0], argv, extra=[
        ("--items", {"type": int, "default": 1000, "help": "items per dataset"}),
        ("--datasets", {"type": int, "default": 100, "help": "datasets per prevalence"}),
        ("--latent-icc", {"type": float, "default": 0.7, "dest": "latent_icc"}),
    ])
    with cluster(args) as client:
        table = simulate_all(args, client)
    csv, png = args.out / "kappa_paradox.csv", args.out / "kappa_paradox.png"
    table.to_csv(csv, index=False)
    plot(table, png)
    base = table.iloc[0]
    collapsed = table[(table["truth_kappa"] < base["truth_kappa"] / 2)]
    print(table[["majority_share", "truth_kappa", "mean_cohen_kappa", "truth_ac1",
                 "mean_gwet_ac1", "truth_percent_agreement",
                 "mean_percent_agreement"]].round(4).to_string(index=False))
    if len(collapsed):
        first = collapsed.iloc[0]
        print(f"\npopulation κ falls below half its balanced value ({base['truth_kappa']:.3f}) "
              f"at a majority share of {first['majority_share']:.3f}, where percent agreement "
              f"is {first['truth_percent_agreement']:.3f}")
    print(f"wrote {csv} and {png}")
    return table


if __name__ == "__main__":
    main()
