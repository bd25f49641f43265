"""Loading datasets from every supported source, column roles, ids and bad input."""

import numpy as np
import pandas as pd
import pytest

from artifact_lens.base.errors import InputError
from artifact_lens.data.sources import detect_roles, load_dataset

NLI = pd.DataFrame(
    {
        "premise": ["A man sleeps .", "A dog runs .", "Kids play .", "A cat sits .", "Two men talk .", "A girl sings ."],
        "hypothesis": ["Nobody sleeps .", "An animal moves .", "Kids are tall .", "A cat .", "Men chat .", "She sings ."],
        "label": ["contradiction", "entailment", "neutral", "entailment", "entailment", "neutral"],
    }
)


def write(frame: pd.DataFrame, path, kind):
    if kind == "csv":
        frame.to_csv(path, index=False)
    elif kind == "tsv":
        frame.to_csv(path, sep="\t", index=False)
    elif kind == "jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_parquet(path, index=False)


@pytest.mark.parametrize("kind", ["csv", "tsv", "jsonl", "parquet"])
def test_local_files_load_with_detected_roles(tmp_path, kind):
    path = tmp_path / f"nli.{kind}"
    write(NLI, path, kind)
    ds = load_dataset(path)
    assert len(ds) == 6
    assert ds.text == ["premise", "hypothesis"] and ds.label == "label"
    assert ds.label_counts().to_dict() == {"contradiction": 1, "entailment": 3, "neutral": 2}
    assert list(ds.ids) == [str(i) for i in range(6)]
    assert ds.table.loc["2", "hypothesis"] == "Kids are tall ."


def test_same_content_same_fingerprint_across_formats(tmp_path):
    write(NLI, tmp_path / "a.csv", "csv")
    write(NLI, tmp_path / "a.parquet", "parquet")
    a, b = load_dataset(tmp_path / "a.csv"), load_dataset(tmp_path / "a.parquet")
    assert a.fingerprint == b.fingerprint
    changed = NLI.assign(label=NLI.label[::-1].to_numpy())
    assert load_dataset(changed).fingerprint != a.fingerprint


def test_dataframe_and_role_overrides():
    frame = NLI.rename(columns={"premise": "s1", "hypothesis": "s2", "label": "gold"}).assign(
        uid=[f"ex{i}" for i in range(6)], flag=[True, False] * 3
    )
    ds = load_dataset(frame, text="s2", label="gold", id="uid", features=["flag"])
    assert ds.text == ["s2"] and ds.label == "gold" and ds.features == ["flag"]
    assert list(ds.ids) == [f"ex{i}" for i in range(6)]
    assert ds.role_of("s1") == "other"


@pytest.mark.parametrize(
    "columns, text",
    [
        (["sentence1", "sentence2", "label"], ["sentence1", "sentence2"]),
        (["text", "label"], ["text"]),
        (["premise", "hypothesis", "gold_label"], ["premise", "hypothesis"]),
    ],
)
def test_common_layouts_are_detected(columns, text):
    roles = detect_roles(pd.DataFrame(columns=columns))
    assert roles["text"] == text
    assert roles["label"] == columns[-1]


def test_image_layout_is_detected():
    frame = pd.DataFrame({"image": [np.zeros((2, 2))] * 4, "label": [0, 1, 0, 1]})
    ds = load_dataset(frame)
    assert ds.image == "image" and ds.text == []


def test_unusable_labels_are_dropped_and_counted_ids_stay_stable(tmp_path):
    frame = NLI.astype({"label": object})
    frame.loc[1, "label"] = "-"  # SNLI's raw files
    frame.loc[4, "label"] = -1  # SNLI's Hub copy
    path = tmp_path / "nli.jsonl"
    write(frame, path, "jsonl")
    ds = load_dataset(path)
    assert len(ds) == 4
    assert ds.dropped == {"no usable label": 2}
    assert any("dropped 2 of 6" in m for m in ds.messages)
    # ids are row numbers of the source, so they survive dropping and subsetting
    assert list(ds.ids) == ["0", "2", "3", "5"]
    assert list(ds.subset(["5", "2"]).ids) == ["2", "5"]


def test_save_to_disk_folder_with_classlabel_names(tmp_path):
    import datasets as hf

    features = hf.Features(
        {
            "premise": hf.Value("string"),
            "hypothesis": hf.Value("string"),
            "label": hf.ClassLabel(names=["entailment", "neutral", "contradiction"]),
        }
    )
    codes = {"entailment": 0, "neutral": 1, "contradiction": 2}
    data = {"premise": NLI.premise.tolist(), "hypothesis": NLI.hypothesis.tolist(), "label": [codes[l] for l in NLI.label]}
    data["label"][0] = -1  # ClassLabel's "no label"
    hf.DatasetDict({"validation": hf.Dataset.from_dict(data, features=features)}).save_to_disk(tmp_path / "saved")
    ds = load_dataset(tmp_path / "saved")
    assert len(ds) == 5 and ds.dropped == {"no usable label": 1}
    assert set(ds.classes) == {"entailment", "neutral"}
    assert ds.table.loc["1", "label"] == "entailment"


@pytest.fixture
def hub_repo(tmp_path):
    """A folder shaped like a Hub dataset repo: README.md with `configs`, data files."""
    root = tmp_path / "org__nli-mini"
    (root / "data").mkdir(parents=True)
    write(NLI, root / "data" / "a_validation.jsonl", "jsonl")
    write(NLI.iloc[:4], root / "data" / "b_validation.jsonl", "jsonl")
    (root / "README.md").write_text(
        "---\nconfigs:\n- config_name: a\n  data_files:\n  - split: validation\n    path: data/a_validation.jsonl\n"
        "- config_name: b\n  data_files:\n  - split: validation\n    path: data/b_validation.jsonl\n---\n# mini\n"
    )
    return root


def test_hub_shaped_folder_loads_through_datasets_load_dataset(hub_repo):
    a = load_dataset(str(hub_repo), config="a", split="validation")
    b = load_dataset(str(hub_repo), config="b", split="validation")
    assert (len(a), len(b)) == (6, 4)
    assert a.text == ["premise", "hypothesis"]


def test_hub_shaped_folder_without_config_lists_configs(hub_repo):
    with pytest.raises(InputError, match=r"several configs \(a, b\).*--config"):
        load_dataset(str(hub_repo))


def test_hub_name_while_offline_is_a_clear_error():
    with pytest.raises(InputError, match="offline mode is on.*local file or folder"):
        load_dataset("no-such-org/no-such-dataset")


def test_hub_name_while_offline_fails_before_datasets_is_asked(tmp_path, monkeypatch):
    """HF_HUB_OFFLINE=1 and nothing cached: the error comes at once, without datasets'
    resolve-and-retry loop (issue 14: 24 s of retries before the same message)."""
    import datasets

    calls = []
    monkeypatch.setattr(datasets, "load_dataset", lambda *a, **k: calls.append(a) or (_ for _ in ()).throw(
        AssertionError("datasets.load_dataset must not be called offline for an uncached name")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "datasets"))
    with pytest.raises(InputError, match=r"offline mode is on \(HF_HUB_OFFLINE=1\) \(the dataset is not in the local "
                                         r"Hugging Face cache\).*local file or folder"):
        load_dataset("nyu-mll/glue", config="mnli")
    assert calls == []
    # a copy in the local cache is what offline mode can load: then datasets is asked
    (tmp_path / "hub" / "datasets--nyu-mll--glue").mkdir(parents=True)
    with pytest.raises(InputError, match="offline mode is on"):
        load_dataset("nyu-mll/glue", config="mnli")
    assert len(calls) == 1


# ---------------------------------------------------------------- bad input


def test_unknown_file_type(tmp_path):
    path = tmp_path / "data.xlsx"
    path.write_bytes(b"PK\x03\x04")
    with pytest.raises(InputError, match=r"unknown file type '.xlsx'.*\.csv, \.tsv, \.jsonl"):
        load_dataset(path)


def test_missing_path_is_not_treated_as_hub_name(tmp_path):
    with pytest.raises(InputError, match="no file or folder at"):
        load_dataset(str(tmp_path / "nope.csv"))


def test_malformed_jsonl(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"premise": "a", "label": "x"}\n{"premise": "b", "label": \n')
    with pytest.raises(InputError, match="could not read .*bad.jsonl as JSON Lines.*one JSON object per line"):
        load_dataset(path)


def test_corrupt_parquet(tmp_path):
    path = tmp_path / "bad.parquet"
    path.write_bytes(b"this is not parquet at all")
    with pytest.raises(InputError, match="could not read .*bad.parquet as Parquet"):
        load_dataset(path)


def test_misspelled_column_lists_columns_and_suggests():
    with pytest.raises(InputError, match=r"no column 'hypothesys'.*Did you mean 'hypothesis'.*premise, hypothesis, label"):
        load_dataset(NLI, text=["premise", "hypothesys"])


def test_single_class_label():
    with pytest.raises(InputError, match="single class"):
        load_dataset(NLI.assign(label="neutral"))


def test_duplicate_ids():
    with pytest.raises(InputError, match="duplicated ids.*must be unique"):
        load_dataset(NLI.assign(pid=["a", "b", "a", "c", "d", "d"]), id="pid")


def test_empty_texts_are_counted_and_kept():
    frame = NLI.copy()
    frame.loc[[0, 3], "hypothesis"] = ["", None]
    ds = load_dataset(frame)
    assert len(ds) == 6
    assert any("2 examples have an empty 'hypothesis'" in m for m in ds.messages)


def test_non_text_column_as_text():
    with pytest.raises(InputError, match="'n' is not text"):
        load_dataset(NLI.assign(n=range(6)), text="n")


def test_no_label_column_found():
    with pytest.raises(InputError, match="could not find a label column.*--label"):
        load_dataset(NLI.rename(columns={"label": "verdict"}))


def test_unknown_demo():
    with pytest.raises(InputError, match="unknown demo 'foo'.*demo:nli"):
        load_dataset("demo:foo")


# ---------------------------------------------------------------- real data


def test_snli_dev(snli_path):
    ds = load_dataset(snli_path)
    assert len(ds) == 9842
    assert ds.label_counts().to_dict() == {"contradiction": 3278, "entailment": 3329, "neutral": 3235}
    assert ds.text == ["premise", "hypothesis"]


# ---------------------------------------------------------------- files that are not what they claim


def test_sparse_and_nul_holding_text_files_are_refused(tmp_path):
    good = "text,label\n" + "".join(f"t{i},{i % 2}\n" for i in range(20))
    sparse = tmp_path / "sparse.csv"
    sparse.write_text(good)
    with open(sparse, "r+b") as fh:
        fh.truncate(len(good) + (8 << 20))   # an 8 MB hole: read back as NUL bytes
    with pytest.raises(InputError, match="sparse file"):
        load_dataset(str(sparse))
    nul = tmp_path / "nul.jsonl"
    nul.write_bytes(b'{"text": "a", "label": 1}\n{"text": "b\x00", "label": 0}\n')
    with pytest.raises(InputError, match="NUL bytes"):
        load_dataset(str(nul))


def test_a_gz_file_is_sized_by_what_it_unpacks_to(tmp_path, monkeypatch):
    import gzip

    import artifact_lens.base.memory as S

    path = tmp_path / "d.csv.gz"
    path.write_bytes(gzip.compress(("text,label\n" + "a,1\nb,0\n" * 50_000).encode()))   # 400 kB in ~1 kB
    monkeypatch.setattr(S, "available_memory", lambda: 200_000)
    with pytest.raises(InputError, match=r"holds 0.4 MB .* about 0.8 MB once read"):
        load_dataset(str(path))


def test_a_bom_does_not_hide_a_repeated_header_and_repeated_json_keys_are_refused(tmp_path):
    bom = tmp_path / "bom.csv"
    bom.write_text("\ufefftext,text,label\na,b,1\nc,d,0\n", encoding="utf-8")
    with pytest.raises(InputError, match="repeats column names"):
        load_dataset(str(bom))
    dup = tmp_path / "dup.jsonl"
    dup.write_text('{"text": "a", "label": 1}\n{"text": "b", "label": 0, "label": 1}\n')
    with pytest.raises(InputError, match="line 2 repeats the key 'label'"):
        load_dataset(str(dup))


def test_words_like_none_are_classes_and_config_is_refused_for_a_file(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("text,label\n" + "".join(f"t{i},{['none', 'hate', 'null'][i % 3]}\n" for i in range(30)))
    ds = load_dataset(str(path))
    assert sorted(ds.table["label"].unique()) == ["hate", "none", "null"] and len(ds) == 30
    assert any("kept as a class" in m for m in ds.messages)
    with pytest.raises(InputError, match="drop --config"):
        load_dataset(str(path), config="default")
    with pytest.raises(InputError, match="label column itself"):
        load_dataset(str(path), features=["label"])


def test_the_files_a_folder_load_reads_are_bounded_for_the_server_not_the_cli(tmp_path):
    from artifact_lens.data.source_files import files_read

    for i in range(5):
        (tmp_path / f"part{i}.csv").write_text("text,label\na,1\n")
    with pytest.raises(InputError, match="more than 3 files"):
        files_read(str(tmp_path), limit=3)
    files, remote = files_read(str(tmp_path), limit=None)
    assert {f.name for f in files} >= {f"part{i}.csv" for i in range(5)} and remote == []
    assert files_read("demo:nli") == ([], []) and files_read("snli") == ([], [])
