"""The package's layering, read from the source: no private name imported across modules, no
import from a higher floor into a lower one (lazy imports inside functions included)."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "kappalab"

#: each module's floor; a module may import only from its own floor or below
FLOORS = {
    # ground floor: data, distances, results, validation, kernels
    "errors": 0, "docstrings": 0, "validation": 0, "progress": 0, "estimate": 0,
    "bivariate_normal": 0, "kernels": 0, "population": 0, "startup": 0, "protocols": 0,
    "distances": 1, "encoding": 1, "annotations": 1, "io": 1, "alignment": 2,
    # resampling and standard errors know only the item-sum protocol
    "uncertainty": 2,
    # the coefficients
    "coefficients": 3,
    # what is built on the coefficients
    "simulate": 4, "datasets": 4,
    # the models of annotation (which label is right, whom to trust)
    "annotators": 4,
    # what researchers report beside the coefficient: the reports (every coefficient, raters,
    # items, a judge), comparisons, interpretation, planning
    "reports": 4, "comparison": 4, "interpretation": 4, "planning": 4,
    # the item-sum cores run per partition of a Dask DataFrame
    "out_of_core": 4,
    # the deprecated aliases of out_of_core and of reports (0.2.0)
    "distributed": 4, "report": 4, "diagnostics": 4,
    "bayes": 5, "plots": 5, "cli": 6, "__init__": 7, "__main__": 7,
}


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts), path


def top_level_part(module: str) -> str:
    """The floor key of a dotted module name inside kappalab (kappalab.bayes.cross → bayes)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def resolve(importer: str, node: ast.ImportFrom) -> str:
    """The absolute module an ``from ... import`` names."""
    if node.level == 0:
        return node.module or ""
    base = importer.split(".")
    is_package = PACKAGE.joinpath(*base[1:], "__init__.py").exists()
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports():
    """(importer, imported module, names, line) for every import inside kappalab."""
    for name, path in modules():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                yield name, resolve(name, node), [a.name for a in node.names], node.lineno
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    yield name, alias.name, [], node.lineno


def test_floors_are_known():
    for name, _ in modules():
        assert top_level_part(name) in FLOORS, f"{name}: give it a floor in test_layering"


@pytest.mark.slow
def test_no_private_name_is_imported_across_modules():
    offences = []
    for importer, module, names, line in imports():
        if not module.startswith("kappalab") or module == importer:
            continue
        private_module = any(part.startswith("_") and not part.startswith("__")
                             for part in module.split(".")[1:])
        private_names = [n for n in names if n.startswith("_") and not n.startswith("__")]
        if private_names or private_module:
            offences.append(f"{importer}:{line} imports {private_names or module}")
    assert not offences, "\n".join(offences)


@pytest.mark.slow
def test_no_import_from_a_higher_floor():
    offences = []
    for importer, module, names, line in imports():
        if not module.startswith("kappalab"):
            continue
        if module == "kappalab":  # `from kappalab import x`: a submodule, or a name of __init__
            targets = [f"kappalab.{n}" if n in FLOORS else "kappalab" for n in names]
        else:
            targets = [module]
        for target in targets:
            low, high = FLOORS[top_level_part(importer)], FLOORS[top_level_part(target)]
            if high > low:
                offences.append(f"{importer}:{line} (floor {low}) imports {target} "
                                f"(floor {high})")
    assert not offences, "\n".join(offences)


@pytest.mark.slow
@pytest.mark.parametrize("upper", ["bayes", "simulate"])
def test_bayes_and_simulate_use_only_public_names_of_the_coefficients(upper):
    offences = [f"{importer}:{line} imports {names} from {module}"
                for importer, module, names, line in imports()
                if top_level_part(importer) == upper and module.startswith("kappalab.coefficients")
                and any(n.startswith("_") for n in names)]
    assert not offences, "\n".join(offences)
