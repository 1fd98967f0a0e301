"""``sample_weight=`` (item weights) on every item-sum estimator.

The weights multiply each item's statistics, θ̂ = f(Σ_i w_i s_i), so the facts checked here
follow from the definitions, each against an independent computation:

* scikit-learn's ``cohen_kappa_score(y1, y2, sample_weight=w)`` (unweighted, linear,
  quadratic);
* an integer weight k is the item repeated k times (every estimator, the value);
* a weight 0 is the item dropped (value and standard errors);
* all-ones weights are no weights (value and standard errors, bit for bit);
* bad weights are refused with :class:`~kappalab.errors.InvalidParameterError`;
* the items stay the resampling units: the jackknife replicate of item i is the weighted
  estimate with w_i = 0, recomputed through the public function, and the analytic standard
  error of a weighted mean of item agreements is the textbook ratio-estimator linearisation
  √(n/(n−1) Σ w_i²(a_i − P)²)/Σ w_i — not the standard error of the repeated data.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics import cohen_kappa_score

import kappalab as kl
from kappalab.coefficients.cross import CrossKappa
from kappalab.coefficients.multirater import alpha_core
from kappalab.errors import InvalidParameterError
from kappalab.uncertainty import replicate_values

K = 4
CATEGORIES = list(range(K))


def table(seed, n_items=30, n_raters=4, missing=0.2, categories=K):
    """items × raters codes 0..K−1 (NaN = missing), agreeing more than chance; every item
    keeps two annotations so that it enters every coefficient."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, categories, size=(n_items, 1))
    x = np.where(rng.random((n_items, n_raters)) < 0.65, truth,
                 rng.integers(0, categories, size=(n_items, n_raters))).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    x[:, :2] = np.where(np.isnan(x[:, :2]), truth, x[:, :2])
    return x


def integer_weights(seed, n, low=1, high=4):
    return np.random.default_rng(seed).integers(low, high + 1, size=n)


def quiet(function, *args, **kwargs):
    """Light's κ warns about sparse pairs; SPA κ and others may warn about undefined values."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# ---------------------------------------------------------------------- the estimators
# each case: (name, estimator(table, sample_weight=…, **options) -> Estimate, data kind)
def _cross(function, **options):
    def run(x, sample_weight=None, **more):
        return function(x[:, :2], x[:, 2:], sample_weight=sample_weight, categories=CATEGORIES,
                        **options, **more)
    return run


def _reference(x, sample_weight=None, **more):
    reference = pd.Series(x[:, 0], index=np.arange(x.shape[0]))
    return kl.reference_agreement(x[:, 1:], reference, sample_weight=sample_weight,
                                  categories=CATEGORIES, **more)


def _plain(function, two_raters=False, **options):
    def run(x, sample_weight=None, **more):
        data = x[:, :2] if two_raters else x
        return function(data, sample_weight=sample_weight, categories=CATEGORIES, **options,
                        **more)
    return run


ESTIMATORS = {
    "alpha": _plain(kl.krippendorff_alpha),
    "alpha-ordinal": _plain(kl.krippendorff_alpha, level="ordinal"),
    "alpha-interval": _plain(kl.krippendorff_alpha, level="interval"),
    "fleiss": _plain(kl.fleiss_kappa),
    "fleiss-quadratic": _plain(kl.fleiss_kappa, weights="quadratic"),
    "conger": _plain(kl.conger_kappa),
    "conger-linear": _plain(kl.conger_kappa, weights="linear"),
    "iota-interval": _plain(kl.janson_olsson_iota, level="interval"),
    "gwet": _plain(kl.gwet_ac),
    "gwet-ordinal": _plain(kl.gwet_ac, weights="ordinal"),
    "brennan-prediger": _plain(kl.brennan_prediger),
    "percent": _plain(kl.percent_agreement),
    "cohen": _plain(kl.cohen_kappa, two_raters=True),
    "cohen-quadratic": _plain(kl.cohen_kappa, two_raters=True, weights="quadratic"),
    "scott": _plain(kl.scott_pi, two_raters=True),
    "bennett": _plain(kl.bennett_s, two_raters=True),
    "light": _plain(kl.light_kappa),
    "light-interval": _plain(kl.light_kappa, weights="quadratic"),
    "cross": _cross(kl.cross_kappa),
    "cross-ordinal": _cross(kl.cross_kappa, level="ordinal"),
    "cross-interval": _cross(kl.cross_kappa, level="interval"),
    "normalized-cross": _cross(kl.normalized_cross_kappa),
    "normalized-cross-given": _cross(kl.normalized_cross_kappa, irr=(0.6, 0.7)),
    "reference": _reference,
    "spa": _plain(kl.spa),
    "spa-edges": _plain(kl.spa, scheme="edges"),
    "spa-inv-var-class": _plain(kl.spa, scheme="inv_var_class"),
    "spa-kappa": _plain(kl.spa_kappa, scheme="annotations"),
    "inter-annotator-correlation": _plain(kl.inter_annotator_correlation),
    "inter-annotator-correlation-fisher": _plain(kl.inter_annotator_correlation,
                                                 average="fisher"),
}


def _value(name, x, w=None, **options):
    return quiet(ESTIMATORS[name], x, sample_weight=w, **options)


# ---------------------------------------------------------------------- (1) scikit-learn
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("seed", range(4))
def test_cohen_kappa_equals_sklearn_with_sample_weight(weights, seed):
    """sklearn weighs by label position; the labels here are 0..K−1, all present, so its
    linear and quadratic weights are kappalab's."""
    rng = np.random.default_rng(seed)
    n = 60
    y1 = rng.integers(0, K, n)
    y2 = np.where(rng.random(n) < 0.6, y1, rng.integers(0, K, n))
    y1[:K], y2[:K] = np.arange(K), np.arange(K)[::-1]  # every label present on both sides
    w = rng.gamma(1.0, size=n)
    w[rng.random(n) < 0.1] = 0.0
    ours = kl.cohen_kappa(y1, y2, weights=weights, sample_weight=w).value
    theirs = cohen_kappa_score(y1, y2, weights=weights, sample_weight=w)
    assert ours == pytest.approx(theirs, abs=1e-12)


# ---------------------------------------------------------------------- (2) repetition
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_integer_weights_equal_repeated_items(name):
    x = table(11)
    w = integer_weights(12, x.shape[0])
    weighted = _value(name, x, w)
    repeated = _value(name, np.repeat(x, w, axis=0))
    assert np.isfinite(weighted.value)
    assert weighted.value == pytest.approx(repeated.value, abs=1e-12)
    assert weighted.observed == pytest.approx(repeated.observed, abs=1e-12)
    assert weighted.expected == pytest.approx(repeated.expected, abs=1e-12)


@st.composite
def weighted_tables(draw):
    n_categories = draw(st.integers(2, 4))
    n_raters = draw(st.integers(2, 4))
    n_items = draw(st.integers(3, 15))
    codes = draw(arrays(np.int64, (n_items, n_raters), elements=st.integers(0, n_categories - 1)))
    mask = draw(arrays(np.bool_, (n_items, n_raters),
                       elements=st.sampled_from([False, False, False, True])))
    x = np.where(mask, np.nan, codes.astype(float))
    w = draw(arrays(np.int64, n_items, elements=st.integers(0, 4)))
    w[0] = max(w[0], 1)
    return x, w, list(range(n_categories))


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(weighted_tables(),
       st.sampled_from(["alpha", "alpha-ordinal", "alpha-interval", "fleiss", "conger", "gwet",
                        "percent", "light", "spa"]))
def test_integer_weights_equal_repeated_items_property(case, name):
    """Any table, any integer weights (zeros included): the weighted value is the value of
    the table with every item repeated w_i times, NaN where that one is NaN."""
    x, w, categories = case
    function, options = {
        "alpha": (kl.krippendorff_alpha, {}),
        "alpha-ordinal": (kl.krippendorff_alpha, {"level": "ordinal"}),
        "alpha-interval": (kl.krippendorff_alpha, {"level": "interval"}),
        "fleiss": (kl.fleiss_kappa, {}), "conger": (kl.conger_kappa, {}),
        "gwet": (kl.gwet_ac, {}), "percent": (kl.percent_agreement, {}),
        "light": (kl.light_kappa, {}), "spa": (kl.spa, {}),
    }[name]
    repeated_table = np.repeat(x, w, axis=0)
    try:
        repeated = quiet(function, repeated_table, categories=categories, **options).value
    except kl.errors.KappalabError:  # e.g. no annotation left, or no pairable item
        with pytest.raises(kl.errors.KappalabError):
            quiet(function, x, categories=categories, sample_weight=w, **options)
        return
    weighted = quiet(function, x, categories=categories, sample_weight=w, **options).value
    if np.isnan(repeated):
        assert np.isnan(weighted)
    else:
        assert weighted == pytest.approx(repeated, abs=1e-12)


def test_cross_weights_travel_with_the_items_of_x():
    """Y in another item order (long data with labels): the weights belong to X's items."""
    x = table(21)
    n = x.shape[0]
    w = integer_weights(22, n)
    labels = [f"item{i}" for i in range(n)]
    order = np.random.default_rng(23).permutation(n)
    x_ann = kl.Annotations.from_long(pd.DataFrame(
        {"item": np.repeat(labels, 2), "rater": ["a", "b"] * n, "value": x[:, :2].ravel()}
    ).dropna(), categories=CATEGORIES)
    y_long = pd.DataFrame({"item": np.repeat(np.array(labels)[order], 2),
                           "rater": ["c", "d"] * n, "value": x[order, 2:].ravel()}).dropna()
    y_ann = kl.Annotations.from_long(y_long, categories=CATEGORIES)
    ours = kl.cross_kappa(x_ann, y_ann, sample_weight=w).value
    repeated = kl.cross_kappa(np.repeat(x[:, :2], w, axis=0), np.repeat(x[:, 2:], w, axis=0),
                              categories=CATEGORIES).value
    assert ours == pytest.approx(repeated, abs=1e-12)


# ---------------------------------------------------------------------- (3) weight 0
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_weight_zero_drops_the_item(name):
    """Value, counts and both standard errors: a zero-weight item is not there."""
    x = table(31)
    rng = np.random.default_rng(32)
    w = rng.uniform(0.2, 3.0, size=x.shape[0])
    zero = rng.random(x.shape[0]) < 0.3
    w[zero] = 0.0
    for ci in (None, "analytic", "jackknife"):
        weighted = _value(name, x, w, ci=ci)
        dropped = _value(name, x[~zero], w[~zero], ci=ci)
        assert weighted.value == pytest.approx(dropped.value, abs=1e-12)
        assert weighted.n_items == dropped.n_items
        assert weighted.n_annotations == dropped.n_annotations
        assert weighted.n_raters == dropped.n_raters
        if ci is not None:
            assert weighted.se == pytest.approx(dropped.se, rel=1e-9, abs=1e-14)
            assert weighted.ci == pytest.approx(dropped.ci, rel=1e-9, abs=1e-14)


# ---------------------------------------------------------------------- (4) all ones
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_all_ones_is_no_weighting(name):
    x = table(41)
    ones = np.ones(x.shape[0])
    for ci in (None, "analytic", "jackknife", "bootstrap"):
        plain = _value(name, x, None, ci=ci, seed=5, n_resamples=50) if ci else _value(name, x)
        weighted = (_value(name, x, ones, ci=ci, seed=5, n_resamples=50) if ci
                    else _value(name, x, ones))
        assert weighted == plain  # the whole Estimate: value, SE, interval, counts


@pytest.mark.parametrize("name", ["fleiss", "conger", "cohen", "light", "cross", "spa-kappa",
                                  "gwet-ordinal", "iota-interval"])
def test_common_factor_leaves_ratio_coefficients_unchanged(name):
    """All but Krippendorff's α depend on the totals through ratios only."""
    x = table(42)
    w = np.random.default_rng(43).uniform(0.5, 2.0, size=x.shape[0])
    assert _value(name, x, 3.0 * w).value == pytest.approx(_value(name, x, w).value,
                                                            abs=1e-12)


def test_alpha_counts_weighted_annotations_like_repetition():
    """α's small-sample factor sees Σ w: doubling every weight is duplicating every item,
    which is not the unweighted α."""
    x = table(44)
    doubled = kl.krippendorff_alpha(x, sample_weight=np.full(x.shape[0], 2.0)).value
    assert doubled == pytest.approx(kl.krippendorff_alpha(np.repeat(x, 2, axis=0)).value,
                                    abs=1e-12)
    assert doubled != pytest.approx(kl.krippendorff_alpha(x).value, abs=1e-6)


# ---------------------------------------------------------------------- (5) bad weights
BAD = {
    "negative": lambda n: np.r_[-1.0, np.ones(n - 1)],
    "nan": lambda n: np.r_[np.nan, np.ones(n - 1)],
    "inf": lambda n: np.r_[np.inf, np.ones(n - 1)],
    "short": lambda n: np.ones(n - 1),
    "long": lambda n: np.ones(n + 1),
    "all-zero": lambda n: np.zeros(n),
    "2-D": lambda n: np.ones((n, 1)),
    "scalar": lambda n: 1.0,
    "strings": lambda n: ["a"] * n,
}


@pytest.mark.parametrize("bad", sorted(BAD))
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_bad_weights_are_refused(name, bad):
    x = table(51)
    with pytest.raises(InvalidParameterError, match="sample_weight"):
        _value(name, x, BAD[bad](x.shape[0]))


@pytest.mark.parametrize("bad", sorted(BAD))
def test_agreement_report_refuses_bad_weights_once(bad):
    x = table(52)
    with pytest.raises(InvalidParameterError, match="sample_weight"):
        kl.agreement_report(x, sample_weight=BAD[bad](x.shape[0]))


def test_a_rater_only_on_zero_weight_items_is_not_counted():
    x = table(58, n_raters=5)
    x[:10, 4] = 1.0
    x[10:, 4] = np.nan  # rater 5 annotated the first ten items only
    w = np.r_[np.zeros(10), np.ones(x.shape[0] - 10)]
    for function in (kl.conger_kappa, kl.light_kappa, kl.fleiss_kappa):
        weighted = quiet(function, x, sample_weight=w, categories=CATEGORIES)
        dropped = quiet(function, x[10:, :4], categories=CATEGORIES)
        assert weighted.n_raters == dropped.n_raters == 4
        assert weighted.value == pytest.approx(dropped.value, abs=1e-12)


def test_cross_weights_zero_on_every_common_item():
    x, y = table(53)[:, :2], table(54)[:, 2:]
    y[5:] = np.nan  # only the first five items are common
    w = np.r_[np.zeros(5), np.ones(x.shape[0] - 5)]
    with pytest.raises(InvalidParameterError, match="common"):
        kl.cross_kappa(x, y, sample_weight=w)


def test_callable_irr_cannot_take_weights():
    x = table(55)
    with pytest.raises(InvalidParameterError, match="sample_weight"):
        kl.normalized_cross_kappa(x[:, :2], x[:, 2:], irr=lambda ann: 0.5,
                                  sample_weight=np.ones(x.shape[0]) * 2)


def test_weights_as_list_series_and_booleans():
    x = table(56)
    w = integer_weights(57, x.shape[0], low=0)
    want = kl.fleiss_kappa(x, sample_weight=w).value
    assert kl.fleiss_kappa(x, sample_weight=list(w)).value == want
    assert kl.fleiss_kappa(x, sample_weight=pd.Series(w)).value == want
    keep = w > 0
    assert kl.fleiss_kappa(x, sample_weight=keep).value == pytest.approx(
        kl.fleiss_kappa(x[keep]).value, abs=1e-12)


# ---------------------------------------------------------------------- (6) uncertainty
@pytest.mark.parametrize("name", ["alpha", "alpha-interval", "fleiss", "conger", "cohen",
                                  "light", "cross", "normalized-cross", "spa-kappa",
                                  "gwet-ordinal"])
def test_jackknife_replicate_is_the_estimate_without_the_item(name):
    """Brute force: the leave-one-out value of item i is the public estimator with w_i = 0,
    and the jackknife SE is the spread of those values."""
    x = table(61, n_items=20)
    w = np.random.default_rng(62).uniform(0.3, 3.0, size=x.shape[0])
    brute = []
    for i in range(x.shape[0]):
        without = w.copy()
        without[i] = 0.0
        brute.append(_value(name, x, without).value)
    brute = np.array(brute)
    estimate = _value(name, x, w, ci="jackknife")
    n = brute.size
    se = np.sqrt((n - 1) / n * ((brute - brute.mean()) ** 2).sum())
    assert estimate.se == pytest.approx(se, rel=1e-9)
    if name in ("alpha", "cross"):  # the replicates themselves, from the core
        ann = kl.Annotations.from_wide(x if name == "alpha" else x[:, :2],
                                       categories=CATEGORIES)
        core = (alpha_core(ann, "nominal", w) if name == "alpha" else
                CrossKappa(ann, kl.Annotations.from_wide(x[:, 2:], categories=CATEGORIES),
                           sample_weight=w))
        np.testing.assert_allclose(replicate_values(core, "jackknife"), brute, atol=1e-12)


@pytest.mark.parametrize("ci", ["analytic", "bootstrap", "bootstrap-bca",
                                "bayesian-bootstrap", "jackknife"])
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_intervals_run_with_weights(name, ci):
    x = table(71)
    w = np.random.default_rng(72).uniform(0.0, 3.0, size=x.shape[0])
    est = _value(name, x, w, ci=ci, n_resamples=200, seed=3)
    assert np.isfinite(est.se) and est.se > 0
    assert est.ci[0] <= est.value <= est.ci[1] or ci.startswith(("bootstrap", "bayesian"))


def test_bootstrap_draws_items_with_their_weights():
    """Same generator, same draws: a bootstrap replicate is the weighted estimate of the
    resampled items, each keeping its weight (every value distinct, so no rows merge)."""
    rng = np.random.default_rng(81)
    n = 25
    x = rng.normal(size=(n, 1)) + 0.7 * rng.normal(size=(n, 3))
    w = rng.uniform(0.5, 2.0, size=n)
    core = alpha_core(kl.Annotations.from_wide(x), "interval", w)
    replicates = replicate_values(core, "bootstrap", n_resamples=20, seed=7)
    draws = np.random.default_rng(7).integers(0, n, size=(20, n))
    direct = [kl.krippendorff_alpha(x[d], level="interval", sample_weight=w[d]).value
              for d in draws]
    np.testing.assert_allclose(replicates, direct, atol=1e-12)


def test_analytic_se_is_the_ratio_linearisation_over_items():
    """Percent agreement P = Σ w_i a_i / Σ w_i is a ratio of item sums; its linearisation over
    the n items is √(n/(n−1) Σ w_i²(a_i − P)²)/Σ w_i: the weights are sampling weights, each
    item one unit, so the SE is not that of the data with items repeated w_i times."""
    x = table(91, n_items=40, n_raters=2, missing=0.0)
    w = integer_weights(92, x.shape[0], low=1, high=5).astype(float)
    a = (x[:, 0] == x[:, 1]).astype(float)
    p = (w @ a) / w.sum()
    n = a.size
    se = np.sqrt(n / (n - 1) * (w**2 @ (a - p) ** 2)) / w.sum()
    est = kl.percent_agreement(x, sample_weight=w, ci="analytic")
    assert est.value == pytest.approx(p, abs=1e-12)
    assert est.se == pytest.approx(se, rel=1e-12)
    repeated = kl.percent_agreement(np.repeat(x, w.astype(int), axis=0), ci="analytic")
    assert repeated.value == pytest.approx(est.value, abs=1e-12)
    assert repeated.se < 0.8 * est.se  # repetition would claim Σ w independent items


def test_agreement_report_rows_equal_the_weighted_estimators():
    x = table(95)[:, :2]
    w = np.random.default_rng(96).uniform(0.0, 2.0, size=x.shape[0])
    report = quiet(kl.agreement_report, x, sample_weight=w, categories=CATEGORIES,
                   ci="analytic")
    for function in (kl.fleiss_kappa, kl.cohen_kappa, kl.light_kappa, kl.krippendorff_alpha):
        est = quiet(function, x, sample_weight=w, categories=CATEGORIES, ci="analytic")
        row = report[report.coefficient == est.coefficient].iloc[0]
        assert row.value == pytest.approx(est.value, abs=1e-15)
        assert row.se == pytest.approx(est.se, abs=1e-15)
