"""Resampling on the item-sum spine: every replicate equals the coefficient recomputed on the
resampled data, computed independently through the public functions."""

import numpy as np
import pytest

import kappalab as kl
from kappalab.coefficients.multirater import ChanceCorrectedAgreement, distance_for
from kappalab.coefficients.cross import CrossKappa
from kappalab.errors import InvalidParameterError
import pandas as pd

from kappalab.uncertainty import _groups, bootstrap, replicate_values, resampling_interval


def table(seed, n_items=25, n_raters=4, missing=0.25):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 4, size=(n_items, 1))
    x = np.where(rng.random((n_items, n_raters)) < 0.7, truth,
                 rng.integers(1, 4, size=(n_items, n_raters))).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    x[:, 0] = np.where(np.isnan(x[:, 0]), truth[:, 0], x[:, 0])  # keep every item annotated
    return x


def alpha_core(x, level="nominal"):
    ann = kl.Annotations.from_wide(x)
    return ChanceCorrectedAgreement(ann, distance_for(ann, level), chance="pooled",
                                    item_weighting="annotation", name="alpha")


def continuous(seed, n_items=25, n_raters=4, missing=0.25):
    """Interval data with every value distinct: no two items share their statistics, so the
    resampling draws are plain item indices."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n_items, 1)) + 0.7 * rng.normal(size=(n_items, n_raters))
    x[rng.random(x.shape) < missing] = np.nan
    x[:, :2] = np.where(np.isnan(x[:, :2]), rng.normal(size=(n_items, 2)), x[:, :2])
    return x


@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_jackknife_replicates_are_leave_one_item_out(level):
    """One value per item that enters α (two or more annotations), in item order."""
    x = table(1)
    replicates = replicate_values(alpha_core(x, level), "jackknife")
    pairable = np.flatnonzero((~np.isnan(x)).sum(axis=1) >= 2)
    direct = [float(kl.krippendorff_alpha(np.delete(x, i, axis=0), level=level)) for i in pairable]
    np.testing.assert_allclose(replicates, direct, atol=1e-12)


def test_bootstrap_replicates_are_the_coefficient_of_resampled_items():
    """Same generator, same draws: rebuild each bootstrap sample explicitly."""
    x = continuous(2)
    n = x.shape[0]
    replicates = replicate_values(alpha_core(x, "interval"), "bootstrap", n_resamples=30,
                                  seed=7)
    draws = np.random.default_rng(7).integers(0, n, size=(30, n))
    direct = [float(kl.krippendorff_alpha(x[d], level="interval")) for d in draws]
    np.testing.assert_allclose(replicates, direct, atol=1e-12)


def test_bootstrap_of_repeated_items_draws_a_multinomial_over_distinct_items():
    """Items with identical counts are merged: a replicate draws how many of each distinct
    count pattern it holds, Multinomial(n, share of each pattern); rebuild the samples."""
    rng = np.random.default_rng(3)
    patterns = np.array([[1, 1, 1], [1, 1, 2], [2, 2, 2], [1, 2, 3], [3, 3, np.nan]])
    x = patterns[rng.integers(0, patterns.shape[0], size=200)]
    core = alpha_core(x)
    replicates = replicate_values(core, "bootstrap", n_resamples=25, seed=5)
    groups = _groups(core)  # the distinct count patterns, in the resampler's order
    first, counts = groups.first, groups.counts
    assert groups.counts.size == patterns.shape[0] and counts.sum() == x.shape[0]
    draws = np.random.default_rng(5).multinomial(x.shape[0], counts / x.shape[0], size=25)
    direct = [float(kl.krippendorff_alpha(np.repeat(x[first], d, axis=0))) for d in draws]
    np.testing.assert_allclose(replicates, direct, atol=1e-12)


def test_conger_replicates_with_sparse_rater_block():
    x = table(3)
    ann = kl.Annotations.from_wide(x)
    core = ChanceCorrectedAgreement(ann, distance_for(ann, "nominal"), chance="rater_marginal",
                                    item_weighting="item", name="conger")
    replicates = replicate_values(core, "jackknife")
    direct = [float(kl.conger_kappa(np.delete(x, i, axis=0))) for i in range(x.shape[0])]
    np.testing.assert_allclose(replicates, direct, atol=1e-12)


def test_cross_kappa_resamples_items_in_pairs():
    x, y = continuous(5), continuous(6)
    core = CrossKappa(kl.Annotations.from_wide(x), kl.Annotations.from_wide(y), "interval")
    replicates = replicate_values(core, "bootstrap", n_resamples=20, seed=11)
    draws = np.random.default_rng(11).integers(0, x.shape[0], size=(20, x.shape[0]))
    # a bootstrap sample repeats items: relabel them so both sides keep the pairing
    direct = [float(kl.cross_kappa(x[d], y[d], level="interval")) for d in draws]
    np.testing.assert_allclose(replicates, direct, atol=1e-12)


def test_bayesian_bootstrap_weights_average_to_the_estimate():
    x = table(7, n_items=200)
    core = alpha_core(x)
    values = replicate_values(core, "bayesian-bootstrap", n_resamples=400, seed=1)
    estimate = float(kl.krippendorff_alpha(x))
    assert abs(values.mean() - estimate) < 4 * values.std() / np.sqrt(values.size) + 0.01


def test_interval_contains_estimate_and_shrinks_with_more_items():
    small, large = table(8, n_items=50), table(8, n_items=800)
    widths = []
    for x in (small, large):
        result = resampling_interval(alpha_core(x), "bootstrap", n_resamples=400, seed=3,
                                     interval="bca")
        estimate = float(kl.krippendorff_alpha(x))
        assert result.low <= estimate <= result.high
        widths.append(result.high - result.low)
    # width ∝ 1/√n: 16× the items, about a quarter of the width
    assert 0.15 < widths[1] / widths[0] < 0.4


def test_bad_options():
    core = alpha_core(table(9))
    with pytest.raises(InvalidParameterError, match="resampling method"):
        replicate_values(core, "bootstrapp")
    with pytest.raises(InvalidParameterError, match="confidence"):
        resampling_interval(core, confidence=1.5)


ESTIMATORS = [kl.krippendorff_alpha, kl.fleiss_kappa, kl.conger_kappa, kl.janson_olsson_iota,
              kl.gwet_ac, kl.brennan_prediger, kl.percent_agreement, kl.light_kappa, kl.spa,
              kl.spa_kappa, kl.inter_annotator_correlation]


@pytest.mark.parametrize("ci", ["analytic", "bootstrap", "bayesian-bootstrap", "jackknife"])
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda f: f.__name__)
def test_ci_keyword_gives_se_and_interval(estimator, ci):
    x = table(10, n_items=120)
    plain = estimator(x)
    est = estimator(x, ci=ci, n_resamples=200, seed=5)
    assert est.value == plain.value and plain.ci is None
    assert est.se > 0 and est.ci[0] <= est.value <= est.ci[1]
    again = estimator(x, ci=ci, n_resamples=200, seed=5)
    assert again.ci == est.ci  # same seed, same interval
    # every method estimates the same standard error: within a factor of 1.5 at 120 items
    reference = estimator(x, ci="jackknife").se
    assert 1 / 1.5 < est.se / reference < 1.5


def test_jackknife_se_is_the_jackknife_formula_on_recomputed_values():
    x = table(11, n_items=30)
    n = x.shape[0]
    leave_one_out = np.array([float(kl.fleiss_kappa(np.delete(x, i, axis=0))) for i in range(n)])
    expected = np.sqrt((n - 1) / n * ((leave_one_out - leave_one_out.mean()) ** 2).sum())
    assert kl.fleiss_kappa(x, ci="jackknife").se == pytest.approx(expected, rel=1e-10)


def test_two_rater_and_cross_estimators_take_ci():
    x = table(12, n_items=80, n_raters=2, missing=0.0)
    assert kl.cohen_kappa(x, ci="jackknife").se > 0
    y = table(13, n_items=80, n_raters=3)
    est = kl.cross_kappa(x, y, ci="bayesian-bootstrap", n_resamples=100, seed=1)
    assert est.ci[0] <= est.value <= est.ci[1]


def test_unknown_ci():
    with pytest.raises(InvalidParameterError, match="unknown ci 'bootstrapp'"):
        kl.fleiss_kappa(table(14), ci="bootstrapp")


def test_normalized_cross_kappa_resamples_kx_and_both_alphas_together():
    """Every jackknife replicate is κx/√(α_X α_Y) recomputed without that item."""
    from kappalab.coefficients.cross import CrossKappa, NormalizedCrossKappa, _irrs

    x, y = continuous(15, n_items=30), continuous(16, n_items=30)
    ax, ay = kl.Annotations.from_wide(x), kl.Annotations.from_wide(y)
    kx = CrossKappa(ax, ay, "interval")
    core = NormalizedCrossKappa(kx, *_irrs(ax, ay, kx.aligned.items, "interval", "alpha"))
    replicates = replicate_values(core, "jackknife")
    direct = [float(kl.normalized_cross_kappa(np.delete(x, i, axis=0), np.delete(y, i, axis=0),
                                              level="interval")) for i in range(x.shape[0])]
    np.testing.assert_allclose(replicates, direct, atol=1e-12)
    est = kl.normalized_cross_kappa(x, y, level="interval", ci="bootstrap", n_resamples=300, seed=2)
    assert est.ci[0] <= est.value <= est.ci[1]
    # given IRRs are constants: the interval is κx's, divided by √(IRR_X IRR_Y)
    fixed = kl.normalized_cross_kappa(x, y, level="interval", irr=(0.25, 0.64), ci="jackknife")
    plain = kl.cross_kappa(x, y, level="interval", ci="jackknife")
    assert fixed.se == pytest.approx(plain.se / 0.4, rel=1e-12)
    with pytest.raises(InvalidParameterError, match="callable irr"):
        kl.normalized_cross_kappa(x, y, irr=lambda ann: 0.5, ci="bootstrap")


def test_reference_agreement_takes_ci():
    x = table(17, n_items=60)
    expert = pd.Series(np.nan_to_num(x[:, 0], nan=1.0))
    est = kl.reference_agreement(x[:, 1:], expert, ci="analytic")
    plain = kl.cross_kappa(x[:, 1:], expert.to_numpy()[:, None], ci="analytic")
    assert est.coefficient == "reference agreement"
    assert (est.value, est.se) == pytest.approx((plain.value, plain.se), rel=1e-12)


@pytest.mark.parametrize("method, ci", [("percentile", "bootstrap"), ("basic", "bootstrap-basic"),
                                        ("bca", "bootstrap-bca")])
def test_bootstrap_front_end_is_the_ci_keyword(method, ci):
    x = table(18, n_items=80)
    est = bootstrap(kl.fleiss_kappa, x, n_resamples=300, method=method, seed=4,
                    weights="linear")
    assert est == kl.fleiss_kappa(x, weights="linear", ci=ci, n_resamples=300, seed=4)
    y = table(19, n_items=80)
    pair = bootstrap(kl.cross_kappa, x, y, n_resamples=300, method=method, seed=4)
    assert pair.ci == kl.cross_kappa(x, y, ci=ci, n_resamples=300, seed=4).ci


def test_bootstrap_front_end_bad_method():
    with pytest.raises(InvalidParameterError, match="unknown bootstrap method"):
        bootstrap(kl.fleiss_kappa, table(20), method="studentized")


def test_basic_interval_reflects_the_percentile_one():
    x = table(21, n_items=100)
    percentile = kl.fleiss_kappa(x, ci="bootstrap", n_resamples=400, seed=9)
    basic = kl.fleiss_kappa(x, ci="bootstrap-basic", n_resamples=400, seed=9)
    assert basic.ci == pytest.approx((2 * percentile.value - percentile.ci[1],
                                      2 * percentile.value - percentile.ci[0]), abs=1e-14)


def test_distinct_rows_survive_a_key_collision():
    """Rows are grouped by a random projection; two distinct rows with the same projection
    must still be told apart (the exact check falls back to a row-wise sort)."""
    from kappalab.kernels import distinct_rows

    direction = np.random.default_rng(0x5EED).uniform(1.0, 2.0, size=2)
    colliding = np.array([[1.0, 0.0], [0.0, direction[0] / direction[1]], [1.0, 0.0]])
    assert colliding[0] @ direction == pytest.approx(colliding[1] @ direction, rel=1e-15)
    first, of_item, counts = distinct_rows(colliding)
    assert sorted(counts) == [1, 2]
    np.testing.assert_array_equal(colliding[first][of_item], colliding)


def sorted_distinct_rows(rows, most=None):
    """The grouping by sorting, written out: the projection keys sorted by np.unique, the
    lexicographic sort of the rows when two distinct rows share a key (the reference for the
    hash-table grouping of kappalab.kernels.distinct_rows)."""
    direction = np.random.default_rng(0x5EED).uniform(1.0, 2.0, size=rows.shape[1])
    _, first, inverse, counts = np.unique(rows @ direction, return_index=True,
                                          return_inverse=True, return_counts=True)
    if most is not None and first.size > most:
        return None
    if not np.array_equal(rows[first[inverse.ravel()]], rows):
        _, first, inverse, counts = np.unique(rows, axis=0, return_index=True,
                                              return_inverse=True, return_counts=True)
        if most is not None and first.size > most:
            return None
    return first, inverse.ravel(), counts


def rows_to_group(case):
    rng = np.random.default_rng(7)
    if case == "counts":  # integer-valued floats, many repeats
        return rng.integers(0, 4, size=(5000, 4)).astype(float)
    if case == "ratios":  # d_i, n_ik/m_i: floats of few distinct values
        counts = rng.integers(0, 3, size=(5000, 3)).astype(float)
        m = counts.sum(axis=1, keepdims=True) + 1
        return np.hstack([counts / m, 1 / m])
    if case == "a rounding apart":  # the same values summed in another order
        base = rng.integers(1, 6, size=(4000, 3)) / 7.0
        apart = base.copy()
        apart[::3, 0] = (apart[::3, 0] * 3 + 1e-16) / 3  # one ulp off on a third of the rows
        return np.vstack([base, apart])
    if case == "signed zeros":
        rows = rng.integers(-1, 2, size=(3000, 3)).astype(float) * 0.0  # ±0.0
        rows[::5, 1] = 2.0
        return rows
    if case == "integers":
        return rng.integers(0, 3, size=(3000, 5))
    return rng.normal(size=(3000, 4))  # continuous: every row distinct


@pytest.mark.parametrize("case", ["counts", "ratios", "a rounding apart", "signed zeros",
                                  "integers", "continuous"])
@pytest.mark.parametrize("most", [None, 0.9])
def test_distinct_rows_equal_the_sorted_grouping(case, most):
    from kappalab.kernels import distinct_rows

    rows = rows_to_group(case)
    limit = None if most is None else most * rows.shape[0]
    expected = sorted_distinct_rows(rows, limit)
    found = distinct_rows(rows, most=limit)
    if expected is None:
        assert found is None
        return
    for got, want in zip(found, expected):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(rows[found.first][found.inverse], rows)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_grouped_totals_and_intervals_equal_those_of_the_sorted_grouping(level, monkeypatch):
    """The item statistics of the multi-rater core (float rows: ratios and moments) grouped
    by the hash table and by sorting give the same totals, standard errors and intervals."""
    import kappalab.uncertainty as unc
    from kappalab.kernels import DistinctRows

    def sorted_grouping(rows, most=None):
        found = sorted_distinct_rows(rows, most)
        return None if found is None else DistinctRows(*found)

    rng = np.random.default_rng(3)
    latent = rng.normal(size=(3000, 1)) + rng.normal(0, 0.8, size=(3000, 4))
    data = np.digitize(latent, [-1.0, 0.0, 1.0]).astype(float)
    data[rng.random(data.shape) < 0.15] = np.nan
    core = kl.coefficients.multirater.alpha_core(kl.Annotations.from_wide(data), level=level)
    hashed = _groups(core)
    runs = {}
    for label in ("hashed", "sorted"):
        if label == "sorted":
            monkeypatch.setattr(unc, "distinct_rows", sorted_grouping)
        groups = _groups(core)
        runs[label] = {
            "totals": groups.counts @ groups.rows,
            "counts": groups.counts,
            "bootstrap": resampling_interval(core, "bootstrap", n_resamples=200, seed=5),
            "jackknife": resampling_interval(core, "jackknife"),
        }
    assert hashed.counts.size < hashed.n_items  # repeated rows were merged
    np.testing.assert_allclose(runs["hashed"]["totals"], runs["sorted"]["totals"],
                               rtol=1e-12, atol=0)
    np.testing.assert_array_equal(runs["hashed"]["counts"], runs["sorted"]["counts"])
    for method in ("bootstrap", "jackknife"):
        got, want = runs["hashed"][method], runs["sorted"][method]
        assert got.se == pytest.approx(want.se, rel=1e-12, abs=0)
        assert (got.low, got.high) == pytest.approx((want.low, want.high), rel=1e-12, abs=0)
