"""A cache the ledger cannot be written to (issue 45, sweep item 6): the first run said nothing,
and the rerun refused the tool's own output as "a file Artifact Lens did not write". Now the first
run says, before its work, that the record cannot be kept and what follows from it."""
import pandas as pd

from artifact_lens.cli import main


def test_a_run_that_cannot_record_its_outputs_says_so_first(tmp_path, capsys):
    from artifact_lens.data.demos import make_nli

    make_nli(n=120, random_state=0).table.reset_index().to_csv(tmp_path / "d.csv", index=False)
    cache = tmp_path / "cache"
    (cache / "written.jsonl").mkdir(parents=True)     # the ledger's path cannot be opened for writing
    out = tmp_path / "z.csv"
    argv = ["--cache-dir", str(cache), "zstats", str(tmp_path / "d.csv"), "--quiet", "--out", str(out)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.count("note: the record of what Artifact Lens writes cannot be kept") == 1
    assert "a later run will not replace them" in err and len(pd.read_csv(out))
    assert main(argv) == 2                              # as the note said: the output is the user's now
    assert "Artifact Lens did not write" in capsys.readouterr().err
