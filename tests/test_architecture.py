"""docs/architecture.md against the code: its table of every module's floor and its list of the
modules ``kappalab/__init__.py`` re-exports.

The imports are read by tests/test_layering.py (its ``modules`` and ``imports``); this file
reads the page and checks what the page states: every module file under ``kappalab/`` has
exactly one row, every import goes to the importer's floor or below by the page's floors, the
page's floors are the ones tests/test_layering.py enforces, and the re-exported modules the
page names are those ``kappalab/__init__.py`` imports as modules.
"""

import ast
import sys
import re
from collections import Counter

import pytest

from test_layering import FLOORS, PACKAGE, imports, modules, top_level_part

ROOT = PACKAGE.parent
PAGE = ROOT / "docs" / "architecture.md"

#: one row of the table: | `kappalab/x/y.py` | 3 |
ROW = re.compile(r"^\|\s*`(kappalab/[^`]+\.py)`\s*\|\s*(\d+)\s*\|\s*$")
#: the sentence naming the re-exported modules
EXPORTS = re.compile(r"`kappalab/__init__\.py` re-exports the public functions and the modules"
                     r"(?P<names>.*?)\.\s*$", re.S | re.M)


def page_text() -> str:
    return PAGE.read_text(encoding="utf-8")


def page_rows(text: str) -> list[tuple[str, int]]:
    """(module path, floor) of every row of the page's module table, in page order."""
    return [(m[1], int(m[2])) for line in text.splitlines() if (m := ROW.match(line.strip()))]


def page_floors(text: str) -> dict[str, int]:
    return dict(page_rows(text))


def page_exported_modules(text: str) -> set[str]:
    """The modules the page says ``kappalab/__init__.py`` re-exports."""
    match = EXPORTS.search(text)
    assert match, f"{PAGE.name}: the sentence '`kappalab/__init__.py` re-exports the public " \
                  "functions and the modules ...' is missing"
    paragraph = match["names"].split("\n\n")[0]
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", paragraph))


def module_path(name: str) -> str | None:
    """The file, relative to the repository, of a dotted module inside kappalab; None if the
    name is not a module (a name defined in a package's ``__init__``)."""
    parts = name.split(".")
    for candidate in (PACKAGE.parent.joinpath(*parts).with_suffix(".py"),
                      PACKAGE.parent.joinpath(*parts, "__init__.py")):
        if candidate.is_file():
            return candidate.relative_to(ROOT).as_posix()
    return None


def code_module_paths() -> list[str]:
    return [path.relative_to(ROOT).as_posix() for _, path in modules()]


def import_targets():
    """(importer path, line, imported module path) of every import of a kappalab module: for
    ``from a import b`` the submodule ``a.b`` when it is one, else ``a``."""
    for importer, module, names, line in imports():
        if module != "kappalab" and not module.startswith("kappalab."):
            continue
        source = module_path(importer)
        targets = {module_path(f"{module}.{n}") or module_path(module) for n in names} \
            if names else {module_path(module)}
        for target in sorted(t for t in targets if t is not None):
            yield source, line, target


def exported_modules_of_init() -> set[str]:
    """The public names ``kappalab/__init__.py`` binds to its submodules: at its top level,
    and on first use (the entries of its ``_ON_FIRST_USE`` whose attribute is None: the
    module itself)."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    exported = set()
    for node in tree.body:  # top level only: `if ...: from . import cli` is not an export
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module is None:
            exported |= {alias.asname or alias.name for alias in node.names}
        if isinstance(node, ast.Assign) and any(isinstance(target, ast.Name) and
                                                target.id == "_ON_FIRST_USE"
                                                for target in node.targets):
            table = ast.literal_eval(node.value)
            exported |= {name for name, (_, attribute) in table.items() if attribute is None}
    return {name for name in exported if not name.startswith("_")}


def test_the_page_has_a_module_table():
    rows = page_rows(page_text())
    assert len(rows) >= 10, f"{PAGE.name}: no table of '| `kappalab/...py` | floor |' rows"


def test_every_module_file_appears_exactly_once():
    listed = Counter(path for path, _ in page_rows(page_text()))
    missing = [path for path in code_module_paths() if path not in listed]
    twice = [path for path, n in listed.items() if n > 1]
    gone = [path for path in listed if path not in set(code_module_paths())]
    problems = ([f"{path}: missing from the module table of docs/architecture.md "
                 "(give it a row | `path` | floor |)" for path in missing]
                + [f"{path}: listed {listed[path]} times in docs/architecture.md" for path in twice]
                + [f"{path}: listed in docs/architecture.md but no such file" for path in gone])
    assert not problems, "\n".join(problems)


def test_imports_go_to_the_same_or_a_lower_floor_of_the_page():
    floors = page_floors(page_text())
    offences = []
    for source, line, target in import_targets():
        if source not in floors or target not in floors:
            continue  # reported by test_every_module_file_appears_exactly_once
        if floors[target] > floors[source]:
            offences.append(f"{source}:{line} (floor {floors[source]}) imports {target} "
                            f"(floor {floors[target]})")
    assert not offences, "\n".join(offences)


def test_the_page_floors_are_those_test_layering_enforces():
    floors = page_floors(page_text())
    by_name = {path.relative_to(ROOT).as_posix(): name for name, path in modules()}
    differ = [f"{path}: floor {floor} in docs/architecture.md but "
              f"{FLOORS.get(top_level_part(by_name[path]))} in tests/test_layering.py"
              for path, floor in floors.items()
              if path in by_name and FLOORS.get(top_level_part(by_name[path])) != floor]
    assert not differ, "\n".join(differ)


def test_the_exported_modules_are_those_init_imports():
    stated, imported = page_exported_modules(page_text()), exported_modules_of_init()
    assert stated == imported, (
        f"docs/architecture.md names as re-exported {sorted(stated - imported)} that "
        f"kappalab/__init__.py does not import, and omits {sorted(imported - stated)}")


def test_the_exported_modules_are_in_all():
    import kappalab

    assert exported_modules_of_init() <= set(kappalab.__all__)


# the checks themselves, on pages with a fault, so that a failure names what is wrong
@pytest.mark.parametrize("fault", ["missing", "twice"])
def test_a_fault_in_the_table_is_reported_by_module(fault, monkeypatch):
    text = page_text()
    row = "| `kappalab/kernels.py` | 0 |"
    assert row in text
    text = text.replace(row + "\n", "" if fault == "missing" else row + "\n" + row + "\n")
    monkeypatch.setattr(sys.modules[__name__], "page_text", lambda: text)
    with pytest.raises(AssertionError, match=r"kappalab/kernels\.py: (missing|listed 2 times)"):
        test_every_module_file_appears_exactly_once()


def test_an_upward_import_by_the_page_floors_is_reported(monkeypatch):
    text = page_text().replace("| `kappalab/kernels.py` | 0 |", "| `kappalab/kernels.py` | 5 |")
    monkeypatch.setattr(sys.modules[__name__], "page_text", lambda: text)
    with pytest.raises(AssertionError, match=r"\(floor \d\) imports kappalab/kernels\.py "
                                             r"\(floor 5\)"):
        test_imports_go_to_the_same_or_a_lower_floor_of_the_page()
