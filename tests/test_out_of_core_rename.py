"""kappalab.distributed is renamed kappalab.out_of_core (the old name clashed with Dask's
``distributed`` package); the old name stays one release as an alias that warns once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import kappalab as kl

ROOT = Path(__file__).resolve().parents[1]

PROGRAM = """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import kappalab as kl
    quiet = not [w for w in caught if issubclass(w.category, DeprecationWarning)
                 and "kappalab.distributed" in str(w.message)]
    import kappalab.distributed
    import kappalab.distributed as again
    from kappalab import distributed
    same = (kl.distributed.estimate is kl.out_of_core.estimate is kl.dask_estimate
            and again.cross_kappa is kl.dask_cross_kappa
            and distributed.poisson_weights is kl.out_of_core.poisson_weights)
    warned = [w for w in caught if issubclass(w.category, DeprecationWarning)
              and "kappalab.distributed" in str(w.message)]
print(quiet, same, len(warned), "kappalab.out_of_core" in str(warned[0].message))
"""


def test_the_old_module_name_warns_once_and_is_the_new_module():
    result = subprocess.run([sys.executable, "-c", PROGRAM], cwd=ROOT, capture_output=True,
                            text=True, check=True)
    assert result.stdout.split() == ["True", "True", "1", "True"]


def test_the_estimators_live_in_out_of_core():
    assert kl.dask_estimate.__module__ == "kappalab.out_of_core"
    assert kl.dask_cross_kappa.__module__ == "kappalab.out_of_core"
    assert "out_of_core" in kl.__all__ and "distributed" not in kl.__all__
