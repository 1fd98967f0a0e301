"""The number of annotations per item: the baseline pmf p₀ (:func:`annotation_count_pmf`) and
the MNAR tilt of p₀ by item difficulty (:class:`CountModel`). The model is described in
:mod:`kappalab.simulate`, "Annotations per item and missingness"."""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from ..validation import check_real, is_integer
from .parameters import fail

#: infinite supports of annotations per item are cut where the tail mass falls below this
TAIL_MASS = 1e-12
#: the largest number of annotations per item a pmf form of ``annotations_per_item`` (a dict,
#: a list or array, Poisson or geometric after truncation) may reach; a fixed int or a
#: (lo, hi) range is not capped
MAX_ANNOTATIONS_PER_ITEM = 10_000


def annotation_count_pmf(spec) -> np.ndarray:
    r"""The pmf of the number of annotations per item, over m = 0..M, from any spec.

    ``spec`` is one of

    * an int m ≥ 1: every item gets m annotations;
    * a tuple ``(lo, hi)`` of two ints, 0 ≤ lo ≤ hi, hi ≥ 1: uniform on lo..hi inclusive;
    * ``{"poisson": λ}`` (λ > 0): P(m) = e^{−λ}λ^m/m!, m = 0, 1, ...;
    * ``{"geometric": p}`` (0 < p ≤ 1): P(m) = (1 − p)^{m−1} p, m = 1, 2, ...;
    * a dict ``{m: probability}`` or a 1-D array/list indexed by m (a pmf; it must sum to 1
      within 1e-9 and is renormalised).

    Infinite supports (Poisson, geometric) are truncated at the smallest M whose tail mass
    P(m > M) is below ``TAIL_MASS`` = 1e-12 and renormalised: the simulation draws from, and its
    truths are exact for, that truncated pmf. Trailing zeros are dropped, so ``pmf[-1] > 0``.
    The pmf forms (dicts, lists, Poisson, geometric) may reach at most
    ``MAX_ANNOTATIONS_PER_ITEM`` = 10 000 annotations per item; an int or a range is not
    capped (``annotations_per_item=20_000`` is 20 000 annotations on every item).

    Parameters
    ----------
    spec : int, tuple, dict or array_like
        The number of annotations per item, in one of the forms above.

    Returns
    -------
    numpy.ndarray
        The pmf over m = 0..M (sums to 1, ``pmf[-1] > 0``).

    Raises
    ------
    kappalab.errors.InvalidParameterError
        If ``spec`` is none of the forms above or its values are out of range.

    Examples
    --------
    >>> annotation_count_pmf(3).tolist()
    [0.0, 0.0, 0.0, 1.0]
    >>> annotation_count_pmf((2, 4)).tolist()
    [0.0, 0.0, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333]
    """
    from scipy.stats import poisson  # imported where used: scipy.stats is slow
    form = ("annotations_per_item must be an int ≥ 1, a (lo, hi) tuple of ints, "
            "{'poisson': λ}, {'geometric': p}, a {m: probability} dict or a pmf array indexed "
            "by m")
    if is_integer(spec):
        if spec < 1:
            fail(f"a fixed number of annotations per item must be ≥ 1, got {spec}")
        pmf = np.zeros(int(spec) + 1)
        pmf[-1] = 1.0
    elif isinstance(spec, tuple) and len(spec) == 2 and all(is_integer(v) for v in spec):
        lo, hi = int(spec[0]), int(spec[1])
        if not 0 <= lo <= hi or hi < 1:
            fail(f"an annotations_per_item range (lo, hi) needs 0 ≤ lo ≤ hi and hi ≥ 1, "
                 f"got {spec}")
        pmf = np.zeros(hi + 1)
        pmf[lo:] = 1.0 / (hi - lo + 1)
    elif isinstance(spec, Mapping) and len(spec) == 1 and next(iter(spec)) in ("poisson",
                                                                                 "geometric"):
        (kind, param), = spec.items()
        param = check_real(param, f"the {kind} parameter of annotations_per_item")
        if kind == "poisson":
            if param <= 0:
                fail(f"the poisson mean of annotations_per_item must be > 0, got {param}")
            M = int(poisson.isf(TAIL_MASS, param))
            while poisson.sf(M, param) >= TAIL_MASS:  # isf is approximate: make it exact
                M += 1
            while M > 0 and poisson.sf(M - 1, param) < TAIL_MASS:
                M -= 1
            _check_support(M)
            pmf = poisson.pmf(np.arange(M + 1), param)
        else:
            if not 0 < param <= 1:
                fail(f"the geometric p of annotations_per_item must be in (0, 1], got {param}")
            if param == 1:
                M = 1
            else:  # P(m > M) = (1 − p)^M < TAIL_MASS
                M = max(1, math.ceil(math.log(TAIL_MASS) / math.log1p(-param)))
                while M > 1 and (1 - param) ** (M - 1) < TAIL_MASS:
                    M -= 1
            _check_support(M)
            m = np.arange(M + 1)
            pmf = np.where(m >= 1, param * (1 - param) ** np.maximum(m - 1, 0), 0.0)
    elif isinstance(spec, Mapping):
        if not spec or not all(is_integer(k) for k in spec):
            fail(f"{form}; a pmf dict needs integer keys m ≥ 0, got keys {list(spec)[:5]}")
        if min(spec) < 0:
            fail(f"annotations per item cannot be negative, got key {min(spec)}")
        _check_support(max(spec))
        pmf = np.zeros(max(spec) + 1)
        for m, prob in spec.items():
            pmf[m] = check_real(prob, f"the probability of {m} annotations")
    elif isinstance(spec, (list, np.ndarray)):
        try:
            pmf = np.array(spec, dtype=float)
        except (TypeError, ValueError):
            fail(f"{form}; got {spec!r}")
        if pmf.ndim != 1 or pmf.size == 0:
            fail(f"{form}; a pmf array must be 1-D and non-empty, got shape {pmf.shape}")
        _check_support(pmf.size - 1)
    else:
        fail(f"{form}; got {spec!r}")
    if not np.isfinite(pmf).all() or (pmf < 0).any():
        fail(f"the annotations_per_item pmf must be finite and non-negative, got {pmf.tolist()}")
    total = pmf.sum()
    is_truncated = isinstance(spec, Mapping) and next(iter(spec), None) in ("poisson",
                                                                            "geometric")
    if not is_truncated and abs(total - 1.0) > 1e-9:
        fail(f"the annotations_per_item pmf must sum to 1 (within 1e-9), got sum {total!r}")
    pmf = pmf / total
    if pmf[1:].sum() <= 0:
        fail("annotations_per_item gives no item an annotation (all mass at m = 0)")
    pmf = pmf[: int(np.flatnonzero(pmf)[-1]) + 1]
    pmf.flags.writeable = False
    return pmf


def _check_support(M: int) -> None:
    if M > MAX_ANNOTATIONS_PER_ITEM:
        fail(f"annotations_per_item reaches {M} annotations per item; at most "
             f"{MAX_ANNOTATIONS_PER_ITEM} are supported")


class CountModel:
    """The number of annotations per item: baseline pmf p₀ and the MNAR tilt."""

    def __init__(self, pmf: np.ndarray, missingness: str, strength: float):
        self.pmf = pmf
        self.M = pmf.size - 1
        self.mnar = missingness == "mnar" and strength > 0
        self.missingness = missingness
        self.strength = strength
        self.m = np.arange(self.M + 1, dtype=float)
        with np.errstate(divide="ignore"):
            self.log_pmf = np.log(pmf)

    def conditional(self, h: np.ndarray, h_bar: float) -> np.ndarray:
        """p(m | i) for items of difficulty h: (n, M+1), each row a pmf."""
        h = np.asarray(h, dtype=float)
        if not self.mnar:
            return np.broadcast_to(self.pmf, h.shape + (self.M + 1,))
        log_w = self.log_pmf + self.strength * np.multiply.outer(h - h_bar, self.m)
        log_w -= log_w.max(axis=-1, keepdims=True)
        w = np.exp(log_w)  # exp(−inf) = 0 keeps p₀'s zeros
        return w / w.sum(axis=-1, keepdims=True)

    def sample(self, rng: np.random.Generator, h: np.ndarray, h_bar: float) -> np.ndarray:
        """m_i by the inverse CDF of each item's pmf (items in chunks to bound memory)."""
        n = h.size
        u = 1.0 - rng.random(n)  # in (0, 1]: m is the first index with CDF ≥ u
        if not self.mnar:
            m = np.searchsorted(np.cumsum(self.pmf), u, side="left")
            return np.minimum(m, self.M)
        out = np.empty(n, dtype=np.int64)
        step = max(1, 4_000_000 // (self.M + 1))
        for start in range(0, n, step):
            stop = min(n, start + step)
            cdf = np.cumsum(self.conditional(h[start:stop], h_bar), axis=1)
            out[start:stop] = (cdf < u[start:stop, None]).sum(axis=1)
        return np.minimum(out, self.M)

    def summaries(self, pm: np.ndarray) -> dict[str, np.ndarray]:
        """Per row of conditional pmfs: P(m≥1), P(m≥2), E[m], E[m·1(m≥2)]."""
        return {
            "w1": pm[..., 1:].sum(axis=-1),
            "w2": pm[..., 2:].sum(axis=-1),
            "e1": pm @ self.m,
            "e2": pm[..., 2:] @ self.m[2:],
        }
