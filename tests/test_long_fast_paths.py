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
    assert_as_pandas(pd.Series(np.repeat(np.array(values, dtype=np.int64) * scale, repeat)))


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
