"""The Features page's "cues across splits" (issue 23): the current dataset as the training split,
another split from a folder this server may read as the evaluation split, `core.dynamics.transfer` as a
background job on the jobs' backend; its result kept in the server's bounded cache by the content of
both splits (an edited file is another key)."""
from __future__ import annotations

from typing import Optional

from artifact_lens.base.keys import ResultKey
from artifact_lens.dynamics.transfer import cue_transfer
from artifact_lens.dashboard.services import cached_jobs, current, data_inputs, team

__all__ = ["start", "result", "job", "ended", "source"]

#: cues measured, and models of the AFLite view (the CLI's --k and --m)
CUES, MODELS = 10, 8


def _key(tab) -> Optional[ResultKey]:
    """Named by what both splits hold (the evaluation split's content key), never by its path."""
    sess = tab.session
    if not sess.transfer_source and sess.ds_key:   # a new tab, a restart: the split last measured for this dataset
        last = cached_jobs.kept(tab, cached_jobs.TRANSFER_LAST, current.named(tab))
        if last is not None:
            sess.transfer_source = tuple(last)
    return current.named(tab, sess.transfer_source[1]) if sess.transfer_source else None


def source(tab) -> Optional[str]:
    """The path of the evaluation split the shown cues were measured on, or None."""
    return _key(tab) and tab.session.transfer_source[0]


def start(tab, path: str) -> None:
    """Measure the current dataset's cues on the split at ``path`` (curators and owners; a path
    outside ARTIFACT_LENS_DATA_DIRS is refused, as on the Data page)."""
    from artifact_lens.data.sources import load_dataset

    team.require(tab, "run filters")
    checked = data_inputs.check_local_path(path.strip())
    train = current.dataset(tab)
    evaluation = load_dataset(checked, text=list(train.text), label=train.label)   # refused here, not in the job
    # the path is what the page names; the key is what both splits hold (a copy keeps the time, an edit may too)
    tab.session.transfer_source = (checked, evaluation.content_key)
    if cached_jobs.result(tab, cached_jobs.TRANSFER, _key(tab)) is None:
        cached_jobs.start(tab, cached_jobs.TRANSFER, _key(tab), lambda ctx: ctx.offload(
            cue_transfer, train, evaluation, k=CUES, m=MODELS))
    cached_jobs.keep(tab, cached_jobs.TRANSFER_LAST, current.named(tab), tab.session.transfer_source)   # every tab and a restart show it


def result(tab):
    """The `core.dynamics.transfer.Transfer` of the session's last split, or None."""
    return cached_jobs.result(tab, cached_jobs.TRANSFER, _key(tab))


def job(tab):
    return cached_jobs.job(tab, cached_jobs.TRANSFER, _key(tab))


ended = cached_jobs.ended
