"""Computed results kept across restarts: the `Run` record of one AFLite run and the run store
(`runs`), what a ``--run`` argument names (`run_arguments`), results of the team's background
jobs as files (`files`), a dataset's rows joined to a run's arrays (`tables`) and every store
under one cache root with its pruning (`stores`).

May import: core.base, core.representations, core.aflite, core.dynamics, core.evaluation, core.zstats.
"""
