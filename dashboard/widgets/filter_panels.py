"""The Filter page's panels below the live knobs: saved views of the run, plain vs
quality-ordered AFLite, and the form that starts a new run in the background."""
import streamlit as st

from artifact_lens.aflite import FAMILIES, STRATEGIES
from artifact_lens.aflite.knobs import KNOBS
from artifact_lens.dynamics.cartography import MODELS
from artifact_lens.base.errors import InputError
from artifact_lens.base.bounds import EPOCHS as EPOCH_BOUND, SEED
from artifact_lens.dynamics.joint import EPOCHS
from artifact_lens.quality import COMPONENTS
from artifact_lens.aflite.summaries import live_view
from artifact_lens.dashboard.services import agreement, current, run_view, dynamics, pipelines, team
from artifact_lens.dashboard.services import quality as dq
from artifact_lens.dashboard.widgets.formatting import plain
from artifact_lens.dashboard.widgets.job_panel import watch
from artifact_lens.dashboard.widgets.reruns import redraw
from artifact_lens.dashboard.state.session import FIT_TAU
from artifact_lens.dashboard.services.team import member, view

__all__ = ["saved_views", "comparison", "run_form", "team_supported", "joint_note"]


def saved_views(tab, run) -> None:
    """Saved views (a name, τ and n) of the run: save the live τ/n, open one (the sliders move there)."""
    with st.expander("Saved views of this run"):
        run_id = run_view.team_run_id(tab, run)
        if run_id is None:
            st.caption("This run is not saved in the workspace yet; save it (Team page, or review an example) to "
                       "save views of it.")
        else:
            if member(tab).can("save views"):   # first: a view saved by this run is listed below at once
                with st.form("view_form"):
                    name = st.text_input("Name this view (the live τ and n)", key="view_name")
                    if st.form_submit_button("Save view", key="view_save"):
                        tau, n = run_view.live_values(tab, run)
                        try:
                            team.save_view(tab, run_id, name, tau, n)
                            st.success(plain(f"Saved {name.strip()!r}: {live_view(tau, n, len(run.ids))}."))
                        except InputError as exc:
                            st.error(plain(exc))
            views = view(tab).views(run_id)
            if len(views):
                pick = st.selectbox("Open a view", views["id"], key="view_pick", format_func=lambda i: (
                    lambda v: f"{v['name']}: {live_view(v['tau'], v['target_size'], len(run.ids))} ({v['created_by']})")(
                    views.set_index("id").loc[i]))
                chosen = views.set_index("id").loc[pick]
                st.button("Open this view", key="view_open", on_click=tab.session.set_live,   # before the sliders are drawn
                          args=(float(chosen["tau"]), int(chosen["target_size"])))


def comparison(tab, run, ds, sess) -> None:
    """Plain vs quality-ordered AFLite at the live τ/n (paper 002): start, watch, show."""
    st.subheader("Plain AFLite vs quality-ordered (paper 002)")
    tau, n = run_view.live_values(tab, run)
    names = ["dqi", *COMPONENTS]
    c1, c2 = st.columns([1, 3])
    name = c1.selectbox("Quality", names, index=names.index(run.quality.get("name", "dqi")) if run.quality else 0,
                        key="cmp_quality")
    params = {k: v for k, v in run.params.items() if k in sess.params}
    params.update(tau=float(tau), target_size=int(n))
    # the live τ and n, not their numbers: the sliders move without redrawing this caption
    c2.caption(f"Both runs with this run's m, t, k, family and seed at the live τ and n (the sliders above): plain AFLite "
               f"removes the most predictable among p̃ ≥ τ, quality-ordered the lowest {name} among them first; the "
               "full set and a random subset of AFLite's size for reference. Largest n-gram z, partial-input "
               "accuracy (cross-validated), label shares and balance (smallest / largest share).")
    if params.get("strategy") == "slice-sample":
        st.caption("Quality order needs greedy slicing; this run samples slices (choose greedy-slice below).")
        return
    try:
        key = dq.compare_key(ds, current.representation(tab), params, dq.descriptor(tab, name))
    except InputError as exc:
        st.error(plain(exc))
        return
    found = dq.compare_result(tab, key)
    running = dq.compare_job(tab)
    if found is None and member(tab).can("run filters") and (running is None or running.done):
        if st.button("Compare (background)", key="cmp_run"):
            try:
                dq.compare_start(tab, params, name)
                redraw()
            except InputError as exc:
                st.error(plain(exc))
    elif found is None and not member(tab).can("run filters"):
        st.caption("No comparison at these settings yet; a curator or owner can compute one.")

    watch(tab, dq.compare_job, "Comparison", "cmp", dq.compare_ended)
    if found is not None:
        shares = [c for c in found.columns if c.startswith("share ")]
        st.dataframe(found, hide_index=True, key="cmp_table", column_config={
            "z_max": st.column_config.NumberColumn("largest z", format="%.1f"),
            "z_max_feature": st.column_config.TextColumn("its feature"),
            "partial_accuracy": st.column_config.NumberColumn("partial-input accuracy", format="%.3f"),
            "majority": st.column_config.NumberColumn("majority share", format="%.3f"),
            "balance": st.column_config.NumberColumn("balance", format="%.3f"),
            **{c: st.column_config.NumberColumn(c, format="%.3f") for c in shares}})
        reasons = found.attrs.get("stop_reasons") or {}
        st.caption("Stop reasons: " + "; ".join(f"{k}: {dq.STOP_WORDS.get(v, v)}" for k, v in reasons.items())
                   + (f". Partial input: {found.attrs.get('partial_spec')}." if found.attrs.get("partial_spec") else ""))
        for note in dq.stop_notes(found):
            st.warning(plain(note))


def _offered(param: str, params: dict) -> tuple:
    """(lo, hi, value, step) of a knob's slider (`core.aflite.knobs.KNOBS`), the value kept inside."""
    lo, hi, step = KNOBS[param].offered
    return lo, hi, min(max(float(params[param]), lo), hi), step


def run_form(tab, run, sess) -> None:
    """The refit knobs (k, m, t, family, strategy, order): one background run per submit."""
    st.subheader("Run parameters (k, m, t, family, strategy)")
    p = dict(sess.params)
    with st.form("aflite_form"):
        c1, c2, c3 = st.columns(3)
        lo, hi, _ = KNOBS["n_partitions"].offered   # powers of two within the knob's offered range
        m_opts = [2 ** i for i in range(hi.bit_length()) if lo <= 2 ** i <= hi]
        fallback = min(m_opts, key=lambda v: abs(v - KNOBS["n_partitions"].default))   # the knob's default, or nearest
        m = c1.select_slider("m: partitions per phase", m_opts, value=p["n_partitions"] if p["n_partitions"] in m_opts
                             else fallback, key="w_m")
        k = c2.slider("k: removed per phase (share of N)", *_offered("slice_size", p), format="%.3f", key="w_k")
        t = c3.slider("t: training size per model (share of N)", *_offered("train_size", p), key="w_t")
        c4, c5, c6, c7 = st.columns(4)
        model = c4.selectbox("Model family", FAMILIES, index=FAMILIES.index(p["model"]) if p["model"] in FAMILIES else 0,
                             key="w_model")
        strategy = c5.selectbox("Strategy", STRATEGIES, index=STRATEGIES.index(p["strategy"]), key="w_strategy")
        n_fit = c6.slider("Deepest n for the fit (live n can only go above it)", *_offered("target_size", p),
                          key="w_nfit")
        seed = c7.number_input("Seed", *SEED.range, int(p["random_state"]), key="w_seed")
        orders = list(dq.ORDERS)
        now = ("dqi" if run.quality.get("name") == "dqi" else "component") if run.quality else "predictability"
        c8, c9, c10 = st.columns([2, 1, 1])
        order = c8.radio("Removal order among the shortlisted (p̃ ≥ τ)", orders, index=orders.index(now),
                         format_func=dq.ORDERS.get, horizontal=True, key="w_order",
                         help="Paper 002 Algorithm 1: AFLite shortlists the predictable examples, then the lowest-quality "
                              "ones among them are removed first (the weights and the context: “Quality (DQI)” above).")
        component = c9.selectbox("Component (by one component)", COMPONENTS,
                                 index=COMPONENTS.index(run.quality["name"]) if run.quality.get("name") in COMPONENTS
                                 else COMPONENTS.index("label_tied"), key="w_component")
        lo, hi, step = KNOBS["tau"].offered
        tau_q = c10.slider("τ of a quality-ordered run", lo, hi, float(run.trajectory.tau if run.quality else
                                                                       run_view.live_values(tab, run)[0]), step,
                           key="w_tau_q", help="The quality order among p̃ ≥ τ depends on τ, so a quality-ordered run "
                                               "is fitted at this τ (plain runs fit at τ = 0 and move τ live).")
        c11, c12, c13 = st.columns([2, 1, 1])
        joint_on = c11.checkbox("Joint filter: remove only easy-to-learn examples", value=bool(run.joint), key="w_joint",
                                help="Training dynamics on Φ first (Dynamics page): AFLite then removes only examples that "
                                     "are easy-to-learn and not flagged by cleanlab, protects the ambiguous ones, and keeps "
                                     "the hard-to-learn or flagged ones as possibly mislabelled, served first for review. "
                                     "τ and n stay live.")
        joint_model = c12.selectbox("Cartography model", MODELS, index=MODELS.index(run.joint.get("model", "linear")),
                                    key="w_joint_model")
        joint_epochs = c13.number_input("Cartography epochs", *EPOCH_BOUND.range, int(run.joint.get("epochs", EPOCHS)),
                                        key="w_joint_epochs")
        submitted = st.form_submit_button("Run AFLite", type="primary", key="run_aflite")
    if submitted:
        params = dict(n_partitions=int(m), train_size=float(t), slice_size=float(k), tau=FIT_TAU, target_size=float(n_fit),
                      model=model, strategy=strategy, random_state=int(seed))
        try:
            quality = None
            if order != "predictability":
                if strategy == "slice-sample":
                    raise InputError("A quality order fixes which shortlisted examples go first; it needs the "
                                     "greedy-slice strategy, not slice-sample.")
                quality = dq.descriptor(tab, "dqi" if order == "dqi" else component)
                params["tau"] = float(tau_q)
            joint = dynamics.joint_choice(joint_model, joint_epochs, seed) if joint_on else None
            label = "AFLite run" + (f", quality-ordered ({quality['name']})" if quality else "") + (
                ", joint filter" if joint else "")
            pipelines.start(tab, sess.ds_key, sess.spec, params, label=label, page="Filter", quality=quality, joint=joint)
            redraw()
        except InputError as exc:
            st.error(plain(exc))
    job = pipelines.current_job(tab)
    if job is not None and not job.done:
        st.info("A run with the new parameters is computing in the background (progress in the sidebar); "
                "runs are cached by their parameters, so returning to earlier settings is instant.")
    else:
        st.caption(f"Finished runs in the store: {run_view.stored_run_count(tab)}.")


def joint_note(run) -> None:
    """What the joint filter protected and sent to review, for a joint run."""
    if not run.joint:
        return
    f = run.joint.get("found", {})
    # three groups that do not overlap (an ambiguous example cleanlab flags is counted once, as possibly
    # mislabelled), so they add up to the examples the cartography saw
    mislabelled = len(run.review_first)
    protected_only = max(int(f.get("protected", 0)) - mislabelled, 0)
    st.info(plain(
        f"Joint filter ({run.joint['model']} model, {run.joint['epochs']} epochs on Φ): of {f.get('examples', 0):,} "
        f"examples, only the {f.get('removable', 0):,} easy-to-learn ones cleanlab does not flag could be removed; "
        f"{protected_only:,} ambiguous ones are protected and {mislabelled:,} possibly mislabelled ones (hard-to-learn "
        "or flagged) are kept and served first on the Review page."))
    for note in f.get("notes", []):
        st.caption(plain(note))


def team_supported(tab, run) -> None:
    """The τ/n the team's reviews support (the Review page's Agreement tab), offered here."""
    run_id = run_view.team_run_id(tab, run)
    if run_id is None or agreement.hidden(tab):
        return
    best = agreement.of_run(tab, run, run_id)["best"]
    if best is None:
        return
    c1, c2 = st.columns([3, 1])
    c1.caption(f"The team's reviews support τ = {best['tau']:.2f}, n = {best['n']:,}: there the filter agrees with "
               f"the team's word on {best['agreement']:.0%} of the {best['examples']:,} reviewed examples (the same "
               f"best in {best['stability']:.0%} of bootstrap resamples; Review page, Agreement). "
               + agreement.few_reviews(best))
    c2.button("Use the team's τ, n", key="flt_team_use", on_click=tab.session.set_live, args=(best["tau"], best["n"]))
