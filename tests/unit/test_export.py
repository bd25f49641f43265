"""Exports: selections, formula neutralisation, every format to bytes and to a path, atomicity."""
import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest

from artifact_lens.exports import manifest as manifests, writers as export
from artifact_lens.data.dataset import Dataset
from artifact_lens.base.errors import InputError
from artifact_lens.aflite import Trajectory
from artifact_lens.results.runs import Run


@pytest.fixture
def dataset():
    table = pd.DataFrame(
        {
            "premise": ["=HYPERLINK(\"http://x\")", "a dog runs", "+1+2", "@SUM(A1)", "-5", "-cmd|x", "plain", "b"],
            "hypothesis": ["h0", "h1", "h2", "h3", "h4", "h5", "h6", "<b>bold</b>"],
            "label": ["a", "b", "a", "b", "a", "b", "a", "b"],
            "emb": [np.arange(3, dtype=np.float32) + i for i in range(8)],
        },
        index=pd.Index([f"r{i}" for i in range(8)], name="id"),
    )
    return Dataset(table=table, label="label", text=["premise", "hypothesis"], embedding="emb", name="toy.csv")


@pytest.fixture
def run():
    # r0 and r1 were warm-up examples; r2..r7 were scored. Phase 0 removed r3, phase 1 r5.
    ids = np.array([f"r{i}" for i in range(2, 8)])
    predictability = np.array([0.1, 0.9, 0.2, 0.8, 0.3, 0.4], dtype=np.float32)
    record = {"params": {"tau": 0.5, "random_state": 3}, "seed": 3, "classes": ["a", "b"], "n_phases": 2,
              "history": [{"phase": 0}, {"phase": 1}],
              "resolved": {"N": 6, "d": 3, "m": 2, "t": 1, "k": 1, "n": 4, "tau": 0.5, "families": ["ridge"],
                           "strategy": "greedy-slice", "block_size": 1, "quality_order": False}}
    arrays = {"removed_at": np.array([-1, 0, -1, 1, -1, -1]), "removal_rank": np.array([-1, 0, -1, 0, -1, -1]),
              "predictability": predictability,
              "phase_scores": np.r_[predictability, predictability[[0, 2, 3, 4, 5]]].astype(np.float32),
              "phase_offsets": np.array([0, 6, 11])}
    return Run(params=record["params"], dataset_name="toy.csv", dataset_fingerprint="f" * 16,
               representation="tfidf-svd:fields=hypothesis", ids=ids, excluded_ids=np.array(["r0", "r1"]),
               trajectory=Trajectory.from_arrays(record, arrays))


def test_retained_and_removed_exclude_warmup(dataset, run):
    kept = export.export_frame(dataset, run, which="retained")
    gone = export.export_frame(dataset, run, which="removed")
    assert kept["id"].tolist() == ["r2", "r4", "r6", "r7"]
    assert gone["id"].tolist() == ["r3", "r5"]
    assert list(kept.columns[:3]) == ["id", "premise", "hypothesis"]


def test_all_has_score_columns_and_marks_warmup(dataset, run):
    frame = export.export_frame(dataset, run, which="all")
    assert len(frame) == 8
    assert frame["warmup"].tolist() == [True, True] + [False] * 6
    assert np.isnan(frame["predictability"].iloc[0])
    assert frame["predictability"].iloc[3] == pytest.approx(0.9)
    assert frame["removed_at"].iloc[3] == 0 and frame["removed_at"].iloc[5] == 1
    assert frame["removed_at"].iloc[2] == -1
    assert pd.isna(frame["removed_at"].iloc[0])
    assert frame["retained"].tolist() == [False, False, True, False, True, False, True, True]


def test_live_result_overrides_fitted(dataset, run):
    # what run.result_for gives at a larger τ: r3 (second scored example) is kept, and
    # its score is the one of the last phase run at that τ
    live = {"retained": np.array([True, True, True, False, True, True]),
            "removed_at": np.array([-1, -1, -1, 1, -1, -1]),
            "predictability": np.array([0.1, 0.7, 0.2, 0.8, 0.3, 0.4], dtype=np.float32)}
    kept = export.export_frame(dataset, run, live=live, which="retained")
    assert "r3" in kept["id"].tolist()
    frame = export.export_frame(dataset, run, live=live, which="all").set_index("id")
    assert frame.loc["r3", "removed_at"] == -1 and bool(frame.loc["r3", "retained"])
    assert frame.loc["r3", "predictability"] == pytest.approx(0.7)
    with pytest.raises(InputError, match="has 2 entries"):
        export.export_frame(dataset, run, live={**live, "retained": [True, False]})


def test_bad_choices(dataset, run):
    with pytest.raises(InputError, match="which="):
        export.export_frame(dataset, run, which="kept")
    with pytest.raises(InputError, match="needs an AFLite run"):
        export.export_frame(dataset, None, which="retained")
    with pytest.raises(InputError, match="fmt="):
        export.to_bytes(pd.DataFrame({"a": [1]}), "xlsx")


def test_run_from_other_dataset_is_refused(dataset, run):
    other = Dataset(table=dataset.table.rename(index=lambda i: "z" + i), label="label", text=["premise"])
    with pytest.raises(InputError, match="does not belong"):
        export.export_frame(other, run)


def test_csv_neutralises_formulas_but_not_numbers(dataset, run):
    frame = export.export_frame(dataset, run, which="all")
    data = export.to_bytes(frame, "csv")
    back = pd.read_csv(io.BytesIO(data), keep_default_na=False)
    premise = back.set_index("id")["premise"]
    assert premise["r0"] == "'=HYPERLINK(\"http://x\")"
    assert premise["r2"] == "'+1+2"
    assert premise["r3"] == "'@SUM(A1)"
    assert premise["r5"] == "'-cmd|x"
    assert str(premise["r4"]) == "-5"  # a plain number stays a number
    assert premise["r6"] == "plain"
    assert back.set_index("id").loc["r7", "hypothesis"] == "<b>bold</b>"  # text stays text
    # embeddings become JSON lists in CSV
    assert json.loads(back["emb"].iloc[1]) == [1.0, 2.0, 3.0]
    # numeric score columns are untouched (negative removal phase stays -1)
    assert int(back.set_index("id").loc["r2", "removed_at"]) == -1
    assert back.set_index("id").loc["r0", "removed_at"] == ""  # warm-up: no phase


def test_parquet_and_jsonl_keep_text_unchanged(dataset, run):
    frame = export.export_frame(dataset, run, which="retained")
    pq = pd.read_parquet(io.BytesIO(export.to_bytes(frame, "parquet")))
    assert pq["premise"].tolist() == frame["premise"].tolist()
    assert list(pq["emb"].iloc[0]) == [2.0, 3.0, 4.0]
    lines = export.to_bytes(frame, "jsonl").decode().strip().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["r2", "r4", "r6", "r7"]
    assert json.loads(lines[0])["premise"] == "+1+2"


def test_datasets_zip_and_folder(dataset, run, tmp_path):
    import datasets

    frame = export.export_frame(dataset, run, which="removed")
    manifest = manifests.manifest_for(run, which="removed", fmt="datasets", rows=len(frame), tau=0.5)
    blob = export.to_bytes(frame, "datasets", manifest)
    with zipfile.ZipFile(io.BytesIO(blob)) as zf:
        names = zf.namelist()
        assert "manifest.json" in names and "dataset_info.json" in names
        assert json.loads(zf.read("manifest.json"))["export"]["rows"] == 2
    out = export.write(frame, tmp_path / "removed", manifest=manifest)
    back = datasets.load_from_disk(str(out))
    assert back["id"] == ["r3", "r5"]
    assert json.loads((tmp_path / "removed.manifest.json").read_text())["export"]["selection"] == "removed"
    # overwriting an existing folder works and leaves no temp folders behind
    export.write(frame.iloc[:1], tmp_path / "removed", manifest=manifest)
    assert datasets.load_from_disk(str(out))["id"] == ["r3"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["removed", "removed.manifest.json"]


def test_write_csv_with_manifest(dataset, run, tmp_path):
    frame = export.export_frame(dataset, run, which="retained")
    manifest = manifests.manifest_for(run, which="retained", fmt="csv", rows=len(frame), tau=0.5, target_size=0.3)
    path = export.write(frame, tmp_path / "kept.csv", manifest=manifest)
    assert path.read_bytes() == export.to_bytes(frame, "csv")
    m = json.loads((tmp_path / "kept.manifest.json").read_text())
    assert m["warmup_excluded_ids"] == ["r0", "r1"]
    assert m["dataset"]["warmup_excluded"] == 2
    assert m["export"]["rows"] == 4 and m["export"]["tau"] == 0.5
    assert m["aflite"]["seed"] == 3
    assert m["representation"]["spec"] == "tfidf-svd:fields=hypothesis"


def test_write_is_atomic_on_failure(dataset, run, tmp_path, monkeypatch):
    target = tmp_path / "kept.csv"
    export.write(export.export_frame(dataset, run).iloc[:1], target)   # an earlier export: the tool may replace it
    old = target.read_text()

    def half(frame, chunk_rows, progress, cancel, verb):   # the first chunk goes out, then the disk fills
        yield frame.iloc[:1]
        raise RuntimeError("disk full")

    monkeypatch.setattr(export, "_chunks", half)
    with pytest.raises(RuntimeError):
        export.write(export.export_frame(dataset, run), target)
    assert target.read_text() == old
    assert [p.name for p in tmp_path.iterdir()] == ["kept.csv"]


def test_write_errors(dataset, run, tmp_path):
    frame = export.export_frame(dataset, run)
    with pytest.raises(InputError, match="export format"):
        export.write(frame, tmp_path / "x.xlsx")
    with pytest.raises(InputError, match="does not exist"):
        export.write(frame, tmp_path / "nope" / "x.csv")


def test_export_without_run_all(dataset):
    frame = export.export_frame(dataset, None, which="all", include_arrays=False)
    assert frame["id"].tolist()[:2] == ["r0", "r1"] and "emb" not in frame.columns
    assert manifests.file_name("../data/snli dev.jsonl", "retained", "csv") == "snli_dev-retained.csv"


# ---------------------------------------------------------------- streaming (issue 14: lazy, bounded exports)
@pytest.fixture
def wide():
    """50 rows with float32 embeddings, hostile text and one empty text cell; chunks of 7 rows."""
    rng = np.random.default_rng(0)
    emb = rng.standard_normal((50, 6)).astype(np.float32)
    table = pd.DataFrame({"text": [f"=cmd{i}" if i % 9 == 0 else f"row {i}, \"quoted\"\n" for i in range(50)],
                          "label": ["a", "b"] * 25, "emb": list(emb)},
                         index=pd.Index([f"i{i}" for i in range(50)], name="id"))
    table.loc["i3", "text"] = None
    return Dataset(table=table, label="label", text=["text"], embedding="emb", name="wide.parquet"), emb


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_streamed_in_chunks_equals_one_piece(wide, fmt, tmp_path):
    ds, emb = wide
    frame = export.export_frame(ds, None, which="all")
    seen = []
    export.write_file(frame, tmp_path / "a", fmt, chunk_rows=7, progress=lambda f, m: seen.append(f))
    export.write_file(frame, tmp_path / "b", fmt, chunk_rows=10_000)
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes() or fmt == "parquet"
    assert len(seen) >= 50 // 7 and seen == sorted(seen) and seen[-1] == 1.0
    if fmt == "csv":   # one header, every row once, formulas neutralised in every chunk
        back = pd.read_csv(tmp_path / "a")
        assert back["id"].tolist() == frame["id"].tolist() and back["text"].iloc[9] == "'=cmd9"
        assert (tmp_path / "a").read_bytes().count(b'"id"') == 1
    if fmt == "parquet":   # one row group per chunk; embeddings a float32 list column, read back exactly
        import pyarrow.parquet as pq

        f = pq.ParquetFile(tmp_path / "a")
        assert f.metadata.num_row_groups == 8 and f.schema_arrow.field("emb").type.value_type == "float"
        back = pd.read_parquet(tmp_path / "a")
        np.testing.assert_array_equal(np.stack(back["emb"]), emb)
        assert back["text"].isna().tolist() == frame["text"].isna().tolist()
    if fmt == "jsonl":
        rows = [json.loads(line) for line in (tmp_path / "a").read_text().splitlines()]
        assert [r["id"] for r in rows] == frame["id"].tolist() and rows[9]["text"] == "=cmd9"


def test_datasets_zip_streamed_keeps_float32_vectors(wide, tmp_path):
    import datasets

    ds, emb = wide
    frame = export.export_frame(ds, None, which="all")
    with open(tmp_path / "d.zip", "wb") as fh:
        export.write_file(frame, fh, "datasets", manifest={"m": 1}, chunk_rows=7)
    with zipfile.ZipFile(tmp_path / "d.zip") as zf:
        zf.extractall(tmp_path / "d")
    back = datasets.load_from_disk(str(tmp_path / "d"))
    assert back["id"] == frame["id"].tolist() and back.features["emb"].feature.dtype == "float32"
    np.testing.assert_array_equal(np.array(back["emb"], dtype=np.float32), emb)
    assert json.loads((tmp_path / "d" / "manifest.json").read_text()) == {"m": 1}


def test_cancel_between_chunks_stops_the_write(wide, tmp_path):
    import threading

    from artifact_lens.base.errors import Cancelled

    ds, _ = wide
    cancel = threading.Event()
    frame = export.export_frame(ds, None, which="all")

    def progress(fraction, message):
        if fraction > 0.3:
            cancel.set()

    with pytest.raises(Cancelled):
        export.write(frame, tmp_path / "x.csv", progress=progress, cancel=cancel, chunk_rows=7)
    assert list(tmp_path.iterdir()) == []   # nothing half-written


def test_csv_without_embeddings_and_empty_selection(wide):
    ds, _ = wide
    frame = export.export_frame(ds, None, which="all", include_arrays=False)
    assert "emb" not in pd.read_csv(io.BytesIO(export.to_bytes(frame, "csv"))).columns
    empty = frame.iloc[:0]
    assert export.to_bytes(empty, "csv").decode().strip() == '"id","text","label"'
    assert pd.read_parquet(io.BytesIO(export.to_bytes(empty, "parquet"))).columns.tolist() == ["id", "text", "label"]
    assert export.to_bytes(empty, "jsonl") == b""


def test_manifest_names_the_dataset_not_a_server_path(dataset, run):
    m = manifests.manifest_for(run, which="retained", fmt="csv", rows=4, dataset=dataset,
                            dataset_name="/srv/cache/uploads/97598c5ede153526.csv", retained_ids=["r2", "r4"])
    assert m["dataset"]["name"] == "97598c5ede153526.csv" and m["retained_ids"] == ["r2", "r4"]
    m = manifests.manifest_for(run, which="retained", fmt="csv", rows=4, dataset_name="my data.csv")
    assert m["dataset"]["name"] == "my data.csv" and "/" not in json.dumps(m["dataset"])
    assert manifests.file_name("my data.csv", "retained", "parquet") == "my_data-retained.parquet"
    assert manifests.file_name("nyu-mll/glue", "all", "csv") == "nyu-mll_glue-all.csv"
    assert manifests.summary_line(0.75, 2952, 9840, 7916) == "τ = 0.75, n = 2,952 (30 %) → 7,916 rows retained"


def test_add_quality_columns_matches_by_id_and_refuses_clashes():
    from artifact_lens.exports.writers import add_quality_columns
    from artifact_lens.quality.scoring import quality_columns
    from artifact_lens.quality import COMPONENTS

    frame = pd.DataFrame({"id": ["b", "a", "z"], "text": ["x", "y", "w"]})
    quality = pd.DataFrame({c: [0.1, 0.9] for c in COMPONENTS}, index=pd.Index(["a", "b"], name="id"))
    quality["dqi"], quality["light"] = [0.2, 0.8], ["red", "green"]
    out = add_quality_columns(frame, quality)
    assert list(out.columns) == ["id", "text", *quality_columns()] and list(frame.columns) == ["id", "text"]
    assert out["dqi"].tolist()[:2] == [0.8, 0.2] and np.isnan(out["dqi"].iloc[2])
    assert out["light"].tolist() == ["green", "red", "n/a"]
    with pytest.raises(InputError, match="already has column"):
        add_quality_columns(frame.assign(dqi=1.0), quality)
    with pytest.raises(InputError, match="lacks light"):
        add_quality_columns(frame, quality.drop(columns="light"))


@pytest.mark.parametrize("source, has_arrays", [("demo:nli:n=300", False), ("demo:circles:n=300", True),
                                                ("demo:digits", True)])
def test_the_manifest_says_embeddings_are_included_only_when_they_are(source, has_arrays):
    from artifact_lens.exports.manifest import manifest_for
    from artifact_lens.data.sources import load_dataset

    ds = load_dataset(source)
    for asked in (True, False):
        man = manifest_for(None, which="all", fmt="parquet", rows=len(ds), dataset=ds, include_arrays=asked)
        assert man["export"]["embeddings_included"] is (asked and has_arrays)


def test_an_export_manifest_names_no_server_path(tmp_path):
    """A run whose Φ came from a vector file: the export's manifest keeps the spec the user gave,
    and the file's name, size and time, but no path into the server's cache (issue 21)."""
    import numpy as np

    from artifact_lens.exports.manifest import manifest_for
    from artifact_lens.representations import represent
    from artifact_lens.results.runs import fit_run
    from artifact_lens.data.sources import load_dataset

    ds = load_dataset("demo:nli:n=300")
    vectors = tmp_path / "server-side" / "emb.npy"
    vectors.parent.mkdir()
    np.save(vectors, np.random.default_rng(0).normal(size=(300, 8)).astype(np.float64))   # converted into the cache
    rep = represent(ds, f"file:path={vectors}", cache_dir=tmp_path / "cache")
    assert rep.info.get("cache_path")                                                     # the run knows where
    run = fit_run(ds, rep, dict(n_partitions=4, train_size=0.1, slice_size=0.1, tau=0.0, target_size=0.5,
                                random_state=0))
    man = manifest_for(run, which="all", fmt="csv", rows=300, dataset=ds)
    info = json.dumps(man["representation"]["info"])
    assert str(tmp_path / "cache") not in info and "cache_path" not in info and "memory_mapped" not in info
    assert man["representation"]["info"]["source"]["path"] == "emb.npy"


def test_write_never_replaces_what_the_tool_did_not_write(dataset, run, tmp_path):
    """`core.exports.writers.write` (the Python API) follows the output policy: a folder or file of the
    user's at the path, or at the manifest's path, is refused and left as it was."""
    frame = export.export_frame(dataset, run, which="retained")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(InputError, match="did not write"):
        export.write(frame, mine)
    assert (mine / "notes.txt").read_text() == "keep me"
    (tmp_path / "kept.manifest.json").write_text("{}")
    with pytest.raises(InputError, match="did not write"):
        export.write(frame, tmp_path / "kept.csv", manifest={"x": 1})
    assert (tmp_path / "kept.manifest.json").read_text() == "{}" and not (tmp_path / "kept.csv").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.manifest.json", "mine"]   # no temporaries left
