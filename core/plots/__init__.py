"""Plotly figures (no streamlit: the dashboard, notebooks and reports share them): AFLite runs,
z-statistics, the data map of training dynamics, cues across splits, the team's agreement; one colour per label
(`palette`) and dataset strings as text, never markup (`text`). Figures take tables the other
packages computed; they compute nothing themselves.

May import: core.base.
"""
