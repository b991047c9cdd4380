# The README's two commands. Each creates .venv on first use and installs quercus into it,
# so a machine with only python3 and make is enough.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test test-all lint docs clean clean-cache

demo: $(VENV)/.installed-base
	$(BIN)/quercus demo

# Every test but the reference programs' cross-validations, which test-all adds (minutes).
test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -m "not cross_validation"

test-all: $(VENV)/.installed-test
	$(BIN)/python -m pytest

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests bench

# The documentation site (docs/conf.py), warnings as errors; it runs the examples.
docs: $(VENV)/.installed-docs
	$(BIN)/python -m sphinx -b html -W --keep-going docs docs/_build/html

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || { $(PYTHON) -m pip install --user virtualenv && $(PYTHON) -m virtualenv $(VENV); }
	$(BIN)/python -m pip install --quiet --upgrade pip

# An editable install: the kernels compile at each kind of model's first fit (the demo says
# so), then stay in Numba's cache beside the sources. A wheel (pip install .) carries them.
$(VENV)/.installed-base: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed-base

$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@ $(VENV)/.installed-base

clean: clean-cache
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .hypothesis
	rm -rf docs/_build docs/auto_examples docs/generated

# Numba's compiled kernels (see quercus._config.njit: a kernel's cache does not notice an
# edit to the kernels it inlines from other files).
clean-cache:
	find src -name '*.nbi' -delete -o -name '*.nbc' -delete
