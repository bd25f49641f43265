"""Small and degenerate data says what it did (issue 53, item 10): PVI with the knn family on folds
too small for its K neighbours is refused by name instead of reading 0 for every example."""
import numpy as np
import pytest

from artifact_lens.base.errors import InputError
from artifact_lens.base.keys import data_key
from artifact_lens.evaluation.information import pvi
from artifact_lens.models.families import KNN_K


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = (rng.normal(size=(n, 4)) + y[:, None]).astype("float32")
    return X, y


@pytest.mark.parametrize("n, folds", [(12, 2), (18, 5), (KNN_K + 3, 2)])
def test_knn_pvi_on_folds_smaller_than_its_k_is_refused(n, folds):
    X, y = _data(n)
    with pytest.raises(InputError, match=f"K = {KNN_K} neighbours.*every PVI would be 0"):
        pvi(X, y, family="knn", folds=folds)


def test_knn_pvi_with_enough_rows_says_something():
    X, y = _data(200)
    out = pvi(X, y, family="knn", folds=5)
    assert np.abs(out.table["pvi"].to_numpy()).max() > 0.1


def test_a_file_of_identical_pairs_is_certified_with_a_note_that_says_so(tmp_path, capsys):
    import json

    from artifact_lens.cli import main

    rows = [{"prompt": f"q{i}", "chosen": f"same answer {i % 7}", "rejected": f"same answer {i % 7}"} for i in range(40)]
    (tmp_path / "same.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["certify", str(tmp_path / "same.jsonl"), "--folds", "3", "--out", str(tmp_path / "c.json")]) == 0
    err = capsys.readouterr().err
    assert "40 pairs of 40 are degenerate" in err and "no pair can teach a preference" in err


def test_labels_written_two_ways_are_said():
    import unicodedata

    import pandas as pd

    from artifact_lens.data.sources import load_dataset

    table = pd.DataFrame({"text": ["a b", "c d", "e f", "g h", "i j", "k l"],
                          "label": ["yes", "yes ", "no", "café", unicodedata.normalize("NFD", "café"), "no"]})
    ds = load_dataset(table)
    said = " ".join(ds.messages)
    assert "2 groups of labels differ only in white space, case or Unicode form" in said
    assert "'yes' and 'yes '" in said and "'cafe\\u0301' and 'caf\\xe9'" in said
    assert "differ only" not in " ".join(load_dataset(table.assign(label=["yes", "no"] * 3)).messages)


def test_croissant_describes_booleans_with_nulls_mappings_and_conversations():
    import pandas as pd

    from artifact_lens.exports.croissant import croissant_metadata

    frame = pd.DataFrame({"id": ["1", "2"], "flag": [True, None], "meta": [{"k": "v", "n": 1}, {"k": "w", "n": 2}],
                          "chosen": [[{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]] * 2,
                          "vec": [[0.1, 0.2], [0.3, 0.4]]})
    fields = {f["name"]: f for f in croissant_metadata(frame, {}, name="t")["recordSet"][0]["field"]}
    assert fields["flag"]["dataType"] == "sc:Boolean" and "vec" not in fields
    assert {s["name"]: s["dataType"] for s in fields["meta"]["subField"]} == {"k": "sc:Text", "n": "sc:Integer"}
    assert fields["chosen"]["repeated"] and {s["name"] for s in fields["chosen"]["subField"]} == {"role", "content"}


def test_pvi_progress_names_its_stages_and_never_goes_back(tmp_path):
    """Issue 53, item 12: Φ's "loaded from cache" is Φ's, and the folds report after it, forward."""
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.evaluation.information import dataset_pvi

    ds = load_dataset("demo:nli:n=300")
    for _ in range(2):   # the second time Φ comes from the cache
        seen = []
        dataset_pvi(ds, "tfidf-svd:fields=hypothesis,dim=16", folds=3, cache_dir=tmp_path,
                    progress=lambda f, m: seen.append((f, m)))
        fractions = [f for f, _ in seen]
        assert fractions == sorted(fractions) and fractions[-1] == 1.0
        assert seen[-1][1] == "PVI done" and any(m.startswith("PVI: fold 3 of 3") for _, m in seen)
        assert all(m.startswith("Φ (") for f, m in seen if "cache" in m or "Φ" in m)


def test_a_job_of_unequal_steps_shows_no_time_left_while_a_paced_one_does():
    """Issue 53, item 12: a certificate's bar reaches 15 % in seconds and then takes minutes, so a
    pace-based estimate was 10-40x short; such a job kind says how long it has run, never a guess."""
    import time

    from artifact_lens.base.jobs import Job, JobKey, JobKind

    snaps = {}
    for paced in (True, False):
        job = Job(lambda ctx: None, key=JobKey(JobKind("k", "a kind", paced=paced), data_key("d")))
        job.started, job.fraction = time.time() - 10, 0.5   # half done after 10 s, as a report would say
        snaps[paced] = job.snapshot()
    assert 5 < snaps[True]["left"] < 15 and not snaps[True]["over"]
    assert snaps[False]["left"] is None and not snaps[False]["over"]


def test_the_kinds_whose_estimates_were_measured_dishonest_show_none():
    """`benchmarks/estimates_bench.py` on SNLI dev: an evaluation's estimates ran 3.5x short (and
    "over"), UMAP's 2.6x long, PVI's, a certificate's and cues across splits' 10-40x short. Each
    such kind shows its elapsed time only; the kinds left paced were within 2x."""
    from artifact_lens.dashboard.services import cached_jobs as c

    unpaced = {k.name for k in c.KINDS if not k.paced}
    assert {c.EVALUATION.name, c.MAP.name, c.MAP_PARALLEL.name, c.PVI.name, c.CERTIFICATES.name,
            c.TRANSFER.name} <= unpaced


def test_the_evaluations_progress_names_each_stage_and_only_moves_forward(tmp_path):
    """Issue 53, item 12: the partial input's fits after the families' "20 of 20 fits" are named as
    the partial input's, and the bar never goes back."""
    import numpy as np

    from artifact_lens.data.sources import load_dataset
    from artifact_lens.evaluation import EvaluationOptions, evaluate
    from artifact_lens.representations import represent

    ds = load_dataset("demo:nli:n=300")
    rep = represent(ds, "tfidf-svd:dim=16", cache_dir=tmp_path)
    retained = np.arange(len(rep.ids)) % 3 != 0
    seen = []
    evaluate(ds, rep, retained, options=EvaluationOptions(families=("logistic",), knn_ks=(1,), synthetic=False),
             progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and seen[-1] == (1.0, "evaluation done")
    fits = [m for _, m in seen if "fits" in m or "fit " in m]
    assert fits and all(m.startswith(("the families on Φ: ", "the partial input: ", "coarse action: ")) for m in fits), fits
    assert any(m.startswith("the partial input: ") for m in fits)


def test_a_stage_of_the_bar_names_whose_work_it_is():
    from artifact_lens.base.progress import span

    seen = []
    stage = span(lambda f, m: seen.append((f, m)), 0.5, 1.0, "the split's certificate")
    stage(0.0, "z-statistics")
    stage(1.0, "certificate done")
    stage(0.5)
    assert seen == [(0.5, "the split's certificate: z-statistics"), (1.0, "the split's certificate: certificate done"),
                    (0.75, "the split's certificate")]
    assert span(None, 0, 1, "x") is None
