"""The one way to reach a Dask cluster (`dask.distributed`): a client for a scheduler's address,
or a clear `ClusterError` naming what to check.

A cluster serves two different needs, both through this connection: the job backend
(`core.base.job_backends.DaskBackend`, ``ARTIFACT_LENS_SCHEDULER``) runs a background job's heavy step
as one task on a worker, so the web process keeps its cores; AFLite's row-distributed fit
(`core.aflite.on_cluster.fit_on_cluster`, ``aflite --scheduler``) spreads one fit's rows over
every worker, for an X larger than one machine wants to hold."""
from __future__ import annotations

import socket
from urllib.parse import urlsplit

from .errors import InputError
from .settings import printable

__all__ = ["ClusterError", "connect"]


class ClusterError(InputError):
    """The Dask cluster could not be reached or failed the run (nothing was saved)."""


def connect(address: str | None = None, *, timeout: float = 10.0):
    """A `distributed.Client` for ``address`` (e.g. ``tcp://host:8786``), or the
    current client when None; a clear `ClusterError` when there is none."""
    try:
        from distributed import Client, default_client
    except ImportError:  # pragma: no cover - dask is a dependency
        raise ClusterError("dask.distributed is not installed: pip install 'dask[distributed]'.") from None
    if address is None:
        try:
            return default_client()
        except ValueError:
            raise ClusterError("X is a dask array but no Dask client is connected: start one with "
                               "distributed.Client(...) (or give --scheduler tcp://HOST:PORT), or pass X "
                               "as a numpy array or memory map to run in this process.") from None
    try:
        _refused_at_once(address, timeout)
        return Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {printable(address)} ({exc.__class__.__name__}: {exc}); "
                           "check the address and port (e.g. tcp://HOST:8786) and that `dask scheduler` "
                           "is running and reachable from here.") from None


def _refused_at_once(address: str, timeout: float) -> None:
    """Probe a tcp:// address before Dask does: a refusal is final (Dask would retry it until
    ``timeout``), and a server that accepts but says nothing within ``timeout`` is not a Dask
    scheduler (one writes its handshake at once; Dask would wait on it for minutes). Anything
    else is left to Dask."""
    try:
        parts = urlsplit(address)
        host, port = parts.hostname, parts.port
    except ValueError:
        return
    if parts.scheme != "tcp" or not host or port is None:
        return
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except ConnectionRefusedError:
        raise
    except OSError:
        return
    try:
        sock.settimeout(timeout)
        if not sock.recv(1):
            raise ConnectionError("the server closed the connection without a Dask handshake")
    except socket.timeout:
        raise TimeoutError(f"the server accepted the connection but sent no Dask handshake within {timeout:g} s")
    finally:
        sock.close()
