"""The dashboard beside `app.py` and `pages/`: Streamlit front end of `core/`, which holds every
computation. Its layers are its packages (docs/architecture.md; `tests/unit/test_layers.py` reads a
module's layer from its package and denies every other import):

- `state`: the tab's state (`session`: the typed per-tab `Session`; `url`: the query string;
  `identity`: the sign-in as Streamlit knows it, the app's own arguments);
- `process`: what the process shares between every session (`server`: the stores, the job
  runner, the bounded cache, the stop on SIGTERM; `cache`: the memory-bounded cache);
- `services`: what the pages ask for and start (the current dataset, Φ and run; jobs; the team
  store's reads and writes, each checking the member's role; the use cases of `core.usecases`);
  no drawing;
- `widgets`: what pages draw with (panels, knobs, forms, the job panel, `page.start_page`);
  no computing and no store.
"""
