"""The API reference (``docs/api/*.rst``) lists every public name of the package.

A public name is one in a module's ``__all__`` (and every exception and warning class of
``kappalab.errors``, which has no ``__all__``), except the few of ``PRIVATE_PURPOSE``, which
serve the package itself and have no entry. Each must be listed on the page of its module,
under an ``autosummary`` directive (or a ``py:data`` or ``autofunction``, ``autoclass``,
``autodata`` directive). A function or class exported by several modules is documented once,
from one ``autosummary`` with ``:toctree:`` (a page of its own) or one ``auto*`` directive on
its module's page; the other listings link to it.

The index has two kinds of section: what users call (the ``kappalab`` namespace, the public
submodules, the coefficients), whose names each have a generated page, and the building
blocks, a separate section whose modules are each documented on one page, marked as such, and
generate no pages. Read from the ``.rst`` sources, without building the site.
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

#: public names that serve the package itself and have no entry in the reference
PRIVATE_PURPOSE = {
    # the parameter texts that ``shared_parameters`` inserts into the docstrings
    "kappalab.docstrings.SHARED_PARAMETERS",
}

#: the caption of the index's section of building blocks
BUILDING_BLOCKS = "Building blocks (for extending kappalab)"


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
            elif match := re.match(r"\.\. (?:py:data|autofunction|autoclass|autodata|"
                                   r"autoexception):: (\S+)", line):
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


@pytest.mark.slow
@pytest.mark.parametrize("module, name", PUBLIC, ids=[f"{m}.{n}" for m, n in PUBLIC])
def test_every_public_name_is_in_the_reference(module, name):
    if f"{module}.{name}" in PRIVATE_PURPOSE:
        return
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


def index_sections() -> dict[str, list[str]]:
    """The pages of each ``toctree`` of ``docs/api/index.rst``, by caption."""
    index = (API / "index.rst").read_text(encoding="utf-8")
    sections = {}
    for block in re.split(r"^\.\. toctree::\n", index, flags=re.M)[1:]:
        caption = re.search(r"^   :caption: (.+)$", block, re.M).group(1)
        sections[caption] = re.findall(r"^   (kappalab[\w.]*)$", block, re.M)
    return sections


def test_private_purpose_names_have_no_entry():
    """A constant such as ``SHARED_PARAMETERS`` (docstring text) is no page of the reference,
    and is still a public name, so that the exemption names something."""
    listed = sorted(PRIVATE_PURPOSE & LISTED)
    assert not listed, f"private-purpose names in the reference: {listed}"
    public = {f"{module}.{name}" for module, name in PUBLIC}
    assert PRIVATE_PURPOSE <= public, sorted(PRIVATE_PURPOSE - public)


def test_building_blocks_are_a_separate_section():
    sections = index_sections()
    assert BUILDING_BLOCKS in sections, f"no section {BUILDING_BLOCKS!r}: {list(sections)}"
    blocks = sections[BUILDING_BLOCKS]
    for internal in ("kappalab.encoding", "kappalab.kernels", "kappalab.validation",
                     "kappalab.docstrings", "kappalab.coefficients.base"):
        assert internal in blocks, f"{internal} is not among the building blocks"
    for caption, pages in sections.items():
        others = set(pages) & set(blocks)
        assert caption == BUILDING_BLOCKS or not others, f"{sorted(others)} also in {caption}"


@pytest.mark.parametrize("page", index_sections().get(BUILDING_BLOCKS, ["(no section)"]))
def test_building_block_pages_generate_no_pages_and_say_what_they_are(page):
    """A building block is documented on its module's page: the generated pages are the names
    users call. Its page opens with a note saying it is a building block."""
    assert (API / f"{page}.rst").is_file(), f"no building-block section with a page {page}"
    text = (API / f"{page}.rst").read_text(encoding="utf-8")
    assert ":toctree:" not in text, f"docs/api/{page}.rst generates a page per name"
    assert re.search(r"^\.\. note::\n\n?   A building block", text, re.M), (
        f"docs/api/{page}.rst does not open with a note that it is a building block")


def test_user_pages_are_the_generated_pages():
    """Every function and class of the user-facing sections has a page of its own."""
    user = {page for caption, pages in index_sections().items() if caption != BUILDING_BLOCKS
            for page in pages}
    for page in user:
        text = (API / f"{page}.rst").read_text(encoding="utf-8")
        assert not re.search(r"^\.\. auto(?:function|class)::", text, re.M), (
            f"docs/api/{page}.rst documents a name inline: give it an autosummary page")
