"""User strings (dataset names, column names, labels, features, specs, e-mails, notes) reaching a
document, made inert: one function per output format, used by the dataset card
(`core.exports.card`), the HTML report (`core.exports.report`) and the pages. A user string
is always text: never markup, never a link or an image, never a new table row. (Figures have
their own, `core.plots.text.escape`: plotly's HTML subset.)

- `md_text`: running Markdown text and table cells: every character Markdown or GitHub's
  renderer gives a meaning inside a line (``\\ ` * _ [ ] ( ) < > # ! | ~ & $ :``) is escaped with a
  backslash (``-``, ``+`` and ``.`` matter only at a line's start, which a value never is), and line breaks (``\\n``, ``\\r``, U+2028, U+2029) and other control characters become
  a space, so one value is one line of one cell; ``@`` and the dot of ``www.`` are escaped so that
  GitHub makes no link of an address.
- In every format, a character that reorders the text around it (U+202E, right-to-left override,
  and the other bidirectional controls) is shown by its code point (``U+202E``), never obeyed.
- `md_code`: a value shown as code (a representation spec): a code span whose fence is longer
  than any run of backticks inside, with pipes escaped for a table cell.
- `html_text`: text and attribute values in HTML.
- `xml_attr`: an attribute value in XML (a Label Studio config), well-formed whatever the value holds.
- `yaml_string`: a scalar in YAML front matter (a double-quoted JSON string, which YAML reads
  back exactly).
- `terminal_text`: a value printed to a terminal: every control character (a carriage return that
  would overwrite the line, an escape sequence that would recolour or move it) shown as its
  escape (``\r``, ``\x1b``), so what is printed is what the value holds.
"""
from __future__ import annotations

import html
import json
import re

__all__ = ["md_text", "md_code", "html_text", "xml_attr", "xml_text", "yaml_string", "terminal_text", "terminal_lines",
           "visible_text", "direction_shown", "cut_middle", "MESSAGE_MAX"]

#: the longest message the CLI prints or the app shows (characters); a longer one is cut in the middle
MESSAGE_MAX = 2_000

_MD_SPECIAL = re.compile(r"([\\`*_\[\]()<>#!|~&$:@]|(?<=www)\.)", re.I)   # ':' for :emoji: and Streamlit's :red[…];
# '@' and the dot after "www" for GitHub's extended autolinks (an e-mail address, www.example.com)
#: line and paragraph separators and every other control character: one value stays one line
_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")
#: the characters that reorder the text around them (a right-to-left override makes "txt.exe" read
#: "exe.txt"): shown by their code point, never obeyed
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _bidi_shown(text: str) -> str:
    return _BIDI.sub(lambda m: f"U+{ord(m.group()):04X}", text)


def direction_shown(value) -> str:
    """``value`` with each character that reorders the text around it shown by its code point
    (``U+202E``), nothing else changed: a cell of the data as the app shows it, so "A man is
    sleeping" on screen is what the data says, not a reversal of it."""
    return _bidi_shown(str(value))


def md_text(value) -> str:
    """``value`` as literal Markdown text, safe in a table cell.

    >>> print(md_text('<img src="http://x.example/p.gif"> | a`b'))
    \\<img src="http\\://x.example/p.gif"\\> \\| a\\`b
    """
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(), _bidi_shown(_BREAKS.sub(" ", str(value))))


def md_code(value) -> str:
    """``value`` as a Markdown code span (shown as typed, nothing rendered), in a table cell (GitHub's
    tables read ``\\|`` as a pipe inside a code span too; outside a table use `md_text`)."""
    text = _bidi_shown(_BREAKS.sub(" ", str(value))).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def html_text(value) -> str:
    """``value`` as HTML text or a quoted attribute value."""
    return html.escape(str(value), quote=True)


#: what XML 1.0 cannot hold at all, escaped or not (most control characters, surrogates, U+FFFE/U+FFFF)
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_attr(value) -> str:
    """``value`` as a quoted XML attribute value, well-formed whatever it holds: a character XML
    cannot carry is shown as its escape (``\\x01``), a reordering one by its code point."""
    from xml.sax.saxutils import quoteattr

    text = _bidi_shown(str(value))
    text = _NOT_XML.sub(lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii"), text)
    return quoteattr(text, {"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def xml_text(value) -> str:
    """``value`` as XML 1.0 text for a writer that escapes the markup itself (ElementTree): a
    character XML cannot carry is shown as its escape (``\\x01``), a reordering one by its code point."""
    return _NOT_XML.sub(lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii"),
                        _bidi_shown(str(value)))


def yaml_string(value) -> str:
    """``value`` as one YAML scalar (JSON's double-quoted string is valid YAML)."""
    return json.dumps(str(value), ensure_ascii=False)


def visible_text(value) -> str:
    """``value`` with every control character shown as its escape (``\\r``, ``\\x1b``) and every
    reordering one by its code point: what it holds, on one line, in any plain-text output (a
    terminal, a workflow command, a YAML header's value)."""
    return _BREAKS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), _bidi_shown(str(value)))


def terminal_text(value) -> str:
    """``value`` as a terminal shows it literally (`visible_text`): ``"ok\\rfail"`` prints as
    ``ok\\rfail``, not as ``fail`` over ``ok``."""
    return visible_text(value)


def terminal_lines(value) -> str:
    """A message of one or more lines as a terminal shows it: each line `visible_text` (the message's
    own line breaks kept; a value it quotes cannot move the cursor, recolour or reorder the line)."""
    return "\n".join(visible_text(line) for line in str(value).split("\n"))


def cut_middle(text: str, limit: int = MESSAGE_MAX) -> str:
    """``text``, cut in its middle past ``limit`` characters: a message's start names the problem
    and its end the fix, while a value it quotes from the input (a 5 MB label) is not shown whole."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit // 2]} … [{len(text) - limit:,} characters not shown] … {text[-(limit // 2):]}"
