# Two commands: `make demo` (set up, open the dashboard on the demo data) and `make test`.
PYTHON ?= python3
export HF_HUB_OFFLINE ?= 1
export NUMBA_CACHE_DIR ?= $(HOME)/.cache/artifact-lens/numba

.PHONY: install install-test demo test test-fast test-stress campaign bench screenshots

install:
	$(PYTHON) -m pip install -q -e ".[ui]"

# Label Studio's SDK, in its own environment: its validator checks the task files `check --label-studio`
# writes (tests/unit/test_label_studio.py), and it pins NumPy and OpenCV versions the tool does not share.
# The stamp is written once the install has succeeded, so an interrupted one is resumed.
LABEL_STUDIO_SDK = label-studio-sdk==2.1.2
LABEL_STUDIO_STAMP = .venv-label-studio/.installed-$(LABEL_STUDIO_SDK)

install-test: $(LABEL_STUDIO_STAMP)
	$(PYTHON) -m pip install -q -e ".[test]"

$(LABEL_STUDIO_STAMP):
	$(PYTHON) -m venv .venv-label-studio
	.venv-label-studio/bin/python -m pip install -q "$(LABEL_STUDIO_SDK)"
	touch "$@"

demo: install
	$(PYTHON) -m streamlit run app.py

# Two workers (pytest-xdist): the browser walks wait on servers and pages while the other worker computes.
# A module's tests share a worker, so its module fixtures are built once (tests/conftest.py).
test: install-test
	$(PYTHON) -m pytest -q -n auto --maxprocesses 4 --dist loadgroup

# Before every commit (docs/testing.md): the unit tier, without a browser, AppTests, PostgreSQL,
# a cluster, killed processes or slow tests.
FAST = not (e2e or app or postgres or auth or durability or dask or slow)
test-fast: install-test
	$(PYTHON) -m pytest -q -p no:cacheprovider -m "$(FAST)"

# The store (SQLite and PostgreSQL, races included), sign-in (a real browser and OIDC provider) and
# durability (killed writers) tests beside one CPU burner per core (CI runs it after `make test`).
# The load and kill tests run at full size here (tests/scale.py), lighter in `make test`.
STRESS_TESTS = tests/unit/test_store_scope.py tests/unit/test_team_store.py tests/unit/test_run_store_kill.py \
	tests/e2e/test_auth.py tests/durability
test-stress: install-test
	$(PYTHON) tests/stress.py -q -p no:cacheprovider $(STRESS_TESTS)

# A larger, randomized run of the generated CLI campaign (tests/unit/test_cli_campaign.py).
campaign: install-test
	ARTIFACT_LENS_CAMPAIGN_EXAMPLES=300 ARTIFACT_LENS_CAMPAIGN_RANDOM=1 $(PYTHON) -m pytest -q tests/unit/test_cli_campaign.py

# Refresh docs/screenshots/ (the user guide's) from the browser tours (tests write to test-artifacts/ otherwise).
screenshots: install-test
	ARTIFACT_LENS_SCREENSHOTS=docs $(PYTHON) -m pytest -q tests/e2e/test_dashboard.py

bench: install-test
	$(PYTHON) benchmarks/aflite_bench.py --quick
	$(PYTHON) benchmarks/zstats_bench.py --quick
