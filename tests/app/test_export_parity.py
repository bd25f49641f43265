"""One workflow, two front ends: the filtered split exported from the Export page and by
`artifact-lens export` from the same saved run, at the page's live τ/n, is the same file
byte for byte, with the same manifest (CSV and JSONL; retained, removed and all)."""
import json
import shlex

import pytest

from apptest_helpers import app, no_exceptions, page


@pytest.mark.parametrize("which, fmt", [("retained", "csv"), ("removed", "jsonl"), ("all", "csv")])
def test_the_export_page_and_the_cli_write_the_same_bytes(fresh_server, downloads, tmp_path, which, fmt):
    from artifact_lens.cli import main
    from artifact_lens.dashboard.process.shared import server

    at = app().run()
    at.switch_page(page("7_export")).run()
    at.radio(key="exp_which").set_value(which).run()
    at.radio(key="exp_fmt").set_value(fmt).run()
    at.button(key="exp_prepare").click().run()
    no_exceptions(at)
    page_file, page_manifest = (downloads(b) for b in at.get("download_button")[:2])   # then the dataset card

    sess = at.session_state["artifact_lens"]
    run = server().store.get(sess.run_key)
    run.save(tmp_path / "run.npz")
    out = tmp_path / f"split.{fmt}"
    shown = json.loads(page_manifest)["export"]          # the live τ/n the page exported at
    tau, n = shown["tau"], shown["target_size"]
    assert n != run.trajectory.n                         # not the fitted n: the live answer is compared
    argv = ["-q", "export", sess.source.source, "--run", str(tmp_path / "run.npz"), "--which", which,
            "--format", fmt, "--tau", repr(tau), "--target-size", str(n), "--out", str(out)]
    assert main(argv) == 0
    assert out.read_bytes() == page_file
    cli_manifest = json.loads((tmp_path / "split.manifest.json").read_text())
    # the one difference: the CLI records the command it was given (the page has none)
    assert cli_manifest["export"].pop("command") == "artifact-lens " + shlex.join(argv)
    assert json.dumps(cli_manifest, indent=1) == page_manifest.decode()


def test_the_export_page_offers_the_dataset_card_of_its_split(fresh_server, downloads):
    from huggingface_hub import DatasetCard

    at = app().run()
    at.switch_page(page("7_export")).run()
    button = [b for b in at.get("download_button") if b.proto.label.startswith("Download the dataset card")][0]
    card = DatasetCard(downloads(button).decode())
    manifest = json.loads(downloads([b for b in at.get("download_button") if "manifest" in b.proto.label][0]))
    assert f"| rows in this split | {manifest['export']['rows']:,} |" in card.text
    assert card.data.source_datasets == ["demo:nli"] and "### Before filtering" in card.text


def test_a_member_demoted_after_preparing_a_file_is_told_and_the_file_goes(fresh_server):
    """Issue 35, item 8: the download button cannot speak when the store refuses its click, so the
    page says it: the member's next page run (the role watch reruns it within seconds) names the
    change, and the prepared file is gone."""
    from apptest_helpers import OWNER, texts
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    owner.switch_page(page("8_review")).run()
    owner.button(key="rv_save_run").click().run()
    ws = server().team.workspaces_of(OWNER)[0][0]
    curator = "curator@team.org"
    server().team.set_role(ws, curator, "curator", by=OWNER)
    cur = app(curator).run()
    cur.switch_page(page("7_export")).run()
    cur.button(key="exp_prepare").click().run()
    no_exceptions(cur)
    (prepared,) = server().exports.glob(".*.tmp")
    assert [b for b in cur.get("download_button") if "Download" in str(b.proto.label)][0]
    server().team.set_role(ws, curator, "annotator", by=OWNER)
    cur.run()
    no_exceptions(cur)
    assert "The file you had prepared was deleted when your role changed" in texts(cur)
    assert not prepared.exists() and not cur.get("download_button")
    cur.run()   # said once, where it happened: the next run shows the plain role line
    assert "exports need a curator or owner" in texts(cur) and "had prepared" not in texts(cur)


def test_the_export_pages_datasets_folder_carries_the_certificate(fresh_server, downloads):
    """Issue 34: the Export page's datasets folder (a zip) holds the split's certificate.json,
    valid under the schema and of the exported rows, and its README the certificate's headline."""
    import io
    import zipfile

    from huggingface_hub import DatasetCard

    from artifact_lens.certificate.schema import validate

    at = app().run()
    at.switch_page(page("7_export")).run()
    at.radio(key="exp_fmt").set_value("datasets").run()
    at.button(key="exp_prepare").click().run()
    no_exceptions(at)
    folder = zipfile.ZipFile(io.BytesIO(downloads(at.get("download_button")[0])))
    names = {n.split("/")[-1]: n for n in folder.namelist()}
    cert = validate(json.loads(folder.read(names["certificate.json"])))
    manifest = json.loads(folder.read(names["manifest.json"]))
    assert cert["dataset"]["examples"] == manifest["export"]["rows"]
    card = DatasetCard(folder.read(names["README.md"]).decode())
    assert card.data.to_dict()["artifact_certificate"]["fingerprint"] == cert["dataset"]["fingerprint"]
