"""What a fitted representation learned from its dataset, kept so that new text maps into the same
Φ without fitting again (`core.representations.Representation.transform`).

``tfidf-svd`` learns, per field, a vocabulary and its IDF weights, and then the truncated SVD's
components: a new text's row is its TF-IDF (the same analyzer, sublinear term frequencies, IDF and
L2 norm as the fit) times the components, which is how the SVD maps any row, the dataset's own
included (to float32 rounding). Stored beside Φ in the cache as one ``.npz`` of plain arrays (no
pickle: a damaged file can only fail to read)."""
from __future__ import annotations

import io

import numpy as np
import scipy.sparse as sp

__all__ = ["FittedTfidfSvd", "FITTED"]

#: the key a builder hands its learned parts to `represent` under (in its ``info``; never stored there)
FITTED = "_fitted"


class FittedTfidfSvd:
    """The learned parts of a ``tfidf-svd`` Φ: ``vocabularies`` and ``idfs`` per field (columns in
    the fit's order), ``components`` (dim × all fields' terms), and the ``ngram`` range."""

    def __init__(self, fields: list, ngram: str, vocabularies: list, idfs: list, components: np.ndarray):
        if not (len(fields) == len(vocabularies) == len(idfs)) or \
                components.shape[1] != sum(len(v) for v in vocabularies):
            raise ValueError("the fitted TF-IDF/SVD's parts do not fit together")
        self.fields, self.ngram = list(fields), str(ngram)
        self.vocabularies, self.idfs = vocabularies, idfs
        self.components = np.asarray(components, dtype=np.float32)

    @classmethod
    def of(cls, fields: list, ngram: str, vectorizers: list, svd) -> "FittedTfidfSvd":
        """From the fitted ``TfidfVectorizer`` of each field and the fitted ``TruncatedSVD``."""
        vocabularies = []
        for vec in vectorizers:
            terms = np.empty(len(vec.vocabulary_), dtype=object)
            for term, column in vec.vocabulary_.items():
                terms[column] = term
            vocabularies.append(terms.astype(str))
        return cls(fields, ngram, vocabularies, [np.asarray(v.idf_, dtype=np.float64) for v in vectorizers],
                   svd.components_)

    def tfidf(self, texts_by_field) -> sp.csr_matrix:
        """The fields' TF-IDF rows of new texts (``field -> list of str``), side by side as in the fit."""
        from sklearn.feature_extraction.text import CountVectorizer
        from sklearn.preprocessing import normalize

        lo, hi = (int(x) for x in self.ngram.split("-"))
        blocks = []
        for fld, terms, idf in zip(self.fields, self.vocabularies, self.idfs):
            counts = CountVectorizer(ngram_range=(lo, hi), vocabulary={t: i for i, t in enumerate(terms)},
                                     dtype=np.float64).transform(list(texts_by_field[fld]))
            counts.data = 1.0 + np.log(counts.data)          # sublinear term frequency
            blocks.append(normalize(counts @ sp.diags(idf), norm="l2").astype(np.float32))
        return sp.hstack(blocks, format="csr", dtype=np.float32)

    def transform(self, texts_by_field) -> np.ndarray:
        """(rows, dim) float32: new texts in Φ's space."""
        return np.asarray(self.tfidf(texts_by_field) @ self.components.T, dtype=np.float32)

    # ------------------------------------------------------------------ the cache's file
    def write(self, fh) -> None:
        arrays = {"components": self.components, "ngram": np.array(self.ngram), "fields": np.array(self.fields)}
        for i, (terms, idf) in enumerate(zip(self.vocabularies, self.idfs)):
            arrays[f"terms_{i}"], arrays[f"idf_{i}"] = terms, idf
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        fh.write(buf.getvalue())

    @staticmethod
    def check(path) -> bool:
        """Whether ``path`` holds every part (its zip index only, no array read); ValueError if not."""
        with np.load(path, allow_pickle=False) as z:
            fields = [str(f) for f in z["fields"]]
            names = {"components", "ngram", "fields"} | {f"{p}_{i}" for p in ("terms", "idf") for i in range(len(fields))}
            if not names <= set(z.files):
                raise ValueError(f"the fitted parts lack {sorted(names - set(z.files))}")
        return True

    @classmethod
    def read(cls, path) -> "FittedTfidfSvd":
        with np.load(path, allow_pickle=False) as z:
            fields = [str(f) for f in z["fields"]]
            return cls(fields, str(z["ngram"]), [z[f"terms_{i}"] for i in range(len(fields))],
                       [z[f"idf_{i}"] for i in range(len(fields))], z["components"])
