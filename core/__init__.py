"""Artifact Lens core: datasets, representations, AFLite, z-statistics, runs and exports. Never imports streamlit."""
