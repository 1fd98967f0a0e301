"""
Models of annotation on real data: which label is right
=======================================================

**The paper.** Hovy, Berg-Kirkpatrick, Vaswani & Hovy (2013, NAACL-HLT, "Learning Whom to
Trust with MACE"): an item-response model in which each annotator knows the answer with a
probability (its competence) and otherwise spams. Its abstract reports considerable
improvements over standard baselines, such as the majority vote, in the accuracy of the
predicted labels.

**What kappalab obtains** (full run, real data). Snow et al.'s (2008) tasks come with an
expert label for every item. On RTE, MACE labels 0.929 of the items as the experts do.
Dawid–Skene labels 0.928, against 0.919 for the majority vote with ties to the first class
and 0.897 with ties split at random. On TEMP the gain is a third of a point, and on WSD
there is none: a single item is wrong however the labels are combined. The pooled
multinomial model, with one confusion matrix for all annotators, is the worst on RTE
(0.886). The Bayesian forms (posterior most probable class) score within a quarter of a
point of their EM forms on every task. On MBIC, every EM model's aggregated crowd label
agrees better with BABE's experts than the vote's: κx against SG1 is 0.400 for Dawid–Skene
and 0.376 for the vote. Of the Bayesian models, whose priors weigh on workers of about 22
labels each, the hierarchical Dawid–Skene agrees most (0.408), the per-annotator
Dawid–Skene about as the vote (0.377) and MACE less (0.362).

**Status.** abstract: accuracy against the baselines: qualitatively reproduced — MACE
improves on the vote on RTE, slightly on TEMP and not on WSD; the paper's own table is not
compared (``paper_repro/status.py``).

**Data.** Real: Snow et al.'s worker and expert labels (``snow2008-rte``, ``-temp``,
``-wsd``) and MBIC's crowd with BABE's SG1 and SG2 (``mbic``, ``babe-sg1``, ``babe-sg2``),
read with :func:`kappalab.datasets.fetch`. The quick run uses 100 bootstrap replicates (full
run 1 000) and leaves out crowd-kit's models, which take about 40 s a task, and the Bayesian
models (up to 2 minutes a fit with nutpie).

**Full run.** ``KAPPALAB_DATA=/path/to/data python -m paper_repro.annotation_models``.
"""

# %%
# The original files
# ------------------
# :func:`kappalab.datasets.fetch` reads them from the folder named by ``KAPPALAB_DATA`` (else
# kappalab's cache). Without them this example says which file is missing and stops there.

import shutil
import tempfile
from pathlib import Path

from kappalab.datasets import data_folder
from kappalab.datasets.real import SOURCE_FILES

folder = data_folder()
absent = [SOURCE_FILES[name] for name in ("snow2008", "mbic", "babe-sg1", "babe-sg2")
          if not (folder / SOURCE_FILES[name].relative_path).is_file()]
for source in absent:
    print(f"missing: {folder / source.relative_path}\n"
          f"  download {source.url}\n"
          f"  and set KAPPALAB_DATA to a folder holding {source.relative_path}")
if absent:
    print("Without these files this example runs nothing: no numbers and no figure below.")
else:
    print(f"the original files are in {folder}")

# %%
# The quick run
# -------------
# Every model is fitted by EM to convergence. The tables give the accuracy against the
# expert labels, then κx of MBIC's aggregated label against each expert group.

from paper_repro import annotation_models  # noqa: E402
from paper_repro.reporting import show_png  # noqa: E402

if not absent:
    out = Path(tempfile.mkdtemp(prefix="kappalab-gallery-"))
    assert annotation_models.main(["--quick", "--out", str(out)]) == 0

# %%
# The figure
# ----------
# Left: the accuracy of each aggregation on the three tasks. Right: κx against the experts,
# with its bootstrap interval.

if not absent:
    show_png(out / "annotation_models.png")
    shutil.rmtree(out)  # the temporary output folder
