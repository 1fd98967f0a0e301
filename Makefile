PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test typecheck docs bench experiments repro clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# `make demo`: install kappalab and run its main job on a bundled dataset.
demo: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	$(BIN)/kappalab demo

# `make test`: install kappalab with its test oracles, check the types (`make typecheck`),
# then run the whole suite.
# irrCAC pins scipy==1.12 (numpy<2); installed without its pins it runs correctly here.
# The real-data tests read the original files from KAPPALAB_DATA (kappalab.datasets.fetch):
# a shared data folder beside the clone when there is one; else they skip, saying why, and
# the run ends with one line counting them (tests/conftest.py).
SHARED_DATA := $(wildcard $(abspath ../shared/data))

test: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	$(BIN)/python -m pip install --quiet --no-deps irrCAC
	$(BIN)/ruff check .
	$(MAKE) --no-print-directory typecheck
	$(if $(SHARED_DATA),KAPPALAB_DATA=$${KAPPALAB_DATA:-$(SHARED_DATA)}) $(BIN)/python -m pytest -n auto

# `make typecheck`: mypy on the package with the configuration of pyproject.toml ([tool.mypy]:
# strict on the ground floor, the spine, the uncertainty code and the registry); its cache in
# .mypy_cache keeps a second run quick. `make test` runs it first, so a type error fails it.
typecheck: $(BIN)/python
	$(BIN)/python -m mypy

# `make quick`: the suite without the tests marked slow (over 9 s in a run of the whole suite,
# or over 1 s in one of `make quick`: the `markers` of pyproject.toml), for the edit-and-test
# loop; `make test` runs them all.
.PHONY: quick
quick: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	$(BIN)/python -m pip install --quiet --no-deps irrCAC
	$(if $(SHARED_DATA),KAPPALAB_DATA=$${KAPPALAB_DATA:-$(SHARED_DATA)}) \
	$(BIN)/python -m pytest -m "not slow" -n auto

# `make docs`: the documentation site, built offline into docs/_build/html; a warning (a
# broken docstring or reference included) fails the build. The inventories of the projects it
# links to are written from docs/external_names.txt (docs/inventories.py), not downloaded.
# The gallery (docs/examples/ → docs/gallery/) runs every script of experiments/ and
# paper_repro/ in its quick setting; its real-data examples read KAPPALAB_DATA as `make test`
# does, and without the files they say which one is missing.
docs: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	rm -rf docs/api/generated  # pages of names the reference no longer lists would be orphans
	$(if $(SHARED_DATA),KAPPALAB_DATA=$${KAPPALAB_DATA:-$(SHARED_DATA)}) \
	$(BIN)/sphinx-build -W --keep-going -n -q -b html docs docs/_build/html

# experiments/, paper_repro/ and benchmarks/ are packages: their modules run with
# `python -m package.module` from the repository root (tests/test_script_layout.py checks
# that these lists name every runnable module)
EXPERIMENTS := annotator_coverage bayes_priors compare_power estimator_bias interval_coverage kappa_paradox planning se_conventions spa_bias
REPRO       := spa_fig4 spa_fig5 spa_fig6 spa_fig7_table1 xrr_cases xrr_fig7 xrr_real spa_mbic snow2008 annotation_models

# `make bench`: every benchmark (benchmarks/run_all.py), one thread for BLAS/OpenMP; the run's
# results go to results/bench/latest.json, from which docs/performance.md's peer table is
# rewritten (benchmarks/performance_table.py)
bench: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	$(BIN)/python -m pip install --quiet --no-deps irrCAC
	OMP_NUM_THREADS=1 $(BIN)/python -m benchmarks.run_all
	$(BIN)/python -m benchmarks.performance_table results/bench/latest.json

# simulation studies: each writes a CSV and a PNG to results/experiments/
experiments: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[experiments]"
	for module in $(EXPERIMENTS); do \
		echo "== experiments.$$module"; $(BIN)/python -m experiments.$$module || exit 1; done

# the papers' figures and tables, on simulated stand-ins, and (xrr_real, spa_mbic, snow2008)
# on the real MBIC, BABE and Snow et al. files, read from KAPPALAB_DATA as in `make test`:
# results/paper_repro/; how far each gets is in paper_repro/status.py
repro: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[experiments]"
	for module in $(REPRO); do \
		echo "== paper_repro.$$module"; \
		$(if $(SHARED_DATA),KAPPALAB_DATA=$${KAPPALAB_DATA:-$(SHARED_DATA)}) \
		$(BIN)/python -m paper_repro.$$module || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info docs/_build docs/api/generated docs/gallery \
		docs/sg_execution_times.rst
