"""Reading the code in a model's reply (pure text: no parsing, nothing run)."""

from __future__ import annotations

import re
from collections.abc import Iterator

_LANGUAGE = re.compile(r"[\w+.-]*")
_CODE_LANGUAGES = ("", "python", "py", "python3")


def _fences(text: str) -> Iterator[tuple[str, str]]:
    """(language, body) of each fenced block, in order, in one pass over the text.

    A block opens at three backticks anywhere in a line, then spaces or tabs and the language
    ([\\w+.-]*), the rest of that line ignored; its body runs to the first later line that starts
    with spaces or tabs and three backticks, or to the end of the text. (This was a regex whose
    failed openings each rescanned the rest of the text: quadratic in backticks.)"""
    pos = 0
    while (start := text.find("```", pos)) >= 0:
        line_end = text.find("\n", start + 3)
        if line_end < 0:
            return  # no line break after this opening, so none after any later one either
        after = start + 3
        while after < line_end and text[after] in " \t":
            after += 1
        language = _LANGUAGE.match(text, after, line_end)
        lang = language[0] if language else ""
        body_start = line = line_end + 1
        while True:  # each line of the body is looked at once
            indent = line
            while indent < len(text) and text[indent] in " \t":
                indent += 1
            if text.startswith("```", indent):
                yield lang, text[body_start:line]
                pos = indent + 3
                break
            next_break = text.find("\n", indent)
            if next_break < 0:
                yield lang, text[body_start:]
                return
            line = next_break + 1


def extract_code(text: str) -> str | None:
    """The Python code in a model's reply: the first ```python (or bare ```) fenced block, else
    the whole text if it contains 'def '; None if there is no code. Linear in the text."""
    for lang, body in _fences(text):
        if lang.lower() in _CODE_LANGUAGES and body.strip():
            return body.rstrip() + "\n"
    return text if "def " in text else None
