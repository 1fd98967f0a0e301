"""Reading and encoding annotations: what :class:`~kappalab.annotations.Annotations`'
constructors (``from_long``, ``from_wide``, ``from_counts``) use to turn raw input into
integer category codes.

Tables are read into one matrix (exact integers kept exact, numbers as float with NaN for
missing, objects otherwise), checked (infinite values, duplicated (item, rater) pairs, the
:class:`~kappalab.errors.LayoutWarning` heuristics for tables that look like another layout)
and factorized into category codes: by counting for small whole numbers, by hashing for
fixed-width unicode, by sorting otherwise, always by one label identity rule
(:func:`label_identity`: numbers, booleans and texts are different labels) — which the
command line's cells follow too, each typed by its own text (:func:`text_cell_labels`). The
front door's reading of a DataFrame, long or wide, is :func:`long_columns` and
:func:`check_plainly_wide`. Set-valued (multi-label) annotations — Python sets,
frozensets, lists or tuples of labels, or strings split at ``sep=`` — are read by
:func:`label_sets`: each distinct set of labels is one category, a ``frozenset``.
Nothing here knows the ``Annotations`` store.
"""

from __future__ import annotations

import functools
import numbers
import sys
import warnings
from typing import Any, Callable, NamedTuple, Sequence, cast

import numpy as np
import pandas as pd

from .errors import (
    DuplicateAnnotationError,
    InvalidParameterError,
    KappalabError,
    LabelWarning,
    LayoutError,
    LayoutWarning,
    MissingValueError,
    NonNumericError,
    UnknownCategoryError,
    label,
    warn,
)

__all__ = ["BOOLEAN_WORDS", "INT64_LIMIT", "LABEL_TYPES", "LONG_SCHEMAS", "LONG_VOCABULARY",
           "SET_TYPES", "NumericPositions", "SmallIntegerTable", "WideTable", "category_index",
           "check_layout", "check_plainly_wide", "code_dtype", "count_small_integers",
           "encode_column", "encode_values", "exact_as_float", "factorize_keys", "factorize_texts",
           "holds_sets",
           "integer_categories", "label_identity", "label_sets", "long_columns",
           "numeric_positions", "preview", "reject_duplicate_pairs", "reject_infinite",
           "set_item_column", "text_cell_labels", "transposed", "wide_to_matrix"]

#: the Python types read as a set of labels (one multi-label annotation)
SET_TYPES = (set, frozenset, list, tuple)


def code_dtype(n_categories: int) -> type:
    """The integer type of category codes for ``n_categories`` categories.

    Parameters
    ----------
    n_categories : int
        Number of categories.

    Returns
    -------
    type
        ``numpy.int32``, or ``numpy.int64`` from 2**31 − 1 categories on.

    Examples
    --------
    >>> code_dtype(3).__name__, code_dtype(2**31).__name__
    ('int32', 'int64')
    """
    return np.int32 if n_categories < 2**31 - 1 else np.int64


def preview(index: Sequence[Any] | pd.Index | np.ndarray, limit: int = 6) -> str:
    """The first ``limit`` labels of ``index`` for a message: ``[a, b, ...]``.

    Parameters
    ----------
    index : sequence
        The labels (an Index, a list, an array).
    limit : int, default 6
        How many labels to show; ``...`` marks the rest.

    Returns
    -------
    str
        The labels as their ``repr`` (numpy scalars as plain values), in brackets.

    Examples
    --------
    >>> preview(list("abcdefgh"), 3)   # 3 of 8 shown
    "['a', 'b', 'c', ...]"
    >>> preview(np.array([1, 2]))
    '[1, 2]'
    """
    shown = ", ".join(label(v) for v in list(index[:limit]))
    return f"[{shown}{', ...' if len(index) > limit else ''}]"


class WideTable(NamedTuple):
    """An items × raters table read by :func:`wide_to_matrix`.

    Parameters
    ----------
    items : pandas.Index
        Item labels (the rows).
    raters : pandas.Index
        Rater labels (the columns).
    matrix : numpy.ndarray
        Items × raters cells: float (NaN = missing), exact integers, objects, or the codes of
        ordered Categorical columns.
    categories : pandas.Index or None
        The categories when ``matrix`` holds ordered-Categorical codes, else None.
    named : bool
        Whether the input named its dims (a DataArray): then there is no layout to guess.

    Examples
    --------
    >>> w = wide_to_matrix(pd.DataFrame({"r1": [1, 2], "r2": [2, None]}, index=["i", "j"]))
    >>> list(w.items), list(w.raters), w.named
    (['i', 'j'], ['r1', 'r2'], False)
    """

    items: pd.Index
    raters: pd.Index
    matrix: np.ndarray  # float (NaN = missing), exact integers, objects, or category codes
    categories: pd.Index | None  # set when ``matrix`` holds ordered-Categorical codes
    named: bool  # dims named by the input (a DataArray): no layout to guess


def wide_to_matrix(x: Any, ordered_categories: bool = True) -> WideTable:
    """A wide table as one items × raters matrix with its item and rater labels.

    Reads a DataArray (dims ``item`` and ``rater``), a DataFrame (row and column labels), an
    array or a nested list (0-based positions as labels). Integers stay exact, other numbers
    become float with NaN for missing, anything else is kept as objects.

    Parameters
    ----------
    x : array-like, DataFrame or xarray.DataArray
        The items × raters table.
    ordered_categories : bool, default True
        When every column of a DataFrame is an ordered Categorical with the same categories,
        keep their codes and categories (else read the labels).

    Returns
    -------
    WideTable
        The labels, the matrix and the categories (ordered Categorical columns only).

    Raises
    ------
    InvalidParameterError
        A DataArray without dims ``item`` and ``rater``; a table that is not 2-D or has rows
        of different lengths; ordered Categorical columns that disagree on the categories.

    Examples
    --------
    >>> wide_to_matrix([[1, 2], [None, 2]]).matrix    # None is missing: NaN
    array([[ 1.,  2.],
           [nan,  2.]])
    """
    # a DataArray exists only once xarray is imported: not imported here (a first call would
    # pay for importing it, tens of milliseconds, to find that the table is an array)
    xarray = sys.modules.get("xarray")
    if xarray is not None and isinstance(x, xarray.DataArray):
        if set(x.dims) != {"item", "rater"}:
            raise InvalidParameterError(
                f"a DataArray needs dims ('item', 'rater'), got {tuple(x.dims)}"
            )
        x = x.transpose("item", "rater")
        items = pd.Index(x["item"].to_numpy(), name="item")
        raters = pd.Index(x["rater"].to_numpy(), name="rater")
        return WideTable(items, raters, _as_object_or_float(x.to_numpy()), None, True)
    if isinstance(x, pd.DataFrame):
        items, raters = _renamed(x.index, "item"), _renamed(x.columns, "rater")
        matrix, cats = _frame_to_matrix(x, ordered_categories)
        return WideTable(items, raters, matrix, cats, False)
    matrix = _as_2d(x)
    return WideTable(
        pd.RangeIndex(matrix.shape[0], name="item"),
        pd.RangeIndex(matrix.shape[1], name="rater"),
        _as_object_or_float(matrix),
        None,
        False,
    )


def _as_2d(x: Any) -> np.ndarray:
    """``x`` as a 2-D numpy array; a clear error for ragged rows or another shape."""
    try:
        matrix = np.asarray(x)
    except ValueError:
        cells = _cells_of_rows(x)
        if cells is not None:
            return cells
        rows = list(x)
        lengths = [len(row) if hasattr(row, "__len__") else 1 for row in rows]
        bad = next((i for i, n in enumerate(lengths) if n != lengths[0]), None)
        where = f": row 0 has {lengths[0]} values, row {bad} has {lengths[bad]}" if bad else ""
        raise InvalidParameterError(
            f"wide data must be a rectangular items × raters table (every row as long){where}; "
            "mark a missing annotation with NaN or None"
        ) from None
    if matrix.ndim > 2 and isinstance(x, (list, tuple)):
        # a nested list whose cells are lists or tuples of labels (set-valued annotations):
        # numpy read the cells as a third dimension
        cells = _cells_of_rows(x)
        matrix = cells if cells is not None else matrix
    if matrix.ndim != 2:
        raise InvalidParameterError(
            f"wide data must be a 2-D items × raters table, got shape {matrix.shape}"
        )
    return matrix


def _cells_of_rows(x: Any) -> np.ndarray | None:
    """A nested list of rows of equal length as an items × raters object array, each cell
    kept as it is (a list of labels stays one cell); None when it is not one."""
    if not isinstance(x, (list, tuple)):
        return None
    rows = list(x)
    if not rows or not all(isinstance(row, (list, tuple)) for row in rows):
        return None
    if len({len(row) for row in rows}) != 1:
        return None
    if not any(isinstance(cell, SET_TYPES) for row in rows for cell in row):
        return None
    n, r = len(rows), len(rows[0])
    # fromiter keeps each cell one object (np.array would read lists as a dimension)
    return np.fromiter((cell for row in rows for cell in row), dtype=object,
                       count=n * r).reshape(n, r)


def set_item_column(x: Any, item: Any) -> pd.DataFrame:
    """The table with its ``item`` column moved to the row labels.

    Parameters
    ----------
    x : array-like or DataFrame
        The wide table (an array is read as a DataFrame with positions as column labels).
    item : column label
        The column holding the item ids (for an array, a column position).

    Returns
    -------
    pandas.DataFrame
        The table without that column, its index the item ids (named ``item``).

    Raises
    ------
    InvalidParameterError
        No such column, or the label names more than one column.
    MissingValueError
        A row has no item id.

    Examples
    --------
    >>> t = set_item_column(pd.DataFrame({"id": ["a", "b"], "r1": [1, 2]}), "id")
    >>> list(t.index), list(t.columns)
    (['a', 'b'], ['r1'])
    """
    if not isinstance(x, pd.DataFrame):
        x = pd.DataFrame(_as_2d(x))
    if item not in x.columns:
        raise InvalidParameterError(
            f"item={item!r}: no such column; columns are {list(x.columns)}"
        )
    ids = x[item]
    if isinstance(ids, pd.DataFrame):
        raise InvalidParameterError(f"item={item!r} names more than one column")
    if ids.isna().any():
        first = x.index[np.flatnonzero(ids.isna().to_numpy())[0]]
        raise MissingValueError(
            f"{int(ids.isna().sum())} row(s) have no item id in column {item!r} (first at row "
            f"{label(first)})"
        )
    return x.drop(columns=item).set_axis(pd.Index(ids.to_numpy(), name="item"), axis=0)


def transposed(x: Any) -> Any:
    """A raters × items table turned items × raters (a DataArray's dims already say).

    Parameters
    ----------
    x : array-like, DataFrame or xarray.DataArray
        The raters × items table.

    Returns
    -------
    array-like, DataFrame or xarray.DataArray
        The table transposed (a DataFrame stays one, a DataArray is returned as it is, anything
        else becomes a 2-D array).

    Raises
    ------
    InvalidParameterError
        An array or nested list that is not a rectangular 2-D table.

    Examples
    --------
    >>> transposed([[1, 2, 3]]).shape   # 1 rater × 3 items -> 3 items × 1 rater
    (3, 1)
    """
    if isinstance(x, pd.DataFrame):
        return x.T
    if type(x).__name__ == "DataArray":
        return x
    return _as_2d(x).T


def _frame_dtypes(df: pd.DataFrame) -> list[Any]:
    """The dtypes of the columns of ``df``, ``list(df.dtypes)``, without the Series of them
    (which costs more than reading a small table): from pandas' block manager when it has
    them, else ``df.dtypes``.

    Parameters
    ----------
    df : pandas.DataFrame
        The table.

    Returns
    -------
    list
        One dtype per column, in column order.

    Examples
    --------
    >>> _frame_dtypes(pd.DataFrame({"a": [1, 2], "b": [0.5, None], "c": ["x", "y"]}))[:2]
    [dtype('int64'), dtype('float64')]
    """
    get_dtypes = getattr(getattr(df, "_mgr", None), "get_dtypes", None)
    if get_dtypes is not None:
        try:
            dtypes = list(get_dtypes())
        except Exception:  # pragma: no cover - another pandas
            pass
        else:
            if len(dtypes) == df.shape[1]:
                return dtypes
    return list(df.dtypes)  # pragma: no cover - another pandas


def _renamed(index: pd.Index, name: str) -> pd.Index:
    """``pd.Index(index, name=name)``; a plain or range index renamed (a view sharing what
    pandas has found about it, such as whether its labels are unique)."""
    if type(index) is pd.RangeIndex:  # a slice of all of it is a new range, cheaply
        view = index[:]
        view.name = name
        return view
    if type(index) is pd.Index:
        return index.rename(name)
    return pd.Index(index, name=name)


def _frame_to_matrix(df: pd.DataFrame, ordered_categories: bool
                     ) -> tuple[np.ndarray, pd.Index | None]:
    """A wide DataFrame's cells as one matrix: numbers as float (or exact integers), ordered
    Categorical columns as their codes (with the categories), anything else as objects."""
    dtypes = _frame_dtypes(df)
    if dtypes and all(isinstance(d, np.dtype) and d.kind == "f" for d in dtypes):
        return df.to_numpy(dtype=float), None  # the common case: float columns, NaN missing
    ordered = [isinstance(d, pd.CategoricalDtype) and d.ordered for d in dtypes]
    if ordered_categories and dtypes and all(ordered):
        first = dtypes[0].categories
        for column, dtype in zip(df.columns, dtypes):
            if not dtype.categories.equals(first):
                raise InvalidParameterError(
                    f"the ordered Categorical columns disagree on the category order: column "
                    f"{label(df.columns[0])} has {preview(first)}, column {label(column)} has "
                    f"{preview(dtype.categories)}; give every column the same categories, or "
                    "pass categories="
                )
        codes = np.column_stack([df.iloc[:, j].cat.codes.to_numpy() for j in range(df.shape[1])])
        return codes, first
    complex_columns = [c for c, d in zip(df.columns, dtypes) if pd.api.types.is_complex_dtype(d)]
    if complex_columns:  # never cast to float, which would drop the imaginary parts
        raise InvalidParameterError(
            f"column {label(complex_columns[0])} holds complex numbers: a label is a number, a "
            "boolean or a text; give the real part (.real) or the modulus (abs) instead")
    numeric = [pd.api.types.is_numeric_dtype(d) and not pd.api.types.is_bool_dtype(d)
               and not isinstance(d, pd.CategoricalDtype) for d in dtypes]
    if dtypes and all(numeric):
        if all(isinstance(d, np.dtype) and d.kind in "iu" for d in dtypes) and len(
                {d.kind for d in dtypes}) == 1:
            return _as_object_or_float(df.to_numpy()), None  # exact integers kept exact
        # only nullable integer columns can hold integers a float rounds: the others are not
        # looked at (a column of a DataFrame is a Series built on each access)
        if any(_beyond_float(df.iloc[:, j]) for j, d in enumerate(dtypes)
               if pd.api.types.is_integer_dtype(d) and not isinstance(d, np.dtype)):
            # nullable integers beyond 2**53: as Python integers (None missing), not rounded
            # (pandas-stubs leave None out of to_numpy's na_value; pandas takes it)
            return _as_object_or_float(
                df.to_numpy(dtype=object, na_value=None)), None  # type: ignore[arg-type]
        return df.to_numpy(dtype=float, na_value=np.nan), None  # nullable: pd.NA -> NaN
    return _as_object_or_float(df.to_numpy()), None


_EXACT_FLOAT_INT = 2**53
INT64_LIMIT = 2**63  # integers beyond this are not all representable as float64


def _beyond_float(column: pd.Series) -> bool:
    """Whether a nullable integer column (``Int64``, ``UInt64``, …) holds a value beyond
    ±2**53, which a float64 would round."""
    if not pd.api.types.is_integer_dtype(column.dtype) or isinstance(column.dtype, np.dtype):
        return False
    present = column.dropna()
    return bool(present.size) and (present.max() > _EXACT_FLOAT_INT
                                   or present.min() < -_EXACT_FLOAT_INT)


def _as_object_or_float(matrix: np.ndarray) -> np.ndarray:
    """Integer arrays stay integers (exact), other numbers become float (NaN = missing),
    booleans and fixed-width unicode stay as they are; objects are numbers (as float, or as
    exact integers beyond 2**53) when all of their values are, read in one vectorised pass."""
    kind = matrix.dtype.kind
    if kind in "iu":
        return matrix  # counted as integers; from_wide makes floats only where it needs them
    if kind == "f":
        return matrix.astype(float, copy=False)
    if kind == "b":
        return matrix  # booleans are labels of their own type, not the numbers 0 and 1
    if kind == "S":
        return matrix.astype(object)
    if kind != "O":  # fixed-width unicode stays as it is: encoded by hashing (encode_values)
        return matrix
    present = ~pd.isna(matrix)
    values = matrix[present]
    if values.size == 0:
        return matrix
    inferred = pd.api.types.infer_dtype(values, skipna=False)
    if inferred == "integer":
        try:
            ints = values.astype(np.int64)
        except OverflowError:
            return matrix  # Python integers beyond int64: exact as objects
        if ints.max() > _EXACT_FLOAT_INT or ints.min() < -_EXACT_FLOAT_INT:
            return ints.reshape(matrix.shape) if present.all() else matrix
    elif inferred not in ("floating", "mixed-integer-float"):
        return matrix
    out = np.full(matrix.shape, np.nan)
    out[present] = values.astype(float)
    return out


def exact_as_float(matrix: np.ndarray) -> bool:
    r"""Whether every integer of ``matrix`` is exactly a float64 (\|x| ≤ 2**53).

    Parameters
    ----------
    matrix : numpy.ndarray
        An integer array.

    Returns
    -------
    bool or numpy.bool_
        True when every value is within ±2**53 (or the array is empty).

    Examples
    --------
    >>> bool(exact_as_float(np.array([2**53]))), bool(exact_as_float(np.array([2**53 + 1])))
    (True, False)
    """
    return matrix.size == 0 or (matrix.max() <= _EXACT_FLOAT_INT and (
        matrix.dtype.kind == "u" or matrix.min() >= -_EXACT_FLOAT_INT))


def integer_categories(categories: pd.Index) -> bool:
    """Whether the categories are integers: an integer dtype, or Python integers (beyond
    int64, or beyond 2**53 read with missing values) held as objects.

    Parameters
    ----------
    categories : pandas.Index
        The categories.

    Returns
    -------
    bool
        True for integers (not booleans).

    Examples
    --------
    >>> integer_categories(pd.Index([1, 2])), integer_categories(pd.Index([2**64, 1]))
    (True, True)
    >>> integer_categories(pd.Index([1.5, 2.0])), integer_categories(pd.Index(["a"]))
    (False, False)
    """
    kind = categories.dtype.kind
    if kind in "iu":
        return True
    return kind == "O" and len(categories) > 0 and pd.api.types.infer_dtype(
        categories, skipna=False) == "integer"


class NumericPositions(NamedTuple):
    """Numeric categories as float64 numbers measured from an origin
    (:func:`numeric_positions`).

    Parameters
    ----------
    values : numpy.ndarray or None
        value − origin of each category as float64 (read-only), or None when some
        difference from the origin is not a float64 number exactly (or the categories are
        not numbers).
    origin : int
        0, or the smallest category for integers beyond 2**53 (a Python int, exact).
    problem : str or None
        Why ``values`` is None, for the caller's message.

    Examples
    --------
    >>> positions = numeric_positions(pd.Index([2**60 + 7, 2**60 + 9]))
    >>> positions.values.tolist(), positions.origin - 2**60
    ([0.0, 2.0], 7)
    """

    values: np.ndarray | None
    origin: int
    problem: str | None = None

    def require(self, purpose: str) -> np.ndarray:
        """The positions, or a :class:`~kappalab.errors.NonNumericError` naming ``purpose``
        and the problem when there are none.

        Parameters
        ----------
        purpose : str
            What needs the values (e.g. "the interval metric"), for the message.

        Returns
        -------
        numpy.ndarray
            :attr:`values`.

        Raises
        ------
        NonNumericError
            When :attr:`values` is None.

        Examples
        --------
        >>> numeric_positions(pd.Index([1, 5])).require("the ICC").tolist()
        [1.0, 5.0]
        >>> try:
        ...     numeric_positions(pd.Index([0, 2**62 + 1])).require("the ICC")
        ... except NonNumericError as error:
        ...     print(str(error)[:56], "...")
        the ICC needs the differences between the values exactly ...
        """
        if self.values is None:
            raise NonNumericError(
                f"{purpose} needs the differences between the values exactly, but "
                f"{self.problem}: divide them by a common unit or subtract a reference value "
                "first (or convert them to float if 16 significant digits are enough)")
        return self.values


def numeric_positions(categories: pd.Index) -> NumericPositions:
    r"""The numeric categories as float64 numbers, exactly: their values measured from an
    origin.

    Floats, and integers within ±2**53, are their own float64 values (origin 0). Integers
    beyond 2**53 are not all float64 numbers (2**62 and 2**62 + 1 are one float64), but the
    coefficients with numeric distances (the interval, ordinal, circular and bipolar metrics,
    Gwet's value weights, the ICC, the correlations) use them only through their differences:
    their positions are then the exact integer differences from the smallest category, which
    is the origin (the ratio metric, which needs the values themselves, adds it back). Those
    differences are float64 numbers exactly whenever the values span at most 2**53, and also
    when they are, e.g., multiples of a large power of two; when one is not, ``values`` is
    None and the caller refuses the numeric distance (``problem`` says what the values span).

    Parameters
    ----------
    categories : pandas.Index
        The categories: floats, an integer dtype, or Python integers as objects (labels
        give no positions).

    Returns
    -------
    NumericPositions
        The positions (or None), the origin and, without positions, the reason.

    Examples
    --------
    >>> numeric_positions(pd.Index([1.5, 4.0])).values.tolist()
    [1.5, 4.0]
    >>> big = numeric_positions(pd.Index([2**62, 2**62 + 1, 2**62 + 3]))
    >>> big.values.tolist(), big.origin == 2**62   # exact differences from the smallest
    ([0.0, 1.0, 3.0], True)
    >>> numeric_positions(pd.Index([0, 2**62 + 1])).values is None   # 2**62 + 1: no float64
    True
    """
    raw = categories.to_numpy()
    if not integer_categories(categories) or (raw.dtype.kind in "iu" and exact_as_float(raw)):
        try:
            values = raw.astype(float)
        except (TypeError, ValueError):  # labels: no positions (the caller says why)
            return NumericPositions(None, 0, "the categories are not numbers")
        values.flags.writeable = False
        return NumericPositions(values, 0)
    origin, top = int(raw.min()), int(raw.max())
    if raw.dtype.kind in "iu":
        # for int64 the difference modulo 2**64 is the exact one, which is below 2**64
        offsets = raw.view(np.uint64) - np.uint64(origin % 2**64)
        values = offsets.astype(float)
        below = values < 2.0**64  # 2**64 − 1 rounds up to 2**64, outside uint64
        exact = below.all() and (values.astype(np.uint64) == offsets).all()
    else:  # Python integers: exact differences, compared with their float64 exactly
        offsets = raw - origin
        with np.errstate(over="ignore"):
            values = np.array([float(v) if v < 2**1024 else np.inf for v in offsets])
        exact = bool((values.astype(object) == offsets).all())
    if not exact:
        return NumericPositions(None, origin, (
            f"the integer values span more than 2**53 (from {origin} to {top}) and their "
            "differences from the smallest are not all float64 numbers"))
    values.flags.writeable = False
    return NumericPositions(values, origin)


def check_layout(matrix: np.ndarray) -> None:
    """Warn when an items × raters table looks like another layout.

    Three heuristics (see :meth:`~kappalab.annotations.Annotations.from_wide`): a raters ×
    items table (at most 20 rows, at least 10 and three times as many columns), an items ×
    categories count table (complete, non-negative whole numbers, the same sum in every row,
    some zeros, not every row the same), or a first column of item ids (every value distinct
    while the other columns repeat a few labels).

    Parameters
    ----------
    matrix : numpy.ndarray
        The items × raters matrix (as :func:`wide_to_matrix` reads it).

    Returns
    -------
    None

    Warns
    -----
    LayoutWarning
        When one of the heuristics holds (the message names the constructor to use).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     check_layout(np.array([[2, 0], [1, 1], [0, 2], [1, 1]]))   # every row sums to 2
    >>> [w.category.__name__ for w in caught]
    ['LayoutWarning']
    """
    n, r = matrix.shape
    if n <= 20 and r >= max(10, 3 * n):
        warn(
            f"the items × raters table has {n} rows and {r} columns: if the rows are raters "
            "and the columns items (krippendorff's reliability_data), use "
            "Annotations.from_wide(x, raters_as_rows=True); "
            "Annotations.from_wide(x, raters_as_rows=False) states that rows are items",
            LayoutWarning,
        )
    elif matrix.dtype.kind in "fiu" and _looks_like_counts(matrix):
        warn(
            f"every row sums to {label(matrix[0].sum())} and every cell is a non-negative whole "
            "number: this looks like an items × categories count table (statsmodels' "
            "aggregate_raters), which needs Annotations.from_counts(table); "
            "Annotations.from_wide(x, raters_as_rows=False) states that rows are items and "
            "columns raters",
            LayoutWarning,
        )
    elif _looks_like_id_column(matrix):
        warn(
            "the first column has a different value in every row while the other columns "
            "repeat a few labels: it looks like an item id column, not a rater; use "
            "Annotations.from_wide(df, item=<that column>), or "
            "Annotations.from_wide(x, raters_as_rows=False) to state that every column is a "
            "rater",
            LayoutWarning,
        )


# ---------------------------------------------------------------------- long or wide
#: the column names of a long table, by role: compared in lower case, with runs of spaces,
#: hyphens and dots as one underscore; a plural ``s`` and an ``_id``/``id``/``_name`` suffix
#: are allowed (``sentence_id``, ``Worker ID``, ``WorkerId``, ``labels``)
LONG_VOCABULARY = {
    "item": ("item", "unit", "task", "sentence", "doc", "document", "text", "id", "example",
             "instance", "sample", "segment", "utterance", "question", "image", "post",
             "tweet", "comment", "passage", "case", "subject", "hit", "record"),
    "rater": ("rater", "annotator", "coder", "worker", "judge", "user", "labeler", "labeller",
              "observer", "assessor", "reviewer", "grader", "evaluator", "participant",
              "respondent", "expert", "turker", "contributor", "scorer"),
    "value": ("value", "label", "rating", "score", "code", "tag", "answer", "response",
              "category", "class", "annotation", "judgment", "judgement", "grade", "choice",
              "decision", "verdict"),
}
#: the schemas read before the vocabulary: kappalab's own and crowd-kit's
LONG_SCHEMAS = ({"item": "item", "rater": "rater", "value": "value"},
                {"item": "task", "rater": "worker", "value": "label"})
_ID_SUFFIXES = ("_ids", "_id", "_name", "ids", "id")
_LONG_HINT = ("read it with Annotations.from_long(df, item=..., rater=..., value=...) for one "
              "row per annotation, or Annotations.from_wide(df) for items × raters")


def _role_of(name: Any) -> tuple[str, int] | None:
    """The role a column name says (item, rater or value) and how plainly (0: kappalab's
    own name of the role, 1: another word of the vocabulary or its plural, 2: a word with an
    id suffix); None for other names."""
    if not isinstance(name, str):
        return None
    return _role_of_text(name)


@functools.lru_cache(maxsize=4096)
def _role_of_text(name: str) -> tuple[str, int] | None:
    """:func:`_role_of` of a text name (remembered: the same rater names come again)."""
    key = "_".join(filter(None, name.strip().lower().replace("-", " ").replace(".", " ")
                          .replace("_", " ").split()))
    for role, word in LONG_SCHEMAS[0].items():
        if key == word:
            return role, 0
    for role, words in LONG_VOCABULARY.items():
        if key in words or (key.endswith("s") and key[:-1] in words):
            return role, 1
    for role, words in LONG_VOCABULARY.items():
        for suffix in _ID_SUFFIXES:
            stem = key[:-len(suffix)].rstrip("_") if key.endswith(suffix) else ""
            if stem in words:
                return role, 2
    return None


def long_columns(df: pd.DataFrame) -> dict[str, str] | None:
    """The item, rater and value columns of a long table, found by their names; None when
    the names do not say a long table (then it is read wide, if it plainly is one).

    A table is long when its columns include ``item``, ``rater`` and ``value`` (or
    crowd-kit's ``task``, ``worker`` and ``label``), or when, by the words of
    :data:`LONG_VOCABULARY`, exactly one column names each role — by the plainest name
    present: kappalab's own (``item`` before ``id``, ``value`` before ``score``), then a word
    (``annotator`` before ``annotator_id``), then a word with an id suffix. Other columns
    are left out.

    Parameters
    ----------
    df : pandas.DataFrame
        The table.

    Returns
    -------
    dict or None
        The column of each role, ``{"item": ..., "rater": ..., "value": ...}``.

    Raises
    ------
    InvalidParameterError
        (:class:`~kappalab.errors.LayoutError`) Names of two roles or more, but not one
        column for each of the three: a role named by several columns, or a role missing.

    Examples
    --------
    >>> long_columns(pd.DataFrame(columns=["sentence_id", "coder", "tag", "time"]))
    {'item': 'sentence_id', 'rater': 'coder', 'value': 'tag'}
    >>> long_columns(pd.DataFrame(columns=["coder1", "coder2", "coder3"])) is None
    True
    """
    columns = list(df.columns)
    present = set(c for c in columns if isinstance(c, str))
    for schema in LONG_SCHEMAS:
        if set(schema.values()) <= present:
            return dict(schema)
    named: dict[str, list[tuple[int, Any]]] = {role: [] for role in LONG_VOCABULARY}
    for column in columns:  # a loop over the columns
        role_tier = _role_of(column)
        if role_tier is not None:
            named[role_tier[0]].append((role_tier[1], column))
    best = {}
    for role, matches in named.items():
        if matches:
            plainest = min(tier for tier, _ in matches)
            best[role] = [column for tier, column in matches if tier == plainest]
    if len(best) == 3 and all(len(found) == 1 for found in best.values()):
        return {role: found[0] for role, found in best.items()}
    if len(best) < 2:
        return None
    several = [(role, found) for role, found in best.items() if len(found) > 1]
    if several:
        role, found = several[0]
        problem = (f"the columns {', '.join(map(label, found))} could each be the {role} "
                   "column")
    else:
        role = next(r for r in LONG_VOCABULARY if r not in best)
        words = ", ".join(LONG_VOCABULARY[role][:4])
        problem = (f"no column names the {role} ({words}, ...)"
                   + ("; rater=None reads annotations of unknown raters" if role == "rater"
                      else ""))
    raise LayoutError(
        f"the columns {preview(columns)} look like a long table (one row per annotation), but "
        f"{problem}: {_LONG_HINT}")


def check_plainly_wide(df: pd.DataFrame, sep: str | None = None) -> None:
    """Refuse a table that is not plainly items × raters, when its names do not say long.

    In a wide table every column is a rater, so the columns hold labels of one type and
    share labels. A table of three columns or more is refused when two of its columns hold
    labels of different types only (numbers in one, text in the other: item ids, rater ids
    and labels, say), or when, among columns of text, two or more share no label with any
    other column. Checked on the first 1 000 rows; a table of numbers only is never
    refused (numeric codes), nor one of fewer than three columns.

    Parameters
    ----------
    df : pandas.DataFrame
        The table, read wide unless this refuses it.
    sep : str, optional
        The cells are strings of labels split at ``sep`` (set-valued annotations): two
        raters' strings may differ while their sets overlap, so the labels shared by the
        columns are not checked.

    Returns
    -------
    None

    Raises
    ------
    InvalidParameterError
        (:class:`~kappalab.errors.LayoutError`) The table is not plainly wide; the message
        names ``from_long`` and ``from_wide``.

    Examples
    --------
    >>> check_plainly_wide(pd.DataFrame({"coder1": [1, 2], "coder2": [1, 1], "coder3": [2, 2]}))
    >>> check_plainly_wide(pd.DataFrame({"k": [1, 1, 2], "who": ["a", "b", "a"],
    ...                                  "what": ["x", "y", "x"]}))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    kappalab.errors.LayoutError: cannot tell the layout of the table: ...
    """
    if df.shape[1] < 3:
        return
    dtypes = _frame_dtypes(df)
    if all(isinstance(d, np.dtype) and d.kind in "iuf" for d in dtypes):
        return  # numbers only: numeric codes of raters
    sample = df.iloc[:1000]
    kinds: dict[frozenset, Any] = {}
    for j, dtype in enumerate(dtypes):  # a loop over the columns
        column = sample.iloc[:, j]
        if not column.notna().any():
            continue
        values = column.to_numpy() if isinstance(dtype, np.dtype) else column.array
        one = _uniform_type(values)
        if one is None:
            types = _types_of(column.to_numpy(dtype=object)).astype(np.int8)
            found = frozenset(np.unique(types).tolist()) - {_MISSING}
        else:
            found = frozenset([one])
        kinds.setdefault(found, df.columns[j])
    sets = list(kinds)
    for a in range(len(sets)):
        for b in range(a + 1, len(sets)):  # over the distinct type sets (at most 15)
            if not sets[a] & sets[b]:
                raise LayoutError(
                    f"cannot tell the layout of the table: column {label(kinds[sets[a]])} "
                    f"holds {_type_names(sets[a])} and column {label(kinds[sets[b]])} "
                    f"{_type_names(sets[b])}, so they are not raters of one table, and the "
                    "column names do not say item, rater and value; " + _LONG_HINT
                    + " (from_wide(df, item=<column>) when one column holds the item ids)")
    if sets != [frozenset([_TEXT])] or len(sample) < 6 or sep is not None:
        return
    text = [j for j, d in enumerate(dtypes) if sample.iloc[:, j].notna().any()]
    stacked = sample.iloc[:, text].to_numpy(dtype=object)
    column_of = np.broadcast_to(np.arange(len(text)), stacked.shape)
    keep = ~pd.isna(stacked)
    codes, _ = pd.factorize(stacked[keep])
    pairs = np.unique(codes.astype(np.int64) * len(text) + column_of[keep])
    value_of = pairs // len(text)
    shared = np.bincount(value_of)[value_of] > 1  # the label appears in another column too
    sharing = np.zeros(len(text), dtype=bool)
    sharing[(pairs % len(text))[shared]] = True
    alone = [df.columns[text[j]] for j in np.flatnonzero(~sharing)]
    if len(alone) >= 2:
        raise LayoutError(
            f"cannot tell the layout of the table: the columns {', '.join(map(label, alone))} "
            "share no label with any other column, so they are not raters of one table, and "
            f"the column names do not say item, rater and value; {_LONG_HINT}")


def _type_names(types: frozenset) -> str:
    names = ("numbers", "booleans", "text", "other values")
    return " and ".join(names[t] for t in sorted(types) if t < len(names)) + " only"


def _looks_like_counts(matrix: np.ndarray) -> bool:
    n, r = matrix.shape
    if n < 4 or r < 2:
        return False
    head = matrix[:64].sum(axis=1)  # a cheap first look: most tables stop here
    total = head[0]
    if not (np.isfinite(total) and total >= 2 and (head == total).all()):
        return False
    if matrix.dtype.kind == "f" and not (matrix == np.floor(matrix)).all():  # NaN fails too
        return False
    if (matrix < 0).any() or not (matrix.sum(axis=1) == total).all():
        return False
    # a count table has zeros (a category no rater chose for an item); labels coded 1..K
    # never do, so two raters who always disagree, [[1, 2], [2, 1], ...], are not flagged
    if not (matrix == 0).any():
        return False
    return not (matrix == matrix[0]).all()  # identical rows say little


def _looks_like_id_column(matrix: np.ndarray) -> bool:
    sample = matrix[:5000]
    n, r = sample.shape
    if n < 5 or r < 3:
        return False
    first = sample[:, 0]
    if first.dtype.kind == "f" and np.isnan(first).any():
        return False  # a missing value: not an id column (looked for before its span)
    if first.dtype.kind in "fiu" and _few_whole_numbers(first, n):
        return False  # whole numbers in fewer than n values cannot all differ (no hashing)
    try:
        if pd.isna(first).any() or len(pd.unique(first)) < n:
            return False
        rest = sample[:, 1:].ravel()
        rest = rest[~pd.isna(rest)]
        return len(pd.unique(rest)) <= n / 2
    except TypeError:  # unhashable cells (lists of labels): set-valued annotations, no ids
        return False


def _few_whole_numbers(x: np.ndarray, n: int) -> bool:
    """Whether ``x`` holds whole numbers only (no NaN) spanning fewer than ``n`` values."""
    if x.dtype.kind in "iu":  # Python integers: no wrap-around of the span
        return int(x.max()) - int(x.min()) + 1 < n
    lo, hi = x.min(), x.max()  # NaN for a missing value: the comparison below fails
    return bool(hi - lo + 1 < n) and bool((x == np.floor(x)).all())


def reject_infinite(values: Any, where) -> None:
    """Raise when a value is infinite.

    Parameters
    ----------
    values : numpy.ndarray or pandas ExtensionArray
        The values (float, or objects that may hold floats); integers, booleans and strings
        are never infinite.
    where : callable
        Maps the position of the first infinite value to a description for the message
        (``"row 3"``, say).

    Returns
    -------
    None

    Raises
    ------
    MissingValueError
        A value is infinite.

    Examples
    --------
    >>> reject_infinite(np.array([1.0, 2.0]), str)   # finite: nothing happens
    >>> reject_infinite(np.array([1.0, np.inf]), lambda i: f"position {i}")
    Traceback (most recent call last):
        ...
    kappalab.errors.MissingValueError: 1 value(s) are infinite (first at position 1)
    """
    kind = getattr(values.dtype, "kind", "O")
    if kind == "f":
        bad = np.isinf(values)
    elif kind != "O" or not isinstance(values, np.ndarray):
        return  # integers, booleans, strings, extension arrays: never infinite
    else:
        inferred = pd.api.types.infer_dtype(values, skipna=True)
        if inferred in ("floating", "mixed-integer-float"):
            bad = np.isinf(values.astype(float))
        elif inferred in ("mixed", "mixed-integer"):
            if not any(issubclass(t, (float, np.floating)) for t in set(map(type, values))):
                return  # no float among them (sets of labels, say)
            is_float = np.frompyfunc(lambda v: isinstance(v, (float, np.floating)), 1, 1)
            floats = is_float(values).astype(bool)
            bad = np.zeros(values.size, dtype=bool)
            bad[floats] = np.isinf(values[floats].astype(float))
        else:
            return
    if bad.any():
        raise MissingValueError(
            f"{int(bad.sum())} value(s) are infinite (first at {where(np.flatnonzero(bad)[0])})"
        )


#: what a repeated (item, rater) pair's error says to do (the command line says it its way)
DUPLICATES_REMEDY = ("pass duplicates='first', 'last' or 'separate' to Annotations.from_long to "
                     "keep each rater's first or last annotation of an item, or to count each "
                     "repeat as a separate rater")


def reject_duplicate_pairs(
    item_codes: np.ndarray, rater_codes: np.ndarray, items: pd.Index, raters: pd.Index
) -> None:
    """Raise when an (item, rater) pair occurs more than once.

    Parameters
    ----------
    item_codes, rater_codes : numpy.ndarray
        Item and rater code of each annotation.
    items, raters : pandas.Index
        Item and rater labels (for the message and the number of cells).

    Returns
    -------
    None

    Raises
    ------
    DuplicateAnnotationError
        An (item, rater) pair occurs more than once.

    Examples
    --------
    >>> items, raters = pd.Index(["i"]), pd.Index(["u", "v"])
    >>> reject_duplicate_pairs(np.array([0, 0]), np.array([0, 1]), items, raters)  # distinct
    >>> reject_duplicate_pairs(np.array([0, 0]), np.array([1, 1]), items, raters)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    kappalab.errors.DuplicateAnnotationError: 1 (item, rater) pair(s) occur more than once, ...
    """
    key = item_codes.astype(np.int64, copy=False) * len(raters)
    key += rater_codes
    cells = len(items) * len(raters)
    if cells <= 32 * key.size + (1 << 20):
        # one byte per (item, rater) cell, marked by a scatter: fewer marks than keys means a
        # repeat (then the sort below finds it); no sort on the common, clean path
        marks = np.zeros(cells, dtype=np.uint8)
        marks[key] = 1
        if np.count_nonzero(marks) == key.size:
            return
    sorted_key = np.sort(key)
    repeated = sorted_key[1:][sorted_key[1:] == sorted_key[:-1]]
    if repeated.size:
        first = repeated[0]
        n_dup = np.unique(repeated).size
        raise DuplicateAnnotationError(
            f"{n_dup} (item, rater) pair(s) occur more than once, e.g. item "
            f"{label(items[first // len(raters)])} by rater {label(raters[first % len(raters)])}; "
            "each rater may annotate an item once; " + DUPLICATES_REMEDY
        )



#: below this many rows integer ids are coded by pandas' hash table (fewer fixed costs)
_HASHED_KEYS = 2048


def factorize_keys(ids: Any) -> tuple[np.ndarray, Any]:
    """Codes and labels of a key column (item or rater ids), as ``pandas.factorize`` gives
    them: codes in the order of first appearance, -1 for a missing id.

    Integer columns are coded without a hash table: a column made of runs (rows grouped by
    id, the common layout of long data) from where the id changes, and ids within a range
    about the size of the column by scattering each id's first row into a table over the
    range; a categorical column from its own codes. Any other column, and integers spread
    over a wider range, by ``pandas.factorize``. Every path gives exactly what
    ``pandas.factorize`` gives.

    Parameters
    ----------
    ids : pandas.Series or numpy.ndarray
        One id per row (not an object array: those follow :func:`label_identity`).

    Returns
    -------
    codes : numpy.ndarray
        The code of each row (intp), -1 where the id is missing.
    uniques : numpy.ndarray, pandas.Index or ExtensionArray
        The distinct ids, in the order of their first appearance.

    Examples
    --------
    >>> codes, uniques = factorize_keys(pd.Series([30, 30, 10, 10, 30]))
    >>> codes.tolist(), uniques.tolist()
    ([0, 0, 1, 1, 0], [30, 10])
    >>> codes, uniques = factorize_keys(pd.Series(["b", "a", "b"], dtype="category"))
    >>> codes.tolist(), list(uniques)
    ([0, 1, 0], ['b', 'a'])
    """
    dtype = ids.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":
        x = ids.to_numpy() if isinstance(ids, pd.Series) else np.asarray(ids)
        if x.ndim == 1 and x.size >= _HASHED_KEYS:
            return _integer_key_codes(x)
        ids = x  # a few rows: the hash table of a plain array is quickest
    elif isinstance(dtype, pd.CategoricalDtype):
        raw = np.asarray(cast(pd.Categorical, ids.array).codes if isinstance(ids, pd.Series)
                         else ids.codes)
        if raw.size and raw.min() >= 0:  # no missing id: its codes are small integers
            codes, used = _integer_key_codes(raw.astype(np.intp, copy=False))
            return codes, np.asarray(dtype.categories.take(used))
    uniques: Any
    if isinstance(ids, pd.Series) and not isinstance(dtype, (np.dtype, pd.CategoricalDtype)):
        codes, uniques = ids.array.factorize()  # (pandas.factorize's, without its wrapping)
    else:
        codes, uniques = pd.factorize(ids, sort=False)
    if isinstance(uniques, (pd.Categorical, pd.CategoricalIndex)):
        uniques = np.asarray(uniques)  # labels, not a Categorical
    return codes.astype(np.intp, copy=False), uniques


def _integer_key_codes(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`factorize_keys` of a non-empty 1-D integer array."""
    n = x.size
    probe = x[:1024]
    if 2 * np.count_nonzero(probe[1:] != probe[:-1]) < probe.size:  # it starts with runs
        change = np.empty(n, dtype=bool)
        change[0] = True
        np.not_equal(x[1:], x[:-1], out=change[1:])
        starts = np.flatnonzero(change)
        if 2 * starts.size <= n:  # runs: code the runs' ids, then repeat them
            heads = x[starts]
            if starts.size == 1 or bool((heads[1:] > heads[:-1]).all()):
                codes = np.cumsum(change, dtype=np.intp)  # increasing runs: counted
                codes -= 1
                return codes, heads
            head_codes, uniques = _integer_key_codes(heads)
            return np.repeat(head_codes, np.diff(np.append(starts, n))), uniques
    lo, hi = x.min(), x.max()
    span = int(hi) - int(lo) + 1
    if span > 4 * n + 1024:  # a wide range: a hash table
        codes, uniques = pd.factorize(x, sort=False)
        return codes.astype(np.intp, copy=False), uniques
    offsets = (x - lo).astype(np.intp)  # (in x's own type: exact, within the span)
    rank = np.empty(span, dtype=np.intp)
    n_distinct = np.count_nonzero(np.bincount(offsets, minlength=span))
    if 64 * n_distinct <= n:  # few ids (raters, say): all seen in a prefix of the rows
        length = 4096
        while True:
            prefix_codes, found = pd.factorize(offsets[:length], sort=False)
            if found.size == n_distinct:
                break
            length *= 8
        rank[found] = np.arange(found.size, dtype=np.intp)
        return rank[offsets], found.astype(x.dtype) + lo
    rows = np.arange(n, dtype=np.intp)
    first = np.full(span, n, dtype=np.intp)
    first[offsets[::-1]] = rows[::-1]  # each id's first row: written last
    if not bool((first[offsets] <= rows).all()):  # pragma: no cover - verified, never seen
        codes, uniques = pd.factorize(x, sort=False)
        return codes.astype(np.intp, copy=False), uniques
    seen = np.zeros(n, dtype=bool)
    seen[first[first < n]] = True
    heads = np.flatnonzero(seen)  # the first rows, in order
    rank[offsets[heads]] = np.arange(heads.size, dtype=np.intp)
    return rank[offsets], x[heads]


def category_index(categories: Sequence[Any] | pd.Index) -> pd.Index:
    """``categories=`` as an Index, refused when empty, repeated or holding a missing value.

    Parameters
    ----------
    categories : sequence
        The category labels, in order.

    Returns
    -------
    pandas.Index
        The categories, named ``category``, in the order given.

    Raises
    ------
    InvalidParameterError
        No category, a category repeated, or a missing value (NaN/None/NA) among them.

    Examples
    --------
    >>> list(category_index(["lo", "mid", "hi"]))   # the order given, not sorted
    ['lo', 'mid', 'hi']
    >>> category_index(["a", "a"])
    Traceback (most recent call last):
        ...
    kappalab.errors.InvalidParameterError: categories repeat: ['a']
    """
    cats = pd.Index(list(categories) if not isinstance(categories, pd.Index) else categories,
                    name="category")
    if len(cats) == 0:
        raise InvalidParameterError("categories= is empty")
    missing = pd.isna(cats)
    if missing.any():
        raise InvalidParameterError(
            f"categories= holds a missing value (NaN/None/NA) at position "
            f"{int(np.flatnonzero(missing)[0])}: a missing annotation is not a category; "
            "leave it out"
        )
    one = _uniform_type(cats.to_numpy())
    if one is not None and one != _COMPLEX:
        if cats.has_duplicates:
            raise InvalidParameterError(f"categories repeat: {list(cats[cats.duplicated()])}")
        return cats
    # several types (or complex values): repeats by the label identity rule, True is not 1
    codes, distinct = label_identity(cats.to_numpy(dtype=object), what="categories= label",
                                     sort=False)
    if len(distinct) < len(cats):
        repeated = pd.Index(codes).duplicated()
        raise InvalidParameterError(f"categories repeat: {list(cats[repeated])}")
    return pd.Index(cats, dtype=object, name="category")


def encode_column(
    column: pd.Series, keep: np.ndarray | None, categories: Sequence[Any] | pd.Index | None,
    where: Callable[[int], str], sep: str | None = None, *, floats_as_values: bool = False,
) -> tuple[np.ndarray, pd.Index | None]:
    """Category codes of a long table's value column.

    An ordered Categorical column (without ``categories``) fixes the categories and their
    order; an unordered one is encoded by its distinct categories only, its codes mapped;
    otherwise the values are encoded by :func:`encode_values` (sets of labels, and strings
    split at ``sep``, by :func:`label_sets`).

    Parameters
    ----------
    column : pandas.Series
        The value column.
    keep : numpy.ndarray or None
        Boolean mask of the rows to encode (None: all).
    categories : sequence or None
        The category set and order (None: the values seen, sorted).
    where : callable
        Maps a position among the kept rows to a description for error messages.
    sep : str, optional
        Read every value as a set of labels, strings split at ``sep`` (:func:`label_sets`).
    floats_as_values : bool, default False
        Return float64 values that are not all whole numbers of a small range as they are,
        ``(values, None)``, without ``categories`` and ``sep``: their categories, the sorted
        distinct values, are then found when first needed, and not at all coded where only
        the values count (:meth:`kappalab.Annotations.item_moments`).

    Returns
    -------
    codes : numpy.ndarray
        The category code of each kept row (with ``floats_as_values``, maybe the values).
    categories : pandas.Index or None
        The categories, named ``category`` (None when the values are returned).

    Raises
    ------
    MissingValueError
        A value is infinite.
    UnknownCategoryError
        A value is not among ``categories``.
    InvalidParameterError
        Values of types that cannot be ordered, without ``categories``.

    Examples
    --------
    >>> codes, cats = encode_column(pd.Series(["y", "x", "y"]), None, None, str)
    >>> codes.tolist(), list(cats)   # sorted: x → 0, y → 1
    ([1, 0, 1], ['x', 'y'])
    """
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype) and categories is None and dtype.ordered \
            and sep is None:
        # an ordered Categorical states the categories and their order
        codes = column.cat.codes.to_numpy()
        if keep is not None:
            codes = codes[keep]
        return codes.astype(np.intp), pd.Index(dtype.categories, name="category")
    if isinstance(dtype, pd.CategoricalDtype):
        if categories is None and sep is None:
            coded = _encode_categorical(column, keep, where)
            if coded is not None:
                return coded
        values = np.asarray(column)
    elif isinstance(dtype, np.dtype):
        values = column.to_numpy()
    elif pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        # nullable Int64/Float64: the present values as plain numbers (ints stay exact)
        present = column if keep is None else column[keep]
        values = present.to_numpy(dtype=cast(Any, dtype).numpy_dtype)  # a masked dtype's
        keep = None
    else:
        values = column.array  # e.g. pandas' str dtype: factorized as is, no object copy
    if keep is not None:
        values = values[keep]
    reject_infinite(values, where)
    if (floats_as_values and categories is None and sep is None
            and isinstance(values, np.ndarray) and values.dtype == np.float64 and values.size):
        small = _small_integer_offsets(values)
        if small is None:
            return values, None
        return _encode_small_integers(values, small)
    return encode_values(values, categories, where, sep)


def _encode_categorical(column: pd.Series, keep: np.ndarray | None,
                        where: Callable[[int], str]) -> tuple[np.ndarray, pd.Index] | None:
    """:func:`encode_column` of an unordered Categorical column by its used categories: they
    are encoded (:func:`encode_values`) and the column's codes mapped. None when that says
    anything (a warning, an error): the values are then encoded one by one, for the message
    of every row."""
    codes = np.asarray(column.cat.codes)
    if keep is not None:
        codes = codes[keep]
    if not codes.size or codes.min() < 0:
        return None
    used = np.flatnonzero(np.bincount(codes, minlength=len(column.cat.categories)))
    labels = np.asarray(column.cat.categories.take(used))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            reject_infinite(labels, where)
            label_codes, cats = encode_values(labels, None, where)
    except KappalabError:
        return None
    if caught:
        return None
    position = np.empty(len(column.cat.categories), dtype=np.intp)
    position[used] = label_codes
    return position[codes], cats


def encode_values(
    values: Any, categories: Sequence[Any] | pd.Index | None, where: Callable[[int], str],
    sep: str | None = None,
) -> tuple[np.ndarray, pd.Index]:
    """Category codes and the category index, sorted or in the order of ``categories``.

    Small whole numbers are encoded by counting, fixed-width unicode by hashing, anything
    else by sorting. Set-valued annotations (any value a set, frozenset, list or tuple, or
    ``sep`` given) are encoded by :func:`label_sets`, one category per distinct set.

    Parameters
    ----------
    values : numpy.ndarray or pandas ExtensionArray
        One value per annotation, none missing.
    categories : sequence or None
        The category set and order (None: the values seen, sorted).
    where : callable
        Maps a position in ``values`` to a description for error messages.
    sep : str, optional
        Read every value as a set of labels, strings split at ``sep`` (:func:`label_sets`).

    Returns
    -------
    codes : numpy.ndarray
        The category code of each value.
    categories : pandas.Index
        The categories, named ``category``.

    Raises
    ------
    UnknownCategoryError
        A value is not among ``categories``.
    InvalidParameterError
        Values of types that cannot be ordered (numbers and strings, say), without
        ``categories``; ``categories`` empty, repeated or with a missing value; a set of
        labels holding an unhashable label.
    MissingValueError
        A set of labels holding a missing label (NaN/None).

    Examples
    --------
    >>> codes, cats = encode_values(np.array([3, 1, 3]), None, str)
    >>> codes.tolist(), cats.tolist()                 # sorted: 1 → 0, 3 → 1
    ([1, 0, 1], [1, 3])
    >>> encode_values(np.array([3, 1, 3]), [3, 1], str)[0].tolist()   # the order given
    [0, 1, 0]
    """
    if sep is not None or holds_sets(values):
        return label_sets(values, sep, categories, where)
    if isinstance(values, np.ndarray) and values.dtype.kind == "O":
        values = _numbers_or_booleans(values)
    kind = getattr(values.dtype, "kind", "O")
    if kind == "c":
        _refuse_complex(values, "value", where)
    if categories is not None:
        cats = category_index(categories)
        codes = _match_labels(values, cats, where)
        unknown = codes < 0
        if unknown.any():
            strays = pd.unique(values[unknown])
            raise UnknownCategoryError(
                f"{int(unknown.sum())} value(s) are not among categories={preview(cats)}: "
                f"{preview(strays)} (first at {where(int(np.flatnonzero(unknown)[0]))})"
            )
        return codes.astype(np.intp, copy=False), cats
    if kind in "fiu":
        small = _small_integer_offsets(values)
        if small is not None:
            return _encode_small_integers(values, small)
    if kind == "f":
        uniques, codes = np.unique(values, return_inverse=True)
        return codes.astype(np.intp, copy=False), pd.Index(uniques, name="category")
    if kind == "U":
        hashed = factorize_texts(values)
        if hashed is not None:
            codes, uniques = hashed
            if len(uniques) > 1:  # texts that read as one number: kept apart, with a warning
                _warn_lookalikes({_TEXT: uniques.astype(object)}, codes,
                                 {_TEXT: np.arange(len(uniques))}, "value", where, True)
            return codes, pd.Index(uniques, name="category")
        values = values.astype(object)
    codes, labels = label_identity(values, what="value", sort=True, where=where,
                                   compare_texts=True)
    return codes, pd.Index(labels, name="category")


def _encode_small_integers(values: np.ndarray, small: tuple[np.ndarray, int]
                           ) -> tuple[np.ndarray, pd.Index]:
    """Codes and categories of whole numbers within a small range, by counting: their
    offsets from the smallest (:func:`_small_integer_offsets`) are the codes themselves when
    every number of the range is seen (values already coded 0, 1, ..., K − 1, say)."""
    offsets, lo = small
    seen = np.bincount(offsets) > 0
    kind = values.dtype.kind
    if kind == "f":
        seen_values = (np.flatnonzero(seen) + lo).astype(np.int64)
    else:  # in the values' own integer type, exactly
        seen_values = np.flatnonzero(seen).astype(values.dtype) + values.dtype.type(lo)
    codes = offsets if seen.all() else (np.cumsum(seen) - 1)[offsets]
    return codes, pd.Index(seen_values, name="category")


def _numbers_or_booleans(values: np.ndarray) -> np.ndarray:
    """An object array of numbers only as a numeric array (exact integers kept exact), of
    booleans only as a boolean array; any other object array as it is."""
    inferred = pd.api.types.infer_dtype(values, skipna=False)
    if inferred in ("integer", "floating", "mixed-integer-float"):
        return _as_object_or_float(values)
    if inferred == "boolean":
        return values.astype(bool)
    return values


def _match_labels(values: Any, cats: pd.Index, where: Callable[[int], str]) -> np.ndarray:
    """The position of each value among ``cats`` by the label identity rule (-1: not among
    them): a value matches a category of its own type only, so True is not the category 1."""
    one, own = _uniform_type(values), _uniform_type(cats.to_numpy())
    if one == _COMPLEX:
        _refuse_complex(values, "value", where)
    if one is not None and one == own:
        return cats.get_indexer(values)
    value_types = (np.full(len(values), one, dtype=np.int8) if one is not None
                   else _types_of(np.asarray(values, dtype=object)).astype(np.int8))
    if _COMPLEX in value_types:
        _refuse_complex(values, "value", where)
    category_types = (np.full(len(cats), own, dtype=np.int8) if own is not None
                      else _types_of(cats.to_numpy(dtype=object)).astype(np.int8))
    found = np.full(len(values), -1, dtype=np.intp)
    for t in np.unique(value_types):  # a loop over the (at most four) types of label
        rows = np.flatnonzero(value_types == t)
        among = np.flatnonzero(category_types == t)
        if among.size:
            # (pandas-stubs type get_indexer's target as an Index; pandas takes an array)
            hit = cats[among].get_indexer(np.asarray(values)[rows])  # type: ignore[arg-type]
            found[rows] = np.where(hit >= 0, among[hit], -1)
    return found

# ---------------------------------------------------------------------- label identity
#: the types of label of the identity rule, in the order their categories are sorted
LABEL_TYPES = ("number", "boolean", "text", "other")
_NUMBER, _BOOLEAN, _TEXT, _OTHER, _MISSING, _COMPLEX = range(6)
# what pandas.api.types.infer_dtype reports for an object array of labels of one type
_INFERRED_TYPE = {"string": _TEXT, "integer": _NUMBER, "floating": _NUMBER,
                  "mixed-integer-float": _NUMBER, "decimal": _NUMBER, "boolean": _BOOLEAN,
                  "complex": _COMPLEX, "empty": _MISSING, "bytes": _OTHER,
                  "datetime": _OTHER, "datetime64": _OTHER, "date": _OTHER,
                  "timedelta": _OTHER, "timedelta64": _OTHER, "time": _OTHER,
                  "period": _OTHER, "interval": _OTHER}


def _type_of(value: Any) -> int:
    """The label type of one value (``_MISSING`` for None, NaN, NA, NaT)."""
    if isinstance(value, str):
        return _TEXT
    if isinstance(value, (bool, np.bool_)):
        return _BOOLEAN
    if isinstance(value, (complex, np.complexfloating)):
        return _COMPLEX
    if isinstance(value, numbers.Number):
        return _NUMBER if value == value else _MISSING  # NaN is missing
    if value is None or value is pd.NA or value is pd.NaT:
        return _MISSING
    return _OTHER


_types_of = np.frompyfunc(_type_of, 1, 1)


def _uniform_type(values: Any) -> int | None:
    """The one label type of every present value of ``values``, or None when they are of
    several types (then :func:`_types_of` says which each is)."""
    dtype = values.dtype
    if isinstance(dtype, np.dtype) and dtype.kind != "O":
        return {"b": _BOOLEAN, "U": _TEXT, "c": _COMPLEX}.get(
            dtype.kind, _NUMBER if dtype.kind in "iuf" else _OTHER)
    if isinstance(dtype, pd.CategoricalDtype):
        return _uniform_type(np.asarray(dtype.categories))
    if not isinstance(dtype, np.dtype):  # other extension arrays: one type by their dtype
        if pd.api.types.is_bool_dtype(dtype):
            return _BOOLEAN
        if pd.api.types.is_string_dtype(dtype):
            return _TEXT
        if pd.api.types.is_complex_dtype(dtype):
            return _COMPLEX
        return _NUMBER if pd.api.types.is_numeric_dtype(dtype) else _OTHER
    return _INFERRED_TYPE.get(pd.api.types.infer_dtype(values, skipna=True))


def _refuse_complex(values: Any, what: str, where: Callable[[int], str] | None) -> None:
    types = _types_of(np.asarray(values, dtype=object)).astype(np.int8)
    bad = np.flatnonzero(types == _COMPLEX)
    at = f" at {where(int(bad[0]))}" if where is not None and bad.size else ""
    first = f" (first: {label(np.asarray(values)[bad[0]])}{at})" if bad.size else ""
    raise InvalidParameterError(
        f"{max(int(bad.size), 1)} {what}(s) are complex numbers{first}: a label is a number, "
        "a boolean or a text; give the real part (.real) or the modulus (abs) instead")


def label_identity(values: Any, *, what: str = "value", sort: bool = True,
                   where: Callable[[int], str] | None = None,
                   compare_texts: bool = False) -> tuple[np.ndarray, pd.Index]:
    """Codes of labels by the one label identity rule, and the distinct labels.

    Labels are of three types: **numbers** (Python, numpy and decimal integers and floats),
    **booleans** and **text** (other hashable values, such as dates, are a fourth type,
    compared as Python compares them). Two labels are one when they are of one type and
    equal: numbers as numbers (``1``, ``1.0`` and ``np.int64(1)`` are one label), booleans
    as booleans, texts as strings. Labels of different types are never one: ``1`` and
    ``"1"``, ``True`` and ``1`` are two labels, and a :class:`~kappalab.errors.LabelWarning`
    names such a pair when its labels are equal as text (``str``) or as numbers — as it does,
    with ``compare_texts``, for two texts that read as the same number (``"1"`` and
    ``"1.0"``). Complex values are refused. Sorted, the labels come numbers first, then
    booleans, text and the rest, each type in its own order.

    Parameters
    ----------
    values : numpy.ndarray or pandas ExtensionArray
        One label per entry; missing ones (None, NaN, NA, NaT) get the code -1.
    what : str, default "value"
        What the labels are, for the messages (``"value"``, ``"item id"``, ``"rater id"``).
    sort : bool, default True
        Codes in the sorted order of the labels (else in the order of first appearance).
    where : callable, optional
        Maps a position in ``values`` to a description for the messages (``"row 3"``).
    compare_texts : bool, default False
        Also warn about two texts that are equal as numbers (a check over the distinct texts).

    Returns
    -------
    codes : numpy.ndarray
        The label code of each entry, -1 for a missing one.
    labels : pandas.Index
        The distinct labels, in the order of the codes.

    Raises
    ------
    InvalidParameterError
        A complex value; labels of one type that cannot be ordered (with ``sort``).

    Warns
    -----
    LabelWarning
        Two labels are kept apart although they are equal as text or as numbers.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     codes, labels = label_identity(np.array([1, 1.0, True, "1"], dtype=object))
    >>> codes.tolist(), list(labels)       # 1 and 1.0 are one number; True and "1" apart
    ([0, 0, 1, 2], [1, True, '1'])
    >>> [w.category.__name__ for w in caught]
    ['LabelWarning']
    """
    one = _uniform_type(values)
    if one is None:  # several types, or one type among missing values: each value's type
        types = _types_of(np.asarray(values, dtype=object)).astype(np.int8)
        present = set(np.unique(types).tolist()) - {_MISSING}
        one = present.pop() if len(present) == 1 else None
        if _COMPLEX in present:
            one = _COMPLEX
    if one == _COMPLEX:
        _refuse_complex(values, what, where)
    if one is not None:  # labels of one type: factorized as they are
        codes, uniques = _factorize_one_type(values, sort, what)
        if compare_texts and one == _TEXT and len(uniques) > 1:
            _warn_lookalikes({_TEXT: np.asarray(uniques, dtype=object)}, codes,
                             {_TEXT: np.arange(len(uniques))}, what, where, compare_texts)
        if one in (_NUMBER, _BOOLEAN) and uniques.dtype == object:
            uniques = uniques.infer_objects()  # a numeric (or boolean) Index
        return codes, uniques
    codes = np.full(len(values), -1, dtype=np.intp)
    kinds = [t for t in (_NUMBER, _BOOLEAN, _TEXT, _OTHER) if (types == t).any()]
    by_type: dict[int, np.ndarray] = {}
    sizes: list[int] = []
    for t in kinds:  # a loop over the (at most four) types of label
        rows = np.flatnonzero(types == t)
        sub_codes, sub_uniques = _factorize_one_type(values[rows], sort, what)
        codes[rows] = np.where(sub_codes < 0, -1, sub_codes + sum(sizes))
        by_type[t] = np.asarray(sub_uniques, dtype=object)
        sizes.append(len(sub_uniques))
    merged = np.concatenate([by_type[t] for t in kinds])
    starts = np.cumsum([0] + sizes)
    new_index = np.arange(len(merged))
    if not sort:  # renumbered in the order of first appearance
        seen = codes >= 0
        order_codes, first_seen = pd.factorize(codes[seen], sort=False)
        codes[seen] = order_codes
        merged = merged[first_seen]
        new_index = np.empty(len(first_seen), dtype=np.intp)
        new_index[first_seen] = np.arange(len(first_seen))
    positions = {t: new_index[starts[k]:starts[k + 1]] for k, t in enumerate(kinds)}
    _warn_lookalikes(by_type, codes, positions, what, where, compare_texts)
    return codes, pd.Index(merged, dtype=object)


def _factorize_one_type(values: Any, sort: bool, what: str) -> tuple[np.ndarray, pd.Index]:
    try:
        codes, uniques = pd.factorize(values, sort=sort)
    except TypeError:
        raise InvalidParameterError(
            f"{what}s of one type that cannot be ordered ({preview(pd.unique(values))}); "
            "pass categories= to fix the category set and order"
        ) from None
    if isinstance(uniques, (pd.Categorical, pd.CategoricalIndex)):
        uniques = np.asarray(uniques)  # labels, not a CategoricalIndex
    return codes.astype(np.intp, copy=False), pd.Index(uniques)


def _as_numbers(texts: np.ndarray) -> np.ndarray:
    """Each text as the number it reads as (NaN when it reads as none; "nan" reads as none)."""
    return pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce").to_numpy(
        dtype=float, na_value=np.nan)


def _warn_lookalikes(by_type: dict[int, np.ndarray], codes: np.ndarray, positions: Any,
                     what: str, where: Callable[[int], str] | None,
                     compare_texts: bool) -> None:
    """Warn when labels of different types (or, with ``compare_texts``, two texts) are equal
    as text or as numbers: kept apart by the identity rule, they may be one label to the
    user. Works on the distinct labels of each type, never on every annotation."""
    numbers_ = by_type.get(_NUMBER)
    booleans = by_type.get(_BOOLEAN)
    texts = by_type.get(_TEXT)
    pairs: list[tuple[Any, Any, int, int]] = []  # (label, label, its type, its index)

    def note(a: Any, b: Any, type_b: int, index_b: int) -> None:
        pairs.append((a, b, type_b, index_b))

    as_float: np.ndarray | None = None
    numbers_found = np.empty(0, dtype=object) if numbers_ is None else numbers_
    if numbers_ is not None:
        try:
            as_float = numbers_.astype(float)
        except OverflowError:  # a Python integer beyond the floats: no text reads as it
            as_float = np.array([float(v) if abs(v) < 1e308 else np.inf for v in numbers_])
    if booleans is not None and as_float is not None:
        for b in booleans:  # at most two
            match = np.flatnonzero(as_float == float(b))
            if match.size:
                note(numbers_found[match[0]], b, _BOOLEAN,
                     int(np.flatnonzero(booleans == b)[0]))
    if texts is not None and (numbers_ is not None or booleans is not None or compare_texts):
        read = _as_numbers(texts)
        if as_float is not None:
            hit = np.flatnonzero(np.isin(read, as_float))
            if hit.size:
                k = int(hit[0])
                note(numbers_found[np.flatnonzero(as_float == read[k])[0]], texts[k], _TEXT, k)
        if booleans is not None:
            for b in booleans:
                hit = np.flatnonzero((texts == str(b)) | (read == float(b)))
                if hit.size:
                    note(b, texts[hit[0]], _TEXT, int(hit[0]))
        if compare_texts:
            readable = np.flatnonzero(~np.isnan(read))
            if readable.size > 1:
                groups, firsts = pd.factorize(read[readable])
                repeated = np.flatnonzero(np.bincount(groups) > 1)
                if repeated.size:
                    members = readable[groups == repeated[0]]
                    note(texts[members[0]], texts[members[1]], _TEXT, int(members[1]))
    if not pairs:
        return
    a, b, type_b, index_b = pairs[0]
    how = "text" if str(a) == str(b) else "numbers"
    kinds = ("a number", "a boolean", "a text")
    type_a = _type_of(a)
    of = (f"{kinds[type_a]} and {kinds[type_b]}" if type_a != type_b
          else "two different texts")
    at = ""
    if where is not None:
        code = positions[type_b][index_b]
        at = f"; {label(b)} first at {where(int(np.flatnonzero(codes == code)[0]))}"
    others = f"; {len(pairs) - 1} more such pair(s)" if len(pairs) > 1 else ""
    warn(f"the {what}s {label(a)} and {label(b)} are equal as {how} but kept as two labels "
         f"({of}{at}{others}): labels of different types, or different texts, are different "
         f"labels; convert the {what}s to one type (.astype(str), pd.to_numeric) if they are "
         "one", LabelWarning)


#: the words a text file's cell is a boolean by (as pandas reads a column of them)
BOOLEAN_WORDS = {"True": True, "TRUE": True, "true": True,
                 "False": False, "FALSE": False, "false": False}


def text_cell_labels(cells: Any) -> np.ndarray:
    """The labels of the cells of a text file, each typed by its own text.

    A file's cells have no type; this gives each its type by the cell alone, never by the
    other cells of its column, so that the label identity rule (:func:`label_identity`)
    treats ``1`` and ``1.0`` alike whatever else the column holds: a cell written as a number
    (``1``, ``-2``, ``1.0``, ``1e3``, ``.5``; ``inf``) is that number — an exact integer when
    written as one —, a cell ``True``/``TRUE``/``true`` or ``False``/``FALSE``/``false`` is a
    boolean, and any other cell (``x``, ``nan``, ``1_000``, ``0x10``) is its text. These are
    the types pandas gives a column whose cells are all of one kind.

    Parameters
    ----------
    cells : array-like
        The cells as read (strings, or values already typed); missing ones stay missing.

    Returns
    -------
    numpy.ndarray
        An object array of the labels: numbers, booleans and strings.

    Examples
    --------
    >>> text_cell_labels(np.array(["1", "1.0", "x", "true", None], dtype=object)).tolist()
    [1, 1.0, 'x', True, None]
    """
    cells = np.asarray(cells, dtype=object)
    codes, uniques = pd.factorize(cells)  # each distinct cell is read once
    texts = pd.Series(np.asarray(uniques, dtype=object), dtype=object)
    is_text = texts.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
    typed = texts.to_numpy(dtype=object).copy()
    if is_text.any():
        text = texts[is_text].astype(str)
        number = pd.to_numeric(text, errors="coerce")
        is_number = number.notna().to_numpy()  # "nan" reads as no number: it stays text
        whole = text.str.fullmatch(r"\s*[+-]?[0-9]+\s*").to_numpy(dtype=bool)
        as_float = number.to_numpy(dtype=float, na_value=np.nan)
        chosen = np.where(is_number, as_float, text.to_numpy(dtype=object)).astype(object)
        if whole.any():  # integers exactly, beyond 2**53 too
            ints = pd.to_numeric(text[whole], errors="coerce")
            chosen[whole] = (ints.to_numpy().astype(object) if ints.dtype.kind in "iu"
                             else [int(t) for t in text.to_numpy()[whole]])
        words = text.map(BOOLEAN_WORDS)
        boolean = words.notna().to_numpy()
        chosen[boolean] = words.to_numpy(dtype=object)[boolean]
        typed[is_text] = chosen
    out = np.empty(cells.shape, dtype=object)
    present = codes >= 0
    out[present] = typed[codes[present]]
    out[~present] = cells[~present]
    return out


def holds_sets(values: Any) -> bool:
    """Whether any value is a set of labels (a set, frozenset, list or tuple).

    Parameters
    ----------
    values : numpy.ndarray or pandas ExtensionArray
        One value per annotation.

    Returns
    -------
    bool
        True when an object array holds a value of one of :data:`SET_TYPES`.

    Examples
    --------
    >>> holds_sets(np.array(["a", "b"], dtype=object)), holds_sets(np.array([{"a"}, "b"]))
    (False, True)
    """
    if not isinstance(values, np.ndarray) or values.dtype.kind != "O":
        return False
    return any(issubclass(t, SET_TYPES) for t in set(map(type, values)))


def label_sets(
    values: Any, sep: str | None, categories: Sequence[Any] | pd.Index | None,
    where: Callable[[int], str],
) -> tuple[np.ndarray, pd.Index]:
    """Category codes of set-valued (multi-label) annotations: one category per distinct set.

    Each value is read as a set of labels: a set, frozenset, list or tuple gives its
    elements (order and repeats do not matter), a string is split at ``sep`` (each piece
    stripped of surrounding white space, empty pieces ignored, so ``""`` is the empty set)
    or, without ``sep``, is one label, and any other value is one label. The empty set is a
    valid annotation: the rater chose none of the labels. Each distinct set is one category,
    a ``frozenset``; the categories are ordered by their labels sorted (``()`` <
    ``("a",)`` < ``("a", "b")`` < ``("b",)``), by their ``repr`` when labels of different
    types cannot be compared, unless ``categories`` gives the order.

    Parameters
    ----------
    values : numpy.ndarray or pandas ExtensionArray
        One value per annotation, none missing.
    sep : str or None
        The delimiter of labels within a string (None: a string is one label).
    categories : sequence or None
        The category sets and their order, each read as the values are (None: the sets
        seen, sorted).
    where : callable
        Maps a position in ``values`` to a description for error messages.

    Returns
    -------
    codes : numpy.ndarray
        The category code of each value.
    categories : pandas.Index
        The distinct sets, as frozensets, named ``category``.

    Raises
    ------
    MissingValueError
        A set holds a missing label (NaN/None).
    InvalidParameterError
        A set holds an unhashable label (a list within a list, say); ``sep`` is not a
        non-empty string; ``categories`` empty or repeating a set.
    UnknownCategoryError
        A set is not among ``categories``.

    Examples
    --------
    >>> codes, cats = label_sets(np.array(["b;a", "a", "", "a; b"], dtype=object), ";", None,
    ...                          str)
    >>> codes.tolist(), [sorted(c) for c in cats]    # "b;a" and "a; b" are one set
    ([2, 1, 0, 2], [[], ['a'], ['a', 'b']])
    """
    if sep is not None and not (isinstance(sep, str) and sep):
        raise InvalidParameterError(f"sep= must be a non-empty string, got {sep!r}")
    values = np.asarray(values, dtype=object)
    try:  # hashable values (strings, frozensets, tuples): each distinct one is read once
        raw_codes, raw = pd.factorize(values, sort=False)
    except TypeError:  # lists or sets among them: read each
        raw_codes, raw = np.arange(values.size), values
    sets = np.empty(len(raw), dtype=object)
    for k, value in enumerate(raw):  # over the distinct values
        sets[k] = _label_set(value, sep, lambda: where(int(np.flatnonzero(raw_codes == k)[0])))
    set_codes, uniques = pd.factorize(sets, sort=False)
    codes = set_codes[raw_codes]
    if categories is not None:
        given = np.empty(len(categories), dtype=object)
        for k, category in enumerate(categories):  # over the categories
            given[k] = _label_set(category, sep, lambda: f"categories= position {k}")
        cats = category_index(pd.Index(given, dtype=object))
        # (pandas-stubs type get_indexer's target as an Index; pandas takes an array)
        positions = cats.get_indexer(uniques)  # type: ignore[arg-type]
        unknown = positions < 0
        if unknown.any():
            strays = uniques[unknown]
            first = int(np.flatnonzero(unknown[codes])[0])
            raise UnknownCategoryError(
                f"{int(unknown[codes].sum())} value(s) are not among categories="
                f"{preview(cats)}: {preview(strays)} (first at {where(first)})"
            )
        return positions[codes].astype(np.intp, copy=False), cats
    order = _set_order(uniques)
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    return rank[codes], pd.Index(uniques[order], dtype=object, name="category")


def _label_set(value: Any, sep: str | None, where: Callable[[], str]) -> frozenset:
    """One annotation as a frozenset of labels (see :func:`label_sets`)."""
    if isinstance(value, str):
        labels = [piece.strip() for piece in value.split(sep)] if sep is not None else [value]
        return frozenset(piece for piece in labels if piece != "" or sep is None)
    if isinstance(value, SET_TYPES):
        labels = list(value)
        for one in labels:
            if not isinstance(one, (set, list)) and pd.isna(one) is True:
                raise MissingValueError(
                    f"a set of labels holds a missing label ({label(one)}) at {where()}; "
                    "leave it out of the set (an empty set is a valid annotation)"
                )
        try:
            return frozenset(labels)
        except TypeError:
            raise InvalidParameterError(
                f"a set of labels holds an unhashable label at {where()}: {label(value)}; "
                "labels must be strings, numbers or other hashable values"
            ) from None
    return frozenset([value])


def _set_order(sets: np.ndarray) -> np.ndarray:
    """The order of the distinct sets by their sorted labels (by repr for mixed types)."""
    try:
        keys = [tuple(sorted(s)) for s in sets]  # over the distinct sets
        return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.intp)
    except TypeError:
        keys = [tuple(sorted(map(repr, s))) for s in sets]
        return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.intp)


def factorize_texts(values: np.ndarray, sort: bool = True
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes and uniques of a 1-D fixed-width unicode array, without making a Python string
    per value.

    Each value's code points are hashed (FNV-1a, one vectorised pass per character
    position, a loop over the positions and not over the values), the hashes factorized,
    and every value checked against the first value of its code, so the result is exact.

    Parameters
    ----------
    values : numpy.ndarray
        A 1-D array of dtype ``<U…`` (no missing values: numpy texts have none).
    sort : bool, default True
        Uniques in sorted order (as ``np.unique``), else in order of first appearance (as
        ``pandas.factorize``).

    Returns
    -------
    (codes, uniques) or None
        ``uniques[codes]`` equals ``values``; None on a 64-bit hash collision (then the
        caller factorizes the texts as objects).

    Examples
    --------
    >>> codes, uniques = factorize_texts(np.array(["b", "a", "b", "c"]))
    >>> codes.tolist(), uniques.tolist()
    ([1, 0, 1, 2], ['a', 'b', 'c'])
    >>> factorize_texts(np.array(["b", "a", "b"]), sort=False)[0].tolist()
    [0, 1, 0]
    """
    n = values.size
    width = values.dtype.itemsize // 4
    if width == 0:  # only empty strings
        return np.zeros(n, dtype=np.intp), values[:1]
    points = np.ascontiguousarray(values).view(np.uint32).reshape(n, width)
    hashed = np.full(n, 0xCBF29CE484222325, dtype=np.uint64)
    prime = np.uint64(0x100000001B3)
    for j in range(width):  # a loop over character positions, not over values
        hashed ^= points[:, j]
        hashed *= prime
    codes, uniques = pd.factorize(hashed, sort=False)
    first = np.empty(len(uniques), dtype=np.intp)
    first[codes[::-1]] = np.arange(n - 1, -1, -1)  # the first value with each code
    representatives = values[first]
    if not (values == representatives[codes]).all():  # pragma: no cover - a 64-bit collision
        return None
    if not sort:
        return codes, representatives
    order = np.argsort(representatives, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[codes], representatives[order]


def _small_integer_offsets(x: np.ndarray) -> tuple[np.ndarray, int] | None:
    """(x − min) as small integers and the minimum, for a 1-D array without missing values.

    None unless every value is a whole number within a range about the size of ``x`` (then
    the categories are found by counting instead of sorting). Integer arrays are shifted in
    their own type, so labels beyond 2**53 stay exact.
    """
    lo, hi = x.min(), x.max()
    if x.dtype.kind in "iu":
        if not int(hi) - int(lo) <= 4 * x.size + 1024:
            return None
        return (x - lo).astype(np.intp), int(lo)
    if not (hi - lo <= 4 * x.size + 1024 and lo == np.floor(lo)):  # 2.5, 3.5 are not whole
        return None
    shifted = x - lo
    if not (shifted == np.floor(shifted)).all():
        return None
    return shifted.astype(np.intp), int(lo)


class SmallIntegerTable(NamedTuple):
    """What :func:`count_small_integers` reads from a table of small whole numbers.

    Parameters
    ----------
    counts : numpy.ndarray
        Items × categories counts.
    categories : numpy.ndarray
        The values seen, sorted (int64).
    per_item : numpy.ndarray
        Annotations per item.
    n_active_raters : int
        Number of raters with at least one annotation.
    wide_codes : callable
        Makes the items × raters category codes (-1 = missing) when called.

    Examples
    --------
    >>> t = count_small_integers(np.array([[1.0, 2.0], [2.0, np.nan]]), 1.0, 2.0)
    >>> t.wide_codes().tolist()   # 1 → 0, 2 → 1, NaN → −1
    [[0, 1], [1, -1]]
    """

    counts: np.ndarray  # items × categories
    categories: np.ndarray  # sorted int64 values
    per_item: np.ndarray  # annotations per item
    n_active_raters: int
    wide_codes: Callable[[], np.ndarray]  # makes the items × raters codes (-1 = missing)


_BLOCK_CELLS = 1 << 17  # cells per block of the counting pass (≈ 1 MiB of float64)


def count_small_integers(table: np.ndarray, lo: float, hi: float) -> SmallIntegerTable | None:
    """Counts of an items × raters table of whole numbers, with one bincount and no sort.

    Parameters
    ----------
    table : numpy.ndarray
        Items × raters values: float with NaN for missing, or integers.
    lo, hi : float
        The smallest and the largest value of ``table``.

    Returns
    -------
    SmallIntegerTable or None
        The counts, categories, annotations per item, active raters and codes; None when the
        range ``hi − lo`` is large against the table's size or a value is not a whole number
        (the caller sorts instead).

    Examples
    --------
    >>> t = count_small_integers(np.array([[1.0, 2.0], [2.0, np.nan]]), 1.0, 2.0)
    >>> t.counts.tolist(), t.categories.tolist(), t.per_item.tolist(), t.n_active_raters
    ([[1, 1], [0, 1]], [1, 2], [2, 1], 2)
    >>> count_small_integers(np.array([[0.5, 1.0]]), 0.5, 1.0) is None   # not whole numbers
    True
    """
    span = hi - lo
    if not (span <= 4 * table.size + 1024 and lo == np.floor(lo)):  # 2.5, 3.5 are not whole
        return None
    n_items, n_raters = table.shape
    missing = int(span) + 1  # NaN cells get this code: an extra column, dropped below
    dtype = np.int8 if missing < 2**7 else np.int16 if missing < 2**15 else np.int32
    floating = table.dtype.kind == "f"
    # blocks of rows small enough for the temporaries to stay in cache; one bincount each
    block = max(1, _BLOCK_CELLS // max(n_raters, 1))
    if n_items <= block:  # one block (a small table): no arrays to fill block by block
        offsets = table - lo
        if floating:
            np.fmin(offsets, missing, out=offsets)  # the number where a cell is NaN
        codes = offsets.astype(dtype)
        if floating and not (codes == offsets).all():  # not whole numbers
            return None
        key = np.multiply(codes, n_items, dtype=np.intp)
        key += np.arange(n_items, dtype=np.intp)[:, None]
        counts = np.bincount(key.ravel(), minlength=n_items * (missing + 1)).reshape(
            missing + 1, n_items)  # category-major
        return _small_integer_table(codes, counts, missing, n_raters, lo, dtype)
    codes = np.empty(table.shape, dtype=dtype)
    counts = np.empty((missing + 1, n_items), dtype=np.int64)  # category-major
    for start in range(0, n_items, block):
        rows = slice(start, min(start + block, n_items))
        offsets = table[rows] - lo
        if floating:
            np.fmin(offsets, missing, out=offsets)  # fmin returns the number where a cell is NaN
        codes[rows] = offsets
        if floating and not (codes[rows] == offsets).all():  # not whole numbers
            return None
        size = offsets.shape[0]
        key = np.multiply(codes[rows], size, dtype=np.intp)
        key += np.arange(size, dtype=np.intp)[:, None]
        counts[:, rows] = np.bincount(key.ravel(), minlength=size * (missing + 1)).reshape(
            missing + 1, size)
    return _small_integer_table(codes, counts, missing, n_raters, lo, dtype)


def _small_integer_table(codes: np.ndarray, counts: np.ndarray, missing: int, n_raters: int,
                         lo: float, dtype: Any) -> SmallIntegerTable:
    """:func:`count_small_integers`' result from the value offsets (``missing`` for NaN) and
    the category-major counts (the last row: the missing cells)."""
    per_item = n_raters - counts[missing]
    seen = np.flatnonzero(counts[:missing].sum(axis=1))  # the offsets of the values that occur
    # most raters show up in the first rows; scan the rest only for those that do not (the
    # head rater-major: numpy's reduction across the rows of a few columns is slow)
    active = (np.ascontiguousarray(codes[:1024].T) != missing).any(axis=1)
    if not active.all():
        active[~active] = (codes[:, ~active] != missing).any(axis=0)

    def wide_codes() -> np.ndarray:  # made when asked for (most coefficients never do)
        lookup = np.full(missing + 1, -1, dtype=dtype)  # value offset -> code; NaN -> -1
        lookup[seen] = np.arange(seen.size, dtype=dtype)
        return lookup[codes]

    return SmallIntegerTable(
        # items × categories (column-major; a view when every value in the range occurs)
        counts=(counts[:missing] if seen.size == missing else counts[seen]).T,
        categories=(seen + int(lo)).astype(np.int64),
        per_item=per_item,
        n_active_raters=int(active.sum()),
        wide_codes=wide_codes,
    )


