"""Where a background job's heavy step runs (`core.base.jobs.offload`): `LocalBackend` in the job's
own thread, `DaskBackend` as a task on a Dask cluster (``ARTIFACT_LENS_SCHEDULER``), with progress
back through a Dask queue and Cancel through a Dask event; `backend_for` picks one from the setting."""
from __future__ import annotations

import threading
import time
import uuid
from typing import Optional

from .errors import Cancelled

__all__ = ["LocalBackend", "DaskBackend", "backend_for"]

class LocalBackend:
    """Heavy steps run in the job's own thread (bounded by the runner's ``workers``)."""

    name = "local"

    def run(self, fn, args, kwargs, *, progress, cancel, relay=()):
        return fn(*args, progress=progress, cancel=cancel, **kwargs)   # relayed callbacks are called directly

    def close(self) -> None:
        pass


_POLL = 0.25        # seconds between looks at a Dask task (its progress, the cancel token)
_PROGRESS_EVERY = 0.2   # a worker sends at most this often (plus the last step), not every call


class _RemoteCancel:
    """A cancel token on a worker: a named Dask event, read at most every half second."""

    def __init__(self, name: str):
        from distributed import Event

        self._event, self._seen, self._at = Event(name), False, 0.0

    def is_set(self) -> bool:
        now = time.monotonic()
        if not self._seen and now - self._at > 0.5:
            self._at = now
            self._seen = bool(self._event.is_set())
        return self._seen


def _on_worker(fn, args, kwargs, tag: str, relay: tuple):
    """Run ``fn`` on a Dask worker with progress and relayed callbacks sent back through a
    named queue, and the cancel token read from a named event."""
    from distributed import Queue

    queue, cancel, last = Queue("al-progress-" + tag), _RemoteCancel("al-cancel-" + tag), [0.0]

    def progress(fraction, message=""):
        now = time.monotonic()
        if now - last[0] >= _PROGRESS_EVERY or fraction >= 1.0:
            last[0] = now
            queue.put(("progress", float(fraction), str(message)))
        if cancel.is_set():
            raise Cancelled("cancelled by the user")

    def sender(name):
        return lambda *a: queue.put((name, *a))

    return fn(*args, progress=progress, cancel=cancel, **kwargs, **{k: sender(k) for k in relay})


class DaskBackend:
    """Heavy steps run as tasks on a Dask cluster (its scheduler's ``address``).

    The client connects on first use (a clear `core.base.cluster.ClusterError` when the
    scheduler cannot be reached, shown by the job panel). Functions and arguments travel by
    pickle, so workers run this project's code (same version) and, for steps that read or
    write the cache folder, see the same ``ARTIFACT_LENS_CACHE`` (a shared volume).
    """

    name = "dask"

    def __init__(self, address: str, *, timeout: float = 10.0):
        self.address, self.timeout = address, float(timeout)   # seconds to reach the scheduler
        self._client = None
        self._lock = threading.Lock()

    def client(self):
        with self._lock:
            if self._client is None or self._client.status in ("closed", "closing"):
                from .cluster import connect

                self._client = connect(self.address, timeout=self.timeout)
            return self._client

    def run(self, fn, args, kwargs, *, progress, cancel, relay=()):
        from distributed import Event, Queue

        client = self.client()
        tag = uuid.uuid4().hex
        queue, stop = Queue("al-progress-" + tag, client=client), Event("al-cancel-" + tag, client=client)
        kwargs = dict(kwargs)
        local = {k: kwargs.pop(k) for k in relay if kwargs.get(k) is not None}   # called here, not shipped
        local["progress"] = progress
        future = client.submit(_on_worker, fn, args, kwargs, tag, tuple(local.keys() - {"progress"}), pure=False,
                               key=f"{getattr(fn, '__name__', 'work')}-{tag}")
        try:
            while True:
                try:
                    result = future.result(timeout=_POLL)   # a worker's exception is raised here, as there
                except TimeoutError:
                    self._replay(queue, local)
                    if cancel.is_set():
                        raise Cancelled("cancelled by the user") from None
                    continue
                self._replay(queue, local)
                return result
        except BaseException:
            stop.set()                     # a running task stops at its next progress call
            future.cancel()
            raise
        finally:
            future.release()
            try:
                queue.close()
            except Exception:  # noqa: BLE001  (already gone with the client)
                pass

    @staticmethod
    def _replay(queue, local: dict) -> None:
        try:
            items = queue.get(batch=True) if queue.qsize() else []
        except Exception:  # noqa: BLE001  (the queue is only progress: a hiccup skips one look)
            return
        for name, *values in items:
            target = local.get(name)
            if target is not None:
                target(*values)

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None


def backend_for(address: Optional[str]):
    """The job backend a setting names: a Dask scheduler's address, or None for this process."""
    return DaskBackend(address) if address else LocalBackend()
