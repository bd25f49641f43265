"""Issue 63, item 12: one escaping rule per output kind, each tested over generated hostile text. What
the data holds (a label's ESC, a column name's terminal codes, a file name's U+202E) is shown in every
output, never obeyed: GitHub annotations, JUnit XML, the CLI's error lines, the card's YAML header and
the app's example cells."""
import re
import xml.etree.ElementTree as ET

import pandas as pd
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

HOSTILE = st.text(st.sampled_from(list("ab ,:%\n\r\t\x1b[31m\x07\x00\u202e\u202c\u2066\u200f<&>\"'") + ["é", "😀"]),
                  min_size=1, max_size=24)
#: what no output may carry raw: a control character (but the line breaks a format uses itself) or a
#: character that reorders the text around it
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _table(feature, label):
    from artifact_lens.certificate.gate import compare  # noqa: F401  (the table's shape is compare's)

    table = pd.DataFrame([{"measure": f"zstats.z_max[{label}]", "status": "fail", "before": 1.0, "after": 5.0,
                           "change": 4.0, "allowed": 1.0, "why": f"label {label}", "ok": False}])
    cues = pd.DataFrame([{"feature": feature, "label": label, "share_before": 0.3, "support_before": 10,
                          "share_after": 0.9, "support_after": 40, "chance": 0.33, "z": 6.0, "line": 4.0,
                          "excess_before": 0.0, "excess_after": 0.5, "test": "binomial"}])
    table.attrs.update(cues=cues, z=4.0, tests=1)
    return table


@settings(max_examples=80, deadline=None, derandomize=True)
@given(feature=HOSTILE, label=HOSTILE)
def test_github_annotations_and_junit_show_what_a_cue_holds(feature, label):
    from artifact_lens.certificate.ci_reports import github_annotations, junit_xml

    for line in github_annotations(_table(feature, label)):
        assert "\n" not in line and "\r" not in line and not RAW.search(line), repr(line)
    xml = junit_xml(_table(feature, label))
    assert not RAW.search(xml.replace("\n", "")), repr(xml)
    ET.fromstring(xml.split("\n", 1)[1])   # well-formed


@settings(max_examples=80, deadline=None, derandomize=True)
@given(column=HOSTILE)
def test_a_cli_error_line_shows_a_column_names_codes(column):
    from artifact_lens.base.errors import InputError
    from artifact_lens.base.settings import printable_message

    said = printable_message(InputError(f"no column 'x' for the text column. The columns are: {column}, label."))
    assert not RAW.search(said.replace("\n", "")), repr(said)


def test_the_cli_prints_a_column_names_escape_codes_as_text(tmp_path, capsys):
    from artifact_lens.cli import REFUSED, main

    path = tmp_path / "esc.csv"
    path.write_bytes(b"premise,hyp\x1b[31mX,label\na,b,c\n")
    assert main(["-q", "info", str(path), "--text", "nope"]) == REFUSED
    err = capsys.readouterr().err
    assert "\x1b" not in err and "hyp\\x1b[31mX" in err


@settings(max_examples=60, deadline=None, derandomize=True)
@given(name=HOSTILE)
def test_the_cards_yaml_header_shows_a_file_names_controls(name):
    from artifact_lens.exports.card import dataset_card

    card = str(dataset_card({"dataset": {"name": name}, "export": {"rows": 3, "selection": "filtered"}}))
    header = card.split("---")[1]
    assert not RAW.search(header.replace("\n", "")), repr(header)
    yaml.safe_load(header)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(cell=HOSTILE)
def test_the_apps_cells_show_direction_controls_and_keep_the_rest(cell):
    from artifact_lens.dashboard.widgets.formatting import shown_cells

    shown = shown_cells(pd.DataFrame({"hypothesis": [cell], "n": [1]}))
    assert not re.search("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", shown["hypothesis"].iloc[0])
    assert re.sub(r"U\+[0-9A-F]{4}", "", shown["hypothesis"].iloc[0]) == re.sub(
        "[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", "", cell)
    assert shown["n"].iloc[0] == 1
