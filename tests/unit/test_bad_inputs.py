"""The bad-input sweep through the CLI: one `error:` line naming the fix, exit 2, no file left."""
import pytest

from artifact_lens.cli import main

from bad_inputs import CASES, make_files


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad-inputs")
    make_files(d)
    return d


def _fill(argv, d, out):
    return [a.replace("{dir}", str(d)).replace("{out}", str(out)) for a in argv]


@pytest.mark.parametrize("name, argv, fragment", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_clear_error_and_leaves_nothing(name, argv, fragment, folder, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "folder.csv").mkdir()
    before = sorted(p.name for p in out.iterdir())
    inputs_before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    try:
        code = main(_fill(argv, folder, out))
    except SystemExit as exc:   # argparse's own errors (unknown command, bad number): usage + one error line
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2, (code, err)
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1, err
    assert fragment.lower() in lines[0].lower(), lines[0]
    assert sorted(p.name for p in out.iterdir()) == before           # no output, no hidden temporary
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == inputs_before   # inputs untouched


def _api_ids():
    from bad_inputs import _api_cases

    return _api_cases()


@pytest.mark.parametrize("case", _api_ids(), ids=lambda c: c[0])
def test_bad_input_to_the_engine_is_an_input_error_naming_it(case):
    from artifact_lens.base.errors import InputError

    name, call, fragment = case
    with pytest.raises(InputError) as info:
        call()
    assert fragment.lower() in str(info.value).lower(), str(info.value)
