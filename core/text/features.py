"""Task-independent features of text examples (paper 004, Appendix B, Table 11).

These are the "simple features" whose correlation with the label z-statistics
measure (`core.zstats`): if a feature x is task-independent, p(l | x) should be
uniform over the labels l. The feature set is generic for any text dataset and
NLI-aware when two text fields form a pair (premise a, hypothesis b):

==========================  ==========================================  =========
feature name                what it is                                  ``kind``
==========================  ==========================================  =========
``null``                    on every example (its z = label imbalance)  null
``sleeping@hypothesis``     a unigram or bigram of a text field          ngram
``hypothesis-len<5``        the field's length in tokens, binned         length
``len-ratio0.5-0.75``       len(b) / len(a) of the pair, binned          ratio
``lex-overlap>0.8``         share of b's tokens found in a, thresholds   overlap
``full-lex-overlap``        every token of b occurs in a                 overlap
``hypothesis-only-pred=x``  a cross-fitted b-only model predicts x       pred
``genre=fiction``           a user-marked boolean/categorical column     column
==========================  ==========================================  =========

Tokenisation is `core.text.tokens` (as Gardner et al. 2021: lowercase, punctuation deleted,
whitespace split); `build_features` uses its vectorised `tokenise_column`.

Speed: tokens are dictionary-encoded by pyarrow, bigrams are integer pairs of
token codes, and the example x feature matrix is assembled directly as a binary
scipy CSR matrix; there is no per-token Python loop (550k SNLI-sized pairs in
well under 30 s on 2 cores, see ``benchmarks/zstats_bench.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from typing import Optional, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import scipy.sparse as sp

from ..base.errors import InputError
from ..base.progress import check_cancel, report
from .partial_model import cross_fitted_nb
from .tokens import binary_csr, keep_columns, tokenise_column

KINDS = ("null", "pred", "overlap", "ratio", "length", "column", "ngram")


@dataclass
class FeatureOptions:
    """Which features to build (paper 004, Table 11) and their bins.

    Parameters
    ----------
    ngram_range : (int, int)
        Smallest and largest n of the n-grams of each text field; (1, 2) =
        unigrams and bigrams (the paper), (1, 1) = unigrams only.
    lengths : bool
        Add each text field's length in tokens, binned at `length_bins`.
    length_bins : sequence of int
        Increasing bin edges: (5, 10) gives ``<5``, ``5-9``, ``>=10``.
    ratio_bins : sequence of float
        Increasing bin edges of the pair's length ratio len(b) / len(a).
    overlap_above : sequence of float
        Thresholds t of the pair's lexical overlap: feature ``lex-overlap>t``
        on examples whose share of b's tokens found in a exceeds t.
    overlap_below : sequence of float
        Thresholds t of low overlap: feature ``lex-overlap<t``.
    partial_input : "auto", None or list of str
        Text fields that each get a cross-fitted partial-input model whose
        prediction is a feature (``<field>-only-pred=<label>``). "auto": the
        second field of the pair (the hypothesis-only model of the paper), none
        without a pair.
    partial_folds : int
        Folds of the cross-fitting: every example's prediction comes from a
        model that never saw it.
    null : bool
        Add the ``null`` feature on every example.
    """

    ngram_range: tuple = (1, 2)
    lengths: bool = True
    length_bins: Sequence[int] = (5, 10, 15, 20, 30)
    ratio_bins: Sequence[float] = (0.25, 0.5, 0.75, 1.0, 1.5)
    overlap_above: Sequence[float] = (0.5, 0.6, 0.7, 0.8, 0.9)
    overlap_below: Sequence[float] = (0.1, 0.2)
    partial_input: object = "auto"
    partial_folds: int = 5
    null: bool = True

    def validate(self) -> None:
        lo, hi = tuple(self.ngram_range)
        if not (1 <= lo <= hi <= 2):
            raise InputError(
                f"ngram_range={tuple(self.ngram_range)!r} is not supported; use (1, 1) or (1, 2) or (2, 2)."
            )
        for name in ("length_bins", "ratio_bins"):
            edges = np.asarray(getattr(self, name), dtype=float)
            if edges.ndim != 1 or np.any(np.diff(edges) <= 0):
                raise InputError(f"{name}={tuple(edges)!r} must be increasing bin edges, e.g. (5, 10, 15).")
        for name in ("overlap_above", "overlap_below"):
            t = np.asarray(getattr(self, name), dtype=float)
            if np.any((t < 0) | (t > 1)):
                raise InputError(f"{name}={tuple(t)!r}: overlap thresholds are shares in [0, 1].")
        if int(self.partial_folds) < 2:
            raise InputError(f"partial_folds={self.partial_folds!r} must be at least 2 (cross-fitting).")


@dataclass
class FeatureMatrix:
    """A binary example x feature matrix.

    Attributes
    ----------
    X : scipy.sparse.csr_matrix, float32, shape (N, F)
        X[i, j] = 1 when example i has feature j.
    names : ndarray of str, shape (F,)
        Feature names (``sleeping@hypothesis``, ``hypothesis-len<5``, ...).
    kind : ndarray of str, shape (F,)
        One of `KINDS`.
    field : ndarray of str, shape (F,)
        The text field (or column) a feature comes from; "" for ``null``.
    ids : ndarray, shape (N,)
        Example ids of the rows.
    info : dict
        Tokenisation rule, options, partial-input model accuracy, vocabulary sizes.
    """

    X: sp.csr_matrix
    names: np.ndarray
    kind: np.ndarray
    field: np.ndarray
    ids: np.ndarray
    info: dict = dc_field(default_factory=dict)
    _n: Optional[np.ndarray] = dc_field(default=None, repr=False, compare=False)

    @property
    def n(self) -> np.ndarray:
        """Number of examples having each feature, shape (F,)."""
        if self._n is None:
            self._n = np.bincount(self.X.indices, minlength=self.X.shape[1])
        return self._n

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame({"feature": self.names, "kind": self.kind, "field": self.field, "n": self.n})

    def rows(self, index) -> "FeatureMatrix":
        """The same features for a subset of rows (positions or a boolean mask)."""
        index = np.asarray(index)
        return FeatureMatrix(self.X[index], self.names, self.kind, self.field, self.ids[index], dict(self.info))

    def columns(self, keep: np.ndarray) -> "FeatureMatrix":
        """The same rows with a subset of features (boolean mask over features)."""
        keep = np.asarray(keep, dtype=bool)
        return FeatureMatrix(
            keep_columns(self.X, keep), self.names[keep], self.kind[keep], self.field[keep], self.ids, dict(self.info)
        )

    def features_of(self, row: int) -> list:
        """Names of the features example `row` (a position) has."""
        lo, hi = self.X.indptr[row], self.X.indptr[row + 1]
        return self.names[self.X.indices[lo:hi]].tolist()


def _one_hot(codes: np.ndarray, n_cols: int) -> sp.csr_matrix:
    """Rows with code -1 stay empty."""
    rows = np.flatnonzero(codes >= 0)
    return binary_csr(rows, codes[rows], (len(codes), n_cols))


# --------------------------------------------------------------------------- feature blocks


@dataclass
class _Block:
    X: sp.csr_matrix
    names: list
    kind: str
    field: str


def ngram_matrix(codes, doc, V: int, n_docs: int, ngram_range=(1, 2), *, binary: bool = True) -> tuple:
    """(X, n_uni, bigrams): the n-grams of tokenised texts (`core.text.tokens.tokenise_column`'s
    ``codes`` and ``doc`` over a vocabulary of ``V``), a row per text: the ``n_uni`` unigram
    columns first (the vocabulary's order), then one per bigram of consecutive tokens of one text,
    ``bigrams`` = (first codes, second codes) or None. Present or not (``binary``), else counted.
    The one place n-grams are counted: the z-statistics' features, the pair and option cue tables."""
    lo, hi = ngram_range
    rows, cols = [], []
    if lo <= 1:
        rows.append(doc)
        cols.append(codes)
    n_uni = V if lo <= 1 else 0
    bigrams = None
    if hi >= 2 and len(codes) > 1:
        same = doc[1:] == doc[:-1]
        key = codes[:-1][same] * V + codes[1:][same]
        bcodes, bkeys = pd.factorize(key)
        rows.append(doc[:-1][same])
        cols.append(n_uni + bcodes.astype(np.int64))
        bigrams = (bkeys // V, bkeys % V)
    n_cols = n_uni + (len(bigrams[0]) if bigrams is not None else 0)
    rows = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    cols = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    if binary:
        return binary_csr(rows, cols, (n_docs, n_cols)), n_uni, bigrams
    return sp.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows, cols)), shape=(n_docs, n_cols)), n_uni, bigrams


def token_ngrams(texts, *, binary: bool = False) -> tuple:
    """(M, names, kinds): the words and bigrams of ``texts`` (a row each, counted or, with
    ``binary``, present or not) over their shared vocabulary, with each column's name ("a cat")
    and kind ("word" or "bigram")."""
    from .tokens import tokenise_column

    codes, doc, vocab = tokenise_column(np.asarray(texts, dtype=object))
    M, n_uni, bigrams = ngram_matrix(codes, doc, len(vocab), len(texts), binary=binary)
    names = _ngram_names(vocab, n_uni, bigrams, np.ones(M.shape[1], dtype=bool), None)
    kinds = ["word"] * n_uni + ["bigram"] * (len(names) - n_uni)
    return M, names, np.asarray(kinds, dtype=object)


def _ngram_block(codes, doc, vocab, n_docs, field, ngram_range) -> tuple:
    """Binary n-gram matrix of one field plus its per-example token counts."""
    X, n_uni, bigram_names = ngram_matrix(codes, doc, len(vocab), n_docs, ngram_range)
    return X, n_uni, bigram_names, np.bincount(doc, minlength=n_docs)


def example_ngrams(tokens: Sequence[str], field: str, ngram_range: tuple = (1, 2)) -> list:
    """The n-gram feature names ``<ngram>@<field>`` one example's ``tokens`` (`core.text.tokens.tokenize`)
    has, sorted: the names `build_features` gives the columns the example's row has (one new
    example's features, e.g. the Create page's feedback, read the dataset's columns by these):
    `ngram_matrix` and `_ngram_names` on a dataset of one text, so the rule is the dataset's."""
    codes, vocab = pd.factorize(pd.Series(list(tokens), dtype=object))
    X, n_uni, bigrams = ngram_matrix(codes.astype(np.int64), np.zeros(len(codes), np.int64), len(vocab), 1,
                                     ngram_range)
    grams = sorted(_ngram_names(np.asarray(vocab, dtype=object), n_uni, bigrams, np.ones(X.shape[1], bool), None))
    return [f"{g}@{field}" for g in grams]


def _ngram_names(vocab, n_uni, bigram_names, keep, field) -> np.ndarray:
    """Names ``<ngram>@<field>`` of the kept n-gram columns (vectorised with pyarrow): a bigram is its
    two words joined by a space; ``field`` None names the n-gram alone. The one place n-grams are named."""
    def lit(x):
        return pa.scalar(x, type=pa.large_string())

    # binary_join_element_wise joins all but its last argument, using the last as separator.
    suffix, nothing, space = lit("" if field is None else "@" + field), lit(""), lit(" ")
    voc = pa.array(vocab, type=pa.large_string())
    parts = []
    if n_uni:
        parts.append(pc.binary_join_element_wise(voc.filter(pa.array(keep[:n_uni])), suffix, nothing))
    if bigram_names is not None:
        k_bi = keep[n_uni:]
        first = voc.take(pa.array(bigram_names[0][k_bi]))
        second = voc.take(pa.array(bigram_names[1][k_bi]))
        parts.append(pc.binary_join_element_wise(first, space, second, suffix, nothing))
    out = [np.asarray(p.to_numpy(zero_copy_only=False), dtype=object) for p in parts]
    return np.concatenate(out) if out else np.zeros(0, dtype=object)


def _bin_names(prefix: str, edges, fmt) -> list:
    names = [f"{prefix}<{fmt(edges[0])}"]
    names += [f"{prefix}{fmt(a)}-{fmt(b)}" for a, b in zip(edges[:-1], edges[1:])]
    names.append(f"{prefix}>={fmt(edges[-1])}")
    return names


def _fmt_num(x) -> str:
    return f"{x:g}"


def _length_block(lengths, field, edges) -> _Block:
    edges = list(edges)
    codes = np.searchsorted(np.asarray(edges), lengths, side="right")
    # Integer bins read as "5-9" (inclusive upper end), as the paper's "hypo-len < 5".
    names = [f"{field}-len<{edges[0]}"]
    names += [f"{field}-len{a}-{b - 1}" if b - 1 > a else f"{field}-len{a}" for a, b in zip(edges[:-1], edges[1:])]
    names.append(f"{field}-len>={edges[-1]}")
    return _Block(_one_hot(codes, len(edges) + 1), names, "length", field)


def _ratio_block(len_a, len_b, field, edges) -> _Block:
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = len_b / len_a
    codes = np.searchsorted(np.asarray(edges, dtype=float), ratio, side="right")
    codes[len_a == 0] = -1  # undefined ratio: no ratio feature
    return _Block(_one_hot(codes, len(edges) + 1), _bin_names("len-ratio", list(edges), _fmt_num), "ratio", field)


def overlap_share(tok_a, tok_b, n_docs) -> np.ndarray:
    """Share of b's tokens (with repeats) whose word occurs in a, per example; NaN when b is empty."""
    codes_a, doc_a, vocab_a = tok_a
    codes_b, doc_b, vocab_b = tok_b
    in_a = pd.Index(vocab_a).get_indexer(vocab_b)  # b's word -> a's word id, -1 if unseen in a
    A = binary_csr(doc_a, codes_a, (n_docs, len(vocab_a)))
    mapped = in_a[codes_b]
    seen = mapped >= 0
    # B counts each b token (repeats summed) in a's vocabulary space.
    B = sp.csr_matrix(
        (np.ones(int(seen.sum()), np.float32), (doc_b[seen], mapped[seen])), shape=(n_docs, len(vocab_a))
    )
    hits = np.asarray(B.multiply(A).sum(axis=1)).ravel()
    len_b = np.bincount(doc_b, minlength=n_docs)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(len_b > 0, hits / len_b, np.nan)


def _overlap_block(share, field, above, below) -> _Block:
    cols, names = [], []
    for t in above:
        cols.append(share > t)
        names.append(f"lex-overlap>{_fmt_num(t)}")
    cols.append(share >= 1.0)
    names.append("full-lex-overlap")
    for t in below:
        cols.append(share < t)
        names.append(f"lex-overlap<{_fmt_num(t)}")
    M = np.column_stack(cols) & ~np.isnan(share)[:, None]
    rows, cs = np.nonzero(M)
    return _Block(binary_csr(rows, cs, M.shape), names, "overlap", field)


#: a numeric column with more distinct values than this is cut into `COLUMN_BINS` quantile bins
COLUMN_VALUES_MAX = 20
COLUMN_BINS = 5


def _column_block(values: pd.Series, column: str) -> _Block:
    """One feature per value of a user's column (annotator, source, genre…); a numeric column with
    many values (a length, a score) is cut into `COLUMN_BINS` quantile bins, ``column∈(lo, hi]``,
    so "long hypotheses are neutral" is a feature like any other. Missing values are no feature."""
    numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    if numeric and values.nunique() > COLUMN_VALUES_MAX:
        x = values.to_numpy(dtype=np.float64)
        seen = ~np.isnan(x)
        if not np.isfinite(x[seen]).all():
            raise InputError(f"feature column {column!r} holds infinite numbers; give finite values (or none).")
        # quantile edges, repeated ones merged; bin i is (edges[i], edges[i + 1]], the first closed
        edges = np.unique(np.quantile(x[seen], np.linspace(0, 1, COLUMN_BINS + 1)))
        codes = np.full(len(x), -1, dtype=np.int64)   # a missing value is no feature
        codes[seen] = np.clip(np.searchsorted(edges, x[seen], side="left") - 1, 0, len(edges) - 2)
        return _Block(_one_hot(codes, len(edges) - 1), _quantile_bin_names(column, edges), "column", column)
    if values.dtype == object:
        values = _column_values(values, column)
    codes, uniques = pd.factorize(values, sort=True)  # NaN -> -1 (no feature)
    names = [f"{column}={u}" for u in uniques]
    return _Block(_one_hot(codes.astype(np.int64), len(uniques)), names, "column", column)


def _column_values(values: pd.Series, column: str) -> pd.Series:
    """A column of mixed cells as one value per example, each as it reads: ``True`` and ``1`` (or
    ``False`` and ``0``), equal to Python, stay two values. A cell that holds several values (a list,
    a dict, an array) is refused, naming the example: a feature is one value per example."""
    out = []
    for example, v in zip(values.index, values):
        if v is None or (isinstance(v, float) and np.isnan(v)):
            out.append(None)
        elif isinstance(v, (list, tuple, dict, set, frozenset, np.ndarray)):
            raise InputError(f"feature column {column!r} holds {type(v).__name__}s, not single values (example "
                             f"{str(example)[:60]!r}: {str(v)[:60]}); a feature is one value per example (a boolean, "
                             "a number or a category): give a column of single values, or one column per item.")
        else:
            out.append(str(v))
    return pd.Series(out, index=values.index, dtype=object)


def _quantile_bin_names(column: str, edges: np.ndarray) -> list:
    """``column∈(lo, hi]`` for each bin, with as many digits as it takes for the names to differ."""
    for digits in (4, 6, 10, 17):
        names = [f"{column}∈({lo:.{digits}g}, {hi:.{digits}g}]" for lo, hi in zip(edges[:-1], edges[1:])]
        if len(set(names)) == len(names):
            return names
    return [f"{column}∈({lo!r}, {hi!r}]" for lo, hi in zip(edges[:-1], edges[1:])]


# --------------------------------------------------------------------------- validation


def check_text_columns(table: pd.DataFrame, text: Sequence[str]) -> list:
    """Fail early when a chosen text column is missing or does not hold strings."""
    text = [text] if isinstance(text, str) else list(text)
    for col in text:
        if col not in table.columns:
            raise InputError(
                f"text column {col!r} is not in the data; its columns are {list(map(str, table.columns))}. "
                f"Pass text=[...] with columns that hold the text."
            )
        s = table[col]
        if pd.api.types.is_bool_dtype(s) or pd.api.types.is_numeric_dtype(s):
            raise InputError(
                f"column {col!r} was chosen as text but holds {s.dtype} values, not text. "
                f"Choose columns of strings as text (e.g. text=['premise', 'hypothesis']), or mark it as a feature."
            )
        sample = s.dropna()
        sample = sample.iloc[: min(len(sample), 2000)]
        bad = sample[[not isinstance(v, str) for v in sample]]
        if len(bad):
            raise InputError(
                f"column {col!r} was chosen as text but holds {type(bad.iloc[0]).__name__} values "
                f"(e.g. {bad.iloc[0]!r:.60}), not strings. Choose columns of strings as text."
            )
    return text


# --------------------------------------------------------------------------- main entry


def build_features(
    table: pd.DataFrame,
    *,
    text: Sequence[str],
    y_codes: Optional[np.ndarray] = None,
    classes: Optional[Sequence] = None,
    pair: Optional[tuple] = None,
    columns: Sequence[str] = (),
    options: Optional[FeatureOptions] = None,
    min_count: int = 1,
    fit_rows: Optional[np.ndarray] = None,
    random_state=0,
    progress=None,
    cancel=None,
) -> FeatureMatrix:
    """Build the binary example x feature matrix of paper 004's feature set X.

    Parameters
    ----------
    table : DataFrame
        The examples; its index gives the ids.
    text : list of str
        Text columns; each gets n-gram and length features.
    y_codes : int array (N,), optional
        Label codes 0..L-1 (needed for the partial-input prediction features).
    classes : sequence, optional
        Label names for the codes (feature names ``...-pred=<label>``).
    pair : (a, b) or None
        Two text columns forming a pair (premise a, hypothesis b): adds the length
        ratio len(b)/len(a), the lexical overlap of b with a and, by default, the
        b-only model's prediction.
    columns : list of str
        User-marked boolean or categorical columns (``<column>=<value>``).
    options : FeatureOptions, optional
        Which features and bins; defaults as in the paper.
    min_count : int
        Keep only features present in at least this many examples.
    fit_rows : bool array (N,), optional
        Rows the partial-input models may learn from (default: all). Those rows
        get out-of-fold predictions; the others a model fitted on all of them
        (conditional z-filtering trains on the seed, as the paper trains on D0).
    random_state : int
        Seed of the cross-fitting folds.
    progress, cancel
        See `core.base.progress`.

    Returns
    -------
    FeatureMatrix
    """
    options = options or FeatureOptions()
    options.validate()
    text = check_text_columns(table, text)
    N = len(table)
    if pair is not None:
        pair = tuple(pair)
        if len(pair) != 2 or any(p not in text for p in pair):
            raise InputError(f"pair={pair!r} must be two of the text columns {text}.")
    if fit_rows is None:
        fit_rows = np.ones(N, dtype=bool)
    blocks: list = []
    info = {
        "tokenisation": "lowercase; delete every character that is not a letter, digit, mark or whitespace; "
        "split on whitespace (as Gardner et al. 2021)",
        "options": {k: (list(v) if isinstance(v, (tuple, list)) else v) for k, v in vars(options).items()},
        "min_count": int(min_count),
        "vocabulary": {},
    }
    if options.null:
        blocks.append(_Block(sp.csr_matrix(np.ones((N, 1), np.float32)), ["null"], "null", ""))

    tokens, ngrams = {}, []
    steps = len(text) + 2
    for i, col in enumerate(text):
        check_cancel(cancel)
        report(progress, i / steps, f"tokenising {col}")
        tok = tokenise_column(table[col])
        tokens[col] = tok
        Xf, n_uni, bigram_names, lengths = _ngram_block(*tok, N, col, tuple(options.ngram_range))
        ngrams.append((col, Xf, n_uni, bigram_names, tok[2]))
        info["vocabulary"][col] = int(len(tok[2]))
        if options.lengths:
            blocks.append(_length_block(lengths, col, options.length_bins))

    check_cancel(cancel)
    report(progress, len(text) / steps, "pair and model features")
    if pair is not None:
        blocks += _pair_blocks(tokens, pair, N, options)
    blocks += _partial_blocks(ngrams, tokens, text, pair, y_codes, classes, fit_rows, options, random_state, info)
    for col in columns:
        if col not in table.columns:
            raise InputError(f"feature column {col!r} is not in the data; its columns are {list(table.columns)}.")
        blocks.append(_column_block(table[col], col))

    report(progress, (steps - 1) / steps, "assembling the feature matrix")
    fm = _assembled(blocks, ngrams, min_count, table.index.to_numpy(dtype=object), N, info, cancel)
    report(progress, 1.0, f"{fm.X.shape[1]} features")
    return fm


def _pair_blocks(tokens: dict, pair: tuple, N: int, options) -> list:
    """The pair's features: the length ratio len(b)/len(a) and b's lexical overlap with a."""
    a, b = pair
    len_a = np.bincount(tokens[a][1], minlength=N).astype(float)
    len_b = np.bincount(tokens[b][1], minlength=N).astype(float)
    share = overlap_share(tokens[a], tokens[b], N)
    return [_ratio_block(len_a, len_b, f"{b}/{a}", options.ratio_bins),
            _overlap_block(share, f"{b}/{a}", options.overlap_above, options.overlap_below)]


def _partial_blocks(ngrams, tokens, text, pair, y_codes, classes, fit_rows, options, random_state, info) -> list:
    """The partial-input models' predictions, one block per field a model reads alone (cross-fitted
    naive Bayes on its n-grams); their accuracies go to ``info``."""
    partial = options.partial_input
    if isinstance(partial, str) and partial == "auto":
        partial = [pair[1]] if pair is not None else []
    partial = [partial] if isinstance(partial, str) else list(partial or [])
    if not partial or y_codes is None or classes is None:
        return []
    blocks = []
    info["partial_accuracy"] = {}
    for col in partial:
        if col not in tokens:
            raise InputError(f"partial_input field {col!r} is not one of the text columns {text}.")
        Xf = next(x for c, x, *_ in ngrams if c == col)
        pred, acc = cross_fitted_nb(
            Xf, np.asarray(y_codes), len(classes), np.asarray(fit_rows, bool), int(options.partial_folds),
            random_state=random_state,
        )
        info["partial_accuracy"][col] = acc
        names = [f"{col}-only-pred={c}" for c in classes]
        blocks.append(_Block(_one_hot(pred, len(classes)), names, "pred", col))
    return blocks


def _assembled(blocks, ngrams, min_count: int, ids, N: int, info: dict, cancel) -> "FeatureMatrix":
    """The blocks side by side, n-grams last (pruned to ``min_count`` before their names are built),
    without the bins and columns fewer than ``min_count`` examples have."""
    mats, names, kinds, fields = [], [], [], []
    for blk in blocks:
        mats.append(blk.X)
        names.append(np.asarray(blk.names, dtype=object))
        kinds.append(np.full(len(blk.names), blk.kind, dtype=object))
        fields.append(np.full(len(blk.names), blk.field, dtype=object))
    for col, Xf, n_uni, bigram_names, vocab in ngrams:
        check_cancel(cancel)
        df = np.bincount(Xf.indices, minlength=Xf.shape[1])
        keep = df >= min_count
        mats.append(keep_columns(Xf, keep))
        nm = _ngram_names(vocab, n_uni, bigram_names, keep, col)
        names.append(nm)
        kinds.append(np.full(len(nm), "ngram", dtype=object))
        fields.append(np.full(len(nm), col, dtype=object))
    X = sp.hstack(mats, format="csr", dtype=np.float32) if mats else sp.csr_matrix((N, 0), dtype=np.float32)
    names = np.concatenate(names) if names else np.zeros(0, object)
    kinds = np.concatenate(kinds) if kinds else np.zeros(0, object)
    fields = np.concatenate(fields) if fields else np.zeros(0, object)
    fm = FeatureMatrix(X, names, kinds, fields, ids, info)
    # Bins and columns nobody has (or fewer than min_count) are not features of this data.
    n = fm.n
    rare = (kinds != "ngram") & (n < max(int(min_count), 1))
    if rare.any():
        fm = fm.columns(~rare)
    return fm


def feature_matrix(dataset) -> "FeatureMatrix":
    """The binary example × feature matrix of a `core.data.dataset.Dataset`'s simple features (its
    text fields, a pair's overlap features when it has two, and its feature columns)."""
    from ..data.labels import encode_labels

    y, classes = encode_labels(dataset.y, dataset.classes, what=dataset.label)
    pair = tuple(dataset.text) if len(dataset.text) == 2 else None
    return build_features(dataset.table, text=dataset.text, y_codes=y, classes=list(classes), pair=pair,
                          columns=dataset.features or ())


def ids_with_feature(fm: "FeatureMatrix", name: str) -> np.ndarray:
    """Ids (text) of the examples that carry feature ``name``; empty when no feature has that name."""
    hits = np.flatnonzero(fm.names == name)
    if not len(hits):
        return np.array([], dtype=str)
    return np.asarray(fm.ids)[fm.X[:, int(hits[0])].nonzero()[0]].astype(str)
