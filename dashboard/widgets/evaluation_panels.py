"""The Evaluate page's panels: the options form that starts an evaluation (curators and owners),
and the evaluations a stop cut short, offered again."""
import time

import streamlit as st

from artifact_lens.base.errors import InputError
from artifact_lens.base.bounds import SEED
from artifact_lens.evaluation import SEPARATIONS
from artifact_lens.dashboard.services import evaluation as evaluation_jobs
from artifact_lens.dashboard.widgets.formatting import plain
from artifact_lens.dashboard.widgets.reruns import redraw
from artifact_lens.dashboard.services.team import member

__all__ = ["options_form", "interrupted_panel"]


def options_form(tab, run, ds, running) -> None:
    """The evaluation's options and "Evaluate" (disabled while one of this run is ``running``)."""
    if member(tab).can("run filters"):
        numeric = [c for c in ds.table.columns if ds.table[c].dtype.kind in "biuf"]   # yes/no columns count as 1/0
        with st.form("eval_form"):
            c1, c2, c3 = st.columns(3)
            every, defaults, title = evaluation_jobs.families()
            families = c1.multiselect("Model families", list(every), list(defaults), format_func=title,
                                      key="eval_families")
            share = c2.slider("Held-out share (i.i.d. evaluation split)", 0.1, 0.5, 0.2, 0.05, key="eval_share")
            stratified = c3.checkbox("Stratify the random baseline by label", key="eval_stratified")
            c4, c5, c6 = st.columns(3)
            partial = c4.text_input("Partial-input representation (empty: none)", evaluation_jobs.default_partial(ds),
                                    key="eval_partial")
            ks = c5.text_input("KNN distances: K", "1,5,10,50", key="eval_ks")
            difficulty = c6.selectbox("External difficulty column", ["(none)"] + [str(c) for c in numeric],
                                      key="eval_difficulty")
            c7, c8, c9, c10 = st.columns(4)
            step = c7.slider("Coarse action: step b", 0.05, 0.25, 0.1, 0.05, key="eval_step")
            tolerance = c8.number_input("Coarse action: tolerance", 0.0, 0.2, None, 0.001, format="%.3f", key="eval_tol",
                                        placeholder="noise (1 standard error)",
                                        help="Smallest accuracy gain that counts as growth. Empty: a gain must beat one "
                                             "standard error of the held-out accuracy, so noise does not stop the growth; "
                                             "0: any gain counts, as in paper 002.")
            synthetic = c9.checkbox(f"Synthetic circles at separations {', '.join(map(str, SEPARATIONS))}",
                                    ds.name.startswith("demo:circles"), key="eval_synthetic")
            seed = c10.number_input("Seed", *SEED.range, 0, key="eval_seed")
            submitted = st.form_submit_button("Evaluate", type="primary", key="eval_run", disabled=running is not None,
                                              help="An evaluation of this run is running (progress below)."
                                              if running is not None else None)
        if submitted:
            try:
                k_values = tuple(int(v) for v in ks.split(",") if v.strip())
                evaluation_jobs.start(tab, run, families=tuple(families), eval_share=float(share), stratified=bool(stratified),
                                      partial_spec=partial.strip(), knn_ks=k_values, coarse_step=float(step),
                                      coarse_tolerance=None if tolerance is None else float(tolerance),
                                      difficulty=None if difficulty == "(none)" else difficulty,
                                      synthetic=bool(synthetic), seed=int(seed))
            except ValueError as exc:   # InputError (NotAllowed too: the role check), or K values that are not numbers
                st.error(plain(exc if isinstance(exc, InputError) else f"K must be whole numbers such as 1,5,10,50 ({exc})."))
            else:
                redraw()   # drawn again with the job running: the form's button disabled
    else:
        st.caption(f"Your role here is {member(tab).role}: you see the stored evaluations; new ones need a curator or owner.")


def interrupted_panel(tab, run, running) -> None:
    """Each evaluation a stop or crash cut short: said, with "Run it again" at its τ/n."""
    for i, rec in enumerate(evaluation_jobs.interrupted(tab, run)):   # cut short by a stop: said, and offered again
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(rec["started"]))
        st.warning(f"An evaluation started {when} at τ = {rec['tau']:.2f}, n = {rec['n']:,} was interrupted (the "
                   "server stopped before it ended); nothing of it was stored.")
        if member(tab).can("run filters") and st.button(f"Run it again at τ = {rec['tau']:.2f}, n = {rec['n']:,}",
                                                        key=f"eval_again_{i}", disabled=running is not None):
            try:
                evaluation_jobs.run_again(tab, run, rec)
            except InputError as exc:
                st.error(plain(exc))
            else:
                redraw()
