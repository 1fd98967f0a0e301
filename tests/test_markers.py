"""The ``slow`` marker: registered with its meaning, left out by ``make quick``, kept by
``make test``."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def registered(lines) -> dict[str, str]:
    """``{name: meaning}`` of marker lines ``"name: meaning"``."""
    return dict(line.split(":", 1) for line in lines if ":" in line)


def test_slow_is_registered_in_pyproject_with_its_meaning(pytestconfig):
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    markers = registered(ini["tool"]["pytest"]["ini_options"]["markers"])
    assert "slow" in markers and "make quick" in markers["slow"]
    assert "slow" in registered(pytestconfig.getini("markers"))  # what pytest itself reads


def make_recipe(target: str) -> str:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", text, re.M)
    assert match, f"no target {target} in the Makefile"
    return match[1]


def test_make_quick_leaves_the_slow_tests_out_and_make_test_runs_them():
    assert '-m "not slow"' in make_recipe("quick")
    assert "-m" not in make_recipe("test").split("pytest", 1)[1]


def test_contributing_names_make_quick():
    assert "make quick" in (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
