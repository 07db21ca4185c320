"""Text from models, servers and files made safe to print on a terminal.

A reply or an error message is data: printed as it came, an ESC sequence in it could clear the
screen or set the window title, a carriage return or backspaces could overwrite what was
printed before, and a newline in a one-line error could fake a line of our own. Control
characters (C0 but newline and tab in a reply, DEL, C1) are printed as escapes (`\\x1b`, `\\r`),
and so is a lone surrogate, which no terminal encoding can print. Everything else is left as
it is (`--json` output is JSON, escaped by its encoder).
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls, lone surrogates; newline and tab are kept in a reply
_UNSAFE_IN_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_UNSAFE_IN_LINE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_text(text: str) -> str:
    """`text` (a model's reply) with its control characters escaped; newlines and tabs kept."""
    return _UNSAFE_IN_TEXT.sub(_escape, text)


def terminal_line(text: str) -> str:
    """`text` as one line (an error message): every control character escaped, newlines too."""
    return _UNSAFE_IN_LINE.sub(_escape, text)
