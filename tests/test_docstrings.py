"""Every public estimator has a complete numpydoc docstring, and every public function and
class of the package (the names in its modules' ``__all__``) documents each parameter of its
signature and has a running example.

Parameters must document every parameter of the signature, and Returns, Raises, References
and Examples must be there (the Examples run as doctests with the module). The keywords the
estimators share (``ci``, ``n_resamples``, ``confidence``, ``seed``, ``progress``,
``sample_weight``, ``categories``) are described in the same words everywhere.

numpydoc's parser is used when it is installed (the ``test`` extra); otherwise a small parser
of the section headers and parameter lines.
"""

from __future__ import annotations

import importlib
import inspect
import re
import textwrap

import pytest

ESTIMATORS = {
    "kappalab.coefficients.multirater": [
        "krippendorff_alpha", "fleiss_kappa", "conger_kappa", "janson_olsson_iota", "gwet_ac",
        "brennan_prediger", "percent_agreement"],
    "kappalab.coefficients.pairwise": ["cohen_kappa", "scott_pi", "bennett_s", "light_kappa"],
    "kappalab.coefficients.cross": ["cross_kappa", "normalized_cross_kappa",
                                    "reference_agreement"],
    "kappalab.coefficients.sparse": ["spa", "spa_kappa"],
    "kappalab.coefficients.correlation": ["inter_annotator_correlation"],
    "kappalab.coefficients.icc": ["icc"],
    "kappalab.coefficients.disattenuation": ["split_half_reliability",
                                             "disattenuated_correlation"],
    "kappalab.reports.agreement": ["agreement_report", "xrr_report"],
}
FUNCTIONS = [(module, name) for module, names in ESTIMATORS.items() for name in names]
REQUIRED = ("Returns", "Raises", "References", "Examples")
#: keywords whose description is shared: every description starts with the shortest one
SHARED = ("categories", "sample_weight", "ci", "n_resamples", "confidence", "seed", "progress")


def _function(module: str, name: str):
    return getattr(importlib.import_module(module), name)


def _simple_sections(doc: str) -> dict[str, list[str]]:
    """Section name → its lines, for a numpydoc docstring (headers underlined by dashes)."""
    lines = textwrap.dedent("\n".join(doc.expandtabs().split("\n")[1:])).split("\n")
    sections: dict[str, list[str]] = {}
    current = None
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and re.fullmatch(r"-{3,}", nxt.strip()) and len(
                nxt.strip()) == len(line.strip()):
            current = sections.setdefault(line.strip(), [])
        elif current is not None and not re.fullmatch(r"-{3,}", line.strip()):
            current.append(line)
    return sections


def _parsed(function) -> tuple[dict[str, str], dict[str, bool]]:
    """(parameter name → description, section name → present and non-empty)."""
    doc = inspect.getdoc(function) or ""
    try:
        from numpydoc.docscrape import FunctionDoc
    except ImportError:  # the fallback parser
        sections = _simple_sections(function.__doc__ or "")
        params: dict[str, str] = {}
        name = None
        for line in sections.get("Parameters", []):
            if line and not line.startswith(" "):
                names = line.split(" : ")[0]
                name = names
                for each in names.split(","):
                    params[each.strip()] = ""
            elif name is not None and line.strip():
                for each in name.split(","):
                    params[each.strip()] += (" " if params[each.strip()] else "") + line.strip()
        present = {s: any(line.strip() for line in sections.get(s, [])) for s in REQUIRED}
        return params, present
    parsed = FunctionDoc(function, doc=doc)
    params = {}
    for param in parsed["Parameters"]:
        for each in param.name.split(","):
            params[each.strip()] = " ".join(line.strip() for line in param.desc)
    present = {s: bool("".join(parsed[s]).strip() if s in ("References", "Examples")
                       else parsed[s]) for s in REQUIRED}
    return params, present


@pytest.mark.parametrize("module,name", FUNCTIONS, ids=[name for _, name in FUNCTIONS])
def test_estimator_docstring_is_complete(module, name):
    function = _function(module, name)
    params, present = _parsed(function)
    signature = [p for p in inspect.signature(function).parameters.values()
                 if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    undocumented = [p.name for p in signature if p.name not in params]
    assert not undocumented, f"{name}: Parameters does not document {undocumented}"
    empty = [p for p, desc in params.items() if not desc.strip()]
    assert not empty, f"{name}: parameters without a description: {empty}"
    unknown = sorted(set(params) - {p.name for p in signature})
    assert not unknown, f"{name}: Parameters documents {unknown}, not in the signature"
    missing = [section for section, there in present.items() if not there]
    assert not missing, f"{name}: missing or empty sections {missing}"
    assert ">>>" in (function.__doc__ or ""), f"{name}: no doctest example"


@pytest.mark.parametrize("keyword", SHARED)
def test_shared_keywords_are_described_alike(keyword):
    descriptions = {}
    for module, name in FUNCTIONS:
        function = _function(module, name)
        if keyword not in inspect.signature(function).parameters:
            continue
        if keyword == "seed" and "ci" not in inspect.signature(function).parameters:
            continue  # xrr_report's seed draws only the splits
        if keyword == "ci" and name == "icc":
            continue  # the ICC's default is its F interval, beside the spine's methods
        descriptions[name] = _parsed(function)[0][keyword]
    assert len(descriptions) >= 2
    shortest = min(descriptions.values(), key=len)
    differing = [name for name, text in descriptions.items() if not text.startswith(shortest)]
    assert not differing, (f"{keyword!r} is described in other words by {differing} than "
                           f"{shortest!r}")


def test_references_give_the_dois():
    """The references whose DOI exists carry it."""
    dois = {
        "fleiss_kappa": ["10.1037/h0031619"],
        "conger_kappa": ["10.1037/0033-2909.88.2.322"],
        "gwet_ac": ["10.1348/000711006X126600"],
        "brennan_prediger": ["10.1177/001316448104100307"],
        "cohen_kappa": ["10.1177/001316446002000104", "10.1037/h0026256"],
        "scott_pi": ["10.1086/266577"],
        "bennett_s": ["10.1086/266520"],
        "light_kappa": ["10.1037/h0031643"],
        "janson_olsson_iota": ["10.1177/00131640121971239", "10.18653/v1/2021.acl-long.548"],
        "cross_kappa": ["10.18653/v1/2021.acl-long.548"],
        "spa": ["arXiv:2208.06161"],
        "icc": ["10.1037/0033-2909.86.2.420", "10.1037/1082-989X.1.1.30"],
        "disattenuated_correlation": ["10.2307/1412159", "10.1111/j.2044-8295.1910.tb00206.x",
                                      "10.1111/j.2044-8295.1910.tb00207.x"],
    }
    modules = {name: module for module, name in FUNCTIONS}
    for name, expected in dois.items():
        doc = _function(modules[name], name).__doc__
        references = doc.split("References\n")[1].split("Examples\n")[0]
        absent = [doi for doi in expected if doi not in references]
        assert not absent, f"{name}: References lack {absent}"


# ---------------------------------------------------------------------- every public name
def public_definitions():
    """(qualified name, object) of every function and class a kappalab module exports."""
    import pkgutil

    import kappalab

    for info in pkgutil.walk_packages(kappalab.__path__, "kappalab."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name, None)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and \
                    obj.__module__ == info.name:
                yield f"{info.name}.{name}", obj


def signature_parameters(obj) -> list[str]:
    """The named parameters a caller passes (no self, no *args or **kwargs)."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        parameters = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in parameters if p.name not in ("self", "cls")
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


PUBLIC = sorted(public_definitions())


@pytest.mark.parametrize("qualname, obj", PUBLIC, ids=[name for name, _ in PUBLIC])
def test_every_public_definition_documents_its_parameters_and_has_an_example(qualname, obj):
    from numpydoc.docscrape import ClassDoc, FunctionDoc

    doc = ClassDoc(obj) if inspect.isclass(obj) else FunctionDoc(obj)
    documented = {name.strip() for p in doc["Parameters"] for name in p.name.split(",")}
    missing = [p for p in signature_parameters(obj) if p not in documented]
    assert not missing, f"{qualname}: Parameters does not document {missing}"
    assert any(">>>" in line for line in doc["Examples"]), f"{qualname}: no Examples"
    assert doc["Summary"], f"{qualname}: no summary line"
