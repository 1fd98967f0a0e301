PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test bench experiments repro clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# `make demo`: install kappalab and run its main job on a bundled dataset.
demo: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	$(BIN)/kappalab demo

# `make test`: install kappalab with its test oracles, then run the whole suite.
# irrCAC pins scipy==1.12 (numpy<2); installed without its pins it runs correctly here.
test: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	$(BIN)/python -m pip install --quiet --no-deps irrCAC
	$(BIN)/python -m pytest

bench: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	$(BIN)/python benchmarks/run_all.py

# simulation studies: each script writes a CSV and a PNG to results/experiments/
experiments: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[experiments]"
	cd experiments && for script in [!_]*.py; do \
		echo "== $$script"; ../$(BIN)/python $$script || exit 1; done

# the papers' figures and tables, reproduced on simulated stand-ins: results/paper_repro/
repro: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[experiments]"
	cd paper_repro && for script in [!_]*.py; do \
		echo "== $$script"; ../$(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
