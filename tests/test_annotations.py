"""The Annotations data model, its views, and every bad input.

Each bad input asserts the exception class and a fragment of the message that names the fault
and where it is. Expected counts and values below are written out by hand from the small
tables in each test.
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import kappalab as kl
from kappalab import errors
from kappalab.annotations import as_annotations
from kappalab.errors import (
    AnnotationError,
    DroppedAnnotationsWarning,
    DuplicateAnnotationError,
    EmptyDataError,
    InvalidCountError,
    InvalidParameterError,
    MissingValueError,
    NonNumericError,
    RaterCountError,
    UndefinedCoefficientWarning,
    UnknownCategoryError,
    UnknownRatersError,
)

A = kl.Annotations
nan = np.nan


def long_frame(item="item", rater="rater", value="value"):
    """Three items, two raters, five annotations:
    i1: r1=a, r2=b;  i2: r1=b, r2=b;  i3: r2=a."""
    return pd.DataFrame({
        item: ["i1", "i1", "i2", "i2", "i3"],
        rater: ["r1", "r2", "r1", "r2", "r2"],
        value: ["a", "b", "b", "b", "a"],
    })


EXPECTED_COUNTS = pd.DataFrame(
    [[1, 1], [0, 2], [1, 0]],
    index=pd.Index(["i1", "i2", "i3"], name="item"),
    columns=pd.Index(["a", "b"], name="category"),
)


def check_long_frame(ann, raters=True):
    assert ann.n_items == 3
    assert ann.n_annotations == 5
    assert list(ann.items) == ["i1", "i2", "i3"]
    assert list(ann.categories) == ["a", "b"]
    np.testing.assert_array_equal(ann.counts.to_numpy(), EXPECTED_COUNTS.to_numpy())
    assert list(ann.counts.index) == ["i1", "i2", "i3"]
    assert list(ann.counts.columns) == ["a", "b"]
    assert ann.annotations_per_item.to_dict() == {"i1": 2, "i2": 2, "i3": 1}
    if raters:
        assert ann.n_raters == 2
        assert list(ann.raters) == ["r1", "r2"]
        wide = ann.wide
        assert wide.loc["i1", "r1"] == "a" and wide.loc["i1", "r2"] == "b"
        assert wide.loc["i2", "r1"] == "b" and wide.loc["i2", "r2"] == "b"
        assert pd.isna(wide.loc["i3", "r1"]) and wide.loc["i3", "r2"] == "a"
    else:
        assert ann.n_raters is None


# ====================================================================== constructors
class TestFromLong:
    def test_default_columns(self):
        check_long_frame(A.from_long(long_frame()))

    def test_crowdkit_columns(self):
        check_long_frame(A.from_long(long_frame("task", "worker", "label")))

    def test_custom_column_names(self):
        df = long_frame("doc", "coder", "code")
        check_long_frame(A.from_long(df, item="doc", rater="coder", value="code"))

    def test_rater_none_means_raters_unknown(self):
        ann = A.from_long(long_frame().drop(columns="rater"), rater=None)
        check_long_frame(ann, raters=False)
        assert not ann.has_raters
        # Fleiss needs no rater identities: P_o over i1, i2 = (0 + 1)/2 = 0.5;
        # π_a = mean(1/2, 0, 1) = 1/2, π_b = 1/2, P_e = 1/2 -> κ = 0.
        assert float(kl.fleiss_kappa(ann)) == pytest.approx(0.0, abs=1e-12)
        with pytest.raises(UnknownRatersError, match="rater identities are needed"):
            _ = ann.wide

    def test_item_order_is_first_appearance_and_categories_sorted(self):
        df = pd.DataFrame({"item": ["z", "y", "z", "x"], "rater": [1, 1, 2, 2],
                           "value": [3, 1, 2, 1]})
        ann = A.from_long(df)
        assert list(ann.items) == ["z", "y", "x"]
        assert list(ann.categories) == [1, 2, 3]
        assert list(ann.raters) == [1, 2]


class TestFromWide:
    def test_numpy_with_nan_missing(self):
        x = np.array([[1, 2, nan], [2, 2, 2], [nan, nan, 3]])
        ann = A.from_wide(x)
        assert (ann.n_items, ann.n_raters, ann.n_annotations) == (3, 3, 6)
        assert list(ann.categories) == [1, 2, 3]
        assert ann.categories.dtype.kind == "i"  # whole-number floats come back as integers
        assert ann.annotations_per_item.tolist() == [2, 3, 1]
        np.testing.assert_array_equal(ann.count_matrix, [[1, 1, 0], [0, 3, 0], [0, 0, 1]])
        np.testing.assert_array_equal(ann.wide.to_numpy(), x)

    def test_item_with_no_annotation_is_kept(self):
        ann = A.from_wide(np.array([[1, 2], [nan, nan], [2, 2]]))
        assert ann.n_items == 3
        assert ann.annotations_per_item.tolist() == [2, 0, 2]
        assert ann.n_annotations == 4

    def test_dataframe_keeps_labels(self):
        df = pd.DataFrame({"ann1": [1, 2, nan], "ann2": [1, 1, 2]}, index=["p", "q", "s"])
        ann = A.from_wide(df)
        assert list(ann.items) == ["p", "q", "s"]
        assert list(ann.raters) == ["ann1", "ann2"]
        assert ann.wide.loc["q", "ann1"] == 2
        assert pd.isna(ann.wide.loc["s", "ann1"])
        assert ann.counts.loc["p"].tolist() == [2, 0]

    @pytest.mark.parametrize("dims", [("item", "rater"), ("rater", "item")])
    def test_xarray_dims_in_either_order(self, dims):
        values = np.array([[1, 2], [2, nan], [1, 1]])  # item × rater
        da = xr.DataArray(values, dims=("item", "rater"),
                          coords={"item": ["u", "v", "w"], "rater": ["r1", "r2"]})
        ann = A.from_wide(da.transpose(*dims))
        assert list(ann.items) == ["u", "v", "w"]
        assert list(ann.raters) == ["r1", "r2"]
        np.testing.assert_array_equal(ann.wide.to_numpy(), values)

    def test_string_values_with_none_and_nan(self):
        x = np.array([["yes", None], ["no", "no"], [nan, "yes"]], dtype=object)
        ann = A.from_wide(x)
        assert list(ann.categories) == ["no", "yes"]
        assert ann.n_annotations == 4
        np.testing.assert_array_equal(ann.count_matrix, [[0, 1], [2, 0], [0, 1]])
        assert pd.isna(ann.wide.iloc[0, 1]) and ann.wide.iloc[2, 1] == "yes"
        # pandas DataFrame of strings with None
        df = pd.DataFrame({"r1": ["yes", "no", None], "r2": [None, "no", "yes"]})
        np.testing.assert_array_equal(A.from_wide(df).count_matrix, [[0, 1], [2, 0], [0, 1]])


class TestFromCounts:
    def test_array(self):
        ann = A.from_counts(np.array([[2, 1, 0], [0, 0, 3]]))
        assert ann.n_items == 2 and ann.n_raters is None
        assert ann.n_annotations == 6
        assert list(ann.categories) == [0, 1, 2]
        assert ann.annotations_per_item.tolist() == [3, 3]
        np.testing.assert_array_equal(ann.counts.to_numpy(), [[2, 1, 0], [0, 0, 3]])

    def test_dataframe_labels_and_categories_argument(self):
        df = pd.DataFrame([[1, 2], [3, 0]], index=["u", "v"], columns=["lo", "hi"])
        ann = A.from_counts(df)
        assert list(ann.items) == ["u", "v"] and list(ann.categories) == ["lo", "hi"]
        assert ann.counts.loc["u", "hi"] == 2
        ann = A.from_counts(np.array([[1, 2], [3, 0]]), categories=["p", "q"])
        assert list(ann.categories) == ["p", "q"]
        assert ann.counts.loc[1, "p"] == 3

    def test_float_whole_numbers_are_accepted(self):
        ann = A.from_counts(np.array([[2.0, 1.0], [0.0, 3.0]]))
        assert ann.count_matrix.dtype.kind == "i"
        assert ann.n_annotations == 6


class TestCategories:
    def test_order_and_unused_categories(self):
        x = np.array([[1, 2], [2, 2], [1, nan]])
        ann = A.from_wide(x, categories=[3, 2, 1, 0])
        assert list(ann.categories) == [3, 2, 1, 0]
        counts = ann.counts
        assert list(counts.columns) == [3, 2, 1, 0]
        assert counts[3].tolist() == [0, 0, 0] and counts[0].tolist() == [0, 0, 0]
        assert counts[1].tolist() == [1, 0, 1] and counts[2].tolist() == [1, 2, 0]

    def test_from_long_with_categories(self):
        ann = A.from_long(long_frame(), categories=["b", "a", "c"])
        assert list(ann.counts.columns) == ["b", "a", "c"]
        assert ann.counts["c"].tolist() == [0, 0, 0]
        assert ann.counts["b"].tolist() == [1, 2, 0]

    def test_unused_categories_count_in_k(self):
        # [[1,1],[2,2],[1,2]]: P_o = 2/3. Brennan–Prediger: P_e = 1/K.
        # K = 2 -> (2/3 − 1/2)/(1/2) = 1/3;  K = 3 -> (2/3 − 1/3)/(2/3) = 1/2.
        x = [[1, 1], [2, 2], [1, 2]]
        assert float(kl.brennan_prediger(x)) == pytest.approx(1 / 3, abs=1e-12)
        assert float(kl.brennan_prediger(x, categories=[1, 2, 3])) == pytest.approx(0.5, abs=1e-12)
        assert float(kl.brennan_prediger(A.from_wide(x, categories=[1, 2, 3]))) == pytest.approx(
            0.5, abs=1e-12)


class TestViews:
    def test_long_round_trip(self):
        x = np.array([[1, 2, nan], [2, 2, 2], [nan, 3, 3], [1, nan, nan]])
        ann = A.from_wide(x)
        long = ann.to_long()
        assert list(long.columns) == ["item", "rater", "value"]
        assert len(long) == ann.n_annotations == 8
        back = A.from_long(long)
        pd.testing.assert_frame_equal(back.counts, ann.counts, check_index_type=False)
        np.testing.assert_array_equal(back.wide.to_numpy(), x)

    def test_counts_round_trip_through_long(self):
        ann = A.from_counts(pd.DataFrame([[1, 2], [3, 0]], index=["u", "v"], columns=["lo", "hi"]))
        long = ann.to_long()
        assert list(long.columns) == ["item", "value"]
        assert long["value"].tolist() == ["lo", "hi", "hi", "lo", "lo", "lo"]
        back = A.from_long(long, rater=None, categories=["lo", "hi"])
        np.testing.assert_array_equal(back.count_matrix, ann.count_matrix)

    def test_xarray_round_trip(self):
        df = pd.DataFrame({"r1": [1, 2, nan], "r2": [1, 1, 2]}, index=["p", "q", "s"])
        ann = A.from_wide(df)
        da = ann.to_xarray()
        assert da.dims == ("item", "rater")
        assert list(da["item"].values) == ["p", "q", "s"]
        back = A.from_wide(da)
        pd.testing.assert_frame_equal(back.wide, ann.wide)
        counts_da = A.from_counts([[1, 2], [3, 0]]).to_xarray()
        assert counts_da.dims == ("item", "category")
        np.testing.assert_array_equal(counts_da.values, [[1, 2], [3, 0]])

    def test_subset_raters(self):
        ann = A.from_wide(pd.DataFrame({"a": [1, 2], "b": [2, 2], "c": [3, nan]}))
        sub = ann.subset_raters([2, 0])
        assert list(sub.raters) == ["c", "a"]
        assert sub.n_annotations == 3
        assert sub.wide["c"].tolist()[0] == 3


# ====================================================================== bad inputs
class TestEmpty:
    @pytest.mark.parametrize("make, fragment", [
        (lambda: A.from_long(pd.DataFrame(columns=["item", "rater", "value"])), "no rows"),
        (lambda: A.from_wide(np.empty((0, 3))), "empty (shape (0, 3))"),
        (lambda: A.from_wide(np.empty((4, 0))), "empty (shape (4, 0))"),
        (lambda: A.from_wide(pd.DataFrame()), "empty"),
        (lambda: A.from_wide(np.full((3, 2), nan)), "every cell"),
        (lambda: A.from_counts(np.empty((0, 2))), "empty"),
        (lambda: A.from_counts(np.zeros((2, 3))), "every count is zero"),
        (lambda: kl.fleiss_kappa(np.full((2, 2), nan)), "every cell"),
    ], ids=["long-no-rows", "wide-0-items", "wide-0-raters", "wide-empty-frame", "wide-all-nan",
            "counts-empty", "counts-all-zero", "coefficient-all-nan"])
    def test_empty(self, make, fragment):
        with pytest.raises(EmptyDataError) as info:
            make()
        assert fragment in str(info.value)

    def test_long_all_values_missing(self):
        df = pd.DataFrame({"item": [1, 2], "rater": [1, 1], "value": [nan, None]})
        with pytest.warns(DroppedAnnotationsWarning), \
                pytest.raises(EmptyDataError, match="every 'value' value is missing"):
            A.from_long(df)


def test_missing_values_in_long_are_dropped_with_a_warning():
    df = long_frame()
    df.loc[len(df)] = ["i3", "r1", None]
    df.loc[len(df)] = ["i4", "r1", nan]
    with pytest.warns(DroppedAnnotationsWarning, match=r"dropped 2 of 7 rows") as rec:
        ann = A.from_long(df)
    assert "'value'" in str(rec[0].message)
    check_long_frame(ann)  # i4 had only a missing value: it is gone


class TestMissingKeysAndInfinity:
    def test_nan_item(self):
        df = long_frame()
        df.loc[2, "item"] = None
        with pytest.raises(MissingValueError, match=r"no 'item' \(first at row 2\)"):
            A.from_long(df)

    def test_nan_rater(self):
        df = long_frame("task", "worker", "label")
        df.loc[3, "worker"] = nan
        with pytest.raises(MissingValueError, match=r"no 'worker' \(first at row 3\)"):
            A.from_long(df)

    def test_inf_in_long(self):
        df = pd.DataFrame({"item": [1, 1, 2], "rater": [1, 2, 1], "value": [1.0, -np.inf, 2.0]})
        with pytest.raises(MissingValueError, match=r"infinite \(first at row 1\)"):
            A.from_long(df)

    def test_inf_in_wide_array(self):
        with pytest.raises(MissingValueError, match=r"infinite \(first at item 1, rater 0\)"):
            A.from_wide(np.array([[1, 2], [np.inf, 2]]))

    def test_inf_in_wide_frame_names_labels(self):
        df = pd.DataFrame({"a": [1.0, 2.0], "b": [1.0, np.inf]}, index=["p", "q"])
        with pytest.raises(MissingValueError, match=r"item 'q', rater 'b'"):
            A.from_wide(df)

    def test_inf_through_a_coefficient(self):
        with pytest.raises(MissingValueError, match="infinite"):
            kl.krippendorff_alpha([[1, np.inf], [2, 2]], level="interval")


class TestDuplicates:
    def test_duplicated_pair_names_item_and_rater(self):
        df = pd.DataFrame({"item": ["doc1", "doc2", "doc2", "doc1"],
                           "rater": ["ann", "ann", "bob", "ann"], "value": [1, 2, 2, 1]})
        with pytest.raises(DuplicateAnnotationError) as info:
            A.from_long(df)
        message = str(info.value)
        assert "item 'doc1'" in message and "rater 'ann'" in message
        assert "more than once" in message

    def test_duplicated_pair_with_integer_labels_reads_cleanly(self):
        df = pd.DataFrame({"item": [5, 5], "rater": [7, 7], "value": [1, 1]})
        with pytest.raises(DuplicateAnnotationError) as info:
            A.from_long(df)
        assert "np.int64" not in str(info.value)
        assert "item 5" in str(info.value) and "rater 7" in str(info.value)

    def test_wide_with_repeated_rater_label_is_a_duplicate(self):
        df = pd.DataFrame([[1, 2], [2, 2]], columns=["a", "a"])
        with pytest.raises(DuplicateAnnotationError, match="rater 'a'"):
            A.from_wide(df)


class TestCounts:
    @pytest.mark.parametrize("table, fragments", [
        ([[1, -1], [2, 0]], ["negative", "row 0, column 1"]),
        ([[1, 0], [2, 0.5]], ["not whole", "row 1, column 1"]),
        ([[1, nan], [2, 0]], ["NaN or infinite", "row 0, column 1"]),
        ([[1, 2], [np.inf, 0]], ["NaN or infinite", "row 1, column 0"]),
        (np.array([["a", "b"], ["c", "d"]], dtype=object), ["non-numeric"]),
    ], ids=["negative", "fraction", "nan", "inf", "strings"])
    def test_invalid_counts(self, table, fragments):
        with pytest.raises(InvalidCountError) as info:
            A.from_counts(table)
        for fragment in fragments:
            assert fragment in str(info.value)

    def test_categories_length_must_match(self):
        with pytest.raises(InvalidParameterError, match="1 categories given for a counts table "
                                                        "with 2 columns"):
            A.from_counts([[1, 2]], categories=["a"])


class TestUnknownCategory:
    def test_wide_value_outside_categories_is_named(self):
        with pytest.raises(UnknownCategoryError) as info:
            A.from_wide(np.array([["a", "b"], ["zz", "a"]], dtype=object), categories=["a", "b"])
        assert "'zz'" in str(info.value)
        assert "categories=['a', 'b']" in str(info.value)

    def test_long_value_outside_categories_names_value_and_row(self):
        df = pd.DataFrame({"item": ["x", "y", "z"], "rater": ["r", "r", "r"],
                           "value": ["a", "b", "zz"]})
        with pytest.raises(UnknownCategoryError, match=r"\['zz'\] \(first at row 2\)"):
            A.from_long(df, categories=["a", "b"])

    def test_through_a_coefficient(self):
        with pytest.raises(UnknownCategoryError, match="'c'"):
            kl.fleiss_kappa(np.array([["a", "c"], ["b", "b"]], dtype=object),
                            categories=["a", "b"])

    def test_wide_value_outside_categories_says_where(self):
        df = pd.DataFrame({"r1": ["a", "b"], "r2": ["a", "zz"]}, index=["i1", "i2"])
        with pytest.raises(UnknownCategoryError) as info:
            A.from_wide(df, categories=["a", "b"])
        assert "item 'i2'" in str(info.value) and "rater 'r2'" in str(info.value)


STRINGS = np.array([["a", "b"], ["b", "b"], ["a", "a"]], dtype=object)


class TestNonNumeric:
    @pytest.mark.parametrize("level", ["interval", "ratio", "circular", "bipolar"])
    def test_numeric_levels_of_alpha(self, level):
        with pytest.raises(NonNumericError) as info:
            kl.krippendorff_alpha(STRINGS, level=level)
        assert f"the {level} metric needs numeric values" in str(info.value)
        assert "['a', 'b']" in str(info.value)

    def test_iota_interval(self):
        with pytest.raises(NonNumericError, match="interval metric needs numeric values"):
            kl.janson_olsson_iota(STRINGS, level="interval")

    @pytest.mark.parametrize("weights", ["linear", "quadratic"])
    @pytest.mark.parametrize("fn", [kl.fleiss_kappa, kl.conger_kappa, kl.gwet_ac,
                                    kl.brennan_prediger, kl.percent_agreement, kl.light_kappa,
                                    kl.cohen_kappa, kl.scott_pi, kl.bennett_s],
                             ids=lambda f: f.__name__)
    def test_numeric_weights(self, fn, weights):
        with pytest.raises(NonNumericError) as info:
            fn(STRINGS, weights=weights)
        assert f"{weights} weights needs numeric values" in str(info.value)
        assert "['a', 'b']" in str(info.value)

    def test_numbers_written_as_strings_are_not_numbers(self):
        with pytest.raises(NonNumericError, match=r"\['1', '2'\]"):
            kl.krippendorff_alpha(pd.DataFrame({"a": ["1", "2"], "b": ["1", "1"]}),
                                  level="interval")


class TestInvalidParameter:
    def test_unknown_level(self):
        with pytest.raises(InvalidParameterError, match=r"unknown level 'nominl'; choose one of "
                                                        r"nominal, ordinal"):
            kl.krippendorff_alpha([[1, 2], [2, 2]], level="nominl")

    def test_unknown_level_of_iota(self):
        with pytest.raises(InvalidParameterError, match="unknown level 'intervall'"):
            kl.janson_olsson_iota([[1, 2], [2, 2]], level="intervall")

    def test_unknown_weights(self):
        with pytest.raises(InvalidParameterError, match="unknown weights 'quad'"):
            kl.fleiss_kappa([[1, 2], [2, 2]], weights="quad")

    def test_wrong_shape_distance_matrix(self):
        with pytest.raises(InvalidParameterError,
                           match=r"distance matrix must be 2 × 2 .* got shape \(3, 3\)"):
            kl.krippendorff_alpha([[1, 2], [2, 2]], level=np.zeros((3, 3)))

    @pytest.mark.parametrize("fn", [kl.fleiss_kappa, kl.cohen_kappa, kl.light_kappa,
                                    kl.gwet_ac], ids=lambda f: f.__name__)
    def test_wrong_shape_weight_matrix(self, fn):
        with pytest.raises(InvalidParameterError,
                           match=r"weight matrix must be 2 × 2 .* got shape \(3, 3\)"):
            fn([[1, 2], [2, 2]], weights=np.eye(3))

    def test_invalid_distance_and_weight_entries(self):
        with pytest.raises(InvalidParameterError, match="non-negative with a zero diagonal"):
            kl.krippendorff_alpha([[1, 2], [2, 2]], level=np.array([[0, -1], [-1, 0]]))
        with pytest.raises(InvalidParameterError, match=r"entries in \[0, 1\]"):
            kl.fleiss_kappa([[1, 2], [2, 2]], weights=np.array([[1, 2], [2, 1]]))
        with pytest.raises(InvalidParameterError, match="NaN or infinite"):
            kl.fleiss_kappa([[1, 2], [2, 2]], weights=np.array([[1, nan], [0, 1]]))

    def test_missing_column_in_from_long(self):
        with pytest.raises(InvalidParameterError,
                           match=r"column 'label2' \(the value column\) is not in the data"):
            A.from_long(long_frame(), value="label2")
        with pytest.raises(InvalidParameterError, match=r"column 'doc' \(the item column\)"):
            A.from_long(long_frame(), item="doc")

    def test_wide_shape_and_dims(self):
        with pytest.raises(InvalidParameterError, match=r"2-D items × raters table, got shape"):
            A.from_wide([1, 2, 3])
        with pytest.raises(InvalidParameterError, match=r"dims \('item', 'rater'\)"):
            A.from_wide(xr.DataArray(np.zeros((2, 2)), dims=("a", "b")))


class TestRaters:
    @pytest.mark.parametrize("fn", [kl.conger_kappa, kl.cohen_kappa, kl.janson_olsson_iota,
                                    kl.light_kappa, kl.scott_pi, kl.bennett_s],
                             ids=lambda f: f.__name__)
    @pytest.mark.parametrize("source", ["counts", "long-without-rater"])
    def test_rater_specific_coefficients_need_raters(self, fn, source):
        if source == "counts":
            ann = A.from_counts([[2, 1], [1, 2], [3, 0]])
        else:
            ann = A.from_long(long_frame(), rater=None)
        with pytest.raises(UnknownRatersError, match="rater identities are needed"):
            fn(ann)

    @pytest.mark.parametrize("fn", [kl.cohen_kappa, kl.scott_pi, kl.bennett_s],
                             ids=lambda f: f.__name__)
    def test_two_rater_coefficients_with_three_raters(self, fn):
        with pytest.raises(RaterCountError, match=r"exactly two raters; these data have 3 raters"):
            fn([[1, 2, 1], [2, 2, 1], [1, 1, 1]])

    def test_cohen_with_one_active_rater(self):
        with pytest.raises(RaterCountError, match="have 1 raters"):
            kl.cohen_kappa([[1, nan], [2, nan]])

    def test_cohen_x_y_different_lengths(self):
        with pytest.raises(InvalidParameterError,
                           match=r"equal length, got shapes \(3,\) and \(2,\)"):
            kl.cohen_kappa([1, 2, 1], [1, 2])


# ====================================================================== undefined cases
ONE_CATEGORY = [[1, 1], [1, 1], [1, nan], [1, 1]]
NO_PAIRS = [[1, nan], [nan, 2], [2, nan]]

UNDEFINED_ON_ONE_CATEGORY = [
    kl.krippendorff_alpha, kl.fleiss_kappa, kl.conger_kappa, kl.cohen_kappa, kl.scott_pi,
    kl.gwet_ac,
    kl.brennan_prediger, kl.bennett_s, kl.janson_olsson_iota, kl.light_kappa,
]


@pytest.mark.parametrize("fn", UNDEFINED_ON_ONE_CATEGORY,
                         ids=lambda f: getattr(f, "__name__", str(f)))
def test_one_category_is_undefined_with_a_reason(fn):
    with pytest.warns(UndefinedCoefficientWarning) as rec:
        est = fn(ONE_CATEGORY)
    assert math.isnan(float(est))
    message = str(rec[0].message)
    assert "undefined" in message and "one category" in message, message


@pytest.mark.parametrize("fn", [kl.krippendorff_alpha, kl.fleiss_kappa, kl.conger_kappa,
                                kl.cohen_kappa, kl.scott_pi, kl.gwet_ac, kl.brennan_prediger,
                                kl.bennett_s, kl.percent_agreement, kl.janson_olsson_iota],
                         ids=lambda f: f.__name__)
def test_no_pairable_item_is_undefined_with_a_reason(fn):
    with pytest.warns(UndefinedCoefficientWarning,
                      match="no item has two or more annotations") as rec:
        est = fn(NO_PAIRS)
    assert math.isnan(float(est))
    assert len(rec) == 1


def test_light_kappa_without_shared_items_is_undefined():
    with pytest.warns(UndefinedCoefficientWarning, match="no pair of raters has items in common"):
        assert math.isnan(float(kl.light_kappa(NO_PAIRS)))


def test_counts_with_no_pairable_item():
    with pytest.warns(UndefinedCoefficientWarning, match="no item has two or more annotations"):
        assert math.isnan(float(kl.fleiss_kappa(A.from_counts([[1, 0], [0, 1]]))))


def test_percent_agreement_is_defined_on_one_category():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = kl.percent_agreement(ONE_CATEGORY)
    # three pairable items, each in full agreement
    assert float(est) == 1.0
    assert est.n_items == 3


WARNS_AT_CALLER = [kl.krippendorff_alpha, kl.fleiss_kappa, kl.cohen_kappa, kl.light_kappa]


@pytest.mark.parametrize("fn", WARNS_AT_CALLER, ids=lambda f: getattr(f, "__name__", str(f)))
def test_undefined_warning_points_at_the_callers_line(fn):
    with pytest.warns(UndefinedCoefficientWarning) as rec:
        fn(ONE_CATEGORY)
    assert rec[0].filename == __file__, rec[0].filename


# ====================================================================== error hierarchy
def test_every_kappalab_error_is_a_value_error():
    """Every input fault is a KappalabError (a ValueError): an AnnotationError (the data) or
    an InvalidParameterError (an option, not an annotation error); the one other error is a
    study's replicate function failing, which is not a fault of the input."""
    classes = [obj for _, obj in inspect.getmembers(errors, inspect.isclass)
               if issubclass(obj, Exception) and not issubclass(obj, Warning)
               and obj.__module__ == errors.__name__
               and obj is not errors.ReplicationError]
    assert len(classes) >= 10
    for cls in classes:
        assert issubclass(cls, ValueError), cls
        assert issubclass(cls, errors.KappalabError), cls
        if cls is not errors.KappalabError:
            assert issubclass(cls, AnnotationError) or issubclass(
                cls, errors.InvalidParameterError), cls
    assert not issubclass(errors.InvalidParameterError, AnnotationError)
    assert issubclass(errors.LayoutError, AnnotationError)  # the data's layout, or the option
    assert issubclass(errors.ReplicationError, RuntimeError)
    assert not issubclass(errors.ReplicationError, ValueError)
    assert issubclass(UndefinedCoefficientWarning, RuntimeWarning)
    assert issubclass(DroppedAnnotationsWarning, UserWarning)


@pytest.mark.parametrize("make", [
    lambda: A.from_wide(np.empty((0, 2))),
    lambda: A.from_counts([[1, -1]]),
    lambda: kl.cohen_kappa([[1, 2, 1]]),
    lambda: kl.krippendorff_alpha(STRINGS, level="interval"),
    lambda: kl.conger_kappa(A.from_counts([[1, 1]])),
    lambda: kl.krippendorff_alpha([[1, 2]], level="bogus"),
], ids=["empty", "count", "raters", "non-numeric", "unknown-raters", "level"])
def test_raised_errors_are_caught_as_value_error(make):
    with pytest.raises(ValueError):
        make()


# ====================================================================== the front door
README_FRAME = pd.DataFrame({
    "item": [1, 1, 1, 2, 2, 3, 3, 3, 4, 4],
    "rater": ["a", "b", "c", "a", "b", "a", "b", "c", "b", "c"],
    "value": [1, 1, 2, 3, 3, 2, 2, 2, 1, 3],
})


def _reliability_data(frame, item="item", rater="rater", value="value"):
    """raters × items float array (NaN = missing), as the krippendorff package wants it."""
    return frame.pivot(index=rater, columns=item, values=value).to_numpy(dtype=float)


class TestLongFrameGoesStraightToEstimators:
    @pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
    def test_default_schema(self, level):
        import krippendorff

        expected = krippendorff.alpha(reliability_data=_reliability_data(README_FRAME),
                                      level_of_measurement=level)
        assert float(kl.krippendorff_alpha(README_FRAME, level=level)) == pytest.approx(
            expected, abs=1e-12)

    def test_crowdkit_schema(self):
        import krippendorff

        df = README_FRAME.rename(columns={"item": "task", "rater": "worker", "value": "label"})
        expected = krippendorff.alpha(reliability_data=_reliability_data(README_FRAME),
                                      level_of_measurement="nominal")
        assert float(kl.krippendorff_alpha(df)) == pytest.approx(expected, abs=1e-12)
        assert float(kl.fleiss_kappa(df)) == float(kl.fleiss_kappa(A.from_long(README_FRAME)))

    def test_long_schema_with_extra_columns_is_still_long(self):
        df = README_FRAME.assign(note="x", when=range(10))
        ann = as_annotations(df)
        assert (ann.n_items, ann.n_raters, ann.n_annotations) == (4, 3, 10)

    def test_names_given_to_as_annotations(self):
        df = README_FRAME.rename(columns={"item": "doc", "rater": "coder", "value": "code"})
        ann = as_annotations(df, item="doc", rater="coder", value="code")
        assert (ann.n_items, ann.n_raters, ann.n_annotations) == (4, 3, 10)

    def test_agreement_report_reads_long(self):
        direct = kl.agreement_report(README_FRAME)
        via = kl.agreement_report(A.from_long(README_FRAME))
        pd.testing.assert_frame_equal(direct, via)

    def test_wide_frame_stays_wide(self):
        wide = pd.DataFrame({"r1": [1, 2, 3, 1], "r2": [1, 2, 3, 2], "r3": [1, 2, 2, 1]})
        ann = as_annotations(wide)
        assert (ann.n_items, ann.n_raters) == (4, 3)

    def test_cohen_kappa_reads_a_long_frame(self):
        from sklearn.metrics import cohen_kappa_score

        y1, y2 = ["a", "b", "b", "a", "c", "b"], ["a", "b", "a", "a", "c", "c"]
        df = pd.DataFrame({"item": list(range(6)) * 2, "rater": ["x"] * 6 + ["y"] * 6,
                           "value": y1 + y2})
        assert float(kl.cohen_kappa(df)) == pytest.approx(cohen_kappa_score(y1, y2), abs=1e-12)


def _statsmodels_table():
    from statsmodels.stats.inter_rater import aggregate_raters

    rng = np.random.default_rng(3)
    truth = rng.integers(0, 3, size=(30, 1))
    ratings = np.where(rng.random((30, 4)) < 0.7, truth, rng.integers(0, 3, size=(30, 4)))
    table, _ = aggregate_raters(ratings)
    return ratings, table


class TestLayouts:
    def test_count_table_needs_from_counts_and_is_flagged(self):
        from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

        _, table = _statsmodels_table()
        expected = sm_fleiss(table)
        assert float(kl.fleiss_kappa(A.from_counts(table))) == pytest.approx(expected, abs=1e-12)
        with pytest.warns(errors.LayoutWarning, match="from_counts"):
            kl.fleiss_kappa(table)

    def test_reliability_data_raters_as_rows(self):
        import krippendorff

        ratings, _ = _statsmodels_table()
        x = ratings.T.astype(float)  # raters × items, krippendorff's layout
        x[0, :5] = nan
        expected = krippendorff.alpha(reliability_data=x, level_of_measurement="nominal")
        ann = A.from_wide(x, raters_as_rows=True)
        assert (ann.n_items, ann.n_raters) == (30, 4)
        assert float(kl.krippendorff_alpha(ann)) == pytest.approx(expected, abs=1e-12)
        with pytest.warns(errors.LayoutWarning, match="raters_as_rows=True"):
            kl.krippendorff_alpha(x)

    def test_raters_as_rows_keeps_labels(self):
        df = pd.DataFrame([[1, 2, 2], [1, 2, 1]], index=["r1", "r2"], columns=["i1", "i2", "i3"])
        ann = A.from_wide(df, raters_as_rows=True)
        assert list(ann.items) == ["i1", "i2", "i3"] and list(ann.raters) == ["r1", "r2"]

    def test_item_id_column(self):
        import krippendorff

        ratings, _ = _statsmodels_table()
        df = pd.DataFrame(ratings, columns=["r1", "r2", "r3", "r4"])
        df.insert(0, "doc", [f"d{i}" for i in range(30)])
        expected = krippendorff.alpha(reliability_data=ratings.T.astype(float),
                                      level_of_measurement="nominal")
        ann = A.from_wide(df, item="doc")
        assert list(ann.items[:2]) == ["d0", "d1"] and list(ann.raters) == ["r1", "r2", "r3", "r4"]
        assert float(kl.krippendorff_alpha(ann)) == pytest.approx(expected, abs=1e-12)

    def test_numeric_item_id_column_is_flagged(self):
        ratings, _ = _statsmodels_table()
        x = np.column_stack([np.arange(101, 131), ratings])
        with pytest.warns(errors.LayoutWarning, match="item id"):
            kl.krippendorff_alpha(x)
        ann = A.from_wide(pd.DataFrame(x), item=0)
        assert (ann.n_items, ann.n_raters) == (30, 4)

    def test_item_id_missing_column(self):
        with pytest.raises(InvalidParameterError, match="'doc'"):
            A.from_wide(pd.DataFrame({"a": [1, 2]}), item="doc")

    @pytest.mark.parametrize("make", [
        lambda rng: rng.integers(1, 6, size=(40, 3)).astype(float),           # ordinal 1..5
        lambda rng: np.where(rng.random((40, 5)) < .3, nan, rng.integers(0, 2, (40, 5))),
        lambda rng: rng.normal(size=(25, 4)),                                  # interval scores
        lambda rng: np.array([["a", "b"], ["b", "b"], ["c", "a"], ["a", "a"], ["c", "c"]]),
        # two raters who always disagree: every row sums to 3, but labels 1..K have no zero
        lambda rng: np.array([[1, 2], [2, 1], [1, 2], [2, 1]], dtype=float),
        lambda rng: np.full((6, 3), 2.0),                                      # all agree
    ])
    def test_typical_wide_tables_raise_no_layout_warning(self, make):
        x = make(np.random.default_rng(0))
        with warnings.catch_warnings():
            warnings.simplefilter("error", errors.LayoutWarning)
            A.from_wide(x)
            A.from_wide(pd.DataFrame(x))

    def test_csv_with_an_item_id_column_is_flagged(self, tmp_path):
        from io import StringIO

        ratings, _ = _statsmodels_table()
        csv = "id,r1,r2,r3,r4\n" + "".join(
            f"doc{i},{','.join(map(str, row))}\n" for i, row in enumerate(ratings))
        df = pd.read_csv(StringIO(csv))
        with pytest.warns(errors.LayoutWarning, match="item id"):
            A.from_wide(df)
        ann = A.from_wide(df, item="id")
        assert list(ann.raters) == ["r1", "r2", "r3", "r4"] and ann.items[0] == "doc0"

    def test_kappalab_own_tables_are_not_guessed(self):
        # a simulation knows its layout: 6 items × 30 raters is not raters × items
        with warnings.catch_warnings():
            warnings.simplefilter("error", errors.LayoutWarning)
            ann, _ = kl.simulate.annotations(6, level="nominal", n_raters=30,
                                             annotations_per_item=30, seed=1)
        assert (ann.n_items, ann.n_raters) == (6, 30)

    def test_stating_the_layout_silences_the_warning(self):
        _, table = _statsmodels_table()
        with warnings.catch_warnings():
            warnings.simplefilter("error", errors.LayoutWarning)
            A.from_wide(table, raters_as_rows=False)


class TestCategoricalOrder:
    def _frame(self):
        # ordinal labels whose alphabetical order (high < low < mid) is not their order
        vals = ["low", "low", "mid", "mid", "high", "high", "low", "mid", "mid", "high",
                "low", "mid"]
        return pd.DataFrame({"item": np.repeat(np.arange(6), 2), "rater": ["a", "b"] * 6,
                             "value": vals})

    def test_ordered_categorical_in_from_long(self):
        import krippendorff

        df = self._frame()
        order = ["low", "mid", "high"]
        df["value"] = pd.Categorical(df["value"], categories=order, ordered=True)
        expected = krippendorff.alpha(
            reliability_data=_reliability_data(df.assign(value=df["value"].cat.codes)),
            level_of_measurement="ordinal")
        ann = A.from_long(df)
        assert list(ann.categories) == order
        assert float(kl.krippendorff_alpha(ann, level="ordinal")) == pytest.approx(expected)

    def test_ordered_categorical_in_from_wide(self):
        df = self._frame()
        order = ["low", "mid", "high"]
        wide = df.pivot(index="item", columns="rater", values="value")
        wide = wide.astype(pd.CategoricalDtype(order, ordered=True))
        ann = A.from_wide(wide)
        assert list(ann.categories) == order
        via_long = A.from_long(self._frame(), categories=order)
        assert float(kl.krippendorff_alpha(ann, level="ordinal")) == pytest.approx(
            float(kl.krippendorff_alpha(via_long, level="ordinal")))

    def test_columns_with_different_orders_are_refused(self):
        wide = pd.DataFrame({"a": pd.Categorical(["x", "y"], ["x", "y"], ordered=True),
                             "b": pd.Categorical(["x", "y"], ["y", "x"], ordered=True)})
        with pytest.raises(InvalidParameterError, match="order"):
            A.from_wide(wide)

    @pytest.mark.parametrize("missing", [nan, None, pd.NA])
    def test_missing_value_in_categories_is_refused(self, missing):
        with pytest.raises(InvalidParameterError, match="missing value"):
            A.from_wide([["a", "b"], ["a", "a"]], categories=["a", "b", missing])

    def test_object_column_typed_from_every_value(self):
        column = np.array([1.0] * 1500 + ["x"], dtype=object)
        ann = A.from_wide(np.column_stack([column, column]))
        assert not ann.is_numeric
        assert ann.n_categories == 2

    def test_object_numbers_are_numeric(self):
        column = np.array([1, 2.5, None, 3], dtype=object)
        ann = A.from_wide(np.column_stack([column, column]))
        assert ann.is_numeric and list(ann.categories) == [1.0, 2.5, 3.0]


BIG = 2**53


class TestExactIntegers:
    @pytest.mark.parametrize("dtype", [np.int64, np.uint64])
    def test_wide_labels_beyond_2_53_stay_distinct(self, dtype):
        import krippendorff

        x = np.array([[BIG, BIG + 1], [BIG + 1, BIG], [BIG, BIG], [BIG + 1, BIG + 1]],
                     dtype=dtype)
        ann = A.from_wide(x)
        assert list(ann.categories) == [BIG, BIG + 1]
        expected = krippendorff.alpha(reliability_data=(x - dtype(BIG)).T.astype(float),
                                      level_of_measurement="nominal")
        assert float(kl.krippendorff_alpha(ann)) == pytest.approx(expected)

    def test_long_labels_beyond_2_53_stay_distinct(self):
        df = pd.DataFrame({"item": [0, 0, 1, 1], "rater": [0, 1, 0, 1],
                           "value": np.array([BIG, BIG + 1, BIG, BIG], dtype=np.uint64) + 2**63})
        ann = A.from_long(df)
        assert ann.n_categories == 2
        assert ann.categories[1] == 2**63 + BIG + 1

    @pytest.mark.parametrize("table", [
        [[2**62, 2**62, 0], [0, 2**62, 2**62]],          # row sums overflow
        np.array([[2**63, 0], [0, 2**63]], dtype=np.uint64),
        np.array([[2**64, 1], [1, 2**64]], dtype=object),
    ])
    def test_counts_that_overflow_int64_are_refused(self, table):
        with pytest.raises(InvalidCountError, match="int64"):
            A.from_counts(table)

    def test_large_exact_counts(self):
        from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

        table = np.array([[3, 1], [1, 3], [2, 2]], dtype=np.uint64)
        assert float(kl.fleiss_kappa(A.from_counts(table))) == pytest.approx(
            sm_fleiss(table.astype(float)))


class TestFrontDoorValidation:
    def test_from_long_duplicate_column_names(self):
        df = pd.DataFrame([[1, "a", 1, 2], [1, "b", 1, 2]],
                          columns=["item", "rater", "value", "value"])
        with pytest.raises(InvalidParameterError, match="'value'.*more than one column"):
            A.from_long(df)

    @pytest.mark.parametrize("positions", [[0, 5], [-4], [0, 0]])
    def test_subset_raters_out_of_range(self, positions):
        ann = A.from_wide([[1, 2, 1], [2, 2, 1]])
        with pytest.raises(InvalidParameterError, match="rater position"):
            ann.subset_raters(positions)

    def test_subset_raters_negative_position_counts_from_the_end(self):
        ann = A.from_wide([[1, 2, 1], [2, 2, 1]])
        assert list(ann.subset_raters([-1]).raters) == [2]

    def test_ragged_list(self):
        with pytest.raises(InvalidParameterError, match="row 1 has 1"):
            A.from_wide([[1, 2], [1], [2, 2]])

    @pytest.mark.parametrize("dtype", ["Int64", "Float64"])
    def test_nullable_numbers_at_interval_level(self, dtype):
        import krippendorff

        x = np.array([[1, 2, nan], [2, 2, 3], [4, nan, 4], [1, 1, 2]])
        df = pd.DataFrame(x).astype(dtype)
        assert df.isna().sum().sum() == 2
        expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement="interval")
        assert float(kl.krippendorff_alpha(df, level="interval")) == pytest.approx(expected)


class TestFastPathsAgreeWithObjects:
    """The vectorised encodings (unicode hashing, integer counting, arrow strings) give the
    same Annotations as the plain object path."""

    @given(st.lists(st.tuples(st.sampled_from(["", "a", "ab", "b", "ä", "zz", "a b", "10"]),
                              st.sampled_from(["", "a", "ab", "b", "ä", "zz", "a b", "10"])),
                    min_size=1, max_size=40))
    @settings(max_examples=60, deadline=None)
    def test_unicode_labels(self, pairs):
        x = np.array(pairs)  # fixed-width unicode
        fast, slow = A.from_wide(x, raters_as_rows=False), A.from_wide(x.astype(object),
                                                                        raters_as_rows=False)
        assert list(fast.categories) == list(slow.categories) == sorted(set(x.ravel()))
        np.testing.assert_array_equal(fast.count_matrix, slow.count_matrix)
        np.testing.assert_array_equal(fast.rater_count_matrix, slow.rater_count_matrix)

    def test_cohen_kappa_string_labels_match_sklearn(self):
        from sklearn.metrics import cohen_kappa_score

        rng = np.random.default_rng(5)
        labels = np.array(["absent", "mild", "moderate", "severe"])
        a, b = labels[rng.integers(0, 4, 500)], labels[rng.integers(0, 4, 500)]
        b[:250] = a[:250]
        assert float(kl.cohen_kappa(a, b)) == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
        assert float(kl.cohen_kappa(list(a), list(b))) == pytest.approx(
            cohen_kappa_score(a, b), abs=1e-12)

    def test_cohen_kappa_numbers_and_strings_stay_apart(self):
        # 1 and "1" are different labels (not cast to one kind): no item agrees, and no
        # category is shared, so P_o = P_e = 0 and κ = 0; a LabelWarning says they look alike
        with pytest.warns(errors.LabelWarning, match="1 and '1' are equal as text"):
            est = kl.cohen_kappa([1, 2, 1], ["1", "2", "1"])
        assert float(est) == pytest.approx(0.0, abs=1e-12)
        assert est.observed == pytest.approx(0.0, abs=1e-12)

    def test_integer_table_equals_float_table(self):
        rng = np.random.default_rng(6)
        x = rng.integers(-3, 4, size=(50, 4))
        a, b = A.from_wide(x), A.from_wide(x.astype(float))
        assert list(a.categories) == list(b.categories)
        np.testing.assert_array_equal(a.count_matrix, b.count_matrix)
        assert float(kl.krippendorff_alpha(a, level="interval")) == pytest.approx(
            float(kl.krippendorff_alpha(b, level="interval")))

    @pytest.mark.parametrize("dtype", ["str", object, "category"])
    def test_long_string_columns(self, dtype):
        df = long_frame().astype({"rater": dtype, "value": dtype, "item": dtype})
        check_long_frame(A.from_long(df))

    def test_long_nullable_integer_values(self):
        df = pd.DataFrame({"item": [1, 1, 2, 2, 3], "rater": ["a", "b", "a", "b", "a"],
                           "value": pd.array([BIG, BIG + 1, None, 2, BIG], dtype="Int64")})
        with pytest.warns(DroppedAnnotationsWarning, match="dropped 1 of 5"):
            ann = A.from_long(df)
        assert list(ann.categories) == [2, BIG, BIG + 1]
        assert list(ann.items) == [1, 2, 3]

    def test_long_items_seen_only_on_dropped_rows_are_not_kept(self):
        df = pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "c"], "value": [1, 2, None]})
        with pytest.warns(DroppedAnnotationsWarning):
            ann = A.from_long(df)
        assert list(ann.items) == [1] and list(ann.raters) == ["a", "b"]

    def test_duplicate_pairs_found_on_the_scatter_path(self):
        df = pd.DataFrame({"item": [1, 1, 2, 1], "rater": ["a", "b", "a", "a"],
                           "value": [1, 2, 1, 1]})
        with pytest.raises(DuplicateAnnotationError, match="item 1 by rater 'a'"):
            A.from_long(df)

    def test_categorical_keys_give_plain_label_indexes(self):
        df = pd.DataFrame({"item": pd.Categorical(["b", "b", "a", "a"]),
                           "rater": pd.Categorical(["x", "y", "x", "y"]), "value": [1, 2, 1, 1]})
        ann = A.from_long(df)
        assert not isinstance(ann.items, pd.CategoricalIndex)
        assert list(ann.items) == ["b", "a"] and list(ann.raters) == ["x", "y"]

    @pytest.mark.parametrize("values", [
        np.array(["a", "b", np.inf, "a"], dtype=object),     # mixed objects
        np.array([1.0, 2, -np.inf, 1], dtype=object),         # numbers as objects
    ])
    def test_infinite_object_value_in_long_is_named(self, values):
        df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
                           "value": values})
        with pytest.raises(MissingValueError, match="infinite.*row 2"):
            A.from_long(df)

    def test_cohen_kappa_of_two_ordered_categoricals_keeps_their_order(self):
        from sklearn.metrics import cohen_kappa_score

        order = ["low", "mid", "high"]
        rng = np.random.default_rng(8)
        a, b = rng.integers(0, 3, 60), rng.integers(0, 3, 60)
        b[:30] = a[:30]
        ya = pd.Categorical.from_codes(a, order, ordered=True)
        yb = pd.Categorical.from_codes(b, order, ordered=True)
        # sklearn's linear weights use label positions: the codes are the positions in order
        expected = cohen_kappa_score(a, b, weights="linear")
        assert float(kl.cohen_kappa(ya, yb, weights="ordinal")) == pytest.approx(
            float(kl.cohen_kappa(a, b, weights="ordinal")))
        assert float(kl.cohen_kappa(pd.Series(ya), pd.Series(yb), weights="ordinal")
                     ) == pytest.approx(float(kl.cohen_kappa(a, b, weights="ordinal")))
        assert float(kl.cohen_kappa(a, b, weights="linear")) == pytest.approx(expected)


# ---------------------------------------------------------------------- repeated submissions
TWICE = pd.DataFrame({"item": [1, 1, 1, 2, 2, 3, 3, 3],
                      "rater": ["a", "b", "a", "a", "b", "a", "b", "b"],
                      "value": [1, 2, 2, 1, 1, 2, 2, 1]})  # a on 1 twice, b on 3 twice


def test_repeated_submissions_raise_by_default():
    with pytest.raises(DuplicateAnnotationError, match="2 \\(item, rater\\) pair"):
        kl.Annotations.from_long(TWICE)


@pytest.mark.parametrize("policy, rows", [("first", [0, 1, 3, 4, 5, 6]),
                                          ("last", [1, 2, 3, 4, 5, 7])])
def test_first_or_last_submission_equals_the_deduplicated_table(policy, rows):
    with pytest.warns(DroppedAnnotationsWarning, match="dropped 2 repeated submission"):
        ann = kl.Annotations.from_long(TWICE, duplicates=policy)
    by_hand = kl.Annotations.from_long(TWICE.iloc[rows])
    assert ann.n_annotations == 6 and ann.n_raters == 2
    assert kl.krippendorff_alpha(ann).value == kl.krippendorff_alpha(by_hand).value
    assert kl.conger_kappa(ann).value == kl.conger_kappa(by_hand).value


def test_separate_submissions_count_as_their_own_raters():
    """Krippendorff's α counts every submitted label as a coder: by hand with the repeated
    submissions relabelled as new raters."""
    ann = kl.Annotations.from_long(TWICE, duplicates="separate")
    relabelled = TWICE.assign(rater=["a", "b", "a (submission 2)", "a", "b", "a", "b",
                                     "b (submission 2)"])
    by_hand = kl.Annotations.from_long(relabelled)
    assert ann.n_annotations == 8 and sorted(ann.raters) == sorted(by_hand.raters)
    assert kl.krippendorff_alpha(ann).value == pytest.approx(
        kl.krippendorff_alpha(by_hand).value, abs=1e-15)
    assert kl.conger_kappa(ann).value == pytest.approx(kl.conger_kappa(by_hand).value,
                                                       abs=1e-15)


def test_unknown_duplicates_policy():
    with pytest.raises(InvalidParameterError, match="unknown duplicates policy"):
        kl.Annotations.from_long(TWICE, duplicates="mean")


def test_a_column_name_used_twice_is_refused_in_one_line():
    """Two columns named "value": which one holds the annotations is ambiguous, so the long
    reader refuses the table, naming the column and its count (the fast path for unique
    column names must not skip the check)."""
    frame = pd.DataFrame([[1, "a", 1, 2], [1, "b", 1, 2], [2, "a", 2, 2]],
                         columns=["item", "rater", "value", "value"])
    with pytest.raises(InvalidParameterError,
                       match=r"column 'value' \(the value column\) names more than one column "
                             r"\(2\)"):
        kl.Annotations.from_long(frame)
    unique = frame.set_axis(["item", "rater", "value", "other"], axis=1)
    assert kl.Annotations.from_long(unique).n_annotations == 3
