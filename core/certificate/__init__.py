"""The artifact certificate: one versioned JSON of a dataset's artifact measures, each with its
uncertainty, that a dataset's own CI can gate on (issue 34).

- `measures`: `certify` computes the certificate of a split (z-statistics per label, partial-input
  accuracy against the majority class, V-information of the full and the partial input, AFLite's
  predictable share, near-duplicates, cues that carry to an evaluation split, possibly mislabelled
  examples, reviewers' α from a team store).
- `schema`: the JSON Schema (``certificate.schema.json`` beside it) every certificate is validated
  against when it is written and when it is read, and the format version.
- `gate`: `compare` two certificates under rules (defaults: no measure of artifact strength rises
  beyond its uncertainty; a TOML or YAML file may set thresholds per measure): the table
  ``artifact-lens check`` prints, and whether a rule is broken.

May import: core.base, core.data, core.text, core.representations, core.zstats, core.aflite,
core.dynamics, core.evaluation, core.results, core.team.
"""
# the built-in steps and their measures register here, so the registry is full wherever one is read
from . import measures as _measures  # noqa: E402,F401
