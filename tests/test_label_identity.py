"""One label identity rule for values, item ids and rater ids (docs/guide/data_layouts.md,
"Label identity").

Labels are of three types: numbers (Python and numpy integers and floats: one label when equal
as numbers, 1 and 1.0 alike), booleans (True is not 1) and text (one label when the same
string); labels of different types are never merged, and a :class:`LabelWarning` names two
labels that are kept apart although they are equal as text or as numbers. Complex values are
refused. The expected categories and counts are written out by hand, or found by brute force
(a dictionary keyed by type and value) in the property test.
"""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kappalab as kl
from kappalab.errors import (
    InvalidCountError,
    InvalidParameterError,
    LabelWarning,
    UnknownCategoryError,
)

A = kl.Annotations


def no_label_warning():
    context = warnings.catch_warnings()
    context.__enter__()
    warnings.simplefilter("error", LabelWarning)
    return context


# ---------------------------------------------------------------------- numbers and text
def test_number_and_its_text_are_two_labels_with_a_warning():
    # the two raters agree on every item as text, but rater 2's 1 is a number on item 3
    x = np.array([["1", "1"], ["2", "2"], ["1", 1], ["2", "2"], ["1", "1"]], dtype=object)
    with pytest.warns(LabelWarning, match=r"1 and '1'.*equal as text"):
        ann = A.from_wide(x)
    assert list(ann.categories) == [1, "1", "2"]   # numbers first, then text, each sorted
    assert ann.count_matrix.tolist() == [[0, 2, 0], [0, 0, 2], [1, 1, 0], [0, 0, 2], [0, 2, 0]]
    # as text throughout, every item is unanimous: α = 1 − 0/D_e = 1
    assert float(kl.krippendorff_alpha(x.astype(str))) == 1.0
    # kept apart, α is that of the table coded 1 → 0, '1' → 1, '2' → 2 (krippendorff package)
    coded = np.array([[1, 1], [2, 2], [1, 0], [2, 2], [1, 1]], dtype=float)
    expected = krippendorff.alpha(reliability_data=coded.T, level_of_measurement="nominal")
    with pytest.warns(LabelWarning):
        assert float(kl.krippendorff_alpha(x)) == pytest.approx(expected, abs=1e-12)


def test_texts_equal_as_numbers_are_two_labels_with_a_warning():
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
                       "value": ["1", "1.0", "2", "2"]})
    with pytest.warns(LabelWarning, match=r"'1' and '1.0'.*equal as numbers"):
        ann = A.from_long(df)
    assert list(ann.categories) == ["1", "1.0", "2"]


def test_number_and_float_text_equal_as_numbers():
    with pytest.warns(LabelWarning, match=r"1.5 and '1.5'"):
        ann = A.from_wide(np.array([[1.5, "1.5"], ["x", "x"]], dtype=object))
    assert list(ann.categories) == [1.5, "1.5", "x"]


def test_integers_and_floats_are_one_number_without_a_warning():
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
                       "value": pd.Series([1, 1.0, 2, np.int64(2), "x", "x"], dtype=object)})
    context = no_label_warning()
    try:
        ann = A.from_long(df)
    finally:
        context.__exit__(None, None, None)
    assert list(ann.categories) == [1, 2, "x"]
    assert ann.count_matrix.tolist() == [[2, 0, 0], [0, 2, 0], [0, 0, 2]]


def test_number_only_object_column_is_numeric():
    # an object column that holds only numbers is a numeric column: interval levels apply
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
                       "value": pd.Series([1, 2, 2.5, 3, 4, 4], dtype=object)})
    ann = A.from_long(df)
    assert ann.is_numeric and list(ann.categories) == [1.0, 2.0, 2.5, 3.0, 4.0]


# ---------------------------------------------------------------------- booleans
def test_true_one_and_one_point_zero():
    x = np.array([[True, 1], [1.0, True], [0, False]], dtype=object)
    with pytest.warns(LabelWarning, match=r"equal as numbers"):
        ann = A.from_wide(x)
    # 1 and 1.0 are one number; True and False are booleans, never the numbers 1 and 0
    assert [(type(c).__name__, c) for c in ann.categories] == [
        ("int", 0), ("int", 1), ("bool", False), ("bool", True)]
    assert ann.count_matrix.tolist() == [[0, 1, 0, 1], [0, 1, 0, 1], [1, 0, 1, 0]]


def test_boolean_and_its_text():
    df = pd.DataFrame({"item": [1, 1], "rater": ["a", "b"],
                       "value": pd.Series([True, "True"], dtype=object)})
    with pytest.warns(LabelWarning, match=r"True and 'True'.*equal as text"):
        ann = A.from_long(df)
    assert [type(c).__name__ for c in ann.categories] == ["bool", "str"]


def test_boolean_tables_keep_booleans_in_either_layout():
    # the same annotations, long or wide, with or without a missing cell: the same labels
    wide = np.array([[True, False], [True, True], [False, False]])
    with_gap = [[True, False], [True, None], [False, False]]
    long = pd.DataFrame({"item": [0, 0, 1, 1, 2, 2], "rater": [0, 1] * 3,
                         "value": wide.ravel()})
    for data in (wide, with_gap, pd.DataFrame(wide), long):
        ann = A.from_long(data) if data is long else A.from_wide(data)
        assert [(type(c).__name__, c) for c in ann.categories] == [
            ("bool", False), ("bool", True)], type(data)


def test_booleans_and_numbers_against_categories():
    # True is not the category 1, and 1 and True may both be categories
    with pytest.raises(UnknownCategoryError, match=r"\[True\]"):
        A.from_wide(np.array([[True, 1]], dtype=object), categories=[0, 1])
    with pytest.warns(LabelWarning):
        ann = A.from_wide(np.array([[True, 1], [1, 1]], dtype=object), categories=[1, True])
    assert ann.count_matrix.tolist() == [[1, 1], [2, 0]]


# ---------------------------------------------------------------------- item and rater ids
def test_item_id_number_and_text_are_two_items_with_a_warning():
    df = pd.DataFrame({"item": pd.Series([14, 14, "14", "14"], dtype=object),
                       "rater": ["a", "b", "a", "b"], "value": ["x", "y", "x", "x"]})
    with pytest.warns(LabelWarning, match=r"item.*14 and '14'"):
        ann = A.from_long(df)
    assert list(ann.items) == [14, "14"]


def test_rater_id_true_and_one_are_two_raters():
    df = pd.DataFrame({"item": [1, 1], "rater": pd.Series([True, 1], dtype=object),
                       "value": ["x", "y"]})
    with pytest.warns(LabelWarning, match=r"rater"):
        ann = A.from_long(df)
    assert ann.n_raters == 2


def test_wide_labels_of_items_and_raters_follow_the_rule():
    table = pd.DataFrame([["x", "y"], ["x", "x"]], index=pd.Index([1, True], dtype=object),
                         columns=pd.Index(["r", "r2"]))
    with pytest.warns(LabelWarning, match="item"):
        ann = A.from_wide(table)
    assert ann.n_items == 2


# ---------------------------------------------------------------------- complex values
@pytest.mark.parametrize("make", [
    lambda: A.from_wide(np.array([[1 + 1j, 1], [2, 2]])),
    lambda: A.from_wide(np.array([[1 + 0j, 1], [2, 2]])),
    lambda: A.from_wide(pd.DataFrame({"a": [1 + 1j, 2], "b": [1.0, 2.0]})),
    lambda: A.from_wide(np.array([[complex(1, 2), "x"], ["x", "y"]], dtype=object)),
    lambda: A.from_long(pd.DataFrame({"item": [1, 1], "rater": ["a", "b"],
                                      "value": [1 + 2j, 1]})),
    lambda: A.from_long(pd.DataFrame({"item": [1, 1], "rater": ["a", "b"],
                                      "value": pd.Series([1j, "x"], dtype=object)})),
    lambda: A.from_wide([[1, 2], [2, 2]], categories=[1, 2, 3j]),
], ids=["array", "real complex", "frame", "object", "long", "long object", "categories"])
def test_complex_values_are_refused(make):
    with pytest.raises(InvalidParameterError, match="complex") as info:
        make()
    assert "\n" not in str(info.value)


def test_complex_counts_are_refused():
    with pytest.raises(InvalidCountError, match="complex"):
        A.from_counts(np.array([[1 + 1j, 2], [3, 0]]))


# ---------------------------------------------------------------------- brute force
POOL = [0, 1, 1.0, 2.5, np.int64(2), np.float64(2.0), True, False, "1", "1.0", "a", "2.5",
        "True"]


def kind_and_value(v):
    if isinstance(v, (bool, np.bool_)):
        return ("boolean", bool(v))
    if isinstance(v, str):
        return ("text", v)
    return ("number", float(v))


def collide(a, b) -> bool:
    """Two labels of the rule's different identities that are equal as text or numbers."""
    def as_number(v):
        try:
            return float(v)
        except ValueError:
            return None
    if kind_and_value(a) == kind_and_value(b):
        return False
    equal_text = str(a) == str(b) and not (isinstance(a, str) and isinstance(b, str))
    na, nb = as_number(a), as_number(b)
    return equal_text or (na is not None and na == nb)


@settings(max_examples=120, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(range(len(POOL))), min_size=2, max_size=24))
def test_property_categories_are_the_distinct_kind_value_pairs(picks):
    values = [POOL[k] for k in picks]
    n = len(values) // 2 * 2
    values = values[:n]
    x = np.empty((n // 2, 2), dtype=object)
    x.ravel()[:] = values
    keys = sorted({kind_and_value(v) for v in values},
                  key=lambda kv: (["number", "boolean", "text"].index(kv[0]), kv[1]))
    expected_counts = np.zeros((n // 2, len(keys)), dtype=int)
    for cell, v in enumerate(values):
        expected_counts[cell // 2, keys.index(kind_and_value(v))] += 1
    warned = any(collide(a, b) for a in values for b in values)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ann = A.from_wide(x, raters_as_rows=False)
    assert [kind_and_value(c) for c in ann.categories] == keys
    assert ann.count_matrix.tolist() == expected_counts.tolist()
    assert any(issubclass(w.category, LabelWarning) for w in caught) == warned


# ---------------------------------------------------------------------- labels kept as given
@pytest.mark.parametrize("layout", ["wide", "long"])
def test_half_integer_labels_keep_their_values(layout):
    # values 2.5, 3.5, 4.5: whole steps apart, but not whole numbers; the categories are the
    # values themselves, and the ratio metric ((c − k)/(c + k))² sees them as they are
    x = np.array([[2.5, 3.5], [3.5, 3.5], [2.5, 2.5], [4.5, 3.5]])
    expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement="ratio")
    if layout == "wide":
        ann = A.from_wide(x)
    else:
        ann = A.from_long(pd.DataFrame({"item": np.repeat(np.arange(4), 2),
                                        "rater": ["a", "b"] * 4, "value": x.ravel()}))
    assert list(ann.categories) == [2.5, 3.5, 4.5]
    assert float(kl.krippendorff_alpha(ann, level="ratio")) == pytest.approx(expected,
                                                                            abs=1e-12)


def test_two_label_vectors_of_booleans_and_numbers_stay_apart():
    # cohen_kappa(x, y) on two vectors: True is not 1, as in a table (no category shared:
    # P_o = P_e = 0, κ = 0)
    with pytest.warns(LabelWarning, match="equal as numbers"):
        est = kl.cohen_kappa([True, False, True], [1, 0, 1])
    assert float(est) == pytest.approx(0.0, abs=1e-12)
    both = kl.cohen_kappa(np.array([True, False, True]), np.array([True, False, False]))
    # hand: table [[1, 0], [1, 1]] (rows x = F, T): P_o = 2/3, P_e = 1/3·2/3 + 2/3·1/3 = 4/9
    assert float(both) == pytest.approx((2 / 3 - 4 / 9) / (1 - 4 / 9), abs=1e-12)
