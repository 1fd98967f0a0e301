"""Small bundled datasets, each with its provenance on the first line of its CSV.

>>> from kappalab import datasets
>>> sorted(datasets.available())
['fleiss_1971', 'krippendorff_2011', 'worked_example']
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

from ..annotations import Annotations
from ..errors import InvalidParameterError

__all__ = ["available", "load", "load_frame", "provenance"]

# raters in fleiss_1971 are positions within a patient, not persons
_RATERS_KNOWN = {"worked_example": True, "krippendorff_2011": True, "fleiss_1971": False}


def available() -> list[str]:
    return list(_RATERS_KNOWN)


def _path(name: str):
    if name not in _RATERS_KNOWN:
        raise InvalidParameterError(
            f"unknown dataset {name!r}; available: {', '.join(available())}"
        )
    return resources.files(__package__).joinpath(f"{name}.csv")


def provenance(name: str) -> str:
    """The provenance line of a bundled dataset."""
    with _path(name).open(encoding="utf-8") as fh:
        return fh.readline().lstrip("# ").strip()


def load_frame(name: str) -> pd.DataFrame:
    """The dataset as a long DataFrame with columns item, rater, value."""
    with _path(name).open(encoding="utf-8") as fh:
        return pd.read_csv(fh, comment="#")


def load(name: str) -> Annotations:
    """The dataset as :class:`~kappalab.Annotations` (raters unknown for ``fleiss_1971``)."""
    frame = load_frame(name)
    return Annotations.from_long(frame, rater="rater" if _RATERS_KNOWN[name] else None)
