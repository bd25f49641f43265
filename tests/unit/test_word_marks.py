"""Giveaway words are marked on whole words, never inside another word, and never nested
(issue 21, item 2): `dashboard.services.creation.marked`."""
import re

from hypothesis import given, settings, strategies as st

from artifact_lens.text.tokens import tokenize
from artifact_lens.dashboard.services.creation import marked

MARK = re.compile(r"⟦([^⟦⟧]*?): ([^⟦⟧]*)⟧")


def test_the_issues_cases():
    assert marked("A musician performs for commuters.", [("for", "neutral")]) == \
        "A musician performs ⟦for: neutral⟧ commuters."
    assert marked("He performs.", [("for", "neutral")]) == "He performs."          # not inside "performs"
    assert marked("The man is sleeping now", [("sleeping", "z 9"), ("is sleeping", "z 5")]) == \
        "The man is ⟦sleeping: z 9⟧ now"                          # the most telling first; no nesting
    assert marked("The man is sleeping now", [("is sleeping", "z 9"), ("sleeping", "z 5")]) == \
        "The man ⟦is sleeping: z 9⟧ now"
    assert marked("Nobody isn't here.", [("isnt", "c"), ("nobody", "c")]) == "⟦Nobody: c⟧ ⟦isn't: c⟧ here."


WORDS = st.sampled_from(["a", "man", "is", "sleeping", "for", "performs", "nobody", "isn't", "dog."])


@settings(max_examples=150, deadline=None)
@given(words=st.lists(WORDS, min_size=1, max_size=10),
       grams=st.lists(st.lists(WORDS, min_size=1, max_size=3), max_size=4))
def test_marks_are_whole_words_and_never_nest(words, grams):
    text = " ".join(words)
    marks = [(" ".join(t for w in g for t in tokenize(w)), "note") for g in grams]
    marks = [(g, n) for g, n in marks if g]
    out = marked(text, marks)
    assert out.count("⟦") == out.count("⟧") == len(MARK.findall(out))   # balanced, none inside another
    assert MARK.sub(lambda m: m.group(1), out) == text                    # the text itself is unchanged
    for inner, _ in MARK.findall(out):
        assert " ".join(tokenize(inner)) in {g for g, _ in marks}        # each mark is one of the n-grams, whole
