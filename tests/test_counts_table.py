"""``Annotations.from_counts``: the fast check of plain integer and float tables gives the
same annotations as the cell-by-cell one (reached with an object-dtype copy of the same
table), and Fleiss' κ on them is statsmodels' ``fleiss_kappa`` of the table."""

import numpy as np
import pandas as pd
import pytest

import kappalab as kl
from kappalab import errors
from kappalab.annotations import Annotations as A

sm_inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")


def _same_annotations(fast: A, slow: A) -> None:
    assert fast.count_matrix.dtype == slow.count_matrix.dtype == np.int64
    np.testing.assert_array_equal(fast.count_matrix, slow.count_matrix)
    # the row sums the fast check leaves behind, against those the table gives afterwards
    m = fast.annotations_per_item_array
    assert m.dtype == np.int64
    np.testing.assert_array_equal(m, slow.count_matrix.sum(axis=1))
    np.testing.assert_array_equal(m, slow.annotations_per_item_array)
    assert fast.items.equals(slow.items) and fast.items.name == slow.items.name == "item"
    assert type(fast.items) is type(slow.items)
    assert fast.categories.equals(slow.categories)
    assert type(fast.categories) is type(slow.categories)
    assert fast.categories.name == slow.categories.name == "category"
    assert fast.categories.dtype == slow.categories.dtype
    assert fast.raters is None and slow.raters is None
    assert fast.n_annotations == slow.n_annotations


def _tables():
    rng = np.random.default_rng(26)
    complete = rng.multinomial(5, [0.5, 0.3, 0.2], size=400)      # 5 ratings per item
    uneven = rng.integers(0, 4, size=(300, 4))                   # 0 … 12 ratings per item
    uneven[:7] = 0                                               # items without ratings
    uneven[7:20] = [1, 0, 0, 0]                                  # items with one rating
    return {
        "complete int64": complete,
        "uneven int64": uneven,
        "int32": uneven.astype(np.int32),
        "uint8": uneven.astype(np.uint8),
        "uint64": uneven.astype(np.uint64),
        "float64": uneven.astype(float),
        "float32": uneven.astype(np.float32),
        "one category": np.array([[3], [2], [4]]),
        "all agree": np.array([[4, 0], [0, 4], [4, 0]]),
        "one item": np.array([[2, 1, 1]]),
        "Fortran order": np.asfortranarray(uneven),
        "strided": uneven[::2, ::-1],
    }


@pytest.mark.filterwarnings("ignore::kappalab.errors.UndefinedCoefficientWarning")
@pytest.mark.parametrize("name", list(_tables()))
def test_fast_check_matches_the_cell_by_cell_one(name):
    table = _tables()[name]
    fast = A.from_counts(table)
    slow = A.from_counts(table.astype(object))  # object dtype: checked cell by cell
    _same_annotations(fast, slow)
    a, b = kl.fleiss_kappa(fast), kl.fleiss_kappa(slow)
    np.testing.assert_equal(float(a), float(b))


def test_dataframe_and_categories_keep_their_labels():
    df = pd.DataFrame([[1, 2, 0], [0, 3, 1]], index=["u", "v"], columns=["lo", "mid", "hi"])
    fast, slow = A.from_counts(df), A.from_counts(df.astype(object))
    _same_annotations(fast, slow)
    assert list(fast.items) == ["u", "v"] and list(fast.categories) == ["lo", "mid", "hi"]
    given = A.from_counts(df.to_numpy(), categories=["x", "y", "z"])
    _same_annotations(given, A.from_counts(df.to_numpy().astype(object),
                                           categories=["x", "y", "z"]))
    assert list(given.categories) == ["x", "y", "z"]


def test_table_is_copied():
    table = np.array([[2, 1], [0, 3]])
    ann = A.from_counts(table)
    table[0, 0] = 9
    assert ann.count_matrix.tolist() == [[2, 1], [0, 3]]


def test_the_table_is_kept_once_as_read_only_floats():
    table = np.array([[2, 1], [0, 3]])
    ann = A.from_counts(table)
    table[0, 0] = 9  # the caller's table changes; the store does not
    floats = ann.category_counts()
    assert floats.dtype == np.float64 and floats.tolist() == [[2.0, 1.0], [0.0, 3.0]]
    assert ann.category_counts() is floats  # not copied again
    with pytest.raises(ValueError, match="read-only"):
        floats[0, 0] = 5.0
    assert ann.count_matrix.dtype == np.int64 and ann.count_matrix.tolist() == [[2, 1], [0, 3]]
    # large whole numbers (the largest count times the cells below 2**53) stay exact
    n = 2**50
    exact = A.from_counts(np.array([[n, n - 1], [1, 2]], dtype=np.int64))
    assert not exact.category_counts().flags.writeable  # kept as floats
    assert exact.count_matrix.tolist() == [[n, n - 1], [1, 2]]
    assert exact.annotations_per_item_array.tolist() == [2 * n - 1, 3]


def test_huge_counts_take_the_careful_path():
    # beyond 2**53 float64 no longer holds every sum exactly: checked cell by cell, accepted
    # while int64 holds them
    big = 2**60
    ann = A.from_counts(np.array([[big, 1], [0, 3]], dtype=np.int64))
    assert ann.count_matrix.tolist() == [[big, 1], [0, 3]]
    assert ann.annotations_per_item_array.tolist() == [big + 1, 3]
    with pytest.raises(errors.InvalidCountError, match="does not fit in int64"):
        A.from_counts(np.array([[2**62, 2**62], [0, 3]], dtype=np.int64))
    with pytest.raises(errors.InvalidCountError, match="does not fit in int64"):
        A.from_counts(np.array([[2**63, 1]], dtype=np.uint64))


@pytest.mark.parametrize("table, message", [
    (np.array([[1, -1], [2, 0]]), "negative or not whole"),
    (np.array([[1.0, 0.5], [2.0, 0.0]]), r"1 count\(s\) are negative or not whole numbers "
                                         r"\(first: 0.5 at row 0, column 1\)"),
    (np.array([[1.0, np.nan], [2.0, 0.0]]), "NaN or infinite"),
    (np.array([[1.0, np.inf], [2.0, 0.0]]), "NaN or infinite"),
    (np.array([[1.0, -np.inf], [2.0, 0.0]]), "NaN or infinite"),
    (np.array([[0, 0], [0, 0]]), "every count is zero"),
    (np.array([[0.0, 0.0]]), "every count is zero"),
])
def test_bad_tables_are_refused_in_one_line(table, message):
    with pytest.raises((errors.InvalidCountError, errors.EmptyDataError), match=message):
        A.from_counts(table)


def test_wrong_categories_are_refused():
    with pytest.raises(errors.InvalidParameterError, match="2 categories given for a counts "
                                                           "table with 3 columns"):
        A.from_counts(np.array([[1, 2, 0]]), categories=["a", "b"])
    with pytest.raises(errors.InvalidParameterError, match="categories repeat"):
        A.from_counts(np.array([[1, 2]]), categories=["a", "a"])


@pytest.mark.parametrize("n_items", [1000, 10_000])
def test_fleiss_matches_statsmodels(n_items):
    rng = np.random.default_rng(n_items)
    wide = rng.integers(0, 5, size=(n_items, 4))
    table, _ = sm_inter_rater.aggregate_raters(wide)
    expected = sm_inter_rater.fleiss_kappa(table)
    assert float(kl.fleiss_kappa(A.from_counts(table))) == pytest.approx(expected, abs=1e-12)
    assert float(kl.fleiss_kappa(A.from_counts(table.astype(float)))) == pytest.approx(
        expected, abs=1e-12)
    assert float(kl.fleiss_kappa(wide)) == pytest.approx(expected, abs=1e-12)


def test_the_null_standard_error_is_computed_when_read_and_is_fleiss_nee_landis(monkeypatch):
    from kappalab.coefficients.multirater import ChanceCorrectedAgreement

    calls = []
    original = ChanceCorrectedAgreement.null_standard_error
    monkeypatch.setattr(ChanceCorrectedAgreement, "null_standard_error",
                        lambda self: calls.append(1) or original(self))
    table = np.random.default_rng(7).multinomial(6, [0.5, 0.3, 0.2], size=250)
    est = kl.fleiss_kappa(A.from_counts(table))
    assert calls == []  # not computed for a value nobody reads
    # Fleiss, Nee & Landis (1979), equal m: Var₀ = 2/(N m(m−1)) ((Σpq)² − Σpq(q−p))/(Σpq)²
    n, m = table.shape[0], 6
    p = table.sum(axis=0) / (n * m)
    q = 1 - p
    pq = (p * q).sum()
    by_hand = np.sqrt(2 / (n * m * (m - 1)) * (pq**2 - (p * q * (q - p)).sum()) / pq**2)
    assert est.details["se_null"] == pytest.approx(by_hand, rel=1e-12)
    assert est.details["se_null"] == pytest.approx(by_hand, rel=1e-12)
    assert calls == [1]  # once, then kept


@pytest.mark.parametrize("name", ["complete int64", "uneven int64", "float64", "strided"])
@pytest.mark.parametrize("coefficient", ["fleiss_kappa", "gwet_ac", "krippendorff_alpha",
                                         "brennan_prediger", "percent_agreement"])
def test_totals_of_a_counts_table_are_the_summed_item_statistics(name, coefficient):
    """The totals sum each group of columns of a block on its own (no stacked copy of the
    counts): they equal the column sums of the stacked item statistics."""
    from kappalab.coefficients.registry import lookup

    ann = A.from_counts(_tables()[name])
    core = lookup(coefficient).core(ann)
    np.testing.assert_allclose(core.totals(), np.asarray(core.item_stats().sum(axis=0)).ravel(),
                               rtol=1e-13, atol=1e-12)
