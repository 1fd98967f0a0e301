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
even at reliability 0.999; the tails beyond \|μ|/√ρ_L = 12 hold < 1e-32). Where the tilt cannot
act (every item with the same m) the quadrature reproduces the bivariate-normal truths to 1e-12.

Replications
------------
:func:`replications`: item latents (u_X, u_Y) standard bivariate normal with correlation ``rho``;
side X is the one-pool model above on u_X, side Y on u_Y with its latent shifted by ``shift``.
See that function for κx, normalized κx and ρ.

Layout
------
This package holds the public functions (:func:`annotations`, :func:`replications`,
:func:`to_dataset`) and the description above; the parts of the models are its submodules:

* ``simulate.parameters``: the checks of the parameters, and the record of a call's parameters
  kept in ``truth.details["parameters"]``;
* ``simulate.counts``: annotations per item, :func:`annotation_count_pmf` and the MNAR tilt
  (``CountModel``);
* ``simulate.raters``: the rater pool, each item's random ordered subset of it, and the
  :class:`~kappalab.annotations.Annotations` built from the draws;
* ``simulate.sides``: the side models (nominal, latent threshold for binary and ordinal data,
  interval), each of which draws its annotations and computes its exact truths, and the truths
  of two sides on the same items (replications);
* ``simulate.truths``: the :class:`Truth` every generator returns (it imports no model);
* ``simulate.study``: :func:`run_study`, a design grid × replications run as Dask tasks with
  per-replication seeds and a checkpoint;
* ``simulate.checkpoint``: the checkpoint file, JSON lines of data with a checksum per record
  and keys from the replicate function's content.
"""

import json
import math
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ..annotations import Annotations
from ..validation import SeedLike, check_count, check_real, make_rng
from .counts import CountModel, annotation_count_pmf
from .parameters import (LEVELS, REPLICATION_LEVELS, categories_and_prevalence,
                         check_heterogeneity, check_missingness, check_mnar_strength,
                         check_reliability, fail, parameter_record, per_side)
from .raters import pool_size
from .sides import Side, cross_truths, make_side
from .study import replication_rng, run_study
from .truths import Truth
from .annotator_models import (AnnotatorTruth, GladTruth, dawid_skene_annotations,
                               glad_annotations)

# the constants of the submodules stay available as simulate.<name>
from .counts import MAX_ANNOTATIONS_PER_ITEM, TAIL_MASS  # noqa: F401
from .parameters import MISSINGNESS  # noqa: F401

__all__ = ["Truth", "annotations", "replications", "annotation_count_pmf", "to_dataset",
           "run_study", "replication_rng", "AnnotatorTruth", "dawid_skene_annotations",
           "GladTruth", "glad_annotations"]

_NAN = float("nan")


def _side_truth(side: Side, level, K, pi, labels, state, h, extra_details) -> Truth:
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
                seed: SeedLike = None) -> tuple[Annotations, Truth]:
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

    Raises
    ------
    kappalab.errors.InvalidParameterError
        For an unknown ``level``, a parameter out of its range, ``reliability`` together with
        ``latent_icc``, or a parameter that does not apply to ``level`` (``latent_icc``,
        ``rater_bias``, ``heterogeneity``).

    References
    ----------
    .. [1] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A. & Rubin, D. B.
       (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press (Dirichlet–multinomial and
       random-effects normal models).

    Examples
    --------
    >>> ann, truth = annotations(500, level="ordinal", reliability=0.5, seed=3)
    >>> ann.n_categories, round(truth.details["latent_icc"], 4), round(truth.alpha_nominal, 12)
    (5, 0.9167, 0.5)
    >>> round(truth.alpha, 4)  # α at the simulated level: Krippendorff's ordinal α
    0.8727
    """
    n_items = check_count(n_items, "n_items", 1)
    if level not in LEVELS:
        fail(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    if latent_icc is not None:
        if reliability is not None:
            fail("give reliability or latent_icc, not both")
        if level not in ("binary", "ordinal"):
            fail(f"latent_icc applies to the latent-threshold levels (binary, ordinal) only, "
                 f"not {level!r}")
        latent_icc = check_reliability(latent_icc, "latent_icc")
    reliability = check_reliability(0.6 if reliability is None else reliability)
    K, pi = categories_and_prevalence(level, n_categories, prevalence)
    missingness = check_missingness(missingness)
    strength = check_mnar_strength(mnar_strength)
    pmf = annotation_count_pmf(annotations_per_item)
    R = pool_size(n_raters, pmf)
    bias = check_real(rater_bias, "rater_bias")
    if bias < 0:
        fail(f"rater_bias must be ≥ 0, got {bias}")
    if bias > 0 and level in ("nominal", "interval"):
        fail(f"rater_bias applies to the latent-threshold levels (binary, ordinal) only; in "
             f"level {level!r} raters are exchangeable")
    if bias > 0 and R < 2:
        fail("rater_bias needs a pool of at least 2 raters (n_raters ≥ 2)")
    if level in ("binary", "ordinal"):
        if heterogeneity not in (None, 0, 0.0):
            fail(f"heterogeneity applies to levels 'nominal' and 'interval'; in level {level!r} "
                 "item difficulty already varies with the item's latent value")
        het = 0.0
    else:
        het = check_heterogeneity(heterogeneity, missingness)
    rng = make_rng(seed)
    params = parameter_record(n_items=n_items, level=level, n_categories=K or None,
                              prevalence=pi, reliability=reliability, latent_icc=latent_icc,
                              annotations_per_item=annotations_per_item, n_raters=R,
                              rater_bias=bias, missingness=missingness, mnar_strength=strength,
                              heterogeneity=het, seed=seed)

    counts = CountModel(pmf, missingness, strength)
    rater_shifts = rng.normal(0.0, bias, R) if bias > 0 else None
    side = make_side(level, K, pi, reliability, het, counts, R, rater_shifts=rater_shifts,
                     latent_icc=latent_icc)
    state = {"u": rng.standard_normal(n_items) if level != "nominal" else np.zeros(n_items),
             "class": rng.integers(0, 2, n_items) if level in ("nominal", "interval")
             else np.zeros(n_items, dtype=np.int64)}
    labels = np.arange(n_items)
    ann, h = side.simulate(rng, state, labels)
    truth = _side_truth(side, level, K, pi, labels, state, h, {"parameters": params})
    return ann, truth


def replications(n_items: int, *, level: str = "interval", rho: float = 0.8,
                 reliability: Any = (0.6, 0.6), annotations_per_item: Any = (3, 3),
                 n_raters: Any = (None, None), shift: float = 0.0,
                 n_categories: int | None = None, prevalence: Any = None,
                 missingness: Any = ("mcar", "mcar"), mnar_strength: float = 1.0,
                 heterogeneity: Any = None, only_x: int = 0, only_y: int = 0,
                 seed: SeedLike = None) -> tuple[Annotations, Annotations, Truth]:
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

    Parameters
    ----------
    n_items : int
        Number of items in both replications (≥ 1), labelled 0..n_items−1.
    level : {"interval", "binary", "ordinal"}, default "interval"
        The measurement level of both sides (see above).
    rho : float, default 0.8
        Correlation of the items' latent values (u_X, u_Y), in [−1, 1].
    reliability : float or pair of floats, default (0.6, 0.6)
        Each side's reliability in [0, 1), as in :func:`annotations`.
    annotations_per_item : spec or tuple of two specs, default (3, 3)
        Each side's pmf of annotations per item, any spec of :func:`annotation_count_pmf`.
    n_raters : int, None or pair, default (None, None)
        Each side's rater pool size (default: the largest m with positive probability).
    shift : float, default 0.0
        Shift of side Y's latent (interval: its mean; binary/ordinal: before thresholding).
    n_categories : int, optional
        K for ordinal data (default 5; binary: 2).
    prevalence : array_like or float, optional
        The category probabilities π of the thresholds, as in :func:`annotations`.
    missingness : str or pair of str, default ("mcar", "mcar")
        ``"mcar"`` or ``"mnar"`` per side.
    mnar_strength : float, default 1.0
        s ≥ 0, the MNAR tilt (used only under ``"mnar"``).
    heterogeneity : float, pair or None, optional
        Interval only: easy/hard items per side, as in :func:`annotations`.
    only_x, only_y : int, default 0
        Numbers of items annotated in X only and in Y only.
    seed : int, None or numpy.random.Generator
        Seed of the random generator.

    Returns
    -------
    ann_x, ann_y : Annotations
        The two replications' annotations.
    truth : Truth
        The exact population values (``kx``, ``irr_x``, ``irr_y``, ``rho``, ...);
        ``truth.details["x"]`` and ``truth.details["y"]`` are the sides' own truths.

    Raises
    ------
    kappalab.errors.InvalidParameterError
        For an unknown ``level``, ``rho`` outside [−1, 1], a parameter out of its range, or
        ``heterogeneity`` with a non-interval level.

    References
    ----------
    .. [1] Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication reliability — an
       empirical approach to interpreting inter-rater reliability. *Proceedings of ACL-IJCNLP
       2021*, 7053–7065. doi:10.18653/v1/2021.acl-long.548

    Examples
    --------
    >>> ann_x, ann_y, truth = replications(200, rho=0.9, seed=0)
    >>> round(truth.kx, 4), round(truth.normalized_kx, 4)
    (0.54, 0.9)
    """
    n_items = check_count(n_items, "n_items", 1)
    if level not in REPLICATION_LEVELS:
        fail(f"unknown level {level!r} for replications; choose one of "
             f"{', '.join(REPLICATION_LEVELS)}")
    rho = check_real(rho, "rho")
    if not -1.0 <= rho <= 1.0:
        fail(f"rho must be in [-1, 1], got {rho}")
    shift = check_real(shift, "shift")
    only_x = check_count(only_x, "only_x", 0)
    only_y = check_count(only_y, "only_y", 0)
    rel = tuple(check_reliability(r, f"reliability ({s})") for r, s in zip(
        per_side(reliability, "reliability"), "XY"))
    K, pi = categories_and_prevalence(level, n_categories, prevalence)
    miss = tuple(check_missingness(m, f"missingness ({s})") for m, s in zip(
        per_side(missingness, "missingness"), "XY"))
    strength = check_mnar_strength(mnar_strength)
    specs = per_side(annotations_per_item, "annotations_per_item") if isinstance(
        annotations_per_item, tuple) else (annotations_per_item, annotations_per_item)
    pmfs = tuple(annotation_count_pmf(s) for s in specs)
    pools = tuple(pool_size(r, p, f"n_raters ({s})") for r, p, s in zip(
        per_side(n_raters, "n_raters"), pmfs, "XY"))
    het_in = per_side(heterogeneity, "heterogeneity") if isinstance(heterogeneity, (tuple, list)) \
        else (heterogeneity, heterogeneity)
    if level != "interval":
        if any(h not in (None, 0, 0.0) for h in het_in):
            fail(f"heterogeneity applies to level 'interval'; in level {level!r} item "
                 "difficulty already varies with the item's latent value")
        hets: tuple[float, ...] = (0.0, 0.0)
    else:
        hets = tuple(check_heterogeneity(h, m) for h, m in zip(het_in, miss))
    rng = make_rng(seed)
    params = parameter_record(n_items=n_items, level=level, rho=rho, reliability=rel,
                              annotations_per_item=list(specs), n_raters=pools, shift=shift,
                              n_categories=K or None, prevalence=pi, missingness=miss,
                              mnar_strength=strength, heterogeneity=hets, only_x=only_x,
                              only_y=only_y, seed=seed)

    sides = [make_side(level, K, pi, rel[s], hets[s], CountModel(pmfs[s], miss[s], strength),
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

    cross = cross_truths(level, K, sides, rho, shift)
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


def to_dataset(ann: Annotations, truth: Truth | None = None):
    """An ``xarray.Dataset``: ``value`` (item × rater, NaN = missing) and, with a truth,
    ``latent`` and ``difficulty`` (per item), the truths and parameters as attributes.

    For replications pass one side's annotations with that side's truth:
    ``to_dataset(ann_x, truth.details["x"])``.

    Parameters
    ----------
    ann : Annotations
        The (simulated) annotations.
    truth : Truth, optional
        The truth generated with ``ann`` (one side's truth for replications).

    Returns
    -------
    xarray.Dataset
        ``value`` (item × rater); with a truth also ``latent`` and ``difficulty`` per item and
        the truths (``truth_<name>``) and generator parameters (JSON) as attributes.

    Raises
    ------
    kappalab.errors.InvalidParameterError
        If ``truth`` holds both replications, or the items of ``ann`` are not in ``truth``.

    Examples
    --------
    >>> ann, truth = annotations(20, reliability=0.5, seed=1)
    >>> ds = to_dataset(ann, truth)
    >>> sorted(ds.data_vars), ds.attrs["level"], ds.sizes["item"]
    (['difficulty', 'latent', 'value'], 'nominal', 20)
    """
    import xarray as xr

    data = {"value": ann.to_xarray()}
    attrs: dict[str, Any] = {}
    if truth is not None:
        if np.ndim(truth.item_latent) != 1:
            fail("this Truth holds both replications; pass one side's annotations with its "
                 "own truth, e.g. to_dataset(ann_x, truth.details['x'])")
        position = pd.Index(truth.item_labels).get_indexer(ann.items)
        if (position < 0).any():
            fail("some items of the annotations are not in the truth (labels differ); pass "
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
