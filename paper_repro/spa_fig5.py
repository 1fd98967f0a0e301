r"""Fig. 5 of Nørregaard & Derczynski (2022): inv_var_class weight curves for random class
distributions, and the sum under each curve against the distribution's entropy — with the
one-parameter family that explains both panels.

Class distributions: logits uniform in (−2, 4), softmax, for C = 2..10 classes. Top panel: the
weight curves for n = 1..10 annotations (10 distributions per C, dashed, blue = low to green =
high entropy), normalised by the weight at n = 10 (the paper's "sum under the weight curve"
would be identically 1 with weights normalised to sum 1), with the annotations,
annotations_m1 and edges curves for reference. Middle panel: the sum under the normalised curve
(n = 1..10; n = 1 weighs 0) against entropy, 250 distributions per C (the paper's bottom panel).
Bottom panel: the same sums against s (below), with the closed form.

Why. With a = Σ p_c², b = Σ p_c³, ζ₁ = b − a², ζ₂ = a(1 − a),
Var[P] = (4(n − 2)ζ₁ + 2ζ₂)/(n(n − 1)) (U-statistic of order 2), so

    w(n) ∝ n(n − 1) / (1 + (n − 2)s),   s = 2ζ₁/ζ₂ = 2(b − a²)/(a(1 − a)) ∈ [0, 1]

(s ≤ 1 is Hoeffding's ζ₁ ≤ ζ₂/2). The curve is a one-parameter family: edges at s = 0 (uniform
p), annotations_m1 at s = ½, annotations at s = 1 (one class dominating). Its normalised sum is
S(s) = Σ_{n=2}^{10} n(n − 1)(1 + 8s)/(90(1 + (n − 2)s)), increasing in s, from 330/90 = 3.667
(edges) to 5.4 (annotations): a function of s alone. Entropy and s are only loosely related
(entropy grows with C, s does not), hence the paper's "some relationship … but they do not
directly correspond".

No data are used (analytic weights, :func:`kappalab.spa_weights`).

Outputs in ``--out``: ``spa_fig5.csv`` (one row per sampled distribution: C, p, entropy, s,
sum, and the curve for the top panel's distributions) and ``spa_fig5.png``.
Run: ``python -m paper_repro.spa_fig5 [--quick] [--out DIR] [--seed S]``.
"""

from __future__ import annotations

import sys
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from paper_repro.spa_engine import NO_DATA_NOTE, PAPER, Timer, entropy, parse_args, weight_table
from paper_repro.status import status_text

N_MAX = 10
CLASSES = range(2, 11)
N = np.arange(1, N_MAX + 1)
LOGIT_RANGE = (-2.0, 4.0)

EXPLANATION = (
    "Why: Var[P] = (4(n-2)z1 + 2z2)/(n(n-1)), z1 = b - a^2, z2 = a(1-a) (a = sum p^2, "
    "b = sum p^3), so w(n) ~ n(n-1)/(1 + (n-2)s) with s = 2 z1/z2 in [0, 1] (Hoeffding: "
    "z1 <= z2/2): edges at s = 0 (uniform p), annotations_m1 at s = 1/2, annotations at s = 1. "
    "The normalised sum S(s) = sum_{n=2..10} n(n-1)(1+8s)/(90(1+(n-2)s)) depends on s alone and "
    "grows from 3.667 (edges) to 5.4 (annotations); entropy only correlates with s."
)


def sample_distributions(rng: np.random.Generator, n_classes: int, count: int) -> np.ndarray:
    logits = rng.uniform(*LOGIT_RANGE, size=(count, n_classes))
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def s_parameter(p: np.ndarray) -> np.ndarray:
    a, b = (p ** 2).sum(axis=-1), (p ** 3).sum(axis=-1)
    return 2 * (b - a * a) / (a * (1 - a))


def closed_form_sum(s: np.ndarray) -> np.ndarray:
    n = np.arange(2, N_MAX + 1)[:, None]
    s = np.asarray(s, dtype=float)[None, :]
    return (n * (n - 1) * (1 + (N_MAX - 2) * s) / (N_MAX * (N_MAX - 1) * (1 + (n - 2) * s))
            ).sum(axis=0)


def curve(p: np.ndarray) -> np.ndarray:
    w = weight_table("inv_var_class", N_MAX, p.size, p)[N]
    return w / w[-1]


def main(argv: list[str] | None = None) -> int:
    args = parse_args("SPA Fig. 5: inv_var_class weights for random class distributions", argv,
                      [("--curves", {"type": int, "default": 10,
                                     "help": "distributions per C in the top panel"}),
                       ("--samples", {"type": int, "default": 250,
                                      "help": "distributions per C in the bottom panels"})])
    if args.quick:
        args.samples = min(args.samples, 25)
    timer = Timer()
    rng = np.random.default_rng(args.seed)
    rows = []
    for C in CLASSES:
        for panel, count in (("curves", args.curves), ("sums", args.samples)):
            for p in sample_distributions(rng, C, count):
                w = curve(p)
                row = {"panel": panel, "n_classes": C, "entropy": float(entropy(p)),
                       "s": float(s_parameter(p)), "sum_under_curve": float(w.sum())}
                row.update({f"p_{c + 1}": float(v) for c, v in enumerate(p)})
                row.update({f"w_{n}": float(v) for n, v in zip(N, w)})
                rows.append(row)
    frame = pd.DataFrame(rows)
    sums = frame[frame.panel == "sums"]
    closed = closed_form_sum(sums["s"].to_numpy())
    off_closed = float(np.abs(closed - sums["sum_under_curve"]).max())
    rho_entropy = float(spearmanr(sums["entropy"], sums["sum_under_curve"]).statistic)
    rho_s = float(spearmanr(sums["s"], sums["sum_under_curve"]).statistic)
    per_c = {C: float(spearmanr(g["entropy"], g["sum_under_curve"]).statistic)
             for C, g in sums.groupby("n_classes")}
    reference = {name: weight_table(name, N_MAX, 2)[N] / weight_table(name, N_MAX, 2)[N_MAX]
                 for name in ("annotations", "annotations_m1", "edges")}

    fig, axes = plt.subplots(3, 1, figsize=(7.5, 12.5))
    top, mid, low = axes
    cmap = plt.cm.winter  # blue (low entropy) to green (high entropy)
    hmax = float(np.log(max(CLASSES)))
    for _, r in frame[frame.panel == "curves"].iterrows():
        top.plot(N, [r[f"w_{n}"] for n in N], "--", lw=0.8, alpha=0.8,
                 color=cmap(r["entropy"] / hmax))
    for name, w in reference.items():
        top.plot(N, w, "k" + {"annotations": "-", "annotations_m1": "-.", "edges": ":"}[name],
                 lw=2, label=f"{name} (sum {w.sum():.3f})")
    top.legend(fontsize=8, loc="upper left")
    top.set_xlabel("annotations per item n")
    top.set_ylabel("inv_var_class weight  w(n) / w(10)")
    top.set_title(f"Fig. 5 (top): inv_var_class curves, {args.curves} distributions per C = 2..10"
                  "\n(softmax of logits ~ U(−2, 4); colour: entropy, blue low → green high)",
                  fontsize=10)
    sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0, hmax))
    fig.colorbar(sm, ax=top, label="entropy (nats)")
    colours = plt.cm.viridis(np.linspace(0, 0.95, len(CLASSES)))
    for (C, g), colour in zip(sums.groupby("n_classes"), colours):
        mid.scatter(g["entropy"], g["sum_under_curve"], s=5, color=colour, label=f"C={C}")
        low.scatter(g["s"], g["sum_under_curve"], s=5, color=colour)
    grid = np.linspace(0, 1, 201)
    low.plot(grid, closed_form_sum(grid), "k-", lw=1, label="closed form S(s)")
    for ax in (mid, low):
        for w in reference.values():
            ax.axhline(w.sum(), color="grey", lw=0.7, ls=":")
    mid.set_xlabel("entropy of the class distribution (nats)")
    mid.set_ylabel("sum under the weight curve")
    mid.set_title(f"Fig. 5 (bottom): sum under the curve vs entropy, {args.samples} per C "
                  f"(Spearman {rho_entropy:.3f})", fontsize=10)
    mid.legend(fontsize=7, ncol=5, markerscale=2)
    low.set_xlabel("s = 2(b − a²)/(a(1 − a))   (a = Σp², b = Σp³)")
    low.set_ylabel("sum under the weight curve")
    low.set_title(f"the sum is a function of s alone (Spearman {rho_s:.3f}; max |sum − S(s)| "
                  f"{off_closed:.1e})", fontsize=10)
    low.legend(fontsize=8)
    caption = "\n".join(textwrap.wrap(EXPLANATION + " " + NO_DATA_NOTE, 118))
    fig.text(0.02, 0.005, caption, fontsize=6.6, va="bottom", family="monospace")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    png, csv = args.out / "spa_fig5.png", args.out / "spa_fig5.csv"
    fig.savefig(png, dpi=120)
    plt.close(fig)
    frame.to_csv(csv, index=False)

    print(f"SPA Fig. 5 — {PAPER}")
    print(NO_DATA_NOTE)
    print(EXPLANATION)
    print(f"{len(sums)} distributions (C = 2..10): s in [{sums['s'].min():.4f}, "
          f"{sums['s'].max():.4f}], sum under curve in [{sums['sum_under_curve'].min():.4f}, "
          f"{sums['sum_under_curve'].max():.4f}] (edges {reference['edges'].sum():.4f}, "
          f"annotations_m1 {reference['annotations_m1'].sum():.4f}, annotations "
          f"{reference['annotations'].sum():.4f})")
    print(f"Spearman(sum, entropy) = {rho_entropy:.4f} overall; per C: "
          + ", ".join(f"{C}: {v:.3f}" for C, v in per_c.items()))
    print(f"Spearman(sum, s) = {rho_s:.6f}; max |sum − S(s)| = {off_closed:.2e}")
    print(status_text("spa_fig5"))
    print(f"wrote {png} and {csv} in {timer}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
