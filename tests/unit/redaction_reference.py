"""The redaction of secrets as it was specified before it was made linear (issue 45, sweep item 4):
three regular expressions, quadratic in a long run of letters and digits (a match is tried at
every position of the run). The tests check `core.base.settings.printable` against it on
generated text; `benchmarks/redaction_bench.py` times the two side by side."""
import re

_URL = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<rest>[^\s'\"<>]*)")
_SECRET_PARAM = re.compile(r"(?i)([?&;](?:[a-z_]*pass[a-z_]*|pwd|[a-z_]*secret[a-z_]*|[a-z_]*token[a-z_]*|"
                           r"[a-z_]*key)=)[^&;#\s]*")
_HOST = re.compile(r"[A-Za-z0-9.\-\[\]:%]*(?=[/?#]|$)")


def reference_printable(text) -> str:
    def hide(m):
        rest = _SECRET_PARAM.sub(r"\1***", m.group("rest"))
        ends = [i for i, c in enumerate(rest) if c == "@" and ":" in rest[:i] and _HOST.match(rest, i + 1)]
        if ends:
            rest = f"{rest[:rest.index(':')]}:***" + rest[ends[-1]:]
        return m.group("scheme") + rest

    return _URL.sub(hide, str(text))
