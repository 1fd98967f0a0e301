"""The one table of the coefficients kappalab has: what every by-name consumer reads.

Each :class:`Coefficient` names a public estimator, the options it takes, its chance model
and what it can do (its *capabilities*). The reports (:func:`kappalab.agreement_report`,
:func:`kappalab.rater_report`, :func:`kappalab.item_report`), :func:`kappalab.compare`,
:func:`kappalab.plan`, :func:`kappalab.dask_estimate` and the command line find a coefficient
here, by any of the names :func:`lookup` takes: the public function's name
(``"krippendorff_alpha"``), the function itself (``kl.krippendorff_alpha``), or a short name
kept as a documented alias (``"alpha"``).

Adding a coefficient is its core (an :class:`~kappalab.coefficients.base.ItemSumCoefficient`),
its public function, and one entry of :data:`REGISTRY` (CONTRIBUTING.md, "Adding a
coefficient").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from ..annotations import Annotations
from ..distances import CategoryDistance
from ..errors import InvalidParameterError
from . import correlation, cross, disattenuation, icc, multirater, pairwise, sparse

__all__ = ["CAPABILITIES", "Coefficient", "REGISTRY", "coefficients", "lookup"]

#: what a coefficient can do, by the name its entry lists it under
CAPABILITIES = {
    "analytic_se": "the linearised standard error (ci='analytic')",
    "out_of_core": "out of core on a Dask DataFrame (kappalab.dask_estimate)",
    "leave_one_rater_out": "the value without each rater (kappalab.rater_report)",
    "item_report": "each item's share of the coefficient (kappalab.item_report)",
    "planning": "a sample-size plan (kappalab.plan)",
    "agreement_report": "a row of kappalab.agreement_report",
}


@dataclass(frozen=True)
class Coefficient:
    """One coefficient: its public estimator and what the rest of kappalab needs to know.

    Parameters
    ----------
    name : str
        The public function's name, e.g. ``"fleiss_kappa"``.
    function : callable
        The public estimator, e.g. :func:`kappalab.fleiss_kappa`.
    display : str
        The name its :class:`~kappalab.estimate.Estimate` carries, e.g. ``"Fleiss' kappa"``.
    weighted_display : str or None
        Its name with a non-nominal distance or weights (``"Gwet's AC2"``); None: the same.
    option : str or None
        The keyword of its distance (``"level"``), agreement weights (``"weights"``) or
        weighting scheme (``"scheme"``); None for none.
    chance : str or None
        Its chance model, for the multi-rater family the ``chance=`` of
        :class:`~kappalab.coefficients.multirater.ChanceCorrectedAgreement` (``"pooled"``,
        ``"item_marginal"``, ``"rater_marginal"``, ``"gwet"``, ``"uniform"``, ``"none"``);
        None where it has no such chance model.
    item_weighting : str or None
        ``"annotation"`` (each pairable value counts once, as in Krippendorff's α) or
        ``"item"`` (each item counts once) for the multi-rater family; None otherwise.
    chance_corrected : bool
        Whether it corrects for chance (an interpretation band applies).
    replications : int
        The data sets it takes: 1, or 2 (κx, its normalised form, disattenuation).
    panel : str
        The raters it needs: ``"any"``, ``"identified"`` (rater labels) or ``"two"``.
    aliases : tuple of str
        Short names kept as documented aliases (``"alpha"``).
    capabilities : frozenset of str
        Names of :data:`CAPABILITIES`.
    core : callable or None
        The core factory: called with the public function's arguments less its interval
        options, it returns the :class:`~kappalab.coefficients.base.ItemSumCoefficient`
        behind the estimate; None where no single core stands behind it.

    Examples
    --------
    >>> entry = lookup("alpha")
    >>> entry.name, entry.display, entry.option
    ('krippendorff_alpha', "Krippendorff's alpha", 'level')
    >>> lookup(entry.function) is entry
    True
    """

    name: str
    function: Callable[..., Any]
    display: str
    weighted_display: str | None = None
    option: str | None = None
    chance: str | None = None
    item_weighting: str | None = None
    chance_corrected: bool = True
    replications: int = 1
    panel: str = "any"
    aliases: tuple[str, ...] = ()
    capabilities: frozenset[str] = field(default_factory=frozenset)
    core: Callable[..., Any] | None = None

    def can(self, capability: str) -> bool:
        """Whether the coefficient has this capability.

        Parameters
        ----------
        capability : str
            A name of :data:`CAPABILITIES`.

        Returns
        -------
        bool
        """
        if capability not in CAPABILITIES:
            raise InvalidParameterError(f"unknown capability {capability!r}; name one of "
                                        f"{', '.join(CAPABILITIES)}")
        return capability in self.capabilities

    def display_for(self, distance_name: str) -> str:
        """The display name with a distance or weights of this name.

        Parameters
        ----------
        distance_name : str
            The resolved distance's name (``"nominal"``, ``"quadratic"``, ...).

        Returns
        -------
        str
        """
        if self.weighted_display is not None and distance_name != "nominal":
            return self.weighted_display
        return self.display

    def agreement_core(self, ann: Annotations, distance: CategoryDistance,
                       sample_weight: Any = None) -> multirater.ChanceCorrectedAgreement:
        """The multi-rater family's core of this coefficient on ``ann`` with a resolved
        distance: what the reports, the planner and the out-of-core estimator build.

        Parameters
        ----------
        ann : Annotations
            The data.
        distance : CategoryDistance
            The resolved distance or agreement weights
            (:func:`~kappalab.coefficients.multirater.distance_for`).
        sample_weight : numpy.ndarray, optional
            Checked item weights (:func:`~kappalab.validation.check_sample_weight`).

        Returns
        -------
        ChanceCorrectedAgreement

        Raises
        ------
        InvalidParameterError
            For a coefficient outside the multi-rater family (no ``item_weighting``).

        Examples
        --------
        >>> import kappalab as kl
        >>> from kappalab.coefficients.multirater import distance_for
        >>> ann = kl.Annotations.from_wide([[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2]])
        >>> core = lookup("fleiss").agreement_core(ann, distance_for(ann, "nominal"))
        >>> core.estimate().value == kl.fleiss_kappa(ann).value
        True
        """
        if self.chance is None or self.item_weighting is None:
            raise InvalidParameterError(f"{self.name} is not a coefficient of the multi-rater "
                                        "family (ChanceCorrectedAgreement)")
        return multirater.ChanceCorrectedAgreement(
            ann, distance, chance=self.chance, item_weighting=self.item_weighting,
            name=self.display_for(distance.name), sample_weight=sample_weight)


def _entry(function: Callable[..., Any], display: str, *capabilities: str,
           **fields: Any) -> Coefficient:
    return Coefficient(name=function.__name__, function=function, display=display,
                       capabilities=frozenset(capabilities), **fields)


_AGREEMENT = ("analytic_se", "leave_one_rater_out", "item_report", "agreement_report")

#: every coefficient, in the order of :func:`kappalab.agreement_report`'s rows
REGISTRY: tuple[Coefficient, ...] = (
    _entry(multirater.percent_agreement, "percent agreement", *_AGREEMENT, "out_of_core",
           weighted_display="percent agreement (weighted)", option="weights", chance="none",
           item_weighting="item", chance_corrected=False),
    _entry(multirater.krippendorff_alpha, "Krippendorff's alpha", *_AGREEMENT, "out_of_core",
           "planning", option="level", chance="pooled", item_weighting="annotation",
           aliases=("alpha",)),
    _entry(multirater.fleiss_kappa, "Fleiss' kappa", *_AGREEMENT, "out_of_core", "planning",
           weighted_display="Fleiss' kappa (weighted)", option="weights",
           chance="item_marginal", item_weighting="item", aliases=("fleiss",)),
    _entry(multirater.gwet_ac, "Gwet's AC1", *_AGREEMENT, "out_of_core",
           weighted_display="Gwet's AC2", option="weights", chance="gwet",
           item_weighting="item", aliases=("gwet",)),
    _entry(multirater.brennan_prediger, "Brennan-Prediger", *_AGREEMENT, "out_of_core",
           weighted_display="Brennan-Prediger (weighted)", option="weights", chance="uniform",
           item_weighting="item"),
    _entry(multirater.conger_kappa, "Conger's kappa", *_AGREEMENT,
           weighted_display="Conger's kappa (weighted)", option="weights",
           chance="rater_marginal", item_weighting="item", panel="identified",
           aliases=("conger",)),
    _entry(multirater.janson_olsson_iota, "Janson-Olsson iota", "analytic_se", "item_report",
           "agreement_report", option="level", chance="rater_marginal", item_weighting="item",
           panel="identified"),
    _entry(pairwise.light_kappa, "Light's kappa", "analytic_se", "agreement_report",
           weighted_display="Light's kappa (weighted)", option="weights",
           panel="identified"),
    _entry(pairwise.cohen_kappa, "Cohen's kappa", "analytic_se", "agreement_report",
           "planning", weighted_display="Cohen's weighted kappa", option="weights",
           chance="rater_marginal", panel="two", aliases=("cohen",)),
    _entry(pairwise.scott_pi, "Scott's pi", "analytic_se", "agreement_report",
           weighted_display="Scott's pi (weighted)", option="weights", chance="pooled",
           panel="two"),
    _entry(pairwise.bennett_s, "Bennett's S", "analytic_se", "agreement_report",
           weighted_display="Bennett's S (weighted)", option="weights", chance="uniform",
           panel="two"),
    _entry(icc.icc, "ICC(2,1)", "analytic_se", "agreement_report", chance_corrected=False,
           panel="identified"),
    _entry(cross.cross_kappa, "cross-kappa", "analytic_se", option="level", replications=2),
    _entry(cross.normalized_cross_kappa, "normalized cross-kappa", "analytic_se", option="level",
           replications=2),
    _entry(cross.reference_agreement, "reference agreement", "analytic_se", option="level"),
    _entry(disattenuation.split_half_reliability, "split-half reliability", "analytic_se",
           chance_corrected=False),
    _entry(disattenuation.disattenuated_correlation, "disattenuated correlation",
           "analytic_se", chance_corrected=False, replications=2),
    _entry(correlation.inter_annotator_correlation, "inter-annotator correlation",
           "analytic_se", chance_corrected=False),
    _entry(sparse.spa, "SPA", "analytic_se", "out_of_core", option="scheme",
           chance_corrected=False),
    _entry(sparse.spa_kappa, "SPA kappa", "analytic_se", "out_of_core", option="scheme"),
)

_BY_NAME = {entry.name: entry for entry in REGISTRY}
_BY_NAME.update({alias: entry for entry in REGISTRY for alias in entry.aliases})


def coefficients(capability: str | None = None) -> Iterator[Coefficient]:
    """The registered coefficients, in :data:`REGISTRY`'s order; with ``capability``, those
    that have it.

    Parameters
    ----------
    capability : str, optional
        A name of :data:`CAPABILITIES`; None (default): every coefficient.

    Yields
    ------
    Coefficient
        The entries, in order.

    Examples
    --------
    >>> [entry.name for entry in coefficients("planning")]
    ['krippendorff_alpha', 'fleiss_kappa', 'cohen_kappa']
    """
    for entry in REGISTRY:
        if capability is None or entry.can(capability):
            yield entry


def lookup(coefficient: Any, capability: str | None = None, *,
           purpose: str | None = None) -> Coefficient:
    """The registered coefficient by its public name, one of its aliases, or its function.

    Parameters
    ----------
    coefficient : str or callable
        ``"krippendorff_alpha"``, an alias such as ``"alpha"``, or ``kl.krippendorff_alpha``.
    capability : str, optional
        A name of :data:`CAPABILITIES` the coefficient must have.
    purpose : str, optional
        What it is looked up for, named in the error (default: the capability's text).

    Returns
    -------
    Coefficient

    Raises
    ------
    InvalidParameterError
        For an unknown coefficient, or one without the capability: one line naming those
        that have it.

    Examples
    --------
    >>> import kappalab as kl
    >>> lookup("fleiss").name, lookup(kl.fleiss_kappa).name
    ('fleiss_kappa', 'fleiss_kappa')
    >>> lookup("cohen", "out_of_core")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kappalab.errors.InvalidParameterError: cohen_kappa is not available for out of core ...
    """
    if capability is not None and capability not in CAPABILITIES:
        raise InvalidParameterError(f"unknown capability {capability!r}; name one of "
                                    f"{', '.join(CAPABILITIES)}")
    entry = _BY_NAME.get(coefficient) if isinstance(coefficient, str) else next(
        (e for e in REGISTRY if e.function is coefficient), None)
    allowed = [e for e in coefficients(capability)]
    names = ", ".join(e.name + "".join(f" ({alias})" for alias in e.aliases) for e in allowed)
    what = purpose or (CAPABILITIES[capability] if capability else "a coefficient")
    if entry is None:
        shown = coefficient if isinstance(coefficient, str) else getattr(
            coefficient, "__name__", type(coefficient).__name__)
        raise InvalidParameterError(f"unknown coefficient {shown!r} for {what}; name one of "
                                    f"{names}")
    if capability is not None and not entry.can(capability):
        raise InvalidParameterError(f"{entry.name} is not available for {what}; it takes "
                                    f"{names}")
    return entry
