"""
Priors of the Bayesian models
=============================

**The question.** With 50 items the posterior means of the Bayesian models ran low: Cohen's
κ by 0.048 and binary κx by 0.060 under uniform priors. How much of that is the prior, and
which defaults reduce it without hurting the coverage of the 95 % intervals?

**What kappalab obtains.** Every candidate prior is fitted to the same simulated datasets
(a paired comparison), against the exact truths of :mod:`kappalab.simulate`. With 50 items
and reliability 0.6, the shipped defaults bring the bias of the posterior mean from −0.048 to
−0.024 ± 0.010 for :func:`kappalab.bayes.cohen_kappa` (Dirichlet(1/K²) cells, Perks) and
from −0.060 to −0.027 ± 0.019 for :func:`kappalab.bayes.cross_replication` on binary data
(priors under which a median split's κ is uniform, by Sheppard's formula), with the coverage
of the intervals unchanged within its Monte Carlo error; the nominal model is within
0.004 ± 0.010 of the truth and keeps its prior (:doc:`/guide/bayes`).

**Data.** Simulated: the designs of ``experiments/interval_coverage.py`` at reliabilities
0.3, 0.6 and 0.8 and 50, 200 and 1 000 items. The quick run fits the nominal and Cohen
models, 50 items, 2 datasets, 60 draws; the full run 100 datasets per cell (scaled per
model).

**Full run.** ``python -m experiments.bayes_priors`` (the figures above come from
``--models cohen`` and ``--models kx_binary nominal --datasets 50 --reliabilities 0.6 0.8
--sizes 50 200``, 13 and 27 minutes on two cores).
"""

# %%
# Run the study
# -------------
# In its quick setting, in this process (``--scheduler serial``), into a temporary folder. It
# prints the bias and coverage of every model × prior × size.

import shutil
import tempfile
from pathlib import Path

from experiments import bayes_priors
from paper_repro.reporting import show_png

out = Path(tempfile.mkdtemp(prefix="kappalab-gallery-"))
table = bayes_priors.main(["--quick", "--scheduler", "serial", "--out", str(out)])

# %%
# The figure
# ----------
# ``bayes_priors.png``: the bias of the posterior mean (± 2 Monte Carlo SE) against items,
# one line per prior.


show_png(out / "bayes_priors.png")
shutil.rmtree(out)  # the temporary output folder
