"""experiments/, paper_repro/ and benchmarks/ are packages whose modules import cleanly.

Their scripts once sat beside top-level helpers named ``_common`` (one per folder, so the tests
had to evict one from ``sys.modules`` before importing another) and ``experiments/coverage.py``
shadowed the ``coverage`` package (numba, under PyMC, imports it). Now each folder is a package
run with ``python -m package.module`` from the repository root, every helper has its own name,
and nothing edits ``sys.path``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("experiments", "paper_repro", "benchmarks")


def modules(package: str) -> list[str]:
    """The names of the package's modules (without the package prefix)."""
    return sorted(m.name for m in pkgutil.iter_modules([str(ROOT / package)]))


def runnable(package: str) -> list[str]:
    """The package's modules that run as programs (an ``if __name__ == "__main__"`` block)."""
    return [name for name in modules(package)
            if 'if __name__ == "__main__":' in (ROOT / package / f"{name}.py").read_text()]


@pytest.mark.parametrize("package", PACKAGES)
def test_each_folder_is_a_documented_package(package):
    init = ROOT / package / "__init__.py"
    assert init.exists()
    docstring = ast.get_docstring(ast.parse(init.read_text()))
    assert docstring and f"python -m {package}." in docstring
    assert modules(package)
    # the repository's package, not something installed under the same name
    assert Path(importlib.import_module(package).__file__).resolve() == init


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_shadows_another_top_level_name(package):
    installed = set(importlib.metadata.packages_distributions())  # top-level import names
    taken = installed | set(sys.stdlib_module_names) | {"coverage", "kappalab", *PACKAGES}
    for name in modules(package):
        assert not name.startswith("_"), f"{package}.{name}: give the helper a descriptive name"
        assert "common" not in name, f"{package}.{name}: give the helper a descriptive name"
        assert name not in taken, f"{package}.{name} is named like a top-level module"


@pytest.mark.slow
@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_edits_sys_path_or_imports_a_sibling_as_top_level(package):
    siblings = set(modules(package))
    for name in modules(package):
        source = (ROOT / package / f"{name}.py").read_text()
        assert "sys.path" not in source, f"{package}.{name} edits sys.path"
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                tops = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                tops = [node.module.split(".")[0]]
            else:
                continue
            assert not set(tops) & siblings, (
                f"{package}.{name} line {node.lineno}: import siblings as {package}.<module>")


@pytest.mark.slow
def test_importing_every_module_leaves_no_top_level_helper_behind():
    # in a fresh interpreter, as the repository root's packages (the way python -m runs them)
    code = f"""
import importlib, pkgutil, sys
for package in {PACKAGES!r}:
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
        importlib.import_module(package + "." + info.name)
for name in ("_common", "_spa_common", "common", "coverage"):
    module = sys.modules.get(name)
    assert module is None or not (getattr(module, "__file__", "") or "").startswith(
        {str(ROOT)!r}), name
for name, module in list(sys.modules.items()):
    path = getattr(module, "__file__", None) or ""
    for package in {PACKAGES!r}:
        if path.startswith({str(ROOT)!r} + "/" + package + "/"):
            assert name == package or name.startswith(package + "."), (name, path)
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "ok"


def test_coverage_package_is_not_shadowed():
    # experiments/coverage.py used to be found by `import coverage` when experiments/ was on the
    # import path; the study is experiments.interval_coverage now
    assert not (ROOT / "experiments" / "coverage.py").exists()
    importlib.import_module("experiments.interval_coverage")
    try:
        import coverage
    except ImportError:
        return  # coverage.py is not installed here: nothing to shadow
    assert not Path(coverage.__file__).resolve().is_relative_to(ROOT)


def test_makefile_runs_every_script_with_python_m():
    makefile = (ROOT / "Makefile").read_text()
    lists = {key: value.split() for key, value in
             re.findall(r"^(EXPERIMENTS|REPRO)\s*:=\s*(.*)$", makefile, re.M)}
    assert sorted(lists["EXPERIMENTS"]) == runnable("experiments")
    assert sorted(lists["REPRO"]) == runnable("paper_repro")
    assert "-m experiments.$$module" in makefile and "-m paper_repro.$$module" in makefile
    assert "-m benchmarks.run_all" in makefile


def test_run_all_runs_every_benchmark():
    from benchmarks import run_all

    assert sorted(name for name, _, _ in run_all.BENCHMARKS) == [
        name for name in runnable("benchmarks") if name.startswith("bench_")]
    assert run_all.ROOT == ROOT
