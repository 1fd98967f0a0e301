"""Small bundled datasets, each with its provenance on the first line of its CSV, and
public annotation datasets fetched from their original source (:func:`~kappalab.datasets.fetch`).

>>> from kappalab import datasets
>>> sorted(datasets.available())
['fleiss_1971', 'krippendorff_2011', 'worked_example']
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

from ..annotations import Annotations
from ..errors import InvalidParameterError
from .download import data_folder
from .real import RealDataset, fetch, fetchable

__all__ = ["available", "load", "load_frame", "provenance",
           "RealDataset", "data_folder", "fetch", "fetchable"]

# raters in fleiss_1971 are positions within a patient, not persons
_RATERS_KNOWN = {"worked_example": True, "krippendorff_2011": True, "fleiss_1971": False}


def available() -> list[str]:
    """The names of the bundled datasets.

    Returns
    -------
    list of str
        The names :func:`load`, :func:`load_frame` and :func:`provenance` take.

    Examples
    --------
    >>> available()
    ['worked_example', 'krippendorff_2011', 'fleiss_1971']
    """
    return list(_RATERS_KNOWN)


def _path(name: str):
    if name not in _RATERS_KNOWN:
        raise InvalidParameterError(
            f"unknown dataset {name!r}; available: {', '.join(available())}"
        )
    return resources.files(__package__).joinpath(f"{name}.csv")


def provenance(name: str) -> str:
    """The provenance line of a bundled dataset.

    Parameters
    ----------
    name : str
        One of :func:`available`.

    Returns
    -------
    str
        The first line of its CSV without the leading ``"# "``: the source, what the data are
        and the published values.

    Raises
    ------
    InvalidParameterError
        If ``name`` is not a bundled dataset.

    Examples
    --------
    >>> provenance("fleiss_1971")[:60]
    'Fleiss J. L. (1971). Measuring nominal scale agreement among'
    """
    with _path(name).open(encoding="utf-8") as fh:
        return fh.readline().lstrip("# ").strip()


def load_frame(name: str) -> pd.DataFrame:
    """The dataset as a long DataFrame with columns item, rater, value.

    Parameters
    ----------
    name : str
        One of :func:`available`.

    Returns
    -------
    pandas.DataFrame
        One row per annotation; a missing annotation is an absent row.

    Raises
    ------
    InvalidParameterError
        If ``name`` is not a bundled dataset.

    Examples
    --------
    >>> frame = load_frame("worked_example")
    >>> frame.shape  # 10 sentences × 3 annotators, one row each
    (30, 3)
    >>> frame.head(2)
       item rater value
    0     1     A     P
    1     1     B     P
    """
    with _path(name).open(encoding="utf-8") as fh:
        return pd.read_csv(fh, comment="#")


def load(name: str) -> Annotations:
    """The dataset as :class:`~kappalab.Annotations` (raters unknown for ``fleiss_1971``).

    Parameters
    ----------
    name : str
        One of :func:`available`.

    Returns
    -------
    Annotations
        The annotations, by item and (where known) rater.

    Raises
    ------
    InvalidParameterError
        If ``name`` is not a bundled dataset.

    Examples
    --------
    >>> data = load("krippendorff_2011")
    >>> data.n_items, data.n_raters, data.n_annotations  # 12 units × 4 observers, 7 missing
    (12, 4, 41)
    >>> import kappalab as kl
    >>> round(kl.krippendorff_alpha(data, level="nominal"), 3)  # published: 0.743
    0.743
    >>> load("fleiss_1971").n_raters is None  # raters are positions, not persons
    True
    """
    frame = load_frame(name)
    return Annotations.from_long(frame, rater="rater" if _RATERS_KNOWN[name] else None)
