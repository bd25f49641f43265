"""A generated campaign over every CLI command (Hypothesis): path relations between outputs
and inputs, and hostile numbers, against the invariants of the output policy.

For every generated command line:
- the exit code is 0 or 2, and no traceback is printed;
- a failure prints exactly one ``error:`` line;
- every file and folder that existed before is still there, byte for byte (the case folder
  holds only the user's files: the dataset, a run manifest, a vector file, a folder of
  notes, a symlink); no hidden temporary is left.

The number of examples is ``ARTIFACT_LENS_CAMPAIGN_EXAMPLES`` (default 40 per test, derandomized
so CI is deterministic); `make campaign` runs a larger, randomized one.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artifact_lens.cli import COMMANDS, build_parser, main
from artifact_lens.data.file_tables import INPUT_FORMATS

EXAMPLES = int(os.environ.get("ARTIFACT_LENS_CAMPAIGN_EXAMPLES", "40"))
RANDOM = os.environ.get("ARTIFACT_LENS_CAMPAIGN_RANDOM") == "1"
CAMPAIGN = settings(max_examples=EXAMPLES, deadline=None, derandomize=not RANDOM, database=None,
                    suppress_health_check=list(HealthCheck))

REP = "tfidf-svd:fields=hypothesis,dim=4"
# one small command line per command; {out} is the output under test, {out2} a second output
BASE = {
    "info": ["info", "{data}"],
    "represent": ["represent", "{data}", "-r", REP, "--out", "{out:.npy}"],
    "aflite": ["aflite", "{data}", "-r", REP, "--m", "4", "--k", "0.1", "--target-size", "0.6", "--out", "{out:.csv}",
               "--manifest", "{out2:.json}"],
    "zstats": ["zstats", "{data}", "--min-count", "3", "--out", "{out:.csv}"],
    "zfilter": ["zfilter", "{data}", "--batch-size", "40", "--out", "{out:.csv}", "--rejected", "{out2:.csv}"],
    "consistency": ["consistency", "{data}", "--folds", "2", "--out", "{out:.csv}", "--dropped", "{out2:.csv}"],
    "evaluate": ["evaluate", "{data}", "--run", "{run}", "--families", "logistic", "--figures", "none", "--partial",
                 "none", "--ks", "1", "--out", "{out:}"],
    "export": ["export", "{data}", "--run", "{run}", "--out", "{out:.csv}"],
    "project": ["project", "{data}", "-r", REP, "--method", "pca"],
    "quality": ["quality", "{data}", "-r", REP, "--nn-dim", "0", "--out", "{out:.csv}"],
    "feedback": ["feedback", "{data}", "-r", REP, "--nn-dim", "0", "--example",
                 '{"premise": "A man sleeps.", "hypothesis": "Nobody sleeps.", "label": "contradiction"}',
                 "--out", "{out:.json}"],
    "cartography": ["cartography", "{data}", "-r", REP, "--epochs", "2", "--folds", "2", "--out", "{out:.csv}"],
    "transfer": ["transfer", "{data}", "{eval}", "--k", "3", "--m", "2", "--out", "{out:}"],
    "pvi": ["pvi", "{data}", "-r", REP, "--partial", REP, "--folds", "2", "--out", "{out:.csv}"],
    "certify": ["certify", "{data}", "-r", REP, "--partial", REP, "--folds", "2", "--out", "{out:.json}"],
    "check": ["check", "{cert}", "{cert}"],
    "gate": ["gate", "{data}", "--baseline", "{cert}", "-r", REP, "--partial", REP, "--folds", "2", "--out", "{out:}"],
    "prune": ["--cache-dir", "{cache}", "prune", "--max-mb", "100"],
    # it serves until stopped: the campaign asks for the command line only (tests/e2e/test_installed_ui.py serves)
    "ui": ["ui", "--print-command", "--data-dir", "{cache}"],
    "docs": ["docs", "hosting", "--path"],
    "agreement": ["agreement", "--db", "{db}", "--workspace", "campaign", "--run", "{teamrun}", "--as", "owner@example.org",
                  "--bootstrap", "20"],
}


def _numeric_flags() -> dict:
    """Every numeric flag of every command, read from the parser itself (by reflection: a new
    flag is in the campaign the day it is added)."""
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    found = {}
    for name, command in sub.choices.items():
        flags = [a.option_strings[-1] for a in command._actions
                 if a.option_strings and a.type is not None and type(a.type).__module__ == "artifact_lens.cli.arguments"]
        if flags:
            found[name] = sorted(flags)
    return found


NUMBERS = _numeric_flags()
HOSTILE_NUMBERS = ["inf", "-inf", "nan", "NaN", "1e400", "-1", "0", "999999999999", "abc", "", "1.5", "0x10", "1e3",
                   "-0.0", "2", "0.5", "１"]

# where an output may point, relative to the case folder ({data} is the dataset file)
RELATIONS = ["fresh", "the dataset", "the run", "the vectors", "the notes folder", "a note inside it",
             "the case folder", "its parent", ".", "a symlink to the dataset", "a user file", "the other output",
             "inside the dataset", "an empty folder"]


def test_the_campaign_covers_every_command():
    """A command added to the CLI is in the campaign the day it is written; every numeric
    flag is parsed by one of core.cli.arguments' types (so the campaign finds it)."""
    assert set(BASE) == set(COMMANDS)
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name, command in sub.choices.items():
        for a in command._actions:
            assert a.type not in (int, float), (name, a.option_strings, "use a core.cli.arguments type")
    assert {"aflite", "zstats", "zfilter", "consistency", "evaluate", "export", "project", "quality"} <= set(NUMBERS)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The user's files, made once: a small NLI CSV, a run manifest of it and a vector file."""
    root = tmp_path_factory.mktemp("campaign")
    cache = root / "cache"
    old = os.environ.get("ARTIFACT_LENS_CACHE")
    os.environ["ARTIFACT_LENS_CACHE"] = str(cache)
    rng = np.random.default_rng(0)
    cues = {"entailment": "outdoors", "neutral": "for a contest", "contradiction": "nobody"}
    lines = ["premise,hypothesis,label"]
    for i in range(90):
        lab = list(cues)[i % 3]
        lines.append(f"A person walks {i % 4}.,Someone {cues[lab]} {rng.integers(0, 9)},{lab}")
    base = root / "base"
    base.mkdir()
    (base / "nli.csv").write_text("\n".join(lines) + "\n")
    (base / "eval.csv").write_text("\n".join([lines[0], *(line.replace("walks", "runs") for line in lines[1:61])]) + "\n")
    np.save(base / "vectors.npy", rng.normal(size=(90, 4)).astype(np.float32))
    code = main(["-q", "aflite", str(base / "nli.csv"), "-r", REP, "--m", "4", "--k", "0.1", "--target-size", "0.6",
                 "--out", str(root / "scores.csv"), "--manifest", str(base / "run.manifest.json")])
    assert code == 0
    import json

    good = json.loads((base / "run.manifest.json").read_text())
    broken = {"newer": {"manifest_format": 99}, "mistyped": {"retained_ids": "abc"},
              "foreign": {"retained_ids": ["no-such-id"]}, "untyped": {"aflite": {"resolved": {"tau": "high"},
                                                                                  "phases": [], "params": {}}},
              "format-text": {"manifest_format": "1"}, "no-dataset": {"dataset": None}}
    for name, change in broken.items():
        (base / f"{name}.manifest.json").write_text(json.dumps({**good, **change}))
    _team(base)
    assert main(["-q", "certify", str(base / "nli.csv"), "-r", REP, "--partial", REP, "--folds", "2",
                 "--out", str(base / "cert.json")]) == 0
    yield base
    if old is None:
        os.environ.pop("ARTIFACT_LENS_CACHE", None)
    else:
        os.environ["ARTIFACT_LENS_CACHE"] = old


def _team(base: Path) -> None:
    """A team store beside the files: a workspace with the dataset, a saved run and two reviewers'
    decisions (what ``agreement`` reads); the run's key in teamrun.txt."""
    from artifact_lens.representations import represent
    from artifact_lens.results.runs import fit_run
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.team.store import TeamStore

    owner = "owner@example.org"
    with TeamStore(f"sqlite:///{base}/team.sqlite", files=base / "team-files") as store:
        ws = store.workspace("campaign", owner)
        store.set_role(ws, "ann@example.org", "annotator", by=owner)
        ds = load_dataset(str(base / "nli.csv"))
        dataset_id = store.save_dataset(ws, ds, source=str(base / "nli.csv"), roles={}, by=owner)
        run = fit_run(ds, represent(ds, REP), dict(n_partitions=4, slice_size=0.1, target_size=0.6))
        run_id = store.save_run(ws, dataset_id, run, by=owner)
        for i, example in enumerate(run.ids[:20]):
            store.review(ws, run_id, example, "agree", by=owner)
            store.review(ws, run_id, example, "agree" if i % 4 else "keep", "kept on purpose", by="ann@example.org")
    (base / "teamrun.txt").write_text(run.key)


def _snapshot(folder: Path) -> dict:
    found = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if p.is_symlink():
            found[rel] = "link:" + os.readlink(p)
        elif p.is_dir():
            found[rel] = "dir"
        else:
            found[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return found


def _case(world: Path) -> Path:
    case = Path(tempfile.mkdtemp(prefix="case-", dir=world.parent)) / "work"
    shutil.copytree(world, case)
    (case / "notes").mkdir()
    (case / "notes" / "mine.txt").write_text("my notes")
    (case / "user.csv").write_text("my,own\n1,2\n")
    (case / "empty").mkdir()
    (case / "link.csv").symlink_to(case / "nli.csv")
    (case / "hub").mkdir()   # a Hub-style folder whose README reads the dataset from beside it
    (case / "hub" / "README.md").write_text("---\nconfigs:\n- config_name: default\n  data_files: ../nli.csv\n---\n")
    return case


def _target(relation: str, case: Path, suffix: str, other: str, stem: str = "out") -> str:
    name = stem + suffix
    return {
        "fresh": str(case / name),
        "the dataset": str(case / "nli.csv"),
        "the run": str(case / "run.manifest.json"),
        "the vectors": str(case / "vectors.npy"),
        "the notes folder": str(case / "notes"),
        "a note inside it": str(case / "notes" / "mine.txt"),
        "the case folder": str(case),
        "its parent": str(case.parent),
        ".": ".",
        "a symlink to the dataset": str(case / "link.csv"),
        "a user file": str(case / "user.csv"),
        "the other output": other,
        "inside the dataset": str(case / "nli.csv" / name),
        "an empty folder": str(case / "empty"),
    }[relation]


def _argv(command: str, case: Path, relation: str, relation2: str, data: str, run: str) -> list:
    out = None
    argv = []
    for arg in BASE[command]:
        if arg.startswith("{out:"):
            suffix = arg[5:-1]
            out = _target(relation, case, suffix, str(case / ("other" + suffix)))
            argv.append(out)
        elif arg.startswith("{out2:"):
            suffix = arg[6:-1]
            argv.append(_target(relation2, case, suffix, out or str(case / ("x" + suffix)), stem="second"))
        else:
            argv.append(arg.replace("{data}", data).replace("{eval}", str(case / "eval.csv")).replace("{run}", run).replace("{db}", f"sqlite:///{case}/team.sqlite")
                        .replace("{cert}", str(case / "cert.json"))
                        .replace("{cache}", str(case))   # prune in the user's own folder: nothing may go
                        .replace("{teamrun}", (case / "teamrun.txt").read_text()))
    return argv


def _run(argv, cwd: Path):
    err = io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                code = main(["-q", *argv])
            except SystemExit as exc:   # pragma: no cover - main returns argparse's codes itself
                code = exc.code
    finally:
        os.chdir(here)
    return code, err.getvalue()


def _check(case: Path, before: dict, code, err: str, argv) -> None:
    tally = os.environ.get("ARTIFACT_LENS_CAMPAIGN_TALLY")   # one JSON line per case, for the counts in notes
    if tally:
        import json

        with open(tally, "a") as fh:
            fh.write(json.dumps({"argv": [str(a).replace(str(case), "CASE") for a in argv], "code": code,
                                 "error": next((x for x in err.splitlines() if x.startswith("error:")), "")}) + "\n")
    try:
        assert code in (0, 2), (argv, code, err)
        assert "Traceback" not in err, (argv, err)
        if code == 2:
            errors = [line for line in err.splitlines() if line.startswith("error:")]
            assert len(errors) == 1, (argv, err)
        after = _snapshot(case)
        for rel, digest in before.items():
            assert after.get(rel) == digest, (argv, code, err, rel, "changed or deleted")
        assert not [rel for rel in after if rel.rsplit("/", 1)[-1].startswith(".") and rel.endswith((".tmp", ".old"))], \
            (argv, after)
    finally:
        shutil.rmtree(case.parent, ignore_errors=True)


@CAMPAIGN
@given(command=st.sampled_from(sorted(BASE)), relation=st.sampled_from(RELATIONS), relation2=st.sampled_from(RELATIONS),
       data=st.sampled_from(["nli.csv", "link.csv", "hub"]), run=st.sampled_from(["run.manifest.json", "nli.csv", "notes", "newer.manifest.json", "mistyped.manifest.json",
                            "foreign.manifest.json", "untyped.manifest.json", "format-text.manifest.json",
                            "no-dataset.manifest.json", "missing.json"]))
def test_outputs_never_touch_what_the_user_has(world, command, relation, relation2, data, run):
    case = _case(world)
    before = _snapshot(case)
    argv = _argv(command, case, relation, relation2, str(case / data), str(case / run))
    code, err = _run(argv, case)
    _check(case, before, code, err, argv)


@CAMPAIGN
@given(command=st.sampled_from(sorted(NUMBERS)), data=st.data())
def test_hostile_numbers_are_one_clear_error(world, command, data):
    flag = data.draw(st.sampled_from(NUMBERS[command]), label="flag")
    value = data.draw(st.sampled_from(HOSTILE_NUMBERS), label="value")
    case = _case(world)
    before = _snapshot(case)
    argv = _argv(command, case, "fresh", "fresh", str(case / "nli.csv"), str(case / "run.manifest.json"))
    argv += [flag, value]
    code, err = _run(argv, case)
    _check(case, before, code, err, argv)


# ---------------------------------------------------------------- hostile data files
DATA_COMMANDS = sorted(c for c, argv in BASE.items() if "{data}" in argv and "{run}" not in argv)
#: what a generated file is made wrong by, and whether a command must then refuse it
FLAWS = {"none": False, "bom": False, "bom+repeated header": True, "repeated header": True, "repeated json key": True,
         "nul byte": True, "sparse hole": True, "one class": True, "class named none": False,
         "single-example class": False, "every example its own class": False, "zero-padded ids": False,
         "repeated ids": True, "formula labels": False, "header only": True}
FLAGS = {"": False, "--config foo": True, "--split train": True, "--feature label": True}
#: every input format the tool reads (a new one fails `_write_data` until the campaign can write it)
FORMATS = sorted(suffix.lstrip(".") for suffix in INPUT_FORMATS)


def _write_data(folder: Path, flaw: str, fmt: str, n: int) -> Path:
    labels = [["entailment", "neutral", "contradiction"][i % 3] for i in range(n)]
    if flaw == "one class":
        labels = ["entailment"] * n
    elif flaw == "class named none":
        labels = ["none" if i % 3 == 0 else lab for i, lab in enumerate(labels)]
    elif flaw == "single-example class":
        labels[-1] = "lonely"
    elif flaw == "every example its own class":
        labels = [f"c{i}" for i in range(n)]
    elif flaw == "formula labels":
        labels = [["=A1", "+B2", "@C3"][i % 3] for i in range(n)]
    rows = [{"id": (f"{i:03d}" if flaw != "repeated ids" else f"{i % 5:03d}"), "premise": f"A person walks {i % 4}.",
             "hypothesis": f"Someone {['outdoors', 'for a contest', 'nobody'][i % 3]} {i % 7}", "label": lab}
            for i, lab in enumerate(labels)]
    if flaw == "header only":
        rows = []
    path = folder / f"data.{fmt}"
    if fmt == "parquet":   # not text: the byte flaws do not apply (the test turns them into "none")
        import pandas as pd

        pd.DataFrame(rows, columns=["id", "premise", "hypothesis", "label"]).to_parquet(path, index=False)
        return path
    if fmt in ("jsonl", "json"):
        import json

        lines = [json.dumps(r) for r in rows]
        if flaw == "repeated json key":
            lines = [line[:-1] + ', "label": "x"}' for line in lines]
        text = "\n".join(lines) + "\n" if fmt == "jsonl" else "[" + ",\n".join(lines) + "]\n"
    else:
        assert fmt in ("csv", "tsv"), f"the campaign writes no .{fmt} file: add a writer for the new input format here"
        sep = "," if fmt == "csv" else "\t"
        header = ["id", "premise", "hypothesis", "premise" if "repeated header" in flaw else "label"]
        text = sep.join(header) + "\n" + "".join(sep.join(r[c] for c in ("id", "premise", "hypothesis", "label")) + "\n"
                                                 for r in rows)
    if flaw.startswith("bom"):
        text = "\ufeff" + text
    data = text.encode("utf-8")
    if flaw == "nul byte":
        data = data[:40] + b"\0" + data[40:]
    path.write_bytes(data)
    if flaw == "sparse hole":
        with open(path, "r+b") as fh:
            fh.truncate(len(data) + (1 << 20))   # a 1 MB hole after the text
    return path


@CAMPAIGN
@given(command=st.sampled_from(DATA_COMMANDS), flaw=st.sampled_from(sorted(FLAWS)),
       fmt=st.sampled_from(FORMATS), n=st.integers(60, 120),
       flag=st.one_of(st.just(""), st.sampled_from(sorted(FLAGS))))
def test_hostile_data_is_refused_or_read_right(world, command, flaw, fmt, n, flag):
    """Every command on a generated file with one flaw: a flaw that makes the data unusable is
    one clear error (never a success); otherwise the ids a command writes are the file's ids,
    as text (``007`` stays ``007``)."""
    if flaw == "repeated json key" and fmt not in ("jsonl", "json") or "repeated header" in flaw and fmt != "csv" \
            and fmt != "tsv" or fmt == "parquet" and flaw in ("bom", "nul byte", "sparse hole"):
        flaw = "none"
    case = _case(world)
    data = _write_data(case, flaw, fmt, n)
    before = _snapshot(case)
    argv = _argv(command, case, "fresh", "fresh", str(data), "")
    argv += flag.split()
    code, err = _run(argv, case)
    wrote = sorted(p for p in case.rglob("out*.csv"))
    ids = set()
    for p in wrote:
        import pandas as pd

        frame = pd.read_csv(p, dtype=str, keep_default_na=False)
        ids |= set(frame["id"]) if "id" in frame.columns and command != "zstats" else set()
    try:
        if FLAWS[flaw] or FLAGS[flag]:
            assert code == 2, (argv, flaw, flag, "a wrong success", err)
        assert ids <= {f"{i:03d}" for i in range(n)}, (argv, flaw, sorted(ids)[:5])
    finally:
        _check(case, before, code, err, argv)


# ---------------------------------------------------------------- outputs changed while a command runs
OUTPUT_COMMANDS = sorted(c for c, argv in BASE.items() if any(a.startswith("{out:") for a in argv))
#: what a user does at the output's path between the command's check and its end
MIDRUN = ["create a file", "create a folder", "edit the tool's own output", "delete the tool's own output",
          "fill the empty folder"]


def _midrun(action: str, target: Path) -> None:
    if action == "create a file":
        target.write_bytes(b"typed while the command ran\n")
    elif action == "create a folder":
        target.mkdir()
        (target / "mine.txt").write_text("mine")
    elif action == "edit the tool's own output":
        if target.is_dir():
            (target / "added-by-me.txt").write_text("mine")
        else:
            with open(target, "ab") as fh:
                fh.write(b"my own line\n")
    elif action == "delete the tool's own output":
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    elif action == "fill the empty folder":
        (target / "mine.txt").write_text("mine")


@settings(CAMPAIGN, max_examples=max(1, EXAMPLES * 2 // 3))
@given(command=st.sampled_from(OUTPUT_COMMANDS), action=st.sampled_from(MIDRUN))
def test_an_output_changed_while_the_command_runs_is_never_lost(world, command, action):
    """The output's check holds to the end: whatever the user puts at (or changes in) the output's
    path while a command runs is still there afterwards, byte for byte, and the result is kept
    under a new name the error line gives; a path the user freed is written as asked."""
    from unittest import mock

    from artifact_lens.exports.outputs import Outputs

    if action == "fill the empty folder" and next(a for a in BASE[command] if a.startswith("{out:")) != "{out:}":
        action = "create a file"   # a file output: an empty folder is refused at the check already
    case = _case(world)
    argv = _argv(command, case, "an empty folder" if action == "fill the empty folder" else "fresh", "fresh",
                 str(case / "nli.csv"), str(case / "run.manifest.json"))
    target = Path(argv[argv.index("--out") + 1])
    users = set(_snapshot(case))   # the user's files; the target's, as the user leaves it, join them below
    if action.endswith("own output"):   # a first run makes the tool's own output
        code, err = _run(argv, case)
        assert code == 0 and target.exists(), (argv, err)
    seen = {}
    commit = Outputs.commit

    def commit_after_the_user(self):
        if any(v[0] == target for v in self._targets.values()):
            _midrun(action, target)
            seen.update((rel, d) for rel, d in _snapshot(case).items()
                        if not any(part.startswith(".") and part.endswith((".tmp", ".old")) for part in rel.split("/")))
        return commit(self)

    with mock.patch.object(Outputs, "commit", commit_after_the_user):
        code, err = _run(argv, case)
    try:
        assert seen, (argv, "the command never reached its commit", err)
        if action == "delete the tool's own output":
            assert code == 0 and target.exists(), (argv, err)
        else:
            errors = [line for line in err.splitlines() if line.startswith("error:")]
            assert code == 2 and len(errors) == 1 and "saved as" in errors[0], (argv, action, err)
            kept = Path(errors[0].split("saved as ", 1)[1].split(".kept-", 1)[0] + ".kept-1" + target.suffix)
            assert kept.exists(), (kept, err)
        after = _snapshot(case)
        theirs = users | {rel for rel in seen if rel.split("/")[0] == target.name}
        lost = [rel for rel, digest in seen.items() if rel in theirs and after.get(rel) != digest and not
                (action == "delete the tool's own output" and rel.split("/")[0] == target.name)]
        assert not lost, (argv, action, lost)
    finally:
        _check(case, {}, code, err, argv)
