"""Assembling a :class:`~kappalab.bayes.posterior.Posterior` from the sampler's output, and
numpy kernels shared by the posterior predictive checks."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from .posterior import Posterior, report_diagnostics
from .sampling import SamplingOptions

#: posterior draws × items per block of a posterior predictive replicate (bounds memory)
BLOCK_CELLS = 2_000_000


def chain_draw(values: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Flat per-draw values (S, ...) back to (chain, draw, ...)."""
    values = np.asarray(values)
    return values.reshape(shape + values.shape[1:])


def flat(posterior, name: str) -> np.ndarray:
    """Draws of ``name`` with the chains stacked (S, ...)."""
    values = np.asarray(posterior[name].transpose("chain", "draw", ...))
    return values.reshape((-1,) + values.shape[2:])


def assemble(posterior, sample_stats, options: SamplingOptions, *, model: str,
             derived: Mapping[str, np.ndarray] | None = None,
             derived_dims: Mapping[str, Sequence[str]] | None = None,
             replicated: Mapping[str, np.ndarray] | None = None,
             observed: Mapping[str, Any] | None = None,
             observed_dims: Mapping[str, Sequence[str]] | None = None,
             coords: Mapping[str, Any] | None = None,
             attrs: Mapping[str, Any] | None = None,
             headline: Sequence[str] = ()) -> Posterior:
    """Add derived variables (flat per-draw arrays), posterior predictive statistics and the
    observed statistics; record what was used; run the diagnostics.

    ``derived`` and ``replicated`` hold arrays whose first axis is the S = chains·draws draws,
    in the order of :func:`flat`; extra axes take their names from ``derived_dims``.
    """
    import arviz as az
    import xarray as xr

    shape = (posterior.sizes["chain"], posterior.sizes["draw"])
    base = {"chain": posterior["chain"].values, "draw": posterior["draw"].values}
    coords = dict(coords or {})
    posterior = posterior.copy()
    for name, values in (derived or {}).items():
        dims = ("chain", "draw") + tuple((derived_dims or {}).get(name, ()))
        posterior[name] = xr.DataArray(chain_draw(values, shape), dims=dims,
                                       coords={**base, **{d: coords[d] for d in dims[2:]}})
    posterior.attrs = {**{k: v for k, v in posterior.attrs.items()
                          if isinstance(v, (str, int, float))},
                       "model": model, **options.attrs(), **dict(attrs or {}),
                       "headline": list(headline)}
    groups = {"posterior": posterior, "sample_stats": sample_stats}
    if replicated:
        pp = xr.Dataset()
        for name, values in replicated.items():
            values = chain_draw(values, shape)
            dims = ("chain", "draw") + tuple((observed_dims or {}).get(name, ()))
            pp[name] = xr.DataArray(values, dims=dims,
                                    coords={**base, **{d: coords[d] for d in dims[2:]}})
        groups["posterior_predictive"] = pp
    if observed:
        obs = xr.Dataset()
        for name, value in observed.items():
            dims = tuple((observed_dims or {}).get(name, ()))
            obs[name] = xr.DataArray(np.asarray(value), dims=dims,
                                     coords={d: coords[d] for d in dims})
        groups["observed_data"] = obs
    idata = az.InferenceData(**groups)
    diagnostics = report_diagnostics(idata)
    return Posterior(idata, model=model, diagnostics=diagnostics)


# ---------------------------------------------------------------------- numpy kernels
def dirichlet(rng: np.random.Generator, alpha: np.ndarray) -> np.ndarray:
    """Dirichlet(α) draws along the last axis, exact also for tiny α.

    Gamma(α) = Gamma(α + 1)·U^{1/α} (Marsaglia & Tsang 2000), in logs, then normalised: the
    plain gamma route underflows to 0/0 when α ≪ 1 (reliability near 1).
    """
    alpha = np.maximum(np.asarray(alpha, dtype=float), 1e-300)
    log_g = np.log(rng.standard_gamma(alpha + 1.0)) + np.log1p(-rng.random(alpha.shape)) / alpha
    log_g -= log_g.max(axis=-1, keepdims=True)
    g = np.exp(log_g)
    return g / g.sum(axis=-1, keepdims=True)


def blocks(n_draws: int, n_cells: int):
    """Slices of draws such that draws × cells stays below :data:`BLOCK_CELLS`."""
    step = max(1, BLOCK_CELLS // max(1, n_cells))
    for start in range(0, n_draws, step):
        yield slice(start, min(n_draws, start + step))


