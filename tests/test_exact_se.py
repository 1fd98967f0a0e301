"""Exact analytic standard errors: every core's gradient against a high-precision derivative,
invariance to the scale of the values, large data, extreme magnitudes, and Light's κ at the
cost of the rater pairs that share items."""

import warnings

import krippendorff
import mpmath
import numpy as np
import pytest

import kappalab as kl
from kappalab.coefficients.base import complex_step_gradient
from kappalab.coefficients.cross import CrossKappa, NormalizedCrossKappa
from kappalab.coefficients.correlation import InterAnnotatorCorrelationCore
from kappalab.coefficients.disattenuation import SplitHalfCoefficient
from kappalab.coefficients.multirater import (CHANCE_MODELS, ChanceCorrectedAgreement,
                                              alpha_core, distance_for, weights_for)
from kappalab.coefficients.pairwise import PairwiseMeanKappa
from kappalab.coefficients.sparse import SparseAgreement
from kappalab.errors import PairwiseMeanWarning


def ratings(seed, n_items=12, n_raters=4, n_categories=4, missing=0.25):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_categories, size=n_items)
    x = np.where(rng.random((n_items, n_raters)) < 0.6, truth[:, None],
                 rng.integers(0, n_categories, size=(n_items, n_raters))).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    x[:, :2] = np.where(np.isnan(x[:, :2]), truth[:, None], x[:, :2])
    return x


def cores(seed):
    """Every core on small data with missing cells: each chance model × distance, κx,
    normalized κx, SPA, SPA κ, Light's κ, split-half, the inter-annotator correlation."""
    x = ratings(seed)
    ann = kl.Annotations.from_wide(x)
    distances = {"nominal": distance_for(ann, "nominal"),
                 "ordinal": distance_for(ann, "ordinal"),
                 "interval": distance_for(ann, "interval"),
                 "quadratic": weights_for(ann, "quadratic")}
    for chance in CHANCE_MODELS:
        for name, dis in distances.items():
            moment_options = [None, False] if dis.interval_factor is not None else [None]
            for use_moments in moment_options:
                if use_moments is None and chance in ("gwet", "uniform") and \
                        dis.interval_factor is not None:
                    continue  # no moment form: same as use_moments=False
                yield (f"{chance}/{name}/moments={use_moments}",
                       ChanceCorrectedAgreement(ann, dis, chance=chance, item_weighting="item",
                                                name="x", use_moments=use_moments))
    yield "alpha interval", alpha_core(ann, "interval")
    ann_y = kl.Annotations.from_wide(ratings(seed + 100))
    for level in ("nominal", "ordinal", "interval"):
        yield f"kx {level}", CrossKappa(ann, ann_y, level)
    kx = CrossKappa(ann, ann_y, "interval")
    yield "normalized kx", NormalizedCrossKappa(kx, alpha_core(ann, "interval"),
                                                alpha_core(ann_y, "interval"))
    yield "spa", SparseAgreement(ann, "edges")
    yield "spa kappa", SparseAgreement(ann, "annotations", chance_corrected=True)
    for weights in (None, "quadratic", "linear"):
        yield f"light {weights}", PairwiseMeanKappa(ann, weights)
    rng = np.random.default_rng(seed)
    scores = kl.Annotations.from_wide(rng.normal(size=(12, 4)) + rng.normal(size=(12, 1)))
    yield "split-half", SplitHalfCoefficient(scores, 3, rng)  # 12 items, 3 splits
    yield "inter-annotator correlation", InterAnnotatorCorrelationCore(ann)


def high_precision_gradient(core, totals, digits=40):
    """Central differences of ``combine`` evaluated in mpmath at ``digits`` digits: with a
    step of 1e-15·(|T_j| + mean |T|) the truncation error is ~1e-30 relative and the
    rounding error ~1e-25."""
    typical = np.abs(totals).mean()
    with mpmath.workdps(digits):
        base = np.array([mpmath.mpf(float(v)) for v in totals], dtype=object)
        gradient = []
        for j, v in enumerate(totals):
            step = mpmath.mpf(10) ** -15 * mpmath.mpf(float(abs(v) + typical))
            up, down = base.copy(), base.copy()
            up[j] += step
            down[j] -= step
            value = lambda t: np.asarray(core.combine(t)["value"]).reshape(-1)[0]
            gradient.append(float((value(up) - value(down)) / (2 * step)))
    return np.array(gradient)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_every_gradient_equals_a_high_precision_derivative(seed):
    for name, core in cores(seed):
        totals = core.totals()
        reference = high_precision_gradient(core, totals)
        assert np.isfinite(reference).all(), name
        tolerance = 1e-11 * np.abs(reference).max()
        np.testing.assert_allclose(core.value_gradient(totals), reference, rtol=1e-10,
                                   atol=tolerance, err_msg=name)
        # the generic complex step through combine agrees too (combine is analytic in T)
        np.testing.assert_allclose(complex_step_gradient(core, totals), reference,
                                   rtol=1e-10, atol=tolerance, err_msg=name)


# ---------------------------------------------------------------------- scale of the values
def interval_estimates(x, y, ci="analytic"):
    return {
        "alpha": kl.krippendorff_alpha(x, level="interval", ci=ci),
        "iota": kl.janson_olsson_iota(x, level="interval", ci=ci),
        "kx": kl.cross_kappa(x, y, level="interval", ci=ci),
        "fleiss quadratic": kl.fleiss_kappa(x, weights="quadratic", ci=ci),
        "conger quadratic": kl.conger_kappa(x, weights="quadratic", ci=ci),
        "light quadratic": kl.light_kappa(x, weights="quadratic", ci=ci),
    }


def continuous(seed, n_items=200, n_raters=3):
    rng = np.random.default_rng(seed)
    mu = rng.normal(size=(n_items, 1))
    x = mu + 0.7 * rng.normal(size=(n_items, n_raters))
    y = mu + 0.9 * rng.normal(size=(n_items, n_raters))
    x[rng.random(x.shape) < 0.2] = np.nan
    x[:, 0] = np.where(np.isnan(x[:, 0]), mu[:, 0], x[:, 0])
    return x, y


@pytest.mark.parametrize("factor", [1e-6, 1e-3, 1e3, 1e6])
@pytest.mark.parametrize("shift", [0.0, 1.0, -1e4])
def test_interval_se_is_invariant_to_affine_maps_of_the_values(factor, shift):
    x, y = continuous(0)
    reference = interval_estimates(x, y)
    moved = interval_estimates(factor * x + shift * factor, factor * y + shift * factor)
    for name, est in reference.items():
        assert moved[name].value == pytest.approx(est.value, rel=1e-9, abs=1e-12), name
        assert moved[name].se == pytest.approx(est.se, rel=1e-9), name


@pytest.mark.parametrize("factor", [1e-6, 1e6])
def test_ratio_se_is_invariant_to_scaling(factor):
    x, _ = continuous(1)
    x = np.exp(x)  # positive values
    reference = kl.krippendorff_alpha(x[:30], level="ratio", ci="analytic")
    scaled = kl.krippendorff_alpha(factor * x[:30], level="ratio", ci="analytic")
    assert scaled.value == pytest.approx(reference.value, rel=1e-9)
    assert scaled.se == pytest.approx(reference.se, rel=1e-9)


def test_prices_have_a_finite_standard_error():
    """The issue's example: prices 1e5–1e6 gave se = NaN; the same data / 1e5 gave 0.0150."""
    rng = np.random.default_rng(0)
    prices = rng.uniform(1e5, 1e6, 300)
    x = prices[:, None] * rng.lognormal(0, 0.2, (300, 3))
    est = kl.krippendorff_alpha(x, level="interval", ci="analytic")
    small = kl.krippendorff_alpha(x / 1e5, level="interval", ci="analytic")
    assert np.isfinite(est.se) and np.isfinite(est.ci).all()
    assert est.se == pytest.approx(small.se, rel=1e-9)
    jack = kl.krippendorff_alpha(x, level="interval", ci="jackknife")
    assert est.se == pytest.approx(jack.se, rel=0.15)


@pytest.mark.parametrize("factor", [1e152, 1e-170])
def test_extreme_magnitudes(factor):
    x, y = continuous(2, n_items=60)
    reference = interval_estimates(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "too few annotations", no "one category"
        extreme = interval_estimates(factor * x, factor * y)
    for name, est in reference.items():
        assert extreme[name].value == pytest.approx(est.value, rel=1e-12), name
        assert extreme[name].se == pytest.approx(est.se, rel=1e-9), name
    peer = krippendorff.alpha(reliability_data=x.T, level_of_measurement="interval")
    assert extreme["alpha"].value == pytest.approx(peer, rel=1e-12)


# ---------------------------------------------------------------------- large data
@pytest.mark.slow
def test_ordinal_se_at_a_million_items_agrees_with_the_jackknife():
    """Finite differences drifted (0.00756 vs 0.00593 at 10 000 items) then gave NaN."""
    rng = np.random.default_rng(3)
    n = 1_000_000
    latent = rng.normal(size=(n, 1))
    x = np.digitize(latent + 0.8 * rng.normal(size=(n, 3)), [-1.0, -0.3, 0.3, 1.0])
    ann = kl.Annotations.from_wide(x)
    for estimator, options in ((kl.krippendorff_alpha, {"level": "ordinal"}),
                               (kl.fleiss_kappa, {"weights": "ordinal"}),
                               (kl.gwet_ac, {"weights": "ordinal"})):
        analytic = estimator(ann, ci="analytic", **options)
        jackknife = estimator(ann, ci="jackknife", **options)
        assert np.isfinite(analytic.se), estimator.__name__
        assert analytic.se == pytest.approx(jackknife.se, rel=0.03), estimator.__name__


# ---------------------------------------------------------------------- Light's κ
def test_light_se_on_small_data_is_close_to_the_jackknife():
    """4 items: finite differences gave 0.0137 against a jackknife of 0.173."""
    x = [[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2]]
    analytic = kl.light_kappa(x, ci="analytic")
    jackknife = kl.light_kappa(x, ci="jackknife")
    assert 1 / 1.5 < analytic.se / jackknife.se < 1.5


def test_light_costs_the_pairs_that_share_items(crowd):
    ann = kl.Annotations.from_long(crowd(9000, 3000))
    core = PairwiseMeanKappa(ann)
    P = core.n_pairs
    assert P <= 3 * 3000  # three pairs per item at most
    stats = core.item_stats()
    assert stats.shape == (3000, 2 * P + core.R * 3)  # not (R·K)² ≈ 7e7 columns
    np.testing.assert_allclose(np.asarray(stats.sum(axis=0)).ravel(), core.totals())
    with pytest.warns(PairwiseMeanWarning, match="unweighted mean"):
        est = kl.light_kappa(ann, ci="analytic")
    assert np.isfinite(est.se)


def test_light_bootstrap_on_many_scores_stays_small():
    """0–100 scores from 38 raters: the (R·K)² statistics asked for 34 GiB per bootstrap."""
    rng = np.random.default_rng(4)
    n_items, n_raters = 100, 38
    mu = rng.uniform(0, 100, n_items)
    x = np.full((n_items, n_raters), np.nan)
    for worker in range(n_raters):
        rows = rng.choice(n_items, 26, replace=False)
        x[rows, worker] = np.clip(np.round(mu[rows] + rng.normal(0, 15, 26)), 0, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PairwiseMeanWarning)
        est = kl.light_kappa(x, weights="interval", ci="bootstrap-bca", n_resamples=500,
                             seed=1)
        analytic = kl.light_kappa(x, weights="interval", ci="analytic")
    assert np.isfinite(est.se) and est.ci[0] < est.value < est.ci[1]
    assert analytic.se == pytest.approx(est.se, rel=0.35)
