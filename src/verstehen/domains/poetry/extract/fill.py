"""A blank's replacement out of a reply (`extract_fill`, `why_no_fill`; the rules are the
package docstring's)."""

from __future__ import annotations

import re

from verstehen.domains.poetry.extract.common import (
    ANNOT_RE,
    BULLET_RE,
    LABEL_RE,
    QUOTES,
    WORD_FLAG_RE,
    blocks_of,
    first_read,
    is_commentary,
    is_lead_in,
    is_note,
    regions_of,
    unemphasized,
)
from verstehen.reading import answer_text, ends_inside_reasoning


def _clean_fill(line: str) -> str:
    s = LABEL_RE.sub("", line.strip().lstrip(">").strip()).strip()
    s = unemphasized(s).strip()
    while len(s) > 1 and s[0] == s[-1] and s[0] in "_`":
        s = s.strip(s[0]).strip()
    s = ANNOT_RE.sub("", s)
    if len(s) > 1 and s[0] in QUOTES and s[-1] in QUOTES:
        s = s[1:-1].strip()
    return s


_CUE_RE = re.compile(
    r"\b(?:blank|fill(?:s|ed|ing)?|replace(?:s|d|ment)?|answer|choice|option)\b", re.I)
_SPANS_RE = re.compile(r"\*\*([^*\n]+)\*\*|[\"“]([^\"”\n]+)[\"”]")


def _fill_of(line: str) -> str:
    """The replacement a line gives: the line itself, cleaned, or the one bold or quoted span of
    a sentence about the blank ("The blank takes **world**.")."""
    if _CUE_RE.search(_SPANS_RE.sub("", line)):
        spans = {g for m in _SPANS_RE.finditer(line) for g in m.groups() if g}
        if len(spans) == 1:
            return _clean_fill(spans.pop())
    return _clean_fill(line)


def _fill_lines(text: str) -> list[list[str]]:
    """The blocks of a region after its leading lead-ins."""
    lines = text.strip().splitlines()
    while sum(1 for x in lines if x.strip()) > 1 and is_lead_in(lines[0]):
        lines.pop(0)
    return blocks_of(lines)


def _fill(text: str, anchored: bool) -> str | None:
    blocks = _fill_lines(text)
    if not blocks:
        return None
    if anchored:
        line = blocks[-1][-1]
        if is_commentary([line]):
            return None
        s = _fill_of(line)
        around = unemphasized(LABEL_RE.sub("", line.strip().lstrip(">").strip()))
        alone = not around.replace(s, "", 1).strip(QUOTES + "`_ ")
        return s if s and alone else None
    head = blocks[0]
    said = [x for x in head if not is_note(x)]
    if len(said) != 1 or is_note(head[0]) or (len(blocks) > 1 and not is_commentary(blocks[1])):
        return None
    return _fill_of(said[0]) or None


def extract_fill(reply: str) -> str | None:
    """A blank's replacement: one line, without label, emphasis or wrapping quotes, that only
    commentary follows; else None (rules above)."""
    return first_read(reply, WORD_FLAG_RE, _fill)


def why_no_fill(reply: str) -> str:
    """Why `extract_fill` reads no replacement in the reply, in words."""
    if ends_inside_reasoning(reply):
        return "the reply ends inside its reasoning block (<think> is never closed)"
    part = regions_of(reply, WORD_FLAG_RE)[0][0] if answer_text(reply) else ""
    blocks = _fill_lines(part)
    if not blocks:
        return "expected one line, the blank's replacement: the reply is empty there"
    said = [x for x in blocks[0] if not is_note(x)]
    if any(unemphasized(x).strip().lower() in ("or", "or:") for x in said):
        return "alternatives joined by \"or\", where one replacement was asked for"
    if len(said) > 1 and all(BULLET_RE.match(x.strip().lstrip(">").strip()) for x in said):
        return f"a list of {len(said)} options, where one replacement was asked for"
    if len(said) > 1:
        return f"expected one line, the blank's replacement: {len(said)} lines in the answer"
    return ("expected one line, the blank's replacement: text that is not commentary follows "
            "it")
