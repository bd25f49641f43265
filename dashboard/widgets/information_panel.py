"""The Predictability page's V-usable information section: each example's PVI (bits of its label
the representation gives, cross-fitted), per label and against AFLite's p̃, and on the partial
input for a dataset of pairs; a button starts the computation (curators and owners)."""
from __future__ import annotations

import streamlit as st

from core.base.errors import InputError
from core.plots.information import pvi_histogram, pvi_vs_predictability
from dashboard.services import information, team
from dashboard.widgets.formatting import metric_row, plain
from dashboard.widgets.job_panel import watch
from dashboard.widgets.reruns import redraw

__all__ = ["information_section"]



def _more_bits_in_part(full: dict, part: dict) -> str:
    """Why the partial input can carry more bits than Φ, said only as far as the specs show it."""
    extra = information.extra_fields(full.get("representation", ""), part.get("representation", ""))
    if extra:
        return (f" The partial input carries more bits than Φ: Φ also reads {', '.join(extra)}, which "
                "dilutes the partial input's cues, so a model on Φ learns less of them from the same data.")
    return (" The partial input carries more bits than Φ: a model on the partial input's representation learns "
            "its cues from the same data better than a model on Φ does (V-information is what a model family "
            "can use, not all the input holds).")

def _offer(tab) -> None:
    if team.member(tab).can("run filters"):
        c1, c2 = st.columns([1, 3])
        if c1.button("Compute PVI", key="pvi_compute"):
            try:
                information.start(tab)
                redraw()
            except InputError as exc:
                st.error(plain(exc))
        c2.caption("Pointwise V-information (Ethayarajh et al. 2022): how many bits about its label each example's "
                   "representation carries, cross-fitted over 5 folds; for pairs also the partial input alone, the "
                   "artifact's bits. A background job, once per dataset and Φ.")
    else:
        st.caption("Nobody has computed the V-usable information of this dataset yet; curators and owners can.")


def information_section(tab, frame, classes) -> None:
    """``frame``: the run's scored rows (``id``, ``predictability``); ``classes``: the dataset's labels."""
    watch(tab, information.job, "V-usable information", "pvi_job", information.ended)
    found = information.result(tab)
    if found is None:
        job = information.job(tab)
        if job is None or job.done:
            _offer(tab)
        return
    full, partial = found["full"], found["partial"]
    ci = lambda summary: f"{summary['v_information']:.3f} ± {1.96 * summary['stderr']:.3f} bits"   # noqa: E731
    metric_row({"V-information of Φ": ci(full.summary),
                **({"V-information of the partial input": ci(partial.summary)} if partial else {})})
    if partial is not None:
        metric_row({"Partial-input accuracy": f"{partial.summary['accuracy']:.3f}",
                    "Majority-class accuracy": f"{partial.summary['majority']:.3f}"})
    st.caption("± is a 95 % interval (1.96 standard errors of the mean PVI). Φ is "
               f"{plain(full.summary.get('representation', 'the run’s representation'))}"
               + (f"; the partial input is {plain(partial.summary.get('representation', ''))}, what a model reads "
                  "when it sees only part of each example (for NLI, the hypothesis; for preference pairs, the responses "
                  "without the prompt, or their style alone)" if partial is not None else "")
               + "." + (_more_bits_in_part(full.summary, partial.summary)
                        if partial is not None and partial.summary["v_information"] > full.summary["v_information"]
                        else "")
               + (" Below 0 bits, a model does worse out of sample than guessing from the label shares: it "
                  "learned noise, so read it as no usable information." if min(
                      s["v_information"] for s in (full.summary, *([partial.summary] if partial else []))) < 0
                  else ""))
    c1, c2 = st.columns(2)
    c1.plotly_chart(pvi_histogram(full.table, title="PVI on Φ, per label", classes=classes), key="pvi_hist")
    if partial is not None:
        c2.plotly_chart(pvi_histogram(partial.table, title="PVI of the partial input, per label", classes=classes),
                        key="pvi_hist_partial")
    joined = frame[["id", "predictability"]].merge(full.table[["id", "label", "pvi"]], on="id")
    st.plotly_chart(pvi_vs_predictability(joined, classes=classes), key="pvi_scatter")
    st.dataframe(full.per_label(), hide_index=True, key="pvi_per_label")
