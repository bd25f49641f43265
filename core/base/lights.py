"""The traffic lights: one vocabulary for every light in the project.

Review lights (`core.team.review`), quality lights (`core.quality`), a creator's feedback and the
creator statistics (`core.team.store`) all use these three words; "no light" has one name per
meaning: `NOT_REVIEWED` (an example no one reviewed) and `NA` (a quality component that does
not apply). Badges (text, never HTML) and colours (map points) are defined here only.
"""
from __future__ import annotations

__all__ = ["LIGHTS", "NA", "NOT_REVIEWED", "COLOURS", "EMOJI", "badge"]

#: worst to best is red, yellow, green; this order is the tables' (best first)
LIGHTS = ("green", "yellow", "red")
NA = "n/a"            # a quality component that does not apply to the example
NOT_REVIEWED = ""     # a review light of an example nobody reviewed

COLOURS = {"green": "#2e9e44", "yellow": "#e3b505", "red": "#d1352b", NOT_REVIEWED: "#b8b8b8", NA: "#b8b8b8"}
EMOJI = {"green": "🟢", "yellow": "🟡", "red": "🔴", NOT_REVIEWED: "–", NA: "–"}


def badge(light: str, words: str = "") -> str:
    """A light as text: its emoji, then ``words`` (e.g. "agreed")."""
    return f"{EMOJI.get(light, '–')} {words}".rstrip()
