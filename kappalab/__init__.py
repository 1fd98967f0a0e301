"""kappalab: agreement and reliability of annotations.

>>> import kappalab as kl
>>> ann = kl.Annotations.from_wide([[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2]])
>>> round(float(kl.krippendorff_alpha(ann, level="ordinal")), 4)  # krippendorff.alpha agrees
0.7213
"""

# first of all: Ctrl-C while the console command starts is one line and exit code 130
from . import startup as _startup

from .annotations import Annotations
from .coefficients.multirater import (
    brennan_prediger,
    conger_kappa,
    fleiss_kappa,
    gwet_ac,
    janson_olsson_iota,
    krippendorff_alpha,
    percent_agreement,
)
from .coefficients.pairwise import bennett_s, cohen_kappa, light_kappa, scott_pi
from .coefficients.cross import cross_kappa, normalized_cross_kappa, reference_agreement
from .coefficients.disattenuation import (
    DisattenuatedCorrelation,
    SplitHalfReliability,
    disattenuated_correlation,
    split_half_reliability,
)
from .coefficients.correlation import InterAnnotatorCorrelation, inter_annotator_correlation
from .coefficients.icc import icc, icc_table
from .coefficients.sparse import (
    item_agreement,
    item_agreement_variance,
    spa,
    spa_kappa,
    spa_weights,
)
from .estimate import Estimate
from .kernels import spearman_brown
from .uncertainty import bootstrap
from . import alignment, distances, errors, kernels, uncertainty

#: the names that ``import kappalab`` does not import: each is imported on first use
#: (``kl.compare``, ``kl.plots``, ``from kappalab import plan``), so that the start-up loads
#: only the estimators (issue: start-up). Name -> (module, attribute; None: the module).
_ON_FIRST_USE = {
    "rater_report": ("reports.raters", "rater_report"),
    "item_report": ("reports.items", "item_report"),
    "JudgeReport": ("reports.judge", "JudgeReport"),
    "judge_report": ("reports.judge", "judge_report"),
    "agreement_report": ("reports.agreement", "agreement_report"),
    "xrr_report": ("reports.agreement", "xrr_report"),
    "Comparison": ("comparison", "Comparison"),
    "compare": ("comparison", "compare"),
    "dask_cross_kappa": ("out_of_core", "cross_kappa"),
    "dask_estimate": ("out_of_core", "estimate"),
    "Interpretation": ("interpretation", "Interpretation"),
    "interpret": ("interpretation", "interpret"),
    "SampleSizePlan": ("planning", "SampleSizePlan"),
    "plan": ("planning", "plan"),
    "annotators": ("annotators", None),
    "datasets": ("datasets", None),
    "out_of_core": ("out_of_core", None),
    "plots": ("plots", None),
    "simulate": ("simulate", None),
}

__all__ = [
    "Annotations",
    "Comparison",
    "DisattenuatedCorrelation",
    "SampleSizePlan",
    "SplitHalfReliability",
    "Estimate",
    "InterAnnotatorCorrelation",
    "Interpretation",
    "JudgeReport",
    "agreement_report",
    "alignment",
    "annotators",
    "bennett_s",
    "bootstrap",
    "brennan_prediger",
    "cohen_kappa",
    "compare",
    "conger_kappa",
    "cross_kappa",
    "dask_cross_kappa",
    "dask_estimate",
    "datasets",
    "disattenuated_correlation",
    "distances",
    "errors",
    "fleiss_kappa",
    "gwet_ac",
    "icc",
    "icc_table",
    "inter_annotator_correlation",
    "interpret",
    "item_agreement",
    "item_agreement_variance",
    "item_report",
    "janson_olsson_iota",
    "judge_report",
    "kernels",
    "krippendorff_alpha",
    "light_kappa",
    "normalized_cross_kappa",
    "out_of_core",
    "percent_agreement",
    "plan",
    "plots",
    "rater_report",
    "reference_agreement",
    "scott_pi",
    "simulate",
    "spearman_brown",
    "split_half_reliability",
    "spa",
    "spa_kappa",
    "spa_weights",
    "uncertainty",
    "xrr_report",
]

#: names renamed in 0.2.0, still importable for one release: ``benchmark`` (the interpretation
#: scales) clashed with the speed benchmarks of ``benchmarks/``
_RENAMED = {"benchmark": "interpret", "Benchmark": "Interpretation"}
#: modules renamed in 0.2.0, deprecated aliases for one release: ``distributed`` (now
#: ``out_of_core``), ``report`` and ``diagnostics`` (now the package ``reports``)
_ALIAS_MODULES = ("distributed", "report", "diagnostics")


def __getattr__(name: str):
    """The names of ``_ON_FIRST_USE`` and ``__version__``, imported (or read) on first use;
    ``kl.benchmark`` and ``kl.Benchmark``, the old names of :func:`interpret` and
    :class:`Interpretation`, with a :class:`DeprecationWarning`; ``kl.distributed``, the
    deprecated alias of :mod:`kappalab.out_of_core`, and ``kl.report`` and ``kl.diagnostics``,
    those of :mod:`kappalab.reports`, imported (and warned about, once) on first use."""
    import importlib

    if name in _ON_FIRST_USE:
        module_name, attribute = _ON_FIRST_USE[name]
        module = importlib.import_module(f"{__name__}.{module_name}")
        value = module if attribute is None else getattr(module, attribute)
        globals()[name] = value
        return value
    if name == "__version__":
        from importlib import metadata

        version = globals()["__version__"] = metadata.version("kappalab")
        return version
    if name in _RENAMED:
        import warnings

        warnings.warn(f"kappalab.{name} is deprecated and will be removed in the next "
                      f"release; use kappalab.{_RENAMED[name]}", DeprecationWarning,
                      stacklevel=2)
        return globals().get(_RENAMED[name]) or __getattr__(_RENAMED[name])
    if name in _ALIAS_MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names, those imported on first use included."""
    return sorted(set(globals()) | set(__all__) | {"__version__"})

if _startup.holding():  # the console command: its module is the rest of its start-up
    from . import cli  # noqa: F401
_startup.release()
