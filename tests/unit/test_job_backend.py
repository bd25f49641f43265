"""Heavy steps of background jobs on a real Dask cluster (a `LocalCluster` of 2 worker
processes) behave as in this process: the same result, progress on the job, Cancel stops the
task on its worker, a worker's error reaches the job with its message, relayed callbacks are
replayed here, and an unreachable scheduler is a clear error on the job."""
import os
import socket
import time

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")

from artifact_lens.base.errors import Cancelled, InputError  # noqa: E402
from artifact_lens.base.job_backends import DaskBackend, LocalBackend, backend_for  # noqa: E402
from artifact_lens.base.jobs import JobRunner  # noqa: E402
from artifact_lens.zstats import z_filter  # noqa: E402
from jobkeys import job_key

pytestmark = pytest.mark.dask


def wait_for(condition, timeout=60.0, what="condition"):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


# functions shipped to the workers (by reference: the workers import this module)
def where_am_i(steps, *, progress=None, cancel=None, on_step=None):
    for i in range(steps):
        progress((i + 1) / steps, f"step {i + 1}")
        if on_step is not None:
            on_step(i)
    return os.getpid()


def until_cancelled(*, progress=None, cancel=None):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        progress(0.5, "spinning")      # raises Cancelled once the job is cancelled
        time.sleep(0.02)
    return "never cancelled"


def refuses(*, progress=None, cancel=None):
    raise InputError("column 'premise' is missing; choose it on the Data page")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=50) as found:
        yield found


@pytest.fixture()
def runner(cluster):
    backend = DaskBackend(cluster.scheduler_address)
    yield JobRunner(workers=2, backend=backend)
    backend.close()


def test_a_step_runs_on_a_worker_with_progress_and_relayed_callbacks(runner):
    seen = []
    job = runner.submit(job_key("a"), lambda ctx: ctx.offload(where_am_i, 5, on_step=seen.append, relay=("on_step",)))
    job.wait(60)
    assert job.status == "done", job.traceback
    assert job.result != os.getpid()               # computed in a worker process
    assert job.fraction == 1.0 and job.message == "step 5"
    assert seen == [0, 1, 2, 3, 4]                 # the worker's callbacks, replayed here in order


def test_the_same_result_as_in_this_process(runner):
    rng = np.random.default_rng(3)
    labels = rng.choice(["entailment", "neutral", "contradiction"], 400)
    words = np.where(labels == "contradiction", "nobody", rng.choice(["a", "the", "some"], 400))
    frame = pd.DataFrame({"premise": [f"a person sits {i % 7}" for i in range(400)],
                          "hypothesis": [f"{w} person is {i % 5}" for i, w in enumerate(words)], "label": labels})
    here = JobRunner(backend=LocalBackend()).submit(job_key("z"), lambda ctx: ctx.offload(
        z_filter, frame, batch_size=50, k=5, min_count=5, random_state=0)).wait(60)
    there = runner.submit(job_key("z"), lambda ctx: ctx.offload(
        z_filter, frame, batch_size=50, k=5, min_count=5, random_state=0)).wait(60)
    assert here.status == there.status == "done", (here.traceback, there.traceback)
    assert len(here.result.rejected) > 0
    assert list(here.result.accepted_ids) == list(there.result.accepted_ids)
    assert list(here.result.rejected_ids) == list(there.result.rejected_ids)


def test_cancel_stops_the_task_on_its_worker(runner, cluster):
    job = runner.submit(job_key("c"), lambda ctx: ctx.offload(until_cancelled))
    wait_for(lambda: job.message == "spinning", what="the task to report progress")
    job.cancel()
    job.wait(60)
    assert job.status == "cancelled" and isinstance(job.error, Cancelled)
    with distributed.Client(cluster.scheduler_address, timeout=10) as client:
        # the worker saw the cancel event: nothing is left computing
        wait_for(lambda: not any(client.processing().values()), what="the worker to stop the task")


def test_a_workers_error_reaches_the_job_with_its_message(runner):
    job = runner.submit(job_key("e"), lambda ctx: ctx.offload(refuses)).wait(60)
    assert job.status == "error" and isinstance(job.error, InputError)
    assert "choose it on the Data page" in str(job.error)


def test_an_unreachable_scheduler_is_a_clear_error_on_the_job():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert isinstance(backend_for(f"tcp://127.0.0.1:{port}"), DaskBackend)
    backend = DaskBackend(f"tcp://127.0.0.1:{port}", timeout=2)
    job = JobRunner(backend=backend).submit(job_key("u"), lambda ctx: ctx.offload(where_am_i, 1)).wait(60)
    assert job.status == "error" and isinstance(job.error, InputError)
    assert f"127.0.0.1:{port}" in str(job.error) and "dask scheduler" in str(job.error)


def test_no_scheduler_computes_in_this_process():
    backend = backend_for(None)
    assert isinstance(backend, LocalBackend)
    seen = []
    job = JobRunner(backend=backend).submit(job_key("l"), lambda ctx: ctx.offload(where_am_i, 2, on_step=seen.append,
                                                                          relay=("on_step",))).wait(10)
    assert job.result == os.getpid() and seen == [0, 1]
