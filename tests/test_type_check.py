"""The type check's configuration (``[tool.mypy]`` in pyproject.toml, ``make typecheck``):
strict where the package promises it, no error code switched off in any module of the
package, and ``make test`` running the check before the suite. Read from the files, without
running mypy (``make typecheck`` does)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]

#: the per-module flags of ``mypy --strict``
STRICT_FLAGS = ("disallow_untyped_calls", "disallow_untyped_defs", "disallow_incomplete_defs",
                "disallow_untyped_decorators", "disallow_any_generics",
                "disallow_subclassing_any", "check_untyped_defs", "warn_return_any",
                "no_implicit_reexport", "strict_equality", "extra_checks")

#: the ground floor, the protocol of the spine, the spine, the uncertainty code, the registry
STRICT = {"kappalab.errors", "kappalab.progress", "kappalab.startup", "kappalab.docstrings",
          "kappalab.bivariate_normal", "kappalab.protocols", "kappalab.coefficients.base",
          "kappalab.uncertainty", "kappalab.coefficients.registry"}


def overrides() -> list[tuple[set[str], dict]]:
    found = []
    for section in CONFIG.get("overrides", []):
        module = section["module"]
        found.append(({module} if isinstance(module, str) else set(module), section))
    return found


def test_the_package_is_checked_for_python_3_11():
    assert CONFIG["python_version"] == "3.11"
    assert CONFIG["files"] == ["kappalab"]


def test_strict_modules_have_every_strict_flag():
    for module in STRICT:
        flags = {flag for modules, section in overrides() if module in modules
                 for flag in STRICT_FLAGS if section.get(flag) is True}
        assert flags == set(STRICT_FLAGS), (module, set(STRICT_FLAGS) - flags)


def test_no_module_of_the_package_switches_error_codes_off():
    relaxed = {module for modules, section in overrides()
               if section.get("disable_error_code") or section.get("ignore_errors")
               for module in modules if module.split(".")[0] == "kappalab"}
    assert not relaxed, sorted(relaxed)


def test_make_test_runs_the_type_check_before_the_suite():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^typecheck:.*\n\t\$\(BIN\)/python -m mypy$", makefile, re.M)
    recipe = re.search(r"^test:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert "typecheck" in recipe and recipe.index("typecheck") < recipe.index("pytest")
    assert ".mypy_cache/" in (ROOT / ".gitignore").read_text(encoding="utf-8").split()
