"""kappalab against numbers published in the literature (and hand arithmetic written out).

Every expected number here comes from outside kappalab: a paper, a textbook example reproduced
by a peer library's documentation, or arithmetic spelled out in a comment. Sources:

* worked example: the tutorial text "Inter-Annotator Agreement: Worked Example" (no author or
  URL given; see kappalab/datasets/README.md), whose α is wrong (docs/architecture.md);
* Krippendorff, K. (2011), *Computing Krippendorff's Alpha-Reliability*, sections C–F;
* Fleiss, J. L. (1971), Psychological Bulletin 76(5), 378–382, doi:10.1037/h0031619, Table 1;
  and R irr's ``kappam.fleiss(diagnoses)`` as quoted in statsmodels' test-suite;
* Carletta, J. (1996), Assessing agreement on classification tasks: the kappa statistic,
  Computational Linguistics 22(2), 249–254, §2;
* the irrCAC documentation (``irrCAC.raw`` and ``irrCAC.table`` docstrings; Gwet 2014);
* Wikipedia's "Fleiss' kappa" worked example (14 raters, 10 subjects, 5 categories);
* Randolph's online free-marginal kappa calculator, as quoted in statsmodels' test-suite;
* R irr's ``kappa2(anxiety[, 2:3], ...)``, as quoted in statsmodels' test-suite;
* Artstein, R. & Poesio, M. (2008), Computational Linguistics 34(4), the Stat/IReq/Chck
  example (A_o = 0.88, S = 0.82, π = 0.7995, κ = 0.8013).
"""

from __future__ import annotations

from collections import Counter
from importlib import resources
from itertools import permutations

import numpy as np
import pandas as pd
import pytest

import kappalab as kl


def _dataset(name: str) -> pd.DataFrame:
    path = resources.files("kappalab") / "datasets" / name
    with resources.as_file(path) as p:
        return pd.read_csv(p, comment="#")


# ============================================================================ worked example
@pytest.fixture(scope="module")
def worked() -> kl.Annotations:
    return kl.Annotations.from_long(_dataset("worked_example.csv"))


def test_worked_example_cohen_a_b(worked):
    wide = worked.wide
    est = kl.cohen_kappa(wide["A"].tolist(), wide["B"].tolist())
    # paper: P_o = (4 + 2 + 1)/10 = 0.7; P_e = .5·.6 + .3·.3 + .2·.1 = 0.41;
    # κ = 0.29/0.59 = 0.491525…  (paper rounds to 0.492)
    assert est.observed == pytest.approx(0.7, abs=1e-12)
    assert est.expected == pytest.approx(0.41, abs=1e-12)
    assert est.value == pytest.approx(0.29 / 0.59, abs=1e-12)
    assert round(est.value, 4) == 0.4915


def test_worked_example_fleiss(worked):
    est = kl.fleiss_kappa(worked)
    # paper: P_o = (6·1 + 4·(1/3))/10 = 22/30; P_e = (15/30)² + (10/30)² + (5/30)² = 14/36 = 7/18;
    # κ = (22/30 − 7/18)/(1 − 7/18) = (31/90)/(11/18) = 558/990 = 0.563636…
    assert est.observed == pytest.approx(22 / 30, abs=1e-12)
    assert est.expected == pytest.approx(7 / 18, abs=1e-12)
    assert est.value == pytest.approx(558 / 990, abs=1e-12)
    assert round(est.value, 4) == 0.5636


def test_worked_example_krippendorff_alpha_is_0_5782_not_the_papers_0_563(worked):
    """The paper says α = 0.563 = Fleiss' κ. That is wrong (docs/architecture.md).

    The paper takes D_e = 1 − Σ p_c² = 1 − 350/900 = 550/900 (Fleiss' P_e on the disagreement
    scale). Krippendorff's α draws the expected pairs *without replacement* from the n = 30
    pairable values: D_e = (n² − Σ n_c²)/(n(n−1)) = (900 − 350)/870 = 550/870, i.e. the paper's
    value times n/(n−1) = 30/29. With D_o = 16/60 (its own coincidence count) that gives
    α = 1 − (16/60)/(550/870) = 1 − 13920/33000 = 0.578181…, which is also what the
    `krippendorff` package and irrCAC return (cross-checked in test_oracles.py).
    """
    est = kl.krippendorff_alpha(worked, level="nominal")

    # --- hand arithmetic from the raw data (no kappalab) --------------------------------------
    df = _dataset("worked_example.csv")
    coincidences: Counter = Counter()
    for _, rows in df.groupby("item"):
        values = rows["value"].tolist()
        m = len(values)
        for a, b in permutations(values, 2):  # ordered pairs of different coders
            coincidences[(a, b)] += 1.0 / (m - 1)
    n = sum(coincidences.values())  # pairable values
    assert n == pytest.approx(30)
    n_c = Counter()
    for (a, _), o in coincidences.items():
        n_c[a] += o
    assert dict(n_c) == pytest.approx({"P": 15, "N": 10, "G": 5})
    off_diagonal = sum(o for (a, b), o in coincidences.items() if a != b)
    # the paper counts raw ordered pairs: 16 of 60; in coincidence units 8 of 30
    assert off_diagonal == pytest.approx(8)
    d_o = off_diagonal / n  # = 16/60
    d_e = (n**2 - sum(v**2 for v in n_c.values())) / (n * (n - 1))  # = 550/870
    assert d_o == pytest.approx(16 / 60, abs=1e-15)
    assert d_e == pytest.approx(550 / 870, abs=1e-15)
    alpha_by_hand = 1 - d_o / d_e
    assert alpha_by_hand == pytest.approx(1 - 13920 / 33000, abs=1e-15)

    # --- kappalab ------------------------------------------------------------------------------
    assert est.expected_disagreement == pytest.approx(550 / 870, abs=1e-15)
    assert est.observed_disagreement == pytest.approx(16 / 60, abs=1e-15)
    assert est.value == pytest.approx(alpha_by_hand, abs=1e-12)
    assert round(est.value, 4) == 0.5782
    # and it is NOT the paper's 0.563 (which used D_e = 550/900 and so equals Fleiss' κ)
    assert 1 - (16 / 60) / (550 / 900) == pytest.approx(558 / 990, abs=1e-12)
    assert abs(est.value - 0.563) > 0.01


# ============================================================================ Krippendorff (2011)
@pytest.fixture(scope="module")
def kripp2011() -> kl.Annotations:
    return kl.Annotations.from_long(_dataset("krippendorff_2011.csv"))


@pytest.mark.parametrize(
    "level, published",
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_published_alphas(kripp2011, level, published):
    est = kl.krippendorff_alpha(kripp2011, level=level)
    assert round(est.value, 3) == published
    # unit 12 has one value: 11 pairable units, 40 pairable values
    assert est.n_items == 11
    assert est.n_annotations == 40


def test_krippendorff_2011_nominal_by_hand(kripp2011):
    # Krippendorff (2011), section C: n = 40 pairable values, category totals n_c =
    # (1: 9, 2: 13, 3: 10, 4: 5, 5: 3); Σ n_c² = 81 + 169 + 100 + 25 + 9 = 384, so
    # D_e = (1600 − 384)/(40·39) = 1216/1560. Disagreeing coincidences (his o_ck, c ≠ k):
    # unit 2 (2,2,3,2): 2·3/3 = 2; unit 6 (1,2,3,4): 12/3 = 4; unit 8 (1,1,2,1): 2·3/3 = 2;
    # total 8, D_o = 8/40. α = 1 − (8/40)/(1216/1560) = 1 − 12480/48640 = 0.743421…
    est = kl.krippendorff_alpha(kripp2011, level="nominal")
    assert est.observed_disagreement == pytest.approx(8 / 40, abs=1e-15)
    assert est.expected_disagreement == pytest.approx(1216 / 1560, abs=1e-15)
    assert est.value == pytest.approx(1 - 12480 / 48640, abs=1e-12)


def test_irrcac_docstring_example_on_the_same_data(kripp2011):
    """irrCAC.raw's docstring (data raw_4raters = Krippendorff 2011's 12 × 4 table), 5 decimals:
    AC1 0.77544 (pa 0.81818, pe 0.19032); Fleiss 0.76117 (pe 0.23872);
    AC2 with bipolar weights 0.90037 (pa 0.96836, pe 0.68244)."""
    tol = 5e-6  # published to 5 decimals
    ac1 = kl.gwet_ac(kripp2011)
    assert (ac1.value, ac1.observed, ac1.expected) == pytest.approx(
        (0.77544, 0.81818, 0.19032), abs=tol)
    fk = kl.fleiss_kappa(kripp2011)
    assert (fk.value, fk.observed, fk.expected) == pytest.approx(
        (0.76117, 0.81818, 0.23872), abs=tol)
    ac2 = kl.gwet_ac(kripp2011, weights="bipolar")
    assert (ac2.value, ac2.observed, ac2.expected) == pytest.approx(
        (0.90037, 0.96836, 0.68244), abs=tol)


# ============================================================================ Fleiss (1971)
def test_fleiss_1971_diagnoses():
    ann = kl.Annotations.from_long(_dataset("fleiss_1971.csv"), rater=None)
    est = kl.fleiss_kappa(ann)
    # Fleiss (1971): κ = .430
    assert round(est.value, 3) == 0.430
    # R irr: kappam.fleiss(diagnoses) = 0.4302445 (quoted in statsmodels' tests)
    assert est.value == pytest.approx(0.4302445, abs=5e-8)
    # Fleiss' published category proportions p_j = .144 .144 .167 .306 .239 → P_e = Σ p_j²
    published_p = np.array([0.144, 0.144, 0.167, 0.306, 0.239])
    assert est.expected == pytest.approx((published_p**2).sum(), abs=1e-3)
    # exactly, from the category totals 26 26 30 55 43 of 180: 7126/32400
    assert est.expected == pytest.approx((26**2 + 26**2 + 30**2 + 55**2 + 43**2) / 180**2,
                                         abs=1e-15)
    assert est.n_items == 30 and est.n_annotations == 180


def test_fleiss_wikipedia_example_from_counts():
    # Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories;
    # p_j = .143 .200 .279 .150 .229, P̄ = 0.378, P̄_e = 0.213, κ = 0.210.
    counts = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
              [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
              [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    est = kl.fleiss_kappa(kl.Annotations.from_counts(counts))
    assert round(est.value, 3) == 0.210
    assert round(est.observed, 3) == 0.378
    assert round(est.expected, 3) == 0.213


@pytest.mark.parametrize(
    "counts, fixed_marginal, free_marginal",
    [
        # Randolph's online calculator (http://justusrandolph.net/kappa/), quoted in statsmodels
        ([[7, 1], [3, 5]], 0.161905, 0.214286),
        # three categories, the third never used: free-marginal chance is still 1/3
        ([[6, 1, 0], [0, 7, 0]], 0.708333, 0.785714),
    ],
)
def test_randolph_calculator(counts, fixed_marginal, free_marginal):
    ann = kl.Annotations.from_counts(counts)
    assert kl.fleiss_kappa(ann).value == pytest.approx(fixed_marginal, abs=6e-7)
    # Randolph's free-marginal κ is Brennan–Prediger with P_e = 1/K
    assert kl.brennan_prediger(ann).value == pytest.approx(free_marginal, abs=6e-7)


# ============================================================================ Carletta (1996)
def test_carletta_95_5_split_expected_agreement():
    """Carletta (1996) §2: "if both coders were to use one of two categories, but use one of the
    categories 95% of the time, we would expect them to agree 90.5% of the time
    (.95² + .05²)". Two coders, 100 units, each coder 95 × 'a' and 5 × 'b':

        both a: 93 units;  coder 1 a / coder 2 b: 2;  coder 1 b / coder 2 a: 2;  both b: 3

    so each coder's marginal is exactly 95/5 and P_o = 96/100. Chance agreement (Scott/Fleiss
    pooled marginal, and Cohen's per-coder marginals, which coincide here) is
    .95² + .05² = .9025 + .0025 = .905; κ = (.96 − .905)/(1 − .905) = .055/.095 = 11/19
    = 0.5789… — Carletta's point: 96% raw agreement is only moderate agreement.
    """
    coder1 = ["a"] * 93 + ["a"] * 2 + ["b"] * 2 + ["b"] * 3
    coder2 = ["a"] * 93 + ["b"] * 2 + ["a"] * 2 + ["b"] * 3
    assert Counter(coder1) == Counter(coder2) == {"a": 95, "b": 5}

    for est in (kl.scott_pi(coder1, coder2), kl.fleiss_kappa(np.column_stack([coder1, coder2])),
                kl.cohen_kappa(coder1, coder2)):
        assert est.expected == pytest.approx(0.95**2 + 0.05**2, abs=1e-12)
        assert est.expected == pytest.approx(0.905, abs=1e-12)
        assert est.observed == pytest.approx(0.96, abs=1e-12)
        assert est.value == pytest.approx(11 / 19, abs=1e-12)

    # Krippendorff's α draws chance pairs without replacement from the n = 200 values, so its
    # expected agreement is 1 − (200² − 190² − 10²)/(200·199) = 1 − 3800/39800 = 0.904523…,
    # slightly below Carletta's .905 (the difference her footnote 1 alludes to).
    alpha = kl.krippendorff_alpha(np.column_stack([coder1, coder2]))
    assert 1 - alpha.expected_disagreement == pytest.approx(1 - 3800 / 39800, abs=1e-12)


# ============================================================================ two-rater tables
def _expand_table(table: list[list[int]], labels: list) -> tuple[list, list]:
    """Two raters' label sequences from a contingency table (rows: rater 1, columns: rater 2)."""
    x, y = [], []
    for i, row in enumerate(table):
        for j, n in enumerate(row):
            x += [labels[i]] * n
            y += [labels[j]] * n
    return x, y


def test_gwet_handbook_3x3_abstractors():
    """irrCAC.table docstring (Gwet 2014): 100 pregnant women, 2 abstractors, categories
    Ectopic, AIU, NIU (irrCAC scores string categories 1, 2, 3 in the given order):
    AC1 = 0.84933 (pa 0.89, pe 0.26992); AC2 quadratic = 0.94024 (pa 0.9725, pe 0.53985)."""
    table = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]
    x, y = _expand_table(table, [1, 2, 3])
    ac1 = kl.gwet_ac(np.column_stack([x, y]))
    assert (ac1.value, ac1.observed, ac1.expected) == pytest.approx(
        (0.84933, 0.89, 0.26992), abs=5e-6)
    ac2 = kl.gwet_ac(np.column_stack([x, y]), weights="quadratic")
    assert (ac2.value, ac2.observed, ac2.expected) == pytest.approx(
        (0.94024, 0.9725, 0.53985), abs=5e-6)
    # Cohen's κ by hand: rows 13/27/60, columns 13/24/63 (of 100); P_o = .89;
    # P_e = .13·.13 + .27·.24 + .60·.63 = .0169 + .0648 + .378 = .4597; κ = .4303/.5403
    cohen = kl.cohen_kappa(x, y)
    assert cohen.expected == pytest.approx(0.4597, abs=1e-12)
    assert cohen.value == pytest.approx(0.4303 / 0.5403, abs=1e-12)


def test_irr_kappa2_anxiety():
    """R irr: kappa2(anxiety[, 2:3]) = −0.006289308; weight "equal" 0.1459075; "squared"
    0.2520325 (quoted in statsmodels' test-suite). irr scores the categories by their factor
    level (1..5 over the observed levels 1, 2, 3, 4, 6), so we pass those level codes: kappalab's
    linear/quadratic weights use category *values*."""
    rater2 = [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4]
    rater3 = [2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2]
    level = {1: 1, 2: 2, 3: 3, 4: 4, 6: 5}
    x = [level[v] for v in rater2]
    y = [level[v] for v in rater3]
    assert kl.cohen_kappa(x, y).value == pytest.approx(-0.006289308, abs=5e-10)
    assert kl.cohen_kappa(x, y, weights="linear").value == pytest.approx(0.1459075, abs=5e-8)
    assert kl.cohen_kappa(x, y, weights="quadratic").value == pytest.approx(0.2520325, abs=5e-8)


def test_artstein_poesio_2008_example():
    """Artstein & Poesio (2008), the dialogue-act example: 100 utterances, coders A and B, labels
    Stat/IReq/Chck. A's totals 46/44/10, B's 52/32/16, agreement on 88 (46 + 32 + 10).
    Published: A_o = 0.88, S = 0.82, π = 0.7995, κ = 0.8013 (nltk's doctest: π = 0.79953).
    Table (rows B, columns A): Stat 46 6 0 / IReq 0 32 0 / Chck 0 6 10.
    By hand: S = (.88 − 1/3)/(2/3) = .82; pooled p = .49/.38/.13, P_e(π) = .4014,
    π = .4786/.5986 = .79953; P_e(κ) = .52·.46 + .32·.44 + .16·.10 = .396, κ = .484/.604."""
    table = [[46, 6, 0], [0, 32, 0], [0, 6, 10]]
    b, a = _expand_table(table, ["stat", "ireq", "chck"])
    assert Counter(a) == {"stat": 46, "ireq": 44, "chck": 10}
    assert Counter(b) == {"stat": 52, "ireq": 32, "chck": 16}
    assert kl.percent_agreement(np.column_stack([a, b])).value == pytest.approx(0.88, abs=1e-12)
    s = kl.bennett_s(a, b).value
    assert round(s, 2) == 0.82
    assert s == pytest.approx((0.88 - 1 / 3) / (2 / 3), abs=1e-12)
    pi = kl.scott_pi(a, b)
    assert round(pi.value, 4) == 0.7995
    assert round(pi.value, 5) == 0.79953
    assert pi.expected == pytest.approx(0.4014, abs=1e-12)
    kappa = kl.cohen_kappa(a, b)
    assert round(kappa.value, 4) == 0.8013
    assert kappa.expected == pytest.approx(0.396, abs=1e-12)
    assert kappa.value == pytest.approx(0.484 / 0.604, abs=1e-12)
