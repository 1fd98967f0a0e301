r"""The result of a Bayesian model: :class:`Posterior`, and the sampling diagnostics.

A :class:`Posterior` wraps an ``arviz.InferenceData`` (groups ``posterior``,
``sample_stats``, ``posterior_predictive`` and ``observed_data``) with the few accessors a
reliability analysis needs: the draws of a variable with the chains stacked, its mean, its
highest-density interval (HDI), a summary table and posterior predictive p-values.

Diagnostics (:func:`diagnose`, run after every fit and reported as :class:`SamplingWarning`):

* divergent transitions of NUTS (any: the posterior geometry was not explored faithfully);
* rank-normalised split R̂ (Vehtari, Gelman, Simpson, Carpenter & Bürkner 2021) above 1.01
  for any variable (the chains disagree);
* bulk effective sample size below 100 per chain for any variable (means and intervals are
  then too noisy to report; draw more).

Reference: Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. & Bürkner, P.-C. (2021).
Rank-normalization, folding, and localization: an improved R̂ for assessing convergence of
MCMC. Bayesian Analysis 16(2), 667–718, doi:10.1214/20-BA1221.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import xarray as xr

from ..errors import InvalidParameterError, warn
from ..validation import check_real
from .sampling import quiet

__all__ = ["Posterior", "SamplingWarning", "UnknownVariableError", "diagnose",
           "RHAT_THRESHOLD", "MIN_ESS_PER_CHAIN"]

#: R̂ above this is reported (Vehtari et al. 2021 recommend 1.01)
RHAT_THRESHOLD = 1.01
#: bulk ESS below this many per chain is reported (Vehtari et al. 2021: 100 per chain)
MIN_ESS_PER_CHAIN = 100


class SamplingWarning(UserWarning):
    """MCMC diagnostics flag a problem: divergences, R̂ > 1.01 or a low effective sample size.

    Issued after every fit, once per message of :func:`diagnose`; a ``UserWarning``, so the
    standard :mod:`warnings` filters silence it.

    Examples
    --------
    >>> import warnings
    >>> from kappalab.bayes import SamplingWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("R-hat above 1.01 for kappa", SamplingWarning)
    >>> caught[0].category is SamplingWarning, issubclass(SamplingWarning, UserWarning)
    (True, True)
    """


class UnknownVariableError(InvalidParameterError, KeyError):
    """A variable name that the posterior does not hold (a ``ValueError`` and a ``KeyError``).

    Raised by the accessors of :class:`Posterior` (``post[name]``, :meth:`Posterior.mean`,
    :meth:`Posterior.interval`, ...); the message lists the variables it holds.

    Examples
    --------
    >>> import numpy as np, arviz as az
    >>> from kappalab.bayes import Posterior
    >>> from kappalab.bayes.posterior import UnknownVariableError
    >>> post = Posterior(az.from_dict(posterior={"kappa": np.zeros((1, 10))}), model="demo")
    >>> try:
    ...     post.mean("tau")
    ... except UnknownVariableError as error:
    ...     print(error)
    demo has no variable 'tau' in its posterior; it has 'kappa'
    >>> issubclass(UnknownVariableError, KeyError), issubclass(UnknownVariableError, ValueError)
    (True, True)
    """

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def diagnose(idata, var_names: Sequence[str] | None = None, *,
             rhat_threshold: float = RHAT_THRESHOLD,
             min_ess_per_chain: float = MIN_ESS_PER_CHAIN) -> list[str]:
    """The problems the sampling diagnostics of ``idata`` show, one message each (empty: none).

    Parameters
    ----------
    idata : arviz.InferenceData
        With a ``posterior`` group and, for divergences, ``sample_stats["diverging"]``.
    var_names : names of the posterior variables to check (default: all).
    rhat_threshold : R̂ above this is reported.
    min_ess_per_chain : bulk ESS below ``min_ess_per_chain × chains`` is reported.

    Returns
    -------
    list of str
        Messages that name the number of divergent transitions, the variables with a large
        R̂ (and its largest value) and the variables with a low bulk ESS.

    Notes
    -----
    R̂ is the rank-normalised split R̂ and the ESS the bulk ESS of [1]_ (``arviz.rhat``,
    ``arviz.ess``); a single chain is split into its two halves. With fewer than 4 draws per
    (split) chain only divergences are checked.

    References
    ----------
    .. [1] Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. & Bürkner, P.-C. (2021).
       Rank-normalization, folding, and localization: an improved R̂ for assessing
       convergence of MCMC. *Bayesian Analysis* 16(2), 667–718, doi:10.1214/20-BA1221.

    Examples
    --------
    >>> import numpy as np, arviz as az
    >>> rng = np.random.default_rng(0)
    >>> mixed = az.from_dict(posterior={"kappa": rng.normal(0.5, 0.1, size=(2, 500))})
    >>> diagnose(mixed)
    []
    >>> stuck = az.from_dict(posterior={"kappa": np.stack([rng.normal(0, 1, 500),
    ...                                                    rng.normal(3, 1, 500)])})
    >>> [message.split(" for ")[0] for message in diagnose(stuck)]
    ['R-hat above 1.01', 'bulk effective sample size below 200 (100 per chain)']
    """
    import arviz as az

    messages = []
    posterior = idata.posterior
    names = list(posterior.data_vars) if var_names is None else list(var_names)
    chains, draws = posterior.sizes["chain"], posterior.sizes["draw"]
    stats = getattr(idata, "sample_stats", None)
    if stats is not None and "diverging" in stats:
        n_div = int(np.asarray(stats["diverging"]).sum())
        if n_div:
            messages.append(
                f"{n_div} divergent transition{'s' if n_div != 1 else ''} after tuning (of "
                f"{chains * draws} draws): the sampler may have missed part of the posterior; "
                "increase tune, or check the data (e.g. a reliability at the edge of its range)")
    if not names or draws < 4 * (2 if chains == 1 else 1):
        return messages
    subset = posterior[names]
    if chains == 1:  # ArviZ wants two chains: the chain's halves, as split R-hat splits it
        half = draws // 2
        first = subset.isel(draw=slice(0, half))
        second = subset.isel(draw=slice(half, 2 * half)).assign_coords(draw=first.draw)
        subset = xr.concat([first, second], dim="chain").assign_coords(chain=[0, 1])
    with quiet():
        rhat_values = az.rhat(subset)
        ess_values = az.ess(subset, method="bulk")
    rhat = _extreme(rhat_values, np.max)
    high = {k: v for k, v in rhat.items() if v > rhat_threshold}
    if high:
        shown = ", ".join(f"{k} ({v:.3f})" for k, v in high.items())
        messages.append(f"R-hat above {rhat_threshold} for {shown}: the chains have not mixed; "
                        "increase draws and tune")
    ess = _extreme(ess_values, np.min)
    floor = min_ess_per_chain * chains
    low = {k: v for k, v in ess.items() if v < floor}
    if low:
        shown = ", ".join(f"{k} ({v:.0f})" for k, v in low.items())
        messages.append(f"bulk effective sample size below {floor:.0f} ({min_ess_per_chain:g} "
                        f"per chain) for {shown}: posterior means and intervals are noisy; "
                        "increase draws")
    return messages


def _extreme(dataset, reduce) -> dict[str, float]:
    """Per variable, ``reduce`` (max or min) of its finite values (variables with none are
    left out)."""
    out = {}
    for name, da in dataset.data_vars.items():
        values = np.asarray(da, dtype=float)
        values = values[np.isfinite(values)]
        if values.size:
            out[name] = float(reduce(values))
    return out


def report_diagnostics(idata, var_names: Sequence[str] | None = None) -> list[str]:
    """Run :func:`diagnose` and issue each message as a :class:`SamplingWarning`."""
    messages = diagnose(idata, var_names)
    model = idata.posterior.attrs.get("model", "the model")
    for message in messages:
        warn(f"{model}: {message}", SamplingWarning)
    return messages


def _probability(prob: Any) -> float:
    return check_real(prob, "prob", low=0.0, high=1.0, open_interval=True)


class Posterior:
    """Posterior draws of a Bayesian reliability model, with diagnostics and summaries.

    Parameters
    ----------
    idata : arviz.InferenceData
        The fit (see ``idata`` below); the models build it.
    model : str
        The model's name, shown by ``repr`` and in messages.
    diagnostics : sequence of str, default ()
        The messages of :func:`diagnose` for this fit.

    Attributes
    ----------
    idata : arviz.InferenceData
        ``posterior`` (the model's variables, dims ``chain``, ``draw`` and any labelled
        dims such as ``category``), ``sample_stats`` (NUTS statistics, incl. ``diverging``),
        ``posterior_predictive`` (replicated test statistics, one per draw) and
        ``observed_data`` (the same statistics on the data). ``idata.posterior.attrs``
        records the model, sampler, draws, tune, chains, seed and the data's sizes.
    model : str
        The model's name.
    diagnostics : list of str
        The messages of :func:`diagnose` (also issued as :class:`SamplingWarning`).

    Examples
    --------
    A Posterior around any ``InferenceData`` (the models build theirs):

    >>> import numpy as np, arviz as az
    >>> from kappalab.bayes import Posterior
    >>> rng = np.random.default_rng(0)
    >>> idata = az.from_dict(posterior={"kappa": rng.normal(0.5, 0.1, size=(2, 500))})
    >>> post = Posterior(idata, model="example")
    >>> post
    Posterior(example: 2 chains × 500 draws)
    >>> post["kappa"].shape, round(post.mean("kappa"), 2), "kappa" in post
    ((1000,), 0.5, True)

    A model's fit (a full fit takes a few seconds):

    >>> from kappalab import bayes, simulate
    >>> ann, truth = simulate.annotations(500, reliability=0.6, seed=0)
    >>> post = bayes.nominal_reliability(ann, seed=1)  # doctest: +SKIP
    >>> post.mean("kappa"), post.interval("kappa")      # doctest: +SKIP
    (0.564..., (0.520..., 0.606...))
    """

    def __init__(self, idata, *, model: str, diagnostics: Sequence[str] = ()):
        self.idata = idata
        self.model = model
        self.diagnostics = list(diagnostics)

    # ------------------------------------------------------------------ access
    @property
    def var_names(self) -> list[str]:
        """Names of the posterior variables."""
        return list(self.idata.posterior.data_vars)

    def __contains__(self, name: object) -> bool:
        return name in self.idata.posterior.data_vars

    def _variable(self, name: str, group: str = "posterior"):
        data = getattr(self.idata, group, None)
        if data is None or name not in data.data_vars:
            known = [] if data is None else list(data.data_vars)
            raise UnknownVariableError(
                f"{self.model} has no variable {name!r} in its {group}; it has "
                f"{', '.join(map(repr, known)) or 'none'}")
        return data[name]

    def __getitem__(self, name: str) -> np.ndarray:
        """The draws of ``name`` with the chains stacked: shape (chains·draws, *variable dims)."""
        da = self._variable(name)
        values = np.asarray(da.transpose("chain", "draw", ...))
        return values.reshape((-1,) + values.shape[2:])

    def mean(self, name: str):
        """Posterior mean of ``name``: a float for a scalar variable, else an array over its
        dims (e.g. ``pi`` over the categories)."""
        draws = self[name]
        return float(draws.mean()) if draws.ndim == 1 else draws.mean(axis=0)

    def interval(self, name: str, prob: float = 0.95) -> tuple[float, float]:
        """The highest-density interval (HDI) of a scalar variable, ``(low, high)``.

        The HDI is the narrowest interval holding ``prob`` of the posterior draws
        (``arviz.hdi``); for a skewed posterior it differs from the equal-tailed interval
        of the ``prob``/2 quantiles. Vector variables (``pi``): use :meth:`summary`.
        """
        import arviz as az

        prob = _probability(prob)
        draws = self[name]
        if draws.ndim != 1:
            raise InvalidParameterError(
                f"interval() takes a scalar variable; {name!r} has shape {draws.shape[1:]} "
                f"per draw: use summary(var_names=[{name!r}]) for its elements")
        low, high = az.hdi(draws, hdi_prob=prob)
        return float(low), float(high)

    def summary(self, var_names: Sequence[str] | None = None, prob: float = 0.95):
        """``arviz.summary``: a DataFrame with mean, sd, the HDI bounds (``hdi_2.5%``,
        ``hdi_97.5%`` for ``prob=0.95``), MCSE, ``ess_bulk``, ``ess_tail`` and ``r_hat`` per
        (element of each) variable, unrounded."""
        import arviz as az

        prob = _probability(prob)
        names = self.var_names if var_names is None else list(var_names)
        for name in names:
            self._variable(name)
        return az.summary(self.idata, var_names=names, hdi_prob=prob, round_to="none")

    def ppc_pvalue(self, name: str) -> float:
        r"""Posterior predictive p-value of a test statistic, P(T_rep ≥ T_obs).

        ``T_rep`` are the statistic's values on data replicated from the posterior draws
        (``idata.posterior_predictive[name]``), ``T_obs`` its value on the data
        (``idata.observed_data[name]``). Values near 0 or 1 mean the model does not reproduce
        that feature of the data (Gelman, Meng & Stern 1996, Statistica Sinica 6(4), 733–807).
        """
        replicated = np.asarray(self._variable(name, "posterior_predictive"), dtype=float)
        observed = float(np.asarray(self._variable(name, "observed_data")))
        return float(np.mean(replicated >= observed))

    def __repr__(self) -> str:
        post = self.idata.posterior
        head = (f"Posterior({self.model}: {post.sizes['chain']} chains × "
                f"{post.sizes['draw']} draws")
        shown = []
        for name in post.attrs.get("headline", ())[:5]:
            if name in post.data_vars and post[name].ndim == 2:
                draws = self[name]
                if np.isfinite(draws).all():
                    shown.append(f"{name}={draws.mean():.3f}")
        warn_note = f"; {len(self.diagnostics)} sampling warning(s)" if self.diagnostics else ""
        return head + (", " + ", ".join(shown) if shown else "") + warn_note + ")"
