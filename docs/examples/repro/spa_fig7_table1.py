"""
SPA Fig. 7 and Table 1: which weighting scheme has the lowest variance
======================================================================

**The paper.** Nørregaard & Derczynski (2022, arXiv:2208.06161), Fig. 7 and Table 1: the
variance of SPA under each weighting scheme (flat, annotations, annotations_m1, edges,
inv_var, inv_var_class) minus the flat baseline as annotations are added at random, and the
area under each curve per dataset. Its conclusion: annotations_m1 "works well" on all four
datasets, and the weighting has relatively little effect.

**What kappalab obtains.** inv_var equals edges exactly (its weights are n(n − 1) times a
factor of C; see :doc:`spa_fig4`), so their curves coincide. The ranking depends on how much
the items' agreement varies between items: that spread flattens the optimal weights towards
annotations and annotations_m1, which the oracle row ``model_optimal`` (weights 1/Var[P̂_n]
of the simulation model; not one of the paper's schemes, not ranked) shows. In the full run
(3 000 rounds) the MBIC stand-in's row has annotations_m1 lowest at −11.80 % of flat's area
(the oracle −12.03 %); on the real MBIC labels annotations_m1 is lowest too, −10.38 % ± 0.31
(:doc:`/gallery/real_data/spa_mbic`). The full run writes the table for all four stand-ins to
``spa_table1.md``.

**Status.** Fig. 7 and Table 1: qualitatively reproduced — annotations_m1's area is below
flat's on all four stand-ins and the lowest on two (second to annotations on DAR and FECG);
no scheme moves the area by more than 12 %. Table 1's numbers are not compared
(``paper_repro/status.py``).

**Data.** Simulated stand-ins of DAR, MBIC, BSMTWE and FECG (see :doc:`spa_fig6`). Here the
quick run's smaller stand-ins get 300 rounds (``--rounds 300``; ``--quick`` alone uses 20), a
tenth of the paper's, so the areas are still noisier than the full run's.

**Full run.** ``python -m paper_repro.spa_fig7_table1`` (3 000 rounds, about 5 CPU-minutes).
"""

# %%
# Run the script
# --------------
# In its quick setting with 300 rounds, in this process (``--jobs 1``), into a temporary
# folder. It prints
# Table 1's analogue: each scheme's area relative to flat's, with a standard error from
# batches of rounds.

import shutil
import tempfile
from pathlib import Path

from paper_repro import spa_fig7_table1
from paper_repro.reporting import show_png

out = Path(tempfile.mkdtemp(prefix="kappalab-gallery-"))
assert spa_fig7_table1.main(["--quick", "--rounds", "300", "--jobs", "1", "--out", str(out)]) == 0

# %%
# The figures
# -----------
# ``spa_fig7.png`` (Var − Var_flat) and ``spa_fig7_relative.png`` (Var/Var_flat − 1).


show_png(out / "spa_fig7.png")
show_png(out / "spa_fig7_relative.png")
shutil.rmtree(out)  # the temporary output folder
