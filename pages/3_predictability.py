"""Predictability: distributions of AFLite's scores p̃ per label, retained vs removed, and phase by phase."""
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

import app_state as S
from core.runs import live_columns, phase_scores

st.title("Predictability")
S.page_setup()
st.caption("p̃(i): the share of the models that held example i out and predicted its label correctly "
           "(paper 000, eq. 4), from the last phase that scored it. The dashed line is τ.")
run = S.require_run()
ds = S.current_dataset()

LAYOUT = dict(height=340, margin=dict(l=10, r=10, t=40, b=10))


@st.fragment
def charts():
    live = S.live_knobs(run, n_too=True)
    tau = st.session_state.tau
    frame = live_columns(S.example_table(run), live)
    frame = frame[~frame["warmup"]]
    frame = frame.assign(status=frame["retained"].map({True: "retained", False: "removed"}))
    label = ds.label
    c1, c2 = st.columns(2)
    with c1:
        fig = px.histogram(frame, x="predictability", color=label, barmode="overlay", opacity=0.6, nbins=40,
                           title="p̃ per label", range_x=[0, 1])
        fig.add_vline(x=tau, line_dash="dash", annotation_text=f"τ = {tau:.2f}")
        fig.update_layout(**LAYOUT)
        st.plotly_chart(fig, key="hist_label")
    with c2:
        fig = px.histogram(frame, x="predictability", color="status", barmode="overlay", opacity=0.6, nbins=40,
                           title="p̃: retained vs removed", range_x=[0, 1],
                           color_discrete_map={"retained": "#2a6f97", "removed": "#e07a5f"})
        fig.add_vline(x=tau, line_dash="dash")
        fig.update_layout(**LAYOUT)
        st.plotly_chart(fig, key="hist_status")
    fig = go.Figure()
    for status, colour in (("retained", "#2a6f97"), ("removed", "#e07a5f")):
        part = frame[frame["status"] == status]
        fig.add_violin(x=part[label].astype(str), y=part["predictability"], name=status, line_color=colour,
                       side="negative" if status == "retained" else "positive", points=False, spanmode="hard")
    fig.add_hline(y=tau, line_dash="dash", annotation_text="τ")
    fig.update_layout(title="p̃ per label, retained (left) vs removed (right)", violinmode="overlay",
                      yaxis_range=[0, 1], **LAYOUT)
    st.plotly_chart(fig, key="violin")
    counts = frame.groupby([label, "status"]).size().unstack(fill_value=0)
    st.dataframe(counts, key="status_counts")


charts()

st.subheader("Scores phase by phase")
long = phase_scores(run, labels=ds.table[ds.label].reindex(run.ids).to_numpy(), max_phases=12)
fig = px.box(long, x="phase", y="score", color="label", points=False,
             title="p̃ of the examples still in S at each phase (sampled phases)")
fig.add_hline(y=st.session_state.tau, line_dash="dash", annotation_text="τ")
fig.update_layout(yaxis_range=[0, 1], **LAYOUT)
st.plotly_chart(fig, key="phases")
