r"""Bayesian models of annotation: Dawid–Skene, its hierarchical, pooled, MACE and ordinal forms.

The models of :mod:`kappalab.annotators` (fitted there by EM) with priors and full posteriors,
after Paun et al. (2018). Item i, with true class z_i among K classes, receives annotations
y_i = {(j, l)}: annotator j gave label l. With π the class prevalences and
θ_j[k, l] = P(annotator j says l | true class k),

.. math::  z_i \sim \operatorname{Categorical}(π), \qquad
           l \mid z_i = k, j \sim \operatorname{Categorical}(θ_j[k, ·]),

and the true class is **marginalised** (summed out), so that no discrete parameter is
sampled:

.. math::  \log p(y_i \mid π, θ) = \operatorname{logsumexp}_k
           \Big[\log π_k + \sum_{(j, l) \in y_i} \log θ_j[k, l]\Big].

An item whose class is known (``gold=``) contributes its term for that class,
log π_c + Σ log θ_j[c, l], instead of the logsumexp (semi-supervised fitting).

* :func:`dawid_skene`: one confusion matrix per annotator, rows θ_j[k, ·] ~ Dirichlet(β_k)
  (Dawid & Skene 1979; Passonneau & Carpenter 2014);
* :func:`hierarchical_dawid_skene`: the annotators' matrices partially pooled through a
  population matrix on the logit scale (Paun et al.'s HierDawidSkene);
* :func:`multinomial`: one confusion matrix for every annotation (Paun et al.'s
  "Multinomial"); needs no annotator identities, so it also reads counts tables;
* :func:`mace`: θ_j[k, l] = (1 − s_j)[l = k] + s_j ξ_jl, annotator j spamming with
  probability s_j from its strategy ξ_j (Hovy et al. 2013; Paun et al.'s MACE);
* :func:`ordinal_dawid_skene`: ordered-probit matrices, θ_j[k, l] = Φ((τ_{j,l+1} − k)/σ_j)
  − Φ((τ_{j,l} − k)/σ_j), per-annotator thresholds τ_j and noise σ_j (the model of
  :func:`kappalab.annotators.ordinal_dawid_skene`).

The last two write their θ_j too, so that everything below reads them as it reads
Dawid–Skene's.

Computation
-----------
The log-likelihood is written on the annotations, with no per-item parameter and no Python
loop: for the models with annotators, the values log θ_j[·, l] of every annotation are
gathered (annotations × K) and summed into their items by one scatter-add
(``pt.inc_subtensor(pt.zeros(K * items)[index], ...)``, on flat vectors:
``annotation_loglik``), and the logsumexp over the classes is written on the K columns
(``logsumexp_columns``); for the pooled model, items with identical count rows (and gold
class) are grouped and weighted by their number, as the models of
:mod:`kappalab.bayes.models` are. π and the rows of θ are sampled on log-ratio coordinates
(each row's reference its diagonal: ``log_rows``) with the Dirichlet density on them
(``dirichlet_logit_logp``). The
annotations are padded to :func:`~kappalab.bayes.compiled.bucket` ``(n)`` entries that point
at a padding item of weight 0, and the items to the bucket of their number plus one, so the
padding adds exactly zero to the log-density and its gradient. The number of annotators is
padded to its bucket too (the padding annotators have no annotations: their draws are those
of a concentrated prior, easy for NUTS, and are dropped). The priors enter the models as
data (``pm.Data``), so one compiled model serves every prior: a model is compiled once per
(model, K, annotator bucket) and shape bucket (:mod:`kappalab.bayes.compiled`).

Results
-------
Each function returns a :class:`~kappalab.bayes.Posterior` whose ``idata`` holds, beside the
posterior and sample statistics:

* ``log_likelihood["items"]``, dims (chain, draw, item): log p(y_i) of every item in the
  model (items with annotations or a gold class) at every draw, computed after sampling from
  the draws, so that ``arviz.loo(post.idata)`` and ``arviz.compare({...})`` compare models on
  the same items (the models score the same data: the labels of the annotations, with
  no multinomial coefficient);
* ``item_posterior["probability"]``, dims (item, class): P(z_i = k | data), the posterior
  class probabilities averaged over the draws, for every item of the data (an item without
  annotations or gold class: the posterior mean of π; a gold item: its class, exactly).
  Read it with :func:`item_posterior` and :func:`item_labels`. Only the mean over draws is
  kept — items × draws × classes would be 2000 × 10 000 × K numbers for a large data set —
  and it is computed in blocks of draws (``kappalab.bayes.assembly.blocks``);
* ``posterior_predictive["alpha"]`` and ``observed_data["alpha"]``: Krippendorff's nominal α
  of data replicated from at most 200 (``PPC_DRAWS``) evenly spaced draws (same items, same
  annotators per item: each item's class drawn from π — the likelihood's own marginal — or
  its gold class, each label from θ_j[class, ·]) and of the data, so that
  ``post.ppc_pvalue("alpha")`` is the posterior predictive p-value of the observed agreement
  (Gelman, Meng & Stern 1996). A p-value near 0 says the data agree more than the model
  implies (e.g. easy items on which every annotator is right, beside hard ones, where the
  model has one accuracy per annotator and class); near 1, less. With it,
  ``rater_kappa_x`` (dim rater, for the models with one confusion matrix per annotator):
  each annotator's κx against the rest of the panel (Wong, Paritosh & Aroyo 2021: its labels
  as one replication, its co-annotators' on the same items as the other; ``rater_cross_kappa``),
  replicated and observed; :func:`rater_ppc_pvalues` gives its p-value per annotator.

References
----------
Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates
using the EM algorithm. *Journal of the Royal Statistical Society C* 28(1), 20–28.
doi:10.2307/2346806

Passonneau, R. J., & Carpenter, B. (2014). The benefits of a model of annotation.
*Transactions of the ACL* 2, 311–326. doi:10.1162/tacl_a_00185

Paun, S., Carpenter, B., Chamberlain, J., Hovy, D., Kruschwitz, U., & Poesio, M. (2018).
Comparing Bayesian models of annotation. *Transactions of the ACL* 6, 571–585.
doi:10.1162/tacl_a_00040

Hovy, D., Berg-Kirkpatrick, T., Vaswani, A., & Hovy, E. (2013). Learning whom to trust with
MACE. *Proceedings of NAACL-HLT 2013*, 1120–1130. https://aclanthology.org/N13-1132

Wong, K., Paritosh, P., & Aroyo, L. (2021). Cross-replication reliability — an empirical
approach to interpreting inter-rater reliability. *ACL 2021*, 7053–7065.
doi:10.18653/v1/2021.acl-long.548

Gelman, A., Meng, X.-L., & Stern, H. (1996). Posterior predictive assessment of model
fitness via realized discrepancies. *Statistica Sinica* 6(4), 733–807.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np
import pandas as pd

from ..annotations import AnnotationsLike, as_annotations
from ..errors import EmptyDataError, InvalidParameterError
from ..errors import label as shown
from ..kernels import distinct_rows
from ..validation import SeedLike, check_real
from .assembly import assemble, blocks, flat
from .compiled import bucket, data_inputs, fit_model, pad
from .posterior import Posterior
from .sampling import SamplingOptions, prior_with_defaults

if TYPE_CHECKING:
    import scipy.sparse as sp
else:  # scipy.sparse, imported on first use (start-up)
    from ..kernels import sp

__all__ = ["dawid_skene", "hierarchical_dawid_skene", "multinomial", "mace",
           "ordinal_dawid_skene", "item_posterior", "item_labels", "rater_ppc_pvalues"]

#: at most this many posterior draws (evenly spaced within each chain) replicate the data for
#: the posterior predictive check of α: enough for a p-value to ±0.035 (one standard error
#: at p = 0.5), at a cost that does not grow with the number of draws
PPC_DRAWS = 200

#: the Dirichlet pseudo-counts of the padding annotators' rows are the default prior's times
#: this: concentrated, so that their (dropped) draws are nearly normal on the sampled scale
PADDING_CONCENTRATION = 50.0
#: the initial log θ[k, l] − log θ[k, k] of every confusion row (annotation_model)
START_LOG_RATIO = -2.0

#: the default priors (kappalab's choices; the docstrings say why)
DS_PRIOR = {"prevalence": 1.0, "confusion": (2.0, 1.0)}
HIERARCHICAL_PRIOR = {"prevalence": 1.0, "zeta_mean": 2.0, "zeta_sd": 1.0, "omega_sd": 1.0}
MACE_PRIOR: dict[str, Any] = {"prevalence": 1.0, "spam": (2.0, 2.0), "strategy": 2.0}
ORDINAL_PRIOR: dict[str, Any] = {"prevalence": 1.0, "thresholds": 1.0, "noise": (0.5, 1.0)}
#: each model's default priors, by kind
PRIORS: dict[str, dict[str, Any]] = {
    "dawid_skene": DS_PRIOR, "multinomial": DS_PRIOR,
    "hierarchical_dawid_skene": HIERARCHICAL_PRIOR, "mace": MACE_PRIOR,
    "ordinal_dawid_skene": ORDINAL_PRIOR}


# ====================================================================== the data
@dataclass(frozen=True)
class AnnotationDesign:
    """The annotations a model of annotation reads, coded.

    Parameters
    ----------
    items : pandas.Index
        Every item of the data.
    categories : pandas.Index
        The classes (= the labels), K of them.
    raters : pandas.Index
        The annotators (``["all raters"]`` for the pooled model).
    rows : numpy.ndarray
        Positions in ``items`` of the items in the model: those with annotations or a gold
        class.
    item, rater, label : numpy.ndarray
        Per annotation: its item's row (a position in ``rows``), annotator and label codes
        (empty for the pooled model, which reads ``counts``).
    gold : numpy.ndarray
        Per row: the gold class code, −1 for none.
    counts : numpy.ndarray
        Rows × K label counts.
    pooled : bool
        The pooled model's design (one annotator).

    Examples
    --------
    >>> d = annotation_design([[0, 0, 1], [1, 1, None]], gold={1: 1}, pooled=False)
    >>> d.rows.tolist(), d.gold.tolist(), d.counts.tolist()
    ([0, 1], [-1, 1], [[2, 1], [0, 2]])
    """

    items: pd.Index
    categories: pd.Index
    raters: pd.Index
    rows: np.ndarray
    item: np.ndarray
    rater: np.ndarray
    label: np.ndarray
    gold: np.ndarray
    counts: np.ndarray
    pooled: bool

    @property
    def K(self) -> int:
        return len(self.categories)

    @property
    def J(self) -> int:
        return len(self.raters)

    @property
    def n_rows(self) -> int:
        return int(self.rows.size)

    def matrix(self) -> sp.csr_matrix:
        """Rows × (annotator, label) counts X, X[i, j·K + l] = annotations (j, l) of item i
        (the pooled model: the count rows), so that Σ_{(j, l) ∈ y_i} log θ_j[k, l] is
        ``X @ log θ`` (log θ as a (J·K) × K matrix)."""
        if self.pooled:
            return sp.csr_matrix(self.counts.astype(float))
        return sp.csr_matrix((np.ones(self.item.size), (self.item, self.rater * self.K
                                                         + self.label)),
                             shape=(self.n_rows, self.J * self.K))

    def mask(self) -> np.ndarray:
        """Rows × K: 0 for the classes an item may have, −inf for the others (every class
        but its gold one for a gold item)."""
        out = np.zeros((self.n_rows, self.K))
        known = self.gold >= 0
        out[known] = -np.inf
        out[np.flatnonzero(known), self.gold[known]] = 0.0
        return out


def gold_codes(gold: Any, ann) -> np.ndarray:
    """Per item of ``ann``: the code of its gold class, −1 for none.

    Parameters
    ----------
    gold : mapping, pandas.Series or None
        Item → class for the items whose class is known.
    ann : Annotations
        The data (its items and categories).

    Returns
    -------
    numpy.ndarray
        One code per item (intp).

    Raises
    ------
    InvalidParameterError
        ``gold`` not a mapping, an item twice, a missing class, an item or a class not in
        the data.

    Examples
    --------
    >>> from kappalab import Annotations
    >>> ann = Annotations.from_wide([["a", "b"], ["b", "b"]])
    >>> gold_codes({1: "b"}, ann).tolist()
    [-1, 1]
    """
    codes = np.full(ann.n_items, -1, dtype=np.intp)
    if gold is None:
        return codes
    if isinstance(gold, pd.Series):
        series = gold
    elif isinstance(gold, Mapping):
        series = pd.Series(list(gold.values()), index=pd.Index(list(gold.keys())),
                           dtype=object)
    else:
        raise InvalidParameterError(
            f"gold must be a mapping or a pandas Series of item → class, got "
            f"{type(gold).__name__}")
    if series.empty:
        return codes
    if series.index.has_duplicates:
        twice = series.index[series.index.duplicated()][0]
        raise InvalidParameterError(f"gold names item {shown(twice)} more than once")
    missing = pd.isna(series.to_numpy(dtype=object))
    if missing.any():
        raise InvalidParameterError(
            f"gold has no class for item {shown(series.index[np.flatnonzero(missing)[0]])}; "
            "leave out the items whose class is unknown")
    position = ann.items.get_indexer(series.index)
    if (position < 0).any():
        unknown = series.index[position < 0]
        raise InvalidParameterError(
            f"gold names {len(unknown)} item(s) not in the data, e.g. {shown(unknown[0])}")
    cls = ann.categories.get_indexer(pd.Index(series.to_numpy(dtype=object)))
    if (cls < 0).any():
        bad = np.flatnonzero(cls < 0)[0]
        raise InvalidParameterError(
            f"gold class {shown(series.iloc[bad])} of item {shown(series.index[bad])} is not a "
            f"class of the data ({', '.join(map(shown, ann.categories))}); pass Annotations "
            "with categories=... to add a class nobody used")
    codes[position] = cls
    return codes


def annotation_design(data: AnnotationsLike, *, gold: Any = None, pooled: bool,
                      purpose: str = "the model") -> AnnotationDesign:
    """The :class:`AnnotationDesign` of ``data`` with ``gold`` classes.

    Parameters
    ----------
    data : Annotations, DataFrame or array-like
        Anything :func:`~kappalab.annotations.as_annotations` reads.
    gold : mapping or pandas.Series, optional
        Item → class.
    pooled : bool
        The pooled model's design (no annotator identities needed).
    purpose : str
        The model's name, for the error when annotator identities are missing.

    Returns
    -------
    AnnotationDesign

    Raises
    ------
    EmptyDataError
        No annotations, or fewer than two classes.
    UnknownRatersError
        ``pooled=False`` and no annotator identities.
    InvalidParameterError
        A bad ``gold`` (:func:`gold_codes`).

    Examples
    --------
    >>> annotation_design([[0, 1], [1, 1]], pooled=True).counts.tolist()
    [[1, 1], [0, 2]]
    """
    ann = as_annotations(data)
    K = ann.n_categories
    if K < 2:
        raise EmptyDataError(
            f"{purpose} needs at least 2 classes; the data have {K} "
            f"({', '.join(map(shown, ann.categories))}): pass Annotations with "
            "categories=... to name the others")
    if pooled:
        raters = pd.Index(["all raters"], name="rater")
        item = rater = label = np.zeros(0, dtype=np.intp)
        n_annotations = int(ann.count_matrix.sum())
    else:
        raters = ann.require_raters(purpose)
        item, rater, label = (np.asarray(c, dtype=np.intp) for c in ann.codes())
        n_annotations = int(item.size)
    if n_annotations == 0:
        raise EmptyDataError(f"{purpose} needs annotations; the data have none")
    codes = gold_codes(gold, ann)
    counts_all = ann.count_matrix
    in_model = (counts_all.sum(axis=1) > 0) | (codes >= 0)
    rows = np.flatnonzero(in_model)
    row_of = np.full(ann.n_items, -1, dtype=np.intp)
    row_of[rows] = np.arange(rows.size)
    item = row_of[item]
    order = np.argsort(item, kind="stable")  # annotations item by item: the scatter-add
    item, rater, label = item[order], rater[order], label[order]  # writes in order
    return AnnotationDesign(items=ann.items, categories=ann.categories, raters=raters,
                            rows=rows, item=item, rater=rater, label=label,
                            gold=codes[rows], counts=counts_all[rows], pooled=pooled)


def _plain(values) -> list:
    """Labels as plain Python values (coordinates, messages)."""
    return [v.item() if hasattr(v, "item") else v for v in values]


# ====================================================================== priors
def _array(value: Any, name: str) -> np.ndarray:
    try:
        out = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"prior {name!r} must be numbers, got {value!r}") from None
    if not np.isfinite(out).all():
        raise InvalidParameterError(f"prior {name!r} must be finite numbers, got {value!r}")
    return out


def _positive(value: Any, name: str) -> np.ndarray:
    out = _array(value, name)
    if not (out > 0).all():
        raise InvalidParameterError(f"prior {name!r} must be positive numbers, got {value!r}")
    return out


def prevalence_prior(value: Any, K: int) -> np.ndarray:
    """The Dirichlet pseudo-counts of π: a number c (c for every class) or K numbers, > 0.

    Parameters
    ----------
    value : float or array-like
        ``prior["prevalence"]``.
    K : int
        The number of classes.

    Returns
    -------
    numpy.ndarray
        K pseudo-counts.

    Raises
    ------
    InvalidParameterError
        Not positive, or not one number or K of them.

    Examples
    --------
    >>> prevalence_prior(1.0, 3).tolist(), prevalence_prior([2, 1], 2).tolist()
    ([1.0, 1.0, 1.0], [2.0, 1.0])
    """
    a = _positive(value, "prevalence")
    if a.ndim == 0:
        return np.full(K, float(a))
    if a.shape != (K,):
        raise InvalidParameterError(
            f"prior 'prevalence' must be one number or {K} (one per class), got shape "
            f"{a.shape}")
    return a


def confusion_prior(value: Any, K: int, J: int | None) -> np.ndarray:
    """The Dirichlet pseudo-counts β of the confusion rows, J × K × K (K × K when ``J`` is
    None: the pooled model).

    Parameters
    ----------
    value : pair, array-like
        ``prior["confusion"]``: a pair (diagonal, off-diagonal) of pseudo-counts; a K × K
        matrix (row k: β_k, for every annotator); or J × K × K (one matrix per annotator, in
        the order of the data's raters). All > 0.
    K : int
        The number of classes.
    J : int or None
        The number of annotators (None: one matrix).

    Returns
    -------
    numpy.ndarray
        J × K × K (or K × K).

    Raises
    ------
    InvalidParameterError
        Not positive, or of another shape.

    Examples
    --------
    >>> confusion_prior((2.0, 1.0), 2, None).tolist()
    [[2.0, 1.0], [1.0, 2.0]]
    >>> confusion_prior([[5, 1], [1, 5]], 2, 3).shape
    (3, 2, 2)
    """
    b = _positive(value, "confusion")
    if b.shape == (2,):
        matrix = np.full((K, K), b[1])
        np.fill_diagonal(matrix, b[0])
    elif b.shape == (K, K):
        matrix = b
    elif J is not None and b.shape == (J, K, K):
        return b
    else:
        shapes = f"(diagonal, off-diagonal), {K} × {K}" + (
            f" or {J} × {K} × {K} (one matrix per annotator)" if J is not None else "")
        raise InvalidParameterError(
            f"prior 'confusion' must be a pair {shapes}; got shape {b.shape}")
    return matrix if J is None else np.broadcast_to(matrix, (J, K, K)).copy()


def zeta_mean_prior(value: Any, K: int) -> np.ndarray:
    """The prior means μ of the population logits ζ: a number d (d on the diagonal, 0 off
    it) or a K × K matrix.

    Parameters
    ----------
    value : float or array-like
        ``prior["zeta_mean"]``.
    K : int
        The number of classes.

    Returns
    -------
    numpy.ndarray
        K × K.

    Raises
    ------
    InvalidParameterError
        Not finite, or of another shape.

    Examples
    --------
    >>> zeta_mean_prior(2.0, 2).tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    m = _array(value, "zeta_mean")
    if m.ndim == 0:
        return np.diag(np.full(K, float(m)))
    if m.shape != (K, K):
        raise InvalidParameterError(
            f"prior 'zeta_mean' must be one number (the diagonal) or {K} × {K}, got shape "
            f"{m.shape}")
    return m


def spam_prior(value: Any, J: int) -> np.ndarray:
    """The Beta(a, b) parameters of MACE's spam probabilities: a pair (a, b) for every
    annotator or J × 2 (one pair per annotator, in the order of the data's raters), > 0.

    Parameters
    ----------
    value : pair or array-like
        ``prior["spam"]``.
    J : int
        The number of annotators.

    Returns
    -------
    numpy.ndarray
        J × 2.

    Raises
    ------
    InvalidParameterError
        Not positive, or of another shape.

    Examples
    --------
    >>> spam_prior((2, 3), 2).tolist()
    [[2.0, 3.0], [2.0, 3.0]]
    """
    ab = _positive(value, "spam")
    if ab.shape == (2,):
        return np.broadcast_to(ab, (J, 2)).copy()
    if ab.shape == (J, 2):
        return ab
    raise InvalidParameterError(
        f"prior 'spam' must be a pair (a, b) of Beta parameters or {J} × 2 (one pair per "
        f"annotator), got shape {ab.shape}")


def strategy_prior(value: Any, K: int, J: int) -> np.ndarray:
    """The Dirichlet pseudo-counts of MACE's strategies ξ_j: a number c (c for every label),
    K numbers, or J × K (one row per annotator), > 0.

    Parameters
    ----------
    value : float or array-like
        ``prior["strategy"]``.
    K : int
        The number of labels.
    J : int
        The number of annotators.

    Returns
    -------
    numpy.ndarray
        J × K.

    Raises
    ------
    InvalidParameterError
        Not positive, or of another shape.

    Examples
    --------
    >>> strategy_prior(2.0, 3, 1).tolist()
    [[2.0, 2.0, 2.0]]
    """
    c = _positive(value, "strategy")
    if c.ndim == 0 or c.shape == (K,):
        return np.broadcast_to(c, (J, K)).copy()
    if c.shape == (J, K):
        return c
    raise InvalidParameterError(
        f"prior 'strategy' must be one number, {K} (one per label) or {J} × {K} (one row per "
        f"annotator), got shape {c.shape}")


def noise_prior(value: Any) -> np.ndarray:
    """The log-normal prior of the ordinal model's noise σ_j: a pair (median, sd of log σ),
    both > 0.

    Parameters
    ----------
    value : pair
        ``prior["noise"]``.

    Returns
    -------
    numpy.ndarray
        The pair.

    Raises
    ------
    InvalidParameterError
        Not a pair of positive numbers.

    Examples
    --------
    >>> noise_prior((0.5, 1)).tolist()
    [0.5, 1.0]
    """
    pair = _array(value, "noise")
    if pair.shape != (2,):
        raise InvalidParameterError(
            f"prior 'noise' must be a pair (median of σ, sd of log σ), got shape {pair.shape}")
    if not (pair > 0).all():
        raise InvalidParameterError(f"prior 'noise' must be positive numbers, got {value!r}")
    return pair


# ====================================================================== log-likelihoods
def logsumexp_columns(pt, columns):
    r"""logsumexp_k of K vectors, elementwise: m + log Σ_k exp(c_k − m), m = max_k c_k.

    Written on the K columns (K is known when the graph is built), so that the whole of it
    and of its gradient are elementwise operations on vectors, which PyTensor fuses into one
    loop: ``pt.logsumexp(x, axis=1)`` and its softmax gradient ran 2–3 times slower on
    items × K in nutpie's numba backend. The maximum is a constant for the gradient (the
    value does not depend on it). −inf entries are allowed where some entry of the row is
    finite.

    Parameters
    ----------
    pt : module
        ``pytensor.tensor``.
    columns : sequence of tensor
        K vectors of equal length.

    Returns
    -------
    tensor
        The vector of logsumexps.

    Examples
    --------
    >>> import numpy as np, pytensor.tensor as pt
    >>> out = logsumexp_columns(pt, [np.log([1.0, 2.0]), np.log([3.0, 2.0])]).eval()
    >>> np.exp(out).tolist()
    [4.0, 4.0]
    """
    from pytensor.gradient import disconnected_grad

    top = columns[0]
    for column in columns[1:]:
        top = pt.maximum(top, column)
    top = disconnected_grad(top)
    total = pt.exp(columns[0] - top)
    for column in columns[1:]:
        total = total + pt.exp(column - top)
    return top + pt.log(total)


def annotation_loglik(pt, item, code, weight, mask, log_pi, log_theta, K):
    r"""Σ_i w_i log p(y_i): the marginal log-likelihood of the Dawid–Skene models (PyTensor).

    Each annotation (j, l) gathers the K values log θ_j[·, l], and the gathered values are
    summed into the annotation's item by one scatter-add, giving the K × items matrix
    log π_k + Σ_{(j, l) ∈ y_i} log θ_j[k, l]; its logsumexp over the classes
    (:func:`logsumexp_columns`, masked by ``mask``: −inf for the classes a gold item does
    not have) is log p(y_i). The gather and the scatter-add run on flat vectors (log θ
    flattened with j·K + l before k; the K × items matrix flattened class by class), whose
    indices :func:`flat_indices` makes: PyTensor's C backend increments a vector in C but a
    matrix in Python (``numpy.add.at``), 20 times slower here.

    Parameters
    ----------
    pt : module
        ``pytensor.tensor``.
    item, code : tensor of int
        Per annotation and class (:func:`flat_indices`): the position of (k, item) in the
        flat K × items matrix, and of (j, l, k) in the flat log θ. Padding annotations point
        at an item of weight 0.
    weight : tensor
        Per item row: 1, or 0 for padding rows (which then add exactly 0).
    mask : tensor
        Items × K: 0 or −inf.
    log_pi : tensor
        log π (K).
    log_theta : tensor
        log θ (J × K × K: annotator, true class, label).
    K : int
        The number of classes.

    Returns
    -------
    tensor
        The scalar log-likelihood.

    Examples
    --------
    >>> import numpy as np, pytensor.tensor as pt
    >>> theta = np.array([[[0.9, 0.1], [0.2, 0.8]]])          # one annotator
    >>> item, code = flat_indices(np.array([0, 0]), np.array([0, 0]), np.array([0, 0]), 2, 1)
    >>> ll = annotation_loglik(pt, item, code, np.ones(1), np.zeros((1, 2)),
    ...                        np.log([0.5, 0.5]), np.log(theta), 2)
    >>> bool(np.isclose(ll.eval(), np.log(0.5 * 0.9**2 + 0.5 * 0.2**2)))
    True
    """
    log_theta, mask = pt.as_tensor(log_theta), pt.as_tensor(mask)
    values = log_theta.transpose(0, 2, 1).flatten()[code]
    n_items = pt.as_tensor(weight).shape[0]
    joint = pt.inc_subtensor(pt.zeros(K * n_items)[item], values).reshape((K, n_items))
    ll = logsumexp_columns(pt, [joint[k] + log_pi[k] + mask[:, k] for k in range(K)])
    return (weight * ll).sum()


def flat_indices(item: np.ndarray, rater: np.ndarray, label: np.ndarray, K: int,
                 n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """The indices of :func:`annotation_loglik`: per annotation and class k, the position
    k·n_items + item in the flat K × items matrix and (rater·K + label)·K + k in the flat
    log θ.

    Parameters
    ----------
    item, rater, label : numpy.ndarray
        Per annotation: its item row, annotator and label codes.
    K : int
        The number of classes.
    n_items : int
        The number of item rows (padding included).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Two int64 vectors of annotations × K entries.

    Examples
    --------
    >>> [v.tolist() for v in flat_indices(np.array([1]), np.array([0]), np.array([1]), 2, 4)]
    [[1, 5], [2, 3]]
    """
    k = np.arange(K, dtype=np.int64)
    item_index = (k[None, :] * n_items + np.asarray(item, dtype=np.int64)[:, None]).ravel()
    code = np.asarray(rater, dtype=np.int64) * K + np.asarray(label, dtype=np.int64)
    return item_index, (code[:, None] * K + k).ravel()


def count_loglik(pt, rows, weight, mask, log_pi, log_theta, K):
    r"""Σ_g w_g log p(n_g): the marginal log-likelihood of the pooled model (PyTensor).

    Row g holds the label counts n_g of a group of identical items (and gold class),
    weighted by their number w_g: log p(n_g) = logsumexp_k [log π_k + Σ_l n_gl log θ[k, l]]
    (masked as in :func:`annotation_loglik`), without the multinomial coefficient, so that
    it scores the same labels as the Dawid–Skene models.

    Parameters
    ----------
    pt : module
        ``pytensor.tensor``.
    rows : tensor
        Groups × K label counts (padding rows 0).
    weight : tensor
        Per group: its number of items (0 for padding).
    mask : tensor
        Groups × K: 0 or −inf.
    log_pi : tensor
        log π (K).
    log_theta : tensor
        log θ (K × K: true class, label).
    K : int
        The number of classes.

    Returns
    -------
    tensor
        The scalar log-likelihood.

    Examples
    --------
    >>> import numpy as np, pytensor.tensor as pt
    >>> theta = np.array([[0.9, 0.1], [0.2, 0.8]])
    >>> ll = count_loglik(pt, np.array([[2.0, 0.0]]), np.ones(1), np.zeros((1, 2)),
    ...                   np.log([0.5, 0.5]), np.log(theta), 2)
    >>> bool(np.isclose(ll.eval(), np.log(0.5 * 0.9**2 + 0.5 * 0.2**2)))
    True
    """
    log_theta, mask = pt.as_tensor(log_theta), pt.as_tensor(mask)
    joint = pt.dot(rows, log_theta.T)
    ll = logsumexp_columns(pt, [joint[:, k] + log_pi[k] + mask[:, k] for k in range(K)])
    return (weight * ll).sum()


def _logsumexp(x: np.ndarray) -> np.ndarray:
    """logsumexp over the last axis; −inf entries allowed (one finite entry per row)."""
    top = x.max(axis=-1, keepdims=True)
    with np.errstate(under="ignore"):
        return (top + np.log(np.exp(x - top).sum(axis=-1, keepdims=True)))[..., 0]


def item_log_joint(matrix, log_pi: np.ndarray, log_theta: np.ndarray) -> np.ndarray:
    """log π_k + Σ_{(j, l) ∈ y_i} log θ_j[k, l] for every draw, item row and class (numpy).

    Parameters
    ----------
    matrix : scipy.sparse matrix
        Rows × (J·K) annotation counts (:meth:`AnnotationDesign.matrix`).
    log_pi : numpy.ndarray
        S × K.
    log_theta : numpy.ndarray
        S × J × K × K.

    Returns
    -------
    numpy.ndarray
        S × rows × K.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = sp.csr_matrix([[2.0, 0.0]])               # one item, two annotations of label 0
    >>> theta = np.array([[[[0.9, 0.1], [0.2, 0.8]]]])
    >>> np.exp(item_log_joint(X, np.log([[0.5, 0.5]]), np.log(theta))).round(3).tolist()
    [[[0.405, 0.02]]]
    """
    S, J, K, _ = log_theta.shape
    stacked = np.ascontiguousarray(log_theta.transpose(1, 3, 0, 2)).reshape(J * K, S * K)
    joint = np.asarray(matrix @ stacked).reshape(-1, S, K).transpose(1, 0, 2)
    return joint + log_pi[:, None, :]


def item_log_likelihood(design: AnnotationDesign, log_pi: np.ndarray, log_theta: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray]:
    """log p(y_i) per draw and item row, and P(z_i = k | y_i) averaged over the draws.

    Computed in blocks of draws (:func:`~kappalab.bayes.assembly.blocks`), so that the
    memory is bounded by the block, not by draws × items × K.

    Parameters
    ----------
    design : AnnotationDesign
        The data.
    log_pi : numpy.ndarray
        S × K draws of log π.
    log_theta : numpy.ndarray
        S × J × K × K draws of log θ (J = 1 for the pooled model).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        S × rows log-likelihoods, rows × K mean posterior class probabilities.

    Examples
    --------
    >>> import numpy as np
    >>> d = annotation_design([[0, 0], [1, 1]], pooled=True)
    >>> theta = np.log(np.array([[[[0.9, 0.1], [0.2, 0.8]]]]))
    >>> ll, p = item_log_likelihood(d, np.log([[0.5, 0.5]]), theta)
    >>> ll.round(4).tolist(), p.round(3).tolist()
    ([[-0.8557, -1.1239]], [[0.953, 0.047], [0.015, 0.985]])
    """
    matrix, mask = design.matrix(), design.mask()
    S, K = log_pi.shape
    loglik = np.empty((S, design.n_rows))
    total = np.zeros((design.n_rows, K))
    for block in blocks(S, design.n_rows * K):
        joint = item_log_joint(matrix, log_pi[block], log_theta[block]) + mask
        ll = _logsumexp(joint)
        loglik[block] = ll
        with np.errstate(under="ignore"):
            total += np.exp(joint - ll[..., None]).sum(axis=0)
    return loglik, total / S


# ====================================================================== predictive check
def nominal_alpha(counts: np.ndarray) -> np.ndarray:
    r"""Krippendorff's nominal α of items × K count tables (leading axes: replicates).

    With m_i = Σ_k n_ik, n = Σ m_i and n_k = Σ_i n_ik over the pairable items (m_i ≥ 2):

    .. math::  α = 1 - (n - 1)\,\frac{\sum_i (m_i^2 - \sum_k n_{ik}^2)/(m_i - 1)}
                                      {n^2 - \sum_k n_k^2},

    :func:`kappalab.krippendorff_alpha` at ``level="nominal"`` (Krippendorff 2011), vectorised
    over the replicates; NaN when the pairable annotations all have one label.

    Parameters
    ----------
    counts : numpy.ndarray
        (..., items, K) label counts.

    Returns
    -------
    numpy.ndarray
        α per table (shape ``counts.shape[:-2]``).

    Examples
    --------
    >>> float(nominal_alpha(np.array([[2, 0], [0, 2], [1, 1]])))
    0.4444444444444444
    """
    counts = np.asarray(counts, dtype=np.float64)
    m = counts.sum(axis=-1)
    pairable = m >= 2
    c = np.where(pairable[..., None], counts, 0.0)
    mp = np.where(pairable, m, 0.0)
    n = mp.sum(axis=-1)
    within = np.where(pairable, (mp * mp - np.einsum("...k,...k->...", c, c))
                      / np.where(pairable, mp - 1.0, 1.0), 0.0).sum(axis=-1)
    totals = c.sum(axis=-2)
    between = n * n - np.einsum("...k,...k->...", totals, totals)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(between > 0, 1.0 - (n - 1.0) * within / np.where(
            between > 0, between, 1.0), np.nan)


def rater_cross_kappa(design: AnnotationDesign, counts: np.ndarray, labels: np.ndarray
                      ) -> np.ndarray:
    r"""κx of each annotator against the rest of the panel (Wong, Paritosh & Aroyo 2021).

    For annotator j, on its items shared with others (m_i ≥ 2), one replication is its label
    l_ij and the other the m_i − 1 labels of its co-annotators; with the nominal distance,

    .. math::  d_o = \frac{\sum_i m_i\,(m_i - n_{i, l_{ij}})/(m_i - 1)}{\sum_i m_i},
               \qquad d_e = 1 - \frac{o_j^\top r_j}{R_j S_j}, \qquad
               κ_x = 1 - d_o/d_e,

    o_j the counts of its labels, r_j those of its co-annotators' labels on the same items,
    R_j and S_j their totals: the values of
    :class:`kappalab.coefficients.cross.RaterVersusRest`, for every annotator and every
    replicated dataset at once (one scatter-add and one sparse product). NaN for an
    annotator sharing no item, or when d_e = 0.

    Parameters
    ----------
    design : AnnotationDesign
        The design (items and annotators of the annotations).
    counts : numpy.ndarray
        (..., rows, K) label counts (the data's, or replicated with the same design).
    labels : numpy.ndarray
        (..., annotations) the label of each annotation.

    Returns
    -------
    numpy.ndarray
        (..., J).

    Examples
    --------
    Annotator 1 agrees with both others on item 0 and with one of two on item 1:
    d_o = (3·0 + 3·½)/6 = ¼; its labels (1, 1 of classes 0, 1) against the others' (3, 1):
    d_e = 1 − (1·3 + 1·1)/(2·4) = ½, κx = ½. Annotator 0 (labels 0, 0; the others 0, 0 and
    1, 1): d_o = (0 + 3·1)/6 = ½ = d_e, κx = 0.

    >>> d = annotation_design([[0, 0, 0], [0, 1, 1]], pooled=False)
    >>> rater_cross_kappa(d, d.counts, d.label).round(4).tolist()
    [0.0, 0.5, 0.5]
    """
    counts = np.asarray(counts, dtype=np.float64)
    lead = counts.shape[:-2]
    K, J, n_rows = design.K, design.J, counts.shape[-2]
    m = design.counts.sum(axis=-1)[design.item]
    shared = m >= 2
    item, rater, m = design.item[shared], design.rater[shared], m[shared]
    flat_counts = counts.reshape((-1, n_rows, K))
    L = flat_counts.shape[0]
    label = np.broadcast_to(labels, lead + design.item.shape).reshape(L, -1)[:, shared]
    same = np.take_along_axis(flat_counts[:, item, :], label[..., None], axis=-1)[..., 0]
    disagree = m - same                # co-annotations that differ: (m − 1) − (n_il − 1)
    weight = m / (m - 1.0)             # (R_i + S_i)/(R_i S_i) with R_i = 1, S_i = m − 1
    offset = (np.arange(L)[:, None] * J + rater[None, :]).ravel()
    numerator = np.bincount(offset, weights=(weight * disagree).ravel(), minlength=L * J)
    denominator = np.bincount(rater, weights=m, minlength=J)
    own = np.bincount((offset * K + label.ravel()), minlength=L * J * K).reshape(L, J, K)
    seen = sp.csr_matrix((np.ones(item.size), (rater, item)), shape=(J, n_rows))
    panel = np.asarray(seen @ flat_counts.transpose(1, 0, 2).reshape(n_rows, L * K))
    rest = panel.reshape(J, L, K).transpose(1, 0, 2) - own
    R, S = own.sum(axis=-1), rest.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_o = numerator.reshape(L, J) / denominator
        d_e = 1.0 - (own * rest).sum(axis=-1) / (R * S)
        value = np.where((denominator > 0) & (d_e > 0), 1.0 - d_o / d_e, np.nan)
    return value.reshape(lead + (J,))


def _categorical(rng: np.random.Generator, p: np.ndarray) -> np.ndarray:
    """One draw per row of probabilities ``p`` (last axis), by the inverse CDF."""
    cumulative = np.cumsum(p, axis=-1)
    u = rng.random(p.shape[:-1]) * cumulative[..., -1]
    return (u[..., None] > cumulative[..., :-1]).sum(axis=-1)


def replicate(design: AnnotationDesign, pi: np.ndarray, theta: np.ndarray,
              rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray | None]:
    """Data replicated with the observed design from B draws: each item's class from π (its
    gold class for a gold item), each annotation's label from θ_j[class, ·].

    Parameters
    ----------
    design : AnnotationDesign
        The design (items, annotators per item).
    pi : numpy.ndarray
        B × K.
    theta : numpy.ndarray
        B × J × K × K (J = 1 for the pooled model).
    rng : numpy.random.Generator
        The random numbers.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray or None)
        B × rows × K label counts, and B × annotations labels (None for the pooled model,
        whose counts are drawn per item).

    Examples
    --------
    >>> d = annotation_design([[0, 0], [1, 1]], pooled=False)
    >>> theta = np.broadcast_to(np.eye(2), (1, 2, 2, 2))        # perfect annotators
    >>> counts, labels = replicate(d, np.array([[0.5, 0.5]]), theta, np.random.default_rng(0))
    >>> sorted(counts[0].max(axis=1).tolist())                  # both agree on every item
    [2, 2]
    """
    B = pi.shape[0]
    z = _categorical(rng, np.broadcast_to(pi[:, None, :], (B, design.n_rows, design.K)))
    known = design.gold >= 0
    z[:, known] = design.gold[known]
    if design.pooled:
        probs = theta[np.arange(B)[:, None], 0, z]  # B × rows × K
        probs = probs / probs.sum(axis=-1, keepdims=True)
        return rng.multinomial(design.counts.sum(axis=1), probs), None
    probs = theta[np.arange(B)[:, None], design.rater[None, :], z[:, design.item]]
    labels = _categorical(rng, probs)
    cell = ((np.arange(B)[:, None] * design.n_rows + design.item[None, :]) * design.K
            + labels)
    counts = np.bincount(cell.ravel(), minlength=B * design.n_rows * design.K)
    return counts.reshape(B, design.n_rows, design.K), labels


def ppc_draws(chains: int, draws: int, most: int = PPC_DRAWS) -> np.ndarray:
    """Draw positions kept for the predictive check: evenly spaced within each chain, at most
    ``most`` in all (at least one per chain).

    Parameters
    ----------
    chains, draws : int
        The posterior's chains and draws per chain.
    most : int
        The most positions in all.

    Returns
    -------
    numpy.ndarray
        Positions within a chain (the same in every chain).

    Examples
    --------
    >>> ppc_draws(2, 1000).size, ppc_draws(2, 50).tolist()[:3]
    (100, [0, 1, 2])
    """
    per_chain = max(1, min(draws, most // chains))
    return np.unique(np.linspace(0, draws - 1, per_chain).round().astype(np.intp))


# ====================================================================== fitting
def _model_data(design: AnnotationDesign, J_pad: int) -> tuple[dict[str, np.ndarray], tuple]:
    """The padded data of the models with annotators (annotations and item rows) and their
    shape signature."""
    n_ann = design.item.size
    size = bucket(n_ann)
    n_rows = bucket(design.n_rows + 1)  # at least one padding row, for padding annotations
    padded = np.arange(size - n_ann)
    item, code = flat_indices(
        np.concatenate([design.item, np.full(padded.size, design.n_rows)]),
        np.concatenate([design.rater, np.zeros(padded.size, dtype=np.intp)]),
        np.concatenate([design.label, np.zeros(padded.size, dtype=np.intp)]), design.K,
        n_rows)
    weight = pad(np.ones(design.n_rows), n_rows)
    mask = pad(design.mask(), n_rows)
    return {"item": item, "code": code, "weight": weight, "mask": mask}, (size, n_rows)


def _coords(design: AnnotationDesign) -> dict[str, list]:
    cats = _plain(design.categories)
    return {"class": cats, "true_class": cats, "label": cats,
            "rater": _plain(design.raters), "item": _plain(design.items[design.rows]),
            "threshold": [f"{a}|{b}" for a, b in zip(cats[:-1], cats[1:])]}


def _attrs(design: AnnotationDesign, priors: Mapping[str, np.ndarray]) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "n_items": len(design.items), "n_model_items": design.n_rows,
        "n_annotations": int(design.counts.sum()), "n_gold_items": int((design.gold >= 0).sum()),
        "n_categories": design.K, "n_raters": 0 if design.pooled else design.J}
    for name, value in priors.items():
        value = np.asarray(value, dtype=float)
        attrs[f"prior_{name}"] = float(value) if value.ndim == 0 else value.ravel().tolist()
        if value.ndim > 1:
            attrs[f"prior_{name}_shape"] = list(value.shape)
    return attrs


def _finish(kind: str, posterior, stats, options: SamplingOptions, design: AnnotationDesign,
            log_pi: np.ndarray, log_theta: np.ndarray, *, derived: Mapping[str, np.ndarray],
            derived_dims: Mapping[str, tuple], priors: Mapping[str, np.ndarray],
            headline: tuple) -> Posterior:
    """Assemble the Posterior, then add the item log-likelihoods, the item posteriors and the
    predictive check (module docstring, "Results")."""
    import xarray as xr

    coords = _coords(design)
    post = assemble(posterior, stats, options, model=kind, derived=derived,
                    derived_dims=derived_dims, coords=coords, headline=headline,
                    attrs={**_attrs(design, priors), "ppc_draws": 0})
    chains, draws = posterior.sizes["chain"], posterior.sizes["draw"]
    base = {"chain": posterior["chain"].values, "draw": posterior["draw"].values}
    groups: dict[str, Any] = {}

    # log p(y_i) per draw and the item posteriors, in blocks of draws
    pi = np.exp(log_pi)
    loglik, mean_rows = item_log_likelihood(design, log_pi, log_theta)
    groups["log_likelihood"] = xr.Dataset(
        {"items": (("chain", "draw", "item"), loglik.reshape(chains, draws, -1))},
        coords={**base, "item": coords["item"]})
    probability = np.broadcast_to(pi.mean(axis=0), (len(design.items), design.K)).copy()
    probability[design.rows] = mean_rows
    known = np.zeros(len(design.items), dtype=bool)
    known[design.rows[design.gold >= 0]] = True
    groups["item_posterior"] = xr.Dataset(
        {"probability": (("item", "class"), probability), "gold": (("item",), known)},
        coords={"item": _plain(design.items), "class": coords["class"]})

    # the posterior predictive check of α (and of each annotator's agreement)
    positions = ppc_draws(chains, draws)
    selected = (np.arange(chains)[:, None] * draws + positions[None, :]).ravel()
    theta = np.exp(log_theta[selected])
    observed_alpha = float(nominal_alpha(design.counts))
    observed: dict[str, Any] = {}
    if np.isfinite(observed_alpha):
        alpha = np.empty(selected.size)
        kappa_x = None if design.pooled else np.empty((selected.size, design.J))
        for block in blocks(selected.size, max(design.item.size, design.n_rows) * design.K):
            counts, labels = replicate(design, pi[selected[block]], theta[block], options.rng)
            alpha[block] = nominal_alpha(counts)
            if kappa_x is not None and labels is not None:
                kappa_x[block] = rater_cross_kappa(design, counts, labels)
        shape = (chains, positions.size)
        pp_coords = {"chain": base["chain"], "draw": base["draw"][positions]}
        data_vars: dict[str, Any] = {"alpha": (("chain", "draw"), alpha.reshape(shape))}
        observed["alpha"] = ((), observed_alpha)
        if kappa_x is not None:
            data_vars["rater_kappa_x"] = (("chain", "draw", "rater"),
                                          kappa_x.reshape(shape + (design.J,)))
            observed["rater_kappa_x"] = (("rater",), rater_cross_kappa(
                design, design.counts, design.label))
            pp_coords["rater"] = coords["rater"]
        groups["posterior_predictive"] = xr.Dataset(data_vars, coords=pp_coords)
        groups["observed_data"] = xr.Dataset(
            observed, coords={"rater": coords["rater"]} if "rater_kappa_x" in observed else {})
        post.idata.posterior.attrs["ppc_draws"] = int(selected.size)
    post.idata.add_groups(groups)
    return post


def _log_softmax(x: np.ndarray) -> np.ndarray:
    """log softmax over the last axis."""
    return x - _logsumexp(x)[..., None]


def log_simplex(pt, free):
    """log softmax([free, 0]) over the last axis (PyTensor): the log-probabilities of the
    simplex point whose additive log-ratio coordinates are ``free`` (log p_l − log p_K).

    Parameters
    ----------
    pt : module
        ``pytensor.tensor``.
    free : tensor
        (..., K − 1) unconstrained coordinates.

    Returns
    -------
    tensor
        (..., K) log-probabilities.

    Examples
    --------
    >>> import numpy as np, pytensor.tensor as pt
    >>> np.exp(log_simplex(pt, np.log([[2.0, 1.0]])).eval()).round(3).tolist()
    [[0.5, 0.25, 0.25]]
    """
    free = pt.as_tensor(free)
    zero = pt.zeros_like(free[..., :1])
    return pt.special.log_softmax(pt.concatenate([free, zero], axis=-1), axis=-1)


def numpy_log_simplex(free: np.ndarray) -> np.ndarray:
    """:func:`log_simplex` in numpy (the draws' log-probabilities).

    Parameters
    ----------
    free : numpy.ndarray
        (..., K − 1) coordinates.

    Returns
    -------
    numpy.ndarray
        (..., K) log-probabilities.

    Examples
    --------
    >>> np.exp(numpy_log_simplex(np.log([2.0, 1.0]))).round(3).tolist()
    [0.5, 0.25, 0.25]
    """
    free = np.asarray(free, dtype=np.float64)
    return _log_softmax(np.concatenate([free, np.zeros(free.shape[:-1] + (1,))], axis=-1))


def simplex_coordinates(p: np.ndarray) -> np.ndarray:
    """The additive log-ratio coordinates log p_l − log p_K of probabilities ``p`` (last
    axis): the inverse of :func:`numpy_log_simplex`.

    Parameters
    ----------
    p : numpy.ndarray
        (..., K) positive probabilities.

    Returns
    -------
    numpy.ndarray
        (..., K − 1).

    Examples
    --------
    >>> simplex_coordinates(np.array([0.5, 0.25, 0.25])).round(4).tolist()
    [0.6931, 0.0]
    """
    log = np.log(np.asarray(p, dtype=np.float64))
    return log[..., :-1] - log[..., -1:]


def row_embedding(K: int) -> np.ndarray:
    """E[k, m, l] = 1 when the m-th coordinate of row k is label l: row k's K − 1
    coordinates are the labels other than k, in order (the diagonal is the reference).

    Parameters
    ----------
    K : int
        The number of classes.

    Returns
    -------
    numpy.ndarray
        K × (K − 1) × K of 0 and 1.

    Examples
    --------
    >>> row_embedding(3)[1].astype(int).tolist()      # row 1: labels 0 and 2
    [[1, 0, 0], [0, 0, 1]]
    """
    out = np.zeros((K, K - 1, K))
    for k in range(K):
        labels = [label for label in range(K) if label != k]
        out[k, np.arange(K - 1), labels] = 1.0
    return out


def log_rows(pt, free, K: int):
    """log θ of confusion rows from their coordinates log θ[k, l] − log θ[k, k] (PyTensor).

    Each row's reference is its diagonal, the large and well-determined entry of an
    annotator better than chance, so that the row's coordinates are nearly independent on
    the posterior (with the last label as the reference, every coordinate of a row shares
    the uncertainty of one small entry, and NUTS needs longer trajectories).

    Parameters
    ----------
    pt : module
        ``pytensor.tensor``.
    free : tensor
        (..., K, K − 1) coordinates (:func:`row_embedding` gives their labels).
    K : int
        The number of classes.

    Returns
    -------
    tensor
        (..., K, K) log-probabilities, each row summing to 1.

    Examples
    --------
    >>> import numpy as np, pytensor.tensor as pt
    >>> free = np.log(np.array([[0.5], [0.5]]))              # off-diagonal half the diagonal
    >>> np.exp(log_rows(pt, free, 2).eval()).round(3).tolist()
    [[0.667, 0.333], [0.333, 0.667]]
    """
    logits = (pt.as_tensor(free)[..., None] * row_embedding(K)).sum(axis=-2)
    return pt.special.log_softmax(logits, axis=-1)


def numpy_log_rows(free: np.ndarray) -> np.ndarray:
    """:func:`log_rows` in numpy (the draws' log-probabilities).

    Parameters
    ----------
    free : numpy.ndarray
        (..., K, K − 1) coordinates.

    Returns
    -------
    numpy.ndarray
        (..., K, K) log-probabilities.

    Examples
    --------
    >>> np.exp(numpy_log_rows(np.log([[0.5], [0.5]]))).round(3).tolist()
    [[0.667, 0.333], [0.333, 0.667]]
    """
    free = np.asarray(free, dtype=np.float64)
    K = free.shape[-2]
    return _log_softmax(np.einsum("...km,kml->...kl", free, row_embedding(K)))


def row_coordinates(theta: np.ndarray) -> np.ndarray:
    """The coordinates log θ[k, l] − log θ[k, k] (l ≠ k) of confusion rows: the inverse of
    :func:`numpy_log_rows`.

    Parameters
    ----------
    theta : numpy.ndarray
        (..., K, K) positive rows.

    Returns
    -------
    numpy.ndarray
        (..., K, K − 1).

    Examples
    --------
    >>> row_coordinates(np.array([[0.8, 0.2], [0.4, 0.6]])).round(4).tolist()
    [[-1.3863], [-0.4055]]
    """
    log = np.log(np.asarray(theta, dtype=np.float64))
    K = log.shape[-1]
    diagonal = np.diagonal(log, axis1=-2, axis2=-1)[..., None]
    return np.einsum("...kl,kml->...km", log - diagonal, row_embedding(K))


def _logaddexp(pt, a, b):
    """log(eᵃ + eᵇ) without overflow (PyTensor): max(a, b) + log1p(exp(−|a − b|))."""
    return pt.maximum(a, b) + pt.log1p(pt.exp(-pt.abs(a - b)))


def mace_log_theta(pt, spam_logit, log_strategy, K: int):
    r"""log θ of MACE's confusion matrices (PyTensor), J × K × K.

    With s_j = logistic(x_j) the spam probability and ξ_j the strategy,
    θ_j[k, l] = (1 − s_j)·[l = k] + s_j ξ_jl: off the diagonal log s_j + log ξ_jl; on it
    logaddexp(log(1 − s_j), log s_j + log ξ_jk), both terms finite (log s = −softplus(−x),
    log(1 − s) = −softplus(x)), so that no log 0 is taken and the gradient stays finite.

    Parameters
    ----------
    pt : module
        ``pytensor.tensor``.
    spam_logit : tensor
        J logits x_j of the spam probabilities.
    log_strategy : tensor
        J × K log ξ_j.
    K : int
        The number of classes.

    Returns
    -------
    tensor
        J × K × K (annotator, true class, label).

    Examples
    --------
    >>> import numpy as np, pytensor.tensor as pt
    >>> out = mace_log_theta(pt, np.array([0.0]), np.log([[0.5, 0.5]]), 2).eval()
    >>> np.exp(out).round(3).tolist()                      # s = 1/2, ξ uniform
    [[[0.75, 0.25], [0.25, 0.75]]]
    """
    x = pt.as_tensor(spam_logit)
    log_strategy = pt.as_tensor(log_strategy)
    log_spam, log_honest = -pt.softplus(-x), -pt.softplus(x)
    spammed = log_spam[:, None] + log_strategy  # J × K: log s_j ξ_jl
    diagonal = _logaddexp(pt, log_honest[:, None], spammed)
    eye = np.eye(K, dtype=bool)
    return pt.switch(eye[None], diagonal[:, None, :], spammed[:, None, :])


def numpy_mace_log_theta(spam_logit: np.ndarray, log_strategy: np.ndarray) -> np.ndarray:
    """:func:`mace_log_theta` in numpy, for draws: (..., J) logits and (..., J, K) log ξ.

    Parameters
    ----------
    spam_logit : numpy.ndarray
        (..., J) logits of the spam probabilities.
    log_strategy : numpy.ndarray
        (..., J, K) log ξ.

    Returns
    -------
    numpy.ndarray
        (..., J, K, K).

    Examples
    --------
    >>> np.exp(numpy_mace_log_theta(np.array([0.0]), np.log([[0.5, 0.5]]))).tolist()
    [[[0.75, 0.25], [0.25, 0.75]]]
    """
    x = np.asarray(spam_logit, dtype=np.float64)
    log_strategy = np.asarray(log_strategy, dtype=np.float64)
    K = log_strategy.shape[-1]
    log_spam, log_honest = -np.logaddexp(0.0, -x), -np.logaddexp(0.0, x)
    spammed = log_spam[..., None] + log_strategy
    diagonal = np.logaddexp(log_honest[..., None], spammed)
    return np.where(np.eye(K, dtype=bool), diagonal[..., None, :], spammed[..., None, :])


def log_ndtr(pt, z):
    r"""log Φ(z) (PyTensor), accurate in both tails: for z < −1,
    log(erfcx(−z/√2)/2) − z²/2 (erfcx(x) = eˣ² erfc(x), no underflow); else
    log1p(−erfc(z/√2)/2). Each branch reads z clipped to its side, so that the branch not
    taken has a finite gradient (a switch multiplies it by 0, and 0 × ∞ is NaN).

    Parameters
    ----------
    pt : module
        ``pytensor.tensor``.
    z : tensor
        Finite values.

    Returns
    -------
    tensor
        log Φ(z), elementwise.

    Examples
    --------
    >>> import numpy as np, pytensor.tensor as pt
    >>> from scipy.special import log_ndtr as reference
    >>> z = np.array([-40.0, -1.5, 0.0, 3.0])
    >>> bool(np.allclose(log_ndtr(pt, z).eval(), reference(z), rtol=1e-12))
    True
    """
    z = pt.as_tensor(z)
    low, high = pt.minimum(z, -1.0), pt.maximum(z, -1.0)
    root2 = np.sqrt(2.0)
    return pt.switch(z < -1.0,
                     pt.log(pt.erfcx(-low / root2) / 2.0) - low * low / 2.0,
                     pt.log1p(-pt.erfc(high / root2) / 2.0))


def log_ndtr_difference(pt, a, b):
    r"""log(Φ(b) − Φ(a)) for a < b (PyTensor), without cancellation.

    When the cell lies mostly above 0 (a + b > 0) it is written with the upper tails,
    Φ(b) − Φ(a) = Φ(−a) − Φ(−b); then with lo < hi the two bounds,
    log(Φ(hi) − Φ(lo)) = log Φ(hi) + log1mexp(log Φ(lo) − log Φ(hi)), in which Φ(hi) ≤ ½
    or Φ(lo) is small: no difference of two numbers near 1 is taken.

    Parameters
    ----------
    pt : module
        ``pytensor.tensor``.
    a, b : tensor
        Finite bounds, a < b elementwise.

    Returns
    -------
    tensor
        log(Φ(b) − Φ(a)), elementwise.

    Examples
    --------
    >>> import numpy as np, pytensor.tensor as pt
    >>> from scipy.stats import norm
    >>> out = log_ndtr_difference(pt, np.array([-1.0, 9.0]), np.array([1.0, 10.0])).eval()
    >>> bool(np.allclose(out, [np.log(norm.cdf(1) - norm.cdf(-1)),
    ...                         np.log(norm.sf(9) - norm.sf(10))], rtol=1e-12))
    True
    """
    a, b = pt.as_tensor(a), pt.as_tensor(b)
    flip = (a + b) > 0
    lo, hi = pt.switch(flip, -b, a), pt.switch(flip, -a, b)
    log_hi = log_ndtr(pt, hi)
    return log_hi + pt.log1mexp(log_ndtr(pt, lo) - log_hi)


def numpy_log_ndtr_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`log_ndtr_difference` in numpy.

    Parameters
    ----------
    a, b : numpy.ndarray
        Finite bounds, a < b.

    Returns
    -------
    numpy.ndarray
        log(Φ(b) − Φ(a)).

    Examples
    --------
    >>> numpy_log_ndtr_difference(np.array([-1.0]), np.array([1.0])).round(6).tolist()
    [-0.381715]
    """
    from scipy.special import log_ndtr as scipy_log_ndtr

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    flip = (a + b) > 0
    lo, hi = np.where(flip, -b, a), np.where(flip, -a, b)
    log_hi = scipy_log_ndtr(hi)
    d = scipy_log_ndtr(lo) - log_hi  # ≤ 0
    with np.errstate(divide="ignore"):
        return log_hi + np.where(d > -np.log(2.0), np.log(-np.expm1(d)),
                                 np.log1p(-np.exp(d)))


def ordinal_thresholds(pt, threshold_free):
    """The ordered thresholds τ_j1 < … < τ_j,K−1 of their unconstrained coordinates
    (PyTensor): τ_1 = x_1, τ_m = τ_{m−1} + e^{x_m} (m ≥ 2), as
    :mod:`kappalab.annotators`' ordinal model writes them.

    Parameters
    ----------
    pt : module
        ``pytensor.tensor``.
    threshold_free : tensor
        J × (K − 1) coordinates.

    Returns
    -------
    tensor
        J × (K − 1) thresholds.

    Examples
    --------
    >>> import numpy as np, pytensor.tensor as pt
    >>> ordinal_thresholds(pt, np.array([[0.5, 0.0]])).eval().tolist()
    [[0.5, 1.5]]
    """
    x = pt.as_tensor(threshold_free)
    return pt.cumsum(pt.concatenate([x[:, :1], pt.exp(x[:, 1:])], axis=1), axis=1)


def numpy_ordinal_thresholds(threshold_free: np.ndarray) -> np.ndarray:
    """:func:`ordinal_thresholds` in numpy: (..., K − 1) coordinates to thresholds.

    Parameters
    ----------
    threshold_free : numpy.ndarray
        (..., K − 1).

    Returns
    -------
    numpy.ndarray
        (..., K − 1) ordered thresholds.

    Examples
    --------
    >>> numpy_ordinal_thresholds(np.array([0.5, 0.0])).tolist()
    [0.5, 1.5]
    """
    x = np.asarray(threshold_free, dtype=np.float64)
    return np.cumsum(np.concatenate([x[..., :1], np.exp(x[..., 1:])], axis=-1), axis=-1)


def ordinal_log_theta(pt, thresholds, noise, K: int):
    r"""log θ of the ordered-probit confusion matrices (PyTensor), J × K × K.

    With u_{jkm} = (τ_jm − k)/σ_j: log θ_j[k, 0] = log Φ(u_jk1),
    log θ_j[k, K − 1] = log Φ(−u_{jk,K−1}) and, between, log(Φ(u_{jk,l+1}) − Φ(u_{jkl}))
    (:func:`log_ndtr_difference`).

    Parameters
    ----------
    pt : module
        ``pytensor.tensor``.
    thresholds : tensor
        J × (K − 1) ordered thresholds τ.
    noise : tensor
        J scales σ.
    K : int
        The number of classes.

    Returns
    -------
    tensor
        J × K × K (annotator, true class, label).

    Examples
    --------
    >>> import numpy as np, pytensor.tensor as pt
    >>> out = ordinal_log_theta(pt, np.array([[0.5]]), np.array([1.0]), 2).eval()
    >>> np.exp(out).round(4).tolist()
    [[[0.6915, 0.3085], [0.3085, 0.6915]]]
    """
    tau, sigma = pt.as_tensor(thresholds), pt.as_tensor(noise)
    u = (tau[:, None, :] - np.arange(K, dtype=np.float64)[None, :, None]) / sigma[:, None, None]
    first = log_ndtr(pt, u[:, :, :1])
    last = log_ndtr(pt, -u[:, :, -1:])
    if K == 2:
        return pt.concatenate([first, last], axis=2)
    inner = log_ndtr_difference(pt, u[:, :, :-1], u[:, :, 1:])
    return pt.concatenate([first, inner, last], axis=2)


def numpy_ordinal_log_theta(thresholds: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """:func:`ordinal_log_theta` in numpy, for draws: (..., J, K − 1) thresholds and
    (..., J) scales.

    Parameters
    ----------
    thresholds : numpy.ndarray
        (..., J, K − 1) ordered thresholds.
    noise : numpy.ndarray
        (..., J) scales σ.

    Returns
    -------
    numpy.ndarray
        (..., J, K, K).

    Examples
    --------
    >>> out = numpy_ordinal_log_theta(np.array([[0.5]]), np.array([1.0]))
    >>> np.exp(out).round(4).tolist()
    [[[0.6915, 0.3085], [0.3085, 0.6915]]]
    """
    from scipy.special import log_ndtr as scipy_log_ndtr

    tau, sigma = np.asarray(thresholds, dtype=np.float64), np.asarray(noise, dtype=np.float64)
    K = tau.shape[-1] + 1
    u = (tau[..., None, :] - np.arange(K, dtype=np.float64)[:, None]) / sigma[..., None, None]
    parts = [scipy_log_ndtr(u[..., :1])]
    if K > 2:
        parts.append(numpy_log_ndtr_difference(u[..., :-1], u[..., 1:]))
    parts.append(scipy_log_ndtr(-u[..., -1:]))
    return np.concatenate(parts, axis=-1)


def dirichlet_logit_logp(pt, log_p, concentration):
    r"""log Dirichlet(a) density of p on its log-ratio coordinates x, up to a constant.

    x_m = log p_{l(m)} − log p_r for the labels l(m) other than a reference r
    (:func:`log_simplex`: the last; :func:`log_rows`: the diagonal). With the Jacobian of the
    map x ↦ p, Π_l p_l (whatever the reference), the density of x is ∝ Π_l p_l^{a_l}:
    Σ_l a_l log p_l (summed over every leading axis). The same posterior as a Dirichlet
    variable with PyMC's simplex transform, with a fraction of the operations (which cost
    more than the data in PyTensor's C backend, and in nutpie's numba compilation).

    Parameters
    ----------
    pt : module
        ``pytensor.tensor``.
    log_p : tensor
        (..., K) log-probabilities (:func:`log_simplex`, :func:`log_rows`).
    concentration : tensor
        (..., K) Dirichlet pseudo-counts a (broadcast against ``log_p``).

    Returns
    -------
    tensor
        The scalar log-density.

    Examples
    --------
    >>> import numpy as np, pytensor.tensor as pt
    >>> float(dirichlet_logit_logp(pt, np.log([0.5, 0.5]), np.array([2.0, 1.0])).eval())
    -2.0794415416798357
    """
    return (pt.as_tensor(concentration) * log_p).sum()


@dataclass(frozen=True)
class ModelSpec:
    """One model of annotation ready for :func:`~kappalab.bayes.compiled.fit_model`.

    Parameters
    ----------
    kind : str
        The model's name.
    build : callable
        ``build(pm, pt, Model)`` returns the PyMC model.
    data : dict
        Its ``pm.Data`` inputs, padded (the priors among them).
    keep : list of str
        The posterior variables to keep.
    graph : tuple
        K and the annotator bucket (what enters the graph besides the data).
    shape : tuple
        The data's shape buckets.

    Examples
    --------
    >>> spec = annotation_model("dawid_skene", annotation_design([[0, 1], [1, 1]],
    ...                                                        pooled=False))
    >>> spec.keep, spec.graph, sorted(spec.data)[:3]
    (['pi_logit', 'theta_logit'], (2, 4), ['code', 'item', 'mask'])
    """

    kind: str
    build: Callable
    data: dict
    keep: list
    graph: tuple
    shape: tuple


def model_priors(kind: str, design: AnnotationDesign, prior: Any) -> dict[str, np.ndarray]:
    """The validated priors of ``kind`` for ``design`` (defaults filled in), as arrays.

    Parameters
    ----------
    kind : {"dawid_skene", "hierarchical_dawid_skene", "multinomial", "mace", \
"ordinal_dawid_skene"}
        The model.
    design : AnnotationDesign
        The data (K, J).
    prior : mapping or None
        The user's ``prior=``.

    Returns
    -------
    dict
        ``prevalence`` (K) and ``confusion`` (J × K × K, or K × K for the pooled model); or
        ``prevalence``, ``zeta_mean``, ``zeta_sd``, ``omega_sd``; or (MACE) ``prevalence``,
        ``spam`` (J × 2) and ``strategy`` (J × K); or (ordinal) ``prevalence``,
        ``thresholds`` (the sd of the thresholds) and ``noise`` (median, sd of log σ).

    Raises
    ------
    InvalidParameterError
        An unknown key, or a value of the wrong sign or shape.

    Examples
    --------
    >>> d = annotation_design([[0, 1], [1, 1]], pooled=True)
    >>> model_priors("multinomial", d, {"prevalence": 2})["prevalence"].tolist()
    [2.0, 2.0]
    """
    keys = prior_with_defaults(prior, PRIORS[kind], kind)
    K = design.K
    out = {"prevalence": prevalence_prior(keys["prevalence"], K)}
    if kind == "hierarchical_dawid_skene":
        out["zeta_mean"] = zeta_mean_prior(keys["zeta_mean"], K)
        for name in ("zeta_sd", "omega_sd"):
            out[name] = np.asarray(check_real(keys[name], f"prior {name!r}", low=0.0,
                                              open_interval=True))
    elif kind == "mace":
        out["spam"] = spam_prior(keys["spam"], design.J)
        out["strategy"] = strategy_prior(keys["strategy"], K, design.J)
    elif kind == "ordinal_dawid_skene":
        out["thresholds"] = np.asarray(check_real(keys["thresholds"], "prior 'thresholds'",
                                                  low=0.0, open_interval=True))
        out["noise"] = noise_prior(keys["noise"])
    else:
        out["confusion"] = confusion_prior(keys["confusion"], K,
                                           None if design.pooled else design.J)
    return out


def _padded_rows(values: np.ndarray, default: np.ndarray, J_pad: int) -> np.ndarray:
    """Per-annotator prior rows ``values`` (J × ...) followed by ``default`` for the padding
    annotators (J_pad rows in all)."""
    out = np.broadcast_to(default, (J_pad,) + default.shape).copy()
    out[:values.shape[0]] = values
    return out


def annotation_model(kind: str, design: AnnotationDesign,
                     priors: Mapping[str, np.ndarray] | None = None) -> ModelSpec:
    """The PyMC model of ``kind`` for ``design``: its build function, padded data and
    signature.

    π and each row θ_j[k, ·] are sampled on their log-ratio coordinates
    (:func:`log_simplex`, :func:`log_rows`: log θ_j[k, l] − log θ_j[k, k]) with the
    Dirichlet prior's density on them (:func:`dirichlet_logit_logp`); the hierarchical
    model's rows are log-softmaxes of its logits; MACE's matrices come from the logits of
    the spam probabilities and the log-ratio coordinates of the strategies
    (:func:`mace_log_theta`), the ordinal model's from the unconstrained thresholds and
    log noise (:func:`ordinal_thresholds`, :func:`ordinal_log_theta`). The likelihood is
    :func:`annotation_loglik` (:func:`count_loglik` for the pooled model, on distinct count
    rows).

    Parameters
    ----------
    kind : {"dawid_skene", "hierarchical_dawid_skene", "multinomial", "mace", \
"ordinal_dawid_skene"}
        The model.
    design : AnnotationDesign
        The data (``pooled=True`` for ``"multinomial"``).
    priors : mapping, optional
        :func:`model_priors` (default: the default priors).

    Returns
    -------
    ModelSpec

    Examples
    --------
    >>> spec = annotation_model("multinomial", annotation_design([[0, 1], [1, 1]],
    ...                                                        pooled=True))
    >>> spec.keep, spec.shape
    (['pi_logit', 'theta_logit'], (4,))
    >>> spec = annotation_model("mace", annotation_design([[0, 1], [1, 1]], pooled=False))
    >>> spec.keep, sorted(spec.data)[-3:]
    (['pi_logit', 'spam_logit', 'strategy_logit'], ['prior_spam', 'prior_strategy', 'weight'])
    """
    if priors is None:
        priors = model_priors(kind, design, None)
    K = design.K
    hierarchical = kind == "hierarchical_dawid_skene"
    coords = {"class": list(range(K)), "class_logit": list(range(K - 1)),
              "true_class": list(range(K)), "label": list(range(K)),
              "label_logit": list(range(K - 1)), "threshold": list(range(K - 1))}
    default_rows = confusion_prior(DS_PRIOR["confusion"], K, None)
    if design.pooled:
        grouped = distinct_rows(np.column_stack([design.counts, design.gold]),
                                lexicographic=True)
        size = bucket(grouped.first.size)
        data = {"rows": pad(design.counts[grouped.first], size),
                "weight": pad(grouped.counts, size),
                "mask": pad(design.mask()[grouped.first], size),
                "prior_prevalence": priors["prevalence"],
                "prior_confusion": priors["confusion"]}
        graph: tuple = (K,)
        shape: tuple = (size,)
        matrix_dims: tuple = ("true_class", "label")
    else:
        J_pad = bucket(design.J)
        coords["rater"] = list(range(J_pad))
        data, shape = _model_data(design, J_pad)
        data["prior_prevalence"] = priors["prevalence"]
        # the padding annotators' draws are dropped, so their prior is the one easiest to
        # sample, a concentrated one (a prior-only Dirichlet(2, 1, …) row has exponential
        # tails on its coordinates, which made NUTS's trajectories ten times longer with 14
        # padding annotators among 64): the default prior's pseudo-counts times
        # PADDING_CONCENTRATION, or its standard deviations divided by its square root
        if hierarchical:
            data.update(prior_zeta_mean=priors["zeta_mean"],
                        prior_scales=np.array([float(priors["zeta_sd"]),
                                               float(priors["omega_sd"])]))
        elif kind == "mace":
            data["prior_spam"] = _padded_rows(
                priors["spam"], PADDING_CONCENTRATION * np.asarray(MACE_PRIOR["spam"]), J_pad)
            data["prior_strategy"] = _padded_rows(
                priors["strategy"], np.full(K, PADDING_CONCENTRATION * MACE_PRIOR["strategy"]),
                J_pad)
        elif kind == "ordinal_dawid_skene":
            narrow = 1.0 / np.sqrt(PADDING_CONCENTRATION)
            data["prior_threshold_sd"] = _padded_rows(
                np.full(design.J, float(priors["thresholds"])),
                np.asarray(ORDINAL_PRIOR["thresholds"] * narrow), J_pad)
            median, sd = priors["noise"]
            default_median, default_sd = ORDINAL_PRIOR["noise"]
            data["prior_noise"] = _padded_rows(
                np.tile([np.log(median), sd], (design.J, 1)),
                np.array([np.log(default_median), default_sd * narrow]), J_pad)
        else:
            rows = np.broadcast_to(PADDING_CONCENTRATION * default_rows, (J_pad, K, K)).copy()
            rows[:design.J] = priors["confusion"]
            data["prior_confusion"] = rows
        graph = (K, J_pad)
        matrix_dims = ("rater", "true_class", "label")
    logit_dims = matrix_dims[:-1] + ("label_logit",)
    # every chain starts where each annotator is better than chance: each off-diagonal entry
    # e^−2 of its row's diagonal, which the samplers' start jitter of ±1 per coordinate
    # cannot turn around (from the prior mean's ½, it could, and on Snow et al.'s WSD, whose
    # second class has 3 items, one chain of the pooled model swapped classes 2 and 3)
    start = np.full((K, K - 1), START_LOG_RATIO)
    midpoints = np.arange(1, K) - 0.5  # the prior means of the thresholds

    def build(pm, pt, Model):
        with Model(coords=coords) as model:
            shared = data_inputs(pm, data)
            pi_logit = pm.Flat("pi_logit", dims="class_logit")
            log_pi = log_simplex(pt, pi_logit)
            prior = dirichlet_logit_logp(pt, log_pi, shared["prior_prevalence"])
            if hierarchical:
                zeta = pm.Normal("zeta", mu=shared["prior_zeta_mean"],
                                 sigma=shared["prior_scales"][0], dims=matrix_dims[1:])
                omega = pm.HalfNormal("omega", sigma=shared["prior_scales"][1],
                                      dims=matrix_dims[1:])
                z = pm.Normal("z", 0.0, 1.0, dims=matrix_dims)
                log_theta = pt.special.log_softmax(zeta[None] + omega[None] * z, axis=-1)
            elif kind == "mace":
                # Beta(a, b) on s = logistic(x), with the Jacobian s(1 − s): s^a (1 − s)^b
                spam_logit = pm.Flat("spam_logit", dims="rater",
                                     initval=np.full(J_pad, np.log(0.25 / 0.75)))
                strategy_logit = pm.Flat("strategy_logit", dims=("rater", "label_logit"))
                log_strategy = log_simplex(pt, strategy_logit)
                ab = shared["prior_spam"]
                prior = (prior + (ab[:, 0] * -pt.softplus(-spam_logit)
                                  + ab[:, 1] * -pt.softplus(spam_logit)).sum()
                         + dirichlet_logit_logp(pt, log_strategy, shared["prior_strategy"]))
                log_theta = mace_log_theta(pt, spam_logit, log_strategy, K)
            elif kind == "ordinal_dawid_skene":
                free = pm.Flat("threshold_free", dims=("rater", "threshold"),
                               initval=np.tile(np.r_[0.5, np.zeros(K - 2)], (J_pad, 1)))
                log_noise = pm.Flat("log_noise", dims="rater",
                                    initval=np.full(J_pad, np.log(0.5)))
                tau = ordinal_thresholds(pt, free)
                sd, noise = shared["prior_threshold_sd"], shared["prior_noise"]
                # τ_jm ~ Normal(m − ½, sd) restricted to τ_j1 < … (the Jacobian of
                # x ↦ τ is Π_{m≥2} e^{x_m}); log σ_j ~ Normal(log median, sd)
                prior = (prior - 0.5 * (((tau - midpoints) / sd[:, None]) ** 2).sum()
                         + free[:, 1:].sum()
                         - 0.5 * (((log_noise - noise[:, 0]) / noise[:, 1]) ** 2).sum())
                log_theta = ordinal_log_theta(pt, tau, pt.exp(log_noise), K)
            else:
                theta_logit = pm.Flat("theta_logit", dims=logit_dims, initval=np.broadcast_to(
                    start, tuple(len(coords[d]) for d in logit_dims)))
                log_theta = log_rows(pt, theta_logit, K)
                prior = prior + dirichlet_logit_logp(pt, log_theta, shared["prior_confusion"])
            pm.Potential("prior", prior)
            if design.pooled:
                loglik = count_loglik(pt, shared["rows"], shared["weight"], shared["mask"],
                                      log_pi, log_theta, K)
            else:
                loglik = annotation_loglik(pt, shared["item"], shared["code"],
                                           shared["weight"], shared["mask"], log_pi,
                                           log_theta, K)
            pm.Potential("loglik", loglik)
        return model

    keep = {"hierarchical_dawid_skene": ["pi_logit", "zeta", "omega", "z"],
            "mace": ["pi_logit", "spam_logit", "strategy_logit"],
            "ordinal_dawid_skene": ["pi_logit", "threshold_free", "log_noise"]}.get(
                kind, ["pi_logit", "theta_logit"])
    return ModelSpec(kind, build, data, keep, graph, shape)


def posterior_draws(kind: str, posterior, J: int) -> dict[str, np.ndarray]:
    """The draws of log π and log θ (S × K, S × J × K × K; J = 1 for the pooled model) and
    of each model's own parameters, from a posterior of :func:`annotation_model`'s
    variables (the padding annotators left out).

    Parameters
    ----------
    kind : str
        The model.
    posterior : xarray.Dataset
        The sampler's posterior (the variables of ``ModelSpec.keep``).
    J : int
        The number of annotators (1 for the pooled model).

    Returns
    -------
    dict
        ``log_pi``, ``log_theta``, and for the hierarchical model ``zeta``, ``omega`` and
        ``log_theta_population``; for MACE ``spam`` (S × J) and ``strategy`` (S × J × K);
        for the ordinal model ``thresholds`` (S × J × (K − 1)) and ``noise`` (S × J).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> post = xr.Dataset({"pi_logit": (("chain", "draw", "class_logit"), np.zeros((1, 1, 1))),
    ...                    "theta_logit": (("chain", "draw", "true_class", "label_logit"),
    ...                                    np.zeros((1, 1, 2, 1)))})
    >>> np.exp(posterior_draws("multinomial", post, 1)["log_theta"]).tolist()
    [[[[0.5, 0.5], [0.5, 0.5]]]]
    """
    out = {"log_pi": numpy_log_simplex(flat(posterior, "pi_logit"))}
    if kind == "hierarchical_dawid_skene":
        zeta, omega = flat(posterior, "zeta"), flat(posterior, "omega")
        z = flat(posterior, "z")[:, :J]
        out.update(zeta=zeta, omega=omega, log_theta_population=_log_softmax(zeta),
                   log_theta=_log_softmax(zeta[:, None] + omega[:, None] * z))
    elif kind == "mace":
        x = flat(posterior, "spam_logit")[:, :J]
        log_strategy = numpy_log_simplex(flat(posterior, "strategy_logit")[:, :J])
        out.update(spam=np.exp(-np.logaddexp(0.0, -x)), strategy=np.exp(log_strategy),
                   log_theta=numpy_mace_log_theta(x, log_strategy))
    elif kind == "ordinal_dawid_skene":
        tau = numpy_ordinal_thresholds(flat(posterior, "threshold_free")[:, :J])
        noise = np.exp(flat(posterior, "log_noise")[:, :J])
        out.update(thresholds=tau, noise=noise, log_theta=numpy_ordinal_log_theta(tau, noise))
    else:
        log_theta = numpy_log_rows(flat(posterior, "theta_logit"))
        out["log_theta"] = log_theta[:, None] if kind == "multinomial" else log_theta[:, :J]
    return out


def _fit(kind: str, data: Any, gold: Any, prior: Any, options: SamplingOptions) -> Posterior:
    """Sample a model of annotation and assemble its Posterior."""
    pooled = kind == "multinomial"
    design = annotation_design(data, gold=gold, pooled=pooled, purpose=f"the {kind} model")
    priors = model_priors(kind, design, prior)
    spec = annotation_model(kind, design, priors)
    # the priors are data inputs: one compiled model serves every prior (no prior in the key)
    sampled, stats = fit_model(kind, {}, spec.build, spec.data, options, spec.keep,
                               graph=spec.graph, shape=spec.shape)
    draws = posterior_draws(kind, sampled, design.J)
    pi, theta = np.exp(draws["log_pi"]), np.exp(draws["log_theta"])
    posterior = _empty_posterior({"chain": sampled["chain"].values,
                                  "draw": sampled["draw"].values}, sampled.attrs)
    accuracy = np.einsum("sk,sjkk->sj", pi, theta)
    derived: dict[str, np.ndarray] = {"pi": pi}
    dims: dict[str, tuple] = {"pi": ("class",)}
    if pooled:
        derived.update(theta=theta[:, 0], accuracy=accuracy[:, 0])
        dims.update(theta=("true_class", "label"))
    else:
        derived.update(theta=theta, accuracy=accuracy)
        dims.update(theta=("rater", "true_class", "label"), accuracy=("rater",))
    if kind == "hierarchical_dawid_skene":
        population = np.exp(draws["log_theta_population"])
        derived.update(zeta=draws["zeta"], omega=draws["omega"], theta_population=population,
                       population_accuracy=np.einsum("sk,skk->s", pi, population))
        dims.update(zeta=("true_class", "label"), omega=("true_class", "label"),
                    theta_population=("true_class", "label"))
    elif kind == "mace":
        derived.update(spam=draws["spam"], strategy=draws["strategy"])
        dims.update(spam=("rater",), strategy=("rater", "label"))
    elif kind == "ordinal_dawid_skene":
        derived.update(thresholds=draws["thresholds"], noise=draws["noise"])
        dims.update(thresholds=("rater", "threshold"), noise=("rater",))
    return _finish(kind, posterior, stats, options, design, draws["log_pi"], draws["log_theta"],
                   derived=derived, derived_dims=dims, priors=priors,
                   headline=("accuracy",) if pooled else ("pi",))


def _empty_posterior(base: Mapping[str, np.ndarray], attrs: Mapping[str, Any]):
    """An empty posterior Dataset with the chain and draw coordinates of ``base``."""
    import xarray as xr

    return xr.Dataset(coords=dict(base), attrs=dict(attrs))


# ====================================================================== the models
def dawid_skene(data: AnnotationsLike, *, gold: Any = None,
                prior: Mapping[str, Any] | None = None, draws: int = 1000, tune: int = 1000,
                chains: int = 2, seed: SeedLike = None, sampler: str = "pymc") -> Posterior:
    r"""The Bayesian Dawid–Skene model: one confusion matrix per annotator, classes summed out.

    .. math::  π \sim \operatorname{Dirichlet}(a), \qquad
               θ_j[k, ·] \sim \operatorname{Dirichlet}(β_k), \qquad
               \log p(y_i) = \operatorname{logsumexp}_k \Big[\log π_k
               + \sum_{(j, l) \in y_i} \log θ_j[k, l]\Big]

    (module docstring). The EM fit of the same likelihood is
    :func:`kappalab.annotators.dawid_skene`; on large data the posterior means are close to
    its estimates.

    **The priors.** π ~ Dirichlet(1, …, 1), uniform on the simplex. Each row θ_j[k, ·] ~
    Dirichlet(β_k) with β_kk = 2 and β_kl = 1 (l ≠ k). Paun et al. (2018) give the rows a
    weakly informative Dirichlet prior that favours the diagonal; these pseudo-counts are
    kappalab's choice of one. Its density is ∝ θ_j[k, k] — one pseudo-annotation of the
    right class added to the uniform prior — so it rules out no confusion matrix and, were
    the classes known, would move a row estimated from n annotations by at most
    (K + 1)/(n + K + 1); but a priori θ_j[k, k] ~ Beta(2, K − 1), of mean 2/(K + 1), above
    chance (1/K) (for K = 3: mean 0.5, 90% between 0.14 and 0.87), which breaks the symmetry
    of the likelihood under a relabelling of the classes (which the uniform prior leaves
    with K! equal modes): the posterior is that of annotators better than chance. With few
    items per annotator the posterior can still keep a relabelled mode;
    R̂ then flags the chains that found it (:class:`~kappalab.bayes.SamplingWarning`).

    Parameters
    ----------
    data : Annotations, DataFrame or array-like
        Anything :func:`~kappalab.annotations.as_annotations` reads (wide items × annotators,
        long item/rater/value, Annotations); the annotators must be known. Every category of
        the Annotations is a class, also one nobody used.
    gold : mapping or pandas.Series, optional
        Item → class for the items whose class is known (semi-supervised): their class is
        observed, their term of the likelihood log π_c + Σ log θ_j[c, l] for their class c.
    prior : dict, optional
        Any of ``"prevalence"``: a Dirichlet pseudo-count c for every class or K of them
        (default 1); ``"confusion"``: the Dirichlet pseudo-counts of the rows, a pair
        (diagonal, off-diagonal) (default (2, 1)), a K × K matrix (row k: β_k, for every
        annotator) or J × K × K (one per annotator, in the order of the data's raters) —
        e.g. the counts of earlier work, ``1 + n_annotations_kl``.
    draws, tune, chains : int
        Posterior draws and tuning steps per chain, number of chains.
    seed : int, None or numpy.random.Generator
        An int reproduces the draws and the predictive check exactly.
    sampler : {"pymc", "nutpie"}
        PyMC's NUTS, or nutpie's (compiled once per model and process; quicker per fit).

    Returns
    -------
    Posterior
        Variables ``pi`` (dim ``class``), ``theta`` (dims ``rater``, ``true_class``,
        ``label``) and ``accuracy`` (dim ``rater``: Σ_k π_k θ_j[k, k], the probability that
        annotator j gives the true class of a random item). ``idata`` also holds the item
        log-likelihoods (``log_likelihood["items"]``, for ``arviz.loo`` and
        ``arviz.compare``), the item posteriors (:func:`item_posterior`,
        :func:`item_labels`) and the predictive check of α (``post.ppc_pvalue("alpha")``)
        and of each annotator's agreement (:func:`rater_ppc_pvalues`).

    Raises
    ------
    UnknownRatersError
        Data without annotator identities (a counts table): :func:`multinomial` needs none.
    EmptyDataError
        No annotations, or fewer than 2 classes.
    InvalidParameterError
        A bad ``gold`` (an item or class not in the data), ``prior`` or sampling option.

    References
    ----------
    Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer
    error-rates using the EM algorithm. *Journal of the Royal Statistical Society C* 28(1),
    20–28. doi:10.2307/2346806. Passonneau, R. J., & Carpenter, B. (2014). The benefits of
    a model of annotation. *Transactions of the ACL* 2, 311–326. doi:10.1162/tacl_a_00185.
    Paun, S., Carpenter, B., Chamberlain, J., Hovy, D., Kruschwitz, U., & Poesio, M. (2018).
    Comparing Bayesian models of annotation. *Transactions of the ACL* 6, 571–585.
    doi:10.1162/tacl_a_00040

    Examples
    --------
    >>> from kappalab import bayes, simulate
    >>> ann, truth = simulate.dawid_skene_annotations(500, n_raters=6, annotations_per_item=3,
    ...                                               seed=0)
    >>> post = bayes.dawid_skene(ann, seed=1)                        # doctest: +SKIP
    >>> post.mean("accuracy").round(2)                               # doctest: +SKIP
    >>> bayes.item_labels(post).head()                               # doctest: +SKIP
    >>> post.ppc_pvalue("alpha")                                     # doctest: +SKIP
    """
    options = SamplingOptions(draws, tune, chains, seed, sampler)
    return _fit("dawid_skene", data, gold, prior, options)


def hierarchical_dawid_skene(data: AnnotationsLike, *, gold: Any = None,
                             prior: Mapping[str, Any] | None = None, draws: int = 1000,
                             tune: int = 1000, chains: int = 2, seed: SeedLike = None,
                             sampler: str = "pymc") -> Posterior:
    r"""The hierarchical Dawid–Skene model: annotators' confusion matrices partially pooled.

    Paun et al.'s (2018) HierDawidSkene. The rows of each annotator's matrix are a softmax of
    logits drawn around a population matrix, written non-centred:

    .. math::  θ_j[k, ·] = \operatorname{softmax}(ζ_k + Ω_k ⊙ z_{jk}), \qquad
               z_{jkl} \sim N(0, 1), \qquad ζ_{kl} \sim N(μ_{kl}, σ_ζ), \qquad
               Ω_{kl} \sim \operatorname{HalfNormal}(σ_Ω),

    with π ~ Dirichlet(1) and the classes summed out as in :func:`dawid_skene`. An
    annotator with few annotations is pulled towards the population matrix softmax(ζ_k);
    one with many keeps its own.

    **The priors.** μ_kk = 2 and μ_kl = 0 (l ≠ k), σ_ζ = 1, σ_Ω = 1: the population
    logits favour the diagonal — a priori the population accuracy softmax(ζ_k)_k has median
    0.75 for K = 3 (90% between 0.27 and 0.96) and 0.57 for K = 5 (0.17–0.90) — which
    breaks the relabelling symmetry as the Dirichlet prior of :func:`dawid_skene` does;
    the annotators' spread Ω of about one logit allows accuracies from near chance to near
    1 around the same population. The non-centred form keeps NUTS free of the funnel between Ω
    and the annotators' logits when annotators have few annotations.

    Parameters
    ----------
    data : Annotations, DataFrame or array-like
        As :func:`dawid_skene` (the annotators must be known).
    gold : mapping or pandas.Series, optional
        Item → class for the items whose class is known, as :func:`dawid_skene`.
    prior : dict, optional
        Any of ``"prevalence"`` (as :func:`dawid_skene`, default 1), ``"zeta_mean"`` (the
        diagonal of μ, off-diagonal 0, default 2, or a K × K matrix of means — e.g. the
        logits of an earlier population matrix), ``"zeta_sd"`` (σ_ζ, default 1),
        ``"omega_sd"`` (σ_Ω, default 1).
    draws, tune, chains : int
        Posterior draws and tuning steps per chain, number of chains.
    seed : int, None or numpy.random.Generator
        An int reproduces the draws and the predictive check exactly.
    sampler : {"pymc", "nutpie"}
        PyMC's NUTS, or nutpie's.

    Returns
    -------
    Posterior
        Variables ``pi``, ``theta``, ``accuracy`` as :func:`dawid_skene`, and the population:
        ``zeta`` and ``omega`` (dims ``true_class``, ``label``), ``theta_population`` =
        softmax(ζ_k) (the confusion matrix of a typical annotator) and
        ``population_accuracy`` = Σ_k π_k softmax(ζ_k)_k. ``idata`` also holds the item
        log-likelihoods, the item posteriors and the predictive checks, as
        :func:`dawid_skene`.

    Raises
    ------
    UnknownRatersError
        Data without annotator identities.
    EmptyDataError
        No annotations, or fewer than 2 classes.
    InvalidParameterError
        A bad ``gold``, ``prior`` or sampling option.

    References
    ----------
    Paun, S., Carpenter, B., Chamberlain, J., Hovy, D., Kruschwitz, U., & Poesio, M. (2018).
    Comparing Bayesian models of annotation. *Transactions of the ACL* 6, 571–585.
    doi:10.1162/tacl_a_00040. Dawid, A. P., & Skene, A. M. (1979). *Journal of the Royal
    Statistical Society C* 28(1), 20–28. doi:10.2307/2346806

    Examples
    --------
    >>> from kappalab import bayes, simulate
    >>> ann, truth = simulate.dawid_skene_annotations(500, n_raters=6, annotations_per_item=3,
    ...                                               seed=0)
    >>> post = bayes.hierarchical_dawid_skene(ann, seed=1)           # doctest: +SKIP
    >>> post.mean("theta_population").round(2)                       # doctest: +SKIP
    """
    options = SamplingOptions(draws, tune, chains, seed, sampler)
    return _fit("hierarchical_dawid_skene", data, gold, prior, options)


def multinomial(data: AnnotationsLike, *, gold: Any = None,
                prior: Mapping[str, Any] | None = None, draws: int = 1000, tune: int = 1000,
                chains: int = 2, seed: SeedLike = None, sampler: str = "pymc") -> Posterior:
    r"""The pooled (multinomial) model: one confusion matrix for every annotation.

    Paun et al.'s (2018) "Multinomial": θ[k, l] = P(a label l | true class k) shared by all
    annotators,

    .. math::  π \sim \operatorname{Dirichlet}(a), \qquad θ[k, ·] \sim
               \operatorname{Dirichlet}(β_k), \qquad
               \log p(n_i) = \operatorname{logsumexp}_k \Big[\log π_k
               + \sum_l n_{il} \log θ[k, l]\Big],

    with n_i the item's label counts (no multinomial coefficient: the same labels are scored
    as by :func:`dawid_skene`, so that their LOO compares). It needs no annotator
    identities, so it also reads a counts table; items with the same counts (and gold
    class) are grouped. Priors as :func:`dawid_skene`: π ~ Dirichlet(1), rows
    Dirichlet(2 on the diagonal, 1 elsewhere).

    Parameters
    ----------
    data : Annotations, DataFrame or array-like
        Anything :func:`~kappalab.annotations.as_annotations` reads, counts tables too
        (``Annotations.from_counts``); annotator identities are not used.
    gold : mapping or pandas.Series, optional
        Item → class for the items whose class is known, as :func:`dawid_skene`.
    prior : dict, optional
        Any of ``"prevalence"`` (default 1) and ``"confusion"`` (a pair (diagonal,
        off-diagonal), default (2, 1), or a K × K matrix of pseudo-counts).
    draws, tune, chains : int
        Posterior draws and tuning steps per chain, number of chains.
    seed : int, None or numpy.random.Generator
        An int reproduces the draws and the predictive check exactly.
    sampler : {"pymc", "nutpie"}
        PyMC's NUTS, or nutpie's.

    Returns
    -------
    Posterior
        Variables ``pi`` (dim ``class``), ``theta`` (dims ``true_class``, ``label``) and
        ``accuracy`` (Σ_k π_k θ[k, k]); item log-likelihoods, item posteriors and the
        predictive check of α as :func:`dawid_skene` (no per-annotator check).

    Raises
    ------
    EmptyDataError
        No annotations, or fewer than 2 classes.
    InvalidParameterError
        A bad ``gold``, ``prior`` or sampling option.

    References
    ----------
    Paun, S., Carpenter, B., Chamberlain, J., Hovy, D., Kruschwitz, U., & Poesio, M. (2018).
    Comparing Bayesian models of annotation. *Transactions of the ACL* 6, 571–585.
    doi:10.1162/tacl_a_00040

    Examples
    --------
    >>> import kappalab as kl
    >>> from kappalab import bayes
    >>> counts = kl.Annotations.from_counts([[3, 0], [0, 3], [2, 1], [1, 2]] * 25)
    >>> post = bayes.multinomial(counts, seed=1)                     # doctest: +SKIP
    >>> post.mean("theta").round(2)                                  # doctest: +SKIP
    """
    options = SamplingOptions(draws, tune, chains, seed, sampler)
    return _fit("multinomial", data, gold, prior, options)


def mace(data: AnnotationsLike, *, gold: Any = None, prior: Mapping[str, Any] | None = None,
         draws: int = 1000, tune: int = 1000, chains: int = 2, seed: SeedLike = None,
         sampler: str = "pymc") -> Posterior:
    r"""Bayesian MACE: each annotator spams with a probability, else gives the true class.

    Hovy et al.'s (2013) Multi-Annotator Competence Estimation. Annotator j spams an
    annotation with probability s_j, and then draws its label from its own *strategy* ξ_j
    whatever the class; otherwise it gives the true class. Its confusion matrix is

    .. math::  θ_j[k, l] = (1 − s_j)\,[l = k] + s_j\,ξ_{jl}, \qquad
               s_j \sim \operatorname{Beta}(a, b), \qquad
               ξ_j \sim \operatorname{Dirichlet}(c), \qquad
               π \sim \operatorname{Dirichlet}(1),

    K parameters per annotator instead of Dawid–Skene's K(K − 1), so a spammer (s_j near
    1) is told from a biased but honest annotator with fewer annotations. The classes are
    summed out as in :func:`dawid_skene` (module docstring), with log θ computed as
    logaddexp(log(1 − s_j), log s_j + log ξ_jk) on the diagonal (``mace_log_theta``).
    The EM fit is :func:`kappalab.annotators.mace` (its competence c_j is 1 − s_j); unlike
    it, and like the Bayesian :func:`dawid_skene`, the prevalences π are estimated (Hovy et
    al. fix them uniform; ``prior={"prevalence": 1e6}`` comes close to that).

    **The priors.** s_j ~ Beta(2, 2) and ξ_j ~ Dirichlet(2, …, 2). Hovy et al.'s
    variational version takes symmetric priors with pseudo-counts below 1, which push s_j
    and ξ_j to the edges of their ranges; for NUTS, which samples s_j on the logit scale
    (density ∝ s^a (1 − s)^b there), a pseudo-count below 1 leaves a heavy tail, and an
    annotator who never spams has a likelihood flat as s_j → 0, its posterior then that
    tail. Beta(2, 2) has zero density at exactly 0 and 1, so the posterior of s_j stays
    inside (0, 1) with tails e^{−2|x|} on the logit scale; it is symmetric (a spammer is
    a priori as likely as not) and weak, two pseudo-annotations each way, so that 50
    annotations of an annotator move its posterior mean of s_j within about 0.04 of theirs.
    The strategy of an annotator who seldom spams is hardly informed by its data; its
    Dirichlet(2) prior keeps it near uniform with light tails (and the strategies of
    spammers with dozens of annotations are moved by a couple of pseudo-counts only).

    Parameters
    ----------
    data : Annotations, DataFrame or array-like
        As :func:`dawid_skene` (the annotators must be known).
    gold : mapping or pandas.Series, optional
        Item → class for the items whose class is known, as :func:`dawid_skene`.
    prior : dict, optional
        Any of ``"prevalence"`` (as :func:`dawid_skene`, default 1), ``"spam"`` (the Beta
        parameters (a, b) of every s_j, default (2, 2), or J × 2, one pair per annotator in
        the order of the data's raters) and ``"strategy"`` (the Dirichlet pseudo-counts of
        every ξ_j: one number, default 2, K numbers, or J × K).
    draws, tune, chains : int
        Posterior draws and tuning steps per chain, number of chains.
    seed : int, None or numpy.random.Generator
        An int reproduces the draws and the predictive check exactly.
    sampler : {"pymc", "nutpie"}
        PyMC's NUTS, or nutpie's.

    Returns
    -------
    Posterior
        Variables ``spam`` (dim ``rater``: s_j), ``strategy`` (dims ``rater``, ``label``:
        ξ_j), and ``pi``, ``theta`` (the confusion matrices above) and ``accuracy`` as
        :func:`dawid_skene`. ``idata`` also holds the item log-likelihoods, the item
        posteriors and the predictive checks, as :func:`dawid_skene`.

    Raises
    ------
    UnknownRatersError
        Data without annotator identities.
    EmptyDataError
        No annotations, or fewer than 2 classes.
    InvalidParameterError
        A bad ``gold``, ``prior`` or sampling option.

    References
    ----------
    Hovy, D., Berg-Kirkpatrick, T., Vaswani, A., & Hovy, E. (2013). Learning whom to trust
    with MACE. *Proceedings of NAACL-HLT 2013*, 1120–1130. https://aclanthology.org/N13-1132.
    Paun, S., Carpenter, B., Chamberlain, J., Hovy, D., Kruschwitz, U., & Poesio, M. (2018).
    Comparing Bayesian models of annotation. *Transactions of the ACL* 6, 571–585.
    doi:10.1162/tacl_a_00040

    Examples
    --------
    >>> from kappalab import bayes, simulate
    >>> ann, truth = simulate.dawid_skene_annotations(300, n_raters=5, annotations_per_item=3,
    ...                                               spammers=0.4, seed=0)
    >>> post = bayes.mace(ann, seed=1)                               # doctest: +SKIP
    >>> post.mean("spam").round(2)            # high for truth.spammers # doctest: +SKIP
    >>> bayes.item_labels(post).head()                               # doctest: +SKIP
    """
    options = SamplingOptions(draws, tune, chains, seed, sampler)
    return _fit("mace", data, gold, prior, options)


def ordinal_dawid_skene(data: AnnotationsLike, *, gold: Any = None,
                        prior: Mapping[str, Any] | None = None, draws: int = 1000,
                        tune: int = 1000, chains: int = 2, seed: SeedLike = None,
                        sampler: str = "pymc") -> Posterior:
    r"""Bayesian Dawid–Skene for ordered classes: ordered-probit confusion matrices.

    The model of :func:`kappalab.annotators.ordinal_dawid_skene`, with priors. Item i of true
    class k (the classes in the order of the categories, k = 0 … K − 1) gives annotator j a
    latent score k + σ_j ε, ε ~ Normal(0, 1), which the annotator cuts at its ordered
    thresholds τ_j1 < … < τ_j,K−1:

    .. math::  θ_j[k, l] = Φ\Big(\frac{τ_{j,l+1} − k}{σ_j}\Big)
                          − Φ\Big(\frac{τ_{j,l} − k}{σ_j}\Big),
               \qquad τ_{j,0} = −∞,\ τ_{j,K} = +∞,

    and the classes are summed out as in :func:`dawid_skene`. σ_j is the annotator's noise;
    thresholds shifted from the midpoints k + ½ are its bias (lenient or severe). The
    thresholds are sampled on the EM's unconstrained coordinates, τ_j1 = x_j1,
    τ_jm = τ_j,m−1 + exp(x_jm), and σ_j on log σ_j; each cell's log-probability is computed
    without cancellation (``ordinal_log_theta``: log Φ by erfcx in the lower tail, the
    upper tails for a cell above 0). With the prior's influence gone (large data), the
    posterior means are close to the EM estimates.

    **The priors.** π ~ Dirichlet(1); τ_jm ~ Normal(m − ½, 1) independently, restricted to
    ordered thresholds: centred on the midpoints between the classes (an unbiased
    annotator), a bias of a whole class one standard deviation away;
    σ_j ~ LogNormal(log 0.5, 1): median 0.5 (an annotator who gives a middle class right
    68% of the time, P(\|ε\| < ½σ⁻¹)), 90% between 0.1 (nearly perfect) and 2.6 (nearly
    uninformative). The class spacing of 1 on the latent scale identifies the model, so
    the prior need not break a relabelling symmetry; it keeps σ_j and the thresholds of an
    annotator with few annotations, or one whose labels never reach a class, finite.

    Parameters
    ----------
    data : Annotations, DataFrame or array-like
        As :func:`dawid_skene` (the annotators must be known); the categories' order is the
        classes' order.
    gold : mapping or pandas.Series, optional
        Item → class for the items whose class is known, as :func:`dawid_skene`.
    prior : dict, optional
        Any of ``"prevalence"`` (as :func:`dawid_skene`, default 1), ``"thresholds"`` (the
        standard deviation of the thresholds around the midpoints, default 1) and
        ``"noise"`` (a pair: the median of σ_j and the standard deviation of log σ_j,
        default (0.5, 1)).
    draws, tune, chains : int
        Posterior draws and tuning steps per chain, number of chains.
    seed : int, None or numpy.random.Generator
        An int reproduces the draws and the predictive check exactly.
    sampler : {"pymc", "nutpie"}
        PyMC's NUTS, or nutpie's.

    Returns
    -------
    Posterior
        Variables ``thresholds`` (dims ``rater``, ``threshold``: τ_j, the thresholds named
        ``"a|b"`` after the classes they separate), ``noise`` (dim ``rater``: σ_j), and
        ``pi``, ``theta`` and ``accuracy`` as :func:`dawid_skene`. ``idata`` also holds the
        item log-likelihoods, the item posteriors and the predictive checks, as
        :func:`dawid_skene`.

    Raises
    ------
    UnknownRatersError
        Data without annotator identities.
    EmptyDataError
        No annotations, or fewer than 2 classes.
    InvalidParameterError
        A bad ``gold``, ``prior`` or sampling option.

    References
    ----------
    Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer
    error-rates using the EM algorithm. *Journal of the Royal Statistical Society C* 28(1),
    20–28. doi:10.2307/2346806. Johnson, V. E., & Albert, J. H. (1999). *Ordinal Data
    Modeling*. Springer, ch. 4 (ordinal probit models of rater data with rater-specific
    thresholds).

    Examples
    --------
    >>> from kappalab import bayes
    >>> data = [[0, 1, 1], [1, 1, 2], [2, 2, 2], [0, 0, 1], [2, 1, 2], [0, 0, 0]] * 20
    >>> post = bayes.ordinal_dawid_skene(data, seed=1)               # doctest: +SKIP
    >>> post.mean("thresholds").round(2), post.mean("noise").round(2)  # doctest: +SKIP
    """
    options = SamplingOptions(draws, tune, chains, seed, sampler)
    return _fit("ordinal_dawid_skene", data, gold, prior, options)


# ====================================================================== reading the result
def _item_group(post: Posterior):
    group = getattr(post.idata, "item_posterior", None)
    if group is None:
        raise InvalidParameterError(
            f"{post.model} has no item posteriors: they come with the models of annotation "
            "(bayes.dawid_skene, bayes.hierarchical_dawid_skene, bayes.multinomial, "
            "bayes.mace, bayes.ordinal_dawid_skene)")
    return group


def item_posterior(post: Posterior) -> pd.DataFrame:
    """P(true class | data) of every item, averaged over the posterior draws: items × classes.

    An item without annotations (and no gold class) has the posterior mean of π; a gold item
    has its class with probability 1.

    Parameters
    ----------
    post : Posterior
        A fit of :func:`dawid_skene`, :func:`hierarchical_dawid_skene`, :func:`multinomial`,
        :func:`mace` or :func:`ordinal_dawid_skene`.

    Returns
    -------
    pandas.DataFrame
        Rows the items (in the data's order), columns the classes; each row sums to 1.

    Raises
    ------
    InvalidParameterError
        ``post`` is not a fit of a model of annotation.

    Examples
    --------
    >>> import numpy as np, arviz as az, xarray as xr
    >>> from kappalab.bayes import Posterior
    >>> idata = az.from_dict(posterior={"pi": np.full((1, 4, 2), 0.5)})
    >>> idata.add_groups(item_posterior=xr.Dataset(
    ...     {"probability": (("item", "class"), [[0.9, 0.1], [0.2, 0.8]])},
    ...     coords={"item": ["a", "b"], "class": [0, 1]}))
    >>> item_posterior(Posterior(idata, model="demo")).loc["b"].tolist()
    [0.2, 0.8]
    """
    da = _item_group(post)["probability"]
    return pd.DataFrame(np.asarray(da), index=pd.Index(da["item"].values, name="item"),
                        columns=pd.Index(da["class"].values, name="class"))


def item_labels(post: Posterior) -> pd.DataFrame:
    """The most probable class of every item and its posterior probability.

    Ties go to the first tied class in the order of the categories (as
    :attr:`kappalab.annotators.AnnotationModelFit.labels`).

    Parameters
    ----------
    post : Posterior
        A fit of :func:`dawid_skene`, :func:`hierarchical_dawid_skene`, :func:`multinomial`,
        :func:`mace` or :func:`ordinal_dawid_skene`.

    Returns
    -------
    pandas.DataFrame
        Index the items; columns ``label`` and ``probability``.

    Raises
    ------
    InvalidParameterError
        ``post`` is not a fit of a model of annotation.

    Examples
    --------
    >>> import numpy as np, arviz as az, xarray as xr
    >>> from kappalab.bayes import Posterior
    >>> idata = az.from_dict(posterior={"pi": np.full((1, 4, 2), 0.5)})
    >>> idata.add_groups(item_posterior=xr.Dataset(
    ...     {"probability": (("item", "class"), [[0.9, 0.1], [0.2, 0.8]])},
    ...     coords={"item": ["a", "b"], "class": ["x", "y"]}))
    >>> item_labels(Posterior(idata, model="demo"))["label"].tolist()
    ['x', 'y']
    """
    table = item_posterior(post)
    p = table.to_numpy()
    best = p.argmax(axis=1)
    return pd.DataFrame({"label": np.asarray(table.columns)[best],
                         "probability": p[np.arange(p.shape[0]), best]}, index=table.index)


def rater_ppc_pvalues(post: Posterior) -> pd.Series:
    """Each annotator's posterior predictive p-value of its κx against the rest of the panel.

    P(T_rep ≥ T_obs) for T = the annotator's κx against its co-annotators
    (``rater_cross_kappa``; module docstring, "Results"), over the replicated datasets:
    near 0, the annotator agrees with the others more than the model predicts; near 1, less.
    Either says that the annotators' labels are not independent given the class as the model
    has it: e.g. two annotators who copy each other are fitted as nearly perfect, and then
    the others agree with the rest more than that fit predicts. NaN for an annotator with no
    co-annotated item.

    Parameters
    ----------
    post : Posterior
        A fit of :func:`dawid_skene`, :func:`hierarchical_dawid_skene`, :func:`mace` or
        :func:`ordinal_dawid_skene`.

    Returns
    -------
    pandas.Series
        One p-value per annotator.

    Raises
    ------
    InvalidParameterError
        ``post`` has no per-annotator predictive check.

    Examples
    --------
    >>> import numpy as np, arviz as az, xarray as xr
    >>> from kappalab.bayes import Posterior
    >>> idata = az.from_dict(posterior={"pi": np.full((1, 4, 2), 0.5)})
    >>> idata.add_groups(
    ...     posterior_predictive=xr.Dataset({"rater_kappa_x": (
    ...         ("chain", "draw", "rater"), [[[0.5, 0.9], [0.7, 0.9]]])},
    ...         coords={"rater": ["r1", "r2"]}),
    ...     observed_data=xr.Dataset({"rater_kappa_x": (("rater",), [0.6, 0.8])},
    ...                              coords={"rater": ["r1", "r2"]}))
    >>> rater_ppc_pvalues(Posterior(idata, model="demo")).tolist()
    [0.5, 1.0]
    """
    pp = getattr(post.idata, "posterior_predictive", None)
    obs = getattr(post.idata, "observed_data", None)
    if pp is None or obs is None or "rater_kappa_x" not in pp or "rater_kappa_x" not in obs:
        raise InvalidParameterError(
            f"{post.model} has no per-annotator predictive check (rater_kappa_x): it comes "
            "with bayes.dawid_skene, bayes.hierarchical_dawid_skene, bayes.mace and "
            "bayes.ordinal_dawid_skene")
    replicated = np.asarray(pp["rater_kappa_x"].transpose("chain", "draw", "rater"))
    replicated = replicated.reshape(-1, replicated.shape[-1])
    observed = np.asarray(obs["rater_kappa_x"])
    with np.errstate(invalid="ignore"):
        p = np.where(np.isfinite(observed), (replicated >= observed).mean(axis=0), np.nan)
    return pd.Series(p, index=pd.Index(obs["rater"].values, name="rater"), name="p_value")


#: the models, by name (for loops over them in tests and studies)
MODELS: dict[str, Callable[..., Posterior]] = {
    "dawid_skene": dawid_skene, "hierarchical_dawid_skene": hierarchical_dawid_skene,
    "multinomial": multinomial, "mace": mace, "ordinal_dawid_skene": ordinal_dawid_skene}
