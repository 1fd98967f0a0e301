"""Property tests (hypothesis) for the agreement coefficients and the item-sum spine.

Every property asserted here is a mathematical fact about the coefficient's definition, not a
number produced by kappalab: invariance to relabelling categories (nominal coefficients), to
the order of items and raters, the upper bound 1, the identities ι = Conger (nominal),
ι = Cohen (two raters), Fleiss = Scott (two raters, complete), value 1 under perfect agreement,
the O(N) interval moments equal to the K × K count path, the spine protocol
``combine(Σ item_stats)`` (including B × s stacks and reweighted items), and the invariances of
Krippendorff's α (affine maps for interval, scaling for ratio, monotone maps for ordinal).
Where a value is compared with an independent computation (a brute-force ι from Wong et al.
2021 eqs 1–5, scikit-learn's ``cohen_kappa_score``, the textbook Scott π) that computation is
written out below.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import kappalab as kl
from kappalab.coefficients.multirater import (
    CHANCE_MODELS,
    ChanceCorrectedAgreement,
    distance_for,
    weights_for,
)
from kappalab.coefficients.pairwise import PairwiseMeanKappa
from kappalab.errors import UndefinedCoefficientWarning

# Fixed seeds (derandomize) and no example database: the same examples on every run.
PROPERTY = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
FEW = settings(PROPERTY, max_examples=20)


# ---------------------------------------------------------------------- strategies
@st.composite
def tables(draw, min_raters=2, max_raters=5, min_items=3, max_items=30, missing=True):
    """items × raters float table of integer codes 0..K-1 (K in 2..5), NaN = missing."""
    n_categories = draw(st.integers(2, 5))
    n_raters = draw(st.integers(min_raters, max_raters))
    n_items = draw(st.integers(min_items, max_items))
    codes = draw(arrays(np.int64, (n_items, n_raters), elements=st.integers(0, n_categories - 1)))
    x = codes.astype(float)
    if missing:
        # about a quarter of the cells missing (all-False masks are common too)
        mask = draw(arrays(np.bool_, (n_items, n_raters),
                           elements=st.sampled_from([False, False, False, True])))
        x[mask] = np.nan
    assume(np.isfinite(x).any())
    return x


def two_rater_tables(missing=True):
    return tables(min_raters=2, max_raters=2, missing=missing).filter(
        lambda x: np.isfinite(x).any(axis=0).all()  # both raters have annotations
    )


@st.composite
def perfect_tables(draw, missing=True):
    """Every rater gives the item's value; the pairable items use at least two categories."""
    n_categories = draw(st.integers(2, 5))
    n_raters = draw(st.integers(2, 5))
    n_items = draw(st.integers(3, 30))
    truth = draw(arrays(np.int64, n_items, elements=st.integers(0, n_categories - 1)))
    x = np.repeat(truth[:, None], n_raters, axis=1).astype(float)
    if missing:
        mask = draw(arrays(np.bool_, x.shape, elements=st.sampled_from([False, False, True])))
        x[mask] = np.nan
    pairable = np.isfinite(x).sum(axis=1) >= 2
    assume(np.unique(truth[pairable]).size >= 2)
    return x


# ---------------------------------------------------------------------- helpers
def quiet(fn, *args, **kwargs):
    """Call a coefficient, silencing only UndefinedCoefficientWarning (NaN results).

    Any other RuntimeWarning raised inside kappalab stays an error (pyproject filterwarnings).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedCoefficientWarning)
        return fn(*args, **kwargs)


def value(fn, data, **kwargs) -> float:
    return float(quiet(fn, data, **kwargs))


def same(a, b, rtol=1e-9, atol=1e-9) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.all((np.isnan(a) & np.isnan(b)) | np.isclose(a, b, rtol=rtol, atol=atol)))


def assert_same(a, b, what="", rtol=1e-9, atol=1e-9):
    assert same(a, b, rtol, atol), f"{what}: {a!r} != {b!r}"


def relabel(x: np.ndarray, labels) -> np.ndarray:
    """Map integer codes through ``labels`` (code k -> labels[k]); NaN stays missing."""
    present = np.isfinite(x)
    labels = list(labels)
    if all(isinstance(v, str) for v in labels):
        out = np.full(x.shape, np.nan, dtype=object)
    else:
        out = np.full(x.shape, np.nan, dtype=float)
    out[present] = [labels[int(v)] for v in x[present]]
    return out


NOMINAL = [
    ("alpha nominal", kl.krippendorff_alpha, {"level": "nominal"}),
    ("fleiss", kl.fleiss_kappa, {}),
    ("conger", kl.conger_kappa, {}),
    ("gwet AC1", kl.gwet_ac, {}),
    ("brennan-prediger", kl.brennan_prediger, {}),
    ("percent agreement", kl.percent_agreement, {}),
    ("light", kl.light_kappa, {}),
    ("iota nominal", kl.janson_olsson_iota, {"level": "nominal"}),
]

# every multi-rater coefficient, with its levels / weights (categories are 0..4, so ratio,
# linear and quadratic apply)
ALL_MULTI = NOMINAL + [
    ("alpha ordinal", kl.krippendorff_alpha, {"level": "ordinal"}),
    ("alpha interval", kl.krippendorff_alpha, {"level": "interval"}),
    ("alpha ratio", kl.krippendorff_alpha, {"level": "ratio"}),
    ("fleiss linear", kl.fleiss_kappa, {"weights": "linear"}),
    ("fleiss quadratic", kl.fleiss_kappa, {"weights": "quadratic"}),
    ("conger quadratic", kl.conger_kappa, {"weights": "quadratic"}),
    ("gwet AC2 quadratic", kl.gwet_ac, {"weights": "quadratic"}),
    ("brennan-prediger linear", kl.brennan_prediger, {"weights": "linear"}),
    ("percent agreement quadratic", kl.percent_agreement, {"weights": "quadratic"}),
    ("light quadratic", kl.light_kappa, {"weights": "quadratic"}),
    ("iota interval", kl.janson_olsson_iota, {"level": "interval"}),
]

TWO_RATER = [
    ("cohen", kl.cohen_kappa, {}),
    ("cohen quadratic", kl.cohen_kappa, {"weights": "quadratic"}),
    ("scott", kl.scott_pi, {}),
    ("bennett", kl.bennett_s, {}),
]


def components(est):
    return (est.value, est.observed, est.expected)


# ---------------------------------------------------------------------- invariances
@pytest.mark.slow
@PROPERTY
@given(x=tables(), data=st.data())
def test_nominal_coefficients_ignore_category_labels(x, data):
    """Nominal coefficients depend only on which annotations are equal, not on the labels."""
    n_codes = int(np.nanmax(x)) + 1
    perm = data.draw(st.permutations(range(n_codes)), label="perm")
    kind = data.draw(st.sampled_from(["ints", "spread", "strings"]), label="kind")
    if kind == "ints":
        labels = perm
    elif kind == "spread":  # other numbers entirely, still a bijection
        labels = [17 * p - 40 for p in perm]
    else:
        labels = [f"cat-{p}" for p in perm]
    y = relabel(x, labels)
    for name, fn, kw in NOMINAL:
        before = components(quiet(fn, x, **kw))
        after = components(quiet(fn, y, **kw))
        assert_same(before, after, f"{name} ({kind} relabelling {labels})")


@pytest.mark.slow
@FEW
@given(x=tables(), data=st.data())
def test_invariant_to_order_of_items_and_raters(x, data):
    rows = np.array(data.draw(st.permutations(range(x.shape[0])), label="rows"))
    cols = np.array(data.draw(st.permutations(range(x.shape[1])), label="cols"))
    for name, fn, kw in ALL_MULTI:
        base = components(quiet(fn, x, **kw))
        assert_same(base, components(quiet(fn, x[rows], **kw)), f"{name}, items permuted")
        assert_same(base, components(quiet(fn, x[:, cols], **kw)), f"{name}, raters permuted")
        assert_same(base, components(quiet(fn, x[rows][:, cols], **kw)), f"{name}, both")


@pytest.mark.slow
@PROPERTY
@given(x=two_rater_tables(), data=st.data())
def test_two_rater_coefficients_invariant_to_order(x, data):
    rows = np.array(data.draw(st.permutations(range(x.shape[0])), label="rows"))
    for name, fn, kw in TWO_RATER:
        base = components(quiet(fn, x, **kw))
        assert_same(base, components(quiet(fn, x[rows], **kw)), f"{name}, items permuted")
        assert_same(base, components(quiet(fn, x[:, ::-1], **kw)), f"{name}, raters swapped")
        # the two label sequences given separately
        assert_same(base, components(quiet(fn, x[:, 1], x[:, 0], **kw)), f"{name}, (y, x)")


@pytest.mark.slow
@PROPERTY
@given(x=tables())
def test_values_at_most_one_and_percent_agreement_in_unit_interval(x):
    for name, fn, kw in ALL_MULTI:
        v = value(fn, x, **kw)
        if math.isfinite(v):
            assert v <= 1 + 1e-12, f"{name} = {v}"
    for kw in ({}, {"weights": "linear"}, {"weights": "quadratic"}):
        p = value(kl.percent_agreement, x, **kw)
        if math.isfinite(p):
            assert -1e-12 <= p <= 1 + 1e-12, f"percent agreement {kw} = {p}"


# ---------------------------------------------------------------------- identities
def brute_force_iota(x: np.ndarray, distance) -> float:
    """Janson–Olsson ι on complete data, straight from Wong et al. (2021), eqs 1–5.

    d_o = [n C(b,2)]⁻¹ Σ_{r<s} Σ_i D(x_ri, x_si);
    d_e = [n² C(b,2)]⁻¹ Σ_{r<s} Σ_{i,j} D(x_ri, x_sj);
    ι = 1 − d_o/d_e.  Plain loops over rater pairs, every (i, j) product materialised.
    """
    n, b = x.shape
    d_o = d_e = 0.0
    for r in range(b):
        for s in range(r + 1, b):
            d_o += distance(x[:, r], x[:, s]).sum()
            d_e += distance(x[:, r][:, None], x[:, s][None, :]).sum()
    pairs = b * (b - 1) / 2
    d_o /= n * pairs
    d_e /= n * n * pairs
    return 1.0 - d_o / d_e if d_e > 0 else math.nan


@PROPERTY
@given(x=tables())
def test_iota_equals_conger_for_nominal_data(x):
    """ι (any distance, raters distinct) reduces to Conger's κ for the nominal distance,
    with or without missing annotations (both use each rater's own distribution)."""
    iota = quiet(kl.janson_olsson_iota, x, level="nominal")
    conger = quiet(kl.conger_kappa, x)
    assert_same(components(iota), components(conger), "iota vs conger")


@PROPERTY
@given(x=tables(missing=False))
def test_iota_matches_brute_force_definition_on_complete_data(x):
    nominal = lambda a, b: (a != b).astype(float)  # noqa: E731
    interval = lambda a, b: (a - b) ** 2  # noqa: E731
    assert_same(value(kl.janson_olsson_iota, x, level="nominal"),
                brute_force_iota(x, nominal), "iota nominal vs eqs 1-5")
    assert_same(value(kl.conger_kappa, x), brute_force_iota(x, nominal), "conger vs eqs 1-5")
    assert_same(value(kl.janson_olsson_iota, x, level="interval"),
                brute_force_iota(x, interval), "iota interval vs eqs 1-5")


@PROPERTY
@given(x=two_rater_tables())
def test_iota_equals_cohen_for_two_raters(x):
    for level, weights in (("nominal", None), ("interval", "quadratic")):
        iota = value(kl.janson_olsson_iota, x, level=level)
        cohen = value(kl.cohen_kappa, x, weights=weights)
        # interval δ = (c−k)² and quadratic weights 1 − (c−k)²/span² differ only in scale
        assert_same(iota, cohen, f"iota {level} vs cohen {weights}")


@FEW
@given(x=two_rater_tables(missing=False))
def test_cohen_matches_scikit_learn(x):
    from sklearn.metrics import cohen_kappa_score

    a, b = x[:, 0].astype(int), x[:, 1].astype(int)
    # labels=0..max: sklearn's weights use label positions, kappalab's the values; with
    # every integer from 0 to max listed, position == value.
    labels = np.arange(int(x.max()) + 1)
    assume(np.unique(x).size >= 2)
    for weights in (None, "linear", "quadratic"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = cohen_kappa_score(a, b, labels=labels, weights=weights)
        assert_same(value(kl.cohen_kappa, x, weights=weights), expected, f"cohen {weights}")


def textbook_scott_pi(a: np.ndarray, b: np.ndarray) -> float:
    """Scott (1955): π_k = (n_1k + n_2k)/(2n), P_o = share of items agreed, P_e = Σ π_k²."""
    cats = np.union1d(a, b)
    pi = np.array([((a == c).sum() + (b == c).sum()) / (2 * a.size) for c in cats])
    p_o = float((a == b).mean())
    p_e = float((pi**2).sum())
    return (p_o - p_e) / (1 - p_e) if p_e < 1 else math.nan


@PROPERTY
@given(x=two_rater_tables(missing=False))
def test_fleiss_equals_scott_for_two_complete_raters(x):
    fleiss = value(kl.fleiss_kappa, x)
    scott = value(kl.scott_pi, x)
    assert_same(fleiss, scott, "fleiss vs scott_pi")
    assert_same(scott, textbook_scott_pi(x[:, 0], x[:, 1]), "scott_pi vs textbook formula")


@PROPERTY
@given(x=perfect_tables(missing=True))
def test_perfect_agreement_gives_one(x):
    for name, fn, kw in ALL_MULTI:
        if fn is kl.light_kappa:
            continue  # with missing cells a pair's κ can be undefined: complete data below
        assert_same(value(fn, x, **kw), 1.0, name, atol=1e-12)
    if x.shape[1] == 2:
        for name, fn, kw in TWO_RATER:
            assert_same(value(fn, x, **kw), 1.0, name, atol=1e-12)


@pytest.mark.slow
@PROPERTY
@given(x=perfect_tables(missing=False))
def test_perfect_agreement_gives_one_complete(x):
    for name, fn, kw in ALL_MULTI:
        assert_same(value(fn, x, **kw), 1.0, name, atol=1e-12)


# ---------------------------------------------------------------------- O(N) moments = counts
MOMENT_CASES = [
    # (name, how to resolve the distance, chance, item weighting)
    ("alpha interval", lambda ann: distance_for(ann, "interval"), "pooled", "annotation"),
    ("iota interval", lambda ann: distance_for(ann, "interval"), "rater_marginal", "item"),
    ("fleiss quadratic", lambda ann: weights_for(ann, "quadratic"), "item_marginal", "item"),
    ("percent agreement quadratic", lambda ann: weights_for(ann, "quadratic"), "none", "item"),
]
PART_KEYS = ("value", "observed", "expected", "observed_disagreement", "expected_disagreement")


@PROPERTY
@given(x=tables(), scale=st.integers(1, 40), shift=st.integers(-500, 500))
def test_interval_moment_path_equals_count_path(x, scale, shift):
    ann = kl.Annotations.from_wide(x * scale + shift)  # integer values, possibly large
    for name, resolve, chance, weighting in MOMENT_CASES:
        dis = resolve(ann)
        fast = ChanceCorrectedAgreement(ann, dis, chance=chance, item_weighting=weighting,
                                        name="x", use_moments=True)
        slow = ChanceCorrectedAgreement(ann, dis, chance=chance, item_weighting=weighting,
                                        name="x", use_moments=False)
        a, b = fast.combine(fast.totals()), slow.combine(slow.totals())
        for key in PART_KEYS:
            assert_same(a[key], b[key], f"{name}: {key}", rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------- the spine protocol
def spine_cores(ann):
    """Every chance model × item weighting × distance, plus Light's κ."""
    nominal = distance_for(ann, "nominal")
    interval = distance_for(ann, "interval")
    quadratic = weights_for(ann, "quadratic")
    for chance in CHANCE_MODELS:
        for weighting in ("item", "annotation"):
            for dis in (nominal, interval, quadratic):
                yield (f"{chance}/{weighting}/{dis.name}",
                       ChanceCorrectedAgreement(ann, dis, chance=chance,
                                                item_weighting=weighting, name="x"))
    yield "light", PairwiseMeanKappa(ann)
    yield "light quadratic", PairwiseMeanKappa(ann, "quadratic")


def summed_stats(core) -> np.ndarray:
    return np.asarray(core.item_stats().sum(axis=0), dtype=float).ravel()


def weighted_stats(core, W: np.ndarray) -> np.ndarray:
    """W @ item_stats for a B × items weight matrix (item_stats may be scipy-sparse)."""
    S = core.item_stats()
    return np.asarray((S.T @ W.T).T, dtype=float)


def combine_keys(parts):
    return [k for k in ("value", "observed", "expected", "observed_disagreement",
                        "expected_disagreement") if k in parts]


@pytest.mark.slow
@FEW
@given(x=tables())
def test_spine_totals_equal_summed_item_stats_and_stacks_work(x):
    ann = kl.Annotations.from_wide(x)
    for name, core in spine_cores(ann):
        t = core.totals()
        assert t.ndim == 1
        direct = core.combine(t)
        via_stats = core.combine(summed_stats(core))
        stacked = core.combine(np.stack([t, t]))
        for key in combine_keys(direct):
            single = np.asarray(direct[key], dtype=float)
            assert single.size == 1, f"{name}: {key} has shape {single.shape}"
            assert_same(via_stats[key], single, f"{name}: {key}, Σ item_stats", rtol=1e-12)
            rows = np.asarray(stacked[key], dtype=float)
            assert rows.shape == (2,), f"{name}: {key} of a 2 × s stack has shape {rows.shape}"
            assert_same(rows[0], single, f"{name}: {key}, stack row 0", rtol=1e-12)
            assert_same(rows[1], single, f"{name}: {key}, stack row 1", rtol=1e-12)


@pytest.mark.slow
@FEW
@given(x=tables(), data=st.data())
def test_spine_reweighting_items_equals_repeating_them(x, data):
    """combine(W @ item_stats) is the coefficient of the table with item i repeated W_bi times
    (the bootstrap identity), with categories held fixed so K and the distances don't move."""
    n_items = x.shape[0]
    W = np.array(data.draw(st.lists(
        st.lists(st.integers(0, 3), min_size=n_items, max_size=n_items), min_size=2, max_size=3
    ), label="W"), dtype=float)
    assume((W.sum(axis=1) > 0).all())
    ann = kl.Annotations.from_wide(x)
    categories = list(ann.categories)
    repeated = []
    for w in W:
        xw = np.repeat(x, w.astype(int), axis=0)
        assume(np.isfinite(xw).any())
        repeated.append(kl.Annotations.from_wide(xw, categories=categories))
    repeated_cores = [dict(spine_cores(ann_b)) for ann_b in repeated]
    for (name, core) in spine_cores(ann):
        parts = core.combine(weighted_stats(core, W))
        for b, cores_b in enumerate(repeated_cores):
            other = cores_b[name]
            want = other.combine(other.totals())
            for key in combine_keys(want):
                assert_same(np.asarray(parts[key])[b], want[key], f"{name}: {key}, row {b}",
                            rtol=1e-10, atol=1e-10)


DUPLICATION_INVARIANT = [
    ("fleiss", kl.fleiss_kappa, {}),
    ("fleiss quadratic", kl.fleiss_kappa, {"weights": "quadratic"}),
    ("conger", kl.conger_kappa, {}),
    ("gwet AC1", kl.gwet_ac, {}),
    ("gwet AC2", kl.gwet_ac, {"weights": "quadratic"}),
    ("brennan-prediger", kl.brennan_prediger, {}),
    ("percent agreement", kl.percent_agreement, {}),
    ("light", kl.light_kappa, {}),
    ("iota interval", kl.janson_olsson_iota, {"level": "interval"}),
]


@pytest.mark.slow
@FEW
@given(x=tables())
def test_duplicating_every_item_leaves_item_weighted_coefficients_unchanged(x):
    doubled = np.vstack([x, x])
    for name, fn, kw in DUPLICATION_INVARIANT:
        assert_same(components(quiet(fn, x, **kw)), components(quiet(fn, doubled, **kw)), name)
    # ...and equals the spine with every total doubled
    ann, ann2 = kl.Annotations.from_wide(x), kl.Annotations.from_wide(doubled)
    for (name, core), (_, core2) in zip(spine_cores(ann), spine_cores(ann2)):
        twice = core.combine(2 * core.totals())
        direct = core2.combine(core2.totals())
        for key in combine_keys(direct):
            assert_same(twice[key], direct[key], f"{name}: {key}", rtol=1e-10, atol=1e-12)


@PROPERTY
@given(x=tables())
def test_duplicating_every_item_changes_alpha_by_its_small_sample_factor(x):
    """α is not duplication-invariant: D_o is unchanged but D_e = Nᵀ δ N/(n(n−1)) becomes
    (2N)ᵀ δ (2N)/(2n(2n−1)) = D_e · 2(n−1)/(2n−1), so 1 − α₂ = (1 − α)(2n−1)/(2(n−1)),
    n = pairable annotations."""
    est = quiet(kl.krippendorff_alpha, x, level="interval")
    est2 = quiet(kl.krippendorff_alpha, np.vstack([x, x]), level="interval")
    n = est.n_annotations
    assume(n >= 2 and math.isfinite(est.value))
    assert est2.n_annotations == 2 * n
    assert_same(1 - est2.value, (1 - est.value) * (2 * n - 1) / (2 * (n - 1)), "alpha doubled")


# ---------------------------------------------------------------------- Krippendorff α levels
@PROPERTY
@given(x=tables(), a=st.sampled_from([0.25, 0.5, 1.0, 2.0, 3.0, 7.5, 100.0]),
       b=st.integers(-1000, 1000))
def test_alpha_interval_is_invariant_to_affine_maps(x, a, b):
    """δ = (c − k)² scales by a² in both D_o and D_e and ignores shifts."""
    assert_same(value(kl.krippendorff_alpha, x, level="interval"),
                value(kl.krippendorff_alpha, a * x + b, level="interval"), f"x -> {a}x + {b}")


@PROPERTY
@given(x=tables(), a=st.sampled_from([0.5, 2.0, 3.0, 10.0]))
def test_alpha_ratio_is_invariant_to_scaling(x, a):
    """δ = ((c − k)/(c + k))² is scale-free (values are non-negative here)."""
    assert_same(value(kl.krippendorff_alpha, x, level="ratio"),
                value(kl.krippendorff_alpha, a * x, level="ratio"), f"x -> {a}x")


@PROPERTY
@given(x=tables())
def test_alpha_ordinal_depends_only_on_the_order_of_values(x):
    """Krippendorff's ordinal δ uses ranks and marginals only: any increasing map keeps α."""
    y = np.exp(x) ** 2 - 40.0  # strictly increasing, NaN stays NaN
    assert_same(value(kl.krippendorff_alpha, x, level="ordinal"),
                value(kl.krippendorff_alpha, y, level="ordinal"), "increasing map")


@PROPERTY
@given(x=tables(), data=st.data())
def test_alpha_nominal_is_invariant_to_any_relabelling(x, data):
    n_codes = int(np.nanmax(x)) + 1
    labels = data.draw(st.lists(st.text("abcxyz", min_size=1, max_size=4),
                                min_size=n_codes, max_size=n_codes, unique=True), label="labels")
    est, est2 = quiet(kl.krippendorff_alpha, x), quiet(kl.krippendorff_alpha, relabel(x, labels))
    assert_same(components(est), components(est2), f"relabelled to {labels}")
    assert_same(est.observed_disagreement, est2.observed_disagreement, "D_o")
    assert_same(est.expected_disagreement, est2.expected_disagreement, "D_e")


# ---------------------------------------------------------------------- hand-checked cases
def test_light_kappa_is_the_mean_of_pairwise_cohen_three_raters():
    from sklearn.metrics import cohen_kappa_score

    x = np.array([
        [1, 1, 2], [2, 2, 2], [3, 3, 3], [1, 2, 1], [2, 2, 3],
        [3, 1, 3], [1, 1, 1], [2, 3, 2], [3, 3, 2], [1, 1, 3],
    ])
    pairs = [(0, 1), (0, 2), (1, 2)]
    sk = np.mean([cohen_kappa_score(x[:, g], x[:, h]) for g, h in pairs])
    kl_pairs = np.mean([float(kl.cohen_kappa(x[:, [g, h]])) for g, h in pairs])
    assert float(kl.light_kappa(x)) == pytest.approx(sk, abs=1e-12)
    assert kl_pairs == pytest.approx(sk, abs=1e-12)
    est = kl.light_kappa(x)
    assert est.details["n_pairs"] == 3


def test_light_kappa_with_missing_cells_is_the_mean_of_pairwise_cohen():
    """With missing cells each pair's κ uses the items both annotated (P_o) and each rater's
    own annotations (marginals), which is what cohen_kappa of the two columns does."""
    nan = np.nan
    x = np.array([
        [1, 1, 2], [2, 2, nan], [3, nan, 3], [1, 2, 1], [nan, 2, 3],
        [3, 1, 3], [1, 1, nan], [2, 3, 2], [3, 3, 2], [1, nan, 3], [2, 2, 2],
    ])
    pairs = [(0, 1), (0, 2), (1, 2)]
    mean_pairs = np.mean([float(kl.cohen_kappa(x[:, [g, h]])) for g, h in pairs])
    assert float(kl.light_kappa(x)) == pytest.approx(mean_pairs, abs=1e-12)
    # pair (0, 1) by hand on its 8 shared items (rows 0,1,3,5,6,7,8,10):
    # A = 1 2 1 3 1 2 3 2, B = 1 2 2 1 1 3 3 2 -> agreements on 5 of 8: P_o = 5/8.
    # Marginals use all of a rater's annotations: A (10 annotations) has 1:4, 2:3, 3:3;
    # B (9 annotations) has 1:3, 2:4, 3:2. P_e = (4·3 + 3·4 + 3·2)/(10·9) = 30/90 = 1/3.
    # κ = (5/8 − 1/3)/(1 − 1/3) = (7/24)/(2/3) = 7/16.
    assert float(kl.cohen_kappa(x[:, [0, 1]])) == pytest.approx(7 / 16, abs=1e-12)


def test_two_raters_by_hand():
    # Ten items, two raters, categories a/b.  Table (rows = rater A, columns = rater B):
    #            B=a  B=b
    #     A=a     4    2
    #     A=b     1    3
    # P_o = 7/10.  A: a 6, b 4 -> (0.6, 0.4);  B: a 5, b 5 -> (0.5, 0.5).
    # Cohen:  P_e = 0.6·0.5 + 0.4·0.5 = 0.5,              κ = (0.7 − 0.5)/0.5 = 0.4
    # Scott:  π = (0.55, 0.45), P_e = 0.3025 + 0.2025 = 0.505, π = 0.195/0.495 = 13/33
    # Bennett S / Brennan–Prediger: P_e = 1/K = 0.5,       S = 0.4
    # Gwet AC1: P_e = Σ π_k(1 − π_k)/(K − 1) = 2·0.55·0.45 = 0.495, AC1 = 0.205/0.505 = 41/101
    # Krippendorff α nominal: n = 20 values, a 11, b 9; D_e = 2·11·9/(20·19) = 198/380;
    #   D_o = 3 disagreeing items × 2 ordered pairs /(m − 1 = 1) / n = 6/20 = 0.3;
    #   α = 1 − 0.3·380/198 = 1 − 114/198 = 14/33
    # Conger = Cohen, ι = Cohen, Light = Cohen (one pair), Fleiss = Scott, percent = 0.7.
    a = ["a"] * 4 + ["a"] * 2 + ["b"] * 1 + ["b"] * 3
    b = ["a"] * 4 + ["b"] * 2 + ["a"] * 1 + ["b"] * 3
    wide = np.column_stack([a, b]).astype(object)
    expected = {
        "cohen": 0.4, "scott": 13 / 33, "bennett": 0.4, "gwet": 41 / 101, "alpha": 14 / 33,
    }
    assert float(kl.cohen_kappa(a, b)) == pytest.approx(expected["cohen"], abs=1e-12)
    assert float(kl.cohen_kappa(wide)) == pytest.approx(expected["cohen"], abs=1e-12)
    assert float(kl.scott_pi(a, b)) == pytest.approx(expected["scott"], abs=1e-12)
    assert float(kl.bennett_s(a, b)) == pytest.approx(expected["bennett"], abs=1e-12)
    assert float(kl.brennan_prediger(wide)) == pytest.approx(expected["bennett"], abs=1e-12)
    assert float(kl.gwet_ac(wide)) == pytest.approx(expected["gwet"], abs=1e-12)
    assert float(kl.krippendorff_alpha(wide)) == pytest.approx(expected["alpha"], abs=1e-12)
    assert float(kl.conger_kappa(wide)) == pytest.approx(expected["cohen"], abs=1e-12)
    assert float(kl.janson_olsson_iota(wide)) == pytest.approx(expected["cohen"], abs=1e-12)
    assert float(kl.light_kappa(wide)) == pytest.approx(expected["cohen"], abs=1e-12)
    assert float(kl.fleiss_kappa(wide)) == pytest.approx(expected["scott"], abs=1e-12)
    assert float(kl.percent_agreement(wide)) == pytest.approx(0.7, abs=1e-12)
    est = kl.cohen_kappa(a, b)
    assert est.observed == pytest.approx(0.7, abs=1e-12)
    assert est.expected == pytest.approx(0.5, abs=1e-12)
    est = kl.krippendorff_alpha(wide)
    assert est.observed_disagreement == pytest.approx(0.3, abs=1e-12)
    assert est.expected_disagreement == pytest.approx(198 / 380, abs=1e-12)
    assert (est.n_items, est.n_annotations) == (10, 20)
