"""Stable keys (`core.base.keys`): one helper for every key the project makes, and keys that never
change for the same description (run files, evaluations, maps and jobs are found again by them)."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
from hypothesis import given, settings, strategies as st

from artifact_lens.base.keys import digest, jsonable, key_of

ROOT = Path(__file__).resolve().parents[2]

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20))
descriptions = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                              st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                            max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(descriptions, st.integers(1, 64))
def test_a_key_is_the_sha256_of_the_sorted_json_it_always_was(description, length):
    """Keys made before the helper existed (sha256 of sorted JSON, cut to a length) are the keys it
    makes: stores written by earlier versions open unchanged."""
    blob = json.dumps(description, sort_keys=True, default=str)
    assert key_of(description, length) == hashlib.sha256(blob.encode()).hexdigest()[:length]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.binary(max_size=30), st.text(max_size=30)), max_size=6))
def test_a_digest_of_parts_is_the_digest_of_the_whole(parts):
    whole = b"".join(p.encode() if isinstance(p, str) else p for p in parts)
    assert digest(parts, 40) == digest(whole, 40) == hashlib.sha256(whole).hexdigest()[:40]


def test_jsonable_makes_numbers_json_whatever_held_them():
    value = {1: (np.float32(0.5), np.arange(2)), "x": [float("nan"), float("inf"), -float("inf")], "b": np.bool_(True)}
    assert jsonable(value) == {"1": [0.5, [0, 1]], "x": [None, 1e308, -1e308], "b": True}
    assert key_of(jsonable({"a": np.int64(3)})) == key_of({"a": 3})


def test_no_module_cuts_its_own_digest_into_a_key():
    """Every truncated digest (a key) goes through `core.base.keys`: found by reading every module,
    so a new key made by hand fails here the day it is written."""
    found = []
    for path in [*ROOT.glob("core/**/*.py"), *ROOT.glob("dashboard/**/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py"]:
        if path.relative_to(ROOT).as_posix() == "core/base/keys.py":
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"hexdigest\(\)\s*\[", line):
                found.append(f"{path.relative_to(ROOT)}:{i}")
    assert not found, found


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=6), st.binary(max_size=6)), min_size=1, max_size=4),
       st.lists(st.one_of(st.text(max_size=6), st.binary(max_size=6)), min_size=1, max_size=4))
def test_digest_of_tells_apart_parts_that_join_to_the_same_text(a, b):
    """Each part is self-delimiting: ("ab", "c") and ("a", "bc") are different inputs, and so are
    text and bytes of the same characters."""
    from artifact_lens.base.keys import digest_of

    assert (digest_of(*a) == digest_of(*b)) == ([(type(p), p) for p in a] == [(type(p), p) for p in b])


def test_digest_of_names_an_array_by_dtype_shape_and_values():
    from artifact_lens.base.keys import digest_of

    x = np.arange(6, dtype=np.int32)
    seen = {digest_of(x), digest_of(x.reshape(2, 3)), digest_of(x.astype(np.uint32)), digest_of(x[::-1].copy()),
            digest_of(np.array(["0", "1"], dtype=object)), digest_of(np.empty(0))}
    assert len(seen) == 6
    assert digest_of(x) == digest_of(x.copy()) == digest_of(np.asfortranarray(x.reshape(2, 3)).reshape(-1, order="C"))


def test_every_hash_goes_through_this_module():
    """Issue 33: one helper for every digest: no other module of the tool reaches hashlib."""
    import ast

    found = []
    for path in [*ROOT.glob("core/**/*.py"), *ROOT.glob("dashboard/**/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py"]:
        if path == ROOT / "core" / "base" / "keys.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] in ("hashlib", "_hashlib", "_blake2", "_sha256") for n in names):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"hash through core.base.keys (digest, digest_of, key_of) instead: {found}"
