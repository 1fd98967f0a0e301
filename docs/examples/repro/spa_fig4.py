"""
SPA Fig. 4: the inv_var weights do not depend on the number of classes
======================================================================

**The paper.** Nørregaard & Derczynski (2022, arXiv:2208.06161), Fig. 4: the normalised
inv_var weights of Sparse Probability of Agreement for items with n = 2..10 annotations and
C = 2..7 classes; each curve minus its mean falls on the others. The paper observes that the
weights do not depend on C without proving it.

**What kappalab obtains.** The curves coincide exactly, and the script states why: the
agreement P of an item with n annotations drawn iid from p is a U-statistic of order 2, so
Var[P] = (4(n − 2)ζ₁ + 2ζ₂)/(n(n − 1)); for uniform p over C classes ζ₁ = 0 and
Var[P] = 2(C − 1)/(C² n(n − 1)), n(n − 1) times a factor of C alone, which cancels on
normalising. The normalised inv_var weights are therefore n(n − 1)/Σ m(m − 1) for every C,
exactly the normalised edges weights. The measured spread between the curves is 1.7e-16
(rounding), in the quick and the full run alike: the weights are analytic
(:func:`kappalab.spa_weights`).

**Status.** Fig. 4: reproduced — the curves coincide exactly and equal edges
(``paper_repro/status.py``).

**Data.** None: the figure is computed from the weights.

**Full run.** ``python -m paper_repro.spa_fig4`` (the same figure; ``--quick`` changes
nothing here).
"""

# %%
# Run the script
# --------------
# ``main`` takes the script's command-line arguments; its outputs go to a temporary folder.

import shutil
import tempfile
from pathlib import Path

from paper_repro import spa_fig4
from paper_repro.reporting import show_png

out = Path(tempfile.mkdtemp(prefix="kappalab-gallery-"))
assert spa_fig4.main(["--quick", "--out", str(out)]) == 0

# %%
# The figure
# ----------
# ``spa_fig4.png``, as the script wrote it.


show_png(out / "spa_fig4.png")
shutil.rmtree(out)  # the temporary output folder
