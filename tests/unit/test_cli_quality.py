"""`artifact-lens quality` / `feedback` / `aflite --quality dqi|COMPONENT`: outputs through core.exports.outputs;
bad input is one error line, exit 2 and no file."""
import json

import pandas as pd
import pytest

from artifact_lens.cli import main
from artifact_lens.quality import COMPONENTS

SOURCE = "demo:nli:n=300"
R = ["-r", "tfidf-svd:fields=hypothesis,dim=8"]
GOOD = {"premise": "A woman walks a dog in the park.", "hypothesis": "Nobody is sleeping.", "label": "contradiction"}


@pytest.fixture
def nli_files(tmp_path):
    from artifact_lens.data.sources import load_dataset

    table = load_dataset(SOURCE).table.reset_index()[["id", "premise", "hypothesis", "label"]]
    table.to_csv(tmp_path / "train.csv", index=False)
    table.iloc[:20].to_csv(tmp_path / "test.csv", index=False)
    table.iloc[:20].assign(genre="fiction").to_csv(tmp_path / "other.csv", index=False)
    bad = table.assign(q=[float("inf")] + [0.5] * (len(table) - 1))
    bad.to_csv(tmp_path / "inf.csv", index=False)
    return tmp_path


def test_quality_writes_components_score_and_lights(tmp_path, capsys):
    out = tmp_path / "quality.csv"
    assert main(["quality", SOURCE, *R, "--out", str(out)]) == 0
    frame = pd.read_csv(out)
    assert frame.columns[0] == "id" and len(frame) == 300
    assert [*COMPONENTS, "dqi", "light"] == [c for c in frame.columns if c in (*COMPONENTS, "dqi", "light")]
    assert all(f"light_{c}" in frame.columns for c in COMPONENTS)
    assert frame["dqi"].between(0, 1).all() and set(frame["light"]) <= {"red", "yellow", "green"}
    said = capsys.readouterr().out
    assert "quality of 300 examples" in said and "label_tied" in said


def test_quality_with_a_second_split(nli_files, tmp_path):
    out = tmp_path / "q.csv"
    assert main(["-q", "quality", str(nli_files / "train.csv"), *R, "--second-split", str(nli_files / "test.csv"),
                 "--out", str(out)]) == 0
    frame = pd.read_csv(out).set_index("id")
    assert (frame.loc[frame.index[:20], "inter_split"] < 0.01).all()      # the same rows leak into the second split
    assert frame["inter_split"].iloc[20:].median() > 0.01


def test_feedback_prints_the_lights_and_suggestions(tmp_path, capsys):
    out = tmp_path / "fb.json"
    assert main(["feedback", SOURCE, *R, "--example", json.dumps(GOOD), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert said.startswith("example: ")
    assert "label_tied" in said and "suggestion: 'nobody' predicts contradiction, z = " in said
    assert "hypothesis-only model: contradiction" in said
    saved = json.loads(out.read_text())
    assert saved["components"]["label_tied"]["light"] == "red" and saved["suggestions"]


def test_aflite_orders_removal_by_dqi_and_records_it(tmp_path):
    manifest = tmp_path / "run.json"
    assert main(["-q", "aflite", SOURCE, *R, "--m", "8", "--k", "0.05", "--tau", "0", "--target-size", "0.5",
                 "--quality", "label_tied", "--out", str(tmp_path / "s.csv"), "--manifest", str(manifest)]) == 0
    m = json.loads(manifest.read_text())
    assert m["quality"]["name"] == "label_tied" and m["quality"]["source"] == "core.quality"
    assert m["aflite"]["resolved"]["quality_order"] is True


@pytest.mark.parametrize("argv,fragment", [
    (["feedback", SOURCE, *R, "--example", json.dumps({"premise": "A man.", "label": "neutral"})], "lacks 'hypothesis'"),
    (["feedback", SOURCE, *R, "--example", json.dumps({**GOOD, "label": "maybe"})], "not one of the dataset's labels"),
    (["feedback", SOURCE, *R, "--example", json.dumps({**GOOD, "hypothesis": " "})], "'hypothesis' is empty"),
    (["feedback", SOURCE, *R, "--max-chars", "10", "--example", json.dumps(GOOD)], "the limit is 10"),
    (["feedback", SOURCE, *R, "--example", "{not json"], "not valid JSON"),
    (["feedback", SOURCE, *R, "--thresholds", "dqi=0.8:0.2", "--example", json.dumps(GOOD)], "0 ≤ red ≤ green ≤ 1"),
    (["quality", SOURCE, *R, "--weights", "label_tied=two", "--out", "{out}"], "--weights"),
    (["quality", "{dir}/train.csv", *R, "--second-split", "{dir}/other.csv", "--out", "{out}"], "columns differ from the dataset's (it adds genre)"),
    (["aflite", "{dir}/inf.csv", *R, "--quality", "q", "--out", "{out}"], "infinite"),
    (["aflite", SOURCE, *R, "--quality", "nope", "--out", "{out}"], "neither dqi"),
])
def test_bad_input_is_one_error_line_and_no_file(nli_files, tmp_path, capsys, argv, fragment):
    out = tmp_path / "out.csv"
    argv = [a.replace("{dir}", str(nli_files)).replace("{out}", str(out)) for a in argv]
    assert main(["-q", *argv]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and err[0].startswith("error: ") and fragment in err[0], err
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
