"""``import kappalab`` loads only what every estimate needs: numpy, pandas and kappalab's
estimators. scipy (``sparse``, for many categories and large designs, ``special``, ``stats``,
``optimize``, ``integrate``), the reports, comparisons, sample-size plans, plots, the
simulator, the datasets, the labelled-array, out-of-core and Bayesian stacks are imported by
the functions that use them, on first use (issue: start-up): ``kl.plan``, ``kl.plots``,
``from kappalab import compare`` import their module then. Checked in a fresh interpreter,
since this test process has imported them already."""

from __future__ import annotations

import subprocess
import sys

#: imported on first use only, never by ``import kappalab``
LAZY = ("scipy.sparse", "scipy.special", "scipy.stats", "scipy.optimize", "scipy.integrate",
        "matplotlib", "xarray", "dask", "pymc", "arviz", "numba", "kappalab.reports",
        "kappalab.comparison", "kappalab.planning", "kappalab.plots", "kappalab.simulate",
        "kappalab.datasets", "kappalab.out_of_core", "kappalab.interpretation",
        "kappalab.population", "kappalab.bayes", "kappalab.cli")


def loaded_by_import(statement: str) -> set[str]:
    code = (f"import sys\n{statement}\n"
            "print('\\n'.join(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    return set(out.split())


def test_import_kappalab_loads_no_slow_optional_module():
    loaded = loaded_by_import("import kappalab")
    assert {"numpy", "pandas", "kappalab"} <= loaded
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


def test_a_first_small_estimate_imports_nothing_more():
    """The first estimate on a small wide table imports nothing: not xarray (an array is
    not a DataArray when xarray was never imported) and not threadpoolctl (a product below
    ``kernels.SMALL_BLAS_CELLS`` cells needs no BLAS thread limit), so a first call costs
    about what a later one does (issue: first call)."""
    code = ("import sys\nimport numpy as np\nimport pandas as pd\nimport kappalab as kl\n"
            "before = set(sys.modules)\n"
            "x = np.array([[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2], [1, 2, 1]], float)\n"
            "kl.krippendorff_alpha(x)\nkl.fleiss_kappa(x)\n"
            "kl.krippendorff_alpha(pd.DataFrame(x, columns=['a', 'b', 'c']), level='interval')\n"
            "print('\\n'.join(sorted(set(sys.modules) - before)))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    assert sorted(name for name in out.split() if name.split(".")[0] in
                  ("xarray", "threadpoolctl", "scipy")) == []


def test_the_names_imported_on_first_use_are_the_same_objects():
    """Every public name reads as before: ``kl.<name>``, ``from kappalab import <name>`` and
    ``dir(kl)`` give the objects of the modules that define them."""
    code = ("import kappalab as kl\n"
            "from kappalab import compare, plan, plots\n"
            "from kappalab.comparison import compare as c\n"
            "from kappalab.planning import plan as p\n"
            "import kappalab.plots as pl\n"
            "from kappalab.out_of_core import estimate as e\n"
            "from kappalab.reports.agreement import agreement_report as a\n"
            "assert compare is c and plan is p and plots is pl and kl.dask_estimate is e\n"
            "assert kl.agreement_report is a and set(kl.__all__) <= set(dir(kl))\n"
            "assert all(getattr(kl, name) is not None for name in kl.__all__)\n"
            "print(kl.__version__)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    from importlib import metadata
    assert out.strip() == metadata.version("kappalab")
