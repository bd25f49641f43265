"""Artifact Lens core: the engine, in domain packages. Never imports streamlit.

Each package's docstring says what it holds and, in its "May import:" line, which other
packages it may import (`tests/unit/test_layers.py` holds every import to that line). From the
bottom up::

    base                      errors, settings, progress, cores, jobs, paths, keys, the result store
    data                      the Dataset, sources, files, labels, demos
    text  representations     tokens, features, near-duplicates │ Φ, neighbours, 2-D maps
    zstats  aflite  plots     z-statistics and z-filtering │ AFLite │ figures
    dynamics  evaluation      training dynamics, joint filter, transfer │ what a filtered split did
    results                   runs and the stores of computed results
    quality                   DQI components, feedback, DQI-guided pruning
    exports  team             files for curators (split, card, report) │ store, review, agreement
    certificate               the artifact certificate and its gate
    cli                       artifact-lens
"""
