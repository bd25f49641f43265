"""The same bad data gives the same message through Python, the CLI and the Data page
(in the app's words: controls instead of flags), or, where only the columns' roles are
missing, the Data page asks for them instead."""
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from artifact_lens.base.errors import InputError, RolesNeeded
from artifact_lens.data.sources import load_dataset
from artifact_lens.dashboard.widgets.formatting import plain

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "unit"))
from bad_inputs import CASES, make_files  # noqa: E402

# the data-file cases: `info PATH` with nothing else (demos and flags are not typed in the Data page)
FILE_CASES = [(name, argv[1]) for name, argv, _ in CASES
              if argv[:1] == ["info"] and len(argv) == 2 and argv[1].startswith("{dir}")]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("parity")
    make_files(d)
    return d


@pytest.mark.parametrize("name, path", FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_python_cli_and_data_page_say_the_same(name, path, folder, capsys, monkeypatch):
    from artifact_lens.cli import main

    path = path.replace("{dir}", str(folder))
    with pytest.raises(InputError) as info:
        load_dataset(path)
    message = str(info.value)
    assert main(["info", path]) == 2
    assert capsys.readouterr().err.strip() == f"error: {message}"
    monkeypatch.setenv("ARTIFACT_LENS_DATA_DIRS", str(folder))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "pages" / "1_data.py"), default_timeout=120).run()
    at.radio(key="src_kind").set_value("Local path").run()
    at.text_input(key="src_path").input(path)
    at.button(key="load").click().run()
    assert not at.exception, [e.value for e in at.exception]
    if isinstance(info.value, RolesNeeded):   # the page offers the column choice instead
        assert any("below" in w.value for w in at.warning) and at.button(key="mapping_load")
    else:
        assert plain(message) in [e.value for e in at.error]
    assert at.metric[0].label == "Examples" and at.metric[0].value == "3,000"   # the demo is still current


def test_every_file_case_is_covered():
    assert len(FILE_CASES) >= 15
