"""Deprecated alias of :mod:`kappalab.out_of_core`, kept for the 0.2 releases.

The module was renamed in 0.2.0 because its name clashed with Dask's ``distributed``
package; ``import kappalab.distributed`` (or ``kl.distributed``) warns once with a
:class:`DeprecationWarning` and gives the names of :mod:`kappalab.out_of_core`. It will be
removed in 0.3.0.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from pathlib import Path
from types import FrameType
from typing import Any

from . import out_of_core


def _importer_level() -> int:
    """The ``stacklevel`` of the code that imports this module, so that the warning names the
    user's line: ``warnings.warn`` skips the frames of ``importlib._bootstrap`` itself, not
    those of ``importlib.import_module`` and ``kappalab.__getattr__`` (``kl.distributed``)."""
    machinery = (importlib.__file__, str(Path(__file__).with_name("__init__.py")))
    frame: FrameType | None = sys._getframe(2)  # the frame above the module's body
    level = 2
    while frame is not None:
        name = frame.f_code.co_filename
        if name in machinery:
            level += 1
        elif not ("importlib" in name and "_bootstrap" in name):
            break
        frame = frame.f_back
    return level


warnings.warn("kappalab.distributed is deprecated and will be removed in 0.3.0; it was renamed "
              "kappalab.out_of_core (kl.dask_estimate and kl.dask_cross_kappa are unchanged)",
              DeprecationWarning, stacklevel=_importer_level())


def __getattr__(name: str) -> Any:
    if name.startswith("__"):  # the alias has no names of its own (no __all__)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(out_of_core, name)


def __dir__() -> list[str]:
    return dir(out_of_core)
