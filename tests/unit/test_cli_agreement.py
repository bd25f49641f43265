"""`artifact-lens agreement` on a real team store: three simulated reviewers with known noise
review 240 SNLI examples of a saved run; the command's α and κ are the reference
implementations' on the same decisions, its filter-as-rater numbers are counted here by hand,
and a wrong database, workspace, member or run is one clear error."""
import json
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from artifact_lens.cli import main
from artifact_lens.representations import represent
from artifact_lens.results.runs import fit_run
from artifact_lens.data.sources import load_dataset
from artifact_lens.team.store import TeamStore

krippendorff = pytest.importorskip("krippendorff")

OWNER, CURATOR, ANNOTATOR = "owner@team.org", "cur@team.org", "ann@team.org"
NOISE = {OWNER: 0.05, CURATOR: 0.15, ANNOTATOR: 0.3}   # chance of a reviewer flipping the filter's side


@pytest.fixture(scope="module")
def team(tmp_path_factory, snli_dev):
    root = tmp_path_factory.mktemp("agreement")
    data = root / "snli.jsonl"
    data.write_text("".join(open(snli_dev).readlines()[:900]))
    url = f"sqlite:///{root}/team.sqlite"
    rng = np.random.default_rng(7)
    with TeamStore(url, files=root / "files") as store:
        ws = store.workspace("nli", OWNER)
        store.set_role(ws, CURATOR, "curator", by=OWNER)
        store.set_role(ws, ANNOTATOR, "annotator", by=OWNER)
        ds = load_dataset(str(data))
        dataset_id = store.save_dataset(ws, ds, source=str(data), roles={}, by=OWNER)
        run = fit_run(ds, represent(ds, "tfidf-svd:fields=hypothesis,dim=32", cache_dir=root / "cache"),
                      dict(n_partitions=8, slice_size=0.05, target_size=0.5))
        run_id = store.save_run(ws, dataset_id, run, by=OWNER)
        reviewed = rng.choice(len(run.ids), 240, replace=False)
        retained = run.retained
        decisions = []
        for who, noise in NOISE.items():
            for row in reviewed:
                flip = rng.random() < noise
                filter_side, other = ("keep", "remove") if retained[row] else ("remove", "keep")
                decision = other if flip else "agree"
                store.review(ws, run_id, str(run.ids[row]), decision, "flipped" if flip else "", by=who)
                decisions.append((str(run.ids[row]), who, other if flip else filter_side))
    sides = pd.DataFrame(decisions, columns=["example_id", "reviewer", "side"])
    return {"url": url, "run": run, "sides": sides, "root": root}


def agreement_json(team, capsys, *extra):
    capsys.readouterr()
    code = main(["agreement", "--db", team["url"], "--workspace", "nli", "--run", team["run"].key, "--as", CURATOR,
                 "--json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_alpha_and_kappa_are_the_reference_implementations(team, capsys):
    found = agreement_json(team, capsys)
    sides = team["sides"]
    wide = sides.pivot(index="reviewer", columns="example_id", values="side")
    codes = wide.replace({"keep": 0, "remove": 1}).to_numpy(dtype=float)
    ref = krippendorff.alpha(reliability_data=codes, level_of_measurement="nominal")
    assert found["alpha"] == pytest.approx(ref, abs=1e-4)
    assert found["examples_reviewed"] == 240 and found["examples_reviewed_twice_or_more"] == 240
    low, high = found["alpha_interval"]
    assert low < found["alpha"] < high
    for pair in found["pairs"]:
        a, b = wide.loc[pair["reviewer_a"]], wide.loc[pair["reviewer_b"]]
        assert pair["kappa"] == pytest.approx(cohen_kappa_score(a, b), abs=1e-4)
    # noisier reviewers agree less with the filter
    per = {r["reviewer"]: r["agreement_with_filter"] for r in found["per_reviewer"]}
    assert per[OWNER] > per[CURATOR] > per[ANNOTATOR]


def test_the_filter_as_a_rater_and_the_supported_tau_n(team, capsys):
    found = agreement_json(team, capsys)
    run, sides = team["run"], team["sides"]
    filt = pd.Series(np.where(run.retained, "keep", "remove"), index=np.asarray(run.ids).astype(str))
    # the team's word: the latest decision stands (the workspace's default rule): the annotator's
    team = sides[sides["reviewer"] == ANNOTATOR].set_index("example_id")["side"]
    assert found["filter"]["examples"] == 240
    assert found["filter"]["agreement"] == pytest.approx(float((team == filt.reindex(team.index)).mean()), abs=1e-4)
    assert {r["label"] for r in found["filter_by_label"]} == {"entailment", "neutral", "contradiction"}
    assert found["filter_by_feature"] and all(0 <= r["overruled_share"] <= 1 for r in found["filter_by_feature"])
    best = found["supported"]
    grid = pd.DataFrame(found["supported_grid"])
    assert best["agreement"] == pytest.approx(grid["agreement"].max())
    assert run.trajectory.live_bounds()["n_min"] <= best["n"] < len(run.ids)


def test_the_text_report_says_the_same(team, capsys):
    found = agreement_json(team, capsys)
    main(["agreement", "--db", team["url"], "--workspace", "nli", "--run", team["run"].key, "--as", ANNOTATOR])
    text = capsys.readouterr().out
    shown = re.search(r"Krippendorff's α \(nominal, keep/remove\): (-?[0-9.]+) \[", text)
    assert shown and float(shown.group(1)) == pytest.approx(found["alpha"], abs=6e-4)
    assert "The filter as a rater" in text and "The τ/n the team supports" in text


@pytest.mark.parametrize("change, message", [
    ({"--db": "sqlite:////nowhere/team.sqlite"}, "there is no team database at /nowhere/team.sqlite"),
    ({"--workspace": "other"}, "is not a member of a workspace named 'other'"),
    ({"--as": "stranger@x.org"}, "stranger@x.org is not a member"),
    ({"--run": "no-such-run"}, "no finished run 'no-such-run'"),
    ({"--tau": "2"}, "argument --tau"),
])
def test_wrong_arguments_are_one_clear_error(team, capsys, change, message):
    args = {"--db": team["url"], "--workspace": "nli", "--run": team["run"].key, "--as": CURATOR, **change}
    capsys.readouterr()
    code = main(["agreement", *[x for k, v in args.items() for x in (k, v)]])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert not (team["root"].parent / "nowhere").exists()


def test_blind_review_counts_every_decision_for_adjudicators_and_refuses_annotators(team, capsys):
    """In a blind workspace the command reads every decision for a curator (the same α as before)
    and refuses an annotator, whose blind view would give a wrong α."""
    before = agreement_json(team, capsys)
    with TeamStore(team["url"]) as store:
        ws = store.workspaces_of(OWNER)[0][0]
        store.set_review_settings(ws, blind=True, by=OWNER)
    try:
        assert agreement_json(team, capsys)["alpha"] == before["alpha"]
        code = main(["agreement", "--db", team["url"], "--workspace", "nli", "--run", team["run"].key, "--as",
                     ANNOTATOR])
        assert code == 2 and "is blind and ann@team.org is annotator there" in capsys.readouterr().err
    finally:
        with TeamStore(team["url"]) as store:
            store.set_review_settings(ws, blind=False, by=OWNER)


def test_the_certificate_carries_the_reviewers_alpha_from_the_store(team, capsys, tmp_path):
    """Issue 34: ``certify --db --workspace --run`` adds reviewers' α (the agreement command's
    number, with its bootstrap spread); half the store options is one clear error."""
    from artifact_lens.certificate.schema import read_certificate

    found = agreement_json(team, capsys)
    out = tmp_path / "cert.json"
    data = str(team["root"] / "snli.jsonl")
    assert main(["-q", "certify", data, "-r", "tfidf-svd:dim=16", "--folds", "3", "--db", team["url"], "--workspace",
                 "nli", "--run", team["run"].key, "--as", CURATOR, "--out", str(out)]) == 0
    alpha = read_certificate(out)["measures"]["reviewers.alpha"]
    assert alpha["value"] == pytest.approx(found["alpha"], abs=1e-4) and alpha["worse"] == "lower" and not alpha["artifact"]
    assert alpha["stderr"] == pytest.approx((found["alpha_interval"][1] - found["alpha_interval"][0]) / 3.92, rel=0.2)
    capsys.readouterr()
    assert main(["certify", data, "--run", team["run"].key, "--out", str(tmp_path / "x.json")]) == 2
    assert "--workspace and --run" in capsys.readouterr().err


def test_evaluate_writes_the_report_the_evaluate_page_does(team, tmp_path, capsys):
    """Issue 54: the CLI's report had neither the certificate section nor the team review that the
    Evaluate page's has; with --certify and --workspace it has both, through the one use case
    (`core.usecases.evaluation`)."""
    run_file = team["run"].save(tmp_path / "run.npz")
    data = team["root"] / "snli.jsonl"
    out = tmp_path / "eval"
    assert main(["-q", "evaluate", str(data), "--run", str(run_file), "--out", str(out), "--families", "logistic",
                 "--figures", "none", "--ks", "1", "--certify", "--workspace", "nli", "--as", CURATOR,
                 "--db", team["url"]]) == 0, capsys.readouterr().err
    report = (out / "report.html").read_text()
    assert "<h2>Artifact certificate</h2>" in report and "<h2>Team review</h2>" in report
    plain = tmp_path / "plain"
    assert main(["-q", "evaluate", str(data), "--run", str(run_file), "--out", str(plain), "--families", "logistic",
                 "--figures", "none", "--ks", "1"]) == 0
    bare = (plain / "report.html").read_text()
    assert "Artifact certificate" not in bare and "Team review" not in bare
    # a workspace the reader is not in is one clear error, before any work, and nothing is written
    assert main(["-q", "evaluate", str(data), "--run", str(run_file), "--out", str(tmp_path / "x"), "--families",
                 "logistic", "--figures", "none", "--workspace", "nowhere", "--as", CURATOR, "--db", team["url"]]) == 2
    assert "nowhere" in capsys.readouterr().err and not (tmp_path / "x").exists()
