r"""Models of annotation on real data with gold: which label is right, by the vote and by
Dawid–Skene, the multinomial model and MACE (Hovy et al. 2013).

The data are **real** (:func:`kappalab.datasets.fetch`, from ``KAPPALAB_DATA`` or the cache):

* Snow et al.'s (2008) nominal tasks with an expert label for every item: RTE (800 items),
  TEMP (462) and WSD (177), 10 Mechanical Turk labels per item;
* MBIC's ``bias`` labels (1 700 sentences, 809 workers, 9–12 labels each) and BABE's two
  expert groups SG1 and SG2 on the same sentences.

1. **Accuracy against gold** (Snow's tasks): the share of items whose aggregated label is the
   expert's, for the majority vote (ties split: the expected accuracy of a random tie-break,
   as Snow et al. score it; and ties to the first class, ``kl.annotators.majority_vote``'s
   hard label), :func:`kappalab.annotators.multinomial`, :func:`~kappalab.annotators.dawid_skene`
   and :func:`~kappalab.annotators.mace` (smoothing 0.01/K, Hovy et al.'s), each with its
   log-likelihood and iterations; beside crowd-kit's ``DawidSkene`` and ``MACE`` (its
   defaults) when crowd-kit is installed, in the full run only (they take about 40 s a
   task). In the full run also the Bayesian models of :mod:`kappalab.bayes` (Dawid–Skene,
   hierarchical Dawid–Skene, the multinomial model, MACE; their default priors, nutpie when it is
   installed, 500 + 500 draws on 2 chains), each item labelled with its most probable class
   (:func:`kappalab.bayes.item_labels`), with the largest R̂ of π and θ and the seconds of
   the fit. ``annotation_models_accuracy.csv``.
2. **The crowd against the experts** (MBIC): the aggregated label of each sentence as a
   one-label replication, and κx (``kl.cross_kappa``) of it against each expert group with
   a percentile-bootstrap interval over the sentences, beside κx of the crowd's individual
   labels (the Bayesian models' too in the full run). ``annotation_models_mbic.csv``.

Outputs in ``--out`` (default ``results/paper_repro``): the CSVs, ``annotation_models.png``
(the two tables as dot plots) and ``annotation_models.md`` (the tables, the claim of Hovy
et al. and how far it holds here).

Run: ``python -m paper_repro.annotation_models [--quick] [--out DIR] [--seed S]
[--resamples B] [--no-bayes]``; ``--quick`` uses 100 bootstrap replicates (full run 1 000)
and leaves out the peers and the Bayesian models (``--no-bayes`` leaves out those alone).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import pandas as pd

import kappalab as kl
from kappalab.datasets import data_folder, fetch

from paper_repro.reporting import markdown_table, parse_args
from paper_repro.status import status_markdown, status_text

TASKS = ("rte", "temp", "wsd")
EXPERTS = ("sg1", "sg2")
SPLIT = "majority vote, ties split"
FIRST = "majority vote, ties to the first class"
MODELS = ("multinomial", "Dawid-Skene", "MACE")
BAYES_SAMPLING = {"draws": 500, "tune": 500, "chains": 2}
RUN_NOTE = (
    "The data are REAL: Snow et al.'s (2008) own worker and expert labels (RTE, TEMP, WSD) "
    "and MBIC's crowd with BABE's expert groups, read with kappalab.datasets.fetch. The EM "
    "models are fitted to convergence (SQUAREM-accelerated, tol 1e-10); the Bayesian ones "
    "(full run) by NUTS, each item labelled with its most probable class.")


def fits(ann: kl.Annotations) -> dict[str, kl.annotators.AnnotationModelFit]:
    """The models of the tables on ``ann``."""
    K = ann.n_categories
    return {"multinomial": kl.annotators.multinomial(ann),
            "Dawid-Skene": kl.annotators.dawid_skene(ann),
            "MACE": kl.annotators.mace(ann, smoothing=0.01 / K)}


def bayesian_fits(ann: kl.Annotations, seed: int) -> dict[str, tuple[pd.Series, dict]]:
    """The Bayesian models on ``ann``: each item's most probable class, and the fit's
    largest R̂ (of π and θ) and seconds."""
    import importlib.util

    from kappalab import bayes

    sampler = "nutpie" if importlib.util.find_spec("nutpie") else "pymc"
    out = {}
    for name, model in (("Bayesian multinomial", bayes.multinomial),
                        ("Bayesian Dawid-Skene", bayes.dawid_skene),
                        ("Bayesian hierarchical Dawid-Skene", bayes.hierarchical_dawid_skene),
                        ("Bayesian MACE", bayes.mace)):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the largest R̂ is reported in the table
            post = model(ann, seed=seed, sampler=sampler, **BAYES_SAMPLING)
        rhat = float(post.summary(var_names=["pi", "theta"])["r_hat"].max())
        out[name] = (bayes.item_labels(post)["label"],
                     {"max_rhat": rhat, "seconds": time.perf_counter() - start,
                      "sampler": sampler})
    return out


def split_accuracy(shares: np.ndarray, truth: np.ndarray) -> float:
    """The expected accuracy of the vote with ties broken at random: an item whose gold
    class is one of t tied top classes scores 1/t."""
    top = np.isclose(shares, shares.max(axis=1, keepdims=True), rtol=0, atol=1e-12)
    return float((top[np.arange(truth.size), truth] / top.sum(axis=1)).mean())


def crowd_kit_labels(ann: kl.Annotations) -> dict[str, pd.Series]:
    """crowd-kit's DawidSkene and MACE labels with their defaults; {} without crowd-kit."""
    try:
        from crowdkit.aggregation import MACE, DawidSkene
    except ImportError:
        return {}
    items, raters, labels = ann.codes()
    frame = pd.DataFrame({"task": np.asarray(ann.items)[items],
                          "worker": np.asarray(ann.raters)[raters],
                          "label": np.asarray(ann.categories)[labels]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # crowd-kit's pandas deprecations
        return {"crowd-kit DawidSkene": DawidSkene().fit_predict(frame),
                "crowd-kit MACE": MACE(random_state=0).fit_predict(frame)}


def accuracy_rows(task: str, peers: bool = True, bayes_seed: int | None = None
                  ) -> list[dict]:
    """One row per aggregation of Snow et al.'s task: accuracy against the expert labels."""
    dataset = fetch(f"snow2008-{task}")
    ann = dataset.annotations
    gold = dataset.gold.reindex(ann.items).to_numpy()
    truth = ann.categories.get_indexer(gold)
    vote = kl.annotators.majority_vote(ann)
    rows = [{"task": task, "aggregation": SPLIT,
             "accuracy": split_accuracy(vote.posterior.to_numpy(), truth)},
            {"task": task, "aggregation": FIRST,
             "accuracy": float((vote.labels.to_numpy() == gold).mean())}]
    for name, fit in fits(ann).items():
        rows.append({"task": task, "aggregation": name,
                     "accuracy": float((fit.labels.to_numpy() == gold).mean()),
                     "log_likelihood": fit.log_likelihood, "iterations": fit.n_iter})
    for name, labels in (crowd_kit_labels(ann) if peers else {}).items():
        rows.append({"task": task, "aggregation": name,
                     "accuracy": float((labels.reindex(ann.items).to_numpy() == gold).mean())})
    if bayes_seed is not None:
        for name, (labels, details) in bayesian_fits(ann, bayes_seed).items():
            rows.append({"task": task, "aggregation": name, **details, "accuracy": float(
                (labels.reindex(ann.items).to_numpy() == gold).mean())})
    for row in rows:
        row["items"] = ann.n_items
        row["right"] = round(row["accuracy"] * ann.n_items, 1)
    return rows


def one_label(labels: pd.Series, categories: pd.Index) -> kl.Annotations:
    """Aggregated labels (item → label) as a replication with one annotation per item."""
    labels = labels.dropna()
    frame = pd.DataFrame({"item": labels.index, "rater": "aggregate",
                          "value": labels.to_numpy()})
    return kl.Annotations.from_long(frame, "item", "rater", "value",
                                    categories=list(categories))


def mbic_rows(n_resamples: int, seed: int, bayes: bool = False) -> list[dict]:
    """κx of each aggregation of MBIC's crowd against each BABE expert group."""
    crowd = fetch("mbic", label="bias").annotations
    experts = {name: fetch(f"babe-{name}", label="bias").annotations for name in EXPERTS}
    sides = {"the crowd's individual labels": crowd,
             "majority vote (ties to the first class)": one_label(
                 kl.annotators.majority_vote(crowd).labels, crowd.categories)}
    sides.update({name: one_label(fit.labels, crowd.categories)
                  for name, fit in fits(crowd).items()})
    details: dict[str, dict] = {}
    if bayes:
        for name, (labels, fit_details) in bayesian_fits(crowd, seed).items():
            sides[name] = one_label(labels, crowd.categories)
            details[name] = fit_details
    rows = []
    for name, side in sides.items():
        for group, expert in experts.items():
            est = kl.cross_kappa(side, expert, ci="bootstrap", n_resamples=n_resamples,
                                 seed=seed)
            rows.append({"aggregation": name, "experts": group.upper(), "kx": float(est),
                         "ci_low": est.ci[0], "ci_high": est.ci[1], "items": est.n_items,
                         **details.get(name, {})})
    return rows


def plot(accuracy: pd.DataFrame, mbic: pd.DataFrame, path) -> None:
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    names = list(dict.fromkeys(accuracy["aggregation"]))
    for k, task in enumerate(TASKS):
        sub = accuracy[accuracy.task == task].set_index("aggregation").reindex(names)
        left.plot(sub["accuracy"].to_numpy(), np.arange(len(names)) + (k - 1) * 0.15, "o",
                  label=task.upper())
    left.set_yticks(np.arange(len(names)), names)
    left.invert_yaxis()
    left.set_xlabel("accuracy against the expert labels")
    left.set_title("Snow et al. (2008): aggregated labels")
    left.legend(loc="lower left")
    rows = list(dict.fromkeys(mbic["aggregation"]))
    for k, group in enumerate(e.upper() for e in EXPERTS):
        sub = mbic[mbic.experts == group].set_index("aggregation").reindex(rows)
        y = np.arange(len(rows)) + (k - 0.5) * 0.2
        right.errorbar(sub["kx"], y, xerr=[sub["kx"] - sub["ci_low"], sub["ci_high"] - sub["kx"]],
                       fmt="o", label=f"against {group}")
    right.set_yticks(np.arange(len(rows)), rows)
    right.invert_yaxis()
    right.set_xlabel("κx against the experts (95 % bootstrap interval)")
    right.set_title("MBIC's crowd against BABE's experts")
    right.legend(loc="center left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def hovy_outcome(accuracy: pd.DataFrame) -> str:
    """How MACE compares with the vote on each task, in one sentence."""
    table = accuracy.pivot(index="aggregation", columns="task", values="accuracy")
    parts = [f"{task.upper()} {table.loc['MACE', task]:.3f} against {table.loc[FIRST, task]:.3f} "
             f"(ties to the first class) and {table.loc[SPLIT, task]:.3f} (ties split)"
             for task in TASKS]
    return "MACE's accuracy: " + "; ".join(parts) + "."


def main(argv: list[str] | None = None) -> int:
    args = parse_args(__doc__.splitlines()[0], argv, default_seed=2013, extra=[
        ("--resamples", {"type": int, "default": 1000,
                         "help": "bootstrap replicates of κx (full run; --quick uses 100)"}),
        ("--no-bayes", {"action": "store_true",
                        "help": "leave out the Bayesian models (--quick always does)"}),
    ])
    bayes = not (args.quick or args.no_bayes)
    start = time.perf_counter()
    n_resamples = 100 if args.quick else args.resamples
    try:
        accuracy = pd.DataFrame([row for task in TASKS for row in accuracy_rows(
            task, peers=not args.quick, bayes_seed=args.seed if bayes else None)])
        mbic = pd.DataFrame(mbic_rows(n_resamples, args.seed, bayes=bayes))
    except Exception as exc:  # absent files: say where they were sought
        print(f"the Snow et al. (2008) or MBIC/BABE files could not be read from "
              f"{data_folder()} (set KAPPALAB_DATA): {exc}", file=sys.stderr)
        return 2
    print(RUN_NOTE)
    accuracy.to_csv(args.out / "annotation_models_accuracy.csv", index=False)
    mbic.to_csv(args.out / "annotation_models_mbic.csv", index=False)
    plot(accuracy, mbic, args.out / "annotation_models.png")
    wide = accuracy.pivot(index="aggregation", columns="task", values="accuracy")
    wide = wide.reindex(list(dict.fromkeys(accuracy["aggregation"])))[list(TASKS)]
    kx = mbic.assign(kx=[f"{r.kx:.4f} [{r.ci_low:.4f}, {r.ci_high:.4f}]"
                         for r in mbic.itertuples()])
    kx = kx.pivot(index="aggregation", columns="experts", values="kx").reindex(
        list(dict.fromkeys(mbic["aggregation"])))
    elapsed = time.perf_counter() - start
    text = "\n\n".join([
        "# Models of annotation on real data with gold", RUN_NOTE,
        "## Accuracy against the expert labels (Snow et al. 2008)",
        markdown_table(wide.round(4).reset_index()),
        "## κx of MBIC's aggregated crowd label against BABE's experts",
        markdown_table(kx.reset_index()),
        "## Hovy et al. (2013)", hovy_outcome(accuracy),
        status_markdown("annotation_models"),
        f"{'Quick run' if args.quick else 'Full run'}: {n_resamples} bootstrap replicates, "
        f"{elapsed:.1f} s."])
    (args.out / "annotation_models.md").write_text(text + "\n", encoding="utf-8")
    print(wide.round(4).to_string())
    print(kx.to_string())
    print(hovy_outcome(accuracy))
    print(status_text("annotation_models"))
    print(f"wrote annotation_models.png, annotation_models_accuracy.csv, "
          f"annotation_models_mbic.csv, annotation_models.md in {args.out} ({elapsed:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
