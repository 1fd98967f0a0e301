"""The :class:`Annotations` data model: ingest, validate, encode, and the views estimators use.

An ``Annotations`` keeps its data in the form it came in, encoded as integer category codes
with the labels of items, raters and categories beside them: per-annotation code arrays (long
input), an items × raters table of codes and, for numbers, of float values (wide input), or
an items × categories count matrix (counts input, raters unknown). Estimators read only
sufficient statistics — per-item counts, per-rater counts, per-item moments — which are reduced
from whichever store exists in a few vectorised passes (``np.bincount``, matrix-vector
products) and cached: the item-sum spine of the design notes (DESIGN.md §1).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np
import pandas as pd

from .errors import (
    DroppedAnnotationsWarning,
    DuplicateAnnotationError,
    EmptyDataError,
    InvalidCountError,
    InvalidParameterError,
    MissingValueError,
    NonNumericError,
    UnknownCategoryError,
    UnknownRatersError,
    label,
    warn,
)

__all__ = ["Annotations", "as_annotations"]

# crowd-kit's long schema, accepted when the default column names are absent
_CROWDKIT_COLUMNS = {"item": "task", "rater": "worker", "value": "label"}


class Annotations:
    """Annotations of items by raters into categories (or numeric values).

    Build one with :meth:`from_long`, :meth:`from_wide` or :meth:`from_counts`; every
    coefficient in kappalab also accepts anything :meth:`from_wide` takes.

    Attributes
    ----------
    items, raters, categories : pandas.Index
        Labels of the items (in order of first appearance), the raters (``None`` when
        raters are unknown, as for count data) and the categories (sorted, or in the order
        given by ``categories=``).
    """

    def __init__(
        self,
        *,
        items: pd.Index,
        raters: pd.Index | None,
        categories: pd.Index,
        item_codes: np.ndarray | None = None,
        rater_codes: np.ndarray | None = None,
        category_codes: np.ndarray | None = None,
        wide_codes: np.ndarray | Callable[[], np.ndarray] | None = None,
        wide_values: np.ndarray | None = None,
        counts: np.ndarray | None = None,
    ):
        # Not meant to be called directly: the constructors validate and encode. One of three
        # stores: per-annotation codes (long); an items × raters table (wide), as category
        # codes with -1 for missing (or a function that makes them) and/or, for numbers, the
        # float values with NaN for missing (per-annotation arrays are derived when first
        # needed); or counts.
        self.items = items
        self.raters = raters
        self.categories = categories
        self._wide_values = wide_values
        self._make_wide_codes = wide_codes if callable(wide_codes) else None
        if wide_codes is not None and not callable(wide_codes):
            self.__dict__["_wide_codes"] = wide_codes
        if category_codes is not None:
            self.__dict__["_long_codes"] = (item_codes, rater_codes, category_codes)
        if counts is not None:
            self.__dict__["count_matrix"] = counts

    @property
    def _is_wide(self) -> bool:
        return self._make_wide_codes is not None or "_wide_codes" in self.__dict__

    @cached_property
    def _wide_codes(self) -> np.ndarray | None:
        """Items × raters category codes, -1 for missing (made when first needed)."""
        return None if self._make_wide_codes is None else self._make_wide_codes()

    @cached_property
    def _long_codes(self) -> tuple[np.ndarray, np.ndarray | None, np.ndarray] | None:
        if not self._is_wide:
            return None  # counts: no annotation-level codes
        flat = np.flatnonzero(self._wide_codes.ravel() >= 0)
        item_codes, rater_codes = np.divmod(flat, self._wide_codes.shape[1])
        return item_codes, rater_codes, self._wide_codes.ravel()[flat].astype(np.intp)

    @property
    def _item_codes(self) -> np.ndarray | None:
        return None if self._long_codes is None else self._long_codes[0]

    @property
    def _rater_codes(self) -> np.ndarray | None:
        return None if self._long_codes is None else self._long_codes[1]

    @property
    def _category_codes(self) -> np.ndarray | None:
        return None if self._long_codes is None else self._long_codes[2]

    @property
    def _has_annotation_codes(self) -> bool:
        return self._is_wide or self.__dict__.get("_long_codes") is not None

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_long(
        cls,
        df: pd.DataFrame,
        item: str = "item",
        rater: str | None = "rater",
        value: str = "value",
        *,
        categories: Sequence[Any] | None = None,
    ) -> "Annotations":
        """One row per annotation, with item, rater and value columns.

        Column names are configurable; when the defaults are absent, crowd-kit's
        ``task``/``worker``/``label`` are accepted. ``rater=None`` means raters are
        unknown. Rows whose value is missing (NaN/None) are dropped with a
        :class:`~kappalab.errors.DroppedAnnotationsWarning` that says how many; a missing item
        or rater, an infinite value and a duplicated (item, rater) pair raise.
        """
        if not isinstance(df, pd.DataFrame):
            raise InvalidParameterError(
                f"from_long expects a pandas DataFrame, got {type(df).__name__}"
            )
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
        if len(df) == 0:
            raise EmptyDataError("the table has no rows: there are no annotations")

        values = df[names["value"]].to_numpy()
        missing = pd.isna(values)
        if missing.any():
            n_missing = int(missing.sum())
            warn(
                f"dropped {n_missing} of {len(df)} rows whose {names['value']!r} value is "
                "missing",
                DroppedAnnotationsWarning,
            )
        keep = ~missing
        if not keep.any():
            raise EmptyDataError(f"every {names['value']!r} value is missing: no annotations")
        values = values[keep]

        def where(position: int) -> str:
            return f"row {label(df.index[np.flatnonzero(keep)[position]])}"

        _reject_infinite(values, where)

        item_labels = df[names["item"]].to_numpy()[keep]
        _reject_missing_keys(item_labels, names["item"], df.index[keep])
        item_codes, items = pd.factorize(item_labels, sort=False)
        if names["rater"] is not None:
            rater_labels = df[names["rater"]].to_numpy()[keep]
            _reject_missing_keys(rater_labels, names["rater"], df.index[keep])
            rater_codes, raters = pd.factorize(rater_labels, sort=False)
            _reject_duplicate_pairs(item_codes, rater_codes, items, raters)
            raters = pd.Index(raters, name="rater")
        else:
            rater_codes, raters = None, None
        category_codes, cats = _encode_values(values, categories, where)
        return cls(
            items=pd.Index(items, name="item"),
            raters=raters,
            categories=cats,
            item_codes=item_codes.astype(np.intp, copy=False),
            rater_codes=None if rater_codes is None else rater_codes.astype(np.intp, copy=False),
            category_codes=category_codes,
        )

    @classmethod
    def from_wide(cls, x: Any, *, categories: Sequence[Any] | None = None) -> "Annotations":
        """Items × raters: a 2-D array, a DataFrame or an ``xarray.DataArray``; NaN = missing.

        A DataArray must have dims ``item`` and ``rater`` (in any order). Infinite values
        raise. Items and raters keep their labels (row/column index, coordinates) or get
        0-based positions.
        """
        items, raters, matrix = _wide_to_matrix(x)
        if matrix.size == 0:
            raise EmptyDataError(f"the items × raters table is empty (shape {matrix.shape})")
        n_raters = matrix.shape[1]

        for labels, role in ((items, "item"), (raters, "rater")):
            if labels.has_duplicates:
                raise DuplicateAnnotationError(
                    f"{role} {label(labels[labels.duplicated()][0])} labels more than one "
                    f"{'row' if role == 'item' else 'column'} of the items × raters table; "
                    f"each {role} may appear once"
                )

        def where(flat_position: int) -> str:
            i, r = divmod(int(flat_position), n_raters)
            return f"item {label(items[i])}, rater {label(raters[r])}"

        numeric = matrix.dtype.kind == "f"
        if numeric:
            # NaN-ignoring extremes: all-NaN means empty, an infinite extreme means an inf cell
            lo, hi = np.fmin.reduce(matrix, axis=None), np.fmax.reduce(matrix, axis=None)
            if np.isnan(lo):
                raise EmptyDataError("every cell of the items × raters table is missing")
            if not (np.isfinite(lo) and np.isfinite(hi)):
                infinite = np.isinf(matrix)
                raise MissingValueError(
                    f"{int(infinite.sum())} value(s) are infinite (first at "
                    f"{where(np.flatnonzero(infinite)[0])})"
                )
            counted = None if categories is not None else _count_small_integers(matrix, lo, hi)
            if counted is not None:  # the common case: counts in a few passes, codes on demand
                ann = cls(items=items, raters=raters,
                          categories=pd.Index(counted.categories, name="category"),
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
        _reject_infinite(values, lambda pos: where(flat[pos]))
        category_codes, cats = _encode_values(values, categories, lambda pos: where(flat[pos]))
        wide_codes = np.full(matrix.shape, -1, dtype=_code_dtype(len(cats)))
        wide_codes.ravel()[flat] = category_codes
        return cls(items=items, raters=raters, categories=cats, wide_codes=wide_codes,
                   wide_values=values_table if numeric else None)

    @classmethod
    def from_counts(cls, c: Any, categories: Sequence[Any] | None = None) -> "Annotations":
        """Items × categories counts (raters unknown): an array or a DataFrame.

        A DataFrame's columns are the categories unless ``categories=`` is given (then its
        length must match the number of columns). Counts must be finite, non-negative whole
        numbers.
        """
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
        try:
            numeric = matrix.astype(float)
        except (TypeError, ValueError):
            raise InvalidCountError("counts must be numbers; the table has non-numeric cells")
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
        counts = numeric.astype(np.int64)
        if counts.sum() == 0:
            raise EmptyDataError("every count is zero: there are no annotations")
        if items is None:
            items = pd.RangeIndex(counts.shape[0], name="item")
        if cats is None:
            cats = pd.RangeIndex(counts.shape[1])
        cats = pd.Index(list(cats) if not isinstance(cats, pd.Index) else cats, name="category")
        if len(cats) != counts.shape[1]:
            raise InvalidParameterError(
                f"{len(cats)} categories given for a counts table with {counts.shape[1]} columns"
            )
        if cats.has_duplicates:
            raise InvalidParameterError(f"categories repeat: {list(cats[cats.duplicated()])}")
        return cls(items=items, raters=None, categories=cats, counts=counts)

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
            return self.n_raters - _row_sums(np.isnan(self._wide_values)).astype(np.int64)
        if self._is_wide:
            return _row_sums(self._wide_codes >= 0).astype(np.int64)
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
            return int((self._wide_codes >= 0).any(axis=0).sum())
        return int((np.bincount(self._rater_codes, minlength=self.n_raters) > 0).sum())

    @property
    def annotations_per_item(self) -> pd.Series:
        return pd.Series(self.annotations_per_item_array, index=self.items, name="annotations")

    @property
    def is_numeric(self) -> bool:
        """Whether the categories are numbers (needed by numeric distances)."""
        return pd.api.types.is_numeric_dtype(self.categories.dtype) and not (
            pd.api.types.is_bool_dtype(self.categories.dtype)
        )

    def category_values(self, purpose: str = "a numeric distance") -> np.ndarray:
        """The categories as float numbers; a clear error when they are not numbers."""
        if not self.is_numeric:
            raise NonNumericError(
                f"{purpose} needs numeric values, but the categories are "
                f"{_preview(self.categories)}; map them to numbers first"
            )
        return self._category_value_array

    @cached_property
    def _category_value_array(self) -> np.ndarray:
        values = self.categories.to_numpy(dtype=float)
        values.flags.writeable = False
        return values

    # ------------------------------------------------------------------ sufficient statistics
    @cached_property
    def count_matrix(self) -> np.ndarray:
        """n_ic: items × categories counts (int64)."""
        if self._is_wide:
            return _wide_counts(self._wide_codes, self.n_categories, axis=1)
        return _bincount_2d(self._item_codes, self._category_codes, self.n_items, self.n_categories)

    @cached_property
    def rater_count_matrix(self) -> np.ndarray:
        """N_gc: raters × categories counts (int64)."""
        self.require_raters("rater marginals")
        if self._is_wide:
            return _wide_counts(self._wide_codes, self.n_categories, axis=0)
        return _bincount_2d(
            self._rater_codes, self._category_codes, self.n_raters, self.n_categories
        )

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
            return self._moments_of(self._item_codes, self.n_items, factor, shift, values,
                                    per_item=True)
        if self._wide_values is not None:
            x = self._wide_values - shift
            x *= factor
            np.copyto(x, 0.0, where=np.isnan(x))
            m = self.annotations_per_item_array.astype(float)
            return m, _row_sums(x), np.einsum("ij,ij->i", x, x)
        scores = (self.category_values("interval moments") - shift) * factor
        if self._has_annotation_codes:
            x = scores[self._category_codes]
            m = self.annotations_per_item_array.astype(float)
            s1 = np.bincount(self._item_codes, weights=x, minlength=self.n_items)
            s2 = np.bincount(self._item_codes, weights=x * x, minlength=self.n_items)
            return m, s1, s2
        counts = self.count_matrix.astype(float)
        return counts.sum(axis=1), counts @ scores, counts @ (scores * scores)

    def rater_moments(self, factor: float = 1.0, shift: float = 0.0,
                      values: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(N_g, Σ x, Σ x²) per rater of the scores x = factor·(value − shift) (``values``:
        as :meth:`item_moments`)."""
        self.require_raters("rater moments")
        if values is not None and not self._are_category_values(values):
            return self._moments_of(self._rater_codes, self.n_raters, factor, shift, values,
                                    per_item=False)
        if self._wide_values is not None:
            present = ~np.isnan(self._wide_values)
            x = np.nan_to_num((self._wide_values - shift) * factor, nan=0.0)
            return present.sum(axis=0).astype(float), x.sum(axis=0), (x * x).sum(axis=0)
        scores = (self.category_values("interval moments") - shift) * factor
        x = scores[self._category_codes]
        raters, R = self._rater_codes, self.n_raters
        return (np.bincount(raters, minlength=R).astype(float),
                np.bincount(raters, weights=x, minlength=R),
                np.bincount(raters, weights=x * x, minlength=R))

    def _are_category_values(self, values: np.ndarray) -> bool:
        """Whether per-category positions are the categories' own numeric values."""
        try:
            return np.array_equal(np.asarray(values, dtype=float), self.category_values())
        except NonNumericError:
            return False

    def _moments_of(self, groups: np.ndarray, n_groups: int, factor: float, shift: float,
                    values: np.ndarray, per_item: bool
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(count, Σx, Σx²) per group of the per-category scores factor·(values − shift)."""
        scores = (np.asarray(values, dtype=float) - shift) * factor
        if self._item_codes is None:  # counts data: per item from the count matrix
            counts = self.count_matrix.astype(float)
            return counts.sum(axis=1), counts @ scores, counts @ (scores * scores)
        x = scores[self._category_codes]
        count = (self.annotations_per_item_array.astype(float) if per_item
                 else np.bincount(groups, minlength=n_groups).astype(float))
        return (count, np.bincount(groups, weights=x, minlength=n_groups),
                np.bincount(groups, weights=x * x, minlength=n_groups))

    def codes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(item, rater, category) codes, one entry per annotation (raters required)."""
        self.require_raters("annotation-level codes")
        return self._item_codes, self._rater_codes, self._category_codes

    def require_raters(self, purpose: str) -> None:
        if self.raters is None:
            raise UnknownRatersError(
                f"{purpose}: rater identities are needed, but these annotations have none "
                "(built from counts or without a rater column)"
            )

    # ------------------------------------------------------------------ views
    @property
    def counts(self) -> pd.DataFrame:
        """Items × categories counts, labelled."""
        return pd.DataFrame(self.count_matrix, index=self.items, columns=self.categories)

    @property
    def wide(self) -> pd.DataFrame:
        """Items × raters values (NaN where a rater did not annotate an item)."""
        self.require_raters("the items × raters view")
        table = np.full((self.n_items, self.n_raters), np.nan, dtype=object)
        table[self._item_codes, self._rater_codes] = self.categories.to_numpy()[
            self._category_codes
        ]
        frame = pd.DataFrame(table, index=self.items, columns=self.raters)
        return frame.astype(float) if self.is_numeric else frame

    def to_long(self) -> pd.DataFrame:
        """One row per annotation: columns item, rater, value (counts data: item, value)."""
        if not self._has_annotation_codes:
            item_codes = np.repeat(
                np.repeat(np.arange(self.n_items), self.n_categories), self.count_matrix.ravel()
            )
            cat_codes = np.repeat(
                np.tile(np.arange(self.n_categories), self.n_items), self.count_matrix.ravel()
            )
            return pd.DataFrame(
                {"item": self.items[item_codes], "value": self.categories[cat_codes]}
            )
        data = {"item": self.items[self._item_codes]}
        if self.raters is not None:
            data["rater"] = self.raters[self._rater_codes]
        data["value"] = self.categories[self._category_codes]
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

    def subset_items(self, labels: Sequence[Any]) -> "Annotations":
        """The annotations of some items only, in the order given (same raters, categories)."""
        labels = pd.Index(labels)
        rows = self.items.get_indexer(labels)
        if (rows < 0).any():
            raise InvalidParameterError(
                f"{int((rows < 0).sum())} item(s) are not in the data, e.g. "
                f"{label(labels[rows < 0][0])}")
        items = pd.Index(self.items[rows], name="item")
        if not self._has_annotation_codes:
            return Annotations(items=items, raters=None, categories=self.categories,
                               counts=self.count_matrix[rows])
        item_codes, rater_codes, category_codes = self._long_codes
        position = np.full(self.n_items, -1, dtype=np.intp)
        position[rows] = np.arange(rows.size)
        keep = position[item_codes] >= 0
        return Annotations(
            items=items, raters=self.raters, categories=self.categories,
            item_codes=position[item_codes[keep]],
            rater_codes=None if rater_codes is None else rater_codes[keep],
            category_codes=category_codes[keep],
        )

    def subset_raters(self, rater_positions: Sequence[int]) -> "Annotations":
        """The annotations of some raters only (same items and categories)."""
        self.require_raters("selecting raters")
        keep = np.isin(self._rater_codes, np.asarray(rater_positions))
        remap = np.full(self.n_raters, -1, dtype=np.intp)
        remap[np.asarray(rater_positions)] = np.arange(len(rater_positions))
        return Annotations(
            items=self.items,
            raters=self.raters[np.asarray(rater_positions)],
            categories=self.categories,
            item_codes=self._item_codes[keep],
            rater_codes=remap[self._rater_codes[keep]],
            category_codes=self._category_codes[keep],
        )

    def __repr__(self) -> str:
        raters = "unknown" if self.raters is None else self.n_raters
        return (
            f"Annotations(items={self.n_items}, raters={raters}, "
            f"annotations={self.n_annotations}, categories={_preview(self.categories)})"
        )


# ---------------------------------------------------------------------- coercion
def as_annotations(data: Any, *, categories: Sequence[Any] | None = None) -> Annotations:
    """Return ``data`` if it is an :class:`Annotations`, else ``Annotations.from_wide(data)``."""
    if isinstance(data, Annotations):
        if categories is not None and list(categories) != list(data.categories):
            raise InvalidParameterError(
                "categories= cannot re-order the categories of an existing Annotations; "
                "pass categories= when building it"
            )
        return data
    return Annotations.from_wide(data, categories=categories)


# ---------------------------------------------------------------------- helpers
def _row_sums(table: np.ndarray) -> np.ndarray:
    """Σ over the columns of each row, as a matrix-vector product (numpy's axis-1 reduction
    is several times slower on tables with few columns)."""
    return table.astype(float, copy=False) @ np.ones(table.shape[1])


def _wide_counts(wide_codes: np.ndarray, n_categories: int, axis: int) -> np.ndarray:
    """Category counts per item (axis=1) or per rater (axis=0) of a wide code matrix (-1 =
    missing), with one bincount: a missing cell counts in an extra column that is dropped."""
    K = n_categories
    n = wide_codes.shape[0] if axis == 1 else wide_codes.shape[1]
    base = np.arange(n, dtype=np.intp) * (K + 1)
    base = base[:, None] if axis == 1 else base[None, :]
    key = base + np.where(wide_codes < 0, K, wide_codes)
    return np.bincount(key.ravel(), minlength=n * (K + 1)).reshape(n, K + 1)[:, :K]


def _code_dtype(n_categories: int) -> type:
    return np.int32 if n_categories < 2**31 - 1 else np.int64


def _bincount_2d(rows: np.ndarray, cols: np.ndarray, n_rows: int, n_cols: int) -> np.ndarray:
    flat = np.bincount(rows * n_cols + cols, minlength=n_rows * n_cols)
    return flat.reshape(n_rows, n_cols)


def _preview(index: Sequence[Any], limit: int = 6) -> str:
    shown = ", ".join(label(v) for v in list(index[:limit]))
    return f"[{shown}{', ...' if len(index) > limit else ''}]"


def _wide_to_matrix(x: Any) -> tuple[pd.Index, pd.Index, np.ndarray]:
    try:
        import xarray as xr
    except ImportError:  # pragma: no cover - xarray is a dependency
        xr = None
    if xr is not None and isinstance(x, xr.DataArray):
        if set(x.dims) != {"item", "rater"}:
            raise InvalidParameterError(
                f"a DataArray needs dims ('item', 'rater'), got {tuple(x.dims)}"
            )
        x = x.transpose("item", "rater")
        items = pd.Index(x["item"].to_numpy(), name="item")
        raters = pd.Index(x["rater"].to_numpy(), name="rater")
        return items, raters, _as_object_or_float(x.to_numpy())
    if isinstance(x, pd.DataFrame):
        items = pd.Index(x.index, name="item")
        raters = pd.Index(x.columns, name="rater")
        return items, raters, _as_object_or_float(x.to_numpy())
    if isinstance(x, Annotations):
        raise InvalidParameterError("already an Annotations: use it directly")
    matrix = np.asarray(x)
    if matrix.ndim != 2:
        raise InvalidParameterError(
            f"wide data must be a 2-D items × raters table, got shape {matrix.shape}"
        )
    matrix = _as_object_or_float(matrix)
    return (
        pd.RangeIndex(matrix.shape[0], name="item"),
        pd.RangeIndex(matrix.shape[1], name="rater"),
        matrix,
    )


def _as_object_or_float(matrix: np.ndarray) -> np.ndarray:
    """Numbers become float (NaN = missing); anything else stays as objects."""
    if matrix.dtype.kind in "biuf":
        return matrix.astype(float, copy=False)
    if matrix.dtype.kind in "OUS":
        obj = matrix.astype(object)
        present = ~pd.isna(obj)
        vals = obj[present]
        if vals.size and all(
            isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            for v in vals[: min(vals.size, 1000)]
        ):
            try:
                return obj.astype(float)
            except (TypeError, ValueError):
                pass
        return obj
    return matrix


def _reject_missing_keys(labels: np.ndarray, column: str, index: pd.Index) -> None:
    missing = pd.isna(labels)
    if missing.any():
        first = index[np.flatnonzero(missing)[0]]
        raise MissingValueError(
            f"{int(missing.sum())} row(s) have no {column!r} (first at row {first!r}); "
            "every annotation needs one"
        )


def _reject_infinite(values: np.ndarray, where) -> None:
    if values.dtype.kind == "f":
        bad = np.isinf(values)
    else:
        bad = np.array(
            [isinstance(v, (float, np.floating)) and np.isinf(v) for v in values], dtype=bool
        )
    if bad.any():
        raise MissingValueError(
            f"{int(bad.sum())} value(s) are infinite (first at {where(np.flatnonzero(bad)[0])})"
        )


def _reject_duplicate_pairs(
    item_codes: np.ndarray, rater_codes: np.ndarray, items: pd.Index, raters: pd.Index
) -> None:
    key = item_codes.astype(np.int64) * len(raters) + rater_codes
    sorted_key = np.sort(key)
    repeated = sorted_key[1:][sorted_key[1:] == sorted_key[:-1]]
    if repeated.size:
        first = repeated[0]
        n_dup = np.unique(repeated).size
        raise DuplicateAnnotationError(
            f"{n_dup} (item, rater) pair(s) occur more than once, e.g. item "
            f"{label(items[first // len(raters)])} by rater {label(raters[first % len(raters)])}; "
            "each rater may annotate an item once"
        )


def _encode_values(
    values: np.ndarray, categories: Sequence[Any] | None, where: Callable[[int], str]
) -> tuple[np.ndarray, pd.Index]:
    """Category codes and the category index, sorted or in the order of ``categories``."""
    if categories is not None:
        cats = pd.Index(list(categories), name="category")
        if len(cats) == 0:
            raise InvalidParameterError("categories= is empty")
        if cats.has_duplicates:
            raise InvalidParameterError(f"categories repeat: {list(cats[cats.duplicated()])}")
        codes = cats.get_indexer(values)
        unknown = codes < 0
        if unknown.any():
            strays = pd.unique(values[unknown])
            raise UnknownCategoryError(
                f"{int(unknown.sum())} value(s) are not among categories={_preview(cats)}: "
                f"{_preview(strays)} (first at {where(int(np.flatnonzero(unknown)[0]))})"
            )
        return codes.astype(np.intp, copy=False), cats
    if values.dtype.kind == "f":
        small = _small_integer_offsets(values)
        if small is not None:
            offsets, lo = small
            seen = np.bincount(offsets) > 0
            remap = np.cumsum(seen) - 1
            categories = (np.flatnonzero(seen) + lo).astype(np.int64)
            return remap[offsets], pd.Index(categories, name="category")
        uniques, codes = np.unique(values, return_inverse=True)
        return codes.astype(np.intp, copy=False), pd.Index(uniques, name="category")
    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:
        raise InvalidParameterError(
            "values mix types that cannot be ordered (e.g. numbers and strings); "
            "pass categories= to fix the category set and order"
        )
    return codes.astype(np.intp, copy=False), pd.Index(uniques, name="category")


def _small_integer_offsets(x: np.ndarray) -> tuple[np.ndarray, int] | None:
    """(x − min) as small integers and the minimum, for a 1-D array without missing values.

    None unless every value is a whole number within a range about the size of ``x`` (then
    the categories are found by counting instead of sorting).
    """
    lo, hi = x.min(), x.max()
    if not hi - lo <= 4 * x.size + 1024:
        return None
    shifted = x - lo
    if not (shifted == np.floor(shifted)).all():
        return None
    return shifted.astype(np.intp), int(lo)


class _SmallIntegerTable(NamedTuple):
    counts: np.ndarray  # items × categories
    categories: np.ndarray  # sorted int64 values
    per_item: np.ndarray  # annotations per item
    n_active_raters: int
    wide_codes: Callable[[], np.ndarray]  # makes the items × raters codes (-1 = missing)


_BLOCK_CELLS = 1 << 17  # cells per block of the counting pass (≈ 1 MiB of float64)


def _count_small_integers(table: np.ndarray, lo: float, hi: float) -> _SmallIntegerTable | None:
    """Counts of a float items × raters table of whole numbers (NaN = missing), with one
    bincount and no sort; None for other values (then the caller sorts the values)."""
    span = hi - lo
    if not span <= 4 * table.size + 1024:
        return None
    n_items, n_raters = table.shape
    missing = int(span) + 1  # NaN cells get this code: an extra column, dropped below
    dtype = np.int8 if missing < 2**7 else np.int16 if missing < 2**15 else np.int32
    codes = np.empty(table.shape, dtype=dtype)
    counts = np.empty((missing + 1, n_items), dtype=np.int64)  # category-major
    # blocks of rows small enough for the temporaries to stay in cache; one bincount each
    block = max(1, _BLOCK_CELLS // max(n_raters, 1))
    for start in range(0, n_items, block):
        rows = slice(start, min(start + block, n_items))
        offsets = table[rows] - lo
        np.fmin(offsets, missing, out=offsets)  # fmin returns the number where a cell is NaN
        codes[rows] = offsets
        if not (codes[rows] == offsets).all():  # not all whole numbers
            return None
        size = offsets.shape[0]
        key = np.multiply(codes[rows], size, dtype=np.intp)
        key += np.arange(size, dtype=np.intp)[:, None]
        counts[:, rows] = np.bincount(key.ravel(), minlength=size * (missing + 1)).reshape(
            missing + 1, size)
    per_item = n_raters - counts[missing]
    seen = counts[:missing].sum(axis=1) > 0
    # most raters show up in the first rows; scan the rest only for those that do not
    active = (codes[:1024] != missing).any(axis=0)
    if not active.all():
        active[~active] = (codes[:, ~active] != missing).any(axis=0)
    lookup = np.full(missing + 1, -1, dtype=dtype)  # value offset -> category code; NaN -> -1
    lookup[np.flatnonzero(seen)] = np.arange(int(seen.sum()), dtype=dtype)
    return _SmallIntegerTable(
        counts=counts[:missing][seen].T,  # items × categories (column-major)
        categories=(np.flatnonzero(seen) + int(lo)).astype(np.int64),
        per_item=per_item,
        n_active_raters=int(active.sum()),
        wide_codes=lambda: lookup[codes],
    )


