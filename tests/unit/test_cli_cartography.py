"""`python -m core cartography`: the CSV the docs name, ids as the dataset has them, the
in-sample variant without label issues (and a note saying why), and the workflow function the
dashboard will call giving the same table."""
import numpy as np
import pandas as pd

from core.cli import main
from core.representations import represent
from core.sources import load_dataset
from core.workflow import cartography

SPEC = "tfidf-svd:fields=hypothesis,dim=16"


def test_the_csv_holds_every_scored_example_with_its_dynamics(tmp_path, capsys):
    out = tmp_path / "carto.csv"
    assert main(["-q", "--cache-dir", str(tmp_path / "c"), "cartography", "demo:nli:n=600", "-r", SPEC, "--epochs",
                 "4", "--out", str(out)]) == 0
    frame = pd.read_csv(out, dtype={"id": str})
    assert list(frame.columns) == ["id", "label", "confidence", "variability", "correctness", "region",
                                   "label_quality", "label_issue"]
    ds = load_dataset("demo:nli:n=600")
    assert sorted(frame["id"]) == sorted(ds.table.index.astype(str))
    assert (frame.set_index("id")["label"] == ds.table[ds.label].reindex(frame["id"]).to_numpy()).all()
    same = cartography(ds, represent(ds, SPEC, cache_dir=tmp_path / "c"), epochs=4)
    assert np.allclose(same.table["confidence"].to_numpy(), frame["confidence"].to_numpy(), atol=1e-5)


def test_in_sample_has_no_label_issues_and_says_why(tmp_path, capsys):
    out = tmp_path / "carto.csv"
    assert main(["--cache-dir", str(tmp_path / "c"), "cartography", "demo:nli:n=300", "-r", SPEC, "--epochs", "3",
                 "--in-sample", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "note: label issues need out-of-sample probabilities" in err
    assert "label_issue" not in pd.read_csv(out).columns
