"""The Review page's Agreement tab: the team's α with its interval, per-reviewer agreement, the κ
heat map of reviewer pairs, the filter as a rater per label and per artifact feature, and the τ/n
the team supports, offered as the live τ/n."""
from __future__ import annotations

import math

import streamlit as st

from artifact_lens.plots.agreement import kappa_heatmap, support_curve
from artifact_lens.dashboard.services import agreement as team_agreement
from artifact_lens.dashboard.widgets.formatting import metric_row, plain

__all__ = ["agreement_tab"]

PERCENT = st.column_config.NumberColumn(format="percent")
THREE = st.column_config.NumberColumn(format="%.3f")


def _number(value, fmt="{:.2f}") -> str:
    return "–" if value is None or (isinstance(value, float) and not math.isfinite(value)) else fmt.format(value)


def agreement_tab(tab, run, run_id: int) -> None:
    if team_agreement.hidden(tab):
        st.info("Review is blind in this workspace, so the team's agreement (which shows how others decided) is "
                "for curators and owners; your own progress is on the Progress tab.")
        return
    with st.spinner("Measuring the team's agreement…"):
        found = team_agreement.of_run(tab, run, run_id)
    a, best = found["agreement"], found["best"]
    low, high = a.alpha_interval
    # α's interval in a metric of its own, three to a row: beside α in one value, or five to a row, the
    # narrow columns cut its upper bound off
    metric_row({
        "Krippendorff's α": _number(a.alpha),
        "α, 95 % interval": "–" if not math.isfinite(low) else f"{low:.2f} to {high:.2f}",
        "Reviewed twice or more": f"{a.examples_multi:,} of {a.examples_reviewed:,}",
    })
    chance = team_agreement.chance_agreement(a.filter_overall)
    metric_row({
        "Team vs filter, κ": _number((a.filter_overall or {}).get("kappa")),
        "Team vs filter, agreement": _number((a.filter_overall or {}).get("agreement"), "{:.0%}"),
        "Agreement expected by chance": "–" if chance is None else f"{chance:.0%}",
    })
    st.caption(f"At τ = {found['tau']:.2f}, n = {found['n']:,}. α (nominal, on keep/remove: “agree” takes the "
               "filter's side) is 1 when reviewers always agree and about 0 at chance; the interval is a bootstrap 95 % over "
               "the examples reviewed twice or more. The team's word follows the dispute rule. κ is the agreement with "
               "the filter above what chance gives: where team and filter both keep nearly everything, chance agrees "
               "almost as often as they do, and κ is near 0 however high the agreement.")
    for note in a.notes:
        st.info(plain(note))
    if not a.reviewers:
        return
    st.dataframe(a.per_reviewer, hide_index=True, key="ag_reviewers", column_config={
        "agreement_with_others": PERCENT, "agreement_with_filter": PERCENT, "kappa_with_filter": THREE})
    if len(a.pairs):
        st.plotly_chart(kappa_heatmap(a.pairs, a.per_reviewer["reviewer"]), key="ag_kappa")
    st.subheader("The filter as a rater")
    st.caption("Where the team's word and the filter part: per label, and per n-gram of highest z (the artifacts). "
               "“overruled”: examples the team keeps that the filter removed, or the other way round.")
    cfg = {"agreement": PERCENT, "kappa": THREE, "overruled_share": PERCENT}
    if a.filter_by_label is not None and len(a.filter_by_label):
        st.dataframe(a.filter_by_label, hide_index=True, key="ag_by_label", column_config=cfg)
    if a.filter_by_feature is not None and len(a.filter_by_feature):
        st.dataframe(a.filter_by_feature, hide_index=True, key="ag_by_feature", column_config=cfg)
    if best is None:
        return
    st.subheader("The τ/n the team supports")
    st.plotly_chart(support_curve(found["grid"], best), key="ag_support")
    st.caption(f"Best: τ = {best['tau']:.2f}, n = {best['n']:,} (agreement {best['agreement']:.0%}, κ "
               f"{_number(best['kappa'])}); the same best in {best['stability']:.0%} of bootstrap resamples of the "
               f"reviewed examples, whose best n lies between {best['n_range'][0]:,} and {best['n_range'][1]:,}. "
               "Answered from the run's trajectory: no refit. " + team_agreement.few_reviews(best))
    st.button(f"Use τ = {best['tau']:.2f}, n = {best['n']:,}", key="ag_use", on_click=tab.session.set_live,
              args=(best["tau"], best["n"]))
