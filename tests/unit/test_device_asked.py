"""Asked-for devices (issue 45, sweep item 9): ``ARTIFACT_LENS_DEVICE`` names where AFLite's ridge
family, the cartography and the evaluation's linear families compute. A command that computes
elsewhere says so before its work, found by reflection over every command, so a CPU result is
never read as a device's; a command that takes the device refuses one this machine lacks."""
import argparse

import pytest

from artifact_lens.cli import _subparsers, device_note, main


@pytest.mark.parametrize("command", sorted(_subparsers()))
def test_every_command_uses_the_asked_device_or_says_it_does_not(command, monkeypatch):
    monkeypatch.setenv("ARTIFACT_LENS_DEVICE", "cuda")
    sub = _subparsers()[command]
    takes = any("--device" in a.option_strings for a in sub._actions)
    args = argparse.Namespace(command=command, **({"device": None} if takes else {}))
    note = device_note(args)
    if takes:
        assert note is None
    else:
        assert note.startswith(f"note: ARTIFACT_LENS_DEVICE=cuda is not used by {command}: it computes on the CPU")
    monkeypatch.delenv("ARTIFACT_LENS_DEVICE")
    assert device_note(args) is None


def test_pvi_computes_on_the_asked_device_or_refuses_one_this_machine_lacks(tmp_path, monkeypatch, capsys):
    """pvi takes the device since issue 57 (Φ's SVD and the logistic models): asked through the
    environment it is used, and one this machine cannot use is refused before any output."""
    import importlib.util

    import pandas as pd

    from artifact_lens.data.demos import make_nli

    make_nli(n=120, random_state=0).table.reset_index().to_csv(tmp_path / "d.csv", index=False)
    out = tmp_path / "p.csv"
    monkeypatch.setenv("ARTIFACT_LENS_DEVICE", "array-api-strict")
    assert main(["pvi", str(tmp_path / "d.csv"), "--folds", "2", "--quiet", "--out", str(out)]) == 0
    assert "computes on the CPU" not in capsys.readouterr().err
    assert len(pd.read_csv(out)) == 120
    if importlib.util.find_spec("torch") is None:
        out.unlink()
        monkeypatch.setenv("ARTIFACT_LENS_DEVICE", "cuda")
        assert main(["pvi", str(tmp_path / "d.csv"), "--folds", "2", "--quiet", "--out", str(out)]) == 2
        assert "needs PyTorch" in capsys.readouterr().err and not out.exists()


def test_pvi_of_multiple_choice_items_says_the_device_is_not_used(capsys):
    assert main(["pvi", "demo:choices:n=200", "--folds", "2", "--device", "array-api-strict"]) == 0
    assert "array-api-strict is not used for multiple-choice items" in capsys.readouterr().err
