"""The storage paths of Annotations give the same numbers: continuous floats, small integers,
strings, long and counts input, and a caller's array changed after ingest."""

import numpy as np
import pandas as pd
import pytest
import krippendorff

import kappalab as kl
from kappalab.errors import InvalidParameterError


def continuous_table(seed=0, n_items=60, n_raters=4, missing=0.25):
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(n_items, 1))
    x = latent + 0.7 * rng.normal(size=(n_items, n_raters))
    x[rng.random(x.shape) < missing] = np.nan
    return x


@pytest.mark.parametrize("seed", range(5))
def test_continuous_interval_alpha_matches_krippendorff(seed):
    x = continuous_table(seed)
    expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement="interval")
    assert float(kl.krippendorff_alpha(x, level="interval")) == pytest.approx(expected, abs=1e-12)


def test_continuous_values_round_trip_through_the_wide_view():
    x = continuous_table(1)
    ann = kl.Annotations.from_wide(x)
    assert ann.n_categories == np.count_nonzero(~np.isnan(x))  # every value distinct
    np.testing.assert_array_equal(ann.wide.to_numpy(dtype=float), x)  # NaN where missing


@pytest.mark.parametrize("n_categories", [3, 200])
def test_small_integer_fast_path_equals_the_sorting_path(n_categories):
    rng = np.random.default_rng(7)
    x = rng.integers(-5, n_categories - 5, size=(80, 5)).astype(float)
    x[rng.random(x.shape) < 0.3] = np.nan
    fast = kl.Annotations.from_wide(x)  # counted with one bincount
    sorted_path = kl.Annotations.from_wide(x, categories=np.unique(x[~np.isnan(x)]))
    np.testing.assert_array_equal(fast.count_matrix, sorted_path.count_matrix)
    np.testing.assert_array_equal(fast.wide.to_numpy(dtype=float), x)
    for level in ("nominal", "ordinal", "interval"):
        expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement=level)
        assert float(kl.krippendorff_alpha(fast, level=level)) == pytest.approx(expected, abs=1e-10)


def test_long_wide_and_counts_inputs_agree():
    rng = np.random.default_rng(3)
    x = rng.integers(1, 5, size=(40, 3)).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    wide = kl.Annotations.from_wide(x)
    long = kl.Annotations.from_long(wide.to_long())
    counts = kl.Annotations.from_counts(wide.counts)
    expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement="interval")
    for ann in (wide, long, counts):
        alpha = float(kl.krippendorff_alpha(ann, level="interval"))
        assert alpha == pytest.approx(expected, abs=1e-12)


def test_changing_the_callers_array_after_ingest_changes_nothing():
    x = continuous_table(2)
    ann = kl.Annotations.from_wide(x)
    before = float(kl.krippendorff_alpha(ann, level="interval"))
    x[:] = 0.0
    assert float(kl.krippendorff_alpha(ann, level="interval")) == before
    y = np.array([[1.0, 1.0], [2.0, 2.0], [1.0, 2.0]])
    small = kl.Annotations.from_wide(y)
    y[:] = 1.0
    np.testing.assert_array_equal(small.wide.to_numpy(dtype=float),
                                  [[1.0, 1.0], [2.0, 2.0], [1.0, 2.0]])


def test_a_matrix_over_too_many_distinct_values_is_refused_clearly():
    x = np.random.default_rng(0).normal(size=(12_000, 2))  # 24 000 distinct values
    ann = kl.Annotations.from_wide(x)
    assert np.isfinite(float(kl.krippendorff_alpha(ann, level="interval")))  # O(N): no matrix
    with pytest.raises(InvalidParameterError, match="24000 distinct values"):
        kl.krippendorff_alpha(ann, level="ratio")
    with pytest.raises(InvalidParameterError, match="distinct values"):
        kl.brennan_prediger(ann, weights="linear")  # needs Σ w over the K × K matrix
    # quadratic weights have an interval form: Σ_kl (v_k − v_l)² = 2KΣv² − 2(Σv)², no matrix;
    # Brennan–Prediger P_e = T_w/K², T_w = K² − Σδ/span²
    v = np.unique(x)
    K, span = v.size, v.max() - v.min()
    p_e = (K * K - (2 * K * (v @ v) - 2 * v.sum() ** 2) / span**2) / K**2
    p_o = float(kl.percent_agreement(ann, weights="quadratic"))
    assert kl.brennan_prediger(ann, weights="quadratic").value == pytest.approx(
        (p_o - p_e) / (1 - p_e), rel=1e-10)


def test_string_table_with_missing_cells():
    table = pd.DataFrame({"a": ["x", "y", None, "x"], "b": ["x", "y", "y", np.nan],
                          "c": ["y", "y", "y", "x"]})
    ann = kl.Annotations.from_wide(table)
    assert list(ann.categories) == ["x", "y"]
    codes = table.replace({"x": 0.0, "y": 1.0}).to_numpy(dtype=float)
    expected = krippendorff.alpha(reliability_data=codes.T, level_of_measurement="nominal")
    assert float(kl.krippendorff_alpha(ann)) == pytest.approx(expected, abs=1e-12)
