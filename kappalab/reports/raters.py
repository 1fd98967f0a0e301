r"""One row per rater: how much each rater agrees with the rest of the panel, and what the
panel's coefficient would be without them.

Both are computed for every rater at once on the item-sum spine
(docs/architecture.md, "The item-sum spine"), in one pass over the annotations rather than
one recomputation per rater:

* **κx of the rater against the rest** (Wong, Paritosh & Aroyo 2021): X the rater's
  annotations, Y the other raters' annotations of the same items. An annotation of category
  c on an item with counts n_i contributes (δ n_i)_c to the cross sum, so every rater's
  totals are scatter-adds over the annotations
  (:class:`~kappalab.coefficients.cross.RaterVersusRest`).
* **The coefficient without the rater**: removing a rater's annotation from its item changes
  the item's statistics by a closed form in the item's counts (or moments) and the removed
  label, so the totals of the panel without each rater are the full totals minus a
  scatter-add over that rater's annotations, combined as one R × s stack
  (:meth:`~kappalab.coefficients.multirater.ChanceCorrectedAgreement.rater_removal_totals`).

A data-dependent distance (:attr:`~kappalab.distances.CategoryDistance.data_dependent`:
Krippendorff's ordinal metric rests on the marginals of the data compared, which change with
the rater left out) and a callable coefficient are recomputed rater by rater (R passes over
the annotations); a registered coefficient (:mod:`kappalab.coefficients.registry`) is named
by its public function's name, its alias or the function itself.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
import pandas as pd

from .. import annotators
from ..annotators import AnnotationModelFit
from ..docstrings import shared_parameters
from ..annotations import Annotations, AnnotationsLike, as_annotations
from ..coefficients.correlation import inter_annotator_correlation
from ..coefficients import registry
from ..coefficients.cross import CrossKappa, RaterVersusRest
from ..coefficients.multirater import ChanceCorrectedAgreement, distance_for
from ..distances import CategoryDistance, DistanceSpec
from ..errors import (InvalidParameterError, RaterCountError, UndefinedCoefficientWarning,
                      warn)
from ..uncertainty import (BLOCK_CELLS, CORE_METHODS, IntervalOptions, interval,
                           unsupported_method)
from ..validation import SeedLike

if TYPE_CHECKING:
    import scipy.sparse as sp
else:  # scipy.sparse, imported on first use (start-up)
    from ..kernels import sp
from ..kernels import issparse

__all__ = ["MAX_CATEGORY_COLUMNS", "rater_report"]

#: the registry's capability of the coefficients ``rater_report(coefficient=...)`` names
_CAPABILITY = "leave_one_rater_out"

#: categorical data with at most this many categories get a prevalence and a shift column
#: per category
MAX_CATEGORY_COLUMNS = 20


@shared_parameters
def rater_report(data: AnnotationsLike, *, level: DistanceSpec = "nominal",
                 coefficient: str | Callable[[Annotations], Any] = "alpha",
                 categories: Sequence[Any] | None = None, ci: str | None = None,
                 n_resamples: int = 2000, confidence: float = 0.95, seed: SeedLike = None,
                 progress: bool | None = None, model: Any = None) -> pd.DataFrame:
    r"""One row per rater: annotations, shared items, agreement with the rest of the panel,
    the coefficient without the rater, and how the rater's labels differ from the others'.

    For rater g with annotations on the items I_g:

    * ``kappa_x`` — κx of g against the rest (Wong et al. 2021, eqs 6–11): replication X is
      g's annotations, Y the other raters' annotations of I_g,

      .. math::  κ_x = 1 - \frac{d_o}{d_e}, \quad
          d_o = \sum_{i ∈ I_g} \frac{m_i}{\sum_j m_j} \frac{(δ n_i)_{c_{gi}}}{m_i - 1},
          \quad d_e = \frac{e_g^\top δ\, (N_g - e_g)}{|I_g| \sum_{i} (m_i - 1)},

      with m_i the item's annotations (R_i = 1, S_i = m_i − 1), n_i its category counts,
      e_g g's category counts and N_g the counts of all annotations of I_g (items with
      m_i ≥ 2); exactly :func:`~kappalab.cross_kappa` of ``ann.subset_raters([g])``
      against the others. With ``ci=``, ``kappa_x_se``, ``kappa_x_low`` and
      ``kappa_x_high`` resample g's shared items.
    * ``without`` — the coefficient of the panel without g (the categories kept, so K is
      the panel's), and ``change`` = ``without`` − the full panel's value: a positive change
      means the panel agrees more without g.
    * ``prevalence[c]`` and ``shift[c]`` (data with at most :data:`MAX_CATEGORY_COLUMNS`
      categories, numeric or not) — g's share of category c on I_g and that
      share minus the other raters' share on I_g; ``label_shift`` = ½ Σ_c \|shift[c]|, the
      total variation distance between the two distributions.
    * ``mean_shift`` and ``correlation`` (numeric data) — g's mean minus the others' mean on
      I_g, and g's Pearson correlation with the mean of the others
      (:func:`~kappalab.inter_annotator_correlation`'s ``per_rater``, Snow et al. 2008).
    * ``model_accuracy`` (with ``model=``) — the rater's accuracy under a model of
      annotation (:mod:`kappalab.annotators`), Σ_k π_k θ_g[k, k]: the probability that g
      gives the true class of a random item, the class unobserved but modelled; for MACE
      also ``competence``, c_g, the probability that g knows the class (Hovy et al. 2013).
    * ``note`` — why a value is NaN ("" when none is).

    **Cost.** κx and the coefficient without each rater come from scatter-adds over the
    annotations and one sparse product with the items' counts: O(annotations × min(m_i, K))
    for all raters together, memory R × s for the stack of totals (chunked for Conger's
    κ, whose s grows with R). With ``level="ordinal"`` (whose metric depends on the data
    left) or a callable ``coefficient``, both are recomputed rater by rater: R passes.
    ``ci=`` computes one interval per rater on that rater's shared items: O(annotations) in
    all for ``"analytic"`` and ``"jackknife"``, times ``n_resamples`` for the bootstraps.

    Parameters
    ----------
    data : Annotations, DataFrame or array-like
        An :class:`~kappalab.Annotations`, or what :func:`~kappalab.annotations.as_annotations`
        reads — a DataFrame with ``item``/``rater``/``value`` (or ``task``/``worker``/``label``)
        columns is long, any other table items × raters. The raters must be known.
    level : str, array-like or callable, default "nominal"
        Krippendorff's distance metric (Krippendorff 2011; :mod:`kappalab.distances`):
        ``"nominal"``, ``"ordinal"``, ``"interval"``, ``"ratio"``, ``"circular"``,
        ``"bipolar"``, a K × K matrix of squared distances δ² or a callable ``δ²(a, b)``. It is
        the distance of κx and of every named coefficient (for the κ family, ``"interval"``
        is quadratic weighting).
    coefficient : str or callable, default "alpha"
        The panel coefficient recomputed without each rater: a coefficient of the registry
        (:mod:`kappalab.coefficients.registry`) that can leave one rater out, named by its
        public function's name, its alias or the function itself —
        ``"krippendorff_alpha"`` (``"alpha"``), ``"fleiss_kappa"`` (``"fleiss"``),
        ``"conger_kappa"`` (``"conger"``), ``"gwet_ac"`` (``"gwet"``, AC1/AC2),
        ``"brennan_prediger"``, ``"percent_agreement"`` — or any other callable ``f(ann)``
        returning an :class:`~kappalab.Estimate` or a number, called on the panel and on the
        panel without each rater.
    {{shared: categories}}
    {{shared: ci}}
        Here for ``kappa_x``, each rater's interval resampling that rater's shared items.
    {{shared: n_resamples}}
    {{shared: confidence}}
    seed : None, int, sequence of int, SeedSequence or Generator, optional
        Seed of the resampling (:func:`kappalab.validation.make_rng`); None (default) draws fresh
        entropy. An int seeds every rater's resampling alike, as :func:`~kappalab.cross_kappa`
        with that seed would.
    {{shared: progress}}
    model : {"dawid_skene", "mace"} or AnnotationModelFit, optional
        A model of annotation whose per-rater accuracy (and MACE's competence) is added:
        fitted here with its defaults, or a fit of :mod:`kappalab.annotators` already made
        on these data.

    Returns
    -------
    pandas.DataFrame
        One row per rater, in the order of ``ann.raters``: ``rater``, ``annotations``,
        ``shared_items`` (items the rater annotated that another rater annotated too),
        ``kappa_x`` (with ``kappa_x_se``, ``kappa_x_low``, ``kappa_x_high`` when ``ci=`` is
        given), ``without``, ``change``, then the label columns above, the model's columns
        (with ``model=``) and ``note``. ``attrs`` holds ``coefficient`` (its name),
        ``level``, ``full`` (the full panel's value), ``ci``, ``confidence`` and, with
        ``model=``, ``model`` (its name).

    Raises
    ------
    InvalidParameterError
        An unknown ``coefficient``, ``level`` or ``ci``, ``n_resamples`` < 2, ``confidence``
        outside (0, 1) or an invalid ``seed``; per-rater category counts of κx above
        :data:`~kappalab.coefficients.cross.MAX_COUNT_CELLS` cells (R × 2K: use
        ``level="interval"`` on numeric data).
    UnknownRatersError
        Data without rater identities (built from counts).
    RaterCountError
        Fewer than two raters with annotations.
    NonNumericError
        A value-based distance (interval, ratio, …) on categories that are not numbers.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`).

    References
    ----------
    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
    Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065.
    doi:10.18653/v1/2021.acl-long.548

    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Departmental
    Papers (ASC) 43, University of Pennsylvania. https://repository.upenn.edu/asc_papers/43

    Snow, R., O'Connor, B., Jurafsky, D. & Ng, A. Y. (2008). Cheap and Fast — But is it Good?
    Evaluating Non-Expert Annotations for Natural Language Tasks. *Proceedings of EMNLP
    2008*, 254–263. https://aclanthology.org/D08-1027

    Examples
    --------
    The worked example (10 items, raters A, B, C, α = 0.5782). A agrees with both others on 6
    items and with one of them on 4: d_o = 4·3·½/30 = 0.2; A's 2 G, 3 N, 5 P against the
    others' 3 G, 7 N, 10 P give d_e = 1 − 77/200, κx = 1 − 0.2/0.615 = 0.6748. Without A,
    B and C disagree on 4 items: α = 1 − (8/20)/(242/380) = 0.3719.

    >>> import kappalab as kl
    >>> report = kl.rater_report(kl.datasets.load("worked_example"))
    >>> report[["rater", "annotations", "shared_items", "kappa_x", "without"]].round(4)
      rater  annotations  shared_items  kappa_x  without
    0     A           10            10   0.6748   0.3719
    1     B           10            10   0.4215   0.8504
    2     C           10            10   0.6032   0.5128
    >>> round(report.attrs["full"], 4), round(float(report["change"][1]), 4)  # B lowers α
    (0.5782, 0.2722)
    """
    entry = _entry(coefficient)
    # bad options fail before any work; a name only other coefficients supply
    # (ci="krippendorff", "F") is each rater's note
    IntervalOptions.of(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                       progress=progress)
    ann = as_annotations(data, categories=categories)
    n_raters = len(ann.require_raters("rater_report"))
    n_active = ann.n_active_raters
    assert n_active is not None, "require_raters checked the raters"
    if n_active < 2:
        raise RaterCountError(
            f"rater_report compares each rater with the others: it needs two raters with "
            f"annotations, these data have {ann.n_active_raters}")
    fit = _model_fit(model, ann)  # a bad model= fails before the coefficients' work
    distance = distance_for(ann, level)  # resolved once, on the full panel
    named = coefficient if entry is None else entry
    recompute = entry is None or distance.data_dependent
    items, rater_codes, _ = ann.codes()
    m = ann.annotations_per_item_array
    annotations = np.bincount(rater_codes, minlength=n_raters)
    shared = np.bincount(rater_codes, weights=m[items] >= 2, minlength=n_raters)
    notes: list[list[str]] = [[] for _ in range(n_raters)]
    for g in np.flatnonzero(annotations == 0):
        notes[g].append("no annotations")
    for g in np.flatnonzero((annotations > 0) & (shared == 0)):
        notes[g].append("shares no item with another rater")

    frame = pd.DataFrame({"rater": ann.raters, "annotations": annotations,
                          "shared_items": shared.astype(int)})
    kappa = _kappa_x(ann, level, distance, ci, n_resamples, confidence, seed, progress,
                     shared, notes)
    frame = pd.concat([frame, kappa], axis=1)
    name, full, without = _without_each_rater(ann, level, distance, named, recompute, notes)
    frame["without"] = without
    frame["change"] = without - full
    frame = pd.concat([frame, _label_columns(ann)], axis=1)
    if fit is not None:
        frame["model_accuracy"] = fit.accuracy.reindex(ann.raters).to_numpy()
        if "competence" in fit.details:
            frame["competence"] = fit.details["competence"].reindex(ann.raters).to_numpy()
    frame["note"] = ["; ".join(parts) for parts in notes]
    frame.attrs.update({"coefficient": name, "level": _level_name(level), "full": full,
                        "ci": ci, "confidence": confidence})
    if fit is not None:
        frame.attrs["model"] = fit.model
    return frame


#: the models of annotation ``rater_report(model=...)`` fits: one set of parameters a rater
RATER_MODELS = ("dawid_skene", "mace")


def _model_fit(model: Any, ann: Annotations) -> AnnotationModelFit | None:
    """The fit whose per-rater accuracy the report shows: ``model`` itself (checked to be of
    these raters), or the named model fitted here; None without ``model``."""
    if model is None:
        return None
    if isinstance(model, AnnotationModelFit):
        raters = ann.require_raters("rater_report")
        if model.raters is None or model.confusion is None or not model.raters.equals(raters):
            raise InvalidParameterError(
                f"model= is a {model.model} fit whose annotators are not these data's raters: "
                "fit it on the same data, or name the model")
        return model
    if model not in RATER_MODELS:
        raise InvalidParameterError(
            f"model must be one of {RATER_MODELS} or a fit of kappalab.annotators, got "
            f"{model!r} (the multinomial model has one matrix for all raters)")
    fitted: AnnotationModelFit = getattr(annotators, model)(ann)
    return fitted


def _entry(coefficient: Any) -> registry.Coefficient | None:
    """The registry's entry of a named coefficient (None: a callable run as it is)."""
    if callable(coefficient) and not isinstance(coefficient, str):
        try:
            return registry.lookup(coefficient, _CAPABILITY)
        except InvalidParameterError:  # any other callable is a black box f(ann)
            return None
    try:
        return registry.lookup(coefficient, _CAPABILITY, purpose="kappalab.rater_report")
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"{exc}; or pass a callable f(ann) returning an Estimate "
                                    "or a number") from None


def _level_name(level: Any) -> str:
    return level if isinstance(level, str) else "custom"


def _kappa_x(ann: Annotations, level: Any, distance: CategoryDistance, ci: str | None,
             n_resamples: int, confidence: float, seed: SeedLike, progress: bool | None,
             shared: np.ndarray, notes: list[list[str]]) -> pd.DataFrame:
    """κx of every rater against the rest (and its interval): from the scatter-added totals,
    or rater by rater for a data-dependent distance (resolved again from ``level`` on each
    rater's pair of replications)."""
    R = len(ann.require_raters("rater_report"))
    values, se, low, high = (np.full(R, np.nan) for _ in range(4))
    with_items = np.flatnonzero(shared > 0)
    if distance.data_dependent:
        cores = {g: CrossKappa(ann.subset_raters([g]),
                               ann.subset_raters(np.delete(np.arange(R), g)), level)
                 for g in with_items}
        for g, core in cores.items():
            values[g] = float(core.combine(core.totals())["value"])
    else:
        panel = RaterVersusRest(ann, distance)
        values[:] = np.asarray(panel.combine(panel.rater_totals())["value"], dtype=float)
        values[shared == 0] = np.nan
        cores = {g: panel.for_rater(g) for g in with_items}
    for g in with_items:
        if np.isnan(values[g]):
            notes[g].append("κx undefined: the rater's and the others' labels on the shared "
                            "items fall in one category")
    columns = {"kappa_x": values}
    if ci is not None:
        for g, core in cores.items():
            if np.isnan(values[g]):
                continue
            if shared[g] < 2:
                notes[g].append("no interval for κx: one shared item")
                continue
            if ci in CORE_METHODS and ci not in core.interval_methods:
                notes[g].append(f"no interval for κx: {unsupported_method(ci)}")
                continue
            result = interval(core, ci, n_resamples=n_resamples, confidence=confidence,
                              seed=seed, progress=progress)
            se[g], low[g], high[g] = result.se, result.low, result.high
        columns.update(kappa_x_se=se, kappa_x_low=low, kappa_x_high=high)
    return pd.DataFrame(columns)


def _without_each_rater(ann: Annotations, level: Any, distance: CategoryDistance,
                        coefficient: Any, recompute: bool, notes: list[list[str]]
                        ) -> tuple[str, float, np.ndarray]:
    """(name, the full panel's value, the value without each rater). ``coefficient`` is a
    registry entry or a callable; ``distance`` is ``level`` resolved on the full panel (a
    data-dependent one is resolved again on each panel without a rater)."""
    R = len(ann.require_raters("rater_report"))
    named = isinstance(coefficient, registry.Coefficient)
    if recompute:
        def evaluate(sub: Annotations) -> tuple[float, str | None]:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", UndefinedCoefficientWarning)
                if not named:
                    result = coefficient(sub)
                else:
                    dis = distance if sub is ann else distance_for(sub, level)
                    result = coefficient.agreement_core(sub, dis).estimate()
            value = float(result)
            reasons = [str(w.message) for w in caught
                       if issubclass(w.category, UndefinedCoefficientWarning)]
            return value, (reasons[0] if reasons else None)

        full, _ = evaluate(ann)
        name = (coefficient.display_for(distance.name) if named
                else getattr(coefficient, "__name__", "coefficient"))
        without = np.empty(R)
        for g in range(R):
            without[g], reason = evaluate(ann.subset_raters(np.delete(np.arange(R), g)))
            if np.isnan(without[g]):
                notes[g].append(f"without the rater: {reason or 'undefined'}")
        return name, full, without
    core = coefficient.agreement_core(ann, distance)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedCoefficientWarning)
        full = float(core.estimate())
    # Conger's rows have R·K columns: chunks of raters keep the stack under BLOCK_CELLS
    width = core.unweighted_totals().size
    chunk = max(1, BLOCK_CELLS // max(width, 1))
    without = np.empty(R)
    for start in range(0, R, chunk):
        raters = np.arange(start, min(R, start + chunk))
        stack = core.rater_removal_totals(raters)
        without[raters] = np.asarray(core.combine(stack)["value"], dtype=float)
        for g, totals in zip(raters, stack):
            if np.isnan(without[g]):
                notes[g].append("without the rater: " + _removal_reason(core, ann, g, totals))
    return core.name, full, without


def __getattr__(name: str) -> Any:
    if name == "COEFFICIENTS":  # deprecated in 0.2.0: the registry is the one table
        warn("kappalab.reports.raters.COEFFICIENTS is deprecated and will be removed in "
             "0.3.0; use kappalab.coefficients.registry.coefficients("
             f"{_CAPABILITY!r})", DeprecationWarning)
        return {(entry.aliases[0] if entry.aliases else entry.name):
                (entry.chance, entry.item_weighting, entry.display)
                for entry in registry.coefficients(_CAPABILITY)}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _removal_reason(core: ChanceCorrectedAgreement, ann: Annotations, rater: int,
                    totals: np.ndarray) -> str:
    """Why the coefficient is undefined on the panel without ``rater``."""
    others = int(((ann.rater_count_matrix.sum(axis=1) > 0)
                  & (np.arange(len(ann.require_raters("rater_report"))) != rater)).sum())
    if others < 2:
        return f"{others} rater left"
    if totals[1] <= 0:
        return "no item keeps two or more annotations"
    return ("the expected disagreement is 0 (the annotations left fall in one category, or "
            "the chance model leaves no room for disagreement)")


def _label_columns(ann: Annotations) -> pd.DataFrame:
    """Each rater's label distribution on its shared items against the other raters' there:
    prevalence and shift per category (categorical data with few categories), mean shift
    and the correlation with the mean of the others (numeric data)."""
    items, raters, cats = ann.codes()
    R, K = len(ann.require_raters("rater_report")), ann.n_categories
    m = ann.annotations_per_item_array
    on_shared = m[items] >= 2
    items, raters, cats = items[on_shared], raters[on_shared], cats[on_shared]
    own_n = np.bincount(raters, minlength=R).astype(float)
    others_n = np.bincount(raters, weights=m[items] - 1.0, minlength=R)
    columns: dict[str, np.ndarray] = {}
    if K <= MAX_CATEGORY_COLUMNS:
        own = np.bincount(raters * K + cats, minlength=R * K).reshape(R, K).astype(float)
        seen = sp.csr_matrix((np.ones(raters.size), (raters, items)), shape=(R, ann.n_items))
        panel = seen @ ann.category_counts()  # Σ n_i over each rater's shared items
        panel = panel.toarray() if issparse(panel) else np.asarray(panel)
        with np.errstate(invalid="ignore", divide="ignore"):
            own_share = own / own_n[:, None]
            others_share = (panel - own) / others_n[:, None]
        shift = own_share - others_share
        columns["label_shift"] = 0.5 * np.abs(shift).sum(axis=1)
        columns["label_shift"][own_n == 0] = np.nan
        for k, category in enumerate(ann.categories):
            columns[f"prevalence[{category}]"] = own_share[:, k]
        for k, category in enumerate(ann.categories):
            columns[f"shift[{category}]"] = shift[:, k]
    if ann.is_numeric:
        values = ann.category_values("a mean shift")[cats]
        _, s1, _ = ann.item_moments()
        with np.errstate(invalid="ignore", divide="ignore"):
            own_mean = np.bincount(raters, weights=values, minlength=R) / own_n
            others_mean = np.bincount(raters, weights=s1[items] - values, minlength=R) / others_n
        columns["mean_shift"] = own_mean - others_mean
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # raters without a correlation are NaN here
            columns["correlation"] = inter_annotator_correlation(ann).per_rater.to_numpy()
    return pd.DataFrame(columns)

