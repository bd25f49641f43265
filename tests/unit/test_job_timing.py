"""The progress text of background jobs: elapsed time, and the time left once it can be guessed,
which never rises (issue 45, walk item 5: "about 2 min left" became "about 36 min left")."""
from hypothesis import given, settings, strategies as st

from artifact_lens.base.progress import Remaining
from artifact_lens.dashboard.widgets.job_panel import timing


def _shown(elapsed, fraction, estimator=None):
    estimator = estimator or Remaining()
    left = estimator.left(elapsed, fraction)
    return timing({"elapsed": elapsed, "fraction": fraction, "left": left, "over": estimator.over})


def test_time_left_follows_the_pace_so_far():
    assert _shown(30.0, 0.4) == "30 s, about 45 s left"
    assert _shown(120.0, 0.2) == "120 s, about 8 min left"
    assert _shown(5.0, 0.05) == "5 s"        # too early to guess
    assert _shown(1.0, 0.5) == "1 s"         # too fast to matter
    assert _shown(9.0, 1.0) == "9 s"


def test_a_slower_stage_says_longer_than_estimated_not_a_larger_number():
    est = Remaining()
    assert _shown(20.0, 0.5, est) == "20 s, about 20 s left"
    assert _shown(30.0, 0.52, est) == "30 s, about 10 s left"      # the pace says 28 s: the shown one counts down
    assert _shown(45.0, 0.55, est) == "45 s, longer than estimated"
    assert _shown(400.0, 0.9, est) == "400 s, longer than estimated"   # never a number again, never a larger one


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0.01, 100), st.floats(0, 0.2)), min_size=1, max_size=30))
def test_the_time_left_never_rises_and_the_text_is_always_finite(steps):
    est, elapsed, fraction, last = Remaining(), 0.0, 0.0, None
    for dt, df in steps:
        elapsed, fraction = elapsed + dt, min(fraction + df, 1.0)
        left = est.left(elapsed, fraction)
        text = timing({"elapsed": elapsed, "fraction": fraction, "left": left, "over": est.over})
        assert text.startswith(f"{elapsed:.0f} s") and "nan" not in text and "inf" not in text
        if left is not None:
            assert left >= 0 and (last is None or left <= last[1] - (elapsed - last[0]) + 1e-6)
            last = (elapsed, left)
        if est.over:
            assert left is None


def test_the_pvi_job_gives_each_input_its_share_and_its_name(tmp_path):
    """PVI showed "done (61 s)" for 100 s before any result: the partial input ran at 100 % after the
    full input's "PVI done". Each input now has its share of the bar, and its steps say which input
    runs (`core.usecases.information`, what the Predictability page's job calls)."""
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.usecases.information import usable_information

    seen = []
    usable_information(load_dataset("demo:nli:n=200"), "tfidf-svd:dim=8", "tfidf-svd:fields=hypothesis,dim=8",
                       folds=3, cache_dir=tmp_path, progress=lambda f, m="": seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert ("PVI of Φ: fold 1 of 3" in [m for _, m in seen]
            and (0.5, "PVI of Φ done") in seen and (1.0, "PVI of the partial input done") in seen)
    assert all(m.startswith(("PVI of Φ", "PVI of the partial input")) for _, m in seen)


def test_a_step_that_took_no_time_does_not_make_the_rest_look_fast():
    """Issue 64, item 12: multiple-choice items' representation comes from the cache, 40 % of the bar
    at once; the pace over all the time so far then promised 1.2 s where 1.4 s were left, and the job
    said "longer than estimated" a second later. Measured over the second half of the time, an even
    pace after the jump is never overrun."""
    est = Remaining()
    est.left(0.3, 0.4)                          # the cached step: no time at all
    for tenth in range(1, 60):                  # then an even 0.01 of the bar every 0.1 s
        elapsed, fraction = 0.3 + 0.1 * tenth, 0.4 + 0.01 * tenth
        left = est.left(elapsed, fraction)
        assert not est.over, (elapsed, fraction)
        if left is not None:
            assert left >= (1 - fraction) / 0.1 - 1e-9   # never less than what is truly left
