r"""Models of annotation: which label is right, and whom to trust.

An agreement coefficient says how far annotators agree; a model of annotation says, for each
item, how probable each class is, and for each annotator, how it labels each class
(Dawid & Skene 1979; Passonneau & Carpenter 2014; Paun et al. 2018). This module fits them
by maximum likelihood (EM), in vectorised passes over the annotations:

* :func:`majority_vote`, the vote shares of each item and the label most annotators gave
  (its tie rule stated);
* :func:`dawid_skene`, one confusion matrix per annotator and the class prevalences
  (Dawid & Skene 1979);
* :func:`multinomial`, one confusion matrix shared by every annotator (Paun et al.'s
  "Multinomial", the pooled model);
* :func:`mace`, each annotator knows the class with a probability (its competence) and
  otherwise spams from a distribution of its own (Hovy et al. 2013);
* :func:`glad`, each annotator's ability and each item's difficulty: the chance of the right
  label is σ(α_j β_i) (Whitehill et al. 2009), by MAP-EM;
* :func:`ordinal_dawid_skene`, for ordered classes: each annotator cuts a noisy latent score
  at thresholds of its own, so its errors fall on the neighbouring classes.

The EM models take ``gold`` (items whose class is known: semi-supervised); Dawid–Skene and
the multinomial model also take ``prior``, Dirichlet pseudo-counts from earlier work.

The models, with π the class prevalences and θ_j[k, l] = P(annotator j says l | true class
k), give item i with annotations y_i = {(j, l)} the likelihood

.. math::  p(y_i) = \sum_k π_k \prod_{(j, l) \in y_i} θ_j[k, l],

and the EM of Dawid & Skene (1979) alternates the E-step, the posterior class probabilities
T_ik ∝ π_k Π θ_j[k, l] (in log space), with the M-step,

.. math::  π_k = \frac{\sum_i T_{ik} + s}{N + K s}, \qquad
           θ_j[k, l] = \frac{\sum_{i:(j, l) \in y_i} T_{ik} + s}
                            {\sum_{i: j \in y_i} T_{ik} + K s},

with s the ``smoothing`` pseudo-count (0: the maximum-likelihood estimate of Dawid & Skene;
s > 0: the posterior mode under Dirichlet(1 + s) priors). An (annotator, class) row with no
mass (an annotator who labelled no item the model gives that class, with s = 0) is uniform,
1/K. Each step is two products of the items × (annotator, label) count matrix X (sparse, one
entry per annotation) with an items × classes or (annotator, label) × classes matrix:
``X @ log θ`` (E) and ``Xᵀ @ T`` (M), sums over annotations that merge across partitions.
EM starts from the majority vote's shares (a random start reaches worse optima and swaps
labels) and stops when both the largest change of a parameter and the relative change of
the observed-data log-likelihood fall below ``tol``; the log-likelihood reported is that of
the returned parameters, and without smoothing it never decreases from one iteration to
the next (EM's ascent property, checked by the tests; with smoothing EM ascends the
likelihood times the Dirichlet priors instead). By default each iteration is a SQUAREM cycle
(Varadhan & Roland 2008): two EM steps and an extrapolation along them, kept only when the
likelihood does not fall, which reaches EM's fixed point in several times fewer passes
(``accelerate=False``: plain EM).

References
----------
Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates
using the EM algorithm. *Journal of the Royal Statistical Society C* 28(1), 20–28.
doi:10.2307/2346806

Hovy, D., Berg-Kirkpatrick, T., Vaswani, A., & Hovy, E. (2013). Learning whom to trust with
MACE. *Proceedings of NAACL-HLT 2013*, 1120–1130. https://aclanthology.org/N13-1132

Varadhan, R., & Roland, C. (2008). Simple and globally convergent methods for accelerating
the convergence of any EM algorithm. *Scandinavian Journal of Statistics* 35(2), 335–353.
doi:10.1111/j.1467-9469.2007.00585.x

Passonneau, R. J., & Carpenter, B. (2014). The benefits of a model of annotation.
*Transactions of the ACL* 2, 311–326. doi:10.1162/tacl_a_00185

Paun, S., Carpenter, B., Chamberlain, J., Hovy, D., Kruschwitz, U., & Poesio, M. (2018).
Comparing Bayesian models of annotation. *Transactions of the ACL* 6, 571–585.
doi:10.1162/tacl_a_00040

Examples
--------
>>> import kappalab as kl
>>> fit = kl.annotators.dawid_skene(kl.datasets.load("worked_example"))  # 10 items, 3 raters
>>> fit.labels.head(3).tolist(), fit.converged
(['P', 'P', 'N'], True)
>>> fit.accuracy.round(2).tolist()   # P(the true class) for each rater
[1.0, 0.7, 0.9]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .annotations import Annotations, AnnotationsLike, as_annotations
from .docstrings import shared_parameters
from .errors import ConvergenceWarning, InvalidParameterError, warn
from .kernels import single_blas_thread
from .progress import track
from .validation import check_count, check_flag, check_real

if TYPE_CHECKING:
    import scipy.sparse as sp
else:  # scipy.sparse, imported on first use (start-up)
    from .kernels import sp

__all__ = ["AnnotationModelFit", "majority_vote", "dawid_skene", "multinomial", "mace",
           "glad", "ordinal_dawid_skene", "TIE_RULES"]

#: the hard label of an item whose top vote share is shared: ``"first"``, the first of the
#: tied classes in the order of the categories; ``"missing"``, no label (None)
TIE_RULES = ("first", "missing")


@dataclass(frozen=True)
class AnnotationModelFit:
    """A fitted model of annotation: the posterior class of each item and how each annotator
    labels each class.

    Parameters
    ----------
    model : str
        ``"majority vote"``, ``"Dawid-Skene"`` or ``"multinomial"``.
    posterior : pandas.DataFrame
        Items × classes: P(true class | the item's annotations) (the vote shares for the
        majority vote). An item without annotations has the prevalences (NaN and no label
        in the majority vote, which has no model to fill them).
    prevalence : pandas.Series
        π_k, by class.
    confusion : numpy.ndarray
        θ[j, k, l] = P(annotator j says l | true class k), annotators × classes × classes
        (one annotator, ``"all raters"``, for the pooled model; None for the majority vote).
    raters : pandas.Index or None
        The annotators of ``confusion``'s first axis.
    log_likelihood : float
        The observed-data log-likelihood Σ_i log p(y_i) at the returned parameters (NaN for
        the majority vote, which is no likelihood model).
    item_log_likelihood : numpy.ndarray
        log p(y_i) of each item (0 for items without annotations), for model comparison.
    trace : tuple of float
        The log-likelihood after each iteration.
    n_iter : int
        EM iterations run.
    converged : bool
        Whether the stopping rule was met before ``max_iter``.
    tie_rule : str
        The rule of :attr:`labels` for tied items (:data:`TIE_RULES`).
    details : dict
        The model's own parameters: for MACE ``"competence"`` (a Series, c_j by annotator)
        and ``"strategy"`` (a DataFrame, ξ_j by annotator and label).

    Examples
    --------
    >>> import kappalab as kl
    >>> fit = kl.annotators.majority_vote([[0, 0, 1], [1, 1, 1], [0, 1, None]])
    >>> fit.posterior.round(3).values.tolist()
    [[0.667, 0.333], [0.0, 1.0], [0.5, 0.5]]
    >>> fit.labels.tolist()            # item 2 is tied: the first class in category order
    [0, 1, 0]
    """

    model: str
    posterior: pd.DataFrame
    prevalence: pd.Series
    confusion: np.ndarray | None
    raters: pd.Index | None
    log_likelihood: float
    item_log_likelihood: np.ndarray
    trace: tuple[float, ...]
    n_iter: int
    converged: bool
    tie_rule: str = "first"
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def classes(self) -> pd.Index:
        """The classes (the data's categories)."""
        return self.posterior.columns

    @property
    def labels(self) -> pd.Series:
        """The most probable class of each item; for tied items :attr:`tie_rule` decides
        (``"first"``: the first tied class in the order of the categories; ``"missing"``:
        None)."""
        p = self.posterior.to_numpy()
        unlabelled = np.isnan(p).any(axis=1)  # the vote of an item without annotations
        best = np.where(unlabelled[:, None], 0.0, p).argmax(axis=1)
        labels = pd.Series(np.asarray(self.classes)[best], index=self.posterior.index,
                           name="label", dtype=self.classes.dtype)
        if self.tie_rule == "missing":
            unlabelled |= (np.isclose(p, p.max(axis=1, keepdims=True), rtol=0, atol=1e-12)
                           .sum(axis=1) > 1)
        if unlabelled.any():
            labels = labels.astype(object)
            labels[unlabelled] = None
        return labels

    @property
    def label_probability(self) -> pd.Series:
        """The posterior probability of :attr:`labels` (the largest of each row)."""
        return pd.Series(self.posterior.to_numpy().max(axis=1), index=self.posterior.index,
                         name="probability")

    @property
    def accuracy(self) -> pd.Series:
        """Each annotator's probability of giving the true class of a random item,
        Σ_k π_k θ_j[k, k] (the majority vote, which has no confusion matrices, refuses)."""
        if self.confusion is None or self.raters is None:
            raise InvalidParameterError(f"the {self.model} has no confusion matrices")
        diagonal = np.diagonal(self.confusion, axis1=1, axis2=2)
        return pd.Series(diagonal @ self.prevalence.to_numpy(), index=self.raters,
                         name="accuracy")

    def confusion_matrix(self, rater: Any = None) -> pd.DataFrame:
        """θ of one annotator (the only one of the pooled model when ``rater`` is None):
        rows the true class, columns the label given; each row sums to 1.

        Parameters
        ----------
        rater : label, optional
            An annotator of :attr:`raters`.

        Returns
        -------
        pandas.DataFrame
        """
        if self.confusion is None or self.raters is None:
            raise InvalidParameterError(f"the {self.model} has no confusion matrices")
        if rater is None:
            if len(self.raters) != 1:
                raise InvalidParameterError(
                    f"the {self.model} has {len(self.raters)} annotators: name one")
            position = 0
        else:
            found = self.raters.get_indexer(pd.Index([rater]))[0]
            if found < 0:
                raise InvalidParameterError(f"no annotator {rater!r} in the fit")
            position = int(found)
        return pd.DataFrame(self.confusion[position],
                            index=pd.Index(self.classes, name="true class"),
                            columns=pd.Index(self.classes, name="label"))


# ---------------------------------------------------------------------- the data
def _vote_shares(ann: Annotations) -> tuple[np.ndarray, np.ndarray]:
    """(items × K vote shares, annotations per item) from the data's count table; items
    without annotations get 0s."""
    counts, m = ann.count_matrix, ann.annotations_per_item_array
    shares = np.divide(counts, m[:, None], out=np.zeros(counts.shape), where=m[:, None] > 0)
    return shares, m


# ---------------------------------------------------------------------- majority vote
@shared_parameters
def majority_vote(data: AnnotationsLike, *, ties: str = "first",
                  categories: Sequence[Any] | None = None) -> AnnotationModelFit:
    """Each item's vote shares and the label most of its annotators gave.

    The posterior of an item is the share of its annotations in each class (a tie is split
    probability mass: two labels of four each get 0.5); the prevalences are the mean shares
    over the items with annotations; an item without annotations has NaN shares and no
    label. The hard label (:attr:`AnnotationModelFit.labels`) of a tied item is the first of
    the tied classes in the order of the categories, as :func:`kappalab.item_report`'s
    majority
    (``ties="first"``, so sorted labels: 0 before 1, "neg" before "pos"), or None
    (``ties="missing"``). It does not depend on the order of the rows or on the pandas
    version.

    Parameters
    ----------
    data : Annotations, DataFrame or array-like
        Anything :func:`~kappalab.annotations.as_annotations` reads; raters need not be
        known.
    ties : {"first", "missing"}, default "first"
        The hard label of a tied item.
    {{shared: categories}}

    Returns
    -------
    AnnotationModelFit
        ``model="majority vote"``, no confusion matrices, NaN log-likelihood.

    Raises
    ------
    InvalidParameterError
        An unknown ``ties``.

    Examples
    --------
    >>> import kappalab as kl
    >>> fit = kl.annotators.majority_vote([["a", "a", "b"], ["b", "a", "b"], ["a", "b", None]])
    >>> fit.labels.tolist(), kl.annotators.majority_vote(
    ...     [["a", "a", "b"], ["b", "a", "b"], ["a", "b", None]], ties="missing").labels.tolist()
    (['a', 'b', 'a'], ['a', 'b', None])
    """
    if ties not in TIE_RULES:
        raise InvalidParameterError(f"ties must be one of {TIE_RULES}, got {ties!r}")
    ann = as_annotations(data, categories=categories)
    shares, m = _vote_shares(ann)
    annotated = m > 0
    prevalence = shares[annotated].mean(axis=0)
    shares[~annotated] = np.nan  # no vote: no shares and no label (as item_report's)
    return AnnotationModelFit(
        model="majority vote",
        posterior=pd.DataFrame(shares, index=ann.items, columns=ann.categories),
        prevalence=pd.Series(prevalence, index=ann.categories, name="prevalence"),
        confusion=None, raters=None, log_likelihood=float("nan"),
        item_log_likelihood=np.zeros(ann.n_items), trace=(), n_iter=0, converged=True,
        tie_rule=ties)


# ---------------------------------------------------------------------- EM
@dataclass
class _Parameters:
    """π, θ (J × K × K) and, for MACE, each annotator's competence c_j and strategy ξ_j."""

    prevalence: np.ndarray
    confusion: np.ndarray
    competence: np.ndarray | None = None
    strategy: np.ndarray | None = None
    latent: np.ndarray | None = None

    def free(self) -> list[np.ndarray]:
        """The parameters the M-step sets (MACE: c and ξ, from which θ follows; the ordinal
        model: π and the unconstrained thresholds and log scales)."""
        if self.competence is not None and self.strategy is not None:
            return [self.competence, self.strategy]
        if self.latent is not None:
            return [self.prevalence, self.latent]
        return [self.prevalence, self.confusion]

    def extrapolated(self, first: _Parameters, second: _Parameters, alpha: float
                     ) -> _Parameters | None:
        """SQUAREM's point p0 − 2α r + α² v (r = p1 − p0, v = p2 − 2 p1 + p0) from this p0
        and the next two EM points: weights summing to 1, so rows still sum to 1 (up to
        rounding, which is removed); None when a probability leaves [0, 1]."""
        a, b, c = (1.0 + alpha) ** 2, -2.0 * alpha * (1.0 + alpha), alpha ** 2
        values = [a * x + b * y + c * z
                  for x, y, z in zip(self.free(), first.free(), second.free())]
        if self.latent is not None:  # unconstrained: only π must stay a distribution
            if (values[0] < 0).any() or (values[0] > 1).any():
                return None
            prevalence = values[0] / values[0].sum()
            return _Parameters(prevalence, ordinal_confusion(values[1]), latent=values[1])
        if any((v < 0).any() or (v > 1).any() for v in values):
            return None
        # the weights sum to 1, but with |α| large their rounding does not: renormalised,
        # or the likelihood of rows summing to 1 + ε could exceed any model's
        values[-1] = values[-1] / values[-1].sum(axis=-1, keepdims=True)
        if self.competence is None:
            values[0] = values[0] / values[0].sum()
        if self.competence is not None:
            competence, strategy = values
            K = strategy.shape[1]
            confusion = ((1.0 - competence)[:, None, None] * strategy[:, None, :]
                         + competence[:, None, None] * np.eye(K))
            return _Parameters(self.prevalence, confusion, competence, strategy)
        return _Parameters(values[0], values[1])


@dataclass
class Sums:
    """What an M-step reads, sums over items that add across any partition of the items:
    Σ_i T_ik (K) and the label mass Σ T_ik over the annotations (j, l), J × K (true class)
    × K (label); with the log-likelihood Σ_i log p(y_i) of the parameters that gave T."""

    class_mass: np.ndarray
    label_mass: np.ndarray
    log_likelihood: float = 0.0

    def __add__(self, other: Sums) -> Sums:
        return Sums(self.class_mass + other.class_mass, self.label_mass + other.label_mass,
                    self.log_likelihood + other.log_likelihood)


@dataclass(frozen=True)
class Prior:
    """The pseudo-counts of π (K) and θ (J × K × K) and the smoothing s of MACE."""

    prevalence: np.ndarray
    confusion: np.ndarray
    smoothing: float


@dataclass(frozen=True)
class Design:
    """One set of items as the EM reads it: X, the items × (annotator, label) counts (a
    repeated annotation adds up), J and K, and the rows and classes of its gold items."""

    X: sp.csr_matrix
    J: int
    K: int
    gold_rows: np.ndarray
    gold_classes: np.ndarray

    def sums(self, T: np.ndarray, log_likelihood: float = 0.0) -> Sums:
        """The M-step's sums at the posteriors T: Σ_i T_i and ``Xᵀ @ T``."""
        label_mass = np.asarray(self.X.T @ T).reshape(self.J, self.K, self.K)
        return Sums(np.ones(T.shape[0]) @ T, label_mass.transpose(0, 2, 1), log_likelihood)


def design(ann: Annotations, raters: np.ndarray, J: int, gold_items: np.ndarray,
           gold_classes: np.ndarray) -> tuple[Design, np.ndarray, np.ndarray]:
    """(the design, the starting posteriors, the kept items) of annotations whose raters
    have the codes ``raters`` (0 … J − 1; all 0 for a pooled model): the kept items have
    annotations or gold (an item with neither has no term, its posterior π); the start is
    the majority vote's shares, a gold item's class for a gold item."""
    K = ann.n_categories
    items, labels = ann.item_category_codes()
    start, m = _vote_shares(ann)
    start[gold_items] = 0.0
    start[gold_items, gold_classes] = 1.0
    has_data = m > 0
    has_data[gold_items] = True
    kept = np.flatnonzero(has_data)
    row = np.full(ann.n_items, -1, dtype=np.intp)
    row[kept] = np.arange(kept.size)
    X = sp.csr_matrix((np.ones(items.size), (row[items], raters * K + labels)),
                      shape=(kept.size, J * K))
    return Design(X, J, K, row[gold_items], gold_classes), start[kept], kept


def dawid_skene_m_step(sums: Sums, prior: Prior, _: _Parameters | None) -> _Parameters:
    """π ∝ Σ_i T_i + a, θ_j[k, ·] ∝ Σ_{(j, l) ∈ y_i} T_ik + b_jk· (rows without mass
    uniform), a and b the pseudo-counts."""
    prevalence = sums.class_mass + prior.prevalence
    prevalence = prevalence / prevalence.sum()
    mass = sums.label_mass + prior.confusion
    totals = mass.sum(axis=2, keepdims=True)
    K = mass.shape[1]
    confusion = np.divide(mass, totals, out=np.full(mass.shape, 1.0 / K), where=totals > 0)
    return _Parameters(prevalence, confusion)


def mace_m_step(sums: Sums, prior: Prior, previous: _Parameters | None) -> _Parameters:
    """MACE's M-step (Hovy et al. 2013): an annotation (j, l) of item i was given knowing
    the class with probability T_il c_j / (c_j + (1 − c_j) ξ_jl) (else spammed); c_j is the
    share of j's annotations known, ξ_j the distribution of its spammed labels, each with
    the pseudo-count s; the classes stay uniform."""
    J, K, _ = sums.label_mass.shape
    s = prior.smoothing
    if previous is None or previous.competence is None or previous.strategy is None:
        competence, strategy = np.full(J, 0.5), np.full((J, K), 1.0 / K)
    else:
        competence, strategy = previous.competence, previous.strategy
    mass = sums.label_mass  # j, k, l
    given = mass.sum(axis=1)  # j, l: annotations (T rows sum to 1)
    labels = np.arange(K)
    chance = competence[:, None] + (1.0 - competence[:, None]) * strategy
    known = np.divide(mass[:, labels, labels] * competence[:, None], chance,
                      out=np.zeros((J, K)), where=chance > 0)
    spammed = np.maximum(given - known, 0.0)
    known_total, spammed_total = known.sum(axis=1), spammed.sum(axis=1)
    competence = np.divide(known_total + s, known_total + spammed_total + 2.0 * s,
                           out=np.full(J, 0.5), where=known_total + spammed_total + s > 0)
    strategy = np.divide(spammed + s, (spammed_total + K * s)[:, None],
                         out=np.full((J, K), 1.0 / K),
                         where=(spammed_total + K * s)[:, None] > 0)
    confusion = ((1.0 - competence)[:, None, None] * strategy[:, None, :]
                 + competence[:, None, None] * np.eye(K))
    return _Parameters(np.full(K, 1.0 / K), confusion, competence, strategy)


def e_step(design: Design, parameters: _Parameters) -> tuple[np.ndarray, np.ndarray]:
    """(T, log p(y_i)): log T_ik = log π_k + Σ_{(j, l) ∈ y_i} log θ_j[k, l] − log p(y_i), the
    sum a product of X with the (annotator, label) × classes matrix of log θ (its −inf
    entries meet only X's stored counts, never a 0); a gold item's T is its class and its
    log p the joint log-probability of that class and its annotations."""
    J, K, _ = parameters.confusion.shape
    with np.errstate(divide="ignore"):  # log 0 = −inf: a class the label rules out
        log_confusion = np.log(parameters.confusion).transpose(0, 2, 1).reshape(J * K, K)
        T = np.asarray(design.X @ log_confusion)  # log T_ik + log p(y_i) − log π_k
        T += np.log(parameters.prevalence)
    gold_terms = T[design.gold_rows, design.gold_classes]
    top = _row_max(T)
    T -= top[:, None]
    with np.errstate(invalid="ignore"):
        np.exp(T, out=T)  # in place: the items × K arrays are the fit's largest
    total = T @ np.ones(K)  # a product: quicker than a sum along the rows
    T *= (1.0 / total)[:, None]
    item_ll = top + np.log(total)
    if design.gold_rows.size:
        item_ll[design.gold_rows] = gold_terms
        T[design.gold_rows] = 0.0
        T[design.gold_rows, design.gold_classes] = 1.0
    return T, item_ll


def _row_max(values: np.ndarray) -> np.ndarray:
    """The largest entry of each row of an n × K array, column by column (K is small: this
    is a few times quicker than a reduction along the rows)."""
    top = values[:, 0].copy()
    for column in range(1, values.shape[1]):
        np.maximum(top, values[:, column], out=top)
    return top


MStep = Callable[[Sums, Prior, "_Parameters | None"], _Parameters]


def _squarem_cycle(step: Callable[[_Parameters], Sums], m_step: MStep, prior: Prior,
                   start: _Parameters, start_sums: Sums) -> tuple[_Parameters, Sums]:
    """One SQUAREM cycle (Varadhan & Roland 2008, scheme S3) from p0 = ``start``: two EM
    steps p1, p2, the step length α = −‖r‖/‖v‖ (at most −1), and the extrapolated point,
    taken when its probabilities are valid and its log-likelihood is at least p1's; else α
    is halved towards −1 (where the point is p2), and after a few tries p2 is taken. So the
    log-likelihood never falls, as under EM, and the fixed points are EM's."""
    first = m_step(start_sums, prior, start)
    first_sums = step(first)
    second = m_step(first_sums, prior, first)
    r = np.concatenate([(y - x).ravel() for x, y in zip(start.free(), first.free())])
    v = np.concatenate([(z - 2.0 * y + x).ravel()
                        for x, y, z in zip(start.free(), first.free(), second.free())])
    r_norm, v_norm = float(np.sqrt(r @ r)), float(np.sqrt(v @ v))
    if v_norm > 0 and r_norm > 0:
        alpha = min(-r_norm / v_norm, -1.0)
        for _ in range(4):
            if alpha > -1.0 - 1e-3:
                break
            point = start.extrapolated(first, second, alpha)
            if point is not None:
                point_sums = step(point)
                if point_sums.log_likelihood >= first_sums.log_likelihood:
                    return point, point_sums
            alpha = (alpha - 1.0) / 2.0
    return second, step(second)


def run_em(step: Callable[[_Parameters], Sums], start: Sums, m_step: MStep, prior: Prior,
           max_iter: int, tol: float, progress: bool | None, name: str,
           accelerate: bool = False) -> tuple[_Parameters, list[float], bool]:
    """EM over sums: ``step(parameters)`` is the E-step at the parameters and the next
    M-step's sums (in memory, or over the partitions of a Dask frame); from the sums of
    the start, M-step, E-step (``accelerate``: a SQUAREM cycle), until both the largest
    change of a parameter and the relative change of the log-likelihood are below ``tol``.
    Returns (the last parameters, the log-likelihood trace, whether it converged)."""
    parameters = m_step(start, prior, None)
    sums = step(parameters)
    trace = [sums.log_likelihood]
    converged = False
    for _ in track(range(max_iter - 1), f"{name} EM", quiet=progress is False,
                   force=progress is True):
        if accelerate:
            new, sums = _squarem_cycle(step, m_step, prior, parameters, sums)
        else:
            new = m_step(sums, prior, parameters)
            sums = step(new)
        trace.append(sums.log_likelihood)
        change = max(float(np.abs(new.prevalence - parameters.prevalence).max()),
                     float(np.abs(new.confusion - parameters.confusion).max()))
        relative = abs(trace[-1] - trace[-2]) / max(abs(trace[-1]), np.finfo(float).tiny)
        parameters = new
        if change < tol and relative < tol:
            converged = True
            break
    if not converged:
        warn(f"the {name} EM did not converge in {max_iter} iterations (tol={tol:g}); "
             "raise max_iter or tol", ConvergenceWarning)
    return parameters, trace, converged


def gold_codes(gold: Any, items: pd.Index, categories: pd.Index, *, strict: bool = True
               ) -> tuple[np.ndarray, np.ndarray]:
    """(item codes, class codes) of ``gold`` (item -> class; missing classes skipped) among
    ``items``; ``strict``: a gold item not among them is an error (else it is left out)."""
    if gold is None:
        return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp)
    series = gold_series(gold, categories)
    found = items.get_indexer(series.index)
    if strict and (found < 0).any():
        missing = series.index[found < 0]
        shown = ", ".join(repr(v) for v in missing[:5]) + (", ..." if missing.size > 5 else "")
        noun = "item" if missing.size == 1 else "items"
        raise InvalidParameterError(
            f"gold names {missing.size} {noun} not in the data: {shown}")
    here = found >= 0
    classes = categories.get_indexer(pd.Index(series.to_numpy()[here]))
    return found[here].astype(np.intp), classes.astype(np.intp)


def gold_series(gold: Any, categories: pd.Index) -> pd.Series:
    """``gold`` as a Series item -> class, checked: no item twice, every class a category."""
    try:
        series = pd.Series(gold).dropna()
    except (TypeError, ValueError) as error:
        raise InvalidParameterError(
            f"gold must map items to classes (a dict or a Series): {error}") from None
    if series.index.has_duplicates:
        raise InvalidParameterError("gold names an item twice")
    classes = categories.get_indexer(pd.Index(series.to_numpy()))
    if (classes < 0).any():
        bad = series.to_numpy()[classes < 0][0]
        raise InvalidParameterError(
            f"gold class {bad!r} is not a category of the data {list(categories)}")
    return series


def pseudo_counts(prior: Any, smoothing: float, J: int, K: int) -> Prior:
    """The pseudo-counts: ``smoothing`` plus ``prior``'s (prevalence K, confusion K × K or
    J × K × K), checked."""
    prevalence, confusion = np.full(K, smoothing), np.full((J, K, K), smoothing)
    if prior is None:
        return Prior(prevalence, confusion, smoothing)
    if not isinstance(prior, Mapping):
        raise InvalidParameterError(
            "prior must be a mapping with 'prevalence' and/or 'confusion' pseudo-counts")
    unknown = set(prior) - {"prevalence", "confusion"}
    if unknown:
        raise InvalidParameterError(
            f"unknown prior {sorted(unknown)[0]!r}: the priors are 'prevalence' (K "
            "pseudo-counts) and 'confusion' (K × K or annotators × K × K)")
    for name, shapes in (("prevalence", [(K,)]), ("confusion", [(K, K), (J, K, K)])):
        if name not in prior:
            continue
        try:
            values = np.asarray(prior[name], dtype=float)
        except (TypeError, ValueError):
            values = np.full(0, np.nan)
        if values.shape not in shapes:
            wanted = " or ".join(str(shape) for shape in shapes)
            raise InvalidParameterError(
                f"prior {name!r} must have shape {wanted} for {K} classes and {J} "
                f"annotators, not {values.shape}")
        if not np.isfinite(values).all() or (values < 0).any():
            raise InvalidParameterError(f"prior {name!r} must be non-negative pseudo-counts")
        if name == "prevalence":
            prevalence = prevalence + values
        else:
            confusion = confusion + values
    return Prior(prevalence, confusion, smoothing)


def check_em_options(smoothing: Any, max_iter: Any, tol: Any, progress: Any
                     ) -> tuple[float, int, float, bool | None]:
    """The EM's options, checked."""
    return (check_real(smoothing, "smoothing", low=0.0),
            check_count(max_iter, "max_iter", minimum=1), check_real(tol, "tol", low=0.0),
            check_flag(progress, "progress", allow_none=True))


def model_fit(name: str, parameters: _Parameters, trace: list[float], converged: bool,
              posterior: pd.DataFrame, item_log_likelihood: np.ndarray,
              raters: pd.Index) -> AnnotationModelFit:
    """The fit of an EM model from its parameters, posteriors and trace."""
    details: dict[str, Any] = {}
    if parameters.latent is not None:
        tau, sigma = _thresholds(parameters.latent)
        details["thresholds"] = pd.DataFrame(
            tau, index=raters, columns=pd.Index(
                [f"{low}|{high}" for low, high in zip(posterior.columns[:-1],
                                                       posterior.columns[1:])],
                name="between"))
        details["noise"] = pd.Series(sigma, index=raters, name="noise")
    if parameters.competence is not None and parameters.strategy is not None:
        details["competence"] = pd.Series(parameters.competence, index=raters,
                                          name="competence")
        details["strategy"] = pd.DataFrame(parameters.strategy, index=raters,
                                           columns=pd.Index(posterior.columns, name="label"))
    return AnnotationModelFit(
        model=name, posterior=posterior,
        prevalence=pd.Series(parameters.prevalence, index=posterior.columns,
                             name="prevalence"),
        confusion=parameters.confusion, raters=raters, log_likelihood=trace[-1],
        item_log_likelihood=item_log_likelihood, trace=tuple(trace), n_iter=len(trace),
        converged=converged, details=details)


def _thresholds(latent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(τ, σ) of the unconstrained J × K parameters: τ_1 = x_1, τ_m = τ_{m−1} + e^{x_m}
    (m = 2 … K − 1; ordered), σ = e^{x_K}."""
    steps = np.concatenate([latent[:, :1], np.exp(latent[:, 1:-1])], axis=1)
    return np.cumsum(steps, axis=1), np.exp(latent[:, -1])


def _ordinal_bounds(latent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """u[j, k, m] = (τ_jm − k)/σ_j with τ_j0 = −∞ and τ_jK = +∞ (J × K × (K + 1)), and σ."""
    tau, sigma = _thresholds(latent)
    J, K = latent.shape
    inner = (tau[:, None, :] - np.arange(K)[None, :, None]) / sigma[:, None, None]
    edges = np.full((J, K, 1), np.inf)
    return np.concatenate([-edges, inner, edges], axis=2), sigma


def ordinal_confusion(latent: np.ndarray) -> np.ndarray:
    """θ_j[k, l] = Φ(u_{j,k,l+1}) − Φ(u_{j,k,l}): the ordered-probit confusion matrices."""
    from scipy.special import ndtr

    u, _ = _ordinal_bounds(latent)
    return np.maximum(np.diff(ndtr(u), axis=2), 1e-300)  # a cell of 0 would be log −inf


def _ordinal_objective(x: np.ndarray, mass: np.ndarray) -> tuple[float, np.ndarray]:
    """−Σ_{j,k,l} M[j, k, l] log θ_j[k, l] and its gradient in the unconstrained
    parameters (J × K, flattened)."""
    J, K, _ = mass.shape
    latent = x.reshape(J, K)
    u, sigma = _ordinal_bounds(latent)
    theta = ordinal_confusion(latent)
    value = float((mass * np.log(theta)).sum())
    density = np.exp(-0.5 * np.where(np.isfinite(u), u, 0.0) ** 2) / np.sqrt(2 * np.pi)
    density = np.where(np.isfinite(u), density, 0.0)  # φ(±∞) = 0
    ratio = mass / theta  # M / θ, j, k, l
    # ∂F/∂τ_m = Σ_k φ(u_km)/σ (M/θ[k, m − 1] − M/θ[k, m]), m = 1 … K − 1
    d_tau = (density[:, :, 1:-1] * (ratio[:, :, :-1] - ratio[:, :, 1:])).sum(axis=1)
    d_tau /= sigma[:, None]
    # ∂F/∂σ = −Σ_{k,l} M/θ (φ(u_{l+1}) u_{l+1} − φ(u_l) u_l)/σ
    weighted = density * np.where(np.isfinite(u), u, 0.0)
    d_sigma = -(ratio * np.diff(weighted, axis=2)).sum(axis=(1, 2)) / sigma
    gradient = np.empty((J, K))
    tail = np.cumsum(d_tau[:, ::-1], axis=1)[:, ::-1]  # Σ_{m ≥ r} ∂F/∂τ_m
    gradient[:, 0] = tail[:, 0]
    gradient[:, 1:-1] = np.exp(latent[:, 1:-1]) * tail[:, 1:]
    gradient[:, -1] = sigma * d_sigma
    return -value, -gradient.ravel()


def ordinal_m_step(sums: Sums, prior: Prior, previous: _Parameters | None) -> _Parameters:
    """π as Dawid–Skene's; each annotator's thresholds and scale by L-BFGS on the expected
    complete-data log-likelihood Σ M[j, k, l] log θ_j[k, l] (the label mass plus the
    pseudo-counts), from the previous values (first: thresholds halfway between the
    classes, σ = 1/2)."""
    from scipy.optimize import minimize

    prevalence = sums.class_mass + prior.prevalence
    prevalence = prevalence / prevalence.sum()
    mass = sums.label_mass + prior.confusion
    J, K, _ = mass.shape
    if previous is None or previous.latent is None:
        start = np.zeros((J, K))
        start[:, 0] = 0.5
        start[:, -1] = np.log(0.5)
    else:
        start = previous.latent
    result = minimize(_ordinal_objective, start.ravel(), jac=True, args=(mass,),
                      method="L-BFGS-B", options={"maxiter": 200, "gtol": 1e-10,
                                                  "ftol": 1e-15})
    latent = _newton_polish(result.x.reshape(J, K), mass)
    return _Parameters(prevalence, ordinal_confusion(latent), latent=latent)


def _newton_polish(latent: np.ndarray, mass: np.ndarray, steps: int = 3) -> np.ndarray:
    """A few Newton steps from L-BFGS's point, each annotator's K × K Hessian by central
    differences of the closed-form gradient (one perturbation of column m for all
    annotators at once: their problems are separate). L-BFGS stops on the objective, which
    leaves the parameters about √ε from the optimum; Newton's quadratic convergence takes
    them to it, so that fits of the same sums in another order (Dask's partitions) agree to
    rounding. A step that does not lower the objective is not taken."""
    J, K = latent.shape

    def gradient(x: np.ndarray) -> np.ndarray:
        return _ordinal_objective(x.ravel(), mass)[1].reshape(J, K)

    value = _ordinal_objective(latent.ravel(), mass)[0]
    h = 1e-5
    for _ in range(steps):
        g = gradient(latent)
        hessian = np.empty((J, K, K))
        for m in range(K):
            shift = np.zeros((J, K))
            shift[:, m] = h
            hessian[:, :, m] = (gradient(latent + shift) - gradient(latent - shift)) / (2 * h)
        hessian = 0.5 * (hessian + hessian.transpose(0, 2, 1))
        try:
            step = np.linalg.solve(hessian, g[..., None])[..., 0]
        except np.linalg.LinAlgError:
            break
        candidate = latent - step
        new_value = _ordinal_objective(candidate.ravel(), mass)[0]
        if not np.isfinite(new_value) or new_value > value:
            break
        latent, value = candidate, new_value
    return latent


#: the EM models by name: (the display name, whether pooled, the M-step, takes a prior)
EM_MODELS: dict[str, tuple[str, bool, MStep, bool]] = {
    "dawid_skene": ("Dawid-Skene", False, dawid_skene_m_step, True),
    "multinomial": ("multinomial", True, dawid_skene_m_step, True),
    "mace": ("MACE", False, mace_m_step, False),
    "ordinal_dawid_skene": ("ordinal Dawid-Skene", False, ordinal_m_step, True),
}


def _em_model(data: AnnotationsLike, model: str, *, smoothing: Any, max_iter: Any,
              tol: Any, progress: Any, accelerate: Any, gold: Any = None, prior: Any = None,
              categories: Sequence[Any] | None = None) -> AnnotationModelFit:
    name, pooled, m_step, _ = EM_MODELS[model]
    smoothing, max_iter, tol, progress = check_em_options(smoothing, max_iter, tol, progress)
    accelerate = check_flag(accelerate, "accelerate")
    ann = as_annotations(data, categories=categories)
    if pooled:
        J, raters = 1, np.zeros(ann.n_annotations, dtype=np.intp)
        rater_index = pd.Index(["all raters"], name="rater")
    else:
        rater_index = ann.require_raters(f"the {name} model")
        J, raters = len(rater_index), ann.codes()[1]
    prior_counts = pseudo_counts(prior, smoothing, J, ann.n_categories)
    gold_items, gold_classes = gold_codes(gold, ann.items, ann.categories)
    em_design, start, kept = design(ann, raters, J, gold_items, gold_classes)
    last: dict[str, np.ndarray] = {}

    def step(parameters: _Parameters) -> Sums:
        last["T"], last["item_ll"] = e_step(em_design, parameters)
        return em_design.sums(last["T"], float(last["item_ll"].sum()))

    # one BLAS thread (kernels): the products are skinny, and the ordinal model's L-BFGS
    # on a few numbers a call is many times slower with threads waiting on a busy machine
    with single_blas_thread():
        parameters, trace, converged = run_em(step, em_design.sums(start), m_step,
                                              prior_counts, max_iter, tol, progress, name,
                                              accelerate)
    posterior = np.tile(parameters.prevalence, (ann.n_items, 1))
    posterior[kept] = last["T"]
    item_ll = np.zeros(ann.n_items)
    item_ll[kept] = last["item_ll"]
    return model_fit(name, parameters, trace, converged,
                     pd.DataFrame(posterior, index=ann.items, columns=ann.categories),
                     item_ll, rater_index)


@shared_parameters
def dawid_skene(data: AnnotationsLike, *, gold: Any = None,
                prior: Mapping[str, Any] | None = None,
                categories: Sequence[Any] | None = None, smoothing: float = 0.0,
                accelerate: bool = True, max_iter: int = 1000, tol: float = 1e-10,
                progress: bool | None = None) -> AnnotationModelFit:
    r"""The Dawid–Skene model by EM: one confusion matrix per annotator.

    θ_j[k, l] = P(annotator j says l | true class k) for every annotator and π_k the class
    prevalences, the true class of each item marginalised, fitted by the EM of Dawid & Skene
    (1979, eqs 2.3–2.5) from the majority vote's shares (module docstring).

    Parameters
    ----------
    {{shared: data}}
        The annotators must be known.
    {{shared: gold}}
    prior : mapping, optional
        Dirichlet pseudo-counts from earlier work, added to ``smoothing``: ``"prevalence"``
        (K numbers) and ``"confusion"`` (K × K for every annotator, or annotators × K × K in
        the order of the data's raters), rows the true class; e.g. a previous round's
        ``fit.confusion`` times the number of items it should weigh as. The fit is then the
        posterior mode under Dirichlet(1 + pseudo-counts) priors.
    {{shared: categories}}
    {{shared: em_smoothing}}
    {{shared: em}}

    Returns
    -------
    AnnotationModelFit
        The posteriors, prevalences, one confusion matrix per annotator, the log-likelihood
        and its trace.

    Raises
    ------
    UnknownRatersError
        Data without annotator identities (a counts table): :func:`multinomial` needs none.
    InvalidParameterError
        A negative ``smoothing`` or ``tol``, ``max_iter`` < 1, gold items or classes the
        data lacks, or priors of the wrong shape or negative.

    Warns
    -----
    ConvergenceWarning
        When the fit stops at ``max_iter``.

    References
    ----------
    Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer
    error-rates using the EM algorithm. *Journal of the Royal Statistical Society C* 28(1),
    20–28. doi:10.2307/2346806

    Examples
    --------
    >>> import kappalab as kl
    >>> data = [[0, 0, 1], [1, 1, 1], [0, 0, 0], [1, 0, 1], [0, 0, 1]]
    >>> fit = kl.annotators.dawid_skene(data)
    >>> fit.labels.tolist(), fit.converged
    ([0, 1, 0, 1, 0], True)
    """
    return _em_model(data, "dawid_skene", smoothing=smoothing,
                     max_iter=max_iter, tol=tol, progress=progress, gold=gold, prior=prior,
                     accelerate=accelerate, categories=categories)


@shared_parameters
def multinomial(data: AnnotationsLike, *, gold: Any = None,
                prior: Mapping[str, Any] | None = None,
                categories: Sequence[Any] | None = None, smoothing: float = 0.0,
                accelerate: bool = True, max_iter: int = 1000, tol: float = 1e-10,
                progress: bool | None = None) -> AnnotationModelFit:
    r"""The multinomial (pooled) model by EM: one confusion matrix for every annotator.

    Paun et al.'s (2018) "Multinomial": θ[k, l] = P(a label l | true class k) shared by all
    annotations and π_k the prevalences, fitted as :func:`dawid_skene` with one annotator.
    It needs no annotator identities, so it also reads a counts table.

    Parameters
    ----------
    {{shared: data}}
        Annotator identities are not needed.
    {{shared: gold}}
    prior : mapping, optional
        Dirichlet pseudo-counts from earlier work, added to ``smoothing``: ``"prevalence"``
        (K numbers) and ``"confusion"`` (K × K), rows the true class; e.g. a previous round's
        ``fit.confusion`` times the number of items it should weigh as. The fit is then the
        posterior mode under Dirichlet(1 + pseudo-counts) priors.
    {{shared: categories}}
    {{shared: em_smoothing}}
    {{shared: em}}

    Returns
    -------
    AnnotationModelFit
        The posteriors, prevalences, the one confusion matrix (annotator ``"all raters"``),
        the log-likelihood and its trace.

    Raises
    ------
    InvalidParameterError
        A negative ``smoothing`` or ``tol``, ``max_iter`` < 1, gold items or classes the
        data lacks, or priors of the wrong shape or negative.

    Warns
    -----
    ConvergenceWarning
        When the fit stops at ``max_iter``.

    References
    ----------
    Paun, S., Carpenter, B., Chamberlain, J., Hovy, D., Kruschwitz, U., & Poesio, M. (2018).
    Comparing Bayesian models of annotation. *Transactions of the ACL* 6, 571–585.
    doi:10.1162/tacl_a_00040

    Examples
    --------
    >>> import kappalab as kl
    >>> fit = kl.annotators.multinomial(kl.Annotations.from_counts([[3, 0], [0, 3], [2, 1]]))
    >>> fit.labels.tolist()
    [0, 1, 0]
    """
    return _em_model(data, "multinomial", smoothing=smoothing,
                     max_iter=max_iter, tol=tol, progress=progress, gold=gold, prior=prior,
                     accelerate=accelerate, categories=categories)


@shared_parameters
def mace(data: AnnotationsLike, *, gold: Any = None,
         categories: Sequence[Any] | None = None, smoothing: float = 0.0,
         accelerate: bool = True, max_iter: int = 1000, tol: float = 1e-10,
         progress: bool | None = None) -> AnnotationModelFit:
    r"""MACE by EM: each annotator knows the class with a probability, else spams.

    Hovy et al.'s (2013) Multi-Annotator Competence Estimation: item i's true class z_i is
    uniform over the K classes; annotator j knows it with probability c_j (its
    *competence*) and then gives it, or spams a label drawn from its own *strategy* ξ_j,
    whatever the class. Its confusion matrix is therefore

    .. math::  θ_j[k, l] = c_j\,[k = l] + (1 − c_j)\,ξ_{jl},

    K − 1 + 1 parameters per annotator instead of Dawid–Skene's K(K − 1): a spammer
    (c_j ≈ 0) is told from a biased but honest annotator. The EM's E-step is Dawid–Skene's
    with these θ_j and π = 1/K; its M-step counts, for every annotation (j, l) of item i,
    the probability that it was known, T_il c_j / (c_j + (1 − c_j) ξ_jl):

    .. math::  c_j = \frac{E_j + s}{n_j + 2s}, \qquad
               ξ_{jl} = \frac{n_{jl} − E_{jl} + s}{n_j − E_j + Ks},

    with n_jl the annotations of j with label l, E_jl the expected known ones among them
    (E_j, n_j their sums over l) and s the ``smoothing`` pseudo-count (Beta(1 + s, 1 + s)
    and Dirichlet(1 + s) priors; Hovy et al.'s EM uses s = 0.01/K, as crowd-kit does). EM
    starts from the majority vote's shares, with c_j = 1/2 and ξ_j uniform in the first
    M-step (Hovy et al. restart from random values and keep the best likelihood: the vote
    start reaches the same optimum or a better one on the tests' data).

    Parameters
    ----------
    {{shared: data}}
        The annotators must be known.
    {{shared: gold}}
    {{shared: categories}}
    smoothing : float, default 0.0
        The pseudo-count s of the competences and strategies (above); 0 is the
        maximum-likelihood estimate.
    {{shared: em}}

    Returns
    -------
    AnnotationModelFit
        ``model="MACE"``: the posteriors, the uniform prevalences, each annotator's
        confusion matrix (above), ``details["competence"]`` (c_j) and
        ``details["strategy"]`` (ξ_j, annotators × labels), the log-likelihood and its
        trace.

    Raises
    ------
    UnknownRatersError
        Data without annotator identities.
    InvalidParameterError
        A negative ``smoothing`` or ``tol``, ``max_iter`` < 1, or gold items or classes the
        data lacks.

    Warns
    -----
    ConvergenceWarning
        When the fit stops at ``max_iter``.

    References
    ----------
    Hovy, D., Berg-Kirkpatrick, T., Vaswani, A., & Hovy, E. (2013). Learning whom to trust
    with MACE. *Proceedings of NAACL-HLT 2013*, 1120–1130.
    https://aclanthology.org/N13-1132

    Examples
    --------
    >>> import kappalab as kl
    >>> data = [[0, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 0, 1], [1, 1, 0]]
    >>> fit = kl.annotators.mace(data)
    >>> fit.labels.tolist()
    [0, 1, 0, 1, 0, 1]
    >>> fit.details["competence"].round(2).tolist()   # the third annotator spams
    [1.0, 1.0, 0.0]
    """
    return _em_model(data, "mace", smoothing=smoothing,
                     max_iter=max_iter, tol=tol, progress=progress, gold=gold,
                     accelerate=accelerate, categories=categories)


# ---------------------------------------------------------------------- GLAD
def _softplus(x: np.ndarray) -> np.ndarray:
    """log(1 + eˣ), without overflow."""
    return np.logaddexp(0.0, x)


@dataclass(frozen=True)
class _GladData:
    """The annotations as GLAD reads them: item (kept-row), rater and label codes."""

    items: np.ndarray
    raters: np.ndarray
    labels: np.ndarray
    n: int
    J: int
    K: int
    gold_rows: np.ndarray
    gold_classes: np.ndarray


def _glad_e_step(data: _GladData, ability: np.ndarray, log_beta: np.ndarray,
                 prevalence: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(T, log p(y_i)): log T_ik = log π_k + Σ_{(j, l) ∈ y_i} ([l = k] log σ(α_j β_i)
    + [l ≠ k] (log(1 − σ(α_j β_i)) − log(K − 1))) − log p(y_i), by two scatter-adds."""
    s = ability[data.raters] * np.exp(log_beta[data.items])
    log_right, log_wrong = -_softplus(-s), -_softplus(s) - np.log(data.K - 1)
    wrong = np.bincount(data.items, log_wrong, minlength=data.n)
    log_t = np.bincount(data.items * data.K + data.labels, log_right - log_wrong,
                        minlength=data.n * data.K).reshape(data.n, data.K)
    log_t += wrong[:, None]
    with np.errstate(divide="ignore"):
        log_t += np.log(prevalence)
    gold_terms = log_t[data.gold_rows, data.gold_classes]
    top = _row_max(log_t)
    T = np.exp(log_t - top[:, None])
    total = T @ np.ones(data.K)
    T *= (1.0 / total)[:, None]
    item_ll = top + np.log(total)
    if data.gold_rows.size:
        item_ll[data.gold_rows] = gold_terms
        T[data.gold_rows] = 0.0
        T[data.gold_rows, data.gold_classes] = 1.0
    return T, item_ll


def _glad_q(x: np.ndarray, data: _GladData, right: np.ndarray, prior_mean: tuple[float, float]
            ) -> tuple[float, np.ndarray]:
    """−Q(α, log β) and its gradient: Q = Σ_annotations [p log σ(s) + (1 − p) log(1 − σ(s))]
    − ½ Σ_j (α_j − μ_α)² − ½ Σ_i (log β_i − μ_β)², s = α_j β_i, p = T_{i, y} the posterior
    that the annotation is right (the constant −(1 − p) log(K − 1) left out)."""
    ability, log_beta = x[:data.J], x[data.J:]
    beta = np.exp(log_beta)
    s = ability[data.raters] * beta[data.items]
    value = float((right * -_softplus(-s) + (1.0 - right) * -_softplus(s)).sum())
    value -= 0.5 * float(((ability - prior_mean[0]) ** 2).sum()
                         + ((log_beta - prior_mean[1]) ** 2).sum())
    residual = right - 1.0 / (1.0 + np.exp(-s))  # ∂q/∂s
    gradient = np.concatenate([
        np.bincount(data.raters, residual * beta[data.items], minlength=data.J)
        - (ability - prior_mean[0]),
        np.bincount(data.items, residual * s, minlength=data.n) - (log_beta - prior_mean[1])])
    return -value, -gradient


def _glad_em(data: _GladData, start: np.ndarray, prevalence: str,
             means: tuple[float, float], max_iter: int, tol: float, progress: bool | None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                        list[float], bool]:
    """GLAD's EM from the posteriors ``start`` (with α = 1, log β = 1, π uniform): L-BFGS
    M-step, E-step, until the parameters and the log-posterior settle (:func:`glad`)."""
    from scipy.optimize import minimize

    J, K = data.J, data.K
    ability, log_beta = np.full(J, 1.0), np.full(data.n, 1.0)
    pi = np.full(K, 1.0 / K)
    T, item_ll = start, np.zeros(data.n)
    trace: list[float] = []
    for _ in track(range(max_iter), "GLAD EM", quiet=progress is False,
                   force=progress is True):
        right = T[data.items, data.labels]
        result = minimize(_glad_q, np.concatenate([ability, log_beta]), jac=True,
                          args=(data, right, means), method="L-BFGS-B",
                          options={"maxiter": 25, "gtol": 1e-10, "ftol": 1e-15})
        new_ability, new_log_beta = result.x[:J], result.x[J:]
        new_pi = pi if prevalence == "uniform" else T.sum(axis=0) / max(T.shape[0], 1)
        change = max(float(np.abs(new_ability - ability).max(initial=0.0)),
                     float(np.abs(new_log_beta - log_beta).max(initial=0.0)),
                     float(np.abs(new_pi - pi).max()))
        ability, log_beta, pi = new_ability, new_log_beta, new_pi
        T, item_ll = _glad_e_step(data, ability, log_beta, pi)
        trace.append(float(item_ll.sum() - 0.5 * (((ability - means[0]) ** 2).sum()
                                                  + ((log_beta - means[1]) ** 2).sum())))
        if len(trace) > 1:
            relative = abs(trace[-1] - trace[-2]) / max(abs(trace[-1]), np.finfo(float).tiny)
            if change < tol and relative < tol:
                return ability, log_beta, pi, T, item_ll, trace, True
    return ability, log_beta, pi, T, item_ll, trace, False


@shared_parameters
def glad(data: AnnotationsLike, *, gold: Any = None,
         categories: Sequence[Any] | None = None, prevalence: str = "uniform",
         prior_mean: tuple[float, float] = (1.0, 1.0), max_iter: int = 1000,
         tol: float = 1e-10, progress: bool | None = None) -> AnnotationModelFit:
    r"""GLAD by EM: each annotator's ability α_j and each item's inverse difficulty β_i.

    Whitehill et al.'s (2009) model: annotator j gives item i its true class with
    probability σ(α_j β_i), σ the logistic function, and otherwise one of the K − 1 other
    classes uniformly,

    .. math::  P(y_{ij} = l \mid z_i = k) = σ(α_j β_i)^{[l = k]}
               \Big(\frac{1 − σ(α_j β_i)}{K − 1}\Big)^{[l ≠ k]},

    so an easy item (β_i large) is labelled right by every able annotator, a hard one
    (β_i → 0) by chance, whoever the annotator; α_j < 0 labels adversarially. The
    parameters are MAP estimates under Whitehill et al.'s priors α_j ~ Normal(μ_α, 1) and
    log β_i ~ Normal(μ_β, 1) (``prior_mean`` = (μ_α, μ_β), default (1, 1)), by EM: the
    E-step gives the posteriors T (two scatter-adds over the annotations), the M-step
    raises the expected complete-data log-posterior Q over α and log β by L-BFGS (at most
    25 steps, run to a gradient of 1e-10: a looser inner stop leaves EM crawling; its
    gradient by two scatter-adds), π is uniform (``prevalence="uniform"``,
    Whitehill et al.'s and crowd-kit's) or re-estimated as Σ_i T_i / N (``"estimated"``).
    EM starts from the majority vote's shares with α = 1 and log β = 1 and stops when the
    largest change of a parameter and the relative change of the log-posterior are below
    ``tol``. The trace is the log-posterior (the log-likelihood plus the log-priors), which
    EM does not lower.

    Parameters
    ----------
    {{shared: data}}
        The annotators must be known.
    {{shared: gold}}
    {{shared: categories}}
    prevalence : {"uniform", "estimated"}, default "uniform"
        π fixed at 1/K, or re-estimated in each M-step. With 1/K a declared class nobody
        used keeps some posterior mass (a wrong label is spread over every other class);
        re-estimated, its prevalence goes to 0.
    prior_mean : (float, float), default (1.0, 1.0)
        The means μ_α of the abilities and μ_β of the log inverse difficulties (the priors'
        standard deviations are 1).
    max_iter : int, default 1000
        The most EM iterations; a fit that stops there warns.
    tol : float, default 1e-10
        The stopping rule (above).
    {{shared: progress}}

    Returns
    -------
    AnnotationModelFit
        ``model="GLAD"``: the posteriors, π, ``details["ability"]`` (α_j by annotator) and
        ``details["inverse_difficulty"]`` (β_i by item; items without annotations have
        none), the log-likelihood Σ_i log p(y_i) and the trace of the log-posterior. There
        is no confusion matrix per annotator: each item has its own.

    Raises
    ------
    UnknownRatersError
        Data without annotator identities.
    InvalidParameterError
        An unknown ``prevalence``, non-finite ``prior_mean``, gold items or classes the data
        lack, ``max_iter`` < 1 or a negative ``tol``.

    Warns
    -----
    ConvergenceWarning
        When the fit stops at ``max_iter``.

    References
    ----------
    Whitehill, J., Ruvolo, P., Wu, T., Bergsma, J., & Movellan, J. (2009). Whose vote should
    count more: Optimal integration of labels from labelers of unknown expertise. *Advances
    in Neural Information Processing Systems 22*, 2035–2043.

    Examples
    --------
    >>> import kappalab as kl
    >>> data = [[0, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 0, 1], [1, 1, 0]]
    >>> fit = kl.annotators.glad(data)
    >>> fit.labels.tolist()
    [0, 1, 0, 1, 0, 1]
    >>> bool(fit.details["ability"].iloc[2] < fit.details["ability"].iloc[0])  # the third
    True
    """
    if prevalence not in ("uniform", "estimated"):
        raise InvalidParameterError(
            f"prevalence must be 'uniform' or 'estimated', got {prevalence!r}")
    try:
        means = (float(prior_mean[0]), float(prior_mean[1]))
    except (TypeError, ValueError, IndexError):
        means = (float("nan"), float("nan"))
    if not np.isfinite(means).all() or len(prior_mean) != 2:
        raise InvalidParameterError(
            f"prior_mean must be two finite numbers (μ_α, μ_β), got {prior_mean!r}")
    max_iter = check_count(max_iter, "max_iter", minimum=1)
    tol = check_real(tol, "tol", low=0.0)
    progress = check_flag(progress, "progress", allow_none=True)
    ann = as_annotations(data, categories=categories)
    rater_index = ann.require_raters("the GLAD model")
    J, K = len(rater_index), ann.n_categories
    items, raters, labels = ann.codes()
    gold_items, gold_classes = gold_codes(gold, ann.items, ann.categories)
    em_design, start, kept = design(ann, raters, J, gold_items, gold_classes)
    row = np.full(ann.n_items, -1, dtype=np.intp)
    row[kept] = np.arange(kept.size)
    glad_data = _GladData(row[items], raters, labels, kept.size, J, K,
                          em_design.gold_rows, em_design.gold_classes)
    with single_blas_thread():  # L-BFGS's vector operations: one BLAS thread
        ability, log_beta, pi, T, item_ll, trace, converged = _glad_em(
            glad_data, start, prevalence, means, max_iter, tol, progress)
    if not converged:
        warn(f"the GLAD EM did not converge in {max_iter} iterations (tol={tol:g}); raise "
             "max_iter or tol", ConvergenceWarning)
    posterior = np.tile(pi, (ann.n_items, 1))
    posterior[kept] = T
    all_ll = np.zeros(ann.n_items)
    all_ll[kept] = item_ll
    beta = pd.Series(np.nan, index=ann.items, name="inverse_difficulty")
    beta.iloc[kept] = np.exp(log_beta)
    return AnnotationModelFit(
        model="GLAD",
        posterior=pd.DataFrame(posterior, index=ann.items, columns=ann.categories),
        prevalence=pd.Series(pi, index=ann.categories, name="prevalence"),
        confusion=None, raters=rater_index, log_likelihood=float(all_ll.sum()),
        item_log_likelihood=all_ll, trace=tuple(trace), n_iter=len(trace),
        converged=converged,
        details={"ability": pd.Series(ability, index=rater_index, name="ability"),
                 "inverse_difficulty": beta})


@shared_parameters
def ordinal_dawid_skene(data: AnnotationsLike, *, gold: Any = None,
                        prior: Mapping[str, Any] | None = None,
                        categories: Sequence[Any] | None = None, smoothing: float = 0.0,
                        accelerate: bool = True, max_iter: int = 1000, tol: float = 1e-10,
                        progress: bool | None = None) -> AnnotationModelFit:
    r"""Dawid–Skene for ordered classes: each annotator's confusion matrix from a latent
    score with thresholds (ordered probit).

    Item i of true class k (the classes in the order of the categories, k = 0 … K − 1) gives
    annotator j a latent score k + σ_j ε, ε ~ Normal(0, 1), which the annotator cuts at its
    own ordered thresholds τ_j1 < … < τ_j,K−1 into a label:

    .. math::  θ_j[k, l] = Φ\Big(\frac{τ_{j,l+1} − k}{σ_j}\Big)
                          − Φ\Big(\frac{τ_{j,l} − k}{σ_j}\Big),
               \qquad τ_{j,0} = −∞,\ τ_{j,K} = +∞.

    So the confusion is concentrated around the diagonal, as ordinal labels are: an
    annotator errs mostly into the neighbouring classes. σ_j is its noise, and thresholds
    shifted from the classes' midpoints k + ½ are its bias (lenient or severe). That is K
    parameters per annotator, where Dawid–Skene needs K(K − 1). EM is Dawid–Skene's. The
    E-step is the same, and the M-step sets π as Dawid–Skene does. It fits each
    annotator's thresholds and scale by L-BFGS on Σ_{k,l} M_j[k, l] log θ_j[k, l], with M_j
    the label mass plus the pseudo-counts and the gradient in closed form, polished by Newton
steps. The class
    distances are fixed at 1 on the latent scale, which identifies the model.

    Parameters
    ----------
    {{shared: data}}
        The annotators must be known; the categories' order is the classes' order.
    {{shared: gold}}
    prior : mapping, optional
        Pseudo-counts, as :func:`dawid_skene` takes them (added to the label mass the
        thresholds are fitted to).
    {{shared: categories}}
    {{shared: em_smoothing}}
    {{shared: em}}

    Returns
    -------
    AnnotationModelFit
        ``model="ordinal Dawid-Skene"``: the posteriors, π, each annotator's confusion
        matrix, ``details["thresholds"]`` (annotators × K − 1) and ``details["noise"]``
        (σ_j), the log-likelihood and its trace.

    Raises
    ------
    UnknownRatersError
        Data without annotator identities.
    InvalidParameterError
        As :func:`dawid_skene`.

    Warns
    -----
    ConvergenceWarning
        When the fit stops at ``max_iter``.

    References
    ----------
    Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer
    error-rates using the EM algorithm. *Journal of the Royal Statistical Society C* 28(1),
    20–28. doi:10.2307/2346806

    Johnson, V. E., & Albert, J. H. (1999). *Ordinal Data Modeling*. Springer, ch. 4
    (ordinal probit models of rater data with rater-specific thresholds).

    Examples
    --------
    >>> import kappalab as kl
    >>> data = [[1, 1, 2], [2, 2, 3], [3, 3, 3], [1, 2, 2], [3, 3, 2], [1, 1, 1]]
    >>> fit = kl.annotators.ordinal_dawid_skene(data)
    >>> fit.labels.tolist()
    [1, 2, 3, 2, 3, 1]
    >>> fit.details["thresholds"].shape
    (3, 2)
    """
    return _em_model(data, "ordinal_dawid_skene", smoothing=smoothing, max_iter=max_iter,
                     tol=tol, progress=progress, gold=gold, prior=prior,
                     accelerate=accelerate, categories=categories)
