"""kappalab.population: the population formulas of the simulation and Bayesian models, moved
out of kappalab.kernels; the old names there still work for one release, with a warning."""

import math

import pytest

from kappalab import kernels, population

MOVED = ["CrossTables", "alpha_from_joint", "joint_disagreements", "latent_cross_tables",
         "latent_icc", "true_score_correlation"]


@pytest.mark.parametrize("name", MOVED)
def test_the_old_kernels_name_warns_and_is_the_population_one(name):
    with pytest.warns(DeprecationWarning, match=f"kappalab.population.{name}"):
        old = getattr(kernels, name)
    assert old is getattr(population, name)


@pytest.mark.parametrize("name", MOVED)
def test_the_moved_names_are_no_longer_listed_by_kernels(name):
    assert name not in kernels.__all__
    assert name in population.__all__


def test_from_import_of_an_old_name_warns():
    with pytest.warns(DeprecationWarning):
        from kappalab.kernels import latent_icc
    # binary, prevalence ½: α = (2/π) arcsin ρ_L, so α = ½ at ρ_L = sin(π/4)
    assert latent_icc([0.0], 0.5) == pytest.approx(math.sqrt(0.5), abs=1e-12)


def test_an_unknown_kernels_name_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_kernel"):
        kernels.no_such_kernel  # noqa: B018
