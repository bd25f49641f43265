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


def validate(certificate, name: str = "the certificate") -> dict:
    """``certificate`` when it follows the schema; InputError naming the first field that does not."""
    if not isinstance(certificate, dict):
        raise InputError(f"{name} is not a JSON object; give a file written by 'artifact-lens certify'.")
    version = certificate.get("certificate_format")
    if isinstance(version, int) and not isinstance(version, bool) and version > FORMAT:
        raise InputError(f"{name} was made by a newer Artifact Lens (certificate format {version}; this one reads up "
                         f"to {FORMAT}); upgrade artifact-lens to read it.")
    _finite(certificate, name)
    error = next(iter(sorted(_validator().iter_errors(certificate), key=lambda e: list(e.absolute_path))), None)
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "the top level"
        raise InputError(f"{name} does not follow the certificate schema at {where}: {error.message[:300]}; "
                         "write it again with 'artifact-lens certify'.")
    return certificate


def certificate_bytes(certificate: dict) -> bytes:
    """The file's bytes, once validated (sorted keys: the same measures give the same bytes)."""
    validate(certificate)
    return (json.dumps(certificate, indent=1, sort_keys=True, allow_nan=False) + "\n").encode()


def write_certificate(certificate: dict, path) -> Path:
    """Validate, then write ``certificate`` to ``path`` atomically."""
    blob = certificate_bytes(certificate)
    return paths.atomic_write(path, lambda fh: fh.write(blob))


#: the largest certificate file read (a 100k-row split's cue table takes a few MB)
CERTIFICATE_MAX = 64 << 20


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
