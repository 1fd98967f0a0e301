"""Errors and warnings raised by kappalab.

Every input fault is a subclass of :class:`AnnotationError`, itself a :class:`ValueError`, so
``except ValueError`` catches them all; each message names the fault and where it is.
"""

from __future__ import annotations


class AnnotationError(ValueError):
    """Base class of every input fault that kappalab detects."""


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


class InvalidParameterError(AnnotationError):
    """An option with a value outside its domain (unknown level, bad matrix, ...)."""


class UndefinedCoefficientWarning(RuntimeWarning):
    """A coefficient is undefined on the data (e.g. all annotations in one category)."""


class DroppedAnnotationsWarning(UserWarning):
    """Rows with a missing value were dropped on ingest."""
