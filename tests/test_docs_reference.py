"""The API reference (``docs/api/*.rst``) lists every public name of the package.

A public name is one in a module's ``__all__`` (and every exception and warning class of
``kappalab.errors``, which has no ``__all__``). Each must be listed on the page of its module,
under an ``autosummary`` directive (or a ``py:data`` directive). A function or class exported
by several modules has one page, from exactly one ``autosummary`` with ``:toctree:``; the
other listings link to it. Read from the ``.rst`` sources, without building the site.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import kappalab

API = Path(__file__).resolve().parents[1] / "docs" / "api"


def modules_with_all() -> dict[str, object]:
    found = {"kappalab": kappalab}
    for info in pkgutil.walk_packages(kappalab.__path__, "kappalab."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        if hasattr(module, "__all__"):
            found[info.name] = module
    return found


def public_names() -> list[tuple[str, str]]:
    """(module, name) of every public name."""
    names = [(path, name) for path, module in modules_with_all().items()
             for name in module.__all__]
    errors = importlib.import_module("kappalab.errors")
    names += [("kappalab.errors", name) for name, obj in vars(errors).items()
              if inspect.isclass(obj) and issubclass(obj, Warning | Exception)
              and obj.__module__ == "kappalab.errors"]
    return names


def reference_entries() -> tuple[set[str], list[str], set[str], set[str]]:
    """(names listed, names given a page, modules with a page, pages in the index), read from
    the ``.rst`` files: each entry is qualified by the ``currentmodule`` above it."""
    listed: set[str] = set()
    paged: list[str] = []
    modules: set[str] = set()
    for page in sorted(API.glob("*.rst")):
        current = None
        lines = page.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            if match := re.match(r"\.\. (?:py:)?currentmodule:: (\S+)", line):
                current = match.group(1)
            elif match := re.match(r"\.\. automodule:: (\S+)", line):
                modules.add(match.group(1))
            elif match := re.match(r"\.\. py:data:: (\S+)", line):
                listed.add(f"{current}.{match.group(1)}")
                paged.append(f"{current}.{match.group(1)}")
            elif line.startswith(".. autosummary::"):
                i += 1
                toctree = False
                while i < len(lines) and (lines[i].startswith("   ") or not lines[i].strip()):
                    entry = lines[i].strip()
                    if entry.startswith(":toctree:"):
                        toctree = True
                    elif entry and not entry.startswith(":"):
                        qualified = f"{current}.{entry.lstrip('~')}"
                        listed.add(qualified)
                        if toctree:
                            paged.append(qualified)
                    i += 1
                continue
            i += 1
    index = (API / "index.rst").read_text(encoding="utf-8")
    in_index = set(re.findall(r"^   (kappalab[\w.]*)$", index, flags=re.M))
    return listed, paged, modules, in_index


LISTED, PAGED, MODULES, IN_INDEX = reference_entries()
PUBLIC = public_names()


def resolve(qualified: str):
    module, _, name = qualified.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("module, name", PUBLIC, ids=[f"{m}.{n}" for m, n in PUBLIC])
def test_every_public_name_is_in_the_reference(module, name):
    assert f"{module}.{name}" in LISTED, (
        f"{module}.{name} is public but not listed in docs/api/{module}.rst "
        "(add it to an autosummary there)")


def test_every_module_with_public_names_has_a_page_in_the_index():
    documented = set(modules_with_all()) | {"kappalab.errors"}
    assert documented <= MODULES, f"modules without a page: {sorted(documented - MODULES)}"
    pages = {path.stem for path in API.glob("*.rst")} - {"index"}
    assert pages == IN_INDEX, f"pages not in docs/api/index.rst: {sorted(pages - IN_INDEX)}"


def test_every_entry_names_an_object_of_the_package():
    missing = []
    for qualified in LISTED:
        try:
            resolve(qualified)
        except (AttributeError, ImportError):
            missing.append(qualified)
    assert not missing, f"entries that name nothing: {sorted(missing)}"


def test_each_function_and_class_has_one_page():
    pages: dict[int, list[str]] = {}
    for qualified in PAGED:
        obj = resolve(qualified)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            pages.setdefault(id(obj), []).append(qualified)
    twice = [names for names in pages.values() if len(names) > 1]
    assert not twice, f"documented on more than one page: {twice}"
    without = sorted(qualified for qualified in LISTED
                     if (inspect.isfunction(obj := resolve(qualified)) or inspect.isclass(obj))
                     and id(obj) not in pages)
    assert not without, f"listed, but with no page anywhere: {without}"
