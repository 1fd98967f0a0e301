r"""Synthetic annotations and replications with exact population truths (Models, below).

Every generator returns the data *and* a :class:`Truth`: the population values of the
coefficients the data were generated to have, computed in closed form, by bivariate-normal
probabilities (Owen's T, :mod:`kappalab.bivariate_normal`, ~1e-16) or by adaptive quadrature to
1e-13
— never by Monte Carlo.

>>> from kappalab import simulate
>>> ann, truth = simulate.annotations(1000, reliability=0.6, seed=1)
>>> ann.n_items, truth.alpha
(1000, 0.6)

Each truth names its level: ``truth.alpha``, ``irr_x``, ``irr_y``, ``kx`` and ``normalized_kx``
are at the simulated level (what the estimator gives with ``level=truth.level``; for ordinal
data Krippendorff's ordinal α and κx), ``alpha_nominal``, ``irr_x_nominal``, ... with the
nominal distance; the κ's and P_o, P_e are exact-match (nominal) quantities. See
:class:`Truth`.

Models
------
Items i = 1..n, each annotated m_i times by m_i distinct raters of a pool of R, drawn uniformly
at random (a random ordered subset of the pool per item).

``level="nominal"`` (K ≥ 2 categories, prevalence π). The item's category distribution is
θ_i ~ Dirichlet(τ_i π) and its m_i annotations are a Pólya-urn sequence (annotation j falls in c
with probability (τ_i π_c + n_c)/(τ_i + j), n_c the earlier ones in c): exactly
Multinomial(m_i, θ_i) counts in a random order. Two annotations of an item agree with probability
P_i = Σπ_c(τ_iπ_c + 1)/(τ_i + 1) = Σπ² + (1 − Σπ²)κ_i, κ_i = 1/(1 + τ_i) (κ_i = 0: θ_i = π).
Items are *easy* or *hard* with probability ½ each, κ_i = κ ± d, d = heterogeneity·min(κ, 1−κ),
so that E[κ_i] = κ = ``reliability``. The pair distribution is
J = (1 − κ)ππᵀ + κ diag(π), hence α = κ for *every* distance δ (nominal, ordinal, interval):

.. math::  P_o = Σπ_c^2 + (1 - Σπ_c^2)κ, \quad P_e = Σπ_c^2, \quad
           α = κ_{Fleiss} = κ_{Cohen/Conger} = \frac{P_o - P_e}{1 - P_e} = κ.

``level="binary"`` / ``"ordinal"`` (latent threshold; K = 2, default 5). z_ri = μ_i + ε_ri,
μ_i ~ N(0, ρ_L), ε ~ N(0, 1 − ρ_L) (so z ~ N(0, 1)); the category is the number of thresholds
t_1 < … < t_{K−1} below z, t_c = Φ⁻¹(π_1 + … + π_c), so the marginals are π. Two annotations of
an item are standard bivariate normal with correlation ρ_L, so the pair distribution J_ck =
P(z ∈ (t_c, t_{c+1}], z' ∈ (t_k, t_{k+1}]) is a bivariate-normal rectangle. ρ_L (the latent ICC)
is solved (Brent, xtol 1e-14) so that the population nominal α = Fleiss κ of the *categories*
(``truth.alpha_nominal``) equals ``reliability``:

.. math::  P_o(ρ_L) = \sum_c J_{cc}, \quad P_e = \sum_c π_c^2, \quad
           \frac{P_o(ρ_L) - P_e}{1 - P_e} = \text{reliability}.

Rater bias (``rater_bias`` = b > 0): rater g's thresholds are t + β_g, β_g ~ N(0, b²) drawn once
per pool; ρ_L is the one of the bias-free model (the bias is a perturbation on top of it, so
``truth.alpha_nominal`` < ``reliability`` in general) and the truths are exact for the drawn
pool. With p_g rater g's marginals and J^{gh} the pair distribution of raters g ≠ h (shifted
rectangles), and every ordered pair of distinct raters equally likely on an item:

.. math::  P_o = \operatorname{mean}_{g≠h} \operatorname{tr} J^{gh}, \quad
           \bar p = \operatorname{mean}_g p_g, \quad
           P_e^{Fleiss} = \sum_c \bar p_c^2, \quad
           P_e^{Conger} = \operatorname{mean}_{g≠h} p_g^\top p_h .

``details["alpha_ordinal"]`` (= ``truth.alpha`` for ordinal data) and
``details["alpha_interval"]`` are 1 − D_o/D_e with
D_o = Σ J̄_ck δ_ck, D_e = p̄ᵀδp̄ (J̄ = mean_{g≠h} J^{gh}) for Krippendorff's ordinal metric with
the population marginals, δ_ck = (M_c − M_k)², M_c = p̄_1 + … + p̄_c − p̄_c/2 (mid-ranks), and
for δ_ck = (c − k)² on the category indices 0..K−1 (the category labels).

``level="interval"``: x_ri = μ_i + ε_ri, μ_i ~ N(0, σ_b²), ε ~ N(0, σ_wi²), σ_b² = reliability,
mean σ_wi² = σ_w² = 1 − reliability; with ``heterogeneity`` h ∈ [0, 1), easy and hard items
(probability ½ each) have σ_wi² = σ_w²(1 ∓ h). α = ICC = σ_b²/(σ_b² + σ_w²) = reliability.

Annotations per item and missingness
------------------------------------
``annotations_per_item`` is a baseline pmf p₀(m) over m = 0..M (see
:func:`annotation_count_pmf`). ``missingness="mcar"``: m_i ~ p₀ independently of the item.
``missingness="mnar"``: m_i depends on the item's difficulty h_i (the item's probability that two
of its annotations disagree, 1 − P_i; for interval data σ_wi²/(σ_b² + σ_w²), the item's
D_o/D_e) through an exponential tilt of strength s = ``mnar_strength``:

.. math::  p(m \mid i) ∝ p_0(m)\, \exp\{s\, m\, (h_i - \bar h)\}, \qquad \bar h = E[h_i],

so harder items get more annotations when s > 0 (the support of p₀ is kept; the tilt applies to
the truncated p₀). Nominal and interval items take two difficulties (easy/hard,
``heterogeneity`` defaults to ½ under MNAR), latent-threshold items a smooth function of μ_i,
h(μ) = 1 − Σ_c q_c(μ)² with q_c(μ) = P(category c | μ) (averaged over rater pairs with bias).

Truths and the estimators that converge to them
-----------------------------------------------
``alpha``, ``alpha_nominal``, ``fleiss_kappa``, ``cohen_kappa``, ``p_o``, ``p_e`` are
*item-population* values: every item weighs the same and all items count, whatever their number
of annotations (MNAR does not change them). The estimators weigh items differently; their
large-sample limits are exact too:

* ``p_o_pairable`` = E[P_i | m_i ≥ 2] = E[w₂P]/E[w₂], w₂ = P(m ≥ 2 | i): the limit of Fleiss'
  P_o and of :func:`~kappalab.percent_agreement` (pairable items, equal weights; SPA with flat
  weights).
* ``alpha_nominal_annotation_weighted`` = 1 − (1 − P_o⁽ᵐ⁾)/(1 − P_e⁽ᵐ⁾), the limit of
  Krippendorff's nominal α, which weighs an item by m_i: with e₂ = E[m 1(m ≥ 2) | i],
  P_o⁽ᵐ⁾ = E[e₂P_i]/E[e₂] (= ``p_o_annotation_weighted``), p⁽ᵐ⁾ = E[e₂q_i]/E[e₂] the pooled
  marginals of pairable annotations, P_e⁽ᵐ⁾ = Σ_c p_c⁽ᵐ⁾²; for other distances
  D_o⁽ᵐ⁾ = Σ J⁽ᵐ⁾∘δ with J⁽ᵐ⁾ = E[e₂J_i]/E[e₂], D_e⁽ᵐ⁾ = p⁽ᵐ⁾ᵀδp⁽ᵐ⁾
  (``details["alpha_ordinal_annotation_weighted"]``, ``…interval…``).
  ``alpha_annotation_weighted`` is the one at the simulated level (ordinal data: the ordinal
  one; interval data: the interval one).
* ``details["estimator_limits"]``: the limits of Krippendorff's α (``alpha_nominal``,
  ``alpha_ordinal``, ``alpha_interval``), of Fleiss' κ (P_o → ``p_o_pairable``,
  π_c → E[w₁q_ic]/E[w₁], w₁ = P(m ≥ 1 | i)), of Conger's κ (P_o → ``p_o_pairable``, rater g's
  marginals → E[m q_ig]/E[m]) and of percent agreement.

Under MCAR every limit equals its item-population truth (NaN when no item can have two
annotations). Nominal and interval limits are finite sums over the two item classes; the
latent-threshold ones are one-dimensional integrals over μ, done by adaptive Gauss–Kronrod
quadrature (``scipy.integrate.quad_vec``, absolute and relative tolerance 1e-13, break points at
the thresholds and graded ones around them, so that the steps of width √(1 − ρ_L) are resolved
even at reliability 0.999; the tails beyond |μ|/√ρ_L = 12 hold < 1e-32). Where the tilt cannot
act (every item with the same m) the quadrature reproduces the bivariate-normal truths to 1e-12.

Replications
------------
:func:`replications`: item latents (u_X, u_Y) standard bivariate normal with correlation ``rho``;
side X is the one-pool model above on u_X, side Y on u_Y with its latent shifted by ``shift``.
See that function for κx, normalized κx and ρ.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np
import pandas as pd
from scipy.integrate import quad_vec
from scipy.special import ndtr, ndtri
from scipy.stats import poisson

from . import distances
from .bivariate_normal import rectangle_probabilities
from .annotations import Annotations
from .errors import InvalidParameterError
from .estimate import same_values
from .kernels import (alpha_from_joint, chance_corrected, conger_chance_agreement,
                      fleiss_chance_agreement, joint_disagreements, latent_cross_tables,
                      true_score_correlation)
from .kernels import latent_icc as solve_latent_icc
from .validation import check_count, check_real, is_integer, make_rng

__all__ = ["Truth", "annotations", "replications", "annotation_count_pmf", "to_dataset"]

LEVELS = ("nominal", "binary", "ordinal", "interval")
REPLICATION_LEVELS = ("interval", "binary", "ordinal")
MISSINGNESS = ("mcar", "mnar")
#: infinite supports of annotations per item are cut where the tail mass falls below this
TAIL_MASS = 1e-12
#: the largest number of annotations per item a pmf form of ``annotations_per_item`` (a dict,
#: a list or array, Poisson or geometric after truncation) may reach; a fixed int or a
#: (lo, hi) range is not capped
MAX_ANNOTATIONS_PER_ITEM = 10_000
_QUAD_TOL = 1e-13
_QUAD_HALF_WIDTH = 12.0  # |u| ≤ 12 on the standardised item latent; φ(12) ≈ 2e-32
_NAN = float("nan")


# ============================================================================== Truth
@dataclass(frozen=True, repr=False, eq=False)
class Truth:
    r"""Exact population values of a simulated design (NaN where a value does not apply).

    Every truth names its level. A field named after a coefficient that has a distance
    (Krippendorff's α, the IRRs and κx of replications) is at the simulated level,
    ``truth.level``: it is what the estimator converges to when called with
    ``level=truth.level`` (binary data: ``"nominal"``; with two categories every distance is
    the nominal one up to a factor). Its nominal twin ends in ``_nominal``:

    ==========  ========================================  =========================
    level       ``alpha`` (and ``irr_x``, ``kx``, ...)     ``alpha_nominal``, ...
    ==========  ========================================  =========================
    nominal     nominal α                                  the same
    binary      nominal α (= ordinal = interval α)         the same
    ordinal     Krippendorff's ordinal α, population       nominal α (the one that
                marginals (``details["alpha_ordinal"]``)   ``reliability`` sets)
    interval    interval α = ICC                           NaN
    ==========  ========================================  =========================

    The κ's and agreements (``fleiss_kappa``, ``cohen_kappa``, ``p_o``, ``p_e``,
    ``p_o_pairable``, ``p_o_annotation_weighted``) count exact matches at every categorical
    level: they are nominal, the values of the estimators with their default ``weights=None``
    (NaN for interval data). ``rho`` is on the numeric values (category indices 0..K−1).
    ``details`` keys name their level where it is not ``truth.level`` (``alpha_ordinal``,
    ``alpha_interval``, ``kx_interval``, ``kx_nominal_annotation_weighted``, ...).

    Attributes
    ----------
    level : the generator's level (``"nominal"``, ``"binary"``, ``"ordinal"``, ``"interval"``)
    n_categories : K (``None`` for interval data)
    prevalence : the requested category probabilities π (empty for interval data)
    alpha : population Krippendorff α at ``level``, every item weighing the same:
        1 − D_o/D_e with the level's distance (nominal: 1 − (1 − P_o)/(1 − P_e); ordinal:
        Krippendorff's metric on the population marginals p̄; interval: the ICC).
    alpha_nominal : population α with the nominal distance, 1 − (1 − P_o)/(1 − P_e) (NaN for
        interval data); equals ``alpha`` for nominal and binary data.
    fleiss_kappa : population Fleiss κ = (P_o − P_e)/(1 − P_e), P_e = Σ p̄_c², p̄ the pooled
        marginals; equals ``alpha_nominal`` for these models.
    cohen_kappa : population Conger κ (Cohen's κ for two raters), P_e = mean_{g≠h} p_gᵀp_h;
        differs from ``alpha_nominal`` only with rater bias.
    p_o : probability that two annotations of an item agree, E[P_i] (what SPA targets; SPA
        with flat weights converges to ``p_o_pairable``).
    p_e : chance agreement Σ_c p̄_c².
    alpha_annotation_weighted, alpha_nominal_annotation_weighted, p_o_annotation_weighted :
        the limits of Krippendorff's α at ``level``, of the nominal α, and of the nominal α's
        P_o, which weigh items by m_i (equal to ``alpha``, ``alpha_nominal`` and ``p_o``
        under MCAR).
    p_o_pairable : E[P_i | m_i ≥ 2], the limit of Fleiss' P_o and of percent agreement.
    irr_x, irr_y, kx, normalized_kx : replications only, at ``level`` (see
        :func:`replications`); ``irr_x_nominal``, ``irr_y_nominal``, ``kx_nominal``,
        ``normalized_kx_nominal`` their nominal twins.
    rho : replications only, the correlation of the item true scores.
    details : the model's parameters and further truths (latent ICC, thresholds, τ, rater
        shifts and marginals, pair distribution, ordinal/interval α, estimator limits, the pmf
        and mean of annotations per item, ...).
    item_labels, item_latent, item_difficulty : per item, its label in the Annotations, its latent
        value (κ_i for nominal data; μ_i, the item's latent mean, otherwise; two columns X, Y for
        replications) and its difficulty h_i (1 − P_i; interval: σ_wi²/(σ_b²+σ_w²)).

    Notes
    -----
    A Truth is immutable (``details`` is a read-only mapping, the arrays are read-only), and it
    pickles and deep-copies (it travels back from a ``ProcessPoolExecutor`` worker) to an equal
    Truth. Two truths are equal when every field is, NaN equal to NaN and arrays element-wise;
    the hash is that of the level, categories, prevalence and float truths.

    Examples
    --------
    >>> import pickle
    >>> from kappalab import simulate
    >>> _, truth = simulate.annotations(10, level="ordinal", reliability=0.5, seed=0)
    >>> round(truth.alpha_nominal, 12), round(truth.alpha, 4)  # nominal α, ordinal α
    (0.5, 0.8727)
    >>> pickle.loads(pickle.dumps(truth)) == truth
    True
    """

    level: str
    n_categories: int | None
    prevalence: tuple[float, ...]
    alpha: float = _NAN
    alpha_nominal: float = _NAN
    fleiss_kappa: float = _NAN
    cohen_kappa: float = _NAN
    p_o: float = _NAN
    p_e: float = _NAN
    alpha_annotation_weighted: float = _NAN
    alpha_nominal_annotation_weighted: float = _NAN
    p_o_annotation_weighted: float = _NAN
    p_o_pairable: float = _NAN
    irr_x: float = _NAN
    irr_y: float = _NAN
    kx: float = _NAN
    normalized_kx: float = _NAN
    irr_x_nominal: float = _NAN
    irr_y_nominal: float = _NAN
    kx_nominal: float = _NAN
    normalized_kx_nominal: float = _NAN
    rho: float = _NAN
    details: Mapping[str, Any] = field(default_factory=dict)
    item_labels: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    item_latent: np.ndarray = field(default_factory=lambda: np.empty(0))
    item_difficulty: np.ndarray = field(default_factory=lambda: np.empty(0))

    def __post_init__(self):
        object.__setattr__(self, "details", _read_only(self.details))
        for name in ("item_labels", "item_latent", "item_difficulty"):
            array = np.array(getattr(self, name))
            array.flags.writeable = False
            object.__setattr__(self, name, array)
        for name in _FLOAT_FIELDS:
            object.__setattr__(self, name, float(getattr(self, name)))

    def values(self) -> dict[str, float]:
        """The float truths, by name (NaN included)."""
        return {name: getattr(self, name) for name in _FLOAT_FIELDS}

    def __repr__(self) -> str:
        shown = [f"level={self.level!r}"]
        if self.n_categories is not None:
            shown.append(f"n_categories={self.n_categories}")
        shown += [f"{k}={v:.6g}" for k, v in self.values().items() if not math.isnan(v)]
        return f"Truth({', '.join(shown)})"

    def __reduce__(self):
        # the read-only mappings (MappingProxyType) do not pickle: rebuild from plain fields
        state = {f.name: _writable(getattr(self, f.name)) for f in fields(self)}
        return (_truth_from_fields, (state,))

    def __eq__(self, other: object):
        if not isinstance(other, Truth):
            return NotImplemented
        return all(same_values(getattr(self, f.name), getattr(other, f.name))
                   for f in fields(self))

    def __hash__(self) -> int:
        floats = tuple(None if math.isnan(v) else v for v in self.values().values())
        return hash((self.level, self.n_categories, self.prevalence, floats))


def _truth_from_fields(state: dict[str, Any]) -> Truth:
    """Unpickle a Truth (its __post_init__ makes it read-only again)."""
    return Truth(**state)


def _read_only(value):
    """A read-only view of nested mappings and arrays (the truths cannot be edited)."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: _read_only(v) for k, v in value.items()})
    if isinstance(value, np.ndarray):
        value = value.copy()
        value.flags.writeable = False
    return value


def _writable(value):
    """The plain dicts under the read-only views of :func:`_read_only` (arrays as they are)."""
    if isinstance(value, Mapping):
        return {k: _writable(v) for k, v in value.items()}
    return value


_FLOAT_FIELDS = ("alpha", "alpha_nominal", "fleiss_kappa", "cohen_kappa", "p_o", "p_e",
                 "alpha_annotation_weighted", "alpha_nominal_annotation_weighted",
                 "p_o_annotation_weighted", "p_o_pairable", "irr_x", "irr_y", "kx",
                 "normalized_kx", "irr_x_nominal", "irr_y_nominal", "kx_nominal",
                 "normalized_kx_nominal", "rho")


# ============================================================================== validation
def _fail(message: str):
    raise InvalidParameterError(message)


def _reliability(x, name: str = "reliability") -> float:
    x = check_real(x, name)
    if not 0.0 <= x < 1.0:
        _fail(f"{name} must be in [0, 1), got {x}")
    return x


def _heterogeneity(x, missingness: str) -> float:
    if x is None:
        return 0.5 if missingness == "mnar" else 0.0
    x = check_real(x, "heterogeneity")
    if not 0.0 <= x < 1.0:
        _fail(f"heterogeneity must be in [0, 1), got {x}")
    return x


def _missingness(x, name: str = "missingness") -> str:
    if x not in MISSINGNESS:
        _fail(f"{name} must be 'mcar' or 'mnar', got {x!r}")
    return x


def _mnar_strength(x) -> float:
    x = check_real(x, "mnar_strength")
    if x < 0:
        _fail(f"mnar_strength must be ≥ 0, got {x}")
    return x


def _categories_and_prevalence(level: str, n_categories, prevalence) -> tuple[int, np.ndarray]:
    """K and π for a categorical level (interval: error if either is given)."""
    if level == "interval":
        if n_categories is not None or prevalence is not None:
            _fail("n_categories and prevalence do not apply to level 'interval' "
                  "(continuous values)")
        return 0, np.empty(0)
    if n_categories is not None:
        n_categories = check_count(n_categories, "n_categories", 2)
        if level == "binary" and n_categories != 2:
            _fail(f"level 'binary' has 2 categories, got n_categories={n_categories}")
    if prevalence is None:
        K = n_categories if n_categories is not None else {"nominal": 3, "binary": 2,
                                                            "ordinal": 5}[level]
        return K, np.full(K, 1.0 / K)
    if np.ndim(prevalence) == 0:  # a single minority share: the last category's probability
        share = check_real(prevalence, "prevalence")
        if not 0.0 < share < 1.0:
            _fail(f"a single prevalence (the minority share) must be in (0, 1), got {share}")
        K = n_categories if n_categories is not None else 2 if level != "ordinal" else 5
        return K, np.concatenate([np.full(K - 1, (1.0 - share) / (K - 1)), [share]])
    try:
        p = np.asarray(prevalence, dtype=float)
    except (TypeError, ValueError):
        _fail(f"prevalence must be a probability vector, got {prevalence!r}")
    if p.ndim != 1:
        _fail(f"prevalence must be a 1-D probability vector, got shape {p.shape}")
    K = n_categories if n_categories is not None else p.size
    if level == "binary" and n_categories is None and p.size != 2:
        _fail(f"level 'binary' has 2 categories, but prevalence has {p.size} entries")
    if p.size != K:
        _fail(f"prevalence has {p.size} entries but n_categories is {K}")
    if K < 2:
        _fail(f"prevalence needs at least 2 categories, got {p.size}")
    if not np.isfinite(p).all():
        _fail(f"prevalence must be finite, got {p.tolist()}")
    if (p <= 0).any():
        first = int(np.flatnonzero(p <= 0)[0])
        _fail(f"prevalence entries must be positive, got {p[first]} at position {first}")
    if abs(p.sum() - 1.0) > 1e-9:
        _fail(f"prevalence must sum to 1 (within 1e-9), got sum {p.sum()!r}")
    return K, p / p.sum()


# ============================================================================== counts
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

    >>> annotation_count_pmf((2, 4)).tolist()
    [0.0, 0.0, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333]
    """
    form = ("annotations_per_item must be an int ≥ 1, a (lo, hi) tuple of ints, "
            "{'poisson': λ}, {'geometric': p}, a {m: probability} dict or a pmf array indexed "
            "by m")
    if is_integer(spec):
        if spec < 1:
            _fail(f"a fixed number of annotations per item must be ≥ 1, got {spec}")
        pmf = np.zeros(int(spec) + 1)
        pmf[-1] = 1.0
    elif isinstance(spec, tuple) and len(spec) == 2 and all(is_integer(v) for v in spec):
        lo, hi = int(spec[0]), int(spec[1])
        if not 0 <= lo <= hi or hi < 1:
            _fail(f"an annotations_per_item range (lo, hi) needs 0 ≤ lo ≤ hi and hi ≥ 1, "
                  f"got {spec}")
        pmf = np.zeros(hi + 1)
        pmf[lo:] = 1.0 / (hi - lo + 1)
    elif isinstance(spec, Mapping) and len(spec) == 1 and next(iter(spec)) in ("poisson",
                                                                                 "geometric"):
        (kind, param), = spec.items()
        param = check_real(param, f"the {kind} parameter of annotations_per_item")
        if kind == "poisson":
            if param <= 0:
                _fail(f"the poisson mean of annotations_per_item must be > 0, got {param}")
            M = int(poisson.isf(TAIL_MASS, param))
            while poisson.sf(M, param) >= TAIL_MASS:  # isf is approximate: make it exact
                M += 1
            while M > 0 and poisson.sf(M - 1, param) < TAIL_MASS:
                M -= 1
            _check_support(M)
            pmf = poisson.pmf(np.arange(M + 1), param)
        else:
            if not 0 < param <= 1:
                _fail(f"the geometric p of annotations_per_item must be in (0, 1], got {param}")
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
            _fail(f"{form}; a pmf dict needs integer keys m ≥ 0, got keys {list(spec)[:5]}")
        if min(spec) < 0:
            _fail(f"annotations per item cannot be negative, got key {min(spec)}")
        _check_support(max(spec))
        pmf = np.zeros(max(spec) + 1)
        for m, prob in spec.items():
            pmf[m] = check_real(prob, f"the probability of {m} annotations")
    elif isinstance(spec, (list, np.ndarray)):
        try:
            pmf = np.array(spec, dtype=float)
        except (TypeError, ValueError):
            _fail(f"{form}; got {spec!r}")
        if pmf.ndim != 1 or pmf.size == 0:
            _fail(f"{form}; a pmf array must be 1-D and non-empty, got shape {pmf.shape}")
        _check_support(pmf.size - 1)
    else:
        _fail(f"{form}; got {spec!r}")
    if not np.isfinite(pmf).all() or (pmf < 0).any():
        _fail(f"the annotations_per_item pmf must be finite and non-negative, got {pmf.tolist()}")
    total = pmf.sum()
    is_truncated = isinstance(spec, Mapping) and next(iter(spec), None) in ("poisson",
                                                                            "geometric")
    if not is_truncated and abs(total - 1.0) > 1e-9:
        _fail(f"the annotations_per_item pmf must sum to 1 (within 1e-9), got sum {total!r}")
    pmf = pmf / total
    if pmf[1:].sum() <= 0:
        _fail("annotations_per_item gives no item an annotation (all mass at m = 0)")
    pmf = pmf[: int(np.flatnonzero(pmf)[-1]) + 1]
    pmf.flags.writeable = False
    return pmf


def _check_support(M: int) -> None:
    if M > MAX_ANNOTATIONS_PER_ITEM:
        _fail(f"annotations_per_item reaches {M} annotations per item; at most "
              f"{MAX_ANNOTATIONS_PER_ITEM} are supported")


class _CountModel:
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


def _ratio(numerator, denominator) -> float:
    return float(numerator / denominator) if denominator > 0 else _NAN


# ============================================================================== raters
def _assign_raters(rng: np.random.Generator, m: np.ndarray, R: int) -> np.ndarray:
    """(n, M) raters: for each item a uniformly random ordered subset of size M of the pool
    (only the first m_i are used). A random permutation per row for small pools; sequential
    draws with redraws of collisions for large ones (the same distribution)."""
    n, M = m.size, int(m.max(initial=0))
    if M == 0:
        return np.zeros((n, 0), dtype=np.int64)
    if R <= 4 * M + 8:
        table = np.broadcast_to(np.arange(R, dtype=np.int64), (n, R)).copy()
        rng.permuted(table, axis=1, out=table)
        return table[:, :M]
    chosen = np.zeros((n, M), dtype=np.int64)
    for j in range(M):
        rows = np.flatnonzero(m > j)
        draw = rng.integers(0, R, rows.size)
        clash = (chosen[rows, :j] == draw[:, None]).any(axis=1)
        while clash.any():
            redo = np.flatnonzero(clash)
            draw[redo] = rng.integers(0, R, redo.size)
            clash[redo] = (chosen[rows[redo], :j] == draw[redo, None]).any(axis=1)
        chosen[rows, j] = draw
    return chosen


def _flat_slots(m: np.ndarray, raters: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per annotation, in item order: (item position, slot, rater)."""
    M = raters.shape[1]
    used = np.arange(M)[None, :] < m[:, None]
    items = np.repeat(np.arange(m.size), m)
    slots = np.broadcast_to(np.arange(M), used.shape)[used]
    return items, slots, raters[used]


def _build_annotations(item_labels: np.ndarray, R: int, items: np.ndarray, raters: np.ndarray,
                       values: np.ndarray, n_categories: int | None) -> Annotations:
    """An Annotations from per-annotation arrays: an items × raters table through
    ``Annotations.from_wide`` when the table is not too sparse, else per-annotation codes.
    Items keep their labels (also those with no annotation) and all K categories are kept."""
    n = item_labels.size
    categories = None if not n_categories else list(range(n_categories))
    if n * R <= 4 * values.size + 2**20:
        table = np.full((n, R), np.nan)
        table[items, raters] = values
        frame = pd.DataFrame(table, index=pd.Index(item_labels, name="item"),
                             columns=pd.RangeIndex(R, name="rater"))
        return Annotations.from_wide(frame, categories=categories, raters_as_rows=False)
    # a large, sparse pool: the long store (the same one Annotations.subset_raters builds)
    if n_categories:
        codes = values.astype(np.intp)
        cats = pd.Index(np.arange(n_categories, dtype=np.int64), name="category")
    else:
        uniques, codes = np.unique(values, return_inverse=True)
        cats = pd.Index(uniques, name="category")
    return Annotations(items=pd.Index(item_labels, name="item"),
                       raters=pd.RangeIndex(R, name="rater"), categories=cats,
                       item_codes=items.astype(np.intp), rater_codes=raters.astype(np.intp),
                       category_codes=codes.astype(np.intp))


# ============================================================================== models
class _Side:
    """One rater pool annotating items: samples annotations and knows its exact truths."""

    level: str
    K: int
    counts: _CountModel
    R: int
    h_bar: float

    def difficulty(self, state: dict[str, np.ndarray]) -> np.ndarray:
        raise NotImplementedError

    def values(self, rng, state, items, slots, raters, m) -> np.ndarray:
        raise NotImplementedError

    def latent(self, state) -> np.ndarray:
        raise NotImplementedError

    def truths(self) -> dict[str, Any]:
        raise NotImplementedError

    def simulate(self, rng: np.random.Generator, state: dict[str, np.ndarray],
                 item_labels: np.ndarray):
        """Annotations of the items in ``state`` (their labels given), and per-item h."""
        h = self.difficulty(state)
        m = self.counts.sample(rng, h, self.h_bar)
        raters = _assign_raters(rng, m, self.R)
        items, slots, rater_flat = _flat_slots(m, raters)
        values = self.values(rng, state, items, slots, rater_flat, m)
        ann = _build_annotations(item_labels, self.R, items, rater_flat, values,
                                 self.K if self.level != "interval" else None)
        return ann, h

    # -- shared pieces of the truths
    def _count_truths(self, marginal_pmf: np.ndarray) -> dict[str, Any]:
        return {
            "annotation_count_pmf": self.counts.pmf,
            "annotation_count_pmf_marginal": marginal_pmf,
            "mean_annotations": float(marginal_pmf @ np.arange(marginal_pmf.size)),
            "pairable_share": float(marginal_pmf[2:].sum()),
            "difficulty_mean": self.h_bar,
            "n_raters": self.R,
            "missingness": self.counts.missingness,
            "mnar_strength": self.counts.strength,
        }


class _TwoClassSide(_Side):
    """Items easy (class 0) or hard (class 1), probability ½ each: the nominal and interval
    models. Limits under MNAR are finite sums over the two classes."""

    class_difficulty: np.ndarray  # h of the two classes

    def difficulty(self, state):
        return self.class_difficulty[state["class"]]

    def class_weights(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        pm = self.counts.conditional(self.class_difficulty, self.h_bar)  # (2, M+1)
        return pm, self.counts.summaries(pm)


class _NominalSide(_TwoClassSide):
    level = "nominal"

    def __init__(self, K, prevalence, reliability, heterogeneity, counts, R):
        self.K, self.pi, self.kappa = K, prevalence, reliability
        self.heterogeneity = heterogeneity
        d = heterogeneity * min(reliability, 1.0 - reliability)
        self.class_kappa = np.array([reliability + d, reliability - d])  # easy, hard
        self.counts, self.R = counts, R
        self.sum_pi2 = float(fleiss_chance_agreement(prevalence))
        self.class_difficulty = (1.0 - self.sum_pi2) * (1.0 - self.class_kappa)
        self.h_bar = float(self.class_difficulty.mean())

    def latent(self, state):
        return self.class_kappa[state["class"]]

    def values(self, rng, state, items, slots, raters, m):
        kappa_i = self.class_kappa[state["class"]]
        n, M, K = m.size, int(m.max(initial=0)), self.K
        cats = np.zeros((n, M), dtype=np.int64)
        counts = np.zeros((n, K))
        cum_pi = np.cumsum(self.pi)
        with np.errstate(divide="ignore"):
            tau = np.where(kappa_i > 0, 1.0 / np.where(kappa_i > 0, kappa_i, 1.0) - 1.0, np.inf)
        finite = np.isfinite(tau)
        for j in range(M):  # the Pólya urn, one annotation slot at a time over all items
            rows = np.flatnonzero(m > j)
            u = rng.random(rows.size)
            c = np.searchsorted(cum_pi, u, side="right")  # θ_i = π when τ_i = ∞ (κ_i = 0)
            urn = finite[rows]
            if urn.any():
                r = rows[urn]
                weights = np.cumsum(tau[r, None] * self.pi + counts[r], axis=1)
                c[urn] = (weights <= (u[urn] * (tau[r] + j))[:, None]).sum(axis=1)
            c = np.minimum(c, K - 1)
            cats[rows, j] = c
            counts[rows, c] += 1
        return cats[items, slots].astype(float)

    def truths(self):
        kappa, pi, s2 = self.kappa, self.pi, self.sum_pi2
        p_o = s2 + (1.0 - s2) * kappa
        joint = (1.0 - kappa) * np.outer(pi, pi) + kappa * np.diag(pi)
        pm, w = self.class_weights()
        k = self.class_kappa
        kappa_w2 = _ratio(w["w2"] @ k, w["w2"].sum())  # E[w₂κ_i]/E[w₂]
        kappa_e2 = _ratio(w["e2"] @ k, w["e2"].sum())  # E[e₂κ_i]/E[e₂]
        tau = 1.0 / kappa - 1.0 if kappa > 0 else math.inf
        limits = {"alpha_nominal": kappa_e2, "alpha_ordinal": kappa_e2,
                  "alpha_interval": kappa_e2, "fleiss_kappa": kappa_w2,
                  "conger_kappa": kappa_w2, "percent_agreement": s2 + (1 - s2) * kappa_w2}
        details = {
            "tau": tau, "heterogeneity": self.heterogeneity,
            "class_kappa": tuple(self.class_kappa), "class_tau": tuple(
                1.0 / x - 1.0 if x > 0 else math.inf for x in self.class_kappa),
            "marginals": pi.copy(), "pair_joint": joint,
            "alpha_ordinal": kappa, "alpha_interval": kappa,
            "alpha_ordinal_annotation_weighted": kappa_e2,
            "alpha_interval_annotation_weighted": kappa_e2,
            "p_e_conger": s2, "estimator_limits": limits,
            **self._count_truths(pm.mean(axis=0)),
        }
        return dict(alpha=kappa, alpha_nominal=kappa, fleiss_kappa=kappa, cohen_kappa=kappa,
                    p_o=p_o, p_e=s2, alpha_annotation_weighted=kappa_e2,
                    alpha_nominal_annotation_weighted=kappa_e2,
                    p_o_annotation_weighted=s2 + (1 - s2) * kappa_e2 if not math.isnan(
                        kappa_e2) else _NAN,
                    p_o_pairable=limits["percent_agreement"], details=details)


class _IntervalSide(_TwoClassSide):
    level = "interval"
    K = 0

    def __init__(self, reliability, heterogeneity, counts, R, mean=0.0):
        self.reliability, self.heterogeneity, self.mean = reliability, heterogeneity, mean
        self.sigma_b2 = reliability
        self.sigma_w2 = 1.0 - reliability
        self.class_sigma_w2 = self.sigma_w2 * np.array([1.0 - heterogeneity,
                                                        1.0 + heterogeneity])
        self.counts, self.R = counts, R
        # h = σ_wi²/(σ_b² + σ_w²): the item's D_o/D_e (σ_b² + σ_w² = 1)
        self.class_difficulty = self.class_sigma_w2 / (self.sigma_b2 + self.sigma_w2)
        self.h_bar = float(self.class_difficulty.mean())

    def latent(self, state):
        return self.mean + math.sqrt(self.sigma_b2) * state["u"]

    def values(self, rng, state, items, slots, raters, m):
        mu = self.latent(state)
        sd = np.sqrt(self.class_sigma_w2)[state["class"]]
        return mu[items] + sd[items] * rng.standard_normal(items.size)

    def weighted_within_variance(self, weight: np.ndarray) -> float:
        return _ratio(weight @ self.class_sigma_w2, weight.sum())

    def truths(self):
        pm, w = self.class_weights()
        s_w2_e2 = self.weighted_within_variance(w["e2"])
        alpha_w = self.sigma_b2 / (self.sigma_b2 + s_w2_e2) if not math.isnan(s_w2_e2) else _NAN
        details = {
            "sigma_b2": self.sigma_b2, "sigma_w2": self.sigma_w2, "mean": self.mean,
            "heterogeneity": self.heterogeneity,
            "class_sigma_w2": tuple(self.class_sigma_w2),
            "alpha_interval": self.reliability,
            "alpha_interval_annotation_weighted": alpha_w,
            "estimator_limits": {"alpha_interval": alpha_w},
            **self._count_truths(pm.mean(axis=0)),
        }
        return dict(alpha=self.reliability, alpha_annotation_weighted=alpha_w, details=details)


class _ThresholdSide(_Side):
    """The latent-threshold model (binary, ordinal), optionally with per-rater shifts."""

    def __init__(self, level, K, prevalence, reliability, counts, R, shift=0.0,
                 rater_shifts=None, latent_icc=None):
        self.level, self.K, self.prevalence = level, K, prevalence
        self.reliability, self.shift = reliability, shift
        self.counts, self.R = counts, R
        # standardised thresholds of z − shift (z ~ N(0, 1) without the shift)
        self.thresholds = ndtri(np.cumsum(prevalence)[:-1]) - shift
        self.biased = rater_shifts is not None
        self.rater_shifts = np.zeros(1) if rater_shifts is None else np.asarray(rater_shifts)
        inf = np.full(1, np.inf)
        self.bounds = np.concatenate([-inf, self.thresholds, inf])  # (K+1,)
        self.rater_bounds = self.bounds[None, :] + self.rater_shifts[:, None]  # (R or 1, K+1)
        # the latent ICC: nominal α (= Fleiss κ) of the bias-free categories = reliability
        self.latent_icc = (solve_latent_icc(self.thresholds, reliability) if latent_icc is None
                           else latent_icc)
        self.sd_item = math.sqrt(self.latent_icc)
        self.sd_noise = math.sqrt(1.0 - self.latent_icc)
        self._population()

    # -- population truths by bivariate-normal rectangles
    def _population(self):
        B, rho, R = self.rater_bounds, self.latent_icc, self.rater_bounds.shape[0]
        self.rater_marginals = np.diff(ndtr(B), axis=1)  # (R, K)
        if not self.biased:
            self.pair_joint = rectangle_probabilities(self.bounds, self.bounds, rho)
        else:  # mean over ordered pairs g ≠ h of the pool, in chunks of raters
            total = np.zeros((self.K, self.K))
            step = max(1, 2_000_000 // (R * (self.K + 1) ** 2))
            for start in range(0, R, step):
                block = rectangle_probabilities(B[start:start + step, None, :], B[None, :, :],
                                                rho)  # (b, R, K, K)
                total += block.sum(axis=(0, 1))
                idx = np.arange(start, min(R, start + step))
                total -= block[idx - start, idx].sum(axis=0)  # drop g = h
            self.pair_joint = total / (R * (R - 1))
        self.marginals = self.rater_marginals.mean(axis=0)
        self.p_o = float(np.trace(self.pair_joint))
        self.h_bar = 1.0 - self.p_o

    # -- per-item category probabilities q_gc(u) and pair quantities
    def item_probabilities(self, u: np.ndarray) -> np.ndarray:
        """q_gc(u) = P(category c | item latent u, rater g): (n, R or 1, K)."""
        mu = self.sd_item * np.asarray(u, dtype=float)
        inner = self.rater_bounds[:, 1:-1]  # the finite thresholds (R or 1, K−1)
        cdf = ndtr((inner[None, :, :] - mu[:, None, None]) / self.sd_noise)
        shape = cdf.shape[:-1] + (1,)
        return np.diff(np.concatenate([np.zeros(shape), cdf, np.ones(shape)], axis=-1), axis=-1)

    def _pair_joint(self, q: np.ndarray) -> np.ndarray:
        """J(u): mean over ordered rater pairs g ≠ h of q_g q_hᵀ: (n, K, K)."""
        if not self.biased:
            return q[:, 0, :, None] * q[:, 0, None, :]
        R = q.shape[1]
        s = q.sum(axis=1)
        return (s[:, :, None] * s[:, None, :] - np.einsum("ngk,ngl->nkl", q, q)) / (R * (R - 1))

    def difficulty(self, state):
        u = state["u"]
        out = np.empty(u.size)
        step = max(1, 4_000_000 // (self.rater_bounds.shape[0] * (self.K + 1)))
        for start in range(0, u.size, step):
            q = self.item_probabilities(u[start:start + step])
            out[start:start + step] = 1.0 - conger_chance_agreement(q)  # 1 − P(u)
        return out

    def latent(self, state):
        return self.shift + self.sd_item * state["u"]

    def values(self, rng, state, items, slots, raters, m):
        z = self.sd_item * state["u"][items] + self.sd_noise * rng.standard_normal(items.size)
        if self.biased:
            z -= self.rater_shifts[raters]
        return np.searchsorted(self.thresholds, z, side="left").astype(float)

    # -- the estimator limits: integrals over the item latent u ~ N(0, 1)
    def _expectations(self) -> dict[str, np.ndarray]:
        """E over u ~ N(0,1) of the weighted item quantities (quadrature under MNAR)."""
        K, M = self.K, self.counts.M
        Rq = self.rater_bounds.shape[0]
        layout = [("pm", (M + 1,)), ("w2", ()), ("w2P", ()), ("e2", ()), ("e2J", (K, K)),
                  ("e2q", (K,)), ("w1", ()), ("w1q", (K,)), ("e1", ()), ("e1q", (Rq, K))]
        if not self.counts.mnar:  # weights do not depend on the item: products of means
            pmf = self.counts.pmf
            s = self.counts.summaries(pmf)
            return {"pm": pmf, "w2": s["w2"], "w2P": s["w2"] * self.p_o, "e2": s["e2"],
                    "e2J": s["e2"] * self.pair_joint, "e2q": s["e2"] * self.marginals,
                    "w1": s["w1"], "w1q": s["w1"] * self.marginals, "e1": s["e1"],
                    "e1q": s["e1"] * self.rater_marginals}

        def integrand(u):
            q = self.item_probabilities(np.array([u]))
            P = conger_chance_agreement(q)  # P(u), the item's pair agreement
            J = self._pair_joint(q)[0]
            pm = self.counts.conditional(1.0 - P, self.h_bar)[0]
            s = self.counts.summaries(pm)
            qbar = q[0].mean(axis=0)
            parts = [pm, [s["w2"]], [s["w2"] * P[0]], [s["e2"]], (s["e2"] * J).ravel(),
                     s["e2"] * qbar, [s["w1"]], s["w1"] * qbar, [s["e1"]],
                     (s["e1"] * q[0]).ravel()]
            return np.concatenate(parts) * (math.exp(-0.5 * u * u) / math.sqrt(2 * math.pi))

        L = _QUAD_HALF_WIDTH
        points = None
        if self.sd_item > 0:
            # break points at the thresholds (on the u scale) and, when the step there is
            # narrow (width w = σ_ε/√ρ_L), graded ones at ±w·2^k up to 1/2: Gauss–Kronrod
            # nodes would otherwise step over a boundary layer and underestimate the error
            centers = np.unique(self.rater_bounds[:, 1:-1].ravel() / self.sd_item)
            width = self.sd_noise / self.sd_item
            steps = width * 2.0 ** np.arange(-1, 60)
            steps = steps[steps < 0.5]
            offsets = np.concatenate([[0.0], steps, -steps])
            inner = np.unique((centers[:, None] + offsets[None, :]).ravel())
            points = inner[np.abs(inner) < L].tolist() or None
        total, _ = quad_vec(integrand, -L, L, epsabs=_QUAD_TOL, epsrel=_QUAD_TOL, norm="max",
                            points=points, limit=20_000)
        out, start = {}, 0
        for name, shape in layout:
            size = int(np.prod(shape)) if shape else 1
            chunk = total[start:start + size]
            out[name] = chunk.reshape(shape) if shape else float(chunk[0])
            start += size
        return out

    def truths(self):
        K = self.K
        J, p = self.pair_joint, self.marginals
        p_e = float(fleiss_chance_agreement(p))
        p_e_conger = float(conger_chance_agreement(self.rater_marginals)) if self.biased else p_e
        nominal, interval = distances.nominal(K), distances.interval(np.arange(K))
        E = self._expectations()
        p_o_pairable = _ratio(E["w2P"], E["w2"])
        J_w = E["e2J"] / E["e2"] if E["e2"] > 0 else np.full((K, K), np.nan)
        p_w = E["e2q"] / E["e2"] if E["e2"] > 0 else np.full(K, np.nan)
        pi_fleiss = E["w1q"] / E["w1"]
        rater_w = E["e1q"] / E["e1"]
        p_e_conger_limit = float(conger_chance_agreement(rater_w))
        alpha_w, alpha_ord_w, alpha_int_w = _NAN, _NAN, _NAN
        if E["e2"] > 0:
            alpha_w = alpha_from_joint(J_w, p_w, p_w, nominal)
            alpha_ord_w = alpha_from_joint(J_w, p_w, p_w, distances.ordinal(p_w))
            alpha_int_w = alpha_from_joint(J_w, p_w, p_w, interval)
        limits = {
            "alpha_nominal": alpha_w, "alpha_ordinal": alpha_ord_w, "alpha_interval": alpha_int_w,
            "fleiss_kappa": chance_corrected(p_o_pairable, fleiss_chance_agreement(pi_fleiss)),
            "conger_kappa": chance_corrected(p_o_pairable, p_e_conger_limit),
            "percent_agreement": p_o_pairable,
        }
        alpha_nominal = chance_corrected(self.p_o, p_e)
        alpha_ordinal = alpha_from_joint(J, p, p, distances.ordinal(p))
        details = {
            "latent_icc": self.latent_icc, "thresholds": self.thresholds.copy(),
            "latent_shift": self.shift, "rater_shifts": self.rater_shifts.copy()
            if self.biased else np.zeros(self.R),
            "rater_marginals": self.rater_marginals.copy() if self.biased
            else np.repeat(self.rater_marginals, self.R, axis=0),
            "marginals": p.copy(), "pair_joint": J.copy(),
            "alpha_ordinal": alpha_ordinal,
            "alpha_interval": alpha_from_joint(J, p, p, interval),
            "alpha_ordinal_annotation_weighted": alpha_ord_w,
            "alpha_interval_annotation_weighted": alpha_int_w,
            "p_e_conger": p_e_conger, "fleiss_marginals_limit": pi_fleiss,
            "conger_marginals_limit": rater_w if self.biased else np.repeat(rater_w, self.R, 0),
            "estimator_limits": limits,
            **self._count_truths(np.asarray(E["pm"])),
        }
        # α at the level: binary data have one distance (δ ∝ 1 − I for K = 2), so the nominal
        # α is theirs; ordinal data take Krippendorff's ordinal metric
        ordinal = self.level == "ordinal"
        return dict(alpha=alpha_ordinal if ordinal else alpha_nominal,
                    alpha_nominal=alpha_nominal, fleiss_kappa=alpha_nominal,
                    cohen_kappa=chance_corrected(self.p_o, p_e_conger), p_o=self.p_o, p_e=p_e,
                    alpha_annotation_weighted=alpha_ord_w if ordinal else alpha_w,
                    alpha_nominal_annotation_weighted=alpha_w,
                    p_o_annotation_weighted=float(np.trace(J_w)) if E["e2"] > 0 else _NAN,
                    p_o_pairable=p_o_pairable, details=details)


# ============================================================================== public API
def _pool_size(n_raters, pmf: np.ndarray, name: str = "n_raters") -> int:
    M = pmf.size - 1
    if n_raters is None:
        return max(M, 1)
    R = check_count(n_raters, name, 1)
    if R < M:
        _fail(f"{name}={R} is smaller than the largest number of annotations per item ({M}): "
              "each rater annotates an item at most once")
    return R


def _parameters(**kwargs) -> dict[str, Any]:
    """The call's parameters, JSON-friendly (a Generator seed is recorded by its repr)."""
    def plain(v):
        if isinstance(v, (np.integer, np.floating)):
            return v.item()
        if isinstance(v, np.ndarray):
            return v.tolist()
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, Mapping):
            return {str(k): plain(x) for k, x in v.items()}
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        return repr(v)
    return {k: plain(v) for k, v in kwargs.items()}


def _make_side(level, K, pi, reliability, heterogeneity, counts, R, *, shift=0.0,
               rater_shifts=None, latent_icc=None) -> _Side:
    if level == "nominal":
        return _NominalSide(K, pi, reliability, heterogeneity, counts, R)
    if level == "interval":
        return _IntervalSide(reliability, heterogeneity, counts, R, mean=shift)
    return _ThresholdSide(level, K, pi, reliability, counts, R, shift=shift,
                          rater_shifts=rater_shifts, latent_icc=latent_icc)


def _side_truth(side: _Side, level, K, pi, labels, state, h, extra_details) -> Truth:
    t = side.truths()
    details = dict(t.pop("details"))
    details.update(extra_details)
    return Truth(level=level, n_categories=K or None, prevalence=tuple(float(x) for x in pi),
                 details=details, item_labels=labels, item_latent=side.latent(state),
                 item_difficulty=h, **t)


def annotations(n_items: int, *, level: str = "nominal", n_categories: int | None = None,
                prevalence: Any = None, reliability: float | None = None,
                latent_icc: float | None = None,
                annotations_per_item: Any = 3, n_raters: int | None = None,
                rater_bias: float = 0.0, missingness: str = "mcar",
                mnar_strength: float = 1.0, heterogeneity: float | None = None,
                seed: Any = None) -> tuple[Annotations, Truth]:
    r"""Simulate annotations with known population agreement: ``(Annotations, Truth)``.

    Parameters
    ----------
    n_items : number of items (≥ 1); items are labelled 0..n_items−1 (items that drew no
        annotation stay, with no annotation).
    level : ``"nominal"`` (Dirichlet–multinomial), ``"binary"`` / ``"ordinal"`` (thresholded
        latent normal), ``"interval"`` (random-effects normal). See the module docstring.
    n_categories : K (nominal: default ``len(prevalence)`` or 3; binary: 2; ordinal: default 5).
        Categories are the integers 0..K−1 (ordered for ordinal data).
    prevalence : the category probabilities π (positive, summing to 1 within 1e-9; default
        uniform), or a single number s: the last category's (minority) share, the others
        sharing 1 − s equally (binary: (1 − s, s)). For binary/ordinal data it fixes the
        thresholds, so it is the marginal distribution when there is no rater bias.
    reliability : in [0, 1) (default 0.6): the population nominal α = Fleiss κ (nominal,
        binary, ordinal: of the categories) or the ICC σ_b²/(σ_b² + σ_w²) (interval).
    latent_icc : binary/ordinal only, instead of ``reliability``: the latent ICC ρ_L itself,
        so that latent agreement stays fixed while the prevalence moves (the kappa paradox:
        κ then falls with the prevalence; ``truth.alpha`` says how far).
    annotations_per_item : the baseline pmf of m_i, any spec of :func:`annotation_count_pmf`
        (an int, a ``(lo, hi)`` range, ``{"poisson": λ}``, ``{"geometric": p}``, a pmf).
    n_raters : the pool size R (default: the largest m with positive probability); each item's
        raters are a uniformly random subset of the pool, in random order.
    rater_bias : b ≥ 0, binary/ordinal only: rater g's thresholds are shifted by β_g ~ N(0, b²)
        (drawn once per pool), so that raters have their own marginals and Cohen/Conger κ
        differs from Scott/Fleiss κ and α. The latent ICC is the bias-free one. The pool's
        exact truths cost O(R²K²) bivariate-normal evaluations and the items' difficulties
        O(n·R·K) (about 10 s for R = 1000; a pool of 10 is immediate).
    missingness : ``"mcar"`` (m_i independent of the item) or ``"mnar"`` (tilted towards more
        annotations on harder items: p(m | i) ∝ p₀(m) exp{s m (h_i − h̄)}).
    mnar_strength : s ≥ 0 (used only under ``"mnar"``).
    heterogeneity : in [0, 1), nominal and interval only: easy/hard items (κ_i = κ ± d with
        d = heterogeneity·min(κ, 1 − κ); interval σ_wi² = σ_w²(1 ∓ heterogeneity)). Default
        0.5 under MNAR (difficulty must vary for MNAR to act), else 0.
    seed : int, None or ``numpy.random.Generator``.

    Returns
    -------
    (Annotations, Truth)
        The truths are exact (see the module docstring for every formula and for which
        estimator converges to which truth). ``truth.item_latent`` holds κ_i (nominal) or the
        item's latent mean μ_i; ``truth.item_difficulty`` h_i.

    >>> ann, truth = annotations(500, level="ordinal", reliability=0.5, seed=3)
    >>> ann.n_categories, round(truth.details["latent_icc"], 4), round(truth.alpha_nominal, 12)
    (5, 0.9167, 0.5)
    >>> round(truth.alpha, 4)  # α at the simulated level: Krippendorff's ordinal α
    0.8727
    """
    n_items = check_count(n_items, "n_items", 1)
    if level not in LEVELS:
        _fail(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    if latent_icc is not None:
        if reliability is not None:
            _fail("give reliability or latent_icc, not both")
        if level not in ("binary", "ordinal"):
            _fail(f"latent_icc applies to the latent-threshold levels (binary, ordinal) only, "
                  f"not {level!r}")
        latent_icc = _reliability(latent_icc, "latent_icc")
    reliability = _reliability(0.6 if reliability is None else reliability)
    K, pi = _categories_and_prevalence(level, n_categories, prevalence)
    missingness = _missingness(missingness)
    strength = _mnar_strength(mnar_strength)
    pmf = annotation_count_pmf(annotations_per_item)
    R = _pool_size(n_raters, pmf)
    bias = check_real(rater_bias, "rater_bias")
    if bias < 0:
        _fail(f"rater_bias must be ≥ 0, got {bias}")
    if bias > 0 and level in ("nominal", "interval"):
        _fail(f"rater_bias applies to the latent-threshold levels (binary, ordinal) only; in "
              f"level {level!r} raters are exchangeable")
    if bias > 0 and R < 2:
        _fail("rater_bias needs a pool of at least 2 raters (n_raters ≥ 2)")
    if level in ("binary", "ordinal"):
        if heterogeneity not in (None, 0, 0.0):
            _fail(f"heterogeneity applies to levels 'nominal' and 'interval'; in level {level!r} "
                  "item difficulty already varies with the item's latent value")
        het = 0.0
    else:
        het = _heterogeneity(heterogeneity, missingness)
    rng = make_rng(seed)
    params = _parameters(n_items=n_items, level=level, n_categories=K or None,
                         prevalence=pi, reliability=reliability, latent_icc=latent_icc,
                         annotations_per_item=annotations_per_item, n_raters=R,
                         rater_bias=bias, missingness=missingness, mnar_strength=strength,
                         heterogeneity=het, seed=seed)

    counts = _CountModel(pmf, missingness, strength)
    rater_shifts = rng.normal(0.0, bias, R) if bias > 0 else None
    side = _make_side(level, K, pi, reliability, het, counts, R, rater_shifts=rater_shifts,
                      latent_icc=latent_icc)
    state = {"u": rng.standard_normal(n_items) if level != "nominal" else np.zeros(n_items),
             "class": rng.integers(0, 2, n_items) if level in ("nominal", "interval")
             else np.zeros(n_items, dtype=np.int64)}
    labels = np.arange(n_items)
    ann, h = side.simulate(rng, state, labels)
    truth = _side_truth(side, level, K, pi, labels, state, h, {"parameters": params})
    return ann, truth


def _pair(value, name: str) -> tuple[Any, Any]:
    """A per-side parameter: a 2-tuple/list (X, Y), or one value for both sides."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            _fail(f"{name} must be one value or a pair (X, Y), got {value!r}")
        return value[0], value[1]
    return value, value


def replications(n_items: int, *, level: str = "interval", rho: float = 0.8,
                 reliability: Any = (0.6, 0.6), annotations_per_item: Any = (3, 3),
                 n_raters: Any = (None, None), shift: float = 0.0,
                 n_categories: int | None = None, prevalence: Any = None,
                 missingness: Any = ("mcar", "mcar"), mnar_strength: float = 1.0,
                 heterogeneity: Any = None, only_x: int = 0, only_y: int = 0,
                 seed: Any = None) -> tuple[Annotations, Annotations, Truth]:
    r"""Two rater pools annotating the same items: ``(ann_x, ann_y, Truth)``.

    The items' latent values (u_X, u_Y) are standard bivariate normal with correlation
    ``rho``; side X is the one-pool model of :func:`annotations` on u_X, side Y on u_Y with its
    latent shifted by ``shift``. Items 0..n_items−1 are in both replications; ``only_x`` items
    labelled n_items.. are in X only and ``only_y`` items labelled after those in Y only.

    Per-side parameters (``reliability``, ``annotations_per_item``, ``n_raters``,
    ``missingness``, ``heterogeneity``) take a pair ``(X, Y)`` — a *tuple* of two for
    ``annotations_per_item``, so a range per side is nested: ``((2, 5), 3)`` — or one value for
    both sides.

    Levels and truths (σ_b² = reliability, σ_w² = 1 − reliability on each side):

    * ``"interval"``: x = μ_X + ε, y = μ_Y + shift + ε', corr(μ_X, μ_Y) = ρ. With δ = (x − y)²,
      κx = 1 − d_o/d_e, d_o = E[δ(x_i, y_i)] (same item), d_e = E[δ(x_i, y_j)] (i ≠ j):

      .. math::  κ_x = \frac{2ρσ_{bX}σ_{bY}}{(m_X - m_Y)^2 + σ_{bX}^2 + σ_{bY}^2 + σ_{wX}^2
                 + σ_{wY}^2},

      ``rho`` = ρ (the correlation of the item true scores μ), ``irr_x``/``irr_y`` the ICCs.
    * ``"binary"`` / ``"ordinal"``: thresholded latents (thresholds from ``prevalence``; Y's
      latent shifted by ``shift`` before thresholding, so its marginals differ); each side's
      latent ICC ρ_L is solved so that its nominal α = its ``reliability`` (= ``irr_x_nominal``,
      ``irr_y_nominal``; for binary data also ``irr_x``, ``irr_y``). One annotation of each
      side on the same item is bivariate normal with correlation r = ρ√(ρ_LX ρ_LY), so
      J_ck = P(x = c, y = k | same item) is a rectangle probability, and with p_X, p_Y the
      sides' marginals:

      .. math::  κ_x = 1 - \frac{\sum_{ck} J_{ck} δ_{ck}}{\sum_{ck} p_{Xc} p_{Yk} δ_{ck}},

      δ nominal (``kx_nominal``; binary: also ``kx``), Krippendorff's ordinal metric on the
      pooled marginals p̄ of both sides' annotations on the shared items (``kx`` for ordinal
      data, ``details["kx_ordinal"]``, the metric of :func:`~kappalab.cross_kappa` with
      ``level="ordinal"``) or (c − k)² on the category indices (``details["kx_interval"]``).
      With a_X = E[m_X]·P(m_Y ≥ 1) and a_Y = E[m_Y]·P(m_X ≥ 1) each side's expected number of
      annotations on a shared item (the baseline pmfs), p̄ = (a_X p_X + a_Y p_Y)/(a_X + a_Y)
      (``details["ordinal_marginals"]``), the limit of the estimator's pooled marginals under
      MCAR.
      ``rho`` is the correlation of the item true scores E[x | item] = Σ_c c q_c(μ) (what
      Spearman's correction targets), exact from the same rectangles:
      Cov = iᵀJi − (iᵀp_X)(iᵀp_Y), Var_X = iᵀJ_XXi − (iᵀp_X)² with i = (0, …, K−1) and J_XX the
      within-side pair distribution.

    Every truth is at the simulated level (see :class:`Truth`): ``irr_x``, ``irr_y`` are each
    side's α at ``level`` (ordinal data: Krippendorff's ordinal α with the side's marginals,
    what :func:`~kappalab.xrr_report` with ``level="ordinal"`` estimates as IRR_X, IRR_Y),
    ``kx`` κx at ``level``, ``normalized_kx`` = κx/√(irr_x·irr_y) (NaN when an IRR ≤ 0); the
    ``_nominal`` twins (``irr_x_nominal``, ``irr_y_nominal``, ``kx_nominal``,
    ``normalized_kx_nominal``) use the nominal distance (NaN for interval data). In
    ``details``, ``kx_observed_disagreement``/``kx_expected_disagreement`` are at the level
    too, ``kx_nominal_observed_disagreement``/``…expected…`` nominal. ``details["x"]`` and
    ``details["y"]`` are each side's full :class:`Truth` (with its MNAR limits).

    The cross-replication estimator κx (Wong, Paritosh & Aroyo 2021, eqs 6–11), computed on
    items with annotations on both sides, weighs item i by R_i + S_i (its annotations on the two
    sides) in d_o and pools the sides' annotations in d_e. Under MCAR it converges to ``kx``
    (``details["kx_nominal_annotation_weighted"]``: the nominal one's limit);
    under MNAR to ``details["kx_annotation_weighted"]`` =
    1 − d_o⁽ʷ⁾/d_e⁽ʷ⁾ with d_o⁽ʷ⁾ = E[(R+S)1(R,S≥1) d_i]/E[(R+S)1(R,S≥1)] (d_i the item's mean
    cross-pair distance) and d_e⁽ʷ⁾ = p_X⁽ʷ⁾ᵀ δ p_Y⁽ʷ⁾, p_X⁽ʷ⁾ = E[R q_X 1(S≥1)]/E[R 1(S≥1)]
    (and symmetrically for Y). It is given in closed form for interval data (the two item
    classes); for binary/ordinal data under MNAR it is a two-dimensional integral that is not
    computed (NaN).

    >>> ann_x, ann_y, truth = replications(200, rho=0.9, seed=0)
    >>> round(truth.kx, 4), round(truth.normalized_kx, 4)
    (0.54, 0.9)
    """
    n_items = check_count(n_items, "n_items", 1)
    if level not in REPLICATION_LEVELS:
        _fail(f"unknown level {level!r} for replications; choose one of "
              f"{', '.join(REPLICATION_LEVELS)}")
    rho = check_real(rho, "rho")
    if not -1.0 <= rho <= 1.0:
        _fail(f"rho must be in [-1, 1], got {rho}")
    shift = check_real(shift, "shift")
    only_x = check_count(only_x, "only_x", 0)
    only_y = check_count(only_y, "only_y", 0)
    rel = tuple(_reliability(r, f"reliability ({s})") for r, s in zip(
        _pair(reliability, "reliability"), "XY"))
    K, pi = _categories_and_prevalence(level, n_categories, prevalence)
    miss = tuple(_missingness(m, f"missingness ({s})") for m, s in zip(
        _pair(missingness, "missingness"), "XY"))
    strength = _mnar_strength(mnar_strength)
    specs = _pair(annotations_per_item, "annotations_per_item") if isinstance(
        annotations_per_item, tuple) else (annotations_per_item, annotations_per_item)
    pmfs = tuple(annotation_count_pmf(s) for s in specs)
    pools = tuple(_pool_size(r, p, f"n_raters ({s})") for r, p, s in zip(
        _pair(n_raters, "n_raters"), pmfs, "XY"))
    het_in = _pair(heterogeneity, "heterogeneity") if isinstance(heterogeneity, (tuple, list)) \
        else (heterogeneity, heterogeneity)
    if level != "interval":
        if any(h not in (None, 0, 0.0) for h in het_in):
            _fail(f"heterogeneity applies to level 'interval'; in level {level!r} item "
                  "difficulty already varies with the item's latent value")
        hets = (0.0, 0.0)
    else:
        hets = tuple(_heterogeneity(h, m) for h, m in zip(het_in, miss))
    rng = make_rng(seed)
    params = _parameters(n_items=n_items, level=level, rho=rho, reliability=rel,
                         annotations_per_item=list(specs), n_raters=pools, shift=shift,
                         n_categories=K or None, prevalence=pi, missingness=miss,
                         mnar_strength=strength, heterogeneity=hets, only_x=only_x,
                         only_y=only_y, seed=seed)

    sides = [_make_side(level, K, pi, rel[s], hets[s], _CountModel(pmfs[s], miss[s], strength),
                        pools[s], shift=shift if s == 1 else 0.0) for s in (0, 1)]
    n_total = n_items + only_x + only_y
    u_x = rng.standard_normal(n_total)
    u_y = rho * u_x + math.sqrt(max(0.0, 1.0 - rho * rho)) * rng.standard_normal(n_total)
    item_class = rng.integers(0, 2, n_total) if level == "interval" else np.zeros(
        n_total, dtype=np.int64)
    positions = (np.arange(n_items + only_x),
                 np.concatenate([np.arange(n_items), np.arange(n_items + only_x, n_total)]))
    results = []
    for s, (side, u) in enumerate(zip(sides, (u_x, u_y))):
        idx = positions[s]
        state = {"u": u[idx], "class": item_class[idx]}
        ann, h = side.simulate(rng, state, idx)
        truth = _side_truth(side, level, K, pi, idx, state, h, {"parameters": params,
                                                                  "side": "XY"[s]})
        results.append((ann, truth))
    (ann_x, truth_x), (ann_y, truth_y) = results

    cross = _cross_truths(level, K, sides, rho, shift)
    irr_x, irr_y = truth_x.alpha, truth_y.alpha  # each side's α at the level
    irr_xn, irr_yn = truth_x.alpha_nominal, truth_y.alpha_nominal
    details = {"x": truth_x, "y": truth_y, "parameters": params, **cross["details"]}
    if level != "interval":
        irr_xi = truth_x.details["alpha_interval"]
        irr_yi = truth_y.details["alpha_interval"]
        details["normalized_kx_interval"] = _normalized(cross["details"]["kx_interval"],
                                                        irr_xi, irr_yi)
    latent = np.column_stack([sides[0].latent({"u": u_x}), sides[1].latent({"u": u_y})])
    difficulty = np.full((n_total, 2), np.nan)
    difficulty[positions[0], 0] = truth_x.item_difficulty
    difficulty[positions[1], 1] = truth_y.item_difficulty
    truth = Truth(level=level, n_categories=K or None, prevalence=tuple(float(x) for x in pi),
                  irr_x=irr_x, irr_y=irr_y, kx=cross["kx"],
                  normalized_kx=_normalized(cross["kx"], irr_x, irr_y),
                  irr_x_nominal=irr_xn, irr_y_nominal=irr_yn, kx_nominal=cross["kx_nominal"],
                  normalized_kx_nominal=_normalized(cross["kx_nominal"], irr_xn, irr_yn),
                  rho=cross["rho"], details=details, item_labels=np.arange(n_total),
                  item_latent=latent, item_difficulty=difficulty)
    return ann_x, ann_y, truth


def _normalized(kx: float, irr_x: float, irr_y: float) -> float:
    """κx/√(IRR_X·IRR_Y), NaN unless both IRRs are positive."""
    return kx / math.sqrt(irr_x * irr_y) if irr_x > 0 and irr_y > 0 else _NAN


def _cross_truths(level, K, sides, rho, shift) -> dict[str, Any]:
    x, y = sides
    if level == "interval":
        sbx, sby = math.sqrt(x.sigma_b2), math.sqrt(y.sigma_b2)
        d_e = shift ** 2 + x.sigma_b2 + y.sigma_b2 + x.sigma_w2 + y.sigma_w2
        kx = 2 * rho * sbx * sby / d_e
        # the κx estimator's limit: items in both sides weighted by R_i + S_i (class sums)
        px, wx = x.class_weights()
        py, wy = y.class_weights()
        weight = wx["e1"] * wy["w1"] + wx["w1"] * wy["e1"]  # per item class
        between = shift ** 2 + x.sigma_b2 + y.sigma_b2 - 2 * rho * sbx * sby
        d_o_w = _ratio(weight @ (between + x.class_sigma_w2 + y.class_sigma_w2), weight.sum())
        var_x = x.sigma_b2 + x.weighted_within_variance(wx["e1"] * wy["w1"])
        var_y = y.sigma_b2 + y.weighted_within_variance(wx["w1"] * wy["e1"])
        d_e_w = var_x + var_y + shift ** 2
        return {"kx": kx, "kx_nominal": _NAN, "rho": rho, "details": {
            "kx_observed_disagreement": between + x.sigma_w2 + y.sigma_w2,
            "kx_expected_disagreement": d_e,
            "kx_annotation_weighted": 1.0 - d_o_w / d_e_w if not math.isnan(d_o_w) else _NAN}}
    tables = latent_cross_tables(x.thresholds, y.thresholds, x.latent_icc, y.latent_icc, rho)
    joint, px, py, r = tables.joint, tables.marginals_x, tables.marginals_y, float(
        tables.correlation)
    # the ordinal metric of κx is on the pooled marginals of both sides' annotations on the
    # items they share: side X contributes E[m_X]·P(m_Y ≥ 1) annotations per item, Y
    # E[m_Y]·P(m_X ≥ 1) (the baseline pmfs p₀: the limit under MCAR)
    sx, sy = x.counts.summaries(x.counts.pmf), y.counts.summaries(y.counts.pmf)
    share_x, share_y = float(sx["e1"] * sy["w1"]), float(sy["e1"] * sx["w1"])
    pooled = (share_x * px + share_y * py) / (share_x + share_y)
    nominal, interval = distances.nominal(K), distances.interval(np.arange(K))
    ordinal = distances.ordinal(pooled)
    kx_nominal = alpha_from_joint(joint, px, py, nominal)
    kx_ordinal = alpha_from_joint(joint, px, py, ordinal)
    kx_interval = alpha_from_joint(joint, px, py, interval)
    # at the level (binary: the nominal κx, which every distance gives for K = 2)
    kx, delta = (kx_ordinal, ordinal) if level == "ordinal" else (kx_nominal, nominal)
    d_o, d_e = joint_disagreements(joint, px, py, delta)
    d_o_nominal, d_e_nominal = joint_disagreements(joint, px, py, nominal)
    rho_true, cov, var_x, var_y = true_score_correlation(tables)
    mcar = not (x.counts.mnar or y.counts.mnar)
    return {"kx": kx, "kx_nominal": kx_nominal, "rho": rho_true, "details": {
        "kx_interval": kx_interval, "kx_ordinal": kx_ordinal,
        "ordinal_marginals": pooled,
        "cross_joint": joint, "cross_latent_correlation": r,
        "kx_observed_disagreement": d_o, "kx_expected_disagreement": d_e,
        "kx_nominal_observed_disagreement": d_o_nominal,
        "kx_nominal_expected_disagreement": d_e_nominal,
        "true_score_covariance": float(cov), "true_score_variances": (float(var_x),
                                                                      float(var_y)),
        "kx_annotation_weighted": kx if mcar else _NAN,
        "kx_nominal_annotation_weighted": kx_nominal if mcar else _NAN,
        "kx_interval_annotation_weighted": kx_interval if mcar else _NAN}}


def to_dataset(ann: Annotations, truth: Truth | None = None):
    """An ``xarray.Dataset``: ``value`` (item × rater, NaN = missing) and, with a truth,
    ``latent`` and ``difficulty`` (per item), the truths and parameters as attributes.

    For replications pass one side's annotations with that side's truth:
    ``to_dataset(ann_x, truth.details["x"])``.
    """
    import xarray as xr

    data = {"value": ann.to_xarray()}
    attrs: dict[str, Any] = {}
    if truth is not None:
        if np.ndim(truth.item_latent) != 1:
            _fail("this Truth holds both replications; pass one side's annotations with its "
                  "own truth, e.g. to_dataset(ann_x, truth.details['x'])")
        position = pd.Index(truth.item_labels).get_indexer(ann.items)
        if (position < 0).any():
            _fail("some items of the annotations are not in the truth (labels differ); pass "
                  "the truth generated with these annotations")
        data["latent"] = ("item", np.asarray(truth.item_latent)[position])
        data["difficulty"] = ("item", np.asarray(truth.item_difficulty)[position])
        attrs["level"] = truth.level
        if truth.n_categories is not None:
            attrs["n_categories"] = truth.n_categories
            attrs["prevalence"] = list(truth.prevalence)
        for name, value in truth.values().items():
            attrs[f"truth_{name}"] = value
        attrs["parameters"] = json.dumps(
            truth.details.get("parameters", {}),
            default=lambda o: dict(o) if isinstance(o, Mapping) else repr(o))
    return xr.Dataset(data, attrs=attrs)
