"""The types of the item-sum spine: what the uncertainty code asks of a core.

:class:`ItemSumCore` is the structural type (a :class:`typing.Protocol`) of a coefficient
bound to its data, as :mod:`kappalab.uncertainty` uses it: the per-item statistics, their
totals, ``combine`` and the gradient of the value
(docs/architecture.md, "The item-sum spine").
:class:`kappalab.coefficients.base.ItemSumCoefficient`, the abstract base every core derives
from, satisfies it; the protocol sits on the ground floor so that the uncertainty code (below
the coefficients) can name the type it acts on without importing the coefficients.
:data:`ItemStats` is the items × s matrix of per-item statistics, and :data:`Components` what
``combine`` returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

import numpy as np

if TYPE_CHECKING:  # scipy.sparse is imported on first use (kappalab.kernels.sp)
    import scipy.sparse as sp

__all__ = ["Components", "ItemStats", "ItemSumCore"]

#: an items × s matrix of per-item statistics: a dense array, or a scipy sparse matrix in CSR
#: (the format every sparse core builds; ``weigh_rows`` keeps it)
ItemStats: TypeAlias = "np.ndarray | sp.csr_matrix"

#: what a core's ``combine`` returns: the coefficient's components by name (at least
#: ``value``, ``observed`` and ``expected``)
Components: TypeAlias = dict[str, np.ndarray]


@runtime_checkable
class ItemSumCore(Protocol):
    """A coefficient bound to its data, as the uncertainty code sees it.

    Every :class:`kappalab.coefficients.base.ItemSumCoefficient` satisfies this protocol;
    :mod:`kappalab.uncertainty` needs nothing else of a core. An optional
    ``gwet_design()`` (Gwet's 2014 variance, ``ci="gwet"``) is looked up by name, since most
    cores have none.

    Attributes
    ----------
    name : str
        The coefficient's display name (progress lines, messages).
    upper_bound : float or None
        The largest value the coefficient can take (caps symmetric intervals), None if none.

    Examples
    --------
    >>> import kappalab as kl
    >>> from kappalab.coefficients.multirater import alpha_core
    >>> isinstance(alpha_core(kl.datasets.load("worked_example")), ItemSumCore)
    True
    >>> isinstance(object(), ItemSumCore)
    False
    """

    name: str
    upper_bound: float | None

    def item_stats(self) -> ItemStats:
        """Items × s matrix of per-item sufficient statistics (sample weights applied)."""
        ...

    def totals(self) -> np.ndarray:
        """Σ_i w_i s_i, length s."""
        ...

    def combine(self, totals: np.ndarray) -> Components:
        """The components from totals of shape (s,) or (B, s), row-wise."""
        ...

    def value_gradient(self, totals: np.ndarray) -> np.ndarray:
        """∇ value(T), the gradient of the value in the totals (length s)."""
        ...
