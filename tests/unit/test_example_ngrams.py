"""One example's n-grams are named the way the dataset's feature columns are (issue 43, "algorithms
once": the feedback of a new example built its n-gram names by hand beside `build_features`):
for any texts, the names `example_ngrams` gives an example are exactly the n-gram columns its row
has in the dataset's feature matrix."""
import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as st

from artifact_lens.text.features import FeatureOptions, build_features, example_ngrams
from artifact_lens.text.tokens import tokenize

WORDS = st.sampled_from(["a", "man", "isn't", "SLEEPING", "sleeping", ".", "Ça", "va", "—", "42", "x-y", ""])


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(st.lists(WORDS, max_size=7).map(" ".join), min_size=1, max_size=8),
       bigrams=st.booleans())
def test_an_examples_ngrams_are_its_rows_columns(texts, bigrams):
    ngram_range = (1, 2) if bigrams else (1, 1)
    options = FeatureOptions(lengths=False, overlap_above=(), overlap_below=(), partial_input=None, null=False,
                             ngram_range=ngram_range)
    table = pd.DataFrame({"t": texts}, index=[f"e{i}" for i in range(len(texts))])
    fm = build_features(table, text=["t"], options=options, min_count=1)
    grams = fm.kind == "ngram"
    for row, text in enumerate(texts):
        has = set(fm.names[grams][np.flatnonzero(fm.X[row].toarray()[0][grams])])
        assert has == set(example_ngrams(tokenize(text), "t", ngram_range)), (text, has)
