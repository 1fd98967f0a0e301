"""The result type every estimator returns."""

from __future__ import annotations

import html
import math
import numbers
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Iterable, Mapping, TypeGuard, cast

import numpy as np

from .errors import InvalidParameterError

__all__ = ["Estimate", "same_values"]

#: the columns of :meth:`Estimate.to_frame`, in order
FRAME_COLUMNS = ("coefficient", "value", "se", "ci_low", "ci_high", "z", "p_value",
                 "observed", "expected", "level", "n_items", "n_annotations", "n_raters")


@dataclass(frozen=True)
class Estimate:
    r"""A coefficient's value with what it was computed from.

    ``observed`` and ``expected`` are agreements on a 0–1 scale, P_o and P_e with agreement
    weights ``w = 1 − δ/scale`` (see :mod:`kappalab.distances`), so that for a chance-corrected
    coefficient ``value = (observed − expected)/(1 − expected)``. Coefficients defined through
    disagreements (Krippendorff's α, Janson–Olsson's ι, κx) also carry D_o and D_e in the units
    of their distance, with ``value = 1 − D_o/D_e``. ``se`` and ``ci`` are set when an interval
    was asked for. Nothing is rounded except in ``repr`` and ``_repr_html_``.

    An Estimate can be used as its number:

    * ``float(est)`` is the value, ``f"{est:.3f}"`` formats the value with that spec (an empty
      spec, as in ``f"{est}"`` or ``str(est)``, gives the full ``repr``) and ``round(est, 3)``
      is ``round(est.value, 3)``, a float (``round(est)`` an int, as for a float);
    * ``est > 0.6``, ``est <= 0.6`` and ``est == 0.5`` compare the value with a real number
      (NaN compares unequal and unordered, as a float does); two Estimates order by value.

    Equality between two Estimates is *not* by value: they are equal when every field is
    (the same coefficient on the same counts with the same interval and details), NaN equal
    to NaN and arrays in ``details`` compared element-wise, so a pickled copy equals its
    original. ``hash(est)`` is ``hash(est.value)`` (a fixed hash for NaN), consistent with both
    equalities: equal Estimates have equal values, and ``est == x`` only when
    ``est.value == x``. Two different coefficients with the same value therefore hash alike
    but compare unequal.

    With a standard error, ``z`` = θ̂/SE and ``p_value`` = 2·P(T_{n−1} ≥ \|z|) are the Wald test
    of θ = 0 against Student's t with n − 1 degrees of freedom, n = ``n_items``: the test
    dual to the intervals θ̂ ± t_{n−1}·SE of ``ci="analytic"`` and ``"jackknife"`` (a null
    outside the 95% interval has p < 0.05), and irrCAC's p-value (Gwet 2014; irrCAC computes
    2(1 − F_{t, n−1}(\|κ̂/SE|)) with n its number of items). With ``ci="asymptotic"`` (a
    normal interval, SAS PROC FREQ's convention; ``details["reference"] == "normal"``) the
    reference is the standard normal instead: p = 2Φ(−\|z|). :meth:`z_test` tests another
    null, or κ = 0 with the variance under that null (``variance="null"``: Fleiss' κ, whose
    ``details["se_null"]`` is Fleiss, Nee & Landis's 1979 null standard error). Both are None
    without a standard error. The t reference has the interval's degrees of freedom: the
    analytic interval of a coefficient whose chance term also uses items with a single
    annotation (Fleiss', Conger's κ; every coefficient under ``ci="gwet"``) counts those items
    in its n, as irrCAC does, while ``n_items`` counts the pairable items only;
    ``details["df"]`` then holds that n − 1 and :attr:`df` reads it, so the p-value is
    irrCAC's and dual to the interval.

    :meth:`to_frame` puts several estimates in a DataFrame; ``_repr_html_`` shows one as a
    small table in a notebook.

    Parameters
    ----------
    coefficient : str
        The coefficient's name, e.g. ``"Fleiss' kappa"``.
    value : float
        The coefficient's value (NaN where it is undefined).
    observed : float
        P_o, the observed agreement on the 0–1 scale of the weights.
    expected : float
        P_e, the agreement expected by chance on the same scale.
    n_items : int
        The number of items the coefficient used (the pairable items).
    n_annotations : int
        The number of annotations it used.
    level : str, default "nominal"
        The distance or weights name, the ``name`` of the
        :class:`~kappalab.distances.CategoryDistance` used.
    n_raters : int, optional
        The number of raters, when raters are known.
    observed_disagreement : float, optional
        D_o, in the units of the distance (coefficients defined through disagreements).
    expected_disagreement : float, optional
        D_e, in the same units.
    se : float, optional
        The standard error, when an interval was asked for.
    ci : tuple of float, optional
        The confidence interval ``(low, high)``, when one was asked for.
    details : mapping, default {}
        Further numbers particular to the coefficient or to its interval. Krippendorff's
        bootstrap (``krippendorff_alpha(..., ci="krippendorff")``) puts there ``"q"``, a dict
        α_min → the share of bootstrap α's below α_min (Hayes & Krippendorff 2007), which
        ``repr`` prints as ``q(<α_min)=…``.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced
    Analytics. Its Python implementation is the ``irrCAC`` package (``CAC.fleiss()`` etc.).

    Examples
    --------
    >>> import kappalab as kl
    >>> est = kl.fleiss_kappa([[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2], [1, 2, 1]],
    ...                       ci="analytic")
    >>> f"{est:.3f}", round(est, 2), est > 0.2, est == est.value
    ('0.338', 0.34, True, True)
    >>> round(est.se, 4), round(est.z, 4), round(est.p_value, 4)  # z = κ̂/SE, 2·P(T_4 ≥ |z|)
    (0.2536, 1.3338, 0.2531)
    >>> z, p = est.z_test(null=0.9)  # H0: κ = 0.9, inside the 95% interval: p > 0.05
    >>> round(z, 3), round(p, 3)
    (-2.215, 0.091)
    >>> kl.Estimate.to_frame([est, kl.krippendorff_alpha([[1, 1], [2, 2], [1, 2]])])[
    ...     ["coefficient", "value", "p_value"]].round(4)
                coefficient   value  p_value
    0         Fleiss' kappa  0.3382   0.2531
    1  Krippendorff's alpha  0.4444      NaN
    >>> made = kl.Estimate("percent agreement", 0.75, observed=0.75, expected=0.0, n_items=4,
    ...                    n_annotations=8)
    >>> float(made), made.z  # 3 of 4 items agree: 3/4; no standard error, no test
    (0.75, None)
    """

    coefficient: str
    value: float
    observed: float
    expected: float
    n_items: int
    n_annotations: int
    level: str = "nominal"
    n_raters: int | None = None
    observed_disagreement: float | None = None
    expected_disagreement: float | None = None
    se: float | None = None
    ci: tuple[float, float] | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------------ as a number
    def __float__(self) -> float:
        return float(self.value)

    def __format__(self, spec: str) -> str:
        """``format(est, spec)`` is ``format(est.value, spec)``; an empty spec is ``str``."""
        return format(float(self.value), spec) if spec else str(self)

    def __round__(self, ndigits: int | None = None):
        """``round(est, n)`` is ``round(est.value, n)`` (a float); ``round(est)`` an int."""
        return round(float(self.value), ndigits) if ndigits is not None \
            else round(float(self.value))

    def __eq__(self, other: object):
        if isinstance(other, Estimate):
            return all(same_values(getattr(self, f.name), getattr(other, f.name))
                       for f in fields(self))
        if _is_number(other):
            return float(self.value) == other
        return NotImplemented

    def __ne__(self, other: object):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        value = float(self.value)
        return hash(value) if not math.isnan(value) else hash((Estimate, "nan"))

    def __lt__(self, other: object):
        other = _comparable(other)
        return NotImplemented if other is None else float(self.value) < other

    def __le__(self, other: object):
        other = _comparable(other)
        return NotImplemented if other is None else float(self.value) <= other

    def __gt__(self, other: object):
        other = _comparable(other)
        return NotImplemented if other is None else float(self.value) > other

    def __ge__(self, other: object):
        other = _comparable(other)
        return NotImplemented if other is None else float(self.value) >= other

    # ------------------------------------------------------------------ tests
    @property
    def df(self) -> int:
        """n − 1, the degrees of freedom of :attr:`z`'s t reference: n = ``n_items``, or the
        units of the t interval where they are more (``details["df"]``: items with a single
        annotation that Fleiss', Conger's κ and Gwet's formula count)."""
        df = self.details.get("df") if isinstance(self.details, Mapping) else None
        return int(self.n_items) - 1 if df is None else int(df)

    @property
    def z(self) -> float | None:
        """θ̂/SE, the Wald statistic of θ = 0 (None without a standard error)."""
        return None if self.se is None else self._statistic(0.0)

    @property
    def p_value(self) -> float | None:
        r"""Two-sided p-value of θ = 0: 2·P(T_{n−1} ≥ \|θ̂/SE|) (None without a standard error)."""
        return None if self.se is None else self._p(self._statistic(0.0))

    def z_test(self, null: float = 0.0, *, variance: str = "estimated") -> tuple[float, float]:
        r"""The Wald test of θ = ``null``: ``(z, p)``.

        .. math::  z = \frac{\hat θ - θ_0}{\mathrm{SE}}, \qquad
                   p = 2\,P(T_{n-1} \ge |z|),

        T_{n−1} Student's t with n − 1 degrees of freedom (n = ``n_items``), the reference of
        the intervals θ̂ ± t_{n−1}·SE (so p < 1 − confidence exactly when θ₀ is outside the
        analytic interval) and of irrCAC; the standard normal after ``ci="asymptotic"``
        (p = 2Φ(−\|z|), dual to its normal interval). SE = 0 gives z = ±∞ and p = 0 (z NaN
        and p NaN when θ̂ = θ₀ too); a NaN value or SE gives NaN.

        ``variance="null"`` tests κ = 0 with the standard error under that hypothesis,
        SE₀ = ``details["se_null"]`` (Fleiss' κ: Fleiss, Nee & Landis 1979, the test R's
        ``irr::kappam.fleiss`` reports), against the standard normal: z = κ̂/SE₀,
        p = 2Φ(−\|z|). It needs no ``ci=``.

        Parameters
        ----------
        null : float, default 0
            θ₀, a finite number (0 with ``variance="null"``).
        variance : {"estimated", "null"}, default "estimated"
            The estimated standard error ``se``, or the one under κ = 0.

        Returns
        -------
        (z, p) : tuple of float

        Raises
        ------
        InvalidParameterError
            If the estimate has no standard error (ask for one with ``ci=``; with
            ``variance="null"``: no ``details["se_null"]``), ``null`` is not a finite number
            (not 0 with ``variance="null"``), or ``variance`` is another word.

        References
        ----------
        Fleiss, J. L., Nee, J. C. M. & Landis, J. R. (1979). Large sample variance of kappa in
        the case of different sets of raters. *Psychological Bulletin* 86(5), 974–977.
        doi:10.1037/0033-2909.86.5.974

        Examples
        --------
        >>> import kappalab as kl
        >>> est = kl.cohen_kappa([1, 1, 2, 2, 1, 2, 1, 1], [1, 1, 2, 1, 1, 2, 2, 1],
        ...                      ci="analytic")
        >>> z, p = est.z_test(0.5)
        >>> round(z, 4) == round((est.value - 0.5) / est.se, 4), 0 < p < 1
        (True, True)
        >>> fleiss = kl.fleiss_kappa(kl.datasets.load("fleiss_1971"))  # no ci= needed
        >>> z, p = fleiss.z_test(variance="null")  # R irr's kappam.fleiss: z = 17.65
        >>> round(z, 2), p < 1e-60
        (17.65, True)
        """
        if variance not in ("estimated", "null"):
            raise InvalidParameterError(
                f"variance must be 'estimated' (the estimate's se) or 'null' (the standard "
                f"error under kappa = 0), got {variance!r}")
        if isinstance(null, (bool, np.bool_)) or not _is_number(null) \
                or not math.isfinite(float(null)):
            raise InvalidParameterError(f"null must be a finite number, got {null!r}")
        if variance == "null":
            return self._null_test(float(null))
        if self.se is None:
            raise InvalidParameterError(
                f"{self.coefficient} has no standard error to test with; ask the estimator "
                "for one, e.g. ci='analytic'")
        z = self._statistic(float(null))
        return z, self._p(z)

    def _null_test(self, null: float) -> tuple[float, float]:
        """κ̂/SE₀ against the standard normal (Fleiss, Nee & Landis 1979)."""
        se_null = self.details.get("se_null") if isinstance(self.details, Mapping) else None
        if se_null is None:
            raise InvalidParameterError(
                f"{self.coefficient} has no standard error under the null hypothesis kappa = 0 "
                "(details['se_null']); kl.fleiss_kappa gives it for unweighted Fleiss' kappa "
                "(Fleiss, Nee & Landis 1979). Test with the estimated SE instead: ask for ci= "
                "and call z_test()")
        if null != 0:
            raise InvalidParameterError(
                f"the null variance is that of κ = 0, not of κ = {null!r}; to test another "
                "value use the estimated SE: ask for ci= and call z_test(null)")
        z = self._statistic(0.0, float(se_null))
        return z, (math.nan if math.isnan(z) else float(2.0 * _normal_sf(abs(z))))

    def _statistic(self, null: float, se: float | None = None) -> float:
        difference = float(self.value) - null
        if se is None:
            assert self.se is not None, "the callers test the estimated SE first"
            se = float(self.se)
        if math.isnan(difference) or math.isnan(se) or (se == 0 and difference == 0):
            return math.nan
        if se == 0:
            return math.copysign(math.inf, difference)
        return difference / se

    @property
    def _normal_reference(self) -> bool:
        """Whether the interval was a normal one (``ci="asymptotic"``), so the test is too."""
        return isinstance(self.details, Mapping) and self.details.get("reference") == "normal"

    def _p(self, z: float) -> float:
        from scipy.stats import t as student_t

        if math.isnan(z):
            return math.nan
        if self._normal_reference:
            return float(2.0 * _normal_sf(abs(z)))
        if self.df < 1:
            return math.nan
        return float(2.0 * student_t.sf(abs(z), self.df))

    # ------------------------------------------------------------------ tables
    def to_dict(self) -> dict[str, Any]:
        """Every field by name (``details`` a plain dict), for ``pd.DataFrame([...])``."""
        out = asdict(self)
        out["details"] = dict(self.details)
        return out

    def _row(self) -> dict[str, Any]:
        nan = math.nan
        low, high = self.ci if self.ci is not None else (nan, nan)
        z = self.z
        return {"coefficient": self.coefficient, "value": float(self.value),
                "se": nan if self.se is None else float(self.se),
                "ci_low": float(low), "ci_high": float(high),
                "z": nan if z is None else z,
                "p_value": nan if z is None else self._p(z),
                "observed": float(self.observed), "expected": float(self.expected),
                "level": self.level, "n_items": self.n_items,
                "n_annotations": self.n_annotations,
                "n_raters": nan if self.n_raters is None else self.n_raters}

    @classmethod
    def to_frame(cls, estimates: Iterable[Estimate]):
        """A ``pandas.DataFrame`` of several estimates, one row each, in order.

        Columns: coefficient, value, se, ci_low, ci_high, z, p_value, observed, expected,
        level, n_items, n_annotations, n_raters (NaN where an estimate has no such number,
        e.g. no standard error). ``pd.DataFrame([est.to_dict() for est in estimates])`` keeps
        every field instead, ``ci`` as a tuple and ``details`` as a dict.

        >>> import kappalab as kl
        >>> x = [[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2]]
        >>> frame = kl.Estimate.to_frame([kl.fleiss_kappa(x), kl.gwet_ac(x)])
        >>> frame[["coefficient", "value", "n_items"]].round(4)
             coefficient   value  n_items
        0  Fleiss' kappa  0.4667        4
        1     Gwet's AC1  0.5152        4
        """
        import pandas as pd

        rows = []
        for position, estimate in enumerate(estimates):
            if not isinstance(estimate, Estimate):
                raise InvalidParameterError(
                    f"to_frame takes Estimates; item {position} is {type(estimate).__name__}")
            rows.append(estimate._row())
        return pd.DataFrame.from_records(rows, columns=list(FRAME_COLUMNS))

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        parts = [f"{self.coefficient} = {self.value:.4f}"]
        if self.ci is not None:
            parts.append(f"ci=({self.ci[0]:.4f}, {self.ci[1]:.4f})")
        if self.se is not None:
            parts.append(f"se={self.se:.4f}")
        parts.append(f"level={self.level!r}")
        parts.append(f"observed={self.observed:.4f}")
        parts.append(f"expected={self.expected:.4f}")
        parts.append(f"items={self.n_items}")
        parts.append(f"annotations={self.n_annotations}")
        if self.n_raters is not None:
            parts.append(f"raters={self.n_raters}")
        parts += [f"q(<{threshold:g})={share:.4f}" for threshold, share in self._q()]
        return f"Estimate({', '.join(parts)})"

    def _q(self) -> list[tuple[float, float]]:
        """(α_min, q) of ``details["q"]``: the probability of failing to reach each smallest
        acceptable value under Krippendorff's bootstrap (empty without it)."""
        q = self.details.get("q") if isinstance(self.details, Mapping) else None
        if not isinstance(q, Mapping):
            return []
        return [(float(threshold), float(share)) for threshold, share in q.items()]

    def _repr_html_(self) -> str:
        """A small HTML table (notebooks): the value, its SE, interval and test, the counts."""
        row = self._row()
        cells = [("value", f"{row['value']:.4f}")]
        if self.se is not None:
            cells.append(("se", f"{row['se']:.4f}"))
        if self.ci is not None:
            cells.append(("ci", f"[{row['ci_low']:.4f}, {row['ci_high']:.4f}]"))
        if self.se is not None:
            cells += [("z", f"{row['z']:.3f}"), ("p-value", f"{row['p_value']:.3g}")]
        cells += [("observed", f"{row['observed']:.4f}"), ("expected", f"{row['expected']:.4f}"),
                  ("level", str(self.level)), ("items", str(self.n_items)),
                  ("annotations", str(self.n_annotations))]
        if self.n_raters is not None:
            cells.append(("raters", str(self.n_raters)))
        cells += [(f"q(α < {threshold:g})", f"{share:.4f}") for threshold, share in self._q()]
        body = "".join(f"<tr><th>{html.escape(name)}</th><td>{html.escape(text)}</td></tr>"
                       for name, text in cells)
        return (f"<table class=\"kappalab-estimate\"><caption>{html.escape(str(self.coefficient))}"
                f"</caption>{body}</table>")


def _normal_sf(z: float) -> float:
    """P(Z ≥ z) for the standard normal."""
    from scipy.special import ndtr

    return float(ndtr(-z))


def _is_number(x: object) -> TypeGuard[numbers.Real]:
    return isinstance(x, numbers.Real) and not isinstance(x, Estimate)


def _comparable(other: object) -> float | None:
    """The number an Estimate orders against (another Estimate's value), else None."""
    if isinstance(other, Estimate):
        return float(other.value)
    # a real number is compared as it is (a Fraction exactly, not rounded to a float)
    return cast(float, other) if _is_number(other) else None


def _is_pandas(x: Any) -> bool:
    """Whether ``x`` is a pandas Series or DataFrame (without importing pandas)."""
    return type(x).__module__.split(".")[0] == "pandas" and hasattr(x, "equals") \
        and hasattr(x, "index")


def same_values(a: Any, b: Any) -> bool:
    """Equality of result fields (an Estimate's, a simulation Truth's): NaN equals NaN,
    arrays element-wise, mappings key-wise, sequences item-wise, pandas Series and
    DataFrames by ``equals`` (values, NaN in the same places, index and name).

    Parameters
    ----------
    a, b : object
        The two values: numbers, arrays, mappings, tuples or lists of them, or anything
        comparable with ``==``.

    Returns
    -------
    bool
        Whether they are the same values.

    Examples
    --------
    >>> same_values(np.array([1.0, np.nan]), np.array([1.0, np.nan]))  # NaN equals NaN
    True
    >>> same_values((1, 2), [1, 2])  # a tuple is not a list
    False
    >>> same_values({"x": float("nan"), "y": (1, 2.0)}, {"x": float("nan"), "y": (1, 2)})
    True
    >>> import pandas as pd
    >>> same_values(pd.Series([0.5, np.nan], index=["a", "b"]),
    ...             pd.Series([0.5, np.nan], index=["a", "b"]))
    True
    """
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same_values(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        try:
            return bool(np.array_equal(a, b, equal_nan=True))
        except TypeError:  # non-numeric arrays
            return bool(np.array_equal(a, b))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same_values, a, b))
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        return bool(a == b) or (math.isnan(float(a)) and math.isnan(float(b)))
    if _is_pandas(a) or _is_pandas(b):  # a Series or DataFrame in details (per-rater values)
        return type(a) is type(b) and bool(a.equals(b)) and bool(a.index.equals(b.index)) \
            and getattr(a, "name", None) == getattr(b, "name", None)
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b
