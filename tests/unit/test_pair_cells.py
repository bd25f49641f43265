"""Preference pairs read as their shape defines them, or refused (issue 53, item 6): hostile cells
generated across the four shapes give a dataset or one InputError naming the row and the fix,
never a traceback and never a response that is a Python object's text."""
import json
import math

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from artifact_lens.base.errors import InputError
from artifact_lens.data.sources import load_dataset

#: plain text without brackets, braces or quotes: any of those in a response came from an object's repr
_plain = st.text(st.sampled_from(list("abc xyz.,!?\n")), min_size=0, max_size=12)
_message = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system", "tool", ""]),
                                  "content": st.one_of(_plain, st.none(), st.integers(0, 9),
                                                       st.lists(st.fixed_dictionaries({"type": st.just("text"),
                                                                                       "text": _plain}), max_size=2))})
_hostile = st.one_of(_plain, st.none(), st.just(math.nan), st.integers(-5, 99), st.floats(allow_nan=False, width=32),
                     st.booleans(), st.lists(_plain, max_size=2), st.dictionaries(_plain, _plain, max_size=2),
                     st.lists(_message, max_size=3), st.lists(_message, max_size=3).map(json.dumps),
                     st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": _plain}), max_size=2))
_transcript = st.lists(st.tuples(st.sampled_from(["Human", "Assistant"]), _plain), max_size=3).map(
    lambda turns: "".join(f"\n\n{r}: {t}" for r, t in turns))

COLUMNS = {"standard": ("prompt", "chosen", "rejected"), "conversational": ("prompt", "chosen", "rejected"),
           "implicit": ("chosen", "rejected"), "judged": ("prompt", "response_a", "response_b", "winner")}


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(COLUMNS)), st.data(), st.sampled_from([".jsonl", ".csv"]))
def test_hostile_pair_cells_are_read_as_their_shape_or_refused(tmp_path, shape, data, suffix):
    n = data.draw(st.integers(1, 4))
    rows = []
    for _ in range(n):
        row = {}
        for column in COLUMNS[shape]:
            if column == "winner":
                row[column] = data.draw(st.one_of(st.sampled_from(["a", "b", "tie"]), _hostile))
            else:
                row[column] = data.draw(st.one_of(_hostile, _transcript) if shape == "implicit" else _hostile)
        rows.append(row)
    path = tmp_path / f"pairs{suffix}"
    frame = pd.DataFrame(rows)
    if suffix == ".csv":
        # a CSV holds text: lists of messages as JSON (its way to hold them); any other object has
        # no CSV form, so its cell holds plain text instead
        frame = frame.map(lambda v: (json.dumps(v) if all(isinstance(m, dict) for m in v) else "x")
                          if isinstance(v, list) else "x" if isinstance(v, dict) else v)
        frame.to_csv(path, index=False)
    else:
        path.write_text("".join(json.dumps(r, allow_nan=True) + "\n" for r in rows))
    try:
        ds = load_dataset(str(path), pairs=shape)
    except InputError as exc:
        assert str(exc).strip()
        return
    # a Python object's text has a quote or a bracket that plain text lacks; a CSV's cell is text,
    # JSON included, so only Python's quotes would betray a repr there
    betray = "'" if suffix == ".csv" else "[]{}'\""
    for field in ("prompt", "response_a", "response_b"):
        for text in ds.table[field]:
            assert isinstance(text, str), (field, text)
            assert not any(c in text for c in betray), (field, text, rows)
    from artifact_lens.cli import main

    assert main(["-q", "info", str(path), "--pairs", shape]) == 0   # every front end's sentences, one pair too
    if suffix == ".jsonl" and shape != "conversational" and any(
            isinstance(v, (int, float)) and not isinstance(v, bool) and v == v for r in rows for k, v in r.items()
            if k != "winner"):
        assert any("number cells read as their text" in m for m in ds.messages), ds.messages


def _write(tmp_path, rows, name="p.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


@pytest.mark.parametrize("rows, options, expected", [
    ([{"prompt": "q", "chosen": "a", "Chosen": "b", "rejected": "c"}], {}, "'chosen' and 'Chosen' both name"),
    ([{"prompt": "q", "chosen": "a", "rejected": "c"}], {"pair_columns": {"rejected": "chosen"}},
     "given as the pairs' chosen and rejected"),
    ([{"prompt": "q", "chosen": "a", "rejected": "c"}], {"pair_columns": {"prompt": "chosen"}},
     "given as the pairs' prompt and chosen"),
    ([{"prompt": "q", "chosen": "a", "rejected": "c", "w": "a"}], {"pairs": "standard", "pair_columns": {"winner": "w"}},
     "the standard shape has no winner"),
    ([{"prompt": "q", "chosen": "\n\nHuman: q\n\nAssistant: a", "rejected": "\n\nHuman: q\n\nAssistant: b"}],
     {"pairs": "implicit"}, "the implicit shape reads the prompt from the transcripts"),
    ([{"chosen": "just an answer", "rejected": "another answer"}], {"pairs": "implicit"},
     "two HH transcripts sharing their conversation up to an 'Assistant:' turn"),
    ([{"prompt": "q", "chosen": 42, "rejected": ["first answer", "second"]}], {"pairs": "standard"},
     "pair '0' holds ['first answer', 'second'] where text"),
    ([{"prompt": "q", "chosen": {"text": "a"}, "rejected": "b"}], {"pairs": "standard"}, "holds {'text': 'a'}"),
])
def test_a_pair_file_that_fits_no_shape_is_refused_by_name(tmp_path, rows, options, expected):
    with pytest.raises(InputError, match=None) as info:
        load_dataset(_write(tmp_path, rows), **options)
    assert expected in str(info.value), str(info.value)


def test_what_is_read_in_a_way_worth_saying_is_said(tmp_path):
    user = {"role": "user", "content": "q"}
    rows = [{"chosen": [user, {"role": "assistant", "content": [{"type": "text", "text": "good"}]}],
             "rejected": [user]},                                            # no assistant message: empty
            {"chosen": [user, {"role": "assistant", "content": 7}], "rejected": [user, {"role": "assistant",
                                                                                        "content": "bad"}]},
            {"chosen": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "a"}],
             "rejected": [{"role": "user", "content": "y"}, {"role": "assistant", "content": "b"}]}]
    ds = load_dataset(_write(tmp_path, rows))
    said = " ".join(ds.messages)
    for words in ("1 message contents given as text parts, joined", "1 sides with no assistant message",
                  "1 number cells read as their text", "1 pairs whose two sides differ before their last assistant"):
        assert words in said, said
    from artifact_lens.data.pairs import side_by_side

    read = side_by_side(ds)
    assert read.loc["0", "chosen"] == "good" and read.loc["0", "rejected"] == "" and read.loc["1", "chosen"] == "7"


def test_json_message_lists_in_a_csv_are_read_as_messages(tmp_path):
    user = {"role": "user", "content": "hello"}
    frame = pd.DataFrame({"chosen": [json.dumps([user, {"role": "assistant", "content": f"kind {i}"}]) for i in range(3)],
                          "rejected": [json.dumps([user, {"role": "assistant", "content": f"rude {i}"}])
                                       for i in range(3)]})
    frame.to_csv(tmp_path / "c.csv", index=False)
    ds = load_dataset(str(tmp_path / "c.csv"))
    assert ds.pairs.shape == "conversational" and set(ds.table["prompt"]) == {"Human: hello"}
    assert any("JSON message lists in the chosen column" in m for m in ds.messages)
    frame.loc[1, "chosen"] = "plain text"
    frame.to_csv(tmp_path / "mixed.csv", index=False)
    with pytest.raises(InputError, match="JSON lists of messages in some rows and text in others \\(row 1\\)"):
        load_dataset(str(tmp_path / "mixed.csv"))


def test_a_judged_pair_with_a_missing_response_reads_its_position_bias(tmp_path, capsys):
    """Found by the generator above: a missing response_b (null) reached the position-bias count as
    a float, which no text compares with (exit 3). It is read as the pair reader reads it: ""."""
    import json

    from artifact_lens.cli import main

    rows = [{"prompt": "p", "response_a": "x", "response_b": None, "winner": "model_a"},
            {"prompt": "p", "response_a": None, "response_b": "x", "winner": "model_b"},
            {"prompt": "q", "response_a": "y", "response_b": "z", "winner": "model_a"}]
    path = tmp_path / "judged.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["-q", "info", str(path), "--pairs", "judged"]) == 0, capsys.readouterr().err
    assert "judged in both orders" in capsys.readouterr().out
