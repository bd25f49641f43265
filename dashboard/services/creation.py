"""Creation with feedback (Create and Validate pages): the quality context of the current
dataset, the feedback shown to creators and validators, and the accepted dataset version.

The computations are `core.quality` (feedback for one example) and `core.team.store`
(submissions and validations, each checking the member's role).
"""
from __future__ import annotations

import re
from typing import Optional


from artifact_lens.quality import QualityContext
from artifact_lens.usecases.feedback import example_feedback, feedback_context
from artifact_lens.dashboard.services import cached_jobs, current
from artifact_lens.dashboard.state.session import Source
from artifact_lens.dashboard.services.team import scope

def _context_key(tab):
    return current.named(tab, tab.session.spec)


def feedback_ready(tab) -> bool:
    """Whether the feedback of the current dataset and Φ can be given now (`quality_context`, whose
    fit this starts or joins)."""
    return quality_context(tab) is not None


def feedback(tab, example: dict) -> dict:
    """The feedback on ``example`` (`core.usecases.feedback.example_feedback`: what ``artifact-lens
    feedback`` prints); call it once `feedback_ready`. InputError naming what is wrong with it."""
    return example_feedback(quality_context(tab), example)


def quality_context(tab) -> Optional[QualityContext]:
    """The feedback context of the current dataset and Φ once it is fitted, else None. It is
    fitted once per server and shared by every creator (5 s for SNLI dev on a quiet machine, 20–30 s
    on a loaded one, about 10 s for 100k examples), in a background job that this call starts or
    joins: the page never waits on it, and a writer writes meanwhile (`context_job` is watched).
    Fitted models are kept in memory only: the result store holds no pickles."""
    key = _context_key(tab)
    found = cached_jobs.result(tab, cached_jobs.FEEDBACK_MODELS, key)
    if found is None:
        ds, rep = current.dataset(tab), current.representation(tab)
        cached_jobs.start(tab, cached_jobs.FEEDBACK_MODELS, key, lambda ctx: ctx.offload(feedback_context, ds, rep))
    return found


def context_job(tab):
    """The job fitting the current feedback context (None once it ended and was seen)."""
    return cached_jobs.job(tab, cached_jobs.FEEDBACK_MODELS, _context_key(tab))


context_ended = cached_jobs.ended


def workspace_dataset(tab, run) -> Optional[int]:
    """The workspace's id of the current run's dataset (None when the run is not saved there)."""
    rec = scope(tab).run_record(run.key)
    return rec["dataset_id"] if rec is not None else None


def marked(text: str, marks) -> str:
    """``text`` with each (n-gram, note) of ``marks`` marked as ⟦words: note⟧ on whole words.

    Words are matched as the z-statistics read them (`core.text.tokens.tokenize`: lower case,
    punctuation dropped), so "for" never marks inside "performs". Marks are placed in the order
    given (the feedback lists the most telling n-gram first, z descending) and never overlap an
    earlier one, so they do not nest."""
    from artifact_lens.text.tokens import tokenize_many

    spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    words = tokenize_many([text[a:b] for a, b in spans])   # one token list per whitespace-separated word
    taken, chosen = set(), []
    for ngram, note in marks:
        want = ngram.lower().split()
        for i in range(len(spans) - len(want) + 1):
            run = range(i, i + len(want))
            if [" ".join(words[j]) for j in run] == want and not taken & set(run):
                taken |= set(run)
                chosen.append((spans[i][0], spans[i + len(want) - 1][1], note))
                break
    out, at = [], 0
    for start, end, note in sorted(chosen):
        out += [text[at:start], f"⟦{text[start:end]}: {note}⟧"]
        at = end
    return "".join(out) + text[at:]


def submit(tab, dataset_id: int, fields: dict, label, feedback: dict, revises: Optional[int] = None) -> int:
    """Submit an example for validation: the store refuses a near-duplicate of a submission of this
    dataset (`core.team.store.submissions.near_copy_of`), naming the earlier one."""
    return scope(tab).submit(dataset_id, fields, label, feedback, revises=revises)


def validate(tab, submission_id: int, *, decision: str, note: str, flagged: list) -> str:
    """A validator's decision on the submission they were shown (the store refuses one decided
    meanwhile, and checks the role and the note); what to tell them."""
    scope(tab).validate(int(submission_id), decision, note, components={c: "flagged" for c in flagged})
    return f"Submission {int(submission_id)}: {decision}ed"


def without_cleared(value: str, cleared: str) -> str:
    """A field's text after a submission cleared it: what was typed while the clear was on its way to
    the browser lands after the old text ("old premise" + "new"), so the old text is taken off the
    front; text that does not start with it is the writer's own and is kept whole."""
    if cleared and value != cleared and value.startswith(cleared):
        return value[len(cleared):].lstrip()
    return value


def accepted_version(tab, dataset_id: int) -> Source:
    """The dataset the examples were written for plus its accepted examples, as a new version:
    a Parquet file beside the team database, made the Data page's loaded dataset (score, filter
    and export it like any other). Ids stay stable (the original's, and ``sub-<n>`` for an
    accepted submission); an ``origin`` column says where each row came from, ``creator`` who
    wrote an accepted one."""
    from artifact_lens.team.versions import with_accepted

    ds = current.dataset(tab)
    ws = scope(tab)
    table = with_accepted(ds, ws.accepted_examples(dataset_id))
    path = ws.save_version(dataset_id, table)   # the store checks the role and keeps the file
    added = table[table["origin"] == "accepted"]
    base = tab.session.source.label if tab.session.source else ds.name
    name = f"{base} + {len(added)} accepted ({len(table):,} examples)"
    roles = {"text": list(ds.text), "label": ds.label, "id": "id"}
    if ds.features:
        roles["features"] = list(ds.features)
    source = Source(str(path), roles, name)
    from artifact_lens.dashboard.services import data_inputs

    data_inputs.load_pending(tab, source)
    return source
