"""The :class:`Truth` of a simulated design: the exact population values, immutable, picklable,
compared field by field. It imports nothing of the simulation models."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from ..estimate import same_values

_NAN = float("nan")


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

    The generators build a Truth; its constructor's parameters are its fields (attributes).

    Parameters
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
        :func:`replications`).
    irr_x_nominal, irr_y_nominal, kx_nominal, normalized_kx_nominal : replications only,
        the nominal twins of ``irr_x``, ``irr_y``, ``kx``, ``normalized_kx``.
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
