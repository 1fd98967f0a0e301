"""kappalab.bayes.annotators: Bayesian models of annotation against outside truths.

Every asserted number comes from outside the model code: the parameters the annotations were
drawn from (``simulate.dawid_skene_annotations``), the EM fit of ``kappalab.annotators``, the
marginal likelihood written out item by item and class by class in plain Python, gold items
whose class is known, and Krippendorff's α of ``kappalab.krippendorff_alpha``.

The fits share one small data set (160 items, 5 annotators of whom 2 spammers, 3 labels per
item, 3 classes, 6 gold items and 2 items without annotations) and use 200 draws and 200
tuning steps on 2 chains with fixed seeds.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import kappalab as kl
from kappalab import annotators, simulate
from kappalab.errors import EmptyDataError, InvalidParameterError, UnknownRatersError

# PyMC, ArviZ and PyTensor are in the test extra: a missing one fails the run, as any oracle
import arviz as az
import pymc as pm
import pytensor.tensor as pt

from kappalab import bayes
from kappalab.bayes import annotators as bayes_annotators
from kappalab.bayes import compiled
from kappalab.bayes.annotators import (annotation_design, annotation_loglik, annotation_model,
                                       count_loglik, item_log_likelihood, model_priors,
                                       nominal_alpha, row_coordinates,
                                       simplex_coordinates)

# one xdist worker runs the whole module (pyproject's --dist loadscope), and the fits are
# cached for the process (fitted_models): the three models are compiled and sampled once

FIT = dict(draws=200, tune=200, chains=2)
K = 3


def fit(function, *args, **kwargs):
    """Fit with the test settings; warnings (R-hat a little above 1.01 is common with 200
    draws) are recorded, not raised — but for a RuntimeWarning of kappalab's own code (numpy's
    overflow, division by zero…), which fails the test as the suite's filter would."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        post = function(*args, **{**FIT, **kwargs})
    numeric = [f"{w.filename}:{w.lineno}: {w.message}" for w in caught
               if issubclass(w.category, RuntimeWarning) and "/kappalab/" in w.filename]
    assert not numeric, numeric
    return post


# ---------------------------------------------------------------------- the data, by hand
def wide_table(ann) -> pd.DataFrame:
    """Items × annotators labels (NaN: no annotation), from the long rows of the data."""
    return ann.to_long().pivot(index="item", columns="rater", values="value")


def brute_force(table: pd.DataFrame, pi, theta, gold: dict) -> dict:
    """log p(y_i) of every item with annotations or a gold class, by the definition: a sum
    over the classes of π_k Π θ_j[k, l] (only the gold class for a gold item)."""
    out = {}
    raters = list(table.columns)
    for item, row in table.iterrows():
        labels = [(raters.index(j), int(v)) for j, v in row.items() if not pd.isna(v)]
        if not labels and item not in gold:
            continue
        classes = [gold[item]] if item in gold else range(len(pi))
        out[item] = math.log(math.fsum(
            pi[k] * math.prod(theta[j][k][l] for j, l in labels) for k in classes))
    return out


@functools.cache
def simulated_data():
    ann, truth = simulate.dawid_skene_annotations(
        160, n_raters=5, n_classes=K, annotations_per_item=3, accuracy=0.8, concentration=30,
        spammers=0.4, prevalence=[0.5, 0.3, 0.2], seed=4)
    table = wide_table(ann)
    for extra in (1000, 1001):  # two items nobody annotated
        table.loc[extra] = np.nan
    gold = {int(i): int(truth.classes[i]) for i in (3, 17, 40, 41, 90)}
    gold[1001] = 2  # a gold item without annotations: it informs π only
    return table, truth, gold


@functools.cache
def fitted_models():
    # cached for the process, not only the module: an xdist worker that runs another
    # module's tests between this module's would rebuild a module-scoped fixture
    table, _, gold = simulated_data()
    return {name: fit(model, table, gold=gold, seed=7)
            for name, model in (("dawid_skene", bayes.dawid_skene),
                                ("hierarchical_dawid_skene", bayes.hierarchical_dawid_skene),
                                ("multinomial", bayes.multinomial))}


@pytest.fixture
def data():
    table, truth, gold = simulated_data()
    return table.copy(), truth, dict(gold)


@pytest.fixture
def fits():
    return fitted_models()


# ---------------------------------------------------------------------- the likelihood
def test_the_likelihood_graphs_equal_the_definition_with_padding_adding_nothing():
    rng = np.random.default_rng(0)
    table = pd.DataFrame([[0, 1, np.nan], [2, 2, 2], [np.nan, np.nan, np.nan], [1, np.nan, 0],
                          [0, 0, 0]], columns=["a", "b", "c"], dtype=float)
    gold = {3: 1, 2: 0}
    pi = rng.dirichlet(np.ones(K))
    theta = rng.dirichlet(np.ones(K), size=(3, K))
    expected = brute_force(table, pi, theta, gold)

    design = annotation_design(table, gold=gold, pooled=False)
    spec = annotation_model("dawid_skene", design)
    data = spec.data
    J_pad = spec.graph[1]
    log_theta = np.zeros((J_pad, K, K)) + np.log(1.0 / K)
    log_theta[:3] = np.log(theta)
    assert data["item"].size > design.item.size * K  # the bucket holds padding annotations
    ll = annotation_loglik(pt, data["item"], data["code"], data["weight"], data["mask"],
                           np.log(pi), log_theta, K).eval()
    assert ll == pytest.approx(math.fsum(expected.values()), abs=1e-12)

    # the numpy per-item log-likelihoods (one draw) item by item
    per_item, _ = item_log_likelihood(design, np.log(pi)[None], np.log(theta)[None])
    items = [design.items[r] for r in design.rows]
    np.testing.assert_allclose(per_item[0], [expected[i] for i in items], rtol=0, atol=1e-12)

    # the pooled model: one matrix, items grouped by their counts and gold class
    pooled = annotation_design(table, gold=gold, pooled=True)
    spec = annotation_model("multinomial", pooled)
    shared = theta[0]
    expected = brute_force(table, pi, [shared] * 3, gold)
    ll = count_loglik(pt, spec.data["rows"], spec.data["weight"], spec.data["mask"],
                      np.log(pi), np.log(shared), K).eval()
    assert ll == pytest.approx(math.fsum(expected.values()), abs=1e-12)


def test_every_layout_gives_the_same_design(data):
    table, _, gold = data
    table = table.drop(index=[1000, 1001])  # long rows cannot name an item without labels
    gold = {item: cls for item, cls in gold.items() if item in table.index}
    ann = kl.Annotations.from_wide(table)
    long = ann.to_long()
    designs = [annotation_design(x, gold=gold, pooled=False) for x in (table, long, ann)]

    def annotations(d):  # (item, rater, label) by their labels, whatever the codes
        return sorted(zip(d.items[d.rows[d.item]], d.raters[d.rater], d.categories[d.label]))

    for other in designs[1:]:
        assert annotations(other) == annotations(designs[0])
        for field in ("rows", "gold", "counts"):
            np.testing.assert_array_equal(getattr(designs[0], field), getattr(other, field))
    # the pooled model reads a counts table as it reads the annotations
    counts = kl.Annotations.from_counts(ann.count_matrix)
    np.testing.assert_array_equal(annotation_design(counts, pooled=True).counts,
                                  annotation_design(ann, pooled=True).counts)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["dawid_skene", "multinomial"])
def test_the_compiled_models_log_likelihood_is_the_log_likelihood_group(data, fits, kind):
    """The model's Potential at a posterior draw equals the item log-likelihoods stored for
    that draw, and those equal the definition written out class by class."""
    table, _, gold = data
    post = fits[kind]
    draw = 123
    pi = post["pi"][draw]
    theta = post["theta"][draw]
    stored = post.idata.log_likelihood["items"].stack(s=("chain", "draw")).values[:, draw]
    thetas = [theta] * 5 if kind == "multinomial" else theta
    expected = brute_force(table, pi, thetas, gold)
    np.testing.assert_allclose(stored, [expected[i] for i in
                                        post.idata.log_likelihood["item"].values],
                               rtol=0, atol=1e-10)

    pooled = kind == "multinomial"
    design = annotation_design(table, gold=gold, pooled=pooled)
    spec = annotation_model(kind, design, model_priors(kind, design, None))
    model = spec.build(pm, pt, pm.Model)
    [loglik] = model.replace_rvs_by_values([model["loglik"]])
    function = pm.pytensorf.compile(model.value_vars, loglik, on_unused_input="ignore")
    point = {"pi_logit": simplex_coordinates(pi)}
    if pooled:
        point["theta_logit"] = row_coordinates(theta)
    else:
        free = np.zeros((spec.graph[1], K, K - 1))
        free[:theta.shape[0]] = row_coordinates(theta)
        point["theta_logit"] = free
    value = function(*[point[v.name] for v in model.value_vars])
    assert float(value) == pytest.approx(float(stored.sum()), abs=1e-10)


# ---------------------------------------------------------------------- the fits
@pytest.mark.slow
def test_dawid_skene_recovers_the_simulated_parameters(data, fits):
    _, truth, _ = data
    post = fits["dawid_skene"]
    for name, true in (("pi", truth.prevalence), ("theta", truth.confusion)):
        draws = post[name]
        z = np.abs(draws.mean(axis=0) - true) / draws.std(axis=0)
        assert z.max() < 4, (name, z.max())
        assert (z < 2).mean() > 0.85, (name, (z < 2).mean())
    accuracy = (truth.confusion.diagonal(axis1=1, axis2=2) * truth.prevalence).sum(axis=1)
    draws = post["accuracy"]
    assert (np.abs(draws.mean(axis=0) - accuracy) < 4 * draws.std(axis=0)).all()
    # the spammers are the least accurate annotators
    mean_accuracy = post.mean("accuracy")
    assert mean_accuracy[truth.spammers].max() < mean_accuracy[~truth.spammers].min()
    assert list(post.idata.posterior["rater"].values) == list(range(5))
    assert post.idata.posterior["theta"].dims == ("chain", "draw", "rater", "true_class",
                                                  "label")


@pytest.mark.slow
def test_item_posteriors_gold_items_and_items_without_annotations(data, fits):
    table, truth, gold = data
    for name, post in fits.items():
        probability = bayes.item_posterior(post)
        assert list(probability.index) == list(table.index)
        np.testing.assert_allclose(probability.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        for item, cls in gold.items():  # exactly their class
            assert probability.loc[item].tolist() == [1.0 * (k == cls) for k in range(K)]
        # nobody annotated item 1000 and it has no gold class: its posterior is π's mean
        np.testing.assert_allclose(probability.loc[1000], post.mean("pi"), rtol=0,
                                   atol=1e-12)
        labels = bayes.item_labels(post)
        assert (labels["probability"] == probability.max(axis=1)).all()
        if name != "multinomial":  # with the annotators told apart, the labels are right
            right = (labels["label"].loc[truth.classes.index] == truth.classes).mean()
            vote = (annotators.majority_vote(table).labels.loc[truth.classes.index]
                    == truth.classes).mean()
            assert right >= vote, (name, right, vote)
    assert bayes.item_posterior(fits["dawid_skene"]).shape == (len(table), K)


@pytest.mark.slow
def test_loo_compare_ranks_the_models_and_the_pareto_k_warning_reaches_the_user(fits):
    for post in fits.values():
        assert post.idata.log_likelihood["items"].shape[-1] == 160 + 1  # 1001 is gold
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Pareto-k warning is checked below
        table = az.compare({name: post.idata for name, post in fits.items()})
    # the data have 2 spammers among 5 annotators: one matrix for all fits them worst
    assert table.index[-1] == "multinomial"
    worst = table.loc["multinomial"]
    assert worst["elpd_diff"] > 2 * worst["dse"]
    # the pooled model misfits some items so badly that LOO's importance weights fail there
    # (with these seeds its largest Pareto k is 0.85): ArviZ says so, through the fit
    with pytest.warns(UserWarning, match="Pareto"):
        loo = az.loo(fits["multinomial"].idata, pointwise=True)
    assert float(loo.pareto_k.max()) > 0.7


@pytest.mark.slow
def test_posterior_predictive_check_of_alpha(data, fits):
    table, _, _ = data
    observed = kl.krippendorff_alpha(table, level="nominal").value
    for name, post in fits.items():
        assert float(post.idata.observed_data["alpha"]) == pytest.approx(observed, abs=1e-12)
        replicated = post.idata.posterior_predictive["alpha"]
        assert replicated.sizes["chain"] == 2 and replicated.sizes["draw"] == 100
        assert post.idata.posterior.attrs["ppc_draws"] == 200
        p = post.ppc_pvalue("alpha")
        if name != "multinomial":  # the data were drawn from Dawid-Skene
            assert 0.025 < p < 0.975, (name, p)
    pvalues = bayes.rater_ppc_pvalues(fits["dawid_skene"])
    assert list(pvalues.index) == list(range(5)) and pvalues.between(0, 1).all()


def test_the_vectorised_alpha_is_krippendorffs():
    rng = np.random.default_rng(2)
    tables = rng.integers(0, 4, size=(6, 30, K))
    tables[:, :3] = 0  # items without annotations
    tables[:, 3, :] = [1, 0, 0]  # an item with one annotation
    ours = nominal_alpha(tables)
    for table, value in zip(tables, ours):
        assert value == pytest.approx(
            kl.krippendorff_alpha(kl.Annotations.from_counts(table)).value, abs=1e-12)


@pytest.mark.slow
def test_hierarchical_model_reports_its_population(data, fits):
    _, truth, _ = data
    post = fits["hierarchical_dawid_skene"]
    population = post["theta_population"]
    assert population.shape[1:] == (K, K)
    np.testing.assert_allclose(population.sum(axis=-1), 1.0, rtol=1e-12)
    # the population is the typical annotator: between the annotators' matrices
    theta = post.mean("theta")
    assert (post.mean("theta_population").diagonal() <= theta.max(axis=0).diagonal()).all()
    assert (post.mean("theta_population").diagonal() >= theta.min(axis=0).diagonal()).all()
    draws = post["pi"]
    assert (np.abs(draws.mean(axis=0) - truth.prevalence) < 4 * draws.std(axis=0)).all()
    assert {"zeta", "omega", "population_accuracy"} <= set(post.var_names)


@pytest.mark.slow
def test_posterior_means_are_near_the_em_estimates_on_large_data():
    ann, truth = simulate.dawid_skene_annotations(1000, n_raters=5, n_classes=K,
                                                  annotations_per_item=3, accuracy=0.75,
                                                  seed=21)  # 5 annotators: the model family
    # of the other fits, compiled once
    em = annotators.dawid_skene(ann)
    post = fit(bayes.dawid_skene, ann, seed=5, draws=150)
    for name, estimate in (("pi", em.prevalence.to_numpy()), ("theta", em.confusion)):
        draws = post[name]
        gap = np.abs(draws.mean(axis=0) - estimate)
        assert gap.max() < 0.03, (name, gap.max())
        assert (gap < 2 * draws.std(axis=0)).all(), name
    # and near the truth
    draws = post["theta"]
    assert (np.abs(draws.mean(axis=0) - truth.confusion) < 4 * draws.std(axis=0)).all()


@pytest.mark.slow
def test_nutpie_samples_the_same_model(data, fits):
    pytest.importorskip("nutpie")
    table, _, gold = data
    post = fit(bayes.dawid_skene, table, gold=gold, seed=7, sampler="nutpie")
    assert post.idata.posterior.attrs["sampler"] == "nutpie"
    reference = fits["dawid_skene"]
    for name in ("pi", "theta"):
        sd = np.hypot(post[name].std(axis=0), reference[name].std(axis=0))
        assert (np.abs(post.mean(name) - reference.mean(name)) < 4 * sd).all(), name
    assert post.idata.log_likelihood["items"].shape == reference.idata.log_likelihood[
        "items"].shape
    assert bayes.item_posterior(post).loc[3].tolist() == [1.0 * (k == gold[3])
                                                          for k in range(K)]


@pytest.mark.slow
def test_priors_are_data_one_compiled_model_serves_every_prior(data, fits):
    table, _, gold = data
    size = compiled.cache_info()["size"]
    confusion = np.full((5, K, K), 1.0) + 20 * np.eye(K)
    post = fit(bayes.dawid_skene, table, gold=gold, seed=7, draws=20, tune=20,
               prior={"confusion": confusion, "prevalence": [1, 2, 3]})
    assert compiled.cache_info()["size"] == size  # no new compilation
    attrs = post.idata.posterior.attrs
    assert attrs["prior_prevalence"] == [1.0, 2.0, 3.0]
    assert attrs["prior_confusion_shape"] == [5, K, K]


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize("gold, message", [
    ({"nope": 0}, "not in the data"),
    ({0: 7}, "is not a class of the data"),
    ({0: None}, "has no class for item 0"),
    (pd.Series([0, 1], index=[0, 0]), "more than once"),
    ([0, 1], "must be a mapping"),
])
def test_bad_gold_is_one_clear_error(data, gold, message):
    table, _, _ = data
    with pytest.raises(InvalidParameterError, match=message):
        bayes.dawid_skene(table, gold=gold)


@pytest.mark.parametrize("function, prior, message", [
    (bayes.dawid_skene, {"kappa": 1}, "unknown prior 'kappa'"),
    (bayes.dawid_skene, {"prevalence": -1}, "must be positive"),
    (bayes.dawid_skene, {"prevalence": [1, 2]}, "one number or 3"),
    (bayes.dawid_skene, {"confusion": np.ones((2, 2))}, "must be a pair"),
    (bayes.dawid_skene, {"confusion": np.ones((4, K, K))}, r"5 × 3 × 3"),
    (bayes.dawid_skene, {"confusion": (2.0, 0.0)}, "must be positive"),
    (bayes.dawid_skene, {"confusion": "diagonal"}, "must be numbers"),
    (bayes.multinomial, {"confusion": np.ones((5, K, K))}, "must be a pair"),
    (bayes.hierarchical_dawid_skene, {"zeta_sd": 0}, "zeta_sd"),
    (bayes.hierarchical_dawid_skene, {"zeta_mean": np.ones(2)}, "one number"),
    (bayes.hierarchical_dawid_skene, {"confusion": (2, 1)}, "unknown prior 'confusion'"),
    (bayes.dawid_skene, [1, 2], "must be a mapping"),
])
def test_bad_priors_are_one_clear_error(data, function, prior, message):
    table, _, _ = data
    with pytest.raises(InvalidParameterError, match=message):
        function(table, prior=prior)


def test_a_class_nobody_used_is_a_class_of_the_model():
    ann = kl.Annotations.from_wide([[0, 1, 1], [1, 1, 0], [0, 0, 0]], categories=[0, 1, 2])
    design = annotation_design(ann, gold={2: 2}, pooled=False)
    assert design.K == 3 and design.counts[:, 2].sum() == 0
    spec = annotation_model("dawid_skene", design)
    assert spec.data["prior_confusion"].shape == (4, 3, 3) and spec.graph == (3, 4)
    # the gold item may have the class nobody used: its likelihood is that class's term
    pi, theta = np.full(3, 1 / 3), np.full((3, 3, 3), 1 / 3)
    ll, p = item_log_likelihood(design, np.log(pi)[None], np.log(theta)[None])
    assert p[2].tolist() == [0.0, 0.0, 1.0]
    assert ll[0, 2] == pytest.approx(math.log(1 / 3) + 3 * math.log(1 / 3), abs=1e-12)


def test_bad_data_are_kappalab_errors():
    counts = kl.Annotations.from_counts([[2, 1], [0, 3]])
    with pytest.raises(UnknownRatersError, match="dawid_skene"):
        bayes.dawid_skene(counts)
    with pytest.raises(UnknownRatersError):
        bayes.hierarchical_dawid_skene(counts)
    with pytest.raises(EmptyDataError, match="at least 2 classes"):
        bayes.dawid_skene([[1, 1], [1, 1]])
    with pytest.raises(EmptyDataError):
        bayes.multinomial(kl.Annotations.from_counts([[0, 0], [0, 0]]))
    with pytest.raises(InvalidParameterError, match="unknown sampler"):
        bayes.dawid_skene([[0, 1], [1, 1]], sampler="stan")
    with pytest.raises(InvalidParameterError, match="no item posteriors"):
        bayes.item_posterior(bayes.Posterior(az.from_dict(posterior={"pi": np.zeros((1, 4))}),
                                             model="demo"))
    with pytest.raises(InvalidParameterError, match="no per-annotator"):
        bayes.rater_ppc_pvalues(bayes.Posterior(az.from_dict(
            posterior={"pi": np.zeros((1, 4))}), model="demo"))


def test_the_module_lists_its_models():
    assert set(bayes_annotators.MODELS) == {"dawid_skene", "hierarchical_dawid_skene",
                                            "multinomial"}
    for name in ("dawid_skene", "hierarchical_dawid_skene", "multinomial", "item_posterior",
                 "item_labels", "rater_ppc_pvalues"):
        assert getattr(bayes, name) is getattr(bayes_annotators, name)
