"""Speed benchmarks of kappalab against its peer libraries (plain programs, not pytest). Each
``bench_*`` module is run from the repository root, ``python -m benchmarks.<name>`` (each takes
``--items``/``--repeat`` or similar), prints the machine it ran on, its timings and checks, and
ends with a ``RESULT {...}`` JSON line; ``python -m benchmarks.run_all`` (``make bench``) runs
them all in turn and prints a summary. Shared timing and reporting helpers are in
``benchmarks.timing``. Not part of the kappalab wheel.
"""
