"""Sphinx configuration of the kappalab documentation.

The build needs no network: the intersphinx inventories of the other projects are written
from ``docs/external_names.txt`` by ``docs/inventories.py`` before the build reads them.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS))

import inventories  # noqa: E402  (docs/inventories.py)

import kappalab  # noqa: E402

project = "kappalab"
author = "the kappalab authors"
copyright = "the kappalab authors"  # noqa: A001  (Sphinx's name)
release = kappalab.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]
nitpicky = True
default_role = "obj"

# ----------------------------------------------------------------------- autodoc, autosummary
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # the types are those of the numpydoc Parameters sections
autodoc_preserve_defaults = True

# --------------------------------------------------------------------------------- numpydoc
numpydoc_show_class_members = False  # the class template lists them
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = True
#: the words of the type descriptions that name a kappalab or outside object
numpydoc_xref_aliases = {
    # Python
    "callable": ":term:`python:callable`",
    "iterable": ":term:`python:iterable`",
    "sequence": ":term:`python:sequence`",
    "mapping": ":term:`python:mapping`",
    "hashable": ":term:`python:hashable`",
    "generator": ":term:`python:generator`",
    "Generator": "numpy.random.Generator",
    # numpy, pandas, xarray, scipy, matplotlib, dask, ArviZ, PyMC
    "array-like": ":term:`numpy:array_like`",
    "array_like": ":term:`numpy:array_like`",
    "ndarray": "numpy.ndarray",
    "DataFrame": "pandas.DataFrame",
    "Series": "pandas.Series",
    "Index": "pandas.Index",
    "Dataset": "xarray.Dataset",
    "DataArray": "xarray.DataArray",
    "Figure": "matplotlib.figure.Figure",
    "Axes": "matplotlib.axes.Axes",
    "InferenceData": "arviz.InferenceData",
    "bool": ":class:`python:bool`",
    "numpy.bool_": "numpy.bool",
    # the kappalab classes, by their short names: added below (type_aliases)
}
#: the other words of the type descriptions ("int or 'all'", "float in (0, 1)", "matrix of
#: shape (K, K)") are prose, not names: only the aliases above are links
numpydoc_xref_ignore = "all"
numpydoc_validation_checks: set[str] = set()

# ------------------------------------------------------------------------------ intersphinx
#: project → (the project's documentation, the inventory written from external_names.txt)
intersphinx_mapping = inventories.mapping(DOCS / "_build" / "inventories")

# ------------------------------------------------------------------------------------- html
html_theme = "pydata_sphinx_theme"
html_title = f"kappalab {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_align": "left",
}
html_sidebars = {"api/generated/*": []}
html_show_sourcelink = False
html_copy_source = False

myst_heading_anchors = 3

# --------------------------------------------------------------- one page per object, aliases
#: the qualified names under which the package exports an object, mapped to the name of its
#: page. A function such as ``krippendorff_alpha`` is exported by ``kappalab`` and by
#: ``kappalab.coefficients.multirater``; its page is ``kappalab.krippendorff_alpha``, and a
#: reference to ``kappalab.coefficients.multirater.krippendorff_alpha`` leads there.


def _public_modules():
    modules = {"kappalab": kappalab}
    for info in pkgutil.walk_packages(kappalab.__path__, "kappalab."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        if hasattr(module, "__all__"):
            modules[info.name] = module
    return modules


def page_name(obj, module: str, name: str, modules) -> str:
    """The qualified name of the page of the object that ``module`` exports as ``name``."""
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return f"{module}.{name}"  # a constant is documented where it is exported
    top = [each for each in kappalab.__all__ if getattr(kappalab, each) is obj]
    if top:
        return f"kappalab.{top[0]}"
    exporters = [(path.count("."), path != obj.__module__, path, each)
                 for path, exporter in modules.items() if path != "kappalab"
                 for each in exporter.__all__ if getattr(exporter, each) is obj]
    _, _, path, each = min(exporters)
    return f"{path}.{each}"


def aliases() -> dict[str, str]:
    modules = _public_modules()
    found = {}
    for path, module in modules.items():
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                continue
            page = page_name(obj, path, name, modules)
            if page != f"{path}.{name}":
                found[f"{path}.{name}"] = page
    return found


ALIASES = aliases()


def type_aliases() -> dict[str, str]:
    """numpydoc aliases of the kappalab classes: the short name when only one class has it,
    and every qualified name under which a class is exported."""
    modules = _public_modules()
    modules["kappalab.errors"] = errors = importlib.import_module("kappalab.errors")
    exported = [(path, name, getattr(module, name)) for path, module in modules.items()
                for name in getattr(module, "__all__", None) or
                [n for n, o in vars(errors).items() if inspect.isclass(o)
                 and o.__module__ == "kappalab.errors"]]
    classes = [(path, name, obj) for path, name, obj in exported if inspect.isclass(obj)]
    found = {}
    for path, name, _ in classes:
        page = ALIASES.get(f"{path}.{name}", f"{path}.{name}")
        found[f"{path}.{name}"] = page
        if len({id(o) for _, n, o in classes if n == name}) == 1:
            found[name] = page
    return found


CLASS_PAGES = {name: page for name, page in type_aliases().items() if "." not in name}
numpydoc_xref_aliases = type_aliases() | numpydoc_xref_aliases


def _defining_module(docname: str) -> str | None:
    """The module that defines the object of an API page (``api/generated/<name>``)."""
    if not docname.startswith("api/generated/"):
        return None
    qualified = docname.removeprefix("api/generated/")
    module_name, _, rest = qualified.partition(".")
    obj = importlib.import_module(module_name)
    parts = rest.split(".")
    while parts:
        try:
            obj = getattr(obj, parts[0])
        except AttributeError:
            return None
        parts.pop(0)
        if inspect.ismodule(obj):
            module_name = obj.__name__
    return getattr(obj, "__module__", None) or module_name


def _alias_target(target: str) -> str | None:
    for alias, page in ALIASES.items():
        if target == alias or target.startswith(alias + "."):
            return page + target[len(alias):]
    return None


def resolve_alias(app, env, node, contnode):
    """Resolve a Python reference that names an object by another of its exported names, or
    by a short name relative to the module that defines the documented object."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip(".~")
    candidates = []
    if "." not in target or not target.startswith("kappalab."):
        for module in (node.get("py:module"), _defining_module(node.get("refdoc", ""))):
            if module:
                if node.get("py:class"):
                    candidates.append(f"{module}.{node['py:class']}.{target}")
                candidates.append(f"{module}.{target}")
    candidates.append(target)
    first, dot, rest = target.partition(".")
    if dot and first in CLASS_PAGES:  # Annotations.from_wide, with Annotations not in scope
        candidates.append(f"{CLASS_PAGES[first]}.{rest}")
    domain = env.domains["py"]
    for candidate in candidates:
        for name in (candidate, _alias_target(candidate)):
            if name and name != node["reftarget"]:
                found = domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"],
                                            name, node, contnode)
                if found is not None:
                    return found
    return None


def setup(app):
    app.connect("missing-reference", resolve_alias)
