"""The side models: one rater pool annotating items, which samples the annotations and knows
its exact truths. :class:`Side` is the interface; the nominal (Dirichlet–multinomial) and
interval (random-effects) models have two item classes, easy and hard; the latent-threshold
model (binary, ordinal) takes optional per-rater threshold shifts. :func:`cross_truths` are the
truths of two sides annotating the same items (replications). The models and their truths are
described in :mod:`kappalab.simulate`, "Models" and "Truths and the estimators that converge to
them"."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from .. import distances
from ..bivariate_normal import rectangle_probabilities
from ..kernels import chance_corrected, conger_chance_agreement, fleiss_chance_agreement
from ..population import (alpha_from_joint, joint_disagreements, latent_cross_tables,
                          true_score_correlation)
from ..population import latent_icc as solve_latent_icc
from .counts import CountModel
from .raters import assign_raters, build_annotations, flat_slots

_QUAD_TOL = 1e-13
_QUAD_HALF_WIDTH = 12.0  # |u| ≤ 12 on the standardised item latent; φ(12) ≈ 2e-32
_NAN = float("nan")


def _ratio(numerator, denominator) -> float:
    return float(numerator / denominator) if denominator > 0 else _NAN


class Side:
    """One rater pool annotating items: samples annotations and knows its exact truths."""

    level: str
    K: int
    counts: CountModel
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
        raters = assign_raters(rng, m, self.R)
        items, slots, rater_flat = flat_slots(m, raters)
        values = self.values(rng, state, items, slots, rater_flat, m)
        ann = build_annotations(item_labels, self.R, items, rater_flat, values,
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


class _TwoClassSide(Side):
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


class _ThresholdSide(Side):
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
    def _expectations(self) -> dict[str, np.ndarray | float]:
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
        from scipy.integrate import quad_vec  # imported where used: scipy.integrate is slow
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


def make_side(level, K, pi, reliability, heterogeneity, counts, R, *, shift=0.0,
              rater_shifts=None, latent_icc=None) -> Side:
    if level == "nominal":
        return _NominalSide(K, pi, reliability, heterogeneity, counts, R)
    if level == "interval":
        return _IntervalSide(reliability, heterogeneity, counts, R, mean=shift)
    return _ThresholdSide(level, K, pi, reliability, counts, R, shift=shift,
                          rater_shifts=rater_shifts, latent_icc=latent_icc)


def cross_truths(level, K, sides, rho, shift) -> dict[str, Any]:
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
