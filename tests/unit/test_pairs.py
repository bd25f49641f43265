"""Preference pairs (issue 42): the four shapes of the same pairs read into one dataset, swapping
the chosen and rejected columns mirrors every result, a planted cue tops the pair table, an export
loads back in its own shape, and what does not look like pairs is a clear error.

The real pairs are ../shared/data/hh_harmless_pairs.jsonl (HH-RLHF's implicit-prompt shape); the
other three shapes are built from them here."""
import json
import os
import random
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from artifact_lens.base.errors import InputError
from artifact_lens.data.pairs import chosen_rejected, prompt_text
from artifact_lens.data.sources import load_dataset
from artifact_lens.zstats.pairs import length_bias, pair_cues

HH = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "hh_harmless_pairs.jsonl"
needs_hh = pytest.mark.skipif(not HH.exists(), reason="../shared/data/hh_harmless_pairs.jsonl is not here")
MARKER = "\n\nAssistant:"


def _hh(n=None) -> list:
    rows = [json.loads(line) for line in HH.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows[:n] if n else rows


def _split(row) -> tuple:
    """(prompt transcript up to its last shared "Assistant:", chosen turn, rejected turn)."""
    shared = os.path.commonprefix([row["chosen"], row["rejected"]])
    end = shared.rfind(MARKER) + len(MARKER)
    return row["chosen"][:end], row["chosen"][end:].strip(), row["rejected"][end:].strip()


def _messages(transcript: str) -> list:
    parts = re.split(r"\n\n(Human|Assistant):", transcript)
    out = [{"role": "user" if role == "Human" else "assistant", "content": text.strip()}
           for role, text in zip(parts[1::2], parts[2::2])]
    return [m for m in out if m["content"] or m["role"] == "user"]


def _shapes(rows) -> dict:
    """The same pairs as the four shapes: frames ready to load."""
    split = [_split(r) for r in rows]
    rng = random.Random(7)
    judged = []
    for p, c, r in split:
        a_first = rng.random() < 0.5
        judged.append({"prompt": p, "response_a": c if a_first else r, "response_b": r if a_first else c,
                       "winner": "a" if a_first else "b"})
    return {
        "implicit": pd.DataFrame(rows),
        "standard": pd.DataFrame([{"prompt": p, "chosen": c, "rejected": r} for p, c, r in split]),
        "conversational": pd.DataFrame([{"prompt": _messages(p), "chosen": [{"role": "assistant", "content": c}],
                                         "rejected": [{"role": "assistant", "content": r}]} for p, c, r in split]),
        "judged": pd.DataFrame(judged),
    }


@needs_hh
def test_the_four_shapes_of_the_same_pairs_are_one_dataset():
    frames = _shapes(_hh(150))
    loaded = {shape: load_dataset(frame) for shape, frame in frames.items()}
    for shape, ds in loaded.items():
        assert ds.pairs.shape == shape
    reference = loaded["implicit"]
    assert set(reference.label_counts().index) == {"a", "b"}
    for shape, ds in loaded.items():
        pd.testing.assert_frame_equal(ds.table, reference.table, obj=shape)
        assert ds.fingerprint == reference.fingerprint, shape
    assert not (reference.table["prompt"] == "").any()
    assert not reference.table["prompt"].str.endswith("Assistant:").any()


@needs_hh
def test_swapping_chosen_and_rejected_mirrors_every_result():
    frame = pd.DataFrame(_hh(400))
    ds = load_dataset(frame)
    swapped = load_dataset(frame.rename(columns={"chosen": "rejected", "rejected": "chosen"}))
    # the coin of a pair's order is its id's: the two texts swap sides under the same label, so every
    # pair's preferred text is the other one
    assert (ds.table["response_a"].to_numpy() == swapped.table["response_b"].to_numpy()).all()
    assert (ds.table["preferred"].to_numpy() == swapped.table["preferred"].to_numpy()).all()
    assert (chosen_rejected(ds)[0] == chosen_rejected(swapped)[1]).all()
    bias, mirrored = length_bias(ds), length_bias(swapped)
    assert bias["chosen_longer"] == pytest.approx(1 - mirrored["chosen_longer"])
    cues = pair_cues(ds, min_count=5).table.set_index("feature")
    other = pair_cues(swapped, min_count=5).table.set_index("feature").reindex(cues.index)
    np.testing.assert_allclose(cues["share"], 1 - other["share"])
    np.testing.assert_allclose(cues["z"], -other["z"])
    even = cues["share"] == 0.5
    assert (cues["favours"][~even] != other["favours"][~even]).all() and (other["favours"][even] == "neither").all()


@needs_hh
def test_a_planted_phrase_tops_the_pair_table():
    rows = _hh()
    rng = np.random.default_rng(3)
    planted = set(rng.choice(len(rows), size=len(rows) // 8, replace=False).tolist())
    for i in planted:
        p, c, r = _split(rows[i])
        rows[i] = dict(rows[i], chosen=f"{p} Great question! {c}")
    cues = pair_cues(load_dataset(pd.DataFrame(rows)))
    top = cues.table.iloc[0]
    assert top["feature"] in {"great question", "great", "question", "style:exclamations"}
    assert top["favours"] == "chosen" and top["over_line"]
    # the unplanted file has no such cue over the line
    clean = pair_cues(load_dataset(pd.DataFrame(_hh()))).table.set_index("feature")
    assert not clean.reindex(["great question"])["over_line"].fillna(False).any()


@needs_hh
def test_the_length_bias_of_the_shared_file():
    bias = length_bias(load_dataset(str(HH)))
    # the file's README: the rejected last turn is the longer one in about 54 % of pairs
    assert 0.40 < bias["chosen_longer"] < 0.50
    assert bias["pairs"] == 1156 and 0 < bias["stderr"] < 0.02
    assert bias["longer_wins_accuracy"] == pytest.approx(1 - 0.54, abs=0.03)


@needs_hh
@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
@pytest.mark.parametrize("shape", ["implicit", "standard", "conversational", "judged"])
def test_an_export_of_a_filtered_pair_file_loads_back_in_its_shape(shape, suffix, tmp_path):
    """In every format (a CSV holds a conversational side as JSON text, issue 53 item 8), the
    filtered export reads back as the same shape and the same (prompt, chosen, rejected) triples."""
    from artifact_lens.data.pairs import side_by_side
    from artifact_lens.exports.writers import write

    frame = _shapes(_hh(60))[shape]
    ds = load_dataset(frame)
    kept = ds.subset(ds.ids[::3])
    out = kept.written_rows().reset_index()
    path = tmp_path / f"kept{suffix}"
    write(out, path)
    back = load_dataset(str(path))
    assert back.pairs.shape == shape
    assert list(back.ids) == list(kept.ids)
    pd.testing.assert_frame_equal(back.table, kept.table)
    pd.testing.assert_frame_equal(side_by_side(back), side_by_side(kept))
    assert set(back.pairs.rows.columns) | {"id"} == {"id", *frame.columns}


def test_judged_ties_are_kept_apart_and_said():
    frame = pd.DataFrame({"response_a": ["Sure.", "No.", "Maybe", "Yes!"], "response_b": ["Fine", "Ok", "Hm", "No"],
                          "winner": ["a", "tie", "B", "model_a"]})
    ds = load_dataset(frame)
    assert len(ds) == 3 and ds.dropped == {"tie": 1}
    assert any("ties" in m for m in ds.messages)
    chosen, rejected = chosen_rejected(ds)
    assert list(chosen) == ["Sure.", "Hm", "Yes!"] and list(rejected) == ["Fine", "Maybe", "No"]
    with pytest.raises(InputError, match="winner"):
        load_dataset(frame.assign(winner=["a", "b", "left", "a"]))


def test_what_is_not_pairs_names_the_columns_found():
    frame = pd.DataFrame({"question": ["q"], "good": ["x"], "bad": ["y"]})
    with pytest.raises(InputError, match="question, good, bad"):
        load_dataset(frame, pairs="standard")
    with pytest.raises(InputError, match="not look like preference pairs"):
        load_dataset(frame, pairs=True)
    ds = load_dataset(frame.assign(prompt="q"), pairs="standard",
                      pair_columns={"chosen": "good", "rejected": "bad"})
    assert list(chosen_rejected(ds)[0]) == ["x"]
    with pytest.raises(InputError, match="--no-pairs"):
        load_dataset(pd.DataFrame({"chosen": ["a"], "rejected": ["b"]}), text="chosen")


def test_a_labelled_file_with_a_chosen_column_stays_labelled():
    frame = pd.DataFrame({"chosen": ["a", "b", "c"], "rejected": ["d", "e", "f"], "label": [0, 1, 0]})
    ds = load_dataset(frame, text="chosen")
    assert ds.pairs is None and ds.label == "label"


def test_prompts_are_written_one_way():
    transcript = "\n\nHuman: Hi there\n\nAssistant: Hello!\n\nHuman: Help me\n\nAssistant:"
    messages = [{"role": "user", "content": "Hi there"}, {"role": "assistant", "content": "Hello!"},
                {"role": "user", "content": "Help me"}]
    assert prompt_text(transcript) == prompt_text(messages) == "Human: Hi there\n\nAssistant: Hello!\n\nHuman: Help me"
    assert prompt_text("  plain question ") == "plain question"


texts = st.lists(st.sampled_from(list("ab c!?*#-\n") + ["sorry ", "I can't ", "maybe ", "**b** ", "1. "]),
                 max_size=12).map("".join)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(texts, texts, texts), min_size=2, max_size=25), seed=st.integers(0, 3))
def test_order_and_mirror_properties_hold_for_any_pairs(rows, seed):
    frame = pd.DataFrame(rows, columns=["prompt", "chosen", "rejected"])
    from artifact_lens.data.pairs import read_pairs

    ids = pd.Index([str(i) for i in range(len(frame))], name="id")
    ds = read_pairs(frame, ids=ids, name="t", shape="standard", order_seed=seed)
    mirror = read_pairs(frame.rename(columns={"chosen": "rejected", "rejected": "chosen"}), ids=ids, name="t",
                        shape="standard", order_seed=seed)
    chosen, rejected = chosen_rejected(ds)
    assert list(chosen) == [c.strip() for c in frame["chosen"]] and list(rejected) == [r.strip() for r in frame["rejected"]]
    # the order of a pair's sides depends on its id and the seed only: the same in any subset
    sub = ds.subset(ds.ids[1:])
    assert (read_pairs(frame.iloc[1:], ids=ids[1:], name="t", shape="standard", order_seed=seed).table
            == sub.table).all().all()
    a, b = pair_cues(ds, min_count=1).table, pair_cues(mirror, min_count=1).table
    merged = a.merge(b, on="feature", suffixes=("", "_m"))
    assert len(merged) == len(a) == len(b)
    np.testing.assert_allclose(merged["share"], 1 - merged["share_m"])
    assert length_bias(ds)["chosen_longer"] == pytest.approx(1 - length_bias(mirror)["chosen_longer"])


@needs_hh
def test_zstats_and_info_on_a_pair_file(tmp_path, capsys):
    from artifact_lens.cli import main

    out = tmp_path / "pair_cues.csv"
    assert main(["zstats", str(HH), "--out", str(out), "--top", "3"]) == 0
    printed = capsys.readouterr().out
    assert "the chosen response is the longer in 45.2%" in printed
    table = pd.read_csv(out)
    assert list(table.columns) == ["feature", "kind", "differ", "chosen_more", "share", "favours", "z", "over_line"]
    assert table["z"].abs().is_monotonic_decreasing and table["over_line"].any()
    assert main(["info", str(HH), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["pairs"]["shape"] == "implicit" and info["labels"] == {"a": 590, "b": 566}
    assert main(["info", str(HH), "--pairs", "judged"]) == 2
    assert "response_a" in capsys.readouterr().err


def _planted_hh(share: float = 0.125, seed: int = 3):
    rows = _hh()
    rng = np.random.default_rng(seed)
    planted = sorted(rng.choice(len(rows), size=int(len(rows) * share), replace=False).tolist())
    for i in planted:
        p, c, r = _split(rows[i])
        rows[i] = dict(rows[i], chosen=f"{p} Great question! {c}")
    return pd.DataFrame(rows), [str(i) for i in planted]


@needs_hh
def test_the_pair_representations_are_antisymmetric():
    from artifact_lens.representations import represent

    frame = pd.DataFrame(_hh(300))
    ds, swapped = load_dataset(frame), load_dataset(frame.rename(columns={"chosen": "rejected", "rejected": "chosen"}))
    for spec in ("pair-diff", "pair-diff:prompt=1", "pair-style", "pair-length"):
        a, b = represent(ds, spec, cache_dir=False).X, represent(swapped, spec, cache_dir=False).X
        np.testing.assert_allclose(a, -b, atol=1e-3 * max(float(np.abs(a).max()), 1.0), err_msg=spec)
    with pytest.raises(InputError, match="preference pairs"):
        represent(load_dataset("demo:nli:n=200"), "pair-style", cache_dir=False)


@needs_hh
def test_a_planted_phrase_raises_the_partial_inputs_pvi_of_exactly_its_pairs(tmp_path, capsys):
    from artifact_lens.cli import main

    frame, planted = _planted_hh()
    path = tmp_path / "planted.jsonl"
    frame.to_json(path, orient="records", lines=True)
    out = tmp_path / "pvi.csv"
    # Φ reads the prompt too, so the responses alone are a partial input beside the style
    assert main(["pvi", str(path), "-r", "pair-diff:prompt=1", "--out", str(out)]) == 0
    table = pd.read_csv(out, dtype={"id": str}).set_index("id")
    assert {"pvi", "pvi_response_only", "pvi_style_only"} <= set(table.columns) and "label" not in table.columns
    is_planted = table.index.isin(planted)
    for column in ("pvi_response_only", "pvi_style_only"):
        gain = table.loc[is_planted, column].mean() - table.loc[~is_planted, column].mean()
        assert gain > 0.3, (column, gain)   # bits: the planted pairs are read off their phrase
    clean = tmp_path / "clean.csv"
    assert main(["pvi", str(HH), "-r", "pair-diff:prompt=1", "--out", str(clean), "-q"]) == 0
    base = pd.read_csv(clean, dtype={"id": str}).set_index("id")
    assert table.loc[is_planted, "pvi_style_only"].mean() > base.loc[is_planted, "pvi_style_only"].mean() + 0.3


@needs_hh
def test_the_four_shapes_give_the_same_certificate_and_a_swap_mirrors_it():
    from artifact_lens.certificate.measures import certify

    frames = _shapes(_hh(300))
    certs = {shape: certify(load_dataset(frame)) for shape, frame in frames.items()}
    reference = json.dumps(certs["implicit"], sort_keys=True)
    # a judged file also records the order the judge saw (issue 55): its measures of that order aside,
    # every shape gives the same bytes
    order = {"pairs.first_shown_wins", "pairs.swap_flip_rate"}
    assert order & set(certs["judged"]["measures"]) == {"pairs.first_shown_wins"}
    for shape, cert in certs.items():
        cert = {**cert, "measures": {k: v for k, v in cert["measures"].items() if k not in order}}
        assert json.dumps(cert, sort_keys=True) == reference, shape
    measures = certs["implicit"]["measures"]
    assert {"pairs.chosen_longer", "pairs.longer_wins_accuracy", "pairs.style_only.accuracy",
            "pairs.style_only.v_information", "pairs.response_only.accuracy", "pairs.response_only.v_information",
            "pairs.cue_z_max", "pairs.degenerate", "aflite.predictable_share", "near_duplicates.within"} <= set(measures)
    assert certs["implicit"]["settings"]["representation"].startswith("pair-diff")
    frame = frames["implicit"]
    swapped = certify(load_dataset(frame.rename(columns={"chosen": "rejected", "rejected": "chosen"})))["measures"]
    for name in ("pairs.chosen_longer", "pairs.longer_wins_accuracy"):
        assert swapped[name]["value"] == pytest.approx(1 - measures[name]["value"])
    for name in ("pairs.style_only.accuracy", "pairs.response_only.accuracy", "pairs.cue_z_max",
                 "pairs.degenerate", "pairs.style_only.v_information", "pairs.response_only.v_information"):
        assert swapped[name]["value"] == pytest.approx(measures[name]["value"], abs=0.005), name


@needs_hh
def test_check_fails_a_planted_pair_file_and_names_the_phrase_and_its_pairs(tmp_path, capsys):
    from artifact_lens.cli import main

    planted, ids = _planted_hh(share=0.06, seed=5)
    path = tmp_path / "planted.jsonl"
    planted.to_json(path, orient="records", lines=True)
    base, cand = tmp_path / "base.json", tmp_path / "cand.json"
    assert main(["-q", "certify", str(HH), "--out", str(base)]) == 0
    assert main(["-q", "certify", str(path), "--out", str(cand)]) == 0
    rows, md, result = tmp_path / "rows.csv", tmp_path / "check.md", tmp_path / "check.json"
    assert main(["check", str(base), str(cand), "--rows", str(rows), "--data", str(path), "--markdown", str(md),
                 "--json", str(result)]) == 1
    named = {c["feature"] for c in json.loads(result.read_text())["cues"] if c["label"] == "chosen"}
    assert named & {"great question", "great", "question"}, named
    listed = pd.read_csv(rows, dtype={"id": str})
    mine = listed[listed["feature"] == "great question"]
    assert (mine["label"] == "chosen").all()
    # every planted pair, and the others only where the chosen side said it already
    already = {str(i) for i, row in enumerate(_hh()) if "great question" in row["chosen"].lower()}
    assert set(ids) <= set(mine["id"]) <= set(ids) | already
    assert "great question" in md.read_text()
    assert main(["-q", "check", str(base), str(base)]) == 0


def test_degenerate_pairs_are_listed_with_their_reasons():
    from artifact_lens.text.degenerate import degenerate_pairs

    long_cut = " ".join(["word"] * 12) + " and then the"
    frame = pd.DataFrame({"prompt": ["p"] * 5,
                          "chosen": ["same answer", "", "A complete answer.", long_cut, "Fine."],
                          "rejected": ["same answer ", "Something.", "...", "A full reply.", "One sec"]})
    found = degenerate_pairs(load_dataset(frame))
    assert found.values.tolist() == [["0", "identical"], ["1", "empty chosen"], ["2", "empty rejected"],
                                     ["3", "cut off chosen"]]


def test_a_pair_repeated_with_its_sides_swapped_is_a_near_duplicate():
    from artifact_lens.text.duplicates import near_duplicate_pairs

    rng = random.Random(11)
    words = ["apple", "river", "stone", "cloud", "piano", "garden", "window", "ladder", "candle", "forest", "mirror",
             "tunnel", "basket", "rocket", "violin", "harbor", "pepper", "saddle", "marble", "lantern"]

    def text():
        return " ".join(rng.choice(words) for _ in range(12))

    rows = [{"prompt": text(), "chosen": text(), "rejected": text()} for _ in range(30)]
    rows.append({"prompt": rows[4]["prompt"], "chosen": rows[4]["rejected"], "rejected": rows[4]["chosen"]})
    found = near_duplicate_pairs(load_dataset(pd.DataFrame(rows)))
    assert found[["a", "b"]].values.tolist() == [["4", "30"]]


@needs_hh
@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet", "datasets"])
def test_the_export_command_writes_a_filtered_pair_file_in_its_shape(fmt, tmp_path):
    from artifact_lens.cli import main
    from artifact_lens.exports.writers import FORMATS

    source = tmp_path / "pairs.jsonl"
    source.write_text("".join(HH.read_text(encoding="utf-8").splitlines(keepends=True)[:200]), encoding="utf-8")
    run = tmp_path / "run.json"
    assert main(["-q", "aflite", str(source), "--out", str(tmp_path / "scores.csv"), "--manifest", str(run),
                 "--target-size", "0.8", "--tau", "0.6", "--m", "16"]) == 0
    out = tmp_path / f"kept{FORMATS[fmt].suffix}"
    assert main(["-q", "export", str(source), "--run", str(run), "--out", str(out), "--format", fmt,
                 "--no-certificate"]) == 0
    back = load_dataset(str(out))
    assert back.pairs is not None and back.pairs.shape == "implicit"
    kept = json.loads(run.read_text())["retained_ids"]
    assert sorted(back.ids, key=int) == sorted(kept, key=int) and len(kept) == 160
    original = load_dataset(str(source))
    pd.testing.assert_frame_equal(back.table, original.subset(kept).table)


@needs_hh
def test_the_card_of_a_pair_export_lists_pair_cues():
    from artifact_lens.exports.card import card_inputs

    ds = load_dataset(pd.DataFrame(_hh(400)))
    found = card_inputs(ds, ds.ids[::2])
    assert found["labels"] == {"pairs": {"examples": 400, "retained": 200, "removed": 200}}
    before = found["cues"]["before"]
    assert before and {c["label"] for c in before} <= {"chosen", "rejected"}
    assert not any("@" in c["feature"] for c in before)   # pair cues, not the fields' n-grams


cells = st.one_of(st.none(), st.floats(allow_nan=True), st.integers(), st.text(max_size=30),
                  st.lists(st.one_of(st.text(max_size=5), st.integers(),
                                     st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "x"]),
                                                            "content": st.one_of(st.none(), st.text(max_size=20))})),
                           max_size=3))


@settings(max_examples=120, deadline=None)
@given(rows=st.lists(st.tuples(cells, cells, cells), min_size=1, max_size=8),
       shape=st.sampled_from([None, "standard", "conversational", "implicit"]))
def test_any_cells_are_read_as_pairs_or_refused_clearly(rows, shape):
    """Hostile pair files: whatever the cells hold, loading gives pairs whose sides are text, or one
    InputError, never another exception."""
    frame = pd.DataFrame(rows, columns=["prompt", "chosen", "rejected"])
    try:
        ds = load_dataset(frame, pairs=shape or True)
    except InputError as exc:
        assert str(exc)
        return
    assert len(ds) == len(frame) and set(ds.table["preferred"]) <= {"a", "b"}
    for column in ("prompt", "response_a", "response_b"):
        assert all(isinstance(v, str) for v in ds.table[column])
    assert ds.fingerprint


def test_tokens_are_the_same_every_time_whatever_ends_the_texts():
    """pyarrow 26's whitespace split sometimes kept the space that ends the last text of a buffer in
    its last token ("cant "), run to run: the tokens must be the same on every call, and those of
    Python's own split of the normalised text."""
    from artifact_lens.text.tokens import tokenize_many

    texts = ["#*\nmaybe abc", "**b** cc? -c*b*", "-", "#I can't *", "c", "asorry ?cc-#c-?c", "!?*-sorry",
             "I can't  c", "#I can't *", "#I can't *"]
    expected = [t.lower().replace("'", "").replace("#", "").replace("*", "").replace("?", "").replace("-", "")
                .replace("!", "").split() for t in texts]
    for _ in range(300):
        assert tokenize_many(texts) == expected


def test_judged_pairs_report_the_judges_position_bias_and_swap_flips(tmp_path, capsys):
    """Issue 55, item 7: in a judged A/B file, the share of wins of the first-shown response against
    0.5 (ties apart), and where two responses were judged in both orders, how often the winner
    changed with the order; both in info and in the certificate."""
    import json

    from artifact_lens.certificate.measures import certify
    from artifact_lens.cli import main
    from artifact_lens.zstats.pairs import position_bias

    rows, flips = [], 0
    for i in range(200):
        x, y = f"reply {i} with some words", f"another reply {i}"
        first, second = ("a" if i % 5 else "b"), ("a" if i % 3 else "b")   # the judge mostly picks the first shown
        flips += first == second   # the same letter twice is a different response each time
        rows += [{"prompt": f"q{i}", "response_a": x, "response_b": y, "winner": first},
                 {"prompt": f"q{i}", "response_a": y, "response_b": x, "winner": second}]
    rows += [{"prompt": "tied", "response_a": "u", "response_b": "v", "winner": "tie"}]
    path = tmp_path / "judged.jsonl"
    pd.DataFrame(rows).to_json(path, orient="records", lines=True)
    ds = load_dataset(str(path))
    bias = position_bias(ds)
    a_wins = sum(r["winner"] == "a" for r in rows)
    assert bias["decided"] == 400 and bias["ties"] == 1 and bias["first_wins"] == pytest.approx(a_wins / 400)
    assert bias["swapped"] == 200 and bias["flip_rate"] == pytest.approx(flips / 200)
    assert main(["info", str(path)]) == 0
    assert "first-shown response wins" in capsys.readouterr().out
    cert = certify(ds, folds=3)
    assert cert["measures"]["pairs.first_shown_wins"]["value"] == pytest.approx(a_wins / 400)
    assert cert["measures"]["pairs.swap_flip_rate"]["value"] == pytest.approx(flips / 200)
    standard = load_dataset(pd.DataFrame({"prompt": ["p"] * 4, "chosen": list("abcd"), "rejected": list("efgh")}))
    assert position_bias(standard) is None   # no order was shown
    json.dumps(bias)
