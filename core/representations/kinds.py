"""The built-in kinds of representation, one declaration each (`core.representations.spec.Kind`):
its options and their defaults, an example, what it is, its builder, its options' check, whether it
is made for preference pairs, the Data page's inputs it takes and whether it embeds new text (the
warm-up's is in the package's `__init__`, beside its builder). A new kind is one more `register_kind`
call, here or in a module of its own; nothing else lists kinds."""
from __future__ import annotations

from .common import build_embedding
from .pairs import build_pair_diff, build_pair_length, build_pair_style
from .choices import build_choice_diff
from .spec import Kind, check_embedding, check_file, check_pair_diff, check_pixels, check_text, register_kind
from .text import build_glove, build_pixels, build_sbert, build_tfidf_svd
from .vectors import build_file

_PAIR = "it represents a pair of responses, not one text"

for _kind in (
    Kind("embedding", {"column": None}, "embedding or embedding:column=vectors", "Precomputed embedding column",
         build_embedding, check_embedding, new_text="its vectors are a column of the data"),
    Kind("file", {"path": None, "align": None, "id_column": None, "column": None},
         "file:path=emb.npy,align=row or file:path=emb.parquet,align=id,id_column=id",
         "Vectors from a .npy/.npz/Parquet file", build_file, check_file, page_inputs=(("path", "path"),),
         new_text="its vectors were computed elsewhere"),
    Kind("tfidf-svd", {"fields": None, "dim": 128, "ngram": "1-2", "min_df": 2, "seed": 0},
         "tfidf-svd:fields=hypothesis,dim=128,ngram=1-2", "TF-IDF n-grams + SVD (text)", build_tfidf_svd, check_text,
         page_inputs=(("fields", "fields"), ("dim", "dim")), new_text="fitted"),
    Kind("glove", {"fields": None}, "glove:fields=premise+hypothesis", "Averaged GloVe 50-d (extra 'glove')",
         build_glove, check_text, page_inputs=(("fields", "fields"),), new_text="stateless"),
    Kind("sbert", {"model": None, "fields": None, "batch": 64}, "sbert:model=sentence-transformers/all-MiniLM-L6-v2",
         "sentence-transformers (extra 'sbert')", build_sbert, check_text,
         page_inputs=(("fields", "fields"), ("model", "model")), new_text="stateless"),
    Kind("pixels", {"pca": 0, "seed": 0}, "pixels:pca=32", "Image pixels (+PCA)", build_pixels, check_pixels,
         page_inputs=(("dim", "pca"),), new_text="it embeds images, not text"),
    # preference pairs (core.representations.pairs): antisymmetric, Φ(A) − Φ(B)
    Kind("pair-diff", {"dim": 128, "ngram": "1-2", "min_df": 2, "seed": 0, "prompt": 0}, "pair-diff:dim=128",
         "Preference pairs: TF-IDF of the two responses, A − B, + SVD (antisymmetric)", build_pair_diff,
         check_pair_diff, pairs=True, page_inputs=(("dim", "dim"),), new_text=_PAIR),
    Kind("pair-style", {}, "pair-style", "Preference pairs: the style features' differences (style only)",
         build_pair_style, pairs=True, new_text=_PAIR),
    Kind("pair-length", {}, "pair-length", "Preference pairs: the difference in length (length only)",
         build_pair_length, pairs=True, new_text=_PAIR),
    # multiple-choice items (core.representations.choices): each option against its item's mean
    Kind("choice-diff", {"dim": 32, "ngram": "1-2", "min_df": 2, "seed": 0}, "choice-diff:dim=32",
         "Multiple-choice items: each option's TF-IDF + SVD and length, against its item's mean", build_choice_diff,
         items=True, page_inputs=(("dim", "dim"),), new_text="it represents an item's options together"),
):
    register_kind(_kind)
del _kind
