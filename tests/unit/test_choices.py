"""Multiple-choice items (issue 55): four shapes read into one, written back in theirs; the option
cue table and the gold position, which must mean the same whatever the shape and move exactly with
the options."""
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from artifact_lens.base.errors import InputError
from artifact_lens.data.choices import LETTERS, SHAPES, degenerate_items
from artifact_lens.data.sources import load_dataset
from artifact_lens.zstats.choices import choice_summary, gold_position, option_cues

WORDS = ["red", "blue", "the", "cat", "not", "known", "a", "dog", "runs", "cannot", "say", "big"]
word_text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)


@st.composite
def items(draw, min_items=3, max_items=30):
    """[(question, options, gold)] with 2 to 5 options each, distinct within an item."""
    out = []
    for i in range(draw(st.integers(min_items, max_items))):
        k = draw(st.integers(2, 5))
        options = draw(st.lists(word_text, min_size=k, max_size=k, unique=True))
        out.append((f"question {i} " + draw(word_text), options, draw(st.integers(0, k - 1))))
    return out


def in_shape(rows, shape: str) -> pd.DataFrame:
    """The same items in one of the shapes (`core.data.choices.SHAPES`)."""
    ids = [f"q{i}" for i in range(len(rows))]
    if shape == "columns":
        K = max(len(o) for _, o, _ in rows)
        frame = {"id": ids, "question": [q for q, _, _ in rows]}
        for j in range(K):
            frame[f"ans{j}"] = [o[j] if j < len(o) else None for _, o, _ in rows]
        frame["label"] = [g for _, _, g in rows]
        return pd.DataFrame(frame)
    if shape == "list":
        return pd.DataFrame({"id": ids, "question": [q for q, _, _ in rows], "choices": [o for _, o, _ in rows],
                             "answer": [LETTERS[g] for _, _, g in rows]})
    if shape == "arc":
        return pd.DataFrame({"id": ids, "question": [q for q, _, _ in rows],
                             "choices": [{"text": o, "label": [str(j + 1) for j in range(len(o))]} for _, o, _ in rows],
                             "answerKey": [str(g + 1) for _, _, g in rows]})
    if shape == "targets":   # TruthfulQA's mc1_targets: each option's text to 1 (the gold) or 0
        return pd.DataFrame({"id": ids, "question": [q for q, _, _ in rows],
                             "mc1_targets": [{t: int(j == g) for j, t in enumerate(o)} for _, o, g in rows]})
    if shape == "nested":   # OpenBookQA's own release
        return pd.DataFrame({"id": ids, "question": [{"stem": q, "choices": [{"text": t, "label": LETTERS[j]}
                                                                            for j, t in enumerate(o)]}
                                                    for q, o, _ in rows],
                             "answerKey": [LETTERS[g] for _, _, g in rows]})
    return pd.DataFrame({"id": ids, "ctx": [q for q, _, _ in rows], "endings": [o for _, o, _ in rows],
                         "label": [str(g) for _, _, g in rows]})


def _measures(ds) -> tuple:
    cues = option_cues(ds, min_count=1)
    return ds.table[[c for c in ds.table.columns if c.startswith("option_") or c == "gold"]], cues.table


@settings(max_examples=40, deadline=None)
@given(rows=items())
def test_the_same_items_in_any_shape_read_and_measure_alike(rows):
    # (a headerless file gives every item one number of options: tests/unit/test_item_shapes.py generates
    # those; targets are keyed by the options' texts, so they hold items whose options all differ)
    distinct = all(len(set(o)) == len(o) for _, o, _ in rows)
    found = {shape: load_dataset(in_shape(rows, shape)) for shape in SHAPES
             if shape != "headerless" and (shape != "targets" or distinct)}
    assert {shape: ds.choices.shape for shape, ds in found.items()} == {s: s for s in found}
    base_options, base_cues = _measures(found["columns"])
    for shape, ds in found.items():
        assert list(ds.choices.n_options) == [len(o) for _, o, _ in rows], shape
        options, cues = _measures(ds)
        pd.testing.assert_frame_equal(options, base_options, check_names=False)
        pd.testing.assert_frame_equal(cues, base_cues, rtol=0, atol=1e-9)
        assert ds.written_rows().index.tolist() == [f"q{i}" for i in range(len(rows))]


@settings(max_examples=40, deadline=None)
@given(rows=items(min_items=5), data=st.data())
def test_permuting_options_moves_the_gold_position_and_nothing_else(rows, data):
    """The option cue table has no position in it: permuting every item's options, the gold moved
    with them, leaves it as it is; the gold position table moves exactly as the golds moved."""
    permuted = []
    for q, options, gold in rows:
        order = data.draw(st.permutations(range(len(options))))
        permuted.append((q, [options[j] for j in order], order.index(gold)))
    before, after = load_dataset(in_shape(rows, "list")), load_dataset(in_shape(permuted, "list"))
    pd.testing.assert_frame_equal(option_cues(before, min_count=1).table, option_cues(after, min_count=1).table,
                                  rtol=0, atol=1e-9)
    moved = gold_position(after).table
    K = max(len(o) for _, o, _ in rows)
    assert moved["gold"].tolist() == [sum(g == j for _, _, g in permuted) for j in range(K)]
    assert np.allclose(moved["chance"], gold_position(before).table["chance"])   # chance needs only k


def test_ties_set_the_chance_line():
    """Two of three options tied for the longest: a gold placed at random is among them 2/3 of the
    time, not 1/3."""
    rows = [(f"q{i}", ["one two", "three four", "five"], i % 3) for i in range(30)]
    cues = option_cues(load_dataset(in_shape(rows, "list")), min_count=1, words=False).table.set_index("feature")
    assert cues.loc["[longest option]", "chance"] == pytest.approx(2 / 3)
    assert cues.loc["[longest option]", "share"] == pytest.approx(2 / 3)
    assert cues.loc["[shortest option]", "chance"] == pytest.approx(1 / 3)


@pytest.mark.parametrize("frame, match", [
    (pd.DataFrame({"question": ["q"], "ans0": ["a"], "ans1": ["b"], "label": [2]}), "gold index 2 is out of range"),
    (pd.DataFrame({"question": ["q"], "A": ["a"], "B": ["b"], "answer": ["D"]}), "'D' names no option"),
    (pd.DataFrame({"question": ["q"], "choices": [["only"]], "answer": [0]}), "needs at least two"),
    (pd.DataFrame({"question": ["q"], "choices": ["not a list"], "answer": [0]}), "a list of options was expected"),
    (pd.DataFrame({"question": ["q"], "ans0": ["a"], "ans1": ["b"], "label": ["maybe"]}), "neither an option's index"),
])
def test_bad_items_are_refused_by_id_with_the_fix(frame, match):
    with pytest.raises(InputError, match=match):
        load_dataset(frame, choices=None, choice_columns={"options": "choices"} if "choices" in frame else None)


def test_empty_and_repeated_options_are_listed_as_degenerate():
    """Repeated means the same text, spacing aside; case counts (issue 64, item 1: ARC's genotypes
    ``R / rr / Rr / RR`` and MMLU's ``Bb Bb`` / ``BB Bb`` were flagged, and failed random halves)."""
    frame = pd.DataFrame({"id": ["a", "b", "c", "d", "e"], "question": ["q1", "q2", "q3", "q4", "q5"],
                          "choices": [["yes", "yes ", "no"], ["x", "", "y"], ["p", "q", "r"], ["R", "rr", "Rr", "RR"],
                                      ["BB Bb", "Bb Bb", "bb  Bb"]], "answer": [0, 2, 1, 1, 0]})
    ds = load_dataset(frame)
    flagged = degenerate_items(ds.table, ds.choices)
    assert flagged[["id", "reason"]].values.tolist() == [["a", "repeated option"], ["b", "empty option"]]
    assert any("degenerate" in m for m in ds.messages)
    assert choice_summary(ds)["degenerate"] == {"empty option": ["b"], "repeated option": ["a"]}


def test_labelled_examples_stay_labelled_examples():
    """Columns named a and b with a label, or a label named on the command line, are not items."""
    frame = pd.DataFrame({"a": ["x", "y"], "b": ["u", "v"], "text": ["t1", "t2"], "label": ["p", "q"]})
    assert load_dataset(frame).choices is None
    bbq_like = pd.DataFrame({"question": ["q", "r"], "ans0": ["a", "c"], "ans1": ["b", "d"], "label": [0, 1]})
    assert load_dataset(bbq_like).choices is not None
    assert load_dataset(bbq_like, label="label").choices is None
    assert load_dataset(bbq_like, choices=False).choices is None


def _planted(base: list, rng, how: str, share: float) -> list:
    out = []
    for q, options, gold in base:
        options = list(options)
        if rng.random() < share:
            if how == "first":
                options[0], options[gold] = options[gold], options[0]
                gold = 0
            elif how == "longest":
                options[gold] = options[gold] + " and then some more words here"
            else:
                options[gold] = options[gold] + " as everyone knows"
        out.append((q, options, gold))
    return out


@pytest.mark.parametrize("how, share, feature", [("first", 0.2, None), ("longest", 0.3, "[longest option]"),
                                                  ("phrase", 0.1, "everyone knows")])
def test_planted_cues_stand_out(how, share, feature):
    rng = np.random.default_rng(0)
    words = np.array(WORDS)
    base = [(f"q{i}", [" ".join(rng.choice(words, 3)) + f" {i}-{j}" for j in range(4)], int(rng.integers(0, 4)))
            for i in range(800)]
    ds = load_dataset(in_shape(_planted(base, rng, how, share), "list"))
    clean = load_dataset(in_shape(base, "list"))
    if feature is None:
        position, before = gold_position(ds), gold_position(clean)
        assert position.table.loc[0, "z"] > 5 and abs(before.table.loc[0, "z"]) < 3
        assert position.w_low > before.w_high
        return
    cues = option_cues(ds).table.set_index("feature")
    assert cues.loc[feature, "over_line"] and cues.loc[feature, "z"] > 0
    assert not option_cues(clean).table["over_line"].any()


def test_bbq_reads_as_items_and_its_unknown_option_is_the_cue(bbq_path, tmp_path):
    """The shared BBQ file: read as items with its stem kept apart; the 'unknown' option is gold in
    half the items (the ambiguous contexts) where a random gold would be it in a third."""
    ds = load_dataset(bbq_path)
    assert ds.choices.shape == "columns" and ds.choices.stem == ["context", "question"]
    assert ds.choices.columns["options"] == ["ans0", "ans1", "ans2"] and len(ds) == 1200
    summary = choice_summary(ds)
    assert summary["cohens_w"]["low"] < summary["cohens_w"]["chance"] * 3
    cues = option_cues(ds).table.set_index("feature")
    row = cues.loc["[option least like the stem]"]
    assert row["over_line"] and row["share"] == pytest.approx(0.5) and row["chance"] == pytest.approx(1 / 3, abs=0.01)
    source = [json.loads(line) for line in open(bbq_path)]
    kept = ds.subset(ds.ids[:10]).written_rows()
    assert list(kept.columns) == list(source[0].keys()) and kept["ans0"].tolist() == [r["ans0"] for r in source[:10]]


# ------------------------------------------------------------------------------------ the CLI
@pytest.fixture
def items_file(tmp_path):
    rng = np.random.default_rng(1)
    rows = [(f"question {i}", [f"option {i} {w}" for w in rng.choice(WORDS, 3, replace=False)], int(rng.integers(0, 3)))
            for i in range(60)]
    path = tmp_path / "items.jsonl"
    in_shape(rows, "columns").to_json(path, orient="records", lines=True)
    return path


def test_info_and_zstats_read_items(items_file, tmp_path, capsys):
    from artifact_lens.cli import main

    assert main(["info", str(items_file), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["choices"]["shape"] == "columns" and info["choices"]["options"] == {"3": 60}
    assert set(info["choices"]["gold_position"]) == {"A", "B", "C"}
    out = tmp_path / "cues.csv"
    assert main(["zstats", str(items_file), "--out", str(out), "--min-count", "3"]) == 0
    printed = capsys.readouterr().out
    assert "gold at" in printed and "the gold is the longest option" not in printed.split("\n")[0]
    table = pd.read_csv(out)
    assert list(table.columns) == ["feature", "kind", "items", "gold_most", "share", "chance", "lift", "lift_se", "z",
                                   "over_line"]


def test_every_command_that_does_not_measure_items_refuses_them(items_file, tmp_path, capsys):
    """Reflection over every command: one that reads a dataset and is not declared for items refuses
    them by name (exit 2) rather than taking the gold's letter for a class; --no-choices reads them
    as labelled examples."""
    from artifact_lens.cli import main
    from artifact_lens.cli.commands import COMMANDS
    from artifact_lens.cli.common import load_from_args
    from artifact_lens.cli.parser import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    refused = []
    for name, cmd in COMMANDS.items():
        actions = {a.dest: a for a in sub.choices[name]._actions}
        if "dataset" not in actions:
            continue
        needed = [a for a in actions.values() if a.required and a.dest != "dataset"]
        argv = [name, str(items_file)] + [x for a in needed for x in ((a.option_strings[0], "x") if a.option_strings
                                                                        else ("x",))]
        args = parser.parse_args(argv)
        if isinstance(args.dataset, list):   # gate: one or more files, each loaded as one dataset
            args.dataset = args.dataset[0]
        if cmd.items:
            assert load_from_args(args).choices is not None, name
            continue
        with pytest.raises(InputError, match=r"multiple-choice items.*--no-choices") as found:
            load_from_args(args)
        assert f"`{name}`" in str(found.value)
        refused.append(name)
    assert len(refused) >= 8
    assert main(["info", str(items_file), "--no-choices"]) == 0
    assert main(["zfilter", str(items_file), "--out", str(tmp_path / "kept.csv")]) == 2
    assert "multiple-choice items" in capsys.readouterr().err
    assert main(["-q", "represent", str(items_file), "-r", "choice-diff:dim=4", "--out", str(tmp_path / "phi.npy")]) == 0


# ------------------------------------------------------------------------------- the baselines
def test_the_conditional_logits_gradient_is_its_losss():
    """`fit_conditional_logit` descends the loss it states: its gradient matches finite differences."""
    from scipy.optimize import check_grad

    from artifact_lens.models.conditional_logit import choice_probabilities

    rng = np.random.default_rng(0)
    k = rng.integers(2, 5, 40)
    starts = np.cumsum(k) - k
    X = rng.normal(size=(int(k.sum()), 6))
    gold_rows = starts + np.array([rng.integers(kk) for kk in k])
    Y = np.zeros(len(X))
    Y[gold_rows] = 1

    def loss(w):
        return -np.sum(np.log(choice_probabilities(X, starts, w)[gold_rows])) + 0.5 * 3.0 * w @ w

    def grad(w):
        return X.T @ (choice_probabilities(X, starts, w) - Y) + 3.0 * w

    assert check_grad(loss, grad, rng.normal(size=6)) < 1e-4
    p = choice_probabilities(X, starts, rng.normal(size=6))
    assert np.allclose(np.add.reduceat(p, starts), 1)


def test_baselines_find_the_planted_shortcuts_and_no_others():
    from artifact_lens.data.demos import make_choices
    from artifact_lens.evaluation.choices import choice_baselines

    planted = choice_baselines(make_choices(n=900, position_share=0.25, length_share=0.3, seed=1))
    clean = choice_baselines(make_choices(n=900, position_share=0.0, length_share=0.0, seed=1))
    for name, got in planted.items():
        s = got.summary
        assert s["accuracy"] > s["chance"] + 4 * s["accuracy_se"] and s["v_information"] > 3 * s["stderr"], name
    for name, got in clean.items():
        s = got.summary
        assert abs(s["accuracy"] - s["chance"]) < 3.5 * s["accuracy_se"] and s["v_information"] < 2 * s["stderr"], name
    assert planted["position_only"].summary["majority"] > 0.4   # the first position, from the training folds


@settings(max_examples=10, deadline=None)
@given(rows=items(min_items=12, max_items=20), data=st.data())
def test_the_options_only_baseline_does_not_see_the_order(rows, data):
    """Permuting every item's options, gold moved with them, leaves the options-only and the full
    input's p(gold) as they were (the model shares its weights across positions); the position-only
    baseline is the one that may move."""
    from artifact_lens.evaluation.choices import choice_baselines

    permuted = [(q, [o[j] for j in order], order.index(g)) for (q, o, g), order in
                ((row, data.draw(st.permutations(range(len(row[1]))))) for row in rows)]
    before = choice_baselines(load_dataset(in_shape(rows, "list")), folds=3)
    after = choice_baselines(load_dataset(in_shape(permuted, "list")), folds=3)
    for name in ("options_only", "stem_and_options"):
        np.testing.assert_allclose(after[name].table["p_gold"], before[name].table["p_gold"], atol=1e-5, err_msg=name)


def test_pvi_on_items_writes_one_row_per_item_and_refuses_a_partial(items_file, tmp_path, capsys):
    from artifact_lens.cli import main

    out = tmp_path / "pvi.csv"
    assert main(["-q", "pvi", str(items_file), "--out", str(out), "--folds", "3"]) == 0
    table = pd.read_csv(out)
    assert list(table.columns) == ["id", "pvi", "p_gold", "pvi_options_only", "p_gold_options_only", "pvi_position_only",
                                   "p_gold_position_only"] and len(table) == 60
    assert np.allclose(table["pvi"], np.log2(np.maximum(table["p_gold"], 1e-6)) + np.log2(3), atol=1e-4)   # (6 digits)
    assert main(["pvi", str(items_file), "--partial", "tfidf-svd:fields=question"]) == 2
    assert "--partial" in capsys.readouterr().err


# ------------------------------------------------------------------------------- the certificate
@pytest.fixture(scope="module")
def bbq_frame():
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "shared" / "data" / "bbq_religion.jsonl"
    if not path.exists():
        pytest.skip("../shared/data/bbq_religion.jsonl is not here (a fresh clone has no ../shared)")
    return pd.read_json(path, lines=True)


def test_the_same_items_in_every_shape_give_the_same_certificate(bbq_frame):
    from artifact_lens.certificate.measures import certify

    rows = bbq_frame.head(300)
    options = rows[["ans0", "ans1", "ans2"]].values.tolist()
    stem = {"example_id": rows["example_id"], "context": rows["context"], "question": rows["question"]}
    shapes = {"list": pd.DataFrame({**stem, "choices": options, "answer": rows["label"]}),
              "arc": pd.DataFrame({**stem, "choices": [{"text": o, "label": ["A", "B", "C"]} for o in options],
                                   "answerKey": ["ABC"[g] for g in rows["label"]]}),
              "columns letters": pd.DataFrame({**stem, "A": rows["ans0"], "B": rows["ans1"], "C": rows["ans2"],
                                               "answer": ["ABC"[g] for g in rows["label"]]})}
    a = certify(load_dataset(rows), folds=3)
    for shape, frame in shapes.items():
        b = certify(load_dataset(frame), folds=3)
        assert a == b, shape
    assert {"mc.gold_position.max_share", "mc.options_only.accuracy", "mc.degenerate"} <= set(a["measures"])
    assert not {"zstats.z_max", "v_information.full", "labels.majority_share"} & set(a["measures"])


def test_bbq_halves_pass_and_each_planted_cue_fails_by_name_with_its_items(bbq_frame, tmp_path):
    """Issue 55's gate: random halves of BBQ religion pass; the gold moved first in 20 % more items,
    made the longest in 30 %, or given a phrase in 10 % fails `check`, naming the cue, and
    ``check --rows`` lists the planted items."""
    from artifact_lens.certificate.gate import compare
    from artifact_lens.certificate.measures import certify
    from artifact_lens.certificate.schema import write_certificate
    from artifact_lens.cli import main

    order = np.random.default_rng(3).permutation(len(bbq_frame))
    halves = [bbq_frame.iloc[order[:600]], bbq_frame.iloc[order[600:]]]
    found = compare(certify(load_dataset(halves[0])), certify(load_dataset(halves[1])))
    assert not (found["status"] == "fail").any(), found.loc[found["status"] == "fail", "why"].tolist()
    base = certify(load_dataset(bbq_frame))
    write_certificate(base, tmp_path / "base.json")
    from artifact_lens.data.demos import CHOICE_CUES, plant_choice_cue

    for how, share in (("first", 0.2), ("longest", 0.3), ("phrase", 0.1)):
        cue = CHOICE_CUES[how]
        rows, at = plant_choice_cue(bbq_frame, how, share)
        planted = set(rows["example_id"].iloc[at].astype(str))
        rows.to_json(tmp_path / f"{how}.jsonl", orient="records", lines=True)
        write_certificate(certify(load_dataset(tmp_path / f"{how}.jsonl")), tmp_path / f"{how}.json")
        out = tmp_path / f"{how}_rows.csv"
        assert main(["-q", "check", str(tmp_path / "base.json"), str(tmp_path / f"{how}.json"), "--rows", str(out),
                     "--data", str(tmp_path / f"{how}.jsonl")]) == 1, how
        broken = compare(base, certify(load_dataset(tmp_path / f"{how}.jsonl")))
        assert cue in set(broken.attrs["cues"]["feature"]), how
        listed = pd.read_csv(out, dtype=str)
        carriers = set(listed.loc[listed["feature"] == cue, "id"])
        if how == "phrase":
            assert carriers == planted
        else:
            assert len(carriers & planted) >= 0.9 * len(planted)


def test_a_candidate_without_an_items_measure_or_its_cue_table_fails(bbq_frame):
    from artifact_lens.certificate.gate import compare
    from artifact_lens.certificate.measures import certify

    base = certify(load_dataset(bbq_frame.head(400)), folds=3)
    for drop in ("mc.gold_position.max_share", "mc.degenerate"):
        partial = {**base, "measures": {k: v for k, v in base["measures"].items() if k != drop}}
        found = compare(base, partial)
        assert (found["status"] == "fail").any() and drop in " ".join(found["why"].astype(str)), drop
    found = compare(base, {k: v for k, v in base.items() if k != "cues"})
    assert (found["status"] == "fail").any()


def test_the_stem_tells_which_kind_of_item_bbq_is(bbq_path):
    """Issue 55, item 8: without BBQ's tags, the stem's features that tell whether the gold is the
    'unknown' option (the strongest option cue) are the context's length; its carriers are exactly
    the ambiguous contexts."""
    from artifact_lens.zstats.choices import items_with_cue, stem_cues

    ds = load_dataset(bbq_path)
    found = stem_cues(ds, "[option least like the stem]").table
    top = found[found["kind"] != "pred"].sort_values("z", ascending=False).head(3)
    assert top["feature"].str.startswith(("context-len", "len-ratio")).sum() >= 2
    source = {str(r["example_id"]): r for r in map(json.loads, open(bbq_path))}
    carriers = items_with_cue(ds, ["[option least like the stem]"])[0]
    assert {source[i]["context_condition"] for i in carriers} == {"ambig"} and len(carriers) == 600


def test_a_stem_feature_is_shown_only_when_it_moves_the_share_of_carriers():
    """Issue 64, item 7: against the items' own share of carriers, a word in every stem and the null
    feature tell nothing (they read z ≈ 100 against 1/2 on MMLU); a stem word that comes with the
    carriers does."""
    from artifact_lens.zstats.choices import stem_cues

    rng = np.random.default_rng(4)
    rows = []
    for i in range(400):
        carries = i % 5 == 0   # a fifth of the golds say "never"; their stems say "which"
        options = [f"plain {w} {i}" for w in rng.choice(WORDS, 3)]
        gold = int(rng.integers(0, 3))
        if carries:
            options[gold] = f"never {i}"
        stem = f"the question {rng.choice(WORDS)} " + ("which" if carries else "what")
        rows.append((stem, options, gold))
    found = stem_cues(load_dataset(in_shape(rows, "list")), "never", min_count=20).table
    shown = found[found["significant"]]
    assert "null" not in set(found["kind"].astype(str))
    assert not shown["feature"].astype(str).str.fullmatch(r"(the|question)(@.*)?").any()
    assert {("which@question", "carries"), ("what@question", "lacks")} <= set(zip(shown["feature"].astype(str),
                                                                                   shown["label"].astype(str)))


def test_the_option_cue_plot_draws_each_feature_at_its_chance_and_share():
    from artifact_lens.plots.zstats import option_cue_plot

    rows = [(f"q{i}", ["bold yes" if i % 2 == 0 else "plain", "other words", "third one"],
             0 if i % 2 == 0 else 1) for i in range(60)]
    cues = option_cues(load_dataset(in_shape(rows, "list")), min_count=5)
    fig = option_cue_plot(cues)
    drawn = {}
    for trace in fig.data:
        if trace.customdata is not None:
            for x, y, data in zip(trace.x, trace.y, trace.customdata):
                drawn[int(data[0])] = (x, y, data[1])
    assert set(drawn) == set(range(len(cues.table)))
    for i, (x, y, name) in drawn.items():
        assert (x, y) == pytest.approx((cues.table["chance"][i], cues.table["share"][i]))
        assert name == cues.table["feature"][i]


def test_option_columns_numbered_from_one_read_answers_from_one():
    """WinoGrande's shape: option1, option2 and an answer of 1 or 2 (counted as its columns are);
    BBQ's ans0… with 0-based labels stays 0-based, and a 0 among the answers keeps the count at 0."""
    wino = pd.DataFrame({"sentence": ["The trophy does not fit in the case because _ is too big.", "x _ y"],
                         "option1": ["trophy", "a"], "option2": ["case", "b"], "answer": ["1", "2"]})
    ds = load_dataset(wino)
    assert ds.table["gold"].tolist() == ["A", "B"] and any("counting from 1" in m for m in ds.messages)
    zero = wino.assign(answer=["0", "1"])
    assert load_dataset(zero).table["gold"].tolist() == ["A", "B"]
    bbq = pd.DataFrame({"question": ["q", "r"], "ans0": ["a", "c"], "ans1": ["b", "d"], "label": [1, 1]})
    assert load_dataset(bbq).table["gold"].tolist() == ["B", "B"]


cells = st.one_of(st.none(), st.just(float("nan")), st.integers(-3, 30), st.floats(allow_nan=False, width=32),
                  st.text(max_size=12), st.lists(st.text(max_size=6), max_size=4),
                  st.dictionaries(st.sampled_from(["text", "label", "x"]), st.lists(st.text(max_size=4), max_size=3),
                                  max_size=2))


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.tuples(st.one_of(st.text(max_size=12), cells), st.one_of(st.text(min_size=1, max_size=8), cells),
                               st.one_of(st.text(min_size=1, max_size=8), cells), st.one_of(st.integers(0, 1), cells)),
                     min_size=1, max_size=6),
       shape=st.sampled_from([None, "columns", "list", "arc", "endings"]))
def test_any_cells_load_as_items_or_are_refused_by_name(rows, shape):
    """Hostile cells in every role of every shape: the items load (and then measure), or one
    InputError names the problem; never another exception."""
    frame = pd.DataFrame(rows, columns=["question", "ans0", "ans1", "label"])
    listed = frame.assign(choices=frame["ans0"]).drop(columns=["ans0", "ans1"])
    for table in (frame, listed):
        try:
            ds = load_dataset(table, choices=shape or True)
        except InputError:
            continue
        assert ds.choices is not None and len(ds) == len(table)
        assert set(ds.table["gold"]) <= set(LETTERS[:int(ds.choices.n_options.max())])
        option_cues(ds, min_count=1)
        gold_position(ds, resamples=5)


@settings(max_examples=30, deadline=None)
@given(rows=items(), shape=st.sampled_from(["list", "columns", "nested"]))
def test_strict_lengths_are_a_direct_count_over_all_items(rows, shape):
    """Issue 64, item 8: the gold strictly the longest (shortest) option in characters, over all items,
    and its chance (1/k where one option alone is longest), recounted here by hand."""
    from artifact_lens.zstats.choices import strict_lengths

    found = strict_lengths(load_dataset(in_shape(rows, shape)))
    for name, pick in (("longest", max), ("shortest", min)):
        hits = chance = 0.0
        for _, options, gold in rows:
            sizes = [len(o) for o in options]
            alone = sizes.count(pick(sizes)) == 1
            hits += alone and sizes[gold] == pick(sizes)
            chance += alone / len(options)
        assert found[name]["share"] == pytest.approx(hits / len(rows))
        assert found[name]["chance"] == pytest.approx(chance / len(rows))
    assert found["items"] == len(rows)
