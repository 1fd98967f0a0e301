"""
Cross-replication reliability on real rater pools: MBIC's crowd and BABE's experts
==================================================================================

**The paper.** Wong, Paritosh & Aroyo (2021, ACL, doi:10.18653/v1/2021.acl-long.548) define
κx, the agreement between two replications of an annotation (two rater pools labelling the
same items), and normalized κx = κx/√(IRR_X·IRR_Y); on IRep's 93 pairs of city pools
normalized κx tracks Spearman's corrected correlation ρ_xy with a Pearson r of 0.99 (Fig. 7).

**What kappalab obtains** (full run, real data). (b1) On the 1 698 sentences that all three
groups labelled, normalized κx between MBIC's crowd and either BABE expert group is 0.83–0.95
(bias: crowd–SG1 0.825 [0.793, 0.856], crowd–SG2 0.898 [0.863, 0.935]; opinion 0.933 and
0.945), while SG1–SG2 is 1.185 [1.165, 1.206] (bias): five annotators belong to both expert
groups and give 6 763 of SG2's 8 469 labels on these sentences, so SG2 is not an independent
replication of SG1, and :func:`kappalab.cross_kappa` says so with a ``SharedRatersWarning``.
(b2) Fig. 7 on real pools: across the 26 pairs of disjoint MBIC worker pools (split by
political ideology, gender, education, native language and age band; 13 pairs × 2 labels),
Pearson r between normalized κx and ρ_xy is 0.800 [0.649, 0.904] (bootstrap over the pairs),
against the paper's 0.99. Pools drawn from one crowd labelling the same sentences are
near-faithful replications: normalized κx spans only 0.84–1.21 (SD 0.087, about its typical
SE of 0.078), so the scatter is mostly sampling noise; the paper's 93 pairs span values from
about 0 to 1. The one clear non-replication is left- vs right-leaning workers on bias: 0.838
[0.746, 0.940].

**Status.** Fig. 7 (§4.5) on real rater pools: not reproduced — r = 0.800 over 26 pairs of
MBIC worker pools against the paper's 0.99: pools from one crowd are near-faithful
replications, so their scatter is mostly sampling noise (``paper_repro/status.py``).

**Data.** Real: MBIC (Spinde et al. 2021: 1 700 news sentences, 809 Mechanical Turk workers,
9–12 labels per sentence, with the workers' characteristics) and BABE's expert subgroups SG1
and SG2 (Spinde et al. 2021), read with :func:`kappalab.datasets.fetch`. The quick run uses
fewer split-halves, bootstrap replicates and paired resamples than the full run.

**Full run.** ``KAPPALAB_DATA=/path/to/data python -m paper_repro.xrr_real`` (about 130 s).
"""

# %%
# The original files
# ------------------
# :func:`kappalab.datasets.fetch` reads them from the folder named by ``KAPPALAB_DATA`` (else
# kappalab's cache folder) and downloads a missing one. This example downloads nothing: it
# runs the analysis only when all three files are there.

import shutil
import tempfile
from pathlib import Path

from kappalab.datasets import data_folder
from kappalab.datasets.real import SOURCE_FILES

folder = data_folder()
missing = [name for name in ("mbic", "babe-sg1", "babe-sg2")
           if not (folder / SOURCE_FILES[name].relative_path).is_file()]
for name in missing:
    source = SOURCE_FILES[name]
    print(f"missing: {folder / source.relative_path}\n"
          f"  get it with kappalab.datasets.fetch({name!r}, label='bias') (network access "
          f"needed once),\n  or download {source.url}\n"
          f"  and set KAPPALAB_DATA to a folder holding {source.relative_path}")
if missing:
    print("Without these files this example runs nothing: no numbers and no figure below.")
else:
    print(f"the MBIC, BABE SG1 and SG2 files are in {folder}")

# %%
# Run the script
# --------------
# In its quick setting, into a temporary folder. It prints (b1), each pool's α, the shared
# annotators and (b2) with Pearson r per label and characteristic.

from paper_repro import xrr_real  # noqa: E402
from paper_repro.reporting import show_png  # noqa: E402

if not missing:
    out = Path(tempfile.mkdtemp(prefix="kappalab-gallery-"))
    assert xrr_real.main(["--quick", "--out", str(out)]) == 0

# %%
# The figure
# ----------
# ``xrr_real.png``: (b2) on the left, (b1) on the right.


if not missing:
    show_png(out / "xrr_real.png")
    shutil.rmtree(out)  # the temporary output folder
