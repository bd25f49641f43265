"""The dashboard beside `app.py` and `pages/`: Streamlit front end of `core/`, which holds every
computation. Its layers are its packages (docs/architecture.md; `tests/unit/test_layers.py` reads a
module's layer from its package and denies every other import):

- `state`: the tab's state (`session`: the typed per-tab `Session`; `tab`: the `Tab` every
  service takes, that session and the server; `browser`: where Streamlit keeps them; `url`: the
  query string; `identity`: the sign-in as Streamlit knows it);
- `process`: what the process shares between every session (`server`: the stores, the job
  runner, the bounded cache, the stop on SIGTERM; `shared`: the one server, as Streamlit keeps
  it; `cache`: the memory-bounded cache; `arguments`: the app's own command line);
- `services`: what the pages ask for and start (the current dataset, Φ and run; jobs; the team
  store's reads and writes, each checking the member's role; the use cases of `core.usecases`),
  each handed the tab; plain Python, no drawing;
- `widgets`: what pages draw with (panels, knobs, forms, the job panel, `page.start_page`);
  no computing and no store.
"""
