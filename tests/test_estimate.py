"""Estimate as a number: formatting, rounding, comparisons, equality, hashing, the Wald test
(z and p-value, against irrCAC and scipy by hand), the DataFrame of several estimates and the
notebook HTML."""

import copy
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC
from scipy.stats import t as student_t

import kappalab as kl
from kappalab.errors import InvalidParameterError, UndefinedCoefficientWarning

COLUMNS = ["coefficient", "value", "se", "ci_low", "ci_high", "z", "p_value", "observed",
           "expected", "level", "n_items", "n_annotations", "n_raters"]


@pytest.fixture
def cohen():
    # P_o = 2/3; marginals 1/3, 2/3 and 2/3, 1/3: P_e = 4/9, κ = (2/3 − 4/9)/(1 − 4/9) = 0.4
    return kl.cohen_kappa(["x", "y", "y"], ["x", "y", "x"])


def weak_ratings(seed, n_items=40, n_raters=4):
    """Weak agreement (p-values between 0.001 and 0.9), every item fully annotated."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, size=n_items)
    keep = rng.random((n_items, n_raters)) < 0.25
    return np.where(keep, truth[:, None], rng.integers(0, 3, size=(n_items, n_raters)))


# ------------------------------------------------------------------ as a number
def test_format_spec_applies_to_the_value(cohen):
    assert f"{cohen:.3f}" == "0.400"
    assert f"{cohen:.1%}" == "40.0%"
    assert f"{cohen:>8.2f}" == "    0.40"
    assert format(cohen, "e") == format(cohen.value, "e")


def test_empty_format_spec_is_the_repr(cohen):
    assert f"{cohen}" == str(cohen) == repr(cohen) == format(cohen, "")
    assert repr(cohen).startswith("Estimate(Cohen")


def test_round_returns_a_float_and_round_without_digits_an_int(cohen):
    rounded = round(cohen, 3)
    assert type(rounded) is float and rounded == 0.4
    assert round(cohen) == 0 and type(round(cohen)) is int


def test_comparisons_with_numbers_compare_the_value(cohen):
    assert cohen > 0.3 and cohen >= 0.3 and cohen < 0.5 and cohen <= 0.5
    assert not cohen > 0.6 and 0.3 < cohen and 0.5 > cohen  # reflected
    assert cohen == cohen.value and cohen.value == cohen
    assert cohen != 0.5 and not cohen == 0.5
    assert cohen > np.float64(0.3) and cohen == np.float64(cohen.value)
    assert cohen > 0 and cohen < 1  # ints


def test_nan_compares_like_a_float():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedCoefficientWarning)
        est = kl.fleiss_kappa([[1, 1], [1, 1]])  # one category: undefined
    assert math.isnan(est.value)
    assert not est == math.nan and est != math.nan
    assert not est > 0 and not est < 0 and not est >= 0 and not est <= 0
    assert f"{est:.2f}" == "nan"


def test_comparison_with_a_non_number_is_not_supported(cohen):
    assert cohen != "0.4" and not cohen == "0.4"
    with pytest.raises(TypeError):
        cohen < "0.5"  # noqa: B015


def test_estimates_order_by_value(cohen):
    x = [[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2]]
    fleiss, ac1 = kl.fleiss_kappa(x), kl.gwet_ac(x)
    ordered = sorted([ac1, cohen, fleiss])
    assert [e.value for e in ordered] == sorted([ac1.value, cohen.value, fleiss.value])
    assert max([cohen, fleiss, ac1]) is max([cohen, fleiss, ac1], key=float)


# ------------------------------------------------------------------ equality and hashing
def test_equality_between_estimates_is_field_wise(cohen):
    again = kl.cohen_kappa(["x", "y", "y"], ["x", "y", "x"])
    assert again == cohen and hash(again) == hash(cohen)
    # the same value from another coefficient or other counts is another estimate
    other = kl.Estimate("another", cohen.value, cohen.observed, cohen.expected,
                        cohen.n_items, cohen.n_annotations)
    assert other == cohen.value and other != cohen
    bigger = kl.cohen_kappa(["x", "y", "y"] * 2, ["x", "y", "x"] * 2)
    assert bigger.value == pytest.approx(cohen.value) and bigger != cohen


def test_hash_is_the_values_and_estimates_fit_in_sets_and_dicts(cohen):
    assert hash(cohen) == hash(cohen.value)
    fleiss = kl.fleiss_kappa([[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2]], ci="analytic")
    table = {cohen: "cohen", fleiss: "fleiss"}  # details is a dict: hashing must not use it
    assert table[kl.cohen_kappa(["x", "y", "y"], ["x", "y", "x"])] == "cohen"
    assert len({cohen, copy.deepcopy(cohen), fleiss}) == 2


def test_pickle_and_deepcopy_give_an_equal_estimate_nan_and_arrays_included(cohen):
    est = kl.Estimate("x", math.nan, math.nan, 0.5, 3, 6, se=math.nan,
                      details={"a": np.array([1.0, math.nan]), "b": {"c": (1, math.nan)}})
    for original in (cohen, est):
        for copied in (pickle.loads(pickle.dumps(original)), copy.deepcopy(original)):
            assert copied == original and not copied != original
            assert hash(copied) == hash(original)
    assert est != kl.Estimate("x", math.nan, math.nan, 0.5, 3, 6, se=math.nan,
                              details={"a": np.array([1.0, 2.0]), "b": {"c": (1, math.nan)}})


# ------------------------------------------------------------------ z and p-value
@pytest.mark.parametrize("seed", range(4))
def test_p_value_and_z_equal_irrcacs_fleiss(seed):
    x = weak_ratings(seed)
    est = kl.fleiss_kappa(x, categories=[0, 1, 2], ci="analytic")
    reference = CAC(pd.DataFrame(x), categories=[0, 1, 2], digits=15).fleiss()["est"]
    assert est.se == pytest.approx(reference["se"], rel=1e-8)
    assert 1e-3 < reference["p_value"] < 0.9  # a p-value that tells something
    assert est.p_value == pytest.approx(reference["p_value"], abs=1e-10)
    assert est.z == pytest.approx(reference["z"], rel=1e-8)


@pytest.mark.filterwarnings("ignore:Starting with pandas version 4.0")  # inside irrCAC
@pytest.mark.parametrize("seed", range(2))
def test_p_value_equals_irrcacs_conger_and_gwet(seed):
    x = weak_ratings(seed + 10)
    for estimator, method in ((kl.conger_kappa, "conger"), (kl.gwet_ac, "gwet")):
        est = estimator(x, categories=[0, 1, 2], ci="analytic")
        reference = getattr(CAC(pd.DataFrame(x), categories=[0, 1, 2], digits=15), method)()
        assert est.p_value == pytest.approx(reference["est"]["p_value"], abs=1e-10)


def test_z_test_by_hand_with_scipy():
    x = weak_ratings(3)
    est = kl.fleiss_kappa(x, ci="analytic")
    n = 40  # items, all annotated by the 4 raters
    for null in (0.0, 0.1, -0.2, 0.5):
        z, p = est.z_test(null)
        assert z == pytest.approx((est.value - null) / est.se, rel=1e-14)
        assert p == pytest.approx(2 * student_t.sf(abs(z), n - 1), rel=1e-12)
    assert est.z_test() == (est.z, est.p_value)


def test_degrees_of_freedom_are_those_of_the_interval():
    # 10 items, 3 of them with a single annotation: n_items = 7 pairable items, but Fleiss'
    # chance term uses all 10 and so does the interval θ̂ ± t_9·SE (irrCAC's n): df = 9, and
    # the test stays dual to the interval
    x = weak_ratings(5, n_items=10, n_raters=3).astype(float)
    x[:3, 1:] = np.nan
    est = kl.fleiss_kappa(x, ci="analytic")
    assert est.n_items == 7 and est.df == 9 and est.details["df"] == 9
    assert est.p_value == pytest.approx(2 * student_t.sf(abs(est.value / est.se), 9),
                                        rel=1e-12)
    assert est.z_test(est.ci[0])[1] == pytest.approx(0.05, abs=1e-12)
    # percent agreement uses the pairable items only: the interval's n is n_items
    pa = kl.percent_agreement(x, ci="analytic")
    assert pa.n_items == 7 and pa.df == 6 and "df" not in pa.details


def test_the_test_is_dual_to_the_analytic_interval():
    # a null at a bound of the 95% interval θ̂ ± t_{n−1, .975}·SE has p = 0.05 exactly
    est = kl.fleiss_kappa(weak_ratings(1), ci="analytic", confidence=0.95)
    low, high = est.ci
    assert est.z_test(low)[1] == pytest.approx(0.05, abs=1e-12)
    if high < 1:  # not capped at the coefficient's maximum
        assert est.z_test(high)[1] == pytest.approx(0.05, abs=1e-12)
    assert est.z_test(est.value) == (0.0, 1.0)
    est90 = kl.fleiss_kappa(weak_ratings(1), ci="analytic", confidence=0.9)
    assert est90.z_test(est90.ci[0])[1] == pytest.approx(0.10, abs=1e-12)


def test_no_standard_error_no_test(cohen):
    assert cohen.se is None and cohen.z is None and cohen.p_value is None
    with pytest.raises(InvalidParameterError, match="standard error"):
        cohen.z_test()


def test_z_test_rejects_a_null_that_is_not_a_finite_number():
    est = kl.fleiss_kappa(weak_ratings(0), ci="analytic")
    for bad in (math.nan, math.inf, "0", None, True):
        with pytest.raises(InvalidParameterError, match="null"):
            est.z_test(bad)


def test_zero_and_nan_standard_errors():
    def make(value, se):
        return kl.Estimate("c", value, 0.9, 0.5, 10, 20, se=se)
    assert make(0.8, 0.0).z == math.inf and make(0.8, 0.0).p_value == 0.0
    assert make(-0.8, 0.0).z == -math.inf
    assert math.isnan(make(0.0, 0.0).z) and math.isnan(make(0.0, 0.0).p_value)
    assert math.isnan(make(0.8, math.nan).z) and math.isnan(make(0.8, math.nan).p_value)
    one_item = kl.Estimate("c", 0.5, 0.9, 0.5, 1, 2, se=0.1)  # no degrees of freedom
    assert one_item.z == pytest.approx(5.0) and math.isnan(one_item.p_value)


# ------------------------------------------------------------------ tables and HTML
def test_to_frame_one_row_per_estimate():
    x = weak_ratings(2)
    with_se = kl.fleiss_kappa(x, ci="analytic")
    without = kl.krippendorff_alpha([[1, 1], [2, 2], [1, 2]])
    counts = kl.Estimate("counts", 0.5, 0.75, 0.5, 2, 4)  # no raters, no SE
    frame = kl.Estimate.to_frame([with_se, without, counts])
    assert list(frame.columns) == COLUMNS and len(frame) == 3
    first, second = frame.iloc[0], frame.iloc[1]
    assert first["coefficient"] == with_se.coefficient and first["value"] == with_se.value
    assert (first["ci_low"], first["ci_high"]) == with_se.ci
    assert first["z"] == with_se.z and first["p_value"] == with_se.p_value
    assert (first["n_items"], first["n_annotations"], first["n_raters"]) == (40, 160, 4)
    assert first["level"] == "nominal"
    # α by hand: coincidences o_11 = o_22 = 2, o_12 = o_21 = 1, n = 6, n_1 = n_2 = 3:
    # D_o = 2/6, D_e = 2·3·3/(6·5) = 0.6, α = 1 − (1/3)/0.6 = 4/9
    assert second["value"] == pytest.approx(4 / 9, abs=1e-15)
    assert second["n_raters"] == 2
    for column in ("se", "ci_low", "ci_high", "z", "p_value"):
        assert math.isnan(second[column])
    assert math.isnan(frame.iloc[2]["n_raters"]) and math.isnan(frame.iloc[2]["p_value"])
    assert frame["value"].dtype == float and frame["p_value"].dtype == float


def test_to_frame_takes_any_iterable_and_rejects_non_estimates(cohen):
    assert list(kl.Estimate.to_frame(e for e in [cohen, cohen])["value"]) == [cohen.value] * 2
    empty = kl.Estimate.to_frame([])
    assert list(empty.columns) == COLUMNS and empty.empty
    with pytest.raises(InvalidParameterError, match="item 1 is float"):
        kl.Estimate.to_frame([cohen, 0.4])


def test_dataframe_of_to_dict_still_works(cohen):
    est = kl.fleiss_kappa(weak_ratings(0), ci="analytic")
    frame = pd.DataFrame([cohen.to_dict(), est.to_dict()])
    assert list(frame["value"]) == [cohen.value, est.value]
    assert frame.loc[1, "ci"] == est.ci and isinstance(frame.loc[1, "details"], dict)


def test_repr_html_is_a_small_escaped_table():
    est = kl.Estimate("<b>κ & 'co'</b>", 0.4, 0.7, 0.5, 12, 36, n_raters=3, se=0.1,
                      ci=(0.2, 0.6), level="nominal")
    page = est._repr_html_()
    assert page.startswith("<table") and page.endswith("</table>")
    assert "<b>" not in page and "&lt;b&gt;κ &amp; &#x27;co&#x27;&lt;/b&gt;" in page
    assert "0.4000" in page and "[0.2000, 0.6000]" in page and ">36<" in page
    # z = 4 and p = 2·P(T_11 ≥ 4) by scipy
    assert "4.000" in page and f"{2 * student_t.sf(4.0, 11):.3g}" in page
    bare = kl.Estimate("c", 0.4, 0.7, 0.5, 12, 36)._repr_html_()
    assert "p-value" not in bare and "raters" not in bare
