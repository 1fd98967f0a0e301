"""Errors and warnings raised by kappalab.

Every input fault is a subclass of :class:`KappalabError`, itself a :class:`ValueError`, so
``except KappalabError`` (or ``except ValueError``) catches them all; each message names the
fault and where it is. A fault of the annotations (empty, missing or duplicated values, an
unknown category, ...) is an :class:`AnnotationError`; an option outside its domain (an
unknown level, a bad matrix, a confidence of 95) is an :class:`InvalidParameterError`, which
is not an annotation error. A DataFrame of no recognisable layout, :class:`LayoutError`, is
both: the option (``item=``, ``rater=``, ``value=``) or the data may be at fault. The one
other error, :class:`ReplicationError` (a :class:`RuntimeError`), reports that the replicate
function of a simulation study failed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from types import FrameType, ModuleType


class KappalabError(ValueError):
    """Base class of every input fault that kappalab detects: a fault of the annotations
    (:class:`AnnotationError`) or of an option (:class:`InvalidParameterError`)."""


class AnnotationError(KappalabError):
    """Base class of the faults of the annotations themselves (empty, missing or duplicated
    values, an unknown category, a count that is not one)."""


class EmptyDataError(AnnotationError):
    """There are no annotations (or nothing that could be paired)."""


class MissingValueError(AnnotationError):
    """A NaN or infinite value where none is allowed."""


class DuplicateAnnotationError(AnnotationError):
    """The same rater annotated the same item more than once."""


class InvalidCountError(AnnotationError):
    """A count that is negative or not a whole number."""


class UnknownCategoryError(AnnotationError):
    """A value outside the categories fixed by ``categories=``."""


class NonNumericError(AnnotationError):
    """A numeric distance or weight asked of non-numeric categories."""


class UnknownRatersError(AnnotationError):
    """A coefficient needs rater identities, but the data have none (e.g. counts)."""


class RaterCountError(AnnotationError):
    """A two-rater coefficient given data with another number of raters."""


class InvalidParameterError(KappalabError):
    """An option with a value outside its domain (unknown level, bad matrix, ...); not an
    :class:`AnnotationError` (until 0.2.0 it was a subclass of it)."""


class LayoutError(InvalidParameterError, AnnotationError):
    """A DataFrame given to an estimator that is neither recognisably long (columns named for
    the item, the rater and the value) nor plainly wide (every column a rater): read it with
    ``Annotations.from_long(df, item=, rater=, value=)`` or ``Annotations.from_wide(df)``."""


class ReplicationError(RuntimeError):
    """A simulation study's replicate function failed; the message names the cell and the
    replication (:func:`kappalab.simulate.run_study`)."""


class UndefinedCoefficientWarning(RuntimeWarning):
    """A coefficient is undefined on the data (e.g. all annotations in one category)."""


class ConvergenceWarning(RuntimeWarning):
    """An iterative fit (the EM of a model of annotation) stopped at its iteration limit
    before its stopping rule was met."""


class CheckpointWarning(UserWarning):
    """A simulation study's checkpoint holds damaged records (cut short, failing their
    checksum, or not records at all): they are removed and their replications run again; the
    message names the file, the lines and the replications
    (:func:`kappalab.simulate.run_study`)."""


class SharedRatersWarning(UserWarning):
    """Two replications share rater ids: they are not independent replications."""


class PairwiseMeanWarning(UserWarning):
    """A mean over rater pairs (Light's κ) on data where most pairs share few items."""


class ExcludedRatersWarning(UserWarning):
    """Raters left out of a mean over raters (the inter-annotator correlation) because their
    own value is undefined (too few shared items, constant ratings)."""


class DroppedAnnotationsWarning(UserWarning):
    """Rows with a missing value were dropped on ingest."""


class IncompleteItemsWarning(DroppedAnnotationsWarning):
    """Items without a rating from every rater were left out of a coefficient that needs a
    complete items × raters table (the intraclass correlation)."""


class LayoutWarning(UserWarning):
    """Wide data that look like another layout (a count table, raters × items, an id column)."""


class LabelWarning(UserWarning):
    """Labels kept apart although they are equal as text or as numbers (``1`` and ``"1"``,
    ``True`` and ``1``, ``"1"`` and ``"1.0"``): the label identity rule of
    :func:`kappalab.encoding.label_identity` (docs/guide/data_layouts.md, "Label identity")."""


def warn(message: str, category: type[Warning]) -> None:
    """Issue a warning attributed to the first caller outside kappalab (the user's line)."""
    import os
    import sys
    import warnings

    package_dir = os.path.dirname(os.path.abspath(__file__))
    frame: FrameType | None = sys._getframe(1)
    level = 2  # stacklevel 2 is the caller of warn()
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package_dir):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def warn_deprecated_module(message: str) -> None:
    """Warn once, with a :class:`DeprecationWarning`, at the line that imports a deprecated
    alias module: called by the alias's body, which runs once, when the module is first
    imported.

    The import machinery between that line and the module's body is skipped:
    ``importlib._bootstrap`` (which :func:`warnings.warn` skips itself),
    ``importlib.import_module`` and ``kappalab/__init__.py`` (whose ``__getattr__`` imports
    the aliases on first use: ``kl.distributed``, ``kl.report``, ``kl.diagnostics``).

    Parameters
    ----------
    message : str
        The warning: the old name, its removal and the new name.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_deprecated_module("kappalab.old is deprecated; use kappalab.new")
    >>> caught[0].category.__name__, str(caught[0].message)
    ('DeprecationWarning', 'kappalab.old is deprecated; use kappalab.new')
    """
    import importlib
    import sys
    import warnings
    from pathlib import Path

    machinery = (importlib.__file__, str(Path(__file__).with_name("__init__.py")))
    frame: FrameType | None = sys._getframe(2)  # the frame above the alias module's body
    level = 3  # stacklevel 1 is this function, 2 the module's body
    while frame is not None:
        name = frame.f_code.co_filename
        if name in machinery:
            level += 1
        elif not ("importlib" in name and "_bootstrap" in name):
            break
        frame = frame.f_back
    warnings.warn(message, DeprecationWarning, stacklevel=level)


def forwarding_to(module: ModuleType, alias: str
                  ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a deprecated alias module: every name of
    ``module``, and none of the alias's own (no ``__all__``, so ``from alias import *`` takes
    nothing).

    Parameters
    ----------
    module : module
        The module the alias stands for.
    alias : str
        The alias's name (its ``__name__``), for the error of a name it lacks.

    Returns
    -------
    tuple of callable
        ``(__getattr__, __dir__)``, to assign in the alias's body.

    Examples
    --------
    >>> import math
    >>> getattr_, dir_ = forwarding_to(math, "kappalab.old_math")
    >>> getattr_("pi") == math.pi, "sqrt" in dir_()
    (True, True)
    """
    def forwarded(name: str) -> Any:
        if name.startswith("__"):  # the alias has no names of its own (no __all__)
            raise AttributeError(f"module {alias!r} has no attribute {name!r}")
        return getattr(module, name)

    def names() -> list[str]:
        return dir(module)

    return forwarded, names


def label(value: Any) -> str:
    """repr of a label, numpy scalars shown as plain Python values (5, not np.int64(5))."""
    scalar = hasattr(value, "item") and getattr(value, "ndim", 1) == 0
    return repr(value.item() if scalar else value)

