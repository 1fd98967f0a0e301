"""Krippendorff's bootstrap of α (``ci="krippendorff"``, Hayes & Krippendorff 2007): value pairs
drawn from the coincidence matrix, D_e fixed, α* below −1 set to −1, a resample without
variation set to 0. Checked against the exact distribution of the scheme (a binomial, by hand),
a slow loop-per-unit implementation written from the description, the exact variance of the
scheme, and the krippendorff package's α."""

import math

import krippendorff
import numpy as np
import pytest
from scipy import stats

import kappalab as kl
from kappalab.coefficients.multirater import alpha_core
from kappalab.errors import InvalidParameterError
from kappalab.uncertainty import (check_alpha_min, krippendorff_interval,
                                  krippendorff_replicates)


def wide(seed, n_items=14, n_raters=4, missing=0.3, categories=4):
    """Ordinal-ish codes with missing values, 2–4 values per unit (every unit pairable)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, categories + 1, size=(n_items, 1))
    x = np.where(rng.random((n_items, n_raters)) < 0.6, truth,
                 rng.integers(1, categories + 1, size=(n_items, n_raters))).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    x[:, :2] = np.where(np.isnan(x[:, :2]), truth, x[:, :2])
    return x


def values_of(x, level):
    return alpha_core(kl.Annotations.from_wide(x), level).pairable_values()


# ------------------------------------------------------------------ a slow reference
def delta_by_hand(level, a, b, marginals, codes):
    """δ² of two values (Krippendorff 2011), written out from the definitions."""
    if level == "nominal":
        return float(a != b)
    if level == "interval":
        return (a - b) ** 2
    if level == "ratio":
        return ((a - b) / (a + b)) ** 2
    # ordinal: (Σ_{g between} n_g − (n_a + n_b)/2)²
    i, j = sorted((codes.index(a), codes.index(b)))
    return (sum(marginals[codes[g]] for g in range(i, j + 1))
            - (marginals[codes[i]] + marginals[codes[j]]) / 2) ** 2


def slow_bootstrap(x, level, n_resamples, seed):
    """Krippendorff's bootstrap with a loop over replicates and units: the coincidence matrix
    built pair by pair, each unit drawing its m_u(m_u − 1)/2 pairs of values from it, each
    pair adding 2δ²/((m_u − 1) n..)."""
    units = [row[~np.isnan(row)] for row in x]
    units = [u for u in units if len(u) >= 2]
    codes = sorted({v for u in units for v in u})
    n = sum(len(u) for u in units)
    marginals = {c: sum(int((u == c).sum()) for u in units) for c in codes}
    coincidence = {}  # ordered (c, k) → o_ck
    for u in units:
        for i in range(len(u)):
            for j in range(len(u)):
                if i != j:
                    key = (u[i], u[j])
                    coincidence[key] = coincidence.get(key, 0.0) + 1 / (len(u) - 1)
    keys = list(coincidence)
    p = np.array([coincidence[k] for k in keys]) / n
    delta = np.array([delta_by_hand(level, a, b, marginals, codes) for a, b in keys])
    d_e = sum(marginals[a] * marginals[b] * delta_by_hand(level, a, b, marginals, codes)
              for a in codes for b in codes) / (n * (n - 1))
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_resamples):
        d_o = 0.0
        for u in units:
            m = len(u)
            drawn = rng.choice(len(keys), size=m * (m - 1) // 2, p=p)
            d_o += 2 * delta[drawn].sum() / ((m - 1) * n)
        out.append(max(1 - d_o / d_e, -1.0))
    return np.array(out), 1 - float(p @ delta) / d_e


# ------------------------------------------------------------------ the tests
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_of_the_coincidence_distribution(level):
    # the pair types rebuild α exactly: the krippendorff package's value, every level
    x = wide(1)
    values = values_of(x, level)
    assert values.probability.sum() == pytest.approx(1, abs=1e-12)
    oracle = krippendorff.alpha(reliability_data=x.T, level_of_measurement=level)
    assert 1 - values.observed / values.expected == pytest.approx(oracle, abs=1e-12)
    units = (~np.isnan(x)).sum(axis=1)
    assert values.n_values == units[units >= 2].sum()
    assert values.pairs.sum() == (units * (units - 1) // 2).sum()


@pytest.mark.slow
@pytest.mark.parametrize("level", ["ordinal", "interval"])
def test_matches_a_slow_loop_over_units(level):
    x = wide(2)
    slow, alpha_hat = slow_bootstrap(x, level, 3000, seed=1)
    fast = krippendorff_replicates(values_of(x, level), 3000, seed=2)
    assert float(kl.krippendorff_alpha(x, level=level)) == pytest.approx(alpha_hat, abs=1e-12)
    # same scheme, independent draws: SDs within 7% (the SD's relative SE is 1/√6000 ≈ 1.3%
    # each), the distributions indistinguishable by a two-sample KS test
    assert fast.std() == pytest.approx(slow.std(), rel=0.07)
    assert stats.ks_2samp(fast, slow).pvalue > 1e-3
    # both centred on α̂ (E[D_o*] = D_o; nothing is truncated at these values)
    assert min(fast.min(), slow.min()) > -1
    for draws in (fast, slow):
        assert abs(draws.mean() - alpha_hat) < 4 * draws.std() / math.sqrt(draws.size)


def test_variance_is_the_schemes():
    # Var(D_o*) = Var_p(δ) Σ_g M_g w_g², w_g = 2/((m_g − 1) n..): counted by hand
    x = wide(3, n_items=40)
    values = values_of(x, "nominal")
    units = (~np.isnan(x)).sum(axis=1)
    n = units.sum()
    p_dis = values.probability @ values.delta  # nominal δ ∈ {0, 1}: a Bernoulli
    weights = sum(m * (m - 1) / 2 * (2 / ((m - 1) * n)) ** 2 for m in units)
    exact = math.sqrt(p_dis * (1 - p_dis) * weights) / values.expected
    draws = krippendorff_replicates(values, 20_000, seed=4)
    assert draws.std() == pytest.approx(exact, rel=0.03)
    assert abs(draws.mean() - (1 - p_dis / values.expected)) < 4 * exact / math.sqrt(20_000)


def test_exact_distribution_with_truncation_and_no_variation():
    # 3 units (1, 1) and 2 units (1, 2): n.. = 10, o_11 = 6, o_12 = o_21 = 2, so a pair is
    # (1, 1) with p = 0.6 and (1, 2) with 0.4; M = 5 pairs of weight w = 2/(1·10) = 0.2;
    # D_e = 2·8·2/(10·9) = 16/45. With X ~ Binomial(5, 0.4) disagreeing pairs,
    # α* = 1 − 0.2X/D_e = 1 − 0.5625X: X = 0 has no variation (0), X ≥ 4 is below −1 (−1)
    x = np.array([[1, 1], [1, 1], [1, 1], [1, 2], [1, 2]], dtype=float)
    draws = krippendorff_replicates(values_of(x, "nominal"), 20_000, seed=5)
    support = np.array([0.0, 1 - 0.5625, 1 - 2 * 0.5625, 1 - 3 * 0.5625, -1.0])
    binomial = stats.binom.pmf(np.arange(6), 5, 0.4)
    expected = np.append(binomial[:4], binomial[4:].sum())
    nearest = np.abs(draws[:, None] - support).argmin(axis=1)
    assert np.abs(draws - support[nearest]).max() < 1e-12  # nothing off the support
    observed = np.bincount(nearest, minlength=support.size)
    assert stats.chisquare(observed, 20_000 * expected).pvalue > 1e-3


def test_estimate_is_seeded_and_carries_q():
    data = kl.datasets.load("worked_example")
    one = kl.krippendorff_alpha(data, ci="krippendorff", seed=7, alpha_min=[0.5, 0.667, 0.8])
    assert one == kl.krippendorff_alpha(data, ci="krippendorff", seed=7,
                                        alpha_min=[0.5, 0.667, 0.8])
    assert one.ci != kl.krippendorff_alpha(data, ci="krippendorff", seed=8).ci
    # the interval, SE and q are those of the replicates drawn with the same seed
    draws = krippendorff_replicates(alpha_core(data).pairable_values(), 2000, seed=7)
    assert one.ci == tuple(np.quantile(draws, [0.025, 0.975]))
    assert one.se == pytest.approx(draws.std(ddof=1), abs=1e-15)
    assert one.details["q"] == {a: float((draws < a).mean()) for a in (0.5, 0.667, 0.8)}
    assert one.details["ci_method"] == "krippendorff" and one.details["n_resamples"] == 2000
    q = one.details["q"]
    assert f"q(<0.667)={q[0.667]:.4f}" in repr(one)
    assert f"<th>q(α &lt; 0.8)</th><td>{q[0.8]:.4f}</td>" in one._repr_html_()
    # the default thresholds are Krippendorff's 0.667 and 0.800
    assert list(kl.krippendorff_alpha(data, ci="krippendorff", seed=1).details["q"]) == [
        0.667, 0.8]
    # without ci="krippendorff" no q
    assert "q" not in kl.krippendorff_alpha(data, ci="bootstrap", seed=1).details


def test_continuous_values_and_custom_distances():
    rng = np.random.default_rng(9)
    x = rng.normal(size=(60, 1)) + 0.5 * rng.normal(size=(60, 3))  # every value distinct
    est = kl.krippendorff_alpha(x, level="interval", ci="krippendorff", seed=1)
    assert est.value == pytest.approx(
        krippendorff.alpha(reliability_data=x.T, level_of_measurement="interval"), abs=1e-10)
    assert est.ci[0] < est.value < est.ci[1]
    codes = wide(10)
    matrix = np.abs(np.subtract.outer(np.arange(4), np.arange(4))) ** 1.5
    by_matrix = kl.krippendorff_alpha(codes, level=matrix, ci="krippendorff", seed=2)
    by_callable = kl.krippendorff_alpha(codes, level=lambda a, b: abs(a - b) ** 1.5,
                                        ci="krippendorff", seed=2)
    assert by_matrix.ci == pytest.approx(by_callable.ci, abs=1e-12)
    for level in ("circular", "bipolar"):
        est = kl.krippendorff_alpha(codes, level=level, ci="krippendorff", seed=3)
        assert -1 <= est.ci[0] <= est.value <= est.ci[1] <= 1


def test_clear_errors():
    data = kl.datasets.load("worked_example")
    for estimator in (kl.fleiss_kappa, kl.gwet_ac, kl.percent_agreement, kl.conger_kappa):
        with pytest.raises(InvalidParameterError, match="Krippendorff's alpha only"):
            estimator(data, ci="krippendorff")
    with pytest.raises(InvalidParameterError, match="Krippendorff's alpha only"):
        kl.cohen_kappa([1, 2, 1, 2], [1, 2, 2, 2], ci="krippendorff")
    with pytest.raises(InvalidParameterError, match="needs ci='krippendorff'"):
        kl.krippendorff_alpha(data, ci="bootstrap", alpha_min=0.8)
    with pytest.raises(InvalidParameterError, match="takes no sample_weight"):
        kl.krippendorff_alpha(data, ci="krippendorff", sample_weight=np.arange(1, 11))
    with pytest.raises(InvalidParameterError, match=r"alpha_min must be in \[-1.0, 1.0\]"):
        kl.krippendorff_alpha(data, ci="krippendorff", alpha_min=(0.8, 1.5))
    with pytest.raises(InvalidParameterError, match="alpha_min is empty"):
        kl.krippendorff_alpha(data, ci="krippendorff", alpha_min=[])
    with pytest.raises(InvalidParameterError, match="alpha_min must be a number"):
        check_alpha_min("0.8")
    with pytest.raises(InvalidParameterError, match="n_resamples"):
        kl.krippendorff_alpha(data, ci="krippendorff", n_resamples=1)
    with pytest.raises(InvalidParameterError, match="confidence"):
        krippendorff_interval(alpha_core(data).pairable_values(), confidence=1.0)
    # the Fleiss core is not α: its pairable values are refused by name
    with pytest.raises(InvalidParameterError, match="Fleiss' kappa is not alpha"):
        from kappalab.coefficients.multirater import ChanceCorrectedAgreement, distance_for
        ann = kl.Annotations.from_wide(wide(1))
        ChanceCorrectedAgreement(ann, distance_for(ann, None, kind="weights"),
                                 chance="item_marginal", item_weighting="item",
                                 name="Fleiss' kappa").pairable_values()


def test_undefined_alpha_has_no_interval():
    with pytest.warns(kl.errors.UndefinedCoefficientWarning):
        est = kl.krippendorff_alpha([[1, 1], [1, 1]], ci="krippendorff", seed=0)
    assert math.isnan(est.value) and est.ci is None and "q" not in est.details
    with pytest.warns(kl.errors.UndefinedCoefficientWarning, match="nothing can be paired"):
        est = kl.krippendorff_alpha([[1, np.nan], [2, np.nan]], ci="krippendorff", seed=0)
    assert math.isnan(est.value) and est.ci is None and est.se is None


@pytest.mark.slow
def test_coverage_sanity():
    # with two values per unit the pairs are the units, so drawing pairs is drawing units:
    # the interval covers the simulation's exact α near 95% (80 datasets; 4 SE below 95% is
    # 0.85); with five values per unit the pairs of a unit move together and the pair
    # bootstrap is narrower than the item bootstrap
    covered = 0
    for seed in range(80):
        ann, truth = kl.simulate.annotations(300, reliability=0.6, prevalence=(0.6, 0.3, 0.1),
                                             annotations_per_item=2, seed=seed)
        low, high = kl.krippendorff_alpha(ann, ci="krippendorff", n_resamples=1000,
                                          seed=seed).ci
        covered += low <= truth.alpha <= high
    assert covered / 80 >= 0.85
    ann, _ = kl.simulate.annotations(300, reliability=0.6, prevalence=(0.6, 0.3, 0.1),
                                     annotations_per_item=5, seed=1)
    pairs = kl.krippendorff_alpha(ann, ci="krippendorff", seed=1)
    items = kl.krippendorff_alpha(ann, ci="bootstrap", seed=1)
    assert pairs.se < 0.8 * items.se
