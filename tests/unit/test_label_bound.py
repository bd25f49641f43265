"""Issue 63, item 7: ``zstats`` on 20,000 rows with 10,000 labels used 22 GB and was killed by the kernel
(its counts and table are features × labels). Every command that builds such a table refuses more than
`LABELS_MAX` labels up front, naming the limit, and writes nothing."""
import numpy as np
import pandas as pd
import pytest

from artifact_lens.cli import REFUSED, main
from artifact_lens.zstats.inputs import LABELS_MAX

#: the commands whose work is a features × labels table, with what each needs besides the data
COMMANDS = {"zstats": [], "zfilter": [], "consistency": [], "certify": []}


@pytest.fixture
def many_labels(tmp_path):
    rng = np.random.default_rng(0)
    n = 3 * (LABELS_MAX + 1)
    words = np.array(["a", "cat", "sat", "on", "the", "mat", "dog", "ran"])
    frame = pd.DataFrame({"text": [" ".join(rng.choice(words, 6)) for _ in range(n)],
                          "label": [f"class {i % (LABELS_MAX + 1)}" for i in range(n)]})
    path = tmp_path / "many.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_command_refuses_more_labels_than_its_table_holds_and_writes_nothing(many_labels, tmp_path, capsys, command):
    out = tmp_path / f"{command}.out.csv" if command != "certify" else tmp_path / "c.json"
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["-q", command, str(many_labels), *COMMANDS[command], "--out", str(out)]) == REFUSED
    err = capsys.readouterr().err
    assert f"{LABELS_MAX + 1:,} labels" in err and f"at most {LABELS_MAX} labels" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_the_bound_itself_is_taken(tmp_path):
    from artifact_lens.zstats import compute_z

    frame = pd.DataFrame({"text": [f"w{i % 7} x" for i in range(2 * LABELS_MAX)],
                          "label": [f"c{i % LABELS_MAX}" for i in range(2 * LABELS_MAX)]})
    assert len(compute_z(frame, label="label", text=["text"]).labels) == LABELS_MAX
