"""Cross-replication reliability: κx, normalized κx and agreement with a reference.

Wong, Paritosh & Aroyo (ACL 2021), eqs 6–13. Every asserted number comes from outside
kappalab:

* scikit-learn's ``cohen_kappa_score`` (plain and quadratic-weighted) for one annotation per
  item on each side, and for ``reference_agreement`` with one coder;
* direct implementations of eqs 7–8 and 9–10 written below (Python loops over items i, j and
  annotation pairs, small data only), with Krippendorff's metrics written out;
* the ``krippendorff`` package for the IRRs of normalized κx;
* hand calculations written in comments;
* population values derived here in closed form (interval: κx = ρ√(r_X r_Y); binary latent
  threshold: Sheppard's formula) or by 1-D quadrature (ordinal), compared with estimates at
  100 000 items within 4 delete-a-group jackknife standard errors computed on the item-sum
  spine (``item_stats`` → group sums → ``combine`` of leave-one-group-out totals, row-wise).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.special import ndtr, ndtri

import krippendorff
from sklearn.metrics import cohen_kappa_score

import kappalab as kl
from kappalab import simulate
from kappalab.coefficients.cross import CrossKappa
from kappalab.errors import (AnnotationError, EmptyDataError, InvalidParameterError,
                             UndefinedCoefficientWarning)

# The long tables here are built from wide ones: each side's raters are its columns 0..R-1,
# unrelated people who share a number, not shared raters (that case is tested at the end).
pytestmark = pytest.mark.filterwarnings("ignore::kappalab.errors.SharedRatersWarning")

TOL = 1e-12
N_DRAWS = 40        # random datasets tried per check
MIN_COMPARED = 30   # ... of which at least this many must be non-degenerate and compared
N_GROUPS = 100      # jackknife groups of items
Z = 4.0             # tolerance in standard errors


# ============================================================================ direct oracles
def nominal_D(a, b):
    return 0.0 if a == b else 1.0


def interval_D(a, b):
    return (float(a) - float(b)) ** 2


def ratio_D(a, b):
    a, b = float(a), float(b)
    return 0.0 if a == b else ((a - b) / (a + b)) ** 2


def ordinal_D_factory(pooled_values):
    """Krippendorff's ordinal metric (Krippendorff 2011): for ordered categories with counts
    n_g, δ²(c, k) = (Σ_{g=c..k} n_g − (n_c + n_k)/2)²; the counts are the pooled annotations of
    both replications on the common items (cross.py's docstring)."""
    values, counts = np.unique(np.asarray(pooled_values, dtype=float), return_counts=True)
    position = {float(v): p for p, v in enumerate(values)}

    def D(a, b):
        c, k = sorted((position[float(a)], position[float(b)]))
        if c == k:
            return 0.0
        return (counts[c:k + 1].sum() - (counts[c] + counts[k]) / 2.0) ** 2
    return D


def side_lists(wide):
    """items × raters array (NaN = missing) → {item position: [values]} (all items kept)."""
    return {i: [v for v in row if not (isinstance(v, float) and math.isnan(v))]
            for i, row in enumerate(wide.tolist())}


def common_items(xs, ys):
    return [i for i in xs if i in ys and len(xs[i]) > 0 and len(ys[i]) > 0]


def brute_eq9_10(xs, ys, D):
    """κx with missing data, eqs 9–11, by direct loops: returns (κx, d_o, d_e).

    d_o = Σ_i (R(i)+S(i))/(R+S) · Σ_r Σ_s D(x_ri, y_si)/(R(i) S(i)),
    d_e = 1/(R S) Σ_i Σ_j Σ_r Σ_s D(x_ri, y_sj), over the items annotated on both sides."""
    items = common_items(xs, ys)
    R = sum(len(xs[i]) for i in items)
    S = sum(len(ys[i]) for i in items)
    d_o = 0.0
    for i in items:
        inner = math.fsum(D(a, b) for a in xs[i] for b in ys[i])
        d_o += (len(xs[i]) + len(ys[i])) / (R + S) * inner / (len(xs[i]) * len(ys[i]))
    terms = []
    for i in items:
        for j in items:
            for a in xs[i]:
                for b in ys[j]:
                    terms.append(D(a, b))
    d_e = math.fsum(terms) / (R * S)
    return (1.0 - d_o / d_e if d_e > 0 else math.nan), d_o, d_e


def brute_eq7_8(X, Y, D):
    """κx on complete data, eqs 6–8: X is n × R, Y is n × S (no missing value)."""
    n, R = X.shape
    S = Y.shape[1]
    d_o = math.fsum(D(X[i, r], Y[i, s]) for i in range(n) for r in range(R)
                    for s in range(S)) / (n * R * S)
    d_e = math.fsum(D(X[i, r], Y[j, s]) for i in range(n) for j in range(n)
                    for r in range(R) for s in range(S)) / (n * n * R * S)
    return 1.0 - d_o / d_e, d_o, d_e


def distance_for_level(level, xs, ys):
    if level == "nominal":
        return nominal_D
    if level == "interval":
        return interval_D
    if level == "ratio":
        return ratio_D
    if level == "ordinal":
        items = common_items(xs, ys)
        return ordinal_D_factory([v for i in items for v in xs[i] + ys[i]])
    raise ValueError(level)


# ============================================================================ random data
VALUE_POOL = np.array([1.0, 2.0, 3.0, 5.0, 8.0, 9.0])  # unevenly spaced, positive (ratio)


def draw_pair(seed, *, complete=False, max_items=10):
    """Two replications (items × raters arrays, NaN = missing) of correlated labels.

    Item i has a 'true' category; each annotation takes it with probability 0.6, otherwise a
    uniform category. With missing data, ~30% of cells are missing and some items have no
    annotation on one side (they must be dropped)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, max_items + 1))
    R, S = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    K = int(rng.integers(2, 6))
    values = np.sort(rng.choice(VALUE_POOL, K, replace=False))
    truth = rng.integers(0, K, n)

    def side(m):
        keep = rng.random((n, m)) < 0.6
        codes = np.where(keep, truth[:, None], rng.integers(0, K, (n, m)))
        out = values[codes].astype(float)
        if not complete:
            out[rng.random((n, m)) < 0.3] = np.nan
            if n > 3 and rng.random() < 0.5:  # an item with nothing on this side
                out[rng.integers(0, n), :] = np.nan
        return out
    return side(R), side(S)


def wide_to_long(wide, item_labels=None, rater_prefix="r", mapping=None):
    rows = []
    for i, row in enumerate(wide.tolist()):
        for r, v in enumerate(row):
            if not (isinstance(v, float) and math.isnan(v)):
                rows.append((i if item_labels is None else item_labels[i],
                             f"{rater_prefix}{r}", v if mapping is None else mapping[v]))
    return pd.DataFrame(rows, columns=["item", "rater", "value"])


def brute_is_defined(xs, ys, D):
    items = common_items(xs, ys)
    if not items:
        return False
    return brute_eq9_10(xs, ys, D)[2] > 0


# ============================================================================ jackknife helpers
def group_starts(n_rows, n_groups=N_GROUPS):
    return np.linspace(0, n_rows, n_groups + 1).astype(int)[:-1]


def leave_group_out(stats, n_groups=N_GROUPS):
    """Totals with each group of items removed (G × s), groups = contiguous blocks of rows."""
    stats = np.asarray(stats, dtype=float)
    return stats.sum(axis=0) - np.add.reduceat(stats, group_starts(len(stats), n_groups), axis=0)


def jackknife_se(replicates):
    r = np.asarray(replicates, dtype=float)
    g = r.size
    return math.sqrt((g - 1) / g * np.sum((r - r.mean()) ** 2))


def kx_with_se(ann_x, ann_y, level):
    core = CrossKappa(ann_x, ann_y, level)
    est = core.estimate()
    reps = core.combine(leave_group_out(core.item_stats()))["value"]
    return est.value, jackknife_se(reps), core


# Krippendorff's α of one replication written out (for the jackknife of normalized κx); the
# per-item statistics of item i with m_i ≥ 2 annotations:
#   interval: [Σ_{r≠s}(x_r − x_s)²/(m−1) = 2(mΣx² − (Σx)²)/(m−1), m, Σx, Σx²]
#     α = 1 − D_o/D_e, D_o = Σ s₀/n, D_e = 2(nΣx² − (Σx)²)/(n(n−1)), n = Σ m;
#   nominal: [(m² − Σ_c n_ic²)/(m−1), m, n_i1, …, n_iK]
#     D_e = (n² − Σ_c N_c²)/(n(n−1)).
def alpha_item_stats(wide, level, categories=None):
    x = np.asarray(wide, dtype=float)
    present = ~np.isnan(x)
    m = present.sum(axis=1).astype(float)
    pairable = m >= 2
    if level == "interval":
        v = np.where(present, x, 0.0)
        s1, s2 = v.sum(axis=1), (v * v).sum(axis=1)
        within = 2.0 * (m * s2 - s1 * s1) / np.where(pairable, m - 1, 1.0)
        stats = np.column_stack([within, m, s1, s2])
    else:
        counts = np.column_stack([(x == c).sum(axis=1) for c in categories]).astype(float)
        within = (m * m - (counts ** 2).sum(axis=1)) / np.where(pairable, m - 1, 1.0)
        stats = np.column_stack([within, m, counts])
    return np.where(pairable[:, None], stats, 0.0)


def alpha_combine(totals, level):
    t = np.atleast_2d(totals)
    n = t[:, 1]
    d_o = t[:, 0] / n
    if level == "interval":
        d_e = 2.0 * (n * t[:, 3] - t[:, 2] ** 2) / (n * (n - 1))
    else:
        d_e = (n * n - (t[:, 2:] ** 2).sum(axis=1)) / (n * (n - 1))
    return 1.0 - d_o / d_e


def aligned_wide(ann, items):
    """ann's items × raters values (NaN = missing), rows in the order of ``items``."""
    return ann.wide.reindex(items).to_numpy(dtype=float)


def krippendorff_package_alpha(wide, level):
    return krippendorff.alpha(reliability_data=np.asarray(wide, dtype=float).T,
                              level_of_measurement=level)


# ============================================================================ population truths
def bvn_rectangle(a, b, c, d, r):
    """P(a < U ≤ b, c < V ≤ d), (U, V) standard bivariate normal with correlation r, by 1-D
    quadrature of φ(u)[Φ((d − r u)/s) − Φ((c − r u)/s)], s = √(1 − r²)."""
    s = math.sqrt(1.0 - r * r)
    lo, hi = max(a, -12.0), min(b, 12.0)
    if lo >= hi:
        return 0.0
    f = lambda u: math.exp(-0.5 * u * u) / math.sqrt(2 * math.pi) * (  # noqa: E731
        ndtr((d - r * u) / s) - ndtr((c - r * u) / s))
    return quad(f, lo, hi, epsabs=1e-14, epsrel=1e-12, limit=200)[0]


def threshold_joint(K, r):
    t = np.concatenate([[-np.inf], ndtri(np.arange(1, K) / K), [np.inf]])  # uniform marginals
    return np.array([[bvn_rectangle(t[c], t[c + 1], t[k], t[k + 1], r) for k in range(K)]
                     for c in range(K)])


def latent_icc(K, reliability):
    """ρ_L such that the nominal α = κ of the thresholded categories equals ``reliability``:
    (Σ_c J_cc(ρ_L) − 1/K)/(1 − 1/K) = reliability, uniform marginals."""
    target = 1.0 / K + (1.0 - 1.0 / K) * reliability
    return brentq(lambda rho: np.trace(threshold_joint(K, rho)) - target, 0.0, 0.999999,
                  xtol=1e-13)


def threshold_kx(K, rho, rel_x, rel_y):
    """Population κx (nominal and interval on 0..K−1) of two latent-threshold replications
    with uniform marginals: one annotation of each side on the same item is bivariate normal
    with correlation r = ρ√(ρ_LX ρ_LY); J the pair distribution, p = 1/K:
    κx = 1 − Σ J∘δ / Σ ppᵀ∘δ."""
    if K == 2:  # Sheppard: P(same) = 1/2 + arcsin(r)/π; κ = 2 arcsin(r)/π, ρ_L = sin(π rel/2)
        r = rho * math.sqrt(math.sin(math.pi * rel_x / 2) * math.sin(math.pi * rel_y / 2))
        value = 2.0 * math.asin(r) / math.pi
        return value, value
    r = rho * math.sqrt(latent_icc(K, rel_x) * latent_icc(K, rel_y))
    J = threshold_joint(K, r)
    p = np.full(K, 1.0 / K)
    idx = np.arange(K, dtype=float)
    out = []
    for delta in (1.0 - np.eye(K), (idx[:, None] - idx[None, :]) ** 2):
        out.append(1.0 - (J * delta).sum() / (p @ delta @ p))
    return out[0], out[1]


# ============================================================================ 1. one annotation
def _one_annotation_pairs(seed):
    rng = np.random.default_rng(seed)
    n, K = int(rng.integers(10, 80)), int(rng.integers(2, 7))
    x = rng.integers(0, K, n)
    y = np.where(rng.random(n) < 0.5, x, rng.integers(0, K, n))  # correlated
    return x, y, K


def test_one_annotation_nominal_is_cohen_kappa():
    compared = 0
    for seed in range(N_DRAWS):
        x, y, K = _one_annotation_pairs(seed)
        if len(set(x) | set(y)) < 2:  # Cohen's κ undefined (one category overall)
            continue
        expected = cohen_kappa_score(x, y)
        got = kl.cross_kappa(x[:, None], y[:, None], level="nominal")
        assert got.value == pytest.approx(expected, abs=TOL), seed
        assert got.n_items == len(x)
        compared += 1
    assert compared >= MIN_COMPARED


def test_one_annotation_interval_is_quadratic_weighted_kappa():
    """Categories are the integers 0..K−1 (equally spaced), so sklearn's label positions
    coincide with kappalab's category values."""
    compared = 0
    for seed in range(N_DRAWS):
        x, y, K = _one_annotation_pairs(1000 + seed)
        if len(set(x) | set(y)) < 2:
            continue
        expected = cohen_kappa_score(x, y, weights="quadratic", labels=list(range(K)))
        got = kl.cross_kappa(x[:, None], y[:, None], level="interval")
        assert got.value == pytest.approx(expected, abs=TOL), seed
        compared += 1
    assert compared >= MIN_COMPARED


# ============================================================================ 2. eqs 9–10 directly
@pytest.mark.parametrize("level", ["nominal", "interval", "ordinal", "ratio"])
def test_eq9_10_brute_force_with_missing_data(level):
    compared = 0
    for seed in range(N_DRAWS):
        X, Y = draw_pair(seed)
        xs, ys = side_lists(X), side_lists(Y)
        D = None if not common_items(xs, ys) else distance_for_level(level, xs, ys)
        if D is None or not brute_is_defined(xs, ys, D):
            continue  # no common item, or every annotation in one category (d_e = 0)
        expected, d_o, d_e = brute_eq9_10(xs, ys, D)
        got = kl.cross_kappa(X, Y, level=level)
        assert got.value == pytest.approx(expected, rel=1e-11, abs=TOL), (level, seed)
        assert got.observed_disagreement == pytest.approx(d_o, rel=1e-11, abs=TOL)
        assert got.expected_disagreement == pytest.approx(d_e, rel=1e-11, abs=TOL)
        items = common_items(xs, ys)
        assert got.n_items == len(items)
        assert got.n_annotations == sum(len(xs[i]) + len(ys[i]) for i in items)
        compared += 1
    assert compared >= MIN_COMPARED


@pytest.mark.parametrize("level", ["nominal", "interval", "ordinal"])
def test_eq9_10_reduce_to_eq7_8_on_complete_data(level):
    compared = 0
    for seed in range(N_DRAWS):
        X, Y = draw_pair(500 + seed, complete=True, max_items=7)
        xs, ys = side_lists(X), side_lists(Y)
        D = distance_for_level(level, xs, ys)
        if not brute_is_defined(xs, ys, D):
            continue
        k78, o78, e78 = brute_eq7_8(X, Y, D)
        k910, o910, e910 = brute_eq9_10(xs, ys, D)
        assert (k910, o910, e910) == pytest.approx((k78, o78, e78), rel=1e-12, abs=TOL)
        assert kl.cross_kappa(X, Y, level=level).value == pytest.approx(k78, rel=1e-11, abs=TOL)
        compared += 1
    assert compared >= MIN_COMPARED


def test_custom_distance_matrix_and_callable():
    compared = 0
    for seed in range(N_DRAWS):
        X, Y = draw_pair(700 + seed)
        xs, ys = side_lists(X), side_lists(Y)
        absolute = lambda a, b: abs(float(a) - float(b))  # noqa: E731
        if not common_items(xs, ys) or not brute_is_defined(xs, ys, absolute):
            continue
        expected = brute_eq9_10(xs, ys, absolute)[0]
        got = kl.cross_kappa(X, Y, level=lambda a, b: np.abs(a - b)).value
        assert got == pytest.approx(expected, rel=1e-11, abs=TOL), seed
        # the same distance as a K × K matrix over the sorted union of both category sets
        union = np.unique(np.concatenate([X[~np.isnan(X)], Y[~np.isnan(Y)]]))
        matrix = np.abs(union[:, None] - union[None, :])
        assert kl.cross_kappa(X, Y, level=matrix).value == pytest.approx(expected, rel=1e-11,
                                                                     abs=TOL)
        compared += 1
    assert compared >= MIN_COMPARED


# ============================================================================ 3. by hand
def _hand_case():
    # X (raters a, b, c) and Y (raters d, e); item 4 only in X, item 5 only in Y.
    x = pd.DataFrame([(1, "a", 1), (1, "b", 1),
                      (2, "a", 2),
                      (3, "a", 1), (3, "b", 3), (3, "c", 2),
                      (4, "c", 2)], columns=["item", "rater", "value"])
    y = pd.DataFrame([(1, "d", 1),
                      (2, "d", 2), (2, "e", 1),
                      (3, "e", 3),
                      (5, "d", 1)], columns=["item", "rater", "value"])
    return kl.Annotations.from_long(x), kl.Annotations.from_long(y)


def test_hand_computed_case_with_missing_data():
    ax, ay = _hand_case()
    # Common items 1, 2, 3 (item 4 dropped from X, item 5 from Y).
    # R(1)=2, S(1)=1; R(2)=1, S(2)=2; R(3)=3, S(3)=1 → R = 6, S = 4, R + S = 10;
    # item weights (R(i)+S(i))/(R+S) = 3/10, 3/10, 4/10.
    # X pooled on common items: 1,1,2,1,3,2 (Σx = 10, Σx² = 20); Y: 1,2,1,3 (Σy = 7, Σy² = 15).
    #
    # nominal:
    #   item 1: pairs (1,1),(1,1): 0 disagreements / 2 = 0
    #   item 2: pairs (2,2),(2,1): 1 / 2 = 1/2
    #   item 3: pairs (1,3),(3,3),(2,3): 2 / 3 = 2/3
    #   d_o = 0.3·0 + 0.3·1/2 + 0.4·2/3 = 0.15 + 0.26667 = 5/12
    #   N_X = (3, 2, 1), N_Y = (2, 1, 1): agreeing cross pairs 3·2 + 2·1 + 1·1 = 9 of 24
    #   d_e = 15/24 = 5/8;  κx = 1 − (5/12)/(5/8) = 1 − 2/3 = 1/3
    est = kl.cross_kappa(ax, ay, level="nominal")
    assert est.value == pytest.approx(1 / 3, abs=TOL)
    assert est.observed_disagreement == pytest.approx(5 / 12, abs=TOL)
    assert est.expected_disagreement == pytest.approx(5 / 8, abs=TOL)
    assert est.n_items == 3 and est.n_annotations == 10
    assert est.details["n_items_dropped_x"] == 1 and est.details["n_items_dropped_y"] == 1
    #
    # interval, D = (x − y)²:
    #   item 1: 0;  item 2: (0 + 1)/2 = 1/2;  item 3: (4 + 0 + 1)/3 = 5/3
    #   d_o = 0.3·1/2 + 0.4·5/3 = 0.15 + 0.66667 = 49/60
    #   Σ_{x,y}(x − y)² = SΣx² + RΣy² − 2ΣxΣy = 4·20 + 6·15 − 2·10·7 = 30; d_e = 30/24 = 5/4
    #   κx = 1 − (49/60)/(5/4) = 1 − 196/300 = 26/75 = 0.346667
    est = kl.cross_kappa(ax, ay, level="interval")
    assert est.value == pytest.approx(26 / 75, abs=TOL)
    assert est.observed_disagreement == pytest.approx(49 / 60, abs=TOL)
    assert est.expected_disagreement == pytest.approx(5 / 4, abs=TOL)
    #
    # ordinal (Krippendorff's metric on the pooled counts of both sides, common items):
    #   n_1 = 3 + 2 = 5, n_2 = 2 + 1 = 3, n_3 = 1 + 1 = 2
    #   δ(1,2) = (5 + 3 − (5 + 3)/2)² = 16;  δ(2,3) = (3 + 2 − (3 + 2)/2)² = 6.25;
    #   δ(1,3) = (5 + 3 + 2 − (5 + 2)/2)² = 6.5² = 42.25
    #   item 2: (0 + 16)/2 = 8;  item 3: (42.25 + 0 + 6.25)/3 = 48.5/3
    #   d_o = 0.3·8 + 0.4·48.5/3 = 2.4 + 6.46667 = 133/15
    #   cross pairs: (1,2): 3·1 + 2·2 = 7; (1,3): 3·1 + 1·2 = 5; (2,3): 2·1 + 1·1 = 3
    #   d_e = (16·7 + 42.25·5 + 6.25·3)/24 = (112 + 211.25 + 18.75)/24 = 342/24 = 14.25
    #   κx = 1 − (133/15)/14.25 = 1 − 28/45 = 17/45 = 0.377778
    est = kl.cross_kappa(ax, ay, level="ordinal")
    assert est.value == pytest.approx(17 / 45, abs=TOL)
    assert est.expected_disagreement == pytest.approx(14.25, abs=1e-10)


def test_docstring_example_by_hand():
    # X = {1,1}, {2,2}, {1,2}; Y = {1}, {2}, {2}; R(i) = 2, S(i) = 1, weights 1/3 each.
    # d_o = (0 + 0 + 1/2)/3 = 1/6; N_X = (3, 3), N_Y = (1, 2): disagreeing 3·2 + 3·1 = 9 of 18
    # d_e = 1/2; κx = 1 − (1/6)/(1/2) = 2/3.
    assert kl.cross_kappa([[1, 1], [2, 2], [1, 2]], [[1], [2], [2]]).value == pytest.approx(
        2 / 3, abs=TOL)


# ============================================================================ 4. invariances
@pytest.mark.parametrize("level", ["nominal", "interval", "ordinal"])
def test_symmetry(level):
    compared = 0
    for seed in range(N_DRAWS):
        X, Y = draw_pair(2000 + seed)
        xs, ys = side_lists(X), side_lists(Y)
        if not common_items(xs, ys) or not brute_is_defined(xs, ys,
                                                            distance_for_level(level, xs, ys)):
            continue
        xy, yx = kl.cross_kappa(X, Y, level=level), kl.cross_kappa(Y, X, level=level)
        assert yx.value == pytest.approx(xy.value, abs=TOL), seed
        assert yx.details["n_items_dropped_x"] == xy.details["n_items_dropped_y"]
        compared += 1
    assert compared >= MIN_COMPARED


@pytest.mark.parametrize("level", ["nominal", "interval", "ordinal"])
def test_permutation_invariance(level):
    compared = 0
    for seed in range(N_DRAWS):
        X, Y = draw_pair(3000 + seed)
        xs, ys = side_lists(X), side_lists(Y)
        if not common_items(xs, ys) or not brute_is_defined(xs, ys,
                                                            distance_for_level(level, xs, ys)):
            continue
        expected = brute_eq9_10(xs, ys, distance_for_level(level, xs, ys))[0]
        rng = np.random.default_rng(seed)
        items = rng.permutation(X.shape[0])  # the same item permutation on both sides
        Xp = X[items][:, rng.permutation(X.shape[1])]  # raters permuted within each side
        Yp = Y[items][:, rng.permutation(Y.shape[1])]
        assert kl.cross_kappa(Xp, Yp, level=level).value == pytest.approx(
            kl.cross_kappa(X, Y, level=level).value, abs=TOL)
        # items matched by label, not position: Y given in another item order (long form,
        # where an item without annotations on a side is simply absent from that side)
        labels = [f"item{i}" for i in range(X.shape[0])]
        long_y = wide_to_long(Y, labels).sample(frac=1.0, random_state=seed)
        got = kl.cross_kappa(kl.Annotations.from_long(wide_to_long(X, labels)),
                             kl.Annotations.from_long(long_y), level=level)
        assert got.value == pytest.approx(expected, abs=TOL)
        compared += 1
    assert compared >= MIN_COMPARED


def test_relabelling_categories_nominal():
    compared = 0
    for seed in range(N_DRAWS):
        X, Y = draw_pair(4000 + seed)
        xs, ys = side_lists(X), side_lists(Y)
        if not common_items(xs, ys) or not brute_is_defined(xs, ys, nominal_D):
            continue
        expected = brute_eq9_10(xs, ys, nominal_D)[0]
        rng = np.random.default_rng(seed)
        names = rng.permutation(["zeta", "alpha", "mu", "beta", "omega", "kappa"])
        mapping = {v: str(n) for v, n in zip(VALUE_POOL, names)}  # order-scrambling bijection
        ax = kl.Annotations.from_long(wide_to_long(X, mapping=mapping))
        ay = kl.Annotations.from_long(wide_to_long(Y, mapping=mapping))
        assert kl.cross_kappa(ax, ay, level="nominal").value == pytest.approx(expected, abs=TOL)
        compared += 1
    assert compared >= MIN_COMPARED


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_perfect_agreement_is_one(level):
    rng = np.random.default_rng(7)
    n = 30
    truth = rng.choice(VALUE_POOL, n)
    truth[:2] = [1.0, 9.0]  # at least two categories
    X = np.repeat(truth[:, None], 3, axis=1)
    Y = np.repeat(truth[:, None], 2, axis=1)
    X[rng.random(X.shape) < 0.3] = np.nan
    X[:, 0] = truth  # every item keeps one annotation on each side
    Y[:, 1] = np.where(rng.random(n) < 0.5, np.nan, truth)
    assert kl.cross_kappa(X, Y, level=level).value == pytest.approx(1.0, abs=TOL)


# ============================================================================ 5. alignment
def test_items_on_one_side_only_are_dropped_and_counted():
    rng = np.random.default_rng(11)
    X, Y = rng.integers(1, 4, (10, 3)).astype(float), rng.integers(1, 4, (12, 2)).astype(float)
    x_labels = list(range(0, 10))     # items 0..9
    y_labels = list(range(3, 15))     # items 3..14: common 3..9 (7 items)
    ax = kl.Annotations.from_long(wide_to_long(X, x_labels))
    ay = kl.Annotations.from_long(wide_to_long(Y, y_labels))
    est = kl.cross_kappa(ax, ay, level="nominal")
    assert est.n_items == 7
    assert est.details["n_items_dropped_x"] == 3   # items 0, 1, 2
    assert est.details["n_items_dropped_y"] == 5   # items 10..14
    xs = {x_labels[i]: v for i, v in side_lists(X).items()}
    ys = {y_labels[i]: v for i, v in side_lists(Y).items()}
    assert est.value == pytest.approx(brute_eq9_10(xs, ys, nominal_D)[0], abs=TOL)


ITEM_LABELS = {
    "small integers": lambda rng, n: rng.permutation(3 * n)[:n],
    "integers over a wide range": lambda rng, n: rng.permutation(3 * n)[:n] * 10**12 - 10**17,
    "strings": lambda rng, n: np.array([f"it{k}" for k in rng.permutation(3 * n)[:n]],
                                       dtype=object),
    "floats": lambda rng, n: rng.permutation(3 * n)[:n] + 0.5,
}


@pytest.mark.parametrize("kind", sorted(ITEM_LABELS))
def test_items_matched_by_label_as_python_sets_match_them(kind):
    """The common, X-only and Y-only items (and their rows) are those of Python's set
    operations on the labels of annotated items, in each side's order, whatever the labels
    (matched through a lookup over a short integer range, or a hash table), with items that
    exist on a side but have no annotation there (a wide table's empty rows)."""
    from kappalab.alignment import AlignedReplications
    rng = np.random.default_rng(31)
    for _ in range(12):
        labels = ITEM_LABELS[kind](rng, 40)
        sides = []
        for _side in range(2):
            chosen = labels[np.sort(rng.choice(40, int(rng.integers(5, 36)), replace=False))]
            chosen = chosen[rng.permutation(chosen.size)]
            wide = rng.integers(1, 4, (chosen.size, 2)).astype(float)
            wide[rng.random(chosen.size) < 0.2] = np.nan  # items without an annotation
            wide[0] = [1.0, 2.0]  # at least one annotated item
            sides.append(kl.Annotations.from_wide(pd.DataFrame(wide, index=list(chosen))))
        ax, ay = sides
        annotated_x = [i for i, m in zip(ax.items, ax.annotations_per_item_array) if m]
        annotated_y = [i for i, m in zip(ay.items, ay.annotations_per_item_array) if m]
        common = [i for i in annotated_x if i in set(annotated_y)]
        if not common:
            with pytest.raises(EmptyDataError, match="no annotated item in common"):
                AlignedReplications(ax, ay)
            continue
        a = AlignedReplications(ax, ay)
        assert list(a.items) == common
        assert list(a.only_x_items) == [i for i in annotated_x if i not in set(common)]
        assert list(a.only_y_items) == [i for i in annotated_y if i not in set(common)]
        assert [ax.items[r] for r in a.x_rows] == common
        assert [ay.items[r] for r in a.y_rows] == common
        assert [ax.items[r] for r in a.only_x_rows] == list(a.only_x_items)
        assert [ay.items[r] for r in a.only_y_rows] == list(a.only_y_items)


def test_items_of_different_label_types_match_as_pandas_does():
    """Integer items on one side and float items on the other: 1 and 1.0 are one item."""
    ax = kl.Annotations.from_long(pd.DataFrame({"item": [1, 1, 2, 3], "rater": list("abab"),
                                                "value": [1, 2, 2, 1]}))
    ay = kl.Annotations.from_long(pd.DataFrame({"item": [2.0, 3.0, 3.0, 4.0],
                                                "rater": list("cdcd"), "value": [2, 1, 1, 2]}))
    est = kl.cross_kappa(ax, ay)
    assert est.n_items == 2
    assert est.details["n_items_dropped_x"] == 1 and est.details["n_items_dropped_y"] == 1


def test_nominal_cross_sum_equals_the_matrix_product():
    """κx's nominal n_Xiᵀ δ n_Yi (R_i S_i − n_Xiᵀ n_Yi) against the same distance given as a
    K × K matrix (the general product), with missing data and sample weights, value, SE
    and totals."""
    for seed in range(8):
        X, Y = draw_pair(seed, max_items=30)
        ax, ay = kl.Annotations.from_wide(X), kl.Annotations.from_wide(Y)
        cats = CrossKappa(ax, ay).aligned.categories
        matrix = 1.0 - np.eye(len(cats))
        weights = np.random.default_rng(seed).integers(0, 3, ax.n_items).astype(float)
        if not (weights[CrossKappa(ax, ay).aligned.x_rows] > 0).any():
            continue
        for sw in (None, weights):
            fast = CrossKappa(ax, ay, sample_weight=sw)
            general = CrossKappa(ax, ay, matrix, sample_weight=sw)
            assert fast.dis.name == "nominal" and general.dis.name != "nominal"
            np.testing.assert_allclose(fast.totals(), general.totals(), rtol=0, atol=TOL)
            a, b = fast.estimate(ci="jackknife"), general.estimate(ci="jackknife")
            if np.isnan(b.value):
                assert np.isnan(a.value)
                continue
            assert a.value == pytest.approx(b.value, abs=TOL)
            assert a.se == pytest.approx(b.se, abs=TOL)
            assert a.n_items == b.n_items and a.n_annotations == b.n_annotations


def test_no_common_item_is_a_clear_error():
    ax = kl.Annotations.from_long(pd.DataFrame({"item": [1, 2], "rater": "a", "value": [1, 2]}))
    ay = kl.Annotations.from_long(pd.DataFrame({"item": [3, 4], "rater": "b", "value": [1, 2]}))
    with pytest.raises(EmptyDataError, match="no annotated item in common"):
        kl.cross_kappa(ax, ay)
    with pytest.raises(EmptyDataError):
        kl.normalized_cross_kappa(ax, ay)


def test_no_item_annotated_on_both_sides_wide_is_the_same_error():
    """The same data as items × raters arrays (NaN = missing): the items exist on both sides
    but none has annotations on both, so — as in long form — nothing can be compared."""
    X = np.array([[1.0], [np.nan], [2.0]])
    Y = np.array([[np.nan], [2.0], [np.nan]])
    with pytest.raises(EmptyDataError):
        kl.cross_kappa(X, Y)


def test_ordinal_marginals_use_only_items_annotated_on_both_sides():
    """Krippendorff's ordinal metric takes the pooled counts of the items that enter κx. Item 3
    has an X annotation but none in Y (a NaN row): it is dropped from κx, so its value must not
    enter the marginals either — the long form of the same data (item 3 absent from Y) and
    the wide form must agree.

    By hand, common items 0, 1, 2: X = 1, 2, 3; Y = 1, 3, 2 → n = (2, 2, 2);
    δ(1,2) = (2 + 2 − 2)² = 4, δ(2,3) = 4, δ(1,3) = (6 − 2)² = 16;
    d_o = (0 + δ(2,3) + δ(3,2))/3 = 8/3 (weights 2/6 each);
    d_e = Σ over the 9 cross pairs / 9 = (2·4 + 2·4 + 2·16)/9 = 48/9 = 16/3;
    κx = 1 − (8/3)/(16/3) = 1/2.
    (With item 3's X value counted, n = (2, 2, 3) and κx = 1 − 37.5/61 = 0.3852.)"""
    X = np.array([[1.0], [2.0], [3.0], [3.0]])
    Y = np.array([[1.0], [3.0], [2.0], [np.nan]])
    long_x = kl.Annotations.from_long(pd.DataFrame({"item": [0, 1, 2, 3], "rater": "a",
                                                    "value": [1, 2, 3, 3]}))
    long_y = kl.Annotations.from_long(pd.DataFrame({"item": [0, 1, 2], "rater": "b",
                                                    "value": [1, 3, 2]}))
    assert kl.cross_kappa(long_x, long_y, level="ordinal").value == pytest.approx(0.5, abs=TOL)
    assert kl.cross_kappa(X, Y, level="ordinal").value == pytest.approx(0.5, abs=TOL)


def test_normalized_irr_uses_only_items_annotated_on_both_sides():
    """IRR_X is α of X over the items both replications annotated (the docstring). Item 3 has
    no Y annotation, so α_X is over items 0–2: values 1,1 | 2,2 | 1,2 → n = 6, n_1 = n_2 = 3;
    D_o = ((4 − 2)/1)/6 = 1/3, D_e = (36 − 9 − 9)/(6·5) = 3/5, α_X = 1 − (1/3)/(3/5) = 4/9.
    (With item 3 (2, 2) included: α_X = 1 − (2/8)/(30/56) = 8/15.)"""
    X = np.array([[1, 1], [2, 2], [1, 2], [2, 2]], dtype=float)
    Y = np.array([[1, 1], [2, 2], [2, 1], [np.nan, np.nan]])
    assert krippendorff_package_alpha(X[:3], "nominal") == pytest.approx(4 / 9, abs=TOL)
    est = kl.normalized_cross_kappa(X, Y, level="nominal")
    assert est.details["irr_x"] == pytest.approx(4 / 9, abs=TOL)


@pytest.mark.parametrize("level", ["nominal", "interval", "ordinal"])
def test_different_category_sets_are_aligned(level):
    rng = np.random.default_rng(21)
    n = 8
    X = rng.choice([1.0, 2.0, 3.0], (n, 3))      # X never uses 5
    Y = rng.choice([1.0, 2.0, 5.0], (n, 2))      # Y never uses 3
    X[rng.random(X.shape) < 0.25] = np.nan
    xs, ys = side_lists(X), side_lists(Y)
    expected = brute_eq9_10(xs, ys, distance_for_level(level, xs, ys))[0]
    assert kl.cross_kappa(X, Y, level=level).value == pytest.approx(expected, abs=TOL)


def test_different_string_category_sets_are_aligned():
    x = pd.DataFrame({"item": [0, 0, 1, 1, 2, 3, 3], "rater": list("ababaab"),
                      "value": list("aabbabb")})  # X uses a, b
    y = pd.DataFrame({"item": [0, 1, 2, 2, 3], "rater": list("ccdcd"),
                      "value": list("abcbc")})    # Y uses a, b, c
    xs = x.groupby("item")["value"].apply(list).to_dict()
    ys = y.groupby("item")["value"].apply(list).to_dict()
    expected = brute_eq9_10(xs, ys, nominal_D)[0]
    got = kl.cross_kappa(kl.Annotations.from_long(x), kl.Annotations.from_long(y))
    assert got.value == pytest.approx(expected, abs=TOL)


# ============================================================================ 6. interval paths
def test_moment_path_equals_count_path_on_integer_data():
    compared = 0
    for seed in range(N_DRAWS):
        rng = np.random.default_rng(5000 + seed)
        n = int(rng.integers(5, 200))
        offset = [0.0, 1000.0, -1e6][seed % 3]  # far from 0: cancellation in the moments
        X = offset + rng.integers(0, 7, (n, int(rng.integers(1, 5)))).astype(float)
        Y = offset + rng.integers(0, 7, (n, int(rng.integers(1, 5)))).astype(float)
        X[rng.random(X.shape) < 0.3] = np.nan
        Y[rng.random(Y.shape) < 0.3] = np.nan
        ax, ay = kl.Annotations.from_wide(X), kl.Annotations.from_wide(Y)
        counts = CrossKappa(ax, ay, "interval", use_moments=False).estimate()
        moments = CrossKappa(ax, ay, "interval", use_moments=True).estimate()
        assert counts.details["moment_path"] is False and moments.details["moment_path"] is True
        if not np.isfinite(counts.value):
            continue
        assert abs(moments.value - counts.value) <= 1e-12, seed
        assert moments.observed_disagreement == pytest.approx(counts.observed_disagreement,
                                                              rel=1e-12)
        assert moments.expected_disagreement == pytest.approx(counts.expected_disagreement,
                                                              rel=1e-12)
        compared += 1
    assert compared >= MIN_COMPARED


def _direct_continuous_kx(X, Y):
    """eqs 9–10 for interval data by broadcasting over every cross pair (O(N²) memory)."""
    Xm, Ym = ~np.isnan(X), ~np.isnan(Y)
    both = Xm.any(axis=1) & Ym.any(axis=1)
    X, Y, Xm, Ym = X[both], Y[both], Xm[both], Ym[both]
    R_i, S_i = Xm.sum(axis=1), Ym.sum(axis=1)
    diff2 = (X[:, :, None] - Y[:, None, :]) ** 2
    inner = np.where(Xm[:, :, None] & Ym[:, None, :], diff2, 0.0).sum(axis=(1, 2))
    d_o = np.sum((R_i + S_i) / (R_i.sum() + S_i.sum()) * inner / (R_i * S_i))
    xv, yv = X[Xm], Y[Ym]
    d_e = ((xv[:, None] - yv[None, :]) ** 2).sum() / (xv.size * yv.size)
    return 1.0 - d_o / d_e


def test_continuous_values_every_value_distinct():
    rng = np.random.default_rng(31)
    n = 600
    mu = rng.normal(size=n)
    X = mu[:, None] + rng.normal(scale=0.8, size=(n, 3))
    Y = 0.7 * mu[:, None] + rng.normal(scale=1.1, size=(n, 2)) + 5.0
    X[rng.random(X.shape) < 0.2] = np.nan
    Y[rng.random(Y.shape) < 0.2] = np.nan
    est = kl.cross_kappa(X, Y, level="interval")
    assert est.details["moment_path"] is True
    assert est.value == pytest.approx(_direct_continuous_kx(X, Y), rel=1e-10)


def test_continuous_values_beyond_matrix_size():
    """60 000 distinct values: a K × K matrix is refused above 20 000 categories, so this
    works only through the O(N) moments. One annotation per side: κx = 1 − mean((x−y)²) /
    (mean(x²) + mean(y²) − 2 mean(x) mean(y))."""
    rng = np.random.default_rng(41)
    n = 30_000
    mu = rng.normal(size=n)
    x, y = mu + rng.normal(size=n), mu + rng.normal(size=n)
    d_o = np.mean((x - y) ** 2)
    d_e = np.mean(x ** 2) + np.mean(y ** 2) - 2 * x.mean() * y.mean()
    assert kl.cross_kappa(x[:, None], y[:, None], level="interval").value == pytest.approx(
        1 - d_o / d_e, rel=1e-10)


# ============================================================================ 7. large data
def test_no_integer_overflow_independent_binary_data():
    """300 000 annotations per side of independent binary data: κx ≈ 0. R·S ≈ 9·10¹⁰ pairs
    exceed 32-bit integers (the published Java implementation returns ≈ 1.7 on such data)."""
    rng = np.random.default_rng(51)
    n = 300_000
    x, y = (rng.random(n) < 0.4).astype(int), (rng.random(n) < 0.4).astype(int)
    est = kl.cross_kappa(x[:, None], y[:, None], level="nominal")
    assert est.value == pytest.approx(cohen_kappa_score(x, y), abs=1e-12)
    assert est.n_annotations == 2 * n
    core = CrossKappa(kl.Annotations.from_wide(x[:, None]),
                      kl.Annotations.from_wide(y[:, None]), "nominal")
    se = jackknife_se(core.combine(leave_group_out(core.item_stats()))["value"])
    assert abs(est.value) < Z * se
    # 100 000 items × 3 annotations per side from the simulation module, ρ = 0: the exact
    # population κx is 0 (independent sides)
    ann_x, ann_y, truth = simulate.replications(100_000, level="binary", rho=0.0,
                                                reliability=(0.5, 0.3),
                                                annotations_per_item=(3, 3), seed=52)
    assert ann_x.n_annotations == 300_000 and ann_y.n_annotations == 300_000
    assert abs(truth.kx) < 1e-12
    value, se, _ = kx_with_se(ann_x, ann_y, "nominal")
    assert abs(value - 0.0) < Z * se, (value, se)
    assert -0.05 < value < 0.05  # nowhere near the overflowed ≈ 1.7


@pytest.mark.parametrize("level, kwargs", [
    ("interval", dict(rho=0.6, reliability=(0.5, 0.7), annotations_per_item=((1, 4), (2, 3)))),
    ("binary", dict(rho=0.6, reliability=(0.5, 0.7), annotations_per_item=((1, 4), (2, 3)))),
    ("ordinal", dict(rho=0.8, reliability=(0.4, 0.6), annotations_per_item=(3, (1, 3)))),
])
def test_kx_against_population_truth_100k_items(level, kwargs):
    rho, (rx, ry) = kwargs["rho"], kwargs["reliability"]
    ann_x, ann_y, truth = simulate.replications(100_000, level=level, seed=61, **kwargs)
    if level == "interval":
        # σ_b² = r, σ_w² = 1 − r on each side, no shift: d_e = 2, κx = 2ρσ_bXσ_bY/2
        expected = {"interval": rho * math.sqrt(rx * ry)}
    else:
        K = 2 if level == "binary" else 5
        nominal_kx, interval_kx = threshold_kx(K, rho, rx, ry)
        expected = {"nominal": nominal_kx, "interval": interval_kx}
        assert truth.kx_nominal == pytest.approx(nominal_kx, abs=1e-9)
        assert truth.details["kx_interval"] == pytest.approx(interval_kx, abs=1e-9)
        # truth.kx is at the level: binary, the nominal κx; ordinal, Krippendorff's ordinal
        # metric, which on uniform marginals (equally spaced mid-ranks) is ∝ (c − k)²
        assert truth.kx == pytest.approx(nominal_kx if level == "binary" else interval_kx,
                                         abs=1e-9)
    if level == "interval":
        assert truth.kx == pytest.approx(expected["interval"], abs=1e-12)
    for distance, target in expected.items():
        value, se, _ = kx_with_se(ann_x, ann_y, distance)
        assert 0 < se < 0.01
        assert abs(value - target) < Z * se, (level, distance, value, target, se)


def _normalized_with_se(ann_x, ann_y, level, categories=None):
    """normalized κx from kappalab, and its jackknife SE with κx from the spine and each
    side's α written out above (all over the common items, in the same row order)."""
    est = kl.normalized_cross_kappa(ann_x, ann_y, level=level)
    core = CrossKappa(ann_x, ann_y, level)
    items = core.aligned.items
    kx_reps = core.combine(leave_group_out(core.item_stats()))["value"]
    alpha_stats = [alpha_item_stats(aligned_wide(a, items), level, categories)
                   for a in (ann_x, ann_y)]
    irr = [float(alpha_combine(s.sum(axis=0), level)[0]) for s in alpha_stats]
    irr_reps = [alpha_combine(leave_group_out(s), level) for s in alpha_stats]
    reps = kx_reps / np.sqrt(irr_reps[0] * irr_reps[1])
    # the IRRs kappalab used are Krippendorff's α of each side (checked against ours)
    assert est.details["irr_x"] == pytest.approx(irr[0], rel=1e-10)
    assert est.details["irr_y"] == pytest.approx(irr[1], rel=1e-10)
    return est, jackknife_se(reps)


def test_own_alpha_helper_matches_krippendorff_package():
    # (60 items: the krippendorff package is slow with many distinct continuous values)
    ann_x, _, _ = simulate.replications(60, level="interval", rho=1.0, seed=71)
    wide = ann_x.wide.to_numpy(dtype=float)
    assert alpha_combine(alpha_item_stats(wide, "interval").sum(axis=0), "interval")[0] == \
        pytest.approx(krippendorff_package_alpha(wide, "interval"), rel=1e-10)
    ann_x, _, _ = simulate.replications(400, level="binary", rho=1.0,
                                        annotations_per_item=((1, 4), 3), seed=72)
    wide = ann_x.wide.to_numpy(dtype=float)
    assert alpha_combine(alpha_item_stats(wide, "nominal", [0, 1]).sum(axis=0),
                         "nominal")[0] == pytest.approx(
        krippendorff_package_alpha(wide, "nominal"), rel=1e-10)


@pytest.mark.slow
@pytest.mark.parametrize("level", ["interval", "binary"])
def test_normalized_kx_is_one_for_one_population(level):
    """Two replications of one population (ρ = 1, equal settings): κx = IRR_X = IRR_Y in the
    population (paper §3.5), so normalized κx = 1."""
    ann_x, ann_y, truth = simulate.replications(100_000, level=level, rho=1.0,
                                                reliability=(0.4, 0.4),
                                                annotations_per_item=((2, 4), (2, 4)), seed=81)
    distance = "interval" if level == "interval" else "nominal"
    est, se = _normalized_with_se(ann_x, ann_y, distance, categories=[0, 1])
    assert truth.normalized_kx == pytest.approx(1.0, abs=1e-12)
    assert 0 < se < 0.02
    assert abs(est.value - 1.0) < Z * se, (est.value, se)


@pytest.mark.slow
def test_normalized_kx_is_rho_for_the_bivariate_interval_model():
    """Interval model with σ_b² + σ_w² = 1 on each side: κx = ρ√(r_X r_Y), IRRs r_X, r_Y, so
    normalized κx = ρ (Spearman's disattenuated correlation of the true scores)."""
    rho = 0.6
    ann_x, ann_y, truth = simulate.replications(100_000, level="interval", rho=rho,
                                                reliability=(0.3, 0.8),
                                                annotations_per_item=(2, (2, 4)), seed=91)
    assert truth.normalized_kx == pytest.approx(rho, abs=1e-12)
    est, se = _normalized_with_se(ann_x, ann_y, "interval")
    assert abs(est.value - rho) < Z * se, (est.value, se)


def test_normalized_kx_binary_bivariate_model():
    """Binary latent-threshold sides: the population normalized κx = κx/√(r_X r_Y) with κx
    from Sheppard's formula and the IRRs = the nominal α the model was built to have."""
    rho, rx, ry = 0.7, 0.5, 0.6
    ann_x, ann_y, truth = simulate.replications(100_000, level="binary", rho=rho,
                                                reliability=(rx, ry),
                                                annotations_per_item=(3, 3), seed=92)
    target = threshold_kx(2, rho, rx, ry)[0] / math.sqrt(rx * ry)
    assert truth.normalized_kx == pytest.approx(target, abs=1e-12)
    est, se = _normalized_with_se(ann_x, ann_y, "nominal", categories=[0, 1])
    assert abs(est.value - target) < Z * se, (est.value, target, se)


# ============================================================================ 8. normalized κx
def _small_pair():
    X, Y = draw_pair(9001)
    xs, ys = side_lists(X), side_lists(Y)
    assert brute_is_defined(xs, ys, nominal_D)
    return X, Y, xs, ys


def test_normalized_default_irr_is_krippendorff_alpha_on_common_items():
    compared = 0
    for seed in range(3 * N_DRAWS):  # many draws have a side with one rater: no α there
        X, Y = draw_pair(6000 + seed)
        xs, ys = side_lists(X), side_lists(Y)
        if not common_items(xs, ys) or not brute_is_defined(xs, ys, nominal_D):
            continue
        both = np.array([i in set(common_items(xs, ys)) for i in range(X.shape[0])])
        Xc, Yc = X[both], Y[both]
        # α needs pairable items (≥ 2 annotations) holding more than one value, on each side
        pairable = [s[(~np.isnan(s)).sum(axis=1) >= 2] for s in (Xc, Yc)]
        if not all(np.unique(p[~np.isnan(p)]).size > 1 for p in pairable):
            continue
        irr_x = krippendorff_package_alpha(Xc, "nominal")
        irr_y = krippendorff_package_alpha(Yc, "nominal")
        kx = brute_eq9_10(xs, ys, nominal_D)[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedCoefficientWarning)
            got = kl.normalized_cross_kappa(X, Y, level="nominal")
        assert got.details["irr_x"] == pytest.approx(irr_x, abs=1e-10)
        assert got.details["irr_y"] == pytest.approx(irr_y, abs=1e-10)
        assert got.details["cross_kappa"] == pytest.approx(kx, abs=TOL)
        if irr_x > 0 and irr_y > 0:
            assert got.value == pytest.approx(kx / math.sqrt(irr_x * irr_y), rel=1e-10)
        else:
            assert math.isnan(got.value)
        compared += 1
    assert compared >= MIN_COMPARED


def test_normalized_nan_with_warning_when_an_irr_is_not_positive():
    # X: every item's two annotations disagree → α_X < 0 (D_o = 1 > D_e = 4/7 by hand:
    # 8 values, 4 ones and 4 twos; D_e = 2·4·4/(8·7) = 4/7).
    X = np.array([[1, 2], [2, 1], [1, 2], [2, 1]], dtype=float)
    Y = np.array([[1, 1], [2, 2], [1, 2], [2, 2]], dtype=float)
    assert krippendorff_package_alpha(X, "nominal") == pytest.approx(1 - 1 / (4 / 7))
    with pytest.warns(UndefinedCoefficientWarning, match="IRR"):
        est = kl.normalized_cross_kappa(X, Y, level="nominal")
    assert math.isnan(est.value)
    X2, Y2, _, _ = _small_pair()
    for irr in [(0.5, -0.2), (0.0, 0.5), (-0.1, -0.3)]:
        with pytest.warns(UndefinedCoefficientWarning):
            assert math.isnan(kl.normalized_cross_kappa(X2, Y2, irr=irr).value)


def test_normalized_irr_as_numbers():
    X, Y, xs, ys = _small_pair()
    kx = brute_eq9_10(xs, ys, nominal_D)[0]
    est = kl.normalized_cross_kappa(X, Y, level="nominal", irr=(0.36, 0.64))
    assert est.value == pytest.approx(kx / math.sqrt(0.36 * 0.64), abs=TOL)  # √(.2304) = .48
    assert est.details["irr_x"] == 0.36 and est.details["irr_y"] == 0.64


def test_normalized_irr_callable():
    X, Y, xs, ys = _small_pair()
    items = common_items(xs, ys)
    kx = brute_eq9_10(xs, ys, nominal_D)[0]
    seen = []

    def irr(ann):  # fixed IRRs, 0.25 for X then 0.81 for Y; records what it was given
        seen.append(ann.n_items)
        return 0.25 if len(seen) == 1 else 0.81

    est = kl.normalized_cross_kappa(X, Y, level="nominal", irr=irr)
    assert seen == [len(items), len(items)]  # each side, restricted to the common items
    assert est.value == pytest.approx(kx / math.sqrt(0.25 * 0.81), abs=TOL)  # / 0.45

    def interval_alpha(ann):  # a callable using the krippendorff package
        return krippendorff_package_alpha(ann.wide.to_numpy(dtype=float), "interval")

    Xc, Yc = X[items], Y[items]
    ax_, ay_ = krippendorff_package_alpha(Xc, "interval"), krippendorff_package_alpha(Yc,
                                                                                    "interval")
    if ax_ > 0 and ay_ > 0:
        est = kl.normalized_cross_kappa(X, Y, level="nominal", irr=interval_alpha)
        assert est.value == pytest.approx(kx / math.sqrt(ax_ * ay_), rel=1e-10)


# ============================================================================ 9. reference
def _coder_and_expert(seed, n=None):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(10, 60))
    labels = np.array(["neg", "neu", "pos", "mixed"])[: int(rng.integers(2, 5))]
    expert = rng.choice(labels, n)
    coder = np.where(rng.random(n) < 0.6, expert, rng.choice(labels, n))
    items = [f"doc{i:03d}" for i in range(n)]
    return items, coder, expert


def test_reference_agreement_one_coder_is_cohen_kappa():
    compared = 0
    for seed in range(N_DRAWS):
        items, coder, expert = _coder_and_expert(7000 + seed)
        if len(set(coder) | set(expert)) < 2:
            continue
        expected = cohen_kappa_score(coder, expert)
        coders = pd.DataFrame({"coder": coder}, index=pd.Index(items, name="item"))
        reference = dict(zip(items, expert))
        assert kl.reference_agreement(coders, reference).value == pytest.approx(expected,
                                                                                 abs=TOL)
        compared += 1
    assert compared >= MIN_COMPARED


def test_reference_as_dict_series_and_annotations():
    items, coder, expert = _coder_and_expert(8000, n=40)
    expected = cohen_kappa_score(coder, expert)
    coders = kl.Annotations.from_long(pd.DataFrame({"item": items, "rater": "c1",
                                                    "value": coder}))
    as_dict = dict(zip(items, expert))
    as_series = pd.Series(expert, index=items)
    as_annotations = kl.Annotations.from_long(pd.DataFrame({"item": items, "rater": "expert",
                                                            "value": expert}))
    for reference in (as_dict, as_series, as_annotations):
        assert kl.reference_agreement(coders, reference).value == pytest.approx(expected,
                                                                                 abs=TOL)


def test_reference_items_missing_are_dropped():
    items, coder, expert = _coder_and_expert(8100, n=50)
    keep = np.arange(50) % 5 != 0  # the expert labelled 40 of the 50 items
    reference = pd.Series(expert[keep], index=np.array(items)[keep])
    coders = pd.DataFrame({"coder": coder}, index=pd.Index(items, name="item"))
    est = kl.reference_agreement(coders, reference)
    assert est.value == pytest.approx(cohen_kappa_score(coder[keep], expert[keep]), abs=TOL)
    assert est.n_items == 40
    assert est.details["n_items_dropped_x"] == 10 and est.details["n_items_dropped_y"] == 0


def test_reference_several_coders_is_kx_against_one_annotation_replication():
    X, _ = draw_pair(8200)
    rng = np.random.default_rng(8200)
    expert = rng.choice(VALUE_POOL[:3], X.shape[0])
    xs = side_lists(X)
    ys = {i: [float(v)] for i, v in enumerate(expert)}
    expected = brute_eq9_10(xs, ys, nominal_D)[0]
    assert kl.reference_agreement(X, dict(enumerate(expert))).value == pytest.approx(
        expected, abs=TOL)


def test_reference_with_two_labels_for_an_item_is_an_error():
    coders = pd.DataFrame({"c1": ["a", "b", "a"], "c2": ["a", "a", "b"]}, index=[1, 2, 3])
    two_experts = kl.Annotations.from_long(pd.DataFrame(
        {"item": [1, 1, 2, 3], "rater": ["e1", "e2", "e1", "e1"], "value": list("abab")}))
    with pytest.raises(InvalidParameterError, match="one label per item"):
        kl.reference_agreement(coders, two_experts)
    with pytest.raises(AnnotationError):  # a Series with a repeated item
        kl.reference_agreement(coders, pd.Series(list("aba"), index=[1, 1, 2]))


def test_normalized_combine_does_not_reduce_the_parts_again():
    """The parts' totals are reduced once: combine (every resample, every complex step) is a
    closed form on the totals, never a new pass over the annotations."""
    from kappalab.coefficients.cross import CrossKappa, NormalizedCrossKappa
    from kappalab.coefficients.multirater import alpha_core

    ax, ay, _ = kl.simulate.replications(300, level="interval", seed=4)
    irr = [alpha_core(ann, "interval") for ann in (ax, ay)]
    core = NormalizedCrossKappa(CrossKappa(ax, ay, "interval"), *irr)
    totals = core.totals()
    for part in core.cores:  # any further reduction of a part would fail
        part.unweighted_totals = part.totals = None
    value = core.combine(np.vstack([totals, totals]))["value"]
    assert value[0] == value[1] == kl.normalized_cross_kappa(ax, ay, level="interval").value
    np.testing.assert_array_equal(core.totals(), totals)


# ---------------------------------------------------------------------- shared raters
def test_replications_that_share_raters_warn_with_the_count():
    """Rater ids on both sides make the replications dependent: a warning with the count,
    silenced by shared_raters='ignore'; raters labelled by position are never compared."""
    x = kl.Annotations.from_long(pd.DataFrame({"item": [1, 1, 2, 2, 3, 3],
                                               "rater": ["ann", "bo"] * 3,
                                               "value": [1, 1, 2, 2, 1, 2]}))
    y = kl.Annotations.from_long(pd.DataFrame({"item": [1, 1, 2, 2, 3, 3],
                                               "rater": ["bo", "cy"] * 3,
                                               "value": [1, 2, 2, 2, 1, 1]}))
    with pytest.warns(kl.errors.SharedRatersWarning, match=r"1 rater id\(s\).*'bo'"):
        warned = kl.cross_kappa(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", kl.errors.SharedRatersWarning)
        quiet = kl.cross_kappa(x, y, shared_raters="ignore")
        kl.normalized_cross_kappa(x, y, shared_raters="ignore")
        kl.cross_kappa([[1, 1], [2, 2], [1, 2]], [[1, 2], [2, 2], [1, 1]])  # positional
    assert warned.value == quiet.value
    with pytest.warns(kl.errors.SharedRatersWarning):
        report = kl.xrr_report(x, y, n_splits=2, seed=0).set_index("quantity")
    assert "not independent" in report.loc["normalized_kappa_x", "note"]
    with pytest.raises(kl.errors.InvalidParameterError, match="shared_raters"):
        kl.cross_kappa(x, y, shared_raters="maybe")


def test_only_raters_annotating_on_both_sides_are_shared():
    """A rater id listed on both sides but without an annotation on one (an empty column of a
    wide table) is not shared; ids on one side only never are."""
    from kappalab.alignment import shared_raters
    x = kl.Annotations.from_wide(pd.DataFrame({"ann": [1, 2, 1], "bo": [1, 2, 2],
                                               "cy": [np.nan] * 3}))
    y = kl.Annotations.from_wide(pd.DataFrame({"bo": [1, 2, 1], "cy": [2, 2, 1],
                                               "dee": [1, 1, 1]}))
    assert list(shared_raters(x, y, policy="ignore")) == ["bo"]
    z = kl.Annotations.from_wide(pd.DataFrame({"eve": [1, 2, 1], "fay": [2, 2, 1]}))
    assert list(shared_raters(x, z, policy="ignore")) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", kl.errors.SharedRatersWarning)
        kl.cross_kappa(x, z)
