"""A whole AFLite fit with X's rows on a Dask cluster: what ``aflite --scheduler`` and a run's
``scheduler=`` (`core.results.runs.fit_run`) call. The rows' side is `core.aflite.distributed`."""
from __future__ import annotations

import numpy as np

from .distributed import connect, load_array
from .estimator import AFLite
from .storage import RANGE_ROWS

__all__ = ["fit_on_cluster"]


def fit_on_cluster(address: str, X, y, params: dict, **fit_kw):
    """``AFLite(**params).fit(X, y, **fit_kw)`` with X's rows on the cluster at ``address`` (what
    ``aflite --scheduler`` and a run's ``scheduler=`` do): a memory-mapped ``.npy`` is read by the
    workers from its path (they must see the file), any other X is sent to them from here."""
    import dask.array as da

    client = connect(address)
    try:
        path = getattr(X, "filename", None)
        whole_file = (isinstance(X, np.memmap) and path and str(path).endswith(".npy")
                      and np.load(path, mmap_mode="r").shape == X.shape)
        lazy = load_array(path) if whole_file else da.from_array(np.asarray(X), chunks=(RANGE_ROWS, X.shape[1]))
        with client.as_current():
            return AFLite(**params).fit(lazy, y, **fit_kw)
    finally:
        client.close()
