"""The intraclass correlations (kl.icc) against pingouin, Shrout & Fleiss' published example,
hand arithmetic, Krippendorff's interval α and brute-force inversions of the F test.

pingouin's ``intraclass_corr`` rounds its CI95 column to two decimals by default (its option
``round.column.CI95``); the comparisons below remove that option, so they compare with the
bounds pingouin computes, unrounded.
"""

import warnings

import mpmath
import numpy as np
import pandas as pd
import pytest
from scipy.optimize import brentq
from scipy.stats import f as f_dist

import kappalab as kl
from kappalab.coefficients.base import complex_step_gradient
from kappalab.coefficients.icc import FORMS, IntraclassCorrelationCore, icc_form
from kappalab.errors import (EmptyDataError, IncompleteItemsWarning, InvalidParameterError,
                             NonNumericError, RaterCountError, UndefinedCoefficientWarning,
                             UnknownRatersError)

pg = pytest.importorskip("pingouin")

#: Shrout & Fleiss (1979), Table 2: 6 targets (rows) rated by 4 judges (columns)
SHROUT_FLEISS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6],
                          [10, 5, 6, 9], [6, 2, 4, 7]], dtype=float)


@pytest.fixture
def unrounded_pingouin(monkeypatch):
    """pingouin with its CI95 column left unrounded."""
    monkeypatch.delitem(pg.options, "round.column.CI95", raising=False)
    return pg


def long_frame(x):
    frame = pd.DataFrame(x).rename_axis("target").reset_index()
    return frame.melt(id_vars="target", var_name="rater", value_name="rating")


def pingouin_table(pingouin, x, **options):
    return pingouin.intraclass_corr(long_frame(x), targets="target", raters="rater",
                                    ratings="rating", **options)


def ratings(seed, n, k, bias=1.0, scale=1.0, shift=0.0):
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=(n, 1)) * rng.uniform(0.3, 3) + bias * rng.normal(size=(1, k))
         + rng.normal(size=(n, k)))
    return x * scale + shift


def max_difference(ours, theirs):
    """The largest difference of the values and bounds, relative to the number beyond 1 (a
    bound of ICC(3,k) with two items can be −7·10⁴: there 1e-10 is relative)."""
    bounds = np.vstack(theirs["CI95"].to_numpy())
    pairs = [(ours["value"], theirs["ICC"]), (ours["ci_low"], bounds[:, 0]),
             (ours["ci_high"], bounds[:, 1])]
    return max((np.abs(np.asarray(a) - np.asarray(b)) / np.maximum(1.0, np.abs(b))).max()
               for a, b in pairs)


# ---------------------------------------------------------------------- pingouin
@pytest.mark.parametrize("n, k, bias, scale, shift", [
    (6, 4, 1.0, 1.0, 0.0), (3, 2, 0.5, 1.0, 0.0), (2, 3, 1.0, 1.0, 0.0),
    (30, 3, 0.2, 10.0, 100.0), (15, 2, 2.0, 1e-3, 5.0), (200, 7, 0.7, 1e4, -3e5),
    (50, 12, 0.0, 1.0, 0.0)])
def test_every_form_equals_pingouin(unrounded_pingouin, n, k, bias, scale, shift):
    x = ratings(n * k, n, k, bias, scale, shift)
    theirs = pingouin_table(unrounded_pingouin, x)
    ours = kl.icc_table(x)
    assert ours["type"].tolist() == theirs["Type"].tolist()
    assert max_difference(ours, theirs) < 1e-10
    np.testing.assert_allclose(ours["F"], theirs["F"], rtol=1e-10)
    np.testing.assert_allclose(ours["p_value"], theirs["pval"], rtol=1e-8, atol=1e-300)
    assert ours["df1"].tolist() == theirs["df1"].tolist()
    assert ours["df2"].tolist() == theirs["df2"].tolist()
    for row in ours.itertuples():  # one form at a time: the same numbers
        est = kl.icc(x, form=row.form, ci="F")
        assert est.value == row.value and est.ci == (row.ci_low, row.ci_high)
        assert est.coefficient == row.form and est.se is None


def test_long_data_with_named_raters_in_any_order_equals_pingouin(unrounded_pingouin):
    x = ratings(3, 20, 5)
    frame = long_frame(x).rename(columns={"target": "item", "rating": "value"})
    frame["rater"] = frame["rater"].map(lambda j: f"judge {'edcba'[j]}")
    frame = frame.sample(frac=1.0, random_state=0)
    theirs = pg.intraclass_corr(frame, targets="item", raters="rater", ratings="value")
    assert max_difference(kl.icc_table(frame), theirs) < 1e-10


def test_missing_ratings_drop_the_incomplete_items_as_pingouins_omit(unrounded_pingouin):
    x = ratings(4, 25, 4)
    x[[1, 7, 7, 20], [0, 2, 3, 1]] = np.nan  # three items lose a rating
    with pytest.warns(IncompleteItemsWarning, match="3 item\\(s\\) with a missing rating"):
        ours = kl.icc_table(x)
    theirs = pingouin_table(unrounded_pingouin, x, nan_policy="omit")
    assert max_difference(ours, theirs) < 1e-10
    with pytest.warns(kl.errors.DroppedAnnotationsWarning, match="uses the 22 items"):
        est = kl.icc(x)
    assert est.n_items == 22 and est.n_annotations == 88 and est.n_raters == 4
    assert est.details["n_items_dropped"] == 3
    # a rater with no rating at all is no rater: no item is incomplete for lack of it
    with_empty = np.column_stack([x[[0, 2, 3]], np.full(3, np.nan)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kl.icc(with_empty).n_raters == 4


# ---------------------------------------------------------------------- published values
def test_shrout_fleiss_table_2():
    """Shrout & Fleiss (1979): the ANOVA of Table 2 (BMS = 11.24, WMS = 6.26, JMS = 32.49,
    EMS = 1.02) and Table 4's ICC(1,1) = .17, ICC(2,1) = .29, ICC(3,1) = .71, ICC(1,4) = .44,
    ICC(2,4) = .62, ICC(3,4) = .91."""
    table = kl.icc_table(SHROUT_FLEISS).set_index("form")
    published = {"ICC(1,1)": 0.17, "ICC(2,1)": 0.29, "ICC(3,1)": 0.71, "ICC(1,k)": 0.44,
                 "ICC(2,k)": 0.62, "ICC(3,k)": 0.91}
    for form, value in published.items():
        assert round(table.loc[form, "value"], 2) == value, form
    d = kl.icc(SHROUT_FLEISS).details
    assert [round(d[key], 2) for key in ("ms_rows", "ms_within", "ms_columns", "ms_error")] \
        == [11.24, 6.26, 32.49, 1.02]


def test_hand_arithmetic_of_the_mean_squares():
    """Rows [1, 2], [3, 3], [5, 6]: item means 1.5, 3, 5.5, rater means 3 and 11/3, grand mean
    10/3. SS_R = 2·Σ(mean − 10/3)² = 49/3, SS_C = 3·2·(1/3)² = 2/3, SS_W = 1/2 + 0 + 1/2 = 1,
    SS_E = 1 − 2/3 = 1/3."""
    x = [[1, 2], [3, 3], [5, 6]]
    msr, msc, mse, msw = 49 / 6, 2 / 3, 1 / 6, 1 / 3
    d = kl.icc(x).details
    assert [d["ms_rows"], d["ms_columns"], d["ms_error"], d["ms_within"]] == \
        pytest.approx([msr, msc, mse, msw], rel=1e-13)
    expected = {"ICC(1,1)": (msr - msw) / (msr + msw),
                "ICC(2,1)": (msr - mse) / (msr + mse + 2 * (msc - mse) / 3),
                "ICC(3,1)": (msr - mse) / (msr + mse), "ICC(1,k)": (msr - msw) / msr,
                "ICC(2,k)": (msr - mse) / (msr + (msc - mse) / 3), "ICC(3,k)": (msr - mse) / msr}
    table = kl.icc_table(x).set_index("form")["value"]
    for form, value in expected.items():
        assert table[form] == pytest.approx(value, rel=1e-13), form


# ---------------------------------------------------------------------- Krippendorff's α
@pytest.mark.parametrize("n, k", [(2, 2), (6, 4), (12, 3), (80, 9)])
def test_interval_alpha_is_icc_1_1_with_its_small_sample_factor(n, k):
    """On complete data D_o = 2·MS_W and D_e = 2·SS_T/(nk − 1), so
    α = (MS_R − MS_W)/(MS_R + (k − 1)·MS_W·n/(n − 1))
      = ICC(1,1)/(1 + (k − 1)(1 − ICC(1,1))/(k(n − 1)))."""
    x = ratings(n + k, n, k)
    alpha = kl.krippendorff_alpha(x, level="interval").value
    est = kl.icc(x, form="ICC(1,1)")
    icc1, d = est.value, est.details
    assert alpha == pytest.approx(icc1 / (1 + (k - 1) * (1 - icc1) / (k * (n - 1))), abs=1e-12)
    msr, msw = d["ms_rows"], d["ms_within"]
    assert alpha == pytest.approx((msr - msw) / (msr + (k - 1) * msw * n / (n - 1)), abs=1e-12)
    assert abs(alpha) < abs(icc1)  # the factor pulls α towards 0 (ICC(1,1) neither 0 nor 1)


# ---------------------------------------------------------------------- the F interval
@pytest.mark.parametrize("form", ["ICC(1,1)", "ICC(3,1)", "ICC(1,k)", "ICC(3,k)"])
@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.99])
def test_exact_f_interval_inverts_the_f_test(form, confidence):
    """Under the ANOVA model MS_R/MS_X · (1 − ρ)/(1 + (k − 1)ρ) is F(df1, df2) at ICC = ρ
    (X = W for model 1, E for model 3): the bounds are the ρ where the one-sided p-values
    equal (1 − confidence)/2, found here by root finding; for ICC(f,k), their Spearman–Brown
    prophecies."""
    x = ratings(9, 14, 3)
    n, k = x.shape
    est = kl.icc(x, form=form, ci="F", confidence=confidence)
    d = est.details
    observed = d["ms_rows"] / (d["ms_within"] if form.startswith("ICC(1") else d["ms_error"])
    tail = (1 - confidence) / 2

    def statistic(rho):
        return observed * (1 - rho) / (1 + (k - 1) * rho)

    low = brentq(lambda r: f_dist.sf(statistic(r), d["df1"], d["df2"]) - tail,
                 -1 / (k - 1) + 1e-12, 1 - 1e-12, xtol=1e-15)
    high = brentq(lambda r: f_dist.cdf(statistic(r), d["df1"], d["df2"]) - tail,
                  -1 / (k - 1) + 1e-12, 1 - 1e-12, xtol=1e-15)
    if form.endswith("k)"):
        low, high = (k * b / (1 + (k - 1) * b) for b in (low, high))
    assert est.ci == pytest.approx((low, high), abs=1e-9)
    assert d["F_p_value"] == pytest.approx(f_dist.sf(observed, d["df1"], d["df2"]), rel=1e-12)


def test_perfect_agreement_gives_a_degenerate_f_interval():
    x = np.array([[1.0, 1.0], [2.0, 2.0], [4.0, 4.0]])
    table = kl.icc_table(x)
    assert (table["value"] == 1.0).all()
    assert np.allclose(table[["ci_low", "ci_high"]], 1.0, atol=1e-12)
    assert (table["p_value"] == 0.0).all()


# ---------------------------------------------------------------------- names of the forms
@pytest.mark.parametrize("name, form", [
    ("ICC1", "ICC(1,1)"), ("icc2", "ICC(2,1)"), ("ICC3", "ICC(3,1)"), ("ICC1k", "ICC(1,k)"),
    ("ICC2k", "ICC(2,k)"), ("ICC3K", "ICC(3,k)"), ("ICC(A,1)", "ICC(2,1)"),
    ("ICC(C,1)", "ICC(3,1)"), ("ICC(A,k)", "ICC(2,k)"), ("ICC(C,k)", "ICC(3,k)"),
    ("ICC(1)", "ICC(1,1)"), ("ICC(k)", "ICC(1,k)"), ("icc (2, 1)", "ICC(2,1)"),
    ("ICC(3,4)", "ICC(3,k)"), ("one-way random single", "ICC(1,1)"),
    ("one-way random effects, average measures", "ICC(1,k)"),
    ("two-way random absolute agreement single", "ICC(2,1)"),
    ("two-way mixed, absolute agreement, single measure", "ICC(2,1)"),
    ("Two-way random, absolute agreement, average", "ICC(2,k)"),
    ("two-way mixed consistency single", "ICC(3,1)"),
    ("two way random consistency single rater", "ICC(3,1)"),
    ("two-way mixed consistency mean of k raters", "ICC(3,k)")])
def test_every_name_of_a_form_gives_its_value(name, form):
    assert icc_form(name, 4) == form
    assert kl.icc(SHROUT_FLEISS, form=name).value == kl.icc(SHROUT_FLEISS, form=form).value


def test_mcgraw_wong_labels_are_pingouins():
    assert [FORMS[form][1] for form in FORMS] == ["ICC(1,1)", "ICC(A,1)", "ICC(C,1)",
                                                   "ICC(1,k)", "ICC(A,k)", "ICC(C,k)"]


# ---------------------------------------------------------------------- the spine
def test_jackknife_se_is_the_jackknife_formula_on_pingouins_values(unrounded_pingouin):
    x = ratings(21, 9, 3)
    n = x.shape[0]
    out = np.array([pingouin_table(unrounded_pingouin, np.delete(x, i, axis=0))
                    .set_index("Type").loc["ICC(A,1)", "ICC"] for i in range(n)], dtype=float)
    expected = np.sqrt((n - 1) / n * ((out - out.mean()) ** 2).sum())
    est = kl.icc(x, ci="jackknife")
    assert est.se == pytest.approx(expected, rel=1e-9)
    assert est.details["ci_method"] == "jackknife"


@pytest.mark.parametrize("form", list(FORMS))
def test_gradient_equals_a_high_precision_derivative(form):
    """The complex-step gradient of every form (the analytic SE) against 40-digit central
    differences of combine."""
    core = IntraclassCorrelationCore(ratings(5, 10, 4), form=form)
    totals = core.totals()
    typical = np.abs(totals).mean()
    with mpmath.workdps(40):
        base = np.array([mpmath.mpf(float(v)) for v in totals], dtype=object)
        reference = []
        for j, v in enumerate(totals):
            step = mpmath.mpf(10) ** -15 * mpmath.mpf(float(abs(v) + typical))
            up, down = base.copy(), base.copy()
            up[j] += step
            down[j] -= step
            value = lambda t: np.asarray(core.combine(t)["value"]).reshape(-1)[0]  # noqa: E731
            reference.append(float((value(up) - value(down)) / (2 * step)))
    reference = np.array(reference)
    np.testing.assert_allclose(complex_step_gradient(core, totals), reference, rtol=1e-10,
                               atol=1e-11 * np.abs(reference).max())


@pytest.mark.parametrize("ci", ["analytic", "bootstrap", "bayesian-bootstrap", "jackknife"])
def test_spine_intervals(ci):
    x = ratings(6, 120, 3)
    est = kl.icc(x, ci=ci, n_resamples=300, seed=3)
    assert est.value == kl.icc(x, ci=None).value and kl.icc(x, ci=None).ci is None
    assert est.se > 0 and est.ci[0] <= est.value <= est.ci[1]
    assert kl.icc(x, ci=ci, n_resamples=300, seed=3).ci == est.ci
    reference = kl.icc(x, ci="jackknife").se
    assert 1 / 1.5 < est.se / reference < 1.5
    # the F test is reported whatever the interval
    assert est.details["F"] == kl.icc(x).details["F"]


def test_integer_weights_equal_repeated_items(unrounded_pingouin):
    x = ratings(8, 12, 3)
    w = np.array([1, 2, 0, 3, 1, 1, 2, 1, 0, 1, 4, 1])
    ours = kl.icc_table(x, sample_weight=w)
    repeated = np.repeat(x, w, axis=0)
    assert max_difference(ours, pingouin_table(unrounded_pingouin, repeated)) < 1e-10
    assert kl.icc(x, sample_weight=w).n_items == 10


# ---------------------------------------------------------------------- bad input
def test_bad_input_raises_clear_errors():
    with pytest.raises(InvalidParameterError, match="unknown ICC form 'ICC\\(4,1\\)'"):
        kl.icc(SHROUT_FLEISS, form="ICC(4,1)")
    with pytest.raises(InvalidParameterError, match="names the mean of 5 raters.*4 raters"):
        kl.icc(SHROUT_FLEISS, form="ICC(2,5)")
    with pytest.raises(InvalidParameterError, match="form must be a name"):
        kl.icc(SHROUT_FLEISS, form=2)
    with pytest.raises(InvalidParameterError, match="unknown ci 'f'"):
        kl.icc(SHROUT_FLEISS, ci="f")
    with pytest.raises(InvalidParameterError, match="confidence"):
        kl.icc(SHROUT_FLEISS, confidence=1.0)
    with pytest.raises(NonNumericError, match="the ICC needs numeric values"):
        kl.icc([["a", "b"], ["b", "b"], ["a", "a"]])
    with pytest.raises(UnknownRatersError):
        kl.icc(kl.Annotations.from_counts([[1, 2], [3, 0]]))
    with pytest.raises(RaterCountError, match="at least two, got 1"):
        kl.icc([[1.0], [2.0], [3.0]])
    with pytest.raises(EmptyDataError, match="no item is rated by all 3 raters"):
        kl.icc([[1.0, 2.0, np.nan], [np.nan, 2.0, 3.0]])
    with pytest.raises(InvalidParameterError, match="sample_weight"):
        kl.icc(SHROUT_FLEISS, sample_weight=[1, 2])


def test_undefined_forms_are_nan_with_the_reason():
    with pytest.warns(UndefinedCoefficientWarning, match="every rating is the same"):
        est = kl.icc(np.ones((4, 3)))
    assert np.isnan(est.value) and est.ci is None
    # each rater constant over the items: no variance between items beyond the raters'
    with pytest.warns(UndefinedCoefficientWarning, match="denominator is 0"):
        assert np.isnan(kl.icc([[1, 2], [1, 2], [1, 2]], form="ICC(3,1)").value)
    with pytest.warns(UndefinedCoefficientWarning, match="two items"):
        assert np.isnan(kl.icc([[1, 2, 3]]).value)


# ---------------------------------------------------------------------- agreement_report
def test_report_has_an_icc_row_for_interval_data_only():
    x = ratings(30, 20, 3)
    report = kl.agreement_report(x, level="interval").set_index("coefficient")
    assert report.loc["ICC(2,1)", "value"] == kl.icc(x, ci=None).value
    assert report.loc["ICC(2,1)", "note"] == "" and np.isnan(report.loc["ICC(2,1)", "se"])
    others = report.drop(index="ICC(2,1)")
    assert others.loc["Krippendorff's alpha", "value"] == \
        kl.krippendorff_alpha(x, level="interval").value
    assert "ICC(2,1)" not in kl.agreement_report(np.round(x), level="ordinal")["coefficient"].values
    with_ci = kl.agreement_report(x, level="interval", ci="analytic").set_index("coefficient")
    assert with_ci.loc["ICC(2,1)", "se"] == kl.icc(x, ci="analytic").se


def test_report_icc_row_on_missing_cells_uses_the_complete_items_with_a_note():
    x = ratings(31, 20, 3)
    x[[0, 5], [1, 2]] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the report keeps the warning in its note
        report = kl.agreement_report(x, level="interval").set_index("coefficient")
    row = report.loc["ICC(2,1)"]
    assert row["n_items"] == 18 and "2 item(s) with a missing rating were dropped" in row["note"]
    assert row["value"] == pytest.approx(kl.icc(np.delete(x, [0, 5], axis=0)).value, abs=1e-15)
    assert report.loc["Krippendorff's alpha", "n_items"] == 20
    # no complete item: the row says why, the others stand
    sparse = np.array([[1.0, 2.0, np.nan], [np.nan, 2.0, 3.0], [4.0, np.nan, 4.0]])
    report = kl.agreement_report(sparse, level="interval").set_index("coefficient")
    assert report.loc["ICC(2,1)", "note"].startswith("not computed: no item is rated by all")
    assert np.isfinite(report.loc["Krippendorff's alpha", "value"])
