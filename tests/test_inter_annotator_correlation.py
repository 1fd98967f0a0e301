"""The inter-annotator correlation (Snow et al. 2008): each annotator's Pearson r with the
mean of the other annotators, averaged — against explicit loops and scipy.stats.pearsonr,
hand arithmetic, affine invariance, the jackknife and bootstrap recomputed through the public
function, a 40-digit derivative, and its errors and warnings."""

from __future__ import annotations

import math
import pickle
import tracemalloc
import warnings

import mpmath
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import pearsonr

import kappalab as kl
import kappalab.coefficients.correlation as correlation
from kappalab.coefficients.base import complex_step_gradient
from kappalab.coefficients.correlation import InterAnnotatorCorrelationCore
from kappalab.errors import (ExcludedRatersWarning, InvalidParameterError, NonNumericError,
                             RaterCountError, UndefinedCoefficientWarning, UnknownRatersError)
from kappalab.uncertainty import replicate_values

iac = kl.inter_annotator_correlation


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# ---------------------------------------------------------------------- brute force
def brute_per_rater(x: np.ndarray, min_items: int = 2) -> np.ndarray:
    """Explicit loops over raters and items: r's ratings against the mean of the others on
    every item r rated that another rater rated too; scipy's Pearson r."""
    n_items, n_raters = x.shape
    out = []
    for r in range(n_raters):
        mine, others_mean = [], []
        for i in range(n_items):
            if math.isnan(x[i, r]):
                continue
            others = [x[i, s] for s in range(n_raters) if s != r and not math.isnan(x[i, s])]
            if not others:
                continue
            mine.append(x[i, r])
            others_mean.append(sum(others) / len(others))
        if len(mine) < min_items or np.ptp(mine) == 0 or np.ptp(others_mean) == 0:
            out.append(np.nan)
        else:
            out.append(pearsonr(mine, others_mean)[0])
    return np.array(out)


def brute(x: np.ndarray, average: str = "mean", min_items: int = 2) -> float:
    r = brute_per_rater(x, min_items)
    r = r[~np.isnan(r)]
    if r.size == 0:
        return np.nan
    return float(r.mean()) if average == "mean" else float(np.tanh(np.arctanh(r).mean()))


def ratings(seed, n_items=40, n_raters=5, missing=0.3, levels=5, noise=1.0):
    """Integer ratings 1..levels from a latent item score plus rater noise, with missing
    cells; the first two raters rate every item."""
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(n_items, 1))
    x = np.clip(np.round(3 + latent + noise * rng.normal(size=(n_items, n_raters))), 1, levels)
    x[rng.random(x.shape) < missing] = np.nan
    x[:, :2] = np.where(np.isnan(x[:, :2]), 3.0, x[:, :2])
    return x


def continuous(seed, n_items=30, n_raters=4, missing=0.25):
    """Every value distinct (no two items share their statistics)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n_items, 1)) + 0.8 * rng.normal(size=(n_items, n_raters))
    x[rng.random(x.shape) < missing] = np.nan
    x[:, :2] = np.where(np.isnan(x[:, :2]), rng.normal(size=(n_items, 2)), x[:, :2])
    return x


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("average", ["mean", "fisher"])
def test_equals_explicit_loops_with_missing_cells(seed, average):
    x = ratings(seed)
    est = quiet(iac, x, average=average)
    assert est.value == pytest.approx(brute(x, average), abs=1e-12)
    np.testing.assert_allclose(est.per_rater.to_numpy(), brute_per_rater(x), atol=1e-12)
    assert est.observed == pytest.approx(brute(x, "mean"), abs=1e-12)
    assert est.expected == 0.0


def test_per_rater_values_are_scipy_pearsonr_by_hand():
    """Long data with rater labels: r_r is scipy's pearsonr of r's ratings against the mean
    of the others, built here with pandas."""
    x = continuous(3, n_items=50, n_raters=4)
    long = pd.DataFrame(x, columns=["ann", "bob", "cy", "dee"]).rename_axis("item")
    long = long.reset_index().melt(id_vars="item", var_name="rater").dropna()
    est = iac(long)
    wide = long.pivot(index="item", columns="rater", values="value")
    for rater in wide.columns:
        others = wide.drop(columns=rater)
        shared = wide[rater].notna() & others.notna().any(axis=1)
        expected = pearsonr(wide.loc[shared, rater], others[shared].mean(axis=1))[0]
        assert est.per_rater[rater] == pytest.approx(expected, abs=1e-12)
        assert est.shared_items[rater] == shared.sum()
    assert list(est.per_rater.index) == ["ann", "bob", "cy", "dee"]


def test_hand_example():
    """Three raters, four items, complete. Rater 0: x = 1, 2, 3, 4 against the others' means
    1.5, 2.5, 2.5, 4.5; centred, Σdx·dm = 4.5, Σdx² = 5, Σdm² = 4.75. Rater 1: x = 1, 3, 2, 4
    against 1.5, 2, 3, 4.5: 4/√(5·5.25). Rater 2: x = 2, 2, 3, 5 against 1, 2.5, 2.5, 4:
    4.5/√(6·4.5)."""
    x = [[1, 1, 2], [2, 3, 2], [3, 2, 3], [4, 4, 5]]
    r = [4.5 / math.sqrt(5 * 4.75), 4 / math.sqrt(5 * 5.25), 4.5 / math.sqrt(6 * 4.5)]
    est = iac(x)
    np.testing.assert_allclose(est.per_rater.to_numpy(), r, atol=1e-14)
    assert est.value == pytest.approx(sum(r) / 3, abs=1e-14)
    fisher = iac(x, average="fisher")
    assert fisher.value == pytest.approx(math.tanh(sum(map(math.atanh, r)) / 3), abs=1e-14)
    assert fisher.observed == pytest.approx(sum(r) / 3, abs=1e-14)
    assert (est.n_items, est.n_annotations, est.n_raters) == (4, 12, 3)
    assert est.details["n_raters_used"] == 3 and est.details["n_raters_excluded"] == 0


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 5).flatmap(lambda R: st.tuples(
    arrays(np.int64, st.tuples(st.integers(2, 12), st.just(R)), elements=st.integers(0, 4)),
    arrays(np.bool_, st.tuples(st.just(12), st.just(R)),
           elements=st.sampled_from([False, False, True])))))
def test_property_equals_explicit_loops(case):
    codes, mask = case
    x = np.where(mask[:codes.shape[0]], np.nan, codes.astype(float))
    reference = brute(x)
    try:
        est = quiet(iac, x)
    except (RaterCountError, kl.errors.EmptyDataError):
        assert ((~np.isnan(x)).any(axis=0)).sum() < 2
        return
    if np.isnan(reference):
        assert np.isnan(est.value)
    else:
        assert est.value == pytest.approx(reference, abs=1e-12)
    np.testing.assert_allclose(est.per_rater.to_numpy(), brute_per_rater(x), atol=1e-12)


# ---------------------------------------------------------------------- invariance
@pytest.mark.parametrize("factor, shift", [(1e6, 0.0), (1e-6, 3.0), (-2.5, 1e4), (1e150, 0.0),
                                           (7.0, -1e8)])
def test_invariant_under_affine_rescaling_of_all_ratings(factor, shift):
    x = continuous(4, n_items=60)
    plain = iac(x, ci="analytic")
    mapped = iac(shift + factor * x, ci="analytic")
    assert mapped.value == pytest.approx(plain.value, abs=1e-10)
    np.testing.assert_allclose(mapped.per_rater.to_numpy(), plain.per_rater.to_numpy(),
                               atol=1e-10)
    assert mapped.se == pytest.approx(plain.se, rel=1e-8)


def test_constant_rater_is_recognised_at_any_offset():
    """A rater with one rating everywhere has no correlation, however the values are shifted
    (the per-rater centring keeps rounding from faking a variance)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3)) + rng.normal(size=(200, 1))
    x[:, 2] = 0.1
    for shift in (0.0, 1e6, -3.3e9):
        with pytest.warns(ExcludedRatersWarning, match="1 of 3 annotators"):
            est = iac(x + shift)
        assert np.isnan(est.per_rater.iloc[2])
        assert est.details["n_raters_used"] == 2


# ---------------------------------------------------------------------- uncertainty
def test_analytic_se_is_close_to_the_jackknife_and_the_bootstrap():
    x = ratings(7, n_items=600, n_raters=6, missing=0.3)
    analytic = iac(x, ci="analytic")
    jackknife = iac(x, ci="jackknife")
    bootstrap = iac(x, ci="bootstrap", n_resamples=400, seed=1)
    assert analytic.value == jackknife.value
    assert analytic.se == pytest.approx(jackknife.se, rel=0.05)
    assert analytic.se == pytest.approx(bootstrap.se, rel=0.2)
    assert analytic.ci[0] < analytic.value < analytic.ci[1] <= 1.0
    fisher_a, fisher_j = (iac(x, average="fisher", ci=ci) for ci in ("analytic", "jackknife"))
    assert fisher_a.se == pytest.approx(fisher_j.se, rel=0.05)


def test_jackknife_replicates_are_the_estimate_without_the_item():
    x = ratings(8, n_items=25, n_raters=4)
    pairable = np.flatnonzero((~np.isnan(x)).sum(axis=1) >= 2)
    direct = [quiet(iac, np.delete(x, i, axis=0)).value for i in pairable]
    core = InterAnnotatorCorrelationCore(kl.Annotations.from_wide(x))
    np.testing.assert_allclose(replicate_values(core, "jackknife"), direct, atol=1e-12)
    n = len(direct)
    se = math.sqrt((n - 1) / n * ((np.array(direct) - np.mean(direct)) ** 2).sum())
    assert quiet(iac, x, ci="jackknife").se == pytest.approx(se, rel=1e-9)


def test_bootstrap_replicates_are_the_estimate_of_the_resampled_items():
    x = continuous(9)
    n = x.shape[0]
    core = InterAnnotatorCorrelationCore(kl.Annotations.from_wide(x))
    replicates = replicate_values(core, "bootstrap", n_resamples=25, seed=7)
    draws = np.random.default_rng(7).integers(0, n, size=(25, n))
    direct = [quiet(iac, x[d]).value for d in draws]
    np.testing.assert_allclose(replicates, direct, atol=1e-12)


@pytest.mark.parametrize("average", ["mean", "fisher"])
@pytest.mark.parametrize("seed", [0, 1])
def test_closed_form_gradient_equals_the_complex_step_and_a_40_digit_derivative(seed, average):
    x = ratings(seed, n_items=15, n_raters=4)
    core = InterAnnotatorCorrelationCore(kl.Annotations.from_wide(x), average=average)
    totals = core.totals()
    gradient = core.value_gradient(totals)
    np.testing.assert_allclose(gradient, complex_step_gradient(core, totals), rtol=1e-10,
                               atol=1e-12 * np.abs(gradient).max())
    if average == "fisher":
        return
    with mpmath.workdps(40):  # central differences in 40 digits
        base = np.array([mpmath.mpf(float(v)) for v in totals], dtype=object)
        reference = []
        for j, v in enumerate(totals):
            step = mpmath.mpf(10) ** -15 * mpmath.mpf(float(abs(v) + np.abs(totals).mean()))
            up, down = base.copy(), base.copy()
            up[j] += step
            down[j] -= step
            value = lambda t: np.asarray(core.combine(t)["value"]).reshape(-1)[0]
            reference.append(float((value(up) - value(down)) / (2 * step)))
    np.testing.assert_allclose(gradient, reference, rtol=1e-10,
                               atol=1e-11 * np.abs(reference).max())


def test_sample_weights_repeat_and_drop_items():
    x = ratings(10, n_items=30)
    w = np.random.default_rng(11).integers(0, 4, size=x.shape[0])
    w[0] = 1
    weighted = quiet(iac, x, sample_weight=w)
    repeated = quiet(iac, np.repeat(x, w, axis=0))
    assert weighted.value == pytest.approx(repeated.value, abs=1e-12)
    dropped = quiet(iac, x[w > 0], sample_weight=w[w > 0], ci="analytic")
    kept = quiet(iac, x, sample_weight=w, ci="analytic")
    assert kept.value == pytest.approx(dropped.value, abs=1e-12)
    assert kept.se == pytest.approx(dropped.se, rel=1e-9)
    assert kept.n_items == dropped.n_items and kept.n_raters == dropped.n_raters


# ---------------------------------------------------------------------- who enters the mean
def test_raters_without_a_correlation_are_left_out_with_a_warning():
    x = ratings(12, n_items=30, n_raters=5, missing=0.0)
    x[:, 3] = 4.0  # constant ratings
    x[:, 4] = np.nan
    x[5, 4] = 2.0  # a single shared item
    with pytest.warns(ExcludedRatersWarning, match=r"2 of 5 annotators .* 1 share fewer than "
                      r"2 items .* 1 have constant ratings"):
        est = iac(x)
    assert np.isnan(est.per_rater.iloc[3]) and np.isnan(est.per_rater.iloc[4])
    assert est.value == pytest.approx(brute(x), abs=1e-12)
    assert est.details["n_raters_excluded"] == 2 and est.details["n_raters_used"] == 3
    assert est.shared_items.tolist() == [30, 30, 30, 30, 1]


def test_min_items_excludes_raters_with_few_shared_items():
    x = ratings(13, n_items=40, n_raters=4, missing=0.0)
    x[6:, 3] = np.nan  # rater 3 shares 6 items
    with pytest.warns(ExcludedRatersWarning, match="1 share fewer than 10 items"):
        est = iac(x, min_items=10)
    assert np.isnan(est.per_rater.iloc[3])
    assert est.value == pytest.approx(brute(x, min_items=10), abs=1e-12)
    assert np.isfinite(iac(x).per_rater.iloc[3])


def test_no_defined_correlation_is_nan_with_a_warning():
    x = [[1, 2], [1, 3], [1, 4]]  # rater 0 constant, rater 1's others' mean constant
    with pytest.warns(UndefinedCoefficientWarning, match="no annotator has a defined"):
        est = iac(x)
    assert np.isnan(est.value) and est.per_rater.isna().all()


# ---------------------------------------------------------------------- bad input
def test_bad_input_gives_clear_errors():
    with pytest.raises(RaterCountError, match="at least two annotators, got 1"):
        quiet(iac, [[1.0], [2.0], [3.0]])
    with pytest.raises(RaterCountError, match="at least two annotators"):
        quiet(iac, [[1.0, np.nan], [2.0, np.nan], [3.0, np.nan]])
    with pytest.raises(NonNumericError, match="numeric values"):
        iac([["pos", "neg"], ["neg", "neg"], ["pos", "pos"]])
    with pytest.raises(UnknownRatersError, match="rater identities"):
        iac(kl.Annotations.from_counts([[2, 1], [0, 3]]))
    x = ratings(14)
    with pytest.raises(InvalidParameterError, match="unknown average 'median'"):
        iac(x, average="median")
    for bad in (1, 0, 2.5, "3", None):
        with pytest.raises(InvalidParameterError, match="min_items"):
            iac(x, min_items=bad)
    with pytest.raises(InvalidParameterError, match="unknown"):
        iac(x, ci="bca")
    with pytest.raises(InvalidParameterError, match="sample_weight"):
        iac(x, sample_weight=np.ones(3))


def test_a_huge_jackknife_is_refused_before_any_work(monkeypatch):
    """items × 6R leave-one-out cells above the limit: refused, naming the size and the
    analytic interval and the bootstrap as alternatives, before the estimate is computed."""
    x = ratings(15, n_items=50, n_raters=5)
    monkeypatch.setattr(correlation, "LEAVE_ONE_OUT_CELLS", 1000)

    def fail(*args, **kwargs):
        raise AssertionError("the estimate was computed")

    monkeypatch.setattr(InterAnnotatorCorrelationCore, "estimate", fail)
    for ci in ("jackknife", "bootstrap-bca"):
        with pytest.raises(InvalidParameterError,
                           match=r"50 items × 30 columns .*1\.5e\+03 cells.*refused above "
                                 r"1e\+03.*ci='analytic'.*ci='bootstrap'"):
            iac(x, ci=ci)
    monkeypatch.undo()
    monkeypatch.setattr(correlation, "LEAVE_ONE_OUT_CELLS", 1000)
    assert iac(x, ci="analytic").se > 0  # the other intervals are not refused


def test_many_raters_cost_the_annotations_not_items_times_raters():
    """20 000 items × 3 000 raters: dense items × 6R statistics would be 2.9 GB; the sparse
    ones hold six numbers per annotation, and the analytic interval stays small."""
    rng = np.random.default_rng(16)
    n_items, n_raters, per_item = 20_000, 3_000, 4
    items = np.repeat(np.arange(n_items), per_item)
    raters = rng.integers(0, n_raters, size=items.size)
    latent = rng.normal(size=n_items)
    frame = pd.DataFrame({"item": items, "rater": raters,
                          "value": np.round(latent[items] + rng.normal(size=items.size))})
    frame = frame.drop_duplicates(["item", "rater"])
    ann = kl.Annotations.from_long(frame)
    tracemalloc.start()
    try:
        est = quiet(iac, ann, ci="analytic", min_items=5)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200e6
    assert 0 < est.value < 1 and est.se > 0


# ---------------------------------------------------------------------- the result
def test_result_pickles_and_tables():
    est = iac(ratings(17), ci="analytic")
    copied = pickle.loads(pickle.dumps(est))
    assert copied == est and isinstance(copied, kl.InterAnnotatorCorrelation)
    assert copied.per_rater.equals(est.per_rater)
    other = iac(ratings(18), ci="analytic")
    assert other != est
    frame = kl.Estimate.to_frame([est])
    assert frame.coefficient.iloc[0] == "inter-annotator correlation"
    assert frame.value.iloc[0] == est.value and frame.n_raters.iloc[0] == 5
