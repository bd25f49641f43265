"""The team: the store of workspaces, members and roles, datasets, runs and reviews (`store`),
each example's standing under the dispute rule and the review queue (`review`), how much
reviewers agree (`agreement`) and the agreement on one run, assembled once for the CLI and
the dashboard (`run_agreement`).

May import: core.base, core.text, core.results.
"""
