"""The job runner owns every background thread of the server: jobs, and housekeeping services."""
import threading

from core.base.jobs import JobRunner


def test_services_are_owned_by_the_runner_and_stop_with_it():
    """Housekeeping threads (the server's pruning and heartbeat) belong to the job runner: a
    service that waits on its stop event ends, and is waited for, when the runner shuts down."""
    runner = JobRunner(workers=1)
    beats, started = [], threading.Event()

    def beat(stop):
        started.set()
        while not stop.wait(0.01):
            beats.append(1)

    thread = runner.service("beat", beat)
    assert started.wait(30) and thread.is_alive() and thread.daemon
    assert runner.shutdown(timeout=30) == []
    assert not thread.is_alive()


def test_jobs_are_found_by_their_typed_key_never_by_parsing_it():
    """A `JobKey` names what a job computes (kind, what it is about, the digest of its inputs): its
    string is the runner's key as it always was, and the runner finds jobs by its parts."""
    from core.base.jobs import JobKey

    runner = JobRunner(workers=2)
    release = threading.Event()
    key = JobKey("eval", "d1g3st", about="run:with:colons")
    assert str(key) == "eval:run:with:colons:d1g3st" and str(JobKey("map", "x")) == "map:x"
    first = runner.submit(key, lambda ctx: release.wait(30))
    again = runner.submit(JobKey("eval", "d1g3st", about="run:with:colons"), lambda ctx: None)
    other = runner.submit(JobKey("eval", "other", about="run2"), lambda ctx: release.wait(30))
    plain = runner.submit("quality:abc", lambda ctx: release.wait(30))
    try:
        assert again is first and first.key == str(key) and first.spec == key and plain.spec is None
        assert runner.running(kind="eval", about="run:with:colons") == [first]
        assert {j.spec.digest for j in runner.running(kind="eval")} == {"d1g3st", "other"}
        assert set(runner.running()) == {first, other, plain}
    finally:
        release.set()
        runner.shutdown(timeout=30)
