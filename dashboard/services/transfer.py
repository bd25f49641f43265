"""The Features page's "cues across splits" (issue 23): the current dataset as the training split,
another split from a folder this server may read as the evaluation split, `core.dynamics.transfer` as a
background job on the jobs' backend; its result kept in the server's bounded cache by both
splits (a changed file is another key)."""
from __future__ import annotations

import os
from typing import Optional

from core.dynamics.transfer import cue_transfer
from dashboard.services import cached_jobs, current, data_inputs, team
from dashboard.state.session import session

__all__ = ["start", "result", "job", "ended", "source"]

#: cues measured, and models of the AFLite view (the CLI's --k and --m)
CUES, MODELS = 10, 8


def _key() -> Optional[tuple]:
    sess = session()
    if not sess.transfer_source and sess.ds_key:   # a new tab, a restart: the split last measured for this dataset
        last = cached_jobs.kept(cached_jobs.TRANSFER_LAST, sess.ds_key)
        if last is not None:
            sess.transfer_source = tuple(last)
    return (sess.ds_key, sess.transfer_source) if sess.transfer_source else None


def source() -> Optional[str]:
    """The path of the evaluation split the shown cues were measured on, or None."""
    return _key() and session().transfer_source[0]


def start(path: str) -> None:
    """Measure the current dataset's cues on the split at ``path`` (curators and owners; a path
    outside ARTIFACT_LENS_DATA_DIRS is refused, as on the Data page)."""
    from core.data.sources import load_dataset

    team.require("run filters")
    checked = data_inputs.check_local_path(path.strip())
    session().transfer_source = (checked, os.path.getmtime(checked))
    if cached_jobs.result(cached_jobs.TRANSFER, _key()) is not None:
        cached_jobs.keep(cached_jobs.TRANSFER_LAST, session().ds_key, session().transfer_source)
        return   # measured already: no need to read the other split again
    train = current.dataset()
    evaluation = load_dataset(checked, text=list(train.text), label=train.label)   # refused here, not in the job
    cached_jobs.start(cached_jobs.TRANSFER, _key(), lambda ctx: ctx.offload(
        cue_transfer, train, evaluation, k=CUES, m=MODELS))
    cached_jobs.keep(cached_jobs.TRANSFER_LAST, session().ds_key, session().transfer_source)   # every tab and a restart show it


def result():
    """The `core.dynamics.transfer.Transfer` of the session's last split, or None."""
    return cached_jobs.result(cached_jobs.TRANSFER, _key())


def job():
    return cached_jobs.job(cached_jobs.TRANSFER, _key())


ended = cached_jobs.ended
