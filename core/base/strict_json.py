"""JSON read strictly, for files a user or another tool hands over (certificates, result files):
one key once per object, finite numbers only (no NaN, Infinity or 1e400), integers of at most 40
digits, no lone surrogates in strings, a bounded size and nesting. Anything else is a ValueError
naming the problem, never a silent "last key wins" or a traceback further on."""
from __future__ import annotations

import json
import math

__all__ = ["loads", "unique_keys"]

#: the deepest nesting accepted (a certificate is 4 deep; a result file's metadata a little more)
DEPTH_MAX = 32
#: the most digits of an integer (a float holds ~17; Python's int any number, which then overflows)
DIGITS_MAX = 40


def unique_keys(pairs) -> dict:
    """An ``object_pairs_hook``: the object, or ValueError when it repeats a key."""
    found = dict(pairs)
    if len(found) != len(pairs):
        key = next(k for i, (k, _) in enumerate(pairs) if k in dict(pairs[:i]))
        raise ValueError(f"it repeats the key {str(key)[:60]!r} (which value is meant cannot be known)")
    return found


def _constant(name: str):
    raise ValueError(f"it holds {name}, which JSON does not allow: write null for a value that is missing")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large for a float")
    return value


def _int(text: str) -> int:
    if len(text.lstrip("-")) > DIGITS_MAX:
        raise ValueError(f"an integer has {len(text)} digits (at most {DIGITS_MAX})")
    return int(text)


def _check(value, depth: int = 0) -> None:
    if depth > DEPTH_MAX:
        raise ValueError(f"it nests deeper than {DEPTH_MAX} levels")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("a string holds a lone surrogate (\\ud800…), which no text can print") from None
    elif isinstance(value, dict):
        for k, v in value.items():
            _check(k, depth + 1)
            _check(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _check(v, depth + 1)


def loads(text, *, max_bytes: int) -> object:
    """``text`` (str or bytes) as JSON, strictly (module docstring); ValueError saying what is wrong."""
    if len(text) > max_bytes:
        raise ValueError(f"it takes {len(text):,} bytes, more than the {max_bytes:,} this file can have")
    try:
        found = json.loads(text, object_pairs_hook=unique_keys, parse_constant=_constant, parse_float=_float,
                           parse_int=_int)
    except RecursionError:
        raise ValueError(f"it nests deeper than {DEPTH_MAX} levels") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"it is not JSON ({exc})") from None
    _check(found)
    return found
