"""One argument type per kind of number on the command line.

Every numeric flag is parsed by one of these, once: the value is finite, of the right kind
and in its range, or argparse prints one ``error: argument --flag: …`` line that says what
to give instead. Ranges that depend on the data (n ≤ N, k ≥ 1 example) are the engine's.
"""
from __future__ import annotations

import argparse
import math
from typing import Optional

from ..base.bounds import SEED

__all__ = ["Real", "Whole", "Size", "WholeList", "Address", "Device", "SEED_MAX", "knob_type", "add_knob"]

#: largest seed numpy's generators take from a CLI (2³² − 1, as `random_state`; `core.base.bounds.SEED`)
SEED_MAX = SEED.high


def _number(text: str, hint: str) -> float:
    try:
        value = float(str(text).strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number; {hint}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number; {hint}")
    return value


def _show(v) -> str:
    return str(v) if isinstance(v, int) else f"{v:g}"


def _range_text(lo, hi, lo_open=False, hi_open=False) -> str:
    if lo is not None and hi is not None:
        return f"in {'(' if lo_open else '['}{_show(lo)}, {_show(hi)}{')' if hi_open else ']'}"
    if lo is not None:
        return f"{'above' if lo_open else 'at least'} {_show(lo)}"
    return f"{'below' if hi_open else 'at most'} {_show(hi)}"


class Real:
    """A finite real number in a range (either end open or closed, or absent)."""

    def __init__(self, lo: Optional[float] = None, hi: Optional[float] = None, *, lo_open: bool = False,
                 hi_open: bool = False):
        self.lo, self.hi, self.lo_open, self.hi_open = lo, hi, lo_open, hi_open
        self.__name__ = "number"   # argparse names the type in some messages

    def __call__(self, text: str) -> float:
        want = _range_text(self.lo, self.hi, self.lo_open, self.hi_open) if (self.lo, self.hi) != (None, None) else ""
        hint = f"give a number {want}".rstrip() + "."
        value = _number(text, hint)
        low_bad = self.lo is not None and (value <= self.lo if self.lo_open else value < self.lo)
        high_bad = self.hi is not None and (value >= self.hi if self.hi_open else value > self.hi)
        if low_bad or high_bad:
            raise argparse.ArgumentTypeError(f"{text} is out of range; {hint}")
        return value


class Whole:
    """A whole number in [lo, hi]; ``allowed`` are extra values outside it (e.g. -1 = all cores)."""

    def __init__(self, lo: Optional[int] = None, hi: Optional[int] = None, *, allowed=(), meaning: str = ""):
        self.lo, self.hi, self.allowed, self.meaning = lo, hi, tuple(allowed), meaning
        self.__name__ = "whole number"

    def __call__(self, text: str) -> int:
        extra = "".join(f" or {a}" for a in self.allowed) + (f" ({self.meaning})" if self.meaning else "")
        hint = f"give a whole number {_range_text(self.lo, self.hi)}{extra}." if (self.lo, self.hi) != (None, None) \
            else "give a whole number."
        value = _number(text, hint)
        if value != int(value):
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number; {hint}")
        value = int(value)
        if value in self.allowed:
            return value
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise argparse.ArgumentTypeError(f"{text} is out of range; {hint}")
        return value


class Size:
    """A size as scikit-learn takes it: a count (``3000``) or a fraction (``0.3``). Text with a
    decimal point, or a number that is not whole (``1e-3``), is a fraction (``1.0`` is refused by
    the engine as "all"); any other, a count. Finite, and a count no larger than ``max_count``; the range against the data
    (k ≥ 1 example, n < N) is the engine's, whose message names the symbol."""

    def __init__(self, max_count: int = 10 ** 9):
        self.max_count = max_count
        self.__name__ = "size"

    def __call__(self, text: str):
        hint = "give a count (3000) or a fraction in (0, 1) (0.3)."
        value = _number(text, hint)
        if "." in str(text) or value != int(value):
            return value
        if abs(value) > self.max_count:
            raise argparse.ArgumentTypeError(f"{text} is larger than any dataset this tool reads "
                                             f"(at most {self.max_count:,}); {hint}")
        return int(value)


class WholeList:
    """A comma-separated list of whole numbers in [lo, hi], e.g. ``1,5,10,50``."""

    def __init__(self, lo: int = 1, hi: int = 10 ** 6):
        self.item = Whole(lo, hi)
        self.__name__ = "list"

    def __call__(self, text: str) -> tuple:
        parts = [p for p in str(text).split(",") if p.strip()]
        if not parts:
            raise argparse.ArgumentTypeError(f"'{text}' is empty; give whole numbers separated by commas, e.g. 1,5,10,50.")
        try:
            return tuple(self.item(p) for p in parts)
        except argparse.ArgumentTypeError as exc:
            raise argparse.ArgumentTypeError(f"in '{text}': {exc} (e.g. 1,5,10,50)") from None


class Address:
    """A network address ``[SCHEME://]HOST:PORT`` (a Dask scheduler), port in [1, 65535]."""

    SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
    __name__ = "address"

    def __call__(self, text: str) -> str:
        import re

        from ..base.settings import printable

        text = str(text).strip()
        shown = printable(text)   # an address may carry a password: never echoed
        hint = "give HOST:PORT, e.g. tcp://scheduler.example.org:8786"
        scheme, _, rest = text.rpartition("://")
        if scheme and scheme not in self.SCHEMES:
            raise argparse.ArgumentTypeError(f"'{shown}': unknown scheme '{scheme}://' (use one of "
                                             f"{', '.join(s + '://' for s in self.SCHEMES)}); {hint}")
        found = re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})", rest)
        if not found:
            raise argparse.ArgumentTypeError(f"'{shown}' is not an address with a host and a port; {hint}")
        if not 1 <= int(found.group(2)) <= 65535:
            raise argparse.ArgumentTypeError(f"'{shown}': port {found.group(2)} is not in [1, 65535]; {hint}")
        return (scheme or "tcp") + "://" + rest


class Device:
    """Where arithmetic runs (`core.base.devices`): numpy, cuda, cuda:N, torch, cupy or array-api.
    Whether its library and GPU are there is checked when the command starts (`common.device_from`)."""

    __name__ = "device"

    def __call__(self, text: str) -> str:
        from ..base.devices import known

        name = str(text).strip().lower()
        if not known(name):
            raise argparse.ArgumentTypeError(f"{text!r} is not a device; give cuda, cuda:N (a GPU, with PyTorch), "
                                             "torch, cupy or array-api, or leave --device out for the CPU")
        return name


def knob_type(param: str):
    """The option type of an AFLite knob (`core.aflite.knobs.KNOBS`), from its declared bounds."""
    from ..aflite.knobs import KNOBS, SIZE_COUNT_MAX

    knob = KNOBS[param]
    if knob.kind == "size":
        return Size(SIZE_COUNT_MAX)
    return Whole(int(knob.low), int(knob.high)) if knob.kind == "count" else Real(knob.low, knob.high)


def add_knob(p: argparse.ArgumentParser, param: str, *, help: Optional[str] = None, default: bool = True,
             flag: Optional[str] = None) -> None:
    """An AFLite knob's option (`core.aflite.knobs`): its flag, type and default as declared; with
    ``default=False`` none (the command's own default, said in ``help``); ``flag`` another name
    (a view's ``--m``)."""
    from ..aflite.knobs import KNOBS

    knob = KNOBS[param]
    p.add_argument(flag or knob.flag, type=knob_type(param), default=knob.default if default else None,
                   help=help or knob.help(default))
