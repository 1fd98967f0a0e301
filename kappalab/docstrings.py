"""Parameter descriptions that many public functions share, written once.

A docstring names a shared description by a line holding only ``{{shared: <name>}}``;
:func:`shared_parameters` replaces that line, at its indentation, when the function is
defined, so ``help()``, numpydoc and the documentation see the full text.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any, Callable, TypeVar

__all__ = ["SHARED_PARAMETERS", "shared_parameters"]

#: the shared parameter descriptions, by name, in numpydoc form (unindented)
SHARED_PARAMETERS = {
    "data": """\
data : Annotations, DataFrame or array-like
    An :class:`~kappalab.Annotations`, or what :func:`~kappalab.annotations.as_annotations`
    reads — a DataFrame with ``item``/``rater``/``value`` (or ``task``/``worker``/``label``)
    columns is long, any other table items × raters.""",
    "weights": """\
weights : str, array-like or callable, optional
    Agreement weights (Gwet 2014, ch. 3; :mod:`kappalab.distances`): None (default,
    unweighted), ``"identity"``, ``"ordinal"`` (rank based), ``"linear"``, ``"quadratic"``,
    ``"radical"``, ``"ratio"``, ``"circular"``, ``"bipolar"``, a K × K agreement-weight
    matrix W (diagonal 1, entries in [0, 1]) or a callable ``w(a, b)``. ``weights=`` takes
    agreement weights and ``level=`` distances: ``"ordinal"`` is Gwet's rank-based weights
    here, Krippendorff's data-dependent metric there.
    An asymmetric W is refused (it has a meaning only for two raters in a given order).
    Sets of labels (set-valued, multi-label annotations) also take ``"masi"`` and
    ``"jaccard"`` (agreement weights 1 − d: :func:`~kappalab.distances.masi`).""",
    "replications": """\
x, y : Annotations, DataFrame or array-like
    The two replications, each an :class:`~kappalab.Annotations`, or what
    :func:`~kappalab.annotations.as_annotations` reads — a DataFrame with
    ``item``/``rater``/``value`` (or ``task``/``worker``/``label``) columns is long, any
    other table items × raters. Items are matched by label; only items annotated on both
    sides count.""",
    "cross_level": """\
level : str, array-like or callable, default "nominal"
    Krippendorff's distance metric (Krippendorff 2011; :mod:`kappalab.distances`):
    ``"nominal"``, ``"ordinal"`` (on the pooled marginal counts of both sides),
    ``"interval"`` (O(N) per-item moments), ``"ratio"``, ``"circular"``, ``"bipolar"``, a
    K × K matrix of squared distances δ² over the union of both category sets or a callable
    ``δ²(a, b)``. ``level=`` takes distances and ``weights=`` agreement weights:
    ``"ordinal"`` is Krippendorff's data-dependent metric here, Gwet's rank-based weights
    there.
    Sets of labels (set-valued, multi-label annotations) also take ``"masi"`` and
    ``"jaccard"`` (:func:`~kappalab.distances.masi`, used as δ², as nltk's alpha does).""",
    "categories": """\
categories : sequence, optional
    The category set and order (default: the values in the data); values outside it raise
    :class:`~kappalab.errors.UnknownCategoryError`, and a category listed but never used
    still counts (in K, and in the values of value-based weights).""",
    "sample_weight": """\
sample_weight : array-like, optional
    One weight w_i ≥ 0 per item, in the order of ``Annotations.items``, multiplying the
    item's statistics: importance (sampling) weights — an integer weight k gives the value
    of the data with the item repeated k times, a weight 0 drops the item — while the items
    stay the units of the standard error
    (:class:`~kappalab.coefficients.base.ItemSumCoefficient`). None (default): every item
    counts once.""",
    "n_resamples": """\
n_resamples : int, default 2000
    Replicates of the bootstrap methods.""",
    "confidence": """\
confidence : float, default 0.95
    Confidence level of the interval, in (0, 1).""",
    "seed": """\
seed : None, int, sequence of int, SeedSequence or Generator, optional
    Seed of the resampling (:func:`kappalab.validation.make_rng`); None (default) draws fresh
    entropy.""",
    "progress": """\
progress : bool or None, optional
    A progress bar on stderr for resampling that outlasts two seconds: True, False, or None
    (default) for "when stderr is a terminal or a notebook's" (:mod:`kappalab.progress`).""",
}
SHARED_PARAMETERS["em_smoothing"] = """\
smoothing : float, default 0.0
    The pseudo-count s added to every confusion cell and prevalence: 0 is the
    maximum-likelihood estimate, s > 0 the posterior mode under Dirichlet(1 + s) priors."""
SHARED_PARAMETERS["gold"] = """\
gold : mapping or pandas.Series, optional
    Item -> class for the items whose class is known (semi-supervised): their posterior is
    that class, their likelihood term the joint probability of the class and their
    annotations, and they inform the annotators' parameters as any item does. Items
    without annotations may have gold (they inform the prevalences); missing values are
    skipped."""
SHARED_PARAMETERS["em"] = """\
accelerate : bool, default True
    Squared extrapolation (SQUAREM, Varadhan & Roland 2008): each iteration is two EM steps
    and a step along their direction, kept only when the likelihood does not fall (else the
    second EM step), so the fit reaches EM's own fixed point in several times fewer
    passes over the data. False: plain EM, one step an iteration (Dawid & Skene's).
max_iter : int, default 1000
    The most iterations; a fit that stops there warns
    (:class:`~kappalab.errors.ConvergenceWarning`).
tol : float, default 1e-10
    The stopping rule: the largest change of π or θ and the relative change of the
    log-likelihood in one iteration both below ``tol``.
progress : bool or None, optional
    The iterations on stderr when the fit outlasts two seconds: True, False, or None
    (default) for "when stderr is a terminal or a notebook's" (:mod:`kappalab.progress`)."""
SHARED_PARAMETERS["ci"] = """\
ci : str, optional
    A standard error and confidence interval by ``"analytic"`` (the linearisation, θ̂ ± t SE),
    ``"asymptotic"`` (the same with divisor n and a normal interval: SAS PROC FREQ's ASE),
    ``"gwet"`` (Gwet's formula, which holds the number of pairable items fixed; the κ family
    only), ``"bootstrap"``, ``"bootstrap-basic"``, ``"bootstrap-bca"``,
    ``"bayesian-bootstrap"`` or ``"jackknife"`` (:data:`kappalab.uncertainty.CI_METHODS`,
    :mod:`kappalab.uncertainty`), the items being the resampling units. None (default): the
    value alone."""
SHARED_PARAMETERS["resampling"] = "\n".join([
    SHARED_PARAMETERS["ci"],
    *(SHARED_PARAMETERS[name] for name in ("n_resamples", "confidence", "seed", "progress"))])

_MARKER = re.compile(r"^([ \t]*)\{\{shared: (\w+)\}\}[ \t]*$", re.MULTILINE)

Documented = TypeVar("Documented", bound=Callable[..., Any])


def shared_parameters(obj: Documented) -> Documented:
    """Fill the ``{{shared: <name>}}`` lines of ``obj``'s docstring from
    ``SHARED_PARAMETERS``, the module's dictionary of parameter texts.

    Parameters
    ----------
    obj : function or class
        Its docstring may hold lines ``{{shared: data}}``, ``{{shared: weights}}``,
        ``{{shared: categories}}``, ``{{shared: sample_weight}}``,
        ``{{shared: n_resamples}}``, ``{{shared: confidence}}``, ``{{shared: seed}}``,
        ``{{shared: progress}}``, ``{{shared: ci}}`` or ``{{shared: resampling}}`` (``ci`` and
        the last four).

    Returns
    -------
    function or class
        ``obj``, its docstring filled in.

    Raises
    ------
    KeyError
        A marker naming no shared description (a mistake in the source, found at import).

    Examples
    --------
    >>> @shared_parameters
    ... def f(x, *, categories=None):
    ...     '''Parameters
    ...     ----------
    ...     {{shared: categories}}
    ...     '''
    >>> f.__doc__.splitlines()[2].strip()
    'categories : sequence, optional'
    """
    if obj.__doc__:
        obj.__doc__ = _MARKER.sub(
            lambda m: textwrap.indent(SHARED_PARAMETERS[m.group(2)], m.group(1)), obj.__doc__)
    return obj
