r"""Fig. 4 of Nørregaard & Derczynski (2022): the inv_var weights do not depend on the number of
classes — now with the proof the paper could not give.

Top panel: the normalised inv_var weights w(n)/Σ_m w(m) for items with n = 2..10 annotations
and C = 2..7 classes, each curve minus its mean (as in the paper). Bottom panel: the normalised
weights of annotations, annotations_m1, edges and inv_var (C = 2).

Proof. P, the agreement of an item with n annotations drawn iid from p, is a U-statistic of
order 2 with kernel 1[x = y], so (Hoeffding 1948)

    Var[P] = (4(n − 2)ζ₁ + 2ζ₂) / (n(n − 1)),  ζ₁ = Var(p_X) = b − a²,  ζ₂ = a(1 − a),

a = Σ p_c², b = Σ p_c³: (2a + 6a² − 8b + 4n(b − a²))/(n(n−1)) (docs/architecture.md). For uniform p
over C classes, b = 1/C² = a², so ζ₁ = 0 and Var[P] = 2(C − 1)/(C² n(n − 1)). The inverse
variance C² n(n − 1)/(2(C − 1)) is n(n − 1) times a factor of C alone, which cancels on
normalising: w(n)/Σ_m w(m) = n(n − 1)/Σ_m m(m − 1), the same for every C and exactly the
normalised edges weights n(n − 1)/2. The measured spread between the curves is rounding.

No data are used (analytic weights, :func:`kappalab.spa_weights`).

Outputs in ``--out``: ``spa_fig4.csv`` and ``spa_fig4.png``.
Run: ``python -m paper_repro.spa_fig4 [--quick] [--out DIR]``.
"""

from __future__ import annotations

import sys
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from paper_repro.spa_engine import NO_DATA_NOTE, PAPER, Timer, parse_args, weight_table
from paper_repro.status import status_text

N = np.arange(2, 11)  # annotations per item (the paper's 2..10)
CLASSES = range(2, 8)  # C = 2..7
BOTTOM = ("annotations", "annotations_m1", "edges", "inv_var")

PROOF = (
    "Proof: P is a U-statistic of order 2 (kernel 1[x=y]), so Var[P] = (4(n-2)z1 + 2z2)/(n(n-1)) "
    "with z1 = b - a^2, z2 = a(1-a), a = sum p_c^2, b = sum p_c^3. Uniform p over C classes: "
    "b = 1/C^2 = a^2, so z1 = 0 and Var[P] = 2(C-1)/(C^2 n(n-1)). The weight "
    "C^2 n(n-1)/(2(C-1)) is n(n-1) times a factor of C alone, which cancels on normalising: "
    "w(n)/sum_m w(m) = n(n-1)/sum_m m(m-1) for every C -- exactly the normalised edges weights."
)


def normalised(weights: np.ndarray) -> np.ndarray:
    return weights / weights.sum()


def main(argv: list[str] | None = None) -> int:
    args = parse_args("SPA Fig. 4: inv_var weights against the number of classes", argv)
    timer = Timer()
    theory = normalised(N * (N - 1.0))
    rows = []
    curves = {}
    for C in CLASSES:
        w = normalised(weight_table("inv_var", int(N.max()), C)[N])
        curves[C] = w - w.mean()
        rows += [{"panel": "top", "scheme": "inv_var", "n_classes": C, "n_annotations": int(n),
                  "weight_normalised": float(v), "minus_mean": float(c),
                  "theory_n(n-1)/sum": float(t)}
                 for n, v, c, t in zip(N, w, curves[C], theory)]
    stacked = np.stack(list(curves.values()))
    spread = float((stacked.max(axis=0) - stacked.min(axis=0)).max())
    off_theory = float(max(abs(r["weight_normalised"] - r["theory_n(n-1)/sum"]) for r in rows))
    for scheme in BOTTOM:
        w = normalised(weight_table(scheme, int(N.max()), 2)[N])
        rows += [{"panel": "bottom", "scheme": scheme, "n_classes": 2, "n_annotations": int(n),
                  "weight_normalised": float(v), "minus_mean": float(v - w.mean()),
                  "theory_n(n-1)/sum": float(t)} for n, v, t in zip(N, w, theory)]
    frame = pd.DataFrame(rows)
    bottom = frame[frame.panel == "bottom"].pivot(index="n_annotations", columns="scheme",
                                                  values="weight_normalised")
    inv_var_vs_edges = float((bottom["inv_var"] - bottom["edges"]).abs().max())

    fig, (top, low) = plt.subplots(2, 1, figsize=(7.5, 9.4), sharex=True)
    colours = plt.cm.viridis(np.linspace(0, 0.9, len(curves)))
    for (C, c), colour in zip(curves.items(), colours):
        top.plot(N, c, "o-" if C == 2 else "-", color=colour, lw=2.5 - 0.25 * (C - 2),
                 ms=4, label=f"C = {C}")
    top.set_ylabel("normalised inv_var weight − mean")
    top.set_title("Fig. 4 (top): inv_var weights for C = 2..7 — the curves coincide\n"
                  f"max spread between curves {spread:.1e}; max |w − n(n−1)/Σ m(m−1)| "
                  f"{off_theory:.1e}", fontsize=10)
    top.legend(ncol=3, fontsize=8)
    styles = {"annotations": "s-", "annotations_m1": "^-", "edges": "o-", "inv_var": "x--"}
    for scheme in BOTTOM:
        low.plot(N, bottom[scheme], styles[scheme], label=scheme, ms=6 if scheme != "edges"
                 else 9, mfc="none" if scheme == "edges" else None)
    low.set_xlabel("annotations per item n")
    low.set_ylabel("normalised weight  w(n) / Σ w")
    low.set_title("Fig. 4 (bottom): weighting schemes, C = 2 (inv_var ≡ edges: max |Δ| "
                  f"{inv_var_vs_edges:.1e})", fontsize=10)
    low.legend(fontsize=8)
    measured = (f" Measured: max spread between the C = 2..7 curves {spread:.1e}, max "
                f"|w - n(n-1)/sum m(m-1)| {off_theory:.1e} (rounding).")
    caption = "\n".join(textwrap.wrap(PROOF + measured + " " + NO_DATA_NOTE, 118))
    fig.text(0.02, 0.01, caption, fontsize=6.6, va="bottom", family="monospace")
    fig.tight_layout(rect=(0, 0.095, 1, 1))
    png, csv = args.out / "spa_fig4.png", args.out / "spa_fig4.csv"
    fig.savefig(png, dpi=130)
    plt.close(fig)
    frame.to_csv(csv, index=False)

    print(f"SPA Fig. 4 — {PAPER}")
    print(NO_DATA_NOTE)
    print(PROOF)
    print(f"max spread between the mean-subtracted normalised inv_var curves (C = 2..7, "
          f"n = 2..10): {spread:.3e}")
    print(f"max |normalised inv_var − n(n−1)/Σ m(m−1)|: {off_theory:.3e}; "
          f"max |inv_var − edges| (normalised, C = 2): {inv_var_vs_edges:.3e}")
    print(status_text("spa_fig4"))
    print(f"wrote {png} and {csv} in {timer}")
    return 0 if spread < 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main())
