"""The dashboard's own helpers (streamlit), beside `app.py` and `pages/`; all computation is in `core/`.

- `navigation`: the list of pages (`app.py` registers exactly these; a test checks
  that every file in ``pages/`` is listed).
- `page`: `start_page` (every page calls it first: state, sidebar, last error) and
  `require_run`.
- `session`: the typed per-tab state (`Session`) under one key of ``st.session_state``.
- `server`: the process-wide `Server` (bounded cache, run store, job runner), shared
  by every session.
- `cache`: `BoundedCache.get_or_compute(kind, key, fn)`, least recently used entries
  evicted past a byte budget.
- `current`: what the session looks at (dataset, Φ, run, example table, live result,
  z-statistics, projection), each fetched through the cache and recomputable on a miss.
- `pipelines`: background work (Φ + AFLite run, UMAP) and applying its result.
- `url`: the URL keeps dataset, Φ, run and live τ/n, so a reload reopens the same view.
- `knobs`, `job_panel`, `sidebar`: reusable widgets.
- `data_inputs`: the Data page's helpers (representation specs, uploads, loading).
- `formatting`: data shown as text (Markdown escaped) and image thumbnails.
"""
