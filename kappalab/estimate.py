"""The result type every estimator returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

__all__ = ["Estimate"]


@dataclass(frozen=True)
class Estimate:
    """A coefficient's value with what it was computed from.

    ``observed`` and ``expected`` are agreements on a 0–1 scale, P_o and P_e with agreement
    weights ``w = 1 − δ/scale`` (see :mod:`kappalab.distances`), so that for a chance-corrected
    coefficient ``value = (observed − expected)/(1 − expected)``. Coefficients defined through
    disagreements (Krippendorff's α, Janson–Olsson's ι, κx) also carry D_o and D_e in the units
    of their distance, with ``value = 1 − D_o/D_e``. ``float(estimate)`` is the value. ``se``
    and ``ci`` are set when an interval was asked for. Nothing is rounded except in ``repr``.
    """

    coefficient: str
    value: float
    observed: float
    expected: float
    n_items: int
    n_annotations: int
    level: str = "nominal"
    n_raters: int | None = None
    observed_disagreement: float | None = None
    expected_disagreement: float | None = None
    se: float | None = None
    ci: tuple[float, float] | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def __float__(self) -> float:
        return float(self.value)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["details"] = dict(self.details)
        return out

    def __repr__(self) -> str:
        parts = [f"{self.coefficient} = {self.value:.4f}"]
        if self.ci is not None:
            parts.append(f"ci=({self.ci[0]:.4f}, {self.ci[1]:.4f})")
        if self.se is not None:
            parts.append(f"se={self.se:.4f}")
        parts.append(f"level={self.level!r}")
        parts.append(f"observed={self.observed:.4f}")
        parts.append(f"expected={self.expected:.4f}")
        parts.append(f"items={self.n_items}")
        parts.append(f"annotations={self.n_annotations}")
        if self.n_raters is not None:
            parts.append(f"raters={self.n_raters}")
        return f"Estimate({', '.join(parts)})"
