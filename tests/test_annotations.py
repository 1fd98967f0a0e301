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

import kappalab as kl
from kappalab import errors
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
            ann.wide

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
    classes = [obj for _, obj in inspect.getmembers(errors, inspect.isclass)
               if issubclass(obj, Exception) and not issubclass(obj, Warning)
               and obj.__module__ == errors.__name__]
    assert len(classes) >= 10
    for cls in classes:
        assert issubclass(cls, ValueError), cls
        assert issubclass(cls, AnnotationError), cls
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
