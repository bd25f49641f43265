"""A new cue's rows as a Label Studio project (issue 44, item 2), checked by Label Studio's own SDK
validator (`label_studio_sdk.label_interface.LabelInterface`, in the environment `make install-test`
builds: .venv-label-studio) on the project ``check --label-studio`` writes and on projects of
generated field names and texts."""
import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artifact_lens.cli import main
from artifact_lens.data.dataset import Dataset
from artifact_lens.exports.label_studio import label_studio_config, label_studio_tasks

from test_check_outputs import planted  # noqa: F401  (the baseline and the candidate with "indeed" planted)

ROOT = Path(__file__).resolve().parents[2]
SDK_PYTHON = ROOT / ".venv-label-studio" / "bin" / "python"
VALIDATE = ROOT / "tests" / "tools" / "label_studio_validate.py"


def validated(*folders) -> list:
    """What Label Studio's validator says of each project folder."""
    assert SDK_PYTHON.exists(), "Label Studio's SDK environment is missing: run `make install-test`"
    done = subprocess.run([str(SDK_PYTHON), str(VALIDATE), *map(str, folders)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _valid(found: dict) -> bool:
    return found["config_error"] is None and all(t["data_ok"] and not t["prediction_errors"] for t in found["tasks"])


def test_check_writes_a_label_studio_project_of_the_new_cues_rows(planted, tmp_path):
    folder, ids = planted
    out = tmp_path / "ls"
    assert main(["check", str(folder / "base.json"), str(folder / "cand.json"), "--data", str(folder / "cand.jsonl"),
                 "--label-studio", str(out)]) == 1
    tasks = json.loads((out / "tasks.json").read_text(encoding="utf-8"))
    carrying = [t for t in tasks if "indeed@hypothesis → entailment" in t["data"]["cues"]]
    assert {t["data"]["artifact_lens_id"] for t in carrying} == ids      # one task per planted row, no other
    assert len(tasks) == len({t["data"]["artifact_lens_id"] for t in tasks})   # an example is one task
    for t in carrying:
        (p,) = t["predictions"]
        assert p["result"][0]["value"] == {"choices": ["remove"]} and 0.9 <= p["score"] <= 1.0   # the cue's share
        assert t["data"]["field_1"].lower().startswith("indeed") and t["data"]["artifact_lens_label"] == "entailment"
    (found,) = validated(out)
    assert _valid(found), found
    assert found["controls"] == ["decision", "note"] and {"field_0", "field_1", "cues"} <= set(found["objects"])


def test_the_validator_refuses_what_label_studio_would(planted, tmp_path):
    """A guard on the guard: a choice the config lacks, a score over 1, a missing field and an
    unknown target are each an error."""
    folder, _ = planted
    good = tmp_path / "good"
    main(["check", str(folder / "base.json"), str(folder / "cand.json"), "--data", str(folder / "cand.jsonl"),
          "--label-studio", str(good)])
    tasks = json.loads((good / "tasks.json").read_text(encoding="utf-8"))[:4]
    tasks[0]["predictions"][0]["result"][0]["value"]["choices"] = ["maybe"]
    tasks[1]["predictions"][0]["score"] = 3.0
    tasks[2]["predictions"][0]["result"][0]["to_name"] = "nowhere"
    del tasks[3]["data"]["field_0"]
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "label_config.xml").write_text((good / "label_config.xml").read_text(encoding="utf-8"), encoding="utf-8")
    (bad / "tasks.json").write_text(json.dumps(tasks), encoding="utf-8")
    (found,) = validated(bad)
    assert [bool(t["prediction_errors"]) for t in found["tasks"]] == [True, True, True, False]
    assert [t["data_ok"] for t in found["tasks"]] == [True, True, True, False]


_names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=20)
_cells = st.one_of(st.text(max_size=60), st.none(), st.floats(allow_nan=True), st.integers())


def test_generated_fields_and_texts_give_projects_label_studio_accepts(tmp_path):
    """Field names with quotes, angle brackets, ampersands, spaces and any script, cells that are
    empty, numbers or NaN, one field or three: every project parses and every task validates."""
    folders, made = [], iter(range(10 ** 6))

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(fields=st.lists(_names, min_size=1, max_size=3, unique=True), data=st.data())
    def build(fields, data):
        n = data.draw(st.integers(1, 4))
        label = "label " + "".join(fields)   # never a field's name
        table = pd.DataFrame({f: data.draw(st.lists(_cells, min_size=n, max_size=n)) for f in fields},
                             index=pd.Index([f"e{i}" for i in range(n)], name="id"))
        table[label] = data.draw(st.lists(st.sampled_from(["a", "b <&>"]), min_size=n, max_size=n))
        ds = Dataset(table=table, label=label, text=list(fields), name="generated")
        rows = pd.DataFrame({"id": table.index, "label": table[label], "feature": data.draw(_names),
                             "cue_label": "a", "share_after": data.draw(st.floats(0, 1)), "z": 5.0})
        folder = tmp_path / f"p{next(made)}"
        folder.mkdir()
        (folder / "label_config.xml").write_text(label_studio_config(ds), encoding="utf-8")
        (folder / "tasks.json").write_text(json.dumps(label_studio_tasks(ds, rows), allow_nan=False), encoding="utf-8")
        folders.append((folder, fields))

    build()
    for (folder, fields), found in zip(folders, validated(*(f for f, _ in folders))):
        assert _valid(found), (fields, found)
        assert len(found["tasks"]) == len(pd.read_json(folder / "tasks.json"))


def test_a_label_studio_folder_the_tool_did_not_write_is_never_replaced(planted, tmp_path, capsys):
    folder, _ = planted
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    assert main(["check", str(folder / "base.json"), str(folder / "cand.json"), "--data", str(folder / "cand.jsonl"),
                 "--label-studio", str(mine)]) == 2
    assert "never overwrites" in capsys.readouterr().err and (mine / "notes.txt").read_text() == "keep me"
    assert main(["check", str(folder / "base.json"), str(folder / "cand.json"), "--label-studio", str(tmp_path / "x")]) == 2
    assert "--data" in capsys.readouterr().err and not (tmp_path / "x").exists()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.text(st.characters(codec=None, exclude_categories=()), min_size=1, max_size=30), min_size=1,
                max_size=4, unique=True))
def test_the_config_is_well_formed_xml_whatever_a_field_name_holds(fields):
    """Issue 53, item 5: control characters, surrogates, U+FFFF and bidirectional controls in a field
    name leave the config well-formed XML, each name shown in a header (escaped where XML cannot
    carry it)."""
    import xml.etree.ElementTree as ET

    from types import SimpleNamespace

    config = label_studio_config(SimpleNamespace(text=fields))
    config.encode("utf-8")   # what write_text does: no lone surrogate reaches the file
    headers = [h.get("value") for h in ET.fromstring(config).iter("Header")][1:-1]
    assert len(headers) == len(fields)
    for field, header in zip(fields, headers):
        if all(c.isprintable() and c not in "\u202e\u202d\u2066\u2067\u2068\u2069" for c in field):
            assert header == field
