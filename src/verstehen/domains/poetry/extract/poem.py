"""A poem out of a reply (`extract_poem`; the rules are the package docstring's)."""

from __future__ import annotations

import re

from verstehen.domains.poetry.extract.common import (
    ANNOT_RE,
    BULLET_RE,
    POEM_FLAG_RE,
    QUOTES,
    blocks_of,
    first_read,
    is_commentary,
    is_lead_in,
    unemphasized,
)

# a line that names a part of the poem ("Quatrain 1:", "**Couplet**", "(Sestet)"): no verse
_PART_RE = re.compile(r"[(\[]?(?:quatrain|couplet|stanza|octave|sestet|volta|tercet)"
                      r"(?:\s+(?:\d+|[ivx]+|one|two|three|four))?[)\]]?\s*:?", re.I)
_FORM = r"(?:haiku|sonnet|anapest(?:s|ic)?|slant[\s-]+rhymes?|iambic[\s-]+pentameter)"
# a title that names the form: "Haiku", "Autumn Haiku", "A Shakespearean Sonnet on Loss",
# "Sonnet 18", "Haiku: Rain", "Sonnet of the Verdant Glade"
_FORM_TITLE_RE = re.compile(
    rf"(?:(?:an?|the|my|one)\s+)?(?:[\w'’-]+\s+){{0,2}}?{_FORM}"
    r"(?:\s+(?:no\.?\s*)?\d+|\s*[:—–-]\s*\S.*|\s+(?:on|about|of|for|in|to)\s+\S.*)?", re.I)
_VERSE_END = ",;.!?"


def _marks(line: str) -> tuple[str, str]:
    """A line's wrapping markup ("**" bold, "*"/"_" italics, '"' quotes, in the order met) and
    the text inside it."""
    s, wrap = line.strip().lstrip(">").strip(), ""
    while len(s) > 1:
        if len(s) > 4 and s[:2] == s[-2:] and s[:2] in ("**", "__"):
            wrap, s = wrap + "**", s[2:-2].strip()
        elif s[0] == s[-1] and s[0] in "*_":
            wrap, s = wrap + "*", s[1:-1].strip()
        elif s[0] in "\"“" and s[-1] in "\"”":
            wrap, s = wrap + '"', s[1:-1].strip()
        else:
            break
    return wrap, s


def _is_title(lines: list[str]) -> bool:
    """Whether the first of these lines is the poem's title (module doc)."""
    rest = [x for x in lines[1:] if x.strip()]
    if not rest:
        return False
    s = lines[0].strip()
    if s.startswith("#"):
        return True
    wrap, inner = _marks(s)
    inner = unemphasized(inner).strip()
    if re.match(r"title\s*:\s*\S", inner, re.I):
        return True
    if (not inner or len(inner) > 60 or len(inner.split()) > 10
            or inner[-1] in _VERSE_END or inner[-1] in QUOTES):
        return False
    if _FORM_TITLE_RE.fullmatch(inner) and "," not in inner:
        return True
    set_apart = "**" in wrap or '"' in wrap
    blank_after = not lines[1].strip()
    return set_apart and (blank_after or _marks(rest[0])[0] != wrap)


def _is_label(line: str) -> bool:
    """A heading inside the poem: a markdown heading, or a line naming a part of it."""
    s = line.strip()
    return s.startswith("#") or bool(_PART_RE.fullmatch(unemphasized(s).strip()))


def _clean_line(line: str) -> str:
    s = line.strip().lstrip(">").strip()
    s = unemphasized(BULLET_RE.sub("", s)).strip()
    s = ANNOT_RE.sub("", s)
    if len(s) > 1 and s[0] in QUOTES and s[-1] in QUOTES:
        s = s[1:-1].strip()
    return s


def _poem(text: str, anchored: bool) -> str | None:
    raw = text.strip()
    if len(raw) > 1 and raw[0] in QUOTES and raw[-1] in QUOTES:
        raw = raw[1:-1]
    lines = raw.splitlines()
    while lines and (is_lead_in(lines[0]) or _is_title(lines)):
        lines.pop(0)
    kept: list[str] = []
    blocks = [b for block in blocks_of(lines) if (b := [x for x in block if not _is_label(x)])]
    for i, block in enumerate(blocks):
        if i and is_commentary(block):
            if anchored:  # the poem does not end at the flag: a draft
                return None
            break
        kept += [c for x in block if (c := _clean_line(x))]
    poem = "\n".join(kept)
    # quotes around the whole poem, inside its emphasis (`**"First line,**` ... `last!"**`)
    if sum(poem.count(q) for q in "\"“”") == 2 and poem[:1] in "\"“" and poem[-1:] in "\"”":
        poem = poem[1:-1].strip()
    return poem or None


def extract_poem(reply: str) -> str | None:
    """The poem in a reply, one line per line, or None when nothing is left (rules above)."""
    return first_read(reply, POEM_FLAG_RE, _poem)
