"""Small calls without fixed costs (issue: per-call overhead at about 1 000 annotations): the
shortcuts a small wide table takes give what the general code gives, and the values what a
peer library gives."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import kappalab as kl
from kappalab import encoding
from kappalab.annotations import Annotations
from kappalab.coefficients.base import safe_divide
from kappalab.errors import DuplicateAnnotationError, EmptyDataError


def tables():
    """Varied items × raters tables of whole numbers (NaN missing)."""
    rng = np.random.default_rng(26)
    x = rng.integers(1, 8, size=(334, 3)).astype(float)
    x[rng.random(x.shape) < 0.05] = np.nan
    one_annotation = x.copy()
    one_annotation[::3, 1:] = np.nan  # every third item has one annotation
    agreeing = np.repeat(rng.integers(0, 4, size=(50, 1)), 4, axis=1).astype(float)
    gaps = rng.choice([-3.0, 0.0, 5.0, 9.0], size=(40, 5))  # values 1..8 absent
    gaps[rng.random(gaps.shape) < 0.2] = np.nan
    return {
        "missing": x,
        "one annotation": one_annotation,
        "all agreeing": agreeing,
        "one category": np.full((6, 3), 2.0),
        "integers": rng.integers(-2, 3, size=(30, 4)),
        "gaps": gaps,
        "a rater without annotations": np.column_stack([x[:20, :2], np.full(20, np.nan)]),
    }


@pytest.mark.parametrize("name", list(tables()))
def test_counting_a_small_table_in_one_block_equals_counting_it_by_blocks(name, monkeypatch):
    table = tables()[name]
    lo, hi = np.nanmin(table), np.nanmax(table)
    one = encoding.count_small_integers(table, lo, hi)
    monkeypatch.setattr(encoding, "_BLOCK_CELLS", 8)  # blocks of two or three rows
    blocks = encoding.count_small_integers(table, lo, hi)
    assert one is not None and blocks is not None
    np.testing.assert_array_equal(one.counts, blocks.counts)
    np.testing.assert_array_equal(one.categories, blocks.categories)
    np.testing.assert_array_equal(one.per_item, blocks.per_item)
    assert one.n_active_raters == blocks.n_active_raters
    np.testing.assert_array_equal(one.wide_codes(), blocks.wide_codes())
    # and the counts by hand: one row per item, one column per value that occurs
    values = np.unique(table[~np.isnan(table.astype(float))])
    by_hand = np.array([[np.sum(row == v) for v in values] for row in table])
    np.testing.assert_array_equal(one.counts, by_hand)
    np.testing.assert_array_equal(one.categories, values)
    assert one.n_active_raters == int((~np.isnan(table.astype(float))).any(axis=0).sum())


def test_a_table_with_a_fraction_is_not_counted_in_one_block_either():
    table = np.array([[1.0, 2.0], [2.5, np.nan]])
    assert encoding.count_small_integers(table, 1.0, 2.5) is None


@pytest.mark.parametrize("numerator, denominator", [
    (np.array(3.0), np.array(7.0)),
    (np.array([1.0, -2.5, 1e-300, np.inf]), np.array([3.0, 1e-10, 7.0, 2.0])),
    (np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([0.1, 3.0])),  # broadcast
    (np.array([1.0, 0.0, 2.0]), np.array([0.0, 0.0, 4.0])),  # zero divisors: NaN
    (np.array([1.0, 2.0]), np.array([-0.0, np.nan])),
])
def test_safe_divide_of_floats_is_the_plain_quotient_and_nan_at_a_zero_divisor(numerator,
                                                                              denominator):
    out = safe_divide(numerator, denominator)
    n, d = np.broadcast_arrays(numerator, denominator)
    expected = [a / b if b != 0 else float("nan") for a, b in zip(n.ravel().tolist(),
                                                                  d.ravel().tolist())]
    assert isinstance(out, np.ndarray) and out.shape == n.shape and out.dtype == float
    np.testing.assert_array_equal(out.ravel(), expected)


def test_complex_and_object_divisions_keep_their_type():
    assert safe_divide(np.array([1 + 1j]), np.array([2.0])).dtype.kind == "c"
    assert safe_divide(np.array([1.0], dtype=object), np.array([0.0])).dtype == object


def test_the_category_index_of_consecutive_codes_is_each_annotations_own():
    a = Annotations.from_wide([[1, 2], [3, 3]])
    b = Annotations.from_wide([[3, 1], [2, 2]])
    assert a.categories.equals(pd.Index([1, 2, 3], name="category"))
    assert a.categories.dtype == np.int64 and a.categories is not b.categories
    b.categories.name = "renamed"
    assert a.categories.name == "category"
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(a.categories)[0] = 9
    assert list(Annotations.from_wide([[1, 2], [3, 3]]).categories) == [1, 2, 3]


@pytest.mark.parametrize("frame, role", [
    (pd.DataFrame([[1, 2], [2, 2]], columns=["a", "a"]), "rater 'a'"),
    (pd.DataFrame([[1, 2], [2, 2]], columns=[7, 7]), "rater 7"),
    (pd.DataFrame([[1, 2], [2, 2]], index=["d", "d"]), "item 'd'"),
    (pd.DataFrame([[1, 2], [2, 2]], index=[4, 4]), "item 4"),
])
def test_a_repeated_label_of_a_few_is_still_refused_in_one_line(frame, role):
    with pytest.raises(DuplicateAnnotationError, match=role):
        Annotations.from_wide(frame)


def test_a_float_frame_reads_as_its_array():
    x = tables()["missing"]
    frame = pd.DataFrame(x.astype(np.float32), columns=["a", "b", "c"])
    mixed = pd.DataFrame({"a": x[:, 0], "b": pd.array([None if np.isnan(v) else int(v)
                                                       for v in x[:, 1]], dtype="Int64"),
                          "c": x[:, 2]})
    for data in (frame, mixed):
        read = Annotations.from_wide(data)
        np.testing.assert_array_equal(read.count_matrix, Annotations.from_wide(x).count_matrix)
    with pytest.raises(EmptyDataError):
        Annotations.from_wide(pd.DataFrame({"a": [np.nan], "b": [np.nan]}))


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("name", ["missing", "one annotation", "gaps"])
def test_alpha_of_a_small_wide_table_is_krippendorffs(level, name):
    krippendorff = pytest.importorskip("krippendorff")
    x = tables()[name]
    if level == "ratio" and np.nanmin(x) < 0:
        pytest.skip("the ratio metric needs non-negative values")
    expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement=level)
    for data in (x, pd.DataFrame(x, columns=[f"r{j}" for j in range(x.shape[1])])):
        assert float(kl.krippendorff_alpha(data, level=level)) == pytest.approx(expected,
                                                                                abs=1e-12)


@pytest.mark.parametrize("frame", [
    pd.DataFrame({"a": [1, 2], "b": [0.5, None], "c": ["x", "y"]}),
    pd.DataFrame({"a": pd.array([1, None], dtype="Int64"), "b": pd.Categorical(["x", "y"]),
                  "c": [True, False], "d": pd.to_datetime(["2020-01-01", "2021-01-01"])}),
    pd.DataFrame(np.zeros((3, 0))),
    pd.DataFrame(np.zeros((2, 3)), columns=pd.MultiIndex.from_tuples([(1, "a"), (1, "b"),
                                                                       (2, "a")])),
])
def test_the_column_dtypes_are_those_of_df_dtypes(frame):
    assert encoding._frame_dtypes(frame) == list(frame.dtypes)


@pytest.mark.parametrize("index", [
    pd.RangeIndex(2, 9, 3), pd.Index(["x", "y", "x"]), pd.Index([3, 1]),
    pd.Index([1.5, np.nan]), pd.DatetimeIndex(["2020-01-01", "2021-01-01"]),
    pd.Index(["a", "b"], name="old"),
])
def test_a_renamed_index_equals_a_new_index_of_that_name(index):
    renamed, new = encoding._renamed(index, "rater"), pd.Index(index, name="rater")
    assert renamed.equals(new) and renamed.name == "rater" and type(renamed) is type(new)
    assert renamed.dtype == new.dtype and index.name != "rater"


@pytest.mark.parametrize("kind", ["level", "weights"])
def test_only_the_ratio_metric_needs_the_origin_of_the_values(kind):
    """``distance_for`` passes the categories' origin (their smallest value, for integers
    beyond 2**53) to the ratio metric only: every other name resolves to the same distance
    with the origin as without it."""
    from kappalab.coefficients.multirater import distance_for
    from kappalab.distances import LEVELS, WEIGHTS, category_distance

    big = 2**60
    ann = Annotations.from_wide([[big + 1, big + 3], [big + 3, big + 7], [big + 1, big + 1]])
    assert ann.value_origin == big + 1
    for name in (LEVELS if kind == "level" else (None,) + tuple(WEIGHTS)):
        with_origin = category_distance(name, ann.categories, kind=kind,
                                        values=ann.category_values,
                                        marginals=lambda: np.array([3.0, 2.0, 1.0]),
                                        origin=ann.value_origin)
        resolved = distance_for(ann, name, kind=kind)
        np.testing.assert_array_equal(resolved.matrix, with_origin.matrix)
        assert resolved.scale == with_origin.scale


@pytest.mark.parametrize("first, expected", [
    (np.arange(10.0), True),  # every value distinct: an item id column
    (np.arange(10, dtype=np.uint8) * 25, True),  # 0..225 spanning more than 10 rows
    (np.array([1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 4.0]), False),
    (np.arange(10.0) / 2, True),  # halves: not whole numbers, every value distinct
    (np.array([np.nan] + list(range(9)), dtype=float), False),
])
def test_the_item_id_heuristic_is_unchanged_by_its_shortcut(first, expected):
    """A first column of whole numbers spanning fewer values than rows cannot be an id
    column (found without hashing it); the other columns repeat two labels."""
    table = np.column_stack([first.astype(float), np.tile([1.0, 2.0], 5),
                             np.tile([2.0, 1.0], 5)])
    if first.dtype.kind in "iu":
        table = np.column_stack([first, np.tile([1, 2], 5), np.tile([2, 1], 5)])
    assert encoding._looks_like_id_column(table) is expected


@pytest.mark.parametrize("name", list(tables()))
def test_item_moments_from_the_counts_equal_those_from_the_codes(name):
    """A wide table of small integers takes its item moments from its count table until its
    per-annotation codes exist; the moments agree with the codes' bincounts to 1e-12."""
    table = tables()[name]
    fast, general = Annotations.from_wide(table), Annotations.from_wide(table)
    general.codes()  # per-annotation codes built: the general path
    assert fast._counted_without_codes and not general._counted_without_codes
    values = np.linspace(-1.0, 1.0, fast.n_categories) ** 3  # positions other than the codes
    for args in ((0.5, 0.25, values), (0.5, 0.25, None)):
        if args[2] is None and not fast.is_numeric:
            continue
        for a, b in zip(fast.item_moments(*args), general.item_moments(*args)):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    # by hand: the first item's m, Σx and Σx² of the scores 0.5 (value − 0.25)
    row = table[0][~np.isnan(table[0].astype(float))].astype(float)
    m, s1, s2 = fast.item_moments(0.5, 0.25)
    x = 0.5 * (row - 0.25)
    assert (m[0], s1[0], s2[0]) == pytest.approx((row.size, x.sum(), (x * x).sum()), abs=1e-12)
