"""What the two cross-replication models of :mod:`kappalab.bayes.cross` share: the item
counts they record and the check that each replication has items with 2 or more annotations.
"""

from __future__ import annotations

import numpy as np

from ..alignment import AlignedReplications
from ..errors import EmptyDataError


def item_counts(al: AlignedReplications) -> dict[str, int]:
    """The numbers of common and one-sided items, for ``idata.posterior.attrs``."""
    return {"n_common_items": al.n_common, "n_items_only_x": al.n_only_x,
            "n_items_only_y": al.n_only_y}


def require_pairable(m: np.ndarray, side: str, what: str) -> None:
    """Raise :class:`~kappalab.errors.EmptyDataError` when replication ``side`` has no item
    with 2 or more annotations (``m``: annotations per item), so its ``what`` is not
    identified."""
    if not (m >= 2).any():
        raise EmptyDataError(
            f"replication {side} has no item with 2 or more annotations: its {what} is not "
            "identified (with one annotation per item, within-pool agreement is unobserved); "
            "use kappalab.cross_kappa for κx alone")
