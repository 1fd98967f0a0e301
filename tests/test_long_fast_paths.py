"""The fast paths of long input agree exactly with the general ones.

Item and rater ids of integer or categorical dtype are coded without a hash table
(:func:`kappalab.encoding.factorize_keys`); the reference is ``pandas.factorize`` (codes in the
order of first appearance), and the same table with its ids as floats (which take pandas'
hash table) or as text (which take the label identity rule) gives the same codes and the same
α. α itself is checked against krippendorff.alpha on the equivalent reliability matrix.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kappalab as kl
from kappalab.encoding import factorize_keys
from kappalab.errors import MissingValueError

krippendorff = pytest.importorskip("krippendorff")


def reference(ids: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """pandas.factorize's codes and labels (a Categorical's labels as plain values)."""
    codes, uniques = pd.factorize(ids, sort=False)
    if isinstance(uniques, (pd.Categorical, pd.CategoricalIndex)):
        uniques = np.asarray(uniques)
    return codes, pd.Index(uniques)


def assert_as_pandas(ids: pd.Series) -> None:
    codes, uniques = factorize_keys(ids)
    want_codes, want_uniques = reference(ids)
    np.testing.assert_array_equal(codes, want_codes)
    assert codes.dtype == np.intp
    got = pd.Index(uniques)
    assert got.equals(want_uniques) and got.dtype == want_uniques.dtype, (got, want_uniques)


rng = np.random.default_rng(20261204)
N = 5000
ID_COLUMNS = {
    "sorted runs": np.repeat(np.arange(N // 3), 3),
    "sorted with gaps": np.repeat(np.arange(N // 3) * 7 + 11, 3),
    "negative runs": np.repeat(np.arange(-N // 3, 0), 3),
    "unsorted runs": np.repeat(rng.permutation(N // 3) * 5 - 100, 3),
    "runs revisited": np.repeat(rng.integers(0, 40, N // 4), 4),
    "shuffled": rng.permutation(np.repeat(np.arange(N // 3), 3)),
    "shuffled with gaps": rng.integers(-N, N, N) * 3,
    "few, tiled": np.tile(np.array([7, -2, 40]), N // 3),
    "few, shuffled": rng.integers(0, 12, N),
    "few, one late": np.concatenate([np.zeros(N - 1, dtype=np.int64), [9]]),
    "huge": rng.integers(-2**62, 2**62, N),
    "huge, few": rng.choice(np.array([2**62 + 1, -2**62, 5]), N),
    "extremes": np.tile(np.array([2**63 - 1, -2**63, 0]), 4),
    "one id": np.full(N, 3),
    "one row": np.array([42]),
    "uint8": rng.integers(0, 255, N).astype(np.uint8),
    "uint64 huge": np.tile(np.array([2**64 - 1, 0, 2**63], dtype=np.uint64), 5),
    "int32 tiled": np.tile(np.arange(5, dtype=np.int32), N // 5),
}


@pytest.mark.parametrize("name", list(ID_COLUMNS))
def test_integer_ids_are_coded_as_pandas_codes_them(name):
    assert_as_pandas(pd.Series(ID_COLUMNS[name]))


@pytest.mark.parametrize("name", ["sorted runs", "shuffled", "few, tiled", "few, shuffled"])
def test_categorical_ids_are_coded_as_pandas_codes_them(name):
    ids = ID_COLUMNS[name]
    labels = np.array([f"id{v}" for v in np.unique(ids)])[np.unique(ids, return_inverse=True)[1]]
    extra = ["never used", *np.unique(labels)[::-1]]  # an unused category, reversed order
    assert_as_pandas(pd.Series(pd.Categorical(labels, categories=extra)))
    assert_as_pandas(pd.Series(pd.Categorical(ids)))  # integer categories


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-6, 6), min_size=1, max_size=300), st.integers(1, 4),
       st.sampled_from([1, 10**6, 2**40]))
def test_any_integer_ids_are_coded_as_pandas_codes_them(values, repeat, scale):
    ids = np.repeat(np.array(values, dtype=np.int64) * scale, repeat)
    assert_as_pandas(pd.Series(ids))  # a few rows: pandas' hash table
    assert_as_pandas(pd.Series(np.tile(ids, -(-4096 // ids.size))))  # many: the fast paths
    shuffled = np.random.default_rng(len(values)).permutation(np.tile(ids, -(-4096 // ids.size)))
    assert_as_pandas(pd.Series(shuffled))


def long_table(n_items: int, n_raters: int, seed: int, missing: float = 0.0) -> pd.DataFrame:
    """A long table of n_items × n_raters with some cells left out and a few values NaN."""
    r = np.random.default_rng(seed)
    item = np.repeat(np.arange(n_items), n_raters)
    rater = np.tile(np.arange(n_raters), n_items)
    value = (np.repeat(r.integers(0, 4, n_items), n_raters)
             + r.integers(-1, 2, item.size)).astype(float)
    value[r.random(item.size) < missing] = np.nan
    kept = r.random(item.size) < 0.85
    order = r.permutation(int(kept.sum()))
    return pd.DataFrame({"item": item[kept] * 3 - 50, "rater": rater[kept] * 11,
                         "value": value[kept]}).iloc[order].reset_index(drop=True)


def krippendorff_value(df: pd.DataFrame, level: str) -> float:
    wide = df.pivot(index="rater", columns="item", values="value")
    return float(krippendorff.alpha(reliability_data=wide.to_numpy(dtype=float),
                                    level_of_measurement=level))


def alpha(df: pd.DataFrame, level: str) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(kl.krippendorff_alpha(df, level=level))


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("seed,missing", [(0, 0.0), (1, 0.1), (2, 0.3)])
def test_fast_and_general_key_paths_give_one_annotations(level, seed, missing):
    df = long_table(300, 4, seed, missing)
    as_float = df.assign(item=df["item"].astype(float), rater=df["rater"].astype(float))
    as_text = df.assign(item=df["item"].astype(str).astype(object),
                        rater=df["rater"].astype(str).astype(object))
    as_category = df.assign(item=df["item"].astype("category"),
                            rater=df["rater"].astype("category"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = kl.Annotations.from_long(df)
        built = {name: kl.Annotations.from_long(other) for name, other in
                 [("float", as_float), ("text", as_text), ("category", as_category)]}
    for name, other in built.items():
        for got, want in zip(fast.codes(), other.codes()):
            np.testing.assert_array_equal(got, want, err_msg=name)
        assert [float(v) for v in fast.items] == [float(v) for v in other.items]
        assert [float(v) for v in fast.raters] == [float(v) for v in other.raters]
        assert fast.categories.equals(other.categories)
    want = krippendorff_value(df, level)
    for table in (df, as_float, as_text, as_category):
        assert alpha(table, level) == pytest.approx(want, abs=1e-12)


def test_integer_ids_keep_their_own_labels():
    df = pd.DataFrame({"item": np.array([2**62 + 1, 2**62 + 1, -5, -5]),
                       "rater": np.array([3, 9, 9, 3], dtype=np.uint8),
                       "value": [1, 1, 0, 1]})
    ann = kl.Annotations.from_long(df)
    assert ann.items.tolist() == [2**62 + 1, -5] and ann.items.dtype == np.int64
    assert ann.raters.tolist() == [3, 9] and ann.raters.dtype == np.uint8
    assert ann.items.name == "item" and ann.raters.name == "rater"


def test_a_missing_categorical_id_is_refused_in_one_line():
    df = pd.DataFrame({"item": pd.Categorical(["a", None, "b"]), "rater": [1, 2, 1],
                       "value": [0, 1, 1]})
    with pytest.raises(MissingValueError, match=r"1 row\(s\) have no 'item' \(first at row 1\)"):
        kl.Annotations.from_long(df)


def test_labels_seen_only_on_dropped_rows_are_not_kept():
    df = pd.DataFrame({"item": [5, 5, 9, 9, 7], "rater": [1, 2, 1, 2, 1],
                       "value": [0.0, 1.0, np.nan, np.nan, 1.0]})
    with pytest.warns(kl.errors.DroppedAnnotationsWarning, match="dropped 2 of 5"):
        ann = kl.Annotations.from_long(df)
    assert ann.items.tolist() == [5, 7]
    assert ann.codes()[0].tolist() == [0, 0, 1]


# ---------------------------------------------------------------------- values
def continuous_table(seed: int, missing: float) -> pd.DataFrame:
    """Every value distinct (continuous), some missing, some items with one annotation."""
    r = np.random.default_rng(seed)
    n_items, n_raters = 200, 3
    item = np.repeat(np.arange(n_items), n_raters)
    value = np.repeat(r.normal(0, 2, n_items), n_raters) + r.normal(0, 1, item.size)
    value[r.random(item.size) < missing] = np.nan
    return pd.DataFrame({"item": item, "rater": np.tile(["u", "v", "w"], n_items),
                         "value": value})


def quietly(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def general(df: pd.DataFrame) -> kl.Annotations:
    """The same table through the general path: its categories given (the sorted values)."""
    return quietly(kl.Annotations.from_long, df,
                   categories=np.unique(df["value"].dropna().to_numpy()))


@pytest.mark.parametrize("seed,missing", [(0, 0.0), (1, 0.2), (2, 0.5)])
def test_float_values_are_coded_when_needed_as_numpy_codes_them(seed, missing):
    df = continuous_table(seed, missing)
    ann = quietly(kl.Annotations.from_long, df)
    present = df["value"].dropna().to_numpy()
    found, inverse = np.unique(present, return_inverse=True)
    reference = general(df)
    for factor, shift in [(1.0, 0.0), (0.25, 1.5)]:
        for got, want in zip(ann.item_moments(factor, shift),
                             reference.item_moments(factor, shift)):
            np.testing.assert_array_equal(got, want)
        for got, want in zip(ann.rater_moments(factor, shift),
                             reference.rater_moments(factor, shift)):
            np.testing.assert_array_equal(got, want)
    assert "_long_codes" not in ann.__dict__  # the moments needed no codes
    np.testing.assert_array_equal(ann.categories.to_numpy(), found)
    assert ann.categories.name == "category"
    np.testing.assert_array_equal(ann.codes()[2], inverse)
    for got, want in zip(ann.codes(), reference.codes()):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ann.count_matrix, reference.count_matrix)
    pd.testing.assert_frame_equal(ann.to_long(), reference.to_long())
    pd.testing.assert_frame_equal(ann.wide, reference.wide)


def test_float_values_coded_before_their_categories_are_asked_for():
    df = continuous_table(3, 0.1)
    ann = quietly(kl.Annotations.from_long, df)
    codes = ann.codes()[2]  # the codes first: the categories come with them
    np.testing.assert_array_equal(ann.categories.to_numpy()[codes],
                                  df["value"].dropna().to_numpy())


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("seed,missing", [(4, 0.0), (5, 0.3)])
def test_alpha_of_float_values_equals_krippendorff(level, seed, missing):
    df = continuous_table(seed, missing)
    if level == "ratio":
        df["value"] = df["value"].abs()
    wide = df.pivot(index="rater", columns="item", values="value").to_numpy(dtype=float)
    want = float(krippendorff.alpha(reliability_data=wide, level_of_measurement=level))
    assert alpha(df, level) == pytest.approx(want, abs=1e-12)
    assert quietly(kl.krippendorff_alpha, general(df), level=level).value == pytest.approx(
        want, abs=1e-12)


@pytest.mark.parametrize("coefficient", ["janson_olsson_iota", "conger_kappa", "fleiss_kappa"])
def test_float_values_give_the_general_paths_estimates(coefficient):
    df = continuous_table(6, 0.2)
    option = "level" if coefficient == "janson_olsson_iota" else "weights"
    fast = quietly(getattr(kl, coefficient), df, **{option: "interval" if option == "level"
                                                    else "quadratic"})
    slow = quietly(getattr(kl, coefficient), general(df), **{
        option: "interval" if option == "level" else "quadratic"})
    assert fast.value == pytest.approx(slow.value, abs=1e-12)


def test_float_subsets_equal_the_general_paths():
    df = continuous_table(7, 0.2)
    ann, reference = quietly(kl.Annotations.from_long, df), general(df)
    for a, b in [(ann.subset_items([5, 3, 9]), reference.subset_items([5, 3, 9])),
                 (ann.subset_raters([2, 0]), reference.subset_raters([2, 0]))]:
        for got, want in zip(a.codes(), b.codes()):
            np.testing.assert_array_equal(got, want)
        assert a.categories.equals(b.categories)


def test_whole_float_values_stay_categories_as_before():
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
                       "value": [1.0, 3.0, 3.0, np.nan]})
    ann = quietly(kl.Annotations.from_long, df)
    assert ann.categories.tolist() == [1, 3] and ann.categories.dtype == np.int64
    assert ann.codes()[2].tolist() == [0, 1, 1]


def test_one_float_value_and_an_infinite_one():
    df = pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "a"], "value": [0.5] * 3})
    ann = kl.Annotations.from_long(df)
    assert ann.categories.tolist() == [0.5] and ann.codes()[2].tolist() == [0, 0, 0]
    df.loc[2, "value"] = np.inf
    with pytest.raises(MissingValueError, match=r"1 value\(s\) are infinite \(first at row 2\)"):
        kl.Annotations.from_long(df)


@pytest.mark.parametrize("shift", [0, 100, -3])
def test_precoded_values_equal_shifted_ones(shift):
    r = np.random.default_rng(8)
    df = pd.DataFrame({"item": np.repeat(np.arange(500), 2), "rater": np.tile([0, 1], 500),
                       "value": r.integers(0, 5, 1000) + shift})
    ann = kl.Annotations.from_long(df)
    assert ann.categories.tolist() == [shift + k for k in range(5)]
    np.testing.assert_array_equal(ann.codes()[2], df["value"].to_numpy() - shift)
    gapped = df.assign(value=df["value"] * 2)  # gaps between the values: codes remapped
    np.testing.assert_array_equal(kl.Annotations.from_long(gapped).codes()[2],
                                  df["value"].to_numpy() - shift)


@pytest.mark.parametrize("labels", [["lo", "mid", "hi"], [3.5, -1.0, 2.25], [10, 2, 7]])
def test_unordered_categorical_values_equal_plain_ones(labels):
    r = np.random.default_rng(9)
    plain = pd.DataFrame({"item": np.repeat(np.arange(300), 3),
                          "rater": np.tile(["a", "b", "c"], 300),
                          "value": np.array(labels, dtype=object)[r.integers(0, 3, 900)]})
    plain.loc[r.random(900) < 0.1, "value"] = None
    unused = ["zzz"] if isinstance(labels[0], str) else [99]
    categorical = plain.assign(value=pd.Categorical(plain["value"],
                                                    categories=unused + labels[::-1]))
    a, b = quietly(kl.Annotations.from_long, categorical), quietly(kl.Annotations.from_long,
                                                                   plain)
    assert a.categories.equals(b.categories) and a.categories.tolist() == sorted(labels)
    for got, want in zip(a.codes(), b.codes()):
        np.testing.assert_array_equal(got, want)
    assert quietly(kl.krippendorff_alpha, a).value == quietly(kl.krippendorff_alpha, b).value


def test_categorical_texts_that_read_as_one_number_still_warn():
    values = ["1", "01", "1", "2"]
    plain = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
                          "value": values})
    categorical = plain.assign(value=pd.Categorical(values))
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        b = kl.Annotations.from_long(plain)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        a = kl.Annotations.from_long(categorical)
    assert [str(w.message) for w in got] == [str(w.message) for w in want] and want
    assert a.categories.equals(b.categories)


@pytest.mark.parametrize("ids", [
    pd.array(["b", "a", None, "b"], dtype="string"),
    pd.array(["b", "a", "c", "b"], dtype="str"),
    pd.array([3, None, 1, 3], dtype="Int64"),
    pd.array([2.5, 1.0, 2.5, None], dtype="Float64"),
    np.array(["2026-01-02", "2026-01-01", "2026-01-02"], dtype="datetime64[ns]"),
    np.array([True, False, True]),
])
def test_other_ids_are_coded_as_pandas_codes_them(ids):
    assert_as_pandas(pd.Series(ids))


def test_float_values_in_agreement_and_alone_as_the_general_path():
    agree = pd.DataFrame({"item": np.repeat([1, 2, 3, 4], 2), "rater": ["a", "b"] * 4,
                          "value": np.repeat([0.5, 1.25, 3.75, 0.5], 2)})
    for level in ("nominal", "interval", "ordinal"):
        assert alpha(agree, level) == pytest.approx(1.0, abs=1e-12)  # every pair agrees
    alone = pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "a"],
                          "value": [0.5, 0.5, 0.5]})  # one value: α undefined, as before
    with pytest.warns(kl.errors.UndefinedCoefficientWarning):
        fast = kl.krippendorff_alpha(alone, level="interval")
    with pytest.warns(kl.errors.UndefinedCoefficientWarning):
        slow = kl.krippendorff_alpha(general(alone), level="interval")
    assert np.isnan(fast.value) and np.isnan(slow.value)


def test_no_float_value_is_refused_in_one_line():
    df = pd.DataFrame({"item": [1, 2], "rater": ["a", "a"], "value": [np.nan, np.nan]})
    with pytest.raises(kl.errors.EmptyDataError, match="every 'value' value is missing"):
        quietly(kl.Annotations.from_long, df)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["nominal", "ordinal", "interval"]),
       st.sampled_from(["huge", "text", "negative"]), st.booleans())
def test_alpha_is_invariant_to_row_order_and_the_ids_spelling(seed, level, spelling, floats):
    r = np.random.default_rng(seed)
    n_items, n_raters = int(r.integers(2, 30)), int(r.integers(2, 5))
    item = np.repeat(np.arange(n_items), n_raters)
    rater = np.tile(np.arange(n_raters), n_items)
    value = r.integers(0, 4, item.size).astype(float)
    if floats:
        value = value + r.normal(0, 0.3, item.size)
    value[r.random(item.size) < 0.2] = np.nan
    df = pd.DataFrame({"item": item, "rater": rater, "value": value})
    if df["value"].notna().sum() < 2:
        return
    spell = {"huge": lambda ids: ids * (2**40 + 3) + 2**61,
             "text": lambda ids: pd.Series(ids).map("id-{}".format).to_numpy(dtype=object),
             "negative": lambda ids: -7 * ids - 1}[spelling]
    other = pd.DataFrame({"item": spell(item), "rater": spell(rater), "value": value}
                         ).iloc[r.permutation(item.size)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = kl.krippendorff_alpha(df, level=level).value
        b = kl.krippendorff_alpha(other, level=level).value
    assert (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, abs=1e-12)


@pytest.mark.parametrize("store", ["long", "long floats", "wide", "counts"])
def test_selected_category_totals_sum_the_count_table(store):
    df = long_table(120, 3, 11, missing=0.2)
    if store == "long floats":
        df["value"] = df["value"] + 0.5 * (df["item"] % 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ann = kl.Annotations.from_long(df)
        if store == "wide":
            ann = kl.Annotations.from_wide(ann.wide)
        elif store == "counts":
            ann = kl.Annotations.from_counts(ann.counts)
    m = ann.annotations_per_item_array
    for selected in (m >= 2, m >= 3, np.zeros(ann.n_items, dtype=bool)):
        want = ann.count_matrix[selected].sum(axis=0)  # the table, summed by numpy
        got = ann.selected_category_totals(selected)
        np.testing.assert_array_equal(got, want.astype(float))


@given(st.lists(st.text(alphabet="abcé€𝄞 ", max_size=5), min_size=1, max_size=60))
def test_factorize_texts_equals_numpy_unique_and_pandas_factorize(texts):
    """encoding.factorize_texts, sorted against np.unique's inverse, in order of appearance
    against pandas.factorize (the oracles), on texts of several widths and code points."""
    from kappalab.encoding import factorize_texts
    values = np.array(texts)
    found = factorize_texts(values)
    assert found is not None
    uniques, inverse = np.unique(values, return_inverse=True)
    assert found[0].tolist() == inverse.ravel().tolist()
    assert found[1].tolist() == uniques.tolist()
    codes, first_seen = pd.factorize(pd.Series(texts, dtype=object))
    found = factorize_texts(values, sort=False)
    assert found is not None
    assert found[0].tolist() == codes.tolist() and found[1].tolist() == list(first_seen)
