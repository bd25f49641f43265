"""The certificate's format: the JSON Schema beside this module, checked when a certificate is
written and when it is read (a certificate another version or a hand edit broke is one clear
error naming the field, never a traceback or a silent pass)."""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

from ..base import paths
from ..base.errors import InputError

__all__ = ["FORMAT", "SCHEMA_FILE", "validate", "certificate_bytes", "write_certificate", "read_certificate"]

#: the version of the certificate's layout (``certificate_format``); a reader refuses a newer one
FORMAT = 2   # 2: the cue table (``cues``); a format-1 certificate is still read
SCHEMA_FILE = Path(__file__).with_name("certificate.schema.json")
#: the largest certificate file read or written (a 100k-row split's cue table takes a few MB)
CERTIFICATE_MAX = 64 << 20


@lru_cache(maxsize=1)
def _validator():
    import jsonschema

    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def _finite(value, name: str, where: str = "") -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{name}: {where or 'a value'} is {value}; a measure that cannot be computed is null, so "
                         "write the certificate again with 'artifact-lens certify'.")
    if isinstance(value, dict):
        for k, v in value.items():
            _finite(v, name, f"{where}.{k}" if where else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _finite(v, name, f"{where}[{i}]")


def _schema_error(name: str, where: str, message: str) -> InputError:
    return InputError(f"{name} does not follow the certificate schema at {where or 'the top level'}: {message[:300]}; "
                      "write it again with 'artifact-lens certify'.")


#: the cue table's arrays, checked in bulk (`_check_cue_arrays`): a table of 100k features × 900
#: labels is 90 million entries, which jsonschema would check one Python call at a time (minutes)
_CUE_ARRAYS = ("features", "support")


def _check_cue_arrays(cues: dict, name: str) -> None:
    """The cue table's arrays as the schema gives them (``features``: strings of at most 400
    characters; ``support`` and each label's ``counts``: integers ≥ 0; each label's ``expected``:
    finite numbers ≥ 0; at most 500,000 each), and one entry per feature in each."""
    limit = 500_000
    features = cues.get("features")
    arrays = {"cues.features": features, "cues.support": cues.get("support")}
    counts = cues.get("counts")
    if isinstance(counts, dict):
        arrays.update({f"cues.counts.{label}": values for label, values in counts.items()})
    expected = cues.get("expected")
    if isinstance(expected, dict):
        arrays.update({f"cues.expected.{label}": values for label, values in expected.items()})
    for where, values in arrays.items():
        if values is None:
            continue   # a missing array is the schema's to name
        if not isinstance(values, list):
            raise _schema_error(name, where, f"{type(values).__name__} is not of type 'array'")
        if len(values) > limit:
            raise _schema_error(name, where, f"it has {len(values):,} entries, more than {limit:,}")
        if where == "cues.features":
            bad = next((i for i, v in enumerate(values) if type(v) is not str or len(v) > 400), None)
            what = "is not a string of at most 400 characters"
        elif where.startswith("cues.expected."):   # a count a random gold would have: a number, not only whole
            bad = next((i for i, v in enumerate(values) if type(v) not in (int, float) or not 0 <= v < float("inf")),
                       None)
            what = "is not a finite number ≥ 0"
        else:
            bad = next((i for i, v in enumerate(values) if type(v) is not int or v < 0), None)
            what = "is not an integer ≥ 0"
        if bad is not None:
            raise _schema_error(name, f"{where}.{bad}", f"{str(values[bad])[:40]!r} {what}")
        if isinstance(features, list) and len(values) != len(features):
            raise _schema_error(name, where, f"it has {len(values):,} entries for {len(features):,} features")


def validate(certificate, name: str = "the certificate") -> dict:
    """``certificate`` when it follows the schema; InputError naming the first field that does not."""
    if not isinstance(certificate, dict):
        raise InputError(f"{name} is not a JSON object; give a file written by 'artifact-lens certify'.")
    version = certificate.get("certificate_format")
    if isinstance(version, int) and not isinstance(version, bool) and version > FORMAT:
        raise InputError(f"{name} was made by a newer Artifact Lens (certificate format {version}; this one reads up "
                         f"to {FORMAT}); upgrade artifact-lens to read it.")
    shown = certificate
    cues = certificate.get("cues")
    if isinstance(cues, dict):   # the arrays in bulk; the schema checks the table's shape around them
        _check_cue_arrays(cues, name)
        light = {k: ([] if k in _CUE_ARRAYS and isinstance(v, list) else v) for k, v in cues.items()}
        for table in ("counts", "expected"):
            if isinstance(cues.get(table), dict):
                light[table] = {k: ([] if isinstance(v, list) else v) for k, v in cues[table].items()}
        shown = {**certificate, "cues": light}
    _finite(shown, name)   # the cue arrays were checked finite above
    error = next(iter(sorted(_validator().iter_errors(shown), key=lambda e: list(e.absolute_path))), None)
    if error is not None:
        raise _schema_error(name, ".".join(str(p) for p in error.absolute_path), error.message)
    return certificate


def certificate_bytes(certificate: dict) -> bytes:
    """The file's bytes, once validated (sorted keys: the same measures give the same bytes);
    InputError for a certificate larger than `read_certificate` reads (no file `check` refuses)."""
    validate(certificate)
    blob = (json.dumps(certificate, indent=1, sort_keys=True, allow_nan=False) + "\n").encode()
    if len(blob) > CERTIFICATE_MAX:
        cues = certificate.get("cues") or {}
        raise InputError(f"the certificate would take {len(blob):,} bytes, more than a certificate can ({CERTIFICATE_MAX:,}"
                         f" bytes, what 'check' reads): its cue table has {len(cues.get('features', [])):,} features × "
                         f"{len(cues.get('counts', {})):,} labels; certify a sample of the rows or fewer labels.")
    return blob


def write_certificate(certificate: dict, path) -> Path:
    """Validate, then write ``certificate`` to ``path`` atomically."""
    blob = certificate_bytes(certificate)
    return paths.atomic_write(path, lambda fh: fh.write(blob))




def read_certificate(path) -> dict:
    """The certificate in ``path``, read strictly (`core.base.strict_json`: bounded size and nesting,
    no repeated keys, no NaN or Infinity) and validated; InputError naming the file and what is wrong."""
    from ..base.strict_json import loads

    path = Path(path)
    try:
        if path.stat().st_size > CERTIFICATE_MAX:
            raise InputError(f"{path.name} takes {path.stat().st_size:,} bytes, more than a certificate can "
                             f"({CERTIFICATE_MAX:,}); give a file written by 'artifact-lens certify'.")
        found = loads(path.read_bytes(), max_bytes=CERTIFICATE_MAX)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file; give a certificate written by 'artifact-lens certify'.") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{path.name} is not a readable JSON certificate: {str(exc)[:200]}.") from None
    return validate(found, path.name)
