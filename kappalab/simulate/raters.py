"""Rater pools and assignment: the pool size, each item's random ordered subset of the pool, and
the :class:`~kappalab.annotations.Annotations` built from the per-annotation arrays."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..annotations import Annotations
from ..validation import check_count
from .parameters import fail


def pool_size(n_raters, pmf: np.ndarray, name: str = "n_raters") -> int:
    M = pmf.size - 1
    if n_raters is None:
        return max(M, 1)
    R = check_count(n_raters, name, 1)
    if R < M:
        fail(f"{name}={R} is smaller than the largest number of annotations per item ({M}): "
             "each rater annotates an item at most once")
    return R


def assign_raters(rng: np.random.Generator, m: np.ndarray, R: int) -> np.ndarray:
    """(n, M) raters: for each item a uniformly random ordered subset of size M of the pool
    (only the first m_i are used). A random permutation per row for small pools; sequential
    draws with redraws of collisions for large ones (the same distribution)."""
    n, M = m.size, int(m.max(initial=0))
    if M == 0:
        return np.zeros((n, 0), dtype=np.int64)
    if R <= 4 * M + 8:
        table = np.broadcast_to(np.arange(R, dtype=np.int64), (n, R)).copy()
        rng.permuted(table, axis=1, out=table)
        return table[:, :M]
    chosen = np.zeros((n, M), dtype=np.int64)
    for j in range(M):
        rows = np.flatnonzero(m > j)
        draw = rng.integers(0, R, rows.size)
        clash = (chosen[rows, :j] == draw[:, None]).any(axis=1)
        while clash.any():
            redo = np.flatnonzero(clash)
            draw[redo] = rng.integers(0, R, redo.size)
            clash[redo] = (chosen[rows[redo], :j] == draw[redo, None]).any(axis=1)
        chosen[rows, j] = draw
    return chosen


def flat_slots(m: np.ndarray, raters: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per annotation, in item order: (item position, slot, rater)."""
    M = raters.shape[1]
    used = np.arange(M)[None, :] < m[:, None]
    items = np.repeat(np.arange(m.size), m)
    slots = np.broadcast_to(np.arange(M), used.shape)[used]
    return items, slots, raters[used]


def build_annotations(item_labels: np.ndarray, R: int, items: np.ndarray, raters: np.ndarray,
                      values: np.ndarray, n_categories: int | None) -> Annotations:
    """An Annotations from per-annotation arrays: an items × raters table through
    ``Annotations.from_wide`` when the table is not too sparse, else per-annotation codes.
    Items keep their labels (also those with no annotation) and all K categories are kept."""
    n = item_labels.size
    categories = None if not n_categories else list(range(n_categories))
    if n * R <= 4 * values.size + 2**20:
        table = np.full((n, R), np.nan)
        table[items, raters] = values
        frame = pd.DataFrame(table, index=pd.Index(item_labels, name="item"),
                             columns=pd.RangeIndex(R, name="rater"))
        return Annotations.from_wide(frame, categories=categories, raters_as_rows=False)
    # a large, sparse pool: the long store (the same one Annotations.subset_raters builds)
    if n_categories:
        codes = values.astype(np.intp)
        cats = pd.Index(np.arange(n_categories, dtype=np.int64), name="category")
    else:
        uniques, codes = np.unique(values, return_inverse=True)
        cats = pd.Index(uniques, name="category")
    return Annotations(items=pd.Index(item_labels, name="item"),
                       raters=pd.RangeIndex(R, name="rater"), categories=cats,
                       item_codes=items.astype(np.intp), rater_codes=raters.astype(np.intp),
                       category_codes=codes.astype(np.intp))
