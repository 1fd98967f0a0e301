"""Nominal coefficients and SPA in O(annotations) memory at any number of categories: sparse
count tables give the same numbers as dense ones, and a million-label problem stays small."""

import tracemalloc

import numpy as np
import pandas as pd
import pytest

import kappalab as kl
import kappalab.annotations
from kappalab.coefficients.base import quadratic_form_per_row


def ratings(seed, n_items=60, n_raters=4, n_categories=5):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_categories, n_items)
    x = np.where(rng.random((n_items, n_raters)) < 0.6, truth[:, None],
                 rng.integers(0, n_categories, (n_items, n_raters))).astype(float)
    x[rng.random(x.shape) < 0.3] = np.nan
    x[:5, 1:] = np.nan  # single-annotation items
    return x


DELTA = np.array([[0, 1, 3, 2, 5], [1, 0, 1, 4, 2], [3, 1, 0, 1, 1], [2, 4, 1, 0, 2],
                  [5, 2, 1, 2, 0]], dtype=float)
ESTIMATORS = [
    (kl.krippendorff_alpha, {}), (kl.krippendorff_alpha, {"level": DELTA}),
    (kl.fleiss_kappa, {}), (kl.fleiss_kappa, {"weights": "linear"}),
    (kl.gwet_ac, {}), (kl.gwet_ac, {"weights": "ordinal"}),
    (kl.brennan_prediger, {}), (kl.percent_agreement, {}),
    (kl.percent_agreement, {"weights": "quadratic"}), (kl.conger_kappa, {}),
    (kl.spa, {"scheme": "edges"}), (kl.spa, {"scheme": "inv_var"}), (kl.spa_kappa, {}),
]


@pytest.mark.parametrize("estimator, options", ESTIMATORS)
def test_sparse_counts_give_the_dense_numbers(monkeypatch, estimator, options):
    x = ratings(0)
    build = lambda: kl.Annotations.from_wide(x, categories=range(5))
    dense = {ci: estimator(build(), ci=ci, seed=1, n_resamples=300, **options)
             for ci in ("analytic", "jackknife", "bootstrap")}
    monkeypatch.setattr(kappalab.annotations, "DENSE_COUNT_CELLS", 0)
    ann = build()
    assert ann.counts_are_large
    for ci, reference in dense.items():
        est = estimator(ann, ci=ci, seed=1, n_resamples=300, **options)
        assert est.value == pytest.approx(reference.value, abs=1e-13), ci
        # the dense bootstrap draws over merged identical rows, the sparse one over items:
        # other random streams, the same distribution
        exact = ci != "bootstrap"
        assert est.se == pytest.approx(reference.se, rel=1e-10 if exact else 0.3), ci
        if exact:
            assert est.ci == pytest.approx(reference.ci, rel=1e-10), ci


def test_quadratic_form_per_row_by_hand():
    counts = np.array([[2, 0, 1, 0, 0], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]], dtype=float)
    import scipy.sparse as sp

    expected = np.einsum("ik,kl,il->i", counts, DELTA, counts)
    assert expected[0] == 2 * 1 * DELTA[0, 2] * 2  # n_0 n_2 (δ_02 + δ_20)
    np.testing.assert_allclose(quadratic_form_per_row(sp.csr_matrix(counts), DELTA), expected)


@pytest.mark.slow
def test_many_distinct_labels_in_annotation_memory():
    """200 000 items × 2 annotations, every label distinct except where the pair agrees:
    ~300 000 categories. Dense items × categories counts would be 6e10 cells (480 GB)."""
    n = 200_000
    rng = np.random.default_rng(2)
    agree = rng.random(n) < 0.4
    first = np.arange(n) * 2.0
    second = np.where(agree, first, first + 1.0)
    df = pd.DataFrame({"item": np.repeat(np.arange(n), 2), "rater": np.tile([0, 1], n),
                       "value": np.column_stack([first, second]).ravel()})
    ann = kl.Annotations.from_long(df)
    N = 2 * n
    labels, counts = np.unique(df["value"], return_counts=True)
    # by hand: nominal α = 1 − D_o/D_e, D_o = 2·#disagreeing/N, D_e = (N² − Σn_c²)/(N(N − 1));
    # Fleiss/AC1/percent: P_o = share of agreeing items, π_c = n_c/N
    d_o = 2 * (~agree).sum() / N
    d_e = (N**2 - (counts**2).sum()) / (N * (N - 1))
    p_o, p_e = agree.mean(), ((counts / N) ** 2).sum()
    K = labels.size
    gwet_p_e = (1 - p_e) / (K - 1)
    expected = {
        "alpha": (kl.krippendorff_alpha, 1 - d_o / d_e),
        "fleiss": (kl.fleiss_kappa, (p_o - p_e) / (1 - p_e)),
        "ac1": (kl.gwet_ac, (p_o - gwet_p_e) / (1 - gwet_p_e)),
        "percent": (kl.percent_agreement, p_o),
        "spa": (kl.spa, p_o),
    }
    for name, (estimator, value) in expected.items():
        tracemalloc.start()
        est = estimator(ann, ci="analytic")
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert est.value == pytest.approx(value, rel=1e-12), name
        assert np.isfinite(est.se), name
        assert peak < 400e6, f"{name}: peak {peak / 1e6:.0f} MB"
