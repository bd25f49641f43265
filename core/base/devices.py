"""Where array arithmetic runs: the names a user gives (``device=``, ``--device``,
``ARTIFACT_LENS_DEVICE``) and the array namespace each one means (issue 32). AFLite's ridge family
(`core.aflite.backends`), the cartography's training (`core.dynamics.cartography`) and the
evaluation's linear families (`core.models.on_device`) compute on it.

- ``None`` or ``"numpy"``: NumPy itself, on the CPU (each caller's own engine);
- ``"cuda"``, ``"cuda:N"``: PyTorch on that GPU; ``"torch"``: PyTorch on the CPU;
- ``"cupy"``: CuPy on its current GPU;
- ``"array-api"``: NumPy through the array API, and ``"array-api-strict"``: the standard's
  reference namespace, which fails on any call outside the standard (the tests' check that code
  on a device is written against the standard alone).
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Optional

import numpy as np

from .errors import InputError

__all__ = ["DEVICES", "known", "namespace", "arrays_on", "to_host", "where", "computing_on", "current"]

#: what ``device=`` accepts besides ``cuda:N``
DEVICES = ("numpy", "cuda", "torch", "cupy", "array-api", "array-api-strict")


def known(name: str) -> bool:
    """Whether ``name`` is a device this tool names (installed or not)."""
    return name in DEVICES or re.fullmatch(r"cuda:\d{1,3}", name) is not None


def namespace(device: Optional[str]):
    """(xp, device object) for ``device``; None for the NumPy engine. A clear error when the
    library is not installed or the GPU is not there."""
    if device in (None, "numpy"):
        return None
    name = str(device)
    if name == "array-api":
        import array_api_compat.numpy as xp

        return xp, None
    if name == "array-api-strict":
        try:
            import array_api_strict as xp
        except ImportError:
            raise InputError("device='array-api-strict' needs the array-api-strict package: pip install "
                             "array-api-strict.") from None
        return xp, None
    if name == "torch" or name.startswith("cuda") and known(name):
        try:
            import torch
            import array_api_compat.torch as xp
        except ImportError:
            raise InputError(f"device={name!r} needs PyTorch: pip install torch (with CUDA for a GPU), or leave "
                             "device unset to run on the CPU.") from None
        if name != "torch" and not torch.cuda.is_available():
            raise InputError(f"device={name!r}: PyTorch sees no CUDA GPU on this machine; leave device unset to run "
                             "on the CPU.")
        return xp, torch.device("cpu" if name == "torch" else name)
    if name == "cupy":
        try:
            import array_api_compat.cupy as xp
        except ImportError:
            raise InputError("device='cupy' needs CuPy with a GPU: pip install cupy-cuda12x, or leave device unset "
                             "to run on the CPU.") from None
        return xp, None
    raise InputError(f"device={name!r} is not known: give one of {', '.join(DEVICES)} or cuda:N.")


def arrays_on(device: Optional[str]):
    """(xp, put): the namespace of ``device`` and the function that takes a host array there; NumPy
    itself and ``np.asarray`` for the CPU (None or "numpy")."""
    found = namespace(device)
    if found is None:
        return np, np.asarray
    xp, place = found
    return xp, (lambda a: xp.asarray(a)) if place is None else (lambda a: xp.asarray(a, device=place))


def to_host(a) -> np.ndarray:
    """A device array as a NumPy array."""
    if hasattr(a, "get") and not isinstance(a, np.ndarray):   # CuPy
        return a.get()
    if hasattr(a, "cpu"):                                       # PyTorch
        return a.cpu().numpy()
    return np.from_dlpack(a)


def where(device: Optional[str]) -> str:
    """What a result records as where it was computed: ``cpu`` for the NumPy engine, else the name."""
    return "cpu" if device in (None, "numpy") else str(device)


#: where a representation's arithmetic runs (its truncated SVD), set by `computing_on` for one
#: computation in its context: a representation's spec names what Φ is, never where it was computed
_CURRENT: ContextVar[Optional[str]] = ContextVar("artifact_lens_device", default=None)


@contextmanager
def computing_on(device: Optional[str]):
    """Within the block, `current` is ``device`` (None: the CPU), in this context only: another
    thread's or user's computation is left where it was."""
    token = _CURRENT.set(None if device in (None, "numpy") else str(device))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current() -> Optional[str]:
    """The device of the enclosing `computing_on` block; None (the CPU) outside one."""
    return _CURRENT.get()
