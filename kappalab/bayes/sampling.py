"""Running NUTS quietly and reproducibly; option validation shared by the models."""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import logging
import warnings
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import InvalidParameterError
from ..validation import SeedLike, check_count, check_real, make_rng, missing_extra, require_extra

SAMPLERS = ("pymc", "nutpie")
_QUIET_LOGGERS = ("pymc", "pytensor", "nutpie", "arviz")
_QUIET_MODULES = r"(pymc|pytensor|nutpie|arviz|numba)(\..*)?"


def require_pymc():
    """Import pymc, with a clear message when it is missing."""
    return require_extra(("arviz", "pymc"), "bayes", "kappalab.bayes")


def resolve_sampler(sampler: Any) -> str:
    """``sampler`` checked: 'pymc', or 'nutpie' when nutpie and numba can be imported."""
    if not isinstance(sampler, str) or sampler not in SAMPLERS:
        raise InvalidParameterError(
            f"unknown sampler {sampler!r}; choose one of {', '.join(map(repr, SAMPLERS))}")
    if sampler == "nutpie" and any(importlib.util.find_spec(name) is None
                                   for name in ("nutpie", "numba")):
        raise missing_extra(("nutpie", "numba"), "nutpie", "sampler='nutpie'",
                            "use sampler='pymc'")
    return sampler


class SamplingOptions:
    """Validated ``draws``, ``tune``, ``chains``, ``seed`` and ``sampler`` of one fit.

    ``rng`` drives everything random: the sampler's seed is its first draw, posterior
    predictive replicates use the rest, so an int ``seed`` reproduces the whole result.
    """

    def __init__(self, draws: Any, tune: Any, chains: Any, seed: SeedLike, sampler: Any):
        self.draws = check_count(draws, "draws", 1)
        self.tune = check_count(tune, "tune", 0)
        self.chains = check_count(chains, "chains", 1)
        self.sampler = resolve_sampler(sampler)
        self.seed = seed
        self.rng = make_rng(seed)
        self.sampler_seed = int(self.rng.integers(0, 2**31 - 1))

    def attrs(self) -> dict[str, Any]:
        """What was used, for ``idata.posterior.attrs`` (netCDF-friendly types)."""
        seed = self.seed if isinstance(self.seed, (int, np.integer)) else repr(self.seed)
        return {"sampler": self.sampler, "draws": self.draws, "tune": self.tune,
                "chains": self.chains, "seed": seed if seed is not None else "None"}


@contextlib.contextmanager
def quiet():
    """Silence PyMC's, PyTensor's and nutpie's own logging and warnings (chain-count advice,
    BLAS notices, progress messages): the user sees kappalab's diagnostics only."""
    loggers = [logging.getLogger(name) for name in _QUIET_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", module=_QUIET_MODULES)
            yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


def sample(model, options: SamplingOptions, keep: Sequence[str], trace=None):
    """PyMC's NUTS on ``model``; returns (posterior Dataset restricted to ``keep``,
    sample_stats). (nutpie runs through :mod:`kappalab.bayes.compiled`.)

    ``trace``: a trace template whose compiled point function every chain copies
    (``pm.sample(trace=...)``; see :mod:`kappalab.bayes.compiled`).

    Chains run one after the other in this process (``cores=1``): for these small models
    (sufficient statistics, a handful of parameters) starting worker processes costs more
    than it saves, and nothing can hang in a notebook or under pytest.
    """
    pm = require_pymc()
    kwargs: dict[str, Any] = dict(
        draws=options.draws, tune=options.tune, chains=options.chains, cores=1,
        random_seed=options.sampler_seed, progressbar=False,
        compute_convergence_checks=False, return_inferencedata=True, model=model,
        idata_kwargs={"log_likelihood": False})
    if "quiet" in inspect.signature(pm.sample).parameters:  # recent PyMC only
        kwargs["quiet"] = True
    if trace is not None:
        kwargs["trace"] = trace
    with quiet():
        idata = pm.sample(**kwargs)
    posterior = idata.posterior[list(keep)]
    return posterior, idata.sample_stats


def prior_with_defaults(prior: Any, defaults: Mapping[str, Any], model: str
                        ) -> dict[str, Any]:
    """``defaults`` updated by the mapping ``prior`` (None: the defaults), its keys checked
    against theirs; the values are the caller's to check.

    Examples
    --------
    >>> prior_with_defaults({"a": 3}, {"a": 1, "b": 2}, "demo")
    {'a': 3, 'b': 2}
    >>> prior_with_defaults({"c": 3}, {"a": 1}, "demo")
    Traceback (most recent call last):
    ...
    kappalab.errors.InvalidParameterError: unknown prior 'c' for demo; it takes a=1
    """
    out = dict(defaults)
    if prior is None:
        return out
    if not isinstance(prior, Mapping):
        raise InvalidParameterError(f"prior must be a mapping (dict), got {prior!r}")
    for key, value in prior.items():
        if key not in defaults:
            raise InvalidParameterError(
                f"unknown prior {key!r} for {model}; it takes "
                f"{', '.join(f'{k}={v!r}' for k, v in defaults.items())}")
        out[key] = value
    return out


def validate_prior(prior: Mapping[str, Any] | None, defaults: Mapping[str, Any],
                   model: str) -> dict[str, Any]:
    """``defaults`` updated by ``prior`` (:func:`prior_with_defaults`); each value checked
    for its kind.

    A default that is a pair means Beta(a, b) shape parameters (both > 0); a default that is
    a number means a positive scale or concentration.
    """
    out = prior_with_defaults(prior, defaults, model)
    for key in prior or {}:
        value = out[key]
        if isinstance(defaults[key], tuple):
            try:
                a, b = (float(v) for v in value)
            except (TypeError, ValueError):
                raise InvalidParameterError(
                    f"prior {key!r} must be a pair of Beta shape parameters (a, b), got "
                    f"{value!r}") from None
            if not (np.isfinite(a) and np.isfinite(b) and a > 0 and b > 0):
                raise InvalidParameterError(
                    f"prior {key!r}: Beta shape parameters must be finite and > 0, got "
                    f"{value!r}")
            out[key] = (a, b)
        else:
            value = check_real(value, f"prior {key!r}")
            if not value > 0:
                raise InvalidParameterError(
                    f"prior {key!r} must be a positive number, got {value!r}")
            out[key] = value
    return out


def prior_attrs(prior: Mapping[str, Any]) -> dict[str, Any]:
    """The prior a model was fitted with, for ``idata.posterior.attrs``: ``prior_<name>``
    = the concentration or scale (a number) or the Beta shape parameters (a list [a, b])."""
    return {f"prior_{key}": [float(v) for v in value] if isinstance(value, tuple)
            else float(value) for key, value in prior.items()}
