"""Creation with feedback (Create and Validate pages): the quality context of the current
dataset, the feedback shown to creators and validators, and the accepted dataset version.

The computations are `core.quality` (feedback for one example) and `core.team.store`
(submissions and validations, each checking the member's role).
"""
from __future__ import annotations

import re
from typing import Optional

import pandas as pd
import streamlit as st

from core.base import paths
from core.text.duplicates import DuplicateIndex
from core.base.errors import InputError
from core.quality import DQI_COMPONENTS, QualityContext
from core.quality.feedback import IN_WORDS
from core.base.lights import EMOJI, LIGHTS, NA
from core.base.keys import digest
from dashboard import cached_jobs, current
from dashboard.server import server
from dashboard.session import Source, session
from dashboard.team import require, scope

BADGE = {k: EMOJI[k] for k in (*LIGHTS, NA)}


def _context_key() -> tuple:
    sess = session()
    return sess.ds_key, sess.spec


def quality_context() -> Optional[QualityContext]:
    """The feedback context of the current dataset and Φ once it is fitted, else None. It is
    fitted once per server and shared by every creator (5 s for SNLI dev on a quiet machine, 20–30 s
    on a loaded one, about 10 s for 100k examples), in a background job that this call starts or
    joins: the page never waits on it, and a writer writes meanwhile (`context_job` is watched).
    Fitted models are kept in memory only: the result store holds no pickles."""
    key = _context_key()
    found = cached_jobs.result("quality-context", key)
    if found is None:
        ds, rep = current.dataset(), current.representation()
        cached_jobs.start("quality-context", "Feedback models", key, lambda ctx: ctx.offload(
            QualityContext.fit, ds, key[1], representation=rep), on_disk=False)
    return found


def context_job():
    """The job fitting the current feedback context (None once it ended and was seen)."""
    return cached_jobs.job("quality-context", _context_key())


context_ended = cached_jobs.ended


def workspace_dataset(run) -> Optional[int]:
    """The workspace's id of the current run's dataset (None when the run is not saved there)."""
    rec = scope().run_record(run.key)
    return rec["dataset_id"] if rec is not None else None


def show_feedback(fb: dict, key: str) -> None:
    """A feedback snapshot (`core.quality.Feedback.to_dict()`), as text and lights, never HTML."""
    ds = current.dataset()
    st.markdown(f"**Overall: {BADGE.get(fb['light'], '')} {fb['light']}**")
    for name, c in fb["components"].items():   # each check in plain words; the paper's name in the tooltip
        title, measures, change = IN_WORDS.get(name, (name, "", ""))
        score = "" if c["score"] is None else f" ({float(c['score']):.2f})"
        todo = f" → {change}" if c["light"] in ("yellow", "red") else ""
        st.text(f"{BADGE.get(c['light'], '')} {title}{score}: {measures}{todo}",
                help=f"{DQI_COMPONENTS.get(name, 'the combined DQI score')} (paper 002, DQI); score in [0, 1], "
                     "higher is better")
    for line in fb["suggestions"]:
        st.text(f"→ {line}")
    tied = [t for t in fb["label_tied"] if t.get("significant")]
    if tied:
        st.markdown("**Words that give a label away** (z > z*; the label they lean to)")
        for field in ds.text:
            text = fb["example"].get(field, "")
            marks = [(t["ngram"], f"{t['label']}, z = {t['z']:.1f}") for t in tied if t["field"] == field]
            st.text(f"{field}: {marked(text, marks)}")
    partial = fb.get("partial_input")
    if partial:
        st.text(f"A model that reads only the {partial['field']} predicts {partial['predicted']} "
                f"({partial['confidence']:.0%}); your label gets {partial['p_label']:.0%}.")
    rep = fb.get("representation") or {}
    if rep.get("predicted") is not None:
        st.text(f"A model on Φ predicts {rep['predicted']} ({rep['confidence']:.0%}); your label gets "
                f"{rep['p_label']:.0%}" + (" (Φ stand-in: " + rep["stand_in"] + ")" if rep.get("stand_in") else "") + ".")
    if fb.get("duplicates"):
        st.markdown("**Near-duplicates in the dataset** (every field shares most of its wording with this one)")
        st.dataframe(pd.DataFrame(fb["duplicates"]), hide_index=True, key=f"{key}_duplicates")
    if fb.get("neighbours"):
        st.markdown("**Most similar examples in Φ** (close in the representation; not the same as a duplicate)")
        st.dataframe(pd.DataFrame(fb["neighbours"]), hide_index=True, key=f"{key}_neighbours")


def marked(text: str, marks) -> str:
    """``text`` with each (n-gram, note) of ``marks`` marked as ⟦words: note⟧ on whole words.

    Words are matched as the z-statistics read them (`core.text.tokens.tokenize`: lower case,
    punctuation dropped), so "for" never marks inside "performs". Marks are placed in the order
    given (the feedback lists the most telling n-gram first, z descending) and never overlap an
    earlier one, so they do not nest."""
    from core.text.tokens import tokenize_many

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


#: the label's column in the table of earlier submissions (a name no text field has)
_LABEL = "\x00label"


def submit(dataset_id: int, fields: dict, label, feedback: dict, revises: Optional[int] = None) -> int:
    """Submit an example for validation; refused (InputError naming the earlier one) when it is a
    near-duplicate of a submission of this dataset (`core.text.duplicates`): the same text sent twice,
    or a one-character edit of it. The submission being revised does not count."""
    ws = scope()
    earlier = ws.submissions(dataset_id=dataset_id)
    if revises is not None:
        earlier = earlier[earlier["id"] != int(revises)]
    if len(earlier):
        table = pd.DataFrame([{f: (d or {}).get(f, "") for f in fields} for d in earlier["fields"]],
                             index=earlier["id"].astype(str)).assign(**{_LABEL: earlier["label"].astype(str).to_numpy()})
        near = DuplicateIndex(table, list(fields), label=_LABEL).near({**fields, _LABEL: str(label)}, k=1)
        if near:
            shared = ("the same words but one, and the same label" if near[0]["how"] == "one word" else
                      f"{near[0]['overlap']:.0%} of the wording shared in every field")
            raise InputError(f"this example is a near-duplicate of submission {near[0]['id']} ({shared}); change it, "
                             "or revise that one if it was rejected.")
    return ws.submit(dataset_id, fields, label, feedback, revises=revises)


def accepted_version(dataset_id: int) -> Source:
    """The dataset the examples were written for plus its accepted examples, as a new version:
    a Parquet file beside the team database, made the Data page's loaded dataset (score, filter
    and export it like any other). Ids stay stable (the original's, and ``sub-<n>`` for an
    accepted submission); an ``origin`` column says where each row came from, ``creator`` who
    wrote an accepted one."""
    m = require("load data")
    ds = current.dataset()
    accepted = scope().accepted_examples(dataset_id)
    if not len(accepted):
        raise InputError("no accepted examples yet; validators accept submissions on this page first.")
    keep = [c for c in (*ds.text, ds.label, *ds.features) if c in ds.table.columns]
    original = ds.table[keep].reset_index().assign(origin="original", creator=None)
    clash = set(original["id"].astype(str)) & set(accepted["id"])
    if clash:
        raise InputError(f"the dataset already has ids such as {sorted(clash)[0]!r}, which accepted examples use; "
                         "rename them in the dataset first.")
    added = accepted.rename(columns={"label": ds.label}).assign(origin="accepted")
    table = pd.concat([original, added[[c for c in added.columns if c in {*original.columns}]]], ignore_index=True)
    content = digest(pd.util.hash_pandas_object(table.astype(str), index=False).values.tobytes(), 12)
    path = server().team.files / f"ws{m.workspace_id}" / "data" / f"version-{dataset_id}-{content}.parquet"
    if not path.exists():
        paths.atomic_write(path, lambda fh: table.to_parquet(fh, index=False))
    base = session().source.label if session().source else ds.name
    name = f"{base} + {len(added)} accepted ({len(table):,} examples)"
    roles = {"text": list(ds.text), "label": ds.label, "id": "id"}
    if ds.features:
        roles["features"] = list(ds.features)
    source = Source(str(path), roles, name)
    from dashboard import data_inputs

    data_inputs.load_pending(source)
    return source
