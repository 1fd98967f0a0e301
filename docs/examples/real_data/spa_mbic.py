"""
Sparse Probability of Agreement on the real MBIC labels
=======================================================

**The paper.** Nørregaard & Derczynski (2022, arXiv:2208.06161), Figs 6–7 and Table 1 (MBIC
row): at a fixed number of annotations, more annotations per item lower the variance of SPA;
the sparse curve (labels added at random) has the variance of the constant-2 curve;
annotations_m1 "works well for all four datasets", and the weighting has relatively little
effect.

**What kappalab obtains** (full run, 3 000 rounds, every label row kept: 17 775 labels).
Fig. 6: N·Var (exact for these data) falls with the labels per sentence only up to j = 6:
0.472 at j = 2, 0.326 (j = 3), 0.271 (j = 5), 0.267 at j = 6, then 0.268, 0.273, 0.279 at
j = 7, 8, 9 and 0.287 at j = 10. The measured variance matches the exact value
(measured/predicted 0.968–1.024 at N = 215), so the minimum at j = 6 is a property of the
data: the spread of the sentences' own agreement, B ≈ 0.028, is paid once per sentence while
the pair noise an extra label saves shrinks. The sparse curve has the variance of the
constant-2 curve (ratio 0.986). Fig. 7 / Table 1, the area ∫ (Var − Var_flat) dN relative to
flat's ± one batch SE: annotations_m1 −10.38 % ± 0.31 (rank 1), annotations −8.70 % ± 0.20,
inv_var_class −7.73 % ± 0.47, edges = inv_var −5.65 % ± 0.52. annotations_m1 works well on
the real MBIC, as the paper concludes: it is the lowest scheme in each of the 10 batches of
rounds. The simulated MBIC stand-in, run through the same functions, tells the same story.

**Status.** Fig. 6, annotations per item (MBIC): not reproduced — the variance at a fixed N
falls with labels per sentence only up to j = 6, then rises. Fig. 6, sparse curve (MBIC):
qualitatively reproduced — 0.986 times the constant-2 variance. Fig. 7 and Table 1, MBIC row:
qualitatively reproduced — annotations_m1 is the lowest scheme; Table 1's numbers are not
compared (``paper_repro/status.py``).

**Data.** Real: the MBIC bias labels (Spinde et al. 2021; 1 700 news sentences, Biased /
Non-biased, 9–12 Mechanical Turk labels each), read with
``kappalab.datasets.fetch("mbic", label="bias", duplicates="separate")``; beside them the
simulated MBIC stand-in of :doc:`/gallery/repro/spa_fig6`. Here the quick run gets 300 rounds
(``--rounds 300``; ``--quick`` alone uses 20), a tenth of the full run's, so its curves are
noisier.

**Full run.** ``KAPPALAB_DATA=/path/to/data python -m paper_repro.spa_mbic`` (35–45 s).
"""

# %%
# The original file
# -----------------
# :func:`kappalab.datasets.fetch` reads it from the folder named by ``KAPPALAB_DATA`` (else
# kappalab's cache folder) and downloads it when it is missing. This example downloads
# nothing: it runs the analysis only when the file is there.

import shutil
import tempfile
from pathlib import Path

from kappalab.datasets import data_folder
from kappalab.datasets.real import SOURCE_FILES

folder = data_folder()
source = SOURCE_FILES["mbic"]
missing = not (folder / source.relative_path).is_file()
if missing:
    print(f"missing: {folder / source.relative_path}\n"
          f"  get it with kappalab.datasets.fetch('mbic', label='bias') (network access "
          f"needed once),\n  or download {source.url}\n"
          f"  and set KAPPALAB_DATA to a folder holding {source.relative_path}\n"
          "Without this file this example runs nothing: no numbers and no figures below.")
else:
    print(f"the MBIC file is in {folder}")

# %%
# Run the script
# --------------
# In its quick setting with 300 rounds, into a temporary folder. It prints Fig. 6's components
# (j·W_j + j·B_j per j), the measured against the predicted variance, Table 1 for the real
# data and the stand-in, and the verdict on annotations_m1.

from paper_repro import spa_mbic  # noqa: E402
from paper_repro.reporting import show_png  # noqa: E402

if not missing:
    out = Path(tempfile.mkdtemp(prefix="kappalab-gallery-"))
    assert spa_mbic.main(["--quick", "--rounds", "300", "--out", str(out)]) == 0

# %%
# The figures
# -----------
# Fig. 6 (real data and stand-in), N·Var against N, the components, Fig. 7 and Fig. 7
# relative to flat.


if not missing:
    for name in ("fig6", "fig6_scaled", "fig6_components", "fig7", "fig7_relative"):
        show_png(out / f"spa_mbic_{name}.png")
    shutil.rmtree(out)  # the temporary output folder
