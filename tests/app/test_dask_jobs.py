"""The dashboard with ARTIFACT_LENS_SCHEDULER set: a new AFLite run from the Filter page (Φ and the
fit; Φ is the demo's, cached) and the Evaluate page's evaluation run as tasks on a real two-worker Dask `LocalCluster`, and the
pages show the results as they do when the app computes them itself."""
import pytest

distributed = pytest.importorskip("distributed")

from dask.utils import key_split  # noqa: E402

from apptest_helpers import app, metrics, no_exceptions, page, wait_for_jobs  # noqa: E402

pytestmark = [pytest.mark.dask, pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=50) as found:
        yield found


def test_a_run_and_an_evaluation_are_computed_on_the_cluster(fresh_server, cluster, monkeypatch):
    from artifact_lens.dashboard.process.shared import server

    monkeypatch.setenv("ARTIFACT_LENS_SCHEDULER", cluster.scheduler_address)
    at = app().run()
    wait_for_jobs(at)
    assert server().jobs.backend.name == "dask"
    at.switch_page(page("2_filter")).run()
    at.select_slider(key="w_m").set_value(8)
    at.button(key="run_aflite").click().run()
    wait_for_jobs(at)
    assert "m=8 " in " ".join(t.value for t in at.sidebar.text)   # the cluster's run is the shown one
    at.switch_page(page("10_evaluate")).run()
    at.multiselect(key="eval_families").set_value(["logistic"])
    at.text_input(key="eval_ks").input("1,5")
    at.slider(key="eval_step").set_value(0.25)
    at.button(key="eval_run").click().run()
    wait_for_jobs(at)
    no_exceptions(at)
    assert "Coarse action stops at" in metrics(at)
    computed = {key_split(t[0]) for t in cluster.scheduler.transition_log if t[2] == "memory"}
    # the evaluation is its use case, evaluate_split, sent whole (Φ of the demo was already cached)
    assert {"fit_run", "evaluate_split"} <= computed, computed
