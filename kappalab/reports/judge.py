r"""Is an automatic judge as reliable as a human? One rater (the judge) against a panel of
human raters (:func:`judge_report`).

The judge is compared with the panel as the humans are compared with each other: by κx, the
cross-replication reliability of Wong, Paritosh & Aroyo (2021), with the judge's annotations
as one replication and the panel's as the other, and for each human r, r's annotations
against the rest of the panel's (as :func:`kappalab.rater_report` computes it).
Beside these, the confusion matrix of the judge against the panel's majority label and the
list of items where the two disagree show *where* the judge departs from the humans.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from ..docstrings import shared_parameters
from ..annotations import Annotations, AnnotationsLike, as_annotations
from ..coefficients.cross import CrossKappa
from ..distances import DistanceSpec
from ..errors import InvalidParameterError, UndefinedCoefficientWarning, label, warn
from ..estimate import Estimate
from ..uncertainty import IntervalOptions
from ..validation import SeedLike
from .items import label_summary
from .raters import rater_report

__all__ = ["JudgeReport", "judge_report"]

#: the rater label a judge given as a mapping or Series takes in the data
JUDGE_LABEL = "judge"


@dataclass(frozen=True)
class JudgeReport:
    """The agreement of one rater (an automatic judge) with a panel of humans.

    Parameters
    ----------
    judge : object
        The judge's rater label.
    agreement : pandas.DataFrame
        Indexed by rater, the judge first, then every human of the panel: ``role``
        (``"judge"`` or ``"human"``), ``kappa_x`` (the judge against the whole panel; a
        human against the rest of the panel), ``se``, ``ci_low``, ``ci_high`` (NaN without
        ``ci=``) and ``n_items`` (the items of the comparison).
    confusion : pandas.DataFrame
        Categories × categories counts of items, the judge's label in the rows and the
        panel's majority label in the columns, over the items with a strict panel majority.
    disagreements : pandas.DataFrame
        Indexed by item, the items whose judge label is not a majority label of the panel
        (not among the tied labels of a tied majority): ``judge``, ``majority`` (on a tie the
        first tied label in category order), ``majority_share``, ``tied_labels`` and
        ``panel_annotations``; the most confident panel majorities first.
    n_items : int
        The items with a judge label and at least one panel annotation.
    n_tied_majority : int
        Those of them whose panel majority is tied (left out of ``confusion``).
    n_judge_in_tie : int
        Those tied items whose judge label is one of the tied labels (not disagreements).

    Examples
    --------
    >>> import kappalab as kl
    >>> report = kl.judge_report([[1, 1, 1], [2, 2, 1], [1, 2, 2]], judge=2)
    >>> report.n_items, report.n_tied_majority, report.disagreements.index.tolist()
    (3, 1, [1])
    """

    judge: Any
    agreement: pd.DataFrame
    confusion: pd.DataFrame
    disagreements: pd.DataFrame
    n_items: int
    n_tied_majority: int
    n_judge_in_tie: int


def _with_judge(ann: Annotations, judge: Any, categories: Sequence[Any] | None
                ) -> tuple[Annotations, int]:
    """The data with the judge as one of its raters, and the judge's rater position."""
    raters = ann.require_raters("a judge report")
    if isinstance(judge, Mapping):
        judge = pd.Series(judge)
    if isinstance(judge, pd.Series):
        if JUDGE_LABEL in raters:
            raise InvalidParameterError(
                f"the data already have a rater {JUDGE_LABEL!r}: give the judge as that rater "
                "(judge='judge') or rename it")
        rows = pd.DataFrame({"item": judge.index, "rater": JUDGE_LABEL,
                             "value": judge.to_numpy()})
        long = pd.concat([ann.to_long(), rows], ignore_index=True)
        merged = Annotations.from_long(
            long, categories=ann.categories if categories is None else categories)
        return merged, _position(merged.require_raters("a judge report"), JUDGE_LABEL)
    try:
        return ann, _position(raters, judge)
    except (KeyError, TypeError):
        shown = ", ".join(label(r) for r in raters[:8])
        raise InvalidParameterError(
            f"judge {label(judge)} is not a rater of the data (raters: {shown}"
            f"{', …' if len(raters) > 8 else ''}); give a rater label, or the judge's labels "
            "as a mapping or Series item → label") from None


def _position(raters: pd.Index, rater: Any) -> int:
    """The position of ``rater`` among ``raters`` (unique labels: ``get_loc`` gives one)."""
    position = raters.get_loc(rater)
    assert isinstance(position, (int, np.integer)), "rater labels are unique"
    return int(position)


def _row(role: str, estimate: Estimate) -> dict[str, Any]:
    low, high = estimate.ci if estimate.ci is not None else (np.nan, np.nan)
    return {"role": role, "kappa_x": estimate.value,
            "se": np.nan if estimate.se is None else estimate.se,
            "ci_low": low, "ci_high": high, "n_items": estimate.n_items}


def _humans(panel: Annotations, level: DistanceSpec, ci: str | None, resampling: dict[str, Any]
            ) -> pd.DataFrame:
    """Each human's κx against the rest of the panel, with its interval: the columns of
    :func:`~kappalab.rater_report` (every rater's totals in one pass over the annotations)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedCoefficientWarning)
        table = rater_report(panel, level=level, ci=ci, **resampling)
    def column(name: str) -> np.ndarray:
        return (table[name].to_numpy(dtype=float) if name in table.columns
                else np.full(len(table), np.nan))

    return pd.DataFrame({"role": "human", "kappa_x": column("kappa_x"),
                         "se": column("kappa_x_se"), "ci_low": column("kappa_x_low"),
                         "ci_high": column("kappa_x_high"),
                         "n_items": table["shared_items"].to_numpy()},
                        index=pd.Index(panel.require_raters("a judge report")))


@shared_parameters
def judge_report(data: AnnotationsLike, judge: Any, *, level: DistanceSpec = "nominal",
                 categories: Sequence[Any] | None = None, ci: str | None = None,
                 n_resamples: int = 2000, confidence: float = 0.95, seed: SeedLike = None,
                 progress: bool | None = None) -> JudgeReport:
    r"""Compare one rater — an automatic judge — with a panel of human raters.

    The judge's κx against the panel sets the judge's annotations as replication X and the
    panel's as Y (:func:`kappalab.cross_kappa`, Wong, Paritosh & Aroyo 2021, eqs 6–11);
    each human's κx sets that human's annotations against the rest of the panel's. All are
    1 − d_o/d_e with

    .. math::  d_o = \sum_i \frac{R_i + S_i}{\mathbf R + \mathbf S}
                     \frac{n_{Xi}^\top δ\, n_{Yi}}{R_i S_i}, \qquad
               d_e = \frac{N_X^\top δ\, N_Y}{\mathbf R \mathbf S},

    so a judge whose κx falls within the humans' is as interchangeable with the panel as a
    human is. (The judge meets all m_i humans of an item, a human m_i − 1: κx averages over
    the cross pairs, so this changes its noise, not what it estimates.) ``ci=`` gives each
    κx an interval from resampling its items (:mod:`kappalab.uncertainty`).

    The panel's majority label of an item is its most frequent label among the humans; when
    several labels tie, the item is counted in ``n_tied_majority`` and left out of the
    confusion matrix, and it is a disagreement only if the judge's label is none of the tied
    labels.

    Parameters
    ----------
    data : Annotations, DataFrame or array-like
        An :class:`~kappalab.Annotations`, or what :func:`~kappalab.annotations.as_annotations`
        reads — a DataFrame with ``item``/``rater``/``value`` (or ``task``/``worker``/``label``)
        columns is long, any other table items × raters. Rater identities are needed: every
        rater but the judge is in the panel.
    judge : object, mapping or pandas.Series
        The judge: the label of one rater of ``data`` (a column of a wide table), or its
        labels as a mapping / Series item → label (it then joins the data as rater
        ``"judge"``).
    level : str, array-like or callable, default "nominal"
        Krippendorff's distance metric (Krippendorff 2011; :mod:`kappalab.distances`):
        ``"nominal"``, ``"ordinal"`` (on the pooled marginal counts of both sides),
        ``"interval"``, ``"ratio"``, ``"circular"``, ``"bipolar"``, a symmetric K × K matrix
        of squared distances δ² or a callable ``δ²(a, b)``.
    {{shared: categories}}
        It is also the order of the confusion matrix and decides which label a tied majority
        reports.
    {{shared: ci}}
        Every human's κx comes from one pass over the annotations (as in
        :func:`~kappalab.rater_report`); with ``ci=`` each human's interval is computed on
        that human's items.
    {{shared: n_resamples}}
    {{shared: confidence}}
    {{shared: seed}}
    {{shared: progress}}

    Returns
    -------
    JudgeReport
        ``agreement`` (κx of the judge and of every human, with intervals), ``confusion``,
        ``disagreements`` and the counts of compared and tied items.

    Raises
    ------
    InvalidParameterError
        A ``judge`` that is not a rater of the data nor a mapping / Series, a mapping judge
        when the data already have a rater ``"judge"``, a panel of fewer than two humans, an
        unknown ``level`` or ``ci``, ``n_resamples`` < 2, ``confidence`` outside (0, 1) or an
        invalid ``seed``.
    UnknownRatersError
        Data without rater identities.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`).

    Warns
    -----
    UndefinedCoefficientWarning
        When the κx of the judge or of some humans is undefined (no item shared with the
        others, or a single category), naming them.

    References
    ----------
    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
    Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065.
    doi:10.18653/v1/2021.acl-long.548

    Carletta, J. (1996). Assessing agreement on classification tasks: the kappa statistic.
    *Computational Linguistics* 22(2), 249–254.

    Examples
    --------
    >>> import kappalab as kl
    >>> data = [["a", "a", "a", "a"], ["b", "b", "a", "b"], ["a", "b", "b", "b"],
    ...         ["b", "b", "b", "a"], ["a", "a", "b", "a"]]  # column 3: the judge
    >>> report = kl.judge_report(data, judge=3)
    >>> report.agreement.kappa_x.round(4).tolist()  # judge, then humans 0, 1, 2
    [0.2105, 0.2308, 0.4, 0.0]
    >>> report.confusion.to_numpy().tolist()  # rows: judge; columns: panel majority
    [[2, 1], [0, 2]]
    >>> report.disagreements.index.tolist()  # item 3: the humans say b, b, b
    [3]
    >>> report.disagreements.loc[3, ["judge", "majority"]].tolist()
    ['a', 'b']
    """
    # bad interval options fail before any work (κx supplies no method of its own)
    IntervalOptions.of(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                       progress=progress, methods=())
    resampling: dict[str, Any] = {"n_resamples": n_resamples, "confidence": confidence,
                                  "seed": seed, "progress": progress}
    ann, position = _with_judge(as_annotations(data, categories=categories), judge, categories)
    raters = ann.require_raters("a judge report")
    judge_label = raters[position]
    humans = np.flatnonzero(np.arange(len(raters)) != position)
    if humans.size < 2:
        raise InvalidParameterError(
            f"a judge report needs a panel of at least two humans beside the judge; the data "
            f"have {humans.size}")
    panel, alone = ann.subset_raters(humans), ann.subset_raters([position])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedCoefficientWarning)
        judge_estimate = CrossKappa(alone, panel, level).estimate(ci, **resampling)
    agreement = pd.concat([pd.DataFrame([_row("judge", judge_estimate)], index=[judge_label]),
                           _humans(panel, level, ci, resampling)])
    agreement.index.name = "rater"
    undefined = agreement.index[agreement.kappa_x.isna()]
    if undefined.size:
        warn(f"κx is undefined for {undefined.size} rater(s), e.g. {label(undefined[0])}: no "
             "item shared with the others, or every annotation in one category; their rows "
             "are NaN", UndefinedCoefficientWarning)

    # the judge's label and the panel's majority, item by item
    items, _, judge_codes = alone.codes()
    summary = label_summary(panel)
    in_panel = summary.annotations.to_numpy()[items] >= 1
    items, judge_codes = items[in_panel], judge_codes[in_panel]
    K = ann.n_categories
    majority_codes = ann.categories.get_indexer(summary.majority.to_numpy()[items])
    tied = summary.tied_labels.to_numpy()[items]
    top = summary.majority_share.to_numpy()[items] * summary.annotations.to_numpy()[items]
    judge_count = np.asarray(panel.sparse_count_matrix[items, judge_codes]).ravel()
    with_majority = judge_count >= np.round(top)  # the judge's label is a (tied) majority
    strict = tied == 1
    tally = np.bincount(judge_codes[strict] * K + majority_codes[strict],
                        minlength=K * K).reshape(K, K)
    confusion = pd.DataFrame(tally, index=pd.Index(ann.categories, name="judge"),
                             columns=pd.Index(ann.categories, name="panel majority"))
    apart = ~with_majority
    disagreements = pd.DataFrame({
        "judge": ann.categories.take(judge_codes[apart]),
        "majority": ann.categories.take(majority_codes[apart]),
        "majority_share": summary.majority_share.to_numpy()[items[apart]],
        "tied_labels": tied[apart],
        "panel_annotations": summary.annotations.to_numpy()[items[apart]],
    }, index=pd.Index(ann.items[items[apart]], name="item"))
    order = np.lexsort((np.arange(len(disagreements)),
                        -disagreements.panel_annotations.to_numpy(),
                        -disagreements.majority_share.to_numpy()))
    return JudgeReport(judge=judge_label, agreement=agreement, confusion=confusion,
                       disagreements=disagreements.iloc[order], n_items=int(items.size),
                       n_tied_majority=int((~strict).sum()),
                       n_judge_in_tie=int((~strict & with_majority).sum()))
