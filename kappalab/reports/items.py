r"""One row per item: how much its annotations agree, what the annotators chose, and how much
the item moves the coefficient (:func:`item_report`).

Every quantity is read off the item-sum spine (docs/architecture.md, "The item-sum spine"):
the coefficient is θ̂ = f(T), T = Σ_i s_i, so

* the item's own agreement is the coefficient's observed agreement on that item alone,
  ``combine`` of the totals with the observed block replaced by the item's: 1 − d_i/scale
  with d_i = n_iᵀ δ n_i / (m_i(m_i − 1)) the mean
  distance over the item's ordered pairs of annotations (Krippendorff 2011; for the nominal
  level this is the share of agreeing pairs, SPA's item agreement, Nørregaard & Derczynski
  2022), and its chance-corrected form 1 − d_i/D_e uses the coefficient's expected
  disagreement D_e on all the data;
* the item's influence is the leave-one-item-out change f(T − s_i) − f(T), the jackknife
  replicates of :func:`kappalab.uncertainty.replicate_values` — one pass over the distinct
  rows of the item statistics, O(items), never a recomputation per item.

Category counts per item come from the sparse count table (one entry per item and category
present), so the memory grows with the annotations, not with items × categories.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
import pandas as pd

from ..docstrings import shared_parameters
from ..annotations import Annotations, AnnotationsLike, as_annotations
from ..coefficients import registry
from ..coefficients.multirater import ChanceCorrectedAgreement, distance_for
from ..distances import DistanceSpec
from ..errors import InvalidParameterError, warn
from ..protocols import ItemStats
from ..uncertainty import BLOCK_CELLS, replicate_values

if TYPE_CHECKING:
    import scipy.sparse as sp
else:  # scipy.sparse, imported on first use (start-up)
    from ..kernels import sp
from ..kernels import issparse

__all__ = ["item_report", "label_summary"]

#: the registry's capability of the coefficients :func:`item_report` takes. Those whose
#: option is ``level`` take Krippendorff's metric; the kappa family's wrappers take Gwet's
#: weights, so the report gives them only at the nominal level.
_CAPABILITY = "item_report"


def __getattr__(name: str) -> Any:
    if name == "ITEM_REPORT_COEFFICIENTS":  # deprecated in 0.2.0: the registry is the table
        warn("kappalab.reports.items.ITEM_REPORT_COEFFICIENTS is deprecated and will be "
             "removed in 0.3.0; use kappalab.coefficients.registry."
             f"coefficients({_CAPABILITY!r})", DeprecationWarning)
        return {entry.name: (entry.chance, entry.item_weighting, entry.display,
                             entry.option == "level")
                for entry in registry.coefficients(_CAPABILITY)}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def label_summary(ann: Annotations) -> pd.DataFrame:
    r"""The majority label, its share, the number of tied labels and the label entropy of
    every item.

    With n_ic annotations of category c among the m_i of item i, p_ic = n_ic/m_i:

    .. math::  \text{majority share}_i = \max_c p_{ic}, \qquad
               H_i = -\sum_{c:\,n_{ic}>0} p_{ic} \log_2 p_{ic} \ \text{(bits)}.

    Ties: when several categories share the largest count, ``majority`` is the first of them
    in the order of the categories and ``tied_labels`` says how many there are (1: a strict
    majority). Computed on the sparse count table: O(annotations), no items × categories
    array.

    Parameters
    ----------
    ann : Annotations
        The annotations (:func:`~kappalab.annotations.as_annotations`).

    Returns
    -------
    pandas.DataFrame
        Indexed by item, in the order of ``ann.items``: ``annotations`` (m_i), ``majority``,
        ``majority_share``, ``tied_labels`` and ``entropy_bits``; an item without annotations
        has no majority (None), NaN share and entropy and 0 tied labels.

    References
    ----------
    Shannon, C. E. (1948). A mathematical theory of communication. *Bell System Technical
    Journal* 27(3), 379–423. doi:10.1002/j.1538-7305.1948.tb01338.x

    Examples
    --------
    >>> from kappalab.annotations import as_annotations
    >>> summary = label_summary(as_annotations([["a", "a", "b"], ["a", "b", None]]))
    >>> summary.majority.tolist(), summary.tied_labels.tolist()  # the tie goes to "a"
    (['a', 'a'], [1, 2])
    >>> summary.entropy_bits.round(4).tolist()  # −(2/3)log2(2/3) − (1/3)log2(1/3), 1 bit
    [0.9183, 1.0]
    """
    counts = sp.csr_matrix(ann.sparse_count_matrix, copy=True)
    counts.sum_duplicates()  # canonical: one entry per (item, category), categories in order
    counts.eliminate_zeros()
    n, K = ann.n_items, ann.n_categories
    m = ann.annotations_per_item_array
    per_row = np.diff(counts.indptr)
    present = per_row > 0
    top, first = np.zeros(n), np.zeros(n, dtype=np.intp)
    tied, entropy = np.zeros(n, dtype=np.int64), np.full(n, np.nan)
    if present.any():
        # rows without entries add no entry, so the starts of the non-empty rows delimit them
        starts = counts.indptr[:-1][present]
        row = np.repeat(np.arange(n), per_row)
        data, category = counts.data, counts.indices
        top[present] = np.maximum.reduceat(data, starts)
        is_top = data == top[row]
        first[present] = np.minimum.reduceat(np.where(is_top, category, K), starts)
        tied[present] = np.add.reduceat(is_top.astype(np.int64), starts)
        p = data / m[row]
        entropy[present] = -np.add.reduceat(p * np.log2(p), starts) + 0.0  # −0 → 0
    if present.all():
        majority = pd.Series(ann.categories.take(first), index=ann.items)
    else:
        labels = ann.categories.to_numpy(dtype=object)[first]
        labels[~present] = None
        majority = pd.Series(labels, index=ann.items, dtype=object)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(present, top / np.where(present, m, 1), np.nan)
    return pd.DataFrame({"annotations": m, "majority": majority.to_numpy(),
                         "majority_share": share, "tied_labels": tied,
                         "entropy_bits": entropy}, index=pd.Index(ann.items, name="item"))


def _entry(coefficient: Any) -> registry.Coefficient:
    """The registry's entry of ``coefficient`` (a name, an alias or the function)."""
    return registry.lookup(coefficient, _CAPABILITY, purpose="the item report")


def _core(ann: Annotations, level: Any, entry: registry.Coefficient
          ) -> ChanceCorrectedAgreement:
    dis = distance_for(ann, level)
    if entry.option != "level" and dis.name != "nominal":
        with_level = " or ".join(repr(e.name) for e in registry.coefficients(_CAPABILITY)
                                 if e.option == "level")
        raise InvalidParameterError(
            f"{entry.name} takes Gwet's agreement weights, not Krippendorff's metric, so the "
            f"item report gives it only at level='nominal' (got level {dis.name!r}); use "
            f"coefficient={with_level} for another level")
    return entry.agreement_core(ann, dis)


def _per_item_parts(core: ChanceCorrectedAgreement, stats: ItemStats
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(observed agreement 1 − d_i/scale, chance-corrected agreement 1 − d_i/D_e) of each
    item alone, NaN for an item with fewer than two annotations.

    The core's first two columns are the item's observed block [u_i d_i, u_i]
    (:class:`~kappalab.coefficients.multirater.ChanceCorrectedAgreement`), so ``combine`` on
    the totals with that block replaced by the item's gives the item's observed agreement and
    its value 1 − d_i/D_e (D_e from the chance block of all the data), computed in the
    core's normalised units: no overflow or underflow when the values are 1e±300. It is
    evaluated once per distinct block (a few values for categorical data), in blocks of rows.
    """
    observed_block = stats[:, :2]
    observed_block = (observed_block.toarray() if issparse(observed_block)
                      else np.asarray(observed_block, dtype=float))
    distinct, of_item = np.unique(observed_block, axis=0, return_inverse=True)
    totals = core.totals()
    observed, corrected = np.empty(len(distinct)), np.empty(len(distinct))
    block = max(1, BLOCK_CELLS // max(1, totals.size))
    for start in range(0, len(distinct), block):  # bounds the memory; no loop over items
        stack = np.tile(totals, (min(block, len(distinct) - start), 1))
        stack[:, :2] = distinct[start:start + block]
        parts = core.combine(stack)
        observed[start:start + block] = np.real(parts["observed"])
        corrected[start:start + block] = np.real(parts["value"])
    of_item = of_item.ravel()
    return observed[of_item], corrected[of_item]


def _leave_one_out(core: ChanceCorrectedAgreement, stats: ItemStats,
                   value: float) -> np.ndarray:
    """f(T − s_i) for every item: the jackknife replicates of the items with statistics; an
    item whose statistics are all 0 leaves the totals, hence the value, unchanged."""
    if issparse(stats):
        has_stats = np.diff(sp.csr_matrix(stats).indptr) > 0
    else:
        has_stats = (np.asarray(stats) != 0).any(axis=1)
    without = np.full(stats.shape[0], value)
    if has_stats.sum() >= 2:
        without[has_stats] = replicate_values(core, "jackknife")
    else:  # leaving out the only item with statistics leaves nothing
        without[has_stats] = np.nan
    return without


@shared_parameters
def item_report(data: AnnotationsLike, *, level: DistanceSpec = "nominal",
                coefficient: str = "krippendorff_alpha",
                categories: Sequence[Any] | None = None) -> pd.DataFrame:
    r"""One row per item — its agreement, majority label, entropy and influence on the
    coefficient — the most contested items first.

    With n_i the item's category counts, m_i its annotations and δ the distance of ``level``:

    .. math::  d_i = \frac{n_i^\top δ\, n_i}{m_i(m_i - 1)}, \qquad
               \text{agreement}_i = 1 - \frac{d_i}{\text{scale}}, \qquad
               \text{chance-corrected}_i = 1 - \frac{d_i}{D_e},

    d_i the mean distance over the item's ordered pairs of annotations (Krippendorff 2011), so
    at the nominal level ``agreement`` is the share of agreeing pairs, SPA's item agreement
    (Nørregaard & Derczynski 2022; :func:`kappalab.item_agreement`), and at numeric levels one
    minus the item's disagreement on the 0–1 scale of the distance. D_e is the coefficient's
    expected disagreement on all the data, so the mean of the chance-corrected agreements,
    weighted as the coefficient weighs items (by m_i for Krippendorff's α, equally for the
    others), is the coefficient itself. The influence is the leave-one-item-out change

    .. math::  \text{change if removed}_i = θ̂_{(-i)} - θ̂ = f(T - s_i) - f(T),

    the jackknife replicates on the item-sum spine (:mod:`kappalab.uncertainty`), computed
    once for all items. The distance is held fixed (for the ordinal metric, at the marginals
    of all the data), as in the jackknife.

    Rows are sorted by ``agreement``, lowest first (the most contested items), ties broken by
    ``change_if_removed``, largest first (the item whose removal raises the coefficient most),
    then by item order; items with fewer than two annotations (no agreement) come last.

    Parameters
    ----------
    {{shared: data}}
    level : str, array-like or callable, default "nominal"
        Krippendorff's distance metric (Krippendorff 2011; :mod:`kappalab.distances`):
        ``"nominal"``, ``"ordinal"``, ``"interval"``, ``"ratio"``, ``"circular"``,
        ``"bipolar"``, a K × K matrix of squared distances δ² or a callable ``δ²(a, b)``.
    coefficient : str or callable, default "krippendorff_alpha"
        The coefficient whose influence is reported, a coefficient of the registry
        (:mod:`kappalab.coefficients.registry`) with an item report, named by its public
        function's name, its alias or the function itself: ``"krippendorff_alpha"``
        (``"alpha"``) or ``"janson_olsson_iota"`` at any level, ``"fleiss_kappa"``
        (``"fleiss"``), ``"conger_kappa"`` (``"conger"``), ``"gwet_ac"`` (``"gwet"``),
        ``"brennan_prediger"`` or ``"percent_agreement"`` at the nominal level.
    {{shared: categories}}
        The order also decides which label a tied majority reports.

    Returns
    -------
    pandas.DataFrame
        Indexed by item, one row per item: ``annotations`` (m_i), ``agreement``,
        ``chance_corrected_agreement`` (NaN with fewer than two annotations), ``majority``,
        ``majority_share``, ``tied_labels``, ``entropy_bits`` (:func:`label_summary`),
        ``coefficient_if_removed`` and ``change_if_removed``. ``attrs`` holds
        ``coefficient`` (its name), ``value`` (θ̂), ``expected_agreement`` (the coefficient's
        chance agreement P_e, on the scale of ``agreement``) and ``level``.

    Raises
    ------
    InvalidParameterError
        An unknown ``coefficient`` or ``level``, or a non-nominal ``level`` with a
        coefficient of the kappa family.
    UnknownRatersError
        ``conger_kappa`` or ``janson_olsson_iota`` on data without rater identities.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`).

    References
    ----------
    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Annenberg School for
    Communication, University of Pennsylvania.

    Nørregaard, J. & Derczynski, L. (2022). Sparse Probability of Agreement.
    arXiv:2208.06161

    Efron, B. (1982). *The Jackknife, the Bootstrap and Other Resampling Plans*. SIAM.
    doi:10.1137/1.9781611970319

    Examples
    --------
    >>> import kappalab as kl
    >>> report = kl.item_report([[1, 1, 1], [1, 2, 3], [2, 2, 1], [3, 3, 3]])
    >>> report.index.tolist()  # item 1 has no agreeing pair, item 2 one of three
    [1, 2, 0, 3]
    >>> report.agreement.round(4).tolist()
    [0.0, 0.3333, 1.0, 1.0]
    >>> round(report.attrs["value"], 4)  # α; without item 1, kl.krippendorff_alpha: 0.6923
    0.4149
    >>> report.change_if_removed.round(4).tolist()
    [0.2774, 0.0851, -0.1841, -0.2845]
    """
    entry = _entry(coefficient)
    ann = as_annotations(data, categories=categories)
    core = _core(ann, level, entry)
    estimate = core.estimate()  # warns if the coefficient is undefined on the data
    stats = core.item_stats()
    agreement, chance_corrected = _per_item_parts(core, stats)
    without = _leave_one_out(core, stats, estimate.value)
    report = label_summary(ann)
    report.insert(1, "agreement", agreement)
    report.insert(2, "chance_corrected_agreement", chance_corrected)
    report["coefficient_if_removed"] = without
    report["change_if_removed"] = without - estimate.value
    order = np.lexsort((np.arange(ann.n_items), -report["change_if_removed"].to_numpy(),
                        agreement))
    report = report.iloc[order]
    report.attrs.update(coefficient=estimate.coefficient, value=estimate.value,
                        expected_agreement=estimate.expected, level=estimate.level)
    return report
