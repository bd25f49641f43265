"""Filter: AFLite's knobs. τ and n are live (from the trajectory); k, m, t, family, strategy refit in the background."""
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import app_state as S
from core.aflite import FAMILIES, STRATEGIES
from core.runs import below_chance, label_summary, phase_frame

ss = st.session_state
st.title("Filter")
S.page_setup()
st.caption("AFLite (paper 000, Algorithm 1): m models per phase, each trained on t examples, score every held-out "
           "example; each phase removes the k most predictable examples with p̃ ≥ τ until fewer than k pass τ or "
           "|S| ≤ n.")
run = S.require_run()
ds = S.current_dataset()

# ---------------------------------------------------------------- live knobs (fragment: redraws only this part)
@st.fragment
def live():
    result = S.live_knobs(run)
    mask = result["retained"]
    past = below_chance(run, result)
    if past:
        st.info(f"At this τ and n the last phase (phase {past['phase']}) predicts held-out labels with accuracy "
                f"{past['accuracy']:.2f}, below chance ({past['chance']:.2f}): the remaining examples are adversarial "
                "to Φ, not just free of its shortcuts. A larger n or τ keeps more of the data.")
    labels = ds.table[ds.label].reindex(pd.Index(run.ids)).to_numpy()
    summary = label_summary(labels, mask)
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Retained", f"{int(mask.sum()):,}")
    m2.metric("Removed", f"{int((~mask).sum()):,}")
    m3.metric("Warm-up (excluded)", f"{len(run.excluded_ids):,}")
    phases = phase_frame(run, mask)
    ran = phases[phases["removed_at_chosen_tau_n"] > 0] if len(phases) else phases
    m4.metric("Phases at this τ, n", f"{len(ran)} of {run.n_phases}")
    left, right = st.columns([1, 1])
    with left:
        st.markdown("**Per label**")
        st.dataframe(summary.style.format({"removed_share": "{:.1%}", "share_before": "{:.1%}", "share_after": "{:.1%}"}),
                     key="label_summary")
    with right:
        body = summary.drop(index="all")
        fig = go.Figure([go.Bar(name="before", x=body.index.astype(str), y=body["share_before"]),
                         go.Bar(name="after", x=body.index.astype(str), y=body["share_after"])])
        fig.update_layout(title="Label balance before / after", yaxis_tickformat=".0%", height=300,
                          margin=dict(l=10, r=10, t=40, b=10), barmode="group")
        st.plotly_chart(fig, key="balance")
    if len(phases):
        fig = go.Figure()
        fig.add_scatter(x=phases["phase"], y=phases["R"], mode="lines+markers", name="R: mean p̃ on S (eq. 5)")
        fig.add_scatter(x=phases["phase"], y=phases["heldout_accuracy"], mode="lines", name="held-out accuracy")
        if len(ran):
            fig.add_vrect(x0=-0.5, x1=int(ran["phase"].max()) + 0.5, fillcolor="#2a6f97", opacity=0.08,
                          line_width=0, annotation_text="phases run at this τ, n")
        fig.update_layout(title="Representation bias per phase", xaxis_title="phase", yaxis_title="score",
                          height=300, margin=dict(l=10, r=10, t=40, b=10))
        st.plotly_chart(fig, key="bias")
        with st.expander("Phase history"):
            st.dataframe(phases, hide_index=True, key="phase_table")


live()

# ---------------------------------------------------------------- refit knobs (a form: one background run per submit)
st.subheader("Run parameters (k, m, t, family, strategy)")
p = dict(ss.params)
with st.form("aflite_form"):
    c1, c2, c3 = st.columns(3)
    m_opts = [2, 4, 8, 16, 32, 64, 128]
    m = c1.select_slider("m: partitions per phase", m_opts, value=p["n_partitions"] if p["n_partitions"] in m_opts else 16,
                         key="w_m")
    k = c2.slider("k: removed per phase (share of N)", 0.001, 0.1, float(p["slice_size"]), 0.001, format="%.3f",
                  key="w_k")
    t = c3.slider("t: training size per model (share of N)", 0.02, 0.5, float(p["train_size"]), 0.01, key="w_t")
    c4, c5, c6, c7 = st.columns(4)
    model = c4.selectbox("Model family", FAMILIES, index=FAMILIES.index(p["model"]) if p["model"] in FAMILIES else 0,
                         key="w_model")
    strategy = c5.selectbox("Strategy", STRATEGIES, index=STRATEGIES.index(p["strategy"]), key="w_strategy")
    n_fit = c6.slider("Deepest n for the fit (live n can only go above it)", 0.05, 0.9, float(p["target_size"]), 0.05,
                      key="w_nfit")
    seed = c7.number_input("Seed", 0, 2**31 - 1, int(p["random_state"]), key="w_seed")
    submitted = st.form_submit_button("Run AFLite", type="primary")
if submitted:
    params = dict(n_partitions=int(m), train_size=float(t), slice_size=float(k), tau=0.0, target_size=float(n_fit),
                  model=model, strategy=strategy, random_state=int(seed))
    S.start_pipeline(ss.ds_key, ss.spec, params, label="AFLite run")
    st.rerun()
job = S.current_job()
if job is not None and not job.done:
    st.info("A run with the new parameters is computing in the background (progress in the sidebar); "
            "runs are cached by their parameters, so returning to earlier settings is instant.")
else:
    st.caption(f"Finished runs in the store: {len(S.registry().store.keys())}.")
