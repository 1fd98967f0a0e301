"""kl.judge_report against brute force: the confusion matrix by
pandas.crosstab on majorities counted in plain Python, every κx by an explicit kl.cross_kappa
call on the judge's (or one human's) annotations against the others'."""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest

import kappalab as kl
from kappalab.errors import InvalidParameterError, UndefinedCoefficientWarning


def panel_with_judge(seed, n_items=60, n_humans=5, n_categories=3, missing=0.3):
    """Items × (humans + judge) with missing cells, labels as a wide DataFrame; the judge is
    the column "llm"."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_categories, n_items)
    values = np.where(rng.random((n_items, n_humans + 1)) < 0.65, truth[:, None],
                      rng.integers(0, n_categories, (n_items, n_humans + 1))).astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    values[0, -1] = np.nan  # an item the judge skipped
    values[1, :-1] = np.nan  # an item only the judge labelled
    values[1, -1] = 0.0
    columns = [f"h{r}" for r in range(n_humans)] + ["llm"]
    return pd.DataFrame(values, columns=columns, index=[f"i{i}" for i in range(n_items)])


def explicit_cross_kappa(ann, rater, others, **options):
    x = ann.subset_raters([list(ann.raters).index(rater)])
    y = ann.subset_raters([list(ann.raters).index(o) for o in others])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedCoefficientWarning)
        return kl.cross_kappa(x, y, **options)


def brute_force_majorities(frame):
    """Per item with a panel annotation and a judge label: (judge, majority labels)."""
    out = {}
    for item, row in frame.iterrows():
        panel = [v for v in row.drop("llm") if not np.isnan(v)]
        if not panel or np.isnan(row["llm"]):
            continue
        counts = Counter(panel)
        top = max(counts.values())
        out[item] = (row["llm"], sorted(c for c, k in counts.items() if k == top),
                     top / len(panel), len(panel))
    return out


@pytest.mark.parametrize("seed", [4, 5])
def test_confusion_and_disagreements_against_brute_force(seed):
    frame = panel_with_judge(seed, n_humans=4)  # an even panel: ties happen
    report = kl.judge_report(frame, judge="llm")
    truth = brute_force_majorities(frame)
    strict = {i: v for i, v in truth.items() if len(v[1]) == 1}
    judge = pd.Series({i: v[0] for i, v in strict.items()})
    majority = pd.Series({i: v[1][0] for i, v in strict.items()})
    table = pd.crosstab(judge, majority).reindex(index=[0.0, 1.0, 2.0], columns=[0.0, 1.0, 2.0],
                                                 fill_value=0)
    np.testing.assert_array_equal(report.confusion.to_numpy(), table.to_numpy())
    assert report.confusion.index.tolist() == [0.0, 1.0, 2.0]
    assert report.n_items == len(truth)
    assert report.n_tied_majority == len(truth) - len(strict) > 0
    assert report.n_judge_in_tie == sum(v[0] in v[1] for v in truth.values() if len(v[1]) > 1)
    apart = {i: v for i, v in truth.items() if v[0] not in v[1]}
    assert sorted(report.disagreements.index) == sorted(apart)
    for item, (label, labels, share, m) in apart.items():
        row = report.disagreements.loc[item]
        assert (row.judge, row.majority, row.tied_labels, row.panel_annotations) == (
            label, labels[0], len(labels), m)
        assert row.majority_share == pytest.approx(share, abs=1e-15)
    shares = report.disagreements.majority_share.to_numpy()
    assert np.all(np.diff(shares) <= 0)  # the most confident panel majorities first


@pytest.mark.parametrize("ci", [None, "analytic", "jackknife"])
def test_kappas_against_explicit_cross_kappa(ci):
    frame = panel_with_judge(6)
    ann = kl.Annotations.from_wide(frame)
    report = kl.judge_report(ann, judge="llm", ci=ci)
    humans = [r for r in ann.raters if r != "llm"]
    assert report.agreement.index.tolist() == ["llm"] + humans
    assert report.agreement.role.tolist() == ["judge"] + ["human"] * len(humans)
    expected = {"llm": explicit_cross_kappa(ann, "llm", humans, ci=ci)}
    for rater in humans:
        expected[rater] = explicit_cross_kappa(ann, rater, [h for h in humans if h != rater],
                                               ci=ci)
    for rater, estimate in expected.items():
        row = report.agreement.loc[rater]
        assert row.kappa_x == pytest.approx(estimate.value, abs=1e-12)
        assert row.n_items == estimate.n_items
        if ci is None:
            assert np.isnan(row.se) and np.isnan(row.ci_low)
        else:
            assert row.se == pytest.approx(estimate.se, abs=1e-12)
            assert (row.ci_low, row.ci_high) == pytest.approx(estimate.ci, abs=1e-12)
    # the judge's κx is its agreement with the panel as a one-label reference
    judge_labels = frame["llm"].dropna()
    panel = kl.Annotations.from_wide(frame[humans])
    assert report.agreement.kappa_x["llm"] == pytest.approx(
        float(kl.reference_agreement(panel, judge_labels)), abs=1e-12)


def test_ordinal_level_goes_rater_by_rater():
    ann = kl.Annotations.from_wide(panel_with_judge(7, n_categories=4))
    report = kl.judge_report(ann, judge="llm", level="ordinal")
    humans = [r for r in ann.raters if r != "llm"]
    for rater in humans:
        expected = explicit_cross_kappa(ann, rater, [h for h in humans if h != rater],
                                        level="ordinal")
        assert report.agreement.kappa_x[rater] == pytest.approx(float(expected), abs=1e-12)


def test_judge_given_as_labels_equals_judge_as_a_rater():
    frame = panel_with_judge(8)
    as_rater = kl.judge_report(frame, judge="llm")
    labels = frame["llm"].dropna().to_dict()
    as_mapping = kl.judge_report(frame.drop(columns="llm"), judge=labels)
    assert as_mapping.judge == "judge"
    kappas = as_mapping.agreement.kappa_x.rename({"judge": "llm"})
    assert kappas.index[0] == "llm"
    np.testing.assert_allclose(kappas[as_rater.agreement.index].to_numpy(),
                               as_rater.agreement.kappa_x.to_numpy(), rtol=0, atol=1e-12)
    pd.testing.assert_frame_equal(as_mapping.confusion, as_rater.confusion)
    assert as_mapping.disagreements.index.tolist() == as_rater.disagreements.index.tolist()


def test_simulated_judge_from_the_same_pool_is_within_the_humans():
    """A judge drawn from the same model as the humans: its κx estimates the same truth, the
    population κ (nominal κx of two replications of the model = its α)."""
    ann, truth = kl.simulate.annotations(3000, n_categories=3, reliability=0.6,
                                         annotations_per_item=6, n_raters=6, seed=9)
    report = kl.judge_report(ann, judge=ann.raters[0], ci="analytic")
    z = (report.agreement.kappa_x - truth.alpha) / report.agreement.se
    assert (z.abs() < 4).all(), z  # six estimates of one truth, each within 4 SE of it
    assert report.agreement.se.between(0.005, 0.03).all()


def test_refusals_and_warnings():
    frame = panel_with_judge(10)
    with pytest.raises(InvalidParameterError, match="not a rater of the data"):
        kl.judge_report(frame, judge="gpt")
    with pytest.raises(InvalidParameterError, match="at least two humans"):
        kl.judge_report(frame[["h0", "llm"]], judge="llm")
    renamed = frame.rename(columns={"h0": "judge"})
    with pytest.raises(InvalidParameterError, match="already have a rater 'judge'"):
        kl.judge_report(renamed.drop(columns="llm"), judge={"i2": 1.0})
    with pytest.raises(InvalidParameterError, match="unknown ci"):
        kl.judge_report(frame, judge="llm", ci="normal")
    with pytest.raises(kl.errors.UnknownRatersError):
        kl.judge_report(kl.Annotations.from_counts([[2, 1], [0, 3]]), judge=0)
    lonely = frame.copy()
    lonely["h9"] = np.nan
    lonely.loc["i1", "h9"] = 1.0  # h9 annotates only the item no other human labelled
    with pytest.warns(UndefinedCoefficientWarning, match="undefined for 1 rater"):
        report = kl.judge_report(lonely, judge="llm")
    assert np.isnan(report.agreement.kappa_x["h9"])
