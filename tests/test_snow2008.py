"""paper_repro/snow2008.py on Snow et al.'s (2008) original data: the quick run writes its
outputs; reference agreement and the brute-force inter-annotator correlation equal plain
recomputations written out here; the aggregate accuracies match the paper.

Every test needs the original archive (kappalab.datasets.fetch, through KAPPALAB_DATA) and
skips, saying where it looked, when it is absent.
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kappalab as kl
from kappalab.datasets import data_folder, fetch
from kappalab.datasets.real import SOURCE_FILES
from test_repro_status import assert_status_in

ROOT = Path(__file__).resolve().parents[1]


def original():
    """The local Snow et al. archive, or a visible skip naming where it was sought."""
    path = data_folder() / SOURCE_FILES["snow2008"].relative_path
    if not path.is_file():
        pytest.skip(f"real data absent: {path} (set KAPPALAB_DATA to a folder holding "
                    f"{SOURCE_FILES['snow2008'].relative_path}, or fetch it once with network)")
    return path


def snow(task):
    original()
    return fetch(f"snow2008-{task}")


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    original()
    out = tmp_path_factory.mktemp("snow2008")
    result = subprocess.run([sys.executable, "-m", "paper_repro.snow2008", "--quick", "--out",
                             str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return out, result.stdout


@pytest.mark.slow
def test_quick_run_writes_its_outputs(quick_run):
    out, stdout = quick_run
    for name in ("snow2008_agreement.csv", "snow2008_gold.csv", "snow2008_curves.csv",
                 "snow2008_correlation.csv", "snow2008_raters.csv", "snow2008.md"):
        assert (out / name).stat().st_size > 200, name
    assert (out / "snow2008.png").stat().st_size > 20_000
    assert "REAL" in stdout and "REAL" in (out / "snow2008.md").read_text()
    assert_status_in(stdout, "snow2008")
    assert_status_in((out / "snow2008.md").read_text(), "snow2008")

    tidy = pd.read_csv(out / "snow2008_agreement.csv")
    assert {"task", "coefficient", "method", "value", "se", "ci_low", "ci_high"} <= set(tidy)
    alpha = tidy[tidy["coefficient"] == "Krippendorff's alpha"]
    assert len(alpha) == 11 * 2  # 11 tasks × (analytic, BCa)
    assert set(alpha["method"]) == {"analytic", "BCa bootstrap"}
    assert (alpha["ci_low"] < alpha["value"]).all() and (alpha["value"] < alpha["ci_high"]).all()
    # the report's α is kappalab's α at the task's level
    rte = alpha[(alpha["task"] == "rte")]["value"].iloc[0]
    assert rte == pytest.approx(float(kl.krippendorff_alpha(snow("rte").annotations)), abs=1e-12)

    corr = pd.read_csv(out / "snow2008_correlation.csv")
    assert "wsd" not in set(corr["task"])  # unordered senses: no correlation
    assert len(corr) == 10
    assert (corr["ita_correlation"] > corr["alpha"]).all()


def test_reference_agreement_is_brute_force_kappa_x_on_rte():
    data = snow("rte")
    est = kl.reference_agreement(data.annotations, data.gold)
    labels = defaultdict(list)
    for item, value in zip(data.annotations.to_long()["item"], data.annotations.to_long()["value"]):
        labels[item].append(value)
    gold = data.gold.to_dict()
    # κx (Wong, Paritosh & Aroyo 2021, eqs 6–11) with one reference label per item (S_i = 1):
    # d_o weights each item by R_i + 1 and averages its R_i cross pairs;
    # d_e averages all R × S pairs of a worker label and a reference label over all items
    weighted, weights = 0.0, 0.0
    for item, values in labels.items():
        mismatches = sum(v != gold[item] for v in values)
        weighted += (len(values) + 1) * mismatches / len(values)
        weights += len(values) + 1
    d_o = weighted / weights
    all_labels = [v for values in labels.values() for v in values]
    references = [gold[item] for item in labels]
    d_e = sum(a != b for a in all_labels for b in references) / (len(all_labels)
                                                                 * len(references))
    assert float(est) == pytest.approx(1 - d_o / d_e, abs=1e-10)


def test_reference_agreement_is_brute_force_kappa_x_on_an_interval_task():
    data = snow("anger")
    est = kl.reference_agreement(data.annotations, data.gold, level="interval")
    long = data.annotations.to_long()
    gold = data.gold.to_dict()
    labels = defaultdict(list)
    for item, value in zip(long["item"], long["value"]):
        labels[item].append(float(value))
    weighted = weights = 0.0
    for item, values in labels.items():
        weighted += (len(values) + 1) * sum((v - gold[item]) ** 2 for v in values) / len(values)
        weights += len(values) + 1
    all_labels = [v for values in labels.values() for v in values]
    references = [float(gold[item]) for item in labels]
    d_e = sum((a - b) ** 2 for a in all_labels for b in references) / (len(all_labels)
                                                                       * len(references))
    assert float(est) == pytest.approx(1 - (weighted / weights) / d_e, abs=1e-10)


def plain_pearson(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 1e-12 * n or syy <= 1e-12 * n:
        return None
    return sxy / math.sqrt(sxx * syy)


@pytest.mark.parametrize("task", ["anger", "wordsim", "rte"])
def test_inter_annotator_correlation_is_a_plain_double_loop(task):
    from paper_repro.snow2008 import inter_annotator_correlation_table

    data = snow(task)
    summary, per_rater = inter_annotator_correlation_table(data)
    long = data.annotations.to_long()
    by_item = defaultdict(dict)
    for item, rater, value in zip(long["item"], long["rater"], long["value"]):
        by_item[item][rater] = float(value)
    expected = {}
    for rater in long["rater"].unique():  # rater × item double loop
        xs, ys = [], []
        for ratings in by_item.values():
            if rater in ratings and len(ratings) > 1:
                others = [v for r, v in ratings.items() if r != rater]
                xs.append(ratings[rater])
                ys.append(sum(others) / len(others))
        if len(xs) >= 3:
            r = plain_pearson(xs, ys)
            if r is not None:
                expected[rater] = r
    got = per_rater.set_index("rater")["r"].dropna()
    assert set(got.index) == set(expected)
    for rater, r in expected.items():
        assert got[rater] == pytest.approx(r, abs=1e-10)
    assert summary["value"] == pytest.approx(np.mean(list(expected.values())), abs=1e-10)
    assert summary["n_raters_used"] == len(expected)


# Snow et al. (2008): accuracy of the majority vote of the 10 non-expert labels on RTE (89.7 %)
# and WSD (99.4 %, one item of 177 wrong), and the Pearson correlation of the mean non-expert
# word-similarity rating with the Miller & Charles gold (0.952)
@pytest.mark.parametrize("task, published", [("rte", 0.897), ("wsd", 0.994)])
def test_majority_vote_accuracy_matches_the_paper(task, published):
    data = snow(task)
    long = data.annotations.to_long()
    correct = 0.0
    for item, values in long.groupby("item")["value"]:
        counts = values.value_counts()
        top = counts[counts == counts.max()].index
        correct += (data.gold[item] in top) / len(top)  # a tie scores its expected accuracy
    assert correct / data.annotations.n_items == pytest.approx(published, abs=5e-4)


def test_wordsim_mean_correlation_matches_the_paper():
    data = snow("wordsim")
    means = data.annotations.to_long().groupby("item")["value"].mean()
    r = np.corrcoef(means, data.gold.reindex(means.index))[0, 1]
    assert r == pytest.approx(0.952, abs=5e-4)
