r"""Reading a coefficient on a published interpretation scale ("benchmarking").

A scale cuts [−1, 1] into named bands. :func:`interpret` says which band a coefficient's value
falls in and, when the value comes with a standard error, Gwet's (2014) probabilistic
benchmarking: the probability that the coefficient lies in each band under the normal
approximation truncated to [−1, 1], and the highest band reached with a given certainty.

The scales (:data:`SCALES`), their bands from the lowest up and which band a boundary value
belongs to:

* ``"landis-koch"`` (Landis & Koch 1977, p. 165): Poor κ < 0, Slight 0 ≤ κ ≤ 0.2, Fair
  0.2 < κ ≤ 0.4, Moderate 0.4 < κ ≤ 0.6, Substantial 0.6 < κ ≤ 0.8, Almost Perfect κ > 0.8.
  The paper's table reads "<0.00, 0.00–0.20, 0.21–0.40, …, 0.81–1.00": each band holds its
  upper end, and 0 is Slight.
* ``"fleiss"`` (Fleiss 1981, p. 218): Poor κ < 0.4, Intermediate to Good 0.4 ≤ κ ≤ 0.75,
  Excellent κ > 0.75 ("values greater than 0.75 … excellent, below 0.40 … poor, between 0.40
  and 0.75 … fair to good"; the band's name is Gwet's and irrCAC's).
* ``"altman"`` (Altman 1991): Poor κ ≤ 0.2, Fair 0.2 < κ ≤ 0.4, Moderate 0.4 < κ ≤ 0.6, Good
  0.6 < κ ≤ 0.8, Very Good κ > 0.8. The book's table reads "<0.20, 0.21–0.40, …, 0.81–1.00"
  and so leaves 0.20 itself out; it is read as Landis & Koch's table is, each band holding its
  upper end.
* ``"krippendorff"`` (Krippendorff 2004, p. 241): Discard α < 0.667, Tentative conclusions
  0.667 ≤ α < 0.800, Reliable α ≥ 0.800.

The band limits of the probabilities are those of irrCAC's ``Benchmark`` (and of Gwet's R
package irrCAC) for the three scales it has: the lowest band starts at −1 and the highest ends
at 1. A boundary has probability 0 under the normal approximation, so which band holds it
matters only to the value's own band.
"""

from __future__ import annotations

import html
import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import InvalidParameterError, MissingValueError
from .estimate import Estimate
from .validation import check_confidence

__all__ = ["BOUNDARY_TOLERANCE", "Interpretation", "InterpretationScale", "SCALES", "interpret",
           "interpretation_scale"]

#: the old names, which said "benchmark" (a word of the speed benchmarks), kept for one release
_RENAMED = {"benchmark": "interpret", "Benchmark": "Interpretation"}


def __getattr__(name: str) -> Any:
    """``benchmark`` and ``Benchmark``, the old names of :func:`interpret` and
    :class:`Interpretation`, with a :class:`DeprecationWarning`."""
    if name in _RENAMED:
        import warnings

        warnings.warn(f"kappalab.interpretation.{name} is deprecated and will be removed in the "
                      f"next release; use {_RENAMED[name]}", DeprecationWarning, stacklevel=2)
        return globals()[_RENAMED[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: how close to a band boundary a value counts as on it (far below any reported precision,
#: far above the rounding error of a coefficient computed in double precision)
BOUNDARY_TOLERANCE = 1e-12


@dataclass(frozen=True)
class InterpretationScale:
    r"""A published interpretation scale: named bands of a coefficient between −1 and 1.

    Band k (counted from the lowest, 0) runs from ``cuts[k − 1]`` to ``cuts[k]``, the lowest
    band from −1 and the highest to 1; the boundary ``cuts[j]`` belongs to the band above it
    when ``boundary_in_upper[j]`` and to the band below otherwise. The lowest and highest bands
    are open outwards, so a value below −1 (or above 1) is in the lowest (highest) band.

    Parameters
    ----------
    name : str
        The scale's key in :data:`SCALES`, e.g. ``"landis-koch"``.
    title : str
        The scale's authors and year, for display.
    labels : tuple of str
        The bands' names, from the lowest band up.
    cuts : tuple of float
        The boundaries between bands, increasing (one fewer than ``labels``).
    boundary_in_upper : tuple of bool
        For each boundary, whether a value equal to it belongs to the band above.
    reference : str
        The publication the scale comes from.

    Examples
    --------
    >>> from kappalab.interpretation import interpretation_scale
    >>> fleiss = interpretation_scale("fleiss")
    >>> fleiss.labels, fleiss.limits()
    (('Poor', 'Intermediate to Good', 'Excellent'), [(-1.0, 0.4), (0.4, 0.75), (0.75, 1.0)])
    >>> [fleiss.labels[k] for k in fleiss.band_index([0.39, 0.4, 0.75, 0.76])]
    ['Poor', 'Intermediate to Good', 'Intermediate to Good', 'Excellent']
    """

    name: str
    title: str
    labels: tuple[str, ...]
    cuts: tuple[float, ...]
    boundary_in_upper: tuple[bool, ...]
    reference: str

    def limits(self) -> list[tuple[float, float]]:
        """The (lower, upper) limits of each band from the lowest up, −1 and 1 at the ends.

        Returns
        -------
        list of (float, float)
            One pair per band, in the order of ``labels``.

        Examples
        --------
        >>> from kappalab.interpretation import interpretation_scale
        >>> interpretation_scale("krippendorff").limits()
        [(-1.0, 0.667), (0.667, 0.8), (0.8, 1.0)]
        """
        edges = [-1.0, *map(float, self.cuts), 1.0]
        return list(zip(edges[:-1], edges[1:]))

    def band_index(self, values: Any) -> np.ndarray:
        """The band of each value, as an index into ``labels`` (0 the lowest band).

        A value is in band k when it is above k boundaries, "above" meaning ``>`` for a
        boundary that belongs to the band below and ``≥`` for one that belongs to the band
        above. A value within :data:`BOUNDARY_TOLERANCE` of a boundary counts as on it, so
        that a coefficient equal to a boundary in exact arithmetic (0.6 = (0.8 − 0.5)/(1 − 0.5))
        is not moved across it by rounding error.

        Parameters
        ----------
        values : float or array-like of float
            Finite values (the caller refuses NaN).

        Returns
        -------
        numpy.ndarray of int
            The band indices, of the shape of ``values``.

        Examples
        --------
        >>> from kappalab.interpretation import interpretation_scale
        >>> interpretation_scale("landis-koch").band_index([-0.1, 0.0, 0.2, 0.2001, 0.81])
        array([0, 1, 1, 2, 5])
        """
        values = np.asarray(values, dtype=float)[..., None]
        cuts = np.asarray(self.cuts, dtype=float)
        above = np.where(np.asarray(self.boundary_in_upper),
                         values >= cuts - BOUNDARY_TOLERANCE, values > cuts + BOUNDARY_TOLERANCE)
        return above.sum(axis=-1)

    def interval(self, band: int) -> str:
        """Band ``band``'s interval in bracket notation, ``[`` or ``(`` as it holds its ends.

        Parameters
        ----------
        band : int
            An index into ``labels``.

        Returns
        -------
        str
            E.g. ``"(0.2, 0.4]"``; the lowest band starts at −1 and the highest ends at 1
            (a value beyond them still falls in that band).

        Examples
        --------
        >>> from kappalab.interpretation import interpretation_scale
        >>> scale = interpretation_scale("landis-koch")
        >>> [scale.interval(k) for k in range(len(scale.labels))]
        ['[-1, 0)', '[0, 0.2]', '(0.2, 0.4]', '(0.4, 0.6]', '(0.6, 0.8]', '(0.8, 1]']
        """
        n_bands = len(self.labels)
        if band == 0:
            opening, low = "[", "-1"
        else:
            opening = "[" if self.boundary_in_upper[band - 1] else "("
            low = f"{self.cuts[band - 1]:g}"
        if band == n_bands - 1:
            high, closing = "1", "]"
        else:
            high = f"{self.cuts[band]:g}"
            closing = ")" if self.boundary_in_upper[band] else "]"
        return f"{opening}{low}, {high}{closing}"


#: the interpretation scales :func:`interpret` knows, by name
SCALES: dict[str, InterpretationScale] = {
    scale.name: scale for scale in (
        InterpretationScale(
            "landis-koch", "Landis & Koch (1977)",
            ("Poor", "Slight", "Fair", "Moderate", "Substantial", "Almost Perfect"),
            (0.0, 0.2, 0.4, 0.6, 0.8), (True, False, False, False, False),
            "Landis, J. R. & Koch, G. G. (1977). The measurement of observer agreement for "
            "categorical data. Biometrics 33(1), 159-174. doi:10.2307/2529310"),
        InterpretationScale(
            "fleiss", "Fleiss (1981)", ("Poor", "Intermediate to Good", "Excellent"),
            (0.4, 0.75), (True, False),
            "Fleiss, J. L. (1981). Statistical Methods for Rates and Proportions (2nd ed.). "
            "Wiley, p. 218"),
        InterpretationScale(
            "altman", "Altman (1991)", ("Poor", "Fair", "Moderate", "Good", "Very Good"),
            (0.2, 0.4, 0.6, 0.8), (False, False, False, False),
            "Altman, D. G. (1991). Practical Statistics for Medical Research. Chapman & Hall"),
        InterpretationScale(
            "krippendorff", "Krippendorff (2004)",
            ("Discard", "Tentative conclusions", "Reliable"), (0.667, 0.8), (True, True),
            "Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology "
            "(2nd ed.). Sage, p. 241"),
    )
}


def interpretation_scale(scale: Any) -> InterpretationScale:
    """The interpretation scale of this name (or the scale itself).

    Parameters
    ----------
    scale : str or InterpretationScale
        A name of :data:`SCALES` (``"landis-koch"``, ``"fleiss"``, ``"altman"``,
        ``"krippendorff"``; case and ``_``/space for ``-`` do not matter), or a scale.

    Returns
    -------
    InterpretationScale

    Raises
    ------
    InvalidParameterError
        An unknown name, or something that is neither a name nor a scale.

    Examples
    --------
    >>> from kappalab.interpretation import interpretation_scale
    >>> interpretation_scale("Landis_Koch").title
    'Landis & Koch (1977)'
    >>> interpretation_scale("cohen")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kappalab.errors.InvalidParameterError: unknown interpretation scale 'cohen'; the scales ...
    """
    if isinstance(scale, InterpretationScale):
        return scale
    known = ", ".join(repr(name) for name in SCALES)
    if not isinstance(scale, str):
        raise InvalidParameterError(
            f"scale must be the name of an interpretation scale ({known}), got {scale!r}")
    key = scale.strip().lower().replace("_", "-").replace(" ", "-")
    if key not in SCALES:
        raise InvalidParameterError(
            f"unknown interpretation scale {scale!r}; the scales are {known}")
    return SCALES[key]


#: the columns of :meth:`Interpretation.to_frame`, in order
FRAME_COLUMNS = ("band", "interval", "lower", "upper", "probability", "cumulative_probability",
                 "contains_value", "certain_band")


@dataclass(frozen=True)
class Interpretation:
    r"""A coefficient read on an interpretation scale; :func:`interpret` returns it.

    ``band`` is the band the value falls in. With a standard error, ``probabilities[k]`` is the
    probability that the coefficient lies in band k and ``cumulative_probabilities[k]`` that it
    lies in band k or a higher one (Gwet 2014), and ``certain_band`` is the highest band whose
    cumulative probability reaches ``confidence``; without one these are None. The per-band
    tuples run from the *highest* band down, as Gwet's tables do; :meth:`to_frame` shows them
    as a table.

    Parameters
    ----------
    scale : InterpretationScale
        The scale.
    coefficient : str or None
        The coefficient's name (from an :class:`~kappalab.Estimate`), None for a plain number.
    value : float
        The coefficient's value.
    se : float or None
        Its standard error, None without one.
    confidence : float
        The certainty asked of ``certain_band``.
    band : str
        The band the value falls in.
    certain_band : str or None
        The highest band whose cumulative probability is at least ``confidence``.
    probabilities : tuple of float or None
        P(band) for each band, from the highest band down.
    cumulative_probabilities : tuple of float or None
        P(this band or a higher one), from the highest band down; the last is 1.

    Examples
    --------
    >>> import kappalab as kl
    >>> result = kl.interpret((0.67, 0.15), "altman")   # irrCAC's example
    >>> result.band, result.certain_band
    ('Good', 'Moderate')
    >>> [round(p, 5) for p in result.cumulative_probabilities]  # irrCAC's CumProb
    [0.18168, 0.67511, 0.96356, 0.99912, 1.0]
    """

    scale: InterpretationScale
    coefficient: str | None
    value: float
    se: float | None
    confidence: float
    band: str
    certain_band: str | None
    probabilities: tuple[float, ...] | None
    cumulative_probabilities: tuple[float, ...] | None

    def to_frame(self):
        """The bands as a ``pandas.DataFrame``, one row each from the highest band down.

        Columns: ``band``, ``interval`` (bracket notation, which ends the band holds),
        ``lower``, ``upper`` (the limits of the probabilities, −1 and 1 at the ends),
        ``probability``, ``cumulative_probability`` (NaN without a standard error),
        ``contains_value`` (the value's band) and ``certain_band`` (the band reached with
        ``confidence``).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import kappalab as kl
        >>> frame = kl.interpret((0.67, 0.15), "fleiss").to_frame()
        >>> frame[["band", "probability", "cumulative_probability", "certain_band"]].round(4)
                           band  probability  cumulative_probability  certain_band
        0             Excellent       0.2870                  0.2870         False
        1  Intermediate to Good       0.6766                  0.9636          True
        2                  Poor       0.0364                  1.0000         False
        """
        import pandas as pd

        scale = self.scale
        top_down = range(len(scale.labels) - 1, -1, -1)
        limits = scale.limits()
        nan_column = (math.nan,) * len(scale.labels)
        return pd.DataFrame({
            "band": [scale.labels[k] for k in top_down],
            "interval": [scale.interval(k) for k in top_down],
            "lower": [limits[k][0] for k in top_down],
            "upper": [limits[k][1] for k in top_down],
            "probability": self.probabilities or nan_column,
            "cumulative_probability": self.cumulative_probabilities or nan_column,
            "contains_value": [scale.labels[k] == self.band for k in top_down],
            "certain_band": [scale.labels[k] == self.certain_band for k in top_down],
        }, columns=list(FRAME_COLUMNS))

    def _headline(self) -> list[str]:
        name = self.coefficient or "value"
        se = "" if self.se is None else f" (SE {self.se:.4f})"
        lines = [f"{name} = {self.value:.4f}{se} on the {self.scale.title} scale",
                 f"  the value is in band: {self.band}"]
        if self.certain_band is not None:
            lines.append(f"  reached with {self.confidence:.0%} certainty: {self.certain_band}")
        return lines

    def __str__(self) -> str:
        frame = self.to_frame()
        marks = [", ".join(mark for mark, here in (
            ("value", holds), (f"{self.confidence:.0%} certain", certain)) if here)
            for holds, certain in zip(frame["contains_value"], frame["certain_band"])]
        frame = frame[["band", "interval", "probability", "cumulative_probability"]].rename(
            columns={"cumulative_probability": "cumulative"})
        if self.se is None:
            frame = frame.drop(columns=["probability", "cumulative"])
        frame[""] = marks
        table = frame.to_string(index=False, float_format=lambda x: f"{x:.4f}")
        return "\n".join(self._headline() + [line.rstrip() for line in table.split("\n")])

    def _repr_html_(self) -> str:
        """The headline and the table of bands, for notebooks."""
        head = "<br>".join(html.escape(line.strip()) for line in self._headline())
        frame = self.to_frame().drop(columns=["lower", "upper"])
        return f"<div class=\"kappalab-benchmark\"><p>{head}</p>" \
               f"{frame.to_html(index=False, float_format=lambda x: f'{x:.4f}')}</div>"


def band_probabilities(value: float, se: float, lower: Any, upper: Any) -> np.ndarray:
    r"""P(lower ≤ κ ≤ upper) under the normal approximation truncated to [−1, 1].

    .. math::

        P(a ≤ κ ≤ b) = \frac{Φ((\hat κ − a)/\mathrm{SE}) − Φ((\hat κ − b)/\mathrm{SE})}
                            {Φ((\hat κ + 1)/\mathrm{SE}) − Φ((\hat κ − 1)/\mathrm{SE})},

    Gwet's (2014) interval membership probability as irrCAC computes it, −1 ≤ a ≤ b ≤ 1. With
    SE = 0 the distribution is the point κ̂ and the caller uses the value's band instead.

    Parameters
    ----------
    value : float
        κ̂, finite.
    se : float
        Its standard error, finite and > 0.
    lower, upper : array-like of float
        The intervals' limits, in [−1, 1].

    Returns
    -------
    numpy.ndarray
        One probability per interval.

    Raises
    ------
    InvalidParameterError
        If the normal approximation puts no probability on [−1, 1] (a value far outside it
        for its standard error).

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced Analytics.

    Examples
    --------
    >>> from kappalab.interpretation import band_probabilities
    >>> band_probabilities(0.0, 0.5, [-1.0, 0.0], [0.0, 1.0]).round(6)  # symmetric
    array([0.5, 0.5])
    """
    from scipy.stats import norm

    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    on_scale = norm.cdf((value + 1.0) / se) - norm.cdf((value - 1.0) / se)
    if not on_scale > 0:
        raise InvalidParameterError(
            f"the normal approximation of {value!r} with standard error {se!r} puts no "
            "probability on [-1, 1]; its band is the value's band")
    return (norm.cdf((value - lower) / se) - norm.cdf((value - upper) / se)) / on_scale


def _real(x: Any) -> bool:
    return isinstance(x, (numbers.Real, np.floating, np.integer)) and \
        not isinstance(x, (bool, np.bool_))


def _value_and_se(estimate: Any) -> tuple[float, float | None, str | None]:
    """(value, se, coefficient name) of what :func:`interpret` takes, checked."""
    if isinstance(estimate, Estimate):
        value, se, name = estimate.value, estimate.se, estimate.coefficient
        where = f"{estimate.coefficient}'s "
    elif _real(estimate):
        value, se, name, where = estimate, None, None, ""
    elif isinstance(estimate, (tuple, list)) and len(estimate) == 2 and _real(estimate[0]) \
            and (estimate[1] is None or _real(estimate[1])):
        (value, se), name, where = estimate, None, ""
    else:
        raise InvalidParameterError(
            "interpret takes an Estimate, a number or a (value, se) pair of numbers, got "
            f"{estimate!r}")
    value = float(value)
    if not math.isfinite(value):
        raise MissingValueError(
            f"{where}value is {value}: a coefficient that is undefined on its data has no band")
    if se is not None:
        se = float(se)
        if not math.isfinite(se):
            raise MissingValueError(
                f"{where}standard error is {se}: interpret the value alone (without the SE) "
                "or use another interval method")
        if se < 0:
            raise InvalidParameterError(f"a standard error cannot be negative, got {se}")
    return value, se, name


def interpret(estimate: Any, scale: Any = "landis-koch", *,
              confidence: float = 0.95) -> Interpretation:
    r"""The band of an interpretation scale an agreement coefficient reaches.

    Without a standard error, the band the value falls in (the boundaries as the scale's
    authors set them; see :mod:`kappalab.interpretation`). With one — an
    :class:`~kappalab.Estimate` computed with ``ci=``, or a ``(value, se)`` pair — Gwet's
    (2014) probabilistic benchmarking: under the normal approximation truncated to [−1, 1],
    band k = [a_k, b_k] holds the coefficient with probability

    .. math::

        P_k = \frac{Φ((\hat κ − a_k)/\mathrm{SE}) − Φ((\hat κ − b_k)/\mathrm{SE})}
                   {Φ((\hat κ + 1)/\mathrm{SE}) − Φ((\hat κ − 1)/\mathrm{SE})},

    the cumulative probability of band k is P(κ ≥ a_k) = Σ_{j ≥ k} P_j (the same formula with
    b = 1), and the band reached with certainty ``confidence`` is the highest band whose
    cumulative probability is at least ``confidence``. A large standard error thus moves the
    verdict down from the value's own band: 0.67 ± 0.15 is "Good" on Altman's scale but only
    "Moderate" with 95% certainty. These are irrCAC's numbers (``Benchmark(coeff, se)``),
    which rounds the cumulative probabilities to 5 decimals; kappalab does not round. A
    standard error of 0 is a point: probability 1 for the value's band.

    Parameters
    ----------
    estimate : Estimate, float or (float, float)
        An :class:`~kappalab.Estimate` (its ``se`` is used when it has one), a value, or a
        ``(value, se)`` pair (``se`` may be None).
    scale : str or InterpretationScale, default "landis-koch"
        ``"landis-koch"``, ``"fleiss"``, ``"altman"`` or ``"krippendorff"``
        (:data:`~kappalab.interpretation.SCALES`).
    confidence : float, default 0.95
        The certainty asked of the band reached, in (0, 1).

    Returns
    -------
    Interpretation
        ``band``, ``certain_band``, the per-band ``probabilities`` and
        ``cumulative_probabilities`` (None without a standard error); ``to_frame()`` gives the
        table of bands and ``print`` shows it.

    Raises
    ------
    InvalidParameterError
        An unknown scale, ``confidence`` outside (0, 1), a negative standard error, or an
        input that is not an Estimate, a number or a (value, se) pair.
    MissingValueError
        A NaN or infinite value (an undefined coefficient) or standard error.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced Analytics.
    Its Python and R implementations are the ``irrCAC`` packages (``Benchmark``,
    ``landis.koch.bf``).

    Landis, J. R. & Koch, G. G. (1977). The measurement of observer agreement for categorical
    data. *Biometrics* 33(1), 159–174. doi:10.2307/2529310

    Fleiss, J. L. (1981). *Statistical Methods for Rates and Proportions* (2nd ed.). Wiley.

    Altman, D. G. (1991). *Practical Statistics for Medical Research*. Chapman & Hall.

    Krippendorff, K. (2004). *Content Analysis: An Introduction to Its Methodology* (2nd ed.).
    Sage.

    Examples
    --------
    >>> import kappalab as kl
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2], [1, 2, 1], [3, 3, 3], [2, 2, 2]]
    >>> kl.interpret(kl.fleiss_kappa(x)).band
    'Moderate'
    >>> print(kl.interpret(kl.fleiss_kappa(x, ci="analytic")))
    Fleiss' kappa = 0.5594 (SE 0.2070) on the Landis & Koch (1977) scale
      the value is in band: Moderate
      reached with 95% certainty: Fair
              band   interval  probability  cumulative
    Almost Perfect   (0.8, 1]       0.1077      0.1077
       Substantial (0.6, 0.8]       0.3048      0.4125
          Moderate (0.4, 0.6]       0.3631      0.7757       value
              Fair (0.2, 0.4]       0.1824      0.9581 95% certain
            Slight   [0, 0.2]       0.0384      0.9965
              Poor    [-1, 0)       0.0035      1.0000
    >>> kl.interpret(0.7, "krippendorff").band, kl.interpret((0.7, 0.02), "fleiss").certain_band
    ('Tentative conclusions', 'Intermediate to Good')
    """
    value, se, name = _value_and_se(estimate)
    scale = interpretation_scale(scale)
    confidence = check_confidence(confidence)
    band = int(scale.band_index(value))
    probabilities = cumulative = certain = None
    band_shares: tuple[float, ...] | None = None
    reaching: tuple[float, ...] | None = None
    if se is not None:
        top_down = np.arange(len(scale.labels))[::-1]
        if se == 0:
            in_band = (top_down == band).astype(float)
            probabilities, cumulative = in_band, np.cumsum(in_band)
        else:
            lower, upper = np.array(scale.limits())[top_down].T
            probabilities = band_probabilities(value, se, lower, upper)
            cumulative = band_probabilities(value, se, lower, np.ones_like(lower))
        # the highest band whose cumulative probability reaches the confidence; the lowest
        # band's cumulative probability is 1, so one always does
        reached = int(np.argmax(cumulative >= confidence))
        certain = scale.labels[top_down[reached]]
        band_shares = tuple(map(float, probabilities))
        reaching = tuple(map(float, cumulative))
    return Interpretation(scale=scale, coefficient=name, value=value, se=se,
                     confidence=confidence, band=scale.labels[band], certain_band=certain,
                     probabilities=band_shares, cumulative_probabilities=reaching)
