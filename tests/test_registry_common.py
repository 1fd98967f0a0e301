"""Checks every registered coefficient must pass, parametrized over ``registry.coefficients()``:
a new entry is covered without editing a list (as scikit-learn's metrics/tests/test_common.py
covers its metrics).

Oracles: the invariances compare the public function with itself on transformed data (items
in another order, raters in another order, categories renamed); integer sample weights
compare it with the function on the data with each item repeated that many times; the core
factory's estimate is compared with the public function's value; the intervals must contain
the estimate they are built around.

The test data of an entry are built from its fields and its function's signature:

* ``panel="two"``: two raters; otherwise four (the second replication: three);
* ``replications=2``: two data sets on the same items, by different raters;
* a second positional data argument without a default and ``replications=1``
  (:func:`kappalab.reference_agreement`): a reference, one label per item;
* ``values="numeric"`` and ``values="categories"`` alike get the integer labels 1–4 (read as
  numbers where a distance or the coefficient needs them); only ``"categories"`` entries are
  checked for renamed categories (their default distance or weights is nominal).

Rule for the rater order: every coefficient takes its raters as exchangeable when it is
given them in another order (the panel's members are not ordered: ``panel="any"`` never reads
rater identities, ``"identified"`` averages over pairs of raters or over raters, and ``"two"``
is symmetric in its two raters with symmetric weights, the default), except a coefficient
whose core factory draws its value at random (``seed`` in its signature: split-half's random
splits), whose draws follow the order of the annotations; for those the item and rater orders
are checked in distribution only: over 2000 splits the values agree to Monte Carlo error.
"""

from __future__ import annotations

import inspect
import math
import pickle
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kappalab as kl
from kappalab.coefficients import registry
from kappalab.errors import InvalidParameterError
from kappalab.uncertainty import CI_METHODS

N_ITEMS = 14
N_RESAMPLES = 200
#: interval names a single estimator accepts beyond :data:`CI_METHODS`, where they work
#: through the public function
EXTRA_CI = {"krippendorff_alpha": ("krippendorff",), "icc": ("F",)}
#: a relabelling of the categories 1–4 that is not monotone
RELABEL = {1: "d", 2: "b", 3: "a", 4: "c"}


# ---------------------------------------------------------------------- data per entry
def data_arguments(entry: registry.Coefficient) -> list[str]:
    """The names of the function's positional data arguments without a default."""
    return [p.name for p in inspect.signature(entry.function).parameters.values()
            if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
            and p.default is inspect.Parameter.empty]


def takes(entry: registry.Coefficient, keyword: str) -> bool:
    return keyword in inspect.signature(entry.function).parameters


def random_draws(entry: registry.Coefficient) -> bool:
    """Whether the value rests on random draws (the core factory takes a seed)."""
    return entry.core is not None and "seed" in inspect.signature(entry.core).parameters


def _panel(rng: np.random.Generator, raters: list[str], items: pd.Index) -> pd.DataFrame:
    """Items × raters, labels 1–4: a true label per item, each rater keeping it with
    probability 0.7 (so every coefficient is defined and away from its bounds)."""
    truth = rng.integers(1, 5, size=len(items))
    table = np.where(rng.random((len(items), len(raters))) < 0.7, truth[:, None],
                     rng.integers(1, 5, size=(len(items), len(raters))))
    return pd.DataFrame(table, index=items, columns=raters)


def make_data(entry: registry.Coefficient, seed: int = 0) -> tuple:
    """The positional data arguments of the entry's function (see the module docstring)."""
    rng = np.random.default_rng(seed)
    items = pd.Index([f"item{i:02d}" for i in range(N_ITEMS)], name="item")
    raters = ["r1", "r2"] if entry.panel == "two" else ["r1", "r2", "r3", "r4"]
    x = _panel(rng, raters, items)
    if entry.replications == 2:
        return x, _panel(rng, ["s1", "s2", "s3"], items)
    if len(data_arguments(entry)) == 2:  # a reference: one label per item
        return x, pd.Series(x.mode(axis=1)[0].to_numpy(), index=items)
    return (x,)


def _apply(args: tuple, frame, series) -> tuple:
    return tuple(frame(a, k) if isinstance(a, pd.DataFrame) else series(a, k)
                 for k, a in enumerate(args))


def permute_items(args: tuple, seed: int = 1) -> tuple:
    order = np.random.default_rng(seed).permutation(N_ITEMS)
    return _apply(args, lambda a, k: a.iloc[order], lambda a, k: a.iloc[order])


def permute_raters(args: tuple) -> tuple:
    return _apply(args, lambda a, k: a[a.columns[::-1]], lambda a, k: a)


def relabel(args: tuple) -> tuple:
    return _apply(args, lambda a, k: a.apply(lambda column: column.map(RELABEL)),
                  lambda a, k: a.map(RELABEL))


def repeat_items(args: tuple, counts: np.ndarray) -> tuple:
    """Each item repeated ``counts[i]`` times under new labels (the same in every data
    argument, so that replications and a reference stay matched)."""
    def rows(a):
        positions = np.repeat(np.arange(len(a)), counts)
        copy = np.concatenate([np.arange(c) for c in counts])
        labels = [f"{a.index[p]}#{c}" for p, c in zip(positions, copy)]
        out = a.iloc[positions].copy()
        out.index = pd.Index(labels, name=a.index.name)
        return out

    return _apply(args, lambda a, k: rows(a), lambda a, k: rows(a))


def value(entry: registry.Coefficient, args: tuple, **options) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # layout and shared-rater warnings of small data
        if random_draws(entry):
            options.setdefault("seed", 0)
        return float(entry.function(*args, **options).value)


def close(a: float, b: float, rel: float = 1e-10) -> bool:
    return a == pytest.approx(b, rel=rel, abs=1e-12)


# ---------------------------------------------------------------------- the checks
# Each check takes an entry: the parametrized tests below run them on every registered
# coefficient, and CONTRIBUTING.md's example runs them on a coefficient it registers.
def check_item_order(entry: registry.Coefficient) -> None:
    args = make_data(entry)
    if random_draws(entry):  # in distribution: 2000 random splits each
        many = {"n_splits": 2000}
        assert abs(value(entry, args, **many) - value(entry, permute_items(args), **many)) < 0.02
        return
    assert close(value(entry, args), value(entry, permute_items(args)))


def check_rater_order(entry: registry.Coefficient) -> None:
    args = make_data(entry)
    if random_draws(entry):
        many = {"n_splits": 2000}
        assert abs(value(entry, args, **many) - value(entry, permute_raters(args), **many)) < 0.02
        return
    assert close(value(entry, args), value(entry, permute_raters(args)))


def check_relabelling(entry: registry.Coefficient) -> None:
    if entry.values != "categories":
        pytest.skip(f"{entry.name} reads its values as numbers")
    args = make_data(entry)
    assert close(value(entry, args), value(entry, relabel(args)))


def check_sample_weight_of_ones(entry: registry.Coefficient) -> None:
    if not takes(entry, "sample_weight"):
        pytest.skip(f"{entry.name} takes no sample_weight")
    args = make_data(entry)
    assert value(entry, args, sample_weight=np.ones(N_ITEMS)) == value(entry, args)


def check_integer_weights_repeat_items(entry: registry.Coefficient) -> None:
    if not takes(entry, "sample_weight"):
        pytest.skip(f"{entry.name} takes no sample_weight")
    args = make_data(entry)
    counts = np.random.default_rng(2).integers(1, 4, size=N_ITEMS)
    assert close(value(entry, args, sample_weight=counts),
                 value(entry, repeat_items(args, counts)))


def check_interval(entry: registry.Coefficient, method: str) -> None:
    """``ci=method`` runs and its interval contains the estimate (a method the estimator
    refuses with one line is skipped)."""
    args = make_data(entry)
    options = {"ci": method, "n_resamples": N_RESAMPLES, "seed": 0}
    if random_draws(entry):
        options["n_splits"] = 20
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            est = entry.function(*args, **options)
        except InvalidParameterError as error:
            assert "\n" not in str(error)
            pytest.skip(f"{entry.name} refuses ci={method!r}: {error}")
    low, high = est.ci
    assert est.se is None or (math.isfinite(est.se) and est.se >= 0)  # F: an exact interval
    assert low <= est.value <= high


def check_pickles(entry: registry.Coefficient) -> None:
    est = entry.function(*make_data(entry), **({"seed": 0} if random_draws(entry) else {}))
    again = pickle.loads(pickle.dumps(est))
    assert again == est and type(again) is type(est)


def check_bad_options(entry: registry.Coefficient) -> None:
    args = make_data(entry)
    with pytest.raises(InvalidParameterError) as error:
        entry.function(*args, ci="no-such-interval")
    assert "\n" not in str(error.value)
    if entry.option is not None:
        with pytest.raises(InvalidParameterError) as error:
            entry.function(*args, **{entry.option: "no-such-option"})
        assert "\n" not in str(error.value)


def check_core_factory(entry: registry.Coefficient) -> None:
    if entry.core is None:
        pytest.skip(f"{entry.name} has no core factory")
    args = make_data(entry)
    seed = {"seed": 0} if random_draws(entry) else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = entry.function(*args, **seed)
        core = entry.core(*args, **seed)
        from_core = core.estimate()
    assert from_core.value == est.value
    assert from_core.coefficient == est.coefficient and from_core.level == est.level
    # the factory takes the function's options less the interval options
    interval = {"ci", "n_resamples", "confidence", "progress"} | (set() if seed else {"seed"})
    assert not interval & set(inspect.signature(entry.core).parameters)


CHECKS = (check_item_order, check_rater_order, check_relabelling, check_sample_weight_of_ones,
          check_integer_weights_repeat_items, check_pickles, check_bad_options,
          check_core_factory)


def interval_methods(entry: registry.Coefficient) -> tuple[str, ...]:
    return (*CI_METHODS, *EXTRA_CI.get(entry.name, ()))


# ---------------------------------------------------------------------- the tests
ENTRIES = list(registry.coefficients())
IDS = [entry.name for entry in ENTRIES]


@pytest.mark.parametrize("check", CHECKS, ids=[check.__name__[6:] for check in CHECKS])
@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_common_check(entry, check):
    check(entry)


@pytest.mark.parametrize("entry, method", [(entry, method) for entry in ENTRIES
                                           for method in interval_methods(entry)],
                         ids=[f"{entry.name}-{method}" for entry in ENTRIES
                              for method in interval_methods(entry)])
def test_every_interval_method_runs_and_brackets_the_value(entry, method):
    check_interval(entry, method)


# ---------------------------------------------------------------------- lookup and register
def test_lookup_by_name_alias_and_function():
    for entry in registry.coefficients():
        assert registry.lookup(entry.name) is entry
        assert registry.lookup(entry.function) is entry
        for alias in entry.aliases:
            assert registry.lookup(alias) is entry
    assert {alias: registry.lookup(alias).name for alias in
            ("alpha", "fleiss", "conger", "gwet", "cohen")} == {
        "alpha": "krippendorff_alpha", "fleiss": "fleiss_kappa", "conger": "conger_kappa",
        "gwet": "gwet_ac", "cohen": "cohen_kappa"}


def test_lookup_errors_are_one_line_naming_the_choices():
    with pytest.raises(InvalidParameterError, match="unknown coefficient 'alfa' for a "
                       "coefficient; name one of .*krippendorff_alpha \\(alpha\\)") as error:
        registry.lookup("alfa")
    assert "\n" not in str(error.value)
    with pytest.raises(InvalidParameterError, match="unknown coefficient 'item_agreement'"):
        registry.lookup(kl.item_agreement)
    with pytest.raises(InvalidParameterError, match="unknown capability 'fast'"):
        registry.lookup("alpha", "fast")
    with pytest.raises(InvalidParameterError, match="cohen_kappa is not available for a plot;"
                       " it takes percent_agreement"):
        registry.lookup("cohen", "out_of_core", purpose="a plot")


def _toy(**fields):
    def toy(data, *, sample_weight=None, ci=None, n_resamples=2000, confidence=0.95,
            seed=None, progress=None):
        return kl.percent_agreement(data, sample_weight=sample_weight, ci=ci,
                                    n_resamples=n_resamples, confidence=confidence, seed=seed,
                                    progress=progress)

    return registry.Coefficient(**{"name": "toy", "function": toy, "display": "toy",
                                   **fields})


def test_register_and_unregister_keep_the_tables_consistent():
    before = list(registry.coefficients())
    entry = _toy(aliases=("toy_alias",))
    with registry.registered(entry) as got:
        assert got is entry and list(registry.coefficients())[-1] is entry
        assert registry.lookup("toy") is registry.lookup("toy_alias") is entry
        assert registry.lookup(entry.function) is entry
        assert registry.REGISTRY[-1] is entry
    assert list(registry.coefficients()) == before
    with pytest.raises(InvalidParameterError, match="unknown coefficient 'toy_alias'"):
        registry.lookup("toy_alias")
    with pytest.raises(InvalidParameterError, match="unknown coefficient 'toy'"):
        registry.unregister("toy")


def test_registered_removes_the_entry_after_an_error():
    with pytest.raises(RuntimeError), registry.registered(_toy()):
        raise RuntimeError("inside")
    assert "toy" not in [e.name for e in registry.coefficients()]


@pytest.mark.parametrize("fields, message", [
    ({"name": "krippendorff_alpha"}, "the name 'krippendorff_alpha' is taken by "
                                     "krippendorff_alpha"),
    ({"aliases": ("fleiss",)}, "the name 'fleiss' is taken by fleiss_kappa"),
    ({"function": kl.fleiss_kappa}, "the function toy is already registered as fleiss_kappa"),
    ({"aliases": ("toy",)}, "an alias repeats the name"),
    ({"name": "not a name"}, "must be its public function's name"),
    ({"chance": "lucky"}, "malformed registry entry 'toy': chance must be None or one of"),
    ({"panel": "three"}, "panel must be one of any, identified, two"),
    ({"replications": 3}, "replications must be 1 or 2"),
    ({"capabilities": frozenset({"flying"})}, "capabilities must be a frozenset of"),
    ({"core": "not callable"}, "core must be the core factory"),
    ({"values": "words"}, "values must be one of categories, numeric"),
    ({"aliases": "toy2"}, "aliases must be a tuple of names"),
])
def test_register_refuses_a_clash_or_a_malformed_entry_in_one_line(fields, message):
    before = list(registry.coefficients())
    with pytest.raises(InvalidParameterError, match=message) as error:
        registry.register(_toy(**fields))
    assert "\n" not in str(error.value)
    assert list(registry.coefficients()) == before
    with pytest.raises(InvalidParameterError, match="register takes a registry.Coefficient"):
        registry.register("toy")


# ---------------------------------------------------------------------- CONTRIBUTING.md
def contributing_example() -> str:
    """The code block of CONTRIBUTING.md's worked example ("Adding a coefficient")."""
    text = (Path(__file__).resolve().parents[1] / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text[text.index("## Adding a coefficient"):]
    section = section[section.index("### Worked example"):]
    start = section.index("```python\n") + len("```python\n")
    return section[start:section.index("```", start)]


def test_the_contributing_example_registers_a_coefficient_the_common_checks_pass():
    namespace: dict = {"__name__": "contributing_example"}
    before = list(registry.coefficients())
    exec(compile(contributing_example(), "CONTRIBUTING.md", "exec"), namespace)  # noqa: S102
    assert list(registry.coefficients()) == before  # it unregistered its entry
    entry = namespace["ENTRY"]
    with registry.registered(entry):
        assert entry in list(registry.coefficients())  # the parametrized checks would see it
        for check in CHECKS:
            check(entry)
        for method in interval_methods(entry):
            try:
                check_interval(entry, method)
            except pytest.skip.Exception:
                assert method == "gwet"  # Gwet's variance covers only his coefficients
        comparison = kl.compare(entry.function, make_data(entry), make_data(entry, seed=3))
        assert comparison.paired and comparison.n_common == N_ITEMS


def test_the_contributing_example_is_a_row_of_the_command_line_report(tmp_path, capsys):
    """Registered with the capability "agreement_report", the example's coefficient is a row
    of ``kappalab report FILE`` too: 3 of the 5 items of its data are unanimous."""
    from kappalab.cli import main

    namespace: dict = {"__name__": "contributing_example"}
    exec(compile(contributing_example(), "CONTRIBUTING.md", "exec"), namespace)  # noqa: S102
    path = tmp_path / "a.csv"
    wide = [[1, 1, 1], [2, 2, 1], [3, 3, 3], [1, 2, 1], [2, 2, 2]]
    path.write_text("item,rater,value\n" + "".join(
        f"{item},{rater},{label}\n" for item, labels in enumerate(wide)
        for rater, label in zip("ABC", labels)), encoding="utf-8")
    with registry.registered(namespace["ENTRY"]):
        assert main(["report", str(path), "--ci", "none", "--format", "csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert any(row.startswith("unanimity,0.6,") for row in rows), rows
    assert main(["report", str(path), "--ci", "none", "--format", "csv"]) == 0
    assert not any(row.startswith("unanimity") for row in capsys.readouterr().out.splitlines())
