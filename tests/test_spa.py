"""Sparse Probability of Agreement (Nørregaard & Derczynski 2022, arXiv:2208.06161).

Every expected number comes from outside kappalab: exact enumeration of multinomial outcomes,
pair counting written out in the test, the ``krippendorff`` package, Krippendorff's coincidence
matrix computed by hand, fractions worked out in comments, or the closed-form population truths
of the simulation design re-derived here from the module docstring of ``kappalab.simulate``
(cross-checked against ``truth``).
"""

from __future__ import annotations

import math
from fractions import Fraction as F
from itertools import combinations

import krippendorff
import numpy as np
import pytest

import kappalab as kl
from kappalab import simulate
from kappalab.errors import EmptyDataError, InvalidParameterError

SCHEMES = ("flat", "annotations", "annotations_m1", "edges", "inv_var", "inv_var_class")
nan = np.nan


# ============================================================================ helpers
def compositions(n: int, C: int):
    """All count vectors (n_1..n_C) ≥ 0 with Σ = n."""
    if C == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in compositions(n - first, C - 1):
            yield (first,) + rest


def enumerated_variance(n: int, p) -> float:
    """Var[P] for n i.i.d. draws from p, P = Σ n_c(n_c−1)/(n(n−1)), by summing over every
    multinomial outcome with probability n!/Πn_c! · Πp_c^{n_c}."""
    p = np.asarray(p, dtype=float)
    mean = second = 0.0
    for counts in compositions(n, p.size):
        prob = math.factorial(n) / math.prod(math.factorial(c) for c in counts)
        prob *= math.prod(pc ** c for pc, c in zip(p, counts))
        agreement = sum(c * (c - 1) for c in counts) / (n * (n - 1))
        mean += prob * agreement
        second += prob * agreement ** 2
    return second - mean ** 2


def item_labels(wide: np.ndarray) -> list[list[int]]:
    """The labels of each item (row), missing cells dropped."""
    return [[int(v) for v in row if not np.isnan(v)] for row in wide]


def pair_agreement(labels: list[int]) -> float:
    """Eq. (2): agreeing pairs over all pairs of one item's annotations."""
    pairs = list(combinations(labels, 2))
    return sum(a == b for a, b in pairs) / len(pairs)


def random_sparse(seed: int, n_items: int = 40, n_raters: int = 7, n_categories: int = 3,
                  per_item=None) -> np.ndarray:
    """Items × raters with NaN for missing. Each item's true class is shared by its raters with
    probability ½ (so agreement is above chance); ``per_item`` fixes the number of annotations,
    else it is uniform on 0..n_raters (items with 0 and 1 annotations included)."""
    rng = np.random.default_rng(seed)
    wide = np.full((n_items, n_raters), nan)
    for i in range(n_items):
        m = per_item if per_item is not None else rng.integers(0, n_raters + 1)
        raters = rng.choice(n_raters, size=m, replace=False)
        true = rng.integers(n_categories)
        noisy = rng.integers(n_categories, size=m)
        wide[i, raters] = np.where(rng.random(m) < 0.5, true, noisy)
    return wide


def hand_weights(n, scheme: str) -> np.ndarray:
    n = np.asarray(n, dtype=float)
    k = {"flat": np.ones_like(n), "annotations": n, "annotations_m1": n - 1,
         "edges": n * (n - 1) / 2}[scheme]
    return np.where(n >= 2, k, 0.0)


def exact_limit(prevalence, reliability, heterogeneity, lo, hi, strength, weight) -> float:
    """The large-sample limit of SPA with item weights ``weight(m)`` under the nominal model of
    ``kappalab.simulate`` (re-derived here from its docstring, not from its code):
    items easy/hard with probability ½, κ_c = κ ± d, d = heterogeneity·min(κ, 1−κ);
    P_c = Σπ² + (1 − Σπ²)κ_c; difficulty h_c = 1 − P_c; baseline m ~ uniform(lo..hi);
    MNAR tilt p(m | c) ∝ p₀(m) exp{s m (h_c − h̄)}, h̄ = mean of h_c. Then

        SPA → Σ_c Σ_{m≥2} p(m|c) k(m) P_c / Σ_c Σ_{m≥2} p(m|c) k(m)

    (a ratio of item means; the class marginals are π in both classes, so the class
    distribution that inv_var_class estimates converges to π).
    """
    pi = np.asarray(prevalence, dtype=float)
    s2 = pi @ pi
    d = heterogeneity * min(reliability, 1 - reliability)
    kappa_c = np.array([reliability + d, reliability - d])
    P_c = s2 + (1 - s2) * kappa_c
    h = 1 - P_c
    m = np.arange(hi + 1, dtype=float)
    p0 = np.where(m >= lo, 1.0, 0.0)
    p0 /= p0.sum()
    pm = p0 * np.exp(strength * np.outer(h - h.mean(), m))
    pm /= pm.sum(axis=1, keepdims=True)
    k = np.where(m >= 2, weight(m), 0.0)
    return float((pm @ k) @ P_c / (pm @ k).sum())


# ============================================================================ item variance
def test_item_agreement_variance_equals_exact_enumeration():
    rng = np.random.default_rng(5)
    for C in (2, 3, 4):
        for _ in range(4):
            p = rng.dirichlet(np.full(C, 0.7))
            for n in range(2, 9):
                assert float(kl.item_agreement_variance(n, p)) == pytest.approx(
                    enumerated_variance(n, p), rel=1e-10, abs=1e-15), (C, n, p)
            # vectorised over n, and no pair (n < 2) → no information: infinite variance
            got = kl.item_agreement_variance(np.arange(0, 9), p)
            assert np.isinf(got[:2]).all()
            assert got[2:] == pytest.approx([enumerated_variance(n, p) for n in range(2, 9)],
                                            rel=1e-10, abs=1e-15)


def test_item_agreement_variance_two_annotations_is_bernoulli():
    # n = 2: P is 1[x1 = x2] ~ Bernoulli(Σp²), variance a(1 − a); p = (.5, .3, .2): a = .38
    assert float(kl.item_agreement_variance(2, [0.5, 0.3, 0.2])) == pytest.approx(0.38 * 0.62)


def test_item_agreement_variance_uniform_closed_form():
    n = np.arange(2, 25)
    for C in range(2, 11):
        expected = 2 * (C - 1) / (C ** 2 * n * (n - 1))
        got = kl.item_agreement_variance(n, np.full(C, 1 / C))
        np.testing.assert_allclose(got, expected, rtol=1e-10)
    # a spot check against the enumeration: C = 3, n = 4: 2·2/(9·12) = 1/27
    assert enumerated_variance(4, [1 / 3] * 3) == pytest.approx(1 / 27, rel=1e-12)


def test_normalised_inv_var_weights_equal_normalised_edges_weights():
    n = np.arange(0, 31)
    edges = np.where(n >= 2, n * (n - 1) / 2, 0.0)
    for C in range(2, 11):
        inv_var = kl.spa_weights(n, scheme="inv_var", n_classes=C)
        np.testing.assert_allclose(inv_var / inv_var.sum(), edges / edges.sum(), rtol=1e-12)
        uniform = kl.spa_weights(n, scheme="inv_var_class", class_distribution=np.full(C, 1 / C))
        np.testing.assert_allclose(uniform / uniform.sum(), edges / edges.sum(), rtol=1e-12)


def test_inv_var_class_weights_are_inverse_enumerated_variances():
    p = [0.7, 0.2, 0.1]
    n = np.arange(2, 9)
    got = kl.spa_weights(n, scheme="inv_var_class", class_distribution=p)
    np.testing.assert_allclose(got, [1 / enumerated_variance(int(m), p) for m in n], rtol=1e-10)
    # skewed p: the normalised weights are no longer edges (B = 4(b − a²) > 0)
    edges = n * (n - 1) / 2
    assert not np.allclose(got / got.sum(), edges / edges.sum(), rtol=1e-3)


# ============================================================================ weights
def test_named_weights_by_hand_and_singletons_get_zero_weight():
    n = [0, 1, 2, 3, 5]
    expected = {"flat": [0, 0, 1, 1, 1], "annotations": [0, 0, 2, 3, 5],
                "annotations_m1": [0, 0, 1, 2, 4], "edges": [0, 0, 1, 3, 10]}
    for scheme, k in expected.items():
        np.testing.assert_array_equal(kl.spa_weights(n, scheme=scheme), k)
    # uniform over 3 classes: Var = 2·2/(9 n(n−1)) → weight 9n(n−1)/4: 4.5, 13.5, 45
    np.testing.assert_allclose(kl.spa_weights(n, scheme="inv_var", n_classes=3),
                               [0, 0, 4.5, 13.5, 45], rtol=1e-12)
    k = kl.spa_weights(n, scheme="inv_var_class", class_distribution=[0.8, 0.2])
    assert k[0] == k[1] == 0 and (k[2:] > 0).all()


def test_singleton_items_do_not_change_spa_under_any_scheme():
    base = random_sparse(11, n_items=30)
    base = base[np.sum(~np.isnan(base), axis=1) >= 2]  # only pairable items
    singles = np.full((6, base.shape[1]), nan)
    singles[np.arange(6), np.arange(6) % base.shape[1]] = [0, 1, 2, 2, 1, 0]
    both = np.vstack([base, singles])
    for scheme in SCHEMES:
        a = kl.spa(base, scheme=scheme, categories=[0, 1, 2])
        b = kl.spa(both, scheme=scheme, categories=[0, 1, 2])
        assert b.value == pytest.approx(a.value, abs=1e-14), scheme
        assert b.n_items == a.n_items == base.shape[0]
        assert b.details["n_items_dropped"] == 6
    # a custom weight given to a one-annotation item is ignored (its weight is 0)
    k = np.ones(both.shape[0])
    k[-6:] = 100.0
    flat = kl.spa(base, scheme="flat").value
    assert kl.spa(both, scheme=k).value == pytest.approx(flat, abs=1e-14)


# ============================================================================ hand example
HAND = [[0, 0, 1, nan, nan],   # A: n=3, counts (2,1): 2·1/(3·2) = 1/3
        [1, 1, nan, nan, nan],  # B: n=2, counts (0,2): 2·1/(2·1) = 1
        [0, 1, 1, 1, 1],        # C: n=5, counts (1,4): 4·3/(5·4) = 3/5
        [2, nan, nan, nan, nan],  # D: n=1, dropped
        [0, 2, nan, nan, nan]]  # E: n=2, counts (1,0,1): 0


def test_pair_agreement_over_leading_axes():
    """The item agreement kernel the posterior predictive checks call on (draws, items, K)
    arrays: the HAND items' counts, twice with the categories permuted, give the hand P_i."""
    from kappalab.kernels import pair_agreement

    counts = np.array([[2, 1, 0], [0, 2, 0], [1, 4, 0], [0, 0, 1], [1, 0, 1]], dtype=float)
    m = counts.sum(axis=1)
    stacked = np.stack([counts, counts[:, ::-1], counts[:, [1, 2, 0]]])
    expected = [1 / 3, 1, 3 / 5, 0, 0]  # D has one annotation: 0
    assert pair_agreement(stacked, m) == pytest.approx(np.tile(expected, (3, 1)), abs=1e-15)


def test_hand_example_every_scheme():
    ann = kl.Annotations.from_wide(HAND)
    P = [F(1, 3), F(1), F(3, 5), F(0)]
    assert kl.item_agreement(ann).tolist() == pytest.approx([float(x) for x in P])
    assert list(kl.item_agreement(ann).index) == [0, 1, 2, 4]
    # flat: (1/3 + 1 + 3/5 + 0)/4 = (29/15)/4 = 29/60
    # annotations: (3·1/3 + 2·1 + 5·3/5 + 2·0)/(3+2+5+2) = 6/12 = 1/2
    # annotations_m1: (2·1/3 + 1·1 + 4·3/5 + 1·0)/(2+1+4+1) = (61/15)/8 = 61/120
    # edges k = 3, 1, 10, 1: (1 + 1 + 6 + 0)/15 = 8/15; inv_var (C = 3, uniform) ∝ edges: 8/15
    expected = {"flat": F(29, 60), "annotations": F(1, 2), "annotations_m1": F(61, 120),
                "edges": F(8, 15), "inv_var": F(8, 15)}
    # inv_var_class: pooled labels of the pairable items A, B, C, E: 0 ×4, 1 ×7, 2 ×1 of 12,
    # p = (1/3, 7/12, 1/12); a = Σp² = (16 + 49 + 1)/144 = 11/24, b = Σp³ = (64+343+1)/1728
    # = 17/72; A = 2a + 6a² − 8b = (264 + 363 − 544)/288 = 83/288,
    # B = 4(b − a²) = 4(136 − 121)/576 = 30/288; Var(n) = (83 + 30n)/(288 n(n−1)),
    # k(n) ∝ n(n−1)/(83 + 30n): k(3) = 6/173, k(2) = 2/143, k(5) = 20/233
    k = {2: F(2, 143), 3: F(6, 173), 5: F(20, 233)}
    num = k[3] * F(1, 3) + k[2] * 1 + k[5] * F(3, 5) + k[2] * 0
    den = k[3] + k[2] + k[5] + k[2]
    expected["inv_var_class"] = num / den
    for scheme, value in expected.items():
        est = kl.spa(ann, scheme=scheme)
        assert est.value == pytest.approx(float(value), abs=1e-14), scheme
        assert est.n_items == 4 and est.n_annotations == 12
        assert est.details["n_items_dropped"] == 1
    assert kl.spa(ann, scheme="inv_var_class").details["class_distribution"] == pytest.approx(
        (1 / 3, 7 / 12, 1 / 12))
    # flat SE: √(Σ(P_i − 29/60)²/(4·3)); deviations −9/60, 31/60, 7/60, −29/60:
    # Σ squares = (81 + 961 + 49 + 841)/3600 = 1932/3600 → se² = 1932/43200
    assert kl.spa(ann, scheme="flat").se == pytest.approx(math.sqrt(1932 / 43200), rel=1e-12)
    # spa_kappa, flat: P_e = a = 11/24; (29/60 − 11/24)/(1 − 11/24) = (3/120)/(13/24) = 3/65
    kappa = kl.spa_kappa(ann)
    assert kappa.value == pytest.approx(3 / 65, abs=1e-14)
    assert kappa.expected == pytest.approx(11 / 24, abs=1e-14)


def test_custom_weights_by_hand():
    # weights 2, 1, 1, (ignored), 4 on P = 1/3, 1, 3/5, –, 0: (2/3 + 1 + 3/5)/8 = (34/15)/8
    est = kl.spa(HAND, scheme=[2, 1, 1, 7, 4])
    assert est.value == pytest.approx(34 / 120, abs=1e-14)
    assert est.details["weights"] == "custom"


# ============================================================================ equal sizes
@pytest.mark.parametrize("m", [2, 3, 4, 6])
def test_equal_annotations_every_scheme_is_the_joint_probability_of_agreement(m):
    for seed in range(3):
        wide = random_sparse(100 * m + seed, n_items=35, n_raters=8, per_item=m)
        joint = np.mean([pair_agreement(labels) for labels in item_labels(wide)])
        for scheme in SCHEMES:
            assert kl.spa(wide, scheme=scheme).value == pytest.approx(joint, abs=1e-13), (m, scheme)


# ============================================================================ Krippendorff
def coincidence_observed_disagreement(wide: np.ndarray) -> tuple[float, float]:
    """Krippendorff's nominal D_o and D_e from the coincidence matrix, by hand:
    o_ck = Σ_i Σ_{ordered pairs r≠s of item i} 1[x_r=c, x_s=k]/(m_i − 1) over items with
    m_i ≥ 2; n = Σo; D_o = Σ_{c≠k} o_ck/n; D_e = Σ_{c≠k} n_c n_k/(n(n−1))."""
    labels = item_labels(wide)
    cats = sorted({v for row in labels for v in row})
    index = {c: j for j, c in enumerate(cats)}
    o = np.zeros((len(cats), len(cats)))
    for row in labels:
        if len(row) < 2:
            continue
        for r in range(len(row)):
            for s in range(len(row)):
                if r != s:
                    o[index[row[r]], index[row[s]]] += 1 / (len(row) - 1)
    n = o.sum()
    marg = o.sum(axis=1)
    off = ~np.eye(len(cats), dtype=bool)
    d_o = o[off].sum() / n
    d_e = (np.outer(marg, marg)[off]).sum() / (n * (n - 1))
    return d_o, d_e


def test_annotation_weights_equal_one_minus_krippendorff_observed_disagreement():
    for seed in range(8):
        wide = random_sparse(700 + seed, n_items=45, n_raters=6, n_categories=4)
        d_o, d_e = coincidence_observed_disagreement(wide)
        # the hand coincidence matrix reproduces the krippendorff package's α
        ref_alpha = krippendorff.alpha(reliability_data=wide.T, level_of_measurement="nominal")
        assert 1 - d_o / d_e == pytest.approx(ref_alpha, abs=1e-12)
        alpha = kl.krippendorff_alpha(wide, level="nominal")
        assert alpha.value == pytest.approx(ref_alpha, abs=1e-12)
        assert alpha.observed_disagreement == pytest.approx(d_o, abs=1e-12)
        assert kl.spa(wide, scheme="annotations").value == pytest.approx(1 - d_o, abs=1e-12), seed


# ============================================================================ spa_kappa
@pytest.mark.parametrize("scheme", ["flat", "annotations", "edges"])
def test_spa_kappa_by_hand_from_pooled_labels(scheme):
    for seed in range(5):
        wide = random_sparse(900 + seed, n_items=30, n_raters=5, n_categories=3)
        labels = [row for row in item_labels(wide) if len(row) >= 2]  # pairable items only
        P = np.array([pair_agreement(row) for row in labels])
        n = np.array([len(row) for row in labels])
        k = hand_weights(n, scheme)
        spa_value = (k * P).sum() / k.sum()
        pooled = np.bincount(np.concatenate(labels), minlength=3) / n.sum()
        p_e = (pooled ** 2).sum()
        est = kl.spa_kappa(wide, scheme=scheme)
        assert est.observed == pytest.approx(spa_value, abs=1e-13)
        assert est.expected == pytest.approx(p_e, abs=1e-13)
        assert est.value == pytest.approx((spa_value - p_e) / (1 - p_e), abs=1e-13)


# ============================================================================ errors
def test_no_pairable_item_is_a_clear_error():
    for scheme in SCHEMES:
        with pytest.raises(EmptyDataError, match="two or more annotations"):
            kl.spa([[0, nan], [1, nan], [nan, 2]], scheme=scheme)
    with pytest.raises(EmptyDataError, match="two or more annotations"):
        kl.spa_kappa([[0, nan], [nan, 1]])


def test_bad_custom_weights_are_clear_errors():
    with pytest.raises(InvalidParameterError, match="one entry per item"):
        kl.spa(HAND, scheme=[1, 1, 1])
    with pytest.raises(InvalidParameterError, match="one entry per item"):
        kl.spa(HAND, scheme=np.ones(6))
    for bad in ([1, -1, 1, 1, 1], [1, nan, 1, 1, 1], [1, np.inf, 1, 1, 1]):
        with pytest.raises(InvalidParameterError, match="non-negative"):
            kl.spa(HAND, scheme=bad)
    with pytest.raises(InvalidParameterError, match="unknown SPA weighting"):
        kl.spa(HAND, scheme="equal")
    with pytest.raises(InvalidParameterError):
        kl.spa(HAND, scheme="inv_var_class", class_distribution=[0.5, 0.5])  # 3 categories
    with pytest.raises(ValueError):  # InvalidParameterError is a ValueError
        kl.spa(HAND, scheme=[1, 1])


# ============================================================================ simulation
PREVALENCE = (0.6, 0.3, 0.1)
RELIABILITY = 0.5
# population P = Σπ² + (1 − Σπ²)κ = (.36 + .09 + .01) + .54·.5 = 0.73
P_TRUE = 0.73


@pytest.fixture(scope="module")
def mcar_runs():
    """600 MCAR datasets of 150 items with 1–6 annotations per item (some singletons)."""
    rng = np.random.default_rng(20260105)
    values = {s: [] for s in SCHEMES}
    ses = {s: [] for s in SCHEMES}
    for _ in range(600):
        ann, truth = simulate.annotations(150, prevalence=PREVALENCE, reliability=RELIABILITY,
                                          annotations_per_item=(1, 6), missingness="mcar",
                                          seed=rng)
        for s in SCHEMES:
            est = kl.spa(ann, scheme=s)
            values[s].append(est.value)
            ses[s].append(est.se)
    return truth, {s: np.array(v) for s, v in values.items()}, {s: np.array(v) for s, v in
                                                                ses.items()}


@pytest.mark.slow
def test_unbiased_under_mcar(mcar_runs):
    truth, values, _ = mcar_runs
    assert truth.p_o == pytest.approx(P_TRUE, abs=1e-12)
    assert truth.p_o_pairable == pytest.approx(P_TRUE, abs=1e-12)  # MCAR: the same
    for scheme, v in values.items():
        se = v.std(ddof=1) / np.sqrt(v.size)
        assert abs(v.mean() - P_TRUE) < 4 * se, (scheme, v.mean(), se)


@pytest.mark.slow
def test_standard_error_matches_the_spread_over_datasets(mcar_runs):
    _, values, ses = mcar_runs
    for scheme in SCHEMES:
        empirical = values[scheme].std(ddof=1)  # ± ~3–4% with 600 datasets
        reported = np.sqrt(np.mean(ses[scheme] ** 2))
        assert reported == pytest.approx(empirical, rel=0.15), (scheme, reported, empirical)


def test_biased_under_mnar():
    """Harder items get more annotations (tilt s = 2, 1–8 annotations, heterogeneity ½):
    κ_c = .5 ± .25, P_c = .46 + .54κ_c = .865 / .595. Annotation weights converge to
    E[e₂P]/E[e₂] (e₂ = E[m·1(m≥2) | item]) = 0.685574 (``exact_limit``), not P = 0.73; flat
    weights to E[w₂P]/E[w₂] = 0.711885 (w₂ = P(m ≥ 2 | item)); edges to 0.664431."""
    kw = dict(prevalence=PREVALENCE, reliability=RELIABILITY, annotations_per_item=(1, 8),
              missingness="mnar", mnar_strength=2.0)
    limits = {
        "flat": exact_limit(PREVALENCE, RELIABILITY, 0.5, 1, 8, 2.0, np.ones_like),
        "annotations": exact_limit(PREVALENCE, RELIABILITY, 0.5, 1, 8, 2.0, lambda m: m),
        "edges": exact_limit(PREVALENCE, RELIABILITY, 0.5, 1, 8, 2.0,
                             lambda m: m * (m - 1) / 2),
    }
    assert limits["annotations"] == pytest.approx(0.685574, abs=1e-6)
    rng = np.random.default_rng(77)
    values = {s: [] for s in limits}
    for _ in range(150):
        ann, truth = simulate.annotations(200, seed=rng, **kw)
        for s in limits:
            values[s].append(kl.spa(ann, scheme=s).value)
    # the simulation module's own truths agree with the limits derived here
    assert truth.p_o == pytest.approx(P_TRUE, abs=1e-12)
    assert truth.p_o_pairable == pytest.approx(limits["flat"], abs=1e-12)
    assert truth.p_o_annotation_weighted == pytest.approx(limits["annotations"], abs=1e-12)
    for scheme, v in values.items():
        v = np.asarray(v)
        se = v.std(ddof=1) / np.sqrt(v.size)
        assert abs(v.mean() - limits[scheme]) < 4 * se, (scheme, v.mean(), limits[scheme], se)
        # the MNAR bias against the population P is measurable: many standard errors
        assert P_TRUE - v.mean() > 10 * se, (scheme, v.mean(), se)


def test_all_zero_weights_are_undefined_with_a_warning():
    from kappalab.errors import UndefinedCoefficientWarning
    with pytest.warns(UndefinedCoefficientWarning, match="weight 0"):
        est = kl.spa([[0, 0], [1, 1]], scheme=[0, 0])
    assert np.isnan(est.value)


@pytest.mark.parametrize("scheme", ["inv_var", "inv_var_class"])
def test_one_category_gives_perfect_agreement_under_inverse_variance_weights(scheme):
    # every item agrees surely: P_i = 1, so SPA = 1 whatever the weights
    est = kl.spa([[1, 1], [1, 1], [1, 1]], scheme=scheme)
    assert est.value == 1.0 and est.details["weights_used"] == "edges"


def test_chance_agreement_pools_only_weighted_items():
    # only item 0 (labels 0, 0) carries weight: pooled p = (1, 0), P_e = 1
    est = kl.spa([[0, 0], [1, 1], [0, 1]], scheme=[1, 0, 0])
    assert est.expected == 1.0 and est.n_items == 1


def test_spa_item_weighting_is_scheme_and_weights_is_refused():
    """weights= means category agreement weights everywhere; SPA's is scheme=."""
    x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [3, 3, None]]
    by_name = kl.spa(x, scheme="edges")
    assert by_name.value == kl.spa(x, scheme="edges").value
    for function in (kl.spa, kl.spa_kappa):
        with pytest.raises(InvalidParameterError, match="scheme="):
            function(x, weights="edges")
