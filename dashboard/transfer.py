"""The Features page's "cues across splits" (issue 23): the current dataset as the training split,
another split from a folder this server may read as the evaluation split, `core.transfer` as a
background job on the jobs' backend; its result kept in the server's bounded cache by both
splits (a changed file is another key)."""
from __future__ import annotations

import hashlib
import os
from typing import Optional

from core.transfer import cue_transfer
from dashboard import current, data_inputs, team
from dashboard.server import server
from dashboard.session import session

__all__ = ["start", "result", "job", "ended"]

#: cues measured, and models of the AFLite view (the CLI's --k and --m)
CUES, MODELS = 10, 8


def _key() -> Optional[tuple]:
    sess = session()
    return (sess.ds_key, sess.transfer_source) if sess.transfer_source else None


def _job_key(key) -> str:
    return "transfer:" + hashlib.sha256(repr(key).encode()).hexdigest()[:16]


def start(path: str) -> None:
    """Measure the current dataset's cues on the split at ``path`` (curators and owners; a path
    outside ARTIFACT_LENS_DATA_DIRS is refused, as on the Data page)."""
    from core.sources import load_dataset

    team.require("run filters")
    checked = data_inputs.check_local_path(path.strip())
    session().transfer_source = (checked, os.path.getmtime(checked))
    key = _key()
    cache = server().cache
    if cache.peek("transfer", key) is not None:
        return
    train = current.dataset()
    evaluation = load_dataset(checked, text=list(train.text), label=train.label)   # refused here, not in the job
    server().jobs.submit(_job_key(key), lambda ctx: cache.put("transfer", key, ctx.offload(
        cue_transfer, train, evaluation, k=CUES, m=MODELS)), name="Cues across splits")


def result():
    """The `core.transfer.Transfer` of the session's last split, or None."""
    key = _key()
    return None if key is None else server().cache.peek("transfer", key)


def job():
    key = _key()
    return None if key is None else server().jobs.get(_job_key(key))


def ended(found) -> None:
    server().jobs.forget(found.key)
