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


def test_pvi_with_a_device_asked_says_it_ran_on_the_cpu(tmp_path, monkeypatch, capsys):
    import pandas as pd

    from artifact_lens.data.demos import make_nli

    make_nli(n=120, random_state=0).table.reset_index().to_csv(tmp_path / "d.csv", index=False)
    monkeypatch.setenv("ARTIFACT_LENS_DEVICE", "cuda")
    assert main(["pvi", str(tmp_path / "d.csv"), "--folds", "2", "--quiet", "--out", str(tmp_path / "p.csv")]) == 0
    assert "ARTIFACT_LENS_DEVICE=cuda is not used by pvi: it computes on the CPU" in capsys.readouterr().err
    assert len(pd.read_csv(tmp_path / "p.csv")) == 120
