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
