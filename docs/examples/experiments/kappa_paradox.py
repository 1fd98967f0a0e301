"""
The kappa paradox
=================

**The question.** Feinstein & Cicchetti (1990): two raters who agree just as well on the
underlying trait produce a κ that collapses as one category becomes rare, while their percent
agreement rises. How do Cohen's κ, Scott's π, Krippendorff's α, Gwet's AC1 and percent
agreement move with the prevalence at a fixed latent agreement?

**What kappalab obtains.** The population values are exact (from :mod:`kappalab.simulate`,
the same in the quick and the full run): at a latent ICC of 0.7 and two raters per item,
κ = π = α is 0.494 with a 50 % majority category and 0.259 with a 99 % majority, while AC1
rises from 0.494 to 0.985 and percent agreement from 0.747 to 0.985; the means of the
estimators over the simulated datasets follow them. κ and α are not wrong here: they measure
agreement beyond what the category shares predict (:doc:`/guide/choosing`).

**Data.** Simulated: binary judgements from the latent-threshold model
(:func:`kappalab.simulate.annotations`, level "binary") at a fixed latent ICC, two raters per
item, 1 000 items per dataset. The quick run has 5 majority shares × 4 datasets; the full run
25 shares × 100 datasets.

**Full run.** ``python -m experiments.kappa_paradox`` (about 35 s with two workers).
"""

# %%
# Run the study
# -------------
# In its quick setting, in this process (``--scheduler serial``), into a temporary folder. It
# prints the population values beside the estimators' means.

import shutil
import tempfile
from pathlib import Path

from experiments import kappa_paradox
from paper_repro.reporting import show_png

out = Path(tempfile.mkdtemp(prefix="kappalab-gallery-"))
table = kappa_paradox.main(["--quick", "--scheduler", "serial", "--out", str(out)])

# %%
# The figure
# ----------
# ``kappa_paradox.png``: the population curves and the estimators' means (± 2 SE). With two
# raters and no missing annotation κ, π and α nearly coincide; their hollow markers are set
# side by side at each share, so that each one shows.


show_png(out / "kappa_paradox.png")
shutil.rmtree(out)  # the temporary output folder
