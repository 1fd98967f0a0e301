"""kl.item_report and kl.plots.items: every column against a recomputation outside the report
(the coefficient recomputed without the item by the public estimators, majority, entropy and
pair agreement counted item by item in plain Python, α by the krippendorff package)."""

from __future__ import annotations

import math
from collections import Counter

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kappalab as kl
from kappalab.errors import (InvalidParameterError, UndefinedCoefficientWarning,
                             UnknownRatersError)


def random_wide(seed, n_items=24, n_raters=4, n_categories=3, missing=0.35):
    """Items × raters with missing cells: item 0 has exactly one annotation, every item at
    least one."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_categories, n_items)
    values = np.where(rng.random((n_items, n_raters)) < 0.6, truth[:, None],
                      rng.integers(0, n_categories, (n_items, n_raters))).astype(float)
    values[rng.random((n_items, n_raters)) < missing] = np.nan
    values[0, 1:] = np.nan  # an item with one annotation
    values[0, 0] = 1.0
    empty = np.isnan(values).all(axis=1)
    values[empty, 0] = truth[empty]
    return values


def literal_without(ann, estimator, **options):
    """The coefficient recomputed by a public estimator on the data without each item."""
    out = {}
    for item in ann.items:
        others = [i for i in ann.items if i != item]
        out[item] = float(estimator(ann.subset_items(others), **options))
    return pd.Series(out)


NOMINAL = [
    ("krippendorff_alpha", kl.krippendorff_alpha),
    ("fleiss_kappa", kl.fleiss_kappa),
    ("conger_kappa", kl.conger_kappa),
    ("janson_olsson_iota", kl.janson_olsson_iota),
    ("gwet_ac", kl.gwet_ac),
    ("brennan_prediger", kl.brennan_prediger),
    ("percent_agreement", kl.percent_agreement),
]


@pytest.mark.parametrize("name,estimator", NOMINAL, ids=[n for n, _ in NOMINAL])
def test_influence_is_the_coefficient_recomputed_without_the_item(name, estimator):
    ann = kl.Annotations.from_wide(random_wide(1))
    report = kl.item_report(ann, coefficient=name)
    full = float(estimator(ann))
    without = literal_without(ann, estimator)
    assert report.attrs["value"] == pytest.approx(full, abs=1e-12)
    np.testing.assert_allclose(report.coefficient_if_removed.loc[without.index], without,
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(report.change_if_removed.loc[without.index], without - full,
                               rtol=0, atol=1e-12)


def test_influence_at_the_interval_level():
    ann = kl.Annotations.from_wide(random_wide(2, n_categories=5))
    report = kl.item_report(ann, level="interval")
    without = literal_without(ann, kl.krippendorff_alpha, level="interval")
    np.testing.assert_allclose(report.coefficient_if_removed.loc[without.index], without,
                               rtol=0, atol=1e-12)


def krippendorff_ordinal_matrix(pooled_counts):
    """Krippendorff's (2011) ordinal δ²_ck = (Σ_{g=c..k} n_g − (n_c + n_k)/2)², by hand."""
    n = np.asarray(pooled_counts, dtype=float)
    K = n.size
    delta = np.zeros((K, K))
    for c in range(K):
        for k in range(K):
            lo, hi = min(c, k), max(c, k)
            delta[c, k] = (n[lo:hi + 1].sum() - (n[c] + n[k]) / 2) ** 2
    return delta


def test_influence_at_the_ordinal_level_holds_the_metric_of_all_the_data():
    values = random_wide(3, n_categories=4)
    ann = kl.Annotations.from_wide(values)
    pairable = (~np.isnan(values)).sum(axis=1) >= 2
    pooled = [np.sum(values[pairable] == c) for c in range(4)]
    metric = krippendorff_ordinal_matrix(pooled)
    report = kl.item_report(ann, level="ordinal")
    assert report.attrs["value"] == pytest.approx(
        krippendorff.alpha(values.T, level_of_measurement="ordinal"), abs=1e-12)
    without = literal_without(ann, kl.krippendorff_alpha, level=metric)
    np.testing.assert_allclose(report.coefficient_if_removed.loc[without.index], without,
                               rtol=0, atol=1e-12)


def brute_force_rows(values, scale_distance):
    """Per item, in plain Python: m, pair agreement, majority (first category on ties),
    share, tied labels, entropy in bits."""
    rows = {}
    for i, row in enumerate(values):
        labels = [v for v in row if not np.isnan(v)]
        m = len(labels)
        pairs = [(a, b) for x, a in enumerate(labels) for y, b in enumerate(labels) if x != y]
        agreement = (1 - sum(scale_distance(a, b) for a, b in pairs) / len(pairs)
                     if pairs else np.nan)
        counts = Counter(labels)
        top = max(counts.values())
        tied = sorted(c for c, k in counts.items() if k == top)
        entropy = -sum(k / m * math.log2(k / m) for k in counts.values())
        rows[i] = (m, agreement, tied[0], top / m, len(tied), entropy)
    return pd.DataFrame.from_dict(
        rows, orient="index", columns=["annotations", "agreement", "majority",
                                       "majority_share", "tied_labels", "entropy_bits"])


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_columns_against_brute_force_nominal(seed):
    values = random_wide(seed, n_items=30, n_raters=5, n_categories=4, missing=0.4)
    report = kl.item_report(values).sort_index()
    expected = brute_force_rows(values, lambda a, b: float(a != b))
    pd.testing.assert_series_equal(report.annotations, expected.annotations,
                                   check_names=False, check_index_type=False,
                                   check_dtype=False)
    for column in ("agreement", "majority_share", "entropy_bits"):
        np.testing.assert_allclose(report[column], expected[column], rtol=0, atol=1e-12)
    assert report.majority.astype(float).tolist() == expected.majority.tolist()
    assert report.tied_labels.tolist() == expected.tied_labels.tolist()
    # the annotation-weighted mean of 1 − d_i/D_e over pairable items is α (krippendorff)
    pairable = report.annotations >= 2
    weighted = np.average(report.chance_corrected_agreement[pairable],
                          weights=report.annotations[pairable])
    assert weighted == pytest.approx(krippendorff.alpha(values.T, level_of_measurement="nominal"),
                                      abs=1e-12)


def test_columns_against_brute_force_interval():
    values = random_wide(7, n_items=30, n_raters=5, n_categories=5)
    values[values == 4] = 10.0  # unequal spacing: the distance is (a − b)²
    report = kl.item_report(values, level="interval").sort_index()
    scale = (10.0 - 0.0) ** 2
    expected = brute_force_rows(values, lambda a, b: (a - b) ** 2 / scale)
    np.testing.assert_allclose(report.agreement, expected.agreement, rtol=0, atol=1e-12)
    pairable = report.annotations >= 2
    weighted = np.average(report.chance_corrected_agreement[pairable],
                          weights=report.annotations[pairable])
    assert weighted == pytest.approx(
        krippendorff.alpha(values.T, level_of_measurement="interval"), abs=1e-12)


def test_fleiss_chance_corrected_mean_is_fleiss_kappa():
    values = random_wide(8, missing=0.0)  # complete but for item 0, as Fleiss' design
    values = values[1:]
    report = kl.item_report(values, coefficient="fleiss_kappa")
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa
    table, _ = aggregate_raters(values.astype(int))
    assert report.chance_corrected_agreement.mean() == pytest.approx(
        fleiss_kappa(table, method="fleiss"), abs=1e-12)


def test_rows_are_sorted_most_contested_first():
    values = random_wide(9, n_items=40)
    report = kl.item_report(values)
    agreement = report.agreement.to_numpy()
    defined = agreement[~np.isnan(agreement)]
    assert np.all(np.diff(defined) >= 0)
    assert np.isnan(agreement[defined.size:]).all()  # one-annotation items last
    for _, group in report[~np.isnan(agreement)].groupby("agreement"):
        assert np.all(np.diff(group.change_if_removed.to_numpy()) <= 0)


def test_an_item_with_one_annotation():
    report = kl.item_report([["a", None, None], ["a", "b", "b"], ["b", "b", "b"],
                             ["a", "a", "b"]])
    row = report.loc[0]
    assert row.annotations == 1 and np.isnan(row.agreement)
    assert np.isnan(row.chance_corrected_agreement)
    assert row.majority == "a" and row.majority_share == 1.0 and row.tied_labels == 1
    assert row.entropy_bits == 0.0
    assert row.change_if_removed == 0.0  # α pairs only items with two or more annotations
    assert report.index[-1] == 0  # no agreement: last


def test_an_item_without_annotations_and_fleiss_single_annotation():
    values = [[1, np.nan, np.nan], [np.nan, np.nan, np.nan], [1, 2, 2], [2, 2, 2], [1, 1, 2]]
    report = kl.item_report(values, coefficient="fleiss_kappa")
    empty = report.loc[1]
    assert empty.annotations == 0 and empty.majority is None and empty.tied_labels == 0
    assert np.isnan(empty.majority_share) and np.isnan(empty.entropy_bits)
    assert empty.change_if_removed == 0.0
    # Fleiss' chance model reads every item with an annotation: item 0 moves κ
    ann = kl.Annotations.from_wide(values)
    without_0 = float(kl.fleiss_kappa(ann.subset_items([1, 2, 3, 4])))
    assert report.loc[0].coefficient_if_removed == pytest.approx(without_0, abs=1e-12)
    assert report.loc[0].change_if_removed != 0.0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), permutation_seed=st.integers(0, 10_000))
def test_permuting_items_permutes_rows(seed, permutation_seed):
    values = random_wide(seed, n_items=15, n_raters=3)
    frame = pd.DataFrame(values, index=[f"item{i}" for i in range(len(values))])
    order = np.random.default_rng(permutation_seed).permutation(len(values))
    report = kl.item_report(frame)
    permuted = kl.item_report(frame.iloc[order])
    assert report.attrs["value"] == pytest.approx(permuted.attrs["value"], abs=1e-12)
    pd.testing.assert_frame_equal(permuted.loc[report.index], report, check_exact=False,
                                  atol=1e-12, rtol=0)


def test_bad_options():
    values = random_wide(10)
    with pytest.raises(InvalidParameterError, match="unknown coefficient 'kripp'"):
        kl.item_report(values, coefficient="kripp")
    with pytest.raises(InvalidParameterError, match="only at level='nominal'"):
        kl.item_report(values, coefficient="fleiss_kappa", level="interval")
    with pytest.raises(InvalidParameterError, match="unknown"):
        kl.item_report(values, level="no such level")
    counts = kl.Annotations.from_counts([[2, 1], [3, 0], [1, 2]])
    with pytest.raises(UnknownRatersError, match="rater identities"):
        kl.item_report(counts, coefficient="conger_kappa")


def test_plot_marks_the_contested_tail():
    values = random_wide(11, n_items=50)
    report = kl.item_report(values)
    ax = kl.plots.items(report, contested_share=0.2).axes[0]
    heights = np.array([bar.get_height() for bar in ax.patches])
    rest, tail = heights[:20], heights[20:]
    pairable = report.agreement.dropna()
    cutoff = np.sort(pairable)[int(np.ceil(0.2 * pairable.size)) - 1]
    assert rest.sum() + tail.sum() == pairable.size
    assert tail.sum() == (pairable <= cutoff).sum()
    assert ax.get_xlabel() == "item agreement (share of agreeing pairs of annotations)"
    assert ax.get_ylabel() == "items"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[1] == f"most contested: {tail.sum():.0f} items, agreement ≤ {cutoff:.3g}"
    interval = kl.plots.items(kl.item_report(values, level="interval")).axes[0]
    assert interval.get_xlabel().startswith("chance-corrected item agreement")


def test_plot_refuses_other_tables():
    with pytest.raises(InvalidParameterError, match="item_report"):
        kl.plots.items(pd.DataFrame({"item": [0], "change_if_removed": [0.1]}))  # no agreement
    with pytest.raises(InvalidParameterError, match="contested_share"):
        kl.plots.items(kl.item_report(random_wide(12)), contested_share=0)
    with pytest.warns(UndefinedCoefficientWarning, match="nothing can be paired"):
        unpaired = kl.item_report([[1, None], [2, None]])
    with pytest.raises(InvalidParameterError, match="two or more annotations"):
        kl.plots.items(unpaired)
