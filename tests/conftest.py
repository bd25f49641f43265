"""Test-wide settings: offline, fixed seeds, caches in a temporary folder."""
import os
import shutil
import sys
import tempfile
from pathlib import Path

# Before anything imports datasets / huggingface_hub, which read these at import time.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
# A cache folder of this session's own, removed when it ends (xdist's workers inherit the variable,
# so only the process that made the folder removes it, after every worker is done).
_MADE_CACHE = None
if not os.environ.get("ARTIFACT_LENS_CACHE"):
    _MADE_CACHE = os.environ["ARTIFACT_LENS_CACHE"] = tempfile.mkdtemp(prefix="artifact-lens-test-cache-")
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path.home() / ".cache" / "artifact-lens" / "numba"))
# The checkout's root for the Python processes the tests start (a worker script, a killed writer),
# which import the tests' helpers beside the code; the code itself is artifact_lens (`pip install -e .`).
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(Path(__file__).resolve().parents[1])] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
_MAIN = sys.modules["__main__"]


def pytest_unconfigure(config):
    if _MADE_CACHE is not None and not hasattr(config, "workerinput"):
        shutil.rmtree(_MADE_CACHE, ignore_errors=True)


@pytest.fixture(autouse=True)
def _pytest_stays_main():
    """Streamlit's AppTest runs its script as ``__main__`` and leaves it there; a process started
    later with spawn (a Dask worker, a UMAP child) would run that script again (a script made
    from a function fails there). Each test ends with pytest's own ``__main__`` back."""
    yield
    sys.modules["__main__"] = _MAIN


def _shared(name):
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"../shared/data/{name} is not here (a fresh clone has no ../shared)")
    return path


@pytest.fixture
def snli_path():
    return _shared("snli_dev.jsonl")


@pytest.fixture(scope="session")
def snli_dev():
    """The SNLI dev file, for module- and session-scoped fixtures (``snli_path`` is per test)."""
    return _shared("snli_dev.jsonl")


@pytest.fixture
def mnli_path():
    return _shared("mnli_dev_matched.jsonl")


@pytest.fixture
def bbq_path():
    """BBQ's religion category (1,200 real multiple-choice items; see ../shared/data/README.md)."""
    return _shared("bbq_religion.jsonl")


@pytest.fixture(scope="session")
def toy_run():
    """(dataset, run): 300 examples in 3 classes, one informative column, a small AFLite run."""
    from artifact_lens.results.runs import fit_run
    from toy import toy_data

    ds, rep = toy_data()
    return ds, fit_run(ds, rep, dict(n_partitions=8, train_size=0.1, slice_size=0.05, tau=0.0, target_size=0.3))


# ---------------------------------------------------------------- the dashboard's services, without Streamlit
@pytest.fixture
def service_tab(tmp_path, monkeypatch):
    """`service_tabs.new_tab` on this test's own cache folder and team database (the Map by PCA: no child process)."""
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ARTIFACT_LENS_DB_URL", f"sqlite:///{tmp_path}/team.sqlite")
    monkeypatch.setenv("ARTIFACT_LENS_MAP", "pca")
    from service_tabs import new_tab

    tab = new_tab()
    yield tab
    tab.server.finish_stop()


# ---------------------------------------------------------------- a real PostgreSQL server
@pytest.fixture(scope="session")
def postgres_url():
    """A PostgreSQL server started for the tests (see tests/pg_server.py); skipped with a
    message where Debian's postgresql package is absent."""
    from pg_server import PostgresMissing, postgres_server

    try:
        with postgres_server() as url:
            yield url
    except PostgresMissing as exc:
        pytest.skip(str(exc))


# ---------------------------------------------------------------- how xdist shares out the tests
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`make test` runs ``--dist loadgroup``: a module's tests go to one worker (its module-scoped
    servers, clusters and fits are built once, not once per worker), and the modules marked
    ``xdist_group(name)`` share one worker (the UMAP tests: numba compiles once)."""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class ModulesAndGroups(LoadGroupScheduling):
        def _split_scope(self, nodeid):
            if nodeid.rfind("@") > nodeid.rfind("]"):     # marked: its group
                return nodeid.split("@")[-1]
            return nodeid.split("::", 1)[0]              # otherwise: its module

    return ModulesAndGroups(config, log)


# The tiers (docs/testing.md): a test under tests/e2e, tests/app or tests/durability carries that
# folder's marker, so `make test-fast` can leave out whole tiers by marker.
TIERS = ("e2e", "app", "durability")


def pytest_collection_modifyitems(config, items):
    # pytest-timeout's bound (pyproject: 600 s) ends a test that hangs; on a busy machine it scales with
    # the load (`scale.patience`), so a slow but progressing test is not killed (UMAP's first numba
    # compile at load 14 took longer than 600 s)
    from scale import patience

    bound = patience(float(config.getini("timeout") or 0)) if config.getini("timeout") else None
    for item in items:
        parts = Path(str(item.fspath)).resolve().relative_to(ROOT / "tests").parts
        if parts and parts[0] in TIERS:
            item.add_marker(parts[0])
        if bound and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(bound))
