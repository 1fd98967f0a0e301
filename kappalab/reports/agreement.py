"""``agreement_report``: every coefficient that applies to the data, in one table."""

from __future__ import annotations

import textwrap
import warnings
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ..docstrings import shared_parameters
from ..annotations import AnnotationsLike, as_annotations
from ..coefficients import multirater, registry
from ..distances import DistanceSpec
from ..errors import (IncompleteItemsWarning, KappalabError, PairwiseMeanWarning,
                     UndefinedCoefficientWarning)
from ..interpretation import interpret as benchmark_value, interpretation_scale
from ..uncertainty import IntervalOptions
from ..validation import SampleWeightLike, SeedLike, check_confidence, check_sample_weight, make_rng

__all__ = ["NOT_COMPUTED", "ReportTable", "agreement_report"]

#: the beginning of the note of a coefficient the report could not compute (the reason follows)
NOT_COMPUTED = "not computed: "

_COLUMNS = ["coefficient", "value", "se", "ci_low", "ci_high", "observed", "expected",
            "level", "n_items", "n_annotations", "n_raters", "note"]


@shared_parameters
def agreement_report(data: AnnotationsLike, *, level: DistanceSpec = "nominal",
                     categories: Sequence[Any] | None = None,
                     sample_weight: SampleWeightLike = None,
                     ci: str | None = None, n_resamples: int = 2000, confidence: float = 0.95,
                     seed: SeedLike = None, progress: bool | None = None,
                     benchmark: Any = None) -> pd.DataFrame:
    r"""A table of every coefficient that applies to ``data``.

    ``level`` is Krippendorff's metric for α and Janson–Olsson's ι, and names the weights of
    the kappa family: ``"nominal"`` → unweighted, ``"interval"`` → quadratic (the same
    distance), ``"ordinal"``, ``"ratio"``, ``"circular"``, ``"bipolar"`` → Gwet's weights of
    that name (:func:`kappalab.distances.category_distance` with ``kind="weights"``; Gwet's
    ordinal weights use the ranks, Krippendorff's ordinal metric the marginal counts, so the
    two rows differ); a
    K × K distance matrix δ gives the weights ``w = 1 − δ/max δ``. A coefficient that cannot
    be computed on the data keeps its row, with NaN and the reason in ``note``; the others
    are unaffected. Two-rater coefficients appear only
    for two raters, rater-specific ones only when raters are known; with ``level="interval"``
    and raters known the last row is the intraclass correlation ICC(2,1)
    (:func:`~kappalab.icc`: two-way random, absolute agreement, single rater), computed on
    the items rated by every rater — its note says how many items with a missing rating were
    dropped — and given ``ci=``'s interval like every row. ``ci=`` also takes the methods one
    coefficient supplies itself (:data:`kappalab.uncertainty.CORE_METHODS`):
    ``"krippendorff"`` gives α's row Krippendorff's bootstrap and ``"F"`` the ICC's row its F
    interval, and the other rows their value with a ``no interval: ...`` note. Columns:
    coefficient, value, its standard error and interval (NaN unless ``ci=`` names a method of
    :data:`kappalab.uncertainty.CI_METHODS` or the row's own), observed and expected
    agreement (P_o, P_e on the weighted 0–1 scale; NaN where they do not apply: P_e of
    percent agreement, both for the ICC), level, the items, annotations and raters used, and
    a note where a value or its interval is undefined. ``print(report)`` shows the table for
    a terminal (:meth:`ReportTable.to_text`: the notes as footnotes, no empty column).

    Parameters
    ----------
    {{shared: data}}
    level : str or array-like, default "nominal"
        Krippendorff's distance metric for α and ι, and the name of the kappa family's weights
        (see above): ``"nominal"``, ``"ordinal"``, ``"interval"``, ``"ratio"``,
        ``"circular"``, ``"bipolar"`` or a K × K matrix of squared distances δ².
    {{shared: categories}}
    {{shared: sample_weight}}
        Passed to every coefficient of the table.
    {{shared: resampling}}
    benchmark : str or InterpretationScale, optional
        An interpretation scale (``"landis-koch"``, ``"fleiss"``, ``"altman"``,
        ``"krippendorff"``; :func:`kappalab.interpret`): adds the column ``band``, the band each
        value falls in, and with ``ci=`` the column ``certain_band``, the highest band reached
        with certainty ``confidence`` given the standard error (Gwet 2014). None where the
        value (or its standard error) is undefined. None (default): no such column. Only
        the chance-corrected coefficients are banded, the coefficients the scales were
        proposed for: percent agreement and the ICC rows have None.

    Returns
    -------
    ReportTable
        A :class:`pandas.DataFrame`, one row per coefficient, columns ``coefficient``,
        ``value``, ``se``, ``ci_low``, ``ci_high``, ``observed``, ``expected``, ``level``,
        ``n_items``, ``n_annotations``, ``n_raters`` (then ``band`` and ``certain_band``
        with ``benchmark=``) and ``note``.

    Raises
    ------
    InvalidParameterError
        A ``sample_weight`` that is not one finite w_i ≥ 0 per item (not all 0), an unknown
        ``ci``, ``n_resamples`` < 2, ``confidence`` outside (0, 1), an invalid ``seed`` or an
        unknown ``benchmark`` scale (checked once, before any row; a fault of one coefficient
        is its row's ``note``).
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Annenberg School for
    Communication, University of Pennsylvania.

    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced Analytics.

    Examples
    --------
    >>> import kappalab as kl
    >>> report = kl.agreement_report(kl.datasets.load("worked_example"))
    >>> for name, value in zip(report.coefficient, report.value.round(4).tolist()):
    ...     print(f"{name}: {value}")   # α: krippendorff 0.578182; κ: statsmodels 0.563636
    percent agreement: 0.7333
    Krippendorff's alpha: 0.5782
    Fleiss' kappa: 0.5636
    Gwet's AC1: 0.616
    Brennan-Prediger: 0.6
    Conger's kappa: 0.5676
    Janson-Olsson iota: 0.5676
    Light's kappa: 0.5634
    >>> banded = kl.agreement_report(kl.datasets.load("worked_example"), benchmark="landis-koch")
    >>> banded.set_index("coefficient").loc[["Fleiss' kappa", "Gwet's AC1"], "band"].tolist()
    ['Moderate', 'Substantial']
    """
    scale = None if benchmark is None else interpretation_scale(benchmark)
    if scale is not None:
        check_confidence(confidence)  # the certainty of the band reached
    # bad interval options fail once, before any row; a name only some rows' coefficients
    # supply (ci="krippendorff", "F") is each other row's note
    IntervalOptions.of(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                       progress=progress)
    ann = as_annotations(data, categories=categories)
    sample_weight = check_sample_weight(sample_weight, ann.n_items)  # once, for every row
    weights = _report_weights(level)
    records, banded = [], []
    for entry in _rows(ann, level):
        function = entry.function
        options = {} if entry.option is None else {
            entry.option: level if entry.option == "level" else weights}
        # no band, no chance agreement for the coefficients that are not chance-corrected
        # (percent agreement; no agreement proportions in the ICC)
        chance_corrected = entry.chance_corrected
        banded.append(chance_corrected)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UndefinedCoefficientWarning)
            warnings.simplefilter("always", PairwiseMeanWarning)
            warnings.simplefilter("always", IncompleteItemsWarning)
            notes = []
            if sample_weight is not None:
                options = dict(options, sample_weight=sample_weight)
            # computed once: with ci=, the estimator gives the interval beside the value
            # when the value is defined (an undefined value has none)
            interval_options = {} if ci is None else {
                "ci": ci, "n_resamples": n_resamples, "confidence": confidence, "seed": seed,
                "progress": progress}
            try:
                est = function(ann, **options, **interval_options)
            except (KappalabError, MemoryError) as exc:  # this row only, not the report
                failure = exc
                est = None
                if interval_options:  # the value alone may still be computable
                    try:
                        est = function(ann, **options)
                    except (KappalabError, MemoryError) as value_exc:
                        failure = value_exc
                    else:  # only the interval failed, e.g. too few items
                        notes.append(f"no interval: {exc}")
                if est is None:
                    records.append(_failed_row(entry, level, f"{NOT_COMPUTED}{failure}"))
                    continue
        notes[:0] = [str(w.message) for w in caught
                     if issubclass(w.category, (UndefinedCoefficientWarning,
                                                PairwiseMeanWarning, IncompleteItemsWarning))]
        low, high = est.ci if est.ci is not None else (np.nan, np.nan)
        if ci is not None and est.se is not None and not np.isfinite(est.se):
            notes.append("the standard error is undefined on these data")
        records.append({
            "coefficient": est.coefficient, "value": est.value,
            "se": np.nan if est.se is None else est.se, "ci_low": low, "ci_high": high,
            "observed": est.observed if entry.proportions else np.nan,
            "expected": est.expected if chance_corrected else np.nan,
            "level": est.level, "n_items": est.n_items,
            "n_annotations": est.n_annotations,
            "n_raters": np.nan if est.n_raters is None else est.n_raters,
            "note": "; ".join(dict.fromkeys(notes)),
        })
    report = ReportTable(pd.DataFrame.from_records(records, columns=_COLUMNS))
    if scale is not None:
        _add_bands(report, scale, confidence, banded, with_certainty=ci is not None)
    return report


#: the columns of counts, printed as integers
_COUNT_COLUMNS = ("n_items", "n_annotations", "n_raters")
#: the width the footnotes of a printed report are wrapped to
_FOOTNOTE_WIDTH = 92


class ReportTable(pd.DataFrame):
    """The table :func:`agreement_report` returns: a :class:`pandas.DataFrame` that prints as
    a terminal table (:meth:`ReportTable.to_text`). Anything derived from it (a selection,
    ``set_index``) is a plain DataFrame.

    Parameters
    ----------
    data : DataFrame, dict, array-like or None
        The table, usually :func:`agreement_report`'s rows (as :class:`pandas.DataFrame`).
    index : Index or array-like, optional
        As for :class:`pandas.DataFrame`.
    columns : Index or array-like, optional
        As for :class:`pandas.DataFrame`.
    dtype : dtype, optional
        As for :class:`pandas.DataFrame`.
    copy : bool, optional
        As for :class:`pandas.DataFrame`.

    Examples
    --------
    >>> import kappalab as kl
    >>> report = kl.agreement_report([[1, 1], [1, 2], [2, 2], [1, 1]])
    >>> print(report)   # Cohen's κ: P_o = 3/4, P_e = (3/4)(1/2) + (1/4)(1/2) = 1/2, κ = 1/2
    coefficient            value  observed  expected    level  n_items  n_annotations  n_raters
    percent agreement     0.7500    0.7500            nominal        4              8         2
    Krippendorff's alpha  0.5333    0.7500    0.4643  nominal        4              8         2
    Fleiss' kappa         0.4667    0.7500    0.5312  nominal        4              8         2
    Gwet's AC1            0.5294    0.7500    0.4688  nominal        4              8         2
    Brennan-Prediger      0.5000    0.7500    0.5000  nominal        4              8         2
    Conger's kappa        0.5000    0.7500    0.5000  nominal        4              8         2
    Janson-Olsson iota    0.5000    0.7500    0.5000  nominal        4              8         2
    Light's kappa         0.5000    0.7500    0.5000  nominal        4              8         2
    Cohen's kappa         0.5000    0.7500    0.5000  nominal        4              8         2
    Scott's pi            0.4667    0.7500    0.5312  nominal        4              8         2
    Bennett's S           0.5000    0.7500    0.5000  nominal        4              8         2
    """

    @property
    def _constructor(self):  # derived frames are plain DataFrames
        return pd.DataFrame

    def __repr__(self) -> str:
        return self.to_text()

    def to_text(self) -> str:
        """The report as a terminal table: the values with 4 decimals, counts as integers,
        no column that is empty in every row (the standard error and interval without
        ``ci=``), no cell that does not apply (blank), and the notes numbered under the
        table, each note once.

        Returns
        -------
        str
            The table, then a blank line and the footnotes ``[k] note`` when there are notes.

        Examples
        --------
        >>> import kappalab as kl
        >>> report = kl.agreement_report([[1, 1], [1, 1]])  # one category: κ undefined
        >>> print(report.to_text().splitlines()[-1][:48])
        [10] Bennett's S is undefined: there is only one
        """
        return _format_report(pd.DataFrame(self))


def _format_report(report: pd.DataFrame) -> str:
    """The terminal table of a frame with :func:`agreement_report`'s columns (see
    :meth:`ReportTable.to_text`): cells right-aligned under their column, the first column
    left-aligned, ``NaN`` only for an undefined value."""
    notes = [str(n) for n in report.get("note", pd.Series(dtype=str)).fillna("")]
    numbered = [n for n in dict.fromkeys(notes) if n]
    shown = [c for c in report.columns if c != "note" and _has_content(report[c])]
    cells = {column: [_cell(column, v) for v in report[column]] for column in shown}
    if shown and numbered:
        first = shown[0]
        cells[first] = [f"{cell} [{numbered.index(note) + 1}]" if note else cell
                        for cell, note in zip(cells[first], notes)]
    widths = {c: max([len(str(c)), *map(len, cells[c])]) for c in shown}

    def line(values: Sequence[str]) -> str:
        parts = [value.ljust(widths[c]) if k == 0 else value.rjust(widths[c])
                 for k, (c, value) in enumerate(zip(shown, values))]
        return "  ".join(parts).rstrip()

    lines = [line([str(c) for c in shown])]
    lines += [line([cells[c][k] for c in shown]) for k in range(len(report))]
    if numbered:
        lines.append("")
        for k, note in enumerate(numbered, start=1):
            marker = f"[{k}] "
            lines += textwrap.wrap(note, _FOOTNOTE_WIDTH, initial_indent=marker,
                                   subsequent_indent=" " * len(marker))
    return "\n".join(lines)


def _has_content(column: pd.Series) -> bool:
    """Whether a column has a cell to print (not NaN, None or an empty string)."""
    return bool(column.map(lambda v: not (v is None or v == "" or _is_nan(v))).any())


def _is_nan(value: Any) -> bool:
    return isinstance(value, (float, np.floating)) and np.isnan(value)


def _cell(column: str, value: Any) -> str:
    """One printed cell: blank where nothing applies, ``NaN`` for an undefined value."""
    if value is None or _is_nan(value):
        return "NaN" if column == "value" else ""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        return str(value)
    if column in _COUNT_COLUMNS and float(value).is_integer():
        return str(int(value))
    return f"{value:.4f}"


def _add_bands(report: pd.DataFrame, scale: Any, confidence: float, banded: Sequence[bool],
               *, with_certainty: bool) -> None:
    """The columns of ``benchmark=``, before ``note``: each value's band and, with an interval,
    the band reached with certainty ``confidence`` (None where the value or SE is undefined,
    and in the rows not ``banded``: coefficients that are not chance-corrected)."""
    bands: list[str | None] = []
    certain: list[str | None] = []
    for value, se, chance_corrected in zip(report["value"], report["se"], banded):
        if not chance_corrected or not np.isfinite(value):
            bands.append(None)
            certain.append(None)
            continue
        bands.append(benchmark_value(float(value), scale).band)
        try:
            certain.append(benchmark_value((float(value), float(se)), scale,
                                           confidence=confidence).certain_band
                           if np.isfinite(se) else None)
        except KappalabError:  # no probability on [-1, 1] for a value far outside it
            certain.append(None)
    position = list(report.columns).index("note")  # the columns are unique
    report.insert(position, "band", bands)
    if with_certainty:
        report.insert(position + 1, "certain_band", certain)


def _rows(ann: Any, level: Any) -> list[registry.Coefficient]:
    """The report's coefficients, in the registry's order: those the panel can take
    (``panel``: rater labels for ``"identified"``, exactly two active raters for ``"two"``)
    at this level (``report_levels``: the ICC only at ``level="interval"``)."""
    rows = []
    for entry in registry.coefficients("agreement_report"):
        if entry.panel in ("identified", "two") and not ann.has_raters:
            continue
        if entry.panel == "two" and ann.n_active_raters != 2:
            continue
        if entry.report_levels is not None and not (isinstance(level, str)
                                                    and level in entry.report_levels):
            continue
        rows.append(entry)
    return rows


def _report_weights(level: DistanceSpec) -> Any:
    """The kappa family's ``weights=`` for the report's ``level`` (see agreement_report)."""
    if isinstance(level, str):
        return {"nominal": None, "interval": "quadratic"}.get(level, level)
    if callable(level):
        return level  # a distance callable: the kappa rows say why they cannot use it
    distance = np.asarray(level, dtype=float)
    largest = distance.max() if distance.size else 0.0
    return 1.0 - distance / largest if largest > 0 else np.ones_like(distance)


def _failed_row(entry: registry.Coefficient, level: Any, reason: str) -> dict[str, Any]:
    """The row of a coefficient that could not be computed: NaN values and the reason."""
    row: dict[str, Any] = {column: np.nan for column in _COLUMNS}
    name = level if isinstance(level, str) else "custom"
    row.update(coefficient=entry.display_for(name), level=name, note=reason)
    return row


# ---------------------------------------------------------------------- cross-replication
__all__ += ["xrr_report"]

_XRR_COLUMNS = ["quantity", "value", "level", "n_items", "n_annotations", "description",
                "note"]


@shared_parameters
def xrr_report(x: AnnotationsLike, y: AnnotationsLike, *, level: DistanceSpec = "nominal",
               n_splits: int = 100,
               seed: SeedLike = None, categories: Sequence[Any] | None = None,
               shared_raters: str = "warn") -> pd.DataFrame:
    r"""The cross-replication triangulation of Wong, Paritosh & Aroyo (2021), one row per
    quantity.

    Rows (column ``quantity``):

    * ``IRR_X``, ``IRR_Y``: Krippendorff's α of each replication with the distance ``level``,
      on the items the two replications share (as :func:`~kappalab.normalized_cross_kappa`
      computes them);
    * ``kappa_x``: κx (eqs 6–11), :func:`~kappalab.cross_kappa`;
    * ``normalized_kappa_x``: κx/√(IRR_X·IRR_Y) (eq 13);
    * ``rho_xy``: Spearman's disattenuated correlation of the item mean scores with split-half
      reliabilities (eq 12), then ``r_xy`` (the observed correlation) and
      ``reliability_x``/``reliability_y`` (the split-half reliabilities of the mean scores);
      NaN with a note when the values are not numbers or a side has no item with two
      annotations;
    * ``items_x``, ``items_y``, ``items_common`` (annotated on both sides),
      ``items_dropped_x``, ``items_dropped_y``: item counts, in ``value``.

    The paper's reading: κx is capped by the larger IRR (eq 14: κx ≈ ρ_xy·√(IRR_X·IRR_Y)), and
    normalized κx behaves like ρ_xy (their Pearson correlation is 0.99 on IRep, §4.5).
    Warnings of undefined quantities become the ``note`` column, as in
    :func:`agreement_report`. ``n_splits`` and ``seed`` go to the split-half reliabilities.

    Parameters
    ----------
    {{shared: replications}}
    {{shared: cross_level}}
    n_splits : int, default 100
        The number of random split-half divisions averaged (the split-half reliabilities).
    seed : None, int, sequence of int, SeedSequence or Generator, optional
        Seed of the random splits (:func:`kappalab.validation.make_rng`); None (default) draws
        fresh entropy.
    {{shared: categories}}
    shared_raters : {"warn", "ignore"}, default "warn"
        Replications that share rater ids are not independent (the shared raters carry their
        habits into both sides, and normalized κx may exceed 1): "warn" gives a
        :class:`~kappalab.errors.SharedRatersWarning` with their count
        (:func:`kappalab.alignment.shared_raters`), and the κx rows say so in ``note``;
        "ignore" when equal ids are unrelated labels.

    Returns
    -------
    pandas.DataFrame
        One row per quantity, columns ``quantity``, ``value``, ``level``, ``n_items``,
        ``n_annotations``, ``description`` and ``note``.

    Raises
    ------
    InvalidParameterError
        An unknown ``level``, a malformed distance matrix, ``n_splits`` not a whole number ≥ 1
        or an invalid ``seed``.
    NonNumericError
        Value-based weights or distances (interval, linear, quadratic, …) on categories that
        are not numbers.
    EmptyDataError
        No item is annotated in both replications.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
    Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065.
    doi:10.18653/v1/2021.acl-long.548

    Spearman, C. (1904). The proof and measurement of association between two things.
    *American Journal of Psychology* 15(1), 72–101. doi:10.2307/1412159

    Examples
    --------
    >>> import kappalab as kl
    >>> x = [[1, 1], [2, 2], [1, 2]]     # N_X = (3, 3)
    >>> y = [[1, 1], [2, 2], [2, 2]]     # N_Y = (2, 4): d_e = (3·4 + 3·2)/36 = 1/2
    >>> rows = kl.xrr_report(x, y, seed=0).set_index("quantity")["value"]
    >>> round(float(rows["kappa_x"]), 4), int(rows["items_common"])  # d_o = (1/3)(2/4) = 1/6
    (0.6667, 3)
    """
    from ..alignment import AlignedReplications, shared_raters as shared_raters_of
    from ..coefficients import cross, disattenuation
    from ..errors import EmptyDataError, NonNumericError

    ax = as_annotations(x, categories=categories)
    ay = as_annotations(y, categories=categories)
    shared = shared_raters_of(ax, ay, shared_raters)
    shared_note = (f"{len(shared)} rater id(s) annotate in both replications: they are not "
                   "independent" if len(shared) else "")
    records: list[dict[str, Any]] = []

    def run(function, *args, **kwargs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UndefinedCoefficientWarning)
            result = function(*args, **kwargs)
        note = "; ".join(str(w.message) for w in caught
                         if issubclass(w.category, UndefinedCoefficientWarning))
        return result, note

    def add(quantity, value, level_name, n_items, n_annotations, description, note=""):
        records.append({"quantity": quantity, "value": float(value), "level": level_name,
                        "n_items": n_items, "n_annotations": n_annotations,
                        "description": description, "note": note})

    kx, kx_note = run(cross.cross_kappa, ax, ay, level=level,  # EmptyDataError: no common item
                      shared_raters="ignore")  # checked once above
    common = AlignedReplications(ax, ay).items
    irr = {}
    for side, ann in (("X", ax), ("Y", ay)):
        est, note = run(multirater.krippendorff_alpha, ann.subset_items(common), level=level)
        irr[side] = est
        add(f"IRR_{side}", est.value, est.level, est.n_items, est.n_annotations,
            f"Krippendorff's alpha of replication {side} on the common items", note)
    add("kappa_x", kx.value, kx.level, kx.n_items, kx.n_annotations,
        "cross-replication reliability kappa_x (eqs 6-11)",
        "; ".join(n for n in (kx_note, shared_note) if n))
    nkx, note = run(cross.normalized_cross_kappa, ax, ay, level=level,
                    irr=(irr["X"].value, irr["Y"].value), shared_raters="ignore")
    add("normalized_kappa_x", nkx.value, nkx.level, nkx.n_items, nkx.n_annotations,
        "kappa_x / sqrt(IRR_X * IRR_Y) (eq 13)",
        "; ".join(n for n in (note, shared_note) if n))

    rho_rows = [("rho_xy", "Spearman-corrected correlation of item mean scores (eq 12)"),
                ("r_xy", "Pearson correlation of item mean scores"),
                ("reliability_x", "split-half reliability of X's mean scores (Spearman-Brown)"),
                ("reliability_y", "split-half reliability of Y's mean scores (Spearman-Brown)")]
    try:
        dc, note = run(disattenuation.disattenuated_correlation, ax, ay, reliability="split_half",
                       n_splits=n_splits, seed=seed)
    except NonNumericError as error:
        for quantity, description in rho_rows:
            add(quantity, np.nan, "interval", np.nan, np.nan, description,
                f"{quantity} is undefined: {error}")
    except EmptyDataError as error:  # a side has no item with two annotations to split
        given, r_note = run(disattenuation.disattenuated_correlation, ax, ay,
                            reliability=(1.0, 1.0))
        n_ann = given.details["n_annotations_x"] + given.details["n_annotations_y"]
        (rho_name, rho_text), (r_name, r_text) = rho_rows[:2]
        add(rho_name, np.nan, "interval", given.n_items, n_ann, rho_text,
            f"rho_xy is undefined: {error}")
        add(r_name, given.r, "interval", given.n_items, n_ann, r_text, r_note)
        rng = make_rng(seed)
        for (quantity, description), ann in zip(rho_rows[2:], (ax, ay)):
            try:
                half, note = run(disattenuation.split_half_reliability,
                                 ann.subset_items(common), n_splits=n_splits, seed=rng)
            except EmptyDataError as side_error:
                add(quantity, np.nan, "interval", np.nan, np.nan, description,
                    f"{quantity} is undefined: {side_error}")
            else:
                add(quantity, half.value, "interval", half.n_items, half.n_annotations,
                    description, note)
    else:
        n_ann = dc.details["n_annotations_x"] + dc.details["n_annotations_y"]
        halves = (dc.details["split_half_x"], dc.details["split_half_y"])
        values = (dc.rho, dc.r, dc.reliability_x, dc.reliability_y)
        items = (dc.n_items, dc.n_items, halves[0].n_items, halves[1].n_items)
        annotations = (n_ann, n_ann, halves[0].n_annotations, halves[1].n_annotations)
        for (quantity, description), value, n_i, n_a in zip(rho_rows, values, items,
                                                             annotations):
            # the warnings are about ρ; a component carries them only when it is undefined
            row_note = note if quantity == "rho_xy" or not np.isfinite(value) else ""
            add(quantity, value, "interval", n_i, n_a, description, row_note)

    d = kx.details
    for quantity, value, description in (
            ("items_x", d["n_items_x"], "items in replication X"),
            ("items_y", d["n_items_y"], "items in replication Y"),
            ("items_common", kx.n_items, "items annotated in both replications"),
            ("items_dropped_x", d["n_items_dropped_x"], "items of X not annotated in Y"),
            ("items_dropped_y", d["n_items_dropped_y"], "items of Y not annotated in X")):
        add(quantity, value, "", np.nan, np.nan, description)
    return pd.DataFrame.from_records(records, columns=_XRR_COLUMNS)
