"""The Evaluate page's artifact certificate section: the dataset's and the split's certificates at
the live τ/n, the gate's verdict on each measure (before, after, change, the rise its rule
allows) and both files to download, the same ``artifact-lens certify`` and ``check`` write."""
from __future__ import annotations

from functools import partial

import streamlit as st

from artifact_lens.base.errors import InputError
from artifact_lens.dashboard.services import certificates, team
from artifact_lens.base.words import counted
from artifact_lens.dashboard.widgets.formatting import plain
from artifact_lens.dashboard.widgets.job_panel import watch
from artifact_lens.dashboard.widgets.reruns import redraw

__all__ = ["certificate_section", "items_certificate_section", "CUE_HELP"]

#: what each column of the new-or-stronger cue table means (docs/certificate.md, "The rules")
CUE_HELP = {
    "support_before": "examples with the feature in the whole dataset (empty: fewer than 2, so it is new)",
    "share_before": "the share of those examples that have the label",
    "chance": "the label's share of the whole dataset: a feature that does not lean sits here",
    "support_after": "examples with the feature in the split",
    "share_after": "the share of the split's examples with the feature that have the label",
    "excess_before": "rows the feature gives away beyond chance, per example of the dataset (count − chance × "
                     "support, over all examples; a lean away from the label counts as 0)",
    "excess_after": "the same in the split: a cue's mass, which more data of the same kind leaves where it was",
    "test": "which comparison passed its line: share (its share against before and chance) or rows (its rows "
            "beyond chance against before)",
    "z": "how far past before and chance, in standard errors",
    "line": "the z a cue must pass: Bonferroni over both tests of every feature × label, so that an unchanged "
            "split flags none at the 5 % family rate",
}


def items_certificate_section(tab, run) -> None:
    """The Evaluate page of multiple-choice items: the certificate of the split against the items',
    and why the rest of the page is not shown; the page stops here."""
    certificate_section(tab, run)
    st.info("The evaluation's model families read the label as a class, so they do not apply to multiple-choice "
            "items; the certificate above and the Predictability page's baselines measure them.")
    st.stop()


def certificate_section(tab, run) -> None:
    st.subheader("Artifact certificate (the split against the whole dataset)")
    watch(tab, partial(certificates.job, run=run), "Artifact certificates", "cert_job", certificates.ended)
    found = certificates.result(tab, run)
    if found is None:
        job = certificates.job(tab, run)
        if job is not None and not job.done:
            return
        if team.member(tab).can("run filters"):
            if st.button("Certify the dataset and this split", key="cert_start"):
                try:
                    certificates.start(tab, run)
                    redraw()
                except InputError as exc:
                    st.error(plain(exc))
        st.caption("Each artifact measure with its uncertainty (`artifact-lens docs certificate`), for the whole dataset and the "
                   "split at this τ and n, compared the way a dataset's CI would (artifact-lens check).")
        return
    try:
        table = certificates.comparison(found)
    except InputError as exc:   # e.g. the split lost every example of a label
        st.warning(plain(exc))
        return
    said = certificates.verdict_of(table)
    broken, warned = said.failed, said.warned
    if broken:
        st.warning(plain("These artifact measures are worse in the split than in the whole dataset: "
                         + ", ".join(broken) + "."))
    else:
        st.success("Every gated artifact measure of the split is within its rule: none is worse than in the whole "
                   "dataset, and no cue is new or stronger.")
    if warned:
        st.info(plain("These rose beyond their line but only warn (their uncertainty is not measured well enough to "
                      "gate on): " + ", ".join(warned) + "."))
    cues = table.attrs.get("cues")
    if cues is not None and len(cues):
        st.caption("New or stronger cues in the split (the share of the feature's examples with the label):")
        st.dataframe(cues, hide_index=True, key="cert_cues",
                     column_config={c: st.column_config.Column(help=h) for c, h in CUE_HELP.items()})
        if team.member(tab).can("flag for review") and st.button(
                "Send the split's examples that carry these cues to the front of the review queue", key="cert_send"):
            try:
                sent = certificates.send_rows(tab, run, cues)   # the comparison drawn above
                st.success(plain(f"Sent {counted(sent['examples'], 'example')} ({sent['new']:,} new to the queue): the Review "
                                 "page serves them first, each with the cue it carries."))
            except InputError as exc:
                st.error(plain(exc))
    # the status says the verdict; ``ok`` is None for a row that warns only, which a box would show unticked
    shown = table.drop(columns="ok")
    shown.attrs = {}   # the cues are drawn above; a table's attrs do not travel to the browser
    st.dataframe(shown, hide_index=True, key="cert_table")
    columns = st.columns(2)
    for column, (name, blob) in zip(columns, certificates.files(found).items()):
        column.download_button(f"Download {name}", blob, file_name=name, mime="application/json", key=f"dl_{name}",
                               on_click="ignore")
