"""
Snow et al. (2008): cheap and fast, but is it good?
===================================================

**The paper.** Snow, O'Connor, Jurafsky & Ng (2008, EMNLP, "Cheap and Fast — But is it
Good?"): 11 tasks (recognising textual entailment, temporal ordering, word-sense
disambiguation, six affect ratings, valence, word similarity) labelled 10 times per item by
Mechanical Turk workers. Few non-expert labels, aggregated, match the experts: the 10-label
majority vote is 89.7 % accurate on RTE and 99.4 % on WSD, and the workers' mean correlates
0.952 with the experts' word-similarity scores (these three values are as the script recalls
them, not re-read from the paper; its output says how sure it is of each). For the affect
tasks the paper reports an inter-annotator agreement (ITA) correlation of each rater with the
mean of the others.

**What kappalab obtains** (full run, real data). Single labels are unreliable, the aggregate is
good: nominal α is 0.241 (RTE) and 0.223 (temporal ordering), yet the 10-label majority vote
matches the expert label on 89.7 % and 93.6 % of the items; the three values quoted above (89.7
% for RTE, 99.4 % for WSD, 0.952 for word similarity) are reproduced exactly. A few prolific
workers at chance accuracy explain the low α: on RTE, 9 of 164 workers with accuracy below 0.6
give 38 % of the labels, and without them α is 0.60. On the 8 numeric tasks Snow's ITA
correlation exceeds interval α by 0.17–0.26: correlating with the mean of 9 others steps the
single-pair correlation up (Spearman–Brown; about two thirds of the gap), and the correlation
ignores each rater's offset, which α counts as disagreement (about a fifth).

**Status.** accuracy and correlation with the experts: reproduced — 89.7 %, 99.4 % and
0.952 to their printed digits, with the paper's values as the script recalls them; the
expert-vs-worker ITA table is not compared (``paper_repro/status.py``).

**Data.** Real: the paper's own annotations (10 worker labels and the expert label of every
item, 11 tasks), read with :func:`kappalab.datasets.fetch` (``snow2008-rte`` …
``snow2008-wordsim``). The quick run uses 200 bootstrap replicates (full run 2 000) and 20
random subsets per point of the aggregation curves (full run 200).

**Full run.** ``KAPPALAB_DATA=/path/to/data python -m paper_repro.snow2008`` (about 23 s).
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
source = SOURCE_FILES["snow2008"]
missing = not (folder / source.relative_path).is_file()
if missing:
    print(f"missing: {folder / source.relative_path}\n"
          f"  get it with kappalab.datasets.fetch('snow2008-rte') (network access needed "
          f"once),\n  or download {source.url}\n"
          f"  and set KAPPALAB_DATA to a folder holding {source.relative_path}\n"
          "Without this file this example runs nothing: no numbers and no figure below.")
else:
    print(f"Snow et al.'s file is in {folder}")

# %%
# Run the script
# --------------
# In its quick setting, into a temporary folder. It prints, per task, α with its analytic
# and BCa intervals, the agreement with gold and the ITA correlation, then the values the
# paper publishes beside kappalab's.

from paper_repro import snow2008  # noqa: E402
from paper_repro.reporting import show_png  # noqa: E402

if not missing:
    out = Path(tempfile.mkdtemp(prefix="kappalab-gallery-"))
    assert snow2008.main(["--quick", "--out", str(out)]) == 0

# %%
# The figure
# ----------
# ``snow2008.png``: α per task with both intervals and the agreement with gold (left), α
# against the ITA correlation (right).


if not missing:
    show_png(out / "snow2008.png")
    shutil.rmtree(out)  # the temporary output folder
