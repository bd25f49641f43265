"""The cue-by-cue comparison (`core.certificate.cues.cue_changes`) on generated cue tables: what
it lists is always a cue leaning towards its label beyond the line, finite (valid JSON), and a
table compared with itself lists nothing."""
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from core.certificate.cues import cue_changes

LABELS = ["a", "b", "c"]


@st.composite
def certificates(draw):
    features = draw(st.lists(st.sampled_from([f"w{i}" for i in range(12)]), min_size=1, max_size=12, unique=True))
    counts = {lab: [] for lab in LABELS}
    support = []
    for _ in features:
        per = [draw(st.integers(0, 40)) for _ in LABELS]
        support.append(max(sum(per), 2))
        per[0] += support[-1] - sum(per)
        for lab, k in zip(LABELS, per):
            counts[lab].append(k)
    totals = {lab: draw(st.integers(0, 500)) + sum(counts[lab]) for lab in LABELS}
    return {"dataset": {"labels": totals}, "settings": {"min_count": draw(st.integers(1, 6))},
            "cues": {"min_count": 2, "features": features, "support": support, "counts": counts}}


@settings(max_examples=150, deadline=None)
@given(before=certificates(), after=certificates(), alpha=st.floats(1e-6, 0.5))
def test_what_is_listed_leans_towards_its_label_beyond_the_line(before, after, alpha):
    found = cue_changes(before, after, alpha)
    json.dumps(found.to_dict("records"), allow_nan=False)   # finite, whatever the counts
    for cue in found.itertuples(index=False):
        assert cue.z > cue.line and cue.share_after > cue.chance
        assert cue.support_after >= after["settings"]["min_count"]
    assert cue_changes(after, after, alpha).empty   # nothing changed: nothing is new or stronger
