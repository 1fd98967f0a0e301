"""The download, checksum and cache layer of the fetched datasets.

An original file is described by a :class:`SourceFile` (where it lives below the data
folder, its public URL and its SHA-256); :func:`verified_path` gives the local copy, downloaded
once with pooch when it is absent and checked against its SHA-256 every time, and
:func:`verified_tables` reads it once per process. The data folder is ``data_home=``, else
the folder named by ``$KAPPALAB_DATA``, else the platform's cache directory
(:func:`data_folder`). Nothing here knows a dataset: the records of
:mod:`kappalab.datasets.real` say which files a dataset needs and how its rows are parsed.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

import pandas as pd

from ..errors import InvalidParameterError
from ..validation import require_extra

__all__ = ["DATA_ENVIRONMENT_VARIABLE", "SourceFile", "data_folder", "sha256_of",
           "verified_path", "verified_tables"]

#: the environment variable naming a folder that holds (or caches) the original files
DATA_ENVIRONMENT_VARIABLE = "KAPPALAB_DATA"

#: a reader of one verified file: its tables by name (``""`` for a file of one table)
TableReader = Callable[[Path], dict[str, pd.DataFrame]]


@dataclass(frozen=True)
class SourceFile:
    """One original file: where it lives below the data folder, its URL and SHA-256.

    Parameters
    ----------
    relative_path : str
        The file's place below the data folder (``snow2008/all_collected_data.tgz``).
    url : str
        The public URL it is downloaded from.
    sha256 : str
        The SHA-256 of the published file, 64 hexadecimal digits.

    Examples
    --------
    >>> spec = SourceFile("toy/empty.txt", "https://example.org/empty.txt",
    ...                   "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    >>> spec.relative_path
    'toy/empty.txt'
    """

    relative_path: str
    url: str
    sha256: str


def data_folder(data_home: str | os.PathLike[str] | None = None) -> Path:
    """The folder holding the original files: ``data_home``, else ``$KAPPALAB_DATA``, else
    the platform's cache directory for kappalab.

    Parameters
    ----------
    data_home : path, optional
        A folder chosen by the caller.

    Returns
    -------
    pathlib.Path
        The folder (it need not exist yet).

    Examples
    --------
    >>> str(data_folder("/tmp/kappalab-data"))
    '/tmp/kappalab-data'
    """
    if data_home is not None:
        return Path(data_home).expanduser()
    if os.environ.get(DATA_ENVIRONMENT_VARIABLE):
        return Path(os.environ[DATA_ENVIRONMENT_VARIABLE]).expanduser()
    try:
        import pooch
    except ImportError:  # the platform's usual place, as pooch would choose it
        return Path.home() / ".cache" / "kappalab"
    return Path(pooch.os_cache("kappalab"))


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file, as 64 hexadecimal digits.

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    str
        Its SHA-256 digest.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "empty"
    ...     _ = path.write_bytes(b"")
    ...     sha256_of(path)[:16]
    'e3b0c44298fc1c14'
    """
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verified_path(spec: SourceFile, data_home: str | os.PathLike[str] | None = None) -> Path:
    """The verified local copy of an original file, downloaded first if it is absent.

    Parameters
    ----------
    spec : SourceFile
        The file.
    data_home : path, optional
        The data folder (see :func:`data_folder`).

    Returns
    -------
    pathlib.Path
        The file, its SHA-256 checked.

    Raises
    ------
    InvalidParameterError
        If the file present has another SHA-256, a directory takes its place, or it is absent
        and cannot be downloaded (the message names the URL and where to put the file).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> spec = SourceFile("toy/empty.txt", "https://example.org/empty.txt",
    ...                   "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     (pathlib.Path(folder) / "toy").mkdir()
    ...     _ = (pathlib.Path(folder) / "toy" / "empty.txt").write_bytes(b"")
    ...     verified_path(spec, folder).name
    'empty.txt'
    """
    folder = data_folder(data_home)
    path = folder / spec.relative_path
    if path.is_dir():
        raise InvalidParameterError(
            f"{path} is a directory, where the original file {spec.relative_path} belongs; "
            f"move the directory away, then put the file there (from {spec.url}) or let "
            "kappalab download it")
    if not path.is_file():
        download(spec, path)
    found = sha256_of(path)
    if found != spec.sha256:
        raise InvalidParameterError(
            f"{path} has SHA-256 {found}, not the published file's {spec.sha256}: it is not "
            f"the original file (or it is damaged); delete it to download it again from "
            f"{spec.url}")
    return path


def download(spec: SourceFile, path: Path) -> None:
    """Download an original file to ``path`` with pooch, checking its SHA-256."""
    where = (f"download it from {spec.url} and put it at {path} (or point "
             f"{DATA_ENVIRONMENT_VARIABLE} or data_home= at a folder holding "
             f"{spec.relative_path})")
    pooch = require_extra("pooch", "data", f"{path} is absent, and downloading it", where)
    try:
        pooch.retrieve(spec.url, known_hash=f"sha256:{spec.sha256}", fname=path.name,
                       path=path.parent, progressbar=False)
    except Exception as error:  # network, permissions, a changed file: say what to do
        raise InvalidParameterError(
            f"could not download {spec.url} ({type(error).__name__}: {error}); {where}"
        ) from error


@lru_cache(maxsize=8)
def _tables_read_once(path: Path, sha256: str, reader: TableReader) -> dict[str, pd.DataFrame]:
    """The tables of a verified file, read once per process (``sha256`` keys the cache)."""
    return reader(path)


def verified_tables(spec: SourceFile, reader: TableReader,
                    data_home: str | os.PathLike[str] | None = None
                    ) -> dict[str, pd.DataFrame]:
    """The tables of an original file, verified (:func:`verified_path`) and read once per
    process by ``reader``; each call gets fresh copies.

    Parameters
    ----------
    spec : SourceFile
        The file.
    reader : callable
        ``reader(path)`` reads the verified file into its tables by name.
    data_home : path, optional
        The data folder (see :func:`data_folder`).

    Returns
    -------
    dict of str to pandas.DataFrame
        The file's rows as the source has them.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> spec = SourceFile("toy/empty.txt", "https://example.org/empty.txt",
    ...                   "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    >>> def lines(path):
    ...     return {"": pd.DataFrame({"line": path.read_text().splitlines()})}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     (pathlib.Path(folder) / "toy").mkdir()
    ...     _ = (pathlib.Path(folder) / "toy" / "empty.txt").write_bytes(b"")
    ...     verified_tables(spec, lines, folder)[""].shape
    (0, 1)
    """
    path = verified_path(spec, data_home)
    return {key: table.copy() for key, table in
            _tables_read_once(path, spec.sha256, reader).items()}
