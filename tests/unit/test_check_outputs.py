"""What `check` writes for a dataset's CI (issue 44, items 2 and 5): the new cue named, the rows
that carry it (--rows), a JSON result (--json) and a Markdown summary (--markdown), and what it
prints to a terminal escaped."""
import json

import numpy as np
import pandas as pd
import pytest

from artifact_lens.certificate.measures import certify
from artifact_lens.certificate.schema import write_certificate
from artifact_lens.cli import main
from artifact_lens.data.sources import load_dataset


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A baseline half of a demo NLI set and the other half with "indeed" before 30 % of its
    entailment hypotheses, certified, with the candidate's data as a file."""
    folder = tmp_path_factory.mktemp("check")
    table = load_dataset("demo:nli:n=800").table.reset_index().rename(columns={"index": "id"})
    order = np.random.default_rng(0).permutation(len(table))
    a, b = table.iloc[order[:400]], table.iloc[order[400:]].copy()
    entail = np.flatnonzero(b["label"].to_numpy() == "entailment")
    chosen = np.random.default_rng(1).choice(entail, size=int(0.3 * len(entail)), replace=False)
    b.iloc[chosen, b.columns.get_loc("hypothesis")] = ["indeed " + h for h in b.iloc[chosen]["hypothesis"]]
    a.to_json(folder / "base.jsonl", orient="records", lines=True)
    b.to_json(folder / "cand.jsonl", orient="records", lines=True)
    for name in ("base", "cand"):
        write_certificate(certify(load_dataset(str(folder / f"{name}.jsonl")), folds=3), folder / f"{name}.json")
    return folder, set(b.iloc[chosen]["id"].astype(str))


def test_check_names_the_new_cue_and_writes_its_rows_json_and_markdown(planted, capsys):
    folder, ids = planted
    out = {k: str(folder / f"out.{k}") for k in ("json", "md", "csv")}
    assert main(["check", str(folder / "base.json"), str(folder / "cand.json"), "--json", out["json"], "--markdown",
                 out["md"], "--rows", out["csv"], "--data", str(folder / "cand.jsonl")]) == 1
    printed = capsys.readouterr().out
    assert "indeed@hypothesis" in printed and "→ entailment" in printed
    result = json.loads(open(out["json"]).read())
    assert result["passed"] is False and result["exit_status"] == 1
    assert {m["status"] for m in result["measures"]} <= {"pass", "fail", "warn", "not gated"}
    cue = next(c for c in result["cues"] if c["feature"] == "indeed@hypothesis")
    assert cue["label"] == "entailment" and cue["status"] == "fail" and cue["z"] > cue["line"]
    rows = pd.read_csv(out["csv"], dtype=str)
    assert set(rows.loc[rows["feature"] == "indeed@hypothesis", "id"]) == ids   # exactly the planted rows
    assert (rows.loc[rows["feature"] == "indeed@hypothesis", "label"] == "entailment").all()
    summary = open(out["md"], encoding="utf-8").read()
    assert summary.startswith("### Artifact certificate: **failed**") and "`indeed@hypothesis`" in summary


def test_rows_need_the_candidates_own_data(planted, capsys):
    folder, _ = planted
    base, cand = str(folder / "base.json"), str(folder / "cand.json")
    assert main(["check", base, cand, "--rows", str(folder / "r1.csv")]) == 2
    assert "--data" in capsys.readouterr().err
    assert main(["check", base, cand, "--rows", str(folder / "r2.csv"), "--data", str(folder / "base.jsonl")]) == 2
    assert "is not the data the candidate certificate was made from" in capsys.readouterr().err
    assert not (folder / "r1.csv").exists() and not (folder / "r2.csv").exists()


def test_what_check_prints_to_a_terminal_is_escaped(planted, capsys):
    """A label with a carriage return or an escape sequence in a measure's name prints as its
    escape, not as a command to the terminal."""
    folder, _ = planted
    cert = json.loads((folder / "base.json").read_text())
    cert["measures"]["near_duplicates.within[a\rb\x1b[31m]"] = dict(cert["measures"]["near_duplicates.within"])
    (folder / "odd.json").write_text(json.dumps(cert))
    main(["check", str(folder / "odd.json"), str(folder / "odd.json")])
    printed = capsys.readouterr().out
    assert "\r" not in printed and "\x1b" not in printed and "a\\rb\\x1b[31m" in printed
