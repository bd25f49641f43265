"""z-statistics of task-independent features, z-filtering and consistency filtering.

After Gardner et al. (2021) and paper 004 (Wu et al. 2022):

* **z-statistics** (004 §3.1, eq. 2). For a feature x seen in n examples, of
  which `count` have label l, p̂(l|x) = count / n and

      z*(x, l) = (p̂(l|x) − p0) / √(p0 (1 − p0) / n),   p0 = 1 / (number of labels).

  A feature whose z exceeds the one-sided Bonferroni threshold
  z* = Φ⁻¹(1 − α / m) (m = number of features tested; Gardner: α = 0.01, about
  4.96 for 28k tokens) gives its label away. `z_table` / `compute_z`.
* **z-filtering** (004 §3.2, Algorithm 1). Go through the data D′ in shuffled
  batches; before each batch find the k features of highest z for each label l,
  B_Z(l), on the examples Z accepted so far; accept an example of label l only if
  it has none of B_Z(l). With a seed dataset Z starts as D_seed (conditional
  z-filtering Z(D′ | D_seed)). `z_filter`.
* **Consistency filtering** (004 §2.2.2). Drop examples whose gold label a model
  trained on other examples gives probability p_M(l | x) ≤ τ. `consistency_filter`.

* **Cue tables of rows in a shape of their own**: which side of a preference pair a feature gives
  away (`core.zstats.pairs`), and which option of a multiple-choice item, with where the gold sits
  (`core.zstats.choices`: a chance line that counts ties, Cohen's w of the gold position).

Features are built by `core.text.features` (its docstring defines the tokenisation).
Everything returns small dataclasses holding pandas tables, ready for the CLI
(``to_csv``) and the dashboard; figures are in `core.plots.zstats`.

May import: core.base, core.models, core.data, core.text.
"""
from .consistency import ConsistencyResult, consistency_filter
from .statistics import ZStats, bonferroni_threshold, compute_z, tested_z, z_from_share, z_scores, z_table
from .zfilter import ZFilterResult, z_filter

__all__ = ["ConsistencyResult", "ZFilterResult", "ZStats", "bonferroni_threshold", "compute_z", "consistency_filter", "tested_z",
           "z_filter", "z_from_share", "z_scores", "z_table"]
