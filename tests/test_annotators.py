"""Models of annotation (``kappalab.annotators``): EM checked step by step against a loop
written from Dawid & Skene (1979), the log-likelihood against its definition, the ascent
property, recovery of simulated truths, crowd-kit's DawidSkene and the majority vote's tie
rule."""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kappalab as kl
from kappalab import errors
from kappalab.simulate import dawid_skene_annotations

annotators = kl.annotators


# ---------------------------------------------------------------------- by hand
def _triples(ann):
    items, raters, labels = ann.codes()
    return list(zip(items.tolist(), raters.tolist(), labels.tolist()))


def _loop_em(triples, n_items, J, K, iterations, smoothing=0.0):
    """Dawid & Skene's EM with Python loops and dicts, from the majority vote's shares:
    the returned posteriors come from the E-step with the parameters returned."""
    by_item = {i: [(j, l) for ii, j, l in triples if ii == i] for i in range(n_items)}
    T = {}
    for i, labels in by_item.items():
        T[i] = [sum(1 for _, l in labels if l == k) / len(labels) for k in range(K)]
    for _ in range(iterations):
        pi = [(sum(T[i][k] for i in T) + smoothing) for k in range(K)]
        pi = [p / sum(pi) for p in pi]
        theta = {}
        for j in range(J):
            for k in range(K):
                mass = [smoothing + sum(T[i][k] for i, labels in by_item.items()
                                        for jj, l in labels if jj == j and l == ll)
                        for ll in range(K)]
                total = sum(mass)
                theta[j, k] = [x / total for x in mass] if total > 0 else [1 / K] * K
        ll_total = 0.0
        for i, labels in by_item.items():
            joint = [pi[k] * math.prod(theta[j, k][l] for j, l in labels) for k in range(K)]
            evidence = sum(joint)
            T[i] = [x / evidence for x in joint]
            ll_total += math.log(evidence)
    return T, pi, theta, ll_total


def _small_data():
    return [[0, 0, 1, 2], [1, 1, 1, 0], [2, 2, 1, 2], [0, 1, 0, 0], [2, 2, 2, None],
            [1, None, 1, 0], [0, 0, 0, 1]]


@pytest.mark.parametrize("iterations", [1, 2, 7])
@pytest.mark.parametrize("smoothing", [0.0, 0.5])
def test_em_steps_equal_the_loop_written_from_the_paper(iterations, smoothing):
    ann = kl.Annotations.from_wide(_small_data())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", errors.ConvergenceWarning)
        fit = annotators.dawid_skene(ann, max_iter=iterations, tol=0.0, smoothing=smoothing,
                                     accelerate=False)
    T, pi, theta, ll_total = _loop_em(_triples(ann), ann.n_items, ann.n_raters, 3,
                                      iterations, smoothing)
    np.testing.assert_allclose(fit.posterior.to_numpy(), [T[i] for i in range(ann.n_items)],
                               rtol=0, atol=1e-13)
    np.testing.assert_allclose(fit.prevalence.to_numpy(), pi, rtol=0, atol=1e-14)
    expected = np.array([[theta[j, k] for k in range(3)] for j in range(ann.n_raters)])
    np.testing.assert_allclose(fit.confusion, expected, rtol=0, atol=1e-14)
    assert fit.log_likelihood == pytest.approx(ll_total, rel=1e-13)
    assert fit.n_iter == iterations


def test_the_log_likelihood_is_that_of_the_returned_parameters():
    ann = kl.Annotations.from_wide(_small_data())
    fit = annotators.dawid_skene(ann)
    pi, theta = fit.prevalence.to_numpy(), fit.confusion
    by_hand = 0.0
    per_item = np.zeros(ann.n_items)
    for i in range(ann.n_items):
        labels = [(j, l) for ii, j, l in _triples(ann) if ii == i]
        per_item[i] = math.log(sum(pi[k] * math.prod(theta[j, k, l] for j, l in labels)
                                   for k in range(3)))
        by_hand += per_item[i]
    assert fit.log_likelihood == pytest.approx(by_hand, rel=1e-13)
    np.testing.assert_allclose(fit.item_log_likelihood, per_item, rtol=1e-13)
    assert fit.converged and fit.trace[-1] == fit.log_likelihood


@settings(max_examples=40, deadline=None)
@given(data=st.lists(st.lists(st.one_of(st.none(), st.integers(0, 2)), min_size=3, max_size=3),
                     min_size=3, max_size=12))
def test_em_never_lowers_the_log_likelihood(data):
    """EM's ascent property (without smoothing: with it EM ascends the penalised likelihood,
    and the likelihood itself may fall)."""
    smoothing = 0.0
    table = np.array([[np.nan if v is None else v for v in row] for row in data], dtype=float)
    if (~np.isnan(table)).sum() < 2 or np.unique(table[~np.isnan(table)]).size < 2:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ann = kl.Annotations.from_wide(table, raters_as_rows=False)
        fit = annotators.dawid_skene(ann, max_iter=60, smoothing=smoothing)
        pooled = annotators.multinomial(ann, max_iter=60, smoothing=smoothing)
    for trace in (fit.trace, pooled.trace):
        steps = np.diff(trace)
        assert (steps >= -1e-9 * np.maximum(np.abs(trace[1:]), 1.0)).all(), trace
    for f in (fit, pooled):
        np.testing.assert_allclose(f.posterior.sum(axis=1), 1.0, rtol=1e-12)
        np.testing.assert_allclose(f.confusion.sum(axis=2), 1.0, rtol=1e-12)


# ---------------------------------------------------------------------- truths
def _log_likelihood(triples, pi, theta):
    """Σ_i log Σ_k π_k Π_{(j, l) ∈ y_i} θ_j[k, l], by its definition."""
    by_item: dict[int, list[tuple[int, int]]] = {}
    for i, j, l in triples:
        by_item.setdefault(i, []).append((j, l))
    return sum(math.log(sum(pi[k] * math.prod(theta[j][k][l] for j, l in labels)
                            for k in range(len(pi))))
               for labels in by_item.values())


def _fit_simulated(n_items, seed):
    ann, truth = dawid_skene_annotations(n_items, n_raters=6, n_classes=3, accuracy=0.75,
                                         seed=seed)
    fit = annotators.dawid_skene(ann)
    rms_theta = float(np.sqrt(np.mean((fit.confusion - truth.confusion) ** 2)))
    rms_pi = float(np.sqrt(np.mean((fit.prevalence.to_numpy() - truth.prevalence) ** 2)))
    return rms_theta, rms_pi, ann, fit, truth


@pytest.mark.slow
def test_em_recovers_the_simulated_truth_with_errors_falling_as_one_over_root_n():
    small = np.mean([_fit_simulated(500, seed)[:2] for seed in range(4)], axis=0)
    large = np.mean([_fit_simulated(8000, seed)[:2] for seed in range(4)], axis=0)
    # 16 times the items: errors about 4 times smaller (2.5–6.5 allows the Monte Carlo spread)
    assert 2.5 < small[0] / large[0] < 6.5, (small, large)
    assert large[0] < 0.02 and large[1] < 0.02
    _, _, ann, fit, truth = _fit_simulated(8000, 9)
    right = truth.classes.to_numpy()
    model = float((fit.labels.to_numpy() == right).mean())
    vote = float((annotators.majority_vote(ann).labels.to_numpy() == right).mean())
    assert model >= vote  # the model weighs the annotators; the vote counts them alike


def test_spammers_are_found():
    ann, truth = dawid_skene_annotations(3000, n_raters=8, n_classes=3, accuracy=0.8,
                                         spammers=0.25, seed=3)
    fit = annotators.dawid_skene(ann)
    accuracy = fit.accuracy.to_numpy()
    assert accuracy[truth.spammers].max() < accuracy[~truth.spammers].min()


# ---------------------------------------------------------------------- peers
def _crowd_frame(ann):
    items, raters, labels = ann.codes()
    return pd.DataFrame({"task": items, "worker": raters, "label": labels})


@pytest.mark.parametrize("n_iter", [1, 3, 10])
def test_em_iterations_equal_crowd_kits_dawid_skene(n_iter):
    crowd = pytest.importorskip("crowdkit.aggregation")
    ann, _ = dawid_skene_annotations(300, n_raters=5, n_classes=3, seed=11)
    theirs = crowd.DawidSkene(n_iter=n_iter, tol=-np.inf).fit(_crowd_frame(ann)).probas_
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", errors.ConvergenceWarning)
        ours = annotators.dawid_skene(ann, max_iter=n_iter, tol=0.0, accelerate=False)
    # crowd-kit clips empty confusion cells at 1e-10 instead of 0: equal to that
    np.testing.assert_allclose(ours.posterior.to_numpy(),
                               theirs.sort_index().sort_index(axis=1).to_numpy(), atol=1e-8)


def test_crowd_kits_stopping_rule_stops_short_of_the_converged_fit():
    crowd = pytest.importorskip("crowdkit.aggregation")
    ann, _ = dawid_skene_annotations(400, n_raters=6, n_classes=3, accuracy=0.6, seed=5)
    theirs = crowd.DawidSkene().fit(_crowd_frame(ann))  # its defaults: n_iter=100, tol=1e-5
    ours = annotators.dawid_skene(ann, accelerate=False)  # plain EM, step by step as theirs
    assert ours.converged and ours.n_iter > len(theirs.loss_history_)
    theta = np.zeros_like(ours.confusion)
    for (worker, label), row in theirs.errors_.iterrows():
        theta[int(worker), :, int(label)] = row.sort_index().to_numpy()
    theirs_ll = _log_likelihood(_triples(ann), theirs.priors_.sort_index().to_numpy(), theta)
    assert ours.log_likelihood > theirs_ll


# ---------------------------------------------------------------------- the vote
def test_majority_vote_splits_ties_and_states_its_hard_label():
    long = pd.DataFrame({"item": [1, 1, 2, 2, 2, 3], "rater": ["a", "b", "a", "b", "c", "a"],
                         "value": ["pos", "neg", "pos", "pos", "neg", "neg"]})
    fit = annotators.majority_vote(long)
    assert fit.posterior.loc[1].tolist() == [0.5, 0.5]
    assert fit.labels.tolist() == ["neg", "pos", "neg"]  # the tie: "neg" comes first
    assert annotators.majority_vote(long, ties="missing").labels.tolist() == [None, "pos", "neg"]
    shuffled = long.sample(frac=1.0, random_state=4)  # the row order does not matter
    assert annotators.majority_vote(shuffled).labels.sort_index().tolist() == fit.labels.tolist()
    with pytest.raises(errors.InvalidParameterError, match="ties must be one of"):
        annotators.majority_vote(long, ties="random")


# ---------------------------------------------------------------------- edges
def test_a_counts_table_fits_the_pooled_model_and_refuses_per_annotator_matrices():
    table = kl.Annotations.from_counts([[3, 0], [0, 3], [2, 1], [1, 2]])
    fit = annotators.multinomial(table)
    assert fit.confusion.shape == (1, 2, 2) and fit.confusion_matrix().shape == (2, 2)
    with pytest.raises(errors.UnknownRatersError):
        annotators.dawid_skene(table)


def test_an_unused_class_has_no_prevalence_and_uniform_rows():
    ann = kl.Annotations.from_wide([[0, 0, 1], [1, 1, 1], [0, 0, 0]], categories=[0, 1, 2])
    fit = annotators.dawid_skene(ann)
    assert fit.prevalence[2] == 0.0 and (fit.posterior[2] == 0.0).all()
    np.testing.assert_allclose(fit.confusion[:, 2, :], 1 / 3)


def test_an_item_without_annotations_gets_the_prevalences():
    fit = annotators.dawid_skene([[0, 0, 1], [np.nan, np.nan, np.nan], [1, 1, 1], [0, 1, 0]])
    np.testing.assert_allclose(fit.posterior.iloc[1].to_numpy(), fit.prevalence.to_numpy())
    assert fit.item_log_likelihood[1] == 0.0


def test_identical_annotators_and_single_annotations_are_fitted():
    same = annotators.dawid_skene([[0, 0], [1, 1], [1, 1], [0, 0]])
    assert same.labels.tolist() == [0, 1, 1, 0]
    single = annotators.dawid_skene([[0, np.nan], [np.nan, 1], [1, 1], [0, 0]])
    assert single.converged and np.isfinite(single.log_likelihood)


def test_bad_options_are_refused_in_one_line():
    data = [[0, 1], [1, 1]]
    for kwargs, message in [({"smoothing": -1}, "smoothing"), ({"max_iter": 0}, "max_iter"),
                            ({"tol": float("nan")}, "tol")]:
        with pytest.raises(errors.InvalidParameterError, match=message):
            annotators.dawid_skene(data, **kwargs)


def test_a_fit_that_stops_at_max_iter_warns():
    ann, _ = dawid_skene_annotations(200, n_raters=4, seed=2)
    with pytest.warns(errors.ConvergenceWarning, match="did not converge in 2 iterations"):
        annotators.dawid_skene(ann, max_iter=2)


def test_the_generator_draws_what_it_says():
    ann, truth = dawid_skene_annotations(20000, n_raters=3, n_classes=2, accuracy=0.8,
                                         concentration=1e6, prevalence=[0.3, 0.7], seed=8)
    assert ann.n_annotations == 60000
    assert truth.classes.mean() == pytest.approx(0.7, abs=0.015)
    np.testing.assert_allclose(truth.confusion, [[[0.8, 0.2], [0.2, 0.8]]] * 3, atol=0.005)
    items, raters, labels = ann.codes()
    z = truth.classes.to_numpy()[items]
    agree = (labels == z).mean()
    assert agree == pytest.approx(0.8, abs=0.01)
    sparse, _ = dawid_skene_annotations(50, n_raters=10, annotations_per_item=3, seed=1)
    assert (sparse.annotations_per_item_array == 3).all()
    with pytest.raises(errors.InvalidParameterError, match="exceeds the 4 annotators"):
        dawid_skene_annotations(10, n_raters=4, annotations_per_item=5)


# ---------------------------------------------------------------------- Snow et al. (2008)
def _snow(task):
    from kappalab.datasets import data_folder, fetch
    from kappalab.datasets.real import SOURCE_FILES

    path = data_folder() / SOURCE_FILES["snow2008"].relative_path
    if not path.is_file():
        pytest.skip(f"real data absent: {path} (set KAPPALAB_DATA to a folder holding "
                    f"{SOURCE_FILES['snow2008'].relative_path})")
    return fetch(f"snow2008-{task}")


@pytest.mark.slow
def test_on_snows_temp_crowd_kit_stops_short_and_the_converged_fit_is_as_accurate():
    """Snow et al.'s TEMP (462 items, 10 labels each, with gold): crowd-kit 1.4.2's
    DawidSkene with its defaults stops after a few iterations below the likelihood the
    converged EM reaches, its posteriors up to 0.05 away; both label the items alike."""
    crowd = pytest.importorskip("crowdkit.aggregation")
    data = _snow("temp")
    ann = data.annotations
    items, raters, labels = ann.codes()
    frame = pd.DataFrame({"task": np.asarray(ann.items)[items],
                          "worker": np.asarray(ann.raters)[raters],
                          "label": np.asarray(ann.categories)[labels]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # crowd-kit's pandas deprecations
        theirs = crowd.DawidSkene().fit(frame)
    ours = annotators.dawid_skene(ann, accelerate=False)
    theta = np.zeros_like(ours.confusion)
    rater_row = {rater: j for j, rater in enumerate(ann.raters)}
    for (worker, label), row in theirs.errors_.iterrows():
        theta[rater_row[worker], :, ann.categories.get_loc(label)] = (
            row.reindex(ann.categories).to_numpy())
    theirs_ll = _log_likelihood(_triples(ann), theirs.priors_.reindex(ann.categories).to_numpy(),
                                theta)
    assert len(theirs.loss_history_) < 10 < ours.n_iter and ours.converged
    assert ours.log_likelihood - theirs_ll > 0.02  # −1256.965 against −1256.993
    gap = np.abs(theirs.probas_.reindex(index=ann.items, columns=ann.categories).to_numpy()
                 - ours.posterior.to_numpy()).max()
    assert gap > 0.03
    gold = data.gold.reindex(ann.items).to_numpy()
    ours_accuracy = float((ours.labels.to_numpy() == gold).mean())
    vote_accuracy = float((annotators.majority_vote(ann).labels.to_numpy() == gold).mean())
    theirs_accuracy = float((theirs.labels_.reindex(ann.items).to_numpy() == gold).mean())
    # right on 434 of 462 items by the vote (a tie: the first class), 435 by either fit
    assert (round(vote_accuracy * 462), round(ours_accuracy * 462),
            round(theirs_accuracy * 462)) == (434, 435, 435)


def test_the_majority_vote_agrees_with_item_reports_majority_and_leaves_unvoted_items_blank():
    data = [["a", "b", None], [None, None, None], ["b", "b", "a"], ["c", "a", "b"]]
    fit = annotators.majority_vote(data)
    assert fit.labels.tolist() == ["a", None, "b", "a"]  # by hand: ties go to the first class
    assert fit.posterior.iloc[1].isna().all()
    np.testing.assert_allclose(fit.prevalence.to_numpy(),  # mean of the three items' shares
                               [(1 / 2 + 1 / 3 + 1 / 3) / 3, (1 / 2 + 2 / 3 + 1 / 3) / 3,
                                (1 / 3) / 3])
    summary = kl.item_report(data)
    theirs = [None if pd.isna(v) else v for v in summary.loc[fit.labels.index, "majority"]]
    assert theirs == fit.labels.tolist()


# ---------------------------------------------------------------------- gold and priors
def _loop_em_general(triples, n_items, J, K, iterations, prevalence_pseudo, confusion_pseudo,
                     gold=None):
    """_loop_em with a pseudo-count for every prevalence and confusion cell and items whose
    class is known (gold: item -> class): their posterior is that class and their evidence
    the joint probability of it."""
    gold = gold or {}
    by_item = {i: [(j, l) for ii, j, l in triples if ii == i] for i in range(n_items)}
    T = {}
    for i, labels in by_item.items():
        if i in gold:
            T[i] = [1.0 if k == gold[i] else 0.0 for k in range(K)]
        else:
            T[i] = [sum(1 for _, l in labels if l == k) / len(labels) for k in range(K)]
    for _ in range(iterations):
        pi = [sum(T[i][k] for i in T) + prevalence_pseudo[k] for k in range(K)]
        pi = [p / sum(pi) for p in pi]
        theta = {}
        for j in range(J):
            for k in range(K):
                mass = [confusion_pseudo[j][k][ll] + sum(
                    T[i][k] for i, labels in by_item.items() for jj, l in labels
                    if jj == j and l == ll) for ll in range(K)]
                total = sum(mass)
                theta[j, k] = [x / total for x in mass] if total > 0 else [1 / K] * K
        ll_total = 0.0
        for i, labels in by_item.items():
            joint = [pi[k] * math.prod(theta[j, k][l] for j, l in labels) for k in range(K)]
            if i in gold:
                T[i] = [1.0 if k == gold[i] else 0.0 for k in range(K)]
                ll_total += math.log(joint[gold[i]])
            else:
                T[i] = [x / sum(joint) for x in joint]
                ll_total += math.log(sum(joint))
    return T, pi, theta, ll_total


@pytest.mark.parametrize("iterations", [1, 4])
def test_gold_items_keep_their_class_and_the_steps_equal_the_loop(iterations):
    ann = kl.Annotations.from_wide(_small_data())
    gold = {0: 2, 3: 0}  # item 0's votes say 0, its gold says 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", errors.ConvergenceWarning)
        fit = annotators.dawid_skene(ann, gold=pd.Series(gold), max_iter=iterations, tol=0.0,
                                     accelerate=False)
    zeros = [[[0.0] * 3] * 3] * ann.n_raters
    T, pi, theta, ll_total = _loop_em_general(_triples(ann), ann.n_items, ann.n_raters, 3,
                                              iterations, [0.0] * 3, zeros, gold)
    np.testing.assert_allclose(fit.posterior.to_numpy(), [T[i] for i in range(ann.n_items)],
                               rtol=0, atol=1e-13)
    np.testing.assert_allclose(fit.confusion, np.array(
        [[theta[j, k] for k in range(3)] for j in range(ann.n_raters)]), rtol=0, atol=1e-14)
    assert fit.log_likelihood == pytest.approx(ll_total, rel=1e-13)
    assert fit.labels[0] == 2 and fit.posterior.loc[0].tolist() == [0.0, 0.0, 1.0]


def test_prior_pseudo_counts_equal_the_loop_and_add_to_the_smoothing():
    ann = kl.Annotations.from_wide(_small_data())
    rng = np.random.default_rng(0)
    confusion = rng.uniform(0, 3, size=(3, 3))  # the same for every annotator
    prevalence = np.array([2.0, 0.0, 5.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", errors.ConvergenceWarning)
        fit = annotators.dawid_skene(ann, prior={"confusion": confusion,
                                                 "prevalence": prevalence},
                                     smoothing=0.25, max_iter=3, tol=0.0, accelerate=False)
    per_rater = [(confusion + 0.25).tolist()] * ann.n_raters
    T, pi, theta, _ = _loop_em_general(_triples(ann), ann.n_items, ann.n_raters, 3, 3,
                                       (prevalence + 0.25).tolist(), per_rater)
    np.testing.assert_allclose(fit.posterior.to_numpy(), [T[i] for i in range(ann.n_items)],
                               rtol=0, atol=1e-13)
    np.testing.assert_allclose(fit.prevalence.to_numpy(), pi, rtol=0, atol=1e-14)
    # one matrix per annotator (J × K × K) is taken as it is
    stacked = np.stack([confusion] * ann.n_raters)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", errors.ConvergenceWarning)
        same = annotators.dawid_skene(ann, prior={"confusion": stacked,
                                                  "prevalence": prevalence},
                                      smoothing=0.25, max_iter=3, tol=0.0, accelerate=False)
    np.testing.assert_array_equal(same.confusion, fit.confusion)


def test_bad_gold_and_priors_are_refused_in_one_line():
    data = [[0, 1, 1], [1, 1, 0], [0, 0, 0]]
    cases = [
        ({"gold": {7: 0}}, "gold names 1 item not in the data: 7"),
        ({"gold": {0: "x"}}, "gold class 'x' is not a category"),
        ({"prior": {"confusion": np.ones((3, 3))}}, r"confusion.*\(2, 2\) or \(3, 2, 2\)"),
        ({"prior": {"confusion": -np.ones((2, 2))}}, "non-negative"),
        ({"prior": {"prevalence": [1.0]}}, r"prevalence.*2"),
        ({"prior": {"spam": 1}}, "unknown prior 'spam'"),
    ]
    for kwargs, message in cases:
        with pytest.raises(errors.InvalidParameterError, match=message):
            annotators.dawid_skene(data, **kwargs)


def test_gold_on_an_item_without_annotations_informs_the_prevalence():
    data = [[0, 0, 1], [np.nan, np.nan, np.nan], [1, 1, 1], [0, 1, 0]]
    fit = annotators.dawid_skene(data, gold={1: 1})
    assert fit.posterior.iloc[1].tolist() == [0.0, 1.0]
    assert fit.item_log_likelihood[1] == pytest.approx(math.log(fit.prevalence[1]), rel=1e-14)


# ---------------------------------------------------------------------- MACE
def _loop_mace(triples, n_items, J, K, iterations, smoothing=0.0):
    """MACE's EM (Hovy et al. 2013) with loops: the true class uniform; annotator j knows
    the class with probability c_j and then gives it, else spams a label from ξ_j. The
    E-step gives T_ik and, per annotation, the probability it was known; the M-step counts."""
    by_item = {i: [(j, l) for ii, j, l in triples if ii == i] for i in range(n_items)}
    T = {i: [sum(1 for _, l in labels if l == k) / len(labels) for k in range(K)]
         for i, labels in by_item.items()}
    c = [0.5] * J
    xi = [[1 / K] * K for _ in range(J)]
    for _ in range(iterations):
        known = [0.0] * J
        spam = [[0.0] * K for _ in range(J)]
        for i, labels in by_item.items():
            for j, l in labels:
                p_known = T[i][l] * c[j] / (c[j] + (1 - c[j]) * xi[j][l])
                known[j] += p_known
                spam[j][l] += 1 - p_known
        c = [(known[j] + smoothing) / (known[j] + sum(spam[j]) + 2 * smoothing)
             for j in range(J)]
        xi = [[(spam[j][l] + smoothing) / (sum(spam[j]) + K * smoothing) for l in range(K)]
              for j in range(J)]
        ll_total = 0.0
        for i, labels in by_item.items():
            joint = [math.prod((1 - c[j]) * xi[j][l] + c[j] * (l == k) for j, l in labels) / K
                     for k in range(K)]
            T[i] = [x / sum(joint) for x in joint]
            ll_total += math.log(sum(joint))
    return T, c, xi, ll_total


@pytest.mark.parametrize("iterations", [1, 2, 6])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_mace_steps_equal_the_loop_written_from_the_paper(iterations, smoothing):
    ann = kl.Annotations.from_wide(_small_data())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", errors.ConvergenceWarning)
        fit = annotators.mace(ann, max_iter=iterations, tol=0.0, smoothing=smoothing,
                              accelerate=False)
    T, c, xi, ll_total = _loop_mace(_triples(ann), ann.n_items, ann.n_raters, 3, iterations,
                                    smoothing)
    np.testing.assert_allclose(fit.posterior.to_numpy(), [T[i] for i in range(ann.n_items)],
                               rtol=0, atol=1e-13)
    np.testing.assert_allclose(fit.details["competence"].to_numpy(), c, rtol=0, atol=1e-14)
    np.testing.assert_allclose(fit.details["strategy"].to_numpy(), xi, rtol=0, atol=1e-14)
    assert fit.log_likelihood == pytest.approx(ll_total, rel=1e-13)
    # its confusion matrices are (1 − c_j) ξ_j + c_j I
    expected = (1 - np.array(c))[:, None, None] * np.array(xi)[:, None, :] + (
        np.array(c)[:, None, None] * np.eye(3))
    np.testing.assert_allclose(fit.confusion, expected, rtol=0, atol=1e-14)
    np.testing.assert_array_equal(fit.prevalence.to_numpy(), np.full(3, 1 / 3))


@settings(max_examples=30, deadline=None)
@given(data=st.lists(st.lists(st.one_of(st.none(), st.integers(0, 2)), min_size=4, max_size=4),
                     min_size=3, max_size=12))
def test_mace_never_lowers_the_log_likelihood(data):
    table = np.array([[np.nan if v is None else v for v in row] for row in data], dtype=float)
    if (~np.isnan(table)).sum() < 2 or np.unique(table[~np.isnan(table)]).size < 2:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = annotators.mace(kl.Annotations.from_wide(table, raters_as_rows=False),
                              max_iter=60)
    steps = np.diff(fit.trace)
    assert (steps >= -1e-9 * np.maximum(np.abs(fit.trace[1:]), 1.0)).all(), fit.trace
    np.testing.assert_allclose(fit.posterior.sum(axis=1), 1.0, rtol=1e-12)


def test_mace_finds_the_spammers():
    ann, truth = dawid_skene_annotations(2000, n_raters=10, n_classes=3, accuracy=0.85,
                                         spammers=0.3, seed=4)
    fit = annotators.mace(ann, max_iter=3000)  # a spammer's c_j → 0 slowly, at a boundary
    assert fit.converged
    competence = fit.details["competence"].to_numpy()
    assert competence[truth.spammers].max() < 0.15 < 0.6 < competence[~truth.spammers].min()


def test_mace_reaches_crowd_kits_em_optimum_or_better():
    """crowd-kit's MACE(method="em") runs 50 iterations from random starts with the
    smoothing 0.01/K; converged from the vote, MACE here reaches a higher likelihood on these data
    (−1732.53 against −1738.83; 500 iterations of crowd-kit's give the same) and labels
    97% of the items alike."""
    crowd = pytest.importorskip("crowdkit.aggregation")
    ann, _ = dawid_skene_annotations(300, n_raters=6, n_classes=3, accuracy=0.75,
                                     spammers=0.3, seed=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # its 10 restarts draw the same start with random_state=0: one is the same fit
        theirs = crowd.MACE(method="em", random_state=0, n_restarts=1).fit(_crowd_frame(ann))
    ours = annotators.mace(ann, smoothing=0.01 / 3)
    # their parameters (spamming_[:, 1] is P(knows)) in our likelihood
    c = theirs.spamming_[:, 1]
    xi = theirs.thetas_
    theta = (1 - c)[:, None, None] * xi[:, None, :] + c[:, None, None] * np.eye(3)
    theirs_ll = _log_likelihood(_triples(ann), np.full(3, 1 / 3), theta)
    assert ours.log_likelihood > theirs_ll + 5
    their_labels = theirs.labels_.sort_index().to_numpy()
    assert (their_labels == ours.labels.to_numpy()).mean() > 0.95


# ---------------------------------------------------------------------- out of core
def _long_frame(ann):
    items, raters, labels = ann.codes()
    return pd.DataFrame({"item": np.asarray(ann.items)[items],
                         "rater": np.asarray(ann.raters)[raters], "value": labels})


@pytest.mark.parametrize("model, options", [
    ("dawid_skene", {}),
    ("dawid_skene", {"gold": {3: 0, 10: 2}, "prior": {"confusion": np.eye(3)},
                     "persist": True}),
    ("multinomial", {"smoothing": 0.5}),
    ("mace", {"smoothing": 0.01, "partitioned_by_item": False}),
])
@pytest.mark.parametrize("npartitions", [1, 4])
def test_the_dask_fit_equals_the_fit_in_memory_for_any_partitioning(model, options,
                                                                   npartitions):
    dd = pytest.importorskip("dask.dataframe")
    from kappalab import out_of_core

    ann, _ = dawid_skene_annotations(400, n_raters=9, annotations_per_item=4, spammers=0.2,
                                     seed=12)
    frame = _long_frame(ann)
    in_memory = {key: value for key, value in options.items()
                 if key not in ("persist", "partitioned_by_item")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", errors.ConvergenceWarning)
        # plain EM, step by step (SQUAREM's extrapolation magnifies the different rounding
        # of the sums of partitions: the next test)
        expected = getattr(annotators, model)(frame, max_iter=40, accelerate=False,
                                              **in_memory)
        shuffled = frame.sample(frac=1.0, random_state=npartitions)  # items cut anywhere
        fit = out_of_core.annotation_model(model, dd.from_pandas(shuffled,
                                                                 npartitions=npartitions),
                                           max_iter=40, accelerate=False, scheduler="sync",
                                           **options)
    assert fit.n_iter == expected.n_iter and fit.model == expected.model
    np.testing.assert_allclose(fit.posterior.reindex(expected.posterior.index).to_numpy(),
                               expected.posterior.to_numpy(), rtol=0, atol=1e-10)
    order = fit.raters.get_indexer(expected.raters)
    np.testing.assert_allclose(fit.confusion[order], expected.confusion, rtol=0, atol=1e-10)
    np.testing.assert_allclose(fit.trace, expected.trace, rtol=1e-10)
    np.testing.assert_allclose(
        pd.Series(fit.item_log_likelihood, fit.posterior.index).reindex(
            expected.posterior.index), expected.item_log_likelihood, rtol=1e-10)


def test_the_accelerated_dask_fit_converges_to_the_fit_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    from kappalab import out_of_core

    ann, _ = dawid_skene_annotations(400, n_raters=9, annotations_per_item=4, seed=13)
    frame = _long_frame(ann)
    expected = annotators.dawid_skene(frame)
    fit = out_of_core.annotation_model("dawid_skene", dd.from_pandas(frame, npartitions=3),
                                       scheduler="sync")
    assert fit.converged and expected.converged
    np.testing.assert_allclose(fit.posterior.reindex(expected.posterior.index).to_numpy(),
                               expected.posterior.to_numpy(), rtol=0, atol=1e-7)
    assert fit.log_likelihood == pytest.approx(expected.log_likelihood, rel=1e-12)


def test_acceleration_reaches_plain_ems_fixed_point_in_fewer_iterations():
    ann, _ = dawid_skene_annotations(2000, n_raters=12, annotations_per_item=5, n_classes=4,
                                     accuracy=0.65, seed=21)
    for model in (annotators.dawid_skene, annotators.mace):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", errors.ConvergenceWarning)
            plain = model(ann, accelerate=False, max_iter=5000)
        fast = model(ann)
        assert plain.converged and fast.converged and fast.n_iter < plain.n_iter / 2
        assert fast.log_likelihood == pytest.approx(plain.log_likelihood, rel=1e-9)
        np.testing.assert_allclose(fast.posterior.to_numpy(), plain.posterior.to_numpy(),
                                   atol=1e-5)


def test_the_dask_fit_refuses_what_it_cannot_fit_in_one_line():
    dd = pytest.importorskip("dask.dataframe")
    from kappalab import out_of_core

    frame = dd.from_pandas(pd.DataFrame({"item": [1, 1, 2, 2], "rater": list("abab"),
                                         "value": [0, 1, 1, 1]}), npartitions=2)
    cases = [(("glad", frame), {}, "model must be one of"),
             (("mace", frame), {"prior": {"prevalence": [1, 1]}}, "MACE model takes no prior"),
             (("dawid_skene", frame), {"gold": {9: 0}}, "gold names 1 of its 1 items"),
             (("dawid_skene", frame.compute()), {}, "must be a dask DataFrame")]
    for args, kwargs, message in cases:
        with pytest.raises(errors.InvalidParameterError, match=message):
            out_of_core.annotation_model(*args, scheduler="sync", **kwargs)


# ---------------------------------------------------------------------- in the rater report
def test_the_rater_report_shows_each_raters_modelled_accuracy_beside_kappa_x():
    ann, truth = dawid_skene_annotations(1500, n_raters=6, n_classes=3, accuracy=0.8,
                                         spammers=1 / 3, seed=31)
    report = kl.rater_report(ann, model="dawid_skene")
    fit = annotators.dawid_skene(ann)
    np.testing.assert_array_equal(report["model_accuracy"], fit.accuracy.to_numpy())
    assert report.attrs["model"] == "Dawid-Skene"
    # the spammers' modelled accuracy is about chance (1/3), the others' far above it
    assert report["model_accuracy"][truth.spammers].max() < 0.45 < 0.6 < (
        report["model_accuracy"][~truth.spammers].min())
    # and their κx against the rest is the lowest
    assert report["kappa_x"][truth.spammers].max() < report["kappa_x"][~truth.spammers].min()
    mace = kl.rater_report(ann, model=annotators.mace(ann))
    assert list(mace.columns[-3:]) == ["model_accuracy", "competence", "note"]
    for bad, message in [("multinomial", "one matrix for all raters"),
                         (annotators.dawid_skene(ann.subset_raters(ann.raters[:3])),
                          "not these data's raters")]:
        with pytest.raises(errors.InvalidParameterError, match=message):
            kl.rater_report(ann, model=bad)


# ---------------------------------------------------------------------- GLAD
def _glad_log_posterior(triples, n_items, K, ability, log_beta, pi, prior_mean=(1.0, 1.0)):
    """Σ_i log Σ_k π_k Π_{(j, l)} P(l | k) + log priors, by its definition (Whitehill et al.
    2009): P(l | k) = σ(α_j β_i) if l = k, else (1 − σ(α_j β_i)) / (K − 1)."""
    total = 0.0
    for i in range(n_items):
        labels = [(j, l) for ii, j, l in triples if ii == i]
        if not labels:
            continue
        beta = math.exp(log_beta[i])
        joint = 0.0
        for k in range(K):
            p = pi[k]
            for j, l in labels:
                right = 1.0 / (1.0 + math.exp(-ability[j] * beta))
                p *= right if l == k else (1.0 - right) / (K - 1)
            joint += p
        total += math.log(joint)
    return total - 0.5 * (sum((a - prior_mean[0]) ** 2 for a in ability)
                          + sum((b - prior_mean[1]) ** 2 for b in log_beta))


def test_glads_fit_is_a_stationary_point_of_the_log_posterior_by_its_definition():
    """At the MAP every partial derivative of the marginal log-posterior, written from the
    model's definition and differenced numerically, is 0; and the fit reports that value."""
    ann = kl.Annotations.from_wide(_small_data())
    fit = annotators.glad(ann, prevalence="estimated")
    assert fit.converged
    triples = _triples(ann)
    ability = fit.details["ability"].to_numpy()
    log_beta = np.log(fit.details["inverse_difficulty"].to_numpy())
    pi = fit.prevalence.to_numpy()
    value = _glad_log_posterior(triples, ann.n_items, 3, ability, log_beta, pi)
    assert fit.trace[-1] == pytest.approx(value, rel=1e-12)
    h = 1e-6
    for vector in (ability, log_beta):
        for index in range(vector.size):
            up, down = vector.copy(), vector.copy()
            up[index] += h
            down[index] -= h
            args = [(up, down) if vector is ability else (ability, ability),
                    (log_beta, log_beta) if vector is ability else (up, down)]
            slope = (_glad_log_posterior(triples, ann.n_items, 3, args[0][0], args[1][0], pi)
                     - _glad_log_posterior(triples, ann.n_items, 3, args[0][1], args[1][1],
                                           pi)) / (2 * h)
            assert abs(slope) < 1e-5, (index, slope)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(data=st.lists(st.lists(st.one_of(st.none(), st.integers(0, 2)), min_size=3, max_size=3),
                     min_size=3, max_size=10))
def test_glad_never_lowers_the_log_posterior(data):
    table = np.array([[np.nan if v is None else v for v in row] for row in data], dtype=float)
    if (~np.isnan(table)).sum() < 2 or np.unique(table[~np.isnan(table)]).size < 2:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = annotators.glad(kl.Annotations.from_wide(table, raters_as_rows=False),
                              max_iter=20, prevalence="estimated")
    steps = np.diff(fit.trace)
    assert (steps >= -1e-9 * np.maximum(np.abs(fit.trace[1:]), 1.0)).all(), fit.trace
    np.testing.assert_allclose(fit.posterior.sum(axis=1), 1.0, rtol=1e-12)


def test_glad_recovers_abilities_and_labels_better_than_the_vote():
    from scipy.stats import spearmanr

    from kappalab.simulate import glad_annotations

    ann, truth = glad_annotations(1000, n_raters=15, annotations_per_item=5, ability_sd=1.5,
                                  seed=3)
    fit = annotators.glad(ann)
    assert fit.converged
    assert spearmanr(fit.details["ability"], truth.ability)[0] > 0.9
    right = truth.classes.to_numpy()
    vote = annotators.majority_vote(ann)
    assert (np.mean(fit.labels.to_numpy() == right)
            > np.mean(vote.labels.to_numpy() == right) + 0.1)


@pytest.mark.slow
def test_glad_reaches_crowd_kits_map_or_higher():
    """crowd-kit's GLAD (the same priors, uniform π, conjugate-gradient M-steps of 25
    iterations, stopping on its Q) reaches a lower log-posterior; the labels agree."""
    crowd = pytest.importorskip("crowdkit.aggregation")
    from kappalab.simulate import glad_annotations

    ann, _ = glad_annotations(200, n_raters=6, annotations_per_item=4, ability_sd=1.5, seed=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = crowd.GLAD(n_iter=10).fit(_crowd_frame(ann))
    ours = annotators.glad(ann)
    ability = theirs.alphas_.sort_index().to_numpy()
    log_beta = theirs.betas_.sort_index().to_numpy()
    theirs_value = _glad_log_posterior(_triples(ann), ann.n_items, 2, ability, log_beta,
                                       [0.5, 0.5])
    assert ours.trace[-1] >= theirs_value - 1e-9
    assert (theirs.labels_.sort_index().to_numpy() == ours.labels.to_numpy()).mean() > 0.98


def test_glad_refuses_bad_options_in_one_line():
    data = [[0, 1, 1], [1, 1, 0], [0, 0, 0]]
    for kwargs, message in [({"prevalence": "learned"}, "prevalence must be"),
                            ({"prior_mean": (1.0,)}, "prior_mean must be two"),
                            ({"prior_mean": (1.0, float("inf"))}, "prior_mean must be two"),
                            ({"gold": {5: 0}}, "gold names 1 item")]:
        with pytest.raises(errors.InvalidParameterError, match=message):
            annotators.glad(data, **kwargs)
    with pytest.raises(errors.UnknownRatersError):
        annotators.glad(kl.Annotations.from_counts([[2, 1], [0, 3]]))


# ---------------------------------------------------------------------- ordinal
def _ordinal_data(n_items, thresholds, noise, seed, per_item=None):
    """Labels drawn from the ordered-probit model by hand: class k uniform on 0 … K − 1, a
    score k + σ_j ε cut at annotator j's thresholds."""
    rng = np.random.default_rng(seed)
    thresholds, noise = np.asarray(thresholds), np.asarray(noise)
    J, K = thresholds.shape[0], thresholds.shape[1] + 1
    z = rng.integers(0, K, size=n_items)
    rows = []
    for i in range(n_items):
        who = range(J) if per_item is None else rng.choice(J, size=per_item, replace=False)
        for j in who:
            score = z[i] + noise[j] * rng.standard_normal()
            rows.append((i, j, int((score > thresholds[j]).sum())))
    frame = pd.DataFrame(rows, columns=["item", "rater", "value"])
    return kl.Annotations.from_long(frame, categories=list(range(K))), z


def test_the_ordinal_model_recovers_thresholds_and_noise():
    thresholds = [[0.5, 1.5, 2.5], [0.2, 1.2, 2.2], [0.8, 1.9, 2.8], [0.5, 1.5, 2.5],
                  [0.5, 1.4, 2.6], [0.6, 1.5, 2.4]]
    noise = [0.3, 0.5, 0.4, 0.8, 0.35, 0.45]
    ann, z = _ordinal_data(3000, thresholds, noise, seed=5, per_item=4)
    fit = annotators.ordinal_dawid_skene(ann)
    assert fit.converged
    np.testing.assert_allclose(fit.details["thresholds"].sort_index().to_numpy(), thresholds,
                               atol=0.1)
    np.testing.assert_allclose(fit.details["noise"].sort_index().to_numpy(), noise, rtol=0.15)
    # the confusion matrices are the model's, rows summing to 1, mass near the diagonal
    np.testing.assert_allclose(fit.confusion.sum(axis=2), 1.0, rtol=1e-12)
    ds = annotators.dawid_skene(ann)
    right = (fit.labels.to_numpy() == z).mean()
    assert right >= (ds.labels.to_numpy() == z).mean() - 0.005  # K params an annotator, not 12


def test_the_ordinal_fit_is_a_stationary_point_of_the_likelihood_by_its_definition():
    """At the fit, the observed log-likelihood written from the model's definition (scipy's
    normal distribution function, a loop over items and classes) has zero slope in every
    threshold and log scale, and its value is the fit's."""
    def cdf(x):  # Φ, from the error function
        return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0))) if math.isfinite(x) else float(x > 0)

    ann, _ = _ordinal_data(60, [[0.5, 1.5]] * 3, [0.4, 0.6, 0.9], seed=2)
    fit = annotators.ordinal_dawid_skene(ann)
    triples = _triples(ann)
    pi = fit.prevalence.to_numpy()

    def log_likelihood(tau, sigma):
        total = 0.0
        for i in range(ann.n_items):
            labels = [(j, l) for ii, j, l in triples if ii == i]
            joint = 0.0
            for k in range(3):
                p = pi[k]
                for j, l in labels:
                    cuts = [-np.inf, *tau[j], np.inf]
                    p *= cdf((cuts[l + 1] - k) / sigma[j]) - cdf((cuts[l] - k) / sigma[j])
                joint += p
            total += math.log(joint)
        return total

    tau = fit.details["thresholds"].to_numpy()
    sigma = fit.details["noise"].to_numpy()
    assert fit.log_likelihood == pytest.approx(log_likelihood(tau, sigma), rel=1e-10)
    h = 1e-6
    for j in range(3):
        for m in range(2):
            up, down = tau.copy(), tau.copy()
            up[j, m] += h
            down[j, m] -= h
            slope = (log_likelihood(up, sigma) - log_likelihood(down, sigma)) / (2 * h)
            assert abs(slope) < 1e-4, (j, m, slope)
        up, down = sigma.copy(), sigma.copy()
        up[j] *= 1 + h
        down[j] *= 1 - h
        slope = (log_likelihood(tau, up) - log_likelihood(tau, down)) / (2 * h)
        assert abs(slope) < 1e-4, (j, slope)


def test_the_ordinal_model_runs_on_dask_as_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    from kappalab import out_of_core

    ann, _ = _ordinal_data(300, [[0.5, 1.5, 2.5]] * 5, [0.4, 0.5, 0.6, 0.7, 0.8], seed=3,
                           per_item=3)
    frame = _long_frame(ann)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", errors.ConvergenceWarning)
        expected = annotators.ordinal_dawid_skene(frame, max_iter=15, accelerate=False)
        fit = out_of_core.annotation_model("ordinal_dawid_skene",
                                           dd.from_pandas(frame, npartitions=3),
                                           max_iter=15, accelerate=False, scheduler="sync")
    np.testing.assert_allclose(fit.posterior.reindex(expected.posterior.index).to_numpy(),
                               expected.posterior.to_numpy(), rtol=0, atol=1e-10)
    np.testing.assert_allclose(fit.trace, expected.trace, rtol=1e-10)


# ---------------------------------------------------------------------- bad and odd input
MODELS = ["dawid_skene", "multinomial", "mace", "glad", "ordinal_dawid_skene"]


@pytest.mark.parametrize("model", MODELS)
def test_odd_data_is_fitted_as_each_model_defines_it(model):
    options = {"prevalence": "estimated"} if model == "glad" else {}
    fit_of = functools.partial(getattr(annotators, model), **options)
    # an annotator with one label (the third, always 0 but once): the per-annotator models
    # learn that its 0 says nothing and follow the other two; the pooled model, with one
    # matrix for all, cannot, and its maximum makes class 0 never give a 1
    constant = [[0, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 0], [0, 0, 0], [1, 1, 0]]
    fit = fit_of(constant)
    assert np.isfinite(fit.log_likelihood)
    assert fit.labels.tolist() == ([1, 1, 0, 1, 0, 1] if model == "multinomial"
                                   else [0, 1, 0, 1, 0, 1])
    # a class nobody used: no posterior mass on it, every row still a distribution (GLAD
    # with a uniform π keeps 1/K on it: its wrong labels are spread over every class)
    unused = fit_of([[0, 0, 1], [1, 1, 1], [0, 0, 0], [1, 0, 1]], categories=[0, 1, 2])
    assert (unused.posterior[2] < 1e-6).all()
    np.testing.assert_allclose(unused.posterior.sum(axis=1), 1.0, rtol=1e-12)
    # items with one annotation: fitted, each one's posterior a distribution
    single = fit_of([[0, np.nan, np.nan], [np.nan, 1, np.nan], [1, 1, 0], [0, 0, 1]])
    assert np.isfinite(single.log_likelihood)
    np.testing.assert_allclose(single.posterior.sum(axis=1), 1.0, rtol=1e-12)
    # all annotators identical: the vote's labels
    same = fit_of([[0, 0, 0], [1, 1, 1], [1, 1, 1], [0, 0, 0]])
    assert same.labels.tolist() == [0, 1, 1, 0]


@pytest.mark.parametrize("model", MODELS + ["majority_vote"])
def test_labels_outside_the_declared_classes_are_one_clear_error(model):
    with pytest.raises(errors.UnknownCategoryError, match=r"not among categories=\[0, 1\]"):
        getattr(annotators, model)([[0, 1, 2], [1, 1, 0]], categories=[0, 1])
