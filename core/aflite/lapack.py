"""The three LAPACK routines of the ridge family, callable from many threads at once.

The ridge family's solves (`core.aflite.scorers.solve_partition`: an RFP Cholesky ``dpftrf`` and
its solve ``dpftrs``, 64 per phase at d = 768) and its Gram updates (``ssfrk``) are most of a
run's time. scipy's wrappers of them hold the GIL while LAPACK works, so the engine's threads
took turns: two threads were no faster than one (issue 32). Here the very same routines of the
very same library scipy links (its bundled OpenBLAS) are called through ctypes, which lets the
GIL go for the call, so m solves on n threads run n at a time. BLAS is on one thread during a
fit (`core.base.cores.one_blas_thread`), so each call computes exactly what scipy's wrapper computes:
the result does not depend on the path or on the thread count.

Where that library is not found (another scipy build, MKL, another platform), or a check at
first use finds its answer differs from scipy's by a single bit, the scipy wrappers are used as
before: slower on many cores, never different.
"""
from __future__ import annotations

import ctypes
import threading
from pathlib import Path
from typing import Optional

import numpy as np

__all__ = ["pftrf", "pftrs", "sfrk", "native"]

_int, _char, _len = ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t
_f64 = ctypes.POINTER(ctypes.c_double)
_f32 = ctypes.POINTER(ctypes.c_float)


class _Native:
    """scipy's OpenBLAS opened through ctypes (None where it cannot be used)."""

    def __init__(self, lib):
        self.dpftrf, self.dpftrs, self.ssfrk = lib.scipy_dpftrf_, lib.scipy_dpftrs_, lib.scipy_ssfrk_
        for fn in (self.dpftrf, self.dpftrs, self.ssfrk):
            fn.restype = None


_lock = threading.Lock()
_native: Optional[_Native] = None
_checked = False


def _open() -> Optional[_Native]:
    import scipy

    folder = Path(scipy.__file__).resolve().parent.parent / "scipy.libs"
    for path in sorted(folder.glob("libscipy_openblas*.so*")) if folder.is_dir() else ():
        try:
            lib = ctypes.CDLL(str(path))
            return _Native(lib)
        except (OSError, AttributeError):   # not loadable here, or a build without these names
            continue
    return None


def native() -> Optional[_Native]:
    """The ctypes path, once checked bit for bit against scipy's wrappers; None to use those."""
    global _native, _checked
    if _checked:
        return _native
    with _lock:
        if not _checked:
            found = _open()
            _native = found if found is not None and _agrees(found) else None
            _checked = True
    return _native


def _ref(x):
    return ctypes.byref(x)


def _pftrf_native(lib: _Native, n: int, a: np.ndarray) -> int:
    info = _int(0)
    lib.dpftrf(b"N", b"U", _ref(_int(n)), a.ctypes.data_as(_f64), _ref(info), _len(1), _len(1))
    return info.value


def _pftrs_native(lib: _Native, n: int, a: np.ndarray, b: np.ndarray) -> int:
    info = _int(0)
    lib.dpftrs(b"N", b"U", _ref(_int(n)), _ref(_int(b.shape[1])), a.ctypes.data_as(_f64), b.ctypes.data_as(_f64),
               _ref(_int(b.shape[0])), _ref(info), _len(1), _len(1))
    return info.value


def _sfrk_native(lib: _Native, n: int, k: int, alpha: float, at: np.ndarray, beta: float, c: np.ndarray) -> None:
    lib.ssfrk(b"N", b"U", b"N", _ref(_int(n)), _ref(_int(k)), _ref(ctypes.c_float(alpha)), at.ctypes.data_as(_f32),
              _ref(_int(max(at.shape[0], 1))), _ref(ctypes.c_float(beta)), c.ctypes.data_as(_f32),
              _len(1), _len(1), _len(1))


def _agrees(lib: _Native) -> bool:
    """Both paths on the same small problem give the same bits (else the library is not scipy's)."""
    from scipy.linalg import lapack

    rng = np.random.default_rng(0)
    n, k = 9, 23
    Zt = np.asfortranarray(rng.normal(size=(n, k)).astype(np.float32))
    c0 = np.zeros(n * (n + 1) // 2, np.float32)
    ref_c = lapack.ssfrk(n, k, 1.0, Zt, 0.0, c0.copy())
    got_c = c0.copy()
    _sfrk_native(lib, n, k, 1.0, Zt, 0.0, got_c)
    a = ref_c.astype(np.float64)   # the Gram of 23 random columns in 9 dimensions: positive definite
    ref_a, info = lapack.dpftrf(n, a.copy())
    b = np.asfortranarray(rng.normal(size=(n, 3)))
    ref_x, _ = lapack.dpftrs(n, ref_a, b.copy())
    got_a = a.copy()
    got_info = _pftrf_native(lib, n, got_a)
    got_x = b.copy(order="F")
    _pftrs_native(lib, n, got_a, got_x)
    return (np.array_equal(ref_c, got_c) and info == got_info == 0 and np.array_equal(ref_a, got_a)
            and np.array_equal(ref_x, got_x))


def pftrf(n: int, a: np.ndarray):
    """``dpftrf`` (transr N, uplo U) of the float64 RFP array ``a``, in place: (a, info)."""
    lib = native()
    if lib is None or not a.flags.c_contiguous or a.dtype != np.float64:
        from scipy.linalg import lapack

        return lapack.dpftrf(n, a, overwrite_a=1)
    return a, _pftrf_native(lib, n, a)


def pftrs(n: int, a: np.ndarray, b: np.ndarray):
    """``dpftrs`` with the factor ``a`` on the float64 Fortran-ordered ``b``, in place: (x, info)."""
    lib = native()
    if lib is None or not b.flags.f_contiguous or b.dtype != np.float64 or b.ndim != 2:
        from scipy.linalg import lapack

        return lapack.dpftrs(n, a, b, overwrite_b=1)
    return b, _pftrs_native(lib, n, a, b)


def sfrk(n: int, k: int, alpha: float, at: np.ndarray, beta: float, c: np.ndarray) -> np.ndarray:
    """``ssfrk`` (transr N, uplo U, trans N): c = alpha·AᵀA-style update of the float32 RFP ``c`` in
    place, with ``at`` the F-contiguous (n, k) float32 matrix; returns c."""
    lib = native()
    if lib is None or not at.flags.f_contiguous or at.dtype != np.float32 or not c.flags.c_contiguous:
        from scipy.linalg import lapack

        return lapack.ssfrk(n, k, alpha, at, beta, c, overwrite_c=1)
    _sfrk_native(lib, n, k, alpha, at, beta, c)
    return c
