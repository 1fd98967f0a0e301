"""``weights=`` are Gwet's (2014) agreement weights, as irrCAC and AgreeStat define them.

* every named weight matrix equals irrCAC's ``Weights`` to 1e-15, plus hand-computed ones;
* Fleiss, Conger, Gwet AC2, Brennan–Prediger and percent agreement equal irrCAC's ``CAC`` with
  the same ``weights=`` name to 1e-12 on random complete and missing-cell data, and the
  analytic standard errors equal irrCAC's where they coincide (every item pairable, see
  tests/test_analytic_se.py);
* ``weights="ordinal"`` is Gwet's rank-based weights, ``level="ordinal"`` Krippendorff's metric;
* an asymmetric weight matrix is applied in rater order by the two-rater coefficients (hand
  table formulas, and statsmodels' ``cohens_kappa`` with a 2-D weight matrix, whose table rows
  are rater 1) and refused by the multi-rater ones;
* a weights (or distance) callable returning NaN or inf is refused.

irrCAC is given ``categories=`` as Python ints: it counts a float NaN as a category otherwise
(pandas 3), and treats NumPy integers as labels (ranks 1..K instead of the values).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC
from irrCAC.weights import Weights
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa

import kappalab as kl
from kappalab.distances import WEIGHTS, category_distance, ordinal_weights, radical_weights
from kappalab.errors import InvalidParameterError, NonNumericError

TOL = 1e-12
FUNCTIONS = {"fleiss": kl.fleiss_kappa, "conger": kl.conger_kappa, "gwet": kl.gwet_ac,
             "bp": kl.brennan_prediger}


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def random_table(seed: int, complete: bool) -> tuple[np.ndarray, list[int]]:
    """items × raters with some agreement; positive category values (ratio weights), evenly
    spaced on even seeds and uneven on odd ones, sometimes with a category nobody used."""
    rng = np.random.default_rng(seed)
    n_items, R, K = int(rng.integers(15, 50)), int(rng.integers(2, 6)), int(rng.integers(3, 7))
    if seed % 2 == 0:
        categories = list(range(1, K + 1))
    else:
        categories = sorted(int(v) for v in rng.choice(np.arange(1, 16), size=K, replace=False))
    truth = rng.integers(0, K, size=n_items)
    codes = np.where(rng.random((n_items, R)) < rng.uniform(0.4, 0.9), truth[:, None],
                     rng.integers(0, K, size=(n_items, R)))
    if rng.random() < 0.4:  # an unused category, kept in categories=
        codes[codes == K - 1] = 0
    x = np.asarray(categories, dtype=float)[codes]
    if not complete:
        x[rng.random(x.shape) < 0.25] = np.nan
        x[:, 0] = np.where(np.isnan(x[:, 0]) & np.isnan(x[:, 1]), categories[0], x[:, 0])
    return x, categories


def irrcac(x, categories, weights) -> CAC:
    return CAC(pd.DataFrame(x), weights=weights, categories=list(categories), digits=15)


# ============================================================================ the matrices
@pytest.mark.parametrize("name", WEIGHTS)
@pytest.mark.parametrize("categories", [[1, 2, 3, 4, 5], [1, 2, 5, 9], [2, 3],
                                        [3, 4, 8, 10, 11, 20]])
def test_weight_matrices_are_irrcacs(name, categories):
    values = np.asarray(categories, dtype=float)
    ours = category_distance(name, categories, kind="weights",
                             values=lambda purpose: values).weights
    np.testing.assert_allclose(ours, Weights(list(categories))[name], rtol=0, atol=1e-15)


def test_weight_matrices_by_hand():
    # ordinal: 1 − C(|k−l|+1, 2)/C(4, 2) = 1 − (0, 1, 3, 6)/6, whatever the values
    np.testing.assert_allclose(ordinal_weights(4), [[1, 5 / 6, 1 / 2, 0], [5 / 6, 1, 5 / 6, 1 / 2],
                                                    [1 / 2, 5 / 6, 1, 5 / 6],
                                                    [0, 1 / 2, 5 / 6, 1]], atol=1e-15)
    # radical on 1, 2, 5: 1 − √|x_k − x_l| / √4
    np.testing.assert_allclose(radical_weights([1, 2, 5]),
                               [[1, 0.5, 0], [0.5, 1, 1 - np.sqrt(3) / 2],
                                [0, 1 - np.sqrt(3) / 2, 1]], atol=1e-15)
    values = np.array([1.0, 2.0, 5.0])
    w = lambda name: category_distance(name, [1, 2, 5], kind="weights",
                                      values=lambda p: values).weights
    # ratio: 1 − ((x_k − x_l)/(x_k + x_l))² / (4/6)²
    assert w("ratio")[0, 1] == pytest.approx(1 - (1 / 3) ** 2 / (4 / 6) ** 2, abs=1e-15)
    # circular, U = 5: 1 − sin²(π·1/5)/max sin², the max at |x_k − x_l| = 3 (sin² 3π/5)
    assert w("circular")[0, 1] == pytest.approx(
        1 - np.sin(np.pi / 5) ** 2 / np.sin(3 * np.pi / 5) ** 2, abs=1e-15)
    # bipolar: b_12 = 1/((1+2−2)(10−3)) = 1/7, b_15 = 16/(4·4) = 1, b_25 = 9/(5·3) = 3/5
    assert w("bipolar")[0, 1] == pytest.approx(1 - 1 / 7, abs=1e-15)
    assert w("bipolar")[1, 2] == pytest.approx(1 - 3 / 5, abs=1e-15)
    # aliases: nominal = identity, interval = quadratic
    np.testing.assert_array_equal(w("nominal"), np.eye(3))
    np.testing.assert_allclose(w("interval"), w("quadratic"), atol=0)
    assert w("Linear")[0, 2] == 0.0  # names are case-insensitive


def test_ratio_weights_with_a_zero_category():
    """irrCAC refuses a 0 category (0/0 on the diagonal); here w(0, 0) = 1 and w(0, x) = 0."""
    w = category_distance("ratio", [0, 1, 3], kind="weights",
                          values=lambda p: np.array([0.0, 1.0, 3.0])).weights
    np.testing.assert_allclose(w, [[1, 0, 0], [0, 1, 1 - 0.25], [0, 0.75, 1]], atol=1e-15)


# ============================================================================ coefficients
@pytest.mark.parametrize("complete", [True, False], ids=["complete", "missing"])
@pytest.mark.parametrize("name", WEIGHTS)
def test_kappa_family_equals_irrcac(name, complete):
    """value, pa and pe of fleiss/conger/gwet/bp, and pa = percent_agreement, to 1e-12."""
    compared = 0
    for seed in range(4):
        x, categories = random_table(seed, complete)
        cac = irrcac(x, categories, name)
        ann = kl.Annotations.from_wide(x, categories=categories)
        for method, function in FUNCTIONS.items():
            theirs = quiet(getattr(cac, method))["est"]
            ours = function(ann, weights=name)
            assert ours.value == pytest.approx(theirs["coefficient_value"], abs=TOL), (seed, method)
            assert ours.observed == pytest.approx(theirs["pa"], abs=TOL), (seed, method)
            assert ours.expected == pytest.approx(theirs["pe"], abs=TOL), (seed, method)
            compared += 1
        assert kl.percent_agreement(ann, weights=name).value == pytest.approx(
            quiet(cac.fleiss)["est"]["pa"], abs=TOL)
    assert compared == 4 * len(FUNCTIONS)


@pytest.mark.parametrize("missing", [0.0, 0.3])
@pytest.mark.parametrize("name", WEIGHTS)
def test_analytic_se_equals_irrcac_when_every_item_is_pairable(name, missing):
    rng = np.random.default_rng(17)
    truth = rng.integers(1, 5, size=60)
    x = np.where(rng.random((60, 4)) < 0.6, truth[:, None],
                 rng.integers(1, 5, size=(60, 4))).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    x[:, :2] = np.where(np.isnan(x[:, :2]), truth[:, None], x[:, :2])  # m_i ≥ 2
    cac = irrcac(x, [1, 2, 3, 4], name)
    for method, function in FUNCTIONS.items():
        reference = quiet(getattr(cac, method))["est"]
        est = function(x, weights=name, categories=[1, 2, 3, 4], ci="analytic")
        assert est.value == pytest.approx(reference["coefficient_value"], abs=TOL)
        assert est.se == pytest.approx(reference["se"], rel=1e-8), method


def test_ordinal_weights_are_gwets_and_the_ordinal_level_krippendorffs():
    """The issue's case: AC2 with weights="ordinal" was Krippendorff's ordinal metric."""
    ann = kl.datasets.load("krippendorff_2011")
    x = ann.wide.to_numpy(dtype=float)
    cac = irrcac(x, [1, 2, 3, 4, 5], "ordinal")
    assert kl.gwet_ac(ann, weights="ordinal").value == pytest.approx(
        quiet(cac.gwet)["est"]["coefficient_value"], abs=TOL)
    assert kl.gwet_ac(ann, weights="ordinal").value == pytest.approx(0.898939769907511, abs=TOL)
    # Krippendorff's ordinal metric, scaled to weights, gives another AC2
    kripp = kl.distances.ordinal(ann.count_matrix[ann.annotations_per_item_array >= 2].sum(0))
    other = kl.gwet_ac(ann, weights=1 - kripp / kripp.max()).value
    assert abs(other - 0.898939769907511) > 0.01
    # level="ordinal" is still Krippendorff's (published 0.815)
    assert round(kl.krippendorff_alpha(ann, level="ordinal").value, 3) == 0.815


def test_ordinal_weights_need_only_the_order_of_label_categories():
    """irrCAC ranks label categories 1..K; so do the ordinal weights (no values needed)."""
    ann = kl.datasets.load("worked_example")  # categories 'G', 'N', 'P'
    cac = CAC(ann.wide, weights="ordinal", categories=list(ann.categories), digits=15)
    for method, function in FUNCTIONS.items():
        assert function(ann, weights="ordinal").value == pytest.approx(
            quiet(getattr(cac, method))["est"]["coefficient_value"], abs=TOL)
    with pytest.raises(NonNumericError, match="linear weights needs numeric values"):
        kl.fleiss_kappa(ann, weights="linear")


@pytest.mark.parametrize("name", WEIGHTS)
def test_two_rater_coefficients_take_every_name(name):
    """Cohen = Conger, Scott = Fleiss, Bennett = Brennan–Prediger on two raters (irrCAC)."""
    x, categories = random_table(4, complete=False)
    x = x[:, :2]
    cac = irrcac(x, categories, name)
    for ours, method in ((kl.cohen_kappa, "conger"), (kl.scott_pi, "fleiss"),
                         (kl.bennett_s, "bp")):
        assert ours(x, weights=name, categories=categories).value == pytest.approx(
            quiet(getattr(cac, method))["est"]["coefficient_value"], abs=TOL)


def test_unknown_weights_name_lists_gwets_weights():
    with pytest.raises(InvalidParameterError,
                       match="unknown weights 'cubic'; choose one of identity, ordinal, linear, "
                             "quadratic, radical, ratio, circular, bipolar"):
        kl.fleiss_kappa([[1, 2], [2, 2]], weights="cubic")


# ============================================================================ asymmetric weights
ASYMMETRIC = np.array([[1.0, 0.8, 0.1],
                       [0.2, 1.0, 0.6],
                       [0.0, 0.9, 1.0]])


def two_raters(seed, missing=0.0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, size=80)
    b = np.where(rng.random(80) < 0.6, a, rng.integers(0, 3, size=80))
    x = np.column_stack([a, b]).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    return x


def table_formula(x, W, chance):
    """P_o = Σ w_kl T_kl / n over the items both rated (T_kl: rater 1 in k, rater 2 in l);
    P_e from each rater's marginal over all its ratings (Cohen), their item-mean π (Scott),
    or uniform (Bennett)."""
    K = W.shape[0]
    both = ~np.isnan(x).any(axis=1)
    T = np.zeros((K, K))
    np.add.at(T, (x[both, 0].astype(int), x[both, 1].astype(int)), 1)
    p_o = (W * T).sum() / T.sum()
    p = [np.bincount(x[~np.isnan(x[:, g]), g].astype(int), minlength=K) for g in (0, 1)]
    p1, p2 = p[0] / p[0].sum(), p[1] / p[1].sum()
    if chance == "cohen":
        p_e = p1 @ W @ p2
    elif chance == "scott":  # π_k = mean over annotated items of n_ik/m_i
        m = (~np.isnan(x)).sum(axis=1)
        n = np.stack([(x == k).sum(axis=1) for k in range(K)], axis=1)
        pi = (n[m > 0] / m[m > 0, None]).mean(axis=0)
        p_e = pi @ W @ pi
    else:
        p_e = W.sum() / K**2
    return (p_o - p_e) / (1 - p_e), p_o, p_e


@pytest.mark.parametrize("missing", [0.0, 0.2])
@pytest.mark.parametrize("function, chance", [(kl.cohen_kappa, "cohen"), (kl.scott_pi, "scott"),
                                              (kl.bennett_s, "bennett")])
def test_two_rater_coefficients_apply_an_asymmetric_matrix_in_rater_order(function, chance,
                                                                          missing):
    x = two_raters(3, missing)
    est = function(x, weights=ASYMMETRIC, categories=[0, 1, 2])
    value, p_o, p_e = table_formula(x, ASYMMETRIC, chance)
    assert (est.value, est.observed, est.expected) == pytest.approx((value, p_o, p_e), abs=TOL)
    # swapping the raters is transposing W
    swapped = function(x[:, ::-1], weights=ASYMMETRIC.T, categories=[0, 1, 2])
    assert swapped.value == pytest.approx(est.value, abs=TOL)
    # ... and the labels form (x, y) has x as rater 1; a callable gives the same
    pair = function(x[:, 0], x[:, 1], weights=ASYMMETRIC, categories=[0, 1, 2])
    assert pair.value == pytest.approx(est.value, abs=TOL)
    by_callable = function(x, weights=lambda a, b: ASYMMETRIC[a.astype(int), b.astype(int)],
                           categories=[0, 1, 2])
    assert by_callable.value == pytest.approx(est.value, abs=TOL)


def test_rater_1_is_the_first_rater_of_the_annotations():
    """Long data: the raters in order of first appearance (``ann.raters``), as in wide data."""
    x = two_raters(5)
    long = pd.DataFrame({"item": np.tile(np.arange(80), 2), "rater": ["b"] * 80 + ["a"] * 80,
                         "value": np.concatenate([x[:, 0], x[:, 1]])})
    ann = kl.Annotations.from_long(long, categories=[0.0, 1.0, 2.0])
    assert list(ann.raters) == ["b", "a"]
    assert kl.cohen_kappa(ann, weights=ASYMMETRIC).value == pytest.approx(
        table_formula(x, ASYMMETRIC, "cohen")[0], abs=TOL)


def test_cohen_asymmetric_is_not_the_symmetrised_matrix():
    x = two_raters(3)
    ordered = kl.cohen_kappa(x, weights=ASYMMETRIC).value
    symmetrised = kl.cohen_kappa(x, weights=(ASYMMETRIC + ASYMMETRIC.T) / 2).value
    assert ordered == pytest.approx(table_formula(x, ASYMMETRIC, "cohen")[0], abs=TOL)
    assert abs(ordered - symmetrised) > 1e-3
    # which is what P_o and P_e average over the two orders of the raters
    reverse = kl.cohen_kappa(x[:, ::-1], weights=ASYMMETRIC)
    forward = kl.cohen_kappa(x, weights=ASYMMETRIC)
    both = kl.cohen_kappa(x, weights=(ASYMMETRIC + ASYMMETRIC.T) / 2)
    assert both.observed == pytest.approx((forward.observed + reverse.observed) / 2, abs=TOL)
    assert both.expected == pytest.approx((forward.expected + reverse.expected) / 2, abs=TOL)


def test_cohen_asymmetric_value_and_se_equal_statsmodels():
    """statsmodels' cohens_kappa with a 2-D (disagreement) weight matrix 1 − W: its table rows
    are rater 1; its FCE variance has divisor n, ours n − 1."""
    x = two_raters(8).astype(int)
    table = np.zeros((3, 3))
    np.add.at(table, (x[:, 0], x[:, 1]), 1)
    reference = sm_cohens_kappa(table, weights=1 - ASYMMETRIC)
    est = kl.cohen_kappa(x, weights=ASYMMETRIC, ci="analytic")
    n = x.shape[0]
    assert est.value == pytest.approx(reference["kappa"], abs=TOL)
    assert est.se * np.sqrt((n - 1) / n) == pytest.approx(reference["std_kappa"], rel=1e-8)


@pytest.mark.parametrize("function, chance", [(kl.cohen_kappa, "cohen"), (kl.scott_pi, "scott")])
def test_asymmetric_jackknife_is_the_jackknife_of_the_table_formula(function, chance):
    """Resampling goes through the same rater-order formulas (leave-one-item-out over the
    annotated items, missing data included)."""
    x = two_raters(3, missing=0.2)
    x = x[~np.isnan(x).all(axis=1)]
    n = x.shape[0]
    leave_one_out = np.array([table_formula(np.delete(x, i, axis=0), ASYMMETRIC, chance)[0]
                              for i in range(n)])
    expected = np.sqrt((n - 1) / n * ((leave_one_out - leave_one_out.mean()) ** 2).sum())
    est = function(x, weights=ASYMMETRIC, categories=[0, 1, 2], ci="jackknife")
    assert est.se == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("function", [kl.fleiss_kappa, kl.conger_kappa, kl.gwet_ac,
                                      kl.brennan_prediger, kl.percent_agreement,
                                      kl.light_kappa], ids=lambda f: f.__name__)
def test_multi_rater_coefficients_refuse_an_asymmetric_matrix(function):
    x = two_raters(3)
    with pytest.raises(InvalidParameterError,
                       match=r"needs a symmetric weight or distance matrix .* "
                             r"max \|w_kl − w_lk\| = 0\.6"):
        function(x, weights=ASYMMETRIC)
    with pytest.raises(InvalidParameterError, match="symmetric"):
        function(x, weights=lambda a, b: ASYMMETRIC[a.astype(int), b.astype(int)])
    function(x, weights=(ASYMMETRIC + ASYMMETRIC.T) / 2)  # symmetric: fine


@pytest.mark.parametrize("function", [kl.krippendorff_alpha, kl.janson_olsson_iota],
                         ids=lambda f: f.__name__)
def test_alpha_and_iota_refuse_an_asymmetric_distance_matrix(function):
    delta = 1 - ASYMMETRIC
    with pytest.raises(InvalidParameterError, match="needs a symmetric weight or distance"):
        function(two_raters(3), level=delta)


def test_rounding_level_asymmetry_counts_as_symmetric():
    W = (ASYMMETRIC + ASYMMETRIC.T) / 2
    W[0, 1] += 1e-14
    x = two_raters(3)
    assert kl.fleiss_kappa(x, weights=W).value == pytest.approx(
        kl.fleiss_kappa(x, weights=(ASYMMETRIC + ASYMMETRIC.T) / 2).value, abs=1e-12)


# ============================================================================ callables
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_weights_callable_returning_nan_or_inf_is_refused(bad):
    def weights(a, b):
        return np.where(a == b, 1.0, np.where((a == 1) & (b == 3), bad, 0.5))

    for function in (kl.fleiss_kappa, kl.cohen_kappa, kl.gwet_ac):
        with pytest.raises(InvalidParameterError,
                           match=rf"the weights callable returned {bad} for the categories "
                                 r"\(1, 3\) \(1 non-finite cell\(s\) in all\)"):
            function([[1, 2], [2, 3], [3, 3], [1, 1]], weights=weights)


def test_distance_callable_returning_nan_is_refused():
    with pytest.raises(InvalidParameterError, match="the distance callable returned nan"):
        kl.krippendorff_alpha([[1, 2], [2, 3], [3, 3]],
                              level=lambda a, b: np.where(a > b, np.nan, (a - b) ** 2))


def test_named_metrics_record_no_asymmetry():
    values = np.array([1.0, 2.0, 4.0])
    for level in ("nominal", "interval", "ratio", "circular", "bipolar"):
        assert category_distance(level, [1, 2, 4], kind="level",
                                 values=lambda p: values).symmetric


def test_one_entry_point_reads_both_vocabularies():
    """level= and weights= resolve through category_distance; the result says what it is."""
    values = np.array([1.0, 2.0, 4.0])
    resolve = lambda spec, kind: category_distance(spec, [1, 2, 4], kind=kind,
                                                   values=lambda p: values,
                                                   marginals=lambda: np.array([3.0, 2.0, 1.0]))
    krippendorff, gwet = resolve("ordinal", "level"), resolve("ordinal", "weights")
    assert (krippendorff.kind, gwet.kind) == ("level", "weights")
    assert "Krippendorff" in krippendorff.description and "Gwet" in gwet.description
    assert repr(gwet) == "CategoryDistance('ordinal', kind='weights', scale=1)"
    # the same word, two meanings: mid-ranks of the marginals against ranks
    assert not np.allclose(krippendorff.weights, gwet.weights)
    # where the two vocabularies agree, so do the weights
    for level, weights in [("nominal", None), ("interval", "quadratic"), ("ratio", "ratio"),
                           ("circular", "circular"), ("bipolar", "bipolar")]:
        np.testing.assert_allclose(resolve(level, "level").weights,
                                   resolve(weights, "weights").weights, atol=1e-15)
    assert resolve(None, "weights").name == "nominal"  # unweighted reports the nominal level
    with pytest.raises(InvalidParameterError, match="unknown kind"):
        resolve("nominal", "metric")
    with pytest.raises(InvalidParameterError, match="no level given"):
        resolve(None, "level")
    with pytest.raises(InvalidParameterError, match="unknown level 'identity'"):
        resolve("identity", "level")
