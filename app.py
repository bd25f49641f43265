"""Artifact Lens dashboard: `streamlit run app.py` in a checkout (after `pip install -e .`, which
`make demo` runs), or `artifact-lens ui` from an installed package.

Opens on the synthetic NLI demo, already scored by a small AFLite run, so every
page works before anything is loaded. Pages live in ``pages/`` (listed in
``dashboard/services/navigation.py``); the dashboard's state and widgets in ``dashboard/``;
all computation in ``core/``. The dashboard imports the library by its installed name,
``artifact_lens`` (``core/``), and itself as ``artifact_lens.dashboard``.
"""
try:
    from artifact_lens.dashboard.app import main
except ModuleNotFoundError as exc:   # a checkout that was never installed
    if exc.name not in ("artifact_lens", "artifact_lens.dashboard"):
        raise
    raise SystemExit("Artifact Lens is not installed in this Python: run `pip install -e .` in the checkout "
                     "(or `make demo`), then `streamlit run app.py` again.") from exc

main()
