"""``import kappalab`` loads only what every call needs: numpy, pandas, scipy.sparse and
scipy.special. The slow-to-import parts of scipy (``stats``, ``optimize``, ``integrate``),
the plotting, labelled-array, out-of-core and Bayesian stacks are imported by the functions
that use them, on first use (issue: start-up). Checked in a fresh interpreter, since this
test process has imported them already."""

from __future__ import annotations

import subprocess
import sys

#: imported on first use only, never by ``import kappalab``
LAZY = ("scipy.stats", "scipy.optimize", "scipy.integrate", "matplotlib", "xarray", "dask",
        "pymc", "arviz", "numba")


def loaded_by_import(statement: str) -> set[str]:
    code = (f"import sys\n{statement}\n"
            "print('\\n'.join(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    return set(out.split())


def test_import_kappalab_loads_no_slow_optional_module():
    loaded = loaded_by_import("import kappalab")
    assert {"numpy", "pandas", "scipy.sparse", "kappalab"} <= loaded
    assert sorted(name for name in LAZY if name in loaded) == []


def test_an_interval_needs_no_scipy_stats_and_a_t_test_imports_it():
    """The t quantile of the analytic interval comes from scipy.special (``stdtrit``, what
    ``scipy.stats.t.ppf`` evaluates): neither the value nor its interval loads scipy.stats;
    the t test's p-value imports it, where it is used."""
    loaded = loaded_by_import(
        "import kappalab as kl\nkl.krippendorff_alpha([[1, 1], [2, 2], [1, 2], [2, 2]])")
    assert "scipy.stats" not in loaded
    data = "[[1, 1], [2, 2], [1, 2], [2, 2], [1, 1]]"
    loaded = loaded_by_import(
        f"import kappalab as kl\nkl.krippendorff_alpha({data}, ci='analytic')")
    assert "scipy.stats" not in loaded
    loaded = loaded_by_import(
        f"import kappalab as kl\nkl.krippendorff_alpha({data}, ci='analytic').p_value")
    assert "scipy.stats" in loaded
