r"""Bayesian reliability models (PyMC + ArviZ): posterior distributions of agreement.

Imported only on request (``from kappalab import bayes``); PyMC itself is imported when a
model is first fitted. Every model is written on per-item sufficient statistics with the
item-level latent quantities integrated out analytically (no per-item parameters), and
returns a :class:`Posterior`: ``.idata`` (an ``arviz.InferenceData`` with posterior, sample
statistics, posterior predictive and observed data), ``.summary()``, ``.interval(name)``
(highest-density interval), ``.mean(name)``, ``post[name]`` (the draws) and
``.ppc_pvalue(name)``. Divergent transitions, R̂ > 1.01 and low effective sample sizes are
reported as :class:`SamplingWarning`.

Models
------
:func:`nominal_reliability`
    Dirichlet–multinomial items: κ = population Fleiss κ = nominal α, P_o, P_e, π.
:func:`cohen_kappa`
    Two raters, multinomial K × K table with a Dirichlet prior: (weighted) Cohen κ.
:func:`interval_reliability`
    One-way random effects: ICC = population interval α.
:func:`cross_replication`
    Two replications (rater pools) of the same items, ``level="interval"`` (bivariate random
    effects) or ``"binary"`` (bivariate latent thresholds): IRR of each side, κx, normalized
    κx and the correlation ρ of the item true scores.
:func:`dawid_skene`, :func:`hierarchical_dawid_skene`, :func:`multinomial`
    Models of annotation (:mod:`kappalab.bayes.annotators`): each item's true class summed
    out, one confusion matrix per annotator (Dawid–Skene), partially pooled ones
    (hierarchical) or one for all (multinomial); class prevalences, annotator accuracies,
    each item's class posterior (:func:`item_posterior`, :func:`item_labels`), item
    log-likelihoods for ``arviz.loo``/``arviz.compare`` and a predictive check of α
    (:func:`rater_ppc_pvalues` per annotator). These models have a parameter per annotator,
    not per item.
:func:`mace`, :func:`ordinal_dawid_skene`
    Models of annotation with K parameters per annotator, read as the three above: a spam
    probability and a spamming strategy (MACE), or ordered thresholds and a noise scale
    (ordered-probit Dawid–Skene for ordinal classes).

Every model takes ``draws``, ``tune``, ``chains``, ``seed`` (an int reproduces the draws
exactly) and ``sampler``: ``"pymc"`` (PyMC's NUTS, the default) or ``"nutpie"`` (compiled
once per model and process by numba, then several times quicker per fit: for studies).

Each model is compiled once per shape signature and kept in a small bounded cache
(:mod:`kappalab.bayes.compiled`; ``compiled.cache_info()``, ``compiled.clear_cache()``): a
later fit of a dataset of similar size takes its data through ``pm.set_data`` and costs little
more than its sampling, with the same draws as a freshly compiled model.

Example
-------
>>> from kappalab import bayes, simulate
>>> ann, truth = simulate.annotations(1000, level="interval", reliability=0.7, seed=0)
>>> post = bayes.interval_reliability(ann, draws=500, tune=500, seed=1)  # doctest: +SKIP
>>> post.interval("icc")  # the 95% HDI; truth.alpha = 0.7             # doctest: +SKIP
(0.656..., 0.710...)
>>> table = post.summary(["icc", "sigma_between"])  # mean, sd, HDI, R-hat, ESS # doctest: +SKIP
"""

from .annotators import (dawid_skene, hierarchical_dawid_skene, item_labels, item_posterior,
                         mace, multinomial, ordinal_dawid_skene, rater_ppc_pvalues)
from .cross import cross_replication
from .models import cohen_kappa, interval_reliability, nominal_reliability
from .posterior import Posterior, SamplingWarning, diagnose

__all__ = ["Posterior", "SamplingWarning", "cohen_kappa", "cross_replication", "dawid_skene",
           "diagnose", "hierarchical_dawid_skene", "interval_reliability", "item_labels",
           "item_posterior", "mace", "multinomial", "nominal_reliability",
           "ordinal_dawid_skene", "rater_ppc_pvalues"]
