"""`artifact-lens project`: precomputes the map into the cache the dashboard's Map page reads;
the kNN graph is reused when only display parameters change; bad input is named."""
import inspect
import json

import numpy as np
import pytest

from artifact_lens import cli
from artifact_lens.representations import projection as proj

# One worker runs every UMAP test (`make test`: --dist loadgroup, tests/conftest.py): numba
# compiles umap's kernels once per process (~20 s), not once per worker.
pytestmark = pytest.mark.xdist_group("umap")

DATA = "demo:nli:n=600"


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_and_api_defaults_are_the_maps_defaults():
    """The dashboard asks `project` for its defaults; the CLI's must be the same to land in that cache entry."""
    sub = cli.build_parser()._subparsers._group_actions[0].choices["project"]
    flags = {a.dest: a.default for a in sub._actions}
    signature = inspect.signature(proj.project).parameters
    for name, value in proj.DEFAULTS.items():
        assert signature[name].default == value, name
        cli_value = flags["seed" if name == "random_state" else name]
        assert (cli_value or None) == value if name in ("fit_size", "pca_dims") else cli_value == value, name


@pytest.mark.parametrize("flags, message", [
    (["--min-dist", "2"], "argument --min-dist: 2 is out of range; give a number in [0, 1]"),
    (["--min-dist", "0.5", "--spread", "0.2"], "at most spread"),
    (["--spread", "0"], "argument --spread: 0 is out of range; give a number in (0, 10]"),
    (["--n-neighbors", "1"], "argument --n-neighbors: 1 is out of range"),
    (["--metric", "cosinus"], "--metric 'cosinus' is not supported; use one of euclidean, cosine"),
    (["--fit-size", "-5"], "argument --fit-size: -5 is out of range"),
    (["--pca-dims", "1"], "argument --pca-dims: 1 is out of range"),
])
def test_bad_parameter_values_are_named_before_any_work(capsys, tmp_path, flags, message):
    code, out, err = run(capsys, "--cache-dir", str(tmp_path), "project", DATA, *flags)
    assert code == 2 and message in err and err.startswith("error: ")
    assert "loading" not in err   # refused before the dataset is loaded
    assert not (tmp_path / "projections").exists()


def test_unknown_dataset_and_bad_spec(capsys, tmp_path):
    code, _, err = run(capsys, "--cache-dir", str(tmp_path), "project", str(tmp_path / "missing.csv"))
    assert code == 2 and "error: " in err and "missing.csv" in err
    code, _, err = run(capsys, "--cache-dir", str(tmp_path), "project", DATA, "-r", "nonsense-kind")
    assert code == 2 and "error: " in err and "nonsense-kind" in err
    assert not (tmp_path / "projections").exists()


def test_pca_map_from_the_cli_is_read_back(capsys, tmp_path):
    code, out, err = run(capsys, "--cache-dir", str(tmp_path), "project", DATA, "--method", "pca", "--json")
    assert code == 0, err
    record = json.loads(out)
    from artifact_lens.representations import represent
    from artifact_lens.data.sources import load_dataset

    ds = load_dataset(DATA)
    rep = represent(ds, "tfidf-svd", cache_dir=tmp_path)
    assert record["key"] == proj.representation_key(ds, rep)
    hit = proj.project(rep.X, rep.ids, key=record["key"], method="pca", cache_dir=tmp_path, only_cached=True)
    assert hit is not None and hit.info["cache_hit"]


def _app_lookup(data, spec):
    """In the dashboard: make `data` with Φ = `spec` the session's, then ask for the UMAP map the way the
    Map page does (`dashboard.services.pipelines.projection`), without starting a job."""
    import json

    import streamlit as st

    from artifact_lens.dashboard.services import current, pipelines
    from artifact_lens.dashboard.state.browser import tab as this_tab
    from artifact_lens.dashboard.state.session import Source

    tab = this_tab()
    src = Source(source=data)
    key, ds = current.load(tab, src)
    sess = tab.session
    sess.ds_key, sess.source, sess.spec = key, src, current.check_spec(spec, ds)
    found = pipelines.projection(tab, "umap", start=False)
    st.text(json.dumps(None if found is None else {"hit": found.info["cache_hit"], "xy": found.xy[:5].tolist(),
                                                   "n": len(found.xy), "job": sess.jobs.get("proj")}))


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    """The dashboard's server on this test's cache folder (and a fresh one after it)."""
    from artifact_lens.dashboard.process.shared import server

    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path))
    monkeypatch.setenv("ARTIFACT_LENS_DB_URL", f"sqlite:///{tmp_path}/team.sqlite")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    server.clear()
    yield tmp_path
    server.clear()


@pytest.mark.slow
def test_the_app_reads_what_the_cli_wrote_and_display_changes_reuse_the_knn_graph(capsys, app_env, monkeypatch):
    from streamlit.testing.v1 import AppTest

    tmp_path = app_env
    # before: the running server finds no map (and would start a background job)
    at = AppTest.from_function(_app_lookup, args=(DATA, "tfidf-svd"), default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    assert json.loads(at.text[0].value) is None

    code, out, err = run(capsys, "project", DATA, "-r", "tfidf-svd")
    assert code == 0, err
    assert "PCA        128 → 50 dims, explained variance" in out and "fitted on 600 rows" in out
    assert "searched and cached" in out and "Map page opens this map" in out
    for stage in ("PCA 128 → 50 dimensions", "kNN graph: 15 neighbours of 600 rows", "UMAP layout of 600 rows"):
        assert stage in err   # stage lines with their times
    written = sorted((tmp_path / "projections").glob("umap-*.npz"))
    assert len(written) == 1
    with np.load(written[0]) as z:
        xy = z["xy"]

    # the same server, another look: it reads the CLI's map from the disk cache, computing nothing
    at = AppTest.from_function(_app_lookup, args=(DATA, "tfidf-svd"), default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    found = json.loads(at.text[0].value)
    assert found == {"hit": True, "xy": xy[:5].tolist(), "n": 600, "job": None}

    # a display change: the kNN graph comes from the cache, no neighbour search at all
    import umap.umap_ as umap_

    def no_search(*a, **k):
        raise AssertionError("the neighbour search ran although only display parameters changed")

    monkeypatch.setattr(umap_, "nearest_neighbors", no_search)
    code, out, err = run(capsys, "project", DATA, "-r", "tfidf-svd", "--min-dist", "0.5", "--spread", "1.5", "--json")
    assert code == 0, err
    record = json.loads(out)
    assert record["info"]["knn"]["cached"] and not record["info"]["cache_hit"]
    assert record["info"]["pca"] == {"from_dims": 128, "dims": 50, "fit_rows": 600,
                                     "explained_variance": record["info"]["pca"]["explained_variance"]}
    assert 0 < record["info"]["pca"]["explained_variance"] <= 1
    assert set(record["info"]["stages"]) == {"pca", "import", "knn", "layout"}
    # ... while a graph parameter needs a new search
    # (the CLI reports the raised assertion as its internal error, exit status 3)
    code, out, err = run(capsys, "project", DATA, "-r", "tfidf-svd", "--n-neighbors", "10")
    assert code == cli.INTERNAL_ERROR and "neighbour search ran" in err
