"""
Bias of SPA and spa_kappa under every weighting
===============================================

**The question.** Sparse Probability of Agreement (:func:`kappalab.spa`) weighs each item by
a function of its number of annotations (flat, annotations, annotations_m1, edges, inv_var,
inv_var_class). Is it unbiased for the population probability of agreement, and is the
chance-corrected :func:`kappalab.spa_kappa` unbiased for κ?

**What kappalab obtains.** Each scheme's large-sample limit is exact, computed from the
simulation model. Under MCAR every limit is the truth: SPA is unbiased for every scheme.
Under MNAR (harder items get more annotations) only flat weights stay unbiased; with 2–6
annotations per item the exact large-sample biases are −0.0177 (annotations), −0.0236
(annotations_m1), −0.0351 (edges = inv_var) and −0.0277 (inv_var_class), against a truth of
0.73, the more the weights favour items with many annotations. spa_kappa is a ratio of two
estimates from the same data and biased in small samples even under MCAR, by order 1/n: the
study prints its bias, Monte Carlo SE, n × bias and a fitted bias ≈ b/n per design and
weighting (:doc:`/guide/spa`).

**Data.** Simulated: nominal labels from the Dirichlet–multinomial model of
:func:`kappalab.simulate.annotations` (3 categories, prevalence 0.6/0.3/0.1, κ = α = 0.5,
P = 0.73; items easy or hard), 1–3, 2–6 or 5–12 annotations per item, MCAR or MNAR, 20 to
5 000 items. The quick run has 2–6 annotations, 20 and 200 items and 8 datasets per cell.

**Full run.** ``python -m experiments.spa_bias`` (15 300 datasets; 12 min with two workers).
"""

# %%
# Run the study
# -------------
# In its quick setting, in this process (``--scheduler serial``), into a temporary folder. It
# prints SPA's bias per weighting beside its exact large-sample bias, and spa_kappa's
# small-sample bias.

import shutil
import tempfile
from pathlib import Path

from experiments import spa_bias
from paper_repro.reporting import show_png

out = Path(tempfile.mkdtemp(prefix="kappalab-gallery-"))
table = spa_bias.main(["--quick", "--scheduler", "serial", "--out", str(out)])

# %%
# The figure
# ----------
# ``spa_bias.png``: the bias of SPA (top) and spa_kappa (bottom) against the items, MCAR
# (left) and MNAR (right), the exact large-sample bias dotted.


show_png(out / "spa_bias.png")
shutil.rmtree(out)  # the temporary output folder
