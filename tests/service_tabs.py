"""The dashboard's services without Streamlit: a browser tab made by hand."""


def new_tab(*, identity=None):
    """A browser tab as the dashboard's services take it (`dashboard.state.tab.Tab`), made without
    Streamlit: a new `Server` on the current settings and an empty `Session`, signed in as
    ``identity`` (the local user by default). Close its server with ``tab.server.finish_stop()``."""
    from artifact_lens.dashboard.process.server import Server
    from artifact_lens.dashboard.services import team
    from artifact_lens.dashboard.state.session import Session
    from artifact_lens.dashboard.state.tab import Identity, Tab

    tab = Tab(Session(), Server())
    team.resolve(tab, identity or Identity())
    return tab


def score_demo(tab, rows: int):
    """Load the synthetic NLI demo of ``rows`` rows, score it with a small AFLite run and make it the
    tab's current run, saved in its member's workspace, as the Data page does; the run."""
    from artifact_lens.dashboard.services import current, run_view, pipelines
    from artifact_lens.dashboard.state.session import DEFAULT_PARAMS, Source

    source = Source(f"demo:nli:n={rows}", {}, "demo")
    key, ds = current.load(tab, source)
    spec = current.check_spec("tfidf-svd:fields=hypothesis,dim=8", ds)
    params = dict(DEFAULT_PARAMS, n_partitions=4)
    pipelines.apply_result(tab, pipelines.score(tab, None, key, ds, spec, params), params, source)
    pipelines.keep_in_workspace(tab)
    return run_view.run(tab)
