"""The bad-input sweep: one case per line, shared by the CLI test and the parity test.

Each case: (name, argv with {dir} for the case folder and {out} for the output folder,
a fragment the one ``error:`` line must contain). Data files are made by `make_files`.
"""
import csv
import gzip
import json

import numpy as np

NLI = "{dir}/nli.csv"
AF = ["aflite", NLI, "-r", "tfidf-svd:fields=hypothesis,dim=8", "--out", "{out}/s.csv"]


def aflite(*extra, out="{out}/s.csv"):
    return ["aflite", NLI, "-r", "tfidf-svd:fields=hypothesis,dim=8", "--out", out, *extra]


# (name, argv, fragment); data-source cases (argv[0] == "info") also run through load_dataset and the Data page
CASES = [
    ("missing file", ["info", "{dir}/missing.csv"], "no file or folder"),
    ("empty folder", ["info", "{dir}/empty"], "doesn't contain any data files"),
    ("folder of junk", ["info", "{dir}/junkdir"], "could not load the folder"),
    ("bad JSONL line", ["info", "{dir}/bad.jsonl"], "line 3 is not valid JSON"),
    ("JSONL line not an object", ["info", "{dir}/array.jsonl"], "line 2 is not a JSON object"),
    ("repeated CSV header", ["info", "{dir}/dup.csv"], "repeats column names"),
    ("repeated TSV header", ["info", "{dir}/dup.tsv"], "repeats column names"),
    ("labels mix numbers and text", ["info", "{dir}/mix.jsonl"], "mixes numbers and text"),
    ("list labels", ["info", "{dir}/list.jsonl"], "holds lists or dicts"),
    ("dict labels", ["info", "{dir}/dict.jsonl"], "holds lists or dicts"),
    ("single class", ["info", "{dir}/one.csv"], "single class"),
    ("no usable label", ["info", "{dir}/dash.csv"], "usable label"),
    ("no label column", ["info", "{dir}/nolabel.csv"], "label column"),
    ("header only", ["info", "{dir}/header.csv"], "no rows"),
    ("unsupported extension", ["info", "{dir}/data.xlsx"], "unknown file type"),
    ("garbage parquet", ["info", "{dir}/garbage.parquet"], "could not read"),
    ("garbage gz", ["info", "{dir}/garbage.csv.gz"], "could not read"),
    ("invalid JSON", ["info", "{dir}/bad.json"], "could not read"),
    ("empty source", ["info", ""], "empty"),
    ("split on a file", ["info", NLI, "--split", "test"], "single split"),
    ("split on a demo", ["info", "demo:nli:n=300", "--split", "test"], "single split"),
    ("unknown demo", ["info", "demo:nope"], "unknown demo"),
    ("bad demo option", ["info", "demo:nli:n"], "key=value"),
    ("unknown label column", ["info", NLI, "--label", "lable"], "lable"),
    ("unknown text column", ["info", NLI, "--text", "premis"], "premis"),
    ("unknown id column", ["info", NLI, "--id", "uid"], "uid"),
    ("duplicated ids", ["info", NLI, "--id", "premise"], "duplicated ids"),
    ("unknown feature column", ["info", NLI, "--feature", "nope"], "nope"),
    ("unknown embedding column", ["info", NLI, "--embedding", "vec"], "vec"),
    ("unknown image column", ["info", NLI, "--image", "img"], "img"),
    # AFLite parameters
    ("tau above 1", aflite("--tau", "1.5"), "tau"),
    ("tau below 0", aflite("--tau", "-0.1"), "tau"),
    ("tau not a number", aflite("--tau", "high"), "--tau"),
    ("m zero", aflite("--m", "0"), "--m"),
    ("m negative", aflite("--m", "-4"), "--m"),
    ("k zero", aflite("--k", "0"), "--k 0"),   # (a fraction that rounds to zero removes one example a phase)
    ("target size 1.0", aflite("--target-size", "1.0"), "--target-size' parameter"),
    ("target size above N", aflite("--target-size", "5000"), "--target-size 5000"),
    ("target size zero", aflite("--target-size", "0"), "--target-size 0"),
    ("train size not below n", aflite("--train-size", "0.9"), "--train-size 0.9"),
    ("train size zero", aflite("--train-size", "0"), "--train-size 0"),
    ("unknown family", aflite("--model", "forest"), "forest"),
    ("unknown strategy", aflite("--strategy", "beam"), "beam"),
    ("negative seed", aflite("--seed", "-1"), "--seed"),
    ("size not a number", aflite("--k", "lots"), "not a number"),
    ("quality column missing", aflite("--quality", "nope"), "--quality"),
    ("quality column is text", aflite("--quality", "premise"), "non-numeric"),
    ("unknown selection", aflite("--export", "{out}/e.csv", "--which", "kept"), "--which"),
    # representations
    ("unknown representation", ["aflite", NLI, "-r", "bogus", "--out", "{out}/s.csv"], "bogus"),
    ("representation field missing", ["aflite", NLI, "-r", "tfidf-svd:fields=nope", "--out", "{out}/s.csv"], "nope"),
    ("representation dim zero", ["aflite", NLI, "-r", "tfidf-svd:dim=0", "--out", "{out}/s.csv"], "dim"),
    ("representation unknown option", ["aflite", NLI, "-r", "tfidf-svd:dims=8", "--out", "{out}/s.csv"], "dims"),
    ("vector file missing", ["aflite", NLI, "-r", "file:path={dir}/none.npy", "--out", "{out}/s.csv"], "none.npy"),
    ("vector file misaligned", ["aflite", NLI, "-r", "file:path={dir}/short.npy", "--out", "{out}/s.csv"], "rows"),
    ("vector file with NaN", ["aflite", NLI, "-r", "file:path={dir}/nan.npy", "--out", "{out}/s.csv"], "NaN"),
    ("no embedding column", ["represent", NLI, "-r", "embedding", "--out", "{out}/x.npy"], "embedding"),
    ("pixels on text", ["represent", NLI, "-r", "pixels", "--out", "{out}/x.npy"], "image"),
    ("warm-up fraction above 1", ["represent", NLI, "-r", "warmup:fraction=2", "--out", "{out}/x.npy"], "fraction"),
    # outputs
    ("output suffix", aflite(out="{out}/s.txt"), "--out must end in .csv"),
    ("output folder missing", aflite(out="{out}/no/s.csv"), "does not exist"),
    ("output is a folder", aflite(out="{out}/folder.csv"), "is a folder"),
    ("output is the input", aflite(out=NLI), "is also an input"),
    ("two outputs one file", aflite("--manifest", "{out}/s.csv"), "--manifest must end in .json"),
    ("manifest equals export manifest", aflite("--manifest", "{out}/e.manifest.json", "--export", "{out}/e.csv"), "same file"),
    ("export equals out", aflite("--export", "{out}/s.csv"), "same file"),
    ("export suffix", aflite("--export", "{out}/e.xlsx"), "--export must end in"),
    ("output unwritable", aflite(out="/proc/artifact-lens-test.csv"), "--out"),
    ("represent suffix", ["represent", NLI, "-r", "tfidf-svd:dim=4", "--out", "{out}/x.txt"], "--out must end in"),
    ("zstats output is the input", ["zstats", NLI, "--out", NLI], "is also an input"),
    ("zfilter outputs collide", ["zfilter", NLI, "--out", "{out}/a.csv", "--rejected", "{out}/a.csv"], "same file"),
    ("consistency dropped folder missing", ["consistency", NLI, "--out", "{out}/k.csv", "--dropped", "{out}/no/d.csv"],
     "does not exist"),
    # z-statistics, z-filtering, consistency
    ("min count zero", ["zstats", NLI, "--min-count", "0", "--out", "{out}/z.csv"], "--min-count"),
    ("alpha above 1", ["zstats", NLI, "--alpha", "2", "--out", "{out}/z.csv"], "alpha"),
    ("batch size zero", ["zfilter", NLI, "--batch-size", "0", "--out", "{out}/a.csv"], "batch_size"),
    ("k biased zero", ["zfilter", NLI, "--k", "0", "--out", "{out}/a.csv"], "k"),
    ("seed dataset missing", ["zfilter", NLI, "--seed-dataset", "{dir}/none.csv", "--out", "{out}/a.csv"], "no file"),
    ("seed dataset other labels", ["zfilter", NLI, "--seed-dataset", "{dir}/other.csv", "--out", "{out}/a.csv"],
     "labels"),
    ("threshold above 1", ["consistency", NLI, "--threshold", "1.5", "--out", "{out}/k.csv"], "threshold"),
    ("one fold", ["consistency", NLI, "--folds", "1", "--out", "{out}/k.csv"], "folds"),
    ("more folds than examples", ["consistency", NLI, "--folds", "100000", "--out", "{out}/k.csv"], "folds"),
    # the command line itself
    ("no command", [], "no command given"),
    ("unknown command", ["filter", NLI], "invalid choice"),
    ("missing --out", ["zstats", NLI], "--out"),
]


def make_files(d):
    """The data files the cases read, in folder ``d``."""
    rng = np.random.default_rng(0)
    labels = ["entailment", "neutral", "contradiction"]
    rows = [("premise", "hypothesis", "label")]
    for i in range(300):
        lab = labels[i % 3]
        cue = {"entailment": "outdoors", "neutral": "for a contest", "contradiction": "nobody"}[lab]
        rows.append((f"A person walks {i % 4}.", f"Someone {cue} {rng.integers(0, 9)}", lab))
    _csv(d / "nli.csv", rows)
    _csv(d / "other.csv", [("premise", "hypothesis", "label")] + [(f"p{i}", f"h{i}", "yes" if i % 2 else "no")
                                                                   for i in range(40)])
    (d / "empty").mkdir()
    (d / "junkdir").mkdir()
    (d / "junkdir" / "notes.bin").write_bytes(b"\x00\x01")
    (d / "folder.csv").mkdir()
    (d / "bad.jsonl").write_text('{"text": "a", "label": "x"}\n{"text": "b", "label": "y"}\n{bad\n')
    (d / "array.jsonl").write_text('{"text": "a", "label": "x"}\n[1, 2]\n')
    (d / "dup.csv").write_text("a,a,label\n1,2,x\n3,4,y\n")
    (d / "dup.tsv").write_text("a\ta\tlabel\n1\t2\tx\n3\t4\ty\n")
    _jsonl(d / "mix.jsonl", [{"text": "a", "label": 1}, {"text": "b", "label": "1"}, {"text": "c", "label": 2}])
    _jsonl(d / "list.jsonl", [{"text": "a", "label": [1]}, {"text": "b", "label": [2]}])
    _jsonl(d / "dict.jsonl", [{"text": "a", "label": {"x": 1}}, {"text": "b", "label": {"y": 2}}])
    _csv(d / "one.csv", [("text", "label"), ("a", "x"), ("b", "x")])
    _csv(d / "dash.csv", [("text", "label"), ("a", "-"), ("b", "-")])
    _csv(d / "nolabel.csv", [("premise", "hypothesis"), ("a", "b")])
    (d / "header.csv").write_text("text,label\n")
    (d / "data.xlsx").write_bytes(b"PK\x03\x04")
    (d / "garbage.parquet").write_bytes(b"not parquet at all")
    (d / "garbage.csv.gz").write_bytes(b"not gzip")
    (d / "bad.json").write_text("{not json")
    np.save(d / "short.npy", np.zeros((10, 4), dtype=np.float32))
    nan = np.zeros((300, 4), dtype=np.float32)
    nan[5, 1] = np.nan
    np.save(d / "nan.npy", nan)


def _csv(path, rows):
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)


def _jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


__all__ = ["CASES", "make_files", "gzip"]


# Bad input to the Python API (name, call on core.aflite, fragment): the engine's own checks.
def _api_cases():
    import scipy.sparse as sp

    from artifact_lens.aflite import AFLite, Trajectory

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 4)), rng.integers(0, 2, 200)
    fitted = AFLite(n_partitions=4, tau=0.0, target_size=0.3).fit(X, y)
    return [
        ("no rows", lambda: AFLite().fit(np.empty((0, 3)), []), "no rows"),
        ("sparse X", lambda: AFLite().fit(sp.random(50, 5, format="csr"), np.arange(50) % 2), "sparse"),
        ("overflowing X", lambda: AFLite().fit(np.full((50, 3), 1e30), np.arange(50) % 2), "scale X"),
        ("NaN in X", lambda: AFLite().fit(np.where(np.eye(50, 3) > 0, np.nan, 0.0), np.arange(50) % 2), "NaN"),
        ("labels of another length", lambda: AFLite().fit(X, y[:-1]), "len"),
        ("missing labels", lambda: AFLite().fit(X, [None] * 200), "missing"),
        ("2-D labels", lambda: AFLite().fit(X, np.c_[y, y]), "1-D"),
        ("negative n live", lambda: fitted.retained_for(target_size=-1), "invalid"),
        ("zero n live", lambda: fitted.retained_for(target_size=0), "invalid"),
        ("n above N live", lambda: fitted.retained_for(target_size=200), "below N"),
        ("NaN tau live", lambda: fitted.retained_for(tau=float("nan")), "invalid"),
        ("tau below fitted", lambda: AFLite(n_partitions=4, tau=0.5, target_size=0.3).fit(X, y).retained_for(0.2),
         "refit"),
        ("unknown phase", lambda: fitted.scores_at(99), "invalid"),
        ("damaged trajectory", lambda: Trajectory.load(__import__("io").BytesIO(b"garbage")), "damaged"),
    ]
