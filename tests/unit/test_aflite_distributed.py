"""AFLite on a real Dask cluster (a `LocalCluster` of 2 worker processes) equals the
local run bit for bit, reads .npy / Zarr / Parquet lazily, survives a killed worker
without a wrong result, and refuses bad input and unreachable schedulers clearly."""
import os
import signal
import socket

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
import dask.array as da  # noqa: E402

from artifact_lens.aflite import AFLite  # noqa: E402
from artifact_lens.aflite.distributed import ClusterError, connect, load_array  # noqa: E402
from artifact_lens.aflite.storage import RANGE_ROWS  # noqa: E402
from artifact_lens.base.errors import Cancelled, InputError  # noqa: E402

pytestmark = pytest.mark.dask

# Three ranges: the block Grams and the predictions are combined across workers.
N, D = 2 * RANGE_ROWS + 3000, 48
PARAMS = dict(n_partitions=8, train_size=0.1, slice_size=0.1, tau=0.0, target_size=0.5)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, N)
    X = rng.standard_normal((N, D)).astype(np.float32)
    X[:, :3] += 0.8 * np.eye(3, dtype=np.float32)[y] * (rng.random(N) < 0.5)[:, None]   # a learnable artifact
    X += 2.0                                                                           # off-centre: the mean matters
    return X, y


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=50) as cluster:
        with distributed.Client(cluster) as c:
            yield c


@pytest.fixture(scope="module")
def local_run(data):
    X, y = data
    return AFLite(**PARAMS).fit(X, y)


def _same(a, b):
    assert a.n_phases_ > 2
    assert np.array_equal(a.retained_, b.retained_)
    assert np.array_equal(a.phase_scores_, b.phase_scores_, equal_nan=True)


def test_no_client_or_an_unreachable_scheduler_is_a_clear_error(data):
    X, y = data
    with socket.socket() as s:          # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ClusterError, match=f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}"):
        connect(f"tcp://127.0.0.1:{port}", timeout=2)
    with pytest.raises(ValueError):      # this test runs before the module's cluster starts
        distributed.default_client()
    with pytest.raises(ClusterError, match="no Dask client is connected"):
        AFLite(**PARAMS).fit(da.from_array(X[:2000], chunks=(1000, D)), y[:2000])


def test_a_dask_run_equals_the_local_run(client, data, local_run, tmp_path):
    X, y = data
    np.save(tmp_path / "x.npy", X)
    lazy = load_array(tmp_path / "x.npy")
    assert isinstance(lazy, da.Array) and lazy.shape == X.shape
    run = AFLite(**PARAMS).fit(lazy, y)
    _same(local_run, run)
    ex = run.to_record()["execution"]
    assert ex["backend"] == "dask" and ex["workers"] == 2
    assert local_run.to_record()["execution"]["backend"] == "local"


def test_threads_give_the_local_result_too(data, local_run):
    X, y = data
    _same(local_run, AFLite(**PARAMS, n_jobs=2).fit(X, y))


def test_the_pca_step_runs_on_the_workers_with_the_same_result(client, data):
    X, y = data
    local = AFLite(**PARAMS, max_dim=16).fit(X, y)
    run = AFLite(**PARAMS, max_dim=16).fit(da.from_array(X, chunks=(5000, D)), y)   # any chunking is re-ranged
    _same(local, run)
    assert run.reduction_["d_out"] == 16


def test_zarr_and_parquet_vectors_are_read_lazily(client, data, local_run, tmp_path):
    X, y = data
    zarr = pytest.importorskip("zarr")
    z = zarr.open(str(tmp_path / "x.zarr"), mode="w", shape=X.shape, chunks=(10000, D), dtype="f4")
    z[:] = X
    _same(local_run, AFLite(**PARAMS).fit(load_array(tmp_path / "x.zarr"), y))

    frame = pd.DataFrame({"id": np.arange(N), "vec": list(X)})
    frame.to_parquet(tmp_path / "x.parquet", row_group_size=7000)
    lazy = load_array(tmp_path / "x.parquet")
    assert lazy.shape == X.shape and lazy.numblocks[0] == -(-N // 7000)
    _same(local_run, AFLite(**PARAMS).fit(lazy, y))


def test_a_killed_worker_never_gives_a_wrong_result(client, data, local_run, tmp_path):
    X, y = data
    np.save(tmp_path / "x.npy", X)
    killed = []

    def kill_one(rec):
        if rec["phase"] == 1 and not killed:
            pid = next(iter(client.run(os.getpid).values()))
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    try:
        run = AFLite(**PARAMS).fit(load_array(tmp_path / "x.npy"), y, on_phase=kill_one)
    except ClusterError as exc:       # Dask gave up: a clear message and no result
        assert "nothing was saved" in str(exc)
    else:                             # Dask redid the lost ranges: the very same result
        _same(local_run, run)
    assert killed
    client.wait_for_workers(2, timeout=60)


def test_cancel_stops_a_cluster_run(client, data):
    X, y = data

    class After:
        calls = 0

        def is_set(self):
            After.calls += 1
            return After.calls > 5

    with pytest.raises(Cancelled):
        AFLite(**PARAMS).fit(da.from_array(X, chunks=(RANGE_ROWS, D)), y, cancel=After())


def test_bad_input_on_the_cluster_is_refused_clearly(client, data, tmp_path):
    X, y = data
    bad = X.copy()
    bad[RANGE_ROWS + 5, 3] = np.nan
    with pytest.raises(InputError, match=r"NaN or infinite values in 1 row\(s\) \(first: row 16389\)"):
        AFLite(**PARAMS).fit(da.from_array(bad, chunks=(RANGE_ROWS, D)), y)
    with pytest.raises(InputError, match="only the ridge family"):
        AFLite(**PARAMS, model="logistic").fit(da.from_array(X, chunks=(RANGE_ROWS, D)), y)
    with pytest.raises(InputError, match="len\\(X\\)=.* but len\\(y\\)"):
        AFLite(**PARAMS).fit(da.from_array(X, chunks=(RANGE_ROWS, D)), y[:-1])
    np.save(tmp_path / "cube.npy", np.zeros((4, 3, 2), dtype=np.float32))
    with pytest.raises(InputError, match=r"shape \(4, 3, 2\): give an \(N, d\) matrix"):
        load_array(tmp_path / "cube.npy")
    with pytest.raises(InputError, match="does not exist"):
        load_array(tmp_path / "missing.npy")


def test_the_cli_runs_on_a_scheduler_with_the_local_result(client, data, tmp_path):
    from artifact_lens.cli import main

    X, y = data
    n = 6000
    pd.DataFrame({"id": [f"e{i}" for i in range(n)], "text": [f"example {i}" for i in range(n)],
                  "label": np.array(["a", "b", "c"])[y[:n]]}).to_csv(tmp_path / "d.csv", index=False)
    np.save(tmp_path / "x.npy", X[:n])
    argv = ["-q", "aflite", str(tmp_path / "d.csv"), "--label", "label", "--text", "text",
            "-r", f"file:path={tmp_path / 'x.npy'}", "--m", "8", "--k", "0.1", "--tau", "0"]
    assert main([*argv, "--out", str(tmp_path / "local.csv")]) == 0
    address = client.scheduler_info()["address"]
    assert main([*argv, "--scheduler", address, "--jobs", "1", "--out", str(tmp_path / "dask.csv")]) == 0
    local, remote = pd.read_csv(tmp_path / "local.csv"), pd.read_csv(tmp_path / "dask.csv")
    assert local["retained"].sum() == n // 2
    pd.testing.assert_frame_equal(local, remote)


def test_the_cli_names_an_unreachable_scheduler(tmp_path, capsys):
    from artifact_lens.cli import main

    pd.DataFrame({"id": ["a", "b", "c", "d", "e", "f"], "text": list("uvwxyz"), "label": list("ababab")}).to_csv(
        tmp_path / "d.csv", index=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = main(["aflite", str(tmp_path / "d.csv"), "--label", "label", "--text", "text", "-r", "tfidf-svd:dim=99",
                 "--m", "2", "--train-size", "1", "--k", "1", "--target-size", "4", "--tau", "0",
                 "--scheduler", f"tcp://127.0.0.1:{port}", "--out", str(tmp_path / "s.csv")])
    assert code == 2
    assert f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}" in capsys.readouterr().err
    assert not (tmp_path / "s.csv").exists()
