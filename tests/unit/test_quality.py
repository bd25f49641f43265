"""core.quality: each component's range and direction on tiny hand-made data, lights, the combined
score, feedback for one new example, bad input, DQI-guided pruning, and fidelity on SNLI dev."""
import json

import numpy as np
import pandas as pd
import pytest

from artifact_lens.data.dataset import Dataset
from artifact_lens.base.errors import InputError
from artifact_lens.quality import (COMPONENTS, DEFAULT_THRESHOLDS, QualityContext, check_quality, combine,
                          lights, quality_for_aflite, quality_scores)
from artifact_lens.representations import represent
from artifact_lens.data.sources import load_dataset
from artifact_lens.quality.pruning import compare_pruning

SPEC = "tfidf-svd:fields=hypothesis,dim=16"

PREMISES = ["A man plays a red guitar on a stage.", "Two children run across a green field.",
            "A woman reads a thick book in a quiet library.", "A chef cooks pasta in a busy kitchen.",
            "An old dog sleeps beside the warm fire.", "Three friends climb a steep rocky mountain.",
            "A girl paints a colourful mural on a wall.", "A boy kicks a ball towards the goal.",
            "Workers repair the road near the bridge.", "A couple dances slowly at a wedding."]
HYPS = {"contradiction": ["Nobody is outside.", "The room is empty.", "A cat swims in the sea.", "Nobody is here."],
        "entailment": ["Someone is doing something.", "A person is present.", "People are active.", "There is a scene."],
        "neutral": ["They are happy about the weather.", "It is a sunny birthday.", "The event is for charity.",
                    "A tall stranger is watching them."]}


def tiny() -> Dataset:
    """40 hand-made pairs; row 0's hypothesis copies its premise, rows 1 and 2 are the same pair."""
    rows = []
    for i in range(40):
        label = ["contradiction", "entailment", "neutral"][i % 3]
        rows.append({"premise": PREMISES[i % 10], "hypothesis": HYPS[label][(i // 3) % 4] + f" Item {i}.",
                     "label": label})
    rows[0]["hypothesis"] = rows[0]["premise"]
    rows[2] = dict(rows[1])
    rows[5]["hypothesis"] = "A a a a a a a a a a a a."
    table = pd.DataFrame(rows, index=pd.Index([f"t{i}" for i in range(40)], name="id"))
    return Dataset(table=table, label="label", text=["premise", "hypothesis"], name="tiny")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("qcache")


@pytest.fixture(scope="module")
def tiny_scores(cache):
    ds = tiny()
    return ds, quality_scores(ds, "tfidf-svd:fields=premise+hypothesis,dim=8", cache_dir=cache, min_count=3,
                              nn_dim=None)


def test_every_component_is_in_0_1_or_not_applicable(tiny_scores):
    ds, q = tiny_scores
    assert list(q.index) == list(ds.ids)
    for c in [*COMPONENTS, "dqi"]:
        v = q[c].dropna()
        assert ((v >= 0) & (v <= 1)).all(), c
    assert q["inter_split"].isna().all()            # no second split given
    assert q[[c for c in COMPONENTS if c != "inter_split"]].notna().all().all()
    assert set(q["light"]) <= {"red", "yellow", "green"}
    assert (q["light_inter_split"] == "n/a").all()


def test_directions_on_hand_made_examples(tiny_scores):
    ds, q = tiny_scores
    # a near-duplicate (t1 and t2 are the same pair) scores ~0 on the neighbour component
    assert q.loc["t1", "neighbour"] < 0.01 and q.loc["t2", "neighbour"] < 0.01
    assert q.loc["t1", "neighbour"] < q["neighbour"].drop(["t1", "t2"]).min()
    # a hypothesis that copies its premise: no word overlap score and no semantic-similarity score
    assert q.loc["t0", "word_overlap"] == 0.0
    assert q.loc["t0", "semantic_similarity"] < 0.01
    assert q.loc["t0", "word_overlap"] < q["word_overlap"].drop(["t0", "t5"]).min()   # t5: 'a a a', all in its premise
    assert q.loc["t0", "semantic_similarity"] < q["semantic_similarity"].drop(["t0", "t5"]).min()
    # one word repeated: the poorest vocabulary
    assert q.loc["t5", "vocabulary"] == q["vocabulary"].min() < q["vocabulary"].median()


def test_ngram_frequency_is_low_for_common_phrases(cache):
    common = ["a man is here"] * 30
    table = pd.DataFrame({"text": common + ["zebra quartet juggles obsidian"], "label": ["a", "b"] * 15 + ["a"]},
                         index=pd.Index([f"r{i}" for i in range(31)], name="id"))
    ds = Dataset(table=table, label="label", text=["text"])
    q = quality_scores(ds, "tfidf-svd:dim=2", cache_dir=cache, nn_dim=None)
    assert q.loc["r30", "ngram_frequency"] > 0.9 > 0.1 > q.loc["r0", "ngram_frequency"]
    assert q["word_overlap"].isna().all() and q["semantic_similarity"].isna().all()   # one text field


def test_label_tied_is_low_where_a_word_gives_the_label_away(cache):
    rng = np.random.default_rng(0)
    words = ["apple", "river", "stone", "cloud", "music", "paper", "light", "table"]
    rows = []
    for i in range(300):
        label = ["x", "y", "z"][i % 3]
        text = " ".join(rng.choice(words, 4))
        if label == "x" and i % 2 == 0:
            text += " nobody"      # 'nobody' only ever appears with x
        rows.append({"text": text, "label": label})
    table = pd.DataFrame(rows, index=pd.Index([f"r{i}" for i in range(300)], name="id"))
    ds = Dataset(table=table, label="label", text=["text"])
    q = quality_scores(ds, "tfidf-svd:dim=4", cache_dir=cache)
    tied = table["text"].str.contains("nobody")
    assert q.loc[tied, "label_tied"].max() < 0.5 <= q.loc[~tied, "label_tied"].median()
    assert (q.loc[tied, "light_label_tied"] == "red").all()


def test_inter_split_finds_a_leak_and_refuses_other_columns(cache):
    ds = tiny()
    other_table = ds.table.iloc[[7]].copy()
    other_table.index = pd.Index(["o0"], name="id")
    other = Dataset(table=pd.concat([other_table, tiny().table.iloc[[9]].rename(index={"t9": "o1"})]),
                    label="label", text=["premise", "hypothesis"])
    q = quality_scores(ds, SPEC, other=other, cache_dir=cache, nn_dim=None)
    assert q.loc["t7", "inter_split"] < 0.01 and q.loc["t9", "inter_split"] < 0.01
    assert q["inter_split"].drop(["t7", "t9"]).median() > 0.5
    bad = Dataset(table=other.table.drop(columns=["premise"]).assign(context=["a", "b"]), label="label",
                  text=["context", "hypothesis"])
    with pytest.raises(InputError, match="second split's columns differ.*lacks premise"):
        quality_scores(ds, SPEC, other=bad, cache_dir=cache)


# ---------------------------------------------------------------- lights and the combined score


def test_lights_follow_the_thresholds():
    s = pd.DataFrame({"dqi": [0.0, 0.39, 0.4, 0.59, 0.6, 1.0, np.nan]})
    assert lights(s)["dqi"].tolist() == ["red", "red", "yellow", "yellow", "green", "green", "n/a"]
    assert DEFAULT_THRESHOLDS["dqi"] == (0.4, 0.6)
    got = lights(s, {"dqi": (0.3, 0.5)})["dqi"].tolist()
    assert got == ["red", "yellow", "yellow", "green", "green", "green", "n/a"]
    assert lights({"label_tied": 0.49, "neighbour": None}) == {"label_tied": "red", "neighbour": "n/a"}
    for bad in [(0.7, 0.3), (-0.1, 0.5), (0.2, 1.5), "red"]:
        with pytest.raises(InputError, match="thresholds"):
            lights(s, {"dqi": bad})


def test_combined_score_is_the_weighted_mean_of_the_components_present():
    s = pd.DataFrame({"vocabulary": [1.0, 1.0], "label_tied": [0.0, np.nan]})
    d = combine(s, {"vocabulary": 1, "label_tied": 3})
    assert d.tolist() == pytest.approx([0.25, 1.0])
    assert combine(s, {"vocabulary": 1, "label_tied": 0}).tolist() == pytest.approx([1.0, 1.0])
    with pytest.raises(InputError, match="unknown component"):
        combine(s, {"nope": 1})
    with pytest.raises(InputError, match="≥ 0"):
        combine(s, {"vocabulary": -1})


@pytest.mark.parametrize("values,match", [([0.1, np.nan], "NaN"), ([0.1, np.inf], "NaN or infinite"),
                                          ([0.5, 1.2], "outside"), ([-0.1, 0.5], "outside"), (["a", "b"], "not numbers")])
def test_a_quality_column_with_nan_or_out_of_range_values_is_refused(values, match):
    with pytest.raises(InputError, match=match):
        check_quality(values)


# ---------------------------------------------------------------- feedback


@pytest.fixture(scope="module")
def nli_ctx(cache):
    ds = load_dataset("demo:nli:n=600")
    return ds, QualityContext.fit(ds, SPEC, cache_dir=cache, max_chars=300)


def test_feedback_names_the_label_tied_words_and_the_partial_input_model(nli_ctx):
    ds, ctx = nli_ctx
    fb = ctx.feedback({"premise": "A woman is walking a dog in the park.", "hypothesis": "Nobody is sleeping.",
                       "label": "contradiction"})
    d = fb.to_dict()
    json.dumps(d, default=str)
    assert set(d["components"]) == {*COMPONENTS, "dqi"}
    assert all(c["light"] in ("red", "yellow", "green", "n/a") for c in d["components"].values())
    assert d["components"]["inter_split"]["light"] == "n/a"
    assert d["components"]["label_tied"]["light"] == "red"
    # a decisive giveaway makes the overall light red, whatever dqi's mean says (issue 21)
    assert d["light"] == "red" and any(n.startswith("overall red: a word or phrase gives the label away") for n in fb.notes)
    tied = {t["ngram"]: t for t in fb.label_tied}
    assert tied["nobody"]["label"] == "contradiction" and tied["nobody"]["own_label"] and tied["nobody"]["z"] > fb.z_star
    assert fb.partial_input["field"] == "hypothesis" and fb.partial_input["predicted"] == "contradiction"
    assert fb.partial_input["confidence"] > 0.6
    assert fb.representation["predicted"] == "contradiction" and not fb.representation["stand_in"]
    assert any(s.startswith("'nobody' predicts contradiction, z = ") and "without the premise" in s
               for s in fb.suggestions)
    assert len(fb.neighbours) == 5 and fb.neighbours[0]["similarity"] >= fb.neighbours[-1]["similarity"]


def test_feedback_on_a_neutral_rewrite_is_greener_and_finds_duplicates(nli_ctx):
    ds, ctx = nli_ctx
    row = ds.table.iloc[3]
    dup = ctx.feedback({"premise": row["premise"], "hypothesis": row["hypothesis"], "label": row[ds.label]})
    assert dup.neighbours[0]["id"] == ds.table.index[3] and dup.neighbours[0]["similarity"] > 0.99
    assert dup.components["neighbour"]["light"] == "red"
    assert any("near-duplicate" in s for s in dup.suggestions)
    red = ctx.feedback({"premise": "A man cooks dinner.", "hypothesis": "Nobody is sleeping.", "label": "contradiction"})
    better = ctx.feedback({"premise": "A man cooks dinner.", "hypothesis": "The man is repairing a bicycle tyre.",
                           "label": "contradiction"})
    assert better.components["label_tied"]["score"] > red.components["label_tied"]["score"]
    assert red.components["label_tied"]["light"] == "red" != better.components["label_tied"]["light"]
    assert not any("'nobody'" in s for s in better.suggestions)


def test_new_text_enters_phi_through_the_representations_own_map(nli_ctx, cache):
    ds, ctx = nli_ctx
    X = np.asarray(represent(ds, SPEC, cache_dir=cache).X)
    got = ctx.projector.transform(ds.table)
    rel = np.linalg.norm(got - X) / np.linalg.norm(X)
    assert rel < 0.05


@pytest.mark.parametrize("example,match", [
    ({"premise": "A man.", "label": "neutral"}, "lacks 'hypothesis'"),
    ({"premise": "A man.", "hypothesis": "A dog."}, "lacks 'label'"),
    ({"premise": "A man.", "hypothesis": "A dog.", "label": "maybe"}, "not one of the dataset's labels"),
    ({"premise": "A man.", "hypothesis": "   ", "label": "neutral"}, "'hypothesis' is empty"),
    ({"premise": "A man.", "hypothesis": "?!", "label": "neutral"}, "no words"),
    ({"premise": "A man." * 100, "hypothesis": "A dog.", "label": "neutral"}, "limit is 300"),
    ({"premise": 3, "hypothesis": "A dog.", "label": "neutral"}, "must be text"),
    ('{"premise": ', "not valid JSON"),
    (["premise"], "must be an object"),
])
def test_bad_examples_are_refused(nli_ctx, example, match):
    _, ctx = nli_ctx
    with pytest.raises(InputError, match=match):
        ctx.feedback(example)


# ---------------------------------------------------------------- DQI-guided pruning


def test_quality_ordered_pruning_compares_with_plain_aflite_at_the_same_n(nli_ctx, cache):
    ds, ctx = nli_ctx
    rep = represent(ds, SPEC, cache_dir=cache)
    table = ctx.components()
    q = quality_for_aflite(table, "dqi", rep.ids)
    params = dict(n_partitions=8, train_size=0.1, slice_size=0.05, tau=0.0, target_size=0.5, random_state=0)
    cmp = compare_pruning(ds, rep, q, params, cache_dir=cache, folds=3)
    assert cmp["set"].tolist() == ["full", "AFLite", "AFLite + dqi", "random (same n as AFLite)"]
    assert cmp["n"].tolist() == [600, 300, 300, 300]
    for col in ["z_max", "partial_accuracy", "balance", "share contradiction"]:
        assert cmp[col].notna().all(), col
    # plain AFLite removes the most predictable: its partial-input accuracy drops below the full set's
    assert cmp.loc[1, "partial_accuracy"] < cmp.loc[0, "partial_accuracy"]
    with pytest.raises(InputError, match="outside"):
        compare_pruning(ds, rep, q * 2, params, cache_dir=cache)
    with pytest.raises(InputError, match="does not apply"):
        quality_for_aflite(table, "inter_split", rep.ids)


# ---------------------------------------------------------------- fidelity on SNLI dev

ARTIFACTS = {"contradiction": ["sleeping", "nobody"], "entailment": ["outdoors", "a person"], "neutral": ["tall", "for a"]}


def test_red_label_tied_examples_carry_the_known_artifact_words(snli_path, cache):
    ds = load_dataset(snli_path)
    q = quality_scores(ds, "tfidf-svd:fields=hypothesis,dim=32", cache_dir=cache)
    hyp = " " + ds.table["hypothesis"].str.lower().str.replace(r"[^\w\s]", "", regex=True) + " "
    has = pd.Series(False, index=ds.table.index)
    for label, words in ARTIFACTS.items():
        mine = ds.table[ds.label] == label
        for w in words:
            has |= mine & hyp.str.contains(f" {w} ", regex=False)
    has.index = has.index.astype(str)
    red = q["light_label_tied"] == "red"
    green = q["light_label_tied"] == "green"
    rate_red, rate_green = has[red].mean(), has[green].mean()
    assert red.sum() > 100 and green.sum() > 100
    assert rate_red > 5 * rate_green and rate_red > 0.05


def test_the_overall_light_rule():
    from artifact_lens.quality.feedback import DECISIVE, overall_light

    comps = {"label_tied": {"light": "green"}, "dqi": {"light": "yellow"}}
    assert overall_light(comps, None, "a") == ("yellow", "")
    sure = {"field": "hypothesis", "predicted": "a", "confidence": DECISIVE}
    assert overall_light(comps, sure, "a")[0] == "red"
    assert overall_light(comps, dict(sure, predicted="b"), "a") == ("yellow", "")     # predicts another label
    assert overall_light(comps, dict(sure, confidence=DECISIVE - 0.01), "a") == ("yellow", "")
    assert overall_light({**comps, "label_tied": {"light": "red"}}, None, "a")[0] == "red"


def test_every_check_is_explained_in_plain_words_without_the_papers_symbols():
    from artifact_lens.quality import COMPONENTS
    from artifact_lens.quality.scoring import IN_WORDS

    assert set(IN_WORDS) == {*COMPONENTS, "dqi"}
    for name, words in IN_WORDS.items():
        assert len(words) == 3 and all(w.strip() for w in words), name
        assert not any(sym in " ".join(words) for sym in ("Φ", "DQI", "C1", "C6", " z ", "§")), name


def test_one_rule_scores_a_dataset_and_one_example_alike():
    """`component_scores` is the one place the components' rules run: a quantity scored in a column
    of many gives, row by row, what it gives alone (the Create page's one example), an unmeasured
    quantity is NaN, and every component scores a quantity the context measures."""
    from types import SimpleNamespace

    from artifact_lens.quality.scoring import QUANTITIES, REGISTRY, component_scores

    assert {c.measures for c in REGISTRY} <= QUANTITIES.keys()
    rng = np.random.default_rng(0)
    n = 50
    measured = {"richness": rng.uniform(0, 12, n), "rarity": rng.uniform(0, 1, n),
                "nearest_cosine": rng.uniform(-1, 1, n), "copied_share": rng.uniform(0, 1, n),
                "restated_cosine": rng.uniform(-1, 1, n), "own_label_z": rng.normal(0, 6, n)}
    measured["nearest_cosine"][3] = np.nan   # not in Φ's neighbour space
    ctx = SimpleNamespace(R_ref=8.0, z_star=4.2)
    column = component_scores(measured, ctx, n)
    assert np.isnan(column["inter_split"]).all() and np.isnan(column["neighbour"][3])
    for i in range(n):
        alone = component_scores({k: v[i] for k, v in measured.items()}, ctx, 1)
        for name, values in column.items():
            np.testing.assert_equal(alone[name][0], values[i])
    finite = {k: v[np.isfinite(v)] for k, v in column.items()}
    assert all(((v >= 0) & (v <= 1)).all() for v in finite.values())


def test_each_quantity_measures_a_dataset_row_and_the_same_row_sent_as_new_alike(nli_ctx):
    """`core.quality.quantities`: each quantity's two passes sit in one entry. A row of the dataset
    sent as a new example measures what its column says, for the quantities that do not count the
    example itself (word richness, the copied share, the fields' restated cosine)."""
    from artifact_lens.quality.quantities import QUANTITIES, ExampleProbe, measure_example
    from artifact_lens.text.features import example_ngrams
    from artifact_lens.quality.scoring import NGRAM_OPTIONS
    from artifact_lens.text.tokens import tokenize

    ds, ctx = nli_ctx
    column = ctx.quantities()
    assert set(column) == set(QUANTITIES) - {"other_split_cosine"}
    for i in range(0, len(ds), max(1, len(ds) // 7)):
        ex = {f: ds.table.iloc[i][f] for f in ctx.fields} | {ds.label: ds.table.iloc[i][ds.label]}
        toks = {f: tokenize(ex[f]) for f in ctx.fields}
        names = [n for f in ctx.fields for n in example_ngrams(toks[f], f, NGRAM_OPTIONS.ngram_range)]
        probe = ExampleProbe(ctx, ex, toks, names, ctx.name_index.get_indexer(names), ctx._phi_new(ex),
                             ctx.classes.index(ex[ds.label]), 5, 10)
        alone = measure_example(ctx, probe)
        assert set(alone) == set(column)
        for name in ("richness", "copied_share"):
            assert alone[name] == pytest.approx(column[name][i], abs=1e-9), (name, i)
        assert alone["restated_cosine"] == pytest.approx(column["restated_cosine"][i], abs=1e-4), i


def test_a_new_quantity_is_one_entry_measured_in_both_passes(nli_ctx, monkeypatch):
    from artifact_lens.quality.quantities import QUANTITIES, Quantity

    ds, ctx = nli_ctx
    seen = []
    monkeypatch.setitem(QUANTITIES, "field_count", Quantity("field_count", "how many text fields",
                                                            lambda c, other: np.full(c.N, len(c.fields)),
                                                            lambda c, probe: seen.append(len(probe.toks))))
    assert (ctx.quantities()["field_count"] == len(ctx.fields)).all()
    row = ds.table.iloc[0]
    ctx.feedback({f: row[f] for f in ctx.fields} | {ds.label: row[ds.label]})
    assert seen == [len(ctx.fields)]
