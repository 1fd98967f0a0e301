"""Extreme values are exact or refused: integers beyond 2**53, values scaled by 1e±300, the
Bayesian models' standardisation, and the accuracy of the totals on a million annotations.

Oracles: exact rational arithmetic (``fractions``) on the integers themselves, written out
here; the peer libraries (irrCAC, scikit-learn, pingouin) on the exact
differences from the smallest value, which give the same coefficient wherever its distance
depends only on differences of values (the interval metric and the linear and quadratic
weights do; the ratio metric does not and is checked in fractions); and invariances: a
coefficient of interval data is unchanged by x → a·x + b, so its value on a·x + b must be its
value on x for every a from 1e-300 to 1e300.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import kappalab as kl
from kappalab.errors import NonNumericError

BIG = 2**62

#: items × raters offsets from BIG (None: missing); 0..2, so that ranks are the values too
OFFSETS = [
    [0, 0, 1], [1, 1, 1], [0, 1, 2], [2, 2, 0], [0, 0, None],
    [1, 2, 2], [2, 2, 2], [0, 1, 1], [None, 2, 1], [1, 0, 0],
]
#: the items of OFFSETS without a missing annotation
COMPLETE = [row for row in OFFSETS if None not in row]


def table(offsets, origin, dtype=object):
    """The items × raters table origin + offsets: Python integers and None (missing) as
    objects, or, when complete, an integer array of ``dtype``."""
    cells = [[None if v is None else origin + v for v in row] for row in offsets]
    return np.array(cells, dtype=dtype)


def units(offsets, origin):
    """Each item's values as Python integers (exact), items with two or more values."""
    rows = [[origin + v for v in row if v is not None] for row in offsets]
    return [row for row in rows if len(row) >= 2]


def exact_alpha(offsets, origin, delta):
    """Krippendorff's α in fractions, from its definition over the ordered pairs of values:
    D_o = Σ_u Σ_{a≠b in u} δ(a, b)/(m_u − 1) / n, D_e = Σ_{a≠b} δ(a, b) / (n(n − 1))."""
    rows = units(offsets, origin)
    n = sum(len(row) for row in rows)
    d_o = sum(Fraction(sum(delta(a, b) for i, a in enumerate(row) for j, b in enumerate(row)
                           if i != j), len(row) - 1) for row in rows) / n
    pooled = [v for row in rows for v in row]
    d_e = Fraction(sum(delta(a, b) for i, a in enumerate(pooled) for j, b in enumerate(pooled)
                       if i != j), n * (n - 1))
    return 1 - d_o / d_e


def interval_delta(a, b):
    return Fraction(a - b) ** 2


def ratio_delta(a, b):
    return Fraction(a - b, a + b) ** 2


def exact_weighted_percent_agreement(offsets, origin):
    """Gwet's (2014) weighted percent agreement in fractions: the mean over items with two or
    more annotations of the mean weight of their ordered pairs of annotations,
    w = 1 − (a − b)²/(max − min)²."""
    rows = units(offsets, origin)
    values = [v for row in rows for v in row]
    span2 = Fraction(max(values) - min(values)) ** 2
    per_item = [Fraction(sum(1 - Fraction(a - b) ** 2 / span2 for i, a in enumerate(row)
                             for j, b in enumerate(row) if i != j), len(row) * (len(row) - 1))
                for row in rows]
    return sum(per_item) / len(per_item)


def quiet_value(function, *args, **kwargs):
    """The estimate's value; any warning fails the test (a false "every rating is the same"
    warning was the symptom)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return float(function(*args, **kwargs).value)


# ---------------------------------------------------------------------- integers beyond 2**53
def test_the_issues_example_weighted_percent_agreement_is_two_thirds():
    """Three items: two agree exactly, the third differs by 1 = the span, whose quadratic
    weight is 1 − 1²/1² = 0: (1 + 1 + 0)/3."""
    x = [[2**62, 2**62], [2**62 + 1, 2**62 + 1], [2**62, 2**62 + 1]]
    assert quiet_value(kl.percent_agreement, x, weights="quadratic") == pytest.approx(
        2 / 3, abs=1e-15)


@pytest.mark.parametrize("origin, dtype", [
    (BIG, object), (2**53 + 1, object), (-BIG, object), (2**63 + 12345, object),
    (BIG, np.int64), (-BIG, np.int64), (BIG, np.uint64), (2**63 + 12345, np.uint64)])
def test_alpha_of_integers_beyond_2_53_is_the_exact_rational_value(origin, dtype):
    """Object tables hold Python integers and None (missing); integer arrays are complete."""
    offsets = OFFSETS if dtype is object else COMPLETE
    x = table(offsets, origin, dtype)
    for level, delta in (("interval", interval_delta), ("ratio", ratio_delta)):
        if level == "ratio" and origin < 0:
            continue  # the ratio metric is for non-negative values
        expected = float(exact_alpha(offsets, origin, delta))
        assert quiet_value(kl.krippendorff_alpha, x, level=level) == pytest.approx(
            expected, rel=1e-12, abs=1e-14), level
    assert quiet_value(kl.percent_agreement, x, weights="quadratic") == pytest.approx(
        float(exact_weighted_percent_agreement(offsets, origin)), abs=1e-14)


def test_a_frame_of_nullable_integers_beyond_2_53_is_not_rounded():
    """pandas' nullable Int64 and UInt64 columns with missing cells (pd.NA) beyond 2**53."""
    for dtype, origin in (("Int64", BIG), ("UInt64", 2**63 + 12345)):
        frame = pd.DataFrame([[None if v is None else origin + v for v in row]
                              for row in OFFSETS], dtype=object).astype(dtype)
        expected = float(exact_alpha(OFFSETS, origin, interval_delta))
        assert quiet_value(kl.krippendorff_alpha, frame, level="interval") == pytest.approx(
            expected, rel=1e-12), dtype


def test_long_input_beyond_2_53_is_exact_too():
    frame = pd.DataFrame([(item, rater, BIG + v) for item, row in enumerate(OFFSETS)
                          for rater, v in enumerate(row) if v is not None],
                         columns=["item", "rater", "value"])
    assert frame["value"].dtype == np.int64
    expected = float(exact_alpha(OFFSETS, BIG, interval_delta))
    assert quiet_value(kl.krippendorff_alpha, frame, level="interval") == pytest.approx(
        expected, rel=1e-12)


def irrcac(offsets, method, weights):
    from irrCAC.raw import CAC

    frame = pd.DataFrame(offsets, dtype=float)
    return getattr(CAC(frame, weights=weights, categories=[0, 1, 2], digits=15),
                   method)()["est"]["coefficient_value"]


@pytest.mark.parametrize("function, method", [
    (kl.gwet_ac, "gwet"), (kl.brennan_prediger, "bp"), (kl.fleiss_kappa, "fleiss"),
    (kl.conger_kappa, "conger")])
@pytest.mark.parametrize("weights", ["quadratic", "linear"])
def test_weighted_kappas_beyond_2_53_equal_irrcac_on_the_differences(function, method,
                                                                      weights):
    """Linear and quadratic weights depend on the values only through their differences, so
    irrCAC on the offsets from 2**62 is the oracle of the coefficient on 2**62 + offsets."""
    expected = irrcac(OFFSETS, method, weights)
    assert quiet_value(function, table(OFFSETS, BIG), weights=weights) == pytest.approx(
        expected, abs=1e-13)


def test_weighted_cohen_beyond_2_53_equals_scikit_learn_on_the_differences():
    from sklearn.metrics import cohen_kappa_score

    pairs = [row[:2] for row in OFFSETS if None not in row[:2]]
    a, b = np.array(pairs).T
    expected = cohen_kappa_score(a, b, weights="quadratic")  # labels 0..2: ranks = values
    x = table(pairs, BIG)
    assert quiet_value(kl.cohen_kappa, x, weights="quadratic") == pytest.approx(
        expected, abs=1e-13)


def test_icc_beyond_2_53_equals_pingouin_on_the_differences():
    import pingouin

    frame = pd.DataFrame(COMPLETE).stack().rename("y").rename_axis(["item", "rater"])
    reference = pingouin.intraclass_corr(frame.reset_index(), targets="item", raters="rater",
                                         ratings="y")["ICC"].to_numpy()
    x = table(COMPLETE, BIG, np.int64)
    # pingouin's rows: ICC(1,1), ICC(2,1), ICC(3,1), ICC(1,k), ICC(2,k), ICC(3,k)
    for row, form in enumerate(("ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)",
                                "ICC(3,k)")):
        assert quiet_value(kl.icc, x, form=form) == pytest.approx(reference[row],
                                                                  abs=1e-12), form


def test_a_custom_distance_sees_the_integers_beyond_2_53_exactly():
    """A callable gets the categories themselves: beyond 2**53 as exact Python integers, so
    that (a − b)² gives the interval α in fractions (as floats 2**62 + 1 − 2**62 is 0)."""
    x = table(COMPLETE, BIG, np.int64)
    expected = float(exact_alpha(COMPLETE, BIG, interval_delta))
    assert quiet_value(kl.krippendorff_alpha, x, level=lambda a, b: (a - b) ** 2) == \
        pytest.approx(expected, rel=1e-12)


def test_integers_whose_differences_a_float_cannot_hold_are_refused():
    """0 and 2**62 + 1 differ by more than 2**53 and not by a float64: no exact difference,
    so a numeric distance is refused with the reason; the nominal coefficients need none."""
    x = [[0, 0], [2**62 + 1, 2**62 + 1], [0, 2**62 + 1]]
    with pytest.raises(NonNumericError, match=r"the interval metric needs the differ.*2\*\*53"):
        kl.krippendorff_alpha(x, level="interval")
    with pytest.raises(NonNumericError, match=r"2\*\*53"):
        kl.percent_agreement(x, weights="quadratic")
    with pytest.raises(NonNumericError, match=r"2\*\*53"):
        kl.icc(x)
    assert quiet_value(kl.krippendorff_alpha, x) == pytest.approx(
        float(exact_alpha([[0, 0], [1, 1], [0, 1]], 0, lambda a, b: Fraction(a != b))))


def test_integers_spanning_more_than_2_53_with_exact_differences_are_accepted():
    """0, 2**60 and 2**61 are float64 numbers and so are their differences: nothing to
    refuse, and the interval α is that of 0, 1, 2 (δ scales by (2**60)²)."""
    x = [[0, 0], [2**60, 2**61], [2**61, 2**61], [0, 2**60]]
    small = [[0, 0], [1, 2], [2, 2], [0, 1]]
    assert quiet_value(kl.krippendorff_alpha, x, level="interval") == pytest.approx(
        float(exact_alpha(small, 0, interval_delta)), rel=1e-14)


# ---------------------------------------------------------------------- x → a·x + b
def continuous(seed=0, n_items=24, n_raters=3):
    """Two replications of interval ratings (item effect + noise), about 15 % missing in the
    first; values 1.5–9 so that the ratio and bipolar metrics apply."""
    rng = np.random.default_rng(seed)
    mu = rng.normal(5.0, 1.0, size=(n_items, 1))
    x = np.round(mu + 0.7 * rng.normal(size=(n_items, n_raters)), 1)
    y = np.round(mu + 0.9 * rng.normal(size=(n_items, n_raters)), 1)
    x[rng.random(x.shape) < 0.15] = np.nan
    x[:, 0] = np.where(np.isnan(x[:, 0]), np.round(mu[:, 0], 1), x[:, 0])
    return np.clip(x, 1.5, 9.0), np.clip(y, 1.5, 9.0)


def interval_paths(x, y, *, shifted=True):
    """Every interval-form path (and the affine-invariant bipolar metric): name → value, with
    the analytic standard error where the spine gives one. ``shifted``: the data may have been
    shifted, so the ratio metric (invariant to scaling only) is left out."""
    complete = x[~np.isnan(x).any(axis=1)]
    out = {}

    def add(name, est, se=True):
        out[name] = float(est.value)
        if se:
            out[name + " se"] = float(est.se)

    add("alpha interval", kl.krippendorff_alpha(x, level="interval", ci="analytic"))
    for ci in ("krippendorff", "bootstrap-bca"):
        est = kl.krippendorff_alpha(x, level="interval", ci=ci, n_resamples=200, seed=0)
        out[f"alpha {ci} low"], out[f"alpha {ci} high"] = est.ci
    add("alpha bipolar", kl.krippendorff_alpha(x, level="bipolar", ci="analytic"))
    if not shifted:
        add("alpha ratio", kl.krippendorff_alpha(x, level="ratio", ci="analytic"))
    add("iota interval", kl.janson_olsson_iota(x, level="interval", ci="analytic"))
    for weights in ("quadratic", "linear", "radical", "bipolar"):
        for function in (kl.fleiss_kappa, kl.conger_kappa, kl.gwet_ac, kl.brennan_prediger,
                         kl.percent_agreement, kl.light_kappa):
            add(f"{function.__name__} {weights}", function(x, weights=weights, ci="analytic"))
        for function in (kl.cohen_kappa, kl.scott_pi, kl.bennett_s):
            add(f"{function.__name__} {weights}",
                function(complete[:, :2], weights=weights, ci="analytic"))
    for form in ("ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)"):
        add(form, kl.icc(complete, form=form, ci="analytic"))
        out[form + " F"] = float(kl.icc(complete, form=form).details["F"])
    add("cross kappa interval", kl.cross_kappa(x, y, level="interval", ci="analytic"))
    add("normalized cross kappa interval",
        kl.normalized_cross_kappa(x, y, level="interval", ci="analytic"))
    add("inter-annotator correlation", kl.inter_annotator_correlation(x, ci="analytic"))
    add("split-half", kl.split_half_reliability(x, n_splits=5, seed=0), se=False)
    add("disattenuated", kl.disattenuated_correlation(x, y, n_splits=5, seed=0), se=False)
    report = kl.agreement_report(x, level="interval")
    for name, value in zip(report["coefficient"], report["value"]):
        out[f"report {name}"] = float(value)
    return out


REFERENCE = {}


def reference_paths(shifted):
    if shifted not in REFERENCE:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            REFERENCE[shifted] = interval_paths(*continuous(), shifted=shifted)
    return REFERENCE[shifted]


@pytest.mark.parametrize("a", [1e-300, 1e-155, 1e155, 1e300])
@pytest.mark.parametrize("b", [0.0, 3.0, -1e4])
def test_every_interval_path_is_invariant_to_affine_maps_up_to_1e300(a, b):
    """x → a·x + a·b changes no coefficient of interval data: each value and standard error
    on the mapped data is the one on x (to rounding), without a warning."""
    x, y = continuous()
    shifted = b != 0
    reference = reference_paths(shifted)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        moved = interval_paths(a * x + a * b, a * y + a * b, shifted=shifted)
    assert moved.keys() == reference.keys()
    for name, value in reference.items():
        assert np.isfinite(value), name
        assert moved[name] == pytest.approx(value, rel=1e-9, abs=1e-12), name


def scale_free_reports(x, y):
    """The numbers of the reports, the comparison and the out-of-core estimator that do not
    depend on the unit of the values (rater_report's mean shift does, and is left out)."""
    import dask.dataframe as dd

    out = {}
    items = kl.item_report(x, level="interval")
    for column in ("agreement", "chance_corrected_agreement", "coefficient_if_removed"):
        out.update({f"item_report {column} {i}": v for i, v in enumerate(items[column])})
    raters = kl.rater_report(x, level="interval")
    for column in ("kappa_x", "without", "correlation"):
        out.update({f"rater_report {column} {i}": v for i, v in enumerate(raters[column])})
    comparison = kl.compare(kl.krippendorff_alpha, x, y, level="interval")
    out.update({"compare difference": comparison.difference, "compare se": comparison.se})
    frame = dd.from_pandas(kl.Annotations.from_wide(x).to_long(), npartitions=3)
    est = kl.dask_estimate("krippendorff_alpha", frame, level="interval", ci="analytic")
    out.update({"dask alpha": est.value, "dask se": est.se})
    return {name: float(value) for name, value in out.items()}


@pytest.mark.parametrize("a", [1e-300, 1e300])
def test_reports_comparisons_and_out_of_core_are_invariant_up_to_1e300(a):
    x, y = continuous()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reference = scale_free_reports(x, y)
        moved = scale_free_reports(a * x + 3 * a, a * y + 3 * a)
    for name, value in reference.items():
        if np.isnan(value):  # an item with one annotation has no agreement
            assert np.isnan(moved[name]), name
            continue
        assert moved[name] == pytest.approx(value, rel=1e-9, abs=1e-12), name


@settings(max_examples=40, deadline=None)
@given(exponent=st.integers(-300, 300), shift=st.floats(-1e4, 1e4), data=st.data())
def test_alpha_and_icc_are_invariant_for_any_scale(exponent, shift, data):
    """Hypothesis over the scale 10**exponent and the shift: interval α, quadratic-weighted
    Gwet's AC2 and ICC(2,1) keep their values."""
    x, _ = continuous(data.draw(st.integers(0, 5), label="seed"))
    complete = x[~np.isnan(x).any(axis=1)]
    a = 10.0 ** exponent
    for function, table_, kwargs in ((kl.krippendorff_alpha, x, {"level": "interval"}),
                                     (kl.gwet_ac, x, {"weights": "quadratic"}),
                                     (kl.icc, complete, {})):
        reference = quiet_value(function, table_, **kwargs)
        moved = quiet_value(function, a * table_ + a * shift, **kwargs)
        assert moved == pytest.approx(reference, rel=1e-9, abs=1e-12), function.__name__


# ---------------------------------------------------------------------- Bayesian models
SCALES = (1e-300, 1.0, 1e300)


def test_the_bayesian_interval_models_see_the_same_standardised_data_at_every_scale():
    """The one-way and the cross-replication interval models standardise by the mean and
    standard deviation of the annotations: the per-item statistics they are given are the
    same for x, 1e-300·x and 1e300·x (to rounding), and the location and scale found are
    those of x times the factor."""
    from kappalab.bayes.models import item_statistics, location_scale

    x, y = continuous()
    present = x[~np.isnan(x)]
    pooled = np.concatenate([present, y.ravel()])
    for anns, values in (((x,), present), ((x, y), pooled)):
        mean, sd = values.mean(), values.std()  # numpy's, on the unscaled values
        reference = None
        for a in SCALES:
            scaled = [kl.Annotations.from_wide(a * t) for t in anns]
            center, scale = location_scale(*scaled)
            assert center == pytest.approx(a * mean, rel=1e-12)
            assert scale == pytest.approx(a * sd, rel=1e-12)
            stats = np.concatenate([np.concatenate(item_statistics(ann, center, scale))
                                    for ann in scaled])
            assert np.isfinite(stats).all()
            if reference is None:
                reference = stats
            np.testing.assert_allclose(stats, reference, rtol=1e-12, atol=1e-12)


@pytest.mark.slow
def test_the_interval_reliability_posterior_is_the_same_at_every_scale():
    """One seed, one short chain per scale: the model is fitted to the same standardised
    data, so the draws of the ICC agree (to the rounding of the scaled data, amplified by
    the sampler to far less than 1e-6), and the data-scale variables scale with the data."""
    import pymc  # noqa: F401  (the test extra; a missing PyMC fails the test)

    from kappalab import bayes

    x, _ = continuous()
    posts = {}
    for a in SCALES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # 100 draws: low-ESS warnings are expected
            posts[a] = bayes.interval_reliability(a * x, draws=100, tune=100, chains=1,
                                                  seed=3)
    icc = posts[1.0]["icc"]
    low, high = posts[1.0].interval("icc")
    assert 0 < low < high < 1
    observed = posts[1.0].idata.observed_data
    for a in SCALES:
        np.testing.assert_allclose(posts[a]["icc"], icc, rtol=1e-6, atol=1e-9)
        # the posterior predictive statistics are those of the standardised values
        for name in ("between_variance", "within_variance_sd"):
            assert float(posts[a].idata.observed_data[name]) == pytest.approx(
                float(observed[name]), rel=1e-9), name
            assert posts[a].ppc_pvalue(name) == posts[1.0].ppc_pvalue(name), name
        np.testing.assert_allclose(posts[a]["sigma_within"],
                                   a * posts[1.0]["sigma_within"], rtol=1e-6)
        np.testing.assert_allclose(posts[a]["mu"], a * posts[1.0]["mu"], rtol=1e-6)


# ---------------------------------------------------------------------- a million annotations
def exact_nominal_alpha(item, category, n_items, n_categories):
    """Nominal α in exact rational arithmetic: with n_ic the counts of the items with m_i ≥ 2
    annotations, n = Σ m_i and N_c = Σ_i n_ic,

        α = 1 − (n − 1) Σ_i (m_i² − Σ_c n_ic²)/(m_i − 1) / (n² − Σ_c N_c²),

    the integers summed exactly in int64 (far below 2**63 here) and the sum over items
    grouped by m_i, so that a handful of Fractions are added."""
    counts = np.zeros((n_items, n_categories), dtype=np.int64)
    np.add.at(counts, (item, category), 1)
    m = counts.sum(axis=1)
    counts, m = counts[m >= 2], m[m >= 2]
    within = m * m - (counts * counts).sum(axis=1)
    observed = sum(Fraction(int(within[m == size].sum()), int(size) - 1)
                   for size in np.unique(m))
    n, pooled = int(m.sum()), [int(v) for v in counts.sum(axis=0)]
    return 1 - (n - 1) * observed / (n * n - sum(v * v for v in pooled))


def test_nominal_alpha_of_a_million_annotations_is_exact_to_2e_14():
    """10**6 annotations on 3·10**5 items (m_i Poisson-like, 0 to 14): the sum of the items'
    disagreements accumulated naively in one pass drifted 7.3e-14 from the exact rational
    α on these data. Summed by blocks of 128 items and then pairwise, the relative error of
    the totals is at most ≈ (128 + log2(items/128))·2**-53, so |α − exact| ≤ 2e-14."""
    rng = np.random.default_rng(1)
    n, n_items, K = 10**6, 3 * 10**5, 5
    item = rng.integers(0, n_items, n)
    truth = rng.integers(0, K, n_items)
    category = np.where(rng.random(n) < 0.5, truth[item], rng.integers(0, K, n))
    frame = pd.DataFrame({"item": item, "rater": np.arange(n), "value": category})
    exact = exact_nominal_alpha(item, category, n_items, K)
    value = float(kl.krippendorff_alpha(frame).value)
    assert abs(Fraction(value) - exact) <= Fraction(2, 10**14), float(Fraction(value) - exact)
