r"""Annotations drawn from a model of annotation, with its exact parameters as the truth.

The Dawid–Skene model (Dawid & Skene 1979): item i's true class z_i ~ Categorical(π), and
annotator j labels it l with probability θ_j[z_i, l]. Each annotator's confusion matrix is
drawn once around the diagonal, row k ~ Dirichlet(c · q_k) with q_k = a on k and
(1 − a)/(K − 1) elsewhere (a = ``accuracy``, c = ``concentration``), so that
E θ_j[k, k] = a; a share of the annotators are **spammers** (MACE, Hovy et al. 2013): every
row of their matrix is one distribution ξ_j ~ Dirichlet(1), whatever the true class. The
truth is the drawn π, θ and z themselves — the values a fit of the model should recover,
with errors falling as 1/√items.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..annotations import Annotations
from ..validation import SeedLike, check_count, check_real, make_rng
from .parameters import fail
from .raters import assign_raters, build_annotations, flat_slots



def _design(n_items: int, n_raters: int, n_classes: int, annotations_per_item: int | None
            ) -> tuple[int, int, int, int]:
    """(items, annotators, classes, annotations an item), checked: an item is labelled by
    distinct annotators, so at most all of them."""
    n = check_count(n_items, "n_items", 1)
    J = check_count(n_raters, "n_raters", 1)
    K = check_count(n_classes, "n_classes", 2)
    m_each = J if annotations_per_item is None else check_count(
        annotations_per_item, "annotations_per_item", 1)
    if m_each > J:
        fail(f"annotations_per_item={m_each} exceeds the {J} annotators: each labels an item "
             "at most once")
    return n, J, K, m_each


def _slots(rng: np.random.Generator, n: int, J: int, m_each: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """(item, annotator) of every annotation: ``m_each`` distinct annotators an item."""
    m = np.full(n, m_each)
    items, _, raters = flat_slots(m, assign_raters(rng, m, J))
    return items, raters


@dataclass(frozen=True)
class AnnotatorTruth:
    """The parameters annotations were drawn from.

    Parameters
    ----------
    classes : pandas.Series
        z_i, the true class of each item (indexed by item).
    prevalence : numpy.ndarray
        π, the class probabilities (K).
    confusion : numpy.ndarray
        θ[j, k, l] = P(annotator j says l | true class k), annotators × K × K.
    spammers : numpy.ndarray
        Whether each annotator is a spammer (its rows all equal).

    Examples
    --------
    >>> _, truth = dawid_skene_annotations(50, n_raters=4, spammers=0.5, seed=2)
    >>> truth.spammers.sum(), truth.confusion.sum(axis=2).round(12).min()
    (np.int64(2), np.float64(1.0))
    """

    classes: pd.Series
    prevalence: np.ndarray
    confusion: np.ndarray
    spammers: np.ndarray


def dawid_skene_annotations(n_items: int, *, n_raters: int = 8, n_classes: int = 3,
                            annotations_per_item: int | None = None, accuracy: float = 0.7,
                            concentration: float = 50.0, prevalence: np.ndarray | None = None,
                            spammers: float = 0.0, seed: SeedLike = None
                            ) -> tuple[Annotations, AnnotatorTruth]:
    """Annotations drawn from the Dawid–Skene model (module docstring), and its truth.

    Parameters
    ----------
    n_items : int
        Items (≥ 1).
    n_raters : int, default 8
        Annotators in the pool (≥ 1).
    n_classes : int, default 3
        Classes K (≥ 2), coded 0 … K − 1.
    annotations_per_item : int, optional
        Annotations of each item, by distinct annotators drawn uniformly from the pool;
        None (default): every annotator labels every item.
    accuracy : float, default 0.7
        a, the expected diagonal of a confusion matrix, in (0, 1).
    concentration : float, default 50.0
        c, how close each drawn matrix is to its expectation (> 0).
    prevalence : array-like, optional
        π (K non-negative numbers, normalised); None: uniform.
    spammers : float, default 0.0
        The share of annotators who are spammers (rounded to a count), in [0, 1].
    seed : seed-like, optional
        The random seed (:func:`kappalab.validation.make_rng`).

    Returns
    -------
    (Annotations, AnnotatorTruth)
        The annotations (categories 0 … K − 1, every one kept) and the truth.

    Examples
    --------
    >>> from kappalab.simulate import dawid_skene_annotations
    >>> ann, truth = dawid_skene_annotations(100, n_raters=5, seed=1)
    >>> ann.n_items, ann.n_raters, truth.confusion.shape
    (100, 5, (5, 3, 3))
    """
    n, J, K, m_each = _design(n_items, n_raters, n_classes, annotations_per_item)
    a = check_real(accuracy, "accuracy", low=0.0, high=1.0, open_interval=True)
    c = check_real(concentration, "concentration", low=0.0, open_interval=True)
    share = check_real(spammers, "spammers", low=0.0, high=1.0)
    if prevalence is None:
        pi = np.full(K, 1.0 / K)
    else:
        pi = np.asarray(prevalence, dtype=float)
        if pi.shape != (K,) or not np.all(np.isfinite(pi)) or (pi < 0).any() or pi.sum() <= 0:
            fail(f"prevalence must be {K} non-negative numbers, not all 0")
        pi = pi / pi.sum()
    rng = make_rng(seed)
    q = np.full((K, K), (1.0 - a) / (K - 1))
    np.fill_diagonal(q, a)
    confusion = rng.gamma(c * np.broadcast_to(q, (J, K, K)))  # Dirichlet rows by gammas
    confusion /= confusion.sum(axis=2, keepdims=True)
    is_spammer = np.zeros(J, dtype=bool)
    is_spammer[rng.permutation(J)[:int(round(share * J))]] = True
    spam = rng.dirichlet(np.ones(K), size=int(is_spammer.sum()))
    confusion[is_spammer] = spam[:, None, :]
    z = rng.choice(K, size=n, p=pi)
    items, raters = _slots(rng, n, J, m_each)
    # each annotation's label by inverse CDF of its annotator's row for the item's class
    cumulative = np.cumsum(confusion[raters, z[items]], axis=1)
    labels = (rng.random(items.size)[:, None] > cumulative[:, :-1]).sum(axis=1)
    ann = build_annotations(np.arange(n), J, items, raters, labels.astype(float), K)
    truth = AnnotatorTruth(classes=pd.Series(z, index=ann.items, name="class"),
                           prevalence=pi, confusion=confusion, spammers=is_spammer)
    return ann, truth


@dataclass(frozen=True)
class GladTruth:
    """The parameters GLAD annotations were drawn from (Whitehill et al. 2009).

    Parameters
    ----------
    classes : pandas.Series
        z_i, the true class of each item (indexed by item).
    ability : numpy.ndarray
        α_j of each annotator (0: guesses; negative: adversarial).
    inverse_difficulty : numpy.ndarray
        β_i > 0 of each item (small: hard, every annotator near chance).

    Examples
    --------
    >>> _, truth = glad_annotations(5, n_raters=3, seed=1)
    >>> truth.ability.shape, bool((truth.inverse_difficulty > 0).all())
    ((3,), True)
    """

    classes: pd.Series
    ability: np.ndarray
    inverse_difficulty: np.ndarray


def glad_annotations(n_items: int, *, n_raters: int = 8, n_classes: int = 2,
                     annotations_per_item: int | None = None, ability_mean: float = 1.0,
                     ability_sd: float = 1.0, log_beta_mean: float = 1.0,
                     log_beta_sd: float = 0.5, seed: SeedLike = None
                     ) -> tuple[Annotations, GladTruth]:
    r"""Annotations drawn from GLAD (Whitehill et al. 2009), and its truth.

    Item i's class z_i is uniform over K classes; annotator j gives it with probability

    .. math::  P(y_{ij} = z_i) = σ(α_j β_i),

    and otherwise one of the K − 1 other classes uniformly. α_j ~ Normal(``ability_mean``,
    ``ability_sd``) and log β_i ~ Normal(``log_beta_mean``, ``log_beta_sd``).

    Parameters
    ----------
    n_items : int
        Items (≥ 1).
    n_raters : int, default 8
        Annotators in the pool (≥ 1).
    n_classes : int, default 2
        Classes K (≥ 2), coded 0 … K − 1.
    annotations_per_item : int, optional
        Annotations of each item, by distinct annotators drawn uniformly from the pool;
        None (default): every annotator labels every item.
    ability_mean, ability_sd : float, default 1.0, 1.0
        The annotators' abilities α_j.
    log_beta_mean, log_beta_sd : float, default 1.0, 0.5
        The items' log inverse difficulties log β_i.
    seed : seed-like, optional
        The random seed (:func:`kappalab.validation.make_rng`).

    Returns
    -------
    (Annotations, GladTruth)

    References
    ----------
    Whitehill, J., Ruvolo, P., Wu, T., Bergsma, J., & Movellan, J. (2009). Whose vote should
    count more: Optimal integration of labels from labelers of unknown expertise. *NIPS 22*,
    2035–2043.

    Examples
    --------
    >>> ann, truth = glad_annotations(100, n_raters=4, seed=2)
    >>> ann.n_annotations, truth.classes.nunique()
    (400, 2)
    """
    n, J, K, m_each = _design(n_items, n_raters, n_classes, annotations_per_item)
    for value, name in ((ability_mean, "ability_mean"), (log_beta_mean, "log_beta_mean")):
        check_real(value, name)
    sd_a = check_real(ability_sd, "ability_sd", low=0.0)
    sd_b = check_real(log_beta_sd, "log_beta_sd", low=0.0)
    rng = make_rng(seed)
    ability = rng.normal(ability_mean, sd_a, size=J)
    beta = np.exp(rng.normal(log_beta_mean, sd_b, size=n))
    z = rng.integers(0, K, size=n)
    items, raters = _slots(rng, n, J, m_each)
    right = rng.random(items.size) < 1.0 / (1.0 + np.exp(-ability[raters] * beta[items]))
    wrong = (z[items] + 1 + rng.integers(0, K - 1, size=items.size)) % K  # another class
    labels = np.where(right, z[items], wrong)
    ann = build_annotations(np.arange(n), J, items, raters, labels.astype(float), K)
    truth = GladTruth(classes=pd.Series(z, index=ann.items, name="class"), ability=ability,
                      inverse_difficulty=beta)
    return ann, truth
