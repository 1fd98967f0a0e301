"""kappalab against the peer libraries, on many random datasets (fixed seeds), to 1e-9.

Oracles: ``krippendorff`` (α, all four levels), statsmodels (``fleiss_kappa``,
``cohens_kappa``), scikit-learn (``cohen_kappa_score``), irrCAC (``CAC``: Fleiss, Conger,
Gwet AC1/AC2, Brennan–Prediger, Krippendorff, with missing data and weights), and nltk
(``AnnotationTask``).

Each check loops over its own seeds, skips a draw only for a stated, deterministic reason (a
degenerate draw on which the oracle or the coefficient is undefined), collects every mismatch,
and asserts that at least ``MIN_COMPARED`` draws were actually compared.

The random datasets (``draw``) have 5–60 items, 2–6 raters, 2–6 categories; the multi-rater
ones ~20–30% missing cells; some have a category nobody used (kept in ``categories=`` on both
sides), a rater who rated only 1–3 items, an item nobody rated, or unevenly spaced category
values (which exercise value-based weights and interval/ratio distances).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

import kappalab as kl

# The oracles are hard imports on purpose: a missing oracle must fail the suite, not skip it
# silently (they are in the `test` extra; irrCAC is installed with --no-deps by the Makefile).
import irrCAC.raw as irrcac_raw
import irrCAC.weights as irrcac_weights
import krippendorff
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import interval_distance
import sklearn.metrics as sk_metrics
import statsmodels.stats.inter_rater as sm_inter_rater

TOL = 1e-9
MIN_COMPARED = 50
N_SEEDS = 56  # draws tried per check; degenerate ones are skipped (at most 1 of 56 here)


# ============================================================================ random datasets
@dataclass
class Draw:
    seed: int
    wide: np.ndarray          # items × raters, float, NaN = missing
    categories: list          # category values (python ints), possibly with unused ones
    evenly_spaced: bool

    @property
    def values(self) -> np.ndarray:
        return np.asarray(self.categories, dtype=float)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.wide, columns=[f"r{j}" for j in range(self.wide.shape[1])])

    # ---- degeneracy, computed from the raw table (not from kappalab) ----
    def observed_values(self) -> np.ndarray:
        return np.unique(self.wide[~np.isnan(self.wide)])

    def pairable_values(self) -> np.ndarray:
        m = (~np.isnan(self.wide)).sum(axis=1)
        rows = self.wide[m >= 2]
        return np.unique(rows[~np.isnan(rows)])

    def n_pairable_items(self) -> int:
        return int(((~np.isnan(self.wide)).sum(axis=1) >= 2).sum())


def draw(seed: int, *, complete: bool = False, n_raters: int | None = None,
         evenly_spaced: bool | None = None) -> Draw:
    """A random items × raters table with some agreement structure.

    Each item has a latent category; each rater reports it with a rater-specific accuracy,
    otherwise a category drawn from a rater-specific bias distribution.
    """
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(5, 61))
    R = int(rng.integers(2, 7)) if n_raters is None else n_raters
    K = int(rng.integers(2, 7))
    if evenly_spaced is None:
        evenly_spaced = bool(rng.random() < 0.6)
    if evenly_spaced:
        start = int(rng.integers(1, 4))
        categories = list(range(start, start + K))
    else:  # distinct positive integers, unevenly spaced
        categories = sorted(int(v) for v in rng.choice(np.arange(1, 21), size=K, replace=False))

    prevalence = rng.dirichlet(np.full(K, 1.5))
    latent = rng.choice(K, size=n_items, p=prevalence)
    accuracy = rng.uniform(0.3, 0.95, size=R)
    codes = np.empty((n_items, R), dtype=int)
    for r in range(R):
        bias = rng.dirichlet(np.full(K, 1.0))
        noise = rng.choice(K, size=n_items, p=bias)
        codes[:, r] = np.where(rng.random(n_items) < accuracy[r], latent, noise)

    # a category nobody uses (still listed in categories=)
    if K >= 3 and rng.random() < 0.3:
        unused = int(rng.integers(K))
        replacement = unused - 1 if unused > 0 else 1
        codes[codes == unused] = replacement

    wide = np.asarray(categories, dtype=float)[codes]
    if not complete:
        missing = rng.random(wide.shape) < rng.uniform(0.2, 0.3)
        if R >= 3 and rng.random() < 0.35:  # one rater who rated only 1–3 items
            sparse = int(rng.integers(R))
            keep = rng.choice(n_items, size=int(rng.integers(1, 4)), replace=False)
            missing[:, sparse] = True
            missing[keep, sparse] = False
        if rng.random() < 0.2:  # an item nobody rated
            missing[int(rng.integers(n_items)), :] = True
        for r in range(R):  # every rater rates at least one item
            if missing[:, r].all():
                missing[int(rng.integers(n_items)), r] = False
        wide[missing] = np.nan
    return Draw(seed, wide, categories, evenly_spaced)


# ============================================================================ bookkeeping
class Comparison:
    """Collect comparisons of kappalab against an oracle; report every mismatch at the end."""

    def __init__(self, name: str):
        self.name = name
        self.compared: set[int] = set()
        self.skipped: dict[int, str] = {}
        self.mismatches: list[str] = []
        self.max_diff = 0.0

    def skip(self, seed: int, reason: str) -> None:
        self.skipped[seed] = reason

    def check(self, seed: int, what: str, ours: float, theirs: float, tol: float = TOL) -> None:
        self.compared.add(seed)
        ours, theirs = float(ours), float(theirs)
        if np.isfinite(ours) and np.isfinite(theirs):
            self.max_diff = max(self.max_diff, abs(ours - theirs))
        if not (np.isfinite(ours) and np.isfinite(theirs) and abs(ours - theirs) <= tol):
            self.mismatches.append(f"seed {seed}: {what}: kappalab {ours!r} vs oracle {theirs!r}"
                                   f" (diff {ours - theirs:.3g})")

    def finish(self, minimum: int = MIN_COMPARED) -> None:
        print(f"{self.name}: {len(self.compared)} draws compared, {len(self.skipped)} skipped, "
              f"max |diff| {self.max_diff:.2g}")
        assert not self.mismatches, (
            f"{self.name}: {len(self.mismatches)} mismatch(es):\n"
            + "\n".join(self.mismatches[:30]))
        assert len(self.compared) >= minimum, (
            f"{self.name}: only {len(self.compared)} draws compared (need {minimum}); "
            f"skipped: {self.skipped}")


def quiet(fn, *args, **kwargs):
    """Call an oracle with its own warnings silenced (irrCAC, sklearn warn on pandas/numpy)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def confusion(x: np.ndarray, y: np.ndarray, values: np.ndarray) -> np.ndarray:
    index = {v: i for i, v in enumerate(values)}
    table = np.zeros((len(values), len(values)))
    for a, b in zip(x, y):
        table[index[a], index[b]] += 1
    return table


def counts_table(wide: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.stack([(wide == v).sum(axis=1) for v in values], axis=1)


# ============================================================================ krippendorff
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_krippendorff_package_alpha(level):
    cmp = Comparison(f"krippendorff.alpha({level})")
    for seed in range(1000, 1000 + N_SEEDS):
        d = draw(seed)
        if d.n_pairable_items() == 0 or len(d.pairable_values()) < 2:
            cmp.skip(seed, "fewer than two distinct pairable values: D_e = 0")
            continue
        theirs = krippendorff.alpha(reliability_data=d.wide.T, level_of_measurement=level,
                                    value_domain=d.values)
        ours = kl.krippendorff_alpha(d.wide, level=level, categories=d.categories)
        cmp.check(seed, "alpha", ours.value, theirs)
        # the same through counts (raters unknown) on both sides
        table = counts_table(d.wide, d.values)
        theirs = krippendorff.alpha(value_counts=table, level_of_measurement=level,
                                    value_domain=d.values)
        ours = kl.krippendorff_alpha(kl.Annotations.from_counts(table, categories=d.categories),
                                     level=level)
        cmp.check(seed, "alpha from counts", ours.value, theirs)
    cmp.finish()


def test_krippendorff_package_ratio_alpha_over_many_categories(monkeypatch):
    """More categories than PAIR_FORM_CATEGORIES (the ratio metric, a K × K matrix): each
    item's n_iᵀ δ n_i summed over its pairs of counts gives the krippendorff package's α
    and the dense product's, with missing values and items of one annotation."""
    from kappalab.coefficients import multirater
    rng = np.random.default_rng(41)
    truth = rng.integers(1, 400, 150).astype(float)
    wide = truth[:, None] + rng.integers(-20, 21, (150, 4))
    wide[rng.random(wide.shape) < 0.3] = np.nan
    wide[0, 1:] = np.nan  # one annotation
    assert len(np.unique(wide[~np.isnan(wide)])) > multirater.PAIR_FORM_CATEGORIES
    theirs = krippendorff.alpha(reliability_data=wide.T, level_of_measurement="ratio")
    ours = kl.krippendorff_alpha(wide, level="ratio")
    monkeypatch.setattr(multirater, "PAIR_FORM_CATEGORIES", 10**9)
    dense = kl.krippendorff_alpha(wide, level="ratio")
    assert ours.value == pytest.approx(theirs, abs=1e-12)
    assert ours.value == pytest.approx(dense.value, abs=1e-12)


# ============================================================================ statsmodels
def test_statsmodels_fleiss_kappa_complete():
    cmp = Comparison("statsmodels.fleiss_kappa")
    for seed in range(2000, 2000 + N_SEEDS):
        d = draw(seed, complete=True)
        if len(d.observed_values()) < 2:
            cmp.skip(seed, "one category only: P_e = 1")
            continue
        table = counts_table(d.wide, d.values)
        ours = kl.fleiss_kappa(d.wide, categories=d.categories)
        theirs = sm_inter_rater.fleiss_kappa(table, method="fleiss")
        cmp.check(seed, "fleiss", ours.value, theirs)
        from_counts = kl.Annotations.from_counts(table, categories=d.categories)
        cmp.check(seed, "fleiss from counts", kl.fleiss_kappa(from_counts).value, theirs)
        # Randolph's free-marginal κ (P_e = 1/K over the table's K columns) = Brennan–Prediger
        bp = kl.brennan_prediger(d.wide, categories=d.categories)
        cmp.check(seed, "randolph", bp.value,
                  sm_inter_rater.fleiss_kappa(table, method="randolph"))
    cmp.finish()


@pytest.mark.parametrize("wt", [None, "linear", "quadratic"])
def test_statsmodels_cohens_kappa(wt):
    """statsmodels' cohens_kappa on the K × K table. With ``wt='linear'`` / ``'quadratic'`` and
    1-D ``weights`` = the category scores it uses the disagreement |s_i − s_j|/(s_K − s_1) or
    its square — Cohen's (1968) weights on the category values, as kappalab's (so unevenly
    spaced categories are compared too)."""
    cmp = Comparison(f"statsmodels.cohens_kappa(wt={wt})")
    for seed in range(3000, 3000 + N_SEEDS):
        d = draw(seed, complete=True, n_raters=2)
        if len(d.observed_values()) < 2:
            cmp.skip(seed, "one category only: P_e = 1")
            continue
        table = confusion(d.wide[:, 0], d.wide[:, 1], d.values)
        if wt is None:
            theirs = sm_inter_rater.cohens_kappa(table, return_results=False)
        else:
            theirs = sm_inter_rater.cohens_kappa(table, weights=d.values, wt=wt,
                                                 return_results=False)
        ours = kl.cohen_kappa(d.wide, weights=wt, categories=d.categories)
        cmp.check(seed, f"cohen wt={wt}", ours.value, theirs)
    cmp.finish()


# ============================================================================ scikit-learn
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_sklearn_cohen_kappa_score(weights):
    """sklearn weights by label *position* in ``labels``; kappalab by category value — the same
    for evenly spaced integer categories, which is what these draws use."""
    cmp = Comparison(f"sklearn.cohen_kappa_score({weights})")
    for seed in range(4000, 4000 + N_SEEDS):
        d = draw(seed, complete=True, n_raters=2, evenly_spaced=True)
        if len(d.observed_values()) < 2:
            cmp.skip(seed, "one category only: P_e = 1")
            continue
        theirs = quiet(sk_metrics.cohen_kappa_score, d.wide[:, 0], d.wide[:, 1],
                       labels=d.values, weights=weights)
        ours = kl.cohen_kappa(d.wide[:, 0], d.wide[:, 1], weights=weights,
                              categories=d.categories)
        cmp.check(seed, f"cohen {weights}", ours.value, theirs)
    cmp.finish()


@pytest.mark.slow
def test_light_kappa_is_mean_of_sklearn_pairwise_cohen():
    cmp = Comparison("light_kappa vs mean sklearn cohen_kappa_score")
    for seed in range(5000, 5000 + N_SEEDS):
        d = draw(seed, complete=True, evenly_spaced=True)
        R = d.wide.shape[1]
        pairs = list(combinations(range(R), 2))
        if any(len(np.unique(d.wide[:, [g, h]])) < 2 for g, h in pairs):
            cmp.skip(seed, "a pair of raters used one category only: its κ is undefined")
            continue
        for weights in (None, "linear", "quadratic"):
            kappas = [quiet(sk_metrics.cohen_kappa_score, d.wide[:, g], d.wide[:, h],
                            labels=d.values, weights=weights) for g, h in pairs]
            ours = kl.light_kappa(d.wide, weights=weights, categories=d.categories)
            cmp.check(seed, f"light {weights}", ours.value, np.mean(kappas))
    cmp.finish()


# ============================================================================ irrCAC
# kappalab weights=…  ↔  irrCAC weights=…: both are Gwet's (2014) agreement weights, "ordinal"
# included (rank based, w = 1 − C(|k−l|+1, 2)/C(K, 2); the data-dependent Krippendorff ordinal
# metric is kappalab's level="ordinal" only). tests/test_weights.py compares every name.
MAIN_WEIGHTS = ("identity", "linear", "quadratic")
# further weights, one per draw in rotation; "radical matrix" passes the custom K × K matrix
# irrCAC builds for radical weights, which exercises kappalab's matrix-weights path
EXTRA_WEIGHTS = ("ratio", "bipolar", "circular", "radical", "ordinal", "radical matrix")


def _irrcac(d: Draw, weights: str):
    weights = weights.replace(" matrix", "")
    return irrcac_raw.CAC(d.frame(), weights=weights, categories=list(d.categories), digits=15)


def _kl_weights(d: Draw, name: str):
    if name == "identity":
        return None
    if name.endswith(" matrix"):
        return irrcac_weights.Weights(list(d.categories))[name.replace(" matrix", "")]
    return name


def _irrcac_comparable(d: Draw) -> str | None:
    if d.n_pairable_items() == 0:
        return "no item with two ratings"
    if len(d.observed_values()) < 2:
        return "one category only"
    return None


def _compare_kappa_family(cmp: Comparison, d: Draw, weights: str, methods) -> None:
    """value, pa (= kappalab's observed) and pe (= expected): identical definitions."""
    ann = kl.Annotations.from_wide(d.wide, categories=d.categories)
    w = _kl_weights(d, weights)
    cac = _irrcac(d, weights)
    for method in methods:
        theirs = quiet(getattr(cac, method))["est"]
        ours = IRRCAC_METHODS[method](ann, weights=w)
        cmp.check(d.seed, f"{method} {weights} value", ours.value, theirs["coefficient_value"])
        cmp.check(d.seed, f"{method} {weights} pa", ours.observed, theirs["pa"])
        cmp.check(d.seed, f"{method} {weights} pe", ours.expected, theirs["pe"])
        if method == "fleiss":
            cmp.check(d.seed, f"percent agreement {weights}",
                      kl.percent_agreement(ann, weights=w).value, theirs["pa"])


IRRCAC_METHODS = {"fleiss": kl.fleiss_kappa, "gwet": kl.gwet_ac, "bp": kl.brennan_prediger,
                  "conger": kl.conger_kappa}


@pytest.mark.slow
@pytest.mark.parametrize("weights", MAIN_WEIGHTS)
def test_irrcac_fleiss_gwet_bp_with_missing(weights):
    """Fleiss (Gwet's missing-data generalisation), Gwet AC1 (identity) / AC2 (linear,
    quadratic), Brennan–Prediger, and percent agreement (= irrCAC's pa)."""
    cmp = Comparison(f"irrCAC fleiss/gwet/bp weights={weights}")
    for seed in range(6000, 6000 + N_SEEDS):
        d = draw(seed)
        reason = _irrcac_comparable(d)
        if reason:
            cmp.skip(seed, reason)
            continue
        _compare_kappa_family(cmp, d, weights, ("fleiss", "gwet", "bp"))
    cmp.finish()


@pytest.mark.slow
@pytest.mark.parametrize("weights", MAIN_WEIGHTS)
def test_irrcac_conger_with_missing(weights):
    """Conger's κ: Fleiss' P_o, chance from each rater's own marginals over all its ratings
    (irrCAC's P_e = Σ w (p̄p̄ᵀ − S²/r) is the mean over rater pairs g ≠ h of p_gᵀ w p_h)."""
    cmp = Comparison(f"irrCAC conger weights={weights}")
    for seed in range(7000, 7000 + N_SEEDS):
        d = draw(seed)
        reason = _irrcac_comparable(d)
        if reason:
            cmp.skip(seed, reason)
            continue
        _compare_kappa_family(cmp, d, weights, ("conger",))
    cmp.finish()


@pytest.mark.slow
def test_irrcac_further_weights_with_missing():
    """ratio, bipolar, circular, radical, ordinal and radical (as a custom matrix) weights, one
    per draw in rotation, for Fleiss, Gwet AC2, Brennan–Prediger and Conger; and α bipolar /
    circular."""
    cmp = Comparison("irrCAC further weights")
    for seed in range(12000, 12000 + N_SEEDS):
        d = draw(seed)
        reason = _irrcac_comparable(d)
        if reason:
            cmp.skip(seed, reason)
            continue
        weights = EXTRA_WEIGHTS[seed % len(EXTRA_WEIGHTS)]
        _compare_kappa_family(cmp, d, weights, ("fleiss", "gwet", "bp", "conger"))
        if weights in ("bipolar", "circular") and len(d.pairable_values()) >= 2:
            theirs = quiet(_irrcac(d, weights).krippendorff)["est"]["coefficient_value"]
            ours = kl.krippendorff_alpha(d.wide, level=weights, categories=d.categories)
            cmp.check(seed, f"alpha {weights}", ours.value, theirs)
    cmp.finish()


# irrCAC krippendorff(): weights ↔ kappalab level. Its pa/pe are Gwet's (pa includes a
# 1/n small-sample term and pe uses the pooled proportions with replacement), not
# 1 − D_o/scale and 1 − D_e/scale, so only the value is compared.
IRRCAC_ALPHA_LEVELS = {"identity": "nominal", "quadratic": "interval", "ratio": "ratio"}


@pytest.mark.parametrize("weights", list(IRRCAC_ALPHA_LEVELS))
def test_irrcac_krippendorff_with_missing(weights):
    level = IRRCAC_ALPHA_LEVELS[weights]
    cmp = Comparison(f"irrCAC krippendorff weights={weights} vs alpha {level}")
    for seed in range(8000, 8000 + N_SEEDS):
        d = draw(seed)
        if d.n_pairable_items() == 0 or len(d.pairable_values()) < 2:
            cmp.skip(seed, "fewer than two distinct pairable values: D_e = 0")
            continue
        theirs = quiet(_irrcac(d, weights).krippendorff)["est"]["coefficient_value"]
        ours = kl.krippendorff_alpha(d.wide, level=level, categories=d.categories)
        cmp.check(seed, f"alpha {level}", ours.value, theirs)
    cmp.finish()


@pytest.mark.slow
def test_irrcac_two_rater_cohen_with_missing():
    """With missing data, Cohen's κ is Conger's κ of two raters (Gwet 2014: P_o over the items
    both rated, each rater's marginal over all its ratings). irrCAC's conger() on two columns
    is the oracle: one pair of raters per draw, in rotation, unweighted on even seeds and with
    quadratic weights on odd ones (irrCAC's Conger costs ~0.1 s a call, hence one pair)."""
    cmp = Comparison("irrCAC conger on a pair vs cohen_kappa")
    for seed in range(9000, 9000 + N_SEEDS):
        d = draw(seed)
        pairs = list(combinations(range(d.wide.shape[1]), 2))
        g, h = pairs[seed % len(pairs)]
        present = ~np.isnan(d.wide[:, [g, h]])
        if not present.all(axis=1).any():
            cmp.skip(seed, "the pair shares no item")
            continue
        if len(np.unique(d.wide[:, [g, h]][present])) < 2:
            cmp.skip(seed, "the pair used one category only: κ undefined")
            continue
        weights = "identity" if seed % 2 == 0 else "quadratic"
        sub = Draw(seed, d.wide[:, [g, h]], d.categories, d.evenly_spaced)
        theirs = quiet(_irrcac(sub, weights).conger)["est"]
        ours = kl.cohen_kappa(sub.wide, weights=_kl_weights(d, weights), categories=d.categories)
        cmp.check(seed, f"cohen {(g, h)} {weights} value", ours.value,
                  theirs["coefficient_value"])
        cmp.check(seed, f"cohen {(g, h)} {weights} pa", ours.observed, theirs["pa"])
        cmp.check(seed, f"cohen {(g, h)} {weights} pe", ours.expected, theirs["pe"])
    cmp.finish()


# ============================================================================ nltk
def _task(d: Draw, distance=None) -> AnnotationTask:
    rows, cols = np.nonzero(~np.isnan(d.wide))
    data = [(f"c{c}", f"i{i}", int(d.wide[i, c])) for i, c in zip(rows, cols)]
    if distance is None:
        return AnnotationTask(data=data)
    return AnnotationTask(data=data, distance=distance)


@pytest.mark.slow
def test_nltk_annotation_task_complete():
    """What nltk's coefficients are, on complete data (read from nltk/metrics/agreement.py):

    * ``avg_Ao``: mean over coder pairs of the share of items they agree on = Fleiss' P_o
      = kappalab ``percent_agreement``;
    * ``S``: (avg_Ao − 1/|K|)/(1 − 1/|K|), K = the labels that occur = Brennan–Prediger with
      the observed categories;
    * ``pi`` (multi-π, Siegel & Castellan's K): P_e = Σ_k (n_k/(I·C))² = Fleiss' κ;
    * ``kappa``: the plain mean over coder pairs of Cohen's κ = Light's κ;
    * ``multi_kappa`` (Davies & Fleiss 1982): P_e = mean over pairs of Σ_k p_gk p_hk
      = Conger's κ (its point estimate);
    * ``weighted_kappa`` with a distance: mean over pairs of Cohen's weighted κ with δ =
      distance = Light's κ with weights "quadratic" for ``interval_distance`` ((a − b)²) and
      "linear" for |a − b| (weighted κ is invariant to rescaling δ);
    * ``alpha``: Krippendorff's α with the given distance (nominal / interval).
    nltk's Ao, pi, S, kappa assume every coder rated every item, hence complete data.
    """
    cmp = Comparison("nltk AnnotationTask (complete data)")
    for seed in range(10000, 10000 + N_SEEDS):
        d = draw(seed, complete=True)
        R = d.wide.shape[1]
        if any(len(np.unique(d.wide[:, [g, h]])) < 2 for g, h in combinations(range(R), 2)):
            cmp.skip(seed, "a pair of raters used one category only (nltk raises / κ undefined)")
            continue
        task = _task(d)
        observed = list(np.unique(d.wide).astype(int))
        cmp.check(seed, "avg_Ao", kl.percent_agreement(d.wide).value, task.avg_Ao())
        cmp.check(seed, "S", kl.brennan_prediger(d.wide, categories=observed).value, task.S())
        cmp.check(seed, "pi", kl.fleiss_kappa(d.wide).value, task.pi())
        cmp.check(seed, "kappa", kl.light_kappa(d.wide).value, task.kappa())
        cmp.check(seed, "multi_kappa", kl.conger_kappa(d.wide).value, task.multi_kappa())
        cmp.check(seed, "alpha nominal", kl.krippendorff_alpha(d.wide).value, task.alpha())
        itask = _task(d, interval_distance)
        cmp.check(seed, "alpha interval", kl.krippendorff_alpha(d.wide, level="interval").value,
                  itask.alpha())
        cmp.check(seed, "weighted_kappa interval",
                  kl.light_kappa(d.wide, weights="quadratic").value, itask.weighted_kappa())
        ltask = _task(d, lambda a, b: abs(a - b))
        cmp.check(seed, "weighted_kappa |a-b|",
                  kl.light_kappa(d.wide, weights="linear").value, ltask.weighted_kappa())
    cmp.finish()


def test_nltk_alpha_with_missing():
    """nltk's alpha drops items with fewer than two ratings: Krippendorff's α with missing data."""
    cmp = Comparison("nltk alpha (missing data)")
    for seed in range(11000, 11000 + N_SEEDS):
        d = draw(seed)
        if d.n_pairable_items() == 0 or len(d.pairable_values()) < 2:
            cmp.skip(seed, "fewer than two distinct pairable values (nltk returns 1)")
            continue
        cmp.check(seed, "alpha nominal", kl.krippendorff_alpha(d.wide).value, _task(d).alpha())
        cmp.check(seed, "alpha interval", kl.krippendorff_alpha(d.wide, level="interval").value,
                  _task(d, interval_distance).alpha())
    cmp.finish()
