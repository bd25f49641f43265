"""Adding an extension is one declaration (issue 54, item 2): a newcomer adds one entry and it reaches
every place that lists its kind, with no other file touched. Each test adds one here, in a copy of
the registry, and follows it to the loader, the CLI's help, the docs' reference, the dashboard and
the output."""
import numpy as np
import pandas as pd
import pytest

import artifact_lens.data.file_tables as file_tables


@pytest.fixture
def pipe_separated(monkeypatch):
    """A new input format, ``.psv`` (pipe-separated values), declared as a newcomer would."""
    monkeypatch.setattr(file_tables, "INPUT_FORMATS", file_tables.INPUT_FORMATS.copy())
    return file_tables.register_input_format(file_tables.InputFormat(
        ".psv", "pipe-separated values", lambda path: pd.read_csv(path, sep="|", dtype=str, keep_default_na=False)))


def test_an_input_format_is_one_declaration(pipe_separated, tmp_path, capsys):
    from artifact_lens.cli import main
    from artifact_lens.cli.reference import reference_markdown
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.exports.manifest import file_name
    from artifact_lens.dashboard.services import data_inputs

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
    with pytest.raises(ValueError, match="registered twice"):
        file_tables.register_input_format(file_tables.InputFormat(".csv", "CSV again", pd.read_csv))
    with pytest.raises(ValueError, match="suffix"):
        file_tables.InputFormat("psv", "no dot", pd.read_csv)


@pytest.fixture
def char_counts(monkeypatch):
    """A new representation kind, ``char-counts`` (each text field's length in characters), declared as
    a newcomer would: one `Kind`, with its builder and its options' check."""
    import numpy as np

    import artifact_lens.representations.spec as spec

    monkeypatch.setattr(spec, "REGISTRY", spec.REGISTRY.copy())
    monkeypatch.setattr(spec, "KINDS", dict(spec.KINDS))
    import artifact_lens.representations as reps
    monkeypatch.setattr(reps, "REGISTRY", spec.REGISTRY)

    def build(dataset, opts, *, messages, info, progress, cancel, cache_dir):
        fields = opts["fields"].split("+")
        return np.column_stack([dataset.table[f].astype(str).str.len().to_numpy() * float(opts["scale"])
                                for f in fields]), []

    return spec.register_kind(spec.Kind("char-counts", {"fields": None, "scale": 1}, "char-counts:fields=hypothesis",
                                        "Each text field's length in characters", build, spec.check_text,
                                        page_inputs=(("fields", "fields"),)))


def test_a_representation_kind_is_one_declaration(char_counts, tmp_path, capsys):
    from artifact_lens.cli import main
    from artifact_lens.cli.reference import reference_markdown
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.representations import parse_spec, represent
    from artifact_lens.dashboard.services import data_inputs

    ds = load_dataset("demo:nli:n=60")
    rep = represent(ds, "char-counts:fields=premise+hypothesis,scale=2", cache_dir=tmp_path)   # the builder
    assert rep.X.shape == (60, 2) and rep.X[0, 1] == 2 * len(ds.table["hypothesis"].iloc[0])
    assert rep.spec == "char-counts:fields=premise+hypothesis,scale=2"                        # the canonical spec
    with pytest.raises(Exception, match="unknown option 'dim' for representation 'char-counts'"):
        parse_spec("char-counts:dim=3")                                                        # the grammar
    assert data_inputs.rep_kinds(ds)["char-counts"] == "Each text field's length in characters"
    assert "char-counts" not in data_inputs.rep_kinds(load_dataset("demo:pairs:n=40"))          # the Data page
    assert "char-counts" not in data_inputs.rep_kinds(load_dataset("demo:choices:n=40"))
    assert data_inputs.build_spec("char-counts", fields=("hypothesis",)) == "char-counts:fields=hypothesis"
    assert "char-counts:fields=hypothesis" in reference_markdown()                             # help and docs/cli.md
    out = tmp_path / "phi.npy"
    assert main(["represent", "demo:nli:n=60", "-r", "char-counts:fields=hypothesis", "--out", str(out)]) == 0
    assert np.load(out).shape == (60, 1)                                                       # the output


@pytest.fixture
def words_command(monkeypatch):
    """A new command, ``words`` (how many words each label's texts hold), declared as a newcomer
    would: one function and its options, beside it, with `core.cli.commands.command`."""
    import artifact_lens.cli.commands as commands

    monkeypatch.setattr(commands, "COMMANDS", commands.COMMANDS.copy())
    import artifact_lens.cli.parser as parser
    monkeypatch.setattr(parser, "COMMANDS", commands.COMMANDS)

    def cmd_words(args) -> int:
        from artifact_lens.cli.common import load_from_args

        ds = load_from_args(args)
        counts = ds.table.groupby(ds.label)[ds.text[-1]].apply(lambda t: int(t.str.split().str.len().sum()))
        for label, n in counts.items():
            print(f"{label}: {n * args.scale}")
        return 0

    @commands.command("words", run=cmd_words, help="words per label", description="Count each label's words.")
    def _words_options(p) -> None:
        from artifact_lens.cli.common import add_dataset_args

        add_dataset_args(p)
        p.add_argument("--scale", type=int, default=1, help="multiply the counts (default 1)")

    return cmd_words


def test_a_command_is_one_declaration(words_command, capsys):
    from artifact_lens.cli import main
    from artifact_lens.cli.parser import build_parser
    from artifact_lens.cli.reference import reference_markdown

    assert "words" in build_parser().format_help()                                   # the CLI's help
    assert "### words" in reference_markdown() and "--scale" in reference_markdown()  # docs/cli.md
    assert main(["-q", "words", "demo:nli:n=60", "--scale", "2"]) == 0               # the command runs
    said = capsys.readouterr().out
    assert "entailment:" in said and all(int(line.split(": ")[1]) % 2 == 0 for line in said.splitlines())
    assert main(["words", "demo:nli:n=60", "--scale", "x"]) == 2                      # its options are checked
