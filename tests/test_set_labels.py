"""Set-valued (multi-label) annotations and the MASI and Jaccard distances.

Oracles: nltk's ``AnnotationTask.alpha`` and ``weighted_kappa`` with its ``masi_distance`` and
``jaccard_distance`` (nltk/metrics/agreement.py and distance.py), the MASI distance of
Passonneau (2006) written out below in exact fractions, hand arithmetic, brute-force sums
over pairs of annotations, and invariance under renaming the labels.

nltk's ``masi_distance`` weights a subset 2/3 and an overlap 1/3 exactly (earlier releases
used 0.67 and 0.33). The comparison of α runs nltk's own algorithm with the exact distance
written here (``masi_by_hand``), so it is exact whatever the release, and
:func:`test_nltk_masi_distance_is_exact` compares nltk's distance itself where it uses the
exact constants (and is skipped, naming the difference, where it does not).

nltk's ``masi_distance`` and ``jaccard_distance`` divide by zero on two empty sets (and its
alpha compares every value with itself), so nltk cannot take an empty-set annotation at all;
here two empty sets are the same set, d(∅, ∅) = 0, and the comparisons with empty sets give
nltk that convention (``with_empty_sets``).
"""

from __future__ import annotations

import random
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import jaccard_distance, masi_distance

import kappalab as kl
import kappalab.distances as distances
from kappalab import Annotations
from kappalab.annotations import as_annotations
from kappalab.distances import category_distance, jaccard, masi
from kappalab.errors import (
    DroppedAnnotationsWarning,
    InvalidParameterError,
    MissingValueError,
    UnknownCategoryError,
)

TOLERANCE = 1e-12
LABELS = ("act", "bio", "car", "dog", "eco")


# ---------------------------------------------------------------------- oracles
def masi_by_hand(a, b) -> Fraction:
    """Passonneau (2006): 1 − J·M in exact fractions; two empty sets are the same set."""
    a, b = set(a), set(b)
    if a == b:
        return Fraction(0)
    jaccard_index = Fraction(len(a & b), len(a | b))
    if a <= b or b <= a:
        monotonicity = Fraction(2, 3)
    elif a & b:
        monotonicity = Fraction(1, 3)
    else:
        monotonicity = Fraction(0)
    return 1 - jaccard_index * monotonicity


def jaccard_by_hand(a, b) -> Fraction:
    a, b = set(a), set(b)
    return Fraction(0) if not a | b else 1 - Fraction(len(a & b), len(a | b))


def exact_masi(a, b) -> float:
    return float(masi_by_hand(a, b))


def exact_jaccard(a, b) -> float:
    return float(jaccard_by_hand(a, b))


def random_sets(rng: random.Random, n_items: int, n_raters: int, missing: float = 0.0,
                empty: bool = False):
    """items × raters frozensets of LABELS (None = missing); related within an item."""
    table = []
    for _ in range(n_items):
        core = frozenset(rng.sample(LABELS, rng.randint(1, 2)))
        row = []
        for _ in range(n_raters):
            if rng.random() < missing:
                row.append(None)
                continue
            labels = set(core) if rng.random() < 0.6 else set()
            labels |= {one for one in LABELS if rng.random() < 0.2}
            if not labels and not empty:
                labels = {rng.choice(LABELS)}
            row.append(frozenset(labels))
        table.append(row)
    return table


def triples(table):
    return [(f"r{r}", f"i{i}", value) for i, row in enumerate(table)
            for r, value in enumerate(row) if value is not None]


# ---------------------------------------------------------------------- the distances
def test_masi_matrix_by_hand():
    """Every case of M, the empty set, and exact 2/3 and 1/3."""
    sets = [set(), {"a"}, {"a", "b"}, {"a", "c"}, {"d"}, {"a", "b"}]
    d = masi(sets)
    # ∅ vs ∅ = 0 (the same set); ∅ vs {a}: J = 0 → 1
    assert d[0, 0] == 0.0 and d[0, 1] == 1.0
    # {a} ⊂ {a, b}: J = 1/2, M = 2/3 → 1 − 1/3
    assert d[1, 2] == 1.0 - 0.5 * (2.0 / 3.0)
    # {a, b} vs {a, c}: J = 1/3, M = 1/3 → 1 − 1/9
    assert d[2, 3] == 1.0 - (1.0 / 3.0) * (1.0 / 3.0)
    # disjoint → 1; equal sets given twice → 0
    assert d[1, 4] == 1.0 and d[2, 5] == 0.0
    expected = np.array([[exact_masi(a, b) for b in sets] for a in sets])
    np.testing.assert_allclose(d, expected, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(d, d.T)


def test_jaccard_matrix_by_hand():
    sets = [set(), {"a"}, {"a", "b"}, {"b", "c"}, ("c",)]
    d = jaccard(sets)
    assert d[0, 0] == 0.0 and d[0, 1] == 1.0
    assert d[1, 2] == 0.5            # |{a}| / |{a, b}|
    assert d[2, 3] == 2.0 / 3.0      # |{a, c}| / |{a, b, c}|
    assert d[3, 4] == 0.5
    expected = np.array([[exact_jaccard(a, b) for b in sets] for a in sets])
    np.testing.assert_allclose(d, expected, rtol=0, atol=1e-15)


def test_nltk_masi_distance_is_exact():
    """The installed nltk weights a subset 2/3 and an overlap 1/3 exactly: its distance
    equals the exact one on every pair of random sets to the last bit."""
    if masi_distance({1, 2}, {1, 2, 3, 4}) != 1 - 0.5 * (2 / 3):
        pytest.skip("this nltk rounds MASI's weights to 0.67 and 0.33; the α comparisons "
                    "use the exact distance with nltk's algorithm")
    rng = random.Random(5)
    sets = [frozenset(one for one in LABELS if rng.random() < 0.4) or frozenset({"act"})
            for _ in range(40)]
    ours = masi(sets)
    theirs = np.array([[masi_distance(a, b) for b in sets] for a in sets])
    np.testing.assert_array_equal(ours, theirs)
    theirs = np.array([[jaccard_distance(a, b) for b in sets] for a in sets])
    np.testing.assert_array_equal(jaccard(sets), theirs)


def _many_sets(rng: random.Random, n_labels: int, largest: int, count: int) -> list:
    """Up to ``count`` distinct sets (some empty, some lists with repeats) of up to
    ``largest`` of ``n_labels`` labels (numbers or strings)."""
    names = list(range(n_labels)) if rng.random() < 0.5 else [f"x{k}" for k in range(n_labels)]
    sets = {frozenset(rng.sample(names, rng.randint(0, min(largest, n_labels))))
            for _ in range(count)}
    out: list = sorted(sets, key=lambda one: sorted(map(str, one)))
    out += [list(one) + list(one)[:1] for one in out[:3]]  # the same sets again, as lists
    return out


@pytest.mark.parametrize("paths", [{}, {"MASK_WORDS": 0}, {"TABLE_ENTRIES": 0},
                                   {"MASK_WORDS": 0, "TABLE_ENTRIES": 0}, {"BLOCK_ROWS": 7}])
def test_set_matrices_equal_exact_fractions_on_every_path(monkeypatch, paths):
    """The K × K MASI and Jaccard matrices, whether the intersections are counted on bit masks
    (one or several 64-bit words) or by the sparse incidence product, and whether the distance
    is read from its table over (|A|, |B|, |A ∩ B|) or computed pair by pair, in blocks of
    rows: each entry is Passonneau's formula in exact fractions (to the last bit but one)."""
    for name, value in paths.items():
        monkeypatch.setattr(distances, name, value)
    rng = random.Random(21)
    for n_labels, largest, count in ((1, 1, 3), (5, 5, 40), (20, 4, 120), (64, 3, 60),
                                     (65, 6, 60), (300, 12, 50), (700, 9, 40)):
        sets = _many_sets(rng, n_labels, largest, count)
        for ours, oracle in ((masi, exact_masi), (jaccard, exact_jaccard)):
            expected = np.array([[oracle(a, b) for b in sets] for a in sets])
            got = ours(sets)
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)
            np.testing.assert_array_equal(got, got.T)
    assert masi([]).shape == (0, 0) and jaccard([set(), set()]).tolist() == [[0.0, 0.0]] * 2


def test_alpha_over_many_sets_pair_form_equals_dense_product(monkeypatch):
    """Beyond PAIR_FORM_CATEGORIES categories the within-item disagreement is summed over the
    pairs of each item's counts: the same α (and its jackknife SE) as the dense product, and
    nltk's α, on data with missing annotations and items with one annotation."""
    from kappalab.coefficients import multirater
    rng = random.Random(23)
    labels = [f"l{k}" for k in range(12)]
    table = []
    for _ in range(120):
        core = set(rng.sample(labels, 2))
        row = []
        for _ in range(4):
            if rng.random() < 0.25:
                row.append(None)
                continue
            picked = {one for one in core if rng.random() < 0.7}
            picked |= {one for one in labels if rng.random() < 0.1}
            row.append(frozenset(picked or {rng.choice(labels)}))
        table.append(row)
    table.append([frozenset({"l0"}), None, None, None])  # one annotation: not pairable
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedAnnotationsWarning)
        ann = as_annotations(pd.DataFrame(triples(table), columns=["rater", "item", "value"]))
    assert ann.n_categories > multirater.PAIR_FORM_CATEGORIES
    for level, oracle in (("masi", exact_masi), ("jaccard", exact_jaccard)):
        pairs = kl.krippendorff_alpha(ann, level=level, ci="jackknife")
        monkeypatch.setattr(multirater, "PAIR_FORM_CATEGORIES", 10**9)
        dense = kl.krippendorff_alpha(ann, level=level, ci="jackknife")
        monkeypatch.undo()
        assert abs(pairs.value - dense.value) < TOLERANCE
        assert abs(pairs.se - dense.se) < TOLERANCE
        theirs = AnnotationTask(data=triples(table), distance=oracle).alpha()
        assert abs(pairs.value - theirs) < TOLERANCE, (level, pairs.value, theirs)


# ---------------------------------------------------------------------- against nltk
def _compare_alpha(missing: float) -> dict[str, float]:
    worst = {"masi": 0.0, "jaccard": 0.0, "masi (nltk's distance)": 0.0}
    exact_nltk = masi_distance({1, 2}, {1, 2, 3, 4}) == 1 - 0.5 * (2 / 3)
    for seed in range(30):
        rng = random.Random(seed)
        table = random_sets(rng, rng.randint(4, 40), rng.randint(2, 6), missing=missing)
        data = triples(table)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DroppedAnnotationsWarning)
            ann = as_annotations(pd.DataFrame(data, columns=["rater", "item", "value"]))
        for level, oracle in (("masi", exact_masi), ("jaccard", jaccard_distance)):
            ours = kl.krippendorff_alpha(ann, level=level).value
            theirs = AnnotationTask(data=data, distance=oracle).alpha()
            worst[level] = max(worst[level], abs(ours - theirs))
        if exact_nltk:
            theirs = AnnotationTask(data=data, distance=masi_distance).alpha()
            ours = kl.krippendorff_alpha(ann, level="masi").value
            worst["masi (nltk's distance)"] = max(worst["masi (nltk's distance)"],
                                                  abs(ours - theirs))
    return worst


def test_alpha_equals_nltk_on_complete_data():
    """α with level='masi'/'jaccard' is nltk's AnnotationTask.alpha with masi_distance /
    jaccard_distance, the distance itself being a pair's disagreement (δ², not squared)."""
    worst = _compare_alpha(missing=0.0)
    assert max(worst.values()) < TOLERANCE, worst


def test_alpha_equals_nltk_with_missing_annotations():
    """nltk's alpha drops items with fewer than two annotations, as Krippendorff's α does."""
    worst = _compare_alpha(missing=0.3)
    assert max(worst.values()) < TOLERANCE, worst


def with_empty_sets(distance):
    """nltk's distance with d(∅, ∅) = 0 (nltk divides by zero there)."""
    return lambda a, b: 0.0 if not a and not b else distance(a, b)


def test_alpha_equals_nltk_with_empty_sets():
    with pytest.raises(ZeroDivisionError):
        masi_distance(frozenset(), frozenset())
    for seed in range(15):
        rng = random.Random(300 + seed)
        table = random_sets(rng, rng.randint(4, 30), rng.randint(2, 5), missing=0.2,
                            empty=True)
        data = triples(table)
        for level, distance in (("masi", masi_distance), ("jaccard", jaccard_distance)):
            if level == "masi" and masi_distance({1, 2}, {1, 2, 3, 4}) != 1 - 0.5 * (2 / 3):
                distance = exact_masi
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ours = kl.krippendorff_alpha(table, level=level).value
            theirs = AnnotationTask(data=data, distance=with_empty_sets(distance)).alpha()
            assert abs(ours - theirs) < TOLERANCE, (seed, level, ours, theirs)


def test_cohen_weighted_kappa_equals_nltk():
    """Cohen's κ with weights='masi' (w = 1 − d) is nltk's weighted_kappa with the MASI
    distance (Cohen 1968: 1 − Σ d p_observed / Σ d p_chance)."""
    for seed in range(15):
        rng = random.Random(100 + seed)
        table = random_sets(rng, rng.randint(5, 40), 2)
        data = triples(table)
        for weights, oracle in (("masi", exact_masi), ("jaccard", exact_jaccard)):
            ours = kl.cohen_kappa(table, weights=weights).value
            theirs = AnnotationTask(data=data, distance=oracle).weighted_kappa()
            assert abs(ours - theirs) < TOLERANCE, (seed, weights, ours, theirs)


# ---------------------------------------------------------------------- by hand
def test_alpha_two_items_by_hand():
    """Item 1: {a} and {a, b}; item 2: {c} and {c}. n = 4 pairable values.

    MASI: d({a}, {a, b}) = 1 − (1/2)(2/3) = 2/3; d with {c} is 1 (disjoint).
    D_o = (1/n) Σ_i Σ_{r≠s} d / (m_i − 1) = (2 · 2/3) / 4 = 1/3.
    D_e = Σ_{ordered pairs of the 4 values} d / (n(n − 1)): the unordered pairs give
    2/3 + 4 · 1 + 0 = 14/3, ordered 28/3, over 12: 7/9. α = 1 − (1/3)/(7/9) = 4/7.
    Jaccard: d({a}, {a, b}) = 1/2, D_o = 1/4, D_e = 2 (1/2 + 4)/12 = 3/4, α = 2/3.
    """
    data = [[{"a"}, {"a", "b"}], [{"c"}, {"c"}]]
    assert kl.krippendorff_alpha(data, level="masi").value == pytest.approx(4 / 7, abs=1e-15)
    assert kl.krippendorff_alpha(data, level="jaccard").value == pytest.approx(2 / 3,
                                                                               abs=1e-15)
    # the exact-set (nominal) distance: D_o = 2/4, D_e = (2 · (1 + 4))/12 = 5/6, α = 2/5
    assert kl.krippendorff_alpha(data, level="nominal").value == pytest.approx(2 / 5,
                                                                               abs=1e-15)


def test_empty_set_is_an_annotation():
    """Item 1: ∅ and ∅ (agree, d = 0); item 2: ∅ and {a} (d = 1). n = 4 values: ∅ × 3, {a}.
    D_o = (0 + 2 · 1)/4 = 1/2; D_e = 2 · 3 · 1 / 12 = 1/2 (∅–{a} pairs): α = 0."""
    data = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["u", "v", "u", "v"],
                         "value": ["", "", "", "a"]})
    ann = Annotations.from_long(data, sep=";")
    assert list(ann.categories) == [frozenset(), frozenset({"a"})]
    assert ann.count_matrix.tolist() == [[2, 0], [1, 1]]
    assert kl.krippendorff_alpha(ann, level="masi").value == pytest.approx(0.0, abs=1e-15)


def test_weighted_kappa_family_uses_one_minus_distance():
    """weights='masi' is the agreement matrix 1 − MASI, the same as that matrix given."""
    rng = random.Random(7)
    table = random_sets(rng, 30, 4, missing=0.2, empty=True)
    ann = as_annotations(table)
    hand = np.array([[exact_masi(a, b) for b in ann.categories] for a in ann.categories])
    for estimator in (kl.fleiss_kappa, kl.conger_kappa, kl.gwet_ac, kl.brennan_prediger,
                      kl.percent_agreement):
        named = estimator(ann, weights="masi").value
        given_matrix = estimator(ann, weights=1.0 - hand).value
        assert named == pytest.approx(given_matrix, abs=TOLERANCE), estimator.__name__
    resolved = category_distance("jaccard", ann.categories, kind="weights", values=None)
    assert resolved.scale == 1.0 and resolved.name == "jaccard"
    np.testing.assert_allclose(
        resolved.weights,
        1.0 - np.array([[exact_jaccard(a, b) for b in ann.categories] for a in ann.categories]),
        rtol=0, atol=1e-15)


def test_cross_kappa_masi_brute_force():
    """κx with level='masi' against Wong et al.'s (2021) double sums over every pair of
    annotations: d_o over the pairs within common items, weighted (R_i + S_i)/(R + S), d_e
    over every (x, y) pair of the common items."""
    for seed in range(8):
        rng = random.Random(200 + seed)
        x = random_sets(rng, 15, 3, missing=0.2, empty=True)
        y = random_sets(rng, 15, 2, missing=0.2, empty=True)
        present = [i for i in range(15) if any(v is not None for v in x[i])
                   and any(v is not None for v in y[i])]
        xs = {i: [v for v in x[i] if v is not None] for i in present}
        ys = {i: [v for v in y[i] if v is not None] for i in present}
        R, S = sum(len(xs[i]) for i in present), sum(len(ys[i]) for i in present)
        d_o = sum((len(xs[i]) + len(ys[i])) / (R + S)
                  * sum(masi_by_hand(a, b) for a in xs[i] for b in ys[i])
                  / (len(xs[i]) * len(ys[i])) for i in present)
        d_e = sum(masi_by_hand(a, b) for i in present for j in present
                  for a in xs[i] for b in ys[j]) / (R * S)
        expected = 1 - float(d_o) / float(d_e)
        ours = kl.cross_kappa(x, y, level="masi").value
        assert ours == pytest.approx(expected, abs=TOLERANCE), seed


# ---------------------------------------------------------------------- relabelling
@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 10**6), names=st.permutations(range(5)),
       prefix=st.sampled_from(["", "tag-", "Z"]))
def test_alpha_invariant_to_renaming_labels(seed, names, prefix):
    """A bijection on the label names changes the sets' names (and the order of the
    categories) but not their intersections: α is unchanged."""
    rng = random.Random(seed)
    table = random_sets(rng, rng.randint(3, 20), rng.randint(2, 4), missing=0.2, empty=True)
    rename = {one: f"{prefix}{names[k]}" for k, one in enumerate(LABELS)}
    renamed = [[None if v is None else frozenset(rename[one] for one in v) for v in row]
               for row in table]
    for level in ("masi", "jaccard"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            before = kl.krippendorff_alpha(table, level=level).value
            after = kl.krippendorff_alpha(renamed, level=level).value
        assert (np.isnan(before) and np.isnan(after)) or abs(before - after) < TOLERANCE


# ---------------------------------------------------------------------- reading the sets
def _long(values):
    return pd.DataFrame({"item": [1, 1, 1, 2, 2, 3], "rater": ["u", "v", "w", "u", "v", "u"],
                         "value": values})


FORMS = {
    "sets": [{"a", "b"}, {"b"}, set(), {"c", "a"}, {"a", "c"}, {"b"}],
    "frozensets": [frozenset({"a", "b"}), frozenset({"b"}), frozenset(), frozenset({"a", "c"}),
                   frozenset({"c", "a"}), frozenset({"b"})],
    "lists": [["b", "a"], ["b"], [], ["c", "a"], ["a", "c", "a"], ["b"]],
    "tuples": [("a", "b"), ("b",), (), ("a", "c"), ("c", "a"), ("b",)],
}


def test_set_forms_give_identical_annotations():
    """Sets, frozensets, lists, tuples and strings split at sep= (with white space around the
    labels and in any order) are the same annotations: same categories, same codes."""
    reference = Annotations.from_long(_long(FORMS["sets"]))
    assert list(reference.categories) == [frozenset(), frozenset({"a", "b"}),
                                          frozenset({"a", "c"}), frozenset({"b"})]
    assert reference.count_matrix.tolist() == [[1, 1, 0, 1], [0, 0, 2, 0], [0, 0, 0, 1]]
    built = {name: Annotations.from_long(_long(values)) for name, values in FORMS.items()}
    built["sep"] = Annotations.from_long(_long(["a;b", "b", "", "c ; a", "a;c;", " b "]),
                                         sep=";")
    built["as_annotations sep"] = as_annotations(_long(["b|a", "b", "", "c|a", "a|c", "b"]),
                                                 sep="|")
    built["wide sets"] = Annotations.from_wide(
        [[{"a", "b"}, {"b"}, set()], [{"a", "c"}, {"c", "a"}, None], [{"b"}, None, None]])
    built["wide lists"] = Annotations.from_wide(
        [[["a", "b"], ["b"], []], [["a", "c"], ["c", "a"], None], [["b"], None, None]])
    built["wide sep"] = Annotations.from_wide(
        pd.DataFrame({"u": ["a,b", "a,c", "b"], "v": ["b", "c,a", None],
                      "w": ["", None, None]}), sep=",")
    for name, ann in built.items():
        assert list(ann.categories) == list(reference.categories), name
        assert ann.count_matrix.tolist() == reference.count_matrix.tolist(), name
        value = kl.krippendorff_alpha(ann, level="masi").value
        assert value == pytest.approx(kl.krippendorff_alpha(reference, level="masi").value,
                                      abs=1e-15), name


def test_missing_sets_are_dropped_and_labels_sorted():
    values = [{"b", "a"}, None, np.nan, ["a", "b"], "a;b", {"c"}]
    with pytest.warns(DroppedAnnotationsWarning, match="dropped 2 of 6 rows"):
        ann = Annotations.from_long(_long(values[:5] + [["c"]]), sep=";")
    assert ann.n_annotations == 4
    assert list(ann.categories) == [frozenset({"a", "b"}), frozenset({"c"})]


def test_categories_given_as_sets():
    ann = Annotations.from_long(_long(FORMS["lists"]),
                                categories=[["b"], [], ("a", "c"), {"a", "b"}, {"d"}])
    assert list(ann.categories) == [frozenset({"b"}), frozenset(), frozenset({"a", "c"}),
                                    frozenset({"a", "b"}), frozenset({"d"})]
    with pytest.raises(UnknownCategoryError, match="1 value.*not among categories"):
        Annotations.from_long(_long(FORMS["lists"]), categories=[["b"], [], ("a", "c")])


def test_bad_set_input():
    with pytest.raises(MissingValueError, match="holds a missing label"):
        Annotations.from_long(_long([["a", None], ["b"], [], ["a"], ["a"], ["b"]]))
    with pytest.raises(InvalidParameterError, match="unhashable label"):
        Annotations.from_long(_long([["a", ["b"]], ["b"], [], ["a"], ["a"], ["b"]]))
    with pytest.raises(InvalidParameterError, match="sep= must be a non-empty string"):
        Annotations.from_long(_long(["a"] * 6), sep="")
    # an infinite value among sets of labels is refused as among other values
    frame = _long([frozenset({"a"}), frozenset({"b"}), float("inf"), frozenset(),
                   frozenset({"a"}), frozenset({"b"})])
    with pytest.raises(MissingValueError, match="1 value.s. are infinite"):
        Annotations.from_long(frame)
    ann = Annotations.from_long(_long(FORMS["sets"]))
    with pytest.raises(InvalidParameterError, match="already an Annotations"):
        as_annotations(ann, sep=";")
    with pytest.raises(InvalidParameterError, match="compares sets of labels, but category 'a'"):
        kl.krippendorff_alpha([["a", "b"], ["a", "a"]], level="masi")
    with pytest.raises(InvalidParameterError, match="unknown level 'masy'.*masi, jaccard"):
        kl.krippendorff_alpha(ann, level="masy")


def test_too_many_sets_refused_before_allocating(monkeypatch):
    """Beyond MAX_MATRIX_CATEGORIES distinct sets the K × K matrix is refused, naming K and
    its size, before anything is built (the incidence matrix is never reached)."""
    monkeypatch.setattr(distances, "MAX_MATRIX_CATEGORIES", 3)

    def no_incidence(*args, **kwargs):
        raise AssertionError("the incidence matrix was built before the refusal")

    monkeypatch.setattr(distances.sp, "csr_matrix", no_incidence)
    ann = Annotations.from_long(_long(FORMS["sets"]))  # 4 distinct sets
    for level in ("masi", "jaccard"):
        with pytest.raises(InvalidParameterError,
                           match=rf"the {level} distance over 4 distinct label sets would need "
                                 r"a 4 × 4 matrix .*refused above 3 distinct sets.*"
                                 r"level='nominal'"):
            kl.krippendorff_alpha(ann, level=level)
    with pytest.raises(InvalidParameterError, match="over 4 distinct label sets"):
        kl.fleiss_kappa(ann, weights="masi")
    with pytest.raises(InvalidParameterError, match="over 4 distinct label sets"):
        masi([{"a"}, {"b"}, {"c"}, {"d"}])
    # the exact-set (nominal) distance needs no matrix
    assert np.isfinite(kl.krippendorff_alpha(ann, level="nominal").value)


def test_sample_weight_repeats_items_with_set_distances():
    """An integer sample weight k is the item repeated k times, a weight 0 drops it (the
    spine's weighting, here with the MASI distance between sets)."""
    rng = random.Random(11)
    table = random_sets(rng, 12, 3, missing=0.2, empty=True)
    weights = [rng.randint(0, 3) for _ in table]
    repeated = [row for row, k in zip(table, weights) for _ in range(k)]
    for level in ("masi", "jaccard"):
        weighted = kl.krippendorff_alpha(table, level=level, sample_weight=weights).value
        assert weighted == pytest.approx(kl.krippendorff_alpha(repeated, level=level).value,
                                         abs=TOLERANCE)
    weighted = kl.fleiss_kappa(table, weights="masi", sample_weight=weights).value
    assert weighted == pytest.approx(kl.fleiss_kappa(repeated, weights="masi").value,
                                     abs=TOLERANCE)


def test_jackknife_replicates_are_alpha_without_each_item():
    """The jackknife's leave-one-out replicates, from the item statistics, against α
    recomputed on the data without each item (MASI)."""
    rng = random.Random(12)
    table = random_sets(rng, 10, 3)
    estimate = kl.krippendorff_alpha(table, level="masi", ci="jackknife")
    n = len(table)
    leave_one_out = np.array([kl.krippendorff_alpha(table[:i] + table[i + 1:],
                                                    level="masi").value for i in range(n)])
    mean = leave_one_out.mean()
    se = np.sqrt((n - 1) / n * ((leave_one_out - mean) ** 2).sum())
    assert estimate.se == pytest.approx(se, rel=1e-10)
