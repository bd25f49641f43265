"""What the pages say matches what they show (issue 53, item 14): the PVI text names the fields Φ
reads beyond the partial input only when it does, and counts are in words."""
from dashboard.services.information import extra_fields
from dashboard.widgets.information_panel import _more_bits_in_part


def test_the_pvi_text_says_phi_mixes_fields_only_when_it_does():
    both, part = "tfidf-svd:fields=premise+hypothesis,dim=64", "tfidf-svd:fields=hypothesis"
    assert extra_fields(both, part) == ["premise"]
    assert "Φ also reads premise" in _more_bits_in_part({"representation": both}, {"representation": part})
    for spec in ("tfidf-svd:fields=hypothesis,dim=64", "embedding", "not a spec ::"):
        assert extra_fields(spec, part) == []
        said = _more_bits_in_part({"representation": spec}, {"representation": part})
        assert "also reads" not in said and "mixes" not in said
