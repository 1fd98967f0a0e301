"""Interval α (and the other interval-form coefficients) on a store of float values resolve
their distance from the values' extremes: no sort of the values, no categories, unless a
category count or the per-category scores are read. The references are the same table with
its categories given (the general, coded path) and krippendorff.alpha."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import kappalab as kl
from kappalab.coefficients.multirater import distance_for

krippendorff = pytest.importorskip("krippendorff")


def table(seed: int, missing: float, n_items: int = 150) -> pd.DataFrame:
    """Every value distinct, some missing (so some items have one annotation)."""
    r = np.random.default_rng(seed)
    item = np.repeat(np.arange(n_items), 3)
    value = np.repeat(r.normal(0, 2, n_items), 3) + r.normal(0, 1, item.size)
    value[r.random(item.size) < missing] = np.nan
    return pd.DataFrame({"item": item, "rater": np.tile(["u", "v", "w"], n_items),
                         "value": value})


def quietly(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def values_store(df: pd.DataFrame) -> kl.Annotations:
    ann = quietly(kl.Annotations.from_long, df)
    assert "categories" not in ann.__dict__, "a store of float values"
    return ann


def general(df: pd.DataFrame) -> kl.Annotations:
    return quietly(kl.Annotations.from_long, df,
                   categories=np.unique(df["value"].dropna().to_numpy()))


CASES = [("krippendorff_alpha", {"level": "interval"}),
         ("janson_olsson_iota", {"level": "interval"}),
         ("fleiss_kappa", {"weights": "quadratic"}),
         ("conger_kappa", {"weights": "quadratic"})]


@pytest.mark.parametrize("coefficient,option", CASES)
@pytest.mark.parametrize("seed,missing", [(0, 0.0), (1, 0.25)])
def test_interval_forms_of_float_values_make_no_categories(coefficient, option, seed, missing):
    df = table(seed, missing)
    ann = values_store(df)
    fast = quietly(getattr(kl, coefficient), ann, **option)
    assert "categories" not in ann.__dict__  # neither sorted nor coded
    slow = quietly(getattr(kl, coefficient), general(df), **option)
    assert fast.value == pytest.approx(slow.value, abs=1e-12)
    for field in ("observed", "expected"):
        assert getattr(fast, field) == pytest.approx(getattr(slow, field), abs=1e-12)
    distinct = np.unique(df["value"].dropna().to_numpy()).size  # counted outside the code
    assert fast.details["n_categories"] == distinct == slow.details["n_categories"]
    assert "categories" in ann.__dict__  # made when read, not before
    assert fast == slow or fast.value == pytest.approx(slow.value, abs=1e-12)


@pytest.mark.parametrize("seed,missing", [(2, 0.0), (3, 0.3)])
def test_interval_alpha_of_float_values_equals_krippendorff(seed, missing):
    df = table(seed, missing)
    wide = df.pivot(index="rater", columns="item", values="value").to_numpy(dtype=float)
    want = float(krippendorff.alpha(reliability_data=wide, level_of_measurement="interval"))
    assert kl.krippendorff_alpha(values_store(df), level="interval").value == pytest.approx(
        want, abs=1e-12)


def test_sample_weight_and_uncertainty_as_the_general_path():
    df = table(4, 0.2)
    w = np.random.default_rng(5).integers(0, 3, 150).astype(float)  # zeros drop items
    for kwargs in ({"sample_weight": w}, {"ci": "analytic"},
                   {"ci": "bootstrap", "n_resamples": 200, "seed": 7},
                   {"ci": "analytic", "sample_weight": w}):
        ann = values_store(df)
        fast = quietly(kl.krippendorff_alpha, ann, level="interval", **kwargs)
        slow = quietly(kl.krippendorff_alpha, general(df), level="interval", **kwargs)
        assert fast.value == pytest.approx(slow.value, abs=1e-12)
        if "ci" in kwargs:
            assert fast.se == pytest.approx(slow.se, abs=1e-12)
            assert np.allclose(fast.ci, slow.ci, atol=1e-12, rtol=0)
    # an integer weight is the item repeated: the repeated table, by hand
    copies = np.repeat(np.arange(150), w.astype(int))  # item i, w_i times
    repeated = df.iloc[(copies[:, None] * 3 + np.arange(3)).ravel()]
    repeated = repeated.assign(item=np.repeat(np.arange(copies.size), 3))
    want = quietly(kl.krippendorff_alpha, general(repeated), level="interval").value
    got = quietly(kl.krippendorff_alpha, values_store(df), level="interval", sample_weight=w)
    assert got.value == pytest.approx(want, abs=1e-12)


def test_one_distinct_value_is_undefined_with_the_same_warning():
    df = pd.DataFrame({"item": [1, 1, 2, 3, 3], "rater": ["a", "b", "a", "a", "b"],
                       "value": [0.5, 0.5, 0.5, np.nan, 0.5]})
    with pytest.warns(kl.errors.UndefinedCoefficientWarning) as fast_warnings:
        fast = kl.krippendorff_alpha(values_store(df), level="interval")
    with pytest.warns(kl.errors.UndefinedCoefficientWarning) as slow_warnings:
        slow = kl.krippendorff_alpha(general(df), level="interval")
    assert np.isnan(fast.value) and np.isnan(slow.value)
    assert [str(m.message) for m in fast_warnings] == [str(m.message) for m in slow_warnings]
    assert "only one category" in str(fast_warnings[0].message)


def test_items_with_one_annotation_and_two_values():
    df = pd.DataFrame({"item": [1, 1, 2, 3, 3], "rater": ["a", "b", "a", "a", "b"],
                       "value": [0.5, 2.5, 9.0, 0.5, 0.5]})
    # pairable values 0.5, 2.5, 0.5, 0.5: D_o = 2·4/4 = 2, D_e = 2·(3·4)/(4·3) = 2 → α = 0
    est = kl.krippendorff_alpha(values_store(df), level="interval")
    assert est.value == pytest.approx(0.0, abs=1e-12)
    assert est.details["n_items_unpairable"] == 1 and est.details["n_categories"] == 3


def test_details_read_when_asked_and_pickled_as_a_dict():
    df = table(6, 0.1)
    est = kl.krippendorff_alpha(values_store(df), level="interval")
    copy = pickle.loads(pickle.dumps(est))
    assert copy == est and type(copy.details) is dict
    assert dict(est.details) == copy.details
    assert copy.details["n_categories"] == np.unique(df["value"].dropna()).size


@pytest.mark.parametrize("spec,kind", [("interval", "level"), ("quadratic", "weights")])
def test_the_distance_of_float_values_makes_its_scores_when_read(spec, kind):
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
                       "value": [0.5, 2.25, 1.5, -1.0]})
    ann = values_store(df)
    dis = distance_for(ann, spec, kind=kind)
    assert dis.score_range == (-1.0, 2.25) and dis.moment_scores is None
    assert "categories" not in ann.__dict__
    assert dis.scores.tolist() == [-1.0, 0.5, 1.5, 2.25]
    gap = np.subtract.outer(dis.scores, dis.scores) ** 2
    want = gap if kind == "level" else gap / 3.25**2
    np.testing.assert_allclose(dis.matrix, want, rtol=0, atol=1e-15)
    assert dis.scale == pytest.approx(3.25**2 if kind == "level" else 1.0, abs=1e-15)
