"""The dashboard's services without Streamlit: a browser tab made by hand."""


def new_tab(*, identity=None):
    """A browser tab as the dashboard's services take it (`dashboard.state.tab.Tab`), made without
    Streamlit: a new `Server` on the current settings and an empty `Session`, signed in as
    ``identity`` (the local user by default). Close its server with ``tab.server.finish_stop()``."""
    from dashboard.process.server import Server
    from dashboard.services import team
    from dashboard.state.session import Session
    from dashboard.state.tab import Identity, Tab

    tab = Tab(Session(), Server())
    team.resolve(tab, identity or Identity())
    return tab
