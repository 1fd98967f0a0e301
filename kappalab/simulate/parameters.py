"""The checks of :mod:`kappalab.simulate`'s parameters, one error type for all
(:class:`~kappalab.errors.InvalidParameterError`), and the record of a call's parameters that
each truth keeps in ``details["parameters"]``."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..errors import InvalidParameterError
from ..validation import check_count, check_real

LEVELS = ("nominal", "binary", "ordinal", "interval")
REPLICATION_LEVELS = ("interval", "binary", "ordinal")
MISSINGNESS = ("mcar", "mnar")


def fail(message: str):
    """Raise an :class:`~kappalab.errors.InvalidParameterError` with this message."""
    raise InvalidParameterError(message)


def check_reliability(x, name: str = "reliability") -> float:
    x = check_real(x, name)
    if not 0.0 <= x < 1.0:
        fail(f"{name} must be in [0, 1), got {x}")
    return x


def check_heterogeneity(x, missingness: str) -> float:
    if x is None:
        return 0.5 if missingness == "mnar" else 0.0
    x = check_real(x, "heterogeneity")
    if not 0.0 <= x < 1.0:
        fail(f"heterogeneity must be in [0, 1), got {x}")
    return x


def check_missingness(x, name: str = "missingness") -> str:
    if x not in MISSINGNESS:
        fail(f"{name} must be 'mcar' or 'mnar', got {x!r}")
    return x


def check_mnar_strength(x) -> float:
    x = check_real(x, "mnar_strength")
    if x < 0:
        fail(f"mnar_strength must be ≥ 0, got {x}")
    return x


def categories_and_prevalence(level: str, n_categories, prevalence) -> tuple[int, np.ndarray]:
    """K and π for a categorical level (interval: error if either is given)."""
    if level == "interval":
        if n_categories is not None or prevalence is not None:
            fail("n_categories and prevalence do not apply to level 'interval' "
                 "(continuous values)")
        return 0, np.empty(0)
    if n_categories is not None:
        n_categories = check_count(n_categories, "n_categories", 2)
        if level == "binary" and n_categories != 2:
            fail(f"level 'binary' has 2 categories, got n_categories={n_categories}")
    if prevalence is None:
        K = n_categories if n_categories is not None else {"nominal": 3, "binary": 2,
                                                            "ordinal": 5}[level]
        return K, np.full(K, 1.0 / K)
    if np.ndim(prevalence) == 0:  # a single minority share: the last category's probability
        share = check_real(prevalence, "prevalence")
        if not 0.0 < share < 1.0:
            fail(f"a single prevalence (the minority share) must be in (0, 1), got {share}")
        K = n_categories if n_categories is not None else 2 if level != "ordinal" else 5
        return K, np.concatenate([np.full(K - 1, (1.0 - share) / (K - 1)), [share]])
    try:
        p = np.asarray(prevalence, dtype=float)
    except (TypeError, ValueError):
        fail(f"prevalence must be a probability vector, got {prevalence!r}")
    if p.ndim != 1:
        fail(f"prevalence must be a 1-D probability vector, got shape {p.shape}")
    K = n_categories if n_categories is not None else p.size
    if level == "binary" and n_categories is None and p.size != 2:
        fail(f"level 'binary' has 2 categories, but prevalence has {p.size} entries")
    if p.size != K:
        fail(f"prevalence has {p.size} entries but n_categories is {K}")
    if K < 2:
        fail(f"prevalence needs at least 2 categories, got {p.size}")
    if not np.isfinite(p).all():
        fail(f"prevalence must be finite, got {p.tolist()}")
    if (p <= 0).any():
        first = int(np.flatnonzero(p <= 0)[0])
        fail(f"prevalence entries must be positive, got {p[first]} at position {first}")
    if abs(p.sum() - 1.0) > 1e-9:
        fail(f"prevalence must sum to 1 (within 1e-9), got sum {p.sum()!r}")
    return K, p / p.sum()


def per_side(value, name: str) -> tuple[Any, Any]:
    """A per-side parameter: a 2-tuple/list (X, Y), or one value for both sides."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            fail(f"{name} must be one value or a pair (X, Y), got {value!r}")
        return value[0], value[1]
    return value, value


def parameter_record(**kwargs) -> dict[str, Any]:
    """The call's parameters, JSON-friendly.

    A Generator seed is recorded by its bit generator's state at the call
    (``{"bit_generator": "PCG64", "state": ..., ...}``; setting
    ``default_rng().bit_generator.state`` to it, as plain dicts, draws the same data again), a
    SeedSequence by its entropy and spawn key, anything else by its repr.
    """
    def plain(v):
        if isinstance(v, np.random.Generator):
            return plain(v.bit_generator.state)
        if isinstance(v, np.random.SeedSequence):
            return {"entropy": plain(v.entropy), "spawn_key": plain(v.spawn_key)}
        if isinstance(v, (np.integer, np.floating)):
            return v.item()
        if isinstance(v, np.ndarray):
            return v.tolist()
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, Mapping):
            return {str(k): plain(x) for k, x in v.items()}
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        return repr(v)
    return {k: plain(v) for k, v in kwargs.items()}
