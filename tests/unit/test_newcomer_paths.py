"""Adding an extension is one declaration (issue 54, item 2): a newcomer adds one entry and it reaches
every place that lists its kind, with no other file touched. Each test adds one here, in a copy of
the registry, and follows it to the loader, the CLI's help, the docs' reference, the dashboard and
the output."""
import pandas as pd
import pytest

import core.data.file_tables as file_tables


@pytest.fixture
def pipe_separated(monkeypatch):
    """A new input format, ``.psv`` (pipe-separated values), declared as a newcomer would."""
    monkeypatch.setattr(file_tables, "INPUT_FORMATS", dict(file_tables.INPUT_FORMATS))
    return file_tables.register_input_format(file_tables.InputFormat(
        ".psv", "pipe-separated values", lambda path: pd.read_csv(path, sep="|", dtype=str, keep_default_na=False)))


def test_an_input_format_is_one_declaration(pipe_separated, tmp_path, capsys):
    from core.cli import main
    from core.cli.reference import reference_markdown
    from core.data.sources import load_dataset
    from core.exports.manifest import file_name
    from dashboard.services import data_inputs

    data = tmp_path / "tiny.psv"
    data.write_text("id|text|label\n" + "".join(f"r{i}|a sentence number {i}|{'ab'[i % 2]}\n" for i in range(40)))
    ds = load_dataset(str(data))                                        # the loader
    assert len(ds) == 40 and ds.label == "label"
    assert load_dataset(str(data).replace(str(tmp_path), str(tmp_path) + "/.")).fingerprint == ds.fingerprint
    assert ".psv" in reference_markdown()                               # the CLI's help and docs/cli.md
    assert data_inputs.file_formats()["psv"] == "pipe-separated values"  # the upload widget's types and label
    assert main(["info", str(data)]) == 0 and "40" in capsys.readouterr().out   # the output
    assert file_name("tiny.psv", "retained", "csv") == "tiny-retained.csv"   # an export's name drops its suffix
    with pytest.raises(file_tables.InputError, match=r"\.psv"):
        file_tables.file_type(tmp_path / "x.unknown")   # the refusal lists it among the known types


def test_a_suffix_is_declared_once():
    with pytest.raises(ValueError, match="registered already"):
        file_tables.register_input_format(file_tables.InputFormat(".csv", "CSV again", pd.read_csv))
    with pytest.raises(ValueError, match="suffix"):
        file_tables.InputFormat("psv", "no dot", pd.read_csv)
