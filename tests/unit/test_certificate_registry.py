"""The certificate's measures in one registry (issue 43), and a gate the candidate cannot set (the
certificate issue's hostile sweep): every measure `certify` writes is registered; what a measure is
(direction, artifact or not) comes from the registry, so a candidate that rewrites its own file
("artifact": false, "worse": "lower", "stderr": 1e308) still fails on a planted rise; a baseline
without values cannot vouch; certificates made with other settings or labels are not compared."""
import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artifact_lens.base.errors import InputError
from artifact_lens.certificate.gate import COMPARED_SETTINGS, compare
from artifact_lens.certificate.registry import MEASURES, spec_of


@pytest.fixture(scope="module")
def baseline():
    from artifact_lens.certificate.measures import certify
    from artifact_lens.data.demos import make_nli

    return certify(make_nli(n=300, random_state=0), representation="tfidf-svd:dim=16", folds=3)


def test_every_measure_certify_writes_is_registered_and_reads_as_registered(baseline):
    for name, entry in baseline["measures"].items():
        spec = spec_of(name)
        assert spec is not None, name
        assert (entry["worse"], entry["artifact"], entry["unit"]) == (spec.worse, spec.artifact, spec.unit), name
    assert spec_of("zstats.over_line") is None and spec_of("partial_input.accuracy[x]") is None
    assert spec_of("no.such_measure") is None and len(MEASURES) >= 14


def _planted(baseline):
    cand = copy.deepcopy(baseline)
    cand["measures"]["partial_input.accuracy"]["value"] += 0.2   # the partial input now gives labels away
    cand["measures"]["near_duplicates.within"]["value"] += 0.2   # and a fifth of the examples are copies
    return cand


FORGERIES = st.fixed_dictionaries({}, optional={
    "artifact": st.just(False), "worse": st.sampled_from(["lower", "neither"]),
    "stderr": st.sampled_from([1e308, 1e6, 10.0, None]), "unit": st.text(max_size=5),
    "description": st.text(max_size=10)})


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(forged=FORGERIES)
def test_a_candidate_cannot_set_its_own_gate(baseline, forged):
    """A measure a rule gates fails and a warning one warns, whatever the candidate's file says of them."""
    cand = _planted(baseline)
    for name in ("partial_input.accuracy", "near_duplicates.within"):
        cand["measures"][name].update(forged)
    table = compare(baseline, cand, {"near_duplicates.within": {"max_rise": 0.01}}).set_index("measure")
    assert table.loc["near_duplicates.within", "ok"] == False, (forged, table.loc["near_duplicates.within", "why"])  # noqa: E712
    assert table.loc["partial_input.accuracy", "status"] == "warn", (forged, table.loc["partial_input.accuracy", "why"])


def test_a_baseline_without_values_cannot_vouch(baseline):
    empty = copy.deepcopy(baseline)
    for entry in empty["measures"].values():
        entry["value"] = None
    gated = {"near_duplicates.within": {"max_rise": 0.01}}
    table = compare(empty, _planted(baseline), gated).set_index("measure")
    warning = [n for n in table.index if spec_of(n) is not None and spec_of(n).warns and n not in gated]
    assert (table.loc[list(gated), "ok"] == False).all()   # noqa: E712
    assert warning and (table.loc[warning, "status"] == "warn").all()


@pytest.mark.parametrize("key", COMPARED_SETTINGS + ("labels",))
def test_certificates_made_differently_are_not_compared(baseline, key):
    other = copy.deepcopy(baseline)
    if key == "labels":
        other["dataset"]["labels"] = {"yes": 1, "no": 1}
    else:
        other["settings"][key] = "something else"
    with pytest.raises(InputError, match="made differently") as info:
        compare(baseline, other)
    assert (key if key != "labels" else "the labels") in str(info.value)
    assert compare(baseline, copy.deepcopy(baseline))["ok"].ne(False).all()   # the same way: compared, and passes
