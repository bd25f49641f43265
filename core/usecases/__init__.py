"""The application layer (issue 43): one plain function per use case, which the CLI's command
and the dashboard's service both call with the same arguments, and which holds every rule of
that use case. A front end parses its arguments, calls one of these and draws what it returns;
`tests/unit/test_use_cases.py` fails when a front end assembles a use case itself (imports a
kernel that `USE_CASES` says a use case owns), and maps each CLI command and each dashboard
action to the function it calls.

- `scoring`: score a dataset into a run (a stored run answers; its life recorded in a workspace).
- `certificates`: the certificate of a dataset and of a run's split, with the one rule for which Φ
  a split's certificate uses (`certificate_representation`).
- `exports`: a run's split to export (rows, manifest, the review's overrides) and what a datasets
  folder carries beside it (card, certificate).
- `agreement`: the team's agreement on a run, with the blind rule.
- `review_queue`: the rows that carry a new cue, checked to be a run's, sent to its review queue.
- `information`: PVI, with the one rule for which inputs it reads (Φ and the dataset's partial inputs).
- `serving`: the command and settings that serve the dashboard (``artifact-lens ui``, the image).
- `evaluation`: what an evaluation's report holds (its certificate and team review sections).
- `feedback`: the context fitted once per dataset and Φ, and the feedback on one new example.
- submitting, validating, reviewing and adjudicating an example are the team store's own methods
  (`core.team.store.TeamStore.submit` …), registered as use cases as they are.
- `registry`: `USE_CASES`, each use case's function and the kernels it owns.

May import: core.base, core.models, core.data, core.text, core.representations, core.zstats, core.aflite,
core.dynamics, core.evaluation, core.results, core.quality, core.exports, core.team, core.certificate.
"""
