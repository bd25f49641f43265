"""The feedback a creator or validator sees for one example (Create and Validate pages): each
check in plain words with its light, the words that give the label away marked in the text,
what partial-input and Φ models predict, near-duplicates and similar examples."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from artifact_lens.base.lights import EMOJI, LIGHTS, NA
from artifact_lens.quality import DQI_COMPONENTS
from artifact_lens.quality.scoring import IN_WORDS
from artifact_lens.dashboard.services import current
from artifact_lens.dashboard.services.creation import marked

BADGE = {k: EMOJI[k] for k in (*LIGHTS, NA)}


def show_feedback(tab, fb: dict, key: str) -> None:
    """A feedback snapshot (`core.quality.Feedback.to_dict()`), as text and lights, never HTML."""
    ds = current.dataset(tab)
    if not isinstance(fb, dict) or not isinstance(fb.get("light"), str):   # submitted by the API or the CLI
        st.caption("No feedback was recorded with this example (it was not written on the Create page).")
        return
    st.markdown(f"**Overall: {BADGE.get(fb['light'], '')} {fb['light']}**")
    for name, c in (fb.get("components") or {}).items():   # each check in plain words; the paper's name in the tooltip
        title, measures, change = IN_WORDS.get(name, (name, "", ""))
        score = "" if c["score"] is None else f" ({float(c['score']):.2f})"
        todo = f" → {change}" if c["light"] in ("yellow", "red") else ""
        st.text(f"{BADGE.get(c['light'], '')} {title}{score}: {measures}{todo}",
                help=f"{DQI_COMPONENTS.get(name, 'the combined DQI score')} (paper 002, DQI); score in [0, 1], "
                     "higher is better")
    for line in fb.get("suggestions") or ():
        st.text(f"→ {line}")
    tied = [t for t in fb.get("label_tied") or () if t.get("significant")]
    if tied:
        st.markdown("**Words that give a label away** (z > z*; the label they lean to)")
        for field in ds.text:
            text = (fb.get("example") or {}).get(field, "")
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
