"""Cohen's κ of two label sequences from the K × K contingency table.

``kl.cohen_kappa(x, y)`` counts the two raters' labels into one (K + 1) × (K + 1) table (a
row and a column for the items one rater left out) and takes κ from it; the general path
(the multi-rater core restricted to two raters, ``cohen_kappa_core``) stays for the options
the table does not serve. Checked here:

* hand-calculated values of a small table with missing labels (plain and linear weights);
* the table path equals the general path to 1e-12 in every field of the estimate on varied
  data (missing labels, labels only one rater uses, offsets and negative numbers, floats,
  strings, object arrays with None, named weights, symmetric and asymmetric matrices,
  callables) and scikit-learn's ``cohen_kappa_score`` on complete data;
* what the table does not serve (``categories=``, ``sample_weight=``, ``ci=``, one
  category, no item with both labels, a rater without labels, booleans, mixed types, texts
  that read as numbers) gives the general path's values, warnings and errors.
"""

from __future__ import annotations

import warnings
import zlib
from dataclasses import replace as dataclass_replace
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

import kappalab as kl
from kappalab.coefficients import pairwise
from kappalab.errors import (EmptyDataError, InvalidParameterError, NonNumericError,
                             RaterCountError, UndefinedCoefficientWarning)

TOL = 1e-12
FLOATS = ("value", "observed", "expected", "observed_disagreement", "expected_disagreement")
EXACT = ("coefficient", "level", "n_items", "n_annotations", "n_raters", "details", "se",
         "ci")


#: the two-rater coefficients: public function, core factory (the general path), the table
#: path's names and chance model
TWO_RATER = {
    "cohen": (kl.cohen_kappa, pairwise.cohen_kappa_core,
              ("Cohen's kappa", "Cohen's weighted kappa", "rater_marginal")),
    "scott": (kl.scott_pi, pairwise.scott_pi_core,
              ("Scott's pi", "Scott's pi (weighted)", "item_marginal")),
    "bennett": (kl.bennett_s, pairwise.bennett_s_core,
                ("Bennett's S", "Bennett's S (weighted)", "uniform")),
}


def general(x, y, weights=None, coefficient="cohen", **kwargs):
    """Today's path: the multi-rater core restricted to two raters."""
    return TWO_RATER[coefficient][1](x, y, weights=weights, **kwargs).estimate()


def table(x, y, weights=None, coefficient="cohen", sample_weight=None):
    return pairwise._table_estimate(x, y, weights, *TWO_RATER[coefficient][2],
                                    sample_weight=sample_weight)


def assert_same(fast, slow):
    for field in FLOATS:
        a, b = getattr(fast, field), getattr(slow, field)
        assert a == pytest.approx(b, rel=TOL, abs=TOL), field
    for field in EXACT:
        assert getattr(fast, field) == getattr(slow, field), field


# ---------------------------------------------------------------------- by hand
HAND_X = [1, 1, 2, 2, 3, 3, 1, np.nan]
HAND_Y = [1, 2, 2, 3, 3, 3, np.nan, 2]


def test_small_table_by_hand_unweighted():
    # both labels: (1,1) (1,2) (2,2) (2,3) (3,3) (3,3), n = 6, 2 disagreements: D_o = 1/3;
    # rater 1's labels 1,1,2,2,3,3,1 → (3, 2, 2)/7, rater 2's 1,2,2,3,3,3,2 → (1, 3, 3)/7:
    # D_e = 1 − (3·1 + 2·3 + 2·3)/49 = 34/49, κ = 1 − (1/3)/(34/49) = 53/102
    est = kl.cohen_kappa(HAND_X, HAND_Y)
    assert est.value == pytest.approx(float(Fraction(53, 102)), abs=TOL)
    assert est.observed == pytest.approx(2 / 3, abs=TOL)
    assert est.expected == pytest.approx(15 / 49, abs=TOL)
    assert (est.n_items, est.n_annotations, est.n_raters) == (6, 14, 2)
    assert est.details["n_items_unpairable"] == 2 and est.details["n_categories"] == 3


def test_small_table_by_hand_linear():
    # d_kl = |k − l|/2: D_o = (0.5 + 0.5)/6 = 1/6; D_e = Σ n_1k n_2l |k − l|/(2·49) with
    # n_1 = (3, 2, 2), n_2 = (1, 3, 3): (3·9 + 2·4 + 2·5)/98 = 45/98; κ = 1 − 98/270 = 86/135
    est = kl.cohen_kappa(HAND_X, HAND_Y, weights="linear")
    assert est.value == pytest.approx(float(Fraction(86, 135)), abs=TOL)
    assert est.observed_disagreement == pytest.approx(1 / 6, abs=TOL)
    assert est.expected_disagreement == pytest.approx(45 / 98, abs=TOL)
    assert est.coefficient == "Cohen's weighted kappa" and est.level == "linear"


def test_small_table_by_hand_scott_and_bennett():
    # Scott: π from each item's shares, singles whole: cat 1 1 + ½ + 1, cat 2 ½ + 1 + ½ + 1,
    # cat 3 ½ + 2 → (2.5, 3, 2.5)/8, D_e = 1 − 21.5/64 = 85/128, π = 1 − (1/3)/(85/128)
    assert kl.scott_pi(HAND_X, HAND_Y).value == pytest.approx(
        float(Fraction(127, 255)), abs=TOL)
    # Bennett: D_e = 1 − 1/K = 2/3, S = 1 − (1/3)/(2/3) = 1/2
    assert kl.bennett_s(HAND_X, HAND_Y).value == pytest.approx(0.5, abs=TOL)


def test_the_table_path_serves_two_label_sequences(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the general path was taken")

    for factory in ("cohen_kappa_core", "scott_pi_core", "bennett_s_core"):
        monkeypatch.setattr(pairwise, factory, refuse)
    kl.scott_pi([0, 1, 2, 1], [0, 1, 1, 2], weights="quadratic")
    kl.bennett_s([0, 1, 2, 1], [0, 1, 1, 2], weights="linear")
    for weights in (None, "linear", "quadratic"):
        kl.cohen_kappa(np.array([0, 1, 2, 1]), np.array([0, 1, 1, 2]), weights=weights)
    kl.cohen_kappa(["a", "b", None, "b"], ["a", "b", "b", "a"])
    kl.cohen_kappa([0, 1, 2, 1, 0], [0, 1, 1, 2, 0], ci="analytic")
    with pytest.raises(AssertionError):  # an option the table does not serve
        kl.cohen_kappa([0, 1, 2, 1], [0, 1, 1, 2], ci="bootstrap", n_resamples=10)


# ---------------------------------------------------------------------- table == general
def _data(rng, kind, n, K):
    a = rng.integers(0, K, n)
    b = np.where(rng.random(n) < 0.5, a, rng.integers(0, K, n))
    if kind == "offset":
        return a * 7 - 1000, b * 7 - 1000
    if kind == "uint8":
        return a.astype(np.uint8) + 3, b.astype(np.uint8) + 3
    if kind == "wide_range":  # too wide for direct codes: factorized
        return a * 10**12, b * 10**12
    if kind == "mixed_numbers":
        return a, b.astype(float) / 2
    if kind == "float_missing":
        a, b = a.astype(float) / 4, b.astype(float) / 4
        a[rng.random(n) < 0.15] = np.nan
        b[rng.random(n) < 0.15] = np.nan
        return a, b
    if kind == "one_rater_only":  # category K only in rater 2's labels
        b = b.copy()
        b[: max(1, n // 10)] = K
        return a, b
    labels = np.array(["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"])
    if kind == "strings":
        return labels[a], labels[b]
    if kind == "objects_none":
        x, y = labels[a].astype(object), labels[b].astype(object)
        x[rng.random(n) < 0.2] = None
        y[rng.random(n) < 0.2] = np.nan
        return list(x), pd.Series(y)
    if kind == "texts_mixed":  # fixed-width texts beside objects with None
        y = labels[b].astype(object)
        y[rng.random(n) < 0.2] = None
        return labels[a], y
    return a, b


KINDS = ("ints", "offset", "uint8", "wide_range", "mixed_numbers", "float_missing",
         "one_rater_only", "strings", "objects_none", "texts_mixed")
NUMERIC_WEIGHTS = (None, "identity", "ordinal", "linear", "quadratic", "radical", "ratio",
                   "circular", "bipolar")


@pytest.mark.parametrize("coefficient", sorted(TWO_RATER))
@pytest.mark.parametrize("kind", KINDS)
def test_table_path_equals_the_general_path(kind, coefficient):
    public = TWO_RATER[coefficient][0]
    rng = np.random.default_rng(zlib.crc32(kind.encode()))
    numeric = kind not in ("strings", "objects_none", "texts_mixed")
    for _ in range(8):
        n, K = int(rng.integers(20, 200)), int(rng.integers(2, 7))
        x, y = _data(rng, kind, n, K)
        for weights in NUMERIC_WEIGHTS if numeric else (None, "identity", "ordinal"):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                try:
                    slow = general(x, y, weights, coefficient)
                except (InvalidParameterError, NonNumericError):
                    continue  # e.g. ratio weights across 0: refused by both
                assert_same(table(x, y, weights, coefficient), slow)
                assert_same(public(x, y, weights=weights), slow)


def test_table_path_equals_the_general_path_with_weight_matrices():
    rng = np.random.default_rng(7)
    for _ in range(20):
        n, K = int(rng.integers(5, 120)), int(rng.integers(2, 6))
        x, y = _data(rng, "float_missing", n, K)
        K_found = len(np.unique(np.concatenate([x, y])[~np.isnan(np.concatenate([x, y]))]))
        w = rng.random((K_found, K_found))
        np.fill_diagonal(w, 1.0)
        callable_weights = lambda a, b: 1.0 / (1.0 + np.abs(a - b))  # noqa: E731
        for coefficient in TWO_RATER:
            for spec in (w, (w + w.T) / 2, callable_weights):  # w applied in rater order
                assert_same(table(x, y, spec, coefficient), general(x, y, spec, coefficient))


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_table_path_equals_scikit_learn(weights):
    rng = np.random.default_rng(11)
    for _ in range(30):
        n, K = int(rng.integers(2, 400)), int(rng.integers(2, 9))
        a = rng.integers(0, K, n)
        b = np.where(rng.random(n) < 0.6, a, rng.integers(0, K, n))
        a[:K], b[-K:] = np.arange(K), np.arange(K)  # every label seen: sklearn's index weights
        expected = cohen_kappa_score(a, b, weights=weights)
        assert float(kl.cohen_kappa(a, b, weights=weights)) == pytest.approx(expected, abs=TOL)
        labels = np.array([f"L{k:02d}" for k in range(K)])  # sorted as their indices
        if weights is None:
            got = float(kl.cohen_kappa(labels[a], labels[b]))
            assert got == pytest.approx(cohen_kappa_score(labels[a], labels[b]), abs=TOL)


def test_all_raters_agreeing_and_scikit_learn_sample_weight():
    a = np.array([0, 1, 2, 2, 1, 0])
    assert float(kl.cohen_kappa(a, a.copy())) == 1.0
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0])
    b = np.array([0, 1, 1, 2, 0, 0])
    for weights in (None, "linear", "quadratic"):
        got = kl.cohen_kappa(a, b, weights=weights, sample_weight=w)
        assert float(got) == pytest.approx(
            cohen_kappa_score(a, b, weights=weights, sample_weight=w), abs=TOL)


# ---------------------------------------------------------------------- fall back
def _same_warning(x, y, **kwargs):
    with pytest.warns(UndefinedCoefficientWarning) as fast_record:
        fast = kl.cohen_kappa(x, y, **kwargs)
    with pytest.warns(UndefinedCoefficientWarning) as slow_record:
        slow = general(x, y, **kwargs)
    assert np.isnan(fast.value) and np.isnan(slow.value)
    assert [str(w.message) for w in fast_record] == [str(w.message) for w in slow_record]


def test_undefined_cases_warn_as_the_general_path():
    _same_warning([1, 1, 1], [1, 1, 1])  # one category
    _same_warning([1, 2, np.nan], [np.nan, np.nan, 1])  # no item with both labels
    _same_warning([1, 2, 1, 2], [1, 1, 2, 1], weights=np.ones((2, 2)))  # D_e = 0


@pytest.mark.parametrize("x, y, error, fragment", [
    ([], [], EmptyDataError, "empty"),
    ([1, 2, 3], [1, 2], InvalidParameterError, "equal length"),
    ([np.nan, np.nan], [np.nan, np.nan], EmptyDataError, "missing"),
    ([1, 2, 1], [np.nan, np.nan, np.nan], RaterCountError, "exactly two raters"),
    (["a", "b"], ["a", "c"], NonNumericError, "numeric"),
])
def test_refusals_are_the_general_paths(x, y, error, fragment):
    weights = "linear" if error is NonNumericError else None
    with pytest.raises(error, match=fragment):
        kl.cohen_kappa(x, y, weights=weights)
    with pytest.raises(error, match=fragment):
        general(x, y, weights)


@pytest.mark.parametrize("x, y", [
    ([True, False, True, True], [True, True, False, True]),  # booleans
    (np.array([1, "1", 2, 2], dtype=object), np.array([1, 2, "1", 2], dtype=object)),
    (np.array(["1", "1.0", "2", "2"]), np.array(["1", "2", "1.0", "2"])),  # texts as numbers
    (pd.Categorical(["b", "a", "b"], categories=["b", "a"], ordered=True),
     pd.Categorical(["b", "a", "a"], categories=["b", "a"], ordered=True)),
    (pd.array([1, 2, None, 2], dtype="Int64"), pd.array([1, 2, 2, None], dtype="Int64")),
])
def test_what_the_table_does_not_read_goes_the_general_way(x, y):
    with pytest.raises(pairwise._Fallback):
        pairwise._joint_table(x, y)
    with warnings.catch_warnings(record=True) as fast_record:
        warnings.simplefilter("always")
        fast = kl.cohen_kappa(x, y)
    with warnings.catch_warnings(record=True) as slow_record:
        warnings.simplefilter("always")
        slow = general(x, y)
    assert_same(fast, slow)
    assert [str(w.message) for w in fast_record] == [str(w.message) for w in slow_record]


def test_options_the_table_does_not_serve_give_the_general_path():
    rng = np.random.default_rng(3)
    x, y = _data(rng, "float_missing", 60, 4)
    assert_same(kl.cohen_kappa(x, y, categories=[0.0, 0.25, 0.5, 0.75, 1.0]),
                general(x, y, categories=[0.0, 0.25, 0.5, 0.75, 1.0]))
    w = rng.random(60)
    fast = kl.cohen_kappa(x, y, sample_weight=w, ci="bayesian-bootstrap", n_resamples=20, seed=2)
    slow = pairwise.cohen_kappa_core(x, y, sample_weight=w).estimate(
        "bayesian-bootstrap", n_resamples=20, seed=2)
    assert fast.se == slow.se and fast.ci == slow.ci


# ---------------------------------------------------------------------- the analytic SE
@pytest.mark.parametrize("coefficient", sorted(TWO_RATER))
@pytest.mark.parametrize("ci", ["analytic", "asymptotic"])
def test_table_standard_error_equals_the_general_path(coefficient, ci, monkeypatch):
    public, factory, _ = TWO_RATER[coefficient]
    rng = np.random.default_rng(zlib.crc32(f"{coefficient}{ci}".encode()))
    cases = []
    for trial in range(12):
        n, K = int(rng.integers(10, 300)), int(rng.integers(2, 6))
        x, y = _data(rng, "float_missing" if trial % 2 else "offset", n, K)
        asymmetric = rng.random((K, K)) * 0.8
        np.fill_diagonal(asymmetric, 1.0)
        for weights in (None, "linear", "quadratic", asymmetric):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    slow = factory(x, y, weights=weights).estimate(ci, confidence=0.9)
                except InvalidParameterError:
                    continue  # a matrix of another size than the categories found
            if np.isfinite(slow.value):
                cases.append((x, y, weights, slow))
    assert len(cases) > 20
    monkeypatch.setattr(pairwise, factory.__name__, None)  # the table path only
    for x, y, weights, slow in cases:
        fast = public(x, y, weights=weights, ci=ci, confidence=0.9)
        assert_same(fast, dataclass_replace(slow, se=fast.se, ci=fast.ci))
        assert fast.se == pytest.approx(slow.se, rel=TOL)
        assert fast.ci == pytest.approx(slow.ci, rel=TOL, abs=TOL)


def test_asymptotic_standard_error_equals_statsmodels():
    # Fleiss, Cohen & Everitt's (1969) large-sample SE, as statsmodels' cohens_kappa
    from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa

    rng = np.random.default_rng(19)
    for _ in range(10):
        n, K = int(rng.integers(30, 400)), int(rng.integers(2, 6))
        a = rng.integers(0, K, n)
        b = np.where(rng.random(n) < 0.6, a, rng.integers(0, K, n))
        a[:K], b[-K:] = np.arange(K), np.arange(K)
        counts = np.bincount(a * K + b, minlength=K * K).reshape(K, K)
        for weights, wt in ((None, None), ("linear", "linear"), ("quadratic", "quadratic")):
            est = kl.cohen_kappa(a, b, weights=weights, ci="asymptotic")
            peer = sm_cohens_kappa(counts, wt=wt)
            assert est.value == pytest.approx(peer.kappa, abs=TOL)
            assert est.se == pytest.approx(peer.std_kappa, rel=1e-10)


def test_resampling_intervals_and_gwet_stay_on_the_general_path():
    rng = np.random.default_rng(23)
    x, y = _data(rng, "float_missing", 80, 4)
    for ci in ("bootstrap", "jackknife", "gwet"):
        fast = kl.cohen_kappa(x, y, ci=ci, n_resamples=50, seed=1)
        slow = pairwise.cohen_kappa_core(x, y).estimate(ci, n_resamples=50, seed=1)
        assert fast.se == slow.se and fast.ci == slow.ci
    with pytest.raises(InvalidParameterError, match="confidence"):
        kl.cohen_kappa(x, y, ci="analytic", confidence=1.5)


# ---------------------------------------------------------------------- sample weights
@pytest.mark.parametrize("coefficient", sorted(TWO_RATER))
@pytest.mark.parametrize("kind", ["ints", "float_missing", "objects_none", "wide_range"])
def test_weighted_table_equals_the_general_path(coefficient, kind, monkeypatch):
    public, factory, _ = TWO_RATER[coefficient]
    rng = np.random.default_rng(zlib.crc32(f"w{coefficient}{kind}".encode()))
    cases = []
    for trial in range(10):
        n, K = int(rng.integers(20, 200)), int(rng.integers(2, 6))
        x, y = _data(rng, kind, n, K)
        w = rng.random(n) * 3
        w[rng.random(n) < 0.2] = 0.0  # items of weight 0 drop out, their labels stay categories
        if trial == 0:
            w = rng.integers(0, 4, n).astype(float)  # whole weights: repeated items
        for weights in ((None, "linear", "quadratic") if kind != "objects_none" else (None,)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                slow = factory(x, y, weights=weights, sample_weight=w).estimate()
            if np.isfinite(slow.value):
                assert_same(table(x, y, weights, coefficient, w), slow)
                cases.append((x, y, weights, w, slow))
    assert len(cases) >= 5
    intervals = []
    for x, y, weights, w, _ in cases:  # the weighted items as units of the linearisation
        for ci in ("analytic", "asymptotic"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                intervals.append((x, y, weights, w, ci, factory(
                    x, y, weights=weights, sample_weight=w).estimate(ci, confidence=0.8)))
    monkeypatch.setattr(pairwise, factory.__name__, None)  # the table path only
    for x, y, weights, w, slow in cases:
        assert_same(public(x, y, weights=weights, sample_weight=w), slow)
    for x, y, weights, w, ci, slow in intervals:
        fast = public(x, y, weights=weights, sample_weight=w, ci=ci, confidence=0.8)
        assert_same(fast, dataclass_replace(slow, se=fast.se, ci=fast.ci))
        assert fast.se == pytest.approx(slow.se, rel=TOL)
        assert fast.ci == pytest.approx(slow.ci, rel=TOL, abs=TOL)


def test_weighted_table_equals_scikit_learn_and_repetition():
    rng = np.random.default_rng(29)
    for _ in range(20):
        n, K = int(rng.integers(10, 200)), int(rng.integers(2, 6))
        a = rng.integers(0, K, n)
        b = np.where(rng.random(n) < 0.6, a, rng.integers(0, K, n))
        a[:K], b[-K:] = np.arange(K), np.arange(K)
        w = rng.integers(1, 4, n).astype(float)
        for weights in (None, "linear", "quadratic"):
            got = float(kl.cohen_kappa(a, b, weights=weights, sample_weight=w))
            peer = cohen_kappa_score(a, b, weights=weights, sample_weight=w)
            assert got == pytest.approx(peer, abs=TOL)
            repeated = float(kl.cohen_kappa(np.repeat(a, w.astype(int)),
                                            np.repeat(b, w.astype(int)), weights=weights))
            assert got == pytest.approx(repeated, abs=TOL)


def test_weighted_refusals_and_intervals_are_the_general_paths():
    x, y = [0, 1, 2, 1], [0, 1, 1, 2]
    for bad, fragment in (([1.0, 2.0], "sample_weight"), ([1.0, -1.0, 1.0, 1.0], "sample_weight"),
                          ([0.0, 0.0, 0.0, 0.0], "sample_weight")):
        with pytest.raises(InvalidParameterError, match=fragment):
            kl.cohen_kappa(x, y, sample_weight=bad)
    w = np.array([1.0, 2.0, 0.5, 1.0])
    fast = kl.cohen_kappa(x + [2], y + [2], sample_weight=list(w) + [1.0], ci="jackknife")
    slow = pairwise.cohen_kappa_core(x + [2], y + [2], sample_weight=list(w) + [1.0]
                                     ).estimate("jackknife")
    assert fast.se == slow.se and fast.ci == slow.ci
    # a rater whose labels all sit on items of weight 0: the general path's refusal or NaN
    with warnings.catch_warnings(record=True) as fast_record:
        warnings.simplefilter("always")
        try:
            fast = kl.cohen_kappa([0, 1, np.nan], [np.nan, np.nan, 1], sample_weight=[1, 0, 0])
        except Exception as error:  # noqa: BLE001
            fast = error
    with warnings.catch_warnings(record=True) as slow_record:
        warnings.simplefilter("always")
        try:
            slow = pairwise.cohen_kappa_core([0, 1, np.nan], [np.nan, np.nan, 1],
                                             sample_weight=[1, 0, 0]).estimate()
        except Exception as error:  # noqa: BLE001
            slow = error
    assert type(fast) is type(slow)
    assert [str(w.message) for w in fast_record] == [str(w.message) for w in slow_record]


def test_continuous_labels_take_the_per_item_path():
    # more categories than the table may hold (K² above 4N and 2**20): the per-item sums
    rng = np.random.default_rng(31)
    x = rng.normal(size=3000)
    y = x + rng.normal(scale=0.1, size=3000)
    with pytest.raises(pairwise._Fallback):
        pairwise._joint_table(x, y)
    est = kl.cohen_kappa(x, y, weights="quadratic")
    assert_same(est, general(x, y, "quadratic"))
    assert est.details["moment_path"] and est.details["n_categories"] == 6000


def test_texts_of_numbers_that_read_apart_stay_on_the_table_path(monkeypatch):
    x, y = np.array(["1", "2", "3", "2", "10"]), np.array(["1", "3", "3", "2", "10"])
    slow = general(x, y)
    monkeypatch.setattr(pairwise, "cohen_kappa_core", None)  # the table path only
    assert_same(kl.cohen_kappa(x, y), slow)
    assert slow.details["n_categories"] == 4
