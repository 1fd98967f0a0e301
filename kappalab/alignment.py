r"""Two replications of an annotation experiment matched item by item.

Two replications X and Y (two rater pools) label items that are matched by label. An item
*counts on a side* when it has at least one annotation there (an item listed without an
annotation, e.g. an empty row of a wide table, does not). Three sets of items follow:

.. math::  C = I_X ∩ I_Y \;(\text{common}), \qquad I_X \setminus C \;(\text{X only}), \qquad
           I_Y \setminus C \;(\text{Y only}),

each in the order of its first side (X for the common and X-only items, Y for the Y-only).
The frequentist cross-replication coefficients (κx, normalized κx, the disattenuated
correlation) use the common items; the Bayesian model of
:func:`kappalab.bayes.cross_replication` also takes each side's one-sided items.

Categories are put on one scale, the union of both category sets (sorted when the labels can
be sorted, else X's order followed by Y's new categories): ``x_map[c]`` is the union position
of X's category c, and ``counts()`` widens each side's count matrix onto that scale.

>>> import pandas as pd
>>> from kappalab import Annotations
>>> from kappalab.alignment import AlignedReplications
>>> x = Annotations.from_wide([[0, 1], [1, 1], [0, 0]])         # items 0, 1, 2
>>> y = Annotations.from_wide(pd.DataFrame({"r": [2, 0, 1]}, index=[1, 2, 3]))
>>> a = AlignedReplications(x, y)
>>> list(a.items), list(a.only_x_items), list(a.only_y_items)
([1, 2], [0], [3])
>>> list(a.categories), a.x_map.tolist(), a.y_map.tolist()
([0, 1, 2], [0, 1], [0, 1, 2])
>>> nx, ny = a.counts()                                          # common items × categories
>>> nx.tolist(), ny.tolist()
([[0.0, 2.0, 0.0], [2.0, 0.0, 0.0]], [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd

from .annotations import Annotations
from .encoding import NumericPositions, numeric_positions
from .errors import EmptyDataError, InvalidParameterError, SharedRatersWarning, warn

__all__ = ["AlignedReplications", "SHARED_RATERS", "shared_raters", "union_categories"]

#: what the cross-replication estimators do when both replications name the same raters
SHARED_RATERS = ("warn", "ignore")


def union_categories(x: Annotations, y: Annotations) -> tuple[pd.Index, np.ndarray, np.ndarray]:
    """The union of both category sets and each side's positions in it.

    The union is sorted when its labels can be compared (mixed types: X's categories in
    order, then Y's new ones); when both sides have the same categories in the same order,
    they are the union.

    Parameters
    ----------
    x, y : Annotations
        The two replications.

    Returns
    -------
    union : pandas.Index
        The union of the categories.
    x_positions, y_positions : numpy.ndarray
        Each side's category positions in ``union``: ``union[x_positions[c]]`` is X's
        category ``c``.

    Examples
    --------
    >>> from kappalab import Annotations
    >>> union, px, py = union_categories(Annotations.from_wide([["b", "c"]]),
    ...                                  Annotations.from_wide([["a", "b"]]))
    >>> list(union), px.tolist(), py.tolist()   # b, c at 1, 2; a, b at 0, 1
    (['a', 'b', 'c'], [1, 2], [0, 1])
    """
    if list(x.categories) == list(y.categories):
        positions = np.arange(x.n_categories)
        return x.categories, positions, positions
    union = x.categories.append(y.categories).unique()
    try:
        union = union.sort_values()
    except TypeError:  # mixed types: keep X's order, then Y's new categories
        pass
    return union, union.get_indexer(x.categories), union.get_indexer(y.categories)


def shared_raters(x: Annotations, y: Annotations, policy: str = "warn") -> pd.Index:
    """The rater ids that annotate in both replications, with a warning (``policy="warn"``).

    Replications that share raters are not independent: the shared raters carry their own
    habits into both sides, so κx (and more so normalized κx, which may then exceed 1) rises
    above what independent replications would show. Raters labelled by position (a table's
    default columns 0, 1, …) are not compared, since equal positions name unrelated people.

    Parameters
    ----------
    x, y : Annotations
        The two replications.
    policy : {"warn", "ignore"}, default "warn"
        ``"warn"``: a :class:`~kappalab.errors.SharedRatersWarning` with the count;
        ``"ignore"`` when equal ids are unrelated labels.

    Returns
    -------
    pandas.Index
        The shared rater ids (empty when raters are unknown or positional).

    Raises
    ------
    InvalidParameterError
        An unknown ``policy``.

    Examples
    --------
    >>> import warnings, pandas as pd
    >>> x = Annotations.from_long(pd.DataFrame({"item": [1, 1], "rater": ["ann", "bo"],
    ...                                         "value": [1, 2]}))
    >>> y = Annotations.from_long(pd.DataFrame({"item": [1, 1], "rater": ["bo", "cy"],
    ...                                         "value": [2, 2]}))
    >>> list(shared_raters(x, y, policy="ignore"))
    ['bo']
    """
    if policy not in SHARED_RATERS:
        raise InvalidParameterError(
            f"unknown shared_raters policy {policy!r}; choose one of "
            f"{', '.join(map(repr, SHARED_RATERS))}")
    if (x.raters is None or y.raters is None
            or isinstance(x.raters, pd.RangeIndex) or isinstance(y.raters, pd.RangeIndex)):
        return pd.Index([])  # positional raters
    shared = x.raters.intersection(y.raters)
    if len(shared):  # ids on both sides: those with an annotation on both
        active_x = x.raters[np.bincount(x.codes()[1], minlength=len(x.raters)) > 0]
        active_y = y.raters[np.bincount(y.codes()[1], minlength=len(y.raters)) > 0]
        shared = active_x.intersection(active_y)
    if len(shared) and policy == "warn":
        warn(f"{len(shared)} rater id(s) annotate in both replications (e.g. "
             f"{list(shared[:3])}): replications that share raters are not independent, and "
             "κx and normalized κx then carry those raters' habits into both sides (normalized "
             "κx may exceed 1); pass shared_raters='ignore' if the ids are unrelated labels",
             SharedRatersWarning)
    return shared


#: integer item labels spanning at most this many times the items are matched through a
#: lookup array over their range, not a hash table
LOOKUP_SPAN = 4


def _rows_in(items: pd.Index, other: pd.Index) -> np.ndarray:
    """The row of each of ``items`` in ``other`` (−1 where absent); both unique, of one
    dtype. Integer labels over a short range go through a lookup array over the range,
    others through ``other``'s hash table (``get_indexer``)."""
    values, others = items.to_numpy(), other.to_numpy()
    if values.dtype.kind in "iu" and values.size and others.size:
        low = min(int(values.min()), int(others.min()))
        span = max(int(values.max()), int(others.max())) - low + 1
        if span <= LOOKUP_SPAN * (values.size + others.size):
            where = np.full(span, -1, dtype=np.intp)
            where[others - low] = np.arange(others.size)
            return where[values - low]
    return other.get_indexer(items)


class AlignedReplications:
    """Replications X and Y matched by item label (see the module docstring).

    An item counts on a side when it has at least one annotation there. The common items are
    those annotated on both sides, in X's order; the others are X-only or Y-only. Categories
    are put on the union scale of :func:`union_categories`.

    Parameters
    ----------
    x, y : Annotations
        The two replications.

    Attributes
    ----------
    x, y : Annotations
        The two replications, as given.
    items : pandas.Index
        The common items (annotated on both sides), in X's order.
    x_rows, y_rows : numpy.ndarray
        Each common item's row in ``x.items`` and in ``y.items``.
    only_x_items, only_y_items : pandas.Index
        Items annotated on one side only.
    only_x_rows, only_y_rows : numpy.ndarray
        Their rows in ``x.items`` and in ``y.items``.

    Raises
    ------
    EmptyDataError
        No item is annotated on both sides.

    Examples
    --------
    >>> import pandas as pd
    >>> from kappalab import Annotations
    >>> x = Annotations.from_wide([[0, 1], [1, 1], [0, 0]])                 # items 0, 1, 2
    >>> y = Annotations.from_wide(pd.DataFrame({"r": [2, 0, 1]}, index=[1, 2, 3]))
    >>> a = AlignedReplications(x, y)
    >>> list(a.items), a.x_rows.tolist(), a.y_rows.tolist()   # 1, 2: X rows 1, 2; Y rows 0, 1
    ([1, 2], [1, 2], [0, 1])
    >>> a.n_common, a.n_only_x, a.n_only_y                     # item 0 in X only, 3 in Y only
    (2, 1, 1)
    """

    def __init__(self, x: Annotations, y: Annotations):
        has_x, has_y = x.annotations_per_item_array > 0, y.annotations_per_item_array > 0
        if x.items.dtype == y.items.dtype:  # each X item's row in Y, then masks
            in_y = (np.arange(x.n_items) if x.items.equals(y.items)  # the usual layout
                    else _rows_in(x.items, y.items))
            common_x = has_x & (in_y >= 0)
            common_x[common_x] = has_y[in_y[common_x]]
            self.x_rows = np.flatnonzero(common_x)
            self.y_rows = in_y[self.x_rows]
            common_y = np.zeros(y.n_items, dtype=bool)
            common_y[self.y_rows] = True
            self.only_x_rows = np.flatnonzero(has_x & ~common_x)
            self.only_y_rows = np.flatnonzero(has_y & ~common_y)
            if self.x_rows.size == 0:
                self._refuse_disjoint(x.items[has_x], y.items[has_y])
            # the labels (items, only_x_items, only_y_items) are taken when first read
        else:  # labels of different types: pandas' set operations decide what matches
            annotated_x, annotated_y = x.items[has_x], y.items[has_y]
            common = annotated_x.intersection(annotated_y, sort=False)
            if len(common) == 0:
                self._refuse_disjoint(annotated_x, annotated_y)
            self.x_rows = x.items.get_indexer(common)
            self.y_rows = y.items.get_indexer(common)
            only_x = annotated_x.difference(common, sort=False)
            only_y = annotated_y.difference(common, sort=False)
            self.only_x_rows = x.items.get_indexer(only_x)
            self.only_y_rows = y.items.get_indexer(only_y)
            self.__dict__.update(items=common, only_x_items=only_x, only_y_items=only_y)
        self.x, self.y = x, y

    @cached_property
    def items(self) -> pd.Index:
        """The common items, in X's order."""
        return self.x.items[self.x_rows]

    @cached_property
    def only_x_items(self) -> pd.Index:
        """The items annotated in X only."""
        return self.x.items[self.only_x_rows]

    @cached_property
    def only_y_items(self) -> pd.Index:
        """The items annotated in Y only."""
        return self.y.items[self.only_y_rows]

    @staticmethod
    def _refuse_disjoint(annotated_x: pd.Index, annotated_y: pd.Index) -> None:
        raise EmptyDataError(
            "the two replications have no annotated item in common: cross-replication "
            f"agreement needs the same items on both sides (X annotates {annotated_x.size} "
            f"items, e.g. {list(annotated_x[:3])}; Y annotates {annotated_y.size}, e.g. "
            f"{list(annotated_y[:3])})"
        )

    @property
    def n_common(self) -> int:
        """Number of common items."""
        return int(self.x_rows.size)

    @property
    def n_only_x(self) -> int:
        """Number of items annotated in X only."""
        return int(self.only_x_rows.size)

    @property
    def n_only_y(self) -> int:
        """Number of items annotated in Y only."""
        return int(self.only_y_rows.size)

    # ------------------------------------------------------------------ every item
    @cached_property
    def union_rows(self) -> tuple[pd.Index, np.ndarray, np.ndarray]:
        """``(items, x_rows, y_rows)`` over every item annotated on either side — the common
        items first, then the X-only, then the Y-only ones — with each item's row on each side
        (−1 where the side does not annotate it)."""
        items = self.items.append(self.only_x_items).append(self.only_y_items)
        absent_x, absent_y = np.full(self.n_only_y, -1), np.full(self.n_only_x, -1)
        x_rows = np.concatenate([self.x_rows, self.only_x_rows, absent_x]).astype(np.intp)
        y_rows = np.concatenate([self.y_rows, absent_y, self.only_y_rows]).astype(np.intp)
        return items, x_rows, y_rows

    def spread(self, values: np.ndarray, side: str, fill: float = 0.0) -> np.ndarray:
        """Per item of :attr:`union_rows`, ``values`` (one entry, or row, per item of side
        ``"x"`` or ``"y"``) of its row on that side, ``fill`` where the side lacks it."""
        rows = self.union_rows[1 if side == "x" else 2]
        values = np.asarray(values)
        out = np.full((rows.size,) + values.shape[1:], fill, dtype=float)
        present = rows >= 0
        out[present] = values[rows[present]]
        return out

    # ------------------------------------------------------------------ common items
    @cached_property
    def _union(self) -> tuple[pd.Index, np.ndarray, np.ndarray]:
        return union_categories(self.x, self.y)

    @property
    def categories(self) -> pd.Index:
        """The union of both category sets (:func:`union_categories`)."""
        return self._union[0]

    @property
    def x_map(self) -> np.ndarray:
        """Union position of each of X's categories."""
        return self._union[1]

    @property
    def y_map(self) -> np.ndarray:
        """Union position of each of Y's categories."""
        return self._union[2]

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Common items × union categories counts of X and of Y (float)."""
        K = len(self.categories)
        out = []
        for ann, rows, mapping in ((self.x, self.x_rows, self.x_map),
                                   (self.y, self.y_rows, self.y_map)):
            counts = np.take(ann.count_matrix, rows, axis=0).astype(float)  # take: no
            # per-row fancy-index loop
            if mapping.size != K or (mapping != np.arange(K)).any():  # onto the union scale
                widened = np.zeros((rows.size, K))
                widened[:, mapping] = counts
                counts = widened
            out.append(counts)
        return out[0], out[1]

    def moments(self, factor: float, shift: float, positions: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
        """Common items × (m, Σx, Σx²) of X and of Y, x = factor·(position − shift) with the
        position of each union category (its value, or its ordinal mid-rank)."""
        x_moments, y_moments = (
            np.take(np.column_stack(ann.item_moments(factor, shift, positions[mapping])), rows,
                    axis=0)
            for ann, rows, mapping in ((self.x, self.x_rows, self.x_map),
                                       (self.y, self.y_rows, self.y_map)))
        return x_moments, y_moments

    def category_values(self, purpose: str) -> np.ndarray:
        """The union categories as numbers measured from :attr:`value_origin`
        (:meth:`Annotations.category_values`: integers beyond 2**53 as their exact
        differences from the smallest); :class:`~kappalab.errors.NonNumericError`, naming
        ``purpose``, when a side's labels are not numbers or have no exact differences."""
        self.x.category_values(purpose), self.y.category_values(purpose)  # both numeric?
        return self._positions.require(purpose)

    @property
    def value_origin(self) -> int:
        """What :meth:`category_values` are measured from: 0, or the smallest union category
        for integers beyond 2**53."""
        return self._positions.origin

    @cached_property
    def _positions(self) -> NumericPositions:
        return numeric_positions(pd.Index(self.categories))
