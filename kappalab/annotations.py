"""The :class:`Annotations` data model: its constructors, its store and the views estimators use.

The constructors (``from_long``, ``from_wide``, ``from_counts``) and :func:`as_annotations`
read and validate the input with :mod:`kappalab.encoding`, which turns it into integer codes.
An ``Annotations`` keeps its data in the form it came in, encoded as integer category codes
with the labels of items, raters and categories beside them: per-annotation code arrays (long
input; for float values that are not whole numbers, the values themselves, coded and their
categories sorted only when first needed), an items × raters table of codes and, for numbers,
of float values (wide input), or an items × categories count matrix (counts input, raters
unknown). Estimators read only
sufficient statistics — per-item counts, per-rater counts, per-item moments — which are reduced
from whichever store exists in a few vectorised passes (``np.bincount``, matrix-vector
products) and cached: the item-sum spine (docs/architecture.md, "The item-sum spine").
"""

from __future__ import annotations

import os
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeAlias, Union

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    import xarray

from .encoding import (
    INT64_LIMIT,
    category_index,
    check_layout,
    check_plainly_wide,
    code_dtype,
    count_small_integers,
    encode_column,
    encode_values,
    exact_as_float,
    factorize_keys,
    integer_categories,
    label_identity,
    long_columns,
    numeric_positions,
    preview,
    reject_duplicate_pairs,
    reject_infinite,
    set_item_column,
    transposed,
    wide_to_matrix,
)
from .errors import (
    DroppedAnnotationsWarning,
    DuplicateAnnotationError,
    EmptyDataError,
    InvalidCountError,
    InvalidParameterError,
    MissingValueError,
    NonNumericError,
    UnknownRatersError,
    label,
    warn,
)
from .kernels import single_blas_thread

if TYPE_CHECKING:
    import scipy.sparse as sp
else:  # scipy.sparse, imported on first use (start-up)
    from .kernels import sp

__all__ = ["Annotations", "AnnotationsLike", "DENSE_COUNT_CELLS", "DUPLICATE_POLICIES",
           "as_annotations", "separate_submissions", "submission_numbers"]

#: what ``Annotations.from_long(duplicates=...)`` does with a rater's repeated submission
DUPLICATE_POLICIES = ("raise", "first", "last", "separate")

#: items × categories cells beyond which count tables are kept sparse (128 MiB of int64)
DENSE_COUNT_CELLS = 1 << 24
#: cells of the wide value table turned into scores at a time (:meth:`Annotations.item_moments`)
_MOMENT_BLOCK_CELLS = 1 << 16
#: up to this many item or rater labels, a repeated label is found with a Python set
_FEW_LABELS = 64

# crowd-kit's long schema, accepted by from_long when the default column names are absent
_CROWDKIT_COLUMNS = {"item": "task", "rater": "worker", "value": "label"}


class Annotations:
    """Annotations of items by raters into categories (or numeric values).

    Build one with a constructor, which reads, validates and encodes the input:

    - :meth:`from_long` — one row per annotation, with item, rater and value columns (or
      crowd-kit's ``task``/``worker``/``label``);
    - :meth:`from_wide` — an items × raters table (array, nested list, DataFrame or
      ``xarray.DataArray``), NaN for missing; ``raters_as_rows=True`` for raters × items
      (krippendorff's ``reliability_data``), ``item="id"`` for a table with an item-id column;
    - :meth:`from_counts` — an items × categories count table (raters unknown).

    Every coefficient in kappalab also takes raw data and reads it with
    :func:`~kappalab.annotations.as_annotations`, by one rule: a DataFrame whose column
    names say item, rater and value (``item``/``rater``/``value``, crowd-kit's
    ``task``/``worker``/``label``, or the common names of
    :data:`~kappalab.encoding.LONG_VOCABULARY`: ``sentence_id``/``coder``/``tag``, ...) is
    long, one row per annotation; any other DataFrame, array or DataArray is wide, items ×
    raters, and a DataFrame that is neither recognisably long nor plainly wide is refused
    (:class:`~kappalab.errors.LayoutError`). Other layouts need their constructor, and
    :meth:`from_wide` warns (:class:`~kappalab.errors.LayoutWarning`) when a table looks like
    one of them. Labels (values, item and rater ids) follow one identity rule
    (:func:`~kappalab.encoding.label_identity`): numbers, booleans and texts are different
    labels, ``1`` and ``1.0`` one.

    Its own parameters are the encoded stores: the constructor is internal (it neither
    validates nor encodes).

    Parameters
    ----------
    items : pandas.Index
        Item labels.
    raters : pandas.Index or None
        Rater labels; None when raters are unknown (count data).
    categories : pandas.Index or None
        Category labels, in the order of the codes (None only with ``values``).
    item_codes, rater_codes, category_codes : numpy.ndarray, optional
        The long store: per-annotation item, rater (None without raters) and category codes.
    wide_codes : numpy.ndarray or callable, optional
        The wide store: items × raters category codes, -1 for missing, or a function that
        makes them when first needed.
    wide_values : numpy.ndarray, optional
        For numeric categories of a wide table: the items × raters float values, NaN for
        missing.
    counts : numpy.ndarray, optional
        The counts store: items × categories counts.
    float_counts : numpy.ndarray, optional
        The counts store as read-only float64 whole numbers (what the cores read), the int64
        ``count_matrix`` made from it when asked for (:meth:`from_counts`).
    values : numpy.ndarray, optional
        The long store of float values (with ``item_codes`` and ``rater_codes``, without
        ``category_codes``; ``categories`` None): the value of each annotation. The
        categories (the sorted distinct values) and the category codes are made when first
        needed, and interval moments are read from the values themselves.

    Attributes
    ----------
    items, raters, categories : pandas.Index
        Labels of the items (in order of first appearance), the raters (``None`` when
        raters are unknown, as for count data) and the categories (sorted, or in the order
        given by ``categories=``).

    Examples
    --------
    >>> import pandas as pd
    >>> from kappalab import Annotations
    >>> Annotations.from_wide([["a", "a"], ["a", "b"], ["b", None]])   # 2 + 2 + 1 annotations
    Annotations(items=3, raters=2, annotations=5, categories=['a', 'b'])
    >>> long = pd.DataFrame({"item": [1, 1, 2], "rater": ["u", "v", "u"], "value": [3, 4, 4]})
    >>> Annotations.from_long(long).count_matrix.tolist()   # item 1: one 3, one 4; item 2: a 4
    [[1, 1], [0, 1]]
    >>> Annotations.from_counts([[2, 1], [0, 3]])           # 2 + 1 + 0 + 3 annotations
    Annotations(items=2, raters=unknown, annotations=6, categories=[0, 1])
    """

    def __init__(
        self,
        *,
        items: pd.Index,
        raters: pd.Index | None,
        categories: pd.Index | None,
        item_codes: np.ndarray | None = None,
        rater_codes: np.ndarray | None = None,
        category_codes: np.ndarray | None = None,
        wide_codes: np.ndarray | Callable[[], np.ndarray] | None = None,
        wide_values: np.ndarray | None = None,
        counts: np.ndarray | None = None,
        float_counts: np.ndarray | None = None,
        values: np.ndarray | None = None,
    ):
        # Not meant to be called directly: the constructors validate and encode. One of three
        # stores: per-annotation codes (long); an items × raters table (wide), as category
        # codes with -1 for missing (or a function that makes them) and/or, for numbers, the
        # float values with NaN for missing (per-annotation arrays are derived when first
        # needed); or counts.
        self.items = items
        self.raters = raters
        if categories is not None:
            self.categories = categories
        self._wide_values = wide_values
        self._long_values = values
        self._value_keys = (item_codes, rater_codes) if values is not None else None
        self._make_wide_codes = wide_codes if callable(wide_codes) else None
        if wide_codes is not None and not callable(wide_codes):
            self.__dict__["_wide_codes"] = wide_codes
        if category_codes is not None:
            self.__dict__["_long_codes"] = (item_codes, rater_codes, category_codes)
        if counts is not None:
            self.__dict__["count_matrix"] = counts
        # or the counts as read-only floats (whole numbers below 2**53), the int64 table made
        # from them when asked for: a counts table is copied once, as the cores read it
        self._float_counts = float_counts

    @cached_property
    def categories(self) -> pd.Index:
        """The categories, in the order of the codes (given to the constructor, except for a
        store of float values: their sorted distinct values, found when first needed)."""
        values = self._long_values
        assert values is not None, "the constructor sets the categories of other stores"
        ordered = np.sort(values)
        distinct = np.empty(ordered.size, dtype=bool)
        distinct[:1] = True
        np.not_equal(ordered[1:], ordered[:-1], out=distinct[1:])
        return pd.Index(ordered[distinct], name="category")

    @property
    def _is_wide(self) -> bool:
        return self._make_wide_codes is not None or "_wide_codes" in self.__dict__

    @cached_property
    def _wide_codes(self) -> np.ndarray | None:
        """Items × raters category codes, -1 for missing (made when first needed)."""
        return None if self._make_wide_codes is None else self._make_wide_codes()

    @cached_property
    def _long_codes(self) -> tuple[np.ndarray, np.ndarray | None, np.ndarray] | None:
        if self._long_values is not None:  # the values coded (np.unique's, sorted) when needed
            item_codes, rater_codes = self._keys
            found, codes = np.unique(self._long_values, return_inverse=True)
            if "categories" not in self.__dict__:
                self.categories = pd.Index(found, name="category")
            return item_codes, rater_codes, codes.astype(np.intp, copy=False)
        if not self._is_wide:
            return None  # counts: no annotation-level codes
        wide = self._wide
        flat = np.flatnonzero(wide.ravel() >= 0)
        item_codes, rater_codes = np.divmod(flat, wide.shape[1])
        return item_codes, rater_codes, wide.ravel()[flat].astype(np.intp)

    @property
    def _keys(self) -> tuple[np.ndarray, np.ndarray | None]:
        """(item, rater) codes of a store of float values (none made: they are stored)."""
        keys = self._value_keys
        assert keys is not None and keys[0] is not None, "read only on a store of values"
        return keys[0], keys[1]

    @property
    def _item_codes(self) -> np.ndarray | None:
        if self._long_values is not None:
            return self._keys[0]
        return None if self._long_codes is None else self._long_codes[0]

    @property
    def _rater_codes(self) -> np.ndarray | None:
        if self._long_values is not None:
            return self._keys[1]
        return None if self._long_codes is None else self._long_codes[1]

    @property
    def _category_codes(self) -> np.ndarray | None:
        return None if self._long_codes is None else self._long_codes[2]

    @property
    def _has_annotation_codes(self) -> bool:
        return (self._is_wide or self._long_values is not None
                or self.__dict__.get("_long_codes") is not None)

    @property
    def _wide(self) -> np.ndarray:
        """:attr:`_wide_codes` of a wide store, where they are never None."""
        codes = self._wide_codes
        assert codes is not None, "read only on a wide store"
        return codes

    @property
    def _stored_codes(self) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """(item, rater, category) codes of a store with annotation codes (not counts)."""
        codes = self._long_codes
        assert codes is not None, "read only on a store with annotation codes"
        return codes

    def _rater_codes_of(self, purpose: str) -> tuple[pd.Index, np.ndarray, int]:
        """The raters, the rater code of every annotation and the number of raters (raters
        required: :meth:`require_raters`)."""
        self.require_raters(purpose)
        raters, rater_codes = self.raters, self._rater_codes
        assert raters is not None and rater_codes is not None, "require_raters checked them"
        return raters, rater_codes, len(raters)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_long(
        cls,
        df: pd.DataFrame,
        item: str = "item",
        rater: str | None = "rater",
        value: str = "value",
        *,
        categories: Sequence[Any] | pd.Index | None = None,
        duplicates: str = "raise",
        sep: str | None = None,
    ) -> "Annotations":
        """One row per annotation, with item, rater and value columns.

        Column names are configurable; when the defaults are absent, crowd-kit's
        ``task``/``worker``/``label`` are accepted. ``rater=None`` means raters are
        unknown. Rows whose value is missing (NaN/None) are dropped with a
        :class:`~kappalab.errors.DroppedAnnotationsWarning` that says how many; a missing item
        or rater, an infinite value and a duplicated (item, rater) pair raise. An ordered
        pandas ``Categorical`` value column fixes the categories and their order (its unused
        categories included), as ``categories=`` does; otherwise the categories are the
        values seen, sorted. Integer values stay exact (no cast to float).

        Set-valued (multi-label) annotations: a value that is a set, frozenset, list or tuple
        of labels, or with ``sep=`` a string of labels separated by ``sep`` (``"a;b"``), is
        one annotation, the set of its labels; each distinct set is one category, a
        ``frozenset`` (see :func:`~kappalab.encoding.label_sets`). The empty set (``set()``,
        ``[]``, or ``""`` with ``sep=``) is a valid annotation; NaN/None is missing. Set
        distances are ``level="masi"`` and ``level="jaccard"``
        (:func:`~kappalab.distances.masi`).

        Examples
        --------
        >>> import pandas as pd, kappalab as kl
        >>> df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
        ...                    "value": pd.Categorical(["lo", "hi", "hi", "hi"],
        ...                                            ["lo", "hi"], ordered=True)})
        >>> list(kl.Annotations.from_long(df).categories)
        ['lo', 'hi']
        >>> tags = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
        ...                      "value": ["x;y", "y;x", "x", ""]})
        >>> [sorted(c) for c in kl.Annotations.from_long(tags, sep=";").categories]
        [[], ['x'], ['x', 'y']]
        """
        if not isinstance(df, pd.DataFrame):
            raise InvalidParameterError(
                f"from_long expects a pandas DataFrame, got {type(df).__name__}"
            )
        if duplicates not in DUPLICATE_POLICIES:
            raise InvalidParameterError(
                f"unknown duplicates policy {duplicates!r}; choose one of "
                f"{', '.join(map(repr, DUPLICATE_POLICIES))}")
        names = {"item": item, "rater": rater, "value": value}
        for role, name in list(names.items()):
            if name is None:
                continue
            if name not in df.columns:
                fallback = _CROWDKIT_COLUMNS[role]
                if name == role and fallback in df.columns:
                    names[role] = fallback
                else:
                    raise InvalidParameterError(
                        f"column {name!r} (the {role} column) is not in the data; "
                        f"columns are {list(df.columns)}"
                    )
            # a name used twice is ambiguous (unique columns, pandas' cached test: none is)
            n_same = 1 if df.columns.is_unique else int((df.columns == names[role]).sum())
            if n_same > 1:
                raise InvalidParameterError(
                    f"column {names[role]!r} (the {role} column) names more than one column "
                    f"({n_same}); rename the columns so that each name is used once"
                )
        if len(df) == 0:
            raise EmptyDataError("the table has no rows: there are no annotations")

        value_column = df[names["value"]]
        value_dtype = value_column.dtype
        missing: np.ndarray | None
        if isinstance(value_dtype, np.dtype) and value_dtype.kind in "iub":
            missing = None  # integers and booleans are never missing
        elif isinstance(value_dtype, np.dtype) and value_dtype.kind == "f":
            missing = np.isnan(value_column.to_numpy())
        else:
            missing = value_column.isna().to_numpy()
        keep = None
        if missing is not None and missing.any():
            n_missing = int(missing.sum())
            warn(
                f"dropped {n_missing} of {len(df)} rows whose {names['value']!r} value is "
                "missing",
                DroppedAnnotationsWarning,
            )
            keep = ~missing
            if not keep.any():
                raise EmptyDataError(f"every {names['value']!r} value is missing: no annotations")

        def where(position: int) -> str:
            row = position if keep is None else np.flatnonzero(keep)[position]
            return f"row {label(df.index[row])}"

        def key_codes(column: str, role: str) -> tuple[np.ndarray, pd.Index]:
            # factorize the column as it is (no copy to an object array); -1 = missing; an
            # object column by the label identity rule (14 and "14" are two ids)
            ids = df[column]
            if ids.dtype == object:
                codes, uniques = label_identity(
                    ids.to_numpy(), what=f"{role} id", sort=False,
                    where=lambda position: f"row {label(df.index[position])}")
            else:  # integer and categorical ids without a hash table (factorize_keys)
                codes, uniques = factorize_keys(ids)
            if (codes < 0).any():
                bad = codes < 0
                first = df.index[np.flatnonzero(bad)[0]]
                raise MissingValueError(
                    f"{int(bad.sum())} row(s) have no {column!r} (first at row {label(first)}); "
                    "every annotation needs one"
                )
            if keep is not None:  # labels seen only on dropped rows are not kept
                codes = codes[keep]
                used = np.bincount(codes, minlength=len(uniques)) > 0
                if not used.all():
                    remap = np.cumsum(used) - 1
                    codes, uniques = remap[codes], uniques[used]
            found: Any = uniques
            if isinstance(uniques, (pd.Categorical, pd.CategoricalIndex)):
                found = np.asarray(uniques)  # labels, not a CategoricalIndex
            return codes.astype(np.intp, copy=False), pd.Index(found, name=role)

        item_column, rater_column = names["item"], names["rater"]
        assert item_column is not None, "item= names a column"
        item_codes, items = key_codes(item_column, "item")
        if rater_column is not None:
            rater_codes, raters = key_codes(rater_column, "rater")
            if duplicates == "raise":
                reject_duplicate_pairs(item_codes, rater_codes, items, raters)
            else:
                occurrence, count = submission_numbers(item_codes, rater_codes, len(raters))
                repeated = occurrence < count - 1 if duplicates == "last" else occurrence > 0
                if duplicates == "separate" and repeated.any():
                    rater_codes, raters = separate_submissions(rater_codes, raters,
                                                               occurrence)
                elif repeated.any():
                    warn(f"dropped {int(repeated.sum())} repeated submission(s) of an (item, "
                         f"rater) pair, keeping the {duplicates} of each",
                         DroppedAnnotationsWarning)
                    rows = np.flatnonzero(keep) if keep is not None else np.arange(len(df))
                    keep = np.zeros(len(df), dtype=bool)
                    keep[rows[~repeated]] = True
                    item_codes, items = key_codes(item_column, "item")
                    rater_codes, raters = key_codes(rater_column, "rater")
            if raters.name != "rater":
                raters = raters.rename("rater")
        else:
            rater_codes, raters = None, None
        category_codes, cats = encode_column(value_column, keep, categories, where, sep,
                                             floats_as_values=True)
        if cats is None:  # float values: kept as they are, categories found when needed
            return cls(items=items, raters=raters, categories=None,
                       item_codes=item_codes, rater_codes=rater_codes, values=category_codes)
        return cls(
            items=items,
            raters=raters,
            categories=cats,
            item_codes=item_codes,
            rater_codes=rater_codes,
            category_codes=category_codes,
        )

    @classmethod
    def from_wide(
        cls,
        x: Any,
        *,
        categories: Sequence[Any] | pd.Index | None = None,
        raters_as_rows: bool | None = None,
        item: Any = None,
        sep: str | None = None,
    ) -> "Annotations":
        """Items × raters: a 2-D array, a DataFrame or an ``xarray.DataArray``; NaN = missing.

        A DataArray must have dims ``item`` and ``rater`` (in any order). Infinite values
        raise. Items and raters keep their labels (row/column index, coordinates) or get
        0-based positions. Integer labels stay exact (beyond 2**53 they are not cast to
        float); nullable ``Int64``/``Float64`` columns are numbers, ``pd.NA`` missing; when
        every column is an ordered pandas ``Categorical`` with the same categories, those fix
        the categories and their order (as ``categories=`` does).

        Parameters
        ----------
        x : array-like, DataFrame or DataArray
            The table.
        categories : sequence, optional
            The category set and order (values outside it raise).
        raters_as_rows : bool, optional
            ``True``: rows are raters and columns items, the ``reliability_data`` layout of
            the ``krippendorff`` package (the table is transposed). ``False``: rows are
            items — stating it silences the layout checks below.
        item : column label, optional
            A column holding the item ids (a wide CSV's first column, say): it becomes the
            item labels and is not a rater. For an array, a column position.
        sep : str, optional
            Read every cell as a set of labels, strings split at ``sep`` (set-valued
            annotations, as in :meth:`from_long`). Cells that are sets, frozensets, lists or
            tuples are read as sets of labels without it.

        Warns
        -----
        LayoutWarning
            When the layout is not stated (neither ``raters_as_rows`` nor ``item`` given)
            and the table looks like another one: a count table (complete, non-negative
            whole numbers with the same sum in every row, some zeros, not every row the
            same — use :meth:`from_counts`), a
            raters × items table (at most 20 rows and at least three times as many columns,
            and 10 or more), or a table whose first column is an item id (every value
            distinct while the other columns repeat a few labels).

        Examples
        --------
        >>> import kappalab as kl
        >>> reliability_data = [[1, 2, 3, 3], [1, 2, 3, 2]]       # raters × items
        >>> ann = kl.Annotations.from_wide(reliability_data, raters_as_rows=True)
        >>> ann.n_items, ann.n_raters
        (4, 2)
        """
        stated = raters_as_rows is not None or item is not None
        if isinstance(x, Annotations):
            raise InvalidParameterError("already an Annotations: use it directly")
        if item is not None:
            x = set_item_column(x, item)
        if raters_as_rows:
            x = transposed(x)
        wide = wide_to_matrix(x, ordered_categories=categories is None)
        items, raters, matrix = wide.items, wide.raters, wide.matrix
        if matrix.size == 0:
            raise EmptyDataError(f"the items × raters table is empty (shape {matrix.shape})")
        n_raters = matrix.shape[1]

        for labels, role in ((items, "item"), (raters, "rater")):
            if isinstance(labels, pd.RangeIndex):  # positions: never repeated
                repeated = None
            elif labels.inferred_type in ("mixed", "mixed-integer"):  # by the label identity
                # rule: True is not 1, 14 is not "14"
                codes, _ = label_identity(labels.to_numpy(), what=f"{role} label", sort=False)
                repeated = pd.Index(codes).duplicated()
            elif len(labels) <= _FEW_LABELS and labels.inferred_type in ("string", "integer"):
                # a few text or integer labels: a set of them tells whether one repeats,
                # without the hash table pandas builds for a new index
                repeated = None if len(set(labels.tolist())) == len(labels) else \
                    labels.duplicated()
            else:
                repeated = labels.duplicated() if labels.has_duplicates else None
            if repeated is not None and repeated.any():
                raise DuplicateAnnotationError(
                    f"{role} {label(labels[repeated][0])} labels more than one "
                    f"{'row' if role == 'item' else 'column'} of the items × raters table; "
                    f"each {role} may appear once"
                )

        if wide.categories is not None and sep is None:  # ordered Categoricals: codes as is
            if (matrix < 0).all():
                raise EmptyDataError("every cell of the items × raters table is missing")
            cats = pd.Index(wide.categories, name="category")
            return cls(items=items, raters=raters, categories=cats,
                       wide_codes=matrix.astype(code_dtype(len(cats))))
        if not stated and not wide.named:
            check_layout(matrix)

        def where(flat_position: int) -> str:
            i, r = divmod(int(flat_position), n_raters)
            return f"item {label(items[i])}, rater {label(raters[r])}"

        integers = matrix.dtype.kind in "iu"  # never missing; exact as float below 2**53
        numeric = sep is None and (matrix.dtype.kind == "f" or (
            integers and exact_as_float(matrix)))
        if numeric:
            if integers:
                lo, hi = matrix.min(), matrix.max()
            else:
                # NaN-ignoring extremes: all-NaN means empty, an infinite extreme an inf cell
                lo, hi = np.fmin.reduce(matrix, axis=None), np.fmax.reduce(matrix, axis=None)
                if np.isnan(lo):
                    raise EmptyDataError("every cell of the items × raters table is missing")
                if not (np.isfinite(lo) and np.isfinite(hi)):
                    infinite = np.isinf(matrix)
                    raise MissingValueError(
                        f"{int(infinite.sum())} value(s) are infinite (first at "
                        f"{where(np.flatnonzero(infinite)[0])})"
                    )
            counted = None if categories is not None else count_small_integers(matrix, lo, hi)
            if counted is not None:  # the common case: counts in a few passes, codes on demand
                ann = cls(items=items, raters=raters,
                          categories=_integer_category_index(counted.categories),
                          wide_codes=counted.wide_codes, counts=counted.counts)
                ann.__dict__["annotations_per_item_array"] = counted.per_item
                ann.__dict__["n_active_raters"] = counted.n_active_raters
                return ann
            # a private read-only copy: later changes to the caller's array cannot leak in
            values_table = np.array(matrix, dtype=float)
            values_table.flags.writeable = False
            present = ~np.isnan(values_table)
        else:
            values_table = None
            present = ~pd.isna(matrix)
        flat = np.flatnonzero(present)
        if flat.size == 0:
            raise EmptyDataError("every cell of the items × raters table is missing")
        values = matrix.ravel()[flat]
        reject_infinite(values, lambda pos: where(int(flat[pos])))
        category_codes, cats = encode_values(values, categories,
                                             lambda pos: where(int(flat[pos])), sep)
        wide_codes: np.ndarray = np.full(matrix.shape, -1, dtype=code_dtype(len(cats)))
        wide_codes.ravel()[flat] = category_codes
        return cls(items=items, raters=raters, categories=cats, wide_codes=wide_codes,
                   wide_values=values_table if numeric else None)

    @classmethod
    def from_counts(cls, c: Any,
                    categories: Sequence[Any] | pd.Index | None = None) -> "Annotations":
        """Items × categories counts (raters unknown): an array or a DataFrame.

        A DataFrame's columns are the categories unless ``categories=`` is given (then its
        length must match the number of columns). Counts must be finite, non-negative whole
        numbers.
        """
        cats: pd.Index | Sequence[Any] | None
        if isinstance(c, pd.DataFrame):
            items = pd.Index(c.index, name="item")
            cats = c.columns if categories is None else categories
            matrix = c.to_numpy()
        else:
            matrix = np.asarray(c)
            items = None
            cats = categories
        if matrix.ndim != 2:
            raise InvalidParameterError(
                f"counts must be a 2-D items × categories table, got shape {matrix.shape}"
            )
        if matrix.size == 0:
            raise EmptyDataError(f"the counts table is empty (shape {matrix.shape})")
        checked = _plain_counts(matrix)
        if checked is not None:  # the common case, in a few passes; else checked cell by cell
            counts, m = checked
            ann = cls(items=pd.RangeIndex(counts.shape[0], name="item") if items is None
                      else items, raters=None,
                      categories=_count_categories(cats, counts.shape[1]), float_counts=counts)
            ann.__dict__["annotations_per_item_array"] = m
            return ann
        if matrix.dtype.kind == "c" or (matrix.dtype.kind == "O" and any(
                issubclass(t, (complex, np.complexfloating))
                for t in set(map(type, matrix.ravel())))):
            raise InvalidCountError(
                "counts must be real numbers; the table holds complex numbers (their imaginary "
                "parts would be dropped)")
        try:
            numeric = matrix.astype(float)
        except (TypeError, ValueError):
            raise InvalidCountError(
                "counts must be numbers; the table has non-numeric cells") from None
        bad = ~np.isfinite(numeric)
        if bad.any():
            i, k = np.argwhere(bad)[0]
            raise InvalidCountError(
                f"{int(bad.sum())} count(s) are NaN or infinite (first at row {i}, column {k})"
            )
        bad = (numeric < 0) | (numeric != np.round(numeric))
        if bad.any():
            i, k = np.argwhere(bad)[0]
            raise InvalidCountError(
                f"{int(bad.sum())} count(s) are negative or not whole numbers "
                f"(first: {label(numeric[i, k])} at row {i}, column {k})"
            )
        # int64 holds the counts and their sums exactly; larger ones would wrap around
        too_big = (numeric.max() >= INT64_LIMIT, numeric.sum(axis=1).max() >= INT64_LIMIT,
                   numeric.sum() >= INT64_LIMIT)
        if any(too_big):
            what = ("a count" if too_big[0] else "an item's total" if too_big[1]
                    else "the total of the counts")
            raise InvalidCountError(
                f"{what} does not fit in int64 (2**63 − 1 = {INT64_LIMIT - 1}), the integers "
                "kappalab counts in; scale the counts down"
            )
        try:
            counts = matrix.astype(np.int64)  # exact for integer input
        except (OverflowError, TypeError, ValueError):  # pragma: no cover - ruled out above
            counts = numeric.astype(np.int64)
        if counts.sum() == 0:
            raise EmptyDataError("every count is zero: there are no annotations")
        if items is None:
            items = pd.RangeIndex(counts.shape[0], name="item")
        return cls(items=items, raters=None,
                   categories=_count_categories(cats, counts.shape[1]), counts=counts)

    # ------------------------------------------------------------------ sizes
    @property
    def n_items(self) -> int:
        """Number of items (including any with no annotation in a wide table)."""
        return len(self.items)

    @property
    def n_raters(self) -> int | None:
        """Number of raters, ``None`` when raters are unknown."""
        return None if self.raters is None else len(self.raters)

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    @property
    def _values_uncoded(self) -> bool:
        """Whether this is a store of float values whose categories are not made yet."""
        return self._long_values is not None and "categories" not in self.__dict__

    def value_range(self, purpose: str = "a numeric distance") -> tuple[float, float]:
        """The smallest and the largest of :meth:`category_values`.

        On a store of float values (:meth:`from_long` keeps non-integer floats as they are)
        they are read from the values, without sorting them or making the categories; the
        interval metric and quadratic weights need nothing else of the categories.

        Parameters
        ----------
        purpose : str, default "a numeric distance"
            What needs them, for the message of a non-numeric refusal.

        Returns
        -------
        tuple of float
            (min, max).

        Raises
        ------
        NonNumericError
            As :meth:`category_values`.

        Examples
        --------
        >>> long = pd.DataFrame({"item": [1, 1, 2], "rater": ["u", "v", "u"],
        ...                      "value": [0.5, 2.25, 1.5]})
        >>> Annotations.from_long(long).value_range()
        (0.5, 2.25)
        """
        if self._values_uncoded:
            values = self._long_values
            assert values is not None, "a store of values"
            return float(values.min()), float(values.max())
        values = self.category_values(purpose)
        return float(values.min()), float(values.max())

    @property
    def has_one_category(self) -> bool:
        """Whether every annotation is in one category (``n_categories < 2``), found on a
        store of float values from their extremes, without making the categories.

        Examples
        --------
        >>> long = pd.DataFrame({"item": [1, 1], "rater": ["u", "v"], "value": [0.5, 0.5]})
        >>> Annotations.from_long(long).has_one_category
        True
        """
        if self._values_uncoded:
            low, high = self.value_range()
            return low == high
        return self.n_categories < 2

    @property
    def n_annotations(self) -> int:
        return int(self.annotations_per_item_array.sum())

    @property
    def has_raters(self) -> bool:
        return self.raters is not None

    @cached_property
    def annotations_per_item_array(self) -> np.ndarray:
        """m_i, the number of annotations of each item (int64 array)."""
        if "count_matrix" in self.__dict__:
            return self.count_matrix.sum(axis=1)
        if self._wide_values is not None:
            # a row sum is NaN when the row has a missing cell (or, rarely, when it
            # overflows both ways): only those rows are counted cell by cell
            m = np.full(self._wide_values.shape[0], self._wide_values.shape[1], dtype=np.int64)
            flagged = np.flatnonzero(np.isnan(_row_sums(self._wide_values)))
            if flagged.size:
                missing = _row_sums(np.isnan(self._wide_values[flagged]))
                m[flagged] -= missing.astype(np.int64)
            return m
        if self._is_wide:
            return _row_sums(self._wide >= 0).astype(np.int64)
        if self._item_codes is not None:
            return np.bincount(self._item_codes, minlength=self.n_items)
        return self.count_matrix.sum(axis=1)

    @cached_property
    def n_active_raters(self) -> int | None:
        """Raters with at least one annotation (``None`` when raters are unknown)."""
        if self.raters is None:
            return None
        if self._wide_values is not None:
            # most raters show up in the first rows; scan the rest only for those that do not
            active = ~np.isnan(self._wide_values[:1024]).all(axis=0)
            if not active.all():
                active[~active] = ~np.isnan(self._wide_values[:, ~active]).all(axis=0)
            return int(active.sum())
        if self._is_wide:
            return int((self._wide >= 0).any(axis=0).sum())
        _, rater_codes, n_raters = self._rater_codes_of("active raters")
        return int((np.bincount(rater_codes, minlength=n_raters) > 0).sum())

    @property
    def annotations_per_item(self) -> pd.Series:
        return pd.Series(self.annotations_per_item_array, index=self.items, name="annotations")

    @cached_property
    def is_numeric(self) -> bool:
        """Whether the categories are numbers (needed by numeric distances): a numeric dtype
        other than booleans, or Python integers held as objects (found once: the categories
        do not change)."""
        if self._values_uncoded:  # float values
            return True
        dtype = self.categories.dtype
        return (pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
                ) or integer_categories(self.categories)

    def category_values(self, purpose: str = "a numeric distance") -> np.ndarray:
        """The categories as float numbers, exactly, measured from :attr:`value_origin`: their
        own values, or for integers beyond 2**53 their exact differences from the smallest
        category (:func:`~kappalab.encoding.numeric_positions`), which is all that a
        distance of differences needs.

        Raises
        ------
        NonNumericError
            When the categories are not numbers, or are integers whose differences from the
            smallest are not all float64 numbers exactly (they span more than 2**53).
        """
        if not self.is_numeric:
            raise NonNumericError(
                f"{purpose} needs numeric values, but the categories are "
                f"{preview(self.categories)}; map them to numbers first"
            )
        return self._category_positions.require(purpose)

    @property
    def value_origin(self) -> int:
        """The number :meth:`category_values` are measured from: 0, or for integer
        categories beyond 2**53 the smallest category (exact)."""
        if self._values_uncoded:  # floats are their own positions
            return 0
        return self._category_positions.origin if self.is_numeric else 0

    @cached_property
    def _category_positions(self):
        return numeric_positions(self.categories)

    # ------------------------------------------------------------------ sufficient statistics
    @cached_property
    def count_matrix(self) -> np.ndarray:
        """n_ic: items × categories counts (int64)."""
        if self._float_counts is not None:
            return self._float_counts.astype(np.int64)
        if self._is_wide:
            return _wide_counts(self._wide, self.n_categories, axis=1)
        item_codes, _, category_codes = self._stored_codes
        return _bincount_2d(item_codes, category_codes, self.n_items, self.n_categories)

    @property
    def counts_are_large(self) -> bool:
        """Whether the items × categories count table would exceed :data:`DENSE_COUNT_CELLS`
        cells: the nominal coefficients and SPA then use :attr:`sparse_count_matrix`, so
        their memory grows with the annotations, not with items × categories."""
        return ("count_matrix" not in self.__dict__ and self._float_counts is None
                and self.n_items * self.n_categories > DENSE_COUNT_CELLS)

    @cached_property
    def sparse_count_matrix(self) -> sp.csr_matrix:
        """n_ic as a float scipy CSR matrix with at most one entry per annotation, built from
        the annotation codes without an items × categories array."""
        if "count_matrix" in self.__dict__ or self._item_codes is None:
            return sp.csr_matrix(self.count_matrix.astype(float))
        items, _, cats = self._stored_codes
        return sp.csr_matrix((np.ones(items.size), (items, cats)),
                             shape=(self.n_items, self.n_categories))  # duplicates summed

    def category_counts(self) -> np.ndarray | sp.csr_matrix:
        """n_ic as floats: the dense table, or :attr:`sparse_count_matrix` when
        :attr:`counts_are_large`."""
        if self.counts_are_large:
            return self.sparse_count_matrix
        if self._float_counts is not None:  # read-only: the store itself
            return self._float_counts
        return self.count_matrix.astype(float)

    def selected_category_totals(self, selected: np.ndarray) -> np.ndarray:
        """Σ_i n_ic over the selected items: each category's annotations on them.

        From the annotation codes of a long store in one ``bincount`` (no items × categories
        table), else from the count table. The totals are whole numbers, exact in any order.

        Parameters
        ----------
        selected : numpy.ndarray
            A boolean mask over the items (e.g. those with two or more annotations).

        Returns
        -------
        numpy.ndarray
            The K totals, as floats.

        Examples
        --------
        >>> ann = Annotations.from_long(pd.DataFrame({"item": [1, 1, 2], "rater": ["u", "v", "u"],
        ...                                           "value": ["a", "b", "b"]}))
        >>> ann.selected_category_totals(ann.annotations_per_item_array >= 2).tolist()
        [1.0, 1.0]
        """
        selected = np.asarray(selected, dtype=bool)
        if not self._is_wide and self._has_annotation_codes:
            item_codes, _, category_codes = self._stored_codes
            return np.bincount(category_codes, weights=selected[item_codes].astype(float),
                               minlength=self.n_categories)
        counts = self.category_counts()[selected]
        return np.asarray(counts.sum(axis=0), dtype=float).ravel()

    @cached_property
    def rater_count_matrix(self) -> np.ndarray:
        """N_gc: raters × categories counts (int64)."""
        self.require_raters("rater marginals")
        if self._is_wide:
            return _wide_counts(self._wide, self.n_categories, axis=0)
        _, rater_codes, n_raters = self._rater_codes_of("rater marginals")
        return _bincount_2d(rater_codes, self._stored_codes[2], n_raters, self.n_categories)

    def item_moments(self, factor: float = 1.0, shift: float = 0.0,
                     values: np.ndarray | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(m_i, Σ_r x_ri, Σ_r x_ri²) per item of the scores x = factor·(value − shift).

        O(N) whatever the number of distinct values: what interval distances need. (Shifting
        by a central value first keeps m Σx² − (Σx)² free of cancellation.) ``values`` gives
        each category another position than its value (e.g. the mid-ranks of the ordinal
        metric).
        """
        if values is not None and not self._are_category_values(values):
            if self._counted_without_codes:
                return self._count_moments((np.asarray(values, dtype=float) - shift) * factor)
            return self._moments_of(self._item_codes, self.n_items, factor, shift, values,
                                    per_item=True)
        if self._wide_values is not None:
            return self._wide_moments(factor, shift)
        if self._long_values is not None and "_long_codes" not in self.__dict__:
            x = self._value_scores(factor, shift)  # the values themselves, not coded
            return (self.annotations_per_item_array.astype(float),
                    np.bincount(self._keys[0], weights=x, minlength=self.n_items),
                    np.bincount(self._keys[0], weights=x * x, minlength=self.n_items))
        scores = (self.category_values("interval moments") - shift) * factor
        if self._counted_without_codes:
            return self._count_moments(scores)
        if self._has_annotation_codes:
            item_codes, _, category_codes = self._stored_codes
            x = scores[category_codes]
            m = self.annotations_per_item_array.astype(float)
            s1 = np.bincount(item_codes, weights=x, minlength=self.n_items)
            s2 = np.bincount(item_codes, weights=x * x, minlength=self.n_items)
            return m, s1, s2
        counts = self.count_matrix.astype(float)
        return counts.sum(axis=1), counts @ scores, counts @ (scores * scores)

    @property
    def _counted_without_codes(self) -> bool:
        """A wide table counted as small integers (:func:`~kappalab.encoding.count_small_integers`)
        whose per-annotation codes are not built yet, over a few categories: its item moments
        come from the items × categories counts, two matrix-vector products, instead of
        building the codes for two bincounts."""
        return ("count_matrix" in self.__dict__ and "_long_codes" not in self.__dict__
                and self._is_wide and self.raters is not None
                and self.n_categories <= 4 * len(self.raters) + 16)

    def _count_moments(self, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(m_i, Σx, Σx²) per item from the count table and the per-category scores x."""
        counts = self.count_matrix.astype(float)
        return (self.annotations_per_item_array.astype(float), counts @ scores,
                counts @ (scores * scores))

    def _wide_moments(self, factor: float, shift: float
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`item_moments` of the wide value table, a block of rows at a time: the
        shifted scores are a temporary of at most ``_MOMENT_BLOCK_CELLS`` cells, which stays
        in cache instead of a fresh copy of the whole table."""
        wide = self._wide_values
        assert wide is not None, "read only on a wide table of values"
        n, R = wide.shape
        m = self.annotations_per_item_array.astype(float)
        s1, s2, ones = np.empty(n), np.empty(n), np.ones(R)
        missing = self.n_annotations < wide.size
        step = max(1, _MOMENT_BLOCK_CELLS // max(R, 1))
        with single_blas_thread(wide.size):
            for start in range(0, n, step):
                x = wide[start:start + step] - shift
                x *= factor
                if missing:  # a missing cell counts as 0
                    np.copyto(x, 0.0, where=np.isnan(x))
                np.matmul(x, ones, out=s1[start:start + step])
                np.einsum("ij,ij->i", x, x, out=s2[start:start + step])
        return m, s1, s2

    def rater_moments(self, factor: float = 1.0, shift: float = 0.0,
                      values: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(N_g, Σ x, Σ x²) per rater of the scores x = factor·(value − shift) (``values``:
        as :meth:`item_moments`)."""
        self.require_raters("rater moments")
        if values is not None and not self._are_category_values(values):
            _, rater_codes, n_raters = self._rater_codes_of("rater moments")
            return self._moments_of(rater_codes, n_raters, factor, shift, values,
                                    per_item=False)
        if self._wide_values is not None:
            present = ~np.isnan(self._wide_values)
            x = np.nan_to_num((self._wide_values - shift) * factor, nan=0.0)
            return present.sum(axis=0).astype(float), x.sum(axis=0), (x * x).sum(axis=0)
        if self._long_values is not None and "_long_codes" not in self.__dict__:
            x = self._value_scores(factor, shift)
        else:
            scores = (self.category_values("interval moments") - shift) * factor
            x = scores[self._stored_codes[2]]
        _, raters, R = self._rater_codes_of("rater moments")
        return (np.bincount(raters, minlength=R).astype(float),
                np.bincount(raters, weights=x, minlength=R),
                np.bincount(raters, weights=x * x, minlength=R))

    def _value_scores(self, factor: float, shift: float) -> np.ndarray:
        """factor·(value − shift) of every annotation of a store of float values: the
        numbers that the category values gathered by code would give, bit for bit."""
        values = self._long_values
        assert values is not None, "read only on a store of values"
        x = values - shift
        x *= factor
        return x

    def _are_category_values(self, values: np.ndarray) -> bool:
        """Whether per-category positions are the categories' own numeric values."""
        if self._values_uncoded:  # other positions than the values have categories made
            return False
        try:
            own = self.category_values()
            return values is own or np.array_equal(np.asarray(values, dtype=float), own)
        except NonNumericError:
            return False

    def _moments_of(self, groups: np.ndarray | None, n_groups: int, factor: float, shift: float,
                    values: np.ndarray, per_item: bool
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(count, Σx, Σx²) per group of the per-category scores factor·(values − shift)."""
        scores = (np.asarray(values, dtype=float) - shift) * factor
        if self._item_codes is None:  # counts data: per item from the count matrix
            counts = self.count_matrix.astype(float)
            return counts.sum(axis=1), counts @ scores, counts @ (scores * scores)
        assert groups is not None, "a store with annotation codes has the groups' codes"
        x = scores[self._stored_codes[2]]
        count = (self.annotations_per_item_array.astype(float) if per_item
                 else np.bincount(groups, minlength=n_groups).astype(float))
        return (count, np.bincount(groups, weights=x, minlength=n_groups),
                np.bincount(groups, weights=x * x, minlength=n_groups))

    def codes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(item, rater, category) codes, one entry per annotation (raters required)."""
        _, rater_codes, _ = self._rater_codes_of("annotation-level codes")
        item_codes, _, category_codes = self._stored_codes
        return item_codes, rater_codes, category_codes

    def item_category_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """(item, category) codes, one entry per annotation, with or without rater
        identities: in the order the annotations are stored, or for count data item by item
        and category by category (the counts expanded).

        >>> Annotations.from_counts([[2, 0], [1, 1]]).item_category_codes()
        (array([0, 0, 1, 1]), array([0, 0, 0, 1]))
        """
        if self._has_annotation_codes:
            item_codes, _, category_codes = self._stored_codes
            return item_codes, category_codes
        counts = self.count_matrix
        cell = np.repeat(np.arange(counts.size), counts.ravel())
        return np.divmod(cell, counts.shape[1])

    def require_raters(self, purpose: str) -> pd.Index:
        """The raters; :class:`~kappalab.errors.UnknownRatersError` (naming ``purpose``)
        when the annotations have none."""
        if self.raters is None:
            raise UnknownRatersError(
                f"{purpose}: rater identities are needed, but these annotations have none "
                "(built from counts or without a rater column)"
            )
        return self.raters

    # ------------------------------------------------------------------ views
    @property
    def counts(self) -> pd.DataFrame:
        """Items × categories counts, labelled."""
        return pd.DataFrame(self.count_matrix, index=self.items, columns=self.categories)

    @property
    def wide(self) -> pd.DataFrame:
        """Items × raters values (NaN where a rater did not annotate an item)."""
        _, rater_codes, n_raters = self._rater_codes_of("the items × raters view")
        item_codes, _, category_codes = self._stored_codes
        table = np.full((self.n_items, n_raters), np.nan, dtype=object)
        table[item_codes, rater_codes] = self.categories.to_numpy()[category_codes]
        frame = pd.DataFrame(table, index=self.items, columns=self.raters)
        return frame.astype(float) if self.is_numeric else frame

    def to_long(self) -> pd.DataFrame:
        """One row per annotation: columns item, rater, value (counts data: item, value)."""
        if not self._has_annotation_codes:
            item_codes, cat_codes = self.item_category_codes()
            return pd.DataFrame(
                {"item": self.items[item_codes], "value": self.categories[cat_codes]}
            )
        item_codes, rater_codes, category_codes = self._stored_codes
        data = {"item": self.items[item_codes]}
        if self.raters is not None and rater_codes is not None:
            data["rater"] = self.raters[rater_codes]
        data["value"] = self.categories[category_codes]
        return pd.DataFrame(data)

    def to_xarray(self):
        """An ``xarray.DataArray`` with dims (item, rater), or (item, category) counts."""
        import xarray as xr

        if self.raters is None:
            return xr.DataArray(
                self.count_matrix,
                dims=("item", "category"),
                coords={"item": self.items, "category": self.categories},
                name="count",
            )
        return xr.DataArray(
            self.wide.to_numpy(),
            dims=("item", "rater"),
            coords={"item": self.items, "rater": self.raters},
            name="value",
        )

    def subset_items(self, labels: Sequence[Any] | pd.Index) -> "Annotations":
        """The annotations of some items only, in the order given (same raters, categories)."""
        wanted = pd.Index(labels)
        rows = self.items.get_indexer(wanted)
        if (rows < 0).any():
            raise InvalidParameterError(
                f"{int((rows < 0).sum())} item(s) are not in the data, e.g. "
                f"{label(wanted[rows < 0][0])}")
        items = pd.Index(self.items[rows], name="item")
        if not self._has_annotation_codes:
            return Annotations(items=items, raters=None, categories=self.categories,
                               counts=self.count_matrix[rows])
        item_codes, rater_codes, category_codes = self._stored_codes
        position = np.full(self.n_items, -1, dtype=np.intp)
        position[rows] = np.arange(rows.size)
        keep = position[item_codes] >= 0
        return Annotations(
            items=items, raters=self.raters, categories=self.categories,
            item_codes=position[item_codes[keep]],
            rater_codes=None if rater_codes is None else rater_codes[keep],
            category_codes=category_codes[keep],
        )

    def subset_raters(self, rater_positions: Sequence[int | np.integer] | np.ndarray
                      ) -> "Annotations":
        """The annotations of some raters only (same items and categories).

        ``rater_positions`` are 0-based positions in ``raters`` (negative ones count from
        the end), each at most once.
        """
        raters = self.require_raters("selecting raters")
        n_raters = len(raters)
        positions = np.asarray(rater_positions)
        if positions.ndim != 1 or (positions.size and positions.dtype.kind not in "iu"):
            raise InvalidParameterError(
                f"rater positions must be a 1-D sequence of integers, got {rater_positions!r}"
            )
        positions = positions.astype(np.intp)
        outside = (positions < -n_raters) | (positions >= n_raters)
        if outside.any():
            raise InvalidParameterError(
                f"rater position {label(positions[outside][0])} is out of range: there are "
                f"{n_raters} raters (positions 0 to {n_raters - 1}, or negative "
                "from the end)"
            )
        positions = positions % n_raters
        if np.unique(positions).size < positions.size:
            seen = pd.Index(positions)
            raise InvalidParameterError(
                f"rater position {label(seen[seen.duplicated()][0])} is given more than once"
            )
        _, rater_codes, _ = self._rater_codes_of("selecting raters")
        item_codes, _, category_codes = self._stored_codes
        keep = np.isin(rater_codes, positions)
        remap = np.full(n_raters, -1, dtype=np.intp)
        remap[positions] = np.arange(len(positions))
        return Annotations(
            items=self.items,
            raters=raters[positions],
            categories=self.categories,
            item_codes=item_codes[keep],
            rater_codes=remap[rater_codes[keep]],
            category_codes=category_codes[keep],
        )

    def __repr__(self) -> str:
        raters = "unknown" if self.raters is None else self.n_raters
        return (
            f"Annotations(items={self.n_items}, raters={raters}, "
            f"annotations={self.n_annotations}, categories={preview(self.categories)})"
        )


# ---------------------------------------------------------------------- repeated submissions
def submission_numbers(item_codes: np.ndarray, rater_codes: np.ndarray,
                       n_raters: int) -> tuple[np.ndarray, np.ndarray]:
    """Each annotation's submission number within its (item, rater) pair, in row order, and
    the pair's number of submissions.

    Parameters
    ----------
    item_codes, rater_codes : numpy.ndarray
        Item and rater code of each annotation.
    n_raters : int
        The number of rater codes.

    Returns
    -------
    occurrence : numpy.ndarray
        0 for the pair's first submission, 1 for its second, …
    count : numpy.ndarray
        How many submissions the annotation's pair has.

    Examples
    --------
    >>> occurrence, count = submission_numbers(np.array([0, 0, 0]), np.array([0, 1, 0]), 2)
    >>> occurrence.tolist(), count.tolist()
    ([0, 0, 1], [2, 1, 2])
    """
    key = item_codes.astype(np.int64) * n_raters + rater_codes
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    starts = np.flatnonzero(np.r_[True, sorted_key[1:] != sorted_key[:-1]])
    sizes = np.diff(np.r_[starts, sorted_key.size])
    group = np.repeat(np.arange(starts.size), sizes)
    occurrence, count = np.empty_like(key), np.empty_like(key)
    occurrence[order] = np.arange(key.size) - starts[group]
    count[order] = sizes[group]
    return occurrence, count


def separate_submissions(rater_codes: np.ndarray, raters: pd.Index,
                         occurrence: np.ndarray) -> tuple[np.ndarray, pd.Index]:
    """Rater codes and labels that make a rater's k-th submission (k ≥ 2) to an item the
    rater ``"<rater> (submission k)"``.

    Parameters
    ----------
    rater_codes : numpy.ndarray
        The rater code of each annotation.
    raters : pandas.Index
        The rater labels.
    occurrence : numpy.ndarray
        Each annotation's submission number within its (item, rater) pair, from 0
        (:func:`submission_numbers`).

    Returns
    -------
    codes : numpy.ndarray
        The new rater code of each annotation.
    labels : pandas.Index
        The rater labels: the original ones, then one per (rater, later submission).

    Examples
    --------
    >>> codes, labels = separate_submissions(np.array([0, 1, 0]), pd.Index(["a", "b"]),
    ...                                      np.array([0, 0, 1]))
    >>> codes.tolist(), list(labels)
    ([0, 1, 2], ['a', 'b', 'a (submission 2)'])
    """
    later = occurrence > 0
    pairs = rater_codes[later].astype(np.int64) * (int(occurrence.max()) + 1) + occurrence[later]
    unique_pairs, inverse = np.unique(pairs, return_inverse=True)
    codes = rater_codes.astype(np.intp, copy=True)
    codes[later] = len(raters) + inverse.ravel()
    base, k = np.divmod(unique_pairs, int(occurrence.max()) + 1)
    extra = [f"{raters[b]} (submission {n + 1})" for b, n in zip(base, k)]
    return codes, pd.Index(list(raters) + extra, dtype=object)


# ---------------------------------------------------------------------- coercion
#: What every estimator's data argument accepts: an :class:`Annotations`, or what
#: :func:`as_annotations` reads — a long or wide DataFrame, a 2-D array or nested list
#: (items × raters), an ``xarray.DataArray``.
AnnotationsLike: TypeAlias = Union["Annotations", pd.DataFrame, np.ndarray,
                                   Sequence[Sequence[Any]], "xarray.DataArray"]


def as_annotations(data: AnnotationsLike, *, categories: Sequence[Any] | pd.Index | None = None,
                   item: str | None = None, rater: str | None = None,
                   value: str | None = None, sep: str | None = None) -> Annotations:
    """The :class:`Annotations` every estimator reads: ``data`` itself, or built from it.

    The rule for a DataFrame: it is **long** (one row per annotation, read by
    :meth:`Annotations.from_long`) when column names are given with ``item=``, ``rater=`` or
    ``value=``, or when its column names say item, rater and value
    (:func:`~kappalab.encoding.long_columns`): ``item``, ``rater`` and ``value``, crowd-kit's
    ``task``, ``worker`` and ``label``, or exactly one column per role among the common names
    of annotation exports (``item``/``unit``/``sentence``/``doc``/``text``/``id``…,
    ``rater``/``annotator``/``coder``/``worker``/``judge``/``user``…,
    ``value``/``label``/``rating``/``score``/``code``/``tag``/``answer``…). Otherwise it is
    **wide** (items × raters, read by :meth:`Annotations.from_wide`) when it plainly is one
    (:func:`~kappalab.encoding.check_plainly_wide`); a DataFrame that is neither — names of
    two roles only, columns that hold different types of labels, text columns that share no
    label — is refused, never guessed. Anything else that is not an Annotations (arrays,
    nested lists, DataArrays) is wide. Layouts that cannot be told
    apart from a wide table have their own constructors: :meth:`Annotations.from_counts` for
    an items × categories count table, ``from_wide(x, raters_as_rows=True)`` for raters ×
    items, ``from_wide(df, item="id")`` for a table with an item-id column; ``from_wide``
    warns (:class:`~kappalab.errors.LayoutWarning`) when a table looks like one of them.

    Parameters
    ----------
    data : Annotations, DataFrame, array-like or xarray.DataArray
        The annotations: an :class:`Annotations` (returned as it is), a long or wide
        DataFrame, a 2-D array or nested list (items × raters) or a DataArray with dims
        ``item`` and ``rater``.
    categories : sequence, optional
        The category set and order (values outside it raise). For an existing
        :class:`Annotations` it must equal its categories.
    item, rater, value : str, optional
        Column names of a long DataFrame (the defaults ``item``, ``rater``, ``value`` for
        those not given); giving any of them makes the DataFrame long.
    sep : str, optional
        Read every annotation as a set of labels, strings split at ``sep`` (set-valued,
        multi-label annotations: :meth:`Annotations.from_long`). Values that are sets,
        frozensets, lists or tuples are read as sets of labels without it. Refused for an
        existing :class:`Annotations`.

    Returns
    -------
    Annotations
        ``data`` itself, or the annotations read from it.

    Raises
    ------
    InvalidParameterError
        ``categories=`` differs from the categories of an existing :class:`Annotations`;
        ``item=``, ``rater=`` or ``value=`` given for data that is not a DataFrame; a
        column is absent; a dask collection (estimated out of core by
        :mod:`kappalab.out_of_core`, not read into memory here); or a file path (read it
        with :func:`kappalab.io.read_annotations`).
    LayoutError
        A DataFrame that is neither recognisably long nor plainly wide; the message names
        ``from_long(df, item=, rater=, value=)`` and ``from_wide(df)``.
    EmptyDataError, MissingValueError, DuplicateAnnotationError, UnknownCategoryError
        As raised by :meth:`Annotations.from_long` and :meth:`Annotations.from_wide`: no
        annotations, a missing item or rater or an infinite value, an (item, rater) pair
        twice, a value outside ``categories=``.

    Examples
    --------
    >>> import pandas as pd
    >>> from kappalab.annotations import as_annotations
    >>> long = pd.DataFrame({"task": [1, 1, 2, 2], "worker": ["a", "b", "a", "b"],
    ...                      "label": ["x", "x", "y", "x"]})
    >>> as_annotations(long)                      # crowd-kit's schema: long
    Annotations(items=2, raters=2, annotations=4, categories=['x', 'y'])
    >>> as_annotations(pd.DataFrame({"a": ["x", "y"], "b": ["x", "x"]}))   # wide: 2 × 2
    Annotations(items=2, raters=2, annotations=4, categories=['x', 'y'])
    >>> coded = long.set_axis(["sentence_id", "coder", "tag"], axis=1)   # common names: long
    >>> as_annotations(coded)
    Annotations(items=2, raters=2, annotations=4, categories=['x', 'y'])
    >>> sets = as_annotations([[{"x", "y"}, {"x"}], [set(), {"y"}]])   # multi-label
    >>> [sorted(c) for c in sets.categories]   # one category per distinct set, a frozenset
    [[], ['x'], ['x', 'y'], ['y']]
    """
    if isinstance(data, (str, bytes, os.PathLike)):  # a path, never read here
        raise InvalidParameterError(
            f"{os.fsdecode(data)!r} is a file path, and estimators do not read files: read it "
            "first, with kappalab.io.read_annotations(path) (long or wide=True; .csv, .tsv, "
            ".xlsx, .parquet) or Annotations.from_long(pd.read_csv(path), item=, rater=, "
            "value=), and pass the Annotations")
    if type(data).__module__.split(".")[0] == "dask":  # not read into memory by accident
        raise InvalidParameterError(
            f"a dask {type(data).__name__} is estimated out of core, partition by partition: "
            "kl.dask_estimate('krippendorff_alpha', ddf, level=...) (kappalab.out_of_core), "
            "or call .compute() first to read it into memory")
    if isinstance(data, Annotations):
        if sep is not None:
            raise InvalidParameterError(
                "sep= reads strings of labels when the annotations are built; these are "
                "already an Annotations: pass sep= to the constructor that built them"
            )
        if categories is not None and list(categories) != list(data.categories):
            raise InvalidParameterError(
                "categories= cannot re-order the categories of an existing Annotations; "
                "pass categories= when building it"
            )
        return data
    if isinstance(data, pd.DataFrame):
        names = _long_schema(data, item, rater, value, sep)
        if names is not None:
            return Annotations.from_long(data, **names, categories=categories, sep=sep)
    elif (item, rater, value) != (None, None, None):
        raise InvalidParameterError(
            "item=, rater= and value= name the columns of a long DataFrame; got "
            f"{type(data).__name__}"
        )
    return Annotations.from_wide(data, categories=categories, sep=sep)


def _long_schema(df: pd.DataFrame, item: str | None, rater: str | None,
                 value: str | None, sep: str | None) -> dict[str, str] | None:
    """The long columns of ``df`` by role, or None when ``df`` is a wide table; a
    :class:`~kappalab.errors.LayoutError` when it is neither recognisably long nor plainly
    wide (:func:`~kappalab.encoding.long_columns`,
    :func:`~kappalab.encoding.check_plainly_wide`)."""
    if (item, rater, value) != (None, None, None):
        return {"item": item or "item", "rater": rater or "rater", "value": value or "value"}
    names = long_columns(df)
    if names is None:
        check_plainly_wide(df, sep)
    return names


# ---------------------------------------------------------------------- helpers
#: below this, float64 holds every whole number exactly (and so every count and sum of counts)
_EXACT_FLOAT_LIMIT = 2**53


def _plain_counts(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(counts as read-only float64, their row sums as int64) of a counts table of integers
    or floats that are all non-negative whole numbers whose total stays below 2**53, found in
    a few passes over the table (its smallest count, one cast, the row sums, for floats one
    comparison); None for
    anything else (other dtypes, a negative, missing, infinite or fractional count, huge
    counts, every count zero), which :meth:`Annotations.from_counts` checks cell by cell and
    refuses or accepts as before. Whole numbers below 2**53 are exact in float64, and so are
    their sums."""
    kind = matrix.dtype.kind
    if kind not in "iuf" or not matrix.min() >= 0:  # NaN fails the comparison too
        return None
    counts = matrix.astype(float)  # a copy: the data do not change with the caller's table
    row_sums = np.einsum("ik->i", counts)
    # a total below 2**53 makes every count and every sum of counts exact in float64 (an
    # infinite count makes it infinite)
    if not 0 < float(row_sums.sum()) < _EXACT_FLOAT_LIMIT:
        return None
    if kind == "f" and (counts != np.floor(counts)).any():  # a fractional count
        return None
    counts.flags.writeable = False
    return counts, row_sums.astype(np.int64)


def _count_categories(cats: pd.Index | Sequence[Any] | None, n_columns: int) -> pd.Index:
    """The categories of a counts table of ``n_columns`` columns: ``cats`` checked
    (:func:`~kappalab.encoding.category_index`, one per column), or 0 … K − 1."""
    if cats is None:
        return pd.RangeIndex(n_columns, name="category")
    cats = category_index(cats)
    if len(cats) != n_columns:
        raise InvalidParameterError(
            f"{len(cats)} categories given for a counts table with {n_columns} columns"
        )
    if cats.has_duplicates:
        raise InvalidParameterError(f"categories repeat: {list(cats[cats.duplicated()])}")
    return cats


#: the category indexes of consecutive integers (1..K, 0..K − 1: the usual codes), built once
#: each: a pandas Index built from an array costs more than counting a small table
_CONSECUTIVE_CATEGORIES: dict[tuple[int, int], pd.Index] = {}


def _integer_category_index(values: np.ndarray) -> pd.Index:
    """``pd.Index(values, name="category")`` of sorted int64 categories. Up to 64 consecutive
    integers are a new view of an index kept from an earlier call (its values read-only, so
    no Annotations can change another's), anything else a new index."""
    n = values.size
    if not (0 < n <= 64 and int(values[-1]) - int(values[0]) == n - 1):
        return pd.Index(values, name="category")
    key = (int(values[0]), n)
    index = _CONSECUTIVE_CATEGORIES.get(key)
    if index is None:
        if len(_CONSECUTIVE_CATEGORIES) >= 256:
            _CONSECUTIVE_CATEGORIES.clear()
        index = pd.Index(values, name="category")
        np.asarray(index).flags.writeable = False
        _CONSECUTIVE_CATEGORIES[key] = index
    return index[:]


def _row_sums(table: np.ndarray) -> np.ndarray:
    """Σ over the columns of each row, as a matrix-vector product (numpy's axis-1 reduction
    is several times slower on tables with few columns), on one BLAS thread (a skinny
    product: ``kernels.single_blas_thread``)."""
    with single_blas_thread(table.size):
        return table.astype(float, copy=False) @ np.ones(table.shape[1])


def _wide_counts(wide_codes: np.ndarray, n_categories: int, axis: int) -> np.ndarray:
    """Category counts per item (axis=1) or per rater (axis=0) of a wide code matrix (-1 =
    missing), with one bincount: a missing cell counts in an extra column that is dropped."""
    K = n_categories
    if axis == 0 and wide_codes.shape[1] <= 64:  # few raters: one bincount per column
        return np.stack([np.bincount(column.astype(np.intp) + 1, minlength=K + 1)[1:]
                         for column in wide_codes.T]) if wide_codes.shape[1] else np.zeros(
            (0, K), dtype=np.int64)
    n = wide_codes.shape[0] if axis == 1 else wide_codes.shape[1]
    base = np.arange(n, dtype=np.intp) * (K + 1)
    base = base[:, None] if axis == 1 else base[None, :]
    key = base + np.where(wide_codes < 0, K, wide_codes)
    return np.bincount(key.ravel(), minlength=n * (K + 1)).reshape(n, K + 1)[:, :K]


def _bincount_2d(rows: np.ndarray, cols: np.ndarray, n_rows: int, n_cols: int) -> np.ndarray:
    key = rows * n_cols
    key += cols  # (one temporary, not two)
    flat = np.bincount(key, minlength=n_rows * n_cols)
    return flat.reshape(n_rows, n_cols)
