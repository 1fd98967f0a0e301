r"""The checkpoint file of :func:`kappalab.simulate.run_study`: data only, every record checked.

A checkpoint is a text file of JSON lines (UTF-8, in fact ASCII):

* line 1, the format: ``{"format":"kappalab-study-checkpoint/2"}``;
* then one line per finished replication,
  ``{"sha256":"<64 hex digits>","record":{"key":...,"cell":c,"replication":r,"rows":[...]}}``,
  where ``sha256`` is the SHA-256 digest of the bytes of ``record`` exactly as they stand in
  the line, ``key`` the replication's identity (below), ``c`` and ``r`` its cell and
  replication numbers, and ``rows`` the rows ``replicate`` returned, each a list of
  ``[name, value]`` pairs in their order.

Values are stored as data, never as code. JSON's own null, true/false, numbers, strings and
arrays hold None, bool, int (``|n| ≤ 2⁵³``), finite float (Python's shortest repr, which reads
back to the same double), str and list; everything else is an object tagged by ``"$"``:
``{"$":"int","hex":...}`` (larger ints), ``{"$":"float","bits":...}`` (NaN and ±inf, the 64
IEEE bits in hex), ``{"$":"complex","real":...,"imag":...}``, ``{"$":"bytes","base64":...}``,
``{"$":"tuple","items":[...]}``, ``{"$":"dict","items":[[key, value], ...]}``, a numpy scalar
``{"$":"scalar","dtype":"<f8","base64":...}`` or array ``{"$":"array","dtype":"<f8",
"shape":[...],"base64":...}`` (the raw bytes in C order: booleans, integers, floats, complex,
datetimes, timedeltas and fixed-width strings), ``{"$":"str_","text":...}`` and
``{"$":"bytes_","base64":...}`` (numpy's string scalars). A record read back is equal to the
one written, bit for bit and type for type (NaN payloads, −0.0 and dtypes included). Reading
a checkpoint parses JSON and copies bytes into numpy arrays of a checked dtype: it cannot run
code, whatever the file holds.

A record's key is the SHA-256 digest of the replicate function's identity, the cell, the
study's seed, and the cell's and the replication's positions. The identity of a function is
its module and qualified name with a digest of its code object (bytecode, constants, names;
not its line numbers or docstring), its default arguments, the values it closes over, and the
module-level constants (numbers, strings, tuples of them) and functions of its own module that
it uses, by the same rule; a :func:`functools.partial` adds every bound argument; values are
digested by their bytes (a numpy array by dtype, shape and data; containers element by
element; other objects by their pickle), never by ``repr``, which elides large arrays. Two
different lambdas therefore never share records, and changing ``replicate``'s code makes its
records stale (they stay in the file but are not used). Code in other modules (a library's,
kappalab's) and mutable module-level objects are not part of the key.

Examples
--------
>>> import numpy as np
>>> from kappalab.simulate.checkpoint import decode_rows, encode_rows
>>> rows = [{"alpha": 0.57, "se": float("nan"), "n": np.int32(7)}]
>>> encoded = encode_rows(rows, 0, 0)
>>> for pair in encoded[0]:
...     print(pair)
['alpha', 0.57]
['se', {'$': 'float', 'bits': '7ff8000000000000'}]
['n', {'$': 'scalar', 'dtype': '<i4', 'base64': 'BwAAAA=='}]
>>> decode_rows(encoded)
[{'alpha': 0.57, 'se': nan, 'n': np.int32(7)}]
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import math
import os
import pickle
import re
import stat
import struct
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import InvalidParameterError

FORMAT = "kappalab-study-checkpoint/2"
HEADER = json.dumps({"format": FORMAT}, separators=(",", ":")).encode() + b"\n"
_OLD_FORMAT = b"kappalab-study-checkpoint/1"
_PREFIX = b'{"sha256":"'
_MIDDLE = b'","record":'
_TEXT = len(_PREFIX) + 64 + len(_MIDDLE)  # where the record's text starts in a line
_JSON_INT = 2 ** 53  # beyond, JSON readers other than Python's lose digits
_KINDS = "biufcmMUS"  # numpy dtypes stored as raw bytes
_DTYPE = re.compile(r"[<>|][biufcmMUS]\d+(?:\[\d*[A-Za-z]+\])?")
_HEX64 = re.compile(r"[0-9a-f]{64}")


# ------------------------------------------------------------------------------ identity
def replicate_identity(replicate: Callable) -> str:
    """A digest of the replicate function by what it is and computes (see the module's text).

    Raises :class:`~kappalab.errors.InvalidParameterError` when a bound argument, default or
    closed-over value can be neither read as data nor pickled.
    """
    digest = _Digest(home=_home(replicate))
    digest.feed(replicate, "replicate", strict=True)
    return digest.hexdigest()


def record_key(identity: str, cell: dict, seed: int, c: int, r: int) -> str:
    """The key of replication r of cell c (at position c of the grid) of a study."""
    digest = _Digest(home=None)
    digest.feed((identity, cell, seed, c, r), f"cell {c}", strict=True)
    return digest.hexdigest()


def _home(replicate: Any) -> str | None:
    """The module that defines the replicate function: its functions are digested by code."""
    while isinstance(replicate, functools.partial):
        replicate = replicate.func
    if isinstance(replicate, types.MethodType):
        replicate = replicate.__func__
    if not isinstance(replicate, (types.FunctionType, type)):
        replicate = type(replicate)
    return getattr(replicate, "__module__", None)


_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, range, type(Ellipsis))


class _Digest:
    """SHA-256 over a tagged, length-prefixed serialisation of a value, recursively."""

    def __init__(self, home: str | None):
        self.hash = hashlib.sha256()
        self.home = home
        self.seen: dict[int, int] = {}  # functions already fed (cycles: recursion)

    def hexdigest(self) -> str:
        return self.hash.hexdigest()

    def put(self, tag: bytes, payload: bytes = b"") -> None:
        self.hash.update(tag + len(payload).to_bytes(8, "little") + payload)

    def text(self, tag: bytes, value: str) -> None:
        self.put(tag, value.encode("utf-8", "surrogatepass"))

    def feed(self, value: Any, where: str, strict: bool) -> None:
        kind = type(value)
        if value is None:
            self.put(b"N")
        elif kind is bool:
            self.put(b"B", b"1" if value else b"0")
        elif kind is int:
            self.text(b"i", hex(value))
        elif kind is float:
            self.put(b"f", struct.pack("<d", value))
        elif kind is complex:
            self.put(b"c", struct.pack("<dd", value.real, value.imag))
        elif kind is str:
            self.text(b"s", value)
        elif kind in (bytes, bytearray):
            self.put(b"b", bytes(value))
        elif kind is np.ndarray and not value.dtype.hasobject:
            self.text(b"a", f"{value.dtype.descr}|{value.shape}")
            self.put(b"d", np.ascontiguousarray(value).tobytes())
        elif kind is np.ndarray:  # object dtype: its elements one by one
            self.text(b"o", repr(value.shape))
            for element in value.flat:
                self.feed(element, where, strict)
        elif isinstance(value, np.generic):
            self.text(b"g", f"{kind.__qualname__}|{value.dtype.descr}")
            self.put(b"d", value.tobytes())
        elif kind in (tuple, list):
            self.put(b"t" if kind is tuple else b"l", str(len(value)).encode())
            for index, element in enumerate(value):
                self.feed(element, f"{where}[{index}]", strict)
        elif kind in (set, frozenset):  # in no order: iteration order follows str hashes
            self.put(b"S" if kind is set else b"F",
                     b"".join(sorted(self.alone(element, where, strict) for element in value)))
        elif kind is dict:  # in no order: equal dicts built in another order are one key
            pairs = sorted(self.alone(key, where, strict) + self.alone(item, f"{where}[{key!r}]",
                                                                       strict)
                           for key, item in value.items())
            self.put(b"D", b"".join(pairs))
        elif isinstance(value, functools.partial):
            self.put(b"P")
            self.feed(value.func, where, strict)
            self.feed(value.args, f"{where}'s bound arguments", strict)
            self.feed(value.keywords, f"{where}'s bound argument", strict)
        elif isinstance(value, types.MethodType):
            self.put(b"M")
            self.feed(value.__func__, where, strict)
            self.feed(value.__self__, f"{where}'s object", strict)
        elif isinstance(value, types.FunctionType):
            self.function(value, where, strict)
        elif isinstance(value, types.CodeType):
            self.code(value, skip=None)
        elif isinstance(value, (type, types.ModuleType, types.BuiltinFunctionType)):
            self.text(b"n", f"{getattr(value, '__module__', '')}."
                            f"{getattr(value, '__qualname__', value.__name__)}")
            bound = getattr(value, "__self__", None)  # a method of an object (rng.random)
            if isinstance(value, types.BuiltinFunctionType) and bound is not None \
                    and not isinstance(bound, types.ModuleType):
                self.pickled(bound, f"{where}'s object", strict)
        elif isinstance(_call(kind), types.FunctionType):
            # a callable object: its class by name and code, its state as data
            self.text(b"O", f"{kind.__module__}.{kind.__qualname__}")
            self.function(_call(kind), where, strict)
            self.pickled(value, where, strict)
        else:
            self.pickled(value, where, strict)

    def alone(self, value: Any, where: str, strict: bool) -> bytes:
        """The digest of one value on its own (for unordered containers): of its siblings,
        whose order may vary between processes, it sees none."""
        sub = _Digest(self.home)
        sub.seen = dict(self.seen)
        sub.feed(value, where, strict)
        return sub.hash.digest()

    def pickled(self, value: Any, where: str, strict: bool) -> None:
        kind = type(value)
        try:
            data = pickle.dumps(value, protocol=4)
        except Exception as exc:
            if strict:
                raise InvalidParameterError(
                    f"run_study: a checkpoint keys its records by replicate's content, but "
                    f"{where} (a {kind.__module__}.{kind.__qualname__}) can be neither read "
                    f"as data nor pickled ({type(exc).__name__}: {exc}); bind a value that "
                    "can, or run without checkpoint=") from exc
            self.text(b"?", f"{kind.__module__}.{kind.__qualname__}")
            return
        self.text(b"p", f"{kind.__module__}.{kind.__qualname__}")
        self.put(b"d", data)

    def function(self, function: types.FunctionType, where: str, strict: bool) -> None:
        name = f"{function.__module__}.{function.__qualname__}"
        if id(function) in self.seen:  # by name: the order of a set's elements may vary
            self.text(b"R", name)
            return
        self.seen[id(function)] = len(self.seen)
        # a named function of another module (a library's) is known by its name; a function
        # of replicate's own module, a lambda or a nested function by its content too
        deep = (function.__module__ == self.home or "<lambda>" in function.__qualname__
                or "<locals>" in function.__qualname__)
        self.text(b"L" if deep else b"n", name)
        if not deep:
            return
        doc = function.__doc__ if isinstance(function.__doc__, str) else None
        self.code(function.__code__, skip=doc)
        self.feed(function.__defaults__, f"{where}'s default arguments", strict)
        self.feed(function.__kwdefaults__, f"{where}'s default arguments", strict)
        cells = []
        for cell in function.__closure__ or ():
            try:
                cells.append(cell.cell_contents)
            except ValueError:  # a cell not yet filled
                cells.append(None)
        self.feed(tuple(cells), f"{where}'s closure", strict)
        scope = function.__globals__
        for name in sorted(_global_names(function.__code__)):
            if name not in scope:
                continue
            value = scope[name]
            self.text(b"G", name)
            if isinstance(value, (types.FunctionType, functools.partial, type,
                                  types.ModuleType, types.BuiltinFunctionType)) \
                    or _constant(value):
                self.feed(value, f"{where}'s global {name}", strict=False)
            else:  # mutable state (a cache, a counter): not what the function computes
                kind = type(value)
                self.text(b"?", f"{kind.__module__}.{kind.__qualname__}")

    def code(self, code: types.CodeType, skip: str | None) -> None:
        self.put(b"C", struct.pack("<4q", code.co_argcount, code.co_posonlyargcount,
                                   code.co_kwonlyargcount, code.co_flags))
        self.put(b"x", code.co_code)
        self.put(b"e", getattr(code, "co_exceptiontable", b""))
        for names in (code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars):
            self.text(b"v", "\x00".join(names))
        consts = code.co_consts
        for index, const in enumerate(consts):
            if index == 0 and skip is not None and const is skip:
                self.put(b"_")  # the docstring
            elif isinstance(const, types.CodeType):
                self.code(const, skip=None)
            else:
                self.feed(const, "a constant", strict=False)


def _call(kind: type) -> Any:
    """The ``__call__`` a class defines or inherits (other than type's own), or None."""
    return next((vars(base)["__call__"] for base in kind.__mro__ if "__call__" in vars(base)),
                None)


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _constant(value: Any) -> bool:
    if isinstance(value, _IMMUTABLE):
        return True
    if type(value) in (tuple, frozenset):
        return all(_constant(element) for element in value)
    return False


# ------------------------------------------------------------------------------ the codec
def encode_rows(rows: list[dict], c: int, r: int) -> list:
    """The rows as JSON data; a value that is not data gets a clear error."""
    return [[[_encode(key, _Where(c, r, None)), _encode(value, _Where(c, r, key))]
             for key, value in row.items()] for row in rows]


@dataclass(frozen=True)
class _Where:
    c: int
    r: int
    key: Any
    path: str = ""

    def deeper(self, step: str) -> _Where:
        return _Where(self.c, self.r, self.key, self.path + step)

    def fault(self, value: Any, what: str | None = None) -> InvalidParameterError:
        kind = type(value)
        what = what or f"a {kind.__module__}.{kind.__qualname__}"
        place = "a key" if self.key is None else f"{self.key!r}{self.path}"
        return InvalidParameterError(
            f"run_study: replicate's result on cell {self.c}, replication {self.r} holds "
            f"{what} at {place}, which a checkpoint "
            "cannot store: it keeps data only (None, booleans, numbers, strings, bytes, numpy "
            "scalars and arrays of numbers, dates or fixed-width strings, and lists, tuples "
            "and dicts of them). Return the numbers (an estimate's .value and .se, say), or "
            "run without checkpoint=")


def _encode(value: Any, where: _Where) -> Any:
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return value if -_JSON_INT <= value <= _JSON_INT else {"$": "int", "hex": hex(value)}
    if kind is float:
        if math.isfinite(value):
            return value
        return {"$": "float", "bits": struct.pack(">d", value).hex()}
    if kind is complex:
        return {"$": "complex", "real": _encode(value.real, where),
                "imag": _encode(value.imag, where)}
    if kind is bytes:
        return {"$": "bytes", "base64": _b64(value)}
    if kind is np.str_:
        return {"$": "str_", "text": str(value)}
    if kind is np.bytes_:
        return {"$": "bytes_", "base64": _b64(bytes(value))}
    if isinstance(value, np.generic):
        if not _storable(value.dtype):
            raise where.fault(value, f"a numpy scalar of dtype {value.dtype}")
        return {"$": "scalar", "dtype": value.dtype.str, "base64": _b64(value.tobytes())}
    if kind is np.ndarray:
        if not _storable(value.dtype):
            raise where.fault(value, f"an array of dtype {value.dtype}")
        return {"$": "array", "dtype": value.dtype.str, "shape": list(value.shape),
                "base64": _b64(np.ascontiguousarray(value).tobytes())}
    if kind is list:
        return [_encode(item, where.deeper(f"[{i}]")) for i, item in enumerate(value)]
    if kind is tuple:
        return {"$": "tuple",
                "items": [_encode(item, where.deeper(f"[{i}]")) for i, item in enumerate(value)]}
    if kind is dict:
        return {"$": "dict", "items": [[_encode(k, where.deeper(" (a key)")),
                                        _encode(v, where.deeper(f"[{k!r}]"))]
                                       for k, v in value.items()]}
    raise where.fault(value)


def _storable(dtype: np.dtype) -> bool:
    return dtype.kind in _KINDS and dtype.fields is None and dtype.subdtype is None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


class _Damaged(Exception):
    """A record that is not what the format writes (the reason is the message)."""


def decode_rows(rows: Any) -> list[dict]:
    if type(rows) is not list:
        raise _Damaged("its rows are not a list")
    out = []
    for row in rows:
        if type(row) is not list:
            raise _Damaged("a row is not a list of pairs")
        decoded = {}
        for pair in row:
            if type(pair) is not list or len(pair) != 2:
                raise _Damaged("a row is not a list of pairs")
            decoded[_decode(pair[0])] = _decode(pair[1])
        out.append(decoded)
    return out


def _decode(value: Any) -> Any:
    kind = type(value)
    if value is None or kind in (bool, str, float):
        return value
    if kind is int:
        if not -_JSON_INT <= value <= _JSON_INT:
            raise _Damaged("an integer out of JSON's exact range is not tagged")
        return value
    if kind is list:
        return [_decode(item) for item in value]
    if kind is not dict:
        raise _Damaged(f"a value of JSON type {kind.__name__}")
    tag = value.get("$")
    fields = set(value) - {"$"}
    expected = {"int": {"hex"}, "float": {"bits"}, "complex": {"real", "imag"},
                "bytes": {"base64"}, "str_": {"text"}, "bytes_": {"base64"},
                "tuple": {"items"}, "dict": {"items"}, "scalar": {"dtype", "base64"},
                "array": {"dtype", "shape", "base64"}}
    if tag not in expected or fields != expected[tag]:
        raise _Damaged(f"an object that is not a tagged value ({sorted(value)})")
    if tag == "int":
        text = _string(value["hex"])
        if not re.fullmatch(r"-?0x[0-9a-f]+", text):
            raise _Damaged("a bad integer")
        return int(text, 16)
    if tag == "float":
        bits = _string(value["bits"])
        if not re.fullmatch(r"[0-9a-f]{16}", bits):
            raise _Damaged("a bad float")
        return struct.unpack(">d", bytes.fromhex(bits))[0]
    if tag == "complex":
        real, imag = _decode(value["real"]), _decode(value["imag"])
        if type(real) is not float or type(imag) is not float:
            raise _Damaged("a bad complex number")
        return complex(real, imag)
    if tag == "bytes":
        return _unb64(value["base64"])
    if tag == "str_":
        return np.str_(_string(value["text"]))
    if tag == "bytes_":
        return np.bytes_(_unb64(value["base64"]))
    if tag in ("tuple", "dict"):
        items = value["items"]
        if type(items) is not list:
            raise _Damaged(f"a {tag} without a list of items")
        if tag == "tuple":
            return tuple(_decode(item) for item in items)
        if not all(type(pair) is list and len(pair) == 2 for pair in items):
            raise _Damaged("a dict whose items are not pairs")
        return {_decode(k): _decode(v) for k, v in items}
    dtype = _dtype(value["dtype"])
    data = _unb64(value["base64"])
    if tag == "scalar":
        if len(data) != dtype.itemsize or dtype.itemsize == 0:
            raise _Damaged("a numpy scalar of the wrong size")
        return np.frombuffer(data, dtype=dtype)[0]
    shape = value["shape"]
    if type(shape) is not list or not all(type(n) is int and n >= 0 for n in shape):
        raise _Damaged("an array with a bad shape")
    if math.prod(shape) * dtype.itemsize != len(data):
        raise _Damaged("an array whose data do not fill its shape")
    if dtype.itemsize == 0:
        return np.zeros(shape, dtype=dtype)
    return np.frombuffer(data, dtype=dtype).reshape(shape).copy()


def _string(value: Any) -> str:
    if type(value) is not str:
        raise _Damaged("a tagged value whose field is not a string")
    return value


def _unb64(value: Any) -> bytes:
    try:
        return base64.b64decode(_string(value).encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError) as exc:
        raise _Damaged("bad base64 data") from exc


def _dtype(text: Any) -> np.dtype:
    # checked against the pattern before numpy parses it: only plain numeric, date and
    # fixed-width string dtypes, never object or structured ones
    if type(text) is not str or not _DTYPE.fullmatch(text):
        raise _Damaged(f"a dtype that the format does not store ({text!r})")
    try:
        dtype = np.dtype(text)
    except TypeError as exc:
        raise _Damaged(f"an unknown dtype {text!r}") from exc
    if not _storable(dtype) or dtype.str != text:
        raise _Damaged(f"a dtype that the format does not store ({text!r})")
    return dtype


# ------------------------------------------------------------------------------ the file
@dataclass(frozen=True)
class Damage:
    """A line of the file that is not a valid record: where, why, and the keys and (cell,
    replication) numbers it still shows (unverified; a line whose end was destroyed holds
    the records that it joined)."""

    line: int
    reason: str
    keys: tuple[str, ...]
    claimed: tuple[tuple[int, int], ...]


class Checkpoint:
    """The checkpoint file: :meth:`load` its records, :meth:`append` one per replication."""

    def __init__(self, path: Path):
        self.path = path

    def load(self) -> tuple[dict[str, list[dict]], list[Damage]]:
        """Every valid record by key, and the damaged ones, which are removed from the file
        (written anew beside it and moved over it, so that no valid record is lost)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return {}, []
        saved: dict[str, list[dict]] = {}
        damaged: list[Damage] = []
        with open(self.path, "rb") as stream:
            header = stream.readline()
            if header != HEADER and HEADER.startswith(header) and not stream.read(1):
                # cut short while its first line was written: it holds nothing yet
                stream.close()
                self.path.write_bytes(b"")
                return {}, []
            if header != HEADER:
                raise self._refusal(header)
            for number, line in enumerate(stream, start=2):
                try:
                    key, rows = _parse(line)
                except _Damaged as why:
                    damaged.append(_damage(number, line, str(why)))
                    continue
                saved.setdefault(key, rows)
        if damaged:
            self._rewrite({damage.line for damage in damaged})
        return saved, damaged

    def _refusal(self, header: bytes) -> InvalidParameterError:
        if header.startswith(b"\x80") and _OLD_FORMAT in header[:64]:
            return InvalidParameterError(
                f"{self.path} is a run_study checkpoint of format 1 (pickled records, written "
                "by kappalab 0.1), which this version does not read because unpickling a file "
                "can run code; delete it (its replications run again) or give another file")
        return InvalidParameterError(
            f"{self.path} is not a run_study checkpoint: its first line is not "
            f"{HEADER.decode().strip()}; give another file, or delete it if it is a damaged "
            "checkpoint")

    def _rewrite(self, bad: set[int]) -> None:
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name,
                                             suffix=".tmp")
        try:
            os.chmod(temporary, stat.S_IMODE(self.path.stat().st_mode))
            with open(self.path, "rb") as source, os.fdopen(handle, "wb") as target:
                for number, line in enumerate(source, start=1):
                    if number not in bad:
                        target.write(line)
                target.flush()
                os.fsync(target.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def append(self, key: str, c: int, r: int, rows: list[dict]) -> None:
        text = json.dumps({"key": key, "cell": c, "replication": r,
                           "rows": encode_rows(rows, c, r)},
                          ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode()
        line = (_PREFIX + hashlib.sha256(text).hexdigest().encode() + _MIDDLE + text + b"}\n")
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        with open(self.path, "ab") as stream:
            stream.write(HEADER + line if fresh else line)


def _parse(line: bytes) -> tuple[str, list[dict]]:
    if not line.endswith(b"\n"):
        raise _Damaged("it was cut short")
    line = line[:-1]
    if not (line.startswith(_PREFIX) and line[_TEXT - len(_MIDDLE):_TEXT] == _MIDDLE
            and line.endswith(b"}")):
        raise _Damaged("it is not a record of this format")
    text = line[_TEXT:-1]
    if hashlib.sha256(text).hexdigest().encode() != line[len(_PREFIX):_TEXT - len(_MIDDLE)]:
        raise _Damaged("its checksum does not match")
    try:
        record = json.loads(text, parse_constant=_no_constant)
        if type(record) is not dict or set(record) != {"key", "cell", "replication", "rows"} \
                or type(record["key"]) is not str or not _HEX64.fullmatch(record["key"]):
            raise _Damaged("it is not a record of this format")
        return record["key"], decode_rows(record["rows"])
    except (ValueError, TypeError, KeyError, RecursionError, OverflowError) as exc:
        raise _Damaged(f"it is not a record of this format ({type(exc).__name__})") from exc


def _no_constant(name: str) -> Any:
    raise _Damaged(f"a bare {name}")


def _damage(number: int, line: bytes, reason: str) -> Damage:
    """What a damaged line still tells of itself (unverified: for the message only)."""
    keys = tuple(match.group(1).decode() for match in re.finditer(rb'"key":"([0-9a-f]{64})"',
                                                                   line))
    claimed = tuple((int(match.group(1)), int(match.group(2))) for match in re.finditer(
        rb'"cell":(\d{1,18}),"replication":(\d{1,18})', line))
    return Damage(number, reason, keys, claimed)
