"""Per-example quality components after DQI (paper 002; Mishra et al. 2020, "DQI"), traffic
lights, one-example feedback for creators, and DQI-guided pruning.

DQI has seven components. Each is computed here per example, on CPU, normalised to
[0, 1] with **higher = better**, under the column name in the first column:

=======================  ==========================================  ============================================
column                   DQI component it follows                    formula (per example i)
=======================  ==========================================  ============================================
``vocabulary``           C1 vocabulary                               Guiraud's root type-token ratio over all text
                                                                     fields, R_i = types_i / √tokens_i, divided by
                                                                     R_ref (the dataset's 95th percentile of R,
                                                                     fitted) and clipped to [0, 1]
``ngram_frequency``      C2 inter-sample n-gram frequency and        mean over the example's distinct n-grams g
                         relation                                    (uni- and bigrams, per field) of
                                                                     log((N + 1) / df_g) / log(N + 1), df_g = examples
                                                                     with g (itself included): examples made of
                                                                     phrases every example uses score low
``neighbour``            C3 inter-sample semantic similarity         1 − max(0, max_{j ≠ i} cos(Φ_i, Φ_j)): a
                                                                     near-duplicate in Φ scores ≈ 0. Batched: chunked
                                                                     matrix products, never an N × N matrix; above
                                                                     ``nn_dim`` dimensions Φ is first projected on its
                                                                     top ``nn_dim`` principal axes (a knob; None =
                                                                     exact in all of Φ)
``word_overlap``         C4 intra-sample word similarity             1 − share of the last field's tokens (the
                                                                     hypothesis) that occur in the first (the
                                                                     premise); NaN with one text field
``semantic_similarity``  C5 intra-sample semantic similarity         1 − max(0, cos(ψ(first field), ψ(last field)))
                                                                     with ψ each field represented alone in one space
                                                                     (see "Semantic space" below); NaN with one field
``label_tied``           C6 n-gram frequency per label               1 / (1 + (z⁺_i / z*)²), z⁺_i = max(0, largest z of
                                                                     the example's own n-gram features for its own
                                                                     label) (`core.zstats.z_scores`, paper 004 eq. 2,
                                                                     features of `core.features` seen in ≥
                                                                     ``min_count`` examples), z* the one-sided
                                                                     Bonferroni threshold: 0.5 exactly at z = z*
``inter_split``          C7 inter-split similarity                   1 − max(0, max_j cos(Φ_i, Φ'_j)) over the
                                                                     examples j of a second split in the same Φ;
                                                                     NaN without a second split
=======================  ==========================================  ============================================

The combined score ``dqi`` is the weighted mean of the components an example has
(NaN components are left out and the weights renormalised), with `DEFAULT_WEIGHTS`
(a knob): the label-tied n-grams weigh most (the artifact the tool exists to find),
then word overlap and semantic similarity between the fields, which paper 002 §4.2
expects to matter most (it calls them C3 and C5; in the component list above, word
overlap is C4), then near-duplicates and the split leak, then vocabulary and n-gram
frequency.

What DQI defines that cannot be computed here, and what stands in
------------------------------------------------------------------
DQI (133 terms) scores against "ideal" values fitted on reference corpora and uses
sentence embeddings, POS tags (adjective/adverb/noun/verb granularities of C2 and C6)
and STS models. Offline on CPU we have none of those, so: C2's and C6's POS-tag and
sentence granularities are left out (word uni- and bigrams stand in); DQI's ideal
values are replaced by the dataset's own statistics (R_ref, df, z*); C3/C5/C7's
sentence-embedding similarity is cosine in the chosen representation Φ (C3, C7) or
in the semantic space below (C5); C1's sentence-length-variation term is left out
(length is already a z-statistics feature).

Semantic space (C5)
-------------------
``glove`` and ``sbert`` are fixed maps, so each field is represented alone with the
same spec (`core.representations.represent` with ``fields=`` one field). A TF-IDF/SVD
fitted per field would put the two fields in different bases, so for ``tfidf-svd``
one TF-IDF/SVD with the spec's options is fitted on both fields' texts together and
each field is projected into it; every other kind (embedding, file, warm-up, pixels:
no per-field vectors) uses that TF-IDF/SVD with default options as a stand-in.

Traffic lights
--------------
`lights(scores, thresholds)` gives ``red`` below the component's red threshold,
``green`` at or above its green threshold, ``yellow`` between, ``n/a`` for NaN.
`DEFAULT_THRESHOLDS` documents each pair (knobs). The example's own light is that of
its ``dqi`` score.

Feedback for one new example
----------------------------
``ctx = QualityContext.fit(ds, "tfidf-svd:fields=hypothesis")`` fits everything once
(tokens, feature counts and z, a hypothesis-only logistic regression on n-grams, a
logistic regression on Φ, the map of new text into Φ, the semantic space), then
``ctx.feedback({"premise": ..., "hypothesis": ..., "label": ...})`` returns a
`Feedback` in milliseconds (benchmarks/quality_bench.py). New text enters Φ through
the representation's own map where it has one: ``tfidf-svd`` (its TF-IDF refitted
with the same options, and the SVD axes recovered exactly as V = Mᵀ Φ Σ⁻²),
``glove``/``sbert`` (fixed maps), ``embedding`` (the example gives its vector);
``warmup``/``file``/``pixels`` cannot embed new text, so a TF-IDF/SVD over the same
fields stands in for the neighbours and Φ-predictability (the feedback says so).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field as dc_field
from typing import Mapping, Optional

import numpy as np
import pandas as pd
import scipy.sparse as sp

from core.dataset import Dataset
from core.errors import InputError
from core.features import FeatureOptions, _overlap_share, _tokenise_column, binary_csr, build_features, tokenize
from core.labels import encode_labels
from core.progress import check_cancel, report
from core.zstats import bonferroni_threshold, z_scores
from core import lights as lights_vocabulary

__all__ = ["COMPONENTS", "DQI_COMPONENTS", "DEFAULT_WEIGHTS", "DEFAULT_THRESHOLDS", "LIGHTS", "QualityContext",
           "Feedback", "check_example", "quality_scores", "combine", "lights", "check_quality", "check_second_split",
           "quality_for_aflite"]

#: Component columns, in DQI order.
COMPONENTS = ("vocabulary", "ngram_frequency", "neighbour", "word_overlap", "semantic_similarity", "label_tied",
              "inter_split")

#: Component -> the DQI component it follows.
DQI_COMPONENTS = {
    "vocabulary": "C1 vocabulary",
    "ngram_frequency": "C2 inter-sample n-gram frequency and relation",
    "neighbour": "C3 inter-sample semantic similarity",
    "word_overlap": "C4 intra-sample word similarity",
    "semantic_similarity": "C5 intra-sample semantic similarity",
    "label_tied": "C6 n-gram frequency per label",
    "inter_split": "C7 inter-split similarity",
}

#: Weights of the combined ``dqi`` score (knobs; see the module docstring for why).
DEFAULT_WEIGHTS = {"vocabulary": 0.5, "ngram_frequency": 0.5, "neighbour": 1.0, "word_overlap": 1.5,
                   "semantic_similarity": 1.5, "label_tied": 2.0, "inter_split": 1.0}

#: (red below, green at or above) per column (knobs). Read as the raw quantity:
#: vocabulary: red below 35 % of the dataset's R_ref, green from 60 %;
#: ngram_frequency: red when the mean normalised IDF is below 0.2, green from 0.35;
#: neighbour / inter_split: red when a neighbour has cos > 0.98 (a near-duplicate), green when none above 0.85;
#: word_overlap: red when more than 90 % of the hypothesis occurs in the premise, green when at most 60 %;
#: semantic_similarity: red when cos > 0.9, green when cos ≤ 0.6;
#: label_tied: red when an own-label feature has z > z* (score < 0.5), green when none above z*/2 (≥ 0.8);
#: dqi: red below 0.4, green from 0.6.
DEFAULT_THRESHOLDS = {"vocabulary": (0.35, 0.6), "ngram_frequency": (0.2, 0.35), "neighbour": (0.02, 0.15),
                      "word_overlap": (0.1, 0.4), "semantic_similarity": (0.1, 0.4), "label_tied": (0.5, 0.8),
                      "inter_split": (0.02, 0.15), "dqi": (0.4, 0.6)}

LIGHTS = tuple(reversed(lights_vocabulary.LIGHTS))   # worst first, as thresholds read
NA = lights_vocabulary.NA

#: Longest text of one field a new example may have (characters; a knob of `QualityContext`).
MAX_CHARS = 2000

_NGRAM_OPTIONS = FeatureOptions(lengths=False, overlap_above=(), overlap_below=(), partial_input=None, null=False)


# ============================================================== checks


def check_quality(values, name: str = "quality", n: Optional[int] = None) -> np.ndarray:
    """A quality column as float64, or `InputError`: NaN/infinite values, values outside [0, 1],
    or (with ``n``) the wrong length."""
    try:
        q = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} holds values that are not numbers; give one score in [0, 1] per example.") from None
    if q.ndim != 1 or (n is not None and len(q) != n):
        raise InputError(f"{name} has shape {q.shape}: give one score per example ({n if n is not None else 'N'},).")
    bad = ~np.isfinite(q)
    if bad.any():
        raise InputError(f"{name} has {int(bad.sum())} NaN or infinite values: give a score in [0, 1] for every example.")
    out = (q < 0) | (q > 1)
    if out.any():
        raise InputError(f"{name} has {int(out.sum())} values outside [0, 1] (e.g. {q[out][0]:g}); quality scores "
                         "are in [0, 1], higher = better.")
    return q


def _check_thresholds(thresholds) -> dict:
    th = dict(DEFAULT_THRESHOLDS)
    for key, pair in dict(thresholds or {}).items():
        try:
            red, green = (float(v) for v in pair)
        except (TypeError, ValueError):
            raise InputError(f"thresholds[{key!r}]={pair!r} must be a pair (red below, green from), e.g. (0.3, 0.6).") from None
        if not (0 <= red <= green <= 1):
            raise InputError(f"thresholds[{key!r}]=({red:g}, {green:g}) must satisfy 0 ≤ red ≤ green ≤ 1.")
        th[key] = (red, green)
    return th


def _check_weights(weights) -> dict:
    w = dict(DEFAULT_WEIGHTS)
    for key, value in dict(weights or {}).items():
        if key not in COMPONENTS:
            raise InputError(f"weights: unknown component {key!r}; the components are {', '.join(COMPONENTS)}.")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise InputError(f"weights[{key!r}]={value!r} must be a number ≥ 0.")
        w[key] = float(value)
    if sum(w.values()) <= 0:
        raise InputError("weights are all zero; give at least one component a positive weight.")
    return w


def check_second_split(ds: Dataset, other: Dataset) -> None:
    """`InputError` unless the second split has the same columns and roles as ``ds``."""
    if not isinstance(other, Dataset):
        raise InputError(f"the second split must be a core.dataset.Dataset, not {type(other).__name__}.")
    a, b = set(map(str, ds.table.columns)), set(map(str, other.table.columns))
    if a != b or other.label != ds.label or list(other.text) != list(ds.text):
        missing, extra = sorted(a - b), sorted(b - a)
        parts = ([f"it lacks {', '.join(missing)}"] if missing else []) + ([f"it adds {', '.join(extra)}"] if extra else [])
        if not parts:
            parts = [f"its roles differ (label {other.label!r}, text {list(other.text)})"]
        raise InputError(f"the second split's columns differ from the dataset's ({'; '.join(parts)}); give a split "
                         f"with the same columns ({', '.join(sorted(a))}).")


# ============================================================== lights and the combined score


def combine(scores: pd.DataFrame, weights: Optional[Mapping] = None) -> pd.Series:
    """The combined ``dqi`` score: weighted mean of the components present (NaN left out)."""
    w = _check_weights(weights)
    cols = [c for c in COMPONENTS if c in scores.columns]
    if not cols:
        raise InputError(f"no quality component among the columns {list(scores.columns)}.")
    V = scores[cols].to_numpy(dtype=np.float64)
    W = np.array([w[c] for c in cols])[None, :] * ~np.isnan(V)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.nansum(np.nan_to_num(V) * W, axis=1) / W.sum(axis=1)
    return pd.Series(np.where(W.sum(axis=1) > 0, out, np.nan), index=scores.index, name="dqi")


def _light(value: float, red: float, green: float) -> str:
    if value is None or not np.isfinite(value):
        return NA
    return "red" if value < red else ("green" if value >= green else "yellow")


def lights(scores, thresholds: Optional[Mapping] = None):
    """Traffic lights of scores: ``red`` below the column's red threshold, ``green`` at or
    above its green threshold, ``yellow`` between, ``n/a`` for NaN.

    Parameters
    ----------
    scores : DataFrame (columns = components and/or ``dqi``), Series named after a column,
        or dict column -> value.
    thresholds : dict column -> (red below, green from), optional
        Overrides `DEFAULT_THRESHOLDS`; 0 ≤ red ≤ green ≤ 1.

    Returns
    -------
    The same shape: a DataFrame of strings, a Series, or a dict.
    """
    th = _check_thresholds(thresholds)

    def one(col, values):
        if col not in th:
            raise InputError(f"no thresholds for column {col!r}; give thresholds[{col!r}] = (red, green).")
        red, green = th[col]
        v = np.asarray(values, dtype=np.float64)
        return np.where(np.isnan(v), NA, np.where(v < red, "red", np.where(v >= green, "green", "yellow")))

    if isinstance(scores, pd.DataFrame):
        return pd.DataFrame({c: one(c, scores[c]) for c in scores.columns}, index=scores.index)
    if isinstance(scores, pd.Series):
        return pd.Series(one(scores.name, scores), index=scores.index, name=scores.name)
    if isinstance(scores, Mapping):
        return {c: str(one(c, [np.nan if v is None else v])[0]) for c, v in scores.items()}
    raise InputError(f"lights needs a DataFrame, a Series or a dict of scores, not {type(scores).__name__}.")


# ============================================================== small kernels


def _normalise_rows(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float32)
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.maximum(norms, 1e-12)


def _max_cosine(Q: np.ndarray, R: np.ndarray, *, exclude_self: bool, budget: int = 1 << 25):
    """Largest cosine of each (row-normalised) row of Q to the rows of R, and its row; chunked so
    at most ``budget`` similarities are in memory. ``exclude_self``: Q is R (skip the diagonal)."""
    n = len(Q)
    best = np.full(n, -np.inf, dtype=np.float32)
    arg = np.full(n, -1, dtype=np.int64)
    if not len(R):
        return best, arg
    step = max(1, budget // max(len(R), 1))
    for lo in range(0, n, step):
        S = Q[lo:lo + step] @ R.T
        if exclude_self:
            rows = np.arange(S.shape[0])
            S[rows, lo + rows] = -np.inf
        a = S.argmax(axis=1)
        arg[lo:lo + step] = a
        best[lo:lo + step] = S[np.arange(S.shape[0]), a]
    return best, arg


def _pca_basis(X: np.ndarray, dim: int, seed: int = 0, rows: int = 20000):
    """Mean and top ``dim`` principal axes of X (estimated on at most ``rows`` seeded rows)."""
    rng = np.random.default_rng(seed)
    sample = X if len(X) <= rows else X[np.sort(rng.choice(len(X), rows, replace=False))]
    mean = sample.mean(axis=0)
    _, _, vt = np.linalg.svd(np.asarray(sample - mean, dtype=np.float64), full_matrices=False)
    return mean.astype(np.float32), vt[:dim].T.astype(np.float32)


def _texts(values) -> list:
    return ["" if (v is None or (isinstance(v, float) and np.isnan(v))) else str(v) for v in values]


def _spec_parts(spec: str):
    from core.representations import parse_spec

    return parse_spec(spec)


def _with_fields(kind: str, opts: dict, fields: str) -> str:
    from core.representations import canonical_spec, KINDS

    o = {k: v for k, v in opts.items() if k in KINDS[kind]}
    o["fields"] = fields
    return canonical_spec(kind, o)


class _TfidfSvd:
    """TF-IDF per field (the options of `core.representations`' ``tfidf-svd``) and a linear map
    into an SVD space: either fitted here, or recovered from a given Φ as V = Mᵀ Φ Σ⁻²."""

    def __init__(self, texts_by_field: dict, ngram="1-2", min_df=2):
        from sklearn.feature_extraction.text import TfidfVectorizer

        lo, hi = (int(x) for x in str(ngram).split("-"))
        self.fields = list(texts_by_field)
        self.vecs = {}
        for f, texts in texts_by_field.items():
            vec = TfidfVectorizer(ngram_range=(lo, hi), min_df=min(int(min_df), max(1, len(texts) // 2)),
                                  sublinear_tf=True, dtype=np.float32)
            try:
                vec.fit(texts)
            except ValueError as exc:
                raise InputError(f"field '{f}' gives no TF-IDF terms ({exc}); choose another field.") from None
            self.vecs[f] = vec
        self.V = None

    def matrix(self, table_or_dict) -> sp.csr_matrix:
        blocks = [self.vecs[f].transform(_texts(table_or_dict[f])) for f in self.fields]
        return sp.hstack(blocks, format="csr", dtype=np.float32)

    def recover(self, M: sp.csr_matrix, phi: np.ndarray) -> "_TfidfSvd":
        phi = np.asarray(phi, dtype=np.float32)
        energy = (phi.astype(np.float64) ** 2).sum(axis=0)
        # Axes without energy (dim above the matrix's rank) would divide noise by ~0: leave them out.
        usable = energy > 1e-6 * max(float(energy.max()), 1e-30)
        self.V = (np.asarray(M.T @ phi, dtype=np.float64) / np.where(usable, energy, np.inf)).astype(np.float32)
        return self

    def fit_svd(self, M: sp.csr_matrix, dim: int, seed: int = 0, rows: int = 20000) -> "_TfidfSvd":
        from sklearn.decomposition import TruncatedSVD

        rng = np.random.default_rng(seed)
        sample = M if M.shape[0] <= rows else M[np.sort(rng.choice(M.shape[0], rows, replace=False))]
        dim = max(1, min(int(dim), min(sample.shape) - 1))
        svd = TruncatedSVD(n_components=dim, algorithm="randomized", n_iter=5, random_state=seed).fit(sample)
        self.V = svd.components_.T.astype(np.float32)
        return self

    def transform(self, table_or_dict) -> np.ndarray:
        return np.asarray(self.matrix(table_or_dict) @ self.V, dtype=np.float32)


# ============================================================== the context


@dataclass
class Feedback:
    """What one new example gets (`QualityContext.feedback`). ``to_dict()`` is JSON-ready.

    Attributes
    ----------
    example : dict
        The example as given (fields and label).
    components : dict name -> {"score", "light", "dqi", "detail"}
        Every component of `COMPONENTS` plus ``dqi``; score None and light ``n/a``
        where it does not apply (``inter_split`` for a new example: it is not in a split).
    light : str
        The example's light (that of ``dqi``).
    label_tied : list of dict
        The example's n-gram features that lean to a label: ``feature`` (``nobody@hypothesis``),
        ``ngram``, ``field``, ``words`` (its tokens), ``label``, ``z``, ``n`` (examples with it),
        ``p_hat``, ``own_label`` (the example's label), ``significant`` (z > z*); z descending.
    partial_input : dict or None
        ``field``, ``predicted``, ``confidence`` (its probability), ``p_label`` (probability of the
        example's label), ``probabilities``, ``heldout_accuracy``, ``majority``: the hypothesis-only
        logistic regression on n-grams. None with a single text field.
    representation : dict
        The same for a logistic regression on Φ (``spec``, ``stand_in`` when Φ cannot embed new text).
    neighbours : list of dict
        ``id``, ``similarity`` (cosine), ``label`` and the text fields of the nearest examples.
    suggestions : list of str
        What to change to turn red into green, most important first.
    notes : list of str
    seconds : float
    """

    example: dict
    components: dict
    light: str
    label_tied: list
    partial_input: Optional[dict]
    representation: dict
    neighbours: list
    suggestions: list
    z_star: float
    notes: list = dc_field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("example", "light", "components", "label_tied", "partial_input",
                                              "representation", "neighbours", "suggestions", "z_star", "notes",
                                              "seconds")}


class QualityContext:
    """Everything fitted once on a dataset so that components and feedback are cheap.

    Build with `QualityContext.fit`; then `components()` for the dataset's table and
    `feedback(example)` for one new example.
    """

    # ------------------------------------------------------------------ fitting
    @classmethod
    def fit(cls, dataset: Dataset, rep_spec: Optional[str] = None, *, representation=None, min_count: int = 5,
            alpha: float = 0.01, nn_dim: Optional[int] = 64, weights: Optional[Mapping] = None,
            thresholds: Optional[Mapping] = None, max_chars: int = MAX_CHARS, feedback: bool = True,
            max_fit_rows: int = 50000, cache_dir=None, random_state: int = 0, progress=None,
            cancel=None) -> "QualityContext":
        """Fit the context.

        Parameters
        ----------
        dataset : Dataset with at least one text field.
        rep_spec : str
            The representation Φ (e.g. ``"tfidf-svd:fields=hypothesis"``), built with
            `core.representations.represent`; or give ``representation`` already built.
        min_count : int
            n-gram features seen in fewer examples have no z (C6).
        alpha : float
            Family-wise level of the Bonferroni threshold z*.
        nn_dim : int or None
            Φ is projected on its top ``nn_dim`` principal axes for the neighbour and
            inter-split components when it has more dimensions (None: exact).
        weights, thresholds : dict, optional
            Override `DEFAULT_WEIGHTS` / `DEFAULT_THRESHOLDS`.
        max_chars : int
            Longest text of one field a new example may have.
        feedback : bool
            Also fit what `feedback` needs (the two models and the map of new text into Φ).
        max_fit_rows : int
            The models are fitted on at most this many seeded rows (80 %; 20 % held out).
        """
        self = cls()
        if not isinstance(dataset, Dataset):
            raise InputError(f"quality needs a core.dataset.Dataset, not {type(dataset).__name__}; load one with "
                             "core.sources.load_dataset.")
        if not dataset.text:
            raise InputError("the quality components read text: the dataset has no text column; load it with "
                             "--text (e.g. --text premise,hypothesis).")
        if isinstance(min_count, bool) or not isinstance(min_count, (int, np.integer)) or min_count < 1:
            raise InputError(f"min_count={min_count!r} must be a whole number ≥ 1.")
        if nn_dim is not None and (isinstance(nn_dim, bool) or not isinstance(nn_dim, (int, np.integer)) or nn_dim < 1):
            raise InputError(f"nn_dim={nn_dim!r} must be a whole number ≥ 1 or None (exact).")
        if isinstance(max_chars, bool) or not isinstance(max_chars, (int, np.integer)) or max_chars < 1:
            raise InputError(f"max_chars={max_chars!r} must be a whole number ≥ 1.")
        self.weights = _check_weights(weights)
        self.thresholds = _check_thresholds(thresholds)
        self.ds, self.fields, self.max_chars, self.seed = dataset, list(dataset.text), int(max_chars), int(random_state)
        self.pair = (self.fields[0], self.fields[-1]) if len(self.fields) >= 2 else None
        self.min_count, self.nn_dim, self.notes = int(min_count), nn_dim, []
        self.classes = dataset.classes
        self.y = encode_labels(dataset.y, self.classes, what=dataset.label)[0]
        self.N = len(dataset)
        if representation is None:
            if not rep_spec:
                raise InputError("give a representation spec, e.g. tfidf-svd:fields=hypothesis.")
            from core.representations import represent

            report(progress, 0.0, "representation")
            representation = represent(dataset, rep_spec, cache_dir=cache_dir, cancel=cancel)
        self.rep, self.cache_dir = representation, cache_dir
        check_cancel(cancel)

        report(progress, 0.1, "n-grams and their z-statistics")
        table = dataset.table
        fm = build_features(table, text=self.fields, options=_NGRAM_OPTIONS, min_count=1)
        self.fm_names = np.asarray(fm.names, dtype=object)
        self.fm_field = np.asarray(fm.field, dtype=object)
        self.name_index = pd.Index(self.fm_names)
        self.X_ngram = fm.X
        self.df = fm.n.astype(np.float64)
        Y = sp.csr_matrix((np.ones(self.N, np.float32), (np.arange(self.N), self.y)), shape=(self.N, len(self.classes)))
        self.counts = np.asarray((fm.X.T @ Y).todense(), dtype=np.float64)
        tested = self.df >= self.min_count
        self.z_star = bonferroni_threshold(alpha, max(int(tested.sum()), 1))
        self.z = np.where(tested[:, None], z_scores(self.counts, np.maximum(self.df, 1), 1.0 / len(self.classes)), np.nan)
        check_cancel(cancel)

        report(progress, 0.25, "tokens")
        self.tokens = {f: _tokenise_column(table[f]) for f in self.fields}
        types, n_tokens = self._types_tokens_dataset()
        R = np.where(n_tokens > 0, types / np.sqrt(np.maximum(n_tokens, 1)), 0.0)
        self.R_ref = float(np.quantile(R, 0.95)) if len(R) else 1.0
        self.R_ref = self.R_ref if self.R_ref > 0 else 1.0
        self._R = R

        report(progress, 0.35, "Φ for neighbours")
        self._fit_phi_space()
        check_cancel(cancel)
        report(progress, 0.5, "semantic space of the fields")
        self._fit_semantic()
        check_cancel(cancel)
        self.fitted_feedback = False
        if feedback:
            report(progress, 0.7, "models for feedback")
            self.prepare_feedback(max_fit_rows=max_fit_rows)
        report(progress, 1.0, "quality context ready")
        return self

    def _types_tokens_dataset(self):
        vocab = pd.Index([])
        parts = []
        for f in self.fields:
            codes, doc, voc = self.tokens[f]
            parts.append((codes, doc, voc))
            vocab = vocab.union(pd.Index(voc))
        rows, cols = [], []
        n_tokens = np.zeros(self.N, dtype=np.float64)
        for codes, doc, voc in parts:
            rows.append(doc)
            cols.append(vocab.get_indexer(voc)[codes])
            n_tokens += np.bincount(doc, minlength=self.N)
        M = binary_csr(np.concatenate(rows), np.concatenate(cols), (self.N, max(len(vocab), 1)))
        return np.diff(M.indptr).astype(np.float64), n_tokens

    def _fit_phi_space(self):
        """Φ rows for neighbours (projected on ``nn_dim`` principal axes when wider) and its row ids."""
        X = np.asarray(self.rep.X, dtype=np.float32)
        self.phi_ids = np.asarray(self.rep.ids).astype(str)
        self.phi_pos = pd.Index(self.ds.ids.astype(str)).get_indexer(self.phi_ids)
        if (self.phi_pos < 0).any():
            raise InputError("the representation does not match the dataset (unknown ids); rebuild it for this dataset.")
        self.pca = None
        if self.nn_dim is not None and X.shape[1] > self.nn_dim:
            self.pca = _pca_basis(X, int(self.nn_dim), self.seed)
        self.phi_nn = _normalise_rows(self._reduce(X))

    def _reduce(self, X):
        if self.pca is None:
            return np.asarray(X, dtype=np.float32)
        mean, axes = self.pca
        return (np.asarray(X, dtype=np.float32) - mean) @ axes

    def _fit_semantic(self):
        self.sem_kind, self.sem = None, None
        if self.pair is None:
            return
        a, b = self.pair
        kind, opts = _spec_parts(self.rep.spec)
        if kind in ("glove", "sbert"):
            from core.representations import represent

            self.sem_kind = ("represent", kind, opts)
            Pa = represent(self.ds, _with_fields(kind, opts, a), cache_dir=self.cache_dir).X
            Pb = represent(self.ds, _with_fields(kind, opts, b), cache_dir=self.cache_dir).X
        else:
            ngram, min_df, dim = ("1-2", 2, 128) if kind != "tfidf-svd" else (opts.get("ngram", "1-2"),
                                                                             opts.get("min_df", 2), opts.get("dim", 128))
            if kind != "tfidf-svd":
                self.notes.append(f"semantic similarity between fields: '{kind}' has no per-field vectors, so a "
                                  "TF-IDF/SVD fitted on both fields stands in.")
            both = _texts(self.ds.table[a]) + _texts(self.ds.table[b])
            space = _TfidfSvd({"text": both}, ngram=ngram, min_df=min_df)
            M = space.matrix({"text": both})
            space.fit_svd(M, dim, self.seed)
            P = np.asarray(M @ space.V, dtype=np.float32)
            Pa, Pb = P[:self.N], P[self.N:]
            self.sem_kind, self.sem = ("tfidf", kind, opts), space
        self._sem_cos = np.sum(_normalise_rows(Pa) * _normalise_rows(Pb), axis=1)

    def _semantic_new(self, example: dict) -> float:
        a, b = self.pair
        if self.sem_kind[0] == "represent":
            _, kind, opts = self.sem_kind
            Pa = self._represent_new(example, _with_fields(kind, opts, a))
            Pb = self._represent_new(example, _with_fields(kind, opts, b))
        else:
            Pa = self.sem.transform({"text": [example[a]]})
            Pb = self.sem.transform({"text": [example[b]]})
        return float(np.sum(_normalise_rows(Pa) * _normalise_rows(Pb)))

    def _represent_new(self, example: dict, spec: str) -> np.ndarray:
        from core.representations import represent

        row = {f: [example[f]] for f in self.fields}
        row[self.ds.label] = [example[self.ds.label]]
        if self.ds.embedding and self.ds.embedding in example:
            row[self.ds.embedding] = [example[self.ds.embedding]]
        tiny = Dataset(table=pd.DataFrame(row, index=pd.Index(["new"], name="id")), label=self.ds.label,
                       text=self.fields, embedding=self.ds.embedding if self.ds.embedding in row else None)
        return np.asarray(represent(tiny, spec, cache_dir=False).X, dtype=np.float32)

    # ------------------------------------------------------------------ dataset components
    def components(self, other: Optional[Dataset] = None, *, progress=None, cancel=None) -> pd.DataFrame:
        """Per-example components, ``dqi`` and lights (``light_<column>``, ``light``), indexed by id.

        Parameters
        ----------
        other : Dataset, optional
            A second split (same columns) for ``inter_split``: the dataset's examples
            nearly identical to one of its examples score low.
        """
        out = pd.DataFrame(index=pd.Index(self.ds.ids.astype(str), name="id"))
        out["vocabulary"] = np.clip(self._R / self.R_ref, 0, 1)
        X = self.X_ngram
        idf = np.log((self.N + 1) / np.maximum(self.df, 1)) / math.log(self.N + 1)
        nnz = np.diff(X.indptr)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["ngram_frequency"] = np.where(nnz > 0, np.asarray(X @ idf).ravel() / np.maximum(nnz, 1), 0.0)
        report(progress, 0.1, "nearest neighbours in Φ")
        nn = np.full(self.N, np.nan)
        best, _ = _max_cosine(self.phi_nn, self.phi_nn, exclude_self=True)
        nn[self.phi_pos] = 1 - np.clip(best, 0, 1)
        out["neighbour"] = nn
        check_cancel(cancel)
        if self.pair is not None:
            a, b = self.pair
            share = _overlap_share(self.tokens[a], self.tokens[b], self.N)
            out["word_overlap"] = 1 - np.clip(share, 0, 1)
            out["semantic_similarity"] = 1 - np.clip(self._sem_cos, 0, 1)
        else:
            out["word_overlap"] = np.nan
            out["semantic_similarity"] = np.nan
        out["label_tied"] = self._label_tied_scores()
        report(progress, 0.7, "inter-split similarity")
        out["inter_split"] = np.nan
        if other is not None:
            check_second_split(self.ds, other)
            Q = self._phi_of_split(other)
            best, _ = _max_cosine(self.phi_nn, _normalise_rows(self._reduce(Q)), exclude_self=False)
            col = np.full(self.N, np.nan)
            col[self.phi_pos] = 1 - np.clip(best, 0, 1)
            out["inter_split"] = col
        out["dqi"] = combine(out, self.weights)
        lit = lights(out[[*COMPONENTS, "dqi"]], self.thresholds)
        for c in COMPONENTS:
            out[f"light_{c}"] = lit[c]
        out["light"] = lit["dqi"]
        report(progress, 1.0, "quality components done")
        return out

    def _label_tied_scores(self) -> np.ndarray:
        X = self.X_ngram
        rows = np.repeat(np.arange(self.N), np.diff(X.indptr))
        zv = self.z[X.indices, self.y[rows]]
        zv = np.where(np.isnan(zv), -np.inf, zv)
        zmax = np.full(self.N, -np.inf)
        np.maximum.at(zmax, rows, zv)
        self.z_own_max = zmax
        zp = np.maximum(np.where(np.isfinite(zmax), zmax, 0.0), 0.0)
        return 1.0 / (1.0 + (zp / self.z_star) ** 2)

    def _phi_of_split(self, other: Dataset) -> np.ndarray:
        kind, _ = _spec_parts(self.rep.spec)
        if kind in ("embedding", "glove", "sbert", "pixels"):
            from core.representations import represent

            return np.asarray(represent(other, self.rep.spec, cache_dir=self.cache_dir).X, dtype=np.float32)
        self._ensure_projector()
        return self.projector.transform(other.table)

    # ------------------------------------------------------------------ feedback
    def _ensure_projector(self):
        if getattr(self, "projector", None) is not None:
            return
        kind, opts = _spec_parts(self.rep.spec)
        self.stand_in = None
        if kind == "tfidf-svd":
            fields = opts["fields"].split("+")
            proj = _TfidfSvd({f: _texts(self.ds.table[f]) for f in fields}, opts.get("ngram", "1-2"),
                             opts.get("min_df", 2))
            M = proj.matrix(self.ds.table.loc[self.rep.ids] if len(self.rep.ids) != self.N else self.ds.table)
            self.projector = proj.recover(M, self.rep.X)
        elif kind in ("glove", "sbert", "embedding"):
            self.projector = None
            self.projector_kind = kind
            return
        else:
            from core.representations import represent

            spec = "tfidf-svd:fields=" + "+".join(self.fields)
            self.stand_in = represent(self.ds, spec, cache_dir=self.cache_dir)
            _, opts = _spec_parts(self.stand_in.spec)
            proj = _TfidfSvd({f: _texts(self.ds.table[f]) for f in self.fields}, opts.get("ngram", "1-2"),
                             opts.get("min_df", 2))
            self.projector = proj.recover(proj.matrix(self.ds.table), self.stand_in.X)
            self.notes.append(f"'{kind}' cannot embed new text, so neighbours and Φ-predictability of new examples use "
                              f"{self.stand_in.spec} instead.")
        self.projector_kind = "tfidf"

    def _phi_new(self, example: dict) -> np.ndarray:
        if self.projector_kind == "tfidf":
            return self.projector.transform({f: [example.get(f, "")] for f in self.projector.fields})
        if self.projector_kind == "embedding":
            col = self.ds.embedding
            if col not in example:
                raise InputError(f"the representation is the embedding column '{col}': give the example's vector "
                                 f"as \"{col}\": [...].")
            return np.asarray(example[col], dtype=np.float32).reshape(1, -1)
        return self._represent_new(example, self.rep.spec)

    def prepare_feedback(self, max_fit_rows: int = 50000) -> None:
        """Fit the map of new text into Φ, the Φ model and the partial-input model (once)."""
        from sklearn.linear_model import LogisticRegression
        from sklearn.preprocessing import StandardScaler

        self._ensure_projector()
        rng = np.random.default_rng(self.seed)
        base = self.stand_in if getattr(self, "stand_in", None) is not None else self.rep
        Xp = np.asarray(base.X, dtype=np.float32)
        ids = np.asarray(base.ids).astype(str)
        pos = pd.Index(self.ds.ids.astype(str)).get_indexer(ids)
        self.nn_space = (self.phi_nn, self.phi_pos) if base is self.rep else (
            _normalise_rows(self._reduce_for(base.X)), pos)
        rows = rng.permutation(len(pos))[:max_fit_rows]
        cut = int(round(0.8 * len(rows)))
        tr, te = rows[:cut], rows[cut:]
        self.phi_scaler = StandardScaler().fit(Xp[tr])
        self.phi_model = LogisticRegression(max_iter=300, C=1.0).fit(self.phi_scaler.transform(Xp[tr]), self.y[pos[tr]])
        self.phi_acc = float(self.phi_model.score(self.phi_scaler.transform(Xp[te]), self.y[pos[te]])) if len(te) else float("nan")
        self.partial = None
        if self.pair is not None:
            b = self.pair[1]
            keep = (self.fm_field == b) & (self.df >= 2)
            cols = np.flatnonzero(keep)
            Xb = self.X_ngram[:, cols]
            self.partial_cols = pd.Index(self.fm_names[cols])
            rows = rng.permutation(self.N)[:max_fit_rows]
            cut = int(round(0.8 * len(rows)))
            tr, te = rows[:cut], rows[cut:]
            model = LogisticRegression(max_iter=300, C=1.0).fit(Xb[tr], self.y[tr])
            acc = float(model.score(Xb[te], self.y[te])) if len(te) else float("nan")
            self.partial = {"field": b, "model": model, "accuracy": acc}
        self.label_share = np.bincount(self.y, minlength=len(self.classes)) / self.N
        self.fitted_feedback = True

    def _reduce_for(self, X):
        X = np.asarray(X, dtype=np.float32)
        if self.nn_dim is not None and X.shape[1] > self.nn_dim:
            self.pca_stand_in = _pca_basis(X, int(self.nn_dim), self.seed)
            mean, axes = self.pca_stand_in
            return (X - mean) @ axes
        self.pca_stand_in = None
        return X

    def check_example(self, example) -> dict:
        """`check_example` against this context's dataset and ``max_chars``."""
        return check_example(self.ds, example, self.max_chars)

    def feedback(self, example, *, k_neighbours: int = 5, max_features: int = 10) -> Feedback:
        """Component scores and lights, label-tied words, partial-input and Φ predictions, nearest
        neighbours and suggestions for ONE new example (a dict or a JSON string)."""
        t0 = time.perf_counter()
        ex = self.check_example(example)
        if not self.fitted_feedback:
            self.prepare_feedback()
        label = ex[self.ds.label]
        li = self.classes.index(label)
        notes = list(self.notes)
        toks = {f: tokenize(ex[f]) for f in self.fields}

        # n-gram features of the example (the names `core.features` gives them)
        names = []
        for f in self.fields:
            t = toks[f]
            grams = set(t) | {f"{x} {y}" for x, y in zip(t[:-1], t[1:])}
            names.extend(f"{g}@{f}" for g in sorted(grams))
        pos = self.name_index.get_indexer(names)
        known = pos[pos >= 0]
        scores = {}
        words = [w for f in self.fields for w in toks[f]]
        R = len(set(words)) / math.sqrt(len(words)) if words else 0.0
        scores["vocabulary"] = float(np.clip(R / self.R_ref, 0, 1))
        df = np.zeros(len(names))
        df[pos >= 0] = self.df[known]
        N1 = self.N + 1
        scores["ngram_frequency"] = float(np.mean(np.log(N1 / (df + 1)) / math.log(N1))) if names else 0.0

        phi = self._phi_new(ex)
        if self.projector_kind == "tfidf" and getattr(self, "stand_in", None) is not None:
            pca = self.pca_stand_in
        else:
            pca = self.pca
        q = phi if pca is None else (phi - pca[0]) @ pca[1]
        q = _normalise_rows(q)[0]
        space, space_pos = self.nn_space
        sims = space @ q
        kk = max(0, min(int(k_neighbours), len(sims)))
        top = np.argpartition(-sims, kk - 1)[:kk] if kk else np.array([], dtype=np.int64)
        top = top[np.argsort(-sims[top], kind="stable")]
        best = float(sims[top[0]]) if kk else 0.0
        scores["neighbour"] = float(1 - np.clip(best, 0, 1))
        neighbours = []
        table = self.ds.table
        for r in top:
            row = table.iloc[int(space_pos[r])]
            neighbours.append({"id": str(table.index[int(space_pos[r])]), "similarity": round(float(sims[r]), 4),
                               "label": row[self.ds.label], **{f: row[f] for f in self.fields}})
        overlap = None
        if self.pair is not None:
            a, b = self.pair
            ta, tb = set(toks[a]), toks[b]
            overlap = sum(1 for w in tb if w in ta) / len(tb)
            scores["word_overlap"] = 1 - overlap
            sem = self._semantic_new(ex)
            scores["semantic_similarity"] = float(1 - np.clip(sem, 0, 1))
        else:
            scores["word_overlap"] = scores["semantic_similarity"] = float("nan")
            sem = None

        # label-tied features: z of the example's n-grams, counting the example itself
        tied = []
        zmax_own = 0.0
        L = len(self.classes)
        p0 = 1.0 / L
        for name, p in zip(names, pos):
            counts = self.counts[p].copy() if p >= 0 else np.zeros(L)
            counts[li] += 1
            n = counts.sum()
            if n < self.min_count:
                continue
            z = (counts / n - p0) / math.sqrt(p0 * (1 - p0) / n)
            zmax_own = max(zmax_own, float(z[li]))
            lab = int(np.argmax(z))
            if z[lab] <= 0:
                continue
            gram, _, fld = name.rpartition("@")
            tied.append({"feature": name, "ngram": gram, "field": fld, "words": gram.split(" "),
                         "label": self.classes[lab], "z": round(float(z[lab]), 2), "z_own": round(float(z[li]), 2),
                         "n": int(n), "p_hat": round(float(counts[lab] / n), 3), "own_label": lab == li,
                         "significant": bool(z[lab] > self.z_star)})
        tied.sort(key=lambda d: -d["z"])
        tied = tied[:max_features]
        scores["label_tied"] = 1.0 / (1.0 + (max(zmax_own, 0.0) / self.z_star) ** 2)
        scores["inter_split"] = float("nan")
        frame = pd.DataFrame([scores])[list(COMPONENTS)]
        dqi = float(combine(frame, self.weights).iloc[0])
        lit = lights({**{c: scores[c] for c in COMPONENTS}, "dqi": dqi}, self.thresholds)
        components = {c: {"score": None if not np.isfinite(scores[c]) else round(float(scores[c]), 4),
                          "light": lit[c], "dqi": DQI_COMPONENTS[c]} for c in COMPONENTS}
        components["dqi"] = {"score": round(dqi, 4), "light": lit["dqi"], "dqi": "combined"}

        partial = None
        if self.partial is not None:
            b = self.partial["field"]
            cols = self.partial_cols.get_indexer([n for n in names if n.endswith("@" + b)])
            cols = np.unique(cols[cols >= 0])
            xb = sp.csr_matrix((np.ones(len(cols), np.float32), (np.zeros(len(cols), int), cols)),
                               shape=(1, len(self.partial_cols)))
            proba = self.partial["model"].predict_proba(xb)[0]
            partial = self._prediction(proba, li, field=b, heldout_accuracy=self.partial["accuracy"])
        proba = self.phi_model.predict_proba(self.phi_scaler.transform(phi))[0]
        stand_in = getattr(self, "stand_in", None)
        representation = self._prediction(proba, li, spec=(stand_in or self.rep).spec, stand_in=stand_in is not None,
                                          heldout_accuracy=self.phi_acc)
        fb = Feedback(example=ex, components=components, light=lit["dqi"], label_tied=tied, partial_input=partial,
                      representation=representation, neighbours=neighbours, suggestions=[], z_star=self.z_star,
                      notes=notes)
        fb.suggestions = self._suggestions(fb, ex, overlap, sem)
        fb.seconds = round(time.perf_counter() - t0, 4)
        return fb

    def _prediction(self, proba, li, **extra) -> dict:
        k = int(np.argmax(proba))
        return {**extra, "predicted": self.classes[k], "confidence": round(float(proba[k]), 4),
                "p_label": round(float(proba[li]), 4), "majority": round(float(self.label_share.max()), 4),
                "probabilities": {str(c): round(float(p), 4) for c, p in zip(self.classes, proba)}}

    def _suggestions(self, fb: Feedback, ex: dict, overlap, sem) -> list:
        out = []
        label = ex[self.ds.label]
        others = [f for f in self.fields if self.pair is not None and f != self.pair[1]]
        without = f"without the {' and '.join(others)}" if others else "from these words alone"
        for t in fb.label_tied:
            if t["own_label"] and t["significant"]:
                out.append(f"'{t['ngram']}' predicts {t['label']}, z = {t['z']:.1f}: the label can be guessed "
                           f"{without}; rephrase it or use it in examples of other labels.")
        p = fb.partial_input
        if p is not None and p["predicted"] == label and p["confidence"] >= max(0.6, p["majority"] + 0.15):
            out.append(f"a {p['field']}-only model predicts {label} with p = {p['confidence']:.2f}: the "
                       f"{p['field']} gives the label away; make the {p['field']} alone fit every label.")
        r = fb.representation
        if r["predicted"] == label and r["confidence"] >= max(0.7, r["majority"] + 0.25):
            out.append(f"a model on Φ ({r['spec']}) predicts {label} with p = {r['confidence']:.2f}: examples like "
                       "this one are easy to label from surface features.")
        comp = fb.components
        if comp["neighbour"]["light"] == "red" and fb.neighbours:
            nb = fb.neighbours[0]
            out.append(f"a near-duplicate is in the dataset (id {nb['id']}, similarity {nb['similarity']:.2f}); "
                       "write a new situation rather than a variant.")
        if comp["word_overlap"]["light"] == "red" and overlap is not None:
            out.append(f"{overlap:.0%} of the {self.pair[1]}'s words are copied from the {self.pair[0]} (a known "
                       "entailment artifact); use your own words.")
        if comp["semantic_similarity"]["light"] == "red" and sem is not None:
            out.append(f"the {self.pair[1]} restates the {self.pair[0]} (similarity {sem:.2f}); say something the "
                       f"{self.pair[0]} does not already say.")
        if comp["vocabulary"]["light"] == "red":
            out.append("few distinct words: use more specific, varied vocabulary.")
        if comp["ngram_frequency"]["light"] == "red":
            out.append("the example is made of phrases most examples use; use less formulaic wording.")
        if not out and fb.light != "green":
            out.append("no single cause stands out; raise the components marked yellow.")
        return out


def check_example(dataset: Dataset, example, max_chars: int = MAX_CHARS) -> dict:
    """One new example (a dict, or a JSON string) as a dict with every text field and the label,
    or `InputError`: not an object, a field or the label missing, an unknown label, empty text,
    text without words, text longer than ``max_chars``."""
    fields, label_col, classes = list(dataset.text), dataset.label, dataset.classes
    if isinstance(example, str):
        import json

        try:
            example = json.loads(example)
        except ValueError as exc:
            raise InputError(f"the example is not valid JSON ({exc}); give e.g. "
                             f"{{\"{fields[-1]}\": \"...\", \"{label_col}\": \"{classes[0]}\"}}.") from None
    if not isinstance(example, Mapping):
        raise InputError(f"the example must be an object with the fields {', '.join(fields)} and "
                         f"'{label_col}', not {type(example).__name__}.")
    need = [*fields, label_col]
    missing = [f for f in need if f not in example]
    if missing:
        raise InputError(f"the example lacks {', '.join(repr(m) for m in missing)}; give every field: {', '.join(need)}.")
    out = dict(example)
    for f in fields:
        v = example[f]
        if not isinstance(v, str):
            raise InputError(f"the example's '{f}' must be text, not {type(v).__name__}.")
        if not v.strip():
            raise InputError(f"the example's '{f}' is empty; write some text.")
        if len(v) > max_chars:
            raise InputError(f"the example's '{f}' has {len(v):,} characters; the limit is {max_chars:,} (max_chars).")
        if not tokenize(v):
            raise InputError(f"the example's '{f}' has no words (only punctuation or symbols); write some text.")
    known = {str(c): c for c in classes}
    if str(example[label_col]) not in known:
        raise InputError(f"the example's label {example[label_col]!r} is not one of the dataset's labels: "
                         f"{', '.join(map(str, classes))}.")
    out[label_col] = known[str(example[label_col])]
    return out


# ============================================================== functions


def quality_scores(dataset: Dataset, rep_spec: Optional[str] = None, *, representation=None,
                   other: Optional[Dataset] = None, **kwargs) -> pd.DataFrame:
    """The per-example components, ``dqi`` and lights of a dataset (see `QualityContext.fit`
    for the keyword arguments; ``other`` is the second split for ``inter_split``)."""
    if other is not None:
        check_second_split(dataset, other)
    progress, cancel = kwargs.pop("progress", None), kwargs.get("cancel")
    ctx = QualityContext.fit(dataset, rep_spec, representation=representation, feedback=False, **kwargs)
    return ctx.components(other, progress=progress, cancel=cancel)


def quality_for_aflite(table: pd.DataFrame, choice: str, ids) -> np.ndarray:
    """The quality column AFLite orders removal by (paper 002): ``"dqi"`` or a component name,
    aligned with the representation's ``ids``; checked by `check_quality`."""
    if choice not in ("dqi", *COMPONENTS):
        raise InputError(f"quality {choice!r} is not dqi or a component ({', '.join(COMPONENTS)}).")
    col = table[choice].reindex(pd.Index(np.asarray(ids).astype(str)))
    if col.isna().all():
        raise InputError(f"the quality component {choice!r} does not apply to this dataset (e.g. inter_split needs a "
                         "second split, word_overlap two text fields); choose dqi or another component.")
    return check_quality(col.to_numpy(dtype=np.float64), f"quality {choice!r}")
