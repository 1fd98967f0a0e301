"""``agreement_report``: every coefficient that applies to the data, in one table."""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .annotations import as_annotations
from .coefficients import multirater, pairwise
from .errors import UndefinedCoefficientWarning

__all__ = ["agreement_report"]

_COLUMNS = ["coefficient", "value", "observed", "expected", "level", "n_items",
            "n_annotations", "n_raters", "note"]


def agreement_report(data: Any, level: Any = "nominal", *,
                     categories: Sequence[Any] | None = None) -> pd.DataFrame:
    """A table of every coefficient that applies to ``data``.

    ``level`` is the distance of Krippendorff's α and Janson–Olsson's ι and, through
    ``w = 1 − δ/max δ``, the weights of the kappa family. Two-rater coefficients appear only
    for two raters, rater-specific ones only when raters are known. Columns: coefficient,
    value, observed and expected agreement (P_o, P_e on the weighted 0–1 scale), level, the
    items, annotations and raters used, and a note where a value is undefined.
    """
    ann = as_annotations(data, categories=categories)
    weights = None if level == "nominal" else level
    rows = [
        (multirater.percent_agreement, {"weights": weights}),
        (multirater.krippendorff_alpha, {"level": level}),
        (multirater.fleiss_kappa, {"weights": weights}),
        (multirater.gwet_ac, {"weights": weights}),
        (multirater.brennan_prediger, {"weights": weights}),
    ]
    if ann.has_raters:
        rows += [
            (multirater.conger_kappa, {"weights": weights}),
            (multirater.janson_olsson_iota, {"level": level}),
            (pairwise.light_kappa, {"weights": weights}),
        ]
        if ann.n_active_raters == 2:
            rows += [
                (pairwise.cohen_kappa, {"weights": weights}),
                (pairwise.scott_pi, {"weights": weights}),
                (pairwise.bennett_s, {"weights": weights}),
            ]
    records = []
    for function, options in rows:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UndefinedCoefficientWarning)
            est = function(ann, **options)
        note = "; ".join(str(w.message) for w in caught
                         if issubclass(w.category, UndefinedCoefficientWarning))
        records.append({
            "coefficient": est.coefficient, "value": est.value, "observed": est.observed,
            "expected": est.expected, "level": est.level, "n_items": est.n_items,
            "n_annotations": est.n_annotations,
            "n_raters": np.nan if est.n_raters is None else est.n_raters, "note": note,
        })
    return pd.DataFrame.from_records(records, columns=_COLUMNS)
