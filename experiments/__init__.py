"""Simulation studies of kappalab's estimators against exact population truths: bias and RMSE
(``estimator_bias``), the kappa paradox (``kappa_paradox``), SPA's weighting schemes
(``spa_bias``), the coverage of every interval method (``interval_coverage``) and of the
standard-error conventions with singly-rated items (``se_conventions``), sample-size
planning (``planning``) and the size and power of ``kl.compare``'s test of a difference
(``compare_power``). Each study is
a module run from the repository root, ``python -m experiments.<name> [--quick]`` (``make
experiments`` runs them all); it writes a CSV table and a PNG figure to
``results/experiments/`` (``--out`` to change). Every study runs its replications through
``kappalab.simulate.run_study`` (a local Dask cluster by default; ``--scheduler``,
``--workers``, ``--checkpoint``); the shared arguments and the cluster are in
``experiments.study``. Not part of the kappalab wheel.
"""
