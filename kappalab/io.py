"""Reading annotation files: delimited text, stdin, Excel and Parquet.

:func:`read_table` reads a file into a :class:`pandas.DataFrame` without dropping or
reinterpreting a cell silently (only an empty cell, or a token of ``na_values``, is missing);
:func:`read_annotations` reads a long (one row per annotation) or wide (items × raters) file
into :class:`~kappalab.Annotations`, as the console command ``kappalab report`` does. Delimited
text has its separator sniffed among comma, tab and semicolon (:func:`sniff_separator`);
``.xlsx`` and ``.parquet`` files need openpyxl or pyarrow (the ``readers`` extra). A file that
cannot be read gives one line, a :class:`ReadError`.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
import sys
import zipfile
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from .annotations import DUPLICATE_POLICIES, Annotations
from .encoding import DUPLICATES_REMEDY, text_cell_labels
from .errors import DuplicateAnnotationError, KappalabError
from .validation import require_extra

__all__ = ["ReadError", "read_annotations", "read_table", "sniff_separator"]

SEPARATORS = {",": ",", "comma": ",", "\t": "\t", "\\t": "\t", "tab": "\t", ";": ";",
              "semicolon": ";"}
EXCEL_SUFFIXES = (".xlsx", ".xlsm")
PARQUET_SUFFIXES = (".parquet", ".pq")
_SNIFF_BYTES = 1 << 16


class ReadError(Exception):
    """A file that cannot be read as a table or as annotations, or a reading option that
    does not fit it (a missing file, an unknown encoding, a separator of two characters, a
    wide row without an item id): the message is one line, naming the file and the option
    that fixes it.

    The console command prints it on stderr and exits with code 2 (the command line's own
    faults, ``kappalab.cli.CliError``, are a subclass).

    Examples
    --------
    >>> try:
    ...     read_table("no-such-file.csv")
    ... except ReadError as error:
    ...     print(error)
    no such file: no-such-file.csv
    """


def sniff_separator(sample: str) -> str:
    r"""The field separator of a delimited text, among comma, tab and semicolon.

    Parameters
    ----------
    sample : str
        The first lines of the file (the header first).

    Returns
    -------
    str
        The separator found by ``csv.Sniffer`` when the header contains it, else the
        most frequent of the three in the header, else a comma.

    Examples
    --------
    >>> sniff_separator("item;rater;value\n1;a;0,5\n1;b;1,5\n")
    ';'
    >>> sniff_separator("item\trater\tvalue\n1\ta\tx,y\n")
    '\t'
    """
    lines = sample.splitlines()
    header = lines[0] if lines else ""
    if len(lines) > 2 and not sample.endswith(("\n", "\r")):
        lines = lines[:-1]  # a line cut by the end of the sample
    try:
        found = csv.Sniffer().sniff("\n".join(lines[:100]), delimiters=",\t;").delimiter
        if found in header:
            return found
    except csv.Error:
        pass
    counts = {sep: header.count(sep) for sep in (",", "\t", ";")}
    best = max(counts, key=lambda sep: counts[sep])
    return best if counts[best] else ","


def _require(module: str, what: str) -> None:
    """Import an optional reader, or say in one line which extra installs it."""
    try:
        require_extra(module, "readers", f"reading {what} files")
    except ImportError as error:
        raise ReadError(str(error)) from None


def _source_name(source: str) -> str:
    return "stdin" if source == "-" else source


def _first_line(exc: BaseException, default: str) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else default


def read_table(source: str, *, sep: str | None = None, encoding: str = "utf-8-sig",
               na_values: Sequence[str] = (), text_columns: Sequence[Any] = ()) -> pd.DataFrame:
    """A table from a delimited text file, stdin, an ``.xlsx`` or a ``.parquet`` file.

    No cell is dropped or reinterpreted silently: there is no comment character (``C#`` is a
    label), ``None``, ``NA``, ``N/A``, ``null`` are labels, and only an empty cell or a token
    of ``na_values`` is missing.

    Parameters
    ----------
    source : str
        A path, or ``"-"`` for a delimited text on stdin. The suffixes ``.xlsx``/``.xlsm``
        (read with openpyxl) and ``.parquet``/``.pq`` (pyarrow) select the binary readers;
        anything else is delimited text.
    sep : str, optional
        The separator of a delimited text (a character, or ``tab``, ``comma``,
        ``semicolon``); sniffed among comma, tab and semicolon when ``None``.
    encoding : str
        The encoding of a delimited text; the default reads UTF-8 with or without a byte
        order mark.
    na_values : sequence of str
        Cell values that mean missing, besides the empty cell.
    text_columns : sequence
        Columns (names, or positions) read as text, such as item and rater ids, so that
        ``007`` stays ``007`` (ignored for Parquet, whose columns are typed).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ReadError
        A missing file, a directory, an unknown encoding, an unreadable file or a missing
        optional reader, with a one-line message.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "labels.csv"
    >>> _ = path.write_text("item;rater;value\\n007;a;NA\\n007;b;\\n")
    >>> read_table(str(path), text_columns=["item"]).to_dict("list")
    {'item': ['007', '007'], 'rater': ['a', 'b'], 'value': ['NA', nan]}

    The separator is sniffed (``;``), the item id ``007`` is kept as text, ``NA`` is a label
    and only the empty cell is missing.
    """
    na = ["", *na_values]
    dtype = {column: str for column in text_columns}
    name = "stdin" if source == "-" else source
    if source != "-":
        if os.path.isdir(source):
            raise ReadError(f"{source} is a directory, not a file")
        if not os.path.exists(source):
            raise ReadError(f"no such file: {source}")
    suffix = "" if source == "-" else os.path.splitext(source)[1].lower()
    try:
        if suffix in EXCEL_SUFFIXES:
            _require("openpyxl", "Excel (.xlsx)")
            first = pd.read_excel(source, engine="openpyxl", header=None, nrows=1)
            _reject_repeated_names(first.iloc[0].tolist() if len(first) else [], name)
            return pd.read_excel(source, engine="openpyxl", keep_default_na=False,
                                 na_values=na, dtype=dtype or None)
        if suffix in PARQUET_SUFFIXES:
            _require("pyarrow", "Parquet")
            frame = pd.read_parquet(source, engine="pyarrow")
            if not isinstance(frame.index, pd.RangeIndex):
                frame = frame.reset_index()  # an index saved with the data is a column
            if na_values:
                frame = frame.mask(frame.isin(list(na_values)))
            return frame
        return _read_delimited(source, sep, encoding, na, dtype)
    except ReadError:
        raise
    except UnicodeDecodeError as exc:
        raise ReadError(f"cannot read {name}: it is not {encoding} text ({exc.reason} at byte "
                       f"{exc.start}); pass --encoding, e.g. --encoding latin-1") from None
    except LookupError:
        raise ReadError(f"unknown encoding {encoding!r} (--encoding)") from None
    except pd.errors.EmptyDataError:
        raise ReadError(f"cannot read {name}: the file is empty") from None
    except PermissionError:
        raise ReadError(f"cannot read {name}: permission denied") from None
    except (pd.errors.ParserError, ValueError, OSError, zipfile.BadZipFile) as exc:
        kind = ("Excel" if suffix in EXCEL_SUFFIXES else
                "Parquet" if suffix in PARQUET_SUFFIXES else "delimited text")
        raise ReadError(f"cannot read {name} as {kind}: {_first_line(exc, 'unreadable')}") \
            from None


def _read_delimited(source: str, sep: str | None, encoding: str, na: list[str],
                    dtype: Mapping[Any, type]) -> pd.DataFrame:
    codecs.lookup(encoding)  # LookupError for an unknown name, before reading anything
    if source == "-":
        raw = sys.stdin.buffer.read()
        handle: Any = io.BytesIO(raw)
        sample = raw[:_SNIFF_BYTES]
    else:
        with open(source, "rb") as stream:
            sample = stream.read(_SNIFF_BYTES)
        handle = source
    if sep is None:
        sep = sniff_separator(sample.decode(encoding, errors="replace"))
    else:
        sep = SEPARATORS.get(sep.lower(), sep)
        if len(sep) != 1:
            raise ReadError(f"--sep must be one character (or tab, comma, semicolon), got {sep!r}")
    name = "stdin" if source == "-" else source
    text = sample.decode(encoding, errors="replace")
    if "\x00" in text:  # no text holds NUL characters
        raise ReadError(f"cannot read {name}: it holds NUL bytes, so it is binary data or text "
                       f"in another encoding than {encoding}; pass --encoding (e.g. --encoding "
                       "utf-16), or name an Excel or Parquet file .xlsx or .parquet")
    try:  # newline="": a line may end with "\r", "\n" or both, as pandas reads it
        header = next(csv.reader(io.StringIO(text, newline=""), delimiter=sep), [])
    except csv.Error as exc:
        raise ReadError(f"cannot read {name} as delimited text: its first line is not a "
                       f"header ({exc})") from None
    _reject_repeated_names(header, name)
    return pd.read_csv(handle, sep=sep, encoding=encoding, keep_default_na=False,
                       na_values=na, dtype=dtype or None, low_memory=False)


def _reject_repeated_names(header: Sequence[Any], name: str) -> None:
    """pandas renames a repeated column (``value``, ``value.1``): which one is meant, or are
    two raters one? Refuse instead of choosing silently."""
    seen: set[str] = set()
    for column in header:
        if pd.isna(column) or str(column).strip() == "":
            continue
        if str(column) in seen:
            raise ReadError(f"the column name {str(column)!r} appears more than once in the "
                           f"header of {name}; give each column its own name")
        seen.add(str(column))


def _column(frame: pd.DataFrame, name: str, role: str) -> str:
    """The column that from_long will use for ``role`` (crowd-kit's names as fallback)."""
    fallback = {"item": "task", "rater": "worker", "value": "label"}[role]
    if name not in frame.columns and name == role and fallback in frame.columns:
        return fallback
    return name


def _numeric_categories(tokens: Sequence[str]) -> list[Any]:
    out: list[Any] = []
    for token in tokens:
        try:
            number = float(token)
        except ValueError:
            raise ReadError(f"--categories: {token!r} is not a number, but the values "
                           "are numbers") from None
        out.append(int(number) if number.is_integer() else number)
    return out


#: cells that hold several values (Parquet lists, structs and maps; lists in an Excel cell
#: cannot occur): the command line reads one label per cell
NESTED = {list: "lists", tuple: "lists", np.ndarray: "lists", set: "sets", frozenset: "sets",
          dict: "records"}


def _reject_nested(frame: pd.DataFrame, columns: Sequence[Any] | pd.Index, name: str,
                   labels: Sequence[Any] | pd.Index) -> None:
    """Refuse a column whose cells hold several values, naming the column and a row (only
    columns pandas finds "mixed" are scanned, up to their first such cell); for lists among
    the ``labels`` (the value columns), say how to read multi-label annotations."""
    for column in dict.fromkeys(columns):
        if column not in frame.columns or frame[column].dtype != object:
            continue
        if pd.api.types.infer_dtype(frame[column], skipna=True) != "mixed":
            continue
        row, cell = next(((row, cell) for row, cell in enumerate(frame[column].array)
                          if isinstance(cell, tuple(NESTED))), (None, None))
        if row is None:
            continue
        kind = next(word for cls, word in NESTED.items() if isinstance(cell, cls))
        shown = repr(cell.tolist() if isinstance(cell, np.ndarray) else cell)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        hint = ("; for multi-label annotations, pass kappalab.Annotations.from_long a column "
                "of Python lists (each list is one annotation's set of labels)"
                if kind != "records" and column in labels else "")
        raise ReadError(
            f"column {column!r} of {name} holds {kind} of values (row {row + 1}: {shown}), "
            "but the command line reads one label (a text or a number) per cell: store one "
            f"label per cell{hint}")


def read_annotations(source: str, *, wide: bool = False, item: str = "item",
                     rater: str | None = "rater", value: str = "value",
                     sep: str | None = None, encoding: str = "utf-8-sig",
                     na_values: Sequence[str] = (),
                     categories: Sequence[str] | None = None,
                     duplicates: str = "raise") -> Annotations:
    """Annotations from a long or wide file, as the console command reads them.

    Parameters
    ----------
    source : str
        A path or ``"-"`` (stdin); see :func:`read_table` for the formats.
    wide : bool
        Items × raters: the first column holds the item ids, every other column is a rater,
        an empty cell is a missing annotation. Otherwise one row per annotation, with the
        columns ``item``, ``rater`` (``None``: raters unknown) and ``value``.
    item, rater, value : str
        Column names of a long file.
    sep, encoding, na_values
        As in :func:`read_table`. Item and rater ids are read as text.
    categories : sequence of str, optional
        The categories in their (ordinal) order; converted to numbers when the values are
        numbers.
    duplicates : {"raise", "first", "last", "separate"}
        What a rater's repeated annotation of an item in a long file does
        (:meth:`Annotations.from_long`'s ``duplicates=``); ``"raise"`` names the option
        ``--duplicates``.

    Returns
    -------
    Annotations
        An error about a row of the file names it as the user sees it: the line of a
        delimited text (the header is line 1; a quoted cell that spans lines shifts the
        count), the row of a spreadsheet (the header is row 1), the row of a Parquet file
        counted from 1. Rows of a long file whose value is missing are dropped with a
        :class:`~kappalab.errors.DroppedAnnotationsWarning`.

    Raises
    ------
    ReadError
        An unreadable file, a wide row without an item id, a non-numeric category for
        numeric values.
    KappalabError
        Faults of the annotations themselves (an :class:`~kappalab.errors.AnnotationError`:
        a duplicated pair, an empty file, ...) or of an option (an
        :class:`~kappalab.errors.InvalidParameterError`).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "wide.csv"
    >>> _ = path.write_text("item,A,B\\n1,x,x\\n2,x,y\\n3,y,\\n")
    >>> ann = read_annotations(str(path), wide=True)
    >>> ann.n_items, ann.n_raters, list(ann.categories)
    (3, 2, ['x', 'y'])
    """
    if wide:
        frame = read_table(source, sep=sep, encoding=encoding, na_values=na_values,
                           text_columns=[0])
        _reject_nested(frame, frame.columns, _source_name(source), frame.columns[1:])
        if frame.shape[1] < 2:
            raise ReadError(f"a wide file needs an item column and rater columns; "
                           f"{source} has {frame.shape[1]} column(s)")
        frame = frame.set_index(frame.columns[0])
        if frame.index.hasnans:
            row = int(np.flatnonzero(pd.isna(frame.index))[0]) + 2  # 1-based, after the header
            where = "line" if _file_kind(source) == "text" else "row"
            raise ReadError(f"{where} {row} of the wide file has no item id (first column)")
        frame = _typed_cells(frame, list(frame.columns), source)
        numeric = all(pd.api.types.is_numeric_dtype(t) for t in frame.dtypes)
        cats = None if categories is None else (
            _numeric_categories(categories) if numeric else list(text_cell_labels(categories)))
        return Annotations.from_wide(frame, categories=cats, raters_as_rows=False)
    text = [item, "task" if item == "item" else item]
    if rater is not None:
        text += [rater, "worker" if rater == "rater" else rater]
    frame = read_table(source, sep=sep, encoding=encoding, na_values=na_values,
                       text_columns=list(dict.fromkeys(text)))
    kind = _file_kind(source)
    first = 1 if kind == "parquet" else 2  # a text or a sheet: line (row) 1 is the header
    frame.index = pd.RangeIndex(first, first + len(frame))  # rows named as the user sees them
    _reject_missing_columns(frame, {"item": item, "rater": rater, "value": value},
                            _source_name(source))
    column = _column(frame, value, "value")
    used = [_column(frame, item, "item"), column]
    used += [] if rater is None else [_column(frame, rater, "rater")]
    _reject_nested(frame, used, _source_name(source), [column])
    frame = _typed_cells(frame, [column] if column in frame.columns else [], source)
    cats = None
    if categories is not None:
        numeric = column in frame.columns and pd.api.types.is_numeric_dtype(frame[column])
        cats = (_numeric_categories(categories) if numeric
                else list(text_cell_labels(categories)))
    try:
        return Annotations.from_long(frame, item=item, rater=rater, value=value,
                                     categories=cats, duplicates=duplicates)
    except DuplicateAnnotationError as exc:
        others = "|".join(p for p in DUPLICATE_POLICIES if p != "raise")
        found = str(exc).removesuffix("; " + DUPLICATES_REMEDY)
        raise ReadError(f"{found}; pass --duplicates {others} to keep each rater's first or "
                       "last annotation of an item, or to count each repeat as a separate "
                       "rater") from None
    except KappalabError as exc:
        if kind != "text":
            raise
        # the frame's index is the line number: "row 18" of the message is line 18
        raise type(exc)(_ROW.sub(r"line \1", str(exc))) from None


def _reject_missing_columns(frame: pd.DataFrame, names: dict[str, str | None],
                            name: str) -> None:
    """Refuse a long file without the item, rater or value column, naming the options that
    name them, and ``--wide`` when neither the rater nor the value column is there and the
    columns look like raters (:func:`_looks_wide`)."""
    missing = [role for role, column in names.items()
               if column is not None and _column(frame, column, role) not in frame.columns]
    if not missing:
        return
    listed = [f"column {names[role]!r} ({role}s)" for role in missing]
    shown = listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} and {listed[-1]}"
    options = ", ".join(f"--{role} COLUMN" for role in missing)
    options += " (--rater none when the raters are unknown)" if "rater" in missing else ""
    message = (f"{shown} {'is' if len(missing) == 1 else 'are'} not in {name}; its columns "
               f"are {[str(c) for c in frame.columns]}: name "
               f"{'it' if len(missing) == 1 else 'them'} with {options}")
    if {"rater", "value"} <= set(missing) and _looks_wide(frame):
        message += ("; or, if the first column holds the items and each other column is a "
                    "rater (items × raters), pass --wide")
    raise ReadError(message)


def _looks_wide(frame: pd.DataFrame) -> bool:
    """Whether the columns after the first look like raters: at least two, at most 20
    distinct labels among them, and each sharing a label with another (in a long file the
    rater ids and the labels are apart)."""
    if frame.shape[1] < 3:
        return False
    sets = [set(pd.unique(frame[c].dropna().astype(str))) for c in frame.columns[1:]]
    if len(set().union(*sets)) > 20:
        return False
    return all(labels & set().union(*(sets[:k] + sets[k + 1:]))
               for k, labels in enumerate(sets))


_ROW = re.compile(r"\brow (\d+)\b")


def _file_kind(source: str) -> str:
    """``"excel"``, ``"parquet"`` or ``"text"`` (delimited text, stdin), by the suffix."""
    suffix = "" if source == "-" else os.path.splitext(source)[1].lower()
    return ("excel" if suffix in EXCEL_SUFFIXES else
            "parquet" if suffix in PARQUET_SUFFIXES else "text")


def _typed_cells(frame: pd.DataFrame, columns: Sequence[Any], source: str) -> pd.DataFrame:
    """The text cells of ``columns``, each typed by its own text (a number when written as
    one, whatever else the column holds: :func:`~kappalab.encoding.text_cell_labels`), so the
    labels follow the identity rule of the constructors. Parquet columns keep their types."""
    if source != "-" and os.path.splitext(source)[1].lower() in PARQUET_SUFFIXES:
        return frame
    text = [c for c in columns if not (pd.api.types.is_numeric_dtype(frame[c])
                                       or pd.api.types.is_bool_dtype(frame[c]))]
    if not text:
        return frame
    for column in text:  # a loop over the columns (the frame is the one read here)
        frame[column] = pd.Series(text_cell_labels(frame[column].to_numpy(dtype=object)),
                                  index=frame.index, dtype=object)
    return frame
