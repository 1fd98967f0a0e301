"""evalica and rater-agreement, the two newer peer libraries: where their numbers agree with
kappalab's and where, and why, they differ (what ``docs/migration.md`` says of them).

The oracles: the krippendorff package for α, brute force written out here for the centre of
evalica's bootstrap and for α on label positions, and the behaviour of evalica's compiled
solver on a table too large for its dense matrices, run in a child process with its address
space capped so that the abort it causes takes down only that process.
"""

from __future__ import annotations

import itertools
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import evalica
import krippendorff
import numpy as np
import pandas as pd
import pytest
import raters

import kappalab as kl
from kappalab.coefficients.multirater import alpha_core
from kappalab.uncertainty import krippendorff_replicates

ROOT = Path(__file__).resolve().parents[1]


def labels(seed: int, n_items: int = 60, n_raters: int = 5, missing: float = 0.25):
    """Items × raters, three categories, each rater giving the item's category with
    probability 0.6, a quarter of the cells missing (so units differ in size)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    x = np.where(rng.random((n_items, n_raters)) < 0.6, truth[:, None],
                 rng.integers(0, 3, (n_items, n_raters))).astype(float)
    x[rng.random((n_items, n_raters)) < missing] = np.nan
    return x


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_evalica_alpha_equals_krippendorff_and_kappalab(level):
    x = labels(0)
    expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement=level)
    got = evalica.alpha(pd.DataFrame(x.T), distance=level)  # observers × units
    assert got.alpha == pytest.approx(expected, abs=1e-12)
    assert float(kl.krippendorff_alpha(x, level=level)) == pytest.approx(expected, abs=1e-12)


def pooled_pair_centre(x: np.ndarray) -> tuple[float, float]:
    """α̂ and the mean of evalica's KALPHA-style replicates, by brute force (nominal).

    α̂ = 1 − D_o/D_e with D_o = Σ_u m_u δ̄_u (δ̄_u the mean disagreement of the unordered
    pairs of unit u, m_u its values). evalica draws each unit's m_u(m_u − 1)/2 pairs from the
    pool of *all* pairs, each pair equally likely, and weighs them by 2/(m_u − 1): its
    replicates' mean is 1 − Σ_u m_u δ̄_pool / D_e, δ̄_pool the mean over the pool. The two
    differ unless every unit has the same number of values (or δ̄_u does not depend on m_u)."""
    units = [[v for v in row if v == v] for row in x]
    units = [u for u in units if len(u) >= 2]
    per_unit = [[float(a != b) for a, b in itertools.combinations(u, 2)] for u in units]
    observed = sum(len(u) * sum(d) / len(d) for u, d in zip(units, per_unit))
    pool = [d for ds in per_unit for d in ds]
    pooled = sum(len(u) for u in units) * sum(pool) / len(pool)
    values = [v for u in units for v in u]
    n = len(values)
    expected = sum(float(a != b) for a, b in itertools.permutations(values, 2)) / (n - 1)
    return 1 - observed / expected, 1 - pooled / expected


def test_evalica_kalpha_bootstrap_is_centred_on_the_pool_of_pairs_not_on_alpha():
    """At 25 % missing (units of 2–5 values) evalica's replicates centre on the brute-force
    mean of its scheme, 0.031 below α̂ here, ≥ 50 Monte Carlo SEs away; kappalab's
    ``ci="krippendorff"`` draws each unit size's pairs with that size's weight and centres on
    α̂. With complete data (all units of one size) the two coincide and evalica is centred."""
    x = labels(3)
    alpha, centre = pooled_pair_centre(x)
    assert alpha == pytest.approx(krippendorff.alpha(reliability_data=x.T,
                                                 level_of_measurement="nominal"), abs=1e-12)
    replicates = evalica.alpha_bootstrap(pd.DataFrame(x.T), n_resamples=20_000,
                                         random_state=1).distribution
    mc_se = replicates.std() / np.sqrt(replicates.size)
    assert replicates.mean() == pytest.approx(centre, abs=4 * mc_se)
    assert alpha - centre > 50 * mc_se
    ours = krippendorff_replicates(alpha_core(kl.Annotations.from_wide(x)).pairable_values(),
                                   20_000, seed=1)
    assert ours.mean() == pytest.approx(alpha, abs=4 * ours.std() / np.sqrt(ours.size))

    complete = labels(3, missing=0.0)
    alpha, centre = pooled_pair_centre(complete)
    assert centre == pytest.approx(alpha, abs=1e-12)
    replicates = evalica.alpha_bootstrap(pd.DataFrame(complete.T), n_resamples=20_000,
                                         random_state=1).distribution
    assert replicates.mean() == pytest.approx(alpha, abs=4 * replicates.std()
                                              / np.sqrt(replicates.size))


# values 1, 2 and 10: a gap of 1 and a gap of 8 between neighbours
SPREAD = [[1, 2, 10, 1, 2, 10, 1, 2],
          [1, 2, 10, 2, 1, 1, 1, 10],
          [2, 2, 10, 1, 2, 10, None, 2]]


def test_rater_agreement_interval_alpha_is_on_the_positions_of_the_labels():
    """rater-agreement's ``level="interval"`` scores the sorted distinct labels 0, 1, 2, …:
    on the values 1, 2, 10 it is the interval α of the positions 0, 1, 2 (0.4465), not of
    the values (0.5609, the krippendorff package's and kappalab's). Given the whole scale as
    ``categories=`` (here every integer 1–10) its positions are the values less one and the
    two agree."""
    x = np.array([[np.nan if v is None else v for v in row] for row in SPREAD], float)
    on_values = krippendorff.alpha(reliability_data=x, level_of_measurement="interval")
    positions = np.searchsorted([1.0, 2.0, 10.0], x).astype(float)
    positions[np.isnan(x)] = np.nan
    on_positions = krippendorff.alpha(reliability_data=positions,
                                      level_of_measurement="interval")
    assert (round(on_values, 4), round(on_positions, 4)) == (0.5609, 0.4465)
    assert raters.krippendorff_alpha(SPREAD, level="interval") == pytest.approx(on_positions,
                                                                              abs=1e-12)
    assert raters.krippendorff_alpha(SPREAD, level="interval", categories=range(1, 11)) == (
        pytest.approx(on_values, abs=1e-12))
    ours = kl.krippendorff_alpha(kl.Annotations.from_wide(x, raters_as_rows=True),
                                 level="interval")
    assert float(ours) == pytest.approx(on_values, abs=1e-12)


def test_rater_agreement_kappas_and_icc_equal_kappalab_on_complete_data():
    """Cohen's κ (unweighted, and linear / quadratic weights on labels 1..K, where positions
    and values coincide), Fleiss' κ from an items × categories count table, ICC(2,1) and
    ICC(3,1): rater-agreement and kappalab agree to rounding."""
    x = labels(5, n_items=50, n_raters=4, missing=0.0).astype(int) + 1   # labels 1, 2, 3
    a, b = x[:, 0].tolist(), x[:, 1].tolist()
    for weights in (None, "linear", "quadratic"):
        theirs = raters.cohen_kappa(a, b, categories=[1, 2, 3], weights=weights)
        assert float(kl.cohen_kappa(a, b, weights=weights)) == pytest.approx(theirs, abs=1e-12)
    counts = np.stack([(x == k).sum(axis=1) for k in (1, 2, 3)], axis=1)
    assert float(kl.fleiss_kappa(kl.Annotations.from_counts(counts))) == pytest.approx(
        raters.fleiss_kappa(counts), abs=1e-12)
    assert float(kl.percent_agreement(x[:, :2])) == pytest.approx(
        raters.percent_agreement(a, b), abs=1e-12)
    scores = x + np.random.default_rng(5).normal(size=x.shape)
    for form in ("2,1", "3,1"):
        assert float(kl.icc(scores, form=f"ICC({form})")) == pytest.approx(
            raters.icc(scores, form=form), abs=1e-12)


LARGE = """
import resource, sys
import numpy as np, pandas as pd
resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))
x = np.random.default_rng(0).normal(size=(3, 5000))  # 3 raters × 5 000 items, 15 000 values
if sys.argv[1] == "evalica":
    import evalica
    try:
        evalica.alpha(pd.DataFrame(x), distance="interval")
    except BaseException as error:  # whatever Python could catch
        print("caught", type(error).__name__)
else:
    import kappalab as kl
    alpha = kl.krippendorff_alpha(kl.Annotations.from_wide(x, raters_as_rows=True),
                                  level="interval")
    print("alpha", float(alpha))
"""


@pytest.mark.slow
def test_evalica_aborts_the_process_on_a_large_continuous_table():
    """15 000 distinct values with the address space capped at 3 GiB: evalica's compiled
    solver asks for a 15 000 × 15 000 matrix (1.8 GB), the allocation fails and the process is
    aborted (SIGABRT) before Python sees an exception; kappalab's interval α, which needs no
    matrix over the values, computes it under the same cap. Each runs in its own child
    process."""
    def child(which: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(LARGE), which], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)

    aborted = child("evalica")
    assert aborted.returncode == -signal.SIGABRT, (aborted.returncode, aborted.stderr[-2000:])
    assert re.search(r"memory allocation of \d+ bytes failed", aborted.stderr)
    assert "caught" not in aborted.stdout
    ours = child("kappalab")
    assert ours.returncode == 0, ours.stderr[-2000:]
    assert np.isfinite(float(ours.stdout.split()[-1]))
