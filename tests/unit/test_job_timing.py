"""The progress text of background jobs: elapsed time, and the time left once it can be guessed."""
from hypothesis import given, strategies as st

from dashboard.job_panel import timing


def test_time_left_follows_the_pace_so_far():
    assert timing({"elapsed": 30.0, "fraction": 0.4}) == "30 s, about 45 s left"
    assert timing({"elapsed": 120.0, "fraction": 0.2}) == "120 s, about 8 min left"
    assert timing({"elapsed": 5.0, "fraction": 0.05}) == "5 s"        # too early to guess
    assert timing({"elapsed": 1.0, "fraction": 0.5}) == "1 s"         # too fast to matter
    assert timing({"elapsed": 9.0, "fraction": 1.0}) == "9 s"


@given(elapsed=st.floats(0, 1e6), fraction=st.floats(0, 1))
def test_the_text_is_always_elapsed_then_perhaps_a_finite_estimate(elapsed, fraction):
    text = timing({"elapsed": elapsed, "fraction": fraction})
    assert text.startswith(f"{elapsed:.0f} s")
    assert "nan" not in text and "inf" not in text
