"""
SPA Fig. 6: the variance of SPA under subsampling
=================================================

**The paper.** Nørregaard & Derczynski (2022, arXiv:2208.06161), Fig. 6: the variance of SPA
over 3 000 random subsampling rounds against the number of annotations used N, with a constant
j annotations per item and with annotations added one at a time at random (sparse), on DAR,
MBIC, BSMTWE and FECG. At a fixed N, more annotations per item lower the variance, and the
sparse curve has about the variance of the constant-2 curve.

**What kappalab obtains.** With j annotations on each of N/j items,
N·Var ≈ j·W_j + j·B: W_j, the pair noise of an item's agreement from j annotations, shrinks
about like 1/j, while B, the spread of the items' own agreement, is paid once per item. More
annotations per item lower the variance only while B < j·W_j − (j + 1)·W_{j+1}. In the full
run (3 000 rounds) the measured variance matches its exact value for the data (W_j and B_j
from multivariate hypergeometric moments) to Monte Carlo error, measured/predicted
0.94–1.04 over every dataset and j (2 SE ≈ ±5 %). On the FECG stand-in the paper's finding
is reversed from j = 3 on (on MBIC and BSMTWE past j ≈ 3–6): its easy items are nearly
unanimous and its hard ones not, so B is large against the pair noise. The paper's real FECG
must have items that differ less in agreement, relative to their pair noise
(``paper_repro/README.md``). The second figure plots j·W_j, j·B_j, their sum and the measured
N·Var at one N.

**Status.** Fig. 6, annotations per item: not reproduced — on the stand-ins the variance at
a fixed N is lowest at j = 3 (BSMTWE, FECG) or j = 6 (MBIC) and rises after; it falls
throughout only on DAR, which has j = 2 and 3 alone. Fig. 6, sparse curve: qualitatively
reproduced — the sparse variance is 0.974–1.026 times the constant-2 variance
(``paper_repro/status.py``).

**Data.** Simulated stand-ins of the four datasets' shape (items, classes, annotations per
item; prevalence, reliability and the mix of easy and hard items assumed), drawn with
:func:`kappalab.simulate.annotations`; the originals are not available offline. Here the quick
run's smaller stand-ins get 300 rounds (``--rounds 300``; ``--quick`` alone uses 20), a tenth
of the paper's, so the curves are still noisier than the full run's.

**Full run.** ``python -m paper_repro.spa_fig6`` (3 000 rounds, about 5.5 CPU-minutes;
``--jobs 2`` by default, one process per dataset).
"""

# %%
# Run the script
# --------------
# In its quick setting with 300 rounds, in this process (``--jobs 1``), into a temporary
# folder.

import shutil
import tempfile
from pathlib import Path

from paper_repro import spa_fig6
from paper_repro.reporting import show_png

out = Path(tempfile.mkdtemp(prefix="kappalab-gallery-"))
assert spa_fig6.main(["--quick", "--rounds", "300", "--jobs", "1", "--out", str(out)]) == 0

# %%
# The figures
# -----------
# ``spa_fig6.png`` (the variance curves) and ``spa_fig6_components.png`` (why they are
# ordered in j as they are).


show_png(out / "spa_fig6.png")
show_png(out / "spa_fig6_components.png")
shutil.rmtree(out)  # the temporary output folder
