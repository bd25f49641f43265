"""The Predictability page's V-usable information section: each example's PVI (bits of its label
the representation gives, cross-fitted), per label and against AFLite's p̃, and on the partial
inputs (`core.usecases.information`); a button starts the computation (curators and owners)."""
from __future__ import annotations

import streamlit as st

from artifact_lens.base.errors import InputError
from artifact_lens.plots.information import pvi_histogram, pvi_vs_predictability
from artifact_lens.dashboard.services import information, team
from artifact_lens.dashboard.widgets.formatting import metric_row, plain
from artifact_lens.dashboard.widgets.job_panel import watch
from artifact_lens.dashboard.widgets.reruns import redraw

__all__ = ["information_section", "choice_baselines_section"]



def _more_bits_in_part(full: dict, part: dict) -> str:
    """Why the partial input can carry more bits than Φ, said only as far as the specs show it."""
    extra = information.extra_fields(full.get("representation", ""), part.get("representation", ""))
    if extra:
        return (f" A partial input carries more bits than Φ: Φ also reads {', '.join(extra)}, which "
                "dilutes the partial input's cues, so a model on Φ learns less of them from the same data.")
    return (" A partial input carries more bits than Φ: a model on the partial input's representation learns "
            "its cues from the same data better than a model on Φ does (V-information is what a model family "
            "can use, not all the input holds).")

def _named(name: str) -> str:
    """A partial input as a person reads it: "the partial input", "the style only input"."""
    return "the partial input" if name == "partial" else f"the {name.replace('_', ' ')} input"


def _caption(full: dict, parts: dict) -> str:
    """What Φ and each partial input are, why a part can carry more bits, and what bits below 0 mean."""
    text = ("± is a 95 % interval (1.96 standard errors of the mean PVI). Φ is "
            f"{plain(full.get('representation', 'the run’s representation'))}")
    for name, part in parts.items():
        text += (f"; {_named(name)} is {plain(part.get('representation', ''))}")
    if parts:
        text += (", what a model reads when it sees only part of each example (for NLI, the hypothesis; for "
                 "preference pairs, the responses without the prompt, or their style alone)")
    text += "."
    richer = [part for part in parts.values() if part["v_information"] > full["v_information"]]
    if richer:
        text += _more_bits_in_part(full, richer[0])
    if min(s["v_information"] for s in (full, *parts.values())) < 0:
        text += (" Below 0 bits, a model does worse out of sample than guessing from the label shares: it "
                 "learned noise, so read it as no usable information.")
    return text


def _offer(tab, button: str, key: str, start, about: str, what: str) -> None:
    """The button that starts a computation (``start(tab)``) and what it computes, for curators and
    owners; for others, that nobody has computed ``what`` yet."""
    if not team.member(tab).can("run filters"):
        st.caption(f"Nobody has computed {what} yet; curators and owners can.")
        return
    c1, c2 = st.columns([1, 3])
    if c1.button(button, key=key):
        try:
            start(tab)
            redraw()
        except InputError as exc:
            st.error(plain(exc))
    c2.caption(about)


def _computed(tab, job_of, result_of, title: str, watch_key: str, offer: dict):
    """A shared job's result (``result_of(tab)``), watched while it runs; None before, with the offer
    to start it (`_offer`'s arguments) when it is not running."""
    watch(tab, job_of, title, watch_key, information.ended)
    found = result_of(tab)
    if found is None:
        job = job_of(tab)
        if job is None or job.done:
            _offer(tab, **offer)
    return found


def information_section(tab, frame, classes) -> None:
    """``frame``: the run's scored rows (``id``, ``predictability``); ``classes``: the dataset's labels."""
    found = _computed(tab, information.job, information.result, "V-usable information", "pvi_job", dict(
        button="Compute PVI", key="pvi_compute", start=information.start, what="the V-usable information of this dataset",
        about="Pointwise V-information (Ethayarajh et al. 2022): how many bits about its label each example's "
              "representation carries, cross-fitted over 5 folds; beside it the partial inputs alone (the hypothesis; "
              "for preference pairs the responses and their style), the artifact's bits. A background job, once per "
              "dataset and Φ."))
    if found is None:
        return
    full, parts = found["full"], information.partials(found)
    ci = lambda summary: f"{summary['v_information']:.3f} ± {1.96 * summary['stderr']:.3f} bits"   # noqa: E731
    metric_row({"V-information of Φ": ci(full.summary),
                **{f"V-information of {_named(name)}": ci(got.summary) for name, got in parts.items()}})
    for name, got in parts.items():
        metric_row({f"Accuracy on {_named(name)}": f"{got.summary['accuracy']:.3f}",
                    "Majority-class accuracy": f"{got.summary['majority']:.3f}"})
    st.caption(_caption(full.summary, {name: got.summary for name, got in parts.items()}))
    columns = st.columns(1 + len(parts))
    columns[0].plotly_chart(pvi_histogram(full.table, title="PVI on Φ, per label", classes=classes), key="pvi_hist")
    for column, (name, got) in zip(columns[1:], parts.items()):
        column.plotly_chart(pvi_histogram(got.table, title=f"PVI of {_named(name)}, per label", classes=classes),
                            key=f"pvi_hist_{name}")
    joined = frame[["id", "predictability"]].merge(full.table[["id", "label", "pvi"]], on="id")
    st.plotly_chart(pvi_vs_predictability(joined, classes=classes), key="pvi_scatter")
    st.dataframe(full.per_label(), hide_index=True, key="pvi_per_label")


#: what each baseline reads, as a person says it
BASELINE_NAMES = {"options_only": "Options only", "position_only": "Position only",
                  "stem_and_options": "Stem and options"}


def choice_baselines_section(tab) -> None:
    """Multiple-choice items: what a model gets right from the options alone, the position alone and
    the stem with the options, each against chance (a uniform guess among each item's options), as
    ``artifact-lens pvi`` and the certificate measure them."""
    found = _computed(tab, information.items_job, information.items_result, "Baselines of the items", "pvi_items_job",
                      dict(button="Compute the baselines", key="choice_baselines_compute", start=information.start_items,
                           what="the baselines of these items",
                           about="Conditional logits over each item's options, cross-fitted over 5 folds: one reads "
                                 "the options alone (never the stem), one the position alone, one the stem with the "
                                 "options. A background job, once per dataset."))
    if found is None:
        return
    for name, got in found.items():
        s = got["summary"]
        metric_row({f"{BASELINE_NAMES.get(name, name)}: accuracy": f"{s['accuracy']:.3f} ± {1.96 * s['accuracy_se']:.3f}",
                    "chance": f"{s['chance']:.3f}", "majority position": f"{s['majority']:.3f}",
                    "V-information": f"{s['v_information']:+.3f} ± {1.96 * s['stderr']:.3f} bits"})
    s = next(iter(found.values()))["summary"]
    st.caption(f"± is a 95 % interval. Chance is a uniform guess among each item's options; the majority position "
               f"always picks the position the gold most often sits at in the other folds. Each fold's model trained "
               f"on {s.get('trained_on', 0):,} items (at most {s.get('max_train') or 0:,}, as the certificate's). An "
               "options-only accuracy well above chance means the options give the gold away without the question.")
