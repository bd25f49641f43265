"""The Evaluate page's artifact certificate (issue 34): a curator certifies the dataset and the
split at the live τ/n in a background job; the page shows the gate's table and verdict, and both
certificates download as the files ``artifact-lens check`` reads (it agrees with the page)."""
import json

from apptest_helpers import OWNER, app, no_exceptions, page, wait_for_jobs


def test_certify_the_split_against_the_dataset(fresh_server, downloads, tmp_path):
    from artifact_lens.certificate.schema import validate
    from artifact_lens.cli import main

    at = app(OWNER).run()
    at.switch_page(page("10_evaluate")).run()
    no_exceptions(at)
    at.button(key="cert_start").click().run()
    wait_for_jobs(at)
    table = [d.value for d in at.dataframe if "allowed" in d.value.columns][0]
    assert {"zstats.z_max", "partial_input.accuracy", "aflite.predictable_share"} <= set(table["measure"])
    verdicts = [s.value for s in at.success] + [w.value for w in at.warning]
    passed = not (table["status"] == "fail").any()
    # the verdict is the status; no ok column shows a warn-only row as an unticked box (issue 53, item 4)
    assert "ok" not in table.columns and set(table["status"]) <= {"pass", "fail", "warn", "not gated"}
    assert any(("within its rule" in v) == passed for v in verdicts)
    buttons = {b.proto.label: b for b in at.get("download_button")}
    for name in ("dataset", "split"):
        blob = downloads(buttons[f"Download {name}.certificate.json"])
        validate(json.loads(blob))
        (tmp_path / f"{name}.json").write_bytes(blob)
    split = json.loads((tmp_path / "split.json").read_text())
    assert split["dataset"]["examples"] < json.loads((tmp_path / "dataset.json").read_text())["dataset"]["examples"]
    assert main(["-q", "check", str(tmp_path / "dataset.json"), str(tmp_path / "split.json")]) == (0 if passed else 1)


def test_the_dataset_is_certified_once_whatever_tau_and_n_its_splits_are_certified_at(fresh_server, monkeypatch):
    """Issue 53, item 13: the whole dataset's certificate does not depend on τ/n, so certifying the
    split at another n computes only the split's."""
    from artifact_lens.dashboard.services import certificates

    calls = []
    real = certificates.certify_dataset

    def counted_certify(ds, **kwargs):
        calls.append(len(ds))
        return real(ds, **kwargs)

    monkeypatch.setattr(certificates, "certify_dataset", counted_certify)
    at = app(OWNER).run()
    at.switch_page(page("10_evaluate")).run()
    at.button(key="cert_start").click().run()
    wait_for_jobs(at)
    assert len(calls) == 1   # the dataset's (the split's goes through certify_split)
    at.switch_page(page("2_filter")).run()
    at.slider(key="w_target").set_value(0.7).run()
    at.switch_page(page("10_evaluate")).run()
    at.button(key="cert_start").click().run()
    wait_for_jobs(at)
    no_exceptions(at)
    assert len(calls) == 1 and [d.value for d in at.dataframe if "allowed" in d.value.columns]
