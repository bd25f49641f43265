"""AFLite: adversarial filtering of dataset biases (paper 000, Algorithm 1), as a small package.

Where things happen
-------------------
- `estimator`: the `AFLite` estimator (scikit-learn API): parameters, input checks,
  the phase loop, the record.
- `partitions`: the m training sets of each phase (a function of the seed, the
  phase number and the current set S only).
- `scorers`: the model families behind one interface; they produce the
  predictability scores p̃(i) of a phase (eq. 4).
- `storage`: where X's rows live and how per-range work reaches them (fixed row
  ranges combined in order: the same numbers on any number of threads);
  `distributed`: the same on a Dask cluster (imported only for a dask array X), and
  `on_cluster`: a whole fit with X's rows sent to a cluster's address.
- `backends`: the ridge family on PyTorch (CPU or CUDA), CuPy or any array-API library
  (``device=``); `lapack`: the CPU engine's LAPACK calls, free of the GIL.
- `selection`: **where τ, k and n are applied**: which examples a phase removes and
  when filtering stops (the exact stopping rule is in its docstring), and the one
  size resolver (count or fraction → examples).
- `trajectory`: the recorded run (`Trajectory`): members and scores of every phase,
  exact answers for any larger τ and n without refitting, save/load.
- `baselines`: random subset and single-model filtering (paper 000 §4.2).

Paper symbols: m = ``n_partitions``, t = ``train_size``, k = ``slice_size``,
τ = ``tau``, n = ``target_size``; S is the current set, p̃(i) the predictability
score (eq. 4), R = Σ p̃ the representation bias (eq. 5).

May import: core.base, core.models, core.data.
"""
from .baselines import random_subset, single_model_filter
from .estimator import FAMILIES, STRATEGIES, AFLite, NotFitted, ParameterError
from .inputs import encode_labels
from .selection import resolve_size
from .trajectory import RefitNeeded, Trajectory

__all__ = ["AFLite", "Trajectory", "RefitNeeded", "ParameterError", "NotFitted", "FAMILIES", "STRATEGIES",
           "random_subset", "single_model_filter", "resolve_size", "encode_labels"]
