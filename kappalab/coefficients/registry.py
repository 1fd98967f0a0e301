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

import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from ..annotations import Annotations
from ..distances import CategoryDistance
from ..errors import InvalidParameterError
from . import correlation, cross, disattenuation, icc, multirater, pairwise, sparse

__all__ = ["CAPABILITIES", "Coefficient", "REGISTRY", "coefficients", "lookup", "register",
           "registered", "unregister"]

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
        options (``ci``, ``n_resamples``, ``confidence``, ``seed``, ``progress``) and less
        the options that only add details beside the value (``by_category``, ``alpha_min``,
        ``shared_raters``), it returns the
        :class:`~kappalab.coefficients.base.ItemSumCoefficient` whose ``estimate()`` is the
        public function's value (:func:`kappalab.compare` reads its per-item influences). A
        coefficient whose value rests on random draws keeps ``seed`` (split-half: the random
        splits). None where no single core stands behind the estimate.
    values : str
        What its annotations are: ``"categories"`` (labels, any type; integers are read as
        numbers where a distance or weights need them) or ``"numeric"`` (numbers whose
        values enter the coefficient: correlations, the ICC, split-half reliability).
    report_levels : tuple of str or None
        The ``level=`` names of :func:`kappalab.agreement_report` at which it is a row (the
        ICC: ``("interval",)``); None: at every level.
    proportions : bool
        Whether its ``observed`` (and, chance-corrected, ``expected``) are agreement
        proportions the report shows (not the ICC's).

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
    values: str = "categories"
    report_levels: tuple[str, ...] | None = None
    proportions: bool = True

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
                       sample_weight: np.ndarray | None = None
                       ) -> multirater.ChanceCorrectedAgreement:
        """The multi-rater family's core of this coefficient on ``ann`` with a resolved
        distance: what the reports, the planner and the out-of-core estimator build.

        Parameters
        ----------
        ann : Annotations
            The data.
        distance : CategoryDistance
            The resolved distance or agreement weights
            (``multirater.distance_for``).
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
        member = multirater.FamilyMember(self.chance, self.item_weighting, self.display,
                                         self.weighted_display, self.option or "weights")
        return member.core(ann, distance, sample_weight)


def _entry(function: Callable[..., Any], display: str, *capabilities: str,
           **fields: Any) -> Coefficient:
    return Coefficient(name=function.__name__, function=function, display=display,
                       capabilities=frozenset(capabilities), **fields)


def _family(function: Callable[..., Any], core: Callable[..., Any], *capabilities: str,
            **fields: Any) -> Coefficient:
    """An entry of the multi-rater family: its chance model, item weighting, names and option
    as :data:`~kappalab.coefficients.multirater.FAMILY` gives them."""
    member = multirater.FAMILY[function.__name__]
    return _entry(function, member.name, *capabilities, weighted_display=member.weighted_name,
                  option=member.option, chance=member.chance,
                  item_weighting=member.item_weighting, core=core, **fields)


_AGREEMENT = ("analytic_se", "leave_one_rater_out", "item_report", "agreement_report")

#: every coefficient, in the order of :func:`kappalab.agreement_report`'s rows (read it through
#: :func:`coefficients`, which also sees the entries added by :func:`register`)
REGISTRY: tuple[Coefficient, ...] = (
    _family(multirater.percent_agreement, multirater.percent_agreement_core, *_AGREEMENT,
            "out_of_core", chance_corrected=False),
    _family(multirater.krippendorff_alpha, multirater.krippendorff_alpha_core, *_AGREEMENT,
            "out_of_core", "planning", aliases=("alpha",)),
    _family(multirater.fleiss_kappa, multirater.fleiss_kappa_core, *_AGREEMENT, "out_of_core",
            "planning", aliases=("fleiss",)),
    _family(multirater.gwet_ac, multirater.gwet_ac_core, *_AGREEMENT, "out_of_core",
            aliases=("gwet",)),
    _family(multirater.brennan_prediger, multirater.brennan_prediger_core, *_AGREEMENT,
            "out_of_core"),
    _family(multirater.conger_kappa, multirater.conger_kappa_core, *_AGREEMENT,
            panel="identified", aliases=("conger",)),
    _family(multirater.janson_olsson_iota, multirater.janson_olsson_iota_core, "analytic_se",
            "item_report", "agreement_report", panel="identified"),
    _entry(pairwise.light_kappa, "Light's kappa", "analytic_se", "agreement_report",
           weighted_display="Light's kappa (weighted)", option="weights",
           panel="identified", core=pairwise.light_kappa_core),
    _entry(pairwise.cohen_kappa, "Cohen's kappa", "analytic_se", "agreement_report",
           "planning", weighted_display="Cohen's weighted kappa", option="weights",
           chance="rater_marginal", panel="two", aliases=("cohen",),
           core=pairwise.cohen_kappa_core),
    _entry(pairwise.scott_pi, "Scott's pi", "analytic_se", "agreement_report",
           weighted_display="Scott's pi (weighted)", option="weights", chance="pooled",
           panel="two", core=pairwise.scott_pi_core),
    _entry(pairwise.bennett_s, "Bennett's S", "analytic_se", "agreement_report",
           weighted_display="Bennett's S (weighted)", option="weights", chance="uniform",
           panel="two", core=pairwise.bennett_s_core),
    _entry(icc.icc, "ICC(2,1)", "analytic_se", "agreement_report", chance_corrected=False,
           panel="identified", values="numeric", core=icc.icc_core,
           report_levels=("interval",), proportions=False),
    _entry(cross.cross_kappa, "cross-kappa", "analytic_se", option="level", replications=2,
           core=cross.cross_kappa_core),
    _entry(cross.normalized_cross_kappa, "normalized cross-kappa", "analytic_se", option="level",
           replications=2, core=cross.normalized_cross_kappa_core),
    _entry(cross.reference_agreement, "reference agreement", "analytic_se", option="level",
           core=cross.reference_agreement_core),
    _entry(disattenuation.split_half_reliability, "split-half reliability", "analytic_se",
           chance_corrected=False, values="numeric",
           core=disattenuation.split_half_reliability_core),
    _entry(disattenuation.disattenuated_correlation, "disattenuated correlation",
           "analytic_se", chance_corrected=False, replications=2, values="numeric",
           core=disattenuation.disattenuated_correlation_core),
    _entry(correlation.inter_annotator_correlation, "inter-annotator correlation",
           "analytic_se", chance_corrected=False, values="numeric",
           core=correlation.inter_annotator_correlation_core),
    _entry(sparse.spa, "SPA", "analytic_se", "out_of_core", option="scheme",
           chance_corrected=False, core=sparse.spa_core),
    _entry(sparse.spa_kappa, "SPA kappa", "analytic_se", "out_of_core", option="scheme",
           core=sparse.spa_kappa_core),
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


# ---------------------------------------------------------------------- adding a coefficient
_CHANCE_MODELS = multirater.CHANCE_MODELS
_PANELS = ("any", "identified", "two")
_VALUES = ("categories", "numeric")
_LOCK = threading.Lock()


def _check_entry(entry: Any) -> None:
    """One line on the first malformed field of a would-be entry."""
    if not isinstance(entry, Coefficient):
        raise InvalidParameterError(f"register takes a registry.Coefficient, got "
                                    f"{type(entry).__name__}")
    name = entry.name
    if not isinstance(name, str) or not name.isidentifier():
        raise InvalidParameterError(f"a coefficient's name must be its public function's name "
                                    f"(an identifier), got {name!r}")
    problem = None
    if not callable(entry.function) or isinstance(entry.function, type):
        problem = f"function must be the public estimator function, got {entry.function!r}"
    elif not isinstance(entry.display, str) or not entry.display:
        problem = f"display must be a non-empty str, got {entry.display!r}"
    elif entry.weighted_display is not None and not isinstance(entry.weighted_display, str):
        problem = f"weighted_display must be a str or None, got {entry.weighted_display!r}"
    elif entry.option is not None and not isinstance(entry.option, str):
        problem = f"option must be a keyword (str) or None, got {entry.option!r}"
    elif entry.chance is not None and entry.chance not in _CHANCE_MODELS:
        problem = (f"chance must be None or one of {', '.join(_CHANCE_MODELS)}, got "
                   f"{entry.chance!r}")
    elif entry.item_weighting not in (None, "item", "annotation"):
        problem = f"item_weighting must be None, 'item' or 'annotation', got " \
                  f"{entry.item_weighting!r}"
    elif not isinstance(entry.chance_corrected, bool):
        problem = f"chance_corrected must be True or False, got {entry.chance_corrected!r}"
    elif entry.replications not in (1, 2) or isinstance(entry.replications, bool):
        problem = f"replications must be 1 or 2, got {entry.replications!r}"
    elif entry.panel not in _PANELS:
        problem = f"panel must be one of {', '.join(_PANELS)}, got {entry.panel!r}"
    elif not isinstance(entry.aliases, tuple) or not all(
            isinstance(alias, str) and alias.isidentifier() for alias in entry.aliases):
        problem = f"aliases must be a tuple of names (str), got {entry.aliases!r}"
    elif not isinstance(entry.capabilities, frozenset) or not entry.capabilities <= set(
            CAPABILITIES):
        problem = (f"capabilities must be a frozenset of {', '.join(CAPABILITIES)}, got "
                   f"{entry.capabilities!r}")
    elif entry.core is not None and not callable(entry.core):
        problem = f"core must be the core factory (a callable) or None, got {entry.core!r}"
    elif entry.values not in _VALUES:
        problem = f"values must be one of {', '.join(_VALUES)}, got {entry.values!r}"
    if problem is not None:
        raise InvalidParameterError(f"malformed registry entry {name!r}: {problem}")


def register(entry: Coefficient) -> Coefficient:
    """Add a coefficient to the registry (after the built-in ones), so that :func:`lookup`,
    :func:`coefficients` and every by-name consumer (:func:`kappalab.compare`, the reports
    where its capabilities say so) find it.

    Parameters
    ----------
    entry : Coefficient
        The new entry; its name and aliases must be new, and its function not registered.

    Returns
    -------
    Coefficient
        The entry, as registered.

    Raises
    ------
    InvalidParameterError
        A malformed entry (a field outside its vocabulary), or a name, alias or function
        already registered: one line naming the field or the clash.

    Examples
    --------
    >>> import kappalab as kl
    >>> def pct(data, *, sample_weight=None, ci=None):  # percent agreement under a new name
    ...     return kl.percent_agreement(data, sample_weight=sample_weight, ci=ci)
    >>> entry = register(Coefficient(name="pct", function=pct, display="percent agreement"))
    >>> lookup("pct") is entry
    True
    >>> unregister("pct") is entry, "pct" in [e.name for e in coefficients()]
    (True, False)
    """
    global REGISTRY
    _check_entry(entry)
    with _LOCK:
        for name in (entry.name, *entry.aliases):
            if name in _BY_NAME:
                raise InvalidParameterError(
                    f"the name {name!r} is taken by {_BY_NAME[name].name} in the registry; give "
                    "the new coefficient another name (or unregister the old one first)")
        if len(set(entry.aliases)) != len(entry.aliases) or entry.name in entry.aliases:
            raise InvalidParameterError(f"malformed registry entry {entry.name!r}: an alias "
                                        "repeats the name or another alias")
        taken = next((e for e in REGISTRY if e.function is entry.function), None)
        if taken is not None:
            raise InvalidParameterError(f"the function {entry.name} is already registered as "
                                        f"{taken.name}")
        REGISTRY = (*REGISTRY, entry)
        _BY_NAME[entry.name] = entry
        _BY_NAME.update({alias: entry for alias in entry.aliases})
    return entry


def unregister(coefficient: Any) -> Coefficient:
    """Remove a coefficient from the registry: the inverse of :func:`register`.

    Parameters
    ----------
    coefficient : str, callable or Coefficient
        Its name, an alias, its function (what :func:`lookup` takes) or the entry.

    Returns
    -------
    Coefficient
        The entry removed.

    Raises
    ------
    InvalidParameterError
        A coefficient that is not registered.

    Examples
    --------
    >>> import kappalab as kl
    >>> entry = register(Coefficient(name="pa", function=lambda data: kl.percent_agreement(data),
    ...                              display="percent agreement"))
    >>> unregister(entry).name
    'pa'
    """
    global REGISTRY
    with _LOCK:
        entry = coefficient if isinstance(coefficient, Coefficient) else lookup(
            coefficient, purpose="unregister")
        if not any(e is entry for e in REGISTRY):
            raise InvalidParameterError(f"{entry.name} is not registered")
        REGISTRY = tuple(e for e in REGISTRY if e is not entry)
        for name in (entry.name, *entry.aliases):
            if _BY_NAME.get(name) is entry:
                del _BY_NAME[name]
    return entry


@contextmanager
def registered(entry: Coefficient) -> Iterator[Coefficient]:
    """The coefficient registered inside the ``with`` block and removed at its end (also on
    an error): for tests and examples.

    Parameters
    ----------
    entry : Coefficient
        The entry (:func:`register`).

    Yields
    ------
    Coefficient
        The entry, registered.

    Examples
    --------
    >>> import kappalab as kl
    >>> def pct(data, *, ci=None):
    ...     return kl.percent_agreement(data, ci=ci)
    >>> with registered(Coefficient(name="pct", function=pct, display="pct")) as entry:
    ...     lookup(pct) is entry
    True
    >>> "pct" in [e.name for e in coefficients()]
    False
    """
    register(entry)
    try:
        yield entry
    finally:
        unregister(entry)
