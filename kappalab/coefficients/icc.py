r"""The intraclass correlations of Shrout & Fleiss (1979) and McGraw & Wong (1996), from the
two-way analysis of variance of n items (targets) × k raters (judges) on the item-sum spine.

On complete data (every item rated once by each of the k raters) the mean squares of the
two-way ANOVA are closed forms of per-item sums (docs/architecture.md, "The item-sum spine").
With x_ij the rating of item i by rater j, the item statistics are

.. math::  s_i = \Big[1,\; r_i^2,\; \sum_j (x_{ij} - r_i/k)^2,\; x_{i1}, …, x_{ik}\Big],
           \qquad r_i = \sum_j x_{ij},

whose totals give n, Σ_i r_i², the within-item sum of squares SS_W, and the rater sums
C_j = Σ_i x_ij (G = Σ_j C_j):

.. math::  SS_R = \frac{\sum_i r_i^2}{k} - \frac{G^2}{nk}, \qquad
           SS_C = n \sum_j \Big(\frac{C_j}{n} - \frac{G}{nk}\Big)^2, \qquad
           SS_E = SS_W - SS_C,

.. math::  MS_R = \frac{SS_R}{n-1}, \quad MS_C = \frac{SS_C}{k-1}, \quad
           MS_E = \frac{SS_E}{(n-1)(k-1)}, \quad MS_W = \frac{SS_W}{n(k-1)} .

The six forms (Shrout & Fleiss 1979, eqs 2–4 and their means of k ratings; McGraw & Wong
1996, Table 4):

.. math::  ICC(1,1) = \frac{MS_R - MS_W}{MS_R + (k-1)MS_W}, \qquad
           ICC(2,1) = \frac{MS_R - MS_E}{MS_R + (k-1)MS_E + k(MS_C - MS_E)/n},

.. math::  ICC(3,1) = \frac{MS_R - MS_E}{MS_R + (k-1)MS_E},

and ICC(f,k), the reliability of the mean of the k raters, is the Spearman–Brown prophecy of
ICC(f,1) for k ratings (:func:`kappalab.kernels.spearman_brown`), which is Shrout & Fleiss'
ICC(1,k) = (MS_R − MS_W)/MS_R, ICC(2,k) = (MS_R − MS_E)/(MS_R + (MS_C − MS_E)/n) and
ICC(3,k) = (MS_R − MS_E)/MS_R. Sample weights, the analytic standard error, the bootstrap
and the jackknife then come from the spine; the F intervals of Shrout & Fleiss and McGraw &
Wong are computed from the same mean squares (:func:`icc`).

The ratings are first mapped onto [−1, 1] by their midrange and half-span, then centred on
their mean and divided by their largest absolute deviation, which changes no ICC (each is
invariant to an affine map of all ratings) but keeps the sums of squares free of
cancellation, overflow and underflow whatever the magnitude of the ratings (1e±300).

References
----------
Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater
reliability. *Psychological Bulletin* 86(2), 420–428. doi:10.1037/0033-2909.86.2.420

McGraw, K. O. & Wong, S. P. (1996). Forming inferences about some intraclass correlation
coefficients. *Psychological Methods* 1(1), 30–46. doi:10.1037/1082-989X.1.1.30
"""

from __future__ import annotations

import copy
import re
from dataclasses import replace
import warnings
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from ..annotations import AnnotationsLike, as_annotations
from ..docstrings import shared_parameters
from ..errors import (EmptyDataError, IncompleteItemsWarning, InvalidParameterError,
                      RaterCountError, warn)
from ..estimate import Estimate
from ..kernels import column_totals, single_blas_thread, spearman_brown
from ..uncertainty import F_INTERVAL, Interval, IntervalOptions
from ..validation import SampleWeightLike, SeedLike, check_confidence, check_sample_weight
from .base import Components, ItemSumCoefficient, numeric_array, safe_divide

__all__ = ["FORMS", "IntraclassCorrelationCore", "icc", "icc_core", "icc_form", "icc_table"]

#: the six forms: Shrout & Fleiss' name → (model, pingouin's and McGraw & Wong's label,
#: McGraw & Wong's description)
FORMS = {
    "ICC(1,1)": (1, "ICC(1,1)", "one-way random, single rater"),
    "ICC(2,1)": (2, "ICC(A,1)", "two-way random, absolute agreement, single rater"),
    "ICC(3,1)": (3, "ICC(C,1)", "two-way mixed, consistency, single rater"),
    "ICC(1,k)": (1, "ICC(1,k)", "one-way random, mean of k raters"),
    "ICC(2,k)": (2, "ICC(A,k)", "two-way random, absolute agreement, mean of k raters"),
    "ICC(3,k)": (3, "ICC(C,k)", "two-way mixed, consistency, mean of k raters"),
}

#: other names of the forms (compared without spaces, case, "-", "_"): pingouin's and psych's
#: ICC1 … ICC3k, McGraw & Wong's ICC(A,1), ICC(C,k), …, and their descriptions. McGraw &
#: Wong's two-way random and two-way mixed models share the estimator of each type (absolute
#: agreement, consistency): their Table 4 gives one formula for both.
_ALIASES = {
    "ICC1": "ICC(1,1)", "ICC2": "ICC(2,1)", "ICC3": "ICC(3,1)",
    "ICC1K": "ICC(1,k)", "ICC2K": "ICC(2,k)", "ICC3K": "ICC(3,k)",
    "ICC(1)": "ICC(1,1)", "ICC(K)": "ICC(1,k)",
    "ICC(A,1)": "ICC(2,1)", "ICC(C,1)": "ICC(3,1)", "ICC(A,K)": "ICC(2,k)",
    "ICC(C,K)": "ICC(3,k)",
}
_DESCRIPTIONS = {
    ("one way random", "single"): "ICC(1,1)", ("one way random", "average"): "ICC(1,k)",
}
for _model in ("two way random", "two way mixed"):
    for _type, _number in (("absolute agreement", 2), ("consistency", 3)):
        _DESCRIPTIONS[(f"{_model} {_type}", "single")] = f"ICC({_number},1)"
        _DESCRIPTIONS[(f"{_model} {_type}", "average")] = f"ICC({_number},k)"
#: words a description may carry that do not change the form
_FILLER = {"effects", "effect", "model", "measures", "measure", "rater", "raters", "rating",
           "ratings", "score", "scores", "of", "k", "the"}
_AVERAGE = {"average", "mean"}


def icc_form(form: str, n_raters: int | None = None) -> str:
    """Shrout & Fleiss' name of an ICC form given by any of its names.

    Accepted (case, spaces, ``-`` and ``_`` ignored): Shrout & Fleiss' ``"ICC(1,1)"``,
    ``"ICC(2,1)"``, ``"ICC(3,1)"``, ``"ICC(1,k)"``, ``"ICC(2,k)"``, ``"ICC(3,k)"`` (also with
    the number of raters for k, ``"ICC(2,4)"``, when ``n_raters`` is given); pingouin's and
    psych's ``"ICC1"`` … ``"ICC3k"``; McGraw & Wong's ``"ICC(1)"``, ``"ICC(k)"``,
    ``"ICC(A,1)"``, ``"ICC(C,1)"``, ``"ICC(A,k)"``, ``"ICC(C,k)"``; and their descriptions,
    ``"one-way random single"``, ``"two-way random absolute agreement single"``,
    ``"two-way mixed consistency average"``, … (``"single"`` or ``"average"``/``"mean"``;
    two-way random and two-way mixed name the same estimator of each type).

    Parameters
    ----------
    form : str
        The name.
    n_raters : int, optional
        k, the number of raters of the data, which ``"ICC(f,<k>)"`` may name.

    Returns
    -------
    str
        A key of :data:`FORMS`.

    Raises
    ------
    InvalidParameterError
        An unknown name, or ``"ICC(f,m)"`` with m neither 1 nor ``n_raters``.

    Examples
    --------
    >>> icc_form("ICC2k"), icc_form("two-way mixed consistency single"), icc_form("ICC(2,4)", 4)
    ('ICC(2,k)', 'ICC(3,1)', 'ICC(2,k)')
    """
    if not isinstance(form, str):
        raise InvalidParameterError(f"form must be a name such as 'ICC(2,1)', got {form!r}")
    compact = re.sub(r"[\s_]", "", form).upper()
    if compact in {key.upper() for key in FORMS}:
        return next(key for key in FORMS if key.upper() == compact)
    if compact in _ALIASES:
        return _ALIASES[compact]
    numbered = re.fullmatch(r"ICC\(([123]),(\d+)\)", compact)
    if numbered:
        model, m = numbered.group(1), int(numbered.group(2))
        if m == 1:
            return f"ICC({model},1)"
        if n_raters is not None and m == n_raters:
            return f"ICC({model},k)"
        raise InvalidParameterError(
            f"{form!r} names the mean of {m} raters, but the data have "
            f"{n_raters if n_raters is not None else 'an unknown number of'} raters; use "
            f"'ICC({model},1)' or 'ICC({model},k)'")
    words = [w for w in re.sub(r"[-_,]", " ", form.lower()).split() if w not in _FILLER]
    if words and words[-1] in _AVERAGE | {"single"}:
        key = (" ".join(words[:-1]), "average" if words[-1] in _AVERAGE else "single")
        if key in _DESCRIPTIONS:
            return _DESCRIPTIONS[key]
    raise InvalidParameterError(
        f"unknown ICC form {form!r}: use one of {list(FORMS)} (Shrout & Fleiss 1979), "
        "ICC1 … ICC3k, ICC(A,1), ICC(C,k), … (McGraw & Wong 1996) or a description such as "
        "'two-way random absolute agreement single', or 'all' for the table of the six")


class IntraclassCorrelationCore(ItemSumCoefficient):
    r"""An intraclass correlation on the spine, from complete n × k ratings.

    Item statistics (dense, n × (3 + k)): [1, r_i², Σ_j (x_ij − r_i/k)², x_i1, …, x_ik] of
    the ratings centred and scaled (see :mod:`kappalab.coefficients.icc`); ``combine`` forms
    the mean squares and the form's ICC. Components: ``value`` (the ICC), ``observed`` (the
    ICC: it has no chance term), ``expected`` (0), ``ms_rows``, ``ms_columns``, ``ms_error``,
    ``ms_within`` (in the units of the scaled ratings) and ``n`` (Σ w_i).

    Parameters
    ----------
    ratings : array-like
        n × k complete ratings (items × raters), finite numbers, k ≥ 2.
    form : str, default "ICC(2,1)"
        A key of :data:`FORMS` or another name of it (:func:`icc_form`).
    sample_weight : array-like, optional
        One weight w_i ≥ 0 per row of ``ratings``
        (:meth:`~ItemSumCoefficient.set_sample_weight`).
    item_labels : pandas.Index, optional
        The label of each row, which pairs the items of two data sets in
        :func:`kappalab.compare`.

    Examples
    --------
    >>> core = IntraclassCorrelationCore([[1, 2], [3, 3], [5, 6]], form="ICC(1,1)")
    >>> core.item_stats().shape  # 3 items × (3 + 2)
    (3, 5)
    >>> round(float(core.combine(core.totals())["value"]), 4)  # MS_R = 49/6, MS_W = 1/3: 47/51
    0.9216
    """

    level = "interval"
    upper_bound = 1.0
    #: items of the data dropped for a missing rating (:func:`icc_core`)
    n_items_dropped: int = 0

    def __init__(self, ratings: Any, form: str = "ICC(2,1)", sample_weight: SampleWeightLike = None,
                 item_labels: Any = None):
        x = np.asarray(ratings, dtype=float)
        if x.ndim != 2 or x.shape[1] < 2 or not np.isfinite(x).all():
            raise InvalidParameterError(
                "the ICC needs an n × k table of finite ratings with k ≥ 2 raters, got "
                f"shape {x.shape}")
        self.n_items_total, self.k = x.shape
        self.form = icc_form(form, self.k)
        self.name = self.form
        self.set_sample_weight(sample_weight, x.shape[0])
        self.item_labels = item_labels
        # first onto [−1, 1] by the midrange and half-span (no overflow or underflow at any
        # magnitude, 1e±300), then centred and scaled to a largest |deviation| of 1
        low, high = (float(x.min()), float(x.max())) if x.size else (0.0, 0.0)
        half = high / 2 - low / 2
        half = half if half > 0 else 1.0
        z = x - (low / 2 + high / 2)  # a new array, changed in place from here on
        z /= half
        center = float(z.mean()) if z.size else 0.0
        z -= center
        spread = max(float(z.max()), -float(z.min())) if z.size else 0.0  # max |z − center|
        spread = spread if spread > 0 else 1.0
        #: the unit of the scaled ratings, in the data's units (the mean squares × scale²)
        self.scale = np.float64(half) * spread
        z /= spread
        self.x = z
        # computed once and shared with the copies of with_form: (sample weights, totals),
        # (totals, form, combine(totals)), (totals, {(form, confidence): F test})
        self._totals: tuple[np.ndarray | None, np.ndarray] | None = None
        self._combined: tuple[np.ndarray, str, Components] | None = None
        self._f_tests: tuple[np.ndarray, dict[tuple[str, float], dict[str, Any]]] | None = None

    def with_form(self, form: str) -> "IntraclassCorrelationCore":
        """The same core for another form (no statistic recomputed: the totals are summed
        once, here if not yet, and shared)."""
        self.totals()
        other = copy.copy(self)
        other.form = other.name = icc_form(form, self.k)
        return other

    def _row_sums_and_deviations(self) -> tuple[np.ndarray, np.ndarray]:
        """r_i = Σ_j x_ij and the squared deviations (x_ij − r_i/k)², items × k."""
        with single_blas_thread():  # a skinny product (kernels.single_blas_thread)
            r = self.x @ np.ones(self.k)
        d = self.x - (r / self.k)[:, None]
        d *= d
        return r, d

    def unweighted_item_stats(self) -> np.ndarray:
        r, d = self._row_sums_and_deviations()
        with single_blas_thread():
            within = d @ np.ones(self.k)
        return np.column_stack([np.ones(r.size), r * r, within, self.x])

    def totals(self) -> np.ndarray:
        """``Σ_i w_i s_i = [Σ w, Σ w r², Σ w Σ_j (x − r/k)², Σ w x_·1, …, Σ w x_·k]``, summed
        without the items × (3 + k) statistics (pairwise, and the rater columns by
        :func:`~kappalab.kernels.column_totals`, so the rounding error does not grow with the
        items), once per core and sample weights: the estimate, its details, the F test
        and the other forms of :meth:`with_form` share them (read-only)."""
        cached = self._totals
        if cached is not None and cached[0] is self.sample_weight:
            return cached[1]
        w = self.sample_weight
        r, d = self._row_sums_and_deviations()
        if w is None:
            head = [float(r.size), float(np.sum(r * r)), float(np.sum(d))]
        else:
            with single_blas_thread():
                within = d @ np.ones(self.k)
            head = [float(np.sum(w)), float(np.sum(w * (r * r))), float(np.sum(w * within))]
        totals = np.concatenate([head, column_totals(self.x, w)])
        totals.setflags(write=False)
        self._totals = (w, totals)
        return totals

    def mean_squares(self, totals: np.ndarray) -> Components:
        """MS_R, MS_C, MS_E, MS_W and n from totals (…, 3 + k), in scaled units."""
        t = numeric_array(totals)
        k = self.k
        n, r2, ss_w, c = t[..., 0], t[..., 1], t[..., 2], t[..., 3:]
        g = c.sum(axis=-1)
        ss_r = r2 / k - safe_divide(g * g, n * k)
        deviation = safe_divide(c, n[..., None]) - safe_divide(g, n * k)[..., None]
        ss_c = n * (deviation * deviation).sum(axis=-1)
        ss_e = ss_w - ss_c
        ss_e = np.where(np.real(ss_e) > 0, ss_e, 0 * ss_e)  # rounding below 0
        return {"ms_rows": safe_divide(ss_r, n - 1), "ms_columns": ss_c / (k - 1),
                "ms_error": safe_divide(ss_e, (n - 1) * (k - 1)),
                "ms_within": safe_divide(ss_w, n * (k - 1)), "n": n}

    def combine(self, totals: np.ndarray) -> Components:
        ms = self.mean_squares(totals)
        k, n = self.k, ms["n"]
        msr, msc, mse, msw = ms["ms_rows"], ms["ms_columns"], ms["ms_error"], ms["ms_within"]
        model = FORMS[self.form][0]
        if model == 1:
            single = safe_divide(msr - msw, msr + (k - 1) * msw)
        elif model == 2:
            single = safe_divide(msr - mse, msr + (k - 1) * mse + k * safe_divide(msc - mse, n))
        else:
            single = safe_divide(msr - mse, msr + (k - 1) * mse)
        value = single if self.form.endswith(",1)") else _spearman_brown(single, k)
        return dict(ms, value=value, observed=value, expected=np.zeros_like(value))

    def undefined_reason(self, parts: Components) -> str | None:
        n = float(np.real(np.asarray(parts["n"]).reshape(-1)[0]))
        if n < 2:
            return "it needs at least two items rated by every rater"
        if np.isnan(np.asarray(parts["value"]).reshape(-1)[0]):
            if float(np.real(np.asarray(parts["ms_within"]).reshape(-1)[0])) == 0 and \
                    float(np.real(np.asarray(parts["ms_rows"]).reshape(-1)[0])) == 0:
                return "every rating is the same"
            return ("its denominator is 0: the items do not vary "
                    "beyond the raters' systematic differences")
        return None

    def counts_used(self) -> dict[str, Any]:
        used = int((self.item_weights(self.n_items_total) > 0).sum())
        return {"n_items": used, "n_annotations": used * self.k, "n_raters": self.k}

    def f_test(self, confidence: float = 0.95) -> dict[str, Any]:
        """The F test of ICC = 0 and the F-based confidence interval of the form (Shrout &
        Fleiss 1979, Table 3; McGraw & Wong 1996, Tables 7–8), as pingouin computes them (see
        :func:`icc`): keys ``F``, ``df1``, ``df2``, ``F_p_value``, ``ci``."""
        key = (self.form, confidence)
        cached = self._f_tests
        if cached is None or cached[0] is not self.totals():
            cached = self._f_tests = (self.totals(), {})
        if key not in cached[1]:
            cached[1][key] = _f_test(self.form, self._parts(), self.k, confidence)
        return dict(cached[1][key])

    def _parts(self) -> Components:
        """``combine(totals())`` of the form, once per form and totals."""
        totals = self.totals()
        cached = self._combined
        if cached is None or cached[0] is not totals or cached[1] != self.form:
            cached = self._combined = (totals, self.form, self.combine(totals))
        return cached[2]

    def f_interval(self, options: IntervalOptions) -> Interval:
        """The F interval of the form at ``options.confidence`` (``ci="F"``, :meth:`f_test`);
        no standard error."""
        low, high = self.f_test(options.confidence)["ci"]
        return Interval(None, low, high, F_INTERVAL, F_INTERVAL,
                        int(self.counts_used()["n_items"]), options.confidence)

    #: ``ci="F"``: the F interval, beside the spine's methods
    interval_methods = MappingProxyType({F_INTERVAL: f_interval})

    def details(self) -> dict[str, Any]:
        ms = self._parts()
        with np.errstate(over="ignore", under="ignore"):  # beyond 1e±154: inf or 0, as is
            units = self.scale * self.scale
        return {"form": self.form, "type": FORMS[self.form][1],
                "description": FORMS[self.form][2],
                "ms_rows": float(ms["ms_rows"]) * units,
                "ms_columns": float(ms["ms_columns"]) * units,
                "ms_error": float(ms["ms_error"]) * units,
                "ms_within": float(ms["ms_within"]) * units}


def _spearman_brown(single: Any, k: int) -> Any:
    """ICC(f,k) from ICC(f,1): the mean of k ratings (Shrout & Fleiss 1979, eq. 5)."""
    single = numeric_array(single)
    return spearman_brown(single[..., None], k)[..., 0]  # an array: mpmath scalars too


def _f_test(form: str, ms: Components, k: int, confidence: float) -> dict[str, Any]:
    r"""The F test and F interval of an ICC form from its mean squares.

    Models 1 and 3: F = MS_R/MS_W with (n − 1, n(k − 1)) and F = MS_R/MS_E with
    (n − 1, (n − 1)(k − 1)) degrees of freedom; with F_L = F/F_{1−α/2}(df1, df2) and
    F_U = F·F_{1−α/2}(df2, df1) the single-rater bounds are (F_L − 1)/(F_L + k − 1) and
    (F_U − 1)/(F_U + k − 1). Model 2: McGraw & Wong's (1996, Table 7, case 2A) bounds with
    Satterthwaite's degrees of freedom v. The bounds of ICC(f,k) are the Spearman–Brown
    prophecies of those of ICC(f,1) (1 − 1/F_L and 1 − 1/F_U for models 1 and 3).
    """
    value = lambda key: np.float64(np.real(np.asarray(ms[key]).reshape(-1)[0]))  # noqa: E731
    n, msr, msc, mse, msw = (value(key) for key in
                             ("n", "ms_rows", "ms_columns", "ms_error", "ms_within"))
    model = FORMS[form][0]
    q = 1 - (1 - confidence) / 2
    df1 = n - 1
    df2 = n * (k - 1) if model == 1 else (n - 1) * (k - 1)
    denominator = msw if model == 1 else mse
    low: float  # float64 bounds, made Python floats for the k-rater forms
    high: float
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = msr / denominator if denominator > 0 else (np.inf if msr > 0 else np.nan)
        p = _f_sf(stat, df1, df2)
        if not np.isfinite(value("value")) or n < 2:  # undefined: no interval
            return {"F": float(stat), "df1": float(df1), "df2": float(df2), "F_p_value": p,
                    "ci": (np.nan, np.nan)}
        if model == 2:
            single = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
            c = n * (1 + (k - 1) * single) - k * single
            if mse > 0:
                fj = msc / mse
                v = (df2 * (k * single * fj + c) ** 2
                     / (df1 * k ** 2 * single ** 2 * fj ** 2 + c ** 2))
            else:  # the limit F_J → ∞
                v = df2 / df1
            f_upper = _f_ppf(q, df1, v)
            f_lower = _f_ppf(q, v, df1)
            spread = k * msc + (k * n - k - n) * mse
            low = n * (msr - f_upper * mse) / (f_upper * spread + n * msr)
            high = n * (f_lower * msr - mse) / (spread + n * f_lower * msr)
        else:
            f_low = stat / _f_ppf(q, df1, df2)
            f_high = stat * _f_ppf(q, df2, df1)
            # (F − 1)/(F + k − 1) written as 1 − k/(F + k − 1): 1 at F = ∞
            low, high = 1 - k / (f_low + k - 1), 1 - k / (f_high + k - 1)
    if not form.endswith(",1)"):
        low, high = float(spearman_brown(low, k)), float(spearman_brown(high, k))
    return {"F": float(stat), "df1": float(df1), "df2": float(df2), "F_p_value": p,
            "ci": (float(low), float(high))}


def _regular_df(*dfs: float) -> bool:
    return all(0.0 < df < np.inf for df in dfs)


def _f_sf(x: float, df1: float, df2: float) -> float:
    """P(F > x) for F(df1, df2): ``scipy.stats.f.sf``, which evaluates
    ``scipy.special.fdtrc(df1, df2, x)`` after checking and broadcasting its arguments (more
    work than the probability); called directly for finite x > 0 and finite df > 0 (the
    same number), through ``scipy.stats`` otherwise (its edges: x ≤ 0, ∞, NaN)."""
    if 0.0 < x < np.inf and _regular_df(df1, df2):
        from scipy.special import fdtrc  # imported on first use (start-up)

        return float(fdtrc(df1, df2, x))
    from scipy.stats import f as f_dist  # imported where used: scipy.stats is slow
    return float(f_dist.sf(x, df1, df2))


def _f_ppf(q: float, df1: float, df2: float) -> np.float64:
    """The q-quantile of F(df1, df2): ``scipy.stats.f.ppf``, i.e. ``scipy.special.fdtri``,
    called directly for q in (0, 1) and finite df > 0, through ``scipy.stats`` otherwise."""
    if 0.0 < q < 1.0 and _regular_df(df1, df2):
        from scipy.special import fdtri  # imported on first use (start-up)

        return np.float64(fdtri(df1, df2, q))
    from scipy.stats import f as f_dist  # imported where used: scipy.stats is slow
    return np.float64(f_dist.ppf(q, df1, df2))


def _complete_ratings(ann: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """The n × k ratings of the items rated by every rater with an annotation, their item
    codes, and the number of items dropped (some rating missing)."""
    values = ann.category_values("the ICC")  # NonNumericError for labels
    items, raters, cats = ann.codes()
    # the raters with an annotation, in rater order, and each annotation's rank among them
    # (np.unique's inverse, by counting: the codes are dense)
    present = np.bincount(raters, minlength=len(ann.require_raters("the ICC"))) > 0
    k = int(present.sum())
    if k < 2:
        raise RaterCountError(
            f"the ICC compares raters and needs at least two, got {k} with annotations")
    m = np.bincount(items, minlength=ann.n_items)
    complete = m[items] == k  # one annotation per (item, rater): all k raters
    kept = np.flatnonzero(m == k)  # the items of those annotations, in item order
    item_position = np.empty(m.size, dtype=np.intp)
    item_position[kept] = np.arange(kept.size)
    rater_position = np.cumsum(present) - 1
    x = np.empty((kept.size, k))
    if complete.all():  # no item dropped: no copies of the codes
        x[item_position[items], rater_position[raters]] = values[cats]
    else:
        x[item_position[items[complete]], rater_position[raters[complete]]] = \
            values[cats[complete]]
    dropped = int((m > 0).sum()) - kept.size
    return x, kept, dropped


@shared_parameters
def icc(data: AnnotationsLike, *, form: str = "ICC(2,1)", ci: str | None = None,
        confidence: float = 0.95, sample_weight: SampleWeightLike = None, n_resamples: int = 2000,
        seed: SeedLike = None, progress: bool | None = None) -> Estimate:
    r"""The intraclass correlation (Shrout & Fleiss 1979; McGraw & Wong 1996) of interval
    ratings, with its F-based confidence interval on request (``ci="F"``).

    The ratings of n items (targets) by k raters (judges) are split by the two-way analysis
    of variance into the mean squares of items MS_R, raters MS_C, error MS_E and within items
    MS_W (:mod:`kappalab.coefficients.icc`), and

    .. math::  ICC(1,1) = \frac{MS_R - MS_W}{MS_R + (k-1)MS_W}, \quad
               ICC(2,1) = \frac{MS_R - MS_E}{MS_R + (k-1)MS_E + k(MS_C - MS_E)/n}, \quad
               ICC(3,1) = \frac{MS_R - MS_E}{MS_R + (k-1)MS_E},

    with ICC(f,k) = k·ICC(f,1)/(1 + (k − 1)·ICC(f,1)), the reliability of the mean of the
    k raters. The names of the forms:

    ==============  ================  ======================================================
    Shrout–Fleiss   pingouin, psych   McGraw & Wong (1996)
    ==============  ================  ======================================================
    ICC(1,1)        ICC1              ICC(1): one-way random, single
    ICC(2,1)        ICC2              ICC(A,1): two-way random (or mixed), absolute agreement,
                                      single
    ICC(3,1)        ICC3              ICC(C,1): two-way mixed (or random), consistency, single
    ICC(1,k)        ICC1k             ICC(k): one-way random, average
    ICC(2,k)        ICC2k             ICC(A,k): two-way random (or mixed), absolute agreement,
                                      average
    ICC(3,k)        ICC3k             ICC(C,k): two-way mixed (or random), consistency, average
    ==============  ================  ======================================================

    Any of these names is accepted (:func:`icc_form`: case, spaces, ``-`` and ``_`` ignored;
    ``"ICC(2,4)"`` for k = 4). pingouin 0.6 and later label the rows ICC(1,1), ICC(A,1),
    ICC(C,1), ICC(1,k), ICC(A,k), ICC(C,k).

    **Intervals.** None by default (``ci=None``, as every estimator). ``ci="F"`` gives the
    exact F interval of ICC(1,·) and ICC(3,·) under the normal ANOVA model (Shrout & Fleiss
    1979, Table 3) and McGraw & Wong's (1996) approximate interval of ICC(2,·), with
    Satterthwaite's degrees of freedom, as pingouin's ``intraclass_corr`` computes them (it
    fixes 95%; ``confidence=`` here takes any level); the estimate's ``se`` is then None.
    :func:`icc_table` gives the six forms with their F intervals. The F test of ICC = 0 is
    in ``details`` (``F``, ``df1``, ``df2``, ``F_p_value``) whatever ``ci``. The other
    ``ci=`` names are the spine's standard error and interval (:mod:`kappalab.uncertainty`),
    which need no normality: ``"analytic"`` is the delta method over the items, the
    resampling methods resample the items (the rows of the table).

    **Missing ratings.** The ICC is the ANOVA of a complete table: only the items rated by
    every rater (every rater with at least one annotation) are used, and the others are
    dropped with an :class:`~kappalab.errors.IncompleteItemsWarning` that says how many.
    For data with missing ratings Krippendorff's interval α
    (:func:`~kappalab.krippendorff_alpha` with ``level="interval"``) uses every item with two
    or more ratings and is the coefficient to prefer.

    **Relation to Krippendorff's interval α.** On complete data, with D_o = 2MS_W and
    D_e = 2SS_T/(nk − 1),

    .. math::  α = \frac{MS_R - MS_W}{MS_R + (k-1)\,MS_W\,n/(n-1)}
                 = \frac{ICC(1,1)}{1 + (k-1)(1 - ICC(1,1))/(k(n-1))},

    so α is ICC(1,1) with its within-item term inflated by n/(n − 1), its small-sample
    factor: α lies between 0 and ICC(1,1), the two agree as n grows, and exactly when
    ICC(1,1) is 0 or 1.

    Parameters
    ----------
    data : Annotations, DataFrame or array-like
        Numeric ratings with rater identities: an :class:`~kappalab.Annotations`, or what
        :func:`~kappalab.annotations.as_annotations` reads (items × raters wide, or long).
    form : str, default "ICC(2,1)"
        The ICC form, by any of its names (above). ``"all"`` (the table of the six forms) is
        deprecated: use :func:`icc_table`.
    ci : str or None, default None
        ``"F"``: the F interval (above). Otherwise a standard error and confidence interval
        by ``"analytic"``, ``"asymptotic"``, ``"bootstrap"``, ``"bootstrap-basic"``,
        ``"bootstrap-bca"``, ``"bayesian-bootstrap"`` or ``"jackknife"``
        (:data:`kappalab.uncertainty.CI_METHODS`,
        :mod:`kappalab.uncertainty`), the items being the resampling units. None: the value
        alone.
    {{shared: confidence}}
    sample_weight : array-like, optional
        One weight w_i ≥ 0 per item, in the order of ``Annotations.items``, multiplying the
        item's statistics: importance (sampling) weights — an integer weight k gives the value
        of the data with the item repeated k times, a weight 0 drops the item — while the items
        stay the units of the standard error
        (:class:`~kappalab.coefficients.base.ItemSumCoefficient`). None (default): every item
        counts once. The F interval takes n = Σ w_i items.
    {{shared: n_resamples}}
    seed : None, int, sequence of int, SeedSequence or Generator, optional
        Seed of the resampling (:func:`kappalab.validation.make_rng`); None (default) draws
        fresh entropy.
    {{shared: progress}}

    Returns
    -------
    Estimate
        An :class:`~kappalab.Estimate` named after the form (Shrout & Fleiss' name),
        ``level`` "interval", ``observed`` the ICC and ``expected`` 0 (no chance term),
        ``n_items`` the complete items used, ``n_raters`` k; ``details`` holds ``form``,
        ``type`` (McGraw & Wong's label), ``description``, the mean squares (``ms_rows``,
        ``ms_columns``, ``ms_error``, ``ms_within``), the F test (``F``, ``df1``, ``df2``,
        ``F_p_value``), ``ci_method`` and ``n_items_dropped``. (The deprecated
        ``form="all"`` returns :func:`icc_table`'s DataFrame, with its F intervals unless
        another ``ci`` is given.)

    Raises
    ------
    InvalidParameterError
        An unknown ``form`` or ``ci``, ``confidence`` outside (0, 1), and with ``ci``
        ``n_resamples`` < 2 or an invalid ``seed``; bad sample weights.
    NonNumericError
        Ratings that are not numbers.
    UnknownRatersError
        Data without rater identities (counts).
    RaterCountError
        Fewer than two raters.
    EmptyDataError
        No item rated by every rater.

    References
    ----------
    Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater
    reliability. *Psychological Bulletin* 86(2), 420–428. doi:10.1037/0033-2909.86.2.420

    McGraw, K. O. & Wong, S. P. (1996). Forming inferences about some intraclass correlation
    coefficients. *Psychological Methods* 1(1), 30–46. doi:10.1037/1082-989X.1.1.30

    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Departmental Papers
    (ASC) 43, Annenberg School for Communication, University of Pennsylvania.

    Examples
    --------
    Shrout & Fleiss' (1979) Table 2: 6 targets rated by 4 judges; their Table 4 gives
    ICC(1,1) = .17, ICC(2,1) = .29, ICC(3,1) = .71, ICC(1,4) = .44, ICC(2,4) = .62,
    ICC(3,4) = .91.

    >>> import kappalab as kl
    >>> x = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9],
    ...      [6, 2, 4, 7]]
    >>> est = kl.icc(x, ci="F")           # ICC(2,1) with its F interval
    >>> round(est, 2), [round(b, 2) for b in est.ci]
    (0.29, [0.02, 0.76])
    >>> kl.icc(x).ci is None              # no interval unless asked
    True
    >>> round(kl.icc(x, form="two-way mixed consistency average"), 2)
    0.91
    """
    if _all_forms(form):
        warnings.warn("icc(form='all') is deprecated and will be removed in 0.3: use "
                      "kl.icc_table(data), the table of the six forms (with their F "
                      "intervals unless another ci= is given)", DeprecationWarning,
                      stacklevel=2)
        return icc_table(  # type: ignore[return-value]  # the deprecated form, until 0.3
            data, ci=F_INTERVAL if ci is None else ci, confidence=confidence,
            sample_weight=sample_weight, n_resamples=n_resamples, seed=seed,
            progress=progress)
    _check_form(form)
    options = _options(ci, n_resamples, confidence, seed, progress)
    return _estimate(icc_core(data, form=form, sample_weight=sample_weight), options)


@shared_parameters
def icc_table(data: AnnotationsLike, *, ci: str | None = "F", confidence: float = 0.95,
              sample_weight: SampleWeightLike = None, n_resamples: int = 2000,
              seed: SeedLike = None,
              progress: bool | None = None) -> pd.DataFrame:
    r"""The six intraclass correlations of Shrout & Fleiss (1979) in one table, with their F
    tests and F intervals, as pingouin's ``intraclass_corr`` gives them.

    One row per form of :func:`icc` (whose formulas, names, handling of missing ratings and
    intervals apply), from one two-way ANOVA of the complete items. The table is the F
    analysis of the ratings, so its interval columns default to the F intervals
    (``ci="F"``); another ``ci=`` fills them with the spine's standard error and interval of
    each form instead, and ``ci=None`` leaves them empty.

    Parameters
    ----------
    data : Annotations, DataFrame or array-like
        Numeric ratings with rater identities: an :class:`~kappalab.Annotations`, or what
        :func:`~kappalab.annotations.as_annotations` reads (items × raters wide, or long).
    ci : str or None, default "F"
        ``"F"``: each form's F interval (no standard error). Otherwise a name of
        :data:`kappalab.uncertainty.CI_METHODS`, the items being the resampling units (one
        ``seed`` for every form); None: no interval.
    {{shared: confidence}}
    sample_weight : array-like, optional
        One weight w_i ≥ 0 per item, in the order of ``Annotations.items``, as for
        :func:`icc`; the F intervals take n = Σ w_i items.
    {{shared: n_resamples}}
    seed : None, int, sequence of int, SeedSequence or Generator, optional
        Seed of the resampling (:func:`kappalab.validation.make_rng`); None (default) draws
        fresh entropy.
    {{shared: progress}}

    Returns
    -------
    pandas.DataFrame
        The six forms in pingouin's order, columns ``form``, ``type``, ``description``,
        ``value``, ``F``, ``df1``, ``df2``, ``p_value`` (the F test), ``se``, ``ci_low``,
        ``ci_high``.

    Raises
    ------
    InvalidParameterError
        An unknown ``ci``, ``confidence`` outside (0, 1), ``n_resamples`` < 2, an invalid
        ``seed``, bad sample weights.
    NonNumericError
        Ratings that are not numbers.
    UnknownRatersError
        Data without rater identities (counts).
    RaterCountError
        Fewer than two raters.
    EmptyDataError
        No item rated by every rater.

    References
    ----------
    Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater
    reliability. *Psychological Bulletin* 86(2), 420–428. doi:10.1037/0033-2909.86.2.420

    McGraw, K. O. & Wong, S. P. (1996). Forming inferences about some intraclass correlation
    coefficients. *Psychological Methods* 1(1), 30–46. doi:10.1037/1082-989X.1.1.30

    Examples
    --------
    Shrout & Fleiss' (1979) Table 2 (6 targets, 4 judges); their Table 4: .17, .29, .71,
    .44, .62, .91.

    >>> import kappalab as kl
    >>> x = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9],
    ...      [6, 2, 4, 7]]
    >>> kl.icc_table(x)[["form", "type", "value", "ci_low", "ci_high"]].round(2)
           form      type  value  ci_low  ci_high
    0  ICC(1,1)  ICC(1,1)   0.17   -0.13     0.72
    1  ICC(2,1)  ICC(A,1)   0.29    0.02     0.76
    2  ICC(3,1)  ICC(C,1)   0.71    0.34     0.95
    3  ICC(1,k)  ICC(1,k)   0.44   -0.88     0.91
    4  ICC(2,k)  ICC(A,k)   0.62    0.07     0.93
    5  ICC(3,k)  ICC(C,k)   0.91    0.68     0.99
    """
    options = _options(ci, n_resamples, confidence, seed, progress)
    core = icc_core(data, sample_weight=sample_weight)
    rows = []
    for name in FORMS:
        est = _estimate(core.with_form(name), options)
        low, high = est.ci if est.ci is not None else (np.nan, np.nan)
        d = est.details
        rows.append({"form": name, "type": d["type"], "description": d["description"],
                     "value": est.value, "F": d["F"], "df1": d["df1"], "df2": d["df2"],
                     "p_value": d["F_p_value"], "se": np.nan if est.se is None else est.se,
                     "ci_low": low, "ci_high": high})
    return pd.DataFrame.from_records(rows)


def icc_core(data: AnnotationsLike, *, form: str = "ICC(2,1)",
             sample_weight: SampleWeightLike = None) -> IntraclassCorrelationCore:
    """The core behind :func:`icc`: :func:`icc`'s arguments less its interval options.

    The complete items are kept (an :class:`~kappalab.errors.IncompleteItemsWarning` says
    how many were dropped, the core's ``n_items_dropped``), and the sample weights follow
    them.

    Parameters
    ----------
    data : Annotations, DataFrame or array-like
        Numeric ratings with rater identities (as :func:`icc` reads them).
    form : str, default "ICC(2,1)"
        One form, by any of its names (:func:`icc_form`).
    sample_weight : array-like, optional
        One weight w_i ≥ 0 per item of the data.

    Returns
    -------
    IntraclassCorrelationCore
        Its ``estimate()`` is ``icc(data, form=form, sample_weight=sample_weight)``'s value.

    Raises
    ------
    InvalidParameterError
        An unknown ``form`` (``"all"`` is :func:`icc_table`), bad sample weights.
    NonNumericError, UnknownRatersError, RaterCountError, EmptyDataError
        As :func:`icc`.

    Examples
    --------
    >>> core = icc_core([[1, 2], [3, 3], [5, 6]], form="ICC(1,1)")  # MS_R = 49/6, MS_W = 1/3
    >>> round(core.estimate().value, 4), core.n_items_dropped
    (0.9216, 0)
    """
    if _all_forms(form):
        raise InvalidParameterError("form='all' is the table of the six forms, "
                                    "kl.icc_table(data); a core is one form")
    _check_form(form)
    ann = as_annotations(data)
    ann.require_raters("the ICC")
    weights = check_sample_weight(sample_weight, ann.n_items)
    x, kept, dropped = _complete_ratings(ann)
    if kept.size == 0:
        raise EmptyDataError(
            f"no item is rated by all {x.shape[1]} raters: the ICC needs complete items; "
            "Krippendorff's alpha (level='interval') takes missing ratings")
    if dropped:
        warn(f"the ICC uses the {kept.size} items rated by all {x.shape[1]} raters; "
             f"{dropped} item(s) with a missing rating were dropped (Krippendorff's alpha, "
             "level='interval', uses them)", IncompleteItemsWarning)
    core = IntraclassCorrelationCore(
        x, form, sample_weight=None if weights is None else weights[kept],
        item_labels=ann.items[kept])
    core.n_items_dropped = dropped
    return core


def _all_forms(form: Any) -> bool:
    return isinstance(form, str) and form.strip().lower() == "all"


def _check_form(form: Any) -> None:
    """An unknown form fails before any work (``ICC(f,m)`` is checked once k is known)."""
    numbered = isinstance(form, str) and re.fullmatch(r"ICC\([123],\d+\)",
                                                      re.sub(r"[\s_]", "", form).upper())
    if not numbered:
        icc_form(form)


def _options(ci: str | None, n_resamples: Any, confidence: Any, seed: SeedLike,
             progress: bool | None) -> IntervalOptions:
    """The interval options, checked once; the confidence level always (the F interval's
    and, whatever ``ci``, the F test's)."""
    options = IntervalOptions.of(ci, n_resamples=n_resamples, confidence=confidence,
                                 seed=seed, progress=progress,
                                 methods=IntraclassCorrelationCore.interval_methods)
    check_confidence(confidence)
    return options


def _estimate(core: IntraclassCorrelationCore, options: IntervalOptions) -> Estimate:
    """One form's Estimate with the F test in its details."""
    est = core.estimate_with(options)
    test = core.f_test(options.confidence)
    return replace(est, details=dict(
        est.details, F=test["F"], df1=test["df1"], df2=test["df2"],
        F_p_value=test["F_p_value"], ci_method=options.ci,
        n_items_dropped=core.n_items_dropped))
