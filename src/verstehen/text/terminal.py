"""Text from models, servers and files made safe to show, on a terminal or in the report.

A reply or an error message is data: printed as it came, an ESC sequence in it could clear the
screen or set the window title, a carriage return or backspaces could overwrite what was
printed before, a newline in a one-line error could fake a line of our own, and a bidi
override (U+202E) or an invisible character could make a name read as another. Control
characters (Unicode category Cc: C0, DEL, C1), format characters (Cf: the bidi embeddings,
overrides and isolates U+202A-U+202E and U+2066-U+2069, the marks U+200E/U+200F and U+061C,
zero-width spaces and joiners, the soft hyphen, the BOM, tag characters), the line and
paragraph separators (Zl, Zp) and lone surrogates are shown as escapes (`\\x1b`, `\\r`,
`\\u202e`). A reply's text (`terminal_text`) keeps its newlines and tabs, and the zero-width
joiner and non-joiner (U+200D, U+200C), which emoji sequences and Persian or Indic writing need
and which reorder nothing; a line (`terminal_line`: an error, a name, a label) keeps none of
them. Everything else is left as it is (`--json` output is JSON, escaped by its encoder).
"""

from __future__ import annotations

import re
from functools import cache

# Cc, Cf (Unicode 15.1), Zl, Zp and lone surrogates; tests/test_shown_text.py checks this
# against every character Python's unicodedata puts in those categories
UNSAFE = ("\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
          "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
          "\ud800-\udfff\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
          "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
REPLY_KEEPS = "\n\t\u200c\u200d"  # what a reply's text keeps of them
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


@cache
def _unsafe(keep: str) -> re.Pattern[str]:
    return re.compile(f"(?![{re.escape(keep)}])[{UNSAFE}]" if keep else f"[{UNSAFE}]")


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
            else f"\\U{code:08x}")


def shown(text: str, keep: str = "") -> str:
    """`text` with its control, format and separator characters escaped, but those in
    `keep`."""
    return _unsafe(keep).sub(_escape, text)


def cut(text: str, most: int = 300) -> str:
    """`text` cut to `most` characters, saying how many more there were (a value in a
    message: a 1 MB name stays a line)."""
    if len(text) <= most:
        return text
    return f"{text[:most]}… ({len(text) - most:,} more characters)"


def terminal_text(text: str) -> str:
    """`text` (a model's reply) with its control and format characters escaped; newlines,
    tabs and the zero-width (non-)joiner kept."""
    return shown(text, REPLY_KEEPS)


def terminal_line(text: str) -> str:
    """`text` as one line (an error message, a name): every control and format character
    escaped, newlines too."""
    return shown(text)
