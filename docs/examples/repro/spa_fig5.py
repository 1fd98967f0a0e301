"""
SPA Fig. 5: inv_var_class weights and the entropy of the class distribution
===========================================================================

**The paper.** Nørregaard & Derczynski (2022, arXiv:2208.06161), Fig. 5: the inv_var_class
weight curves for random class distributions, and the sum under each curve against the
distribution's entropy, which shows "some relationship … but they do not directly
correspond".

**What kappalab obtains.** A one-parameter family explains both panels. With a = Σ p_c²,
b = Σ p_c³, ζ₁ = b − a² and ζ₂ = a(1 − a), the weights are
w(n) ∝ n(n − 1)/(1 + (n − 2)s) with s = 2ζ₁/ζ₂ in [0, 1]: edges at s = 0 (uniform p),
annotations_m1 at s = ½, annotations at s = 1 (one class dominating). The normalised sum
S(s) = Σ_{n=2}^{10} n(n − 1)(1 + 8s)/(90(1 + (n − 2)s)) is a function of s alone, increasing
from 3.667 (edges) to 5.4 (annotations); entropy grows with C and s does not, hence the
paper's loose relationship. The bottom panel sets the sums against s: Spearman 1, and the
closed form matches every sum to about 1e-14.

**Status.** Fig. 5: qualitatively reproduced — the same procedure on fresh random
distributions shows what the paper states; its own draws are not published, so the figure is
not matched point for point (``paper_repro/status.py``).

**Data.** None: class distributions are drawn at random (logits uniform in (−2, 4), softmax,
C = 2..10) and the weights computed analytically (:func:`kappalab.spa_weights`); the quick run
draws 25 distributions per C for the middle panel, the full run 250.

**Full run.** ``python -m paper_repro.spa_fig5`` (seconds).
"""

# %%
# Run the script
# --------------
# In its quick setting, into a temporary folder.

import shutil
import tempfile
from pathlib import Path

from paper_repro import spa_fig5
from paper_repro.reporting import show_png

out = Path(tempfile.mkdtemp(prefix="kappalab-gallery-"))
assert spa_fig5.main(["--quick", "--out", str(out)]) == 0

# %%
# The figure
# ----------
# ``spa_fig5.png``, as the script wrote it.


show_png(out / "spa_fig5.png")
shutil.rmtree(out)  # the temporary output folder
