"""`QualityContext`: fitted once per dataset and Φ, it scores every example (`components`) and
any new one (`feedback`, in milliseconds); `check_example` reads a new example (see `core.quality`)."""
from __future__ import annotations

import time
from typing import Mapping, Optional

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..data.dataset import Dataset, text_values
from ..base.errors import InputError
from ..text.features import build_features, example_ngrams
from ..text.tokens import binary_csr, tokenise_column, tokenize
from ..data.labels import encode_labels
from ..base.progress import check_cancel, report
from ..zstats import tested_z
from ..text.duplicates import DuplicateIndex
from ..representations.neighbours import normalise_rows
from .feedback import Feedback, overall_light
from .quantities import ExampleProbe, measure_dataset, measure_example
from .kernels import TfidfSvd, pca_basis, spec_parts, with_fields
from .scoring import (COMPONENTS, DQI_COMPONENTS, MAX_CHARS, NGRAM_OPTIONS, check_second_split, check_thresholds,
                      check_weights, combine, component_scores, lights)
from ..models import make_model


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
            raise InputError(f"quality needs a core.data.dataset.Dataset, not {type(dataset).__name__}; load one with "
                             "core.data.sources.load_dataset.")
        if not dataset.text:
            raise InputError("the quality components read text: the dataset has no text column; load it with "
                             "--text (e.g. --text premise,hypothesis).")
        if isinstance(min_count, bool) or not isinstance(min_count, (int, np.integer)) or min_count < 1:
            raise InputError(f"min_count={min_count!r} must be a whole number ≥ 1.")
        if nn_dim is not None and (isinstance(nn_dim, bool) or not isinstance(nn_dim, (int, np.integer)) or nn_dim < 1):
            raise InputError(f"nn_dim={nn_dim!r} must be a whole number ≥ 1 or None (exact).")
        if isinstance(max_chars, bool) or not isinstance(max_chars, (int, np.integer)) or max_chars < 1:
            raise InputError(f"max_chars={max_chars!r} must be a whole number ≥ 1.")
        self.weights = check_weights(weights)
        self.thresholds = check_thresholds(thresholds)
        self.ds, self.fields, self.max_chars, self.seed = dataset, list(dataset.text), int(max_chars), int(random_state)
        self.pair = (self.fields[0], self.fields[-1]) if len(self.fields) >= 2 else None
        self.min_count, self.nn_dim, self.notes = int(min_count), nn_dim, []
        self.classes = dataset.classes
        self.y = encode_labels(dataset.y, self.classes, what=dataset.label)[0]
        self.N = len(dataset)
        if representation is None:
            if not rep_spec:
                raise InputError("give a representation spec, e.g. tfidf-svd:fields=hypothesis.")
            from ..representations import represent

            report(progress, 0.0, "representation")
            representation = represent(dataset, rep_spec, cache_dir=cache_dir, cancel=cancel)
        self.rep, self.cache_dir = representation, cache_dir
        check_cancel(cancel)

        report(progress, 0.1, "n-grams and their z-statistics")
        table = dataset.table
        fm = build_features(table, text=self.fields, options=NGRAM_OPTIONS, min_count=1)
        self.fm_names = np.asarray(fm.names, dtype=object)
        self.fm_field = np.asarray(fm.field, dtype=object)
        self.name_index = pd.Index(self.fm_names)
        self.X_ngram = fm.X
        self.df = fm.n.astype(np.float64)
        Y = sp.csr_matrix((np.ones(self.N, np.float32), (np.arange(self.N), self.y)), shape=(self.N, len(self.classes)))
        self.counts = np.asarray((fm.X.T @ Y).todense(), dtype=np.float64)
        _, self.z, self.z_star = tested_z(self.counts, self.df, self.min_count, alpha)
        check_cancel(cancel)

        report(progress, 0.25, "tokens")
        self.tokens = {f: tokenise_column(table[f]) for f in self.fields}
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
            self.pca = pca_basis(X, int(self.nn_dim), self.seed)
        self.phi_nn = normalise_rows(self._reduce(X))

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
        kind, opts = spec_parts(self.rep.spec)
        if kind in ("glove", "sbert"):
            from ..representations import represent

            self.sem_kind = ("represent", kind, opts)
            Pa = represent(self.ds, with_fields(kind, opts, a), cache_dir=self.cache_dir).X
            Pb = represent(self.ds, with_fields(kind, opts, b), cache_dir=self.cache_dir).X
        else:
            ngram, min_df, dim = ("1-2", 2, 128) if kind != "tfidf-svd" else (opts.get("ngram", "1-2"),
                                                                             opts.get("min_df", 2), opts.get("dim", 128))
            if kind != "tfidf-svd":
                self.notes.append(f"semantic similarity between fields: '{kind}' has no per-field vectors, so a "
                                  "TF-IDF/SVD fitted on both fields stands in.")
            both = text_values(self.ds.table[a]) + text_values(self.ds.table[b])
            space = TfidfSvd({"text": both}, ngram=ngram, min_df=min_df)
            M = space.matrix({"text": both})
            space.fit_svd(M, dim, self.seed)
            P = np.asarray(M @ space.V, dtype=np.float32)
            Pa, Pb = P[:self.N], P[self.N:]
            self.sem_kind, self.sem = ("tfidf", kind, opts), space
        self._sem_cos = np.sum(normalise_rows(Pa) * normalise_rows(Pb), axis=1)

    def _semantic_new(self, example: dict) -> float:
        a, b = self.pair
        if self.sem_kind[0] == "represent":
            _, kind, opts = self.sem_kind
            from ..representations import embed_new

            Pa = embed_new(with_fields(kind, opts, a), {a: [example[a]]})
            Pb = embed_new(with_fields(kind, opts, b), {b: [example[b]]})
        else:
            Pa = self.sem.transform({"text": [example[a]]})
            Pb = self.sem.transform({"text": [example[b]]})
        return float(np.sum(normalise_rows(Pa) * normalise_rows(Pb)))

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
        for name, score in component_scores(self.quantities(other, progress=progress, cancel=cancel), self,
                                             self.N).items():
            out[name] = score
        out["dqi"] = combine(out, self.weights)
        lit = lights(out[[*COMPONENTS, "dqi"]], self.thresholds)
        for c in COMPONENTS:
            out[f"light_{c}"] = lit[c]
        out["light"] = lit["dqi"]
        report(progress, 1.0, "quality components done")
        return out

    def quantities(self, other: Optional[Dataset] = None, *, progress=None, cancel=None) -> dict:
        """What the components score (`core.quality.quantities.QUANTITIES`), one value per example of
        the dataset; ``other_split_cosine`` only with a second split, the pair's two only with a pair."""
        if other is not None:
            check_second_split(self.ds, other)
        return measure_dataset(self, other, progress=progress, cancel=cancel)

    def _in_phi(self, values: np.ndarray) -> np.ndarray:
        """Values of the examples in Φ's neighbour space, NaN for the others."""
        col = np.full(self.N, np.nan)
        col[self.phi_pos] = values
        return col

    def _phi_of_split(self, other: Dataset) -> np.ndarray:
        kind, _ = spec_parts(self.rep.spec)
        if kind in ("embedding", "glove", "sbert", "pixels"):
            from ..representations import represent

            return np.asarray(represent(other, self.rep.spec, cache_dir=self.cache_dir).X, dtype=np.float32)
        self._ensure_projector()
        return self.projector.transform({f: text_values(other.table[f]) for f in self.fields})

    # ------------------------------------------------------------------ feedback
    def _ensure_projector(self):
        """The Φ new text is mapped into (`Representation.transform`, nothing fitted again): Φ itself
        when it can embed new text, else a ``tfidf-svd`` stand-in over the fields; with an embedding
        column, the example brings its vector."""
        if getattr(self, "projector", None) is not None:
            return
        from ..representations import represent

        kind, _ = spec_parts(self.rep.spec)
        self.stand_in = None
        if kind == "embedding":
            self.projector, self.projector_kind = None, "embedding"
            return
        rep = self.rep
        if kind == "tfidf-svd" and rep.fitted is None:   # handed in without what it learned: the cache has it
            rep = represent(self.ds, rep.spec, cache_dir=self.cache_dir)
        if not rep.can_transform:
            self.stand_in = rep = represent(self.ds, "tfidf-svd:fields=" + "+".join(self.fields),
                                            cache_dir=self.cache_dir)
            self.notes.append(f"'{kind}' cannot embed new text, so neighbours and Φ-predictability of new examples use "
                              f"{self.stand_in.spec} instead.")
        self.projector, self.projector_kind = rep, "transform"

    def _phi_new(self, example: dict) -> np.ndarray:
        if self.projector_kind == "embedding":
            col = self.ds.embedding
            if col not in example:
                raise InputError(f"the representation is the embedding column '{col}': give the example's vector "
                                 f"as \"{col}\": [...].")
            return np.asarray(example[col], dtype=np.float32).reshape(1, -1)
        return self.projector.transform({f: [example.get(f, "")] for f in self.fields})

    def prepare_feedback(self, max_fit_rows: int = 50000) -> None:
        """Fit the map of new text into Φ, the Φ model and the partial-input model (once)."""
        from sklearn.preprocessing import StandardScaler

        self._ensure_projector()
        rng = np.random.default_rng(self.seed)
        base = self.stand_in if getattr(self, "stand_in", None) is not None else self.rep
        Xp = np.asarray(base.X, dtype=np.float32)
        ids = np.asarray(base.ids).astype(str)
        pos = pd.Index(self.ds.ids.astype(str)).get_indexer(ids)
        self.nn_space = (self.phi_nn, self.phi_pos) if base is self.rep else (
            normalise_rows(self._reduce_for(base.X)), pos)
        rows = rng.permutation(len(pos))[:max_fit_rows]
        cut = int(round(0.8 * len(rows)))
        tr, te = rows[:cut], rows[cut:]
        self.phi_scaler = StandardScaler().fit(Xp[tr])
        self.phi_model = make_model("logistic", 0, {"max_iter": 300}).fit(self.phi_scaler.transform(Xp[tr]), self.y[pos[tr]])
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
            model = make_model("logistic", 0, {"max_iter": 300}).fit(Xb[tr], self.y[tr])
            acc = float(model.score(Xb[te], self.y[te])) if len(te) else float("nan")
            self.partial = {"field": b, "model": model, "accuracy": acc}
        self.label_share = np.bincount(self.y, minlength=len(self.classes)) / self.N
        self.fitted_feedback = True

    def _reduce_for(self, X):
        X = np.asarray(X, dtype=np.float32)
        if self.nn_dim is not None and X.shape[1] > self.nn_dim:
            self.pca_stand_in = pca_basis(X, int(self.nn_dim), self.seed)
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

        # n-gram features of the example, named as the dataset's columns are
        names = [n for f in self.fields for n in example_ngrams(toks[f], f, NGRAM_OPTIONS.ngram_range)]
        pos = self.name_index.get_indexer(names)
        phi = self._phi_new(ex)
        probe = ExampleProbe(self, ex, toks, names, pos, phi, li, k_neighbours, max_features)
        measured = measure_example(self, probe)
        (top, sims, space_pos), (tied, _) = probe.neighbours, probe.label_tied
        overlap, sem = probe.copied, probe.restated
        table = self.ds.table
        neighbours = [{"id": str(table.index[int(space_pos[r])]), "similarity": round(float(sims[r]), 4),
                       "label": table.iloc[int(space_pos[r])][self.ds.label],
                       **{f: table.iloc[int(space_pos[r])][f] for f in self.fields}} for r in top]
        scores = {name: float(v[0]) for name, v in component_scores(measured, self, 1).items()}
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
        light, why = overall_light(components, partial, ex[self.ds.label])
        if why:
            notes.append(why)
        fb = Feedback(example=ex, components=components, light=light, label_tied=tied, partial_input=partial,
                      representation=representation, neighbours=neighbours, suggestions=[], z_star=self.z_star,
                      notes=notes, duplicates=self._duplicates().near(ex))
        fb.suggestions = self._suggestions(fb, ex, overlap, sem)
        fb.seconds = round(time.perf_counter() - t0, 4)
        return fb

    def _duplicates(self) -> DuplicateIndex:
        """The wording index of the dataset's text fields, built on the first feedback."""
        if getattr(self, "_duplicate_index", None) is None:
            self._duplicate_index = DuplicateIndex(self.ds.table, self.fields, label=self.ds.label)
        return self._duplicate_index

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
        if fb.duplicates:   # shared wording, field by field (core.text.duplicates), not closeness in Φ
            dup = fb.duplicates[0]
            shared = ("the same words but one, and the same label" if dup.get("how") == "one word" else
                      f"{dup['overlap']:.0%} of the wording shared in every field")
            out.append(f"a near-duplicate is in the dataset (id {dup['id']}: {shared}); write a new situation rather "
                       "than a variant.")
        elif comp["neighbour"]["light"] == "red" and fb.neighbours:
            nb = fb.neighbours[0]
            out.append(f"the most similar example in Φ (id {nb['id']}, cosine {nb['similarity']:.2f}) is very close "
                       "in the representation, so this one adds little the model has not seen; vary the situation.")
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
