"""A `file:` Φ whose vector file is rewritten in place keeps its spec, hence its run key: the
dashboard must not serve the run saved for the old vectors as the result for the new ones. It
says what changed and how to score the new file; with the old file back, the saved run opens."""
import os


def _rewrite_between_runs(tab) -> dict:
    """The dashboard's own services, as the Data page calls them."""
    import numpy as np

    from artifact_lens.base.errors import InputError
    from artifact_lens.dashboard.services import current, pipelines
    from artifact_lens.dashboard.state.session import Source

    path = os.path.join(os.environ["ARTIFACT_LENS_DATA_DIRS"], "emb.npy")
    params = dict(n_partitions=4, train_size=0.2, slice_size=0.1, tau=0.0, target_size=0.5, random_state=0)
    source = Source("demo:nli:n=120", {}, "demo")
    key, ds = current.load(tab, source)
    rng = np.random.default_rng(0)
    np.save(path, rng.standard_normal((len(ds), 8)).astype(np.float32))
    spec = current.check_spec(f"file:path={path}", ds)
    first = pipelines.score(tab, None, key, ds, spec, params)
    again = pipelines.score(tab, None, key, ds, spec, params)          # the same file: the saved run
    before, kept = os.stat(path), open(path, "rb").read()
    np.save(path, rng.standard_normal((len(ds), 8)).astype(np.float32))   # same shape, new vectors
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 10**9))  # written a second later
    errors = []
    for attempt in (lambda: pipelines.score(tab, None, key, ds, spec, params),
                    lambda: pipelines.start(tab, key, spec, params, source=source)):
        try:
            attempt()
            errors.append(None)
        except InputError as exc:
            errors.append(str(exc))
    with open(path, "wb") as fh:                                   # the old file back
        fh.write(kept)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    back = pipelines.score(tab, None, key, ds, spec, params)
    return {"keys": [first["run_key"], again["run_key"], back["run_key"]], "errors": errors}


def test_a_rewritten_vector_file_is_not_answered_by_the_run_saved_for_the_old_one(service_tab, tmp_path, monkeypatch):
    folder = tmp_path / "vectors"
    folder.mkdir()
    monkeypatch.setenv("ARTIFACT_LENS_DATA_DIRS", str(folder))
    out = _rewrite_between_runs(service_tab)
    assert len(set(out["keys"])) == 1                              # one key: the spec names the path only
    for message in out["errors"]:
        assert message is not None and "emb.npy' changed" in message and "new file name" in message, message
    assert os.path.exists(folder / "emb.npy")
