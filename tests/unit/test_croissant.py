"""The datasets folder carries a ``croissant.json`` (issue 44, item 6): MLCommons Croissant 1.0 with
its Responsible-AI fields filled from measurements, which the ``mlcroissant`` package validates.
On real SNLI rows with a phrase planted in 30 % of one label's hypotheses, the biases name it; every
shard's SHA-256 is the file's; the fields are the rows' columns."""
import hashlib
import json
import logging

import mlcroissant as mlc
import pandas as pd
import pytest

from artifact_lens.cli import main
from artifact_lens.data.sources import load_dataset
from artifact_lens.representations import represent
from artifact_lens.results.runs import fit_run

SNLI_ROWS = 1200


@pytest.fixture(scope="module")
def planted(tmp_path_factory, snli_dev):
    folder = tmp_path_factory.mktemp("croissant")
    rows = pd.read_json(snli_dev, lines=True).iloc[:SNLI_ROWS]
    chosen = rows.index[(rows["label"] == "contradiction")][::3]
    rows.loc[chosen, "hypothesis"] = "Nobody whatsoever " + rows.loc[chosen, "hypothesis"]
    (folder / "data").mkdir()
    data = folder / "data" / "snli.jsonl"
    rows.to_json(data, orient="records", lines=True)
    ds = load_dataset(str(data))
    run = fit_run(ds, represent(ds, "tfidf-svd:fields=premise+hypothesis,dim=32", cache_dir=folder / "cache"),
                  dict(n_partitions=8, train_size=0.1, slice_size=0.05, tau=0.75, target_size=0.8))
    run.save(folder / "run.npz")
    out = folder / "kept"
    # every row (the filter would remove most of the planted ones: they are the easiest to predict)
    assert main(["-q", "--cache-dir", str(folder / "cache"), "export", str(data), "--run", str(folder / "run.npz"),
                 "--format", "datasets", "--which", "all", "--out", str(out)]) == 0
    return out


def test_the_folders_croissant_validates_and_its_files_are_the_folders(planted, caplog):
    path = planted / "croissant.json"
    with caplog.at_level(logging.ERROR):
        found = mlc.Dataset(jsonld=str(path))     # raises on a metadata error
    assert found.metadata.name
    meta = json.loads(path.read_text())
    shards = [d for d in meta["distribution"] if d["@type"] == "cr:FileObject"]
    assert shards and all(hashlib.sha256((planted / d["contentUrl"]).read_bytes()).hexdigest() == d["sha256"]
                          for d in shards)
    assert sorted(p.name for p in planted.glob("data-*.arrow")) == sorted(d["name"] for d in shards)
    fields = {f["name"]: f["dataType"] for f in meta["recordSet"][0]["field"]}
    assert {"id", "premise", "hypothesis", "label"} <= set(fields) and fields["premise"] == "sc:Text"


def test_the_responsible_ai_fields_come_from_the_measurements(planted):
    meta = json.loads((planted / "croissant.json").read_text())
    certificate = json.loads((planted / "certificate.json").read_text())
    biases = meta["rai:dataBiases"]
    # the planted phrase is named with the label it gives away, and the partial input's accuracy is there
    assert any("nobody whatsoever" in b and "'contradiction'" in b for b in biases), biases
    accuracy = certificate["measures"]["partial_input.accuracy"]["value"]
    assert any(b.startswith("partial_input.accuracy = ") and f"{accuracy:.3g}" in b for b in biases)
    assert any("AFLite" in limit for limit in meta["rai:dataLimitations"])
    assert "τ = " in meta["rai:dataPreprocessingProtocol"]
    assert meta["rai:annotationsPerItem"] == "1" and "not reviewed" in meta["rai:dataAnnotationAnalysis"]
