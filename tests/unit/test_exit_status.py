"""One exit-status convention for every command (issue 56, item 2): 0 passed, 1 the gate failed
(or warned, with --fail-on warn), 2 usage or a damaged or refused input, 3 an internal error,
never 0 or 1. Reflection over every declared command, so a new one is held the day it is written."""
import argparse
import json
from pathlib import Path

import pytest

from artifact_lens.cli import GATE_FAILED, INTERNAL_ERROR, PASSED, REFUSED, main
from artifact_lens.cli.commands import COMMANDS
from artifact_lens.cli.parser import build_parser


def _argv(name: str, dataset: str, tmp_path) -> list:
    """The command ``name`` on ``dataset`` with its required options filled in (outputs in ``tmp_path``)."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[name]
    argv = [name]
    for action in sub._actions:
        if not action.required and action.dest != "dataset" or action.dest in ("help",):
            continue
        if action.dest == "dataset":
            argv.append(dataset)
        elif action.option_strings:
            argv += [action.option_strings[0], str(tmp_path / f"{name}-{action.dest}.csv")]
        else:
            argv.append(dataset)
    return argv


def _reads_a_file(name: str) -> bool:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[name]
    # a positional it must be given (``docs``'s optional PAGE names a page, not a file)
    return any(not a.option_strings and a.dest != "help" and (a.required or a.dest == "dataset") for a in sub._actions)


@pytest.mark.parametrize("name", [n for n in COMMANDS if _reads_a_file(n)])
def test_a_missing_input_exits_2_with_one_error_line(name, tmp_path, capsys):
    assert main(_argv(name, str(tmp_path / "missing.jsonl"), tmp_path)) == REFUSED, name
    err = capsys.readouterr().err.strip().splitlines()
    assert err and err[-1].startswith("error:") and "Traceback" not in "\n".join(err), name


@pytest.mark.parametrize("name", list(COMMANDS))
def test_an_internal_error_exits_3_never_0_or_1(name, tmp_path, capsys, monkeypatch):
    """A bug inside any command (here: its function raises) is exit 3 with its traceback."""
    def broken(args):
        raise ZeroDivisionError("a bug")

    import artifact_lens.cli.parser as parser_module

    real = parser_module.build_parser

    def with_a_bug():
        parser = real()
        sub = next(a for a in parser._actions if a.dest == "command").choices[name]
        sub.set_defaults(func=broken)
        return parser

    monkeypatch.setattr("artifact_lens.cli.build_parser", with_a_bug)
    found = main(_argv(name, "demo:nli:n=60", tmp_path))
    assert found == INTERNAL_ERROR and found not in (PASSED, GATE_FAILED), name
    err = capsys.readouterr().err
    assert "Traceback" in err and "internal error" in err, name


def _certificates(tmp_path):
    from artifact_lens.certificate.measures import certify
    from artifact_lens.certificate.schema import write_certificate
    from artifact_lens.data.demos import make_choices

    base = certify(make_choices(n=400, position_share=0.0, length_share=0.0, seed=1))
    planted = certify(make_choices(n=400, position_share=0.3, length_share=0.0, seed=1))
    for name, cert in (("base", base), ("planted", planted)):
        write_certificate(cert, tmp_path / f"{name}.json")
    return tmp_path / "base.json", tmp_path / "planted.json"


def test_check_exits_0_on_a_pass_1_on_a_failed_gate_and_on_a_warning_when_asked(tmp_path, capsys):
    base, planted = _certificates(tmp_path)
    assert main(["-q", "check", str(base), str(base)]) == PASSED
    assert main(["-q", "check", str(base), str(planted)]) == GATE_FAILED
    # a rise that only warns passes by default, and fails with --fail-on warn
    cert = json.loads(base.read_text())
    warned = json.loads(base.read_text())
    m = warned["measures"]["mc.options_only.accuracy"]
    m["value"] = m["value"] + 10 * (m["stderr"] or 0.01)
    (tmp_path / "warned.json").write_text(json.dumps(warned))
    assert cert != warned
    assert main(["-q", "check", str(base), str(tmp_path / "warned.json")]) == PASSED
    assert main(["-q", "check", str(base), str(tmp_path / "warned.json"), "--fail-on", "warn"]) == GATE_FAILED
    assert "--fail-on warn" in capsys.readouterr().err


def test_gate_certifies_and_checks_in_one_command_with_its_reports(tmp_path, capsys):
    """``gate`` (what the action runs): 0 with the reports on a clean change, 1 on a planted cue,
    and without --out it keeps nothing."""
    from artifact_lens.data.demos import make_choices

    base, _ = _certificates(tmp_path)
    for name, share in (("clean", 0.0), ("planted", 0.3)):
        make_choices(n=400, position_share=share, length_share=0.0, seed=1).choices.rows.to_json(
            tmp_path / f"{name}.jsonl", orient="records", lines=True)
    out = tmp_path / "reports"
    assert main(["-q", "gate", str(tmp_path / "clean.jsonl"), "--baseline", str(base), "--out", str(out)]) == PASSED
    assert sorted(p.name for p in out.iterdir()) == ["certificate.json", "check.json", "cue-rows.csv", "junit.xml",
                                                     "summary.md"]
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["-q", "gate", str(tmp_path / "planted.jsonl"), "--baseline", str(base)]) == GATE_FAILED
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert "new or stronger cues: [position A] → gold" in capsys.readouterr().err


@pytest.mark.parametrize("fail_on", ["fail", "warn"])
def test_the_check_json_and_markdown_say_what_the_exit_status_says(tmp_path, fail_on):
    """Issue 63, item 6: under --fail-on warn, check exited 1 while its check.json said ``passed: true,
    exit_status: 0``."""
    base, planted = _certificates(tmp_path)
    warned = json.loads(base.read_text())
    m = warned["measures"]["mc.options_only.accuracy"]
    m["value"] = m["value"] + 10 * (m["stderr"] or 0.01)
    (tmp_path / "warned.json").write_text(json.dumps(warned))
    for candidate in (base, planted, tmp_path / "warned.json"):
        out, md = tmp_path / f"{candidate.stem}-{fail_on}.json", tmp_path / f"{candidate.stem}-{fail_on}.md"
        status = main(["check", str(base), str(candidate), "-q", "--fail-on", fail_on, "--json", str(out),
                       "--markdown", str(md)])
        said = json.loads(out.read_text())
        assert (said["exit_status"], said["passed"], said["fail_on"]) == (status, status == PASSED, fail_on)
        assert ("**failed**" in md.read_text()) == (status == GATE_FAILED)


def test_every_command_takes_q_after_its_name_too():
    """docs/cli.md: every command takes -q. ``check … -q`` was refused (reflection over every command)."""
    from artifact_lens.cli.parser import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name, sub in commands.items():
        quiet = [a for a in sub._actions if a.dest == "quiet"]
        assert quiet and "-q" in quiet[0].option_strings, name


@pytest.mark.parametrize("representation", [["-r", "pair-diff:prompt=1"], []])
def test_the_pvi_columns_of_pairs_are_the_ones_the_docs_list(tmp_path, representation):
    """Issue 63, item 6: docs/preference-pairs.md promised ``pvi_response_only`` where the default Φ
    (the responses alone) leaves it out; the docs now list each case's columns, read here."""
    import re
    from pathlib import Path

    import pandas as pd

    docs = (Path(__file__).resolve().parents[2] / "docs" / "preference-pairs.md").read_text()
    para = docs[docs.index("`pvi.csv` has one row per pair"):]
    para = " ".join(para[:para.index("\n\n")].split())
    with_prompt = re.findall(r"`([a-z_]+)`", para[:para.index("Without `-r`")])
    default = re.findall(r"`([a-z_]+)`", para[para.index("the file has"):])
    out = tmp_path / "pvi.csv"
    assert main(["-q", "pvi", "demo:pairs:n=200", *representation, "--out", str(out)]) == PASSED
    assert list(pd.read_csv(out, nrows=1).columns) == (with_prompt if representation else default[:6])


def _documented_columns(text: str, where_prompt: bool) -> list:
    """The columns a sentence of the form "a, b, c, then pvi_ and p_model_ of x (note) and y" lists."""
    import re

    head, _, tail = text.partition(", then ")
    cols = [c.strip() for c in head.split(",")]
    prefixes, _, names = tail.partition(" of ")
    prefixes = [p.strip() for p in prefixes.split(" and ")]
    inputs = []
    for name in names.split(" and "):
        bare = re.sub(r"\s*\(.*?\)", "", name).strip()
        if "only where Φ holds the prompt" in name and not where_prompt:
            continue
        inputs.append(bare)
    return cols + [f"{p}{i}" for i in inputs for p in prefixes]


@pytest.mark.parametrize("data, argv, part", [
    ("demo:nli:n=200", [], "CSV, one row per example: "),
    ("demo:pairs:n=200", [], "for preference pairs one row per pair: "),
    ("demo:pairs:n=200", ["-r", "pair-diff:prompt=1"], "for preference pairs one row per pair: "),
    ("demo:choices:n=200", [], "for multiple-choice items one row per item: ")])
def test_pvi_writes_the_columns_its_documented_help_lists(tmp_path, data, argv, part):
    """Issue 63, item 6, by reflection on what the docs print: ``pvi --out``'s help (docs/cli.md is made
    from it) lists each kind of data's columns; the file written has exactly those, in that order."""
    import pandas as pd

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["pvi"]
    helped = " ".join(next(a for a in sub._actions if a.dest == "out").help.split())
    assert helped in " ".join((Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text().split())
    sentence = helped[helped.index(part) + len(part):].split(";")[0]
    out = tmp_path / "pvi.csv"
    assert main(["-q", "pvi", data, *argv, "--out", str(out)]) == PASSED
    assert list(pd.read_csv(out, nrows=1).columns) == _documented_columns(sentence, where_prompt=bool(argv))


def test_the_pair_cue_csv_has_the_columns_its_page_lists(tmp_path):
    """docs/preference-pairs.md: "The CSV has `feature, kind, …`" is what ``zstats`` writes for pairs."""
    import re

    import pandas as pd

    docs = " ".join((Path(__file__).resolve().parents[2] / "docs" / "preference-pairs.md").read_text().split())
    listed = [c.strip() for c in re.search(r"The CSV has `([^`]+)`", docs).group(1).split(",")]
    out = tmp_path / "cues.csv"
    assert main(["-q", "zstats", "demo:pairs:n=200", "--out", str(out)]) == PASSED
    assert list(pd.read_csv(out, nrows=1).columns) == listed
