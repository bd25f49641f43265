# Two commands: `make demo` (set up, open the dashboard on the demo data) and `make test`.
PYTHON ?= python3
export HF_HUB_OFFLINE ?= 1
export NUMBA_CACHE_DIR ?= $(HOME)/.cache/artifact-lens/numba

.PHONY: install install-test demo test bench

install:
	$(PYTHON) -m pip install -q -e .

install-test:
	$(PYTHON) -m pip install -q -e ".[test]"

demo: install
	$(PYTHON) -m streamlit run app.py

test: install-test
	$(PYTHON) -m pytest -q

bench: install-test
	$(PYTHON) benchmarks/aflite_bench.py --quick
	$(PYTHON) benchmarks/zstats_bench.py --quick
