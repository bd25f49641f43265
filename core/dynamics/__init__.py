"""Training dynamics on Φ (dataset cartography, Swayamdipta et al. 2020) and what is built on
them: the joint filter (AFLite and the data map together) and artifacts across splits (do a
training split's cues give the labels of another split away).

May import: core.base, core.models, core.data, core.text, core.representations, core.zstats, core.aflite.
"""
