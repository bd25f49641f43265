"""Filter: AFLite's knobs. τ and n are live (from the trajectory); k, m, t, family, strategy refit in the background."""
import streamlit as st

from core.aflite import FAMILIES, STRATEGIES
from core.aflite_plots import bias_per_phase, label_balance
from core.summaries import below_chance, label_summary, live_view, phase_frame, phases_run
from core.errors import InputError
from dashboard import current, pipelines
from dashboard.formatting import plain
from dashboard.knobs import live_knobs
from dashboard.formatting import metric_row
from dashboard.page import require_run, start_page
from dashboard.server import server
from dashboard.session import FIT_TAU
from dashboard.team import member

sess = start_page("Filter", caption=(
    "AFLite (paper 000, Algorithm 1): m models per phase, each trained on t examples, score every "
    "held-out example; each phase removes the k most predictable examples with p̃ ≥ τ until fewer than k "
    "pass τ or |S| ≤ n."))
run, ds = require_run()


# ---------------------------------------------------------------- live knobs (fragment: redraws only this part)
@st.fragment
def live():
    result = live_knobs(run)
    mask = result["retained"]
    past = below_chance(run, result)
    if past:
        st.info(f"At this τ and n the last phase (phase {past['phase']}) predicts held-out labels with accuracy "
                f"{past['accuracy']:.2f}, below chance ({past['chance']:.2f}): the remaining examples are adversarial "
                "to Φ, not just free of its shortcuts. A larger n or τ keeps more of the data.")
    labels = ds.table[ds.label].reindex(run.ids).to_numpy()
    summary = label_summary(labels, mask)
    phases = phase_frame(run, mask)
    n_run = phases_run(phases)
    metric_row({
        "Retained": f"{int(mask.sum()):,}",
        "Removed": f"{int((~mask).sum()):,}",
        "Warm-up (excluded)": f"{len(run.excluded_ids):,}",
        "Phases at this τ, n": f"{n_run} of {run.n_phases}",
    })
    left, right = st.columns([1, 1])
    with left:
        st.markdown("**Per label**")
        st.dataframe(summary.style.format({"removed_share": "{:.1%}", "share_before": "{:.1%}", "share_after": "{:.1%}"}),
                     key="label_summary")
    with right:
        st.plotly_chart(label_balance(summary, classes=ds.classes), key="balance")
    if len(phases):
        st.plotly_chart(bias_per_phase(phases, n_run), key="bias")
        with st.expander("Phase history"):
            st.dataframe(phases, hide_index=True, key="phase_table")


live()

# ---------------------------------------------------------------- saved views (τ, n, a name) of this run
def open_view(tau: float, n: int) -> None:
    # a callback runs before the sliders are drawn: they start from the view's values
    sess.tau, sess.target = tau, n
    for key in ("w_tau", "w_target"):
        st.session_state.pop(key, None)


with st.expander("Saved views of this run"):
    run_id = current.team_run_id(run)
    if run_id is None:
        st.caption("This run is not saved in the workspace yet; save it (Team page, or review an example) to "
                   "save views of it.")
    else:
        views = server().team.views(member().workspace_id, run_id, by=member().email)
        if len(views):
            pick = st.selectbox("Open a view", views["id"], key="view_pick", format_func=lambda i: (
                lambda v: f"{v['name']}: {live_view(v['tau'], v['target_size'], len(run.ids))} ({v['created_by']})")(
                views.set_index("id").loc[i]))
            chosen = views.set_index("id").loc[pick]
            st.button("Open this view", key="view_open", on_click=open_view,
                      args=(float(chosen["tau"]), int(chosen["target_size"])))
        if member().can("save views"):
            with st.form("view_form"):
                name = st.text_input("Name this view (the live τ and n)", key="view_name")
                if st.form_submit_button("Save view", key="view_save"):
                    tau, n = current.live_values(run)
                    try:
                        server().team.save_view(member().workspace_id, run_id, name, tau, n, by=member().email)
                        st.success(plain(f"Saved {name.strip()!r}: {live_view(tau, n, len(run.ids))}."))
                    except InputError as exc:
                        st.error(plain(exc))

# ---------------------------------------------------------------- refit knobs (a form: one background run per submit)
if not member().can("run filters"):
    st.caption(f"Your role here is {member().role}: τ and n are yours to move; new runs need a curator or owner.")
    st.stop()
st.subheader("Run parameters (k, m, t, family, strategy)")
p = dict(sess.params)
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
    submitted = st.form_submit_button("Run AFLite", type="primary", key="run_aflite")
if submitted:
    params = dict(n_partitions=int(m), train_size=float(t), slice_size=float(k), tau=FIT_TAU, target_size=float(n_fit),
                  model=model, strategy=strategy, random_state=int(seed))
    try:
        pipelines.start(sess.ds_key, sess.spec, params, label="AFLite run", page="Filter")
        st.rerun()
    except InputError as exc:
        st.error(plain(exc))
job = pipelines.current_job()
if job is not None and not job.done:
    st.info("A run with the new parameters is computing in the background (progress in the sidebar); "
            "runs are cached by their parameters, so returning to earlier settings is instant.")
else:
    st.caption(f"Finished runs in the store: {len(server().store.keys())}.")
