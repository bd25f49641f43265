"""PVI is one use case (issue 54): `core.usecases.information` holds which inputs it reads, and the
CLI's ``pvi`` and the dashboard's Predictability page call it, so the same data with the same
settings gives the same bytes. Before, the CLI read a partial input only with ``--partial``, the
dashboard always read the default one, and for preference pairs each had its own Φ."""
import pytest

from artifact_lens.data.sources import load_dataset
from artifact_lens.usecases.information import pvi_inputs


def test_the_inputs_follow_one_rule():
    nli = load_dataset("demo:nli:n=60")
    assert pvi_inputs(nli) == {"full": "tfidf-svd", "partial": "tfidf-svd:fields=hypothesis"}
    assert pvi_inputs(nli, "tfidf-svd:dim=8", "none") == {"full": "tfidf-svd:dim=8"}
    assert pvi_inputs(nli, None, "tfidf-svd:fields=premise") == {"full": "tfidf-svd",
                                                                "partial": "tfidf-svd:fields=premise"}
    pairs = load_dataset("demo:pairs:n=60")
    # Φ is the pairs' default (the responses' difference): the partial inputs are the others
    assert pvi_inputs(pairs) == {"full": "pair-diff", "style_only": "pair-style"}
    assert pvi_inputs(pairs, "pair-diff:prompt=1") == {"full": "pair-diff:prompt=1", "response_only": "pair-diff",
                                                       "style_only": "pair-style"}


@pytest.mark.parametrize("source", ["demo:nli:n=300", "demo:pairs:n=200"])
def test_the_cli_and_the_dashboard_write_the_same_pvi_bytes(source, tmp_path, monkeypatch):
    from artifact_lens.cli import main
    from artifact_lens.cli.common import write_table
    from artifact_lens.usecases.information import pvi_table
    from artifact_lens.dashboard.services import current, information
    from artifact_lens.dashboard.state.session import Source
    from service_tabs import new_tab

    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / "cache"))
    tab = new_tab()
    try:
        tab.session.source = Source(source, {}, "demo")
        tab.session.ds_key, ds = current.load(tab, tab.session.source)
        tab.session.spec = current.check_spec(pvi_inputs(ds)["full"], ds)
        information.start(tab)
        job = information.job(tab).wait()
        assert job.status == "done", job.traceback
        shown = tmp_path / "dashboard.csv"
        write_table(pvi_table(information.result(tab), ds), shown)
    finally:
        tab.server.finish_stop()
    cli = tmp_path / "cli.csv"
    assert main(["-q", "pvi", source, "--out", str(cli)]) == 0
    assert cli.read_bytes() == shown.read_bytes()
