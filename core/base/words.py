"""Counts in words: "1 example", "2 examples", "1,024 gated measures" (a count a person reads is
never "1 examples")."""
from __future__ import annotations

from typing import Optional

__all__ = ["counted"]


def counted(n: int, noun: str, plural: Optional[str] = None) -> str:
    """``n`` with ``noun`` in the number it takes: ``counted(1, "example")`` is ``"1 example"``,
    ``counted(3, "gated measure")`` ``"3 gated measures"``; ``plural`` where adding "s" is wrong."""
    n = int(n)
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
